"""Monitors in SQLite, indexed by when they are next due and by tenant and claim."""

from __future__ import annotations

from datetime import datetime

from claimcourt.errors import NotFoundError
from claimcourt.models import Monitor
from claimcourt.store.base import MonitorStore, monitor_listing_key, sortable
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteMonitors(SqliteDatabase, MonitorStore):
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
