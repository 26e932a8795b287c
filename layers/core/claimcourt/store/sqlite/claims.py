"""Claims and their score series in SQLite (the runs capability counts runs in and out of them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from claimcourt.errors import NotFoundError
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
        return [_claim(r) for r in rows]

    def get_claim(self, tenant_id: str, claim_id: str) -> ClaimRecord:
        rows = self._query(
            "SELECT claim_id, text, run_count, first_seen, last_seen FROM claims WHERE tenant_id = ?"
            " AND claim_id = ? AND run_count > 0",
            (tenant_id, claim_id),
        )
        if not rows:
            raise NotFoundError(f"no claim {claim_id}")
        return _claim(rows[0])

    def drift_series(self, tenant_id: str, claim_id: str) -> list[DriftPoint]:
        rows = self._query(
            "SELECT body FROM drift_points WHERE tenant_id = ? AND claim_id = ? ORDER BY at",
            (tenant_id, claim_id),
        )
        return [DriftPoint.model_validate_json(r[0]) for r in rows]


def _claim(row: Any) -> ClaimRecord:
    return ClaimRecord(
        claim_id=row[0],
        text=row[1],
        run_count=row[2],
        first_seen=datetime.fromisoformat(row[3]),
        last_seen=datetime.fromisoformat(row[4]),
    )
