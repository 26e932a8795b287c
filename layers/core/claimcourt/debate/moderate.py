"""Stage 5: read both arguments, name the decisive dispute, aim the next retrieval, recommend
(the round controller, debate/control.py, decides)."""

from __future__ import annotations

from claimcourt.models import Argument, ModerateInput, ModeratorView
from claimcourt.prompts import (
    dates_note,
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


def rounds_rule(max_rounds: int) -> str:
    """What the controller allows, said once and without a range of one ("rounds 2 to 2")."""
    if max_rounds <= 2:
        return f"this debate has {max_rounds} rounds at most"
    return f"at least two rounds, at most {max_rounds}"


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
        dates=dates_note(inputs.today, inputs.as_of, inputs.evidence),
        rounds_rule=rounds_rule(inputs.max_rounds),
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


def moderate(inputs: ModerateInput, reasoner: Reasoner, ctx: CallContext) -> ModeratorView | None:
    """The moderator's reading of the round; None when it refused (the controller stops for safety)."""
    return reasoner.call(moderate_task(inputs), ctx).output
