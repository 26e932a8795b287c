"""A run's progress events in SQLite: seq per run, and a unique key that makes an append idempotent."""

from __future__ import annotations

from claimcourt.models import RunEvent
from claimcourt.store.base import EventLog
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteEvents(SqliteDatabase, EventLog):
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
