"""The benchmark metrics against values worked out by hand."""

from __future__ import annotations

import pytest

from claimcourt.bench.metrics import (
    accuracy,
    balanced_accuracy,
    confusion,
    macro_f1,
    majority_label,
    per_class,
)

LABELS = ("S", "R", "N", "D")
# Seven items: S→S twice, S→R, R→R, R→N, N→N, D→S.
GOLD = ["S", "S", "S", "R", "R", "N", "D"]
PRED = ["S", "S", "R", "R", "N", "N", "S"]


def test_confusion_rows_are_gold_columns_predicted() -> None:
    assert confusion(GOLD, PRED, LABELS) == [
        [2, 1, 0, 0],
        [0, 1, 1, 0],
        [0, 0, 1, 0],
        [1, 0, 0, 0],
    ]


def test_accuracy() -> None:
    assert accuracy(GOLD, PRED) == pytest.approx(4 / 7)


def test_per_class_precision_recall_f1() -> None:
    scores = per_class(GOLD, PRED, LABELS)
    # S: predicted 3 times (2 right), 3 gold.
    assert (scores["S"].precision, scores["S"].recall, scores["S"].f1) == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    # R: predicted twice (1 right), 2 gold.
    assert (scores["R"].precision, scores["R"].recall, scores["R"].f1) == pytest.approx((0.5, 0.5, 0.5))
    # N: predicted twice (1 right), 1 gold: F1 = 2·0.5·1 / 1.5.
    assert (scores["N"].precision, scores["N"].recall, scores["N"].f1) == pytest.approx((0.5, 1.0, 2 / 3))
    # D: never predicted: precision counts as 0, not undefined.
    assert (scores["D"].precision, scores["D"].recall, scores["D"].f1) == (0.0, 0.0, 0.0)
    assert [scores[label].support for label in LABELS] == [3, 2, 1, 1]


def test_macro_f1_and_balanced_accuracy() -> None:
    assert macro_f1(GOLD, PRED, LABELS) == pytest.approx((2 / 3 + 1 / 2 + 2 / 3 + 0) / 4)  # 11/24
    assert balanced_accuracy(GOLD, PRED, LABELS) == pytest.approx((2 / 3 + 1 / 2 + 1 + 0) / 4)  # 13/24


def test_majority_baseline() -> None:
    assert majority_label(GOLD, LABELS) == "S"
    always = ["S"] * len(GOLD)
    assert accuracy(GOLD, always) == pytest.approx(3 / 7)
    # S: precision 3/7, recall 1, F1 = 0.6; the other three classes score 0.
    assert macro_f1(GOLD, always, LABELS) == pytest.approx(0.15)
    assert balanced_accuracy(GOLD, always, LABELS) == pytest.approx(0.25)


def test_majority_baseline_on_climate_fever_dev_counts() -> None:
    gold = ["S"] * 327 + ["N"] * 245 + ["R"] * 122 + ["D"] * 74
    always = ["S"] * len(gold)
    assert macro_f1(gold, always, LABELS) == pytest.approx(654 / 1095 / 4)  # ≈ 0.149
    assert balanced_accuracy(gold, always, LABELS) == pytest.approx(0.25)


def test_balanced_accuracy_skips_classes_absent_from_gold() -> None:
    # D never occurs in gold: averaging its recall of 0 in would understate the score.
    assert balanced_accuracy(["S", "R"], ["S", "D"], LABELS) == pytest.approx(0.5)
    # macro-F1 still averages over every label given.
    assert macro_f1(["S", "R"], ["S", "D"], LABELS) == pytest.approx(1 / 4)


def test_majority_tie_goes_to_the_earlier_label() -> None:
    assert majority_label(["R", "S"], LABELS) == "S"


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="gold labels"):
        accuracy(["S"], ["S", "R"])
    with pytest.raises(ValueError, match="no items"):
        accuracy([], [])
    with pytest.raises(ValueError, match="outside"):
        confusion(["S"], ["X"], LABELS)
