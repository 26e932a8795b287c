"""Stage 9: the scoring contract applied to the judgements (docs/scoring.md): the score, its
interval and verdict, every adjustment named; the result stored; a moved claim announced."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.score import compose_result
from claimcourt.debate.control import summarize
from claimcourt.models import RunEvent, RunStatus, Stage, usage_from
from claimcourt.settings import ROLES, SAMPLED_ROLES
from claimcourt.stages.payloads import Payload
from claimcourt.watching.changes import SCORE_CHANGED, score_change
from claimcourt.wiring import Deps

STAGE = Stage.SCORE


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    judgements, mapping = artifacts.judgements_of(deps.store, p.run_id)
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    hits = sum(1 for doc in retrievals.values() if doc["cache_hit"])
    calls = deps.store.run_calls(p.run_id)
    result = compose_result(
        run_id=p.run_id,
        request=record.request,
        decomposition=artifacts.decomposition_of(deps.store, p.run_id),
        arguments=artifacts.arguments_of(deps.store, p.run_id),
        judgements=judgements,
        evidence=artifacts.evidence_pool(retrievals, record.request.context),
        usage=usage_from(calls, hits, len(retrievals) - hits),
        warnings=artifacts.suitability_of(deps.store, p.run_id).warnings,
        reasoner=deps.reasoner.label(ROLES),
        models=deps.reasoner.models(ROLES),
        sides=mapping,
        natural_temperature=deps.reasoner.natural_temperature(ROLES, SAMPLED_ROLES),
    )
    result = result.model_copy(
        update={"round_control": summarize(artifacts.decisions_of(deps.store, p.run_id), calls)}
    )
    # A run that had already ended (failed meanwhile) keeps its status: report that one.
    finished = deps.store.finish_run(p.run_id, result)
    status = RunStatus.SUCCEEDED if finished else deps.store.get_run(p.run_id).status
    if status is RunStatus.SUCCEEDED:
        announce_score_change(deps, p.run_id)
    return {
        "run_id": p.run_id,
        "status": status.value,
        "score": result.overall_score,
        "interval": result.interval.model_dump(),
        "verdict": result.overall_verdict.value,
    }


def announce_score_change(deps: Deps, run_id: str) -> None:
    """Put claim.score_changed on the bus if this live run moved its claim's score by a monitor's
    threshold. Published before it is marked in the run's events (which a retry of the stage
    checks first), so a retry after a crash may publish it again but never loses it."""
    if deps.publisher is None:
        return
    if any(e.type == SCORE_CHANGED for e in deps.store.list_events(run_id)):
        return
    changed = score_change(deps.store, deps.store.get_run(run_id))
    if changed is None:
        return
    detail = changed.model_dump(mode="json")
    deps.publisher.publish(SCORE_CHANGED, detail)
    deps.store.append_event(RunEvent(run_id=run_id, type=SCORE_CHANGED, data=detail), key=SCORE_CHANGED)
