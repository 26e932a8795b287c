"""The benchmarks' metrics: pure Python, no sklearn, each pinned against hand-computed values
(tests/unit/test_bench_metrics.py).

Classification conventions follow scikit-learn's defaults so figures are comparable: a class never
predicted has precision 0 (not undefined), macro-F1 averages F1 over every label given (an absent class
counts 0), and balanced accuracy averages recall over the labels that occur in the gold set. Scores are
the scoring contract's probabilities, 0–100: stability σ, MAE to anchors, AUROC (ties count half),
directional accuracy, Brier; and the spectral remap (a score to a label by thresholds) with a
cross-validation of its thresholds in which no item's label helps choose its own thresholds.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClassScores:
    precision: float
    recall: float
    f1: float
    support: int  # gold items of this class


def _check(gold: Sequence[str], predicted: Sequence[str]) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
    if not gold:
        raise ValueError("no items to score")


def accuracy(gold: Sequence[str], predicted: Sequence[str]) -> float:
    _check(gold, predicted)
    return sum(g == p for g, p in zip(gold, predicted, strict=True)) / len(gold)


def confusion(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> list[list[int]]:
    """Rows are gold labels, columns predicted ones, both in `labels` order."""
    _check(gold, predicted)
    index = {label: i for i, label in enumerate(labels)}
    unknown = (set(gold) | set(predicted)) - set(index)
    if unknown:
        raise ValueError(f"labels outside {list(labels)}: {sorted(unknown)}")
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted, strict=True):
        matrix[index[g]][index[p]] += 1
    return matrix


def per_class(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> dict[str, ClassScores]:
    matrix = confusion(gold, predicted, labels)
    scores: dict[str, ClassScores] = {}
    for i, label in enumerate(labels):
        hits = matrix[i][i]
        support = sum(matrix[i])
        predicted_as = sum(row[i] for row in matrix)
        precision = hits / predicted_as if predicted_as else 0.0
        recall = hits / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores[label] = ClassScores(precision, recall, f1, support)
    return scores


def macro_f1(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    scores = per_class(gold, predicted, labels)
    return sum(s.f1 for s in scores.values()) / len(labels)


def balanced_accuracy(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> float:
    """Mean per-class recall over the labels present in the gold set (chance level: 1 / classes)."""
    present = [s for s in per_class(gold, predicted, labels).values() if s.support]
    return sum(s.recall for s in present) / len(present)


def majority_label(gold: Sequence[str], labels: Sequence[str]) -> str:
    """The most frequent gold label; ties go to the earlier one in `labels`."""
    return max(labels, key=lambda label: (gold.count(label), -labels.index(label)))


# ---------------------------------------------------------------- scores against anchors and truth
# A score is a probability 0–100 (docs/scoring.md); these take scores as given, never rounded again.


def stdev(values: Sequence[float]) -> float:
    """The sample standard deviation (n − 1): one claim's spread over repeated runs. ValueError under 2."""
    n = len(values)
    if n < 2:
        raise ValueError("a spread needs at least 2 runs")
    mean = sum(values) / n
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))


@dataclass(frozen=True)
class Stability:
    mean: float  # the claims' σ, averaged
    worst: float  # the largest σ of a claim
    worst_claim: str


def stability(runs: Mapping[str, Sequence[float]]) -> Stability | None:
    """Each claim's σ over its runs (claims with fewer than 2 runs are left out): mean and worst.
    None when no claim has 2 runs. The worst ties to the earlier claim in `runs` order."""
    spreads = {claim: stdev(scores) for claim, scores in runs.items() if len(scores) >= 2}
    if not spreads:
        return None
    worst_claim = max(spreads, key=lambda claim: spreads[claim])  # max keeps the first of equals
    return Stability(sum(spreads.values()) / len(spreads), spreads[worst_claim], worst_claim)


def mae(scores: Sequence[float], anchors: Sequence[float]) -> float:
    """Mean absolute error, in points, of the scores against their hand-set anchors."""
    _check_pairs(scores, anchors)
    return sum(abs(s - a) for s, a in zip(scores, anchors, strict=True)) / len(scores)


def auroc(scores: Sequence[float], truth: Sequence[bool]) -> float | None:
    """The chance that a true claim outscores a false one, ties counting half (Mann–Whitney U / n₊n₋).
    None when either class is absent: there is no pair to rank."""
    _check_pairs(scores, truth)
    positives = [s for s, t in zip(scores, truth, strict=True) if t]
    negatives = [s for s, t in zip(scores, truth, strict=True) if not t]
    if not positives or not negatives:
        return None
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def directional_accuracy(scores: Sequence[float], anchors: Sequence[float]) -> float | None:
    """Of the claims whose anchor leans (not 50), the share whose score leans the same way; a score of
    exactly 50 leans nowhere and counts as a miss. None when no anchor leans."""
    _check_pairs(scores, anchors)
    leaning = [(s, a) for s, a in zip(scores, anchors, strict=True) if a != 50]
    if not leaning:
        return None
    return sum((s - 50) * (a - 50) > 0 for s, a in leaning) / len(leaning)


def brier(scores: Sequence[float], outcomes: Sequence[bool]) -> float:
    """Mean squared error of score / 100 as the probability that the claim is true (0 is perfect,
    0.25 is always saying 50)."""
    _check_pairs(scores, outcomes)
    return sum((s / 100 - float(o)) ** 2 for s, o in zip(scores, outcomes, strict=True)) / len(scores)


def _check_pairs(left: Sequence[object], right: Sequence[object]) -> None:
    if len(left) != len(right):
        raise ValueError(f"{len(left)} scores but {len(right)} references")
    if not left:
        raise ValueError("no items to score")


# ---------------------------------------------------------------- the spectral remap and its thresholds


@dataclass(frozen=True)
class RemapLabels:
    """The four labels a score maps onto, in a data set's own names."""

    supported: str
    refuted: str
    not_enough: str
    conflicting: str


def spectral_label(score: float, verdict_label: str, low: float, high: float, labels: RemapLabels) -> str:
    """A label from the score alone at the edges: `high` and up supported, `low` and below refuted. In
    between the score says only "undecided", so the run's own verdict splits it: conflicting when it said
    so, otherwise not enough evidence."""
    if score >= high:
        return labels.supported
    if score <= low:
        return labels.refuted
    return labels.conflicting if verdict_label == labels.conflicting else labels.not_enough


# Candidate thresholds for a fitted remap: refuted at or below `low`, supported from `high`.
THRESHOLD_GRID: tuple[tuple[int, int], ...] = tuple(
    (low, high) for low in range(10, 51, 5) for high in range(50, 91, 5) if low < high
)


def fit_thresholds(
    scores: Sequence[float],
    verdict_labels: Sequence[str],
    gold: Sequence[str],
    labels: RemapLabels,
    grid: Sequence[tuple[int, int]] = THRESHOLD_GRID,
) -> tuple[int, int]:
    """The (low, high) of the grid with the best macro-F1 on these items, then the best accuracy, then
    the first in grid order: deterministic, and it sees nothing but the items it is given."""
    order = (labels.supported, labels.refuted, labels.not_enough, labels.conflicting)

    def quality(pair: tuple[int, int]) -> tuple[float, float]:
        predicted = [spectral_label(s, v, *pair, labels) for s, v in zip(scores, verdict_labels, strict=True)]
        return macro_f1(gold, predicted, order), accuracy(gold, predicted)

    best = grid[0]
    best_quality = quality(best)
    for pair in grid[1:]:
        q = quality(pair)
        if q > best_quality:
            best, best_quality = pair, q
    return best


def stratified_folds(gold: Sequence[str], k: int, seed: int) -> list[list[int]]:
    """k folds of item indexes, each label's items shuffled (seeded) and dealt round-robin, the deal
    carrying on from label to label so the folds' sizes differ by at most one. Every index is in exactly
    one fold; each fold's indexes are sorted."""
    if not 2 <= k <= len(gold):
        raise ValueError(f"{k} folds for {len(gold)} items")
    rng = random.Random(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    dealt = 0
    for label in sorted(set(gold)):
        members = [i for i, g in enumerate(gold) if g == label]
        rng.shuffle(members)
        for i in members:
            folds[dealt % k].append(i)
            dealt += 1
    return [sorted(fold) for fold in folds]


@dataclass(frozen=True)
class CrossValidated:
    predicted: list[str]  # each item labelled by thresholds fitted without its fold
    thresholds: list[tuple[int, int]]  # per fold, fitted on the other folds
    folds: list[list[int]]


def cross_validated_remap(
    scores: Sequence[float],
    verdict_labels: Sequence[str],
    gold: Sequence[str],
    labels: RemapLabels,
    k: int = 5,
    seed: int = 0,
    folds: Sequence[Sequence[int]] | None = None,
) -> CrossValidated:
    """The spectral remap with fitted thresholds, scored without leakage: each fold's items are labelled
    by thresholds fitted on the other folds only, so no item's gold label chooses its own thresholds.
    `folds` default: stratified_folds(gold, k, seed)."""
    _check_pairs(scores, gold)
    folds = [list(f) for f in folds] if folds is not None else stratified_folds(gold, k, seed)
    predicted = [""] * len(gold)
    thresholds = []
    for fold in folds:
        held_out = set(fold)
        train = [i for i in range(len(gold)) if i not in held_out]
        pair = fit_thresholds(
            [scores[i] for i in train], [verdict_labels[i] for i in train], [gold[i] for i in train], labels
        )
        thresholds.append(pair)
        for i in fold:
            predicted[i] = spectral_label(scores[i], verdict_labels[i], *pair, labels)
    return CrossValidated(predicted, thresholds, folds)


def calibration_bins(
    scores: Sequence[float], outcomes: Sequence[bool], bins: int = 10
) -> list[dict[str, float]]:
    """The reliability diagram's points: per score decile (100 goes in the last), the mean predicted
    probability, the observed share true, and the count; empty bins are left out."""
    _check_pairs(scores, outcomes)
    grouped: dict[int, list[tuple[float, bool]]] = {}
    for s, o in zip(scores, outcomes, strict=True):
        grouped.setdefault(min(int(s * bins // 100), bins - 1), []).append((s, o))
    return [
        {
            "bin": b,
            "predicted": sum(s for s, _ in members) / len(members) / 100,
            "observed": sum(o for _, o in members) / len(members),
            "n": len(members),
        }
        for b, members in sorted(grouped.items())
    ]
