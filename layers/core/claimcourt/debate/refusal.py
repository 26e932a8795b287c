"""How a debate ended after a refusal, for claims and motions alike (as the research found them): the
refusing side's words reach its opponent only as "no argument was made this round"; the other side
gets one counter-argument turn (the turn it speaks next after the refusal); then the debate ends. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from claimcourt.models import Argument, EarlyEnd, Side


def early_end(said: Sequence[Argument], first: Side | None) -> EarlyEnd | None:
    """The first refusal in `said` and what followed it. `said` is every argument; `first` the side
    that speaks first in each round (None: both at once, so a same-round argument answers nothing)."""

    def when(a: Argument) -> tuple[int, int]:
        return (a.round, 0 if first is None or a.side == first else 1)

    refused = sorted((a for a in said if a.refusal is not None), key=when)
    if not refused or refused[0].refusal is None:
        return None
    refusal, reason = refused[0], refused[0].refusal.reason
    other: Side = "against" if refusal.side == "for" else "for"
    answer = min((a for a in said if a.side == other and when(a) > when(refusal)), key=when, default=None)
    if answer is not None and answer.refusal is None:
        followed = (
            f"the {other} side made its one counter-argument turn (round {answer.round}), reading that no"
            " argument was made; then the debate ended"
        )
    elif answer is not None:
        followed = f"the {other} side declined too (round {answer.round}); the debate ended"
    else:
        followed = f"the {other} side had already spoken; the debate ended after round {refusal.round}"
    return EarlyEnd(
        side=refusal.side,
        round=refusal.round,
        reason=reason,
        answered_by=other if answer is not None and answer.refusal is None else None,
        answered_in_round=answer.round if answer is not None and answer.refusal is None else None,
        followed=followed,
    )


def warning(end: EarlyEnd) -> str:
    """The result's warning: who refused, when, and what followed."""
    return f"Ended early: the {end.side} side declined to argue in round {end.round}; {end.followed}."
