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
OTHER = "the other position"

# Words that name a side of this debate, replaced by a mark that names none. Only phrases that name a
# side here: "the prosecution" or "the defence" only where they argue, cite or claim ("the prosecution
# of the CEO" and "defence spending" stay), never the bare "case for X", which is ordinary prose.
# Case-insensitive, whole words. What a replacement keeps: the sentence's meaning. "The other side" and
# "both sides" name no side (the judge knows which position speaks), so they stay.
_POSSESSIVE = r"(?:'s|s'|s)?"
_ACTS = r"(?:argue|argues|argued|claims|says|said|cites|relies|ignores|concedes|is wrong|has no|leans)"
_SIDE_NAMES = re.compile(
    r"\b(?:"
    rf"(?:the |my |our |this )?case-(?:for|against){_POSSESSIVE}"
    rf"|(?:the )?(?:pro|con|for|against)[- ]side{_POSSESSIVE}"
    r"|(?:the )?side (?:arguing|defending|attacking|opposing) (?:for |against )?(?:the claim|it)"
    r"|(?:those|the side) arguing (?:that )?(?:the claim|it) is (?:true|false)"
    rf"|the (?:prosecution|defen[cs]e|affirmative|proponents?|skeptic|sceptic)(?= {_ACTS})"
    r"|(?:I|we) (?:argue|am arguing|are arguing) (?:that )?the claim is (?:true|false)"
    r")(?!\w)",
    re.IGNORECASE,
)
# The speaker's opponent, however named: "the other position" says the same and names no side.
_OPPONENT = re.compile(
    r"\b(?:(?:my|our|the) (?:opponent|adversary|counterpart|interlocutor)|opponent"
    r"|(?:the opposing|my fellow) (?:side|debater|party|team)|the other (?:debater|party|team))"
    r"(?P<possessive>'s|s'|s)?(?!\w)",
    re.IGNORECASE,
)
# A debater describing its own task by its direction ("Arguing the claim honestly, …", "the strongest
# case the pool allows for the claim", "the case against the claim"): the direction is dropped.
_DIRECTION = re.compile(
    r"\b(?P<lead>arguing|defending|attacking|opposing)(?: (?:for|against))? (?:the|this) claim\b"
    r"|\b(?P<what>case|argument|brief)(?P<between>(?: [\w'-]+){0,5}?)"
    r" (?:for|against) (?:the|this) claim\b",
    re.IGNORECASE,
)


def _direction(match: re.Match[str]) -> str:
    if match.group("lead"):
        return f"{match.group('lead')} this position"
    return f"{match.group('what')}{match.group('between')} for this position"


def _opponent(match: re.Match[str]) -> str:
    possessive = match.group("possessive") or ""
    return OTHER + ("'s" if possessive in ("'s", "s'") else "")


def redact(text: str) -> str:
    """The text with every word that names or describes a side replaced by words that name none,
    keeping what the sentence says."""
    text = _SIDE_NAMES.sub(REDACTED, text)
    text = _OPPONENT.sub(_opponent, text)
    return _DIRECTION.sub(_direction, text)


def _neutral(point: Point) -> Point:
    # position_change notes narrate the debater's own moves ("I moved …"): dropped, not redacted.
    return point.model_copy(update={"argument": redact(point.argument), "position_change": None})


def anonymize(
    arguments: list[Argument], seed: str, first: Side | None = None
) -> tuple[list[AnonymousPosition], dict[Label, Side]]:
    """The positions in the order they were argued: by round, and within a round in speaking order
    when one side spoke first (`first`), else A before B (the order then tells nothing: A is either side)."""
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
    opener = label_of[first] if first is not None else "A"
    positions.sort(key=lambda p: (p.round, p.label != opener))
    return positions, mapping
