"""The calibration set: hand-anchored claims, each run N times through each system.

    python -m claimcourt.bench.calibration [--baselines] [--runs N] [--limit N | --sample N]
    claimcourt bench calibration --baselines

Data: bench/data/calibration.json (each claim with its anchor, 0–100, and the reason for it). Per system:
stability σ (each claim's sample standard deviation over its N runs; the mean over claims and the worst
claim), MAE of the claims' mean scores to their anchors, AUROC of the mean scores true (anchor above 50)
vs false, and directional accuracy (the mean score on the anchor's side of 50). Plot: the calibration
curve, mean score against anchor, with each claim's σ.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from claimcourt.bench.card import Options, Row, Section, Table, by_system, choose, cost_rows
from claimcourt.bench.harness import SYSTEM_NAMES, Job, Outcome
from claimcourt.bench.metrics import auroc, directional_accuracy, mae, stability

NAME = "calibration"
DATA = Path(__file__).parent / "data" / "calibration.json"


@dataclass(frozen=True)
class Anchored:
    id: str
    claim: str
    anchor: int
    reason: str


def load(path: Path = DATA) -> list[Anchored]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return [Anchored(c["id"], c["claim"], int(c["anchor"]), c["reason"]) for c in raw["claims"]]


def chosen(options: Options) -> list[Anchored]:
    return choose(load(), lambda c: "true" if c.anchor > 50 else "false", options)


def jobs(options: Options) -> list[Job]:
    return [
        Job(bench=NAME, item=c.id, system=system, repeat=repeat, claim=c.claim)
        for repeat in range(options.runs)
        for c in chosen(options)
        for system in options.systems
    ]


def evaluate(outcomes: Sequence[Outcome], options: Options) -> Section:
    claims = chosen(options)
    systems = list(options.systems)
    grouped = by_system(outcomes, systems)
    anchors = [c.anchor for c in claims]
    rows: dict[str, dict[str, float | None]] = {k: {} for k in ("mean", "worst", "mae", "auroc", "direction")}
    curve: dict[str, list[list[float]]] = {}
    worst_of: dict[str, str] = {}
    means: dict[str, list[float]] = {}
    spreads: dict[str, list[float | None]] = {}
    for system in systems:
        runs = {c.id: [float(o.value) for o in grouped[system] if o.item == c.id] for c in claims}
        means[system] = [statistics.fmean(runs[c.id]) for c in claims]
        spreads[system] = [statistics.stdev(runs[c.id]) if len(runs[c.id]) > 1 else None for c in claims]
        steady = stability(runs)
        rows["mean"][system] = steady.mean if steady else None
        rows["worst"][system] = steady.worst if steady else None
        if steady:
            worst_of[system] = steady.worst_claim
        rows["mae"][system] = mae(means[system], anchors)
        rows["auroc"][system] = auroc(means[system], [a > 50 for a in anchors])
        rows["direction"][system] = directional_accuracy(means[system], anchors)
        curve[system] = [
            [float(c.anchor), m, s or 0.0]
            for c, m, s in zip(claims, means[system], spreads[system], strict=True)
        ]
    per_claim = Table(
        "mean score per claim (σ over its runs)",
        ["claim", "anchor", *(SYSTEM_NAMES[s] for s in systems)],
        [
            [c.id, str(c.anchor)]
            + [
                f"{means[s][i]:.1f}" + ("" if spreads[s][i] is None else f" ({spreads[s][i]:.1f})")
                for s in systems
            ]
            for i, c in enumerate(claims)
        ],
    )
    true_n = sum(a > 50 for a in anchors)
    notes = [
        f"{len(claims)} claims ({true_n} anchored true, {len(claims) - true_n} false) × {options.runs} runs; "
        "a run with no answer counts as 50",
        "worst σ: " + (", ".join(f"{SYSTEM_NAMES[s]} {c}" for s, c in worst_of.items()) or "—"),
    ]
    if options.runs < 2:
        notes.append("σ needs at least 2 runs per claim (--runs)")
    return Section(
        bench=NAME,
        title=f"calibration: {len(claims)} hand-anchored claims × {options.runs} runs",
        systems=systems,
        rows=[
            Row("stability σ, mean (points)", rows["mean"], "{:.1f}"),
            Row("stability σ, worst claim (points)", rows["worst"], "{:.1f}"),
            Row("MAE to anchors (points)", rows["mae"], "{:.1f}"),
            Row("AUROC true vs false", rows["auroc"]),
            Row("directional accuracy", rows["direction"]),
            *cost_rows(outcomes, systems),
        ],
        notes=notes,
        tables=[per_claim],
        plots={"calibration_curve": curve},
    )


def main(argv: Sequence[str] | None = None) -> None:
    from claimcourt.bench.scorecard import main as scorecard

    scorecard([NAME, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
