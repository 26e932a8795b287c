"""A scorecard recorded in the product's store (claimcourt/benchmarks.py), where `GET /benchmarks` and
the console's Benchmarks page read it: its metrics by system with each one's n, its costs, its notes
and tables, and its PNG plots (bench/report.py's files, read into the store)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from claimcourt.bench.card import Section
from claimcourt.bench.harness import Outcome
from claimcourt.benchmarks import (
    BenchmarkCost,
    BenchmarkRecord,
    BenchmarkSection,
    BenchmarkTable,
    BenchmarkValue,
)
from claimcourt.models import utcnow
from claimcourt.store.base import BenchmarkStore


def section_record(section: Section, outcomes: Sequence[Outcome], plots: Sequence[Path]) -> BenchmarkSection:
    n = {s: sum(o.system == s for o in outcomes) for s in section.systems}
    return BenchmarkSection(
        bench=section.bench,
        title=section.title,
        systems=section.systems,
        values=[
            BenchmarkValue(system=s, metric=row.label, value=row.values.get(s), n=n[s])
            for row in section.rows
            for s in section.systems
        ],
        costs=[
            BenchmarkCost(
                system=s,
                n=n[s],
                spent_usd=round(sum(o.cost_usd for o in outcomes if o.system == s), 6),
                metered_usd=round(sum(o.metered_usd for o in outcomes if o.system == s), 6),
            )
            for s in section.systems
        ],
        notes=section.notes,
        tables=[BenchmarkTable(**asdict(t)) for t in section.tables],
        plots=[p.name for p in plots],
    )


def record_scorecard(
    store: BenchmarkStore,
    *,
    bench_id: str,
    document: Mapping[str, Any],
    directory: Path,
    sections: Sequence[Section],
    outcomes: Mapping[str, Sequence[Outcome]],
    plots: Mapping[str, Sequence[Path]],
) -> BenchmarkRecord:
    """Store the scorecard (`document`, as scorecard.json holds it) with its plots, read from their files."""
    record = BenchmarkRecord(
        benchmark_id=f"b_{bench_id}",
        recorded_at=utcnow(),
        model=document["reasoner"],
        offline=document["offline"],
        options=dict(document["options"]),
        wall_s=document["wall_s"],
        directory=str(directory.resolve()),
        sections=[section_record(s, outcomes[s.bench], plots.get(s.bench, [])) for s in sections],
    )
    store.put_benchmark(record, {p.name: p.read_bytes() for paths in plots.values() for p in paths})
    return record
