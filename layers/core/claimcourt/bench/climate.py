"""CLIMATE-FEVER claims-dev on the scorecard: the bundled corpus as every system's evidence source.

    claimcourt bench climate-fever --baselines [--limit N | --sample N]
    python -m claimcourt.bench.scorecard climate-fever --baselines

The claims and their labels are claimcourt.bench.climate_fever's (its own command is the offline engine
against the majority class on both halves). Here: the held-out half only (odd line indexes: the offline
reasoner's rules were tuned on the other), each claim through each system, spectral mode. Per system:
accuracy, macro-F1 and balanced accuracy over the four labels, precision of SUPPORTS, and Brier on the
SUPPORTS and REFUTES claims.
"""

from __future__ import annotations

from collections.abc import Sequence

from claimcourt.bench.card import Options, Row, Section, by_system, choose, cost_rows
from claimcourt.bench.climate_fever import LABEL_FOR_VERDICT, LABELS, Claim, load_claims
from claimcourt.bench.harness import Job, Outcome
from claimcourt.bench.metrics import (
    accuracy,
    balanced_accuracy,
    brier,
    calibration_bins,
    confusion,
    macro_f1,
    majority_label,
    per_class,
)

NAME = "climate-fever"
SHORT = {"SUPPORTS": "SUP", "REFUTES": "REF", "NOT_ENOUGH_INFO": "NEI", "DISPUTED": "DIS"}


def chosen(options: Options) -> list[Claim]:
    return choose([c for c in load_claims() if c.half == "held-out"], lambda c: c.gold, options)


def jobs(options: Options) -> list[Job]:
    return [
        Job(bench=NAME, item=c.claim_id, system=system, repeat=0, claim=c.text)
        for c in chosen(options)
        for system in options.systems
    ]


def evaluate(outcomes: Sequence[Outcome], options: Options) -> Section:
    claims = chosen(options)
    systems = list(options.systems)
    gold = [c.gold for c in claims]
    grouped = by_system(outcomes, systems)
    values: dict[str, dict[str, float | None]] = {}
    confusions, reliability = {}, {}
    for system in systems:
        by_item = {o.item: o for o in grouped[system]}
        runs = [by_item[c.claim_id] for c in claims]
        predicted = [LABEL_FOR_VERDICT[o.label] for o in runs]
        decided = [
            (float(o.value), g == "SUPPORTS")
            for o, g in zip(runs, gold, strict=True)
            if g in ("SUPPORTS", "REFUTES")
        ]
        values[system] = {
            "acc": accuracy(gold, predicted),
            "f1": macro_f1(gold, predicted, LABELS),
            "bal": balanced_accuracy(gold, predicted, LABELS),
            "prec": per_class(gold, predicted, LABELS)["SUPPORTS"].precision,
            "brier": brier([s for s, _ in decided], [t for _, t in decided]) if decided else None,
        }
        confusions[system] = confusion(gold, predicted, LABELS)
        if decided:
            reliability[system] = calibration_bins([s for s, _ in decided], [t for _, t in decided])
    majority = majority_label(gold, LABELS)
    always = [majority] * len(gold)
    counts = ", ".join(f"{SHORT[label]} {gold.count(label)}" for label in LABELS)

    def row(label: str, key: str) -> Row:
        return Row(label, {s: values[s][key] for s in systems})

    return Section(
        bench=NAME,
        title=f"CLIMATE-FEVER claims-dev, held-out half, bundled corpus: {len(claims)} claims ({counts})",
        systems=systems,
        rows=[
            row("accuracy", "acc"),
            row("macro-F1 (4 labels)", "f1"),
            row("balanced accuracy", "bal"),
            row("precision of SUPPORTS", "prec"),
            row("Brier, SUPPORTS/REFUTES claims", "brier"),
            *cost_rows(outcomes, systems),
        ],
        notes=[
            f"majority class ({majority}): accuracy {accuracy(gold, always):.3f}, "
            f"macro-F1 {macro_f1(gold, always, LABELS):.3f}, balanced accuracy 0.250",
            "no answer counts as NOT_ENOUGH_INFO with score 50; the corpus holds every claim's annotated "
            "sentences, so retrieval here is a closed world",
        ],
        plots={
            "confusion": {"labels": [SHORT[label] for label in LABELS], "matrices": confusions},
            "reliability": reliability,
        },
    )
