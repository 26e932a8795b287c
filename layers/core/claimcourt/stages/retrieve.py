"""Stages 3 and 6: run one retrieval directive (one iteration of the Retrieve Map)."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.evidence.base import source_for_run
from claimcourt.evidence.retrieve import retrieve
from claimcourt.models import CallRecord, Directive, Stage
from claimcourt.observability import count
from claimcourt.reasoning.prices import WEB_SEARCH_USD_PER_REQUEST, cost_usd
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps

STAGE = Stage.RETRIEVE


class RetrievePayload(RoundPayload):
    directive: Directive


def run(deps: Deps, p: RetrievePayload) -> dict[str, Any]:
    request = deps.store.get_run(p.run_id).request
    found, cache_hit = retrieve(
        p.directive,
        round=p.round,
        source=source_for_run(deps.evidence, p.run_id),
        cache=deps.store,
        limit=deps.settings.effort(request.effort).evidence_per_query,
        as_of=request.as_of_date,
        ttl_s=deps.settings.cache_ttl_s,
    )
    doc = {
        "query": p.directive.query,
        "source": deps.evidence.name,
        "cache_hit": cache_hit,
        "contrarian": p.directive.contrarian,
        "items": [e.model_dump(mode="json") for e in found],
    }
    count("RetrievalCacheHits" if cache_hit else "RetrievalCacheMisses")
    if not cache_hit:  # a cached answer cost nothing this time
        _bill_search(deps, p)
    deps.store.put_artifact(
        p.run_id, artifacts.evidence_key(p.round, p.directive.sub_claim_id, p.directive.contrarian), doc
    )
    return {"sub_claim_id": p.directive.sub_claim_id, "found": len(found), "cache_hit": cache_hit}


def _bill_search(deps: Deps, p: RetrievePayload) -> None:
    """A source that calls a model to search (Anthropic web search) is billed like any other call."""
    usage: tuple[str, int, int] | None = getattr(deps.evidence, "last_usage", None)
    if usage is None:
        return
    model, input_tokens, output_tokens = usage
    cost, known = cost_usd(model, input_tokens, output_tokens)
    cost += WEB_SEARCH_USD_PER_REQUEST * int(getattr(deps.evidence, "last_search_requests", 0))
    key = f"{STAGE}:{p.round}:{p.directive.sub_claim_id}:search{':contrarian' * p.directive.contrarian}"
    record = CallRecord(
        p.run_id, key, deps.evidence.name, model, input_tokens, output_tokens, cost, known, None, None
    )
    deps.store.put_call(record)
