"""The SQLite file's schema version: what an older file meets when a newer claimcourt opens it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from claimcourt.errors import ConfigurationError
from claimcourt.models import SourceTag
from claimcourt.store.sqlite import SCHEMA_VERSION, SqliteStore
from tests.contract.test_store_contract import T0, _record


def test_a_v2_file_gains_the_newer_tables_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "claimcourt.sqlite3"
    store = SqliteStore(path)
    store.create_run(_record("run_1"))
    store.close()
    with sqlite3.connect(path) as db:  # as version 2 left it: no WebSocket or monitor tables
        db.execute("DROP TABLE monitors")
        db.execute("DROP TABLE subscriptions")
        db.execute("DROP TABLE connections")
        db.execute("PRAGMA user_version = 2")
    reopened = SqliteStore(path)
    assert reopened.get_run("run_1").run_id == "run_1"
    assert reopened.subscribers("run_1") == [] and reopened.list_monitors("acme") == []
    reopened.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_v4_file_gains_the_prompt_cache_columns_and_keeps_its_calls(tmp_path: Path) -> None:
    path = tmp_path / "claimcourt.sqlite3"
    with sqlite3.connect(path) as db:  # the calls table as version 4 made it
        db.execute(
            "CREATE TABLE calls (run_id TEXT NOT NULL, call_key TEXT NOT NULL, provider TEXT NOT NULL, "
            "model TEXT NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, "
            "cost_usd REAL NOT NULL, price_known INTEGER NOT NULL, output_json TEXT, refusal TEXT, "
            "attempts INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (run_id, call_key))"
        )
        db.execute(
            "INSERT INTO calls VALUES ('run_1', 'k', 'openai', 'gpt-4.1', 10, 5, 0.1, 1, NULL, NULL, 1)"
        )
        db.execute("PRAGMA user_version = 4")
    store = SqliteStore(path)
    [old] = store.run_calls("run_1")
    assert (old.cost_usd, old.cache_read_tokens, old.cache_write_tokens) == (0.1, 0, 0)
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 6


def test_a_file_from_before_tenants_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "claimcourt.sqlite3"
    with sqlite3.connect(path) as db:  # version 1: unversioned, runs without a tenant
        db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, record TEXT NOT NULL)")
    before = path.read_bytes()
    with pytest.raises(ConfigurationError, match="schema v1"):
        SqliteStore(path)
    assert path.read_bytes() == before


def test_a_v5_file_gains_the_expiry_and_source_indexes_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "claimcourt.sqlite3"
    store = SqliteStore(path)
    store.create_run(_record("run_1", source=SourceTag.DRIFT))
    store.close()
    with sqlite3.connect(path) as db:  # as version 5 left it
        db.execute("DROP INDEX runs_by_source")
        db.execute("DROP INDEX retrieval_cache_expiry")
        db.execute("PRAGMA user_version = 5")
    reopened = SqliteStore(path)
    assert [r.run_id for r in reopened.list_runs("local", source=SourceTag.DRIFT).runs] == ["run_1"]
    reopened.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        indexes = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"runs_by_source", "retrieval_cache_expiry"} <= indexes


def _plan(db: sqlite3.Connection, statement: str) -> str:
    return "; ".join(row[3] for row in db.execute("EXPLAIN QUERY PLAN " + statement))


def test_listing_runs_by_source_and_purging_the_cache_search_an_index_and_scan_nothing(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    for n in range(40):
        source = SourceTag.DRIFT if n % 10 == 0 else SourceTag.APP
        store.create_run(_record(f"run_{n:02d}", created=T0 + timedelta(minutes=n), source=source))
    for n in range(40):
        store.cache_put(f"key_{n}", [{"n": n}], ttl_s=-1 if n % 2 else 3600)  # half of them expired
    statements: list[str] = []
    reader = sqlite3.connect(store.path, check_same_thread=False, isolation_level=None)
    reader.set_trace_callback(statements.append)  # the SQL as run, its parameters filled in
    store._readers.put(reader)  # the next read uses it
    store._db.set_trace_callback(statements.append)

    page = store.list_runs("local", 2, source=SourceTag.DRIFT)
    page = store.list_runs("local", 2, source=SourceTag.DRIFT, cursor=page.next_cursor)
    store.cache_put("key_new", [], ttl_s=3600)
    assert [r.run_id for r in page.runs] == ["run_10", "run_00"]
    assert store.cache_get("key_1") is None and store.cache_get("key_0") == [{"n": 0}]

    listing = [s for s in statements if s.startswith("SELECT record FROM runs")]
    purge = [s for s in statements if s.startswith("DELETE FROM retrieval_cache")]
    assert len(listing) == 2 and len(purge) == 1
    plans = [_plan(store._db, s) for s in [*listing, *purge]]
    assert all("USING INDEX runs_by_source" in plan for plan in plans[:2]), plans
    assert "USING INDEX retrieval_cache_expiry" in plans[2], plans
    assert not any("SCAN" in plan for plan in plans), plans
    store.close()


def _wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_the_wal_is_checkpointed_aside_every_so_many_commits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claimcourt.store.sqlite import database

    monkeypatch.setattr(database, "CHECKPOINT_EVERY", 3)
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    # SQLite's own checkpoint is only a far fallback on the writer
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == database.FALLBACK_CHECKPOINT_PAGES
    for n in range(6):  # the schema's transaction, then six runs: a checkpoint at the 3rd, 6th commits
        store.create_run(_record(f"run_{n}"))
    _wait_for(lambda: store.checkpoints >= 1 and not store._checkpointing.locked())
    # A checkpoint that cannot open the file (gone) ends quietly: the next one, or SQLite's, will do
    (tmp_path / "claimcourt.sqlite3").rename(tmp_path / "moved.sqlite3")
    before = store.checkpoints
    store._checkpoint_aside()
    _wait_for(lambda: not store._checkpointing.locked())
    assert store.checkpoints == before
    store.close()
