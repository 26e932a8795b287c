"""Stage 5: read the round's arguments, name the decisive dispute, aim the next retrieval, recommend
(the round controller, debate/control.py, decides)."""

from __future__ import annotations

from claimcourt.debate.argue import opposite
from claimcourt.debate.factcheck import SIDE_TEXT
from claimcourt.debate.prefix import case_prefix, run_tools
from claimcourt.models import ModerateInput, ModeratorView, Side
from claimcourt.prompts import dates_note, queries_block, render, retrieval_hint
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def rounds_rule(max_rounds: int) -> str:
    """What the controller allows, said once and without a range of one ("rounds 2 to 2")."""
    if max_rounds <= 2:
        return f"this debate has {max_rounds} rounds at most"
    return f"at least two rounds, at most {max_rounds}"


def sides_note(inputs: ModerateInput) -> str:
    """Which position in the debate above is which side (the arguments are the anonymized judge's, in
    the opening every call shares), and, when one side spoke first in each round, which."""
    if set(inputs.labels) != {"for", "against"} or not any(p.round == inputs.round for p in inputs.debate):
        raise ValueError(
            "the moderator reads its round in the debate: give the debate and each side's position"
        )
    a_side: Side = "for" if inputs.labels["for"] == "A" else "against"
    b_side = opposite(a_side)
    note = (
        f'Position A is the side "{a_side}", told to argue that the claim is {SIDE_TEXT[a_side].lower()}; '
        f'position B the side "{b_side}", told to argue that it is {SIDE_TEXT[b_side].lower()}.'
    )
    if inputs.first is not None:
        note += (
            f" In each round position {inputs.labels[inputs.first]} spoke first and the other answered it."
        )
    return note


def moderate_task(inputs: ModerateInput) -> Task[ModeratorView]:
    system, prompt = render(
        "moderate",
        round=str(inputs.round),
        max_rounds=str(inputs.max_rounds),
        retrieval_hint=retrieval_hint(inputs.evidence_source),
        sides=sides_note(inputs),
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
        shared=case_prefix(
            inputs.claim, inputs.sub_claims, inputs.evidence, inputs.debate, relevance=inputs.relevance
        ),
        tools=run_tools(inputs.judge),
    )


def moderate(inputs: ModerateInput, reasoner: Reasoner, ctx: CallContext) -> ModeratorView | None:
    """The moderator's reading of the round; None when it refused (the controller stops for safety)."""
    return reasoner.call(moderate_task(inputs), ctx).output
