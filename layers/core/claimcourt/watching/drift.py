"""Monitors: claims a tenant watches, re-scored on their cadence by the drift tick.

A tick (EventBridge Scheduler in the cloud, `claimcourt drift tick` on the laptop) reads the due
monitors with one Query on the due index, most overdue first, and starts one re-score run each
(source tag `drift`) under the cost guard. The run's id is made from the monitor and the due time
it serves, so a repeated or overlapping tick starts nothing twice. A monitor moves on to its next
due time only once its run has started; one the guard turns away stays due for the next tick.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from claimcourt.errors import ConflictError, RateLimitedError
from claimcourt.execution import Executor
from claimcourt.models import CADENCES, Monitor, MonitorRequest, SourceTag, utcnow
from claimcourt.observability import logger
from claimcourt.runs import submit_run
from claimcourt.settings import Settings
from claimcourt.store.base import Store, claim_id_for, sortable

DUE_PER_TICK = 1000  # one tick's reading; more than that waits for the next tick


def next_due(cadence: str, after: datetime) -> datetime:
    """The first time the cadence comes round strictly after `after` (UTC)."""
    from croniter import croniter

    due: datetime = croniter(CADENCES.get(cadence, cadence), after).get_next(datetime)
    return due


def create_monitor(store: Store, tenant_id: str, request: MonitorRequest) -> Monitor:
    """A new monitor, due at once: its first tick scores the claim, the baseline later runs move from."""
    now = utcnow()
    monitor = Monitor(
        monitor_id="mon_" + uuid.uuid4().hex[:16],
        tenant_id=tenant_id,
        claim_id=claim_id_for(request.claim),
        request=request,
        created_at=now,
        next_due=now,
    )
    store.put_monitor(monitor)
    return monitor


def drift_run_id(monitor: Monitor) -> str:
    """One run per monitor per due time: the same tick, repeated, names the same run."""
    return f"drift-{monitor.monitor_id}-{sortable(monitor.next_due)[:16].replace(':', '')}"


@dataclass
class TickReport:
    started: list[str] = field(default_factory=list)  # run ids
    already_started: int = 0  # runs a repeated tick found started
    failed: int = 0  # runs that could not be started (recorded failed, with the reason)
    left_due: int = 0  # monitors still due when the tick stopped (cost guard, time)


def tick(
    store: Store,
    executor: Executor,
    settings: Settings,
    *,
    now: Callable[[], datetime] = utcnow,
    keep_going: Callable[[], bool] = lambda: True,
    wait_s: float = 1.0,
) -> TickReport:
    """Start a re-score run for every monitor due when the tick starts (`now()`, the caller's clock:
    Deps.now), each admitted at `now()` as it is started (a tick that waits for a slot may cross
    an hour). When the concurrency cap is full it waits `wait_s` and tries again while
    `keep_going()` says there is time (a Lambda's remaining time); a tenant over its hourly cap is
    skipped until the next tick."""
    ticked_at = now()
    report = TickReport()
    due = store.due_monitors(ticked_at, DUE_PER_TICK)
    hourly_capped: set[str] = set()
    for i, monitor in enumerate(due):
        if monitor.next_due > ticked_at:
            continue  # moved on by an overlapping tick since the (eventually consistent) index said due
        if monitor.tenant_id in hourly_capped:
            # Not read first again at every tick until the hour turns: that would starve other tenants.
            store.advance_monitor(monitor.monitor_id, monitor.next_due, _next_hour(ticked_at), None)
            report.left_due += 1
            continue
        run_id = drift_run_id(monitor)
        while True:
            try:
                submit_run(
                    store,
                    executor,
                    settings,
                    monitor.tenant_id,
                    monitor.request.run_request(),
                    SourceTag.DRIFT,
                    run_id=run_id,
                    now=now,
                )
                report.started.append(run_id)
            except ConflictError:
                report.already_started += 1
            except RateLimitedError as refused:
                if refused.limit == "hourly":
                    hourly_capped.add(monitor.tenant_id)
                    store.advance_monitor(monitor.monitor_id, monitor.next_due, _next_hour(ticked_at), None)
                    report.left_due += 1
                    break
                if not keep_going():
                    report.left_due += len(due) - i
                    return report
                time.sleep(wait_s)
                continue
            except Exception:
                # The run is recorded failed with the reason; the next tick finds it and moves on.
                logger.exception("could not start a drift run", extra={"run_id": run_id})
                report.failed += 1
                break
            store.advance_monitor(
                monitor.monitor_id, monitor.next_due, next_due(monitor.request.cadence, ticked_at), run_id
            )
            break
    return report


def _next_hour(now: datetime) -> datetime:
    """When a tenant's hourly cap next has room: the top of the next UTC hour."""
    return now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
