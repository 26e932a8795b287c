"""The round controller: after each round, measure what the debate did and decide what happens next.

It reads measured signals, not only the moderator's opinion:
- how far the sides' implied sub-claim scores and the moderator's provisional score moved;
- novelty: evidence ids cited for the first time, and new points (a sub-claim a side had not argued,
  or a passage it had not cited there: a move, not a wording);
- the moderator's recommendation, and its safety flag;
- recorded beside them, how much each side's wording changed since its previous round (lexical TF-IDF
  cosine by default; any `Similarity` function can stand in, such as an embedding's cosine): a model
  rewords every round, so wording is not what decides.

`decide` turns them into exactly one of five outcomes (RoundAction), naming the rule that fired.
Safety always stops; a refusal shortens the debate (debate/refusal.py: the other side's one
counter-argument turn, then a stop), in every mode; else at least `min_rounds`, never more than
`max_rounds`. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from claimcourt.debate.argue import PERSONAS
from claimcourt.debate.refusal import early_end, first_refusals, last_round
from claimcourt.models import (
    Argument,
    CallRecord,
    ModeratorView,
    RoundAction,
    RoundControl,
    RoundDecision,
    RoundSignals,
    Side,
)

Cosine = Callable[[str, str], float]  # two texts → 0–1
Similarity = Callable[[Sequence[str]], Cosine]  # given every text of the debate, a Cosine

# A side whose argument is at least this similar to its previous round repeats itself (recorded as a
# signal; not decided on: see decide).
SIMILAR = 0.85
# Implied scores that moved less than this (points, on average) are stable.
STABLE_SHIFT = 5.0
# Sides still this far apart (points, on average) when nothing moves are stuck, not converged.
FAR_APART = 30.0
# The moderator's "converged" is taken when the scores moved less than this.
SETTLED_SHIFT = 10.0

_WORD = re.compile(r"[a-z0-9]+")


def _terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 2]


def tfidf(corpus: Sequence[str]) -> Cosine:
    """The cosine of two texts' TF-IDF vectors, the IDF taken over `corpus` plus the two texts; the
    corpus's document frequencies are counted once, however many pairs are compared."""
    counts = Counter(t for d in corpus for t in set(_terms(d)))
    n = len(corpus) + 2

    def cosine(a: str, b: str) -> float:
        in_a, in_b = set(_terms(a)), set(_terms(b))

        def vector(text: str) -> dict[str, float]:
            df = {t: counts[t] + (t in in_a) + (t in in_b) for t in set(_terms(text))}
            return {t: c * (math.log((1 + n) / (1 + df[t])) + 1) for t, c in Counter(_terms(text)).items()}

        va, vb = vector(a), vector(b)
        dot = sum(w * vb.get(t, 0.0) for t, w in va.items())
        norm = math.sqrt(sum(w * w for w in va.values())) * math.sqrt(sum(w * w for w in vb.values()))
        return dot / norm if norm else 0.0

    return cosine


def tfidf_cosine(a: str, b: str, corpus: Sequence[str]) -> float:
    return tfidf(corpus)(a, b)


def argument_text(argument: Argument | None) -> str:
    if argument is None:
        return ""
    if argument.refusal is not None:
        return argument.refusal.reason
    return "\n".join(p.argument for p in argument.points)


@dataclass(frozen=True)
class RoundState:
    """What the controller sees after round `round`."""

    round: int
    min_rounds: int
    max_rounds: int
    persona: int  # this round's persona (an index of PERSONAS)
    case_for: Argument
    case_against: Argument
    previous_for: Argument | None  # the same sides' arguments the round before (None at round 1)
    previous_against: Argument | None
    earlier: Sequence[Argument]  # every argument before this round, both sides
    moderator: ModeratorView | None  # None: not asked (the last round) or refused; see `moderated`
    moderated: bool  # the moderator was asked this round
    previous_provisional: int | None = None
    previous_frontier: int | None = None  # issues on the last round's frontier
    first: Side | None = None  # the side that speaks first in each round (None: both at once)


def _implied(argument: Argument | None) -> dict[str, int]:
    if argument is None or argument.refusal is not None:
        return {}
    return {p.sub_claim_id: p.implied_score for p in argument.points}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def signals(state: RoundState, similarity: Similarity = tfidf) -> RoundSignals:
    texts = [argument_text(a) for a in (*state.earlier, state.case_for, state.case_against)]
    cosine = similarity(texts)
    now_for, now_against = argument_text(state.case_for), argument_text(state.case_against)

    def moved(now: str, before: Argument | None) -> float | None:
        return None if before is None else round(cosine(now, argument_text(before)), 3)

    shifts = [
        abs(now[k] - before[k])
        for now, before in (
            (_implied(state.case_for), _implied(state.previous_for)),
            (_implied(state.case_against), _implied(state.previous_against)),
        )
        if state.previous_for is not None
        for k in now.keys() & before.keys()
    ]
    pro, con = _implied(state.case_for), _implied(state.case_against)
    gaps = [abs(pro[k] - con[k]) for k in pro.keys() & con.keys()]
    cited_before = {c for a in state.earlier for p in a.points for c in p.citations}
    cited_now = {c for a in (state.case_for, state.case_against) for p in a.points for c in p.citations}
    # A new point is a new move, whatever its words: a side arguing a sub-claim it had not argued, or
    # bringing to it a passage it had not cited there (its own new find, or the other side's turned).
    argued_before = {(a.side, p.sub_claim_id) for a in state.earlier for p in a.points}
    cited_there = {(a.side, p.sub_claim_id, c) for a in state.earlier for p in a.points for c in p.citations}
    new_points = sum(
        1
        for a in (state.case_for, state.case_against)
        for p in a.points
        if (a.side, p.sub_claim_id) not in argued_before
        or any((a.side, p.sub_claim_id, c) not in cited_there for c in p.citations)
    )
    view = state.moderator
    provisional = view.provisional_score if view is not None else None
    shift = _mean([float(s) for s in shifts]) if state.previous_for is not None else None
    moderator = view.recommendation if view is not None else "refused" if state.moderated else "not asked"
    return RoundSignals(
        similarity_for=moved(now_for, state.previous_for),
        similarity_against=moved(now_against, state.previous_against),
        score_shift=None if shift is None else round(shift, 1),
        score_gap=round(_mean([float(g) for g in gaps]) or 0.0, 1),
        provisional_score=provisional,
        provisional_shift=(
            None
            if provisional is None or state.previous_provisional is None
            else abs(provisional - state.previous_provisional)
        ),
        frontier=len(view.disagreement_frontier) if view is not None else None,
        frontier_shift=(
            None
            if view is None or state.previous_frontier is None
            else len(view.disagreement_frontier) - state.previous_frontier
        ),
        new_evidence=len(cited_now - cited_before),
        new_points=new_points,
        moderator=moderator,
    )


def after_refusal(state: RoundState) -> tuple[RoundAction, str] | None:
    """A side declined to argue (this round or earlier): the other side's one counter-argument turn
    when it is still to come (the next round, when the sides argue at once), else a stop, whatever the
    round limits would allow. None: nobody declined."""
    said = [*state.earlier, state.case_for, state.case_against]
    declined = first_refusals(said, state.first)
    if not declined:
        return None
    refusal = declined[0]
    who = "both sides" if len(declined) > 1 else f"the {refusal.side} side"
    if state.round < last_round(said, state.first, state.max_rounds):
        other = "against" if refusal.side == "for" else "for"
        return RoundAction.CONTINUE, (
            f"refused: {who} declined to argue in round {refusal.round}; the {other} side answers once,"
            f" in round {refusal.round + 1}, alone, then the debate ends"
        )
    end = early_end(said, state.first, state.max_rounds)
    followed = end.followed if end is not None and len(declined) == 1 else "the debate ended at once"
    # The round limit, not the refusal, is what left no answer turn.
    cut = len(declined) == 1 and state.first is None and refusal.round >= state.max_rounds
    action = RoundAction.STOP_MAX_ROUNDS if cut else RoundAction.STOP_CONVERGED
    return action, f"refused: {who} declined to argue in round {refusal.round}; {followed}"


def decide(state: RoundState, measured: RoundSignals) -> tuple[RoundAction, str]:
    """(the outcome, the rule that fired), in this order: safety, a side that declined to argue, the
    round limits, a stuck debate, measured convergence, the moderator's convergence or escalation, else
    another round."""
    if measured.moderator in ("safety", "refused"):
        return RoundAction.STOP_SAFETY, f"safety: the moderator said {measured.moderator}"
    refused = after_refusal(state)
    if refused is not None:  # the other side alone moves nothing: what it adds is not a debate's movement
        return refused
    if state.round >= state.max_rounds:
        return RoundAction.STOP_MAX_ROUNDS, f"max_rounds: round {state.round} of {state.max_rounds}"
    if state.round < state.min_rounds:
        return RoundAction.CONTINUE, f"min_rounds: at least {state.min_rounds}"
    # A fresh persona is tried once: if the sides stay stuck under it, another would not move them.
    may_escalate = state.persona == 0 and len(PERSONAS) > 1
    # Nothing moved: no side's implied score and not the moderator's moved beyond STABLE_SHIFT. New
    # evidence and new points are recorded, and count only through the scores they moved: each round's
    # retrieval brings passages that an honest debater cites even to set aside (played debates that had
    # settled cited new passages every round). Nor is the wording asked (similarity_* is recorded, not
    # decided on): a model told not to repeat itself rewords every round (0.41-0.62 against 0.85).
    still = (
        measured.score_shift is not None
        and measured.score_shift <= STABLE_SHIFT
        and (measured.provisional_shift is None or measured.provisional_shift <= STABLE_SHIFT)
    )
    settled = (measured.score_shift is None or measured.score_shift <= SETTLED_SHIFT) and (
        measured.provisional_shift is None or measured.provisional_shift <= SETTLED_SHIFT
    )
    far_apart = measured.score_gap >= FAR_APART
    if (still or (measured.moderator == "converged" and settled)) and far_apart:
        if may_escalate:
            return RoundAction.ESCALATE_NEW_PERSONA, "stuck: nothing moved, and the sides are far apart"
        return RoundAction.STOP_CONVERGED, "stalemate: stuck far apart, and a fresh persona moved nothing"
    if still:
        return RoundAction.STOP_CONVERGED, "measured: no score moved beyond the stable shift"
    if measured.moderator == "converged" and settled:
        return RoundAction.STOP_CONVERGED, "moderator: converged, and the scores agree"
    if measured.moderator == "escalate" and may_escalate:
        return RoundAction.ESCALATE_NEW_PERSONA, "moderator: escalate"
    return RoundAction.CONTINUE, "open: the debate is still moving"


def fixed_rounds(state: RoundState, measured: RoundSignals) -> tuple[RoundAction, str]:
    """The rule without the controller (dynamic rounds off or in shadow): the effort's fixed rounds;
    safety still stops, and a refusal still shortens the debate."""
    if measured.moderator in ("safety", "refused"):
        return RoundAction.STOP_SAFETY, f"safety: the moderator said {measured.moderator}"
    refused = after_refusal(state)
    if refused is not None:
        return refused
    if state.round >= state.max_rounds:
        return RoundAction.STOP_MAX_ROUNDS, f"fixed rounds: {state.max_rounds}"
    return RoundAction.CONTINUE, f"fixed rounds: {state.round} of {state.max_rounds}"


ROUND_STAGES = ("retrieve", "argue", "moderate")  # the stages a round pays for; a call key's first two parts


def summarize(decisions: Sequence[RoundDecision], calls: Sequence[CallRecord]) -> RoundControl | None:
    """The run's rounds against the controller's own decisions (`controller_action`), and what the
    rounds after its stop cost: in shadow mode, the saving steering would have made."""
    if not decisions:
        return None
    stop = next(
        (d.round for d in decisions if d.controller_action and not d.controller_action.another_round), None
    )
    rounds = decisions[-1].round
    later = [
        c
        for c in calls
        if stop is not None and _round_of(c.call_key) > stop and c.call_key.startswith(ROUND_STAGES)
    ]
    last = decisions[-1]
    return RoundControl(
        mode=last.mode,
        rounds=rounds,
        controller_stop_round=stop,
        would_save_rounds=max(0, rounds - stop) if stop is not None else 0,
        would_save_usd=round(sum(c.cost_usd for c in later), 6),
        would_save_calls=sum(c.attempts for c in later if c.provider != "offline"),
        # Only a controller that never stopped would have gone on: after its stop, its decisions
        # are about rounds it would not have run.
        would_continue=stop is None and bool(last.controller_action and last.controller_action.another_round),
    )


def _round_of(call_key: str) -> int:
    """A call key is stage:round:side:kind:suffix (reasoning.base.CallContext.key)."""
    parts = call_key.split(":")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
