"""The parallelism record (the seed's gate): each round's debaters, their times and overlap, PASS when
they ran at once. Synchronised by structure, never by a clock: the parallel run's debaters meet at a
barrier (neither can finish before the other has started), and the sequential one's argue function
takes one invocation at a time (a Lambda concurrency limit of one), so one side starts only after
the other has ended."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from claimcourt.models import RunRecord
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.scripted import ScriptedProvider

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60.0


def _argue_one_at_a_time(rt: Any) -> None:
    """Wrap the argue function so its invocations never overlap, as Lambda runs a function whose
    reserved concurrency is one."""
    handlers = rt.dispatcher._handlers
    (name,) = [n for n in handlers if n.endswith("ArgueFunction")]
    spec, handler = handlers[name]
    lock = threading.Lock()

    def serialised(event: dict[str, Any], context: Any) -> Any:
        with lock:
            return handler(event, context)

    handlers[name] = (spec, serialised)


def test_debaters_that_ran_at_once_read_pass_in_every_round(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given debaters that each answer only once the other side has asked too
    provider = ScriptedProvider().meet("argue", parties=2)
    run = new_run(rounds=2)
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None
    # Then each round is recorded: both debaters' times, an overlap above nothing, PASS
    assert [p.round for p in result.parallelism] == [1, 2]
    for p in result.parallelism:
        assert [d.side for d in p.debaters] == ["for", "against"]
        assert all(d.started_at < d.ended_at for d in p.debaters)
        assert p.in_turn is False and p.gate == "PASS" and 0 < p.overlap <= 1


def test_debaters_run_one_after_the_other_read_fail(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given an argue function that takes one invocation at a time
    run = new_run(rounds=2)
    rt = runtime(make_deps(ScriptedProvider()))
    _argue_one_at_a_time(rt)
    execution = rt.execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None
    # Then every round reads FAIL: the second debater started only once the first had ended
    assert [p.round for p in result.parallelism] == [1, 2]
    for p in result.parallelism:
        first, second = sorted(p.debaters, key=lambda d: d.started_at)
        assert first.ended_at <= second.started_at
        assert p.overlap == 0 and p.gate == "FAIL"


def test_a_run_argued_in_turn_is_recorded_but_not_gated(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    run = new_run(rounds=1, first="against")
    execution = runtime(make_deps(ScriptedProvider())).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None
    (only,) = result.parallelism
    assert only.in_turn is True and only.gate is None and only.overlap == 0
