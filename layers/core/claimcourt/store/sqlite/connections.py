"""WebSocket connections and subscriptions in SQLite. Expired rows are read past and purged on the
next connect, as DynamoDB's TTL deletes them lazily."""

from __future__ import annotations

from datetime import datetime

from claimcourt.errors import NotFoundError
from claimcourt.models import ConnectionRecord, utcnow
from claimcourt.store.base import ConnectionStore, sortable
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteConnections(SqliteDatabase, ConnectionStore):
    def put_connection(self, record: ConnectionRecord) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO connections (connection_id, body, expires_at) VALUES (?,?,?)",
                (record.connection_id, record.model_dump_json(), sortable(record.expires_at)),
            )
            db.execute("DELETE FROM connections WHERE expires_at < ?", (sortable(utcnow()),))  # as TTL does
            db.execute("DELETE FROM subscriptions WHERE expires_at < ?", (sortable(utcnow()),))

    def get_connection(self, connection_id: str) -> ConnectionRecord:
        rows = self._query(
            "SELECT body FROM connections WHERE connection_id = ? AND expires_at >= ?",
            (connection_id, sortable(utcnow())),
        )
        if not rows:
            raise NotFoundError(f"no connection {connection_id}")
        return ConnectionRecord.model_validate_json(rows[0][0])

    def drop_connection(self, connection_id: str) -> None:
        with self._tx() as db:
            db.execute("DELETE FROM connections WHERE connection_id = ?", (connection_id,))
            db.execute("DELETE FROM subscriptions WHERE connection_id = ?", (connection_id,))

    def subscribe(self, connection_id: str, run_id: str, expires_at: datetime) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO subscriptions (run_id, connection_id, expires_at) VALUES (?,?,?)"
                " ON CONFLICT (run_id, connection_id) DO UPDATE SET expires_at = excluded.expires_at",
                (run_id, connection_id, sortable(expires_at)),
            )

    def subscribers(self, run_id: str) -> list[str]:
        rows = self._query(
            "SELECT connection_id FROM subscriptions WHERE run_id = ? AND expires_at >= ? ORDER BY 1",
            (run_id, sortable(utcnow())),
        )
        return [r[0] for r in rows]

    def claim_delivery(self, connection_id: str, run_id: str, until: datetime, token: str) -> int | None:
        with self._tx() as db:
            claimed = db.execute(
                "UPDATE subscriptions SET claimed_until = ?, claimed_by = ?"
                " WHERE run_id = ? AND connection_id = ? AND (claimed_until IS NULL OR claimed_until < ?)",
                (sortable(until), token, run_id, connection_id, sortable(utcnow())),
            ).rowcount
            if not claimed:
                return None
            row = db.execute(
                "SELECT sent_seq FROM subscriptions WHERE run_id = ? AND connection_id = ?",
                (run_id, connection_id),
            ).fetchone()
            return int(row[0])

    def end_delivery(self, connection_id: str, run_id: str, sent_seq: int, token: str) -> bool:
        with self._tx() as db:
            return bool(
                db.execute(
                    "UPDATE subscriptions SET sent_seq = ?, claimed_until = NULL, claimed_by = NULL"
                    " WHERE run_id = ? AND connection_id = ? AND claimed_by = ?",
                    (sent_seq, run_id, connection_id, token),
                ).rowcount
            )

    def unsubscribe(self, connection_id: str, run_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "DELETE FROM subscriptions WHERE run_id = ? AND connection_id = ?", (run_id, connection_id)
            )
