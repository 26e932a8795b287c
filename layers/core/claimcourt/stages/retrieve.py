"""Stages 3 and 6: run one retrieval directive (one iteration of the Retrieve Map). In a backtest,
the sources it returns are dated by their text (debate/hindsight.py: one call for the sources this run
has not dated in an earlier round) and those written after the date are left out."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import Field

from claimcourt import artifacts
from claimcourt.debate.hindsight import date_sources
from claimcourt.evidence.base import EvidenceSource, source_for_run
from claimcourt.evidence.model_search import SearchUsage
from claimcourt.evidence.retrieve import Dater, retrieval
from claimcourt.models import (
    CallRecord,
    DatedSource,
    Directive,
    HindsightInput,
    HindsightReply,
    SourceDating,
    Stage,
)
from claimcourt.observability import count
from claimcourt.reasoning.base import CallContext
from claimcourt.reasoning.prices import WEB_SEARCH_USD_PER_REQUEST, cost_usd
from claimcourt.stages.payloads import LAST_ATTEMPT, RoundPayload
from claimcourt.wiring import Deps, run_evidence

STAGE = Stage.RETRIEVE


class RetrievePayload(RoundPayload):
    directive: Directive
    # Round 1 again after a re-split (SplitPayload): its own idempotency record and call keys, so a
    # changed directive for the same sub-claim id is searched (and dated) anew, never replayed.
    attempt: int = Field(default=0, ge=0, le=LAST_ATTEMPT)


def _attempt_suffix(p: RetrievePayload) -> str:
    """A re-split's round-1 searches are billed and dated under their own keys; the later rounds, which
    only the re-split has, under a normal run's (the state machine carries `attempt` along)."""
    return f"a{p.attempt}" if p.attempt and p.round == 1 else ""


def run(deps: Deps, p: RetrievePayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request, searched = record.request, run_evidence(deps, record)
    retrieved = retrieval(
        p.directive,
        round=p.round,
        source=source_for_run(searched, p.run_id),
        cache=deps.store,
        limit=deps.settings.effort(request.effort).evidence_per_query,
        as_of=request.as_of_date,
        ttl_s=deps.settings.cache_ttl_s,
        dater=None if request.as_of_date is None else _dater(deps, p, request.as_of_date, record.created_at),
    )
    found, cache_hit = retrieved.evidence, retrieved.cache_hit
    doc: dict[str, Any] = {
        "query": p.directive.query,
        "source": searched.name,
        # each source searched, a collection as name@version: what the result's `searched` lists
        "searched": [s.name for s in getattr(searched, "sources", [searched])],
        "cache_hit": cache_hit,
        "contrarian": p.directive.contrarian,
        "items": [e.model_dump(mode="json") for e in found],
    }
    if (checked := retrieved.backtested) is not None:  # what the backtest checked against its date
        doc |= {
            "dated": retrieved.dated,
            "dropped": retrieved.dropped,
            "hindsight": {
                "judged_by": checked.judged_by,
                "checked": checked.checked,
                "after": [h.model_dump(mode="json") for h in checked.hindsight],
            },
        }
    count("RetrievalCacheHits" if cache_hit else "RetrievalCacheMisses")
    key = f"{STAGE}:{p.round}:{p.directive.sub_claim_id}:search{':contrarian' * p.directive.contrarian}"
    if suffix := _attempt_suffix(p):  # a re-split's search is billed under its own key
        key += f":{suffix}"
    if not cache_hit and (billed := search_call(searched, p.run_id, key)) is not None:
        deps.store.put_call(billed)  # a cached answer cost nothing this time
    deps.store.put_artifact(
        p.run_id, artifacts.evidence_key(p.round, p.directive.sub_claim_id, p.directive.contrarian), doc
    )
    return {"sub_claim_id": p.directive.sub_claim_id, "found": len(found), "cache_hit": cache_hit}


def _dater(deps: Deps, p: RetrievePayload, as_of: date, created_at: datetime) -> Dater:
    """The reasoner's hindsight check for this retrieval's sources (role hindsight), each source dated
    once a run: what an earlier round dated is read from its retrieval, not asked again. (Only earlier
    rounds: this round's other retrievals run at once, and whether they had finished would decide
    whether a call is made.)"""
    known: dict[str, SourceDating] = {}
    for key, doc in artifacts.retrievals_of(deps.store, p.run_id).items():
        checked = doc.get("hindsight")
        if checked is None or artifacts.round_of(key) >= p.round:
            continue
        reasons = {d["id"]: d["reason"] for d in checked["after"]}
        for sid, written in checked["checked"].items():
            reason = reasons.get(sid, "dated in an earlier round")
            known.setdefault(sid, SourceDating(id=sid, written=written, reason=reason))
    ctx = CallContext(p.run_id, STAGE, p.round, p.directive.sub_claim_id)
    today = created_at.date()

    def dater(sources: list[DatedSource]) -> tuple[HindsightReply, list[str]]:
        fresh = [s for s in sources if s.id not in known]
        asked = HindsightInput(as_of=as_of, today=today, sources=fresh)
        reply, judged_by = date_sources(
            asked, deps.reasoner, ctx, "contrarian" if p.directive.contrarian else _attempt_suffix(p)
        )
        dated = known | {d.id: d for d in reply.sources}
        return HindsightReply(sources=[dated[s.id] for s in sources]), judged_by

    return dater


def search_call(source: EvidenceSource, run_id: str, key: str) -> CallRecord | None:
    """The call to bill for this thread's last search of a source that calls a model to search
    (Anthropic's or OpenAI's web search: tokens, and a price per search, the source's own if it
    says); None for one that does not (the corpus, SearXNG)."""
    usage: SearchUsage | None = getattr(source, "last_usage", None)
    if usage is None:
        return None
    cost, known = cost_usd(  # the prompt-cache tokens at their own rates
        usage.model,
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    )
    per_search = float(getattr(source, "usd_per_search", WEB_SEARCH_USD_PER_REQUEST))
    cost += per_search * int(getattr(source, "last_search_requests", 0) or 0)
    return CallRecord(
        run_id,
        key,
        source.name,
        usage.model,
        usage.input_tokens,
        usage.output_tokens,
        cost,
        known,
        None,
        None,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )
