"""The offline reasoner's answers to the scorecard's baselines (claimcourt.adjudication.baselines).

No model stands behind the offline reasoner, so it has no prior: its single-LLM judge knows nothing and
says 50, not enough evidence, with the widest interval its judge gives. Its naive RAG + LLM is the offline
judge itself (claimcourt.reasoning.offline's `adjudicate`, passed in, so whatever that judge becomes the
baseline follows) over the search's passages, with the claim as its one sub-claim and no debate before
it: the same evidence rules as the debate's judge, without decomposition, rounds or a moderator.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from claimcourt.models import (
    AdjudicateInput,
    BaselineInput,
    BaselineJudgement,
    Judgement,
    SubClaim,
)

WHOLE = "sc1"  # the claim as the judge's one sub-claim


class OfflineBaselines:
    """The baselines' task kinds, answered by an offline judge."""

    def __init__(self, judge: Callable[[AdjudicateInput], Judgement]) -> None:
        self._judge = judge

    def strategies(self) -> dict[str, Callable[[Any], BaseModel]]:
        return {"baseline_judge": self.judge_alone, "baseline_rag": self.judge_rag}

    def judge_alone(self, inputs: BaselineInput) -> BaselineJudgement:
        """No evidence and no knowledge: the judge over an empty pool."""
        return self._judged(inputs.model_copy(update={"evidence": []}))

    def judge_rag(self, inputs: BaselineInput) -> BaselineJudgement:
        return self._judged(inputs)

    def _judged(self, inputs: BaselineInput) -> BaselineJudgement:
        claim = inputs.claim
        whole = SubClaim(id=WHOLE, text=claim, directive=claim[:300])
        judgement = self._judge(
            AdjudicateInput(
                claim=claim,
                mode=inputs.mode,
                sub_claims=[whole],
                shape="all",
                positions=[],
                # Every passage bears on the one sub-claim (the judge weighs a sub-claim's own passages).
                evidence=[e.model_copy(update={"sub_claim_id": WHOLE}) for e in inputs.evidence],
            )
        )
        decided = judgement.sub_claims[0]
        return BaselineJudgement(
            score=judgement.overall_score,
            interval=judgement.overall_interval,
            verdict=decided.verdict,
            rationale=decided.referee_synthesis,
            decisive_evidence_id=judgement.decisive_evidence_id,
        )
