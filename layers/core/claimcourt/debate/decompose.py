"""Stage 2: split the claim into mutually-exclusive, collectively-exhaustive sub-claims, each with
one retrieval directive; a self-check retries an overlapping or gapped split once."""

from __future__ import annotations

from claimcourt.errors import MalformedReplyError
from claimcourt.models import (
    DecomposeCheckInput,
    DecomposeInput,
    Decomposition,
    DecompositionCheck,
    SubClaim,
)
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

SYSTEM = (
    "You split a claim into at most {n} sub-claims that are mutually exclusive (no two test the same "
    "thing) and collectively exhaustive (together they decide the claim). A simple claim may be one "
    "sub-claim. Give each an id sc1, sc2, … and exactly one retrieval directive: the search query that "
    "would find the decisive evidence for it. Reply with JSON only."
)
CHECK_SYSTEM = (
    "You audit a claim's decomposition. ok=false if two sub-claims overlap (list them in overlaps) or "
    "part of the claim is tested by none (list what is missing in gaps). Reply with JSON only."
)


def decompose_task(inputs: DecomposeInput) -> Task[Decomposition]:
    parts = [f"Claim: {inputs.claim}"]
    if inputs.context:
        parts.append(f"Context supplied by the user:\n{inputs.context}")
    if inputs.feedback:
        parts.append("Your previous split was rejected by the self-check:\n- " + "\n- ".join(inputs.feedback))
    return Task(
        kind="decompose",
        role="decomposer",
        inputs=inputs,
        output=Decomposition,
        system=SYSTEM.format(n=inputs.max_sub_claims),
        prompt="\n\n".join(parts),
        temperature=0.0,
    )


def check_task(inputs: DecomposeCheckInput) -> Task[DecompositionCheck]:
    listing = "\n".join(f"{s.id}: {s.text}" for s in inputs.decomposition.sub_claims)
    return Task(
        kind="decompose_check",
        role="decomposer",
        inputs=inputs,
        output=DecompositionCheck,
        system=CHECK_SYSTEM,
        prompt=f"Claim: {inputs.claim}\n\nSub-claims:\n{listing}",
        temperature=0.0,
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
    claim: str, context: str | None, max_sub_claims: int, reasoner: Reasoner, ctx: CallContext
) -> Decomposition:
    feedback: list[str] = []
    best: Decomposition | None = None
    for attempt in range(2):
        inputs = DecomposeInput(
            claim=claim, context=context, max_sub_claims=max_sub_claims, feedback=feedback
        )
        reply = reasoner.call(decompose_task(inputs), ctx, suffix=f"a{attempt}")
        if reply.output is None:
            break
        best = normalize(reply.output, max_sub_claims)
        check = reasoner.call(
            check_task(DecomposeCheckInput(claim=claim, decomposition=best)), ctx, suffix=f"a{attempt}"
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
