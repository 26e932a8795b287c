"""The rubric judge (`judge: rubric`) through the real state machine, with the scripted reasoner: its
0–10 ratings read onto the 0–100 contract, its own words kept, every reading named."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from claimcourt.adjudication.rubric import rubric_task
from claimcourt.models import (
    AdjudicateInput,
    HierarchyRating,
    RubricJudgement,
    RunRecord,
    SubClaimRubric,
    Verdict,
)
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps
from tests.fakes.scripted import ScriptedProvider

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60
Runtime = Callable[[Deps], Any]


def rating(
    value: int | None, levels: tuple[int | None, int | None] = (6, 3)
) -> Callable[[Any], RubricJudgement]:
    """A rubric judge that rates every sub-claim and the claim `value`; positions A and B at `levels`."""

    def reply(task: Any) -> RubricJudgement:
        inputs: AdjudicateInput = task.inputs
        return RubricJudgement(
            hierarchy=[
                HierarchyRating(position=label, sub_claim_id=s.id, level=level, comment=f"{label} on {s.id}")
                for s in inputs.sub_claims
                for label, level in zip(("A", "B"), levels, strict=True)
            ],
            sub_claims=[
                SubClaimRubric(
                    sub_claim_id=s.id,
                    rating=value,
                    referee_synthesis="rated by the rubric",
                    decisive_evidence_id=None,
                    stronger_position="neither",
                )
                for s in inputs.sub_claims
            ],
            rating=value,
            adjustment_reason=None,
            decisive_evidence_id=None,
        )

    return reply


@pytest.mark.parametrize(
    ("value", "verdict", "judge_score"),
    [
        (2, Verdict.REFUTED, 20),
        (None, Verdict.NOT_ENOUGH_EVIDENCE, 50),
        (5, Verdict.CONFLICTING, 50),
        (8, Verdict.SUPPORTED, 80),
    ],
)
def test_a_rubric_rating_is_read_onto_the_contract_through_the_state_machine(
    make_deps: Any,
    runtime: Runtime,
    new_run: Callable[..., RunRecord],
    store: SqliteStore,
    value: int | None,
    verdict: Verdict,
    judge_score: int,
) -> None:
    # Given a rubric judge that rates the claim `value`
    provider = ScriptedProvider().respond("adjudicate_rubric", rating(value))
    run = new_run(judge="rubric")
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None
    # Then the claim's verdict is the rating's reading, in its band
    assert result.overall_verdict is verdict
    if verdict is Verdict.REFUTED:
        assert result.overall_score <= 40 and result.interval.high < 60
    elif verdict is Verdict.SUPPORTED:
        assert result.overall_score >= 60 and result.interval.low > 40
    else:
        assert 40 < result.overall_score < 60
    if value is None:  # needs more evidence: near 50, with a wide interval
        assert result.interval.high - result.interval.low >= 60
    # and the judge's own words are kept: its rating, and the rating read as the judge's score
    assert result.judge == "rubric" and result.rubric is not None
    assert (result.rubric.rating, result.rubric.sub_claims) == (value, {"sc1": value})
    assert result.judge_score == judge_score
    # and the reading is the first adjustment named, before any the contract made after it
    first = result.adjustments[0]
    assert (first.target, first.kind, first.before, first.after) == (
        "overall",
        "rubric_scale",
        value,
        judge_score,
    )
    assert {a.target for a in result.adjustments if a.kind == "rubric_scale"} == {"overall", "sc1"}
    # and only the rubric judge was asked, over the anonymized debate
    assert provider.calls_of("adjudicate") == []
    [call] = provider.calls_of("adjudicate_rubric")
    task = rubric_task(call.inputs)  # type: ignore[arg-type]
    read = task.system_text + task.user_text  # the debate is in the opening, round by round
    assert '<argument position="A"' in read and "case-for" not in read.lower()


def test_the_hierarchy_is_reported_by_side_through_the_judges_anonymous_labels(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    provider = ScriptedProvider().respond("adjudicate_rubric", rating(7, levels=(6, None)))
    run = new_run(judge="rubric", first="for")
    assert runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S).status == "SUCCEEDED"
    mapping = store.get_artifact(run.run_id, "judgement/s00")["mapping"]
    result = store.get_run(run.run_id).result
    assert result is not None and result.rubric is not None
    by_side = {h.side: (h.level, h.name, h.comment) for h in result.rubric.hierarchy}
    assert by_side == {
        mapping["A"]: (6, "DH6 refuting the central point", "A on sc1"),
        mapping["B"]: (None, "", "B on sc1"),
    }
    # and the stored judgement keeps the judge's own reply beside its reading
    stored = store.get_artifact(run.run_id, "judgement/s00")
    assert stored["rubric"]["rating"] == 7 and stored["judgement"]["overall_score"] == 72


def test_the_offline_rubric_judge_runs_end_to_end_and_samples_as_the_contracts_judge(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given the offline reasoner in every role, at effort high (self-consistency samples), rubric judge
    run = new_run(judge="rubric", effort="high", rounds=2, first="against")
    execution = runtime(make_deps()).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None and result.rubric is not None and result.reasoner == "offline"
    # Then every sample was the rubric judge's, and each is kept with its reading
    samples = store.find_artifacts(run.run_id, "judgement/")
    assert len(samples) >= 2 and all(doc["rubric"] is not None for doc in samples.values())
    assert result.interval_method == "judge+self_consistency"
    # and the verdict agrees with the rating the run reports
    reading = {"supported": Verdict.SUPPORTED, "contradicted": Verdict.REFUTED}.get(result.rubric.reading)
    if reading is not None:
        assert result.sub_claims[0].verdict is reading
    assert (result.rounds, result.first, result.judge) == (2, "against", "rubric")
