"""The offline reasoner: deterministic, evidence-driven, and every reply fits its model."""

from __future__ import annotations

import re
from typing import Any

import pytest

from claimcourt.adjudication.adjudicate import adjudicate_task
from claimcourt.adjudication.anonymize import debate_so_far
from claimcourt.debate.argue import argue_task
from claimcourt.debate.decompose import decompose_task
from claimcourt.debate.moderate import moderate_task
from claimcourt.debate.suitability import suitability_task
from claimcourt.models import (
    AdjudicateInput,
    AnonymousPosition,
    ArgueInput,
    Argument,
    DecomposeInput,
    Evidence,
    ModerateInput,
    Point,
    SubClaim,
    SuitabilityFlag,
    SuitabilityInput,
    Verdict,
)
from claimcourt.reasoning.base import Task, validate_reply
from claimcourt.reasoning.offline import OfflineReasoner

SEA = SubClaim(id="sc1", text="Sea levels are rising", directive="sea levels rising")


def _e(eid: str, text: str, tier: str = "T2") -> Evidence:
    return Evidence(
        id=eid,
        text=text,
        title=f"title {eid}",
        source_url=f"https://{'noaa.gov' if tier == 'T1' else 'example.org'}/{eid}",
        tier=tier,  # type: ignore[arg-type]
        query="sea levels rising",
        sub_claim_id="sc1",
        round=1,
    )


SUPPORT = _e("Esup", "Global sea levels are rising, measured by satellites and tide gauges.", "T1")
SUPPORT2 = _e("Esup2", "Tide gauges confirm that sea levels are rising along most coasts.")
REFUTE = _e("Eref", "Sea levels are not rising, according to the old tide gauge records.")
OFF_TOPIC = _e("Eoff", "Bananas are a popular yellow fruit grown in the tropics.")
POOL = [SUPPORT, SUPPORT2, REFUTE, OFF_TOPIC]


def _argue(side: str, evidence: list[Evidence] = POOL) -> ArgueInput:
    return ArgueInput(claim=SEA.text, side=side, round=1, sub_claims=[SEA], evidence=evidence)  # type: ignore[arg-type]


def _adjudicate(evidence: list[Evidence], sample: int = 0) -> AdjudicateInput:
    return AdjudicateInput(
        claim=SEA.text,
        mode="spectral",
        sub_claims=[SEA],
        shape="all",
        positions=[
            AnonymousPosition(label="A", round=1, points=[_pt(80)]),
            AnonymousPosition(label="B", round=1, points=[_pt(30)]),
        ],
        evidence=evidence,
        sample=sample,
    )


def _pt(score: int, *cites: str) -> Point:
    return Point(sub_claim_id="sc1", argument="a", implied_score=score, confidence=0.5, citations=list(cites))


def _every_task() -> list[Task[Any]]:
    case_for = Argument(side="for", round=1, points=[_pt(90, "Esup")])
    case_against = Argument(side="against", round=1, points=[_pt(20, "Eref")])
    debate, labels = debate_so_far([case_for, case_against], "run", None, before=2)
    return [
        suitability_task(SuitabilityInput(claim=SEA.text)),
        suitability_task(
            SuitabilityInput(claim=SEA.text, sub_claims=[SEA, SEA.model_copy(update={"id": "sc2"})])
        ),
        decompose_task(
            DecomposeInput(claim="Sea levels are rising and glaciers are melting", max_sub_claims=4)
        ),
        argue_task(_argue("for")),
        argue_task(_argue("against")),
        moderate_task(
            ModerateInput(
                claim=SEA.text,
                round=1,
                sub_claims=[SEA],
                case_for=case_for,
                case_against=case_against,
                evidence=POOL,
                previous_queries=["sea levels rising"],
                debate=debate,
                labels=labels,
            )
        ),
        adjudicate_task(_adjudicate(POOL)),
        adjudicate_task(_adjudicate(POOL, sample=2)),
    ]


@pytest.mark.parametrize("task", _every_task(), ids=lambda t: f"{t.kind}-{getattr(t.inputs, 'side', '')}")
def test_every_reply_validates_into_its_model_and_costs_nothing(task: Task[Any]) -> None:
    reply = OfflineReasoner().complete(task, "offline")
    assert reply.refusal is None
    assert isinstance(validate_reply(task, reply.content), task.output)
    assert (reply.model, reply.input_tokens, reply.output_tokens) == ("offline", 0, 0)


@pytest.mark.parametrize("task", _every_task(), ids=lambda t: f"{t.kind}-{getattr(t.inputs, 'side', '')}")
def test_same_inputs_give_the_same_reply(task: Task[Any]) -> None:
    assert OfflineReasoner().complete(task, "offline") == OfflineReasoner().complete(task, "offline")


# ================================================================ suitability


@pytest.mark.parametrize(
    ("claim", "flag", "proceed"),
    [
        ("This statement is false.", SuitabilityFlag.SELF_REFERENTIAL, False),
        ("God rewards the faithful in the afterlife", SuitabilityFlag.UNFALSIFIABLE, False),
        ("Are sea levels rising?", SuitabilityFlag.NOT_A_CLAIM, False),
        ("The stock market will crash tomorrow", SuitabilityFlag.TIME_SENSITIVE, True),
    ],
)
def test_suitability_flags(claim: str, flag: SuitabilityFlag, proceed: bool) -> None:
    result = OfflineReasoner().suitability(SuitabilityInput(claim=claim))
    assert flag in result.flags
    assert result.proceed is proceed
    assert len(result.warnings) == len(result.flags)


def test_plain_factual_claim_has_no_flags() -> None:
    result = OfflineReasoner().suitability(SuitabilityInput(claim="Sea levels are rising"))
    assert (result.proceed, result.flags, result.warnings) == (True, [], [])


# ================================================================ decomposition


def test_compound_claim_splits_into_two_sub_claims() -> None:
    result = OfflineReasoner().decompose(
        DecomposeInput(claim="Sea levels are rising and glaciers are retreating worldwide", max_sub_claims=4)
    )
    assert [s.id for s in result.sub_claims] == ["sc1", "sc2"]
    assert [s.text for s in result.sub_claims] == [
        "Sea levels are rising",
        "glaciers are retreating worldwide",
    ]
    assert all(s.directive for s in result.sub_claims)


@pytest.mark.parametrize(
    "claim",
    [
        "A global network of 500 scientists and professionals has prepared this urgent message",  # nouns
        "They propose a plausible and terrifying scenario whereby humanity could face collapse",  # adjectives
        # "then they" points back:
        "Temperatures cooled from about 1940 to 1975, and then they rose from about 1975 to 2005",
        "Coral becomes stressed and expels the algae that live in its tissues",  # no subject of its own
    ],
)
def test_a_claim_splits_only_into_clauses_of_their_own(claim: str) -> None:
    result = OfflineReasoner().decompose(DecomposeInput(claim=claim, max_sub_claims=4))
    assert [s.text for s in result.sub_claims] == [claim]


def test_simple_claim_is_one_sub_claim() -> None:
    result = OfflineReasoner().decompose(DecomposeInput(claim="Sea levels are rising", max_sub_claims=4))
    assert [(s.id, s.text, s.directive) for s in result.sub_claims] == [
        ("sc1", "Sea levels are rising", "sea levels rising")
    ]


def test_decomposition_after_the_audits_feedback_is_the_whole_claim() -> None:
    claim = "Sea levels are rising and glaciers are retreating worldwide"
    result = OfflineReasoner().decompose(DecomposeInput(claim=claim, max_sub_claims=4, feedback=["gap: x"]))
    assert [s.text for s in result.sub_claims] == [claim]


def test_the_suitability_check_audits_a_split_accepting_a_clean_one_and_reporting_a_gap() -> None:
    offline = OfflineReasoner()
    claim = "Sea levels are rising and glaciers are retreating worldwide"
    split = offline.decompose(DecomposeInput(claim=claim, max_sub_claims=4)).sub_claims
    audit = offline.suitability(SuitabilityInput(claim=claim, sub_claims=split)).audit
    assert audit is not None and audit.ok
    # two parts that leave most of the claim untested: a gap
    partial = [SEA, SEA.model_copy(update={"id": "sc2", "text": "Sea level rise"})]
    audit = offline.suitability(SuitabilityInput(claim=claim, sub_claims=partial)).audit
    assert audit is not None and not audit.ok and audit.gaps and audit.overlaps
    # a claim debated whole: no audit
    assert offline.suitability(SuitabilityInput(claim=claim, sub_claims=[SEA])).audit is None


# ================================================================ debaters


def test_case_for_cites_the_supporting_passages() -> None:
    [point] = OfflineReasoner().argue(_argue("for")).points
    assert point.citations[:2] == ["Esup", "Esup2"]
    assert "Eref" not in point.citations and "Eoff" not in point.citations


def test_case_against_cites_the_refuting_passage() -> None:
    [point] = OfflineReasoner().argue(_argue("against")).points
    assert point.citations == ["Eref"]


def test_sides_lean_their_own_way() -> None:
    offline = OfflineReasoner()
    pro = offline.argue(_argue("for")).points[0]
    con = offline.argue(_argue("against")).points[0]
    assert pro.implied_score > con.implied_score


def test_a_side_with_nothing_to_cite_says_so_with_low_confidence() -> None:
    [point] = OfflineReasoner().argue(_argue("against", [SUPPORT, SUPPORT2])).points
    assert point.confidence == 0.2
    assert "No passage" in point.argument


def test_the_closing_round_cites_only_what_the_side_cited_before() -> None:
    # Given the closing round: the case for cited only Esup2 before, the case against nothing
    closing = {"round": 2, "max_rounds": 2}
    pro = _argue("for").model_copy(update={**closing, "cited_before": ["Esup2"]})
    con = _argue("against").model_copy(update=closing)
    offline = OfflineReasoner()
    [for_point] = offline.argue(pro).points
    [against_point] = offline.argue(con).points
    # Then, as the prompt tells a model, neither cites (nor names in its text) anything new
    assert for_point.citations == ["Esup2"]
    assert re.findall(r"\[(\w+)\]", for_point.argument) == ["Esup2"]
    assert against_point.citations == [] and "[" not in against_point.argument
    assert against_point.argument.endswith(".") and against_point.confidence == 0.2


# ================================================================ moderator and judge


def test_moderator_aims_at_a_query_not_yet_run() -> None:
    task = _every_task()[5]
    view = OfflineReasoner().moderate(task.inputs)  # type: ignore[arg-type]
    assert view.dispute_sub_claim_id == "sc1"
    assert view.next_query.lower() != "sea levels rising"
    assert view.recommendation == "continue"  # 90 vs 20: far apart


def test_moderator_calls_convergence_when_the_sides_agree() -> None:
    inputs = ModerateInput(
        claim=SEA.text,
        round=2,
        sub_claims=[SEA],
        case_for=Argument(side="for", round=2, points=[_pt(75)]),
        case_against=Argument(side="against", round=2, points=[_pt(70)]),
        evidence=POOL,
    )
    assert OfflineReasoner().moderate(inputs).recommendation == "converged"


@pytest.mark.parametrize(
    ("evidence", "verdict"),
    [
        ([SUPPORT, SUPPORT2], Verdict.SUPPORTED),
        ([REFUTE, _e("Eref2", "It is false that sea levels are rising.")], Verdict.REFUTED),
        ([OFF_TOPIC], Verdict.NOT_ENOUGH_EVIDENCE),
        ([], Verdict.NOT_ENOUGH_EVIDENCE),
    ],
    ids=["supported", "refuted", "off-topic", "no-evidence"],
)
def test_judge_follows_clear_evidence(evidence: list[Evidence], verdict: Verdict) -> None:
    judgement = OfflineReasoner().adjudicate(_adjudicate(evidence))
    [sub] = judgement.sub_claims
    assert sub.verdict is verdict
    if verdict is Verdict.SUPPORTED:
        assert sub.score >= 60 and sub.decisive_evidence_id == "Esup"
    if verdict is Verdict.REFUTED:
        assert sub.score <= 40 and sub.decisive_evidence_id in {"Eref", "Eref2"}


def test_judge_sees_conflict_when_both_directions_weigh_alike() -> None:
    [sub] = OfflineReasoner().adjudicate(_adjudicate([SUPPORT2, REFUTE])).sub_claims
    assert sub.verdict is Verdict.CONFLICTING


def test_self_consistency_samples_resample_deterministically() -> None:
    offline = OfflineReasoner()
    assert offline.adjudicate(_adjudicate(POOL, sample=1)) == offline.adjudicate(_adjudicate(POOL, sample=1))
