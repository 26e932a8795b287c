"""Stage 2: split the claim into mutually-exclusive, collectively-exhaustive sub-claims, each with
one retrieval directive. The split is audited by the suitability check once the first round's pool is in
(debate/suitability.py); a faulted split is made once more, with the audit as feedback."""

from __future__ import annotations

from claimcourt.contract import SHAPES
from claimcourt.debate.prefix import rules_prefix, run_tools
from claimcourt.errors import MalformedReplyError
from claimcourt.models import DecomposeInput, Decomposition, SubClaim
from claimcourt.prompts import context_block, escape, render, retrieval_hint
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner


def decompose_task(inputs: DecomposeInput) -> Task[Decomposition]:
    feedback = ""
    if inputs.feedback:
        listed = "\n".join(f"- {escape(f)}" for f in inputs.feedback)
        feedback = f"\nYour previous split was rejected by its audit:\n{listed}\nSplit the claim again."
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
    inputs: DecomposeInput, reasoner: Reasoner, ctx: CallContext, attempt: int = 0
) -> Decomposition:
    """One split (`attempt` 1: the re-split the suitability check's audit asked for, its faults in
    `inputs.feedback`). The audit itself is the suitability check's, after the first retrieval."""
    reply = reasoner.call(decompose_task(inputs), ctx, suffix=f"a{attempt}")
    if reply.output is not None:
        return normalize(reply.output, inputs.max_sub_claims)
    # The decomposer refused: debate the claim whole rather than fail the run.
    if reply.refusal is None:
        raise MalformedReplyError("decomposition returned nothing")
    return Decomposition(
        sub_claims=[SubClaim(id="sc1", text=inputs.claim, directive=inputs.claim[:300])],
        shape="all",
        rationale=f"The decomposer declined ({reply.refusal}); the claim is debated whole.",
    )
