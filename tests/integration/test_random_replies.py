"""Whatever a model replies, as long as its reply fits the schema it was sent, a run ends in a terminal
state: scored with a result that does not contradict itself, or failed with a named reason. Every
task kind gets random schema-valid replies (drawn from the very schema the provider sends), all in the
same run, through the real state machine."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimcourt.adjudication.adjudicate import adjudicate_task
from claimcourt.adjudication.anonymize import debate_so_far
from claimcourt.adjudication.rubric import rubric_task
from claimcourt.contract import REFUTED_AT, SUPPORTED_AT, bounds
from claimcourt.debate.argue import argue_task
from claimcourt.debate.decompose import decompose_task
from claimcourt.debate.moderate import moderate_task
from claimcourt.debate.suitability import suitability_task
from claimcourt.models import (
    AdjudicateInput,
    ArgueInput,
    Argument,
    DecomposeInput,
    ModerateInput,
    RunRecord,
    RunStatus,
    SubClaim,
    SuitabilityInput,
    Verdict,
)
from claimcourt.reasoning.base import Task
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.schema_strategy import from_schema
from tests.fakes.scripted import ScriptedProvider

SUB = SubClaim(id="sc1", text="Sea levels are rising", directive="sea level rise")
ARG = Argument(side="for", round=1)
DEBATE, LABELS = debate_so_far([ARG], "run", None, before=2)  # round 1, as the moderator reads it


JUDGED = AdjudicateInput(claim="x", mode="spectral", sub_claims=[SUB], shape="all", positions=[], evidence=[])


def _schemas() -> dict[str, dict[str, Any]]:
    """The schema each task kind is sent, as the provider sends it (limits of a standard run)."""
    tasks: list[Task[Any]] = [
        suitability_task(SuitabilityInput(claim="x")),
        decompose_task(DecomposeInput(claim="x", max_sub_claims=4)),
        argue_task(ArgueInput(claim="x", side="for", round=1, sub_claims=[SUB], evidence=[])),
        moderate_task(
            ModerateInput(
                claim="x",
                round=1,
                sub_claims=[SUB],
                case_for=ARG,
                case_against=ARG,
                evidence=[],
                debate=DEBATE,
                labels=LABELS,
            )
        ),
        adjudicate_task(JUDGED),
        rubric_task(JUDGED),
    ]
    return {t.kind: (t.output_schema(), t.output) for t in tasks}


SCHEMAS = _schemas()


def _within_the_rules(kind: str, content: dict[str, Any]) -> dict[str, Any]:
    """The same reply, mended to pass the model's own rules: an interval that holds its score,
    points or a refusal but not both."""
    content = dict(content)
    if kind == "adjudicate":
        score, interval = content["overall_score"], content["overall_interval"]
        low, high = sorted((interval["low"], interval["high"]))
        content["overall_interval"] = {"low": min(low, score), "high": max(high, score)}
    if kind == "argue":
        if content.get("points"):
            content["refusal"] = None
        elif not content.get("refusal"):
            content["refusal"] = {"reason": "no"}
    return content


def _reply(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    """Any schema-valid reply; half of them also within the model's own rules, so that runs get past
    the debaters to the judge and the score."""
    schema = SCHEMAS[kind][0]
    mended = from_schema(schema).map(lambda content: _within_the_rules(kind, content))
    return st.one_of(from_schema(schema), mended)


REPLIES_PER_KIND = 4


class RandomReplies:
    """Answers each task kind from a pool of drawn replies, in turn (thread-safe: parallel branches)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cycles: dict[str, Iterator[dict[str, Any]]] = {}

    def load(self, drawn: dict[str, list[dict[str, Any]]]) -> None:
        with self._lock:
            self._cycles = {kind: itertools.cycle(replies) for kind, replies in drawn.items()}

    def responder(self, kind: str) -> Callable[[Task[Any]], dict[str, Any]]:
        def reply(task: Task[Any]) -> dict[str, Any]:
            with self._lock:
                return next(self._cycles[kind])

        return reply


def _consistent(record: RunRecord) -> None:
    result = record.result
    assert result is not None and result.shape is not None
    assert 0 <= result.interval.low <= result.overall_score <= result.interval.high <= 100
    low, high = bounds([s.score for s in result.sub_claims], result.shape)
    assert low <= result.overall_score <= high
    for s in result.sub_claims:
        assert s.verdict is not Verdict.SUPPORTED or s.score >= SUPPORTED_AT
        assert s.verdict is not Verdict.REFUTED or s.score <= REFUTED_AT
    assert result.overall_verdict is not Verdict.SUPPORTED or result.overall_score >= SUPPORTED_AT
    assert result.overall_verdict is not Verdict.REFUTED or result.overall_score <= REFUTED_AT


@pytest.fixture
def random_runtime(make_deps: Any, runtime: Any) -> tuple[RandomReplies, Any]:
    replies = RandomReplies()
    provider = ScriptedProvider()
    for kind in SCHEMAS:
        provider.respond(kind, replies.responder(kind))
    return replies, runtime(make_deps(provider))


FUZZ: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
_drawn = st.fixed_dictionaries(
    {kind: st.lists(_reply(kind), min_size=REPLIES_PER_KIND, max_size=REPLIES_PER_KIND) for kind in SCHEMAS}
)


@settings(max_examples=40, **FUZZ)
@given(drawn=_drawn)
def test_random_schema_valid_replies_never_crash_a_run(
    drawn: dict[str, list[dict[str, Any]]],
    random_runtime: tuple[RandomReplies, Any],
    new_run: Callable[..., RunRecord],
    store: SqliteStore,
) -> None:
    _terminal_and_consistent(drawn, random_runtime, new_run(), store)


@settings(max_examples=15, **FUZZ)
@given(drawn=_drawn)
def test_random_replies_never_crash_a_run_in_turn_judged_by_the_rubric(
    drawn: dict[str, list[dict[str, Any]]],
    random_runtime: tuple[RandomReplies, Any],
    new_run: Callable[..., RunRecord],
    store: SqliteStore,
) -> None:
    _terminal_and_consistent(drawn, random_runtime, new_run(first="against", rounds=3, judge="rubric"), store)


def _terminal_and_consistent(
    drawn: dict[str, list[dict[str, Any]]],
    random_runtime: tuple[RandomReplies, Any],
    run: RunRecord,
    store: SqliteStore,
) -> None:
    replies, rt = random_runtime
    replies.load(drawn)
    execution = rt.execute(run.run_id, timeout_s=60)
    record = store.get_run(run.run_id)
    # a terminal state, every time: the execution and the record agree
    assert record.status.terminal, execution.error
    assert execution.status in ("SUCCEEDED", "FAILED")
    if record.status is RunStatus.SUCCEEDED:
        _consistent(record)
    elif record.status is RunStatus.FAILED:
        # failed with a named reason a person can read, never a crash without one
        assert record.error and "unknown error" not in record.error
        assert record.error.split(":")[0] in {"MalformedReplyError", "RefusedJudgementError"}, record.error
    # one terminal event (a parallel branch still running when another failed may log after it)
    events = [e.type for e in store.list_events(run.run_id)]
    assert events.count(f"run.{record.status.value}") == 1
    assert not [
        e for e in events[events.index(f"run.{record.status.value}") + 1 :] if not e.startswith("stage.")
    ]
