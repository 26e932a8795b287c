"""How a refusal shortens a debate, for claims and motions alike, as the research found them
(aaron1729/ai-debate's debate.py): the refusing side's words reach no other role (its opponent, the
moderator and the judge read only that no argument was made); the refusing side is not asked again; the
other side gets one counter-argument turn, the turn it speaks next after the refusal; then the debate
ends. Pure: every answer follows from the arguments stored so far, so a retried stage answers the same.

When the two sides argue at once (a claim debate without a first speaker), the other side argued beside
the refusal, so its one turn is the next round, argued alone. In turn, the second speaker answers a first
speaker's refusal in the same round; a second speaker's refusal came after the first had spoken, so
nothing follows it. Both sides declining at once ends the debate there."""

from __future__ import annotations

from collections.abc import Sequence

from claimcourt.models import Argument, EarlyEnd, Side


def _other(side: Side) -> Side:
    return "against" if side == "for" else "for"


def _when(argument: Argument, first: Side | None) -> tuple[int, int]:
    """When a turn was spoken: its round, then (in turn) first or second; at once, the same moment."""
    return (argument.round, 0 if first is None or argument.side == first else 1)


def first_refusals(said: Sequence[Argument], first: Side | None) -> list[Argument]:
    """The debate's first refusal: one argument, or both sides' when they declined at the same moment
    (for first); none when nobody declined."""
    declined = sorted(
        (a for a in said if a.refusal is not None), key=lambda a: (_when(a, first), a.side != "for")
    )
    return [a for a in declined if _when(a, first) == _when(declined[0], first)] if declined else []


def last_round(said: Sequence[Argument], first: Side | None, limit: int) -> int:
    """The debate's last round as it now stands: `limit`, unless a side has declined. Then the round of
    the refusal, or when the sides argue at once and only one declined, the next (the other side's one
    counter-argument turn), within the limit."""
    declined = first_refusals(said, first)
    if not declined:
        return limit
    refused = declined[0].round
    if first is not None or len(declined) > 1:
        return refused
    return min(refused + 1, limit)


def absent(said: Sequence[Argument], side: Side, round: int) -> bool:
    """A side that declined to argue is not asked again: absent from every later round."""
    return any(a.side == side and a.refusal is not None and a.round < round for a in said)


def early_end(said: Sequence[Argument], first: Side | None, limit: int | None = None) -> EarlyEnd | None:
    """The first refusal in `said` (every argument of the debate) and what followed it. `first` is the
    side that speaks first in each round (None: both at once), `limit` the debate's round limit (a claim
    debate's; a motion's turns are always in order, and need none)."""
    declined = first_refusals(said, first)
    if not declined or declined[0].refusal is None:
        return None
    refusal, reason = declined[0], declined[0].refusal.reason
    other = _other(refusal.side)
    answer = min(
        (a for a in said if a.side == other and _when(a, first) > _when(refusal, first)),
        key=lambda a: _when(a, first),
        default=None,
    )
    answered = answer is not None and answer.made
    if len(declined) > 1:
        followed = f"the {other} side declined too, in the same round; the debate ended at once"
    elif answer is not None and answered:
        followed = (
            f"the {other} side made its one counter-argument turn (round {answer.round}), reading that no"
            " argument was made; then the debate ended"
        )
    elif answer is not None:
        followed = f"the {other} side declined too (round {answer.round}); the debate ended"
    elif first is not None:
        followed = f"the {other} side had already spoken; the debate ended after round {refusal.round}"
    elif limit is not None and refusal.round >= limit:
        followed = f"round {refusal.round} was the last: no answer turn was possible; the debate ended"
    else:  # only a stop for safety comes before the answer turn
        followed = f"the debate was stopped after round {refusal.round}, before the {other} side answered"
    return EarlyEnd(
        side=refusal.side,
        round=refusal.round,
        reason=reason,
        answered_by=other if answer is not None and answered else None,
        answered_in_round=answer.round if answer is not None and answered else None,
        followed=followed,
    )


def warning(end: EarlyEnd) -> str:
    """The result's warning: who refused, when, and what followed."""
    return f"Ended early: the {end.side} side declined to argue in round {end.round}; {end.followed}."
