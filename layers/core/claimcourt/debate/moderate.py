"""Stage 5: read both arguments, name the decisive dispute, aim the next retrieval, decide."""

from __future__ import annotations

from claimcourt.models import (
    Argument,
    Directive,
    ModerateInput,
    ModeratorAction,
    ModeratorDecision,
    ModeratorView,
)
from claimcourt.prompts import (
    escape,
    evidence_block,
    points_block,
    queries_block,
    render,
    retrieval_hint,
    sub_claims_block,
)
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def moderate_task(inputs: ModerateInput) -> Task[ModeratorView]:
    def side(argument: Argument) -> str:
        if argument.refusal:
            return f"(declined to argue: {escape(argument.refusal.reason)})"
        return points_block(argument.points)

    system, prompt = render(
        "moderate",
        round=str(inputs.round),
        max_rounds=str(inputs.max_rounds),
        retrieval_hint=retrieval_hint(inputs.evidence_source),
        claim=escape(inputs.claim),
        sub_claims=sub_claims_block(inputs.sub_claims),
        case_for=side(inputs.case_for),
        case_against=side(inputs.case_against),
        evidence=evidence_block(inputs.evidence),
        previous_queries=queries_block(inputs.previous_queries),
    )
    return Task(
        kind="moderate",
        role="moderator",
        inputs=inputs,
        output=ModeratorView,
        system=system,
        prompt=prompt,
        temperature=0.0,
    )


def decide(
    view: ModeratorView | None,
    *,
    round: int,
    min_rounds: int,
    max_rounds: int,
    persona: int,
    known_sub_claims: set[str],
) -> ModeratorDecision:
    """The round controller: the moderator recommends; these rules decide. At least `min_rounds`,
    never more than `max_rounds`, safety always stops."""
    if view is None:  # the moderator refused: treat as a safety stop
        return ModeratorDecision(
            round=round,
            action=ModeratorAction.STOP_SAFETY,
            decisive_dispute="the moderator declined to continue",
            persona=persona,
        )
    sub_claim_id = view.dispute_sub_claim_id if view.dispute_sub_claim_id in known_sub_claims else "sc1"
    directives = [Directive(sub_claim_id=sub_claim_id, query=view.next_query)]
    common = {"round": round, "decisive_dispute": view.decisive_dispute, "rationale": view.rationale}
    if view.recommendation == "safety":
        return ModeratorDecision(action=ModeratorAction.STOP_SAFETY, persona=persona, **common)
    if round >= max_rounds:
        return ModeratorDecision(action=ModeratorAction.STOP_MAX_ROUNDS, persona=persona, **common)
    if view.recommendation == "escalate":
        return ModeratorDecision(
            action=ModeratorAction.ESCALATE, directives=directives, persona=persona + 1, **common
        )
    if view.recommendation == "converged" and round >= min_rounds:
        return ModeratorDecision(action=ModeratorAction.STOP_CONVERGED, persona=persona, **common)
    return ModeratorDecision(
        action=ModeratorAction.CONTINUE, directives=directives, persona=persona, **common
    )


def moderate(
    inputs: ModerateInput,
    reasoner: Reasoner,
    ctx: CallContext,
    *,
    min_rounds: int,
    max_rounds: int,
    persona: int,
) -> ModeratorDecision:
    reply = reasoner.call(moderate_task(inputs), ctx)
    return decide(
        reply.output,
        round=inputs.round,
        min_rounds=min_rounds,
        max_rounds=max_rounds,
        persona=persona,
        known_sub_claims={s.id for s in inputs.sub_claims},
    )
