"""Citation markers taken out of a text so that what is left still reads.

A marker that only supports a statement ("Sea level rose 20 cm [E1].", "(see [E1])") goes with its
punctuation tidied. A marker the sentence is built on ("The other side will point to [E1], which …",
"Also [E1], [E2].", "[E1] reports that …", "As [E1] shows, …") takes with it the clause or sentence
that depended on it: removing the marker alone would leave "point to, which …" or "Also,.".
Sentences with nothing removed are left exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Container

# An evidence id cited in a text, e.g. "[E1a2b3c4d]": E and a hash's hex for a retrieved passage, U for
# one of the user's context (claimcourt.evidence.retrieve). "[EPA]" or "[EU]" is not one.
CITATION_MARKER = re.compile(r"\[([EU][0-9a-f]+)\]")

_HOLE = "\x00"  # where a marker the sentence was built on stood, until its clause is dropped
# Words that need what follows them: a marker right after one was the sentence's object.
_NEEDS_OBJECT = frozenset(
    "to on upon onto into at of with about against over than like unlike including also and or both "
    "between see cite cites cited quote quotes quoted is are was were be been being namely via under "
    "toward towards whereas while but".split()
)
# A phrase that only attributes what it follows or precedes: it goes with the marker.
_ATTRIBUTION = re.compile(
    r"[ \t]*\b(?:according to|as (?:shown|reported|noted|found|stated|documented|described|seen|discussed)"
    r" (?:in|by)|as per|per|see also|see|cf\.?|citing|e\.g\.,?|i\.e\.,?|from|in|by)[ \t]*$",
    re.IGNORECASE,
)
# A comma-separated part that starts with one of these depends on the rest: it can go alone.
_SUBORDINATE = frozenset(
    "as according per see citing following like unlike including and but while whereas though although "
    "which who whose where with since because given cf e.g.".split()
)
_RELATIVE = frozenset({"which", "who", "whose", "where"})
# After one of these, a marker followed by a verb is the subject of its clause ("as [E1] shows").
_OPENS_CLAUSE = frozenset("as which that since because if though although when where".split())
# Words that carry no content of their own: a sentence or bracket of only these is left over.
_FUNCTION_WORDS = frozenset(
    "see also cf and or the a an as in on to by from of with per both including according namely this "
    "that these those here there it".split()
)
_LATIN = re.compile(r"\b(?:e\.g|i\.e|cf)\.?", re.IGNORECASE)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "cf", "etc", "vs", "al", "fig", "no", "approx", "ca", "p", "pp"})
_SENTENCE_END = re.compile(r"[.!?]+[\"”’')\]]*(\s+)")
_TERMINAL = re.compile(r"[.!?]+[\"”’)]*$")
_WORDS = re.compile(r"[A-Za-z0-9]+")


def drop_citations(text: str, keep: Container[str], marker: re.Pattern[str] = CITATION_MARKER) -> str:
    """`text` without the markers whose id is not in `keep` (group 1 of `marker` is the id), each taken
    out as the module says. Line breaks stay; a line emptied entirely goes."""
    if all(m.group(1) in keep for m in marker.finditer(text)):
        return text
    lines = []
    for line in text.split("\n"):
        cleaned = _line(line, keep, marker)
        if cleaned.strip() or not line.strip():
            lines.append(cleaned)
    return "\n".join(lines).strip("\n")


def _line(line: str, keep: Container[str], marker: re.Pattern[str]) -> str:
    kept: list[str] = []
    for sentence, gap in _sentences(line):
        if any(m.group(1) not in keep for m in marker.finditer(sentence)):
            sentence = _sentence(sentence, keep, marker)
        if sentence:
            kept.append(sentence + gap)
        elif kept and not gap:  # the last sentence went: so does the space before it
            kept[-1] = kept[-1].rstrip()
    return "".join(kept)


def _sentences(line: str) -> list[tuple[str, str]]:
    """(sentence, the whitespace after it), split after . ! or ? (a closing quote or bracket kept with
    it) but not after a common abbreviation such as "e.g." or "et al."."""
    found: list[tuple[str, str]] = []
    start = 0
    for end in _SENTENCE_END.finditer(line):
        word = line[start : end.start()].rsplit(None, 1)[-1:] or [""]
        if word[0].lstrip("([\"'").lower() in _ABBREVIATIONS:
            continue
        found.append((line[start : end.start(1)], end.group(1)))
        start = end.end()
    if start < len(line):
        found.append((line[start:], ""))
    return found


def _group_pattern(marker: re.Pattern[str]) -> re.Pattern[str]:
    """Markers in a row ("[E1], [E2] and [E3]"): they are kept or dropped as one list."""
    one = marker.pattern
    joint = (
        r"(?:[ \t]*,[ \t]*(?:and[ \t]+|or[ \t]+)?|[ \t]*;[ \t]*|[ \t]+and[ \t]+|[ \t]+or[ \t]+|[ \t]*&[ \t]*)"
    )
    return re.compile(rf"(?:{one})(?:{joint}(?:{one}))*")


def _sentence(sentence: str, keep: Container[str], marker: re.Pattern[str]) -> str:
    """One sentence with its unkept markers out: '' when nothing that reads is left."""
    terminal = _TERMINAL.search(sentence)
    end = terminal.group(0) if terminal else ""
    body = sentence[: len(sentence) - len(end)]
    capital = body.lstrip('[( "“')[:1].isupper() or body.lstrip().startswith("[")

    body = _group_pattern(marker).sub(lambda g: _replace_group(g, keep, marker), body)
    body = _drop_brackets(body)
    while _HOLE in body:
        body = _drop_dependent(body)
    body = _tidy(body)
    if not _content_words(body):
        return ""
    if capital and body[0].islower():
        body = body[0].upper() + body[1:]
    return body + end


def _replace_group(group: re.Match[str], keep: Container[str], marker: re.Pattern[str]) -> str:
    markers = list(marker.finditer(group.group(0)))
    kept = [m.group(0) for m in markers if m.group(1) in keep]
    if len(kept) == len(markers):
        return group.group(0)
    if kept:
        return ", ".join(kept)
    text = group.string
    before, after = text[: group.start()], text[group.end() :]
    if _ATTRIBUTION.search(before):
        return "\x01"  # the attribution phrase goes too: see _tidy
    previous = re.findall(r"[A-Za-z.]+", before[-40:])
    last = before.rstrip()[-1:]
    object_of = bool(previous) and last.isalpha() and previous[-1].lower() in _NEEDS_OBJECT
    # At a clause's start and followed by its verb ("[E1] reports that …", "as [E1] shows"): the subject.
    opens = not last or last in ';("“' or (last.isalpha() and previous[-1].lower() in _OPENS_CLAUSE)
    subject = opens and re.match(r"[ \t]*(?:[a-z]|'s\b|’s\b)", after)
    if object_of or subject or last == ":":
        return _HOLE
    return "\x02"  # an attached marker: it goes with the space before it (see _tidy)


def _drop_brackets(body: str) -> str:
    """A bracket whose content was built on a dropped marker, or is left with no content ("()",
    "(see )"), goes whole."""
    while True:
        changed = False
        for paren in re.finditer(r"[ \t]*\(([^()]*)\)", body):
            inner = paren.group(1)
            if "\x01" not in inner and "\x02" not in inner and _HOLE not in inner:
                continue
            if _HOLE in inner or not _content_words(inner):
                body = body[: paren.start()] + body[paren.end() :]
                changed = True
                break
        if not changed:
            return body


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORDS.findall(_LATIN.sub(" ", text))} - _FUNCTION_WORDS


def _split_top(text: str, separator: str) -> list[str]:
    """`text` split at `separator`, outside brackets and double quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char in '"“”':
            quoted = not quoted if char == '"' else char == "“"
        elif char == separator and depth == 0 and not quoted:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _drop_dependent(body: str) -> str:
    """Drop what depended on the first hole: its comma-separated part when that part is subordinate
    ("As [E1] shows, …", ", and [E1] cuts the other way"), with relative parts that hung on it; else its
    whole clause (up to a semicolon or the sentence's end)."""
    clauses = _split_top(body, ";")
    at = next(i for i, c in enumerate(clauses) if _HOLE in c)
    parts = _split_top(clauses[at], ",")
    k = next(i for i, p in enumerate(parts) if _HOLE in p)
    first = (_WORDS.findall(parts[k].replace("\x01", "").replace("\x02", "")) or [""])[0].lower()
    if first in _SUBORDINATE and len(parts) > 1:
        rest = parts[k + 1 :]
        while rest and (_WORDS.findall(rest[0]) or [""])[0].lower() in _RELATIVE:
            rest = rest[1:]
        clauses[at] = ",".join(parts[:k] + rest)
    else:
        clauses[at] = ""
    return ";".join(c for c in clauses if c.strip())


_ATTRIBUTED = _ATTRIBUTION.pattern.removesuffix("$") + "\x01"


def _tidy(body: str) -> str:
    body = re.sub(r"[ \t]*\x02", "", body)
    # An attribution phrase goes with its marker ("according to [E1]", "(see [E1])", "data from [E1]"),
    # and so do the commas around it when it stood between two.
    body = re.sub(rf",{_ATTRIBUTED}[ \t]*,", "", body, flags=re.IGNORECASE)
    body = re.sub(_ATTRIBUTED, "", body, flags=re.IGNORECASE)
    body = body.replace("\x01", "")
    body = re.sub(r"[ \t]*\(\s*\)", "", body)
    body = re.sub(r",\s*,", ",", body)
    body = re.sub(r"[ \t]+([,.;:!?)])", r"\1", body)
    body = re.sub(r"\([ \t]+", "(", body)
    body = re.sub(r"[,;:]+(?=[.!?)]|$)", "", body)
    body = re.sub(r"[ \t]{2,}", " ", body)
    body = re.sub(r";(?=\S)", "; ", body)
    return body.strip().lstrip(",;: \t").strip()
