"""Stage 5: the moderator names the decisive dispute, aims the next retrieval and recommends (not
asked after the last round: nothing could follow; the state machine skips it after the round limit, and
this stage after a round a refusal made the last, debate/refusal.py). The round controller
(stages/control.py) then decides, from this and what it measures."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.anonymize import debate_so_far
from claimcourt.debate.moderate import moderate
from claimcourt.debate.refusal import last_round
from claimcourt.errors import NotFoundError
from claimcourt.models import ModerateInput, Stage
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.payloads import RoundPayload, round_end
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.MODERATE


def run(deps: Deps, p: RoundPayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request = record.request
    case_for = artifacts.argument_of(deps.store, p.run_id, p.round, "for")
    case_against = artifacts.argument_of(deps.store, p.run_id, p.round, "against")
    if case_for is None or case_against is None:
        raise NotFoundError(f"run {p.run_id} round {p.round} is missing an argument")
    said = [a for a in artifacts.arguments_of(deps.store, p.run_id) if a.round <= p.round]
    max_rounds = last_round(said, request.first, deps.settings.round_limit(request))
    if p.round >= max_rounds:  # not asked, and nothing stored: the controller reads "not asked"
        return {"recommendation": "not asked"}
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    arguments = artifacts.arguments_of(deps.store, p.run_id)
    debate, labels = debate_so_far(arguments, p.run_id, request.first, before=p.round + 1)
    sub_claims = artifacts.decomposition_of(deps.store, p.run_id).sub_claims
    view = moderate(
        ModerateInput(
            claim=request.claim,
            round=p.round,
            max_rounds=max_rounds,
            first=request.first,
            evidence_source=evidence_name(deps, record, retrievals),
            sub_claims=sub_claims,
            case_for=case_for,
            case_against=case_against,
            evidence=artifacts.evidence_pool(retrievals, request.context),
            previous_queries=[doc["query"] for doc in retrievals.values()],
            today=record.created_at.date(),
            as_of=request.as_of_date,
            judge=request.judge,
            debate=debate,
            labels=labels,
            relevance=artifacts.pool_readings(retrievals, request.context, sub_claims),
        ),
        deps.reasoner,
        CallContext(p.run_id, STAGE, p.round, step=round_end(p.round)),
    )
    doc = {"view": view.model_dump(mode="json") if view is not None else None}
    deps.store.put_artifact(p.run_id, artifacts.moderation_key(p.round), doc)
    return {"recommendation": view.recommendation if view is not None else "refused"}
