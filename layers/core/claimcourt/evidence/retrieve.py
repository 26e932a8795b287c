"""Stages 3 and 6: run one directive against the evidence source, through the query cache,
tier every hit and drop what a backtest must not see."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, replace
from datetime import date
from typing import Any, Protocol

from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.scrub import names_a_later_time, scrub
from claimcourt.evidence.tiers import tier_for
from claimcourt.models import USER_CONTEXT_URL, Directive, Evidence
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


def readable_on(hit: Hit, as_of: date) -> Hit | None:
    """The passage as it could have been read on `as_of`, or None: nothing published later (sources
    are asked to bound by date; this holds even if one does not), nothing titled for a later time,
    and no sentence written with hindsight (evidence/scrub.py). A passage with nothing left is None."""
    if (hit.published is not None and hit.published > as_of) or names_a_later_time(hit.title, as_of):
        return None
    text = scrub(hit.text, as_of)
    return replace(hit, text=text) if text else None


def backtest(hits: list[Hit], as_of: date) -> list[Hit]:
    """What could have been read on `as_of` (readable_on), in order."""
    return [kept for hit in hits if (kept := readable_on(hit, as_of)) is not None]


@dataclass(frozen=True)
class Retrieval:
    """One directive's evidence, and what a backtest could check of it against its date: of the
    passages the source returned, the ids of those that carry a publication date, and of those left
    out as after the date (none without a date). A source that knows dates (web search, golden
    sets) leaves later passages out itself, before they reach these counts; the bundled corpus is
    undated, so only its sentences that name a later time can be cut."""

    evidence: list[Evidence]
    cache_hit: bool
    dated: list[str]
    dropped: list[str]


def retrieval(
    directive: Directive,
    *,
    round: int,
    source: EvidenceSource,
    cache: RetrievalCache,
    limit: int,
    as_of: date | None,
    ttl_s: int,
) -> Retrieval:
    """The directive's evidence (an identical directive within the TTL returns identical evidence),
    whether the cache answered, and the dated and dropped passages' ids (a kept passage's id is that of its
    text as kept; a dropped one's, of its text as the source returned it)."""
    key = cache_key(directive.query, source.name, as_of, limit)
    cached = cache.cache_get(key)
    if cached is not None:
        hits = [_to_hit(h) for h in cached]
    else:
        hits = source.search(directive.query, limit=limit, as_of=as_of)
        cache.cache_put(key, [asdict(h) for h in hits], ttl_s)
    dated: list[str] = []
    dropped: list[str] = []
    if as_of is not None:
        kept = []
        for hit in hits:
            readable = readable_on(hit, as_of)
            if hit.published is not None:
                dated.append(evidence_id(readable or hit))
            if readable is None:
                dropped.append(evidence_id(hit))
            else:
                kept.append(readable)
        hits = kept
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
    return Retrieval(unique, cached is not None, list(dict.fromkeys(dated)), list(dict.fromkeys(dropped)))


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
