"""A claim debater's refusal through the real state machine (issue 26, as the research found them): the
refusing side is not asked again; when the sides argue at once, the other side gets one round alone (its
one counter-argument turn), reading that no argument was made, never the refusal's words; then the
judge. Scripted debaters refuse; everything else is the offline reasoner over golden evidence."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from claimcourt import artifacts
from claimcourt.debate.argue import NO_ARGUMENT
from claimcourt.local.dispatch import LocalContext, load_module
from claimcourt.local.template import load_template, project_root
from claimcourt.models import (
    ArgueInput,
    ArgumentDraft,
    Refusal,
    RoundAction,
    RoundDecision,
    RunRecord,
    RunStatus,
)
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.debate_text import debate_positions
from tests.fakes.scripted import Call, ScriptedProvider

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60
REASON = "I will not argue that researchers committed fraud: SECRET-REASON."


@pytest.fixture(params=["fixed", "steered"])
def settings(request: pytest.FixtureRequest, clean_env: None, tmp_path: Path) -> Settings:
    """Three rounds at most, two at least (MIN_ROUNDS): fixed by the request (the controller in shadow),
    or the controller steering up to a cap of three."""
    if request.param == "steered":
        return Settings(data_dir=tmp_path, dynamic_rounds="on", max_rounds=3)
    return Settings(data_dir=tmp_path)


def rounds_asked(settings: Settings) -> dict[str, Any]:
    return {} if settings.dynamic_rounds == "on" else {"rounds": 3}


def refusing(*turns: tuple[str, int]) -> ScriptedProvider:
    """Debaters that decline in these (side, round) turns; every other turn is argued (offline)."""

    def argue(task: Any) -> ArgumentDraft | None:
        if (task.inputs.side, task.inputs.round) in turns:
            return ArgumentDraft(refusal=Refusal(reason=REASON))
        return None

    return ScriptedProvider().respond("argue", argue)


def debated(
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
    record = deps.store.get_run(run.run_id)
    assert record.status is RunStatus.SUCCEEDED and record.result is not None, record.error
    return record, artifacts.decisions_of(deps.store, run.run_id)


def argued(provider: ScriptedProvider) -> list[tuple[int, str]]:
    return sorted((c.inputs.round, c.inputs.side) for c in provider.calls_of("argue"))


def judge_positions(call: Call) -> list[tuple[str, str, str]]:
    """(label, round, body) of each argument a call read in the debate as the judge reads it."""
    return debate_positions(call.prompt)


def test_a_refusal_while_both_argue_at_once_gets_one_answer_round_alone_then_the_judge(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings, store: SqliteStore
) -> None:
    # Given the for side declines in round 1 of at most 3 (at least 2), the sides arguing at once
    provider = refusing(("for", 1))
    record, decisions = debated(provider, make_deps, runtime, new_run, **rounds_asked(settings))
    result = record.result
    assert result is not None

    # Then round 2 is the against side's alone: the for side is not asked again, and no round 3 follows
    assert argued(provider) == [(1, "against"), (1, "for"), (2, "against")]
    assert result.rounds == 2
    absent = artifacts.argument_of(store, record.run_id, 2, "for")
    assert absent is not None and absent.absent and absent.points == [] and absent.refusal is None
    # that round read that no argument was made, never the refusal's words, and was told it is the last
    [answer] = [c for c in provider.calls_of("argue") if c.inputs.round == 2]
    assert isinstance(answer.inputs, ArgueInput)
    assert (answer.inputs.labels["for"], "1", NO_ARGUMENT) in judge_positions(answer)
    assert "SECRET-REASON" not in answer.prompt
    assert "round 2 of at most 2" in answer.prompt and "This is the closing round" in answer.prompt
    # the moderator aimed that round reading no refusal either, and was not asked after it
    [moderated] = provider.calls_of("moderate")
    assert moderated.inputs.round == 1 and "SECRET-REASON" not in moderated.prompt
    assert NO_ARGUMENT in moderated.prompt
    # the absent side made no new citations: the other side's checker had none to check in round 2
    assert not [
        c
        for c in provider.calls_of("factcheck")
        if c.inputs.round == 2 and c.inputs.to_check and c.inputs.side == "against"
    ]

    # And the controller named the refusal: one answer round, then a stop (rounds were left)
    assert [(d.round, d.action) for d in decisions] == [
        (1, RoundAction.CONTINUE),
        (2, RoundAction.STOP_CONVERGED),
    ]
    assert decisions[0].rule == (
        "refused: the for side declined to argue in round 1; the against side answers once, in round 2,"
        " alone, then the debate ends"
    )
    assert decisions[1].rule.startswith(
        "refused: the for side declined to argue in round 1; the against side"
    )

    # And the judge read that position A or B made no argument in rounds 1 and 2, not why, not whose side
    [judge] = provider.calls_of("adjudicate")
    silent = [(label, r) for label, r, body in judge_positions(judge) if body == NO_ARGUMENT]
    assert [r for _, r in silent] == ["1", "2"] and len({label for label, _ in silent}) == 1
    assert "SECRET-REASON" not in judge.prompt and not re.search(r"refus|declined to", judge.prompt, re.I)

    # And the result says exactly what happened
    end = result.ended_early
    assert end is not None
    assert (end.side, end.round, end.reason, end.answered_by, end.answered_in_round) == (
        "for",
        1,
        REASON,
        "against",
        2,
    )
    assert end.followed == (
        "the against side made its one counter-argument turn (round 2), reading that no argument was made;"
        " then the debate ended"
    )
    assert f"Ended early: the for side declined to argue in round 1; {end.followed}." in result.warnings
    # a round one side was absent from is not a parallelism check (nothing ran beside it)
    assert [p.round for p in result.parallelism] == [1]


def test_the_absent_sides_stage_is_idempotent_and_never_calls_a_model(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    provider = refusing(("for", 1))
    record, _ = debated(provider, make_deps, runtime, new_run, **rounds_asked(settings))
    template = load_template(project_root())
    function = template.functions["ArgueFunction"]
    handler = load_module(template.root, function).handler
    calls = len(provider.calls)
    # When Step Functions retries the absent side's branch of round 2 (run, stage, round, side)
    again = handler(
        {"run_id": record.run_id, "round": 2, "side": "for"}, LocalContext(function_name=function.name)
    )
    # Then it answers as before, and nothing is asked of a model
    assert again == {
        "side": "for",
        "turn": "together",
        "implied_score": None,
        "refused": False,
        "absent": True,
    }
    assert len(provider.calls) == calls


@pytest.mark.parametrize("settings", ["fixed"], indirect=True)
def test_both_sides_declining_at_once_ends_the_debate_at_once(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    provider = refusing(("for", 1), ("against", 1))
    record, decisions = debated(provider, make_deps, runtime, new_run, rounds=3)
    result = record.result
    assert result is not None
    # Then nothing follows round 1, under min_rounds as it is: no moderator, no checker, no round 2
    assert argued(provider) == [(1, "against"), (1, "for")]
    assert provider.calls_of("moderate") == [] and provider.calls_of("factcheck") == []
    assert [(d.round, d.action) for d in decisions] == [(1, RoundAction.STOP_CONVERGED)]
    assert decisions[0].rule == "refused: both sides declined to argue in round 1; the debate ended at once"
    assert decisions[0].signals is not None and decisions[0].signals.moderator == "not asked"
    end = result.ended_early
    assert end is not None and (end.side, end.round, end.answered_by) == ("for", 1, None)
    assert end.followed == "the against side declined too, in the same round; the debate ended at once"
    # the judge still scores the pool, reading that neither position made an argument
    [judge] = provider.calls_of("adjudicate")
    assert [body for _, _, body in judge_positions(judge)] == [NO_ARGUMENT, NO_ARGUMENT]


@pytest.mark.parametrize("settings", ["fixed"], indirect=True)
def test_a_refusal_in_the_last_round_says_no_answer_turn_was_possible(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    provider = refusing(("against", 2))
    record, decisions = debated(provider, make_deps, runtime, new_run, rounds=2)
    result = record.result
    assert result is not None
    assert argued(provider) == [(1, "against"), (1, "for"), (2, "against"), (2, "for")]
    assert [(d.round, d.action) for d in decisions] == [
        (1, RoundAction.CONTINUE),
        (2, RoundAction.STOP_MAX_ROUNDS),
    ]
    assert decisions[1].rule == (
        "refused: the against side declined to argue in round 2; round 2 was the last: no answer turn was"
        " possible; the debate ended"
    )
    end = result.ended_early
    assert end is not None and (end.side, end.round, end.answered_by, end.answered_in_round) == (
        "against",
        2,
        None,
        None,
    )
    warning = "Ended early: the against side declined to argue in round 2; round 2 was the last: no answer"
    assert any(w.startswith(warning) for w in result.warnings), result.warnings


@pytest.mark.parametrize("settings", ["fixed"], indirect=True)
def test_in_turn_a_first_speakers_refusal_is_answered_in_its_round_and_nothing_follows(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], settings: Settings
) -> None:
    provider = refusing(("for", 1))
    record, decisions = debated(provider, make_deps, runtime, new_run, rounds=3, first="for")
    result = record.result
    assert result is not None
    # the second speaker answered in round 1, reading that no argument was made, as the debate's last turn
    assert argued(provider) == [(1, "against"), (1, "for")]
    answer = next(c for c in provider.calls_of("argue") if c.inputs.side == "against")
    assert f'<argument of="the other side" round="1">\n{NO_ARGUMENT}\n</argument>' in answer.prompt
    assert "SECRET-REASON" not in answer.prompt and "round 1 of at most 1" in answer.prompt
    assert provider.calls_of("moderate") == []
    assert [d.action for d in decisions] == [RoundAction.STOP_CONVERGED]
    end = result.ended_early
    assert end is not None and (end.answered_by, end.answered_in_round) == ("against", 1)
