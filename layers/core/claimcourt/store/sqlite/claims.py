"""Claims and their score series in SQLite (the runs capability counts runs in and out of them)."""

from __future__ import annotations

from datetime import datetime

from claimcourt.models import ClaimRecord, DriftPoint
from claimcourt.store.base import ClaimStore
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteClaims(SqliteDatabase, ClaimStore):
    def list_claims(self, tenant_id: str, limit: int = 50) -> list[ClaimRecord]:
        rows = self._query(
            "SELECT claim_id, text, run_count, first_seen, last_seen FROM claims WHERE tenant_id = ?"
            " AND run_count > 0 ORDER BY last_seen DESC LIMIT ?",
            (tenant_id, limit),
        )
        return [
            ClaimRecord(
                claim_id=r[0],
                text=r[1],
                run_count=r[2],
                first_seen=datetime.fromisoformat(r[3]),
                last_seen=datetime.fromisoformat(r[4]),
            )
            for r in rows
        ]

    def drift_series(self, tenant_id: str, claim_id: str) -> list[DriftPoint]:
        rows = self._query(
            "SELECT body FROM drift_points WHERE tenant_id = ? AND claim_id = ? ORDER BY at",
            (tenant_id, claim_id),
        )
        return [DriftPoint.model_validate_json(r[0]) for r in rows]
