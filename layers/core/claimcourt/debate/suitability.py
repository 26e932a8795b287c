"""Stage 1: is this claim well served by a debate?"""

from __future__ import annotations

from claimcourt.models import Suitability, SuitabilityFlag, SuitabilityInput
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

SYSTEM = (
    "You screen claims before an evidence-based debate. Flag a claim that is time_sensitive (its truth "
    "depends on events after the available evidence), self_referential (it talks about itself), "
    "unfalsifiable (no evidence could count against it), or not_a_claim (a question, command or fragment). "
    "Set proceed=false only when a debate cannot produce a meaningful score (self_referential, "
    "unfalsifiable or not_a_claim); time_sensitive claims proceed with a warning. One warning per flag, "
    "addressed to the person who asked. Reply with JSON only."
)


def suitability_task(inputs: SuitabilityInput) -> Task[Suitability]:
    context = f"\nContext supplied by the user:\n{inputs.context}" if inputs.context else ""
    return Task(
        kind="suitability",
        role="suitability",
        inputs=inputs,
        output=Suitability,
        system=SYSTEM,
        prompt=f"Claim: {inputs.claim}{context}",
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
