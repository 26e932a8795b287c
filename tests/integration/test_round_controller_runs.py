"""The round controller steering real runs: scripted debates through the real state machine (the
Control state after every round, the AnotherRound? Choice reading its decision)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from claimcourt import artifacts
from claimcourt.adjudication.adjudicate import adjudicate_task
from claimcourt.evidence.base import Hit
from claimcourt.models import (
    ArgumentDraft,
    Interval,
    Judgement,
    ModeratorView,
    Point,
    Redeliberation,
    RoundDecision,
    RunRecord,
    Verdict,
)
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore
from tests.conftest import golden
from tests.fakes.scripted import ScriptedProvider

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60
# Each round's words are new (and its scores move): the debate keeps moving until something else stops it.
FRESH = [
    "Tide gauges along stable coasts record a steady rise through the century.",
    "Satellite altimetry since 1993 measures the global mean directly.",
    "Thermal expansion of warming oceans accounts for a third of the rise.",
    "Greenland's ice sheet lost mass faster every decade since the nineties.",
    "Mountain glaciers worldwide contribute meltwater that reaches the sea.",
]


@pytest.fixture
def settings(clean_env: None, tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, dynamic_rounds="on")


def arguing(fresh: bool) -> Callable[[Any], ArgumentDraft]:
    """Every sub-claim argued citing nothing: moving (`fresh`: new words, and each side's score moves 6
    points a round from 62 for and 58 against), or the same words at 62 and 58 every round. (Words
    alone do not move a debate: a model rewords every round.)"""

    def reply(task: Any) -> ArgumentDraft:
        i = task.inputs.round if fresh else 0
        text = (
            FRESH[i % len(FRESH)]
            if task.inputs.side == "for"
            else f"Yet, on the other hand: {FRESH[(i + 2) % 5]}"
        )
        score = 62 + 6 * i if task.inputs.side == "for" else 58 - 6 * i
        points = [
            Point(sub_claim_id=s.id, argument=text, implied_score=score, confidence=0.6)
            for s in task.inputs.sub_claims
        ]
        return ArgumentDraft(points=points)

    return reply


def moderator(*recommendations: str) -> Callable[[Any], ModeratorView]:
    """The moderator recommends these, round by round (the last one after that), at provisional 60."""

    def reply(task: Any) -> ModeratorView:
        r = task.inputs.round
        return ModeratorView(
            decisive_dispute="the rate of rise",
            dispute_sub_claim_id="sc1",
            next_query=f"sea level rise evidence round {r}",
            recommendation=recommendations[min(r, len(recommendations)) - 1],  # type: ignore[arg-type]
            provisional_score=60,
        )

    return reply


def scripted(fresh: bool, *recommendations: str) -> ScriptedProvider:
    return (
        ScriptedProvider().respond("argue", arguing(fresh)).respond("moderate", moderator(*recommendations))
    )


def run_debate(
    provider: ScriptedProvider,
    make_deps: Any,
    runtime: Any,
    new_run: Callable[..., RunRecord],
    **request: Any,
) -> tuple[RunRecord, list[RoundDecision]]:
    deps = make_deps(provider)
    run = new_run("Sea levels are rising", **request)
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    return deps.store.get_run(run.run_id), artifacts.decisions_of(deps.store, run.run_id)


def test_a_debate_that_stops_moving_stops_converged_at_round_two(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord]
) -> None:
    # Given debaters who repeat themselves, close together, and a moderator who would go on
    provider = (
        ScriptedProvider().respond("argue", arguing(fresh=False)).respond("moderate", moderator("continue"))
    )
    record, decisions = run_debate(provider, make_deps, runtime, new_run)
    # Then the measured signals stopped it after round 2, of at most 5
    assert [(d.round, d.action.value) for d in decisions] == [(1, "continue"), (2, "stop_converged")]
    assert decisions[1].rule.startswith("measured")
    assert decisions[1].signals is not None and decisions[1].signals.similarity_for == 1.0
    assert record.result is not None and record.result.rounds == 2
    assert record.result.round_control is not None and record.result.round_control.controller_stop_round == 2
    # and each decision was announced in the run's events (what the WebSocket streams)
    events = [e for e in make_deps().store.list_events(record.run_id) if e.type == "round.decided"]
    assert [(e.stage, e.round, e.data["action"]) for e in events] == [
        ("control", 1, "continue"),
        ("control", 2, "stop_converged"),
    ]


def test_a_stuck_debate_escalates_to_a_fresh_persona_then_converges(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given moving debaters, and a moderator who calls for escalation after round 2, then convergence
    provider = scripted(True, "continue", "escalate", "converged")
    record, decisions = run_debate(provider, make_deps, runtime, new_run)
    assert [d.action.value for d in decisions] == ["continue", "escalate_new_persona", "stop_converged"]
    # Then round 3 was argued by the next persona, named in the decision and carried by the arguments
    assert decisions[1].persona == 1 and decisions[1].persona_name
    personas = {(a.round, a.side): a.persona for a in artifacts.arguments_of(store, record.run_id)}
    assert personas[(3, "for")] == personas[(3, "against")] == 1
    assert personas[(2, "for")] == 0
    round_three = [c for c in provider.calls_of("argue") if c.inputs.round == 3]  # type: ignore[attr-defined]
    assert len(round_three) == 2
    assert record.result is not None and record.result.rounds == 3


def test_a_debate_that_keeps_moving_stops_at_max_rounds(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    # Given a run capped at 3 rounds, moving debaters and a moderator who always wants more
    capped = settings.model_copy(update={"max_rounds": 3})
    provider = (
        ScriptedProvider().respond("argue", arguing(fresh=True)).respond("moderate", moderator("continue"))
    )
    deps = make_deps(provider)
    deps = type(deps)(**{**deps.__dict__, "settings": capped})
    run = new_run("Sea levels are rising")
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    decisions = artifacts.decisions_of(deps.store, run.run_id)
    assert [(d.action.value, d.rule) for d in decisions] == [
        ("continue", "min_rounds: at least 2"),
        ("continue", "open: the debate is still moving"),
        ("stop_max_rounds", "max_rounds: round 3 of 3"),
    ]
    # and no moderator was asked after the last round
    assert len(provider.calls_of("moderate")) == 2


def test_in_shadow_mode_the_run_keeps_its_fixed_rounds_and_records_what_steering_would_save(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    # Given shadow mode at effort high (4 fixed rounds), and debaters who stop moving at once
    shadow = settings.model_copy(update={"dynamic_rounds": "shadow"})
    provider = (
        ScriptedProvider().respond("argue", arguing(fresh=False)).respond("moderate", moderator("continue"))
    )
    deps = make_deps(provider)
    deps = type(deps)(**{**deps.__dict__, "settings": shadow})
    run = new_run("Sea levels are rising", effort="high")
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    decisions = artifacts.decisions_of(deps.store, run.run_id)
    # Then all 4 rounds ran, each decision recording the controller's own beside the run's
    assert [d.action.value for d in decisions] == ["continue", "continue", "continue", "stop_max_rounds"]
    assert [d.controller_action.value for d in decisions if d.controller_action][:2] == [
        "continue",
        "stop_converged",
    ]
    assert all(d.mode == "shadow" for d in decisions)
    control = deps.store.get_run(run.run_id).result.round_control
    assert control is not None
    assert (control.mode, control.rounds, control.controller_stop_round, control.would_save_rounds) == (
        "shadow",
        4,
        2,
        2,
    )
    # rounds 3 and 4 each paid two debaters, a retrieval search (none here) and a moderator (round 3)
    assert control.would_save_calls == 5
    assert control.would_save_usd > 0


# ================================================================ the judge's samples, reviewed


def judged_at(scores: dict[int, int], again: int) -> Callable[[Any], Judgement]:
    """The offline judge's reply with every score set to the sample's (`again` for a re-deliberation)."""

    def reply(task: Any) -> Judgement:
        score = again if task.inputs.reconsider is not None else scores[task.inputs.sample]
        base = OfflineReasoner().adjudicate(task.inputs)
        verdict = (
            Verdict.SUPPORTED if score >= 60 else Verdict.REFUTED if score <= 40 else Verdict.CONFLICTING
        )
        subs = [j.model_copy(update={"score": score, "verdict": verdict}) for j in base.sub_claims]
        interval = Interval(low=max(0, score - 10), high=min(100, score + 10))
        return base.model_copy(
            update={
                "sub_claims": subs,
                "overall_score": score,
                "overall_interval": interval,
                "adjustment_reason": None,
            }
        )

    return reply


def contrarian_moderator(task: Any) -> ModeratorView:
    return moderator("continue")(task).model_copy(
        update={"contrarian_query": "sea levels falling tide gauges"}
    )


FALLING = Hit(
    text="Tide gauges on land that is rising after the ice age record local sea level falling.",
    title="Post-glacial rebound",
    url="https://en.wikipedia.org/wiki/Post-glacial_rebound",
)


class ContrarianFinds:
    """The default golden passages, and one more that only a search for sea levels falling finds: the
    contrarian evidence a review counts is what no other search had found."""

    name = "golden-contrarian"

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        found = golden().search(query, limit=limit, as_of=as_of)
        return [FALLING, *found][:limit] if "falling" in query else found


def high_effort_run(
    provider: ScriptedProvider,
    make_deps: Any,
    runtime: Any,
    new_run: Callable[..., RunRecord],
    settings: Settings,
) -> RunRecord:
    deps = dataclasses.replace(
        make_deps(provider, evidence=ContrarianFinds()),
        settings=settings.model_copy(update={"dynamic_rounds": "off"}),
    )
    run = new_run("Sea levels are rising", effort="high")
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    return deps.store.get_run(run.run_id)


def test_unstable_judgements_with_contrarian_evidence_are_re_deliberated_exactly_once(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    # Given a moderator who also seeks evidence against the way the debate leans, and four samples far apart
    provider = (
        ScriptedProvider()
        .respond("argue", arguing(fresh=True))
        .respond("moderate", contrarian_moderator)
        .respond("adjudicate", judged_at({0: 80, 1: 40, 2: 70, 3: 30}, again=66))
    )
    record = high_effort_run(provider, make_deps, runtime, new_run, settings)
    # Then all four samples were asked (the first two disagreed), then one more judgement, told why
    calls = provider.calls_of("adjudicate")
    assert len(calls) == 5
    told = calls[-1].inputs.reconsider  # type: ignore[attr-defined]
    assert told is not None and told.spread == 50 and told.contrarian_ids
    assert "This is a second look" in adjudicate_task(calls[-1].inputs).user_text  # type: ignore[arg-type]
    # and the result says so (26 from the samples' lower median, 40); the re-deliberation speaks for the run
    assert record.result is not None
    assert record.result.re_deliberation == Redeliberation(
        triggered=True, spread_before=50, spread_after=26, reason=record.result.re_deliberation.reason
    )
    assert record.result.judge_score == 66


def test_no_re_deliberation_without_contrarian_evidence(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    provider = (
        ScriptedProvider()
        .respond("argue", arguing(fresh=True))
        .respond("moderate", moderator("continue"))
        .respond("adjudicate", judged_at({0: 80, 1: 40, 2: 70, 3: 30}, again=66))
    )
    record = high_effort_run(provider, make_deps, runtime, new_run, settings)
    assert len(provider.calls_of("adjudicate")) == 4
    assert record.result is not None and record.result.re_deliberation is not None
    assert not record.result.re_deliberation.triggered
    assert "no contrarian evidence" in record.result.re_deliberation.reason


def test_samples_that_agree_at_once_stop_the_sampling_and_trigger_nothing(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    provider = (
        ScriptedProvider()
        .respond("argue", arguing(fresh=True))
        .respond("moderate", contrarian_moderator)
        .respond("adjudicate", judged_at({0: 70, 1: 72, 2: 20, 3: 20}, again=66))
    )
    record = high_effort_run(provider, make_deps, runtime, new_run, settings)
    assert len(provider.calls_of("adjudicate")) == 2  # samples 2 and 3 never asked
    assert record.result is not None and record.result.re_deliberation is not None
    assert (record.result.re_deliberation.triggered, record.result.re_deliberation.spread_before) == (
        False,
        2,
    )


def test_a_debate_that_stops_still_runs_the_moderators_contrarian_search_for_the_judge(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given debaters who stop moving, and a moderator who leans one way and, after round 2, asks for a
    # contrarian search
    def leaning(task: Any) -> ModeratorView:
        return ModeratorView(
            decisive_dispute="the rate of rise",
            dispute_sub_claim_id="sc1",
            next_query=f"sea level rise evidence round {task.inputs.round}",
            recommendation="continue",
            provisional_score=75,
            contrarian_query="sea level falling tide gauge" if task.inputs.round == 2 else None,
        )

    provider = ScriptedProvider().respond("argue", arguing(fresh=False)).respond("moderate", leaning)
    deps = make_deps(provider, evidence=ContrarianFinds())
    run = new_run("Sea levels are rising")
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    record, decisions = store.get_run(run.run_id), artifacts.decisions_of(store, run.run_id)
    # When the controller stops it after round 2
    assert [d.action.value for d in decisions] == ["continue", "stop_converged"]
    # Then the contrarian search ran once more, after the last round, and its passages are in the
    # pool the judge read (and that the review counts as contrarian)
    final = store.find_artifacts(record.run_id, "evidence/r03/")
    assert final and all(doc["contrarian"] for doc in final.values())
    assert [d.directives for d in decisions][-1][0].contrarian
    [judged] = provider.calls_of("adjudicate")
    assert FALLING.text in judged.prompt  # found only by the contrarian search, after the last round
    assert not any(FALLING.text in c.prompt for c in provider.calls_of("argue"))
