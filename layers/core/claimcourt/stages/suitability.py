"""Stage 1: is the claim well served by a debate? (runs in parallel with decompose)"""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.suitability import assess
from claimcourt.models import Stage, SuitabilityInput
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.payloads import ASSESS, Payload
from claimcourt.wiring import Deps, run_evidence

STAGE = Stage.SUITABILITY


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request = record.request
    result = assess(
        SuitabilityInput(
            claim=request.claim,
            context=request.context,
            evidence_source=run_evidence(deps, record).name,
            today=record.created_at.date(),
            as_of=request.as_of_date,
        ),
        deps.reasoner,
        CallContext(p.run_id, STAGE, step=ASSESS),
    )
    deps.store.put_artifact(p.run_id, artifacts.SUITABILITY, result.model_dump(mode="json"))
    return {"proceed": result.proceed, "flags": [f.value for f in result.flags]}
