"""The final moderator never learns who argued what: the two sides become A and B at random (seeded by
the run id, so a retry of the stage shows the judge exactly the same thing), rounds stay in the order
they were argued so the exchange reads as it happened, and the words a debater may use to name a side
("the case-for", "my opponent", "the prosecution"…) are redacted from what the judge reads. The mapping
is re-attached after judgement."""

from __future__ import annotations

import random
import re
from typing import Literal

from claimcourt.models import AnonymousPosition, Argument, Point, Side

Label = Literal["A", "B"]
REDACTED = "[a position]"

# Role words, longest first so "my opponent's case" goes as one. Case-insensitive, whole words.
_ROLE_WORDS = re.compile(
    r"\b(?:"
    r"(?:the |my |our |this )?case[- ](?:for|against)(?:'s)?"
    r"|(?:the |my |our )?(?:opponent|opponents|opposition|adversary)(?:'s)?"
    r"|(?:the )?(?:prosecution|defen[cs]e|proponent|proponents|affirmative|contrarian)(?:'s)?"
    r"|(?:the |my |our )?(?:pro|con|for|against|opposing|other) side(?:'s)?"
    r"|(?:the )?side arguing (?:for|against)"
    r"|(?:the )?(?:for|against) (?:side|position|team)"
    r"|(?:I|we) (?:argue|am arguing|are arguing) (?:that )?the claim is (?:true|false)"
    r")\b",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """The text with every word that names or describes a side replaced by a neutral mark."""
    return _ROLE_WORDS.sub(REDACTED, text)


def _neutral(point: Point) -> Point:
    # position_change notes narrate the debater's own moves ("I moved …"): dropped, not redacted.
    return point.model_copy(update={"argument": redact(point.argument), "position_change": None})


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
            points=[_neutral(p) for p in a.points],
            refused=a.refusal is not None,
        )
        for a in arguments
    ]
    # Chronological, A before B within a round: the order tells nothing, since A is either side.
    positions.sort(key=lambda p: (p.round, p.label))
    return positions, mapping
