"""Powertools idempotency records in the embedded store.

In the cloud the stage handlers use Powertools' own DynamoDBPersistenceLayer. On the laptop this
layer keeps the same records in the SQLite file, with the same conditions: a record may be
(re)written only if it does not exist, has expired, or is an INPROGRESS record whose in-progress
expiry has passed (a handler that died mid-way).
"""

from __future__ import annotations

import time
from typing import Any

from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

from claimcourt.store.sqlite.database import SqliteDatabase

SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    id TEXT PRIMARY KEY, status TEXT NOT NULL, expiry INTEGER NOT NULL, in_progress_expiry INTEGER,
    data TEXT, validation TEXT
)
"""


class SqliteIdempotencyLayer(BasePersistenceLayer):
    def __init__(self, store: SqliteDatabase) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self._store = store
        with store._tx() as db:
            db.execute(SCHEMA)

    def _row_to_record(self, row: tuple[Any, ...]) -> DataRecord:
        return DataRecord(
            idempotency_key=row[0],
            status=row[1],
            expiry_timestamp=row[2],
            in_progress_expiry_timestamp=row[3],
            response_data=row[4] or "",
            payload_hash=row[5] or "",
        )

    def _get_record(self, idempotency_key: str) -> DataRecord:
        rows = self._store._query(
            "SELECT id, status, expiry, in_progress_expiry, data, validation FROM idempotency WHERE id=?",
            (idempotency_key,),
        )
        if not rows:
            raise IdempotencyItemNotFoundError
        return self._row_to_record(rows[0])

    def _put_record(self, data_record: DataRecord) -> None:
        now = time.time()
        with self._store._tx() as db:
            row = db.execute(
                "SELECT id, status, expiry, in_progress_expiry, data, validation FROM idempotency WHERE id=?",
                (data_record.idempotency_key,),
            ).fetchone()
            if row is not None:
                old = self._row_to_record(row)
                stale_in_progress = (
                    old.status == STATUS_CONSTANTS["INPROGRESS"]
                    and old.in_progress_expiry_timestamp is not None
                    and old.in_progress_expiry_timestamp < now * 1000
                )
                expired = old.expiry_timestamp is not None and old.expiry_timestamp < now
                if not expired and not stale_in_progress:
                    # As Powertools' DynamoDB layer does: the same key with another payload is an error.
                    self._validate_payload(data_payload=data_record, stored_data_record=old)
                    raise IdempotencyItemAlreadyExistsError(old_data_record=old)
            db.execute(
                "INSERT OR REPLACE INTO idempotency VALUES (?,?,?,?,?,?)",
                (
                    data_record.idempotency_key,
                    data_record.status,
                    data_record.expiry_timestamp,
                    data_record.in_progress_expiry_timestamp,
                    None,
                    data_record.payload_hash or None,
                ),
            )

    def _update_record(self, data_record: DataRecord) -> None:
        with self._store._tx() as db:
            db.execute(
                "UPDATE idempotency SET status=?, expiry=?, data=? WHERE id=?",
                (
                    data_record.status,
                    data_record.expiry_timestamp,
                    data_record.response_data,
                    data_record.idempotency_key,
                ),
            )

    def _delete_record(self, data_record: DataRecord) -> None:
        with self._store._tx() as db:
            db.execute("DELETE FROM idempotency WHERE id=?", (data_record.idempotency_key,))
