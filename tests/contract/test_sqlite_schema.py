"""The SQLite file's schema version: what an older file meets when a newer claimcourt opens it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from claimcourt.errors import ConfigurationError
from claimcourt.store.sqlite import SCHEMA_VERSION, SqliteStore
from tests.contract.test_store_contract import _record


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
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5


def test_a_file_from_before_tenants_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "claimcourt.sqlite3"
    with sqlite3.connect(path) as db:  # version 1: unversioned, runs without a tenant
        db.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, record TEXT NOT NULL)")
    before = path.read_bytes()
    with pytest.raises(ConfigurationError, match="schema v1"):
        SqliteStore(path)
    assert path.read_bytes() == before
