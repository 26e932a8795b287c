"""debate/refusal.py: how a refusal shortens a debate (the last round it leaves, who is absent, what the
result says followed), and how the CLI says it."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from claimcourt.debate.refusal import absent, early_end, last_round, warning
from claimcourt.local.render import render_result
from claimcourt.models import (
    Argument,
    EarlyEnd,
    Interval,
    Point,
    Refusal,
    Result,
    Side,
    StructuralAnalysis,
    Usage,
    Verdict,
)

REASON = "I will not argue this: SECRET."


def argued(side: Side, round: int) -> Argument:
    point = Point(sub_claim_id="sc1", argument="The record shows it.", implied_score=60, confidence=0.6)
    return Argument(side=side, round=round, points=[point])


def declined(side: Side, round: int) -> Argument:
    return Argument(side=side, round=round, refusal=Refusal(reason=REASON))


def test_nobody_declined_leaves_the_debate_as_it_was() -> None:
    said = [argued("for", 1), argued("against", 1)]
    assert last_round(said, None, 3) == 3 and early_end(said, None, 3) is None
    assert not absent(said, "for", 2)


@pytest.mark.parametrize(("limit", "last"), [(3, 2), (2, 2), (1, 1)])
def test_arguing_at_once_a_refusal_leaves_the_other_side_the_next_round_within_the_limit(
    limit: int, last: int
) -> None:
    said = [declined("for", 1), argued("against", 1)]
    assert last_round(said, None, limit) == last
    # the side that declined is absent from every later round, never from its own
    assert absent(said, "for", 2) and not absent(said, "for", 1) and not absent(said, "against", 2)


def test_after_the_answer_round_the_result_says_who_answered_and_when() -> None:
    said = [
        declined("for", 1),
        argued("against", 1),
        Argument(side="for", round=2, absent=True),
        argued("against", 2),
    ]
    end = early_end(said, None, 3)
    assert end == EarlyEnd(
        side="for",
        round=1,
        reason=REASON,
        answered_by="against",
        answered_in_round=2,
        followed="the against side made its one counter-argument turn (round 2), reading that no argument"
        " was made; then the debate ended",
    )
    assert warning(end) == f"Ended early: the for side declined to argue in round 1; {end.followed}."


def test_a_refusal_at_the_limit_says_no_answer_turn_was_possible() -> None:
    end = early_end([argued("for", 2), declined("against", 2)], None, 2)
    assert end is not None and end.answered_by is None
    assert end.followed == "round 2 was the last: no answer turn was possible; the debate ended"


def test_both_declining_at_once_ends_at_once_and_the_for_side_is_named_first() -> None:
    said = [declined("against", 1), declined("for", 1)]
    assert last_round(said, None, 3) == 1
    end = early_end(said, None, 3)
    assert end is not None and (end.side, end.answered_by) == ("for", None)
    assert end.followed == "the against side declined too, in the same round; the debate ended at once"


def test_an_answer_that_declines_too_is_said() -> None:
    said = [
        declined("for", 1),
        argued("against", 1),
        Argument(side="for", round=2, absent=True),
        declined("against", 2),
    ]
    end = early_end(said, None, 3)
    assert end is not None and end.answered_by is None
    assert end.followed == "the against side declined too (round 2); the debate ended"


def test_in_turn_the_refusals_round_is_the_last() -> None:
    # a first speaker's refusal is answered in its own round; a second speaker's came after the first spoke
    assert last_round([declined("for", 1), argued("against", 1)], "for", 3) == 1
    end = early_end([argued("for", 1), declined("against", 1)], "for", 3)
    assert (
        end is not None and end.followed == "the for side had already spoken; the debate ended after round 1"
    )


def test_the_cli_prints_the_early_end_once_with_its_reason() -> None:
    end = EarlyEnd(side="for", round=1, reason=REASON, followed="the debate ended at once")
    result = Result(
        run_id="run_1",
        claim="Arctic sea ice has declined since 1979",
        mode="spectral",
        overall_score=80,
        interval=Interval(low=70, high=90),
        overall_verdict=Verdict.SUPPORTED,
        interval_method="judge",
        rounds=1,
        sub_claims=[],
        what_would_change=[],
        structural_analysis=StructuralAnalysis(),
        sources=[],
        reasoner="anthropic",
        usage=Usage(),
        ended_early=end,
        warnings=["Another warning.", warning(end)],
    )
    out = io.StringIO()
    render_result(Console(file=out, width=400, color_system=None), result)
    printed = out.getvalue()
    assert f"⚠ {warning(end)} (its reason: {REASON})" in printed
    assert printed.count("Ended early") == 1 and "⚠ Another warning.\n" in printed
