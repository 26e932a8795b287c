"""Stage 5: read both arguments, name the decisive dispute, aim the next retrieval, recommend
(the round controller, debate/control.py, decides)."""

from __future__ import annotations

from claimcourt.debate.argue import NO_ARGUMENT
from claimcourt.debate.prefix import case_prefix, run_tools
from claimcourt.models import Argument, ModerateInput, ModeratorView
from claimcourt.prompts import dates_note, points_block, queries_block, render, retrieval_hint
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def rounds_rule(max_rounds: int) -> str:
    """What the controller allows, said once and without a range of one ("rounds 2 to 2")."""
    if max_rounds <= 2:
        return f"this debate has {max_rounds} rounds at most"
    return f"at least two rounds, at most {max_rounds}"


def arguments_block(inputs: ModerateInput) -> str:
    """The round's two arguments in the order they were spoken: under `first`, the first speaker's
    first (the second's answers it), else for then against. A refusal reads as no argument made: the
    moderator's view (its frontier above all) reaches the other side next round, and a refusal's words
    must not."""

    def body(argument: Argument) -> str:
        return points_block(argument.points) if argument.made else NO_ARGUMENT

    by_side = {"for": inputs.case_for, "against": inputs.case_against}
    if inputs.first is None:
        return "\n\n".join(
            f'<argument side="{side}">\n{body(by_side[side])}\n</argument>' for side in by_side
        )
    second = "for" if inputs.first == "against" else "against"
    return "\n\n".join(
        f'<argument side="{side}" spoke="{when}">\n{body(by_side[side])}\n</argument>'
        for side, when in ((inputs.first, "first"), (second, "second"))
    )


def moderate_task(inputs: ModerateInput) -> Task[ModeratorView]:
    system, prompt = render(
        "moderate",
        round=str(inputs.round),
        max_rounds=str(inputs.max_rounds),
        retrieval_hint=retrieval_hint(inputs.evidence_source),
        arguments=arguments_block(inputs),
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
        shared=case_prefix(inputs.claim, inputs.sub_claims, inputs.evidence),
        tools=run_tools(inputs.judge),
    )


def moderate(inputs: ModerateInput, reasoner: Reasoner, ctx: CallContext) -> ModeratorView | None:
    """The moderator's reading of the round; None when it refused (the controller stops for safety)."""
    return reasoner.call(moderate_task(inputs), ctx).output
