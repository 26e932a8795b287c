"""The prompt-cost benchmark runs a debate per effort and prints what each asks of a model."""

from __future__ import annotations

import re

import pytest

from claimcourt.bench.prompt_cost import measure


def test_effort_low_asks_less_of_a_model_than_standard_and_high(capsys: pytest.CaptureFixture[str]) -> None:
    measure("Sea levels are rising and glaciers are retreating", "claude-sonnet-4-6")
    out = capsys.readouterr().out
    totals = [int(n) for n in re.findall(r"^  run +\d+ +(\d+)", out, flags=re.M)]
    assert len(totals) == 3 and totals[0] < totals[1] < totals[2], out
    # no moderator call is spent after the last round: standard (2 rounds) asks it once
    standard = out.split("effort standard")[1].split("effort high")[0]
    assert re.search(r"^  moderate +1 ", standard, flags=re.M), standard
