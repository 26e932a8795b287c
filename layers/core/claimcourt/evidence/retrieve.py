"""Stages 3 and 6: run one directive against the evidence source, through the query cache,
tier every hit and drop what a backtest must not see."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from datetime import date
from typing import Any, Protocol

from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.hindsight import OFFLINE, classify
from claimcourt.evidence.scrub import names_a_later_time, scrub
from claimcourt.evidence.tiers import tier_for
from claimcourt.models import (
    USER_CONTEXT_URL,
    DatedSource,
    Directive,
    Evidence,
    HindsightDrop,
    HindsightInput,
    HindsightReply,
    Written,
)
from claimcourt.store.base import cache_key

# A passage, not a page: what a debater quotes. Bounds every artifact and prompt built from evidence.
MAX_PASSAGE_CHARS = 4000


def _passage(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_PASSAGE_CHARS else text[: MAX_PASSAGE_CHARS - 1].rsplit(" ", 1)[0] + "…"


class RetrievalCache(Protocol):
    def cache_get(self, key: str) -> list[dict[str, Any]] | None: ...
    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None: ...


def evidence_id(hit: Hit) -> str:
    """Stable across runs and rounds: the same passage from the same source has one id."""
    return "E" + hashlib.sha1(f"{hit.url}\n{hit.text}".encode()).hexdigest()[:8]


def _to_hit(raw: dict[str, Any]) -> Hit:
    published = raw.get("published")
    return Hit(
        text=raw["text"],
        title=raw["title"],
        url=raw["url"],
        published=date.fromisoformat(published) if isinstance(published, str) else published,
        page=raw.get("page"),
        tier=raw.get("tier"),
        collection=raw.get("collection"),
    )


Dater = Callable[[list[DatedSource]], tuple[HindsightReply, list[str]]]


def lexical_dater(as_of: date) -> Dater:
    """The hindsight check without a model (evidence/hindsight.py): what a backtest uses unless the
    stage hands it the reasoner's."""

    def dater(sources: list[DatedSource]) -> tuple[HindsightReply, list[str]]:
        if not sources:
            return HindsightReply(sources=[]), []
        return classify(HindsightInput(as_of=as_of, sources=sources)), [OFFLINE]

    return dater


def published_later(hit: Hit, as_of: date) -> bool:
    """Published after `as_of` (sources are asked to bound by date; this holds even if one does not),
    or titled for a later time."""
    return (hit.published is not None and hit.published > as_of) or names_a_later_time(hit.title, as_of)


@dataclass(frozen=True)
class Backtested:
    """The hits as they could have been read on a backtest's date, and what was checked of them: the
    ids of those with a publication date and of those left out (kept: the id of the text as kept; left
    out: as the source returned it), each source left out as written after the date with the reason,
    who dated the sources by their text, and how each source dated was (by its id as returned)."""

    kept: list[Hit]
    dated: list[str]
    dropped: list[str]
    hindsight: list[HindsightDrop]
    judged_by: list[str]
    checked: dict[str, Written]


def backtest(hits: list[Hit], as_of: date, dater: Dater | None = None) -> Backtested:
    """A backtest's three layers, in order: a hit published or titled after the date goes; the rest
    are dated by their text (`dater`: a model, else the lexical check) and those written after it go
    whole; the sentences of what is left that name a later time or read with hindsight are cut
    (evidence/scrub.py), and a passage with nothing left goes."""
    dated: list[str] = []
    dropped: list[str] = []
    candidates = []
    for hit in hits:
        if published_later(hit, as_of):
            dropped.append(evidence_id(hit))
            dated += [evidence_id(hit)] if hit.published is not None else []
        else:
            candidates.append(hit)
    sources = [
        DatedSource(id=evidence_id(h), title=h.title, url=h.url, published=h.published, text=_passage(h.text))
        for h in candidates
    ]
    reply, judged_by = (dater or lexical_dater(as_of))(sources)
    after = {d.id: d.reason for d in reply.sources if d.written == "after"}
    kept: list[Hit] = []
    hindsight: list[HindsightDrop] = []
    for hit in candidates:
        original = evidence_id(hit)
        if original in after:
            hindsight.append(HindsightDrop(id=original, title=hit.title, url=hit.url, reason=after[original]))
            text = ""
        else:
            text = scrub(hit.text, as_of)
        readable = replace(hit, text=text) if text else None
        if readable is None:
            dropped.append(original)
        else:
            kept.append(readable)
        if hit.published is not None:
            dated.append(evidence_id(readable or hit))
    checked = {d.id: d.written for d in reply.sources}
    return Backtested(kept, dated, dropped, hindsight, judged_by, checked)


@dataclass(frozen=True)
class Retrieval:
    """One directive's evidence, and what a backtest could check of it against its date: of the
    passages the source returned, the ids of those that carry a publication date, and of those left
    out as after the date (none without a date), and the rest of what `backtest` found (`backtested`).
    A source that knows dates (web search, golden sets) leaves later passages out itself, before they
    reach these counts; the bundled corpus is undated, so only its text can show when it was written."""

    evidence: list[Evidence]
    cache_hit: bool
    dated: list[str]
    dropped: list[str]
    backtested: Backtested | None = None


def retrieval(
    directive: Directive,
    *,
    round: int,
    source: EvidenceSource,
    cache: RetrievalCache,
    limit: int,
    as_of: date | None,
    ttl_s: int,
    dater: Dater | None = None,
) -> Retrieval:
    """The directive's evidence (an identical directive within the TTL returns identical evidence),
    whether the cache answered, and for a backtest what `backtest` left out of it (its sources dated
    by `dater`, else by the lexical check)."""
    key = cache_key(directive.query, source.name, as_of, limit)
    cached = cache.cache_get(key)
    if cached is not None:
        hits = [_to_hit(h) for h in cached]
    else:
        hits = source.search(directive.query, limit=limit, as_of=as_of)
        cache.cache_put(key, [asdict(h) for h in hits], ttl_s)
    backtested = None
    if as_of is not None:
        backtested = backtest(hits, as_of, dater)
        hits = backtested.kept
    evidence = [
        Evidence(
            id=evidence_id(h),
            text=_passage(h.text),
            title=h.title,
            source_url=h.url,
            tier=h.tier or tier_for(h.url),  # a collection's passages come tiered (its tier and the url's)
            published=h.published,
            page=h.page,
            query=directive.query,
            sub_claim_id=directive.sub_claim_id,
            round=round,
        )
        for h in hits
    ]
    unique = list({e.id: e for e in evidence}.values())
    if backtested is None:
        return Retrieval(unique, cached is not None, [], [])
    dated, dropped = list(dict.fromkeys(backtested.dated)), list(dict.fromkeys(backtested.dropped))
    return Retrieval(unique, cached is not None, dated, dropped, backtested)


# The user's --context enters the pool as evidence: secondary, labelled as theirs, never a primary source.
CONTEXT_SUB_CLAIM = "context"  # the pseudo sub-claim id of context passages: they bear on every sub-claim
CONTEXT_TITLE = "Context supplied by the user"
MAX_CONTEXT_PASSAGES = 12
_PARAGRAPH = re.compile(r"\n\s*\n")


def context_evidence(context: str | None) -> list[Evidence]:
    """The context's paragraphs as T2 evidence (long ones split at sentence ends), at most
    MAX_CONTEXT_PASSAGES, with ids that name them as the user's (U…) and urls user-context:N."""
    if not context:
        return []
    passages: list[str] = []
    for paragraph in _PARAGRAPH.split(context):
        text = " ".join(paragraph.split())
        while len(text) > 800:
            cut = text.rfind(". ", 0, 800)
            cut = cut + 1 if cut > 200 else 800
            passages.append(text[:cut].strip())
            text = text[cut:].strip()
        if text:
            passages.append(text)
    return [
        Evidence(
            id="U" + hashlib.sha1(text.encode()).hexdigest()[:8],
            text=text,
            title=CONTEXT_TITLE,
            source_url=f"{USER_CONTEXT_URL}{i}",
            tier="T2",
            query="(supplied with the claim)",
            sub_claim_id=CONTEXT_SUB_CLAIM,
            round=1,
        )
        for i, text in enumerate(passages[:MAX_CONTEXT_PASSAGES], start=1)
    ]
