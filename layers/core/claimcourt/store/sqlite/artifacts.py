"""A run's artifacts in SQLite: one JSON document a (run, key)."""

from __future__ import annotations

import json
from typing import Any

from claimcourt.errors import NotFoundError
from claimcourt.store.base import ArtifactStore
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteArtifacts(SqliteDatabase, ArtifactStore):
    def put_artifact(self, run_id: str, key: str, value: dict[str, Any]) -> None:
        self._write(
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
