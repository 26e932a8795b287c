"""The scorecard's baselines: one call each, under the score bands, answered by the offline reasoner too."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcourt.adjudication.baselines import band_problems, baseline_task, in_band, judge_baseline
from claimcourt.errors import RefusedJudgementError
from claimcourt.models import BaselineInput, BaselineJudgement, Evidence, Interval, Verdict
from claimcourt.reasoning.base import CallContext
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.scripted import PRICED_MODEL, Refuse, ScriptedProvider

CLAIM = "Arctic sea ice extent has declined since 1979"
PASSAGE = Evidence(
    id="E1",
    text="Satellite records show that Arctic sea ice extent has declined since 1979.",
    title="Arctic sea ice decline",
    source_url="https://en.wikipedia.org/wiki/Arctic_sea_ice_decline",
    tier="T2",
    query=CLAIM,
    sub_claim_id="rag",
    round=1,
)


def _judgement(score: int, verdict: Verdict, decisive: str | None = None) -> BaselineJudgement:
    return BaselineJudgement(
        score=score,
        interval=Interval(low=max(0, score - 10), high=min(100, score + 10)),
        verdict=verdict,
        decisive_evidence_id=decisive,
    )


def test_the_offline_single_judge_has_no_prior_and_says_so() -> None:
    reply = OfflineReasoner().complete(baseline_task("baseline_judge", BaselineInput(claim=CLAIM)), "offline")
    judged = BaselineJudgement.model_validate(reply.content)
    assert (judged.score, judged.verdict) == (50, Verdict.NOT_ENOUGH_EVIDENCE)
    assert judged.interval.high - judged.interval.low >= 60  # as wide as its judge draws an empty pool


def test_the_offline_naive_rag_judges_the_claim_from_the_passages_found() -> None:
    task = baseline_task("baseline_rag", BaselineInput(claim=CLAIM, evidence=[PASSAGE]))
    judged = BaselineJudgement.model_validate(OfflineReasoner().complete(task, "offline").content)
    assert judged.score > 50 and judged.decisive_evidence_id == "E1"
    assert not band_problems(judged, {"E1"})


def test_a_verdict_its_score_cannot_carry_is_asked_again_then_follows_the_band(tmp_path: Path) -> None:
    provider = ScriptedProvider().queue(
        "baseline_judge", _judgement(45, Verdict.SUPPORTED), _judgement(45, Verdict.SUPPORTED)
    )
    store = SqliteStore(tmp_path / "s.sqlite3")
    reasoner = Reasoner({provider.name: provider}, lambda role: (provider.name, PRICED_MODEL), store, 1.0)
    judged = judge_baseline(
        "baseline_judge", BaselineInput(claim=CLAIM), reasoner, CallContext("b1", "bench")
    )
    assert judged.verdict is Verdict.NOT_ENOUGH_EVIDENCE and judged.score == 45
    assert [c.kind for c in provider.calls] == ["baseline_judge", "baseline_judge"]
    assert "supported needs score 60" in (provider.calls[1].feedback or "")
    assert provider.calls[0].role == "adjudicator"  # the debate judge's model


def test_a_refused_baseline_is_a_refused_judgement(tmp_path: Path) -> None:
    provider = ScriptedProvider().queue("baseline_rag", Refuse())
    store = SqliteStore(tmp_path / "s.sqlite3")
    reasoner = Reasoner({provider.name: provider}, lambda role: (provider.name, PRICED_MODEL), store, 1.0)
    with pytest.raises(RefusedJudgementError):
        judge_baseline("baseline_rag", BaselineInput(claim=CLAIM), reasoner, CallContext("b2", "bench"))


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (_judgement(70, Verdict.NOT_ENOUGH_EVIDENCE), Verdict.SUPPORTED),
        (_judgement(30, Verdict.CONFLICTING), Verdict.REFUTED),
        (_judgement(50, Verdict.REFUTED), Verdict.NOT_ENOUGH_EVIDENCE),
        (_judgement(50, Verdict.CONFLICTING), Verdict.CONFLICTING),
    ],
)
def test_the_repair_puts_the_verdict_in_its_scores_band(given: BaselineJudgement, expected: Verdict) -> None:
    assert in_band(given, None).verdict is expected


def test_an_evidence_id_outside_the_pool_is_a_problem_and_is_dropped() -> None:
    judged = _judgement(80, Verdict.SUPPORTED, decisive="E404")
    assert band_problems(judged, {"E1"}) == ["decisive_evidence_id E404 is not an evidence id of the pool"]
    assert in_band(judged, {"E1"}).decisive_evidence_id is None


def test_the_interval_must_hold_the_score() -> None:
    with pytest.raises(ValueError, match="must contain score"):
        BaselineJudgement(score=90, interval=Interval(low=10, high=20), verdict=Verdict.SUPPORTED)
