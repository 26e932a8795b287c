"""Motion phase 0: the teams' stances and the opening research (directives for the Retrieve Map)."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.models import Directive, Stage, Stances, StancesInput
from claimcourt.motions.crowd import batches
from claimcourt.motions.turns import stances_task
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import motion_of, route_for
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.STANCES


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    motion = motion_of(deps, p.run_id)
    source = evidence_name(deps, deps.store.get_run(p.run_id))
    inputs = StancesInput(motion=motion.motion, context=motion.context, evidence_source=source)
    ctx = CallContext(p.run_id, STAGE, 0, route=route_for(deps, motion, "judge"))
    stances = deps.reasoner.call(stances_task(inputs, motion.last_round), ctx).output
    if stances is None:  # a refused split: the motion itself, for and against
        stances = Stances(
            for_stance=f"The motion holds: {motion.motion}"[:600],
            against_stance=f"The motion does not hold: {motion.motion}"[:600],
            queries=[motion.motion[:300]],
        )
    deps.store.put_artifact(p.run_id, artifacts.STANCES, stances.model_dump(mode="json"))
    directives = [Directive(sub_claim_id=f"q{i}", query=q[:300]) for i, q in enumerate(stances.queries, 1)]
    return {
        "batches": batches(motion.crowd),
        "directives": [d.model_dump(mode="json") for d in directives],
        "last_round": motion.last_round,
    }
