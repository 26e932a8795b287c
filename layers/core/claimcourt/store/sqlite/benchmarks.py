"""Benchmarks in SQLite: the record as JSON, its plots as blobs in the same file (the bench run's
directory may be deleted or on another machine; what the console shows stays whole)."""

from __future__ import annotations

from claimcourt.benchmarks import BenchmarkRecord
from claimcourt.errors import NotFoundError
from claimcourt.store.base import BenchmarkStore, plots_of, sortable
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteBenchmarks(SqliteDatabase, BenchmarkStore):
    def put_benchmark(self, record: BenchmarkRecord, plots: dict[str, bytes]) -> None:
        checked = plots_of(record, plots)
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO benchmarks (benchmark_id, recorded_at, body) VALUES (?,?,?)",
                (record.benchmark_id, sortable(record.recorded_at), record.model_dump_json()),
            )
            db.execute("DELETE FROM benchmark_plots WHERE benchmark_id = ?", (record.benchmark_id,))
            db.executemany(
                "INSERT INTO benchmark_plots (benchmark_id, name, png) VALUES (?,?,?)",
                [(record.benchmark_id, name, data) for name, data in checked.items()],
            )

    def list_benchmarks(self, limit: int = 20) -> list[BenchmarkRecord]:
        rows = self._query(
            "SELECT body FROM benchmarks ORDER BY recorded_at DESC, benchmark_id DESC LIMIT ?", (limit,)
        )
        return [BenchmarkRecord.model_validate_json(r[0]) for r in rows]

    def get_benchmark(self, benchmark_id: str) -> BenchmarkRecord:
        rows = self._query("SELECT body FROM benchmarks WHERE benchmark_id = ?", (benchmark_id,))
        if not rows:
            raise NotFoundError(f"no benchmark {benchmark_id}")
        return BenchmarkRecord.model_validate_json(rows[0][0])

    def get_benchmark_plot(self, benchmark_id: str, name: str) -> bytes:
        rows = self._query(
            "SELECT png FROM benchmark_plots WHERE benchmark_id = ? AND name = ?", (benchmark_id, name)
        )
        if not rows:
            raise NotFoundError(f"benchmark {benchmark_id} has no plot {name}")
        return bytes(rows[0][0])
