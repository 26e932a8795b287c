"""Stage 5: name the decisive dispute, aim the next retrieval, decide whether to go on (not asked
after the last round: nothing could follow)."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.moderate import moderate
from claimcourt.errors import NotFoundError
from claimcourt.models import ModerateInput, Stage
from claimcourt.reasoning.base import CallContext
from claimcourt.settings import MIN_ROUNDS
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps

STAGE = Stage.MODERATE


def run(deps: Deps, p: RoundPayload) -> dict[str, Any]:
    request = deps.store.get_run(p.run_id).request
    case_for = artifacts.argument_of(deps.store, p.run_id, p.round, "for")
    case_against = artifacts.argument_of(deps.store, p.run_id, p.round, "against")
    if case_for is None or case_against is None:
        raise NotFoundError(f"run {p.run_id} round {p.round} is missing an argument")
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    max_rounds = deps.settings.effort(request.effort).max_rounds
    decision = moderate(
        ModerateInput(
            claim=request.claim,
            round=p.round,
            max_rounds=max_rounds,
            evidence_source=deps.evidence.name,
            sub_claims=artifacts.decomposition_of(deps.store, p.run_id).sub_claims,
            case_for=case_for,
            case_against=case_against,
            evidence=artifacts.evidence_pool(retrievals, request.context),
            previous_queries=[doc["query"] for doc in retrievals.values()],
        ),
        deps.reasoner,
        CallContext(p.run_id, STAGE, p.round),
        min_rounds=MIN_ROUNDS,
        max_rounds=max_rounds,
        persona=artifacts.persona_for(deps.store, p.run_id, p.round),
    )
    deps.store.put_artifact(p.run_id, artifacts.decision_key(p.round), decision.model_dump(mode="json"))
    return {
        "action": decision.action.value,
        "another_round": decision.action.another_round,
        "next_round": p.round + 1,
        "directives": [d.model_dump() for d in decision.directives],
    }
