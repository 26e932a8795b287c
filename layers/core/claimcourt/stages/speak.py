"""A team's turn in a motion debate: its statement (public) and notes (its own team's only), within
the word limit and citation allowance vote zero gave it, no new citation in the closing. A refusal is
recorded and ends the debate after this round (the judge's map says so)."""

from __future__ import annotations

from typing import Any, Literal

from claimcourt import artifacts
from claimcourt.models import Argument, Point, Refusal, Side, SpeakInput, Stage
from claimcourt.motions.turns import enforce, speak_task, words_in
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.motions import BUDGET_SPENT, motion_of, route_for, unless_budget_spent
from claimcourt.stages.payloads import RoundPayload
from claimcourt.wiring import Deps

STAGE = Stage.SPEAK


class SpeakPayload(RoundPayload):
    side: Side
    turn: Literal["first", "second"]


def run(deps: Deps, p: SpeakPayload) -> dict[str, Any]:
    motion = motion_of(deps, p.run_id)
    plan, stances = artifacts.plan_of(deps.store, p.run_id), artifacts.stances_of(deps.store, p.run_id)
    phase = motion.phase(p.round)
    said = [
        a for a in artifacts.spoken_in_order(deps.store, p.run_id) if (a.round, a.side) != (p.round, p.side)
    ]
    pool = artifacts.evidence_pool(artifacts.retrievals_of(deps.store, p.run_id), motion.context, p.round)
    # What the team cited itself is free to cite again; anything else counts against its allowance
    # (a passage the other team cited is new to this one: a new ledger entry). None in the closing.
    cited_before = sorted({c for a in said if a.side == p.side for pt in a.points for c in pt.citations})
    ledger = artifacts.ledger_of(deps.store, p.run_id, said, pool)
    view = artifacts.map_of(deps.store, p.run_id, p.round - 1)
    allowance = plan.allowance[p.side]
    inputs = SpeakInput(
        motion=motion.motion,
        context=motion.context,
        side=p.side,
        stance=stances.for_stance if p.side == "for" else stances.against_stance,
        round=p.round,
        last_round=motion.last_round,
        phase=phase,
        speaks=p.turn,
        word_limit=allowance.words,
        citation_limit=0 if phase == "closing" else allowance.citations,
        evidence=[e for e in pool if e.id in cited_before] if phase == "closing" else pool,
        cited_before=cited_before,
        statements=artifacts.statements_of(said, motion.phase, silences=True),
        team_notes=artifacts.team_notes_of(deps.store, p.run_id, p.side),
        consensus=view.consensus if view else [],
        frontier=view.disagreement_frontier if view else [],
        checks=[e for e in ledger if e.side == p.side and e.correspondence is not None],
        own_checks=[e for e in ledger if e.side != p.side and e.correspondence is not None],
    )
    ctx = CallContext(p.run_id, STAGE, p.round, p.side, route=route_for(deps, motion, f"debater_{p.side}"))
    reply = unless_budget_spent(lambda: deps.reasoner.call(speak_task(inputs), ctx))
    if reply is None or reply.output is None or reply.output.refusal is not None:
        if reply is None:
            reason: str | None = BUDGET_SPENT
        else:
            reason = reply.output.refusal.reason if reply.output and reply.output.refusal else reply.refusal
        argument = Argument(side=p.side, round=p.round, refusal=Refusal(reason=reason or "declined"))
        notes, note_citations, words = "", [], 0
        cuts: list[str] = []
    else:
        statement, cuts = enforce(inputs, reply.output)
        point = Point(
            sub_claim_id=artifacts.MOTION_POINT,
            argument=statement.statement,
            implied_score=statement.implied_score,
            confidence=0.5,
            citations=statement.citations,
        )
        argument = Argument(side=p.side, round=p.round, points=[point])
        notes, note_citations = statement.notes, statement.note_citations
        words = words_in(statement.statement)
    turn = {
        "order": 0 if p.turn == "first" else 1,
        "phase": phase,
        "notes": notes,
        "note_citations": note_citations,  # private: never in the ledger the other roles read
        "word_limit": inputs.word_limit,
        "citation_limit": inputs.citation_limit,
        "words": words,
        "cuts": cuts,
    }
    deps.store.put_artifact(p.run_id, artifacts.turn_key(p.round, p.side), turn)
    deps.store.put_artifact(
        p.run_id, artifacts.argument_key(p.round, p.side), argument.model_dump(mode="json")
    )
    citations = len(argument.points[0].citations) if argument.points else 0
    return {"side": p.side, "refused": argument.refusal is not None, "words": words, "citations": citations}
