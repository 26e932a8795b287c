"""The rubric judge's reading onto the scoring contract (contract.rubric_score, docs/scoring.md), pinned,
and the offline reasoner's rubric judge (reasoning/offline_rubric.py)."""

from __future__ import annotations

import pytest

from claimcourt.adjudication.anonymize import anonymize
from claimcourt.adjudication.rubric import rubric_task, rubric_verdict, scale_adjustments, to_judgement
from claimcourt.contract import (
    REFUTED_AT,
    RUBRIC_SCORES,
    SUPPORTED_AT,
    nearest_rating,
    rubric_reading,
    rubric_score,
)
from claimcourt.models import (
    AdjudicateInput,
    Argument,
    HierarchyRating,
    Point,
    RubricJudgement,
    SubClaim,
    SubClaimJudgement,
    SubClaimRubric,
    Verdict,
)
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.offline_rubric import overall_rating, rating_of
from tests.unit.test_scoring_contract import T1_POOL, _result, _sub


def _reply(ratings: list[int | None], overall: int | None, reason: str | None = None) -> RubricJudgement:
    subs = [
        SubClaimRubric(
            sub_claim_id=f"sc{i}",
            rating=r,
            referee_synthesis="s",
            decisive_evidence_id=None,
            stronger_position="neither",
        )
        for i, r in enumerate(ratings, start=1)
    ]
    hierarchy = [
        HierarchyRating(position=label, sub_claim_id=s.sub_claim_id, level=level, comment="c")
        for s in subs
        for label, level in (("A", 5), ("B", 3))
    ]
    return RubricJudgement(
        hierarchy=hierarchy,
        sub_claims=subs,
        rating=overall,
        adjustment_reason=reason,
        decisive_evidence_id=None,
    )


@pytest.mark.parametrize("rating", [*range(11), None])
def test_every_rating_reads_inside_its_band_with_an_interval_that_holds_it(rating: int | None) -> None:
    score, low, high = rubric_score(rating)
    assert 0 <= low <= score <= high <= 100
    reading = rubric_reading(rating)
    if reading == "contradicted":
        assert score <= REFUTED_AT and high < SUPPORTED_AT
    elif reading == "supported":
        assert score >= SUPPORTED_AT and low > REFUTED_AT
    else:  # misleading and needs more evidence: 50, the second wider than any other reading
        assert score == 50
    if rating is None:
        assert high - low == 60 and all(
            high - low > rubric_score(r)[2] - rubric_score(r)[1] for r in range(11)
        )


def test_the_reading_rises_with_the_rating_and_inverts_within_its_reading() -> None:
    scores = [RUBRIC_SCORES[r] for r in range(11)]
    assert scores == sorted(scores) and len(set(scores)) == 11
    for r in range(11):
        assert nearest_rating(RUBRIC_SCORES[r], rubric_reading(r)) == r
    assert nearest_rating(50, "needs more evidence") is None


@pytest.mark.parametrize(
    ("rating", "verdict", "score", "interval"),
    [
        (2, Verdict.REFUTED, 20, (12, 28)),
        (4, Verdict.REFUTED, 36, (28, 44)),
        (5, Verdict.CONFLICTING, 50, (35, 65)),
        (None, Verdict.NOT_ENOUGH_EVIDENCE, 50, (20, 80)),
        (6, Verdict.SUPPORTED, 64, (56, 72)),
        (8, Verdict.SUPPORTED, 80, (72, 88)),
    ],
)
def test_a_rating_through_the_score_stage_is_its_reading_and_every_step_is_named(
    rating: int | None, verdict: Verdict, score: int, interval: tuple[int, int]
) -> None:
    # Given a rubric judge's reply on a one-sub-claim claim, over primary evidence (no quality pull)
    reply = _reply([rating], rating)
    judgement = to_judgement(reply)
    result = _result([judgement], T1_POOL, ["G1", "G2", "G3"])
    # Then the claim reads as the contract says, with its verdict
    assert (result.overall_score, result.overall_verdict) == (score, verdict)
    assert (result.interval.low, result.interval.high) == interval
    assert result.judge_score == score and result.sub_claims[0].judge_score == score
    # and the reading itself is an adjustment the result names, the judge's own number first
    named = scale_adjustments(reply)
    assert [(a.target, a.kind, a.before, a.after) for a in named] == [
        ("overall", "rubric_scale", rating, score),
        ("sc1", "rubric_scale", rating, score),
    ]


def test_the_rubric_verdict_keeps_the_raw_ratings_and_names_the_sides_again() -> None:
    reply = _reply([8, None], 5)
    kept = rubric_verdict(reply, {"A": "against", "B": "for"})
    assert (kept.rating, kept.reading, kept.sub_claims) == (5, "misleading", {"sc1": 8, "sc2": None})
    assert [(h.side, h.sub_claim_id, h.level, h.name) for h in kept.hierarchy] == [
        ("against", "sc1", 5, "DH5 refutation"),
        ("for", "sc1", 3, "DH3 contradiction"),
        ("against", "sc2", 5, "DH5 refutation"),
        ("for", "sc2", 3, "DH3 contradiction"),
    ]


def test_a_rating_that_departs_from_the_composition_without_a_reason_is_composed_and_named() -> None:
    # Two supported sub-claims (8, 8 → 80, 80) compose under `all` to 72; the judge said 9 (88)
    result = _result([to_judgement(_reply([8, 8], 9))], T1_POOL, ["G1", "G2", "G3"])
    assert result.judge_score == 88 and result.overall_score == 72
    assert [a.kind for a in result.adjustments if a.target == "overall"] == ["composition"]


def test_the_rubric_task_asks_every_sub_claim_and_every_position_once() -> None:
    argued = [
        Argument(
            side=side,
            round=1,
            points=[Point(sub_claim_id="sc1", argument="a", implied_score=60, confidence=0.5)],
        )
        for side in ("for", "against")
    ]
    positions, _ = anonymize(argued, seed="run_x")
    inputs = AdjudicateInput(
        claim="c d", mode="spectral", sub_claims=[_sub(1)], shape="all", positions=positions, evidence=T1_POOL
    )
    task = rubric_task(inputs)
    assert (task.kind, task.role, task.temperature) == ("adjudicate_rubric", "adjudicator", 0.0)
    assert task.problems(_reply([7], 7)) == []
    missing = _reply([7], 7).model_copy(update={"hierarchy": []})
    assert task.problems(missing) == [
        "position A: no hierarchy level on sc1",
        "position B: no hierarchy level on sc1",
    ]
    assert "DH6 refuting the central point" in task.system and "needs more evidence" in task.system


# ---------------------------------------------------------------- the offline rubric judge


def _judged(score: int, verdict: Verdict) -> SubClaimJudgement:
    return SubClaimJudgement(
        sub_claim_id="sc1", score=score, verdict=verdict, referee_synthesis="s", decisive_evidence_id=None,
        stronger_position="neither",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("score", "verdict", "rating"),
    [
        (65, Verdict.SUPPORTED, 6),
        (80, Verdict.SUPPORTED, 8),
        (95, Verdict.SUPPORTED, 10),
        (35, Verdict.REFUTED, 4),
        (5, Verdict.REFUTED, 0),
        (50, Verdict.CONFLICTING, 5),
        (47, Verdict.NOT_ENOUGH_EVIDENCE, None),
    ],
)
def test_the_offline_rubric_says_the_offline_judges_call(
    score: int, verdict: Verdict, rating: int | None
) -> None:
    assert rating_of(_judged(score, verdict)) == rating


@pytest.mark.parametrize(
    ("ratings", "overall"),
    [
        ([None, None], None),
        ([8], 8),
        ([8, None], None),
        ([8, 2], 2),
        ([8, 8], 7),
        ([5, 8], 5),
        ([10, 10], 10),
    ],
)
def test_the_offline_rubrics_overall_rating_follows_the_composition(
    ratings: list[int | None], overall: int | None
) -> None:
    inputs = AdjudicateInput(
        claim="c d", mode="spectral", sub_claims=[_sub(i) for i in range(1, len(ratings) + 1)], shape="all",
        positions=[], evidence=[],
    )  # fmt: skip
    assert overall_rating(ratings, inputs) == overall


def test_the_offline_rubric_judge_rates_the_hierarchy_from_what_the_points_do() -> None:
    # Given a supported sub-claim, one side citing the passage the rating rests on (G1) and naming the
    # other's (G2), the other citing a passage without engaging anything
    cite = Point(
        sub_claim_id="sc1", argument="[G1] says so; [G2] does not.", implied_score=80, confidence=0.8,
        citations=["G1"],
    )  # fmt: skip
    bare = Point(
        sub_claim_id="sc1", argument="It is not so.", implied_score=30, confidence=0.4, citations=["G2"]
    )
    argued = [Argument(side="for", round=1, points=[cite]), Argument(side="against", round=1, points=[bare])]
    positions, mapping = anonymize(argued, seed="run_h")
    texts = {
        "G1": "Global sea levels are rising: the global mean has risen about 21 to 24 cm since 1880.",
        "G2": "Sea levels rise because warming oceans expand.",
        "G3": "Tide gauges show sea levels rising.",
    }
    pool = [e.model_copy(update={"text": texts[e.id]}) for e in T1_POOL]
    sub = SubClaim(id="sc1", text="Sea levels are rising", directive="sea levels rising")
    inputs = AdjudicateInput(
        claim="Sea levels are rising", mode="spectral", sub_claims=[sub], shape="all", positions=positions,
        evidence=pool,
    )  # fmt: skip
    reply = RubricJudgement.model_validate(OfflineReasoner().complete(rubric_task(inputs), "offline").content)
    # Then the pool supports it (9), resting on G1: refuting the central point for one, a counterargument
    assert (reply.rating, reply.sub_claims[0].rating, reply.sub_claims[0].decisive_evidence_id) == (
        9,
        9,
        "G1",
    )
    assert {mapping[h.position]: h.level for h in reply.hierarchy} == {"for": 6, "against": 4}
    # and on a sub-claim the pool is silent on, no passage is central: naming the other's is a refutation
    silent = inputs.model_copy(update={"sub_claims": [_sub(1)]})
    reply = RubricJudgement.model_validate(OfflineReasoner().complete(rubric_task(silent), "offline").content)
    assert reply.rating is None and {mapping[h.position]: h.level for h in reply.hierarchy} == {
        "for": 5,
        "against": 4,
    }
    # and a side with a point but no citation contradicts (DH3); a side with no point has no level
    nothing = Point(sub_claim_id="sc1", argument="No passage bears on it.", implied_score=50, confidence=0.2)
    argued = [Argument(side="for", round=1, points=[nothing]), Argument(side="against", round=1)]
    positions, mapping = anonymize(argued, seed="run_h")
    reply = RubricJudgement.model_validate(
        OfflineReasoner()
        .complete(rubric_task(inputs.model_copy(update={"positions": positions})), "x")
        .content
    )
    assert {mapping[h.position]: h.level for h in reply.hierarchy} == {"for": 3, "against": None}
