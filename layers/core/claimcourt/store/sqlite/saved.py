"""The console's saved settings and encrypted provider keys in SQLite: one JSON body per name."""

from __future__ import annotations

import json
from typing import Any

from claimcourt.store.base import SavedSettingsStore
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteSaved(SqliteDatabase, SavedSettingsStore):
    def get_saved(self, name: str) -> dict[str, Any] | None:
        rows = self._query("SELECT body FROM saved_settings WHERE name = ?", (name,))
        return dict(json.loads(rows[0][0])) if rows else None

    def put_saved(self, name: str, value: dict[str, Any]) -> None:
        self._write(
            "INSERT INTO saved_settings (name, body) VALUES (?, ?) "
            "ON CONFLICT (name) DO UPDATE SET body = excluded.body",
            (name, json.dumps(value, separators=(",", ":"))),
        )
