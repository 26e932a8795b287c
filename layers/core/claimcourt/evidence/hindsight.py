"""Backtests, third layer: was a source written before the date, or after it?

The first two layers leave out a source published or titled after the date, and cut the sentences
of the rest that name a later time or read with hindsight (evidence/scrub.py). But a source written
after the date knows how things turned out in every sentence, including those that name no date: so
a source whose text shows it was written later is left out whole. A model reads the sources where one
is configured (debate/hindsight.py, a cheap call per retrieval); offline, and as the offline reasoner's
answer, this module reads them lexically, sentence by sentence, for:

- a statement of when it was written or updated, later than the date ("as of 2021", "updated May 2019");
- a retraction or correction, undated or dated later;
- retrospection ("in hindsight", "as it turned out", "went on to", "has since"), undated or dated later;
- a later date or year named as past or present, not as a forecast: a report ("the ice reached a record
  low in 2012"), a citation ("Smith et al., 2019"), a name ("the 2015 Paris Agreement").

It cannot know when an event happened that the text names without a date ("the Paris Agreement", "the
record minimum"), nor read paraphrase or tense beyond these words; a forecast ("will", "by 2050") is
read as written before, as it may have been; and a year used as a quantity ("2050 tonnes") reads as a
year. An undated source with none of these signs is kept.
"""

from __future__ import annotations

import re
from datetime import date

from claimcourt.evidence.scrub import mentions, sentences
from claimcourt.models import (
    BacktestDating,
    DatedSource,
    HindsightInput,
    HindsightReply,
    SourceDating,
    SourceRef,
    Written,
)

# "as of 2021", "updated 3 May 2019", "retrieved on 2020-01-02", "© 2018": the writing's own date.
_WRITTEN_AS_OF = re.compile(
    r"\b(?:as of|as at|(?:last )?updated(?: on)?|revised(?: on)?|retrieved(?: on)?|accessed(?: on)?|"
    r"copyright)\b|©",
    re.I,
)
_RETRACTION = re.compile(
    r"\b(?:retract(?:ed|ion|s)?|withdrawn by|expression of concern|erratum|corrigendum|"
    r"was (?:later )?corrected)\b",
    re.I,
)
# Looking back: the writer knows what came after. ("Later" alone is too common to drop a source for:
# the sentence scrub cuts it.)
_RETROSPECT = re.compile(
    r"\b(?:in hindsight|in retrospect|as it (?:later )?turned out|(?:it |which |that )?turned out to be|"
    r"would (?:later |eventually )?(?:go on to|prove|turn out|become)|went on to|"
    r"(?:has|have|had) since|since then|to this day|(?:years|decades|months) later|subsequently)\b",
    re.I,
)
# A later time named as something yet to come: a modal or a condition in its clause, or a forecast,
# plan or target within a few words of it ("the 2030 target", "projected for 2050").
_MODAL = re.compile(r"\b(?:will|would|could|may|might|shall|should|if|unless)\b", re.I)
_FORECAST = re.compile(
    r"\b(?:expected|expects?|projected|projections?|projects?|forecasts?|forecasted|predicted|predicts?|"
    r"predictions?|anticipated|planned|plans?|aims?|targets?|targeted|goals?|scheduled|proposed|scenarios?)\b",
    re.I,
)
NEAR_WORDS = 4
_BEFORE_TIME = re.compile(
    r"\b(?:by|until|till|before|through|in time for)\s+(?:the\s+)?(?:end of\s+)?$", re.I
)
_CITATION = re.compile(r"(?:et al\.?,?|\([A-Z][^()]{0,60}?,)\s*$")
_PAST = re.compile(
    r"\b(?:was|were|had|did|became|began|saw|hit|set|fell|rose|grew|shrank|sank|froze|broke|lost|won|made|"
    r"took|went|came|found|showed|shown|led|left|held|met|said|wrote|ran|stood|struck|\w{3,}ed)\b",
    re.I,
)
SNIPPET_CHARS = 90
OFFLINE = "offline"  # who dated the sources when no model did: this lexical check


def _snippet(sentence: str, start: int, end: int) -> str:
    """The words around a match, cut at word boundaries, for a reason to quote."""
    room = max(0, SNIPPET_CHARS - (end - start)) // 2
    left, right = max(0, start - room), min(len(sentence), end + room)
    text = sentence[left:right]
    if left > 0:
        text = "…" + text.split(" ", 1)[-1]
    if right < len(sentence):
        text = text.rsplit(" ", 1)[0] + "…"
    return text.strip()


_CLAUSE_END = re.compile(r"[,;:()\u2014]|\s[-\u2013]\s")


def _clause(sentence: str, start: int, end: int) -> str:
    """The clause around a match, without the match ("May" names a month, not a modal): between the
    punctuation that bounds it."""
    before = [m.end() for m in _CLAUSE_END.finditer(sentence, 0, start)]
    after = _CLAUSE_END.search(sentence, end)
    return (
        sentence[before[-1] if before else 0 : start] + " " + sentence[end : after.start() if after else None]
    )


def _yet_to_come(sentence: str, m: re.Match[str]) -> bool:
    """Whether the time `m` names is spoken of as still to come."""
    if _BEFORE_TIME.search(sentence[: m.start()]) or _MODAL.search(_clause(sentence, *m.span())):
        return True
    before, after = sentence[: m.start()].split(), sentence[m.end() :].split()
    near = " ".join(before[-NEAR_WORDS:] + after[:NEAR_WORDS])
    return _FORECAST.search(near) is not None


def _sign(sentence: str, as_of: date) -> str | None:
    """Why this sentence shows its source was written after `as_of`, or None."""
    named = mentions(sentence)
    later = [(m, when) for m, when in named if when > as_of]
    for m, _ in later:  # "as of 2021", "updated May 2019": the words just before the time
        if _WRITTEN_AS_OF.search(sentence[max(0, m.start() - 30) : m.start()]):
            quoted = _snippet(sentence, max(0, m.start() - 30), m.end())
            return f'it says when it was written or updated: "{quoted}"'
    dated_before = bool(named) and not later  # every time it names is on or before the date
    retraction, retrospect = _RETRACTION.search(sentence), _RETROSPECT.search(sentence)
    if retraction and not dated_before:
        return f'it reports a retraction or correction: "{_snippet(sentence, *retraction.span())}"'
    if retrospect and not dated_before:
        return f'it looks back with hindsight: "{_snippet(sentence, *retrospect.span())}"'
    for m, when in later:
        if _yet_to_come(sentence, m):
            continue  # a forecast or a plan: it may have been written before
        quoted = _snippet(sentence, *m.span())
        if _CITATION.search(sentence[: m.start()]):
            return f'it cites a work from {when.year}, after the date: "{quoted}"'
        if _PAST.search(sentence):
            return f'it reports {m.group(0)} as past: "{quoted}"'
        return f'it names {m.group(0)} as past or present, not as a forecast: "{quoted}"'
    return None


def date_source(source: DatedSource, as_of: date) -> SourceDating:
    """When the source was written, read from its text (and title): the first sign that it was
    written after `as_of`, or before."""
    for sentence in [source.title, *sentences(source.text)]:
        if (why := _sign(sentence, as_of)) is not None:
            return SourceDating(id=source.id, written="after", reason=why[:400])
    written: Written = "before"
    reason = f"nothing in its text places it after {as_of.isoformat()} (offline lexical check)"
    return SourceDating(id=source.id, written=written, reason=reason)


def classify(inputs: HindsightInput) -> HindsightReply:
    """The offline reasoner's reply to the hindsight check: each source dated lexically."""
    return HindsightReply(sources=[date_source(s, inputs.as_of) for s in inputs.sources])


SHOWN_DROPS = 3  # a warning names this many of the sources left out; the result lists them all


def _judges(judged_by: list[str]) -> str:
    if not judged_by or judged_by == [OFFLINE]:
        return "the offline lexical check"
    return ", ".join(OFFLINE + " lexical check" if j == OFFLINE else j for j in judged_by)


def warnings(dating: BacktestDating, as_of: date, cited: list[SourceRef]) -> list[str]:
    """What a backtest's result says of its sources against its date: those left out as written
    after it, and why; that none carried a date, or that some it cites do not (then only their text
    could show when they were written); that none was found, or none was left."""
    said = []
    when = as_of.isoformat()
    judges = _judges(dating.judged_by)
    if dating.written_after:
        named = "; ".join(f"{d.title} ({d.reason.rstrip('.')})" for d in dating.hindsight[:SHOWN_DROPS])
        more = len(dating.hindsight) - SHOWN_DROPS
        were = "was" if dating.written_after == 1 else "were"
        said.append(
            f"Backtest as of {when}: {dating.written_after} of the {dating.retrieved} sources retrieved "
            f"{were} left out as written after that date, by their text ({judges}): {named}"
            + (f"; and {more} more (the result's backtest.hindsight lists them)." if more > 0 else ".")
        )
    undated = [s for s in cited if s.published is None]
    if dating.retrieved and not dating.dated:
        said.append(
            f"Backtest as of {when}: none of the {dating.retrieved} sources retrieved carried a publication "
            "date, so none could be left out by its date: only their text could show when they were written "
            f"({judges}), and their sentences naming a later time were cut. An undated source that knows "
            "what came after without saying so may remain."
        )
    elif undated:
        said.append(
            f"Backtest as of {when}: {len(undated)} of the {len(cited)} sources cited carry no publication "
            f"date: only their text could show when they were written ({judges})."
        )
    if not dating.retrieved:
        said.append(
            f"Backtest as of {when}: the searches found no source from on or before that date (a source "
            "that knows its dates leaves later ones out itself), so the debate had no evidence from then."
        )
    elif dating.dropped == dating.retrieved:
        said.append(
            f"Backtest as of {when}: every source retrieved was left out as after the date, so the debate "
            "had no evidence from then."
        )
    return said
