"""The offline reasoner's rubric judge (claimcourt.adjudication.rubric, `judge: rubric`).

The ratings are the offline judge's own calls (claimcourt.reasoning.offline's `adjudicate`, passed in,
so whatever that judge becomes the rubric follows), said on the rubric: a supported sub-claim is the
supported rating nearest its score (65 → 6 … 95 → 10), a refuted one the contradicted rating nearest
(35 → 4 … 5 → 0), conflicting is 5 (misleading), not enough evidence null. The claim's rating is the
rating nearest the contract's composition of the sub-claims' read scores, in that composition's band:
between the bands, 5 if a sub-claim is misleading or the sub-claims point both ways, else null. So the
offline rubric judge never departs from the composition rule beyond a rubric step.

The disagreement hierarchy is read from what each position's points do, from the evidence and the
ledger of ids, never from wording (offline debaters call no one names: nothing here scores DH0–DH2):
- DH6, refuting the central point: a point cites the passage a supported or contradicted rating of the
  sub-claim rests on (a misleading or null rating rests on no one passage);
- DH5, refutation: a point cites evidence and names a passage the other position cited on it;
- DH4, counterargument: a point cites evidence;
- DH3, contradiction: points, but no citation;
- null: no point on the sub-claim (or the position declined to argue).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from claimcourt.contract import band, compose, nearest_rating, rubric_score
from claimcourt.models import (
    AdjudicateInput,
    HierarchyRating,
    Judgement,
    RubricJudgement,
    SubClaimJudgement,
    SubClaimRubric,
    Verdict,
)

_CITED = re.compile(r"\[([A-Za-z0-9_-]+)\]")


def rating_of(judged: SubClaimJudgement) -> int | None:
    """A contract judgement of a sub-claim, said on the rubric."""
    if judged.verdict is Verdict.SUPPORTED:
        return nearest_rating(judged.score, "supported")
    if judged.verdict is Verdict.REFUTED:
        return nearest_rating(judged.score, "contradicted")
    return 5 if judged.verdict is Verdict.CONFLICTING else None


def overall_rating(ratings: list[int | None], inputs: AdjudicateInput) -> int | None:
    """The rating nearest the composition of the sub-claims' read scores, in its band."""
    if all(r is None for r in ratings):
        return None
    composed = compose([rubric_score(r)[0] for r in ratings], inputs.shape)
    where = band(composed)
    if where == "supported":
        return nearest_rating(composed, "supported")
    if where == "refuted":
        return nearest_rating(composed, "contradicted")
    both_ways = any(r is not None and r < 5 for r in ratings) and any(
        r is not None and r > 5 for r in ratings
    )
    return 5 if 5 in ratings or both_ways else None


def hierarchy(inputs: AdjudicateInput, decisive: dict[str, str | None]) -> list[HierarchyRating]:
    """Each position's points on each sub-claim, on the disagreement hierarchy (see the module)."""
    labels = sorted({p.label for p in inputs.positions})
    cited = {
        (p.label, q.sub_claim_id): set(q.citations) for p in inputs.positions for q in p.points if q.citations
    }
    found = []
    for label in labels:
        other = next((x for x in labels if x != label), None)
        for sub in inputs.sub_claims:
            points = [
                q for p in inputs.positions if p.label == label for q in p.points if q.sub_claim_id == sub.id
            ]
            theirs = set().union(*(v for (lab, sid), v in cited.items() if lab == other and sid == sub.id))
            citations = {c for q in points for c in q.citations}
            named = {c for q in points for c in _CITED.findall(q.argument)}
            level: int | None
            if not points:
                level, comment = None, "It made no argument on this sub-claim."
            elif decisive.get(sub.id) in citations:
                level, comment = 6, f"It cites [{decisive[sub.id]}], the passage the rating rests on."
            elif citations and named & theirs:
                shown = ", ".join(f"[{c}]" for c in sorted(named & theirs))
                level, comment = (
                    5,
                    f"It answers the passages the other position cited ({shown}) with its own.",
                )
            elif citations:
                level, comment = 4, "It argues from cited passages without engaging the other position's."
            else:
                level, comment = 3, "It states its case without citing evidence."
            found.append(HierarchyRating(position=label, sub_claim_id=sub.id, level=level, comment=comment))
    return found


class OfflineRubric:
    """The rubric judge's task kind, answered from an offline judge's judgement."""

    def __init__(self, judge: Callable[[AdjudicateInput], Judgement]) -> None:
        self._judge = judge

    def strategies(self) -> dict[str, Callable[[Any], BaseModel]]:
        return {"adjudicate_rubric": self.rubric}

    def rubric(self, inputs: AdjudicateInput) -> RubricJudgement:
        judgement = self._judge(inputs)
        subs = [
            SubClaimRubric(
                sub_claim_id=j.sub_claim_id,
                rating=rating_of(j),
                referee_synthesis=j.referee_synthesis,
                decisive_evidence_id=j.decisive_evidence_id,
                stronger_position=j.stronger_position,
            )
            for j in judgement.sub_claims
        ]
        return RubricJudgement(
            hierarchy=hierarchy(
                inputs,
                {
                    j.sub_claim_id: j.decisive_evidence_id
                    for j in judgement.sub_claims
                    if j.verdict in (Verdict.SUPPORTED, Verdict.REFUTED)
                },
            ),
            sub_claims=subs,
            rating=overall_rating([s.rating for s in subs], inputs),
            adjustment_reason=None,
            decisive_evidence_id=judgement.decisive_evidence_id,
            what_would_change=judgement.what_would_change,
            structural_analysis=judgement.structural_analysis,
        )
