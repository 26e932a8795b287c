"""The embedded default's store: one SQLite file in WAL mode.

Writes go through one connection behind a lock: stage tasks write from several threads at once
(Map and Parallel states), and SQLite serializes writers anyway. Reads go through a connection of
their own thread, without the lock: WAL lets readers run beside the writer, each seeing the last
committed state, so a run's reads (its stages, the API's GETs, the progress feed) never queue
behind another run's writes.
"""

from __future__ import annotations

import json
import queue
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from claimcourt.errors import ConfigurationError, NotFoundError
from claimcourt.models import (
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
    utcnow,
)
from claimcourt.store.base import (
    decode_cursor,
    finished,
    hour_window,
    listing_key,
    monitor_listing_key,
    over_concurrency,
    over_hourly,
    page_of,
    run_exists,
    sortable,
    with_status,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, claim_id TEXT NOT NULL, status TEXT NOT NULL,
    mode TEXT NOT NULL, source_tag TEXT NOT NULL, created_at TEXT NOT NULL, finished_at TEXT,
    as_of_date TEXT, score INTEGER, cost_usd REAL NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0,
    deleted_at TEXT, listing_key TEXT NOT NULL, record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_listed ON runs (tenant_id, listing_key) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS runs_by_source ON runs (tenant_id, source_tag, listing_key)
    WHERE deleted_at IS NULL;
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL, seq INTEGER NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, seq), UNIQUE (run_id, key)
);
CREATE TABLE IF NOT EXISTS artifacts (
    run_id TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, key)
);
CREATE TABLE IF NOT EXISTS calls (
    run_id TEXT NOT NULL, call_key TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
    input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL,
    price_known INTEGER NOT NULL, output_json TEXT, refusal TEXT, attempts INTEGER NOT NULL DEFAULT 1,
    cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, call_key)
);
CREATE TABLE IF NOT EXISTS retrieval_cache (
    key TEXT PRIMARY KEY, hits TEXT NOT NULL, expires_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS retrieval_cache_expiry ON retrieval_cache (expires_at);
CREATE TABLE IF NOT EXISTS claims (
    tenant_id TEXT NOT NULL, claim_id TEXT NOT NULL, text TEXT NOT NULL, run_count INTEGER NOT NULL,
    first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, PRIMARY KEY (tenant_id, claim_id)
);
CREATE TABLE IF NOT EXISTS drift_points (
    tenant_id TEXT NOT NULL, claim_id TEXT NOT NULL, run_id TEXT NOT NULL, at TEXT NOT NULL,
    body TEXT NOT NULL, PRIMARY KEY (tenant_id, claim_id, run_id)
);
CREATE TABLE IF NOT EXISTS api_keys (key_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS leases (run_id TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hourly_admissions (
    tenant_id TEXT NOT NULL, window TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tenant_id, window)
);
CREATE TABLE IF NOT EXISTS connections (
    connection_id TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS subscriptions (
    run_id TEXT NOT NULL, connection_id TEXT NOT NULL, sent_seq INTEGER NOT NULL DEFAULT 0,
    claimed_until TEXT, claimed_by TEXT, expires_at TEXT NOT NULL, PRIMARY KEY (run_id, connection_id)
);
CREATE INDEX IF NOT EXISTS subscriptions_by_connection ON subscriptions (connection_id);
CREATE TABLE IF NOT EXISTS monitors (
    monitor_id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, claim_id TEXT NOT NULL, next_due TEXT NOT NULL,
    listing TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS monitors_due ON monitors (next_due);
CREATE INDEX IF NOT EXISTS monitors_listed ON monitors (tenant_id, listing);
"""
# PRAGMA user_version. 1 was the single-tenant schema before API keys; 2 had no WebSocket tables,
# 3 no monitors, 4 no prompt-cache tokens on calls, 5 no indexes on the cache's expiry and the runs'
# source tag: each later version only adds tables, indexes or columns with defaults, so 2 to 5 are
# upgraded in place.
SCHEMA_VERSION = 6
UPGRADES_IN_PLACE = (2, 3, 4, 5)
# Columns added since a table was first made: (table, column, its definition).
ADDED_COLUMNS = (
    ("calls", "cache_read_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("calls", "cache_write_tokens", "INTEGER NOT NULL DEFAULT 0"),
)


# A call's columns in the order _call_record reads them.
CALL_COLUMNS = (
    "run_id, call_key, provider, model, input_tokens, output_tokens, cost_usd, price_known, output_json,"
    " refusal, attempts, cache_read_tokens, cache_write_tokens"
)


def _call_record(row: tuple[Any, ...]) -> CallRecord:
    return CallRecord(
        run_id=row[0],
        call_key=row[1],
        provider=row[2],
        model=row[3],
        input_tokens=row[4],
        output_tokens=row[5],
        cost_usd=row[6],
        price_known=bool(row[7]),
        output_json=row[8],
        refusal=row[9],
        attempts=row[10],
        cache_read_tokens=row[11],
        cache_write_tokens=row[12],
    )


class SqliteStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._readers: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()  # idle ones
        self._refuse_other_versions(path)  # before anything is written, WAL mode included
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        with self._tx() as db:
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            for table, column, definition in ADDED_COLUMNS:
                if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _refuse_other_versions(self, path: Path) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if version == 0 and self._db.execute("SELECT 1 FROM sqlite_master WHERE name='runs'").fetchone():
            version = 1  # made before the schema was versioned
        if version not in (0, SCHEMA_VERSION, *UPGRADES_IN_PLACE):
            self._db.close()
            raise ConfigurationError(
                f"{path} holds claimcourt data in schema v{version};"
                f" this version reads v{SCHEMA_VERSION}."
                " Move the file aside (nothing in it is changed) or set CLAIMCOURT_DATA_DIR elsewhere."
            )

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """A read on an idle reader connection (a new one if every reader is busy: there are never
        more than the threads reading at once)."""
        try:
            reader = self._readers.get_nowait()
        except queue.Empty:
            reader = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        try:
            return reader.execute(sql, args).fetchall()
        finally:
            self._readers.put(reader)

    def close(self) -> None:
        with self._lock:
            self._db.close()
            while True:
                try:
                    self._readers.get_nowait().close()
                except queue.Empty:
                    return

    # ------------------------------------------------------------ runs

    def create_run(self, record: RunRecord) -> None:
        now = record.created_at.isoformat()
        with self._tx() as db:
            if db.execute("SELECT 1 FROM runs WHERE run_id = ?", (record.run_id,)).fetchone():
                raise run_exists(record.run_id)
            db.execute(
                "INSERT INTO runs (run_id, tenant_id, claim_id, status, mode, source_tag, created_at,"
                " as_of_date, listing_key, record) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    record.run_id,
                    record.tenant_id,
                    record.claim_id,
                    record.status.value,
                    record.request.mode,
                    record.source_tag.value,
                    now,
                    record.request.as_of_date.isoformat() if record.request.as_of_date else None,
                    listing_key(record),
                    record.model_dump_json(),
                ),
            )
            db.execute(
                "INSERT INTO claims (tenant_id, claim_id, text, run_count, first_seen, last_seen)"
                " VALUES (?,?,?,1,?,?) ON CONFLICT (tenant_id, claim_id) DO UPDATE SET"
                " run_count = run_count + 1, last_seen = excluded.last_seen",
                (record.tenant_id, record.claim_id, record.request.claim, now, now),
            )

    def get_run(self, run_id: str) -> RunRecord:
        rows = self._query("SELECT record FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            raise NotFoundError(f"no run {run_id}")
        return RunRecord.model_validate_json(rows[0][0])

    def list_runs(
        self, tenant_id: str, limit: int = 20, *, cursor: str | None = None, source: SourceTag | None = None
    ) -> RunPage:
        sql = "SELECT record FROM runs WHERE tenant_id = ? AND deleted_at IS NULL"
        args: list[Any] = [tenant_id]
        if cursor is not None:
            sql += " AND listing_key < ?"
            args.append(decode_cursor(cursor))
        if source is not None:
            sql += " AND source_tag = ?"
            args.append(source.value)
        rows = self._query(sql + " ORDER BY listing_key DESC LIMIT ?", (*args, limit + 1))
        runs = [RunRecord.model_validate_json(r[0]) for r in rows]
        return page_of(runs[:limit], limit, more=len(runs) > limit)

    def delete_run(self, run_id: str) -> bool:
        with self._tx() as db:
            record = self.get_run(run_id)
            if record.deleted_at is not None:
                return False
            self._save(db, record.model_copy(update={"deleted_at": utcnow()}))
            claim = (record.tenant_id, record.claim_id)
            db.execute(
                "UPDATE claims SET run_count = run_count - 1 WHERE tenant_id = ? AND claim_id = ?", claim
            )
            db.execute(
                "DELETE FROM drift_points WHERE tenant_id = ? AND claim_id = ? AND run_id = ?",
                (*claim, run_id),
            )
            return True

    def _save(self, db: sqlite3.Connection, record: RunRecord) -> None:
        db.execute(
            "UPDATE runs SET status=?, finished_at=?, score=?, cost_usd=?, tokens=?, deleted_at=?, record=?"
            " WHERE run_id=?",
            (
                record.status.value,
                record.finished_at.isoformat() if record.finished_at else None,
                record.score,
                record.cost_usd,
                record.tokens,
                record.deleted_at.isoformat() if record.deleted_at else None,
                record.model_dump_json(),
                record.run_id,
            ),
        )

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
        with self._tx() as db:
            record = self.get_run(run_id)
            if record.status.terminal:
                return False
            changed = with_status(
                record, status, error=error, warnings=warnings, cost_usd=cost_usd, tokens=tokens
            )
            self._save(db, changed)
            return True

    def finish_run(self, run_id: str, result: Result) -> bool:
        with self._tx() as db:
            record = self.get_run(run_id)
            if record.status.terminal:
                return False  # terminal is final: a late result never overwrites a failed run
            done, point = finished(record, result)
            self._save(db, done)
            if point is None:  # deleted while it ran: not a point of its claim's series
                return True
            db.execute(
                "INSERT OR REPLACE INTO drift_points (tenant_id, claim_id, run_id, at, body)"
                " VALUES (?,?,?,?,?)",
                (point.tenant_id, point.claim_id, run_id, point.at.isoformat(), point.model_dump_json()),
            )
            return True

    # ------------------------------------------------------------ events

    def append_event(self, event: RunEvent, key: str) -> RunEvent | None:
        with self._tx() as db:
            if db.execute("SELECT 1 FROM events WHERE run_id=? AND key=?", (event.run_id, key)).fetchone():
                return None
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id=?", (event.run_id,)
            ).fetchone()[0]
            stored = event.model_copy(update={"seq": seq})
            db.execute(
                "INSERT INTO events (run_id, seq, key, body) VALUES (?,?,?,?)",
                (event.run_id, seq, key, stored.model_dump_json()),
            )
            return stored

    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]:
        rows = self._query(
            "SELECT body FROM events WHERE run_id=? AND seq>? ORDER BY seq", (run_id, after_seq)
        )
        return [RunEvent.model_validate_json(r[0]) for r in rows]

    # ------------------------------------------------------------ artifacts

    def put_artifact(self, run_id: str, key: str, value: dict[str, Any]) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO artifacts (run_id, key, body) VALUES (?,?,?)",
                (run_id, key, json.dumps(value, separators=(",", ":"), default=str)),
            )

    def get_artifact(self, run_id: str, key: str) -> dict[str, Any]:
        rows = self._query("SELECT body FROM artifacts WHERE run_id=? AND key=?", (run_id, key))
        if not rows:
            raise NotFoundError(f"run {run_id} has no artifact {key}")
        value: dict[str, Any] = json.loads(rows[0][0])
        return value

    def find_artifacts(self, run_id: str, prefix: str) -> dict[str, dict[str, Any]]:
        rows = self._query(
            "SELECT key, body FROM artifacts WHERE run_id=? AND key >= ? AND key < ? ORDER BY key",
            (run_id, prefix, prefix + "\uffff"),
        )
        return {key: json.loads(body) for key, body in rows}

    # ------------------------------------------------------------ usage ledger

    def get_call(self, run_id: str, call_key: str) -> CallRecord | None:
        rows = self._query(
            f"SELECT {CALL_COLUMNS} FROM calls WHERE run_id=? AND call_key=?",
            (run_id, call_key),
        )
        return _call_record(rows[0]) if rows else None

    def put_call(self, record: CallRecord) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    record.run_id,
                    record.call_key,
                    record.provider,
                    record.model,
                    record.input_tokens,
                    record.output_tokens,
                    record.cost_usd,
                    int(record.price_known),
                    record.output_json,
                    record.refusal,
                    record.attempts,
                    record.cache_read_tokens,
                    record.cache_write_tokens,
                ),
            )

    def run_spend(self, run_id: str) -> float:
        return float(
            self._query("SELECT COALESCE(SUM(cost_usd), 0) FROM calls WHERE run_id=?", (run_id,))[0][0]
        )

    def run_calls(self, run_id: str) -> list[CallRecord]:
        rows = self._query(
            f"SELECT {CALL_COLUMNS} FROM calls WHERE run_id=? ORDER BY call_key",
            (run_id,),
        )
        return [_call_record(r) for r in rows]

    # ------------------------------------------------------------ retrieval cache

    def cache_get(self, key: str) -> list[dict[str, Any]] | None:
        rows = self._query(
            "SELECT hits FROM retrieval_cache WHERE key=? AND expires_at>?", (key, time.time())
        )
        if not rows:
            return None
        hits: list[dict[str, Any]] = json.loads(rows[0][0])
        return hits

    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO retrieval_cache (key, hits, expires_at) VALUES (?,?,?)",
                (key, json.dumps(hits, default=str), time.time() + ttl_s),
            )
            # The expired rows only, found by the expiry index: not a scan of the cache inside the lock.
            db.execute("DELETE FROM retrieval_cache WHERE expires_at <= ?", (time.time(),))

    # ------------------------------------------------------------ claims and drift

    def list_claims(self, tenant_id: str, limit: int = 50) -> list[ClaimRecord]:
        rows = self._query(
            "SELECT claim_id, text, run_count, first_seen, last_seen FROM claims WHERE tenant_id = ?"
            " AND run_count > 0 ORDER BY last_seen DESC LIMIT ?",
            (tenant_id, limit),
        )
        return [
            ClaimRecord(
                claim_id=r[0],
                text=r[1],
                run_count=r[2],
                first_seen=datetime.fromisoformat(r[3]),
                last_seen=datetime.fromisoformat(r[4]),
            )
            for r in rows
        ]

    def drift_series(self, tenant_id: str, claim_id: str) -> list[DriftPoint]:
        rows = self._query(
            "SELECT body FROM drift_points WHERE tenant_id = ? AND claim_id = ? ORDER BY at",
            (tenant_id, claim_id),
        )
        return [DriftPoint.model_validate_json(r[0]) for r in rows]

    # ------------------------------------------------------------ API keys

    def put_api_key(self, record: ApiKeyRecord) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO api_keys (key_id, body) VALUES (?,?)", (record.key_id, record.model_dump_json())
            )

    def get_api_key(self, key_id: str) -> ApiKeyRecord:
        rows = self._query("SELECT body FROM api_keys WHERE key_id = ?", (key_id,))
        if not rows:
            raise NotFoundError(f"no API key {key_id}")
        return ApiKeyRecord.model_validate_json(rows[0][0])

    def revoke_api_key(self, key_id: str) -> bool:
        with self._tx() as db:
            try:
                record = self.get_api_key(key_id)
            except NotFoundError:
                return False
            if record.revoked_at is not None:
                return False
            revoked = record.model_copy(update={"revoked_at": utcnow()})
            db.execute("UPDATE api_keys SET body = ? WHERE key_id = ?", (revoked.model_dump_json(), key_id))
            return True

    def list_api_keys(self) -> list[ApiKeyRecord]:
        keys = [ApiKeyRecord.model_validate_json(r[0]) for r in self._query("SELECT body FROM api_keys")]
        return sorted(keys, key=lambda k: (k.tenant_id, k.created_at, k.key_id))

    # ------------------------------------------------------------ the cost guard

    def admit(self, lease: Lease, *, max_active: int, hourly_limit: int) -> None:
        # BEGIN IMMEDIATE takes the write lock first, so count-then-insert is atomic across processes.
        window = hour_window(lease.since)
        with self._tx() as db:
            if db.execute("SELECT 1 FROM leases WHERE run_id = ?", (lease.run_id,)).fetchone():
                return  # this run holds its lease already: a retried admission
            if db.execute("SELECT COUNT(*) FROM leases").fetchone()[0] >= max_active:
                raise over_concurrency(max_active)
            used = db.execute(
                "SELECT n FROM hourly_admissions WHERE tenant_id = ? AND window = ?",
                (lease.tenant_id, window),
            ).fetchone()
            if used is not None and used[0] >= hourly_limit:
                raise over_hourly(hourly_limit, lease.since)
            db.execute(
                "INSERT INTO leases (run_id, body) VALUES (?,?)", (lease.run_id, lease.model_dump_json())
            )
            db.execute(
                "INSERT INTO hourly_admissions (tenant_id, window, n) VALUES (?,?,1)"
                " ON CONFLICT (tenant_id, window) DO UPDATE SET n = n + 1",
                (lease.tenant_id, window),
            )
            db.execute("DELETE FROM hourly_admissions WHERE window < ?", (hour_window(lease.since)[:8],))

    def release(self, run_id: str) -> bool:
        with self._tx() as db:
            return db.execute("DELETE FROM leases WHERE run_id = ?", (run_id,)).rowcount == 1

    def leases(self) -> list[Lease]:
        leases = [Lease.model_validate_json(r[0]) for r in self._query("SELECT body FROM leases")]
        return sorted(leases, key=lambda lease: (lease.since, lease.run_id))

    # ------------------------------------------------------------ monitors

    def put_monitor(self, monitor: Monitor) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO monitors (monitor_id, tenant_id, claim_id, next_due, listing, body)"
                " VALUES (?,?,?,?,?,?)",
                (
                    monitor.monitor_id,
                    monitor.tenant_id,
                    monitor.claim_id,
                    sortable(monitor.next_due),
                    monitor_listing_key(monitor),
                    monitor.model_dump_json(),
                ),
            )

    def get_monitor(self, monitor_id: str) -> Monitor:
        rows = self._query("SELECT body FROM monitors WHERE monitor_id = ?", (monitor_id,))
        if not rows:
            raise NotFoundError(f"no monitor {monitor_id}")
        return Monitor.model_validate_json(rows[0][0])

    def list_monitors(self, tenant_id: str) -> list[Monitor]:
        rows = self._query("SELECT body FROM monitors WHERE tenant_id = ? ORDER BY listing", (tenant_id,))
        return [Monitor.model_validate_json(r[0]) for r in rows]

    def monitors_of_claim(self, tenant_id: str, claim_id: str) -> list[Monitor]:
        return [m for m in self.list_monitors(tenant_id) if m.claim_id == claim_id]

    def delete_monitor(self, monitor_id: str) -> bool:
        with self._tx() as db:
            return db.execute("DELETE FROM monitors WHERE monitor_id = ?", (monitor_id,)).rowcount == 1

    def due_monitors(self, now: datetime, limit: int) -> list[Monitor]:
        rows = self._query(
            "SELECT body FROM monitors WHERE next_due <= ? ORDER BY next_due, monitor_id LIMIT ?",
            (sortable(now), limit),
        )
        return [Monitor.model_validate_json(r[0]) for r in rows]

    def advance_monitor(self, monitor_id: str, due: datetime, next_due: datetime, run_id: str | None) -> bool:
        with self._tx() as db:
            row = db.execute(
                "SELECT body FROM monitors WHERE monitor_id = ? AND next_due = ?", (monitor_id, sortable(due))
            ).fetchone()
            if row is None:
                return False
            monitor = Monitor.model_validate_json(row[0])
            moved = monitor.model_copy(
                update={"next_due": next_due, "last_run_id": run_id or monitor.last_run_id}
            )
            db.execute(
                "UPDATE monitors SET next_due = ?, body = ? WHERE monitor_id = ?",
                (sortable(next_due), moved.model_dump_json(), monitor_id),
            )
            return True

    # ------------------------------------------------------------ WebSocket connections

    def put_connection(self, record: ConnectionRecord) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO connections (connection_id, body, expires_at) VALUES (?,?,?)",
                (record.connection_id, record.model_dump_json(), sortable(record.expires_at)),
            )
            db.execute("DELETE FROM connections WHERE expires_at < ?", (sortable(utcnow()),))  # as TTL does
            db.execute("DELETE FROM subscriptions WHERE expires_at < ?", (sortable(utcnow()),))

    def get_connection(self, connection_id: str) -> ConnectionRecord:
        rows = self._query(
            "SELECT body FROM connections WHERE connection_id = ? AND expires_at >= ?",
            (connection_id, sortable(utcnow())),
        )
        if not rows:
            raise NotFoundError(f"no connection {connection_id}")
        return ConnectionRecord.model_validate_json(rows[0][0])

    def drop_connection(self, connection_id: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM connections WHERE connection_id = ?", (connection_id,))
            db.execute("DELETE FROM subscriptions WHERE connection_id = ?", (connection_id,))

    def subscribe(self, connection_id: str, run_id: str, expires_at: datetime) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO subscriptions (run_id, connection_id, expires_at) VALUES (?,?,?)"
                " ON CONFLICT (run_id, connection_id) DO UPDATE SET expires_at = excluded.expires_at",
                (run_id, connection_id, sortable(expires_at)),
            )

    def subscribers(self, run_id: str) -> list[str]:
        rows = self._query(
            "SELECT connection_id FROM subscriptions WHERE run_id = ? AND expires_at >= ? ORDER BY 1",
            (run_id, sortable(utcnow())),
        )
        return [r[0] for r in rows]

    def claim_delivery(self, connection_id: str, run_id: str, until: datetime, token: str) -> int | None:
        with self._tx() as db:
            claimed = db.execute(
                "UPDATE subscriptions SET claimed_until = ?, claimed_by = ?"
                " WHERE run_id = ? AND connection_id = ? AND (claimed_until IS NULL OR claimed_until < ?)",
                (sortable(until), token, run_id, connection_id, sortable(utcnow())),
            ).rowcount
            if not claimed:
                return None
            row = db.execute(
                "SELECT sent_seq FROM subscriptions WHERE run_id = ? AND connection_id = ?",
                (run_id, connection_id),
            ).fetchone()
            return int(row[0])

    def end_delivery(self, connection_id: str, run_id: str, sent_seq: int, token: str) -> bool:
        with self._tx() as db:
            return bool(
                db.execute(
                    "UPDATE subscriptions SET sent_seq = ?, claimed_until = NULL, claimed_by = NULL"
                    " WHERE run_id = ? AND connection_id = ? AND claimed_by = ?",
                    (sent_seq, run_id, connection_id, token),
                ).rowcount
            )

    def unsubscribe(self, connection_id: str, run_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "DELETE FROM subscriptions WHERE run_id = ? AND connection_id = ?", (run_id, connection_id)
            )
