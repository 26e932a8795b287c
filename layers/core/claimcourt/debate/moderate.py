"""Stage 5: read both arguments, name the decisive dispute, aim the next retrieval, decide."""

from __future__ import annotations

from claimcourt.debate.render import render_evidence, render_points, render_sub_claims
from claimcourt.models import (
    Argument,
    Directive,
    ModerateInput,
    ModeratorAction,
    ModeratorDecision,
    ModeratorView,
)
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

SYSTEM = (
    "You moderate an evidence-based debate between a case-for and a case-against. Name the decisive "
    "dispute (the disagreement that most moves the answer), the sub-claim it belongs to, and write the "
    "next round's retrieval directive: one exact search query for the evidence that would settle it — "
    "not a query already run. Recommend 'continue' (more evidence would help), 'converged' (the sides "
    "agree or further evidence would not move them), 'escalate' (the debate is stuck; bring fresh "
    "personas) or 'safety' (the debate has turned harmful). Reply with JSON only."
)


def moderate_task(inputs: ModerateInput) -> Task[ModeratorView]:
    def side(argument: Argument) -> str:
        return f"(refused: {argument.refusal.reason})" if argument.refusal else render_points(argument.points)

    prompt = "\n\n".join(
        [
            f"Claim: {inputs.claim}",
            f"Round {inputs.round} just ended.",
            "Sub-claims:\n" + render_sub_claims(inputs.sub_claims),
            "Case-for:\n" + side(inputs.case_for),
            "Case-against:\n" + side(inputs.case_against),
            "Evidence pool:\n" + render_evidence(inputs.evidence),
            "Queries already run:\n- " + "\n- ".join(inputs.previous_queries),
        ]
    )
    return Task(
        kind="moderate",
        role="moderator",
        inputs=inputs,
        output=ModeratorView,
        system=SYSTEM,
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
