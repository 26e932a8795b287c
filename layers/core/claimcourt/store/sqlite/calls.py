"""The usage ledger in SQLite: one row a billed call, its numbers in columns (a run's spend is a SUM)."""

from __future__ import annotations

from typing import Any

from claimcourt.models import CallRecord
from claimcourt.store.base import CallLedger
from claimcourt.store.sqlite.database import SqliteDatabase

# A call's columns in the order _call_record reads them.
CALL_COLUMNS = (
    "run_id, call_key, provider, model, input_tokens, output_tokens, cost_usd, price_known, output_json,"
    " refusal, attempts, cache_read_tokens, cache_write_tokens"
)


def _call_record(row: tuple[Any, ...]) -> CallRecord:
    return CallRecord(
        run_id=row[0],
        call_key=row[1],
        provider=row[2],
        model=row[3],
        input_tokens=row[4],
        output_tokens=row[5],
        cost_usd=row[6],
        price_known=bool(row[7]),
        output_json=row[8],
        refusal=row[9],
        attempts=row[10],
        cache_read_tokens=row[11],
        cache_write_tokens=row[12],
    )


class SqliteCalls(SqliteDatabase, CallLedger):
    def get_call(self, run_id: str, call_key: str) -> CallRecord | None:
        rows = self._query(
            f"SELECT {CALL_COLUMNS} FROM calls WHERE run_id=? AND call_key=?",
            (run_id, call_key),
        )
        return _call_record(rows[0]) if rows else None

    def put_call(self, record: CallRecord) -> None:
        self._write(
            "INSERT OR REPLACE INTO calls VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                record.run_id,
                record.call_key,
                record.provider,
                record.model,
                record.input_tokens,
                record.output_tokens,
                record.cost_usd,
                int(record.price_known),
                record.output_json,
                record.refusal,
                record.attempts,
                record.cache_read_tokens,
                record.cache_write_tokens,
            ),
        )

    def run_spend(self, run_id: str) -> float:
        return float(
            self._query("SELECT COALESCE(SUM(cost_usd), 0) FROM calls WHERE run_id=?", (run_id,))[0][0]
        )

    def run_calls(self, run_id: str) -> list[CallRecord]:
        rows = self._query(
            f"SELECT {CALL_COLUMNS} FROM calls WHERE run_id=? ORDER BY call_key",
            (run_id,),
        )
        return [_call_record(r) for r in rows]
