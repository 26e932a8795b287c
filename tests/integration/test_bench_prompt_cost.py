"""The prompt-cost benchmark runs a debate per effort and prints what each asks of a model, billed with
and without the providers' prompt caches."""

from __future__ import annotations

import re

import pytest

from claimcourt.bench.prompt_cost import measure


def test_effort_low_asks_less_of_a_model_than_standard_and_high(capsys: pytest.CaptureFixture[str]) -> None:
    measure("Sea levels are rising and glaciers are retreating", "claude-sonnet-4-6")
    out = capsys.readouterr().out
    efforts = out.split("effort ")[1:]
    assert [e.split(":")[0] for e in efforts] == ["low", "standard", "high"]
    for protocol in ("anthropic", "openai"):
        runs = [re.search(rf"{protocol} .*?^    run +(\d+) +([\d,]+)", e, re.M | re.S) for e in efforts]
        totals = [int(m.group(2).replace(",", "")) for m in runs if m]
        assert len(totals) == 3 and totals[0] < totals[1] < totals[2], out
    # no moderator call is spent after the last round: standard (2 rounds) asks it once, on each path
    assert len(re.findall(r"^    moderate +1 ", efforts[1], flags=re.M)) == 2, efforts[1]
    # and every effort's input costs less with the caches than without, on each path, and less again on
    # a service whose last run, of another claim, wrote the tools and rules within the cache's lifetime
    for effort in efforts:
        alone = re.findall(r"\$([\d.]+) without caching, \$([\d.]+) with it", effort)
        warm = re.findall(r"after another run within the cache's lifetime: \$([\d.]+)", effort)
        assert len(alone) == len(warm) == 2, effort
        for (without, with_), after in zip(alone, warm, strict=True):
            assert float(after) < float(with_) < float(without), effort
        # a 1-hour cache of them: the hour's first run pays their write at 2×, a later one reads them
        [(first, later)] = re.findall(r"the hour's first run \$([\d.]+), each later one \$([\d.]+)", effort)
        assert float(later) == float(warm[0]) < float(alone[0][1]) < float(first), effort
