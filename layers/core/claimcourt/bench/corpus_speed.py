"""How fast the embedded corpus source is: index build time and per-query latency.

Run: PYTHONPATH=layers/core python -m claimcourt.bench.corpus_speed
Queries are the first 200 claims of the bundled CLIMATE-FEVER dev file; the recall line is a sanity check
(any of a claim's five annotated sentences among its top 10 hits), not a retrieval benchmark.
"""

from __future__ import annotations

import gzip
import json
import statistics
import time
from pathlib import Path
from typing import Any

from claimcourt.evidence.corpus import CorpusSource

CLAIMS_FILE = Path(__file__).parent / "data" / "climate_fever_claims_dev.jsonl.gz"
N_QUERIES = 200
LIMIT = 10


def _claims(n: int) -> list[dict[str, Any]]:
    with gzip.open(CLAIMS_FILE, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line, _ in zip(lines, range(n), strict=False)]


def _percentile(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(fraction * (len(sorted_values) - 1)))]


def main() -> None:
    started = time.perf_counter()
    import bm25s  # noqa: F401  (timed apart: the first search pays for it, the index build proper does not)
    import Stemmer  # noqa: F401

    import_ms = (time.perf_counter() - started) * 1000

    source = CorpusSource()
    started = time.perf_counter()
    source.warm()
    build_ms = (time.perf_counter() - started) * 1000

    claims = _claims(N_QUERIES)
    latencies: list[float] = []
    found = 0
    for claim in claims:
        started = time.perf_counter()
        hits = source.search(claim["claim"], limit=LIMIT)
        latencies.append((time.perf_counter() - started) * 1000)
        texts = {hit.text for hit in hits}
        found += any(evidence["evidence"] in texts for evidence in claim["evidences"])
    latencies.sort()

    print(f"bm25s + PyStemmer import: {import_ms:8.1f} ms")
    print(f"index build (read + tokenize + index): {build_ms:8.1f} ms")
    print(
        f"search, limit={LIMIT}, {len(latencies)} claim queries: p50 {_percentile(latencies, 0.50):.3f} ms"
        f"  p99 {_percentile(latencies, 0.99):.3f} ms  mean {statistics.fmean(latencies):.3f} ms"
        f"  max {latencies[-1]:.3f} ms"
    )
    print(f"gold sentence in top {LIMIT}: {found}/{len(claims)} claims")


if __name__ == "__main__":
    main()
