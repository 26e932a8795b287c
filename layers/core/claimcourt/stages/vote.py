"""The crowd: one batch of personas votes (one model call), before the debate (round 0) or after a
round. The crowd hears only what was said in public and the checked ledger, never a team's notes."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.models import CrowdInput, MotionRequest, Persona, PersonaVote, Stage
from claimcourt.motions.crowd import batch_of
from claimcourt.motions.turns import crowd_task
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import motion_of, route_for, unless_budget_spent
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps

STAGE = Stage.VOTE


class VotePayload(Payload):
    round: int
    batch: int


def run(deps: Deps, p: VotePayload) -> dict[str, Any]:
    motion = motion_of(deps, p.run_id)
    personas = batch_of(motion.crowd, p.batch)
    inputs = (
        _after_round(deps, p, motion, personas)
        if p.round > 0
        else CrowdInput(motion=motion.motion, round=0, phase="vote zero", personas=personas)
    )
    ctx = CallContext(p.run_id, STAGE, p.round, f"b{p.batch}", route=route_for(deps, motion, "crowd"))
    reply = unless_budget_spent(lambda: deps.reasoner.call(crowd_task(inputs, motion.last_round), ctx).output)
    given = {v.persona_id: v for v in (reply.votes if reply else [])}
    # A persona the reply left out (or a refused reply, or a spent budget) keeps its last score:
    # undecided at vote zero.
    votes = [
        given.get(q.id)
        or PersonaVote(persona_id=q.id, score=inputs.previous.get(q.id, 50), reason="no vote given")
        for q in personas
    ]
    deps.store.put_artifact(
        p.run_id, artifacts.votes_key(p.round, p.batch), {"votes": [v.model_dump(mode="json") for v in votes]}
    )
    return {"round": p.round, "batch": p.batch, "votes": len(votes)}


def _after_round(deps: Deps, p: VotePayload, motion: MotionRequest, personas: list[Persona]) -> CrowdInput:
    """What the crowd hears after a round: what was said in public, the checked ledger, the judge's
    map, and these personas' last votes (never a team's notes)."""
    said = artifacts.spoken_in_order(deps.store, p.run_id)
    pool = artifacts.evidence_pool(artifacts.retrievals_of(deps.store, p.run_id), motion.context)
    view = artifacts.map_of(deps.store, p.run_id, p.round)
    wanted = {persona.id for persona in personas}
    last = artifacts.votes_of(deps.store, p.run_id, p.round - 1)
    return CrowdInput(
        motion=motion.motion,
        round=p.round,
        phase=motion.phase(p.round),
        personas=personas,
        previous={v.persona_id: v.score for v in last if v.persona_id in wanted},
        statements=artifacts.statements_of(said, motion.phase),
        ledger=artifacts.ledger_of(deps.store, p.run_id, said, pool),
        consensus=view.consensus if view else [],
        frontier=view.disagreement_frontier if view else [],
    )
