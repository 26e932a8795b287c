"""Before the first round is argued: does the pool speak to each sub-claim (debate/relevance.py)? No
model call. The reading is stored (`relevance`) and announced; a pool that speaks to none of them is
answered *not enough evidence* with no debate: the state machine's Relevant? Choice reads
`add_documents` and ends the run by FinishAddDocuments, before any debater spends a token."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.relevance import measure
from claimcourt.models import Stage
from claimcourt.stages.payloads import SplitPayload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.RELEVANCE
FIRST_ROUND = 1


def run(deps: Deps, p: SplitPayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request = record.request
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    pool = artifacts.retrieved_by_sub_claim(retrievals, request.context, up_to_round=FIRST_ROUND)
    sub_claims = artifacts.decomposition_of(deps.store, p.run_id).sub_claims
    measured = measure(sub_claims, pool, source=evidence_name(deps, record, retrievals))
    deps.store.put_artifact(p.run_id, artifacts.RELEVANCE, measured.model_dump(mode="json"))
    return {
        "add_documents": measured.add_documents,
        "off_topic": [s.sub_claim_id for s in measured.off_topic()],
    }
