"""The Store port: everything a run reads and writes outside its state payloads."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any, Protocol, TypedDict, Unpack, runtime_checkable

from claimcourt.benchmarks import BenchmarkRecord
from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError, RateLimitedError
from claimcourt.models import (
    LOCAL_TENANT,
    ApiKeyRecord,
    CallRecord,
    ClaimRecord,
    ConnectionRecord,
    DriftPoint,
    Lease,
    Monitor,
    Result,
    RunEvent,
    RunPage,
    RunRecord,
    RunStatus,
    SourceTag,
    StopReason,
    Verdict,
    utcnow,
)


def claim_id_for(text: str) -> str:
    """One id per distinct claim: case and spacing do not make a new claim."""
    normal = re.sub(r"\s+", " ", text.strip().lower())
    return "c_" + hashlib.sha256(normal.encode()).hexdigest()[:16]


def cache_key(query: str, source: str, as_of: date | None, limit: int) -> str:
    """Normalized query + source + as_of_date (+ how many hits were asked for)."""
    normal = re.sub(r"\s+", " ", query.strip().lower())
    return f"{source}|{as_of.isoformat() if as_of else '-'}|{limit}|{normal}"


def sortable(at: datetime) -> str:
    """A timestamp whose string order is its time order (UTC, fixed width)."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# ---------------------------------------------------------------- listing pages
# Runs are listed newest first by one sort key, the same in every adapter; a page's cursor is the
# last key it returned, so the next page starts strictly after it and a run made meanwhile does not
# shift the pages.

_LISTING_KEY = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z#[\w-]{1,64}$")


def listing_key(record: RunRecord) -> str:
    return f"{sortable(record.created_at)}#{record.run_id}"


def monitor_listing_key(monitor: Monitor) -> str:
    """Monitors list by claim, then age: a claim's monitors sit together (the score stage reads them)."""
    return f"{monitor.claim_id}#{sortable(monitor.created_at)}#{monitor.monitor_id}"


def encode_cursor(key: str) -> str:
    return base64.urlsafe_b64encode(key.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> str:
    """The listing key a cursor stands for, or an InvalidRequestError: a cursor is opaque to callers."""
    try:
        key = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        key = ""
    if not _LISTING_KEY.fullmatch(key):
        raise InvalidRequestError("cursor", "not a cursor this API returned")
    return key


def page_of(runs: list[RunRecord], limit: int, more: bool) -> RunPage:
    """A page of up to `limit` runs; `more` says whether any run lies beyond them."""
    cursor = encode_cursor(listing_key(runs[-1])) if runs and more else None
    return RunPage(runs=runs[:limit], next_cursor=cursor)


def run_exists(run_id: str) -> ConflictError:
    """What create_run raises for a run id already taken (a repeated drift tick, a replayed event)."""
    return ConflictError(f"run {run_id} exists already", "run_exists")


# ---------------------------------------------------------------- the cost guard's rules

CONCURRENCY_RETRY_AFTER_S = 30  # a debate takes tens of seconds to minutes: try again after a while


def hour_window(at: datetime) -> str:
    """The fixed UTC hour an admission counts against (a per-caller hourly cap)."""
    return at.astimezone(UTC).strftime("%Y%m%d%H")


def over_concurrency(max_active: int) -> RateLimitedError:
    return RateLimitedError(
        "concurrency",
        f"{max_active} {'debate is' if max_active == 1 else 'debates are'} already running, the most allowed "
        "at once (CLAIMCOURT_MAX_ACTIVE_RUNS)",
        CONCURRENCY_RETRY_AFTER_S,
    )


def over_hourly(hourly_limit: int, at: datetime, tenant_id: str) -> RateLimitedError:
    """The hourly cap's refusal: who is over it (the CLI has no API key: its runs are the local
    tenant's), the setting that sets it, and when the hour's count starts again."""
    next_hour = at.astimezone(UTC).replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    wait = max(1, int((next_hour - at).total_seconds() + 0.999))
    who = "the CLI (tenant local) has" if tenant_id == LOCAL_TENANT else f"tenant {tenant_id} has"
    runs = "paid run" if hourly_limit == 1 else "paid runs"
    return RateLimitedError(
        "hourly",
        f"{who} started {hourly_limit} {runs} this hour (a paid model or web search), its cap "
        f"(CLAIMCOURT_HOURLY_RUNS_PER_TENANT); the count resets at {next_hour:%H:%M} UTC",
        wait,
    )


# What a status change and a finished run do to a record: pure, shared by every adapter.


class StatusChange(TypedDict, total=False):
    """What a status change sets beside the status (each adapter's `set_status` takes these)."""

    error: str | None  # not given: cleared
    warnings: list[str] | None  # these and the rest, not given or None: kept as they were
    cost_usd: float | None
    tokens: int | None
    stop_reason: StopReason | None
    verdict: Verdict | None


def with_status(record: RunRecord, status: RunStatus, **fields: Unpack[StatusChange]) -> RunRecord:
    unknown = fields.keys() - StatusChange.__annotations__.keys()
    if unknown:  # a record copied with a field it does not have would keep it unchecked
        raise TypeError(f"set_status got unexpected fields: {', '.join(sorted(unknown))}")
    update: dict[str, Any] = {"status": status, "error": fields.get("error")}
    if status.terminal:
        update["finished_at"] = utcnow()
    update |= {name: value for name, value in fields.items() if value is not None}
    return record.model_copy(update=update)


def finished(record: RunRecord, result: Result) -> tuple[RunRecord, DriftPoint | None]:
    """The succeeded record, and the point it adds to its claim's drift series (none for a run
    deleted while it ran: a deleted run no longer counts in its claim)."""
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
        tenant_id=record.tenant_id,
        claim_id=record.claim_id,
        run_id=record.run_id,
        at=done.finished_at or utcnow(),
        as_of_date=record.request.as_of_date,
        score=result.overall_score,
        interval=result.interval,
        verdict=result.overall_verdict,
    )
    return done, (point if record.deleted_at is None else None)


def revocation(keys: KeyStore, key_id: str) -> tuple[ApiKeyRecord, ApiKeyRecord] | None:
    """A live key as read and as revoked now; None if there is no such key or it is revoked already.
    (An adapter writes the revoked one only if the key is still as read.)"""
    try:
        record = keys.get_api_key(key_id)
    except NotFoundError:
        return None
    if record.revoked_at is not None:
        return None
    return record, record.model_copy(update={"revoked_at": utcnow()})


class RunStore(Protocol):
    """A run's record: created once, read by everyone, ended once (status or result), soft-deleted."""

    # runs
    def create_run(self, record: RunRecord) -> None:
        """Record a new run (and count its claim); ConflictError `run_exists` if the id is taken."""
        ...

    def get_run(self, run_id: str) -> RunRecord:
        """Any run, deleted or not, of any tenant: the stages' read. Callers scope it (runs.py)."""
        ...

    def list_runs(
        self, tenant_id: str, limit: int = 20, *, cursor: str | None = None, source: SourceTag | None = None
    ) -> RunPage:
        """A tenant's runs that are not deleted, newest first, optionally of one source tag."""
        ...

    def delete_run(self, run_id: str) -> bool:
        """Soft delete: the run is kept but no longer listed, nor counted in its claim (a claim left
        with no runs is not listed), nor a point of its drift series; False if it already was deleted."""
        ...

    def set_status(self, run_id: str, status: RunStatus, **fields: Unpack[StatusChange]) -> bool:
        """Move a running run to a terminal status; False if it was already terminal. A stopped run says
        why (`stop_reason`), and may answer a verdict it reached without a debate."""
        ...

    def finish_run(self, run_id: str, result: Result) -> bool:
        """Store the result of a running run; False (and no change) if it already ended."""
        ...


class EventLog(Protocol):
    """A run's progress events, in seq order, each appended once."""

    # progress events: `key` makes an append idempotent (a retried stage does not repeat events)
    def append_event(self, event: RunEvent, key: str) -> RunEvent | None: ...
    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]: ...


class ArtifactStore(Protocol):
    """A run's artifacts: JSON documents keyed within the run (claim-checked by the stages)."""

    # artifacts: evidence, arguments, decisions, judgements — JSON documents keyed within a run
    def put_artifact(self, run_id: str, key: str, value: dict[str, Any]) -> None: ...
    def get_artifact(self, run_id: str, key: str) -> dict[str, Any]: ...
    def find_artifacts(self, run_id: str, prefix: str) -> dict[str, dict[str, Any]]: ...


class CallLedger(Protocol):
    """The usage ledger: every billed call, keyed so a retried stage replays instead of paying twice."""

    # usage ledger (the Reasoner's)
    def get_call(self, run_id: str, call_key: str) -> CallRecord | None: ...
    def put_call(self, record: CallRecord) -> None: ...
    def run_spend(self, run_id: str) -> float: ...
    def run_calls(self, run_id: str) -> list[CallRecord]: ...


class RetrievalCacheStore(Protocol):
    """The retrieval cache, with a time to live."""

    # retrieval cache (TTL)
    def cache_get(self, key: str) -> list[dict[str, Any]] | None: ...
    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None: ...


class ClaimStore(Protocol):
    """Claims and their score series, per tenant."""

    # claims and their drift series, per tenant
    def list_claims(self, tenant_id: str, limit: int = 50) -> list[ClaimRecord]: ...
    def get_claim(self, tenant_id: str, claim_id: str) -> ClaimRecord:
        """The tenant's claim, as listed; NotFoundError if the tenant has no run of it (another
        tenant's claim included)."""
        ...

    def drift_series(self, tenant_id: str, claim_id: str) -> list[DriftPoint]: ...


class KeyStore(Protocol):
    """API keys (a digest of each secret)."""

    # API keys (only a digest of each secret is stored)
    def put_api_key(self, record: ApiKeyRecord) -> None: ...
    def get_api_key(self, key_id: str) -> ApiKeyRecord: ...
    def revoke_api_key(self, key_id: str) -> bool:
        """False if there is no such key or it was already revoked."""
        ...

    def list_api_keys(self) -> list[ApiKeyRecord]: ...


class AdmissionStore(Protocol):
    """The cost guard's leases and hourly counts."""

    # the cost guard: admission takes a lease under both caps atomically, or raises RateLimitedError
    def admit(self, lease: Lease, *, max_active: int, hourly_limit: int) -> None: ...
    def release(self, run_id: str, *, refund: bool = False) -> bool:
        """Give the run's lease back; False if it holds none (released before, or never admitted).
        With `refund` (its run never started, so it spent nothing), the hourly count its admission
        took is given back too, in the same write: once, however often it is asked, and never below
        zero (a count that has expired meanwhile stays gone)."""
        ...

    def leases(self) -> list[Lease]: ...


class MonitorStore(Protocol):
    """Monitors: claims re-scored on a schedule."""

    # monitors: claims re-scored on a schedule (a due index, so the drift tick never scans)
    def put_monitor(self, monitor: Monitor) -> None: ...
    def get_monitor(self, monitor_id: str) -> Monitor: ...
    def list_monitors(self, tenant_id: str) -> list[Monitor]:
        """A tenant's monitors, by claim then age."""
        ...

    def monitors_of_claim(self, tenant_id: str, claim_id: str) -> list[Monitor]: ...
    def delete_monitor(self, monitor_id: str) -> bool:
        """False if there was no such monitor."""
        ...

    def due_monitors(self, now: datetime, limit: int) -> list[Monitor]:
        """Monitors whose next_due is at or before `now`, the most overdue first."""
        ...

    def advance_monitor(self, monitor_id: str, due: datetime, next_due: datetime, run_id: str | None) -> bool:
        """Move a monitor on from `due` to `next_due`, recording `run_id` as its last run (None: it
        was put off, no run started). False if it was moved on or deleted meanwhile."""
        ...


class ConnectionStore(Protocol):
    """WebSocket connections and their subscriptions."""

    # WebSocket connections, and the runs each one follows. A subscription remembers the last event
    # seq posted to it and holds a short delivery claim, so one deliverer at a time posts a run's
    # events to a connection, in order (claimcourt/api/socket.py).
    def put_connection(self, record: ConnectionRecord) -> None: ...
    def get_connection(self, connection_id: str) -> ConnectionRecord: ...
    def drop_connection(self, connection_id: str) -> None:
        """The connection and its subscriptions; nothing if it is gone already."""
        ...

    def subscribe(self, connection_id: str, run_id: str, expires_at: datetime) -> None:
        """Follow a run (again: what was posted so far stays posted)."""
        ...

    def subscribers(self, run_id: str) -> list[str]:
        """The connections following a run."""
        ...

    def claim_delivery(self, connection_id: str, run_id: str, until: datetime, token: str) -> int | None:
        """Take the right to post this run's events to this connection until `until`, as `token`:
        the last seq posted so far, or None if another deliverer holds it or there is no such
        subscription."""
        ...

    def end_delivery(self, connection_id: str, run_id: str, sent_seq: int, token: str) -> bool:
        """Record what was posted and give the claim back, if `token` still holds it; False if the
        claim lapsed and passed to another deliverer (who then records its own progress)."""
        ...

    def unsubscribe(self, connection_id: str, run_id: str) -> None: ...


@runtime_checkable
class SavedSettingsStore(Protocol):
    """Small named records of the service's own (the console's saved settings, its encrypted provider
    keys). The laptop's SQLite store only: a deployed stack's settings are its template's."""

    def get_saved(self, name: str) -> dict[str, Any] | None: ...
    def put_saved(self, name: str, value: dict[str, Any]) -> None: ...


class BenchmarkStore(Protocol):
    """The scorecards `claimcourt bench` recorded: the deployment's, not a tenant's (benchmarks.py)."""

    def put_benchmark(self, record: BenchmarkRecord, plots: dict[str, bytes]) -> None:
        """Record a scorecard and its PNG plots (by name, as the record's sections list them); a
        resumed bench records again under the same id, replacing what it recorded before."""
        ...

    def list_benchmarks(self, limit: int = 20) -> list[BenchmarkRecord]:
        """Newest first."""
        ...

    def get_benchmark(self, benchmark_id: str) -> BenchmarkRecord:
        """NotFoundError if there is none."""
        ...

    def get_benchmark_plot(self, benchmark_id: str, name: str) -> bytes:
        """A plot's PNG; NotFoundError if the benchmark or its plot of that name is not there."""
        ...


def plots_of(record: BenchmarkRecord, plots: dict[str, bytes]) -> dict[str, bytes]:
    """The plots a record may be stored with: exactly the ones its sections name, each a PNG."""
    if set(plots) != record.plot_names:
        raise InvalidRequestError("plots", f"expected {sorted(record.plot_names)}, got {sorted(plots)}")
    for name, data in plots.items():
        if not data.startswith(b"\x89PNG\r\n\x1a\n"):
            raise InvalidRequestError("plots", f"{name} is not a PNG")
    return plots


class Store(
    RunStore,
    EventLog,
    ArtifactStore,
    CallLedger,
    RetrievalCacheStore,
    ClaimStore,
    KeyStore,
    AdmissionStore,
    MonitorStore,
    ConnectionStore,
    BenchmarkStore,
    Protocol,
):
    """Every capability, as each adapter (SQLite, DynamoDB) provides them all; a consumer that needs
    one capability names that one (e.g. the Reasoner's ledger, the retrieval cache)."""
