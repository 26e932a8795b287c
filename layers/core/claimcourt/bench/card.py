"""What every bench of the scorecard shares: the options, choosing items, a section of the scorecard
(metric rows, one column per system), the cost rows, and printing it."""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from claimcourt.bench.harness import METER_MODEL, SYSTEM_NAMES, SYSTEMS, Job, Outcome


@dataclass(frozen=True)
class Options:
    """What a bench run was asked; kept in config.json, so a resume rebuilds the same jobs."""

    benches: tuple[str, ...]
    baselines: bool = False
    limit: int | None = None  # the first N items of each bench
    sample: int | None = None  # a seeded, label-stratified sample of N items of each bench
    seed: int = 0
    runs: int = 3  # runs per claim of the calibration set
    concurrency: int = 3
    effort: str = "standard"

    @property
    def systems(self) -> tuple[str, ...]:
        return SYSTEMS if self.baselines else ("debate",)

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"benches": list(self.benches)}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Options:
        return cls(**(raw | {"benches": tuple(raw["benches"])}))


T = TypeVar("T")


def choose(items: Sequence[T], label: Callable[[T], str], options: Options) -> list[T]:
    """`--sample N`: a seeded sample of N with each label's share kept (largest remainder), in data order;
    `--limit N`: the first N taking the labels in turn (after the sample, if both are given), in data
    order; else every item."""
    chosen = list(items)
    if options.sample is not None and options.sample < len(chosen):
        rng = random.Random(options.seed)
        groups: dict[str, list[int]] = {}
        for i, item in enumerate(chosen):
            groups.setdefault(label(item), []).append(i)
        exact = {g: options.sample * len(members) / len(chosen) for g, members in groups.items()}
        quota = {g: int(share) for g, share in exact.items()}
        order = sorted(groups, key=lambda g: (-(exact[g] - quota[g]), g))
        for g in order[: options.sample - sum(quota.values())]:
            quota[g] += 1
        picked = sorted(i for g, members in groups.items() for i in rng.sample(members, quota[g]))
        chosen = [chosen[i] for i in picked]
    if options.limit is not None and options.limit < len(chosen):
        chosen = interleaved(chosen, label)[: options.limit]
        chosen.sort(key=lambda item: items.index(item))
    return chosen


def interleaved(items: Sequence[T], label: Callable[[T], str]) -> list[T]:
    """The items taking the labels in turn (each label's items in data order, the labels in order of
    first appearance), so the first few of them already hold every label."""
    groups: dict[str, list[T]] = {}
    for item in items:
        groups.setdefault(label(item), []).append(item)
    longest = max((len(g) for g in groups.values()), default=0)
    return [g[i] for i in range(longest) for g in groups.values() if i < len(g)]


@dataclass(frozen=True)
class Row:
    label: str
    values: dict[str, float | None]  # by system
    fmt: str = "{:.3f}"

    def cell(self, system: str) -> str:
        value = self.values.get(system)
        return "—" if value is None else self.fmt.format(value)


@dataclass(frozen=True)
class Table:
    title: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    """One bench's part of the scorecard."""

    bench: str
    title: str
    systems: list[str]
    rows: list[Row]
    notes: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    plots: dict[str, Any] = field(default_factory=dict)  # what report.py draws

    def to_json(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "title": self.title,
            "systems": self.systems,
            "metrics": {row.label: row.values for row in self.rows},
            "notes": self.notes,
            "tables": [asdict(t) for t in self.tables],
            "plots": self.plots,
        }


def by_system(outcomes: Sequence[Outcome], systems: Sequence[str]) -> dict[str, list[Outcome]]:
    return {s: [o for o in outcomes if o.system == s] for s in systems}


# The dollars' two kinds: spent on a provider, and the offline reasoner's calls priced as a model's.
SPENT = "$ per item, spent"
METERED = f"$ per item, metered as if billed at {METER_MODEL} prices"


def cost_rows(outcomes: Sequence[Outcome], systems: Sequence[str]) -> list[Row]:
    """Calls, tokens, dollars and wall time per item (a claim once), and how many gave no answer. Dollars
    spent and dollars metered (the offline reasoner's, which cost nothing) are separate rows, the
    metered one only when something was metered."""
    grouped = by_system(outcomes, systems)

    def mean(system: str, read: Callable[[Outcome], float]) -> float | None:
        runs = grouped[system]
        return statistics.fmean(read(o) for o in runs) if runs else None

    return [
        Row("LLM calls per item", {s: mean(s, lambda o: o.calls) for s in systems}, "{:.1f}"),
        Row("tokens per item", {s: mean(s, lambda o: o.tokens) for s in systems}, "{:,.0f}"),
        Row(SPENT, {s: mean(s, lambda o: o.cost_usd) for s in systems}, "{:.4f}"),
        *(
            [Row(METERED, {s: mean(s, lambda o: o.metered_usd) for s in systems}, "{:.4f}")]
            if any(o.metered_usd for o in outcomes)
            else []
        ),
        Row("wall s per item", {s: mean(s, lambda o: o.wall_s) for s in systems}, "{:.2f}"),
        Row(
            "no answer (stopped, failed, refused)",
            {s: float(sum(not o.answered for o in grouped[s])) for s in systems},
            "{:.0f}",
        ),
    ]


def render(section: Section) -> str:
    """The section as the terminal prints it: metric rows, one column per system."""
    width = max(len(row.label) for row in section.rows) + 2
    columns = [SYSTEM_NAMES[s] for s in section.systems]
    col = max(18, *(len(c) + 2 for c in columns))
    lines = [f"== {section.title}", " " * width + "".join(f"{c:>{col}}" for c in columns)]
    for row in section.rows:
        lines.append(f"{row.label:<{width}}" + "".join(f"{row.cell(s):>{col}}" for s in section.systems))
    for table in section.tables:
        lines.append("")
        lines.append(table.title)
        widths = [
            max(len(str(r[i])) for r in [table.header, *table.rows]) + 2 for i in range(len(table.header))
        ]
        lines.append(
            "".join(
                f"{h:>{w}}" if i else f"{h:<{w}}"
                for i, (h, w) in enumerate(zip(table.header, widths, strict=True))
            )
        )
        for r in table.rows:
            lines.append(
                "".join(
                    f"{c:>{w}}" if i else f"{c:<{w}}" for i, (c, w) in enumerate(zip(r, widths, strict=True))
                )
            )
    lines += [f"  · {note}" for note in section.notes]
    return "\n".join(lines)


def jobs_for(bench: str, items: Sequence[tuple[str, str]], options: Options, **common: Any) -> list[Job]:
    """Each (item id, claim) through each system once."""
    return [
        Job(bench=bench, item=item, system=system, repeat=0, claim=claim, **common)
        for item, claim in items
        for system in options.systems
    ]
