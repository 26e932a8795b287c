"""Stage 2: split the claim into sub-claims, each with one retrieval directive, and say its shape."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.review import first_batch
from claimcourt.debate.argue import turns
from claimcourt.debate.decompose import decompose
from claimcourt.models import Directive, Stage
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.payloads import ASSESS, Payload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.DECOMPOSE


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request = record.request
    profile = deps.settings.effort(request.effort)
    result = decompose(
        request.claim,
        request.context,
        profile.max_sub_claims,
        deps.reasoner,
        CallContext(p.run_id, STAGE, step=ASSESS),
        evidence_source=evidence_name(deps, record),
        judge=request.judge,
    )
    deps.store.put_artifact(p.run_id, artifacts.DECOMPOSITION, result.model_dump(mode="json"))
    directives = [Directive(sub_claim_id=s.id, query=s.directive).model_dump() for s in result.sub_claims]
    return {
        "directives": directives,
        "sub_claims": len(directives),
        # What the state machine needs to run the rest: when to stop, and which judgements to ask for.
        "max_rounds": deps.settings.round_limit(request),
        # Whether the sides argue in turn (the Order? Choice), and who speaks first and second.
        "order": turns(request.first),
        # The judge's first samples; the review stage asks for the rest when these disagree. A panel of
        # judges replaces them (and the re-deliberation): one judgement from each judge, all at once.
        "samples": [] if request.judges else first_batch(deps.settings.judgements(request.effort)),
        "panel": list(range(len(request.judges))),
    }
