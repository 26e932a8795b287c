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
            if lease.spends:  # a run that spends nothing is not counted against the hourly cap
                used = db.execute(
                    "SELECT n FROM hourly_admissions WHERE tenant_id = ? AND window = ?",
                    (lease.tenant_id, window),
                ).fetchone()
                if used is not None and used[0] >= hourly_limit:
                    raise over_hourly(hourly_limit, lease.since, lease.tenant_id)
            db.execute(
                "INSERT INTO leases (run_id, body) VALUES (?,?)", (lease.run_id, lease.model_dump_json())
            )
            if lease.spends:
                db.execute(
                    "INSERT INTO hourly_admissions (tenant_id, window, n) VALUES (?,?,1)"
                    " ON CONFLICT (tenant_id, window) DO UPDATE SET n = n + 1",
                    (lease.tenant_id, window),
                )
            db.execute("DELETE FROM hourly_admissions WHERE window < ?", (hour_window(lease.since)[:8],))

    def release(self, run_id: str, *, refund: bool = False) -> bool:
        with self._tx() as db:
            if not refund:
                return db.execute("DELETE FROM leases WHERE run_id = ?", (run_id,)).rowcount == 1
            # The lease says which tenant and hour its admission counted against; deleting it in the
            # same transaction is what makes the refund happen once.
            row = db.execute("DELETE FROM leases WHERE run_id = ? RETURNING body", (run_id,)).fetchone()
            if row is None:
                return False
            lease = Lease.model_validate_json(row[0])
            if not lease.spends:
                return True  # its admission counted nothing
            db.execute(
                "UPDATE hourly_admissions SET n = n - 1 WHERE tenant_id = ? AND window = ? AND n > 0",
                (lease.tenant_id, hour_window(lease.since)),
            )
            return True

    def leases(self) -> list[Lease]:
        leases = [Lease.model_validate_json(r[0]) for r in self._query("SELECT body FROM leases")]
        return sorted(leases, key=lambda lease: (lease.since, lease.run_id))
