"""The judge after each round of a motion debate, as a cartographer: consensus, the disagreement
frontier and a summary (no winner), the next round's search; after the last round (or a refusal,
which ends the debate early) the final report."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.models import CartographInput, Directive, MotionMap, Stage
from claimcourt.motions.turns import cartograph_task
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import BUDGET_SPENT, motion_of, route_for, unless_budget_spent
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.CARTOGRAPH


def run(deps: Deps, p: RoundPayload) -> dict[str, Any]:
    motion = motion_of(deps, p.run_id)
    said = artifacts.spoken_in_order(deps.store, p.run_id)
    refused = any(a.refusal is not None for a in said if a.round == p.round)
    ended = refused or p.round >= motion.last_round
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, motion.context, p.round)
    inputs = CartographInput(
        motion=motion.motion,
        round=p.round,
        last_round=motion.last_round,
        phase=motion.phase(p.round),
        final=ended,
        research_follows=motion.research_follows(p.round),
        evidence_source=evidence_name(deps, deps.store.get_run(p.run_id), retrievals),
        statements=artifacts.statements_of(said, motion.phase),
        ledger=artifacts.ledger_of(deps.store, p.run_id, said, pool),
        previous=artifacts.map_of(deps.store, p.run_id, p.round - 1),
    )
    ctx = CallContext(p.run_id, STAGE, p.round, route=route_for(deps, motion, "judge"))
    reply = unless_budget_spent(lambda: deps.reasoner.call(cartograph_task(inputs), ctx))
    if reply is None:  # the budget is spent: the debate ends here
        ended, view = True, MotionMap(summary=f"The judge was not asked: {BUDGET_SPENT}.")
    else:
        view = reply.output or MotionMap(summary="The judge declined.")
    deps.store.put_artifact(p.run_id, artifacts.map_key(p.round), view.model_dump(mode="json"))
    next_round = p.round + 1
    closing_next = next_round >= motion.last_round
    directives = []
    if not ended and motion.research_follows(p.round) and view.next_query:  # the closing adds no evidence
        directives = [Directive(sub_claim_id="q1", query=view.next_query[:300]).model_dump(mode="json")]
    return {
        "ended": ended,
        "refused": refused,
        "next_round": next_round,
        "closing_next": closing_next,
        "directives": directives,
        "consensus": len(view.consensus),
        "frontier": len(view.disagreement_frontier),
    }
