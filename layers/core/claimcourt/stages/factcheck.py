"""Stage 4b, after each round. A claim debate's neutral fact-checker (one call, in the RoundEnd
Parallel beside the moderator) scores every citation either position made for the first time this
round, read by anonymous position as the judge reads them; nobody answers it. A motion's team checker
(before its team speaks) scores the other team's new citations and answers the checks on its own.
The reply is the `factcheck/rNN` artifact (a motion team's: `factcheck/rNN/<side>`), in the ledger's
keys; the ledger (artifacts.ledger_of) applies it."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.anonymize import debate_so_far, for_the_judge
from claimcourt.debate.factcheck import factcheck
from claimcourt.errors import StageInputError
from claimcourt.models import (
    Argument,
    Evidence,
    FactcheckInput,
    FactcheckReply,
    LedgerEntry,
    RunRecord,
    Side,
    Stage,
    Turn,
)
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import route_for, unless_budget_spent
from claimcourt.stages.payloads import RoundPayload, round_end
from claimcourt.wiring import Deps

STAGE = Stage.FACTCHECK


class FactcheckPayload(RoundPayload):
    # A motion team's checker's own side (it checks the other side's citations); none for a claim
    # debate's neutral checker, which checks both.
    side: Side | None = None
    # together: a claim debate's round, both sides argued at once. first / second: a motion debate's
    # team checks before it speaks, first or second in its round.
    turn: Turn = "together"


def _neutral_inputs(
    deps: Deps,
    record: RunRecord,
    p: FactcheckPayload,
    arguments: list[Argument],
    retrievals: dict[str, dict[str, Any]],
    pool: list[Evidence],
    ledger: list[LedgerEntry],
) -> FactcheckInput:
    """What the neutral checker of a claim debate's round reads: the run's opening (with the rounds
    before this one, as the judge reads them) and this round's new citations of both positions, keyed
    and redacted as the judge reads them."""
    debate, labels = debate_so_far(arguments, p.run_id, record.request.first, before=p.round)
    sub_claims = artifacts.decomposition_of(deps.store, p.run_id).sub_claims
    return FactcheckInput(
        claim=record.request.claim,
        round=p.round,
        to_check=[for_the_judge(e, labels) for e in ledger if e.round == p.round],
        sub_claims=sub_claims,
        evidence=pool,
        relevance=artifacts.pool_readings(
            retrievals, record.request.context, sub_claims, up_to_round=p.round
        ),
        judge=record.request.judge,
        debate=debate,
        labels=labels,
    )


def run(deps: Deps, p: FactcheckPayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    if (record.motion is None) != (p.side is None):
        raise StageInputError(
            "a claim debate's fact-check is neutral (no side); a motion team's names its side"
            f" (run {p.run_id}, side {p.side!r})"
        )
    arguments = [a for a in artifacts.arguments_of(deps.store, p.run_id) if a.round <= p.round]
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, record.request.context, p.round)
    ledger = artifacts.ledger_of(deps.store, p.run_id, arguments, pool)
    if record.motion is None or p.side is None:
        inputs = _neutral_inputs(deps, record, p, arguments, retrievals, pool, ledger)
        ctx = CallContext(p.run_id, STAGE, p.round, step=round_end(p.round))
        reply = factcheck(inputs, deps.reasoner, ctx)
    else:
        # Which of the other side's citations are new to check, and which checks on its own to answer:
        # before speaking first, the other side's last statement (the previous round's); before speaking
        # second, the statement just made.
        other_round = p.round - 1 if p.turn == "first" else p.round
        answered_round = p.round if p.turn == "second" else p.round - 1
        inputs = FactcheckInput(
            claim=record.request.claim,
            side=p.side,
            round=p.round,
            to_check=[e for e in ledger if e.side != p.side and e.round == other_round],
            to_answer=[e for e in ledger if e.side == p.side and e.checked_round == answered_round],
            turn=p.turn,
            team_notes=artifacts.team_notes_of(deps.store, p.run_id, p.side),
        )
        ctx = CallContext(
            p.run_id, STAGE, p.round, p.side, route=route_for(deps, record.motion, f"factchecker_{p.side}")
        )
        # a motion debate goes on without the checks when its budget is spent, and ends at the statement
        reply = unless_budget_spent(lambda: factcheck(inputs, deps.reasoner, ctx)) or FactcheckReply()
    doc = {"side": p.side, "reply": reply.model_dump(mode="json")}
    deps.store.put_artifact(p.run_id, artifacts.factcheck_key(p.round, p.side), doc)
    failed = sum(1 for c in reply.checks if c.correspondence <= 3)
    summary: dict[str, Any] = {"side": p.side, "checked": len(reply.checks), "failed": failed}
    return summary if p.side is None else {**summary, "answered": len(reply.responses)}
