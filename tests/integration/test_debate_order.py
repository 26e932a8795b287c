"""Order control and fixed rounds in claim debates (`first`, `rounds`), through the real state machine:
the Order? Choice to the ArgueFirst/ArgueSecond turns or the Argue Parallel, and the rounds a request
fixes against the round controller's modes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import pytest

from claimcourt import artifacts
from claimcourt.debate.argue import argue_task
from claimcourt.exports import export
from claimcourt.models import ArgueInput, RoundsMode, RunEvent, RunRecord
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps
from tests.fakes.scripted import ScriptedProvider
from tests.integration.test_round_controller_runs import arguing, moderator

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60
Runtime = Callable[[Deps], Any]


def _argue_events(store: SqliteStore, run_id: str, type: str) -> list[RunEvent]:
    return [e for e in store.list_events(run_id) if e.type == type and e.stage == "argue"]


def _entered(rt: Any, arn: str) -> list[str]:
    """The states an execution entered, in order."""
    return [e["stateEnteredEventDetails"]["name"] for e in rt.history(arn) if "stateEnteredEventDetails" in e]


@pytest.mark.parametrize("first", ["against", "for"])
def test_with_a_first_speaker_the_sides_argue_in_turn_and_the_second_answers_the_first(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore, first: str
) -> None:
    # Given debaters that take a while, and a debate of three rounds with `first` speaking first
    second = "for" if first == "against" else "against"
    provider = ScriptedProvider().sleep("argue", 0.1)
    run = new_run(first=first, rounds=3)
    rt = runtime(make_deps(provider))
    arn = rt.start(run.run_id)
    execution = rt.follow(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None
    # Then the run had its three rounds, and says who spoke first
    assert (result.rounds, result.rounds_fixed, result.first) == (3, 3, first)
    # and the state machine took the turns, never the Parallel
    entered = _entered(rt, arn)
    assert entered.count("ArgueFirst") == entered.count("ArgueSecond") == 3 and "Argue" not in entered
    # and in every round the second speaker started only once the first had finished
    for round in (1, 2, 3):
        started = [e for e in _argue_events(store, run.run_id, "stage.started") if e.round == round]
        completed = [e for e in _argue_events(store, run.run_id, "stage.completed") if e.round == round]
        assert [e.side for e in started] == [first, second] == [e.side for e in completed], round
        assert completed[0].seq < started[1].seq, round
    # and the transcript tells the rounds in the order they were spoken, and how the debate was run
    transcript = export(store, run.run_id, "transcript_full.md")
    for round in (1, 2, 3):
        section = transcript.split(f"## Round {round}\n")[1].split("\n## ")[0]
        assert re.findall(r"^### (For|Against)$", section, re.M) == [first.capitalize(), second.capitalize()]
    assert f"Debate: 3 rounds (as asked), {first} first, {second} answering; judge: contract." in transcript
    # and the second read the first's argument of the same round, the first read none of this round
    calls = provider.calls_of("argue")
    assert len(calls) == 6
    for call in calls:
        inputs = call.inputs
        assert isinstance(inputs, ArgueInput)
        if inputs.side == first:
            assert (inputs.turn, inputs.opponent_now) == ("first", None)
            assert "you speak first this round" in argue_task(inputs).system
        else:
            assert inputs.turn == "second" and inputs.opponent_now is not None
            assert inputs.opponent_previous is None  # the same round's argument replaces the last one
            stored = store.get_artifact(run.run_id, f"argument/r{inputs.round:02d}/{first}")
            assert inputs.opponent_now.model_dump(mode="json") == stored
            rendered = argue_task(inputs)
            assert "you speak second this round" in rendered.system
            assert f'<argument of="the other side" round="{inputs.round}">' in rendered.prompt


def test_with_against_first_the_neutral_checker_checks_both_sides_after_both_spoke_and_nobody_answers(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given a claim debate of three rounds, the case against speaking first (every role offline-like)
    provider = ScriptedProvider()
    run = new_run(first="against", rounds=3)
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    # Then each round's one check, made after both had spoken, listed both sides' new citations …
    stored = store.find_artifacts(run.run_id, "factcheck/")
    assert stored and all(key.count("/") == 1 and doc["side"] is None for key, doc in stored.items())
    ledger = artifacts.whole_ledger(store, run.run_id, None)
    assert {e.side for e in ledger} == {"for", "against"}
    assert all(e.checked_round == e.round for e in ledger)
    for call in provider.calls_of("factcheck"):
        listed = {e.key.split("_")[0] for e in call.inputs.to_check}  # type: ignore[attr-defined]
        assert listed <= {"A", "B"}
    # … and nobody answered a check
    assert all(not doc["reply"]["responses"] for doc in stored.values())
    assert not any(e.response for e in ledger)


def test_without_a_first_speaker_both_sides_argue_at_once_as_before(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    provider = ScriptedProvider()
    run = new_run()
    rt = runtime(make_deps(provider))
    arn = rt.start(run.run_id)
    assert rt.follow(run.run_id, timeout_s=WAIT_S).status == "SUCCEEDED"
    entered = _entered(rt, arn)
    assert "Argue" in entered and "ArgueFirst" not in entered and "ArgueSecond" not in entered
    assert {c.inputs.turn for c in provider.calls_of("argue")} == {"together"}  # type: ignore[attr-defined]
    result = store.get_run(run.run_id).result
    assert result is not None and (result.first, result.rounds_fixed, result.rounds) == (None, None, 2)


def test_a_one_round_debate_is_one_opening_each_then_the_judge(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given a debate of one round, the against side first
    provider = ScriptedProvider()
    run = new_run(rounds=1, first="against")
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None and result.rounds == 1
    # Then each side argued once, told it is the only round; no moderator (nothing could follow)
    calls = provider.calls_of("argue")
    assert sorted(c.inputs.side for c in calls) == ["against", "for"]  # type: ignore[attr-defined]
    for call in calls:
        assert "the only one: no rebuttal follows" in argue_task(call.inputs).system  # type: ignore[arg-type]
    assert provider.calls_of("moderate") == []
    # and it is an opening, not a closing: the sides cite what the first retrieval found
    assert any(
        p.citations for a in store.find_artifacts(run.run_id, "argument/").values() for p in _points(a)
    )
    decisions = store.find_artifacts(run.run_id, "decision/")
    assert [d["action"] for d in decisions.values()] == ["stop_max_rounds"]
    assert len(provider.calls_of("adjudicate")) == 1


def _points(doc: dict[str, Any]) -> list[Any]:
    from claimcourt.models import Argument

    return Argument.model_validate(doc).points


@pytest.mark.parametrize(
    ("mode", "rounds", "expected_mode", "controller_recorded"),
    [
        ("on", 4, "shadow", True),
        ("shadow", 4, "shadow", True),
        ("off", 4, "off", False),
        ("on", 1, "shadow", True),
    ],
)
def test_rounds_a_request_fixes_are_the_rounds_it_gets_whatever_the_controller_mode(
    make_deps: Any,
    runtime: Runtime,
    new_run: Callable[..., RunRecord],
    store: SqliteStore,
    mode: RoundsMode,
    rounds: int,
    expected_mode: str,
    controller_recorded: bool,
) -> None:
    # Given a debate that stops moving and a moderator that says converged after every round (the
    # controller steering would stop it after round 2), and a request for `rounds` rounds
    provider = (
        ScriptedProvider().respond("argue", arguing(fresh=False)).respond("moderate", moderator("converged"))
    )
    deps = make_deps(provider)
    deps = dataclasses.replace(deps, settings=deps.settings.model_copy(update={"dynamic_rounds": mode}))
    run = new_run(rounds=rounds)
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None
    # Then it ran exactly those rounds: the controller never steers a run whose rounds were fixed
    assert (result.rounds, result.rounds_fixed) == (rounds, rounds)
    decisions = list(store.find_artifacts(run.run_id, "decision/").values())
    assert [d["action"] for d in decisions] == ["continue"] * (rounds - 1) + ["stop_max_rounds"]
    # and with the controller on or in shadow, its own decisions are recorded beside, as in shadow
    assert {d["mode"] for d in decisions} == {expected_mode}
    assert all((d["controller_action"] is not None) == controller_recorded for d in decisions)
    assert result.round_control is not None and result.round_control.mode == expected_mode
    if controller_recorded and rounds == 4:
        assert result.round_control.controller_stop_round == 2 and result.round_control.would_save_rounds == 2
