"""The rounds benchmark: fixed rounds against the round controller, on the same claims."""

from __future__ import annotations

import re

import pytest

from claimcourt.bench.rounds import main

pytestmark = pytest.mark.timeout(120)


def test_the_controller_stops_offline_high_effort_debates_before_the_fixed_four_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--claims", "1", "--effort", "high"])
    out = capsys.readouterr().out
    fixed, steered = out.split("dynamic rounds on")
    assert "4 rounds: 6" in fixed and "6 of 6 runs scored" in steered
    rounds = float(re.search(r"rounds per run +([\d.]+)", steered).group(1))  # type: ignore[union-attr]
    assert 2 <= rounds < 4
    calls = [float(c) for c in re.findall(r"LLM calls per run +([\d.]+)", out)]
    assert calls[1] < calls[0]
