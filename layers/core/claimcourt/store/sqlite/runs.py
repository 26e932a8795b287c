"""Runs in SQLite: the record as JSON beside the columns that list it. A run's claim counts it in the
same transaction, and its drift point comes and goes with it."""

from __future__ import annotations

import sqlite3
from typing import Any, Unpack

from claimcourt.errors import NotFoundError
from claimcourt.models import Result, RunPage, RunRecord, RunStatus, SourceTag, utcnow
from claimcourt.store.base import (
    RunStore,
    StatusChange,
    decode_cursor,
    finished,
    listing_key,
    page_of,
    run_exists,
    with_status,
)
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteRuns(SqliteDatabase, RunStore):
    def create_run(self, record: RunRecord) -> None:
        now = record.created_at.isoformat()
        with self._tx() as db:
            if db.execute("SELECT 1 FROM runs WHERE run_id = ?", (record.run_id,)).fetchone():
                raise run_exists(record.run_id)
            db.execute(
                "INSERT INTO runs (run_id, tenant_id, claim_id, status, mode, source_tag, created_at,"
                " as_of_date, listing_key, record) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    record.run_id,
                    record.tenant_id,
                    record.claim_id,
                    record.status.value,
                    record.request.mode,
                    record.source_tag.value,
                    now,
                    record.request.as_of_date.isoformat() if record.request.as_of_date else None,
                    listing_key(record),
                    record.model_dump_json(),
                ),
            )
            db.execute(
                "INSERT INTO claims (tenant_id, claim_id, text, run_count, first_seen, last_seen)"
                " VALUES (?,?,?,1,?,?) ON CONFLICT (tenant_id, claim_id) DO UPDATE SET"
                " run_count = run_count + 1, last_seen = excluded.last_seen",
                (record.tenant_id, record.claim_id, record.request.claim, now, now),
            )

    def get_run(self, run_id: str) -> RunRecord:
        rows = self._query("SELECT record FROM runs WHERE run_id = ?", (run_id,))
        if not rows:
            raise NotFoundError(f"no run {run_id}")
        return RunRecord.model_validate_json(rows[0][0])

    def list_runs(
        self, tenant_id: str, limit: int = 20, *, cursor: str | None = None, source: SourceTag | None = None
    ) -> RunPage:
        sql = "SELECT record FROM runs WHERE tenant_id = ? AND deleted_at IS NULL"
        args: list[Any] = [tenant_id]
        if cursor is not None:
            sql += " AND listing_key < ?"
            args.append(decode_cursor(cursor))
        if source is not None:
            sql += " AND source_tag = ?"
            args.append(source.value)
        rows = self._query(sql + " ORDER BY listing_key DESC LIMIT ?", (*args, limit + 1))
        runs = [RunRecord.model_validate_json(r[0]) for r in rows]
        return page_of(runs[:limit], limit, more=len(runs) > limit)

    def delete_run(self, run_id: str) -> bool:
        with self._tx() as db:
            record = self.get_run(run_id)
            if record.deleted_at is not None:
                return False
            self._save(db, record.model_copy(update={"deleted_at": utcnow()}))
            claim = (record.tenant_id, record.claim_id)
            db.execute(
                "UPDATE claims SET run_count = run_count - 1 WHERE tenant_id = ? AND claim_id = ?", claim
            )
            db.execute(
                "DELETE FROM drift_points WHERE tenant_id = ? AND claim_id = ? AND run_id = ?",
                (*claim, run_id),
            )
            return True

    def _save(self, db: sqlite3.Connection, record: RunRecord) -> None:
        db.execute(
            "UPDATE runs SET status=?, finished_at=?, score=?, cost_usd=?, tokens=?, deleted_at=?, record=?"
            " WHERE run_id=?",
            (
                record.status.value,
                record.finished_at.isoformat() if record.finished_at else None,
                record.score,
                record.cost_usd,
                record.tokens,
                record.deleted_at.isoformat() if record.deleted_at else None,
                record.model_dump_json(),
                record.run_id,
            ),
        )

    def set_status(self, run_id: str, status: RunStatus, **fields: Unpack[StatusChange]) -> bool:
        with self._tx() as db:
            record = self.get_run(run_id)
            if record.status.terminal:
                return False
            changed = with_status(record, status, **fields)
            self._save(db, changed)
            return True

    def finish_run(self, run_id: str, result: Result) -> bool:
        with self._tx() as db:
            record = self.get_run(run_id)
            if record.status.terminal:
                return False  # terminal is final: a late result never overwrites a failed run
            done, point = finished(record, result)
            self._save(db, done)
            if point is None:  # deleted while it ran: not a point of its claim's series
                return True
            db.execute(
                "INSERT OR REPLACE INTO drift_points (tenant_id, claim_id, run_id, at, body)"
                " VALUES (?,?,?,?,?)",
                (point.tenant_id, point.claim_id, run_id, point.at.isoformat(), point.model_dump_json()),
            )
            return True
