"""The scorecard's dollars say what they are: spent on a provider, or (the offline reasoner's calls)
metered as if billed at a model's prices, with nothing spent."""

from __future__ import annotations

from claimcourt.bench.card import Section, cost_rows, render
from claimcourt.bench.harness import METER_MODEL, Job, _outcome
from claimcourt.models import ModelUsage, Usage

METERED = f"$ per item, metered as if billed at {METER_MODEL} prices"
SPENT = "$ per item, spent"


def _job(system: str) -> Job:
    return Job(bench="calibration", item="c1", system=system, repeat=0, claim="Sea levels are rising")


def _usage(provider: str, model: str, cost: float) -> Usage:
    return Usage(
        models={
            model: ModelUsage(provider=provider, input_tokens=900, output_tokens=100, calls=3, cost_usd=cost)
        },
        total_cost_usd=cost,
        input_tokens=900,
        output_tokens=100,
    )


def test_the_offline_reasoners_metered_dollars_are_not_counted_as_spent() -> None:
    # Given a job the metered offline reasoner answered (its ledger prices its calls at METER_MODEL's)
    outcome = _outcome(
        _job("debate"), "succeeded", error=None, wall_s=1.0, usage=_usage("offline", METER_MODEL, 0.012)
    )
    # Then nothing was spent, and the metered figure is kept apart
    assert (outcome.cost_usd, outcome.metered_usd) == (0.0, 0.012)
    rows = {row.label: row.values for row in cost_rows([outcome], ["debate"])}
    assert rows[SPENT] == {"debate": 0.0}
    assert rows[METERED] == {"debate": 0.012}
    printed = render(Section("calibration", "calibration", ["debate"], cost_rows([outcome], ["debate"])))
    assert "metered as if billed at claude-sonnet-4-6 prices" in printed and "spent" in printed


def test_a_models_dollars_are_spent_and_nothing_is_metered() -> None:
    outcome = _outcome(
        _job("judge"),
        "succeeded",
        error=None,
        wall_s=1.0,
        usage=_usage("anthropic", "claude-sonnet-4-6", 0.02),
    )
    assert (outcome.cost_usd, outcome.metered_usd) == (0.02, 0.0)
    rows = {row.label: row.values for row in cost_rows([outcome], ["judge"])}
    assert rows[SPENT] == {"judge": 0.02}
    assert METERED not in rows  # no metered row when nothing was metered
