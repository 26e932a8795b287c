"""Stages 4 and 7: one side's argument for a round: one branch of the Argue Parallel, or one turn
(ArgueFirst, then ArgueSecond, which reads the first's argument of the same round). A side that declined
to argue in an earlier round is not asked again: its branch of the other side's one counter-argument
round records it absent, with no model call (debate/refusal.py)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from claimcourt import artifacts
from claimcourt.adjudication.anonymize import debate_so_far
from claimcourt.debate.argue import argue, opposite
from claimcourt.debate.refusal import absent, last_round
from claimcourt.errors import NotFoundError
from claimcourt.models import ArgueInput, Argument, FrontierIssue, Side, Stage, Turn
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps

STAGE = Stage.ARGUE


class ArguePayload(RoundPayload):
    side: Side
    turn: Turn = Field(default="together", description="In the Argue Parallel, or ArgueFirst/ArgueSecond.")


def run(deps: Deps, p: ArguePayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request = record.request
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, request.context, up_to_round=p.round)
    other = opposite(p.side)
    arguments = artifacts.arguments_of(deps.store, p.run_id)
    earlier = [a for a in arguments if a.round < p.round]
    if absent(earlier, p.side, p.round):
        return _saved(deps, p, Argument(side=p.side, round=p.round, absent=True))
    last = {a.side: a for a in earlier if a.round == p.round - 1}
    now = None
    if p.turn == "second":  # it answers the argument the other side made this round, not the last one
        now = next((a for a in arguments if a.round == p.round and a.side == other), None)
        if now is None:
            raise NotFoundError(f"run {p.run_id} round {p.round}: the {other} side has not argued yet")
        last.pop(other, None)
    sub_claims = artifacts.decomposition_of(deps.store, p.run_id).sub_claims
    debate, labels = debate_so_far(arguments, p.run_id, request.first, before=p.round)
    inputs = ArgueInput(
        claim=request.claim,
        context=request.context,
        side=p.side,
        round=p.round,
        # A refusal may have made this round the last (this side's one counter-argument turn): its
        # prompt then says so, and the closing round's rules hold.
        max_rounds=last_round(
            [*earlier, *([now] if now else [])], request.first, deps.settings.round_limit(request)
        ),
        turn=p.turn,
        opponent_now=now,
        persona=artifacts.persona_for(deps.store, p.run_id, p.round),
        sub_claims=sub_claims,
        evidence=pool,
        new_evidence_ids=[e.id for e in pool if e.round == p.round] if p.round > 1 else [],
        own_previous=last.get(p.side),
        opponent_previous=last.get(other),
        frontier=_frontier(deps, p),
        cited_before=sorted(
            {c for a in earlier if a.side == p.side for pt in a.points for c in pt.citations}
        ),
        today=record.created_at.date(),
        as_of=request.as_of_date,
        judge=request.judge,
        relevance=artifacts.pool_readings(retrievals, request.context, sub_claims, up_to_round=p.round),
        debate=debate,
        labels=labels,
    )
    # Both sides at once are one step; in turn, each its own (the second reads what the first wrote).
    step = f"argue:{p.round}" + ("" if p.turn == "together" else f":{p.turn}")
    ctx = CallContext(p.run_id, STAGE, p.round, p.side, step=step)
    return _saved(deps, p, argue(inputs, deps.reasoner, ctx))


def _saved(deps: Deps, p: ArguePayload, argument: Argument) -> dict[str, Any]:
    key = artifacts.argument_key(p.round, p.side)
    deps.store.put_artifact(p.run_id, key, argument.model_dump(mode="json"))
    return {
        "side": p.side,
        "turn": p.turn,
        "implied_score": argument.implied_score(),
        "refused": argument.refusal is not None,
        "absent": argument.absent,
    }


def _frontier(deps: Deps, p: ArguePayload) -> list[FrontierIssue]:
    """What the moderator mapped as still disputed after the last round: this round argues it."""
    if p.round <= 1:
        return []
    _, view = artifacts.moderation_of(deps.store, p.run_id, p.round - 1)
    return view.disagreement_frontier if view is not None else []
