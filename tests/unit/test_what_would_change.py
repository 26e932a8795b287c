"""`what_would_change` as objects (issue 27): what a judge may say (a direction of two, a sub-claim of the
run or none), how a result stored before them (sentences) still loads and reads, the one line the CLI
and the markdown export print, and the played judges' replies, every one of them objects."""

from __future__ import annotations

import io
from typing import Any

import pytest
from pydantic import ValidationError
from rich.console import Console

from claimcourt.adjudication.adjudicate import adjudicate_task
from claimcourt.adjudication.rubric import rubric_task
from claimcourt.bench.played_corpus import corpus_files, load
from claimcourt.local.render import render_result
from claimcourt.models import (
    AdjudicateInput,
    Direction,
    Interval,
    Judgement,
    Result,
    RubricJudgement,
    ScoreMover,
    StructuralAnalysis,
    SubClaim,
    SubClaimJudgement,
    SubClaimRubric,
    Usage,
    Verdict,
    WouldChange,
)

LEAD = {
    "direction": "toward 100",
    "what": "A peer-reviewed measurement of September extent since 1979.",
    "where_to_look": "journals, 'Arctic sea ice extent trend'",
    "sub_claim": "sc2",
}


def test_a_lead_takes_one_of_two_directions_and_names_a_sub_claim_or_none() -> None:
    lead = WouldChange.model_validate(LEAD)
    assert lead.direction is Direction.TOWARD_100
    assert WouldChange.model_validate(LEAD | {"sub_claim": None}).sub_claim is None
    for wrong in ({"direction": "up"}, {"direction": None}, {"what": ""}, {"extra": 1}):
        with pytest.raises(ValidationError):
            WouldChange.model_validate(LEAD | wrong)
    with pytest.raises(ValidationError):  # sub_claim must be said, even as null
        WouldChange.model_validate({k: v for k, v in LEAD.items() if k != "sub_claim"})


def test_the_judges_tool_schema_tells_the_model_each_field() -> None:
    schema = Judgement.model_json_schema()
    item = schema["$defs"]["WouldChange"]
    assert item["properties"]["direction"]["$ref"].endswith("Direction")
    assert schema["$defs"]["Direction"]["enum"] == ["toward 0", "toward 100"]
    assert set(item["required"]) == {"direction", "what", "where_to_look", "sub_claim"}
    assert all(item["properties"][f].get("description") for f in ("what", "where_to_look", "sub_claim"))


def test_one_line_each_arrow_direction_sub_claim_what_and_where() -> None:
    lead = ScoreMover.model_validate(LEAD)
    assert lead.line() == (
        "↑ toward 100 — sc2: A peer-reviewed measurement of September extent since 1979. "
        "(look: journals, 'Arctic sea ice extent trend')"
    )
    whole = ScoreMover.model_validate(
        LEAD | {"direction": "toward 0", "sub_claim": None, "where_to_look": ""}
    )
    assert (
        whole.line() == "↓ toward 0 — the claim: A peer-reviewed measurement of September extent since 1979."
    )


def _result(what_would_change: list[Any]) -> Result:
    return Result.model_validate(
        {
            "run_id": "run_1",
            "claim": "Arctic sea ice has declined since 1979",
            "mode": "spectral",
            "overall_score": 80,
            "interval": Interval(low=70, high=90),
            "overall_verdict": Verdict.SUPPORTED,
            "interval_method": "judge",
            "rounds": 2,
            "sub_claims": [],
            "what_would_change": what_would_change,
            "structural_analysis": StructuralAnalysis(),
            "sources": [],
            "reasoner": "anthropic",
            "usage": Usage(),
        }
    )


def _printed(result: Result) -> str:
    out = io.StringIO()
    render_result(Console(file=out, width=400, color_system=None), result)
    return out.getvalue()


def test_a_result_stored_with_sentences_loads_with_direction_unknown_and_reads_as_it_was() -> None:
    old = "Satellite data showing no decline would lower the score."
    stored = _result([LEAD]).model_dump(mode="json") | {"what_would_change": [old]}
    result = Result.model_validate_json(Result.model_validate(stored).model_dump_json())
    [lead] = result.what_would_change
    assert (lead.direction, lead.what, lead.where_to_look, lead.sub_claim) == (None, old, "", None)
    assert lead.line() == old
    printed = _printed(result)
    assert f"  • {old}" in printed and "toward" not in printed


def test_the_cli_prints_one_readable_line_per_lead() -> None:
    printed = _printed(_result([LEAD, LEAD | {"direction": "toward 0", "sub_claim": None}]))
    lines = printed[printed.index("What would change this score") :].splitlines()[1:3]
    assert lines == [
        "  ↑ toward 100 — sc2: A peer-reviewed measurement of September extent since 1979. "
        "(look: journals, 'Arctic sea ice extent trend')",
        "  ↓ toward 0 — the claim: A peer-reviewed measurement of September extent since 1979. "
        "(look: journals, 'Arctic sea ice extent trend')",
    ]


def _inputs() -> AdjudicateInput:
    subs = [SubClaim(id=f"sc{i}", text=f"sub-claim {i}", directive=f"query {i}") for i in (1, 2)]
    return AdjudicateInput(
        claim="c", mode="spectral", sub_claims=subs, shape="all", positions=[], evidence=[]
    )


def test_the_judges_check_names_a_lead_on_a_sub_claim_the_run_does_not_have() -> None:
    judged = [
        SubClaimJudgement(
            sub_claim_id=f"sc{i}", score=70, verdict=Verdict.SUPPORTED, referee_synthesis="s",
            decisive_evidence_id=None, stronger_position="A",
        )
        for i in (1, 2)
    ]  # fmt: skip
    leads = [WouldChange.model_validate(LEAD), WouldChange.model_validate(LEAD | {"sub_claim": "sc9"})]
    judgement = Judgement(
        sub_claims=judged, overall_score=60, overall_interval=Interval(low=50, high=70),
        adjustment_reason=None, decisive_evidence_id=None, what_would_change=leads,
    )  # fmt: skip
    task = adjudicate_task(_inputs())
    assert task.problems(judgement) == ["what_would_change[1].sub_claim sc9 is not a sub-claim"]
    assert task.problems(judgement.model_copy(update={"what_would_change": leads[:1]})) == []

    rated = [
        SubClaimRubric(
            sub_claim_id=f"sc{i}", rating=7, referee_synthesis="s", decisive_evidence_id=None,
            stronger_position="A",
        )
        for i in (1, 2)
    ]  # fmt: skip
    reply = RubricJudgement(
        hierarchy=[], sub_claims=rated, rating=7, adjustment_reason=None, decisive_evidence_id=None,
        what_would_change=leads,
    )  # fmt: skip
    assert rubric_task(_inputs()).problems(reply) == ["what_would_change[1].sub_claim sc9 is not a sub-claim"]


JUDGE_REPLIES = [
    (path.stem, key, call.reply)
    for path in corpus_files()
    for key, call in load(path).calls.items()
    if key.startswith("adjudicate:") and call.reply is not None
]


@pytest.mark.parametrize(
    ("run", "key", "reply"), JUDGE_REPLIES, ids=[f"{r}:{k}" for r, k, _ in JUDGE_REPLIES]
)
def test_every_played_judge_reply_gives_its_leads_as_objects_on_the_runs_sub_claims(
    run: str, key: str, reply: Any
) -> None:
    model = RubricJudgement if "adjudicate_rubric" in key else Judgement
    judged = model.model_validate(reply)
    assert judged.what_would_change, f"{run} {key}: no lead"
    ids = {s.sub_claim_id for s in judged.sub_claims}
    assert all(lead.sub_claim in ids | {None} for lead in judged.what_would_change)
    assert all(lead.where_to_look for lead in judged.what_would_change)


def test_the_played_corpus_holds_judge_replies_of_both_kinds() -> None:
    kinds = {key.split("::")[1].split(":")[0] for _, key, _ in JUDGE_REPLIES}
    assert kinds == {"adjudicate", "adjudicate_rubric"} and len(JUDGE_REPLIES) >= 16
