"""The Store port: everything a run reads and writes outside its state payloads."""

from __future__ import annotations

import hashlib
import re
from datetime import date
from typing import Any, Protocol

from claimcourt.models import ClaimRecord, DriftPoint, Result, RunEvent, RunRecord, RunStatus, utcnow
from claimcourt.reasoning.base import CallRecord


def claim_id_for(text: str) -> str:
    """One id per distinct claim: case and spacing do not make a new claim."""
    normal = re.sub(r"\s+", " ", text.strip().lower())
    return "c_" + hashlib.sha256(normal.encode()).hexdigest()[:16]


def cache_key(query: str, source: str, as_of: date | None, limit: int) -> str:
    """Normalized query + source + as_of_date (+ how many hits were asked for)."""
    normal = re.sub(r"\s+", " ", query.strip().lower())
    return f"{source}|{as_of.isoformat() if as_of else '-'}|{limit}|{normal}"


# What a status change and a finished run do to a record: pure, shared by every adapter.


def with_status(
    record: RunRecord,
    status: RunStatus,
    *,
    error: str | None = None,
    warnings: list[str] | None = None,
    cost_usd: float | None = None,
    tokens: int | None = None,
) -> RunRecord:
    update: dict[str, Any] = {"status": status, "error": error}
    if status.terminal:
        update["finished_at"] = utcnow()
    optional = {"warnings": warnings, "cost_usd": cost_usd, "tokens": tokens}
    update |= {name: value for name, value in optional.items() if value is not None}
    return record.model_copy(update=update)


def finished(record: RunRecord, result: Result) -> tuple[RunRecord, DriftPoint]:
    """The succeeded record, and the point it adds to its claim's drift series."""
    done = record.model_copy(
        update={
            "status": RunStatus.SUCCEEDED,
            "finished_at": record.finished_at or utcnow(),
            "score": result.overall_score,
            "interval": result.interval,
            "verdict": result.overall_verdict,
            "cost_usd": result.usage.total_cost_usd,
            "tokens": result.usage.input_tokens + result.usage.output_tokens,
            "warnings": result.warnings,
            "result": result,
        }
    )
    point = DriftPoint(
        claim_id=record.claim_id,
        run_id=record.run_id,
        at=done.finished_at or utcnow(),
        as_of_date=record.request.as_of_date,
        score=result.overall_score,
        interval=result.interval,
        verdict=result.overall_verdict,
    )
    return done, point


class Store(Protocol):
    # runs
    def create_run(self, record: RunRecord) -> None: ...
    def get_run(self, run_id: str) -> RunRecord: ...
    def list_runs(self, limit: int = 20) -> list[RunRecord]: ...
    def set_status(
        self,
        run_id: str,
        status: RunStatus,
        *,
        error: str | None = None,
        warnings: list[str] | None = None,
        cost_usd: float | None = None,
        tokens: int | None = None,
    ) -> bool:
        """Move a running run to a terminal status; False if it was already terminal."""
        ...

    def finish_run(self, run_id: str, result: Result) -> bool:
        """Store the result of a running run; False (and no change) if it already ended."""
        ...

    # progress events: `key` makes an append idempotent (a retried stage does not repeat events)
    def append_event(self, event: RunEvent, key: str) -> RunEvent | None: ...
    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]: ...

    # artifacts: evidence, arguments, decisions, judgements — JSON documents keyed within a run
    def put_artifact(self, run_id: str, key: str, value: dict[str, Any]) -> None: ...
    def get_artifact(self, run_id: str, key: str) -> dict[str, Any]: ...
    def find_artifacts(self, run_id: str, prefix: str) -> dict[str, dict[str, Any]]: ...

    # usage ledger (the Reasoner's)
    def get_call(self, run_id: str, call_key: str) -> CallRecord | None: ...
    def put_call(self, record: CallRecord) -> None: ...
    def run_spend(self, run_id: str) -> float: ...
    def run_calls(self, run_id: str) -> list[CallRecord]: ...

    # retrieval cache (TTL)
    def cache_get(self, key: str) -> list[dict[str, Any]] | None: ...
    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None: ...

    # claims and their drift series
    def list_claims(self, limit: int = 50) -> list[ClaimRecord]: ...
    def drift_series(self, claim_id: str) -> list[DriftPoint]: ...
