"""Benchmarks in DynamoDB: BENCH#<id> items listed newest first by gsi1 (BENCHMARKS / <recorded_at>#<id>);
their PNG plots in the bucket under benchmarks/<id>/ (an item holds 400 KB, a scorecard's plots more)."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from claimcourt.benchmarks import BenchmarkRecord
from claimcourt.errors import NotFoundError
from claimcourt.store.base import BenchmarkStore, plots_of, sortable
from claimcourt.store.dynamodb.tables import GSI, DynamoTables, error_code, string

LISTING = "BENCHMARKS"


def _pk(benchmark_id: str) -> str:
    return f"BENCH#{benchmark_id}"


def _plot_key(benchmark_id: str, name: str) -> str:
    return f"benchmarks/{benchmark_id}/{name}"


class DynamoBenchmarks(DynamoTables, BenchmarkStore):
    def put_benchmark(self, record: BenchmarkRecord, plots: dict[str, bytes]) -> None:
        # The plots first: an item never names a plot that is not there yet.
        for name, data in plots_of(record, plots).items():
            self.s3.put_object(
                Bucket=self.bucket,
                Key=_plot_key(record.benchmark_id, name),
                Body=data,
                ContentType="image/png",
            )
        self._put(
            self.table,
            {
                "pk": string(_pk(record.benchmark_id)),
                "sk": string("BENCH"),
                "kind": string("benchmark"),
                "gsi1pk": string(LISTING),
                "gsi1sk": string(f"{sortable(record.recorded_at)}#{record.benchmark_id}"),
                **self._doc(f"benchmarks/{record.benchmark_id}", "record", record.model_dump_json()),
            },
        )

    def list_benchmarks(self, limit: int = 20) -> list[BenchmarkRecord]:
        listed = self._query(
            limit=limit,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": string(LISTING)},
            ScanIndexForward=False,
        )
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in listed]
        found = self._batch_get(keys)
        return [
            BenchmarkRecord.model_validate_json(self._body(found[k["pk"]["S"]]))
            for k in keys
            if k["pk"]["S"] in found
        ]

    def get_benchmark(self, benchmark_id: str) -> BenchmarkRecord:
        item = self._get(self.table, {"pk": string(_pk(benchmark_id)), "sk": string("BENCH")})
        if item is None:
            raise NotFoundError(f"no benchmark {benchmark_id}")
        return BenchmarkRecord.model_validate_json(self._body(item))

    def get_benchmark_plot(self, benchmark_id: str, name: str) -> bytes:
        if name not in self.get_benchmark(benchmark_id).plot_names:
            raise NotFoundError(f"benchmark {benchmark_id} has no plot {name}")
        try:
            obj: Any = self.s3.get_object(Bucket=self.bucket, Key=_plot_key(benchmark_id, name))
        except ClientError as err:
            if error_code(err) in ("NoSuchKey", "404"):
                raise NotFoundError(f"benchmark {benchmark_id} has no plot {name}") from None
            raise
        return bytes(obj["Body"].read())
