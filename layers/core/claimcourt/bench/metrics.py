"""Classification metrics for the benchmarks: pure Python, no sklearn.

Conventions follow scikit-learn's defaults so figures are comparable: a class never predicted has
precision 0 (not undefined), macro-F1 averages F1 over every label given, and balanced accuracy
averages recall over the labels that occur in the gold set.
"""

from __future__ import annotations

from collections.abc import Sequence
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
