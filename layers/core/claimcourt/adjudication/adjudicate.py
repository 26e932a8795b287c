"""Stage 8: the final moderator judges the anonymized, order-randomized positions."""

from __future__ import annotations

from claimcourt.debate.render import render_evidence, render_points, render_sub_claims
from claimcourt.errors import RefusedJudgementError
from claimcourt.models import AdjudicateInput, Judgement, SubClaimJudgement, Verdict
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

SYSTEM = (
    "You are the final judge of a debate about a claim. Two anonymous positions, A and B, argued over "
    "several rounds; their order is random and tells you nothing. Judge the evidence, not the rhetoric: "
    "primary (T1) sources outweigh secondary (T2) ones, and a point without citations counts for little. "
    "For each sub-claim give a score 0–100 for its truth, a verdict (supported, refuted, "
    "not-enough-evidence, conflicting), a short synthesis, the decisive evidence id, and which position "
    "was stronger. Then the overall score for the claim, the single decisive evidence id, what new "
    "evidence would change the score, and a structural analysis (assumptions, first principles, critical "
    "path, external dependencies). Reply with JSON only."
)
SAMPLE_TEMPERATURE = 0.7


def adjudicate_task(inputs: AdjudicateInput) -> Task[Judgement]:
    blocks = []
    for pos in inputs.positions:
        body = "(this position refused to argue)" if pos.refused else render_points(pos.points)
        blocks.append(f"Position {pos.label}, round {pos.round}:\n{body}")
    prompt = "\n\n".join(
        [
            f"Claim: {inputs.claim}",
            "Sub-claims:\n" + render_sub_claims(inputs.sub_claims),
            *blocks,
            "Evidence:\n" + render_evidence(inputs.evidence),
        ]
    )
    return Task(
        kind="adjudicate",
        role="adjudicator",
        inputs=inputs,
        output=Judgement,
        system=SYSTEM,
        prompt=prompt,
        temperature=0.0 if inputs.sample == 0 else SAMPLE_TEMPERATURE,
    )


def _complete(judgement: Judgement, inputs: AdjudicateInput) -> Judgement:
    """Every sub-claim judged once, evidence ids real: a judge that skipped one gets it as
    not-enough-evidence rather than a silent gap."""
    pool = {e.id for e in inputs.evidence}
    by_id = {j.sub_claim_id: j for j in judgement.sub_claims}
    judged = []
    for sub in inputs.sub_claims:
        j = by_id.get(sub.id) or SubClaimJudgement(
            sub_claim_id=sub.id,
            score=50,
            verdict=Verdict.NOT_ENOUGH_EVIDENCE,
            referee_synthesis="The judge gave no verdict on this sub-claim.",
            decisive_evidence_id=None,
            stronger_position="neither",
        )
        if j.decisive_evidence_id not in pool:
            j = j.model_copy(update={"decisive_evidence_id": None})
        judged.append(j)
    decisive = judgement.decisive_evidence_id if judgement.decisive_evidence_id in pool else None
    return judgement.model_copy(update={"sub_claims": judged, "decisive_evidence_id": decisive})


def adjudicate(
    inputs: AdjudicateInput, reasoner: Reasoner, ctx: CallContext, samples: int = 0
) -> list[Judgement]:
    """The judgement at temperature 0, then `samples` more at a higher temperature whose spread
    gives the self-consistency interval. A refused sample is skipped; a refused first call fails."""
    judgements: list[Judgement] = []
    for sample in range(samples + 1):
        task = adjudicate_task(inputs.model_copy(update={"sample": sample}))
        reply = reasoner.call(task, ctx, suffix=f"s{sample}")
        if reply.output is not None:
            judgements.append(_complete(reply.output, inputs))
        elif sample == 0:
            raise RefusedJudgementError(reply.refusal or "no reason given")
    return judgements
