"""The SQLite store at scale: a retrieval-cache write among many entries, and listing runs by source.

    python -m claimcourt.bench.store_scale [--entries 60000] [--runs 10000] [--every 1000]

1. `cache_put` into a cache of --entries live entries of about 2 KB each (what a retrieval caches):
   each write also deletes the expired entries, inside the write lock.
2. `list_runs` (a page of 20) over --runs runs of one tenant, all of them and those of a rare
   source tag (one run in --every is `drift`).
Medians of 50 calls.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from claimcourt.models import RunRecord, RunRequest, RunStatus, SourceTag
from claimcourt.store.base import claim_id_for
from claimcourt.store.sqlite import SqliteStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _median_ms(call: Callable[[int], object], n: int = 50) -> float:
    times = []
    for i in range(n):
        started = time.perf_counter()
        call(i)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, default=60_000)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1000, help="one run in this many is tagged drift")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="claimcourt-store-") as tmp:
        store = SqliteStore(Path(tmp) / "claimcourt.sqlite3")
        hits = "[" + "1," * 1000 + "1]"
        with store._tx() as db:  # filled directly: the figure is the write among them, not the filling
            now = time.time()
            db.executemany(
                "INSERT INTO retrieval_cache (key, hits, expires_at) VALUES (?,?,?)",
                [(f"k{n}", hits, now + 3600 + n) for n in range(args.entries)],
            )
        put = _median_ms(lambda i: store.cache_put(f"new{i}", [{"text": "a passage"}], 3600))
        print(f"cache_put among {args.entries:,} entries: median {put:.2f} ms")

        request = RunRequest.model_validate({"claim": "Sea levels are rising"})
        for n in range(args.runs):
            store.create_run(
                RunRecord(
                    run_id=f"run_{n:06d}",
                    claim_id=claim_id_for(request.claim),
                    status=RunStatus.RUNNING,
                    request=request,
                    created_at=T0 + timedelta(seconds=n),
                    tenant_id="local",
                    source_tag=SourceTag.DRIFT if n % args.every == 0 else SourceTag.APP,
                )
            )
        for source in (None, SourceTag.DRIFT):

            def page(_: int, tag: SourceTag | None = source) -> object:
                return store.list_runs("local", 20, source=tag)

            listed = _median_ms(page)
            which = "all" if source is None else f"source={source.value} (1 in {args.every})"
            print(f"list_runs, a page of 20 of {args.runs:,} runs, {which}: median {listed:.2f} ms")
        store.close()


if __name__ == "__main__":
    main()
