"""Stages 3 and 6: run one retrieval directive (one iteration of the Retrieve Map)."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.evidence.base import EvidenceSource, source_for_run
from claimcourt.evidence.retrieve import retrieval
from claimcourt.models import CallRecord, Directive, Stage
from claimcourt.observability import count
from claimcourt.reasoning.prices import WEB_SEARCH_USD_PER_REQUEST, cost_usd
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps, run_evidence

STAGE = Stage.RETRIEVE


class RetrievePayload(RoundPayload):
    directive: Directive


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
    if request.as_of_date is not None:  # what the backtest could check against its date (the result's)
        doc |= {"dated": retrieved.dated, "dropped": retrieved.dropped}
    count("RetrievalCacheHits" if cache_hit else "RetrievalCacheMisses")
    key = f"{STAGE}:{p.round}:{p.directive.sub_claim_id}:search{':contrarian' * p.directive.contrarian}"
    if not cache_hit and (billed := search_call(searched, p.run_id, key)) is not None:
        deps.store.put_call(billed)  # a cached answer cost nothing this time
    deps.store.put_artifact(
        p.run_id, artifacts.evidence_key(p.round, p.directive.sub_claim_id, p.directive.contrarian), doc
    )
    return {"sub_claim_id": p.directive.sub_claim_id, "found": len(found), "cache_hit": cache_hit}


def search_call(source: EvidenceSource, run_id: str, key: str) -> CallRecord | None:
    """The call to bill for this thread's last search of a source that calls a model to search
    (Anthropic web search: tokens, and a price per search); None for one that does not (the corpus)."""
    usage: tuple[str, int, int] | None = getattr(source, "last_usage", None)
    if usage is None:
        return None
    model, input_tokens, output_tokens = usage
    cost, known = cost_usd(model, input_tokens, output_tokens)
    cost += WEB_SEARCH_USD_PER_REQUEST * int(getattr(source, "last_search_requests", 0) or 0)
    return CallRecord(run_id, key, source.name, model, input_tokens, output_tokens, cost, known, None, None)
