"""Stages 3 and 6: run one directive against the evidence source, through the query cache,
tier every hit and drop what a backtest must not see."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, replace
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
    )


def backtest(hits: list[Hit], as_of: date) -> list[Hit]:
    """What could have been read on `as_of`: nothing published later (sources are asked to bound by
    date; this holds even if one does not), nothing titled for a later time, and in what is left no
    sentence written with hindsight (evidence/scrub.py). A passage with nothing left is dropped."""
    kept = []
    for hit in hits:
        if (hit.published is not None and hit.published > as_of) or names_a_later_time(hit.title, as_of):
            continue
        text = scrub(hit.text, as_of)
        if text:
            kept.append(replace(hit, text=text))
    return kept


def retrieve(
    directive: Directive,
    *,
    round: int,
    source: EvidenceSource,
    cache: RetrievalCache,
    limit: int,
    as_of: date | None,
    ttl_s: int,
) -> tuple[list[Evidence], bool]:
    """(evidence, cache_hit). An identical directive within the TTL returns identical evidence."""
    key = cache_key(directive.query, source.name, as_of, limit)
    cached = cache.cache_get(key)
    if cached is not None:
        hits = [_to_hit(h) for h in cached]
    else:
        hits = source.search(directive.query, limit=limit, as_of=as_of)
        cache.cache_put(key, [asdict(h) for h in hits], ttl_s)
    if as_of is not None:
        hits = backtest(hits, as_of)
    evidence = [
        Evidence(
            id=evidence_id(h),
            text=_passage(h.text),
            title=h.title,
            source_url=h.url,
            tier=tier_for(h.url),
            published=h.published,
            query=directive.query,
            sub_claim_id=directive.sub_claim_id,
            round=round,
        )
        for h in hits
    ]
    return list({e.id: e for e in evidence}.values()), cached is not None


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
