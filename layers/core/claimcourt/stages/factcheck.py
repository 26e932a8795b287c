"""Stage 4b: after each round, each side's fact-checker (the two in parallel) scores the other
side's citations new this round and answers the checks its own side's citations met last round.
The reply is the `factcheck/rNN/<side>` artifact; the ledger (artifacts.ledger_of) applies it."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.anonymize import debate_so_far
from claimcourt.debate.factcheck import factcheck
from claimcourt.models import FactcheckInput, FactcheckReply, Side, Stage, Turn
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import route_for, unless_budget_spent
from claimcourt.stages.payloads import RoundPayload, round_end
from claimcourt.wiring import Deps

STAGE = Stage.FACTCHECK


class FactcheckPayload(RoundPayload):
    side: Side = "for"  # the fact-checker's own side: it checks the other side's citations
    # together: a claim debate's round, both sides argued at once. first / second: a motion debate's
    # team checks before it speaks, first or second in its round.
    turn: Turn = "together"


def run(deps: Deps, p: FactcheckPayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    arguments = [a for a in artifacts.arguments_of(deps.store, p.run_id) if a.round <= p.round]
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, record.request.context, p.round)
    ledger = artifacts.ledger_of(deps.store, p.run_id, arguments, pool)
    # Which of the other side's citations are new to check, and which checks on its own to answer:
    # after a round argued together, that round's; before speaking first, the other side's last
    # statement (the previous round's); before speaking second, the statement just made.
    other_round = p.round - 1 if p.turn == "first" else p.round
    answered_round = p.round if p.turn == "second" else p.round - 1
    inputs = FactcheckInput(
        claim=record.request.claim,
        side=p.side,
        round=p.round,
        to_check=[e for e in ledger if e.side != p.side and e.round == other_round],
        to_answer=[e for e in ledger if e.side == p.side and e.checked_round == answered_round],
        turn=p.turn,
        team_notes=artifacts.team_notes_of(deps.store, p.run_id, p.side) if record.motion else [],
    )
    route = route_for(deps, record.motion, f"factchecker_{p.side}") if record.motion else None
    ctx = CallContext(p.run_id, STAGE, p.round, p.side, route=route)
    if record.motion is None:
        # A claim debate's checkers read what every call of the run reads first, and check beside the
        # moderator (the RoundEnd Parallel).
        debate, labels = debate_so_far(arguments, p.run_id, record.request.first, before=p.round)
        sub_claims = artifacts.decomposition_of(deps.store, p.run_id).sub_claims
        inputs = inputs.model_copy(
            update={
                "sub_claims": sub_claims,
                "relevance": artifacts.pool_readings(
                    retrievals, record.request.context, sub_claims, up_to_round=p.round
                ),
                "evidence": pool,
                "judge": record.request.judge,
                "debate": debate,
                "labels": labels,
            }
        )
        ctx = CallContext(p.run_id, STAGE, p.round, p.side, step=round_end(p.round))
        reply = factcheck(inputs, deps.reasoner, ctx)
    else:  # a motion debate goes on without the checks when its budget is spent, and ends at the statement
        reply = unless_budget_spent(lambda: factcheck(inputs, deps.reasoner, ctx)) or FactcheckReply()
    doc = {"side": p.side, "reply": reply.model_dump(mode="json")}
    deps.store.put_artifact(p.run_id, artifacts.factcheck_key(p.round, p.side), doc)
    failed = sum(1 for c in reply.checks if c.correspondence <= 3)
    return {"side": p.side, "checked": len(reply.checks), "answered": len(reply.responses), "failed": failed}
