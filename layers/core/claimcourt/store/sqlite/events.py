"""A run's progress events in SQLite: seq per run, and a unique key that makes an append idempotent."""

from __future__ import annotations

from claimcourt.models import RunEvent
from claimcourt.store.base import EventLog
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteEvents(SqliteDatabase, EventLog):
    def append_event(self, event: RunEvent, key: str) -> RunEvent | None:
        with self._tx() as db:
            appended, seq = db.execute(
                "SELECT EXISTS (SELECT 1 FROM events WHERE run_id=? AND key=?),"
                " COALESCE((SELECT MAX(seq) FROM events WHERE run_id=?), 0) + 1",
                (event.run_id, key, event.run_id),
            ).fetchone()
            if appended:
                return None
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
