"""A document's text cut into passages: whole sentences, a few to a passage, never across a page.

A passage is what BM25 ranks and what a debater quotes, so it is short enough to say one thing and
long enough to carry its subject: about 500–900 characters (two to five sentences of report prose; the
bundled corpus's are single sentences of about 150, which often lose their subject to "it"). A
paragraph break ends a passage once it holds a few sentences, so a heading stays with the text under it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from claimcourt.evidence.documents import Section
from claimcourt.evidence.sentences import sentences

PASSAGE_TARGET = 500  # a passage ends after the sentence that takes it to this many characters …
PASSAGE_MAX = 900  # … or before one that would take it past this (a longer sentence is cut between words)
PARAGRAPH_MIN = 200  # a paragraph break ends a passage that holds at least this many
TAIL_MIN = 80  # a section's last passage shorter than this joins the one before, if it fits


@dataclass(frozen=True)
class Passage:
    text: str
    page: int | None = None


def passages(sections: Iterable[Section]) -> list[Passage]:
    found: list[Passage] = []
    for section in sections:
        found += [Passage(text, section.page) for text in _cut(section.text)]
    return found


def _cut(text: str) -> list[str]:
    cut: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current:
            cut.append(" ".join(current))
            current.clear()

    for paragraph in text.split("\n\n"):
        if _size(current) >= PARAGRAPH_MIN:
            close()
        for sentence in sentences(paragraph):
            for piece in _pieces(sentence):
                if current and _size(current) + 1 + len(piece) > PASSAGE_MAX:
                    close()
                current.append(piece)
                if _size(current) >= PASSAGE_TARGET:
                    close()
    close()
    if len(cut) > 1 and len(cut[-1]) < TAIL_MIN and len(cut[-2]) + 1 + len(cut[-1]) <= PASSAGE_MAX:
        cut[-2:] = [f"{cut[-2]} {cut[-1]}"]
    return cut


def _size(parts: list[str]) -> int:
    return sum(len(p) for p in parts) + max(len(parts) - 1, 0)


def _pieces(sentence: str) -> list[str]:
    """The sentence, or if it is longer than a passage (a table flattened into one line, a run-on
    list), its words in runs of at most PASSAGE_MAX characters."""
    if len(sentence) <= PASSAGE_MAX:
        return [sentence]
    pieces, words = [], sentence.split()
    current = ""
    for word in words:
        word = word[:PASSAGE_MAX]  # a "word" of a thousand characters (base64, a URL) is cut too
        if current and len(current) + 1 + len(word) > PASSAGE_MAX:
            pieces.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces
