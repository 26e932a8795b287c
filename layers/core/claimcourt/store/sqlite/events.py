"""A run's progress events in SQLite: seq per run, and a unique key that makes an append idempotent."""

from __future__ import annotations

from claimcourt.models import RunEvent
from claimcourt.store.base import EventLog
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteEvents(SqliteDatabase, EventLog):
    def append_event(self, event: RunEvent, key: str) -> RunEvent | None:
        # One statement: the next seq, the body with it, nothing if the key is there already.
        # (json_set keeps the rest of the body as written, numbers included.)
        rows = self._write(
            "INSERT INTO events (run_id, seq, key, body)"
            " SELECT ?1, next.seq, ?2, json_set(?3, '$.seq', next.seq)"
            " FROM (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM events WHERE run_id = ?1) AS next"
            " WHERE true ON CONFLICT (run_id, key) DO NOTHING RETURNING seq",
            (event.run_id, key, event.model_dump_json()),
        )
        return event.model_copy(update={"seq": rows[0][0]}) if rows else None

    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]:
        rows = self._query(
            "SELECT body FROM events WHERE run_id=? AND seq>? ORDER BY seq", (run_id, after_seq)
        )
        return [RunEvent.model_validate_json(r[0]) for r in rows]
