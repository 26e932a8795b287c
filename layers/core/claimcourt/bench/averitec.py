"""AVeriTeC dev, stratified 100, golden evidence: every system argues from the claim's gold Q&A only.

    python -m claimcourt.bench.averitec [--baselines] [--limit N | --sample N]
    claimcourt bench averitec --baselines

Data: bench/data/averitec_dev_stratified_100.json.gz (Schlichtkrull et al. 2023, CC BY-NC 4.0; see its
README). The debate's retrieval searches only the claim's gold question/answer pairs (evidence.golden:
averitec_hits, served per run), naive RAG gets all of them in its one call, the single-LLM judge none.
Every system runs in verdict mode, four classes: Supported, Refuted, Not Enough Evidence, Conflicting
Evidence/Cherrypicking. Per system: accuracy and macro-F1 (4 classes) of the raw verdict; the spectral
remap (the score to a label: supported from 60, refuted to 40, the contract's bands; in between the run's
own verdict says conflicting or not enough) beside it; the remap with thresholds fitted by a stratified
5-fold cross-validation, each fold labelled by thresholds fitted on the other four (no leakage); Brier on
the Supported and Refuted claims; a per-class table; and the majority class for scale.
"""

from __future__ import annotations

import gzip
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcourt.bench.card import Options, Row, Section, Table, by_system, choose, cost_rows
from claimcourt.bench.harness import SYSTEM_NAMES, Job, Outcome
from claimcourt.bench.metrics import (
    RemapLabels,
    accuracy,
    brier,
    calibration_bins,
    confusion,
    cross_validated_remap,
    macro_f1,
    majority_label,
    per_class,
    spectral_label,
)
from claimcourt.contract import REFUTED_AT, SUPPORTED_AT
from claimcourt.evidence.base import Hit
from claimcourt.evidence.golden import averitec_hits

NAME = "averitec"
DATA = Path(__file__).parent / "data" / "averitec_dev_stratified_100.json.gz"
SUPPORTED, REFUTED = "Supported", "Refuted"
NOT_ENOUGH, CONFLICTING = "Not Enough Evidence", "Conflicting Evidence/Cherrypicking"
LABELS = (SUPPORTED, REFUTED, NOT_ENOUGH, CONFLICTING)
SHORT = {SUPPORTED: "S", REFUTED: "R", NOT_ENOUGH: "NEI", CONFLICTING: "C/CP"}
LABEL_FOR_VERDICT = {
    "supported": SUPPORTED,
    "refuted": REFUTED,
    "not-enough-evidence": NOT_ENOUGH,
    "conflicting": CONFLICTING,
}
REMAP = RemapLabels(SUPPORTED, REFUTED, NOT_ENOUGH, CONFLICTING)
FIXED = (REFUTED_AT, SUPPORTED_AT)  # the contract's bands
FOLDS = 5


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    gold: str
    hits: tuple[Hit, ...]


def load(path: Path = DATA) -> list[Claim]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        rows: list[dict[str, Any]] = json.load(f)
    return [
        Claim(f"dev{r['averitec_dev_index']}", r["claim"], r["label"], tuple(averitec_hits(r))) for r in rows
    ]


def chosen(options: Options) -> list[Claim]:
    return choose(load(), lambda c: c.gold, options)


def jobs(options: Options) -> list[Job]:
    return [
        Job(bench=NAME, item=c.id, system=system, repeat=0, claim=c.claim, mode="verdict", gold=c.hits)
        for c in chosen(options)
        for system in options.systems
    ]


def _scores(gold: Sequence[str], predicted: Sequence[str]) -> tuple[float, float]:
    return accuracy(gold, predicted), macro_f1(gold, predicted, LABELS)


def evaluate(outcomes: Sequence[Outcome], options: Options) -> Section:
    claims = chosen(options)
    systems = list(options.systems)
    gold = [c.gold for c in claims]
    grouped = by_system(outcomes, systems)
    values: dict[str, dict[str, float | None]] = {}
    tables, confusions, reliability, folds_note = [], {}, {}, []
    for system in systems:
        by_item = {o.item: o for o in grouped[system]}
        runs = [by_item[c.id] for c in claims]
        raw = [LABEL_FOR_VERDICT[o.label] for o in runs]
        scores = [float(o.value) for o in runs]
        fixed = [spectral_label(s, v, *FIXED, REMAP) for s, v in zip(scores, raw, strict=True)]
        got = values.setdefault(system, {})
        got["acc"], got["f1"] = _scores(gold, raw)
        got["acc_fixed"], got["f1_fixed"] = _scores(gold, fixed)
        if len(claims) >= FOLDS:
            cv = cross_validated_remap(scores, raw, gold, REMAP, k=FOLDS, seed=options.seed)
            got["acc_cv"], got["f1_cv"] = _scores(gold, cv.predicted)
            folds_note.append(
                f"{SYSTEM_NAMES[system]}: fold thresholds (refuted ≤, supported ≥) "
                + ", ".join(f"{lo}/{hi}" for lo, hi in cv.thresholds)
            )
        else:
            got["acc_cv"] = got["f1_cv"] = None
        decided = [
            (s, g == SUPPORTED) for s, g in zip(scores, gold, strict=True) if g in (SUPPORTED, REFUTED)
        ]
        got["brier"] = brier([s for s, _ in decided], [t for _, t in decided]) if decided else None
        classes = per_class(gold, raw, LABELS)
        tables.append(
            Table(
                f"{SYSTEM_NAMES[system]}, raw verdict, per class",
                ["class", "precision", "recall", "F1", "support"],
                [
                    [label, f"{c.precision:.3f}", f"{c.recall:.3f}", f"{c.f1:.3f}", str(c.support)]
                    for label, c in classes.items()
                ],
            )
        )
        confusions[system] = confusion(gold, raw, LABELS)
        if decided:
            reliability[system] = calibration_bins([s for s, _ in decided], [t for _, t in decided])
    majority = majority_label(gold, LABELS)
    m_acc, m_f1 = _scores(gold, [majority] * len(gold))
    counts = ", ".join(f"{SHORT[label]} {gold.count(label)}" for label in LABELS)

    def row(label: str, key: str, fmt: str = "{:.3f}") -> Row:
        return Row(label, {s: values[s][key] for s in systems}, fmt)

    return Section(
        bench=NAME,
        title=f"AVeriTeC dev stratified, golden evidence, verdict mode: {len(claims)} claims ({counts})",
        systems=systems,
        rows=[
            row("accuracy, raw verdict", "acc"),
            row("macro-F1 (4 classes), raw verdict", "f1"),
            row(f"accuracy, spectral remap {FIXED[0]}/{FIXED[1]}", "acc_fixed"),
            row(f"macro-F1, spectral remap {FIXED[0]}/{FIXED[1]}", "f1_fixed"),
            row(f"accuracy, remap {FOLDS}-fold CV thresholds", "acc_cv"),
            row(f"macro-F1, remap {FOLDS}-fold CV thresholds", "f1_cv"),
            row("Brier, Supported/Refuted claims", "brier"),
            *cost_rows(outcomes, systems),
        ],
        notes=[
            f"majority class ({majority}): accuracy {m_acc:.3f}, macro-F1 {m_f1:.3f}",
            "no answer counts as Not Enough Evidence with score 50",
            *folds_note,
        ],
        tables=tables,
        plots={
            "confusion": {"labels": [SHORT[label] for label in LABELS], "matrices": confusions},
            "reliability": reliability,
        },
    )


def main(argv: Sequence[str] | None = None) -> None:
    from claimcourt.bench.scorecard import main as scorecard

    scorecard([NAME, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
