"""The crowd: the persona set, its batches (one model call scores a batch), each round's tally, and
what vote zero decides (who speaks first, the time knob)."""

from __future__ import annotations

import json
import math
import random
from functools import cache
from pathlib import Path

from claimcourt.models import MotionPlan, MotionRequest, Persona, PersonaVote, Side, SideAllowance, VoteTally

HERE = Path(__file__).parent
BATCH = 12  # personas one model call scores: 24 voters are 2 calls a round


@cache
def persona_set() -> tuple[str, tuple[Persona, ...]]:
    """(version, personas) of the declared persona set."""
    doc = json.loads((HERE / "personas.json").read_text(encoding="utf-8"))
    return doc["version"], tuple(Persona.model_validate(p) for p in doc["personas"])


def crowd_of(size: int) -> list[Persona]:
    """The first `size` personas: any crowd of 20 or more holds every archetype."""
    return list(persona_set()[1][:size])


def batches(size: int) -> list[int]:
    """The batch indices of a crowd of `size` (the Vote Map's items)."""
    return list(range((size + BATCH - 1) // BATCH))


def batch_of(size: int, batch: int) -> list[Persona]:
    return crowd_of(size)[batch * BATCH : (batch + 1) * BATCH]


def tally(number: int, phase: str, votes: list[PersonaVote]) -> VoteTally:
    """A round's votes: the mean and the shares for (above 50), against (below 50) and undecided."""
    n = len(votes) or 1

    def pct(count: int) -> float:
        return round(100 * count / n, 1)

    return VoteTally(
        round=number,
        phase=phase,
        voters=len(votes),
        mean=round(sum(v.score for v in votes) / n, 1),
        for_pct=pct(sum(v.score > 50 for v in votes)),
        against_pct=pct(sum(v.score < 50 for v in votes)),
        undecided_pct=pct(sum(v.score == 50 for v in votes)),
        scores={v.persona_id: v.score for v in votes},
    )


def plan(request: MotionRequest, zero: VoteTally) -> MotionPlan:
    """Who speaks first (the side the majority favours at vote zero; a tie is drawn with the request's
    seed) and the time knob: when the majority's share of decided voters is above the knob's lean,
    the minority side gets `ratio` times the word limit and citation allowance."""
    # From the votes themselves, not the rounded shares: 12 of 20 decided is 60 %, not 60.02 %.
    n_for = sum(score > 50 for score in zero.scores.values())
    n_against = sum(score < 50 for score in zero.scores.values())
    tie = n_for == n_against
    majority: Side = "for" if n_for > n_against else "against"
    if request.first is not None:  # an experiment's factor: who speaks first is set, not voted
        first: Side = request.first
    elif tie:  # drawn per motion: a seed alone would send every tie the same way
        first = random.Random(f"{request.seed}:{request.motion}").choice(["for", "against"])
    else:
        first = majority
    second: Side = "against" if first == "for" else "for"
    lean = max(n_for, n_against) / (n_for + n_against) if n_for + n_against else 0.5
    applied = not tie and lean > request.time_knob.lean_above
    # The knob favours the side the crowd leans against, whoever speaks first.
    minority: Side | None = ("against" if majority == "for" else "for") if applied else None

    def allowance(side: str) -> SideAllowance:
        if side != minority:
            return SideAllowance(words=request.words, citations=request.citations)
        # Rounded up: the minority always gets more (1.25 x 2 citations is 3, not round()'s 2).
        ratio = request.time_knob.ratio
        return SideAllowance(
            words=math.ceil(request.words * ratio), citations=math.ceil(request.citations * ratio)
        )

    return MotionPlan(
        first=first,
        second=second,
        tie=tie,
        forced=request.first is not None,
        lean=round(lean, 3),
        knob_applied=applied,
        minority=minority,
        allowance={"for": allowance("for"), "against": allowance("against")},
    )
