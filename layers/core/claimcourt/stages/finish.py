"""The ends that are not a score: stopped by the suitability check (FinishStopped: after the first
retrieval, or before any spend by the decompose stage's screen of an instruction posing as a claim; a
motion's, before its crowd votes, too), answered *not enough evidence* with no debate because the pool
speaks to none of the sub-claims (FinishAddDocuments, after the Relevance stage, before the suitability
check), or failed (FinishFailed, every state's Catch). All record what the run spent."""

from __future__ import annotations

import json
from typing import Any, Literal

from claimcourt import artifacts
from claimcourt.evidence import hindsight
from claimcourt.models import RunStatus, Stage, StopReason, Verdict, usage_from
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps

STAGE = Stage.FINISH


class FinishPayload(Payload):
    outcome: Literal["stopped", "add_documents", "failed"]
    error: dict[str, Any] | None = None  # a Catch's {"Error", "Cause"}


def run(deps: Deps, p: FinishPayload) -> dict[str, Any]:
    spent = usage_from(deps.store.run_calls(p.run_id), 0, 0)
    tokens = spent.input_tokens + spent.output_tokens
    motion_check = artifacts.motion_suitability_of(deps.store, p.run_id)
    if p.outcome == "stopped" and motion_check is not None:
        # A motion stopped before its crowd voted: by its wording (unsuitable) or by a pool that speaks to
        # nothing (add_documents); a motion has no verdict, so none is answered.
        deps.store.set_status(
            p.run_id,
            RunStatus.STOPPED,
            warnings=motion_check.warnings,
            cost_usd=spent.total_cost_usd,
            tokens=tokens,
            stop_reason=motion_check.stop_reason or StopReason.UNSUITABLE,
        )
    elif p.outcome == "stopped":
        warnings = artifacts.suitability_of(deps.store, p.run_id).warnings
        deps.store.set_status(
            p.run_id,
            RunStatus.STOPPED,
            warnings=warnings,
            cost_usd=spent.total_cost_usd,
            tokens=tokens,
            stop_reason=StopReason.UNSUITABLE,
        )
    elif p.outcome == "add_documents":
        # The check's warning (what to add) first; then, for a backtest, why its pool is what it is (its
        # sources left out by their date). The suitability check comes after this stop: it was not made.
        warnings = artifacts.relevance_of(deps.store, p.run_id).warnings
        as_of = deps.store.get_run(p.run_id).request.as_of_date
        if as_of is not None:
            dating = artifacts.backtest_dating(artifacts.retrievals_of(deps.store, p.run_id))
            warnings += hindsight.warnings(dating, as_of, cited=[])
        deps.store.set_status(
            p.run_id,
            RunStatus.STOPPED,
            warnings=warnings,
            cost_usd=spent.total_cost_usd,
            tokens=tokens,
            stop_reason=StopReason.ADD_DOCUMENTS,
            verdict=Verdict.NOT_ENOUGH_EVIDENCE,
        )
    else:
        deps.store.set_status(
            p.run_id, RunStatus.FAILED, error=reason(p.error), cost_usd=spent.total_cost_usd, tokens=tokens
        )
    # A run that had already ended keeps its status: report what it is, not what was asked.
    record = deps.store.get_run(p.run_id)
    return {
        "run_id": p.run_id,
        "status": record.status.value,
        "stop_reason": record.stop_reason.value if record.stop_reason else None,
        "error": record.error,
        "warnings": record.warnings,
    }


def reason(error: dict[str, Any] | None) -> str:
    """'ErrorName: message' from a Catch's error object, never a stack trace."""
    if not error:
        return "unknown error"
    name = str(error.get("Error", "Error"))
    cause = error.get("Cause", "")
    try:
        message = json.loads(cause).get("errorMessage", "")
    except (TypeError, ValueError, AttributeError):
        message = str(cause)
    return f"{name}: {message}".strip().rstrip(":")[:1000]
