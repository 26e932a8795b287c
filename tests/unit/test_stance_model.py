"""The learned passage stance: what it reads, what the lexical rule lets it count, how the judge decides,
and that the shipped weights are what the training script makes of the tune half (and nothing else)."""

from __future__ import annotations

import json
import math

import pytest

from claimcourt.bench import stance_train
from claimcourt.models import Verdict
from claimcourt.reasoning import embedding
from claimcourt.reasoning.stance import FEATURES, features
from claimcourt.reasoning.stance_model import (
    EMBEDDED_FEATURES,
    MODEL_FILE,
    TOP,
    WITH_EMBEDDING,
    Decision,
    PassageStance,
    StanceModel,
    Summary,
    decide,
    judge,
    model,
    summarise,
    use,
)

SEA = "Sea levels are rising"


def test_the_shipped_model_reads_the_features_it_was_trained_on() -> None:
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    assert tuple(doc["features"]) == FEATURES
    assert len(features(SEA, "Sea levels rose 20 cm.", "Sea level rise")) == len(FEATURES)
    assert set(doc["bears"]["weights"]) == set(doc["refutes"]["weights"]) == set(FEATURES)
    d = model().decision
    assert 0 < d.bears_at < 1 and 0 < d.supported_below <= 0.5 <= d.refuted_from < 1
    # The embedding reader's fit: the same features and the cosine, thresholds of its own.
    embedded = doc[WITH_EMBEDDING]
    assert tuple(embedded["features"]) == EMBEDDED_FEATURES
    assert set(embedded["bears"]["weights"]) == set(EMBEDDED_FEATURES)
    assert StanceModel.from_dict(embedded).embedded and not StanceModel.from_dict(doc).embedded


def test_a_model_for_other_features_is_refused() -> None:
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    doc["features"] = doc["features"][:-1]
    with pytest.raises(ValueError, match="retrain"):
        StanceModel.from_dict(doc)


@pytest.mark.parametrize(
    "passage",
    [
        "Global sea levels are rising, measured by satellites and tide gauges.",
        "Sea levels are not rising.",
        "Bananas are a popular yellow fruit.",
        '"Is sea level rising?".',
    ],
)
def test_probabilities_are_probabilities_and_deterministic(passage: str) -> None:
    s = judge(SEA, passage, "Sea level rise")
    assert 0 <= s.bears <= 1 and 0 <= s.refutes <= 1
    assert 0 <= s.support <= 1 and 0 <= s.refute <= 1
    assert model().judge(SEA, passage, "Sea level rise") == s


def test_a_passage_stating_the_claim_bears_more_than_one_off_topic() -> None:
    stating = judge(SEA, "Global sea levels are rising, measured by satellites and tide gauges.")
    off_topic = judge(SEA, "Bananas are a popular yellow fruit grown in the tropics.")
    assert stating.bears > off_topic.bears
    assert stating.may_support and stating.support > 0


def test_support_counts_only_where_the_rule_allows_it() -> None:
    # Another subject ("a graph … relatively flat") cannot support "The Earth is flat", whatever it learned.
    other_subject = judge("The Earth is flat", "Mahlman described a graph that is relatively flat to 1900.")
    assert not other_subject.may_support
    assert other_subject.support == 0.0
    # "The rise and fall of sea levels" states neither: no support for "Sea levels are falling".
    tides = judge("Sea levels are falling", "Tides, the daily rise and fall of sea levels, follow the Moon.")
    assert tides.support == 0.0


def test_a_passage_the_rule_reads_as_the_opposite_refutes_with_all_its_weight() -> None:
    s = judge(SEA, "Sea levels are not rising, according to the old tide gauge records.")
    assert s.rule == -1
    assert s.support == 0.0 and s.refute == s.bears
    assert s.weighed == (s.bears, 1.0)


def test_weighed_pair_is_what_the_judge_counts() -> None:
    s = PassageStance(bears=0.8, refutes=0.25, rule=0, may_support=True)
    assert s.weighed == pytest.approx((0.8, 0.25))
    blocked = PassageStance(bears=0.8, refutes=0.25, rule=0, may_support=False)
    assert blocked.weighed == pytest.approx((0.2, 1.0))  # only its refuting side: 0.8 × 0.25


def test_summary_takes_the_most_bearing_passages() -> None:
    assert summarise([]) == Summary(0.0, 0.5)
    pool = [(0.9, 0.1), (0.2, 0.9), (0.6, 0.5), (0.7, 0.2), (0.1, 1.0)]
    s = summarise(pool)
    assert s.bears == 0.9
    top = sorted(pool, key=lambda p: -p[0])[:TOP]
    assert s.refutes == pytest.approx(sum(b * r for b, r in top) / sum(b for b, _ in top))


@pytest.mark.parametrize(
    ("summary", "verdict"),
    [
        (Summary(0.3, 0.1), Verdict.NOT_ENOUGH_EVIDENCE),  # nothing bears enough, whichever way it leans
        (Summary(0.8, 0.1), Verdict.SUPPORTED),
        (Summary(0.8, 0.9), Verdict.REFUTED),
        (Summary(0.8, 0.5), Verdict.CONFLICTING),
        (Summary(0.6, 0.4), Verdict.CONFLICTING),  # the band's lower edge is conflicting
        (Summary(0.6, 0.6), Verdict.REFUTED),  # its upper edge refuted
    ],
)
def test_decision_bands(summary: Summary, verdict: Verdict) -> None:
    made = decide(summary, Decision(bears_at=0.5, supported_below=0.4, refuted_from=0.6))
    assert made.verdict is verdict
    assert 0 <= made.strength <= 1


def test_use_swaps_the_model_and_back() -> None:
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    doc["decision"] = {"bears_at": 0.99, "supported_below": 0.5, "refuted_from": 0.5}
    shipped = model().decision
    use(StanceModel.from_dict(doc))
    try:
        assert model().decision.bears_at == 0.99
    finally:
        use(None)
    assert model().decision == shipped


# ================================================================ training


def test_training_reads_only_the_tune_half() -> None:
    claims = stance_train.tune_claims()
    assert len(claims) == 384
    assert all(i % 2 == 0 for i, _ in claims)
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    assert doc["trained_on"]["claims"] == 384 and doc["trained_on"]["pairs"] == 5 * 384


def test_the_shipped_weights_are_a_fresh_fit_of_the_tune_half() -> None:
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    fresh = stance_train.fit_weights([c for _, c in stance_train.tune_claims()])
    for part in ("mean", "scale", "bears", "refutes", "trained_on", "features"):
        assert fresh[part] == doc[part], part


@pytest.mark.skipif(not embedding.available(), reason="the embed extra is not installed")
def test_the_shipped_embedding_weights_are_a_fresh_fit_of_the_tune_half() -> None:
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))[WITH_EMBEDDING]
    fresh = stance_train.fit_weights([c for _, c in stance_train.tune_claims()], embedded=True)
    assert fresh["features"] == doc["features"] and fresh["trained_on"] == doc["trained_on"]
    # Within a hair: the int8 model's float arithmetic may differ in its last bits on another CPU.
    assert fresh["mean"] == pytest.approx(doc["mean"], abs=1e-4)
    for part in ("bears", "refutes"):
        assert fresh[part]["bias"] == pytest.approx(doc[part]["bias"], abs=1e-3)
        assert fresh[part]["weights"] == pytest.approx(doc[part]["weights"], abs=1e-3)


def test_logistic_fit_finds_the_separating_direction_and_is_deterministic() -> None:
    rows = [[x / 10] for x in range(-10, 11)]
    ys = [int(r[0] + 0.05 * (-1) ** i > 0) for i, r in enumerate(rows)]
    beta = stance_train.fit_logistic(rows, ys, l2=1.0)
    assert beta == stance_train.fit_logistic(rows, ys, l2=1.0)
    assert beta[1] > 1
    # The penalty shrinks the weight; the bias is not penalised.
    assert abs(stance_train.fit_logistic(rows, ys, l2=100.0)[1]) < abs(beta[1])


def test_solve() -> None:
    x = stance_train._solve([[4.0, 1.0], [1.0, 3.0]], [1.0, 2.0])
    assert x == pytest.approx([1 / 11, 7 / 11])


@pytest.mark.parametrize(
    ("calls", "verdict"),
    [
        ([Verdict.SUPPORTED, Verdict.SUPPORTED], Verdict.SUPPORTED),
        ([Verdict.SUPPORTED, Verdict.NOT_ENOUGH_EVIDENCE], Verdict.NOT_ENOUGH_EVIDENCE),
        ([Verdict.SUPPORTED, Verdict.REFUTED], Verdict.REFUTED),
        ([Verdict.CONFLICTING, Verdict.SUPPORTED], Verdict.CONFLICTING),
        ([], Verdict.NOT_ENOUGH_EVIDENCE),
    ],
)
def test_claim_verdict_reads_sub_claims_as_the_score_stage_does(
    calls: list[Verdict], verdict: Verdict
) -> None:
    assert stance_train.claim_verdict(calls) is verdict


def test_decision_fit_keeps_the_precision_of_supported_and_a_symmetric_band() -> None:
    # Two claims a pool clearly supports, one it refutes, one it says nothing about.
    pools = [[[(0.9, 0.1)]], [[(0.8, 0.2)]], [[(0.9, 0.9)]], [[(0.2, 0.5)]]]
    gold = ["SUPPORTS", "SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO"]
    decision, fit = stance_train.fit_decision(pools, gold)
    assert fit["supported_precision"] == 1.0 and fit["macro_f1"] == pytest.approx(0.75)
    assert math.isclose(0.5 - decision.supported_below, decision.refuted_from - 0.5, abs_tol=1e-9)
