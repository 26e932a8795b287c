"""What every SQLite capability shares: the file, its schema, one writer behind a lock, idle readers.

Writes go through one connection behind a lock: stage tasks write from several threads at once
(Map and Parallel states), and SQLite serializes writers anyway. Reads go through a connection of
their own thread, without the lock: WAL lets readers run beside the writer, each seeing the last
committed state, so a run's reads (its stages, the API's GETs, the progress feed) never queue
behind another run's writes.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from claimcourt.errors import ConfigurationError

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
CREATE TABLE IF NOT EXISTS saved_settings (name TEXT PRIMARY KEY, body TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS benchmarks (
    benchmark_id TEXT PRIMARY KEY, recorded_at TEXT NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS benchmarks_listed ON benchmarks (recorded_at);
CREATE TABLE IF NOT EXISTS benchmark_plots (
    benchmark_id TEXT NOT NULL, name TEXT NOT NULL, png BLOB NOT NULL, PRIMARY KEY (benchmark_id, name)
);
"""
# PRAGMA user_version. 1 was the single-tenant schema before API keys; 2 had no WebSocket tables,
# 3 no monitors, 4 no prompt-cache tokens on calls, 5 no indexes on the cache's expiry and the runs'
# source tag: each later version only adds tables, indexes or columns with defaults, so 2 to 5 are
# upgraded in place. (Version 6 gained saved_settings and the benchmark tables by CREATE IF NOT EXISTS:
# new tables only, which an older claimcourt opening the file leaves alone, so the version did not move.)
SCHEMA_VERSION = 6
UPGRADES_IN_PLACE = (2, 3, 4, 5)
# Columns added since a table was first made: (table, column, its definition).
ADDED_COLUMNS = (
    ("calls", "cache_read_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("calls", "cache_write_tokens", "INTEGER NOT NULL DEFAULT 0"),
)


CHECKPOINT_EVERY = 100  # commits (about one run's): each adds a page or two to the WAL
FALLBACK_CHECKPOINT_PAGES = 20_000  # about 80 MB of WAL


class SqliteDatabase:
    """One file of every capability's tables (one schema, one version), opened once per store."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
        self._readers: queue.SimpleQueue[sqlite3.Connection] = queue.SimpleQueue()  # idle ones
        self._refuse_other_versions(path)  # before anything is written, WAL mode included
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        # Checkpoints (the WAL copied into the file, then fsync: 5-10 ms) run on a thread of their own
        # every CHECKPOINT_EVERY commits, not inside whichever commit crosses SQLite's threshold (a
        # stage's, on its run's critical path). SQLite's own stays, far out, in case they fall behind.
        self._db.execute(f"PRAGMA wal_autocheckpoint={FALLBACK_CHECKPOINT_PAGES}")
        self._commits = 0
        self._checkpointing = threading.Lock()
        self.checkpoints = 0  # done aside, for the tests
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
        """A write transaction on the one writer. BEGIN IMMEDIATE takes SQLite's write lock at once,
        so what a transaction reads stays true until it commits, across processes too."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            self._committed()

    def _write(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """One statement on the one writer, atomic on its own (SQLite commits it as it ends): no
        BEGIN and COMMIT round trips. Its rows, for a RETURNING clause."""
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
            self._committed()
            return rows

    def _committed(self) -> None:
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0:
            self._checkpoint_aside()

    def _checkpoint_aside(self) -> None:
        """A passive checkpoint on a thread and connection of its own (writers go on meanwhile); none
        if one is still going. One that fails (the file gone, say) leaves it to the next, or to
        SQLite's own."""
        if not self._checkpointing.acquire(blocking=False):
            return

        def checkpoint() -> None:
            try:
                existing = f"{self.path.resolve().as_uri()}?mode=rw"  # never a new, empty file
                db = sqlite3.connect(existing, uri=True, isolation_level=None, timeout=30)
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    self.checkpoints += 1
                finally:
                    db.close()
            except sqlite3.Error:
                pass
            finally:
                self._checkpointing.release()

        threading.Thread(target=checkpoint, name="claimcourt-checkpoint", daemon=True).start()

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
