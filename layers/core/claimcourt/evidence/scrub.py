"""Backtests: what a passage may say "as of" a past date.

Dropping hits published after the date is not enough: an undated encyclopedia sentence, or one
published before the date and revised since, can still tell the debaters how things turned out.
So each passage is cut into sentences, and a sentence goes if it names a time after the cutoff
(a year, a month and year, or a full date) or reads with hindsight ("later", "went on to", "since
then", "as of 2023", …). What is left is the passage as it could have been read then; a passage
with nothing left is dropped.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date

MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ),
        start=1,
    )
    for m in names
}  # fmt: skip
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_YEAR = r"(1[89]\d\d|20\d\d)"
# "3 March 2016", "March 3, 2016", "March 2016", "2016-03-03", "2016", "the 2010s"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+({_MONTH})\.?,?\s+{_YEAR}\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}}),?\s+{_YEAR}\b", re.I)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+{_YEAR}\b", re.I)
_ISO = re.compile(rf"\b{_YEAR}-(\d\d)-(\d\d)\b")
_YEAR_ALONE = re.compile(rf"(?<![\d-]){_YEAR}(?:s\b|\b)(?!-\d)")
_HINDSIGHT = re.compile(
    r"\b(later|subsequently|in hindsight|in retrospect|since then|as it turned out|turned out|"
    r"would (?:later |eventually )?(?:go on|become|prove|turn out)|went on to|proved to be|"
    r"eventually|ultimately|to date|as of (?:today|now|\d{4})|currently|at present|recent(?:ly)?)\b",
    re.I,
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def _day(year: int, month: int, day: int) -> date:
    return date(year, month, max(1, min(day, monthrange(year, month)[1])))


def mentions(sentence: str) -> list[tuple[re.Match[str], date]]:
    """Every point in time a sentence names (a full date, a month and year, a year, a decade), each
    at the earliest day it could mean, with the words that name it."""
    found: list[tuple[re.Match[str], date]] = []
    taken: list[tuple[int, int]] = []

    def keep(match: re.Match[str], when: date) -> None:
        found.append((match, when))
        taken.append(match.span())

    for m in _ISO.finditer(sentence):
        year, month, day = (int(g) for g in m.groups())
        if 1 <= month <= 12 and 1 <= day <= 31:
            keep(m, _day(year, month, day))
    for m in _DAY_MONTH_YEAR.finditer(sentence):
        keep(m, _day(int(m.group(3)), MONTHS[m.group(2).lower()], int(m.group(1))))
    for m in _MONTH_DAY_YEAR.finditer(sentence):
        keep(m, _day(int(m.group(3)), MONTHS[m.group(1).lower()], int(m.group(2))))
    for m in _MONTH_YEAR.finditer(sentence):
        if not any(start <= m.start() < end for start, end in taken):
            keep(m, date(int(m.group(2)), MONTHS[m.group(1).lower()], 1))
    for m in _YEAR_ALONE.finditer(sentence):
        if not any(start <= m.start() < end for start, end in taken):
            keep(m, date(int(m.group(1)), 1, 1))
    return found


def _latest_mention(sentence: str) -> date | None:
    """The latest point in time a sentence names, at the earliest day it could mean."""
    return max((when for _, when in mentions(sentence)), default=None)


def names_a_later_time(text: str, as_of: date) -> bool:
    mentioned = _latest_mention(text)
    return mentioned is not None and mentioned > as_of


def after_the_fact(sentence: str, as_of: date) -> bool:
    return names_a_later_time(sentence, as_of) or _HINDSIGHT.search(sentence) is not None


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCES.split(text.strip()) if s]


def scrub(text: str, as_of: date) -> str:
    """The passage without its sentences that could not have been written on `as_of`."""
    return " ".join(s for s in sentences(text) if not after_the_fact(s, as_of))
