"""The scoring contract (docs/scoring.md), pinned: what the score stage may and may not do to the
judge's numbers. Pure: judgements in, Result out."""

from __future__ import annotations

import itertools
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcourt.adjudication.score import compose_result, evidence_quality
from claimcourt.contract import REFUTED_AT, SUPPORTED_AT, Shape, bounds, compose
from claimcourt.models import (
    Argument,
    Decomposition,
    Evidence,
    Interval,
    Judgement,
    Point,
    Refusal,
    Result,
    RunRequest,
    SubClaim,
    SubClaimJudgement,
    Usage,
    Verdict,
)

CLAIM = "Sea levels are rising and glaciers are retreating"
SHAPES: tuple[Shape, ...] = ("all", "any", "facets")


def _sub(i: int) -> SubClaim:
    return SubClaim(id=f"sc{i}", text=f"part {i}", directive=f"query {i}")


def _evidence(eid: str, tier: Literal["T1", "T2"] = "T2") -> Evidence:
    return Evidence(
        id=eid, text=f"text {eid}", title=eid, source_url=f"https://x/{eid}", tier=tier, query="q",
        sub_claim_id="sc1", round=1,
    )  # fmt: skip


def _sj(
    i: int, score: int, verdict: Verdict, stronger: Literal["A", "B", "neither"] = "neither"
) -> SubClaimJudgement:
    return SubClaimJudgement(
        sub_claim_id=f"sc{i}",
        score=score,
        verdict=verdict,
        referee_synthesis="s",
        decisive_evidence_id=None,
        stronger_position=stronger,
    )


def _judgement(
    scores: list[tuple[int, Verdict]], overall: int, interval: tuple[int, int], reason: str | None = None
) -> Judgement:
    return Judgement(
        sub_claims=[_sj(i, s, v) for i, (s, v) in enumerate(scores, start=1)],
        overall_score=overall,
        overall_interval=Interval(low=interval[0], high=interval[1]),
        adjustment_reason=reason,
        decisive_evidence_id=None,
    )


def _debate(cites: list[str], refuse: bool = False) -> list[Argument]:
    point = Point(sub_claim_id="sc1", argument="a", implied_score=70, confidence=0.7, citations=cites)
    against = (
        Argument(side="against", round=1, refusal=Refusal(reason="no"))
        if refuse
        else Argument(side="against", round=1, points=[point])
    )
    return [Argument(side="for", round=1, points=[point]), against]


def _result(
    judgements: list[Judgement],
    pool: list[Evidence],
    cites: list[str],
    shape: Shape = "all",
    refuse: bool = False,
    sides: dict[str, Literal["for", "against"]] | None = None,
) -> Result:
    n = len(judgements[0].sub_claims)
    return compose_result(
        run_id="run_1",
        request=RunRequest(claim=CLAIM),
        decomposition=Decomposition(sub_claims=[_sub(i) for i in range(1, n + 1)], shape=shape),
        arguments=_debate(cites, refuse),
        judgements=judgements,
        evidence=pool,
        usage=Usage(),
        warnings=[],
        reasoner="scripted",
        models={},
        sides=sides,
    )


T1_POOL = [_evidence("G1", "T1"), _evidence("G2", "T1"), _evidence("G3", "T1")]
T2_POOL = [_evidence("E1"), _evidence("E2"), _evidence("E3")]


def _consistent(result: Result) -> None:
    """Score, interval, verdicts and sub-claims never contradict each other."""
    assert 0 <= result.interval.low <= result.overall_score <= result.interval.high <= 100
    subs = [s.score for s in result.sub_claims]
    assert result.shape is not None
    low, high = bounds(subs, result.shape)
    assert low <= result.overall_score <= high
    for sub in [*result.sub_claims]:
        if sub.verdict is Verdict.SUPPORTED:
            assert sub.score >= SUPPORTED_AT
        if sub.verdict is Verdict.REFUTED:
            assert sub.score <= REFUTED_AT
    if result.overall_verdict is Verdict.SUPPORTED:
        assert result.overall_score >= SUPPORTED_AT and result.interval.low > REFUTED_AT
    if result.overall_verdict is Verdict.REFUTED:
        assert result.overall_score <= REFUTED_AT and result.interval.high < SUPPORTED_AT
    # and the sub-claims carry the verdict under the claim's shape
    subs = [s.verdict for s in result.sub_claims]
    if result.overall_verdict is Verdict.SUPPORTED:
        assert (
            all(v is Verdict.SUPPORTED for v in subs) if result.shape == "all" else Verdict.SUPPORTED in subs
        )
    if result.overall_verdict is Verdict.REFUTED:
        assert all(v is Verdict.REFUTED for v in subs) if result.shape == "any" else Verdict.REFUTED in subs


# ---------------------------------------------------------------- the two cases


def test_a_judge_that_says_3_yields_a_score_of_at_most_10_with_an_interval_around_it() -> None:
    judgement = _judgement([(3, Verdict.REFUTED), (4, Verdict.REFUTED)], overall=3, interval=(1, 8))
    for pool, cites in ((T1_POOL, ["G1", "G2", "G3"]), (T2_POOL, ["E1", "E2", "E3"])):
        result = _result([judgement], pool, cites)
        assert result.overall_score <= 10
        assert result.interval.low <= result.overall_score <= result.interval.high <= 20
        assert result.overall_verdict is Verdict.REFUTED
        assert result.judge_score == 3
        _consistent(result)


def test_a_judge_that_says_88_on_secondary_evidence_stays_near_88_with_a_wider_named_interval() -> None:
    judgement = _judgement([(88, Verdict.SUPPORTED)], overall=88, interval=(80, 94))
    result = _result([judgement], T2_POOL, ["E1", "E2", "E3"])
    assert 84 <= result.overall_score <= 88
    assert result.interval.high - result.interval.low > 94 - 80  # wider than the judge's own
    assert result.overall_verdict is Verdict.SUPPORTED
    [quality] = [a for a in result.adjustments if a.kind == "evidence_quality" and a.target == "interval"]
    assert "secondary_only" in quality.detail
    # and the pull on the sub-claim is named with the judge's own number before it
    [sub] = [a for a in result.adjustments if a.target == "sc1"]
    assert (sub.before, sub.after) == (88, result.sub_claims[0].score)
    assert result.judge_score == 88
    _consistent(result)


def test_a_judge_on_primary_evidence_is_taken_as_it_is() -> None:
    judgement = _judgement([(88, Verdict.SUPPORTED)], overall=88, interval=(80, 94))
    result = _result([judgement], T1_POOL, ["G1", "G2", "G3"])
    assert (result.overall_score, result.interval) == (88, Interval(low=80, high=94))
    assert result.adjustments == []
    assert result.interval_method == "judge"


def test_nothing_walls_a_score_any_more() -> None:
    # the old tail rule capped every score without a T1 source at 85 and floored it at 15
    high = _result([_judgement([(97, Verdict.SUPPORTED)], 97, (93, 99))], T2_POOL, ["E1", "E2", "E3"])
    low = _result([_judgement([(2, Verdict.REFUTED)], 2, (0, 6))], T2_POOL, ["E1", "E2", "E3"])
    assert high.overall_score > 85 and low.overall_score < 15


# ---------------------------------------------------------------- composition and the judge's word


def test_the_overall_score_is_composed_by_shape_and_a_silent_departure_is_named() -> None:
    subs = [(90, Verdict.SUPPORTED), (70, Verdict.SUPPORTED)]
    for shape, expected in (("all", 66), ("any", 94), ("facets", 80)):
        result = _result([_judgement(subs, 85, (75, 92))], T1_POOL, ["G1", "G2", "G3"], shape=shape)
        assert result.overall_score == expected == compose([90, 70], shape)
        [named, moved] = result.adjustments
        assert named.kind == "composition" and (named.before, named.after) == (85, expected)
        # the judge's interval (75–92, around 85) keeps its width, 17, around the composed score
        assert (moved.kind, moved.before_interval, moved.before) == (
            "interval_recentred",
            Interval(low=75, high=92),
            17,
        )
        assert moved.after_interval == result.interval and result.judge_interval == Interval(low=75, high=92)
        _consistent(result)


def test_a_judge_may_depart_from_the_rule_with_a_reason_but_not_beyond_the_sub_claims() -> None:
    subs = [(90, Verdict.SUPPORTED), (70, Verdict.SUPPORTED)]
    reasoned = _judgement(subs, 69, (60, 78), reason="the two parts rest on the same survey")
    result = _result([reasoned], T1_POOL, ["G1", "G2", "G3"])
    assert result.overall_score == 69
    assert [a.kind for a in result.adjustments] == ["judge_departure"]
    assert "same survey" in result.adjustments[0].detail
    # 90 is impossible when one necessary part is only 70 likely: clamped to the bound, and named
    beyond = _judgement(subs, 90, (80, 95), reason="I am sure")
    result = _result([beyond], T1_POOL, ["G1", "G2", "G3"])
    assert result.overall_score == 70
    assert [a.kind for a in result.adjustments] == [
        "judge_departure",
        "sub_claim_bounds",
        "interval_recentred",
    ]
    _consistent(result)


def test_a_sub_claim_verdict_that_contradicts_its_score_follows_the_band_and_says_so() -> None:
    judgement = _judgement([(55, Verdict.SUPPORTED), (30, Verdict.SUPPORTED)], 30, (20, 40))
    result = _result([judgement], T1_POOL, ["G1", "G2", "G3"], shape="facets")
    assert [s.verdict for s in result.sub_claims] == [Verdict.NOT_ENOUGH_EVIDENCE, Verdict.REFUTED]
    assert [a.target for a in result.adjustments if a.kind == "verdict_band"] == ["sc1", "sc2"]


def test_silent_parts_of_a_conjunction_are_not_enough_evidence_not_a_refutation() -> None:
    silent = _judgement([(50, Verdict.NOT_ENOUGH_EVIDENCE)] * 3, 50, (25, 75))
    result = _result([silent], T2_POOL, [])
    assert result.overall_score < 50  # three unknowns that must all hold are less likely than one
    assert result.overall_verdict is Verdict.NOT_ENOUGH_EVIDENCE
    assert result.interval.high - result.interval.low > 50  # and nothing was cited: wider still
    assert any("no_evidence" in a.detail for a in result.adjustments)


def test_self_consistency_samples_widen_the_judges_interval() -> None:
    first = _judgement([(70, Verdict.SUPPORTED)], 70, (64, 76))
    samples = [_judgement([(s, Verdict.SUPPORTED)], s, (s - 6, s + 6)) for s in (60, 78, 70)]
    result = _result([first, *samples], T1_POOL, ["G1", "G2", "G3"])
    assert result.interval_method == "judge+self_consistency"
    assert result.overall_score == 70
    assert result.interval.low < 64 and result.interval.high > 76
    _consistent(result)


def test_a_panels_spread_widens_the_median_judges_interval_and_is_named() -> None:
    # the median judge (70, its own interval 64–76) speaks; the panel's other judges said 40 and 90
    median = _judgement([(70, Verdict.SUPPORTED)], 70, (64, 76))
    alone = _result([median], T1_POOL, ["G1", "G2", "G3"])
    judged = compose_result(
        **{**_kwargs(alone), "judgements": [median], "panel_scores": [40, 70, 90]},
    )
    assert (judged.overall_score, judged.interval_method) == (70, "judge+panel")
    # each half-width combined in quadrature with the panel's spread on that side: √(6² + 30²), √(6² + 20²)
    assert (judged.interval.low, judged.interval.high) == (39, 91)
    [step] = [a for a in judged.adjustments if a.kind == "panel"]
    assert step.detail == "combined with the spread of the panel's 3 judges (40–90): 64–76 → 39–91"
    assert (step.before_interval, step.after_interval) == (alone.interval, judged.interval)
    # the sub-claims, verdicts and what would change are the median judge's own; its verdict is read
    # against the widened interval, so a panel this split does not call it supported
    assert [s.score for s in judged.sub_claims] == [s.score for s in alone.sub_claims]
    assert alone.overall_verdict is Verdict.SUPPORTED
    assert judged.overall_verdict is Verdict.NOT_ENOUGH_EVIDENCE
    _consistent(judged)
    # a panel of one judgement adds no spread
    one = compose_result(**{**_kwargs(alone), "judgements": [median], "panel_scores": [70]})
    assert (one.interval, one.interval_method) == (alone.interval, "judge")


def _kwargs(result: Result) -> dict[str, Any]:
    """compose_result's arguments for another scoring of `_result`'s debate (T1 pool, all cited)."""
    return {
        "run_id": result.run_id,
        "request": RunRequest(claim=CLAIM),
        "decomposition": Decomposition(sub_claims=[_sub(1)], shape="all"),
        "arguments": _debate(["G1", "G2", "G3"]),
        "evidence": T1_POOL,
        "usage": Usage(),
        "warnings": [],
        "reasoner": "scripted",
        "models": {},
    }


def test_evidence_quality_findings_are_measured_from_what_was_cited() -> None:
    refs = _result([_judgement([(70, Verdict.SUPPORTED)], 70, (60, 80))], T2_POOL, ["E1"]).sources
    names = [f.name for f in evidence_quality(refs, _debate(["E1"], refuse=True))]
    assert names == ["thin_evidence", "secondary_only", "debater_refused"]


@pytest.mark.parametrize(("stronger", "expected"), [("A", "for"), ("B", "against")])
def test_stronger_side_is_the_side_behind_the_judges_label(stronger: str, expected: str) -> None:
    judgement = Judgement(
        sub_claims=[_sj(1, 80, Verdict.SUPPORTED, stronger)],  # type: ignore[arg-type]
        overall_score=80,
        overall_interval=Interval(low=70, high=88),
        adjustment_reason=None,
        decisive_evidence_id=None,
    )
    result = _result([judgement], T1_POOL, ["G1"], sides={"A": "for", "B": "against"})
    assert result.sub_claims[0].stronger_side == expected


# ---------------------------------------------------------------- whatever the judge says


_verdicts = st.sampled_from(list(Verdict))


@st.composite
def _judgements(draw: st.DrawFn) -> tuple[list[Judgement], Shape, list[str]]:
    n = draw(st.integers(1, 4))
    shape = draw(st.sampled_from(SHAPES))

    def one() -> Judgement:
        overall = draw(st.integers(0, 100))
        low = draw(st.integers(0, overall))
        high = draw(st.integers(overall, 100))
        reason = draw(st.one_of(st.none(), st.just("a stated reason")))
        return _judgement(
            [(draw(st.integers(0, 100)), draw(_verdicts)) for _ in range(n)], overall, (low, high), reason
        )

    judgements = [one() for _ in range(draw(st.integers(1, 4)))]
    cites = draw(st.lists(st.sampled_from(["G1", "E1", "E2", "E3"]), max_size=4))
    return judgements, shape, cites


@settings(max_examples=300, deadline=None)
@given(_judgements(), st.booleans())
def test_no_judgement_makes_score_interval_and_sub_claims_contradict(
    case: tuple[list[Judgement], Shape, list[str]], refuse: bool
) -> None:
    judgements, shape, cites = case
    result = _result(judgements, [*T2_POOL, T1_POOL[0]], cites, shape=shape, refuse=refuse)
    _consistent(result)
    assert result.judge_score == judgements[0].overall_score


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 100), min_size=1, max_size=6), st.sampled_from(SHAPES))
def test_composition_lies_within_the_bounds_and_one_sub_claim_is_its_own_claim(
    scores: list[int], shape: Shape
) -> None:
    low, high = bounds(scores, shape)
    assert low <= compose(scores, shape) <= high
    assert compose(scores[:1], shape) == scores[0]


# ---------------------------------------------------------------- found in review


def test_identical_samples_add_no_spread_even_when_the_judge_departed() -> None:
    one = _judgement([(60, Verdict.SUPPORTED), (60, Verdict.SUPPORTED)], 60, (55, 65), reason="same survey")
    alone = _result([one], T1_POOL, ["G1", "G2", "G3"])
    sampled = _result([one] * 4, T1_POOL, ["G1", "G2", "G3"])
    assert (
        (sampled.overall_score, sampled.interval)
        == (alone.overall_score, alone.interval)
        == (60, Interval(low=55, high=65))
    )


def test_poor_evidence_widens_even_an_interval_drawn_as_a_point() -> None:
    point = _judgement([(90, Verdict.SUPPORTED)], 90, (90, 90))
    result = _result([point], T2_POOL, [])
    assert result.interval.high - result.interval.low >= 20
    _consistent(result)


def test_a_claim_resting_only_on_the_users_own_context_is_not_supported() -> None:
    pool = [_evidence("U1").model_copy(update={"source_url": "user-context:1"})]
    result = _result([_judgement([(90, Verdict.SUPPORTED)], 90, (85, 95))], pool, ["U1"])
    assert result.overall_verdict is not Verdict.SUPPORTED and result.overall_score < 65
    assert any("user_context_only" in a.detail for a in result.adjustments)


def test_a_refusing_debater_widens_the_interval_but_does_not_pull_the_score() -> None:
    judgement = _judgement([(3, Verdict.REFUTED)], 3, (1, 8))
    result = _result([judgement], T1_POOL, ["G1", "G2", "G3"], refuse=True)
    assert result.overall_score == 3 and result.interval.high > 8


def test_adjustments_quote_the_judges_own_numbers() -> None:
    judgement = _judgement([(61, Verdict.SUPPORTED), (95, Verdict.SUPPORTED)], 88, (80, 94))
    result = _result([judgement], T2_POOL, ["E1"], shape="facets")  # thin and secondary: 61 reads 59
    composed = next(a for a in result.adjustments if a.kind == "composition")
    assert composed.before == 88 and "the judge said 88" in composed.detail
    band = next(a for a in result.adjustments if a.kind == "verdict_band")
    assert "supported at 61, reported as 59" in band.detail


def test_a_pull_for_evidence_quality_is_named_as_such_not_blamed_on_the_judge() -> None:
    # Given a judge that followed the rule (20, its one sub-claim 20) on a pool of the user's own context
    pool = [_evidence("U1").model_copy(update={"source_url": "user-context:1"})]
    result = _result([_judgement([(20, Verdict.REFUTED)], 20, (10, 35))], pool, ["U1"])
    # Then nothing says the judge departed from the rule: the change is the evidence's quality
    assert not [a for a in result.adjustments if a.kind == "composition"]
    [overall] = [a for a in result.adjustments if a.target == "overall"]
    assert (overall.kind, overall.before, overall.after) == ("evidence_quality", 20, result.overall_score)
    assert "user_context_only" in overall.detail
    # and the judge's own interval is kept, each interval change with its numbers before and after
    assert result.judge_interval == Interval(low=10, high=35)
    steps = [a for a in result.adjustments if a.target == "interval"]
    assert steps[0].before_interval == Interval(low=10, high=35)
    assert steps[-1].after_interval == result.interval
    for earlier, later in itertools.pairwise(steps):
        assert earlier.after_interval == later.before_interval
    assert all(a.before is not None and a.after is not None for a in result.adjustments)
    # and the result says whose material it rests on
    assert any("rests only on the material you supplied" in w for w in result.warnings)


def test_a_decisive_source_from_the_users_context_is_named_in_a_warning() -> None:
    user = _evidence("U1").model_copy(update={"source_url": "user-context:1"})
    judgement = _judgement([(75, Verdict.SUPPORTED)], 75, (65, 85)).model_copy(
        update={"decisive_evidence_id": "U1"}
    )
    result = _result([judgement], [*T1_POOL, user], ["G1", "G2", "G3", "U1"])
    assert any("decisive source is your own material (user-context:1)" in w for w in result.warnings)
    plain = _result([_judgement([(75, Verdict.SUPPORTED)], 75, (65, 85))], T1_POOL, ["G1", "G2", "G3"])
    assert not any("your own material" in w for w in plain.warnings)


def test_every_adjustment_carries_its_numbers_before_and_after() -> None:
    samples = [
        _judgement([(61, Verdict.SUPPORTED), (s, Verdict.SUPPORTED)], 88, (80, 96)) for s in (95, 70, 99)
    ]
    result = _result(samples, T2_POOL, ["E1"], shape="facets")
    kinds = {a.kind for a in result.adjustments}
    assert {"composition", "evidence_quality", "self_consistency", "verdict_band"} <= kinds
    assert all(a.before is not None and a.after is not None for a in result.adjustments)


def test_a_result_the_judge_decided_on_the_users_material_alone_is_discounted_whatever_else_was_cited() -> (
    None
):
    # Given retrieved passages cited in passing, and the user's own passage the only decisive source
    user = _evidence("U1").model_copy(update={"source_url": "user-context:1"})
    judged = _judgement([(80, Verdict.SUPPORTED)], 80, (70, 90))
    judged = judged.model_copy(
        update={
            "decisive_evidence_id": "U1",
            "sub_claims": [judged.sub_claims[0].model_copy(update={"decisive_evidence_id": "U1"})],
        }
    )
    result = _result([judged], [*T1_POOL, user], ["G1", "G2", "G3", "U1"])
    # Then the one discount for the user's material applies, named
    assert any("user_context_only" in a.detail and "decisive" in a.detail for a in result.adjustments)
    assert result.overall_score < 65 and result.overall_verdict is not Verdict.SUPPORTED
    # and where a found passage decided it, it does not
    found = judged.model_copy(update={"decisive_evidence_id": "G1"})
    assert not any(
        "user_context_only" in a.detail for a in _result([found], [*T1_POOL, user], ["G1", "U1"]).adjustments
    )
