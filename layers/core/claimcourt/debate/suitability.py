"""The suitability check of a claim debate: is the claim well served by a debate, and (split in two or
more) is its split sound? One call, made once the first round's pool is in: it reads the run's shared
opening (the rules, the claim, its sub-claims, round 1's pool) as the debaters will, and writes it to the
provider's cache for them (docs/architecture.md, "Prompt caching")."""

from __future__ import annotations

from claimcourt.contract import SHAPES
from claimcourt.debate.prefix import case_prefix, run_tools
from claimcourt.models import Suitability, SuitabilityFlag, SuitabilityInput
from claimcourt.prompts import dates_note, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.instructions import WARNING as INSTRUCTION_WARNING
from claimcourt.reasoning.instructions import looks_like_instruction
from claimcourt.reasoning.reasoner import Reasoner

BLOCKING = {SuitabilityFlag.SELF_REFERENTIAL, SuitabilityFlag.UNFALSIFIABLE, SuitabilityFlag.NOT_A_CLAIM}

# The audit's part of the instructions (the template's ${audit}): a split to audit, or none.
_AUDIT = (
    '\nAudit the split too, in audit. The sub-claims decide the claim by the shape "{shape}" ({meaning}). '
    "Set ok to false if two sub-claims overlap (test the same thing: list each pair in overlaps, e.g. "
    '"sc1 and sc3: both ask whether …") or if part of the claim is tested by none (list what is missing in '
    "gaps); otherwise ok is true and both lists are empty. What you list is acted on (the claim is split "
    "again from it, once; a second split you fault is reported to the person who asked), so list only real "
    "faults, judged by what the claim says, not by what the pool happens to hold."
)
_WHOLE = "\nThe claim is debated whole, as one sub-claim: there is no split to audit, so leave audit null."


def audits(inputs: SuitabilityInput) -> bool:
    """The split is audited only when there is one: two or more sub-claims."""
    return len(inputs.sub_claims) > 1


def suitability_task(inputs: SuitabilityInput) -> Task[Suitability]:
    audit = audits(inputs)
    system, prompt = render(
        "suitability",
        dates=dates_note(inputs.today, inputs.as_of, inputs.evidence, source=inputs.evidence_source or None),
        audit=_AUDIT.format(shape=inputs.shape, meaning=SHAPES[inputs.shape]) if audit else _WHOLE,
        ask="Screen the claim, and audit its split." if audit else "Screen the claim.",
    )

    def audited_when_split(reply: Suitability) -> list[str]:
        return (
            ["the claim has two or more sub-claims: give the split's audit"]
            if audit and not reply.audit
            else []
        )

    return Task(
        kind="suitability",
        role="suitability",
        inputs=inputs,
        output=Suitability,
        system=system,
        prompt=prompt,
        temperature=0.0,
        check=audited_when_split,
        # The opening the round's debaters will send, breakpoint after the pool: this call writes it.
        shared=case_prefix(inputs.claim, inputs.sub_claims, inputs.evidence, relevance=inputs.relevance),
        tools=run_tools(inputs.judge),
    )


def screen(claim: str) -> Suitability | None:
    """The code's own screen, before any model call or search is paid for: an instruction posing as a
    claim (a prompt injection) is stopped as not a claim. None: nothing to stop."""
    if not looks_like_instruction(claim):
        return None
    return Suitability(proceed=False, flags=[SuitabilityFlag.NOT_A_CLAIM], warnings=[INSTRUCTION_WARNING])


def assess(inputs: SuitabilityInput, reasoner: Reasoner, ctx: CallContext, suffix: str = "") -> Suitability:
    """`suffix`: the split's attempt (`a0`, `a1`): a re-split's check is its own call."""
    reply = reasoner.call(suitability_task(inputs), ctx, suffix=suffix)
    if reply.output is None:
        # A refusal to even screen the claim is a safety stop, reported as such.
        return Suitability(
            proceed=False,
            flags=[SuitabilityFlag.NOT_A_CLAIM],
            warnings=[f"The model declined to assess this claim: {reply.refusal}"],
        )
    result = reply.output
    if not audits(inputs):  # a claim debated whole has no split: an audit of one would be noise
        result = result.model_copy(update={"audit": None})
    # An instruction posing as a claim is stopped whatever the model said (the decompose stage's screen
    # stops it before this call; kept so the check holds wherever it is made).
    if (stopped := screen(inputs.claim)) is not None:
        flagged = SuitabilityFlag.NOT_A_CLAIM in result.flags
        result = result.model_copy(
            update={
                "proceed": False,
                "flags": result.flags if flagged else [*result.flags, *stopped.flags],
                "warnings": result.warnings if flagged else [*result.warnings, *stopped.warnings],
            }
        )
    # A time-sensitive flag alone never stops a run, whatever the model said.
    if not result.proceed and not BLOCKING.intersection(result.flags):
        result = result.model_copy(update={"proceed": True})
    return result
