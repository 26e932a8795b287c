"""Stage 4b: after each round, each side's fact-checker (the two in parallel) scores the other
side's citations new this round and answers the checks its own side's citations met last round.
The reply is the `factcheck/rNN/<side>` artifact; the ledger (artifacts.ledger_of) applies it."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.debate.factcheck import factcheck
from claimcourt.models import FactcheckInput, Side, Stage
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps

STAGE = Stage.FACTCHECK


class FactcheckPayload(RoundPayload):
    side: Side = "for"  # the fact-checker's own side: it checks the other side's citations


def run(deps: Deps, p: FactcheckPayload) -> dict[str, Any]:
    request = deps.store.get_run(p.run_id).request
    arguments = [a for a in artifacts.arguments_of(deps.store, p.run_id) if a.round <= p.round]
    pool = artifacts.evidence_pool(artifacts.retrievals_of(deps.store, p.run_id), request.context, p.round)
    ledger = artifacts.ledger_of(deps.store, p.run_id, arguments, pool)
    inputs = FactcheckInput(
        claim=request.claim,
        side=p.side,
        round=p.round,
        to_check=[e for e in ledger if e.side != p.side and e.round == p.round],
        to_answer=[e for e in ledger if e.side == p.side and e.checked_round == p.round - 1],
    )
    reply = factcheck(inputs, deps.reasoner, CallContext(p.run_id, STAGE, p.round, p.side))
    doc = {"side": p.side, "reply": reply.model_dump(mode="json")}
    deps.store.put_artifact(p.run_id, artifacts.factcheck_key(p.round, p.side), doc)
    failed = sum(1 for c in reply.checks if c.correspondence <= 3)
    return {"side": p.side, "checked": len(reply.checks), "answered": len(reply.responses), "failed": failed}
