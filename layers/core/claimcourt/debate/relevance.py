"""Before the debate: does the evidence pool speak to each sub-claim?

A search always returns something. Over the bundled climate corpus, "Humans only use 10 percent of
their brains" retrieves climate myths, page-view statistics and a passage on breathing that mentions
the brain, and nothing would tell the debaters, the judge or the user that none of it is about the
claim. This module measures it, with no model call: each sub-claim against its own passages (those
retrieved for it, and the user's --context, which bears on every sub-claim).

The signal, `shared words`: how much of the sub-claim's information its closest passage shares,
beyond the one word a search is bound to share. Each content word of the sub-claim (stemmed as the
offline reader stems, claimcourt.reasoning.stance) weighs by how rare it is in English at large,
WEIGHT_BASE − its Zipf frequency (wordfreq's English list, shipped as debate/data/english_zipf.tsv.gz:
not the bundled corpus, whose climate words are common only there, so the same weights serve a web
search's or a document collection's pool); a figure weighs FIGURE_WEIGHT. A passage (with its source's
title) covers the weights of the words it contains, less its heaviest one: a search finds its hits by
one word or another, so one shared word says nothing about whether a passage is about the sub-claim
("brain" in a sentence about breathing). The reading is the best passage's share of the sub-claim's
whole weight, 0–1. A sub-claim of one content word reads the whole share (nothing else could be shared).

Words are Unicode's, in any script (letters with their marks, and digits; casefolded; a French or
Italian elided article, l'/d'/qu', left off): a claim in Russian or Greek is read as one in English is.
A script written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) is read as
overlapping pairs of characters, the usual unit where no word breaker is at hand: 疫苗不会 is 疫苗, 苗不,
不会. A word outside the English list weighs as a rare one (ABSENT_ZIPF), so in another language every
word weighs the same and a function word counts as much as a noun: the reading is rougher there, and
the stop below does not rest on it. A statement with no word the check can read (stop words only) is
`unmeasured`: never off topic, never a reason to stop.

Stopping the debate (`add_documents`) needs more than a low reading: every sub-claim has no passage, or
no passage shares a single content word with it. A low reading alone only warns: a pool that refutes a
claim in other words ("The Earth is flat" against "the planet is an oblate spheroid") shares one word
or none of the rest, and stopping a debate for nothing is the worst error. A pool sharing no word with
any sub-claim is the case a search over the wrong source gives ("Vaccines cause autism" against a climate
corpus), and the one this check stops.

Measured by bench/pool_relevance.py (its docstring has the figures and what else was tried): on-topic
claims (CLIMATE-FEVER, fact-checked climate claims) against off-topic ones (fact-checked health and
political claims), each against the bundled corpus, thresholds chosen on the tune halves only.

Signals are pluggable: a `Signal` reads a statement against its passages, 0–1 (or unmeasured), carries
its off-topic threshold, and says when the passages are silent on the statement. A sub-claim reads off
topic only when every signal reads it below its threshold, and the pool asks for documents only when
every sub-claim has no passage or every signal finds its passages silent: a second signal (a sentence
embedding's cosine, say) can only make the check more careful, never stop a debate the first would have
let run.
"""

from __future__ import annotations

import gzip
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from claimcourt.evidence.retrieve import CONTEXT_SUB_CLAIM
from claimcourt.models import Evidence, PoolRelevance, SubClaim, SubClaimRelevance
from claimcourt.prompts import SOURCE_COVERAGE
from claimcourt.reasoning.stance import NEGATORS, STOPWORDS, stem

if TYPE_CHECKING:
    import regex

FREQUENCIES_FILE = str(Path(__file__).parent / "data" / "english_zipf.tsv.gz")
# A word's weight is WEIGHT_BASE − its Zipf frequency (log10 of its uses per billion words): "the" (7.7)
# weighs 0.3, "percent" (5.0) 3.0, "brains" (4.1) 3.9. A word rarer than the list goes (below Zipf 3,
# once per million words: names, terms of art) reads as ABSENT_ZIPF.
WEIGHT_BASE = 8.0
ABSENT_ZIPF = 2.0
# A figure ("10", "2023") is a detail of a claim, not its subject: half a rare word.
FIGURE_WEIGHT = 3.0
# The shared-words signal's threshold, chosen by bench/pool_relevance.py on the tune halves: below it a
# sub-claim's passages read as not speaking to it (a warning; the roles are told). No reading stops a
# debate: only passages sharing no word at all do (the module's docstring).
OFF_TOPIC = 0.14
# How many of a sub-claim's rarest words a reason names.
KEY_WORDS = 3


@lru_cache(maxsize=1)
def zipf_table() -> dict[str, float]:
    """word → Zipf frequency, for the English words at least once per million (wordfreq's list)."""
    table: dict[str, float] = {}
    with gzip.open(FREQUENCIES_FILE, "rt", encoding="utf-8") as lines:
        for line in lines:
            zipf, words = line.rstrip("\n").split("\t")
            value = float(zipf)
            table.update(dict.fromkeys(words.split(), value))
    return table


def weight(word: str) -> float:
    """How much a word of a statement tells about its subject: the rarer in English, the more."""
    if any(c.isdigit() for c in word):
        return FIGURE_WEIGHT
    return max(0.0, WEIGHT_BASE - zipf_table().get(word, ABSENT_ZIPF))


# Scripts written without spaces between words (and the marks of repetition and length they use).
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\u3005\u30fc"


@dataclass(frozen=True)
class _Patterns:
    # A word as written, so a reason quotes "Einstein": letters and digits of any other script with their
    # marks (हिन्दी is one word, not three), an inner apostrophe kept (Earth's, don't: the stemmer reads
    # them); or a run of an unspaced script (named `run`).
    words: regex.Pattern[str]
    # An elided French or Italian article or pronoun, left off its word: l'étendue is étendue.
    elided: regex.Pattern[str]
    grapheme: regex.Pattern[str]


@lru_cache(maxsize=1)
def _patterns() -> _Patterns:
    import regex  # 12 ms: where words are read, not at the cold start of every function importing this

    return _Patterns(
        words=regex.compile(
            rf"(?P<run>[{_UNSPACED}][{_UNSPACED}\p{{M}}]*)"
            rf"|[[\p{{L}}\p{{N}}]--[{_UNSPACED}]][[\p{{L}}\p{{M}}\p{{N}}]--[{_UNSPACED}]]*"
            rf"(?:'[[\p{{L}}\p{{M}}]--[{_UNSPACED}]]+)*",
            regex.VERSION1,
        ),
        elided=regex.compile(r"\b(?:[cdjlmnst]|qu)'(?=\p{L})", regex.IGNORECASE),
        grapheme=regex.compile(r"\X"),
    )


def written_words(text: str) -> Iterator[str]:
    """A text's words as written (the module's docstring): a run of an unspaced script gives its
    overlapping pairs of characters (each a grapheme: a Thai vowel sign stays on its consonant)."""
    found = _patterns()
    for match in found.words.finditer(found.elided.sub("", _plain(text).replace("’", "'"))):
        if match.group("run") is None:
            yield match.group()
        else:
            chars = found.grapheme.findall(match.group())
            yield from (a + b for a, b in pairwise(chars))


def key_words(statement: str) -> dict[str, tuple[str, float]]:
    """The statement's content words: stem → (the word as first written, its weight). Empty when it has
    none the check can read: the statement is unmeasured."""
    found: dict[str, tuple[str, float]] = {}
    for written in written_words(statement):
        token = written.casefold()
        if token in STOPWORDS or token in NEGATORS or len(token) < 2:
            continue
        found.setdefault(stem(token), (written, weight(token)))
    return found


def _plain(text: str) -> str:
    """Compatibility forms as plain characters: CO₂ is CO2, as a passage most likely writes it."""
    return unicodedata.normalize("NFKC", text)


def _stems(e: Evidence) -> frozenset[str]:
    return frozenset(stem(w.casefold()) for w in written_words(f"{e.title}. {e.text}"))


@dataclass(frozen=True)
class Reading:
    """One signal's reading of a statement against its passages."""

    score: float | None  # 0–1: how far the closest passage speaks to it; None: it could not be measured
    closest: Evidence | None  # that passage (None: no passage, or none shares anything)
    shared: tuple[str, ...] = ()  # the statement's words the closest passage contains, rarest first
    absent: tuple[str, ...] = ()  # its rarest words (up to KEY_WORDS, no figures) that no passage contains
    silent: bool = False  # measured, and the passages speak to nothing of it: the one reading that may stop


class Signal(Protocol):
    """A measure of how far passages speak to a statement, with the threshold calibrated for it."""

    name: str
    off_topic: float

    def read(self, statement: str, passages: Sequence[Evidence]) -> Reading: ...


class SharedWords:
    """The lexical signal (the module's docstring): rare words shared beyond the one a search shares.
    Silent: no passage holds a single content word of the statement."""

    name = "shared_words"
    off_topic = OFF_TOPIC

    def read(self, statement: str, passages: Sequence[Evidence]) -> Reading:
        words = key_words(statement)
        total = sum(w for _, w in words.values())
        if total <= 0:
            return Reading(None, None)  # no word it can read (and so none it could find)
        if not passages:
            return Reading(0.0, None, silent=True)
        found = [(e, _stems(e)) for e in passages]
        best: Evidence | None = None
        best_covered = best_weight = 0.0
        best_shared: tuple[str, ...] = ()
        for e, stems in found:
            shared = sorted((s for s in words if s in stems), key=lambda s: -words[s][1])
            weights = [words[s][1] for s in shared]
            covered = sum(weights) if len(words) == 1 else sum(weights[1:])
            # Ties (one shared word each reads nothing) go to the passage sharing the most weight.
            if shared and (best is None or (covered, sum(weights)) > (best_covered, best_weight)):
                best, best_covered, best_weight = e, covered, sum(weights)
                best_shared = tuple(words[s][0] for s in shared)
        anywhere = frozenset().union(*(stems for _, stems in found))
        # The words a reason names: its rarest, figures aside (a figure is a detail, not a subject).
        named = [s for s in words if not any(c.isdigit() for c in s)]
        rarest = sorted(named, key=lambda s: -words[s][1])[:KEY_WORDS]
        absent = tuple(words[s][0] for s in rarest if s not in anywhere)
        silent = not any(s in anywhere for s in words)
        return Reading(round(best_covered / total, 4), best, best_shared, absent, silent)


SIGNALS: tuple[Signal, ...] = (SharedWords(),)


def passages_for(sub_claim_id: str, pool: Iterable[Evidence]) -> list[Evidence]:
    """A sub-claim's passages: those retrieved for it and the user's context (which bears on all)."""
    return [e for e in pool if e.sub_claim_id in (sub_claim_id, CONTEXT_SUB_CLAIM)]


def measure(
    sub_claims: Sequence[SubClaim],
    pool: Sequence[Evidence],
    *,
    source: str = "",
    signals: Sequence[Signal] = SIGNALS,
) -> PoolRelevance:
    """Each sub-claim's reading of its passages, and whether the pool asks for documents (no debate).
    `source`: the evidence source's name, for the advice on what to add."""
    readings: list[SubClaimRelevance] = []
    stop = True
    for sub in sub_claims:
        passages = passages_for(sub.id, pool)
        read = [(signal, signal.read(sub.text, passages)) for signal in signals]
        first = read[0][1]
        reading: Literal["on_topic", "off_topic", "no_passages", "unmeasured"]
        if not passages:
            reading, reason = "no_passages", "no passage was found for it"
        elif all(r.score is None for _, r in read):
            reading, reason = "unmeasured", "it has no word the check reads (stop words only): not measured"
        elif all(r.score is not None and r.score < signal.off_topic for signal, r in read):
            reading, reason = "off_topic", _reason(first, len(passages))
        else:
            reading, reason = "on_topic", ""
        # Only silence stops, and only when every signal hears it (an unmeasured sub-claim never does)
        stop = stop and (not passages or all(r.silent for _, r in read))
        readings.append(
            SubClaimRelevance(
                sub_claim_id=sub.id,
                passages=len(passages),
                scores={signal.name: r.score for signal, r in read if r.score is not None},
                reading=reading,
                closest_evidence_id=first.closest.id if first.closest is not None else None,
                reason=reason,
            )
        )
    measured = PoolRelevance(sub_claims=readings, add_documents=stop and bool(sub_claims), warnings=[])
    return measured.model_copy(update={"warnings": warnings(measured, sub_claims, source)})


def _quoted(words: Sequence[str]) -> str:
    quoted = [f'"{w}"' for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _reason(r: Reading, passages: int) -> str:
    """Why a sub-claim's passages read off topic: its rarest words none holds, and what the closest shares."""
    where = f"any of its {passages} passages" if passages > 1 else "its one passage"
    if r.absent:
        verb = "appears" if len(r.absent) == 1 else "appear"
        said = (
            f"{_quoted(r.absent)} {verb} in none of its {passages} passages"
            if passages > 1
            else (f"{_quoted(r.absent)} {'is' if len(r.absent) == 1 else 'are'} not in its one passage")
        )
    else:
        said = f"{where} shares little of it"
    if r.closest is None:
        return f"{said}; none shares a word of it"
    return f'{said}; the closest ("{r.closest.title}") shares only {_quoted(r.shared)}'


def add_documents_advice(source: str) -> str:
    """What a user can add when the pool does not speak to a claim, naming where the evidence came from."""
    what = SOURCE_COVERAGE.get(source, ("the configured evidence source", None))[0]
    return (
        f"The evidence came from {what}. To debate it, add evidence that speaks to it: the text you have, "
        "with --context (the API's context); your own documents, as a collection (claimcourt corpus add "
        "NAME FILE…, then --corpus NAME); or a search provider (ANTHROPIC_API_KEY for Anthropic's web "
        "search, or CLAIMCOURT_SEARCH for another, such as a SearXNG instance)."
    )


def warnings(measured: PoolRelevance, sub_claims: Sequence[SubClaim], source: str) -> list[str]:
    """What the user is told: each sub-claim whose passages do not speak to it, and, when none do, that
    the claim was not debated and what to add."""
    text = {s.id: s.text for s in sub_claims}
    off = measured.off_topic()
    if measured.add_documents:
        which = "; ".join(f'{s.sub_claim_id} ("{text[s.sub_claim_id]}"): {s.reason}' for s in off)
        return [
            f"Not enough evidence, and not debated: the evidence pool does not speak to the claim ({which}).",
            add_documents_advice(source),
        ]
    return [
        f'The evidence pool does not speak to {s.sub_claim_id} ("{text[s.sub_claim_id]}"): {s.reason}. '
        "Every role that read the pool was told; its score rests on little."
        for s in off
    ]
