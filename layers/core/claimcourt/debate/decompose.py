"""Stage 2: split the claim into mutually-exclusive, collectively-exhaustive sub-claims, each with
one retrieval directive; a self-check retries an overlapping or gapped split once."""

from __future__ import annotations

from claimcourt.contract import SHAPES
from claimcourt.debate.prefix import rules_prefix, run_tools
from claimcourt.errors import MalformedReplyError
from claimcourt.models import (
    DecomposeCheckInput,
    DecomposeInput,
    Decomposition,
    DecompositionCheck,
    JudgeKind,
    SubClaim,
)
from claimcourt.prompts import context_block, escape, render, retrieval_hint, sub_claims_block
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def decompose_task(inputs: DecomposeInput) -> Task[Decomposition]:
    feedback = ""
    if inputs.feedback:
        listed = "\n".join(f"- {escape(f)}" for f in inputs.feedback)
        feedback = f"\nYour previous split was rejected by the self-check:\n{listed}\nSplit the claim again."
    system, prompt = render(
        "decompose",
        max_sub_claims=str(inputs.max_sub_claims),
        retrieval_hint=retrieval_hint(inputs.evidence_source),
        shapes="\n".join(f"- {name}: {meaning}" for name, meaning in SHAPES.items()),
        claim=escape(inputs.claim),
        context=context_block(inputs.context),
        feedback=feedback,
    )
    return Task(
        kind="decompose",
        role="decomposer",
        inputs=inputs,
        output=Decomposition,
        system=system,
        prompt=prompt,
        temperature=0.0,
        array_limits={"sub_claims": (1, inputs.max_sub_claims)},
        shared=rules_prefix(),
        tools=run_tools(inputs.judge),
    )


def check_task(inputs: DecomposeCheckInput) -> Task[DecompositionCheck]:
    system, prompt = render(
        "decompose_check",
        claim=escape(inputs.claim),
        shape=inputs.decomposition.shape,
        sub_claims=sub_claims_block(inputs.decomposition.sub_claims),
    )
    return Task(
        kind="decompose_check",
        role="decomposer",
        inputs=inputs,
        output=DecompositionCheck,
        system=system,
        prompt=prompt,
        temperature=0.0,
        shared=rules_prefix(),
        tools=run_tools(inputs.judge),
    )


def normalize(decomposition: Decomposition, max_sub_claims: int) -> Decomposition:
    """Renumber sc1…scN, drop duplicates and cap the count: ids must be dependable downstream."""
    seen: set[str] = set()
    kept: list[SubClaim] = []
    for sub in decomposition.sub_claims:
        key = " ".join(sub.text.lower().split())
        if key in seen:
            continue
        seen.add(key)
        kept.append(sub.model_copy(update={"id": f"sc{len(kept) + 1}"}))
        if len(kept) == max_sub_claims:
            break
    return decomposition.model_copy(update={"sub_claims": kept})


def decompose(
    claim: str,
    context: str | None,
    max_sub_claims: int,
    reasoner: Reasoner,
    ctx: CallContext,
    evidence_source: str = "",
    judge: JudgeKind = "contract",
) -> Decomposition:
    feedback: list[str] = []
    best: Decomposition | None = None
    for attempt in range(2):
        inputs = DecomposeInput(
            claim=claim,
            context=context,
            max_sub_claims=max_sub_claims,
            feedback=feedback,
            evidence_source=evidence_source,
            judge=judge,
        )
        reply = reasoner.call(decompose_task(inputs), ctx, suffix=f"a{attempt}")
        if reply.output is None:
            break
        best = normalize(reply.output, max_sub_claims)
        if len(best.sub_claims) == 1:  # one part cannot overlap another or leave a gap between them
            return best
        check = reasoner.call(
            check_task(DecomposeCheckInput(claim=claim, decomposition=best, judge=judge)),
            ctx,
            suffix=f"a{attempt}",
        )
        if check.output is None or check.output.ok:
            return best
        feedback = [f"overlap: {o}" for o in check.output.overlaps] + [f"gap: {g}" for g in check.output.gaps]
    if best is not None:
        return best  # the second split stands even if the self-check still objects
    # The decomposer refused: debate the claim whole rather than fail the run.
    if reply.refusal is None:
        raise MalformedReplyError("decomposition returned nothing")
    return Decomposition(
        sub_claims=[SubClaim(id="sc1", text=claim, directive=claim[:300])],
        shape="all",
        rationale=f"The decomposer declined ({reply.refusal}); the claim is debated whole.",
    )
