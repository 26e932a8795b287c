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
    # and every effort's input costs less with the caches than without, on each path
    for effort in efforts:
        for without, with_ in re.findall(r"\$([\d.]+) without caching, \$([\d.]+) with it", effort):
            assert float(with_) < float(without), effort
        assert effort.count("without caching") == 2
