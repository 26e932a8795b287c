"""Stage 1: is this claim well served by a debate?"""

from __future__ import annotations

from claimcourt.models import Suitability, SuitabilityFlag, SuitabilityInput
from claimcourt.prompts import context_block, escape, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def suitability_task(inputs: SuitabilityInput) -> Task[Suitability]:
    system, prompt = render("suitability", claim=escape(inputs.claim), context=context_block(inputs.context))
    return Task(
        kind="suitability",
        role="suitability",
        inputs=inputs,
        output=Suitability,
        system=system,
        prompt=prompt,
        temperature=0.0,
    )


def assess(inputs: SuitabilityInput, reasoner: Reasoner, ctx: CallContext) -> Suitability:
    reply = reasoner.call(suitability_task(inputs), ctx)
    if reply.output is None:
        # A refusal to even screen the claim is a safety stop, reported as such.
        return Suitability(
            proceed=False,
            flags=[SuitabilityFlag.NOT_A_CLAIM],
            warnings=[f"The model declined to assess this claim: {reply.refusal}"],
        )
    result = reply.output
    blocking = {SuitabilityFlag.SELF_REFERENTIAL, SuitabilityFlag.UNFALSIFIABLE, SuitabilityFlag.NOT_A_CLAIM}
    # A time-sensitive flag alone never stops a run, whatever the model said.
    if not result.proceed and not blocking.intersection(result.flags):
        result = result.model_copy(update={"proceed": True})
    return result
