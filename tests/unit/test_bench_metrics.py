"""The benchmark metrics against values worked out by hand."""

from __future__ import annotations

import random

import pytest

from claimcourt.bench.metrics import (
    RemapLabels,
    Stability,
    accuracy,
    auroc,
    balanced_accuracy,
    brier,
    calibration_bins,
    confusion,
    cross_validated_remap,
    directional_accuracy,
    fit_thresholds,
    macro_f1,
    mae,
    majority_label,
    per_class,
    spectral_label,
    stability,
    stdev,
    stratified_folds,
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


# ---------------------------------------------------------------- scores: each against a hand computation


def test_sigma_is_the_sample_standard_deviation_and_stability_reports_mean_and_worst() -> None:
    # 50, 60, 70: mean 60, squared deviations 100 + 0 + 100 = 200, over n − 1 = 2: σ = √100 = 10.
    assert stdev([50, 60, 70]) == pytest.approx(10.0)
    assert stdev([20, 20]) == 0.0
    found = stability({"flat": [20, 20], "shaky": [50, 60, 70], "once": [40]})
    assert found == Stability(mean=5.0, worst=10.0, worst_claim="shaky")  # "once" has no spread
    assert stability({"once": [40]}) is None
    with pytest.raises(ValueError, match="at least 2"):
        stdev([1])


def test_mae_to_the_anchors() -> None:
    assert mae([10, 80], [2, 85]) == pytest.approx((8 + 5) / 2)


def test_auroc_counts_ties_as_half_a_win() -> None:
    # True 80, 60, 50 against false 50, 20: six pairs, five won outright and 50 = 50 half: 5.5 / 6.
    assert auroc([80, 60, 50, 50, 20], [True, True, True, False, False]) == pytest.approx(5.5 / 6)
    assert auroc([50, 50], [True, False]) == 0.5  # all tied: chance
    assert auroc([10, 90], [True, False]) == 0.0
    assert auroc([10, 90], [True, True]) is None  # no false claim to rank against


def test_directional_accuracy_skips_anchors_at_50_and_misses_a_score_of_50() -> None:
    # 70 for 90 and 30 for 10 lean right; 50 for 80 leans nowhere; the anchor of 50 is not counted.
    assert directional_accuracy([70, 50, 30, 60], [90, 80, 10, 50]) == pytest.approx(2 / 3)
    assert directional_accuracy([60], [50]) is None


def test_brier_of_scores_as_probabilities() -> None:
    # (0.8 − 1)² = 0.04 and (0.3 − 0)² = 0.09: mean 0.065.
    assert brier([80, 30], [True, False]) == pytest.approx(0.065)
    assert brier([50, 50], [True, False]) == pytest.approx(0.25)


def test_macro_f1_over_four_classes_with_one_never_in_gold_nor_predicted() -> None:
    # S: precision 1, recall 1/2 → 2/3; R: precision 1/2, recall 1 → 2/3; N and D absent: 0 each.
    assert macro_f1(["S", "S", "R"], ["S", "R", "R"], LABELS) == pytest.approx((2 / 3 + 2 / 3) / 4)


REMAP = RemapLabels(supported="S", refuted="R", not_enough="N", conflicting="D")


def test_the_spectral_remap_uses_the_score_at_the_edges_and_the_verdict_in_between() -> None:
    assert spectral_label(60, "N", 40, 60, REMAP) == "S"
    assert spectral_label(40, "S", 40, 60, REMAP) == "R"
    assert spectral_label(55, "D", 40, 60, REMAP) == "D"
    assert spectral_label(55, "S", 40, 60, REMAP) == "N"


def test_fitted_thresholds_are_the_first_best_in_grid_order() -> None:
    # 70 must be supported, 30 refuted, 52 in between: the first grid pair that gets all three is (30, 55)
    # (a lower `low` leaves 30 in between; high 50 makes 52 supported).
    assert fit_thresholds([70, 30, 52], ["N", "N", "N"], ["S", "R", "N"], REMAP) == (30, 55)


def test_stratified_folds_partition_the_items_and_spread_each_label() -> None:
    gold = ["S"] * 10 + ["R"] * 5 + ["D"] * 3
    folds = stratified_folds(gold, 5, seed=1)
    assert sorted(i for fold in folds for i in fold) == list(range(18))  # each index once
    assert sorted(len(fold) for fold in folds) == [3, 3, 4, 4, 4]
    assert all(sum(gold[i] == "S" for i in fold) == 2 for fold in folds)
    assert folds == stratified_folds(gold, 5, seed=1)  # seeded
    with pytest.raises(ValueError, match="folds"):
        stratified_folds(["S"], 2, seed=0)


def test_cross_validation_fits_each_folds_thresholds_without_that_fold() -> None:
    rng = random.Random(3)
    gold = ["S"] * 12 + ["R"] * 12 + ["N"] * 4 + ["D"] * 2
    scores = [rng.randint(0, 100) for _ in gold]
    verdicts = [rng.choice("SRND") for _ in gold]
    cv = cross_validated_remap(scores, verdicts, gold, REMAP, k=5, seed=0)
    for fold, pair in zip(cv.folds, cv.thresholds, strict=True):
        train = [i for i in range(len(gold)) if i not in fold]
        # The fold's thresholds are exactly those fitted on the other folds…
        assert pair == fit_thresholds(
            [scores[i] for i in train], [verdicts[i] for i in train], [gold[i] for i in train], REMAP
        )
        for i in fold:
            assert cv.predicted[i] == spectral_label(scores[i], verdicts[i], *pair, REMAP)
    # …so relabelling one fold's items (the same folds) cannot move that fold's thresholds, while the
    # thresholds of the folds that train on them may move.
    first = set(cv.folds[0])
    flipped = [{"S": "R", "R": "N", "N": "D", "D": "S"}[g] if i in first else g for i, g in enumerate(gold)]
    again = cross_validated_remap(scores, verdicts, flipped, REMAP, folds=cv.folds)
    assert again.thresholds[0] == cv.thresholds[0]
    assert again.folds == cv.folds


def test_calibration_bins_for_the_reliability_diagram() -> None:
    bins = calibration_bins([5, 15, 95, 100], [False, True, True, True])
    assert bins == [
        {"bin": 0, "predicted": pytest.approx(0.05), "observed": 0.0, "n": 1},
        {"bin": 1, "predicted": pytest.approx(0.15), "observed": 1.0, "n": 1},
        {"bin": 9, "predicted": pytest.approx(0.975), "observed": 1.0, "n": 2},
    ]
