"""Stage 1, after the first round's retrieval and its relevance check: is the claim well served by a
debate, and (split in two or more) is the split sound? One call (debate/suitability.py). A faulted
audit of the first split asks the state machine for the one re-split (`resplit`); the second split's
audit is recorded, as a warning if it still faults, and never asks again.

A motion debate's check runs here too, after its opening research and before its crowd votes
(motions/suitability.py): the screen of its wording and the density of its pool, stored as
`motion/suitability`; the motion machine's Suitable? Choice reads `outcome`."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.suitability import assess
from claimcourt.models import DecompositionCheck, MotionSuitabilityInput, Stage, Suitability, SuitabilityInput
from claimcourt.motions.suitability import combine, density, screen
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import route_for
from claimcourt.stages.payloads import LAST_ATTEMPT, SplitPayload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.SUITABILITY
FIRST_ROUND = 1


def run(deps: Deps, p: SplitPayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    if record.motion is not None:
        return _motion(deps, p)
    request = record.request
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    split = artifacts.decomposition_of(deps.store, p.run_id)
    result = assess(
        SuitabilityInput(
            claim=request.claim,
            context=request.context,
            evidence_source=evidence_name(deps, record, retrievals),
            today=record.created_at.date(),
            as_of=request.as_of_date,
            sub_claims=split.sub_claims,
            shape=split.shape,
            # The pool as round 1's debaters read it, so that this call's opening is theirs.
            evidence=artifacts.evidence_pool(retrievals, request.context, up_to_round=FIRST_ROUND),
            relevance=artifacts.pool_readings(
                retrievals, request.context, split.sub_claims, up_to_round=FIRST_ROUND
            ),
            judge=request.judge,
        ),
        deps.reasoner,
        CallContext(p.run_id, STAGE),
        suffix=f"a{p.attempt}",
    )
    faulted = result.audit is not None and not result.audit.ok
    resplit = result.proceed and faulted and p.attempt < LAST_ATTEMPT
    if result.proceed and faulted and not resplit:
        result = _still_faulted(result)
    checked = result.model_dump(mode="json")
    deps.store.put_artifact(p.run_id, artifacts.suitability_key(p.attempt), checked)
    deps.store.put_artifact(p.run_id, artifacts.SUITABILITY, checked)
    return {
        "proceed": result.proceed,
        "flags": [f.value for f in result.flags],
        "resplit": resplit,
        "attempt": p.attempt,
        "audit_ok": None if result.audit is None else result.audit.ok,
    }


def _still_faulted(result: Suitability) -> Suitability:
    """The re-split's audit faulted it too: the run goes on with it, and says so."""
    audit = result.audit
    assert isinstance(audit, DecompositionCheck)
    found = "; ".join([*audit.overlaps, *(f"missing: {g}" for g in audit.gaps)])
    warning = (
        "The claim was split twice and its audit still found the split faulty"
        + (f" ({found})" if found else "")
        + ": the overall score composes the sub-claims as they stand, so read the sub-claims' own verdicts."
    )
    return result.model_copy(update={"warnings": [*result.warnings, warning]})


OPENING_ROUND = 1  # the research the check reads: the opening's, done before vote zero


def _motion(deps: Deps, p: SplitPayload) -> dict[str, Any]:
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
