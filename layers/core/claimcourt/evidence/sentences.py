"""A text's sentences: where one ends, and not at an abbreviation's full stop. Used to cut documents
into passages (evidence/passages.py) and to find the sentence of an argument that cites a passage
(debate/ledger.py)."""

from __future__ import annotations

import re

# A sentence ends at . ! or ? and a space, but not after an abbreviation ("U.S.", "e.g.", "Dr.", "et al.",
# "approx.", an initial) nor inside a bracket's ids.
_ABBREVIATION = re.compile(
    r"(?:\b(?:[A-Z]\.){1,3}|\b(?:e\.g|i\.e|etc|vs|cf|approx|ca|al|fig|no|vol|pp|Dr|Mr|Mrs|Ms|Prof|St|Inc|"
    r"Ltd|Co|Corp|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.)$"
)
_END = re.compile(r"[.!?][\"')\]]*\s+")


def sentences(text: str) -> list[str]:
    """The text's sentences, split where one ends and not at an abbreviation's full stop."""
    found, start = [], 0
    for end in _END.finditer(text):
        before = text[start : end.start() + 1]
        if _ABBREVIATION.search(before.rstrip()):
            continue
        found.append(text[start : end.end()].strip())
        start = end.end()
    found.append(text[start:].strip())
    return [s for s in found if s]
