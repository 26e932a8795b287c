"""The final moderator never sees who argued what: sides become A/B at random, positions are
shuffled, and the mapping is re-attached after judgement. Seeded by run id, so a retry of the
stage shows the judge exactly the same thing."""

from __future__ import annotations

import random
from typing import Literal

from claimcourt.models import AnonymousPosition, Argument, Side

Label = Literal["A", "B"]


def anonymize(arguments: list[Argument], seed: str) -> tuple[list[AnonymousPosition], dict[Label, Side]]:
    rng = random.Random(seed)
    sides: list[Side] = ["for", "against"]
    rng.shuffle(sides)
    mapping: dict[Label, Side] = {"A": sides[0], "B": sides[1]}
    label_of: dict[Side, Label] = {side: label for label, side in mapping.items()}
    positions = [
        AnonymousPosition(
            label=label_of[a.side],
            round=a.round,
            # Points carry no side; position_change notes could name one, so they are dropped.
            points=[p.model_copy(update={"position_change": None}) for p in a.points],
            refused=a.refusal is not None,
        )
        for a in arguments
    ]
    rng.shuffle(positions)
    return positions, mapping
