"""Stage 8b: review the judge's samples (adjudication/review.py): ask for the rest of them, or stop
early when the first two agree; then re-deliberate once, or not. No model call."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from claimcourt import artifacts
from claimcourt.adjudication.review import review
from claimcourt.models import Stage
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps

STAGE = Stage.REVIEW


class ReviewPayload(Payload):
    batch: int = Field(default=1, ge=1, le=2, description="1: after the first samples; 2: after the rest.")


def run(deps: Deps, p: ReviewPayload) -> dict[str, Any]:
    request = deps.store.get_run(p.run_id).request
    total = deps.settings.judgements(request.effort)
    asked = deps.store.find_artifacts(p.run_id, artifacts.JUDGEMENT_PREFIX)
    scores = {
        int(key.rsplit("/s", 1)[1]): (doc["judgement"] or {}).get("overall_score")
        for key, doc in asked.items()
        if not doc.get("reconsider")
    }
    decided = review(
        scores,
        total,
        contrarian_ids=artifacts.contrarian_evidence_ids(artifacts.retrievals_of(deps.store, p.run_id)),
        threshold=deps.settings.redeliberate_spread,
        enabled=deps.settings.redeliberation,
    )
    doc = {
        "batch": p.batch,
        "scores": {str(k): v for k, v in sorted(scores.items())},
        "more_samples": decided.more_samples,
        "spread": decided.spread,
        "reason": decided.reason,
        "reconsider": decided.reconsider.model_dump(mode="json") if decided.reconsider else None,
    }
    deps.store.put_artifact(p.run_id, artifacts.REVIEW, doc)
    return {
        "more": bool(decided.more_samples),
        "more_samples": decided.more_samples,
        "redeliberate": decided.reconsider is not None,
        "redeliberate_sample": total,  # the next sample index: its own judgement artifact
        "spread": decided.spread,
    }
