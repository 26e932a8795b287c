"""Monitors and the drift tick (functions/drift/app.py's `tick`), over the SQLite store with an
executor that records what it was asked to start."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest

from claimcourt.models import MonitorRequest, RunStatus, SourceTag
from claimcourt.watching.drift import create_monitor, drift_run_id, next_due, tick
from claimcourt.wiring import Deps
from tests.conftest import MakeDeps
from tests.fakes.clock import Clock
from tests.integration.test_http_api import RecordingExecutor

T0 = datetime(2026, 11, 22, 10, 30, tzinfo=UTC)


@pytest.fixture
def deps(make_deps: MakeDeps) -> Deps:
    # The ticks run at T0, and admit their runs at T0: in one hour, whatever the wall clock does.
    return dataclasses.replace(make_deps(), executor=RecordingExecutor(), now=Clock(T0))


def _watch(deps: Deps, claim: str, tenant: str = "acme", cadence: str = "daily") -> str:
    monitor = create_monitor(deps.store, tenant, MonitorRequest(claim=claim, cadence=cadence, threshold=10))
    deps.store.put_monitor(monitor.model_copy(update={"next_due": T0}))
    return monitor.monitor_id


def _started(deps: Deps) -> list[str]:
    assert isinstance(deps.executor, RecordingExecutor)
    return deps.executor.started


def test_cadences_come_round_on_their_cron_in_utc() -> None:
    assert next_due("hourly", T0) == datetime(2026, 11, 22, 11, 0, tzinfo=UTC)
    assert next_due("daily", T0) == datetime(2026, 11, 23, 0, 0, tzinfo=UTC)
    assert next_due("weekly", T0) == datetime(2026, 11, 23, 0, 0, tzinfo=UTC)  # Monday
    assert next_due("*/15 9-17 * * 1-5", T0) == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def test_a_tick_starts_one_drift_run_per_due_monitor_and_moves_each_on(deps: Deps) -> None:
    # Given two due monitors and one due tomorrow
    due = [_watch(deps, "Sea levels are rising"), _watch(deps, "Glaciers are retreating", cadence="hourly")]
    later = _watch(deps, "Arctic sea ice is shrinking")
    tomorrow = deps.store.get_monitor(later).model_copy(update={"next_due": T0 + timedelta(days=1)})
    deps.store.put_monitor(tomorrow)
    # When the scheduler ticks
    report = tick(deps.store, deps.executor, deps.settings, now=deps.now)  # type: ignore[arg-type]
    # Then each due monitor has a drift run, started under the cost guard, and is due again later
    assert sorted(report.started) == sorted(_started(deps))
    assert len(report.started) == 2
    for monitor_id in due:
        monitor = deps.store.get_monitor(monitor_id)
        run = deps.store.get_run(monitor.last_run_id or "")
        assert (run.source_tag, run.tenant_id, run.status) == (SourceTag.DRIFT, "acme", RunStatus.RUNNING)
        assert run.request.claim == monitor.request.claim
        assert monitor.next_due == next_due(monitor.request.cadence, T0)
    assert {lease.run_id for lease in deps.store.leases()} == set(report.started)


def test_a_repeated_tick_starts_nothing_twice(deps: Deps) -> None:
    monitor_id = _watch(deps, "Sea levels are rising")
    first = tick(deps.store, deps.executor, deps.settings, now=deps.now)  # type: ignore[arg-type]
    # As if the first tick died after starting the run but before moving the monitor on
    deps.store.put_monitor(deps.store.get_monitor(monitor_id).model_copy(update={"next_due": T0}))
    again = tick(deps.store, deps.executor, deps.settings, now=deps.now)  # type: ignore[arg-type]
    assert (len(first.started), again.started, again.already_started) == (1, [], 1)
    assert _started(deps) == first.started
    assert deps.store.get_monitor(monitor_id).next_due > T0  # and the monitor did move on
    assert first.started == [
        drift_run_id(deps.store.get_monitor(monitor_id).model_copy(update={"next_due": T0}))
    ]


def test_a_tick_waits_for_slots_while_it_has_time_and_leaves_the_rest_due(deps: Deps) -> None:
    settings = deps.settings.model_copy(update={"max_active_runs": 3})
    for i in range(5):
        _watch(deps, f"Claim number {i} is true")
    waits: list[int] = []

    def keep_going() -> bool:  # a function whose time runs out after two waits
        waits.append(1)
        return len(waits) <= 2

    report = tick(deps.store, deps.executor, settings, now=deps.now, keep_going=keep_going, wait_s=0)  # type: ignore[arg-type]
    assert (len(report.started), report.left_due, len(waits)) == (3, 2, 3)
    assert len(deps.store.leases()) == 3  # never over the cap
    assert len(deps.store.due_monitors(T0, 10)) == 2


def test_a_tenant_over_its_hourly_cap_is_skipped_and_the_others_go_on(deps: Deps) -> None:
    # Runs that may spend (no keys known here, as in the deployed functions): the hourly cap counts them.
    limits = {"hourly_runs_per_tenant": 1, "max_active_runs": 10, "provider_keys_known": False}
    settings = deps.settings.model_copy(update=limits)
    for i in range(3):
        _watch(deps, f"Acme claim {i} is true")
    _watch(deps, "Globex claim is true", tenant="globex")
    report = tick(deps.store, deps.executor, settings, now=deps.now)  # type: ignore[arg-type]
    tenants = sorted(deps.store.get_run(run_id).tenant_id for run_id in report.started)
    assert (tenants, report.left_due) == (["acme", "globex"], 2)
    # and the capped tenant's monitors wait for the next hour, not at the head of every tick
    assert deps.store.due_monitors(T0 + timedelta(minutes=29), 10) == []
    assert len(deps.store.due_monitors(T0 + timedelta(minutes=30), 10)) == 2  # 11:00


def test_a_monitor_the_index_still_shows_due_but_another_tick_moved_on_is_left(
    deps: Deps, monkeypatch: pytest.MonkeyPatch
) -> None:
    monitor_id = _watch(deps, "Sea levels are rising")
    moved = deps.store.get_monitor(monitor_id).model_copy(update={"next_due": T0 + timedelta(days=1)})
    monkeypatch.setattr(deps.store, "due_monitors", lambda now, limit: [moved])  # a stale index read
    report = tick(deps.store, deps.executor, deps.settings, now=deps.now)  # type: ignore[arg-type]
    assert (report.started, _started(deps)) == ([], [])


def test_a_cadence_that_never_comes_round_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="never comes round"):
        MonitorRequest(claim="Sea levels are rising", cadence="0 0 30 2 *", threshold=5)
