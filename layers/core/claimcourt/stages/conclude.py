"""The end of a motion debate: vote zero against the final vote (the swing, per side), the judge's
final report, how the debate ended, and what it cost; the four artifacts are stored with it."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.refusal import early_end
from claimcourt.evidence.web import search_served
from claimcourt.exports import save_exports
from claimcourt.models import MotionResult, RunStatus, Stage, usage_from
from claimcourt.motions.crowd import persona_set
from claimcourt.settings import MOTION_ROLES
from claimcourt.stages.motions import motion_of, route_for
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps

STAGE = Stage.CONCLUDE


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    store, motion = deps.store, motion_of(deps, p.run_id)
    tallies = artifacts.tallies_of(store, p.run_id)
    zero, final = tallies[0], tallies[-1]
    said = artifacts.spoken_in_order(store, p.run_id)
    # A motion's turns are in order: the plan's first speaker speaks first in every round.
    ended_early = early_end(said, artifacts.plan_of(store, p.run_id).first)
    maps = artifacts.maps_of(store, p.run_id)
    last_map = maps[max(maps)] if maps else None
    retrievals = artifacts.retrievals_of(store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, motion.context)
    hits = sum(1 for doc in retrievals.values() if doc["cache_hit"])
    usage = usage_from(store.run_calls(p.run_id), hits, len(retrievals) - hits)
    routes = {role: route_for(deps, motion, role) or deps.settings.route(role) for role in MOTION_ROLES}
    result = MotionResult(
        run_id=p.run_id,
        motion=motion.motion,
        rounds=motion.rounds,
        turns=sum(1 for a in said if a.points),
        plan=artifacts.plan_of(store, p.run_id),
        vote_zero=zero,
        final_vote=final,
        swing={
            "for": round(final.for_pct - zero.for_pct, 1),
            "against": round(final.against_pct - zero.against_pct, 1),
        },
        sentiment=tallies,
        report=(last_map.report or last_map.summary) if last_map else "",
        consensus=last_map.consensus if last_map else [],
        frontier=last_map.disagreement_frontier if last_map else [],
        ended_early=ended_early,
        citations=artifacts.ledger_of(store, p.run_id, said, pool),
        personas=persona_set()[0],
        reasoner="+".join(sorted({provider for provider, _ in routes.values()})),
        models={role: ":".join(route) for role, route in routes.items()},
        usage=usage,
        search=search_served(doc["source"] for doc in retrievals.values()),
        searched=artifacts.searched(retrievals),
        warnings=checked.warnings if (checked := artifacts.motion_suitability_of(store, p.run_id)) else [],
    )
    store.put_artifact(p.run_id, artifacts.MOTION_RESULT, result.model_dump(mode="json"))
    record = store.get_run(p.run_id).model_copy(update={"status": RunStatus.SUCCEEDED})
    save_exports(store, record)
    store.set_status(
        p.run_id,
        RunStatus.SUCCEEDED,
        warnings=result.warnings,
        cost_usd=usage.total_cost_usd,
        tokens=usage.input_tokens + usage.output_tokens,
    )
    return {
        "run_id": p.run_id,
        "status": "succeeded",
        "vote_zero_for": zero.for_pct,
        "final_for": final.for_pct,
        "swing_for": result.swing["for"],
        "swing_against": result.swing["against"],
    }
