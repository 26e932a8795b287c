"""Stage 1: is the claim well served by a debate? (runs in parallel with decompose)

A motion debate's check runs here too, after its opening research and before its crowd votes
(motions/suitability.py): the screen of its wording and the density of its pool, stored as
`motion/suitability`; the motion machine's Suitable? Choice reads `outcome`."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.suitability import assess
from claimcourt.models import MotionSuitabilityInput, Stage, SuitabilityInput
from claimcourt.motions.suitability import combine, density, screen
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import route_for
from claimcourt.stages.payloads import ASSESS, Payload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.SUITABILITY


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    if record.motion is not None:
        return _motion(deps, p)
    request = record.request
    result = assess(
        SuitabilityInput(
            claim=request.claim,
            context=request.context,
            evidence_source=evidence_name(deps, record),
            today=record.created_at.date(),
            as_of=request.as_of_date,
        ),
        deps.reasoner,
        CallContext(p.run_id, STAGE, step=ASSESS),
    )
    deps.store.put_artifact(p.run_id, artifacts.SUITABILITY, result.model_dump(mode="json"))
    return {"proceed": result.proceed, "flags": [f.value for f in result.flags]}


OPENING_ROUND = 1  # the research the check reads: the opening's, done before vote zero


def _motion(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    motion = record.motion
    assert motion is not None
    found = screen(
        MotionSuitabilityInput(motion=motion.motion, context=motion.context),
        deps.reasoner,
        CallContext(p.run_id, STAGE, route=route_for(deps, motion, "judge")),
    )
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, motion.context, up_to_round=OPENING_ROUND)
    checked = combine(found, density(motion.motion, pool, source=evidence_name(deps, record, retrievals)))
    deps.store.put_artifact(p.run_id, artifacts.MOTION_SUITABILITY, checked.model_dump(mode="json"))
    return {
        "outcome": checked.outcome,
        "stop_reason": checked.stop_reason.value if checked.stop_reason else None,
        "for_side": checked.density.for_side,
        "against_side": checked.density.against_side,
    }
