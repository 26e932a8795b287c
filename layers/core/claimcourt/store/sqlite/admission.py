"""The cost guard in SQLite: leases and per-tenant hourly counts, checked and taken in one
transaction."""

from __future__ import annotations

from claimcourt.models import Lease
from claimcourt.store.base import AdmissionStore, hour_window, over_concurrency, over_hourly
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteAdmission(SqliteDatabase, AdmissionStore):
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
