"""Stage 1: is this claim well served by a debate?"""

from __future__ import annotations

from claimcourt.models import Suitability, SuitabilityFlag, SuitabilityInput
from claimcourt.prompts import context_block, dates_note, escape, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.instructions import WARNING as INSTRUCTION_WARNING
from claimcourt.reasoning.instructions import looks_like_instruction
from claimcourt.reasoning.reasoner import Reasoner


def suitability_task(inputs: SuitabilityInput) -> Task[Suitability]:
    system, prompt = render(
        "suitability",
        claim=escape(inputs.claim),
        context=context_block(inputs.context),
        dates=dates_note(inputs.today, inputs.as_of, source=inputs.evidence_source or None),
    )
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
    # An instruction posing as a claim is stopped whatever the model said: it is the text most likely to
    # have steered the model that screened it.
    if looks_like_instruction(inputs.claim):
        flagged = SuitabilityFlag.NOT_A_CLAIM in result.flags
        result = result.model_copy(
            update={
                "proceed": False,
                "flags": result.flags if flagged else [*result.flags, SuitabilityFlag.NOT_A_CLAIM],
                "warnings": result.warnings if flagged else [*result.warnings, INSTRUCTION_WARNING],
            }
        )
    blocking = {SuitabilityFlag.SELF_REFERENTIAL, SuitabilityFlag.UNFALSIFIABLE, SuitabilityFlag.NOT_A_CLAIM}
    # A time-sensitive flag alone never stops a run, whatever the model said.
    if not result.proceed and not blocking.intersection(result.flags):
        result = result.model_copy(update={"proceed": True})
    return result
