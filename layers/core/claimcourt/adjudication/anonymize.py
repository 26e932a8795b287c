"""The final moderator never learns who argued what: the two sides become A and B at random (seeded by
the run id, so a retry of the stage shows the judge exactly the same thing), rounds stay in the order
they were argued so the exchange reads as it happened, and the words a debater may use to name a side
("the case-for", "my opponent", "the prosecution"…) are redacted from what the judge reads. The mapping
is re-attached after judgement."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Literal

from claimcourt.models import AnonymousPosition, Argument, LedgerEntry, Point, Side

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
    rf"|(?:the )?(?:pro|con|for|against)[- ](?:side|position|team){_POSSESSIVE}"
    r"|(?:the )?side (?:arguing|defending|attacking|opposing) (?:for |against )?(?:the claim|it)"
    r"|(?:those|the side) arguing (?:that )?(?:the claim|it) is (?:true|false)"
    rf"|the (?:prosecution|defen[cs]e|affirmative|proponents?|skeptic|sceptic)(?= {_ACTS})"
    r"|(?:I|we) (?:argue|am arguing|are arguing) (?:that )?the claim is (?:true|false)"
    r")(?!\w)",
    re.IGNORECASE,
)
# The speaker's opponent, however named: "the other position" says the same and names no side.
_OPPONENT = re.compile(
    r"\b(?:(?:my|our|the|an?) (?:opponent|adversary|counterpart|interlocutor)|opponent"
    r"|(?:the opposing|my fellow) (?:side|debater|party|team)|the other (?:debater|party|team))"
    r"(?P<possessive>'s|s'|s)?(?!\w)",
    re.IGNORECASE,
)
# A direction named by its side ("Arguing the claim honestly, …", "the strongest case the pool allows
# for the claim", "the case against the claim"): whose direction it is, the speaker's or the other
# side's, is what the sentence says; so it becomes "this position" or "the other position", by who
# speaks. ("Arguing the claim" and "defending" it are for; "attacking" or "opposing" it, against.)
_DIRECTION = re.compile(
    r"\b(?P<lead>arguing|defending|attacking|opposing)(?: (?P<lead_way>for|against))? (?:the|this) claim\b"
    r"|\b(?P<what>case|argument|brief)(?P<between>(?: [\w'-]+){0,5}?)"
    r" (?P<way>for|against) (?:the|this) claim\b",
    re.IGNORECASE,
)


def _whose(direction: Side, speaker: Side | None) -> str:
    if speaker is None:
        return REDACTED
    return "this position" if direction == speaker else OTHER


def _direction(speaker: Side | None) -> Callable[[re.Match[str]], str]:
    def named(match: re.Match[str]) -> str:
        lead = match.group("lead")
        if lead:
            stated = (match.group("lead_way") or "").lower()
            against = stated == "against" or (not stated and lead.lower() in ("attacking", "opposing"))
            said = f"arguing {_whose('against' if against else 'for', speaker)}"
            return said[0].upper() + said[1:] if lead[0].isupper() else said
        way: Side = "against" if match.group("way").lower() == "against" else "for"
        return f"{match.group('what')}{match.group('between')} for {_whose(way, speaker)}"

    return named


def _opponent(match: re.Match[str]) -> str:
    possessive = match.group("possessive") or ""
    said = OTHER + ("'s" if possessive in ("'s", "s'") else "")
    return said[0].upper() + said[1:] if match.group(0)[0].isupper() else said


_KEY = re.compile(r"\b(for|against|a|b)_(\d+)\b", re.IGNORECASE)


def redact(text: str, speaker: Side | None = None) -> str:
    """The text with every word that names or describes a side replaced by words that name none,
    keeping what the sentence says: `speaker`, the side whose words they are, tells "this position"
    from "the other position" where a direction is named (unknown: "[a position]")."""
    text = _SIDE_NAMES.sub(REDACTED, text)
    text = _OPPONENT.sub(_opponent, text)
    return _DIRECTION.sub(_direction(speaker), text)


def relabel_keys(text: str, label_of: dict[Side, Label]) -> str:
    """Ledger keys written in a text (for_3, against_1; a motion's a_2) as the judge's (A_3, B_1)."""

    def key(match: re.Match[str]) -> str:
        side: Side = "for" if match.group(1).lower() in ("for", "a") else "against"
        return f"{label_of[side]}_{match.group(2)}"

    return _KEY.sub(key, text)


def for_the_judge(entry: LedgerEntry, label_of: dict[Side, Label], neutral: bool = False) -> LedgerEntry:
    """A ledger entry as the judge reads it: keyed by position, and its sentence (the citing side's),
    check and answer (its own side's) redacted and relabelled. The check is the other side's checker's,
    or (`neutral`) a neutral checker's, which speaks for no side: a direction it names says neither
    "this position" nor "the other position"."""
    other: Side = "against" if entry.side == "for" else "for"

    def neutral_text(text: str | None, speaker: Side | None) -> str | None:
        return relabel_keys(redact(text, speaker), label_of) if text is not None else None

    return entry.model_copy(
        update={
            "key": f"{label_of[entry.side]}_{entry.key.split('_')[-1]}",
            "sentence": neutral_text(entry.sentence, entry.side) or "",
            "comment": neutral_text(entry.comment, None if neutral else other),
            "response": neutral_text(entry.response, entry.side),
        }
    )


def _neutral(point: Point, speaker: Side, label_of: dict[Side, Label]) -> Point:
    # position_change notes narrate the debater's own moves ("I moved …"): dropped, not redacted.
    argued = relabel_keys(redact(point.argument, speaker), label_of)
    return point.model_copy(update={"argument": argued, "position_change": None})


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
            points=[_neutral(p, a.side, label_of) for p in a.points],
            made=a.made,
        )
        for a in arguments
    ]
    opener = label_of[first] if first is not None else "A"
    positions.sort(key=lambda p: (p.round, p.label != opener))
    return positions, mapping


def debate_so_far(
    arguments: list[Argument], seed: str, first: Side | None, before: int
) -> tuple[list[AnonymousPosition], dict[Side, Label]]:
    """The rounds before `before`, as the judge will read them, and which position each side is: what
    every call of a claim debate after them reads in its opening (the same bytes the judge reads, so the
    provider's cache holds them once; the labels come from the seed alone)."""
    positions, mapping = anonymize([a for a in arguments if a.round < before], seed, first)
    return positions, {side: label for label, side in mapping.items()}
