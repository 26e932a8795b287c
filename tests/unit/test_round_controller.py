"""The round controller (debate/control.py): each of its five outcomes from constructed states, the
round bounds, safety always stopping, and the signals it measures."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from claimcourt.debate.argue import PERSONAS
from claimcourt.debate.control import RoundState, decide, fixed_rounds, signals, summarize, tfidf_cosine
from claimcourt.models import Argument, ModeratorView, Point, Refusal, RoundAction, RoundDecision

SAME_FOR = "Tide gauges and satellites both show the sea rising about 3 mm a year since 1993."
SAME_AGAINST = "Some gauges on rising land show falling relative sea level, so the rise is not universal."


def arg(side: str, round: int, score: int, text: str, cites: Sequence[str] = ()) -> Argument:
    point = Point(
        sub_claim_id="sc1", argument=text, implied_score=score, confidence=0.7, citations=list(cites)
    )
    return Argument(side=side, round=round, points=[point])  # type: ignore[arg-type]


def view(recommendation: str = "continue", provisional: int = 60) -> ModeratorView:
    return ModeratorView(
        decisive_dispute="the rate of rise",
        dispute_sub_claim_id="sc1",
        next_query="satellite altimetry sea level",
        recommendation=recommendation,  # type: ignore[arg-type]
        provisional_score=provisional,
    )


def state(
    round: int = 3,
    *,
    moderator: ModeratorView | str | None = "continue",
    moderated: bool = True,
    repeated: bool = False,
    far_apart: bool = False,
    persona: int = 0,
    max_rounds: int = 5,
    previous_provisional: int | None = None,
) -> RoundState:
    """Round `round` after a round before it: the same words again (`repeated`), or new ones citing
    new evidence; the sides far apart (80 vs 20) or close (62 vs 58). The moderator recommends
    `moderator` (a view, a recommendation, or None: refused, or not asked when not `moderated`)."""
    pro_score, con_score = (80, 20) if far_apart else (62, 58)
    before_for = arg("for", max(1, round - 1), pro_score, SAME_FOR, ["E1"])
    before_against = arg("against", max(1, round - 1), con_score, SAME_AGAINST, ["E2"])
    if repeated:
        now_for = arg("for", round, pro_score, SAME_FOR, ["E1"])
        now_against = arg("against", round, con_score, SAME_AGAINST, ["E2"])
    else:
        now_for = arg(
            "for", round, pro_score + 8, "Glacier mass loss in the Alps doubled after 2000.", ["E7"]
        )
        now_against = arg("against", round, con_score - 8, "Antarctic ice gained mass in one survey.", ["E8"])
    first = round == 1  # nothing before it
    return RoundState(
        round=round,
        min_rounds=2,
        max_rounds=max_rounds,
        persona=persona,
        case_for=now_for,
        case_against=now_against,
        previous_for=None if first else before_for,
        previous_against=None if first else before_against,
        earlier=[] if first else [before_for, before_against],
        moderator=view(moderator) if isinstance(moderator, str) else moderator,
        moderated=moderated,
        previous_provisional=previous_provisional,
    )


def decided(s: RoundState) -> tuple[RoundAction, str]:
    return decide(s, signals(s))


def test_a_debate_that_stopped_moving_with_the_sides_close_stops_converged() -> None:
    action, rule = decided(state(repeated=True))
    assert action is RoundAction.STOP_CONVERGED and rule.startswith("measured")


def test_a_debate_stuck_far_apart_escalates_to_a_fresh_persona() -> None:
    action, rule = decided(state(repeated=True, far_apart=True))
    assert action is RoundAction.ESCALATE_NEW_PERSONA and rule.startswith("stuck")
    assert action.another_round


def test_a_stuck_debate_with_every_persona_tried_stops() -> None:
    action, rule = decided(state(repeated=True, far_apart=True, persona=len(PERSONAS) - 1))
    assert action is RoundAction.STOP_CONVERGED and rule.startswith("stalemate")


def test_a_moving_debate_continues() -> None:
    action, rule = decided(state())
    assert action is RoundAction.CONTINUE and rule.startswith("open")


def test_the_moderators_convergence_counts_only_when_the_scores_agree() -> None:
    settled = state(moderator=view("converged", 60), previous_provisional=58)
    moving = state(moderator=view("converged", 60), previous_provisional=20)
    assert decided(settled)[0] is RoundAction.STOP_CONVERGED
    assert decided(moving)[0] is RoundAction.CONTINUE


def test_the_moderators_escalation_is_followed_while_a_persona_is_left() -> None:
    assert decided(state(moderator="escalate"))[0] is RoundAction.ESCALATE_NEW_PERSONA
    last = state(moderator="escalate", persona=len(PERSONAS) - 1)
    assert decided(last)[0] is RoundAction.CONTINUE


@pytest.mark.parametrize("repeated", [True, False])
def test_max_rounds_stops_whatever_was_measured(repeated: bool) -> None:
    action, rule = decided(state(round=5, max_rounds=5, repeated=repeated, moderator=None, moderated=False))
    assert action is RoundAction.STOP_MAX_ROUNDS and not action.another_round
    assert rule == "max_rounds: round 5 of 5"


def test_before_min_rounds_the_debate_goes_on_even_when_converged() -> None:
    action, rule = decided(state(round=1, repeated=True, moderator="converged"))
    assert action is RoundAction.CONTINUE and rule.startswith("min_rounds")


@pytest.mark.parametrize("round", [1, 2, 5])
def test_safety_always_stops_even_in_round_one_and_at_max(round: int) -> None:
    flagged = state(round=round, max_rounds=5, moderator="safety")
    assert decided(flagged)[0] is RoundAction.STOP_SAFETY
    refused = state(round=round, max_rounds=5, moderator=None, moderated=True)
    assert decided(refused) == (RoundAction.STOP_SAFETY, "safety: the moderator said refused")
    assert fixed_rounds(refused, signals(refused))[0] is RoundAction.STOP_SAFETY


def test_fixed_rounds_ignore_the_measurements() -> None:
    stuck = state(round=2, repeated=True, far_apart=True, max_rounds=4)
    assert fixed_rounds(stuck, signals(stuck))[0] is RoundAction.CONTINUE
    last = state(round=4, max_rounds=4, moderator=None, moderated=False)
    assert fixed_rounds(last, signals(last))[0] is RoundAction.STOP_MAX_ROUNDS


def test_the_signals_say_what_moved() -> None:
    same = signals(
        state(repeated=True, far_apart=True, moderator=view("continue", 61), previous_provisional=55)
    )
    assert same.similarity_for == same.similarity_against == 1.0
    assert (same.score_shift, same.score_gap, same.new_evidence, same.new_points) == (0.0, 60.0, 0, 0)
    assert (same.provisional_score, same.provisional_shift, same.moderator) == (61, 6, "continue")
    moved = signals(state())
    assert moved.similarity_for is not None and moved.similarity_for < 0.3
    assert (moved.score_shift, moved.new_evidence, moved.new_points) == (8.0, 2, 2)
    assert signals(state(moderator=None, moderated=False)).moderator == "not asked"


def test_tfidf_cosine_is_one_for_the_same_text_and_low_for_unrelated_text() -> None:
    corpus = [SAME_FOR, SAME_AGAINST]
    assert tfidf_cosine(SAME_FOR, SAME_FOR, corpus) == pytest.approx(1.0)
    assert tfidf_cosine(SAME_FOR, "Carbon taxes raise revenue.", corpus) == 0.0


def _shadowed(*controller: RoundAction) -> list[RoundDecision]:
    """Fixed rounds in shadow mode, the controller deciding `controller` after each."""
    last = len(controller)
    return [
        RoundDecision(
            round=n,
            action=RoundAction.STOP_MAX_ROUNDS if n == last else RoundAction.CONTINUE,
            mode="shadow",
            controller_action=action,
        )
        for n, action in enumerate(controller, start=1)
    ]


def test_a_controller_that_stopped_early_would_save_rounds_and_would_not_have_continued() -> None:
    go, stop = RoundAction.CONTINUE, RoundAction.STOP_CONVERGED
    control = summarize(_shadowed(go, stop, go), [])
    assert control is not None
    # its "continue" after round 3 is about a round it would never have reached
    assert (control.controller_stop_round, control.would_save_rounds, control.would_continue) == (2, 1, False)
    control = summarize(_shadowed(go, go, go), [])
    assert control is not None
    assert (control.controller_stop_round, control.would_save_rounds, control.would_continue) == (
        None,
        0,
        True,
    )


# A model told not to repeat itself rewords a settled position every round: the same points, the same
# evidence, the same scores, in other words (as the played debates did: 0.41-0.62 similar).
REWORDED_FOR = (
    "Measured from 1993 onward, satellite altimetry and the tide-gauge network agree on a global rise "
    "of roughly three millimetres per year, which is the sub-claim as stated."
)
REWORDED_AGAINST = (
    "Where the land itself is lifting, gauges record the local sea falling; that qualifies the claim's "
    "universality rather than the global mean, which I do not dispute."
)


def reworded(far_apart: bool = False) -> RoundState:
    s = state(3, repeated=True, far_apart=far_apart, moderator="continue")
    pro, con = (80, 20) if far_apart else (62, 58)
    return RoundState(
        **{
            **s.__dict__,
            "case_for": arg("for", 3, pro, REWORDED_FOR, ["E1"]),
            "case_against": arg("against", 3, con, REWORDED_AGAINST, ["E2"]),
        }
    )


def test_a_debate_that_only_rewords_itself_has_converged() -> None:
    s = reworded()
    measured = signals(s)
    assert measured.similarity_for is not None and measured.similarity_for < 0.85  # the wording moved
    assert (measured.score_shift, measured.new_evidence) == (0.0, 0)
    action, rule = decide(s, measured)
    assert action is RoundAction.STOP_CONVERGED, rule


def test_a_debate_that_only_rewords_itself_far_apart_escalates() -> None:
    action, rule = decided(reworded(far_apart=True))
    assert action is RoundAction.ESCALATE_NEW_PERSONA, rule


def declined(side: str, round: int) -> Argument:
    return Argument(side=side, round=round, refusal=Refusal(reason="SECRET: I will not argue this."))  # type: ignore[arg-type]


def with_refusal(s: RoundState, side: str) -> RoundState:
    """`s` with `side`'s argument of its round a refusal."""
    return RoundState(**{**s.__dict__, f"case_{side}": declined(side, s.round)})


def answer_round(round: int, max_rounds: int, *, first: str | None = None) -> RoundState:
    """The round after the for side declined: it was absent, the against side argued alone."""
    before = state(round - 1, max_rounds=max_rounds)
    return RoundState(
        **{
            **state(round, max_rounds=max_rounds).__dict__,
            "case_for": Argument(side="for", round=round, absent=True),
            "previous_for": declined("for", round - 1),
            "earlier": [declined("for", round - 1), before.case_against],
            "moderator": None,
            "moderated": False,
            "first": first,
        }
    )


@pytest.mark.parametrize("round", [1, 3])  # under min_rounds and beyond it
def test_a_side_that_declines_while_both_argue_at_once_gets_its_opponent_one_answer_round(round: int) -> None:
    # Given the against side declines in a round the two sides argued at once, with rounds left
    s = with_refusal(state(round, moderator="continue", max_rounds=5), "against")
    # Then one more round follows (the for side's one counter-argument turn), in every mode
    for action, rule in (decided(s), fixed_rounds(s, signals(s))):
        assert action is RoundAction.CONTINUE, rule
        assert rule == (
            f"refused: the against side declined to argue in round {round}; the for side answers once,"
            f" in round {round + 1}, alone, then the debate ends"
        )


@pytest.mark.parametrize("max_rounds", [2, 3, 5])
def test_after_the_one_answer_round_the_debate_stops_whatever_the_round_limits(max_rounds: int) -> None:
    # Given the round after the for side's refusal in round 1: the against side answered alone
    s = answer_round(2, max_rounds)
    # Then the debate stops, naming the refusal and the answer, though rounds were left
    for action, rule in (decided(s), fixed_rounds(s, signals(s))):
        assert action is RoundAction.STOP_CONVERGED, rule
        assert rule == (
            "refused: the for side declined to argue in round 1; the against side made its one"
            " counter-argument turn (round 2), reading that no argument was made; then the debate ended"
        )


def test_both_sides_declining_at_once_ends_the_debate_at_once_even_under_min_rounds() -> None:
    s = with_refusal(with_refusal(state(1, max_rounds=3), "for"), "against")
    for action, rule in (decided(s), fixed_rounds(s, signals(s))):
        assert action is RoundAction.STOP_CONVERGED, rule
        assert rule == "refused: both sides declined to argue in round 1; the debate ended at once"


def test_a_refusal_in_the_last_round_says_no_answer_turn_was_possible() -> None:
    s = with_refusal(state(3, max_rounds=3), "for")
    for action, rule in (decided(s), fixed_rounds(s, signals(s))):
        assert action is RoundAction.STOP_MAX_ROUNDS, rule
        assert rule == (
            "refused: the for side declined to argue in round 3; round 3 was the last: no answer turn was"
            " possible; the debate ended"
        )


def test_in_turn_a_first_speakers_refusal_is_answered_in_its_round_and_the_debate_stops_there() -> None:
    # Given the for side speaks first and declines in round 1; the against side answered after it
    s = RoundState(**{**with_refusal(state(1, max_rounds=3), "for").__dict__, "first": "for"})
    action, rule = decided(s)
    assert action is RoundAction.STOP_CONVERGED
    assert "the against side made its one counter-argument turn (round 1)" in rule
    # a second speaker's refusal came after the first had spoken: nothing follows it either
    second = RoundState(**{**s.__dict__, "first": "against"})
    action, rule = decided(second)
    assert action is RoundAction.STOP_CONVERGED and "had already spoken" in rule, rule


def test_safety_still_comes_before_a_refusal() -> None:
    s = with_refusal(state(1, moderator="safety", max_rounds=3), "for")
    assert decided(s)[0] is RoundAction.STOP_SAFETY


def test_a_refusal_never_reaches_the_controllers_record_by_its_words() -> None:
    # The rule names who declined and when, never why (the reason is the result's, EarlyEnd)
    for s in (with_refusal(state(1, max_rounds=3), "for"), answer_round(2, 3)):
        assert "SECRET" not in decided(s)[1]


def test_new_passages_cited_to_no_effect_are_not_movement() -> None:
    # Given a round whose sides each cite a passage new this round (to set it aside): no score moved
    s = state(3, repeated=True, moderator="continue")
    s = RoundState(
        **{
            **s.__dict__,
            "case_for": arg("for", 3, 62, REWORDED_FOR, ["E1", "E9"]),
            "case_against": arg("against", 3, 58, REWORDED_AGAINST, ["E2", "E9"]),
        }
    )
    measured = signals(s)
    assert measured.new_evidence == 1 and measured.new_points == 2  # recorded
    action, rule = decide(s, measured)
    assert action is RoundAction.STOP_CONVERGED and rule.startswith("measured"), rule


def test_a_moderator_calling_a_far_apart_debate_converged_gets_a_fresh_persona_then_a_stalemate() -> None:
    far = state(3, repeated=True, far_apart=True, moderator="converged")
    assert decided(far)[0] is RoundAction.ESCALATE_NEW_PERSONA
    # once a fresh persona has been tried, the same state is a stalemate, not convergence
    action, rule = decided(RoundState(**{**far.__dict__, "persona": 1}))
    assert action is RoundAction.STOP_CONVERGED and rule.startswith("stalemate"), rule
