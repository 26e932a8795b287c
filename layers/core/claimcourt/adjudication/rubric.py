"""Stage 8, the rubric judge (`judge: rubric`): the same anonymized debate as the contract's judge,
judged in two parts kept apart: how each position argued, on the disagreement hierarchy (DH0
name-calling … DH6 refuting the central point), and what the evidence says, a 0–10 rating per
sub-claim and overall, or null for "needs more evidence".

Its ratings are read onto the 0–100 scale by the scoring contract (contract.rubric_score,
docs/scoring.md) into a `Judgement`, so the score stage treats it as any judgement: composition,
bounds, evidence quality, verdict bands, self-consistency samples and re-deliberation all apply.
The raw ratings are kept beside it (`RubricVerdict` in the result) and every reading is named as a
`rubric_scale` adjustment: nothing the judge said is overridden in silence."""

from __future__ import annotations

from collections.abc import Mapping

from claimcourt.adjudication.adjudicate import (
    ask_judge,
    complete,
    judge_task,
    judge_values,
    leads_problems,
    once_each,
    reconsider_note,
)
from claimcourt.contract import RUBRIC_SCORES, Reading, rubric_reading, rubric_score
from claimcourt.models import (
    DISAGREEMENT_HIERARCHY,
    AdjudicateInput,
    Adjustment,
    Interval,
    Judgement,
    RubricJudgement,
    RubricVerdict,
    Side,
    SideHierarchy,
    SubClaimJudgement,
    Verdict,
)
from claimcourt.prompts import render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

KIND = "adjudicate_rubric"
# What each reading is as a verdict on the contract's scale.
VERDICTS: dict[Reading, Verdict] = {
    "contradicted": Verdict.REFUTED,
    "misleading": Verdict.CONFLICTING,
    "supported": Verdict.SUPPORTED,
    "needs more evidence": Verdict.NOT_ENOUGH_EVIDENCE,
}
# What each level of the hierarchy means, for the prompt.
LEVELS = (
    "abuses the other position, and says nothing about the claim",
    "attacks the arguer's character, motives or authority instead of the substance",
    "objects to how something was said, not to what was said",
    "states the opposite case with little or no reasoning or evidence",
    "gives reasoning or evidence for the opposite case, without engaging what the other position said",
    "quotes or names what the other position said and shows, with the evidence, why it is wrong",
    "refutes the point the other position's case rests on",
)
RUBRIC_MODE_NOTES = {
    "spectral": " The person asked for the score: make every rating as well calibrated as you can.",
    "verdict": " The person asked for a verdict: it is read first, so be exact about which side of 5 "
    "each rating falls, and when to say null.",
}
RUBRIC_ANSWER = (
    "give the ratings the whole pool supports (those scores are ratings read onto the 0–100 scale "
    "above); if the evidence truly pulls both ways, rate it 5, and if it says too little, null."
)


def _scale() -> str:
    ratings = ", ".join(f"{r} → {s}" for r, s in RUBRIC_SCORES.items())
    wide = rubric_score(None)
    return f"{ratings}; null → {wide[0]}, with an interval from {wide[1]} to {wide[2]}"


def rubric_task(inputs: AdjudicateInput) -> Task[RubricJudgement]:
    values = judge_values(inputs) | {
        "hierarchy": ";\n".join(
            f"- {name}: {meaning}" for name, meaning in zip(DISAGREEMENT_HIERARCHY, LEVELS, strict=True)
        )
        + ".",
        "rubric_scale": _scale(),
        "mode_note": RUBRIC_MODE_NOTES[inputs.mode],
    }
    system, prompt = render(KIND, **values)
    wanted = [s.id for s in inputs.sub_claims]
    labels = sorted({p.label for p in inputs.positions})

    def every_sub_claim_once(reply: RubricJudgement) -> list[str]:
        problems = once_each(wanted, [j.sub_claim_id for j in reply.sub_claims], "rating")
        for label in labels:
            rated = [h.sub_claim_id for h in reply.hierarchy if h.position == label]
            problems += [f"position {label}: {p}" for p in once_each(wanted, rated, "hierarchy level")]
        return problems + leads_problems(wanted, reply.what_would_change)

    again = reconsider_note(inputs.reconsider, RUBRIC_ANSWER)
    return judge_task(KIND, RubricJudgement, inputs, system, prompt, every_sub_claim_once, again)


def _scored(rating: int | None) -> tuple[int, Interval, Verdict]:
    score, low, high = rubric_score(rating)
    return score, Interval(low=low, high=high), VERDICTS[rubric_reading(rating)]


def to_judgement(reply: RubricJudgement) -> Judgement:
    """The rubric judge's ratings read onto the 0–100 contract (docs/scoring.md)."""
    sub_claims = []
    for j in reply.sub_claims:
        score, _, verdict = _scored(j.rating)
        sub_claims.append(
            SubClaimJudgement(
                sub_claim_id=j.sub_claim_id,
                score=score,
                verdict=verdict,
                referee_synthesis=j.referee_synthesis,
                decisive_evidence_id=j.decisive_evidence_id,
                stronger_position=j.stronger_position,
            )
        )
    overall, interval, _ = _scored(reply.rating)
    return Judgement(
        sub_claims=sub_claims,
        overall_score=overall,
        overall_interval=interval,
        adjustment_reason=reply.adjustment_reason,
        decisive_evidence_id=reply.decisive_evidence_id,
        what_would_change=reply.what_would_change,
        structural_analysis=reply.structural_analysis,
    )


def adjudicate_rubric(
    inputs: AdjudicateInput, reasoner: Reasoner, ctx: CallContext
) -> tuple[Judgement, RubricJudgement] | None:
    """One rubric judgement: the reply read onto the contract, and the reply itself (None: a skipped
    sample, as the contract's judge)."""
    reply = ask_judge(rubric_task(inputs), inputs, reasoner, ctx)
    if reply is None:
        return None
    return complete(to_judgement(reply), inputs), reply


def _said(rating: int | None) -> str:
    reading = rubric_reading(rating)
    return "needs more evidence (null)" if rating is None else f"{rating} of 10, {reading}"


def scale_adjustments(reply: RubricJudgement) -> list[Adjustment]:
    """Every rating the contract read onto 0–100, named: the claim's, then each sub-claim's."""
    found = []
    for target, rating in [
        ("overall", reply.rating),
        *((j.sub_claim_id, j.rating) for j in reply.sub_claims),
    ]:
        score, low, high = rubric_score(rating)
        found.append(
            Adjustment(
                target=target,
                kind="rubric_scale",
                detail=f"the rubric judge said {_said(rating)}: read as {score} on the 0–100 scale, "
                f"interval {low}–{high} (docs/scoring.md)",
                before=rating,
                after=score,
            )
        )
    return found


def rubric_verdict(reply: RubricJudgement, sides: Mapping[str, Side]) -> RubricVerdict:
    """What the rubric judge said, its positions named as sides again."""
    return RubricVerdict(
        rating=reply.rating,
        reading=rubric_reading(reply.rating),
        sub_claims={j.sub_claim_id: j.rating for j in reply.sub_claims},
        hierarchy=[
            SideHierarchy(
                side=sides[h.position],
                sub_claim_id=h.sub_claim_id,
                level=h.level,
                name=DISAGREEMENT_HIERARCHY[h.level] if h.level is not None else "",
                comment=h.comment,
            )
            for h in reply.hierarchy
            if h.position in sides
        ],
    )
