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

# Role words. Only phrases that name a side of this debate: "the prosecution" or "the defence" only
# where they argue, cite or claim ("the prosecution of the CEO" and "defence spending" stay), and never
# the bare "case for X", which is ordinary prose. Case-insensitive, whole words.
_POSSESSIVE = r"(?:'s|s'|s)?"
_ACTS = r"(?:argue|argues|argued|claims|says|said|cites|relies|ignores|concedes|is wrong|has no|leans)"
_ROLE_WORDS = re.compile(
    r"\b(?:"
    rf"(?:the |my |our |this )?case-(?:for|against){_POSSESSIVE}"
    rf"|(?:my|our|the) (?:opponent|adversary|counterpart|interlocutor){_POSSESSIVE}"
    rf"|opponent{_POSSESSIVE}"
    rf"|(?:the other|the opposing|my fellow) (?:side|debater|party|team){_POSSESSIVE}"
    rf"|(?:the )?(?:pro|con|for|against)[- ]side{_POSSESSIVE}"
    r"|(?:the )?side (?:arguing|defending|attacking|opposing) (?:for |against )?(?:the claim|it)"
    r"|(?:those|the side) arguing (?:that )?(?:the claim|it) is (?:true|false)"
    rf"|the (?:prosecution|defen[cs]e|affirmative|proponents?|skeptic|sceptic)(?= {_ACTS})"
    r"|(?:I|we) (?:argue|am arguing|are arguing) (?:that )?the claim is (?:true|false)"
    r")(?!\w)",
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
