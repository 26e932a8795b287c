"""A run's life, in one place: validate and start it (admitted under the cost guard, recorded, its
execution started), read it on a tenant's behalf, end it (its one end event, its slot given back),
and sweep the runs whose process died before they could end. Nothing is stored or spent for a
request that is refused."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from pydantic import ValidationError

from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError, RateLimitedError
from claimcourt.execution import Ended, Executor
from claimcourt.models import (
    LOCAL_TENANT,
    Lease,
    LeaseOwner,
    MotionRequest,
    RunEvent,
    RunRecord,
    RunRequest,
    RunStatus,
    SourceTag,
    Usage,
    first_problem,
    usage_from,
    utcnow,
)
from claimcourt.observability import count
from claimcourt.settings import Settings
from claimcourt.store.base import Store, claim_id_for, run_exists


def parse_request(raw: dict[str, Any]) -> RunRequest:
    """A RunRequest, or an InvalidRequestError naming the first bad field."""
    try:
        return RunRequest.model_validate(raw)
    except ValidationError as err:
        raise InvalidRequestError(*first_problem(err, "request")) from err


def new_run_id() -> str:
    return "run_" + uuid.uuid4().hex[:20]


def create_run(
    store: Store,
    request: RunRequest | MotionRequest,
    source_tag: SourceTag = SourceTag.APP,
    tenant_id: str = LOCAL_TENANT,
    run_id: str | None = None,
    created_at: datetime | None = None,
) -> RunRecord:
    """Record a run: a claim debate, or a motion debate (its motion then stands as the request's claim).
    `created_at` (default now) is the run's today in its prompts: a played run fixes it, to replay."""
    motion = request if isinstance(request, MotionRequest) else None
    request = motion.run_request() if motion is not None else request
    assert isinstance(request, RunRequest)
    record = RunRecord(
        run_id=run_id or new_run_id(),
        claim_id=claim_id_for(request.claim),
        status=RunStatus.RUNNING,
        request=request,
        source_tag=source_tag,
        tenant_id=tenant_id,
        motion=motion,
        **({"created_at": created_at} if created_at is not None else {}),
    )
    store.create_run(record)
    store.append_event(
        RunEvent(run_id=record.run_id, type="run.created", data={"claim": request.claim}), key="run.created"
    )
    count("RunsStarted")
    return record


def submit_run(
    store: Store,
    executor: Executor,
    settings: Settings,
    tenant_id: str,
    request: RunRequest | MotionRequest,
    source_tag: SourceTag = SourceTag.APP,
    run_id: str | None = None,
    *,
    owner: LeaseOwner | None = None,
    now: Callable[[], datetime] = utcnow,
) -> RunRecord:
    """Admit, record and start a run (a claim debate, or a motion debate on its own state machine).
    Over a cap: RateLimitedError, with nothing stored (the hourly cap counts only runs that may
    spend, each in the UTC hour `now()` reads at its admission: the caller's clock, Deps.now). If
    the execution cannot be started, the run ends failed with the reason (and gives its lease back,
    and its hourly count).
    A caller that names the run (a drift tick, an event) gets ConflictError `run_exists` if that
    run was started before, and nothing happens twice. A caller that runs the execution in its own
    process (the CLI) names itself as the lease's `owner` (see reclaim_abandoned)."""
    if run_id is not None and _exists(store, run_id):
        raise run_exists(run_id)
    run_id = run_id or new_run_id()
    request = settings.with_defaults(request)  # the saved (or configured) default effort and mode
    # The hourly cap guards spend: a run the offline reasoner serves (no paid model, no paid search)
    # still takes a slot under the concurrency cap, but is not counted against it.
    if isinstance(request, MotionRequest):
        spends = settings.may_spend(lineup=request.lineup)
    else:
        spends = settings.may_spend(judges=request.judges)
    store.admit(
        Lease(run_id=run_id, tenant_id=tenant_id, since=now(), spends=spends, owner=owner),
        max_active=settings.max_active_runs,
        hourly_limit=settings.hourly_runs_per_tenant,
    )
    # Until its execution has started, a failure gives back the hour's count with the lease (refund):
    # a run that never started spent nothing.
    try:
        record = create_run(store, request, source_tag, tenant_id=tenant_id, run_id=run_id)
    except ConflictError:
        # Started meanwhile by a twin caller: a running run keeps the (one) lease, an ended one frees
        # it (then the lease is this admission's, and so is the count it took).
        if store.get_run(run_id).status.terminal:
            store.release(run_id, refund=True)
        raise
    except BaseException:
        if _exists(store, run_id):  # recorded, but not its first event: end it, or it runs for ever
            # If the store fails its end event and release too, the lease stays for the sweeper.
            end_failed(store, run_id, "could not record the run's start", refund=True)
        else:
            store.release(run_id, refund=True)
        raise
    try:
        executor.start(run_id, "motion" if record.motion is not None else "debate")
    except Exception as err:
        end_failed(store, run_id, f"could not start the execution: {type(err).__name__}", refund=True)
        raise
    return record


def submit_when_free(
    store: Store,
    executor: Executor,
    settings: Settings,
    tenant_id: str,
    request: RunRequest | MotionRequest,
    source_tag: SourceTag = SourceTag.APP,
    *,
    timeout_s: float,
    on_wait: Callable[[RateLimitedError], None] = lambda refused: None,
    wait_s: float = 1.0,
    run_id: str | None = None,
    owner: LeaseOwner | None = None,
    gone: Callable[[LeaseOwner], bool] | None = None,
    now: Callable[[], datetime] = utcnow,
) -> RunRecord:
    """`submit_run` for a caller that would rather wait for a free slot than be refused (the CLI, the
    benchmarks): while the concurrency cap is full it waits, up to `timeout_s`; an hourly cap, or the
    timeout, is the RateLimitedError itself. With `gone`, before each wait it gives back the slots
    of runs whose owning process is gone (reclaim_abandoned), and tries again at once if it did."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return submit_run(
                store, executor, settings, tenant_id, request, source_tag, run_id, owner=owner, now=now
            )
        except RateLimitedError as refused:
            if refused.limit != "concurrency":
                raise
            if gone is not None and reclaim_abandoned(store, gone):
                continue
            if time.monotonic() + wait_s > deadline:
                raise
            on_wait(refused)
            time.sleep(wait_s)


def follow(
    store: Store,
    run_id: str,
    ended: Callable[[], Ended | None],
    timeout_s: float,
    on_tick: Callable[[], None] | None = None,
    *,
    poll_s: float = 0.5,
    check_every_s: float = 5.0,
    until_execution_ends: bool = False,
    wait: Callable[[float], object] = time.sleep,
) -> RunRecord:
    """Wait for a started run to end (and its execution too, if asked), or the timeout; the run as
    it is then. The record is read first (cheap); the execution is asked every `check_every_s`, in
    case it died without saying, and once the record has ended if `until_execution_ends`. A run
    whose execution ended while the run did not (it could not even record its failure) is ended
    failed here, with the reason. `wait(poll_s)` sleeps between looks; one that returns early when
    the execution ends (the local runtime's) ends the wait at once."""
    deadline = time.monotonic() + timeout_s
    next_check = time.monotonic() + check_every_s
    while time.monotonic() < deadline:
        if on_tick is not None:
            on_tick()
        record, now = store.get_run(run_id), time.monotonic()
        if record.status.terminal and not until_execution_ends:
            return record
        if record.status.terminal or now >= next_check:
            end = ended()
            if end is not None:
                if not record.status.terminal:
                    end_failed(store, run_id, execution_end_reason(end))
                return store.get_run(run_id)
            next_check = now + check_every_s
        wait(poll_s)
    return store.get_run(run_id)


def execution_end_reason(end: Ended) -> str:
    return f"execution {end.status.lower()}: {end.cause or end.status}"


def _exists(store: Store, run_id: str) -> bool:
    try:
        store.get_run(run_id)
    except NotFoundError:
        return False
    return True


def tenant_run(store: Store, tenant_id: str, run_id: str) -> RunRecord:
    """The run if this tenant owns it and it is not deleted; otherwise NotFoundError (another
    tenant's run looks exactly like one that does not exist)."""
    record = store.get_run(run_id)
    if record.tenant_id != tenant_id or record.deleted_at is not None:
        raise NotFoundError(f"no run {run_id}")
    return record


def delete_tenant_run(store: Store, tenant_id: str, run_id: str) -> None:
    record = tenant_run(store, tenant_id, run_id)
    if not record.status.terminal:
        raise ConflictError(f"run {run_id} is still running; delete it once it has ended", "run_running")
    store.delete_run(run_id)


SWEEP_GRACE_S = 120  # between admission and a started execution; well past any API call's time
# What an execution_status answers for a run whose executing process is known to have stopped.
OWNER_GONE = "OWNER_GONE"


def sweep(store: Store, execution_status: Callable[[str], str | None]) -> list[str]:
    """Reconcile the cost guard's leases with executions, for runs whose process died before their
    end gave the slot back. A run that ended keeps its record and gets its end event and release; a
    run whose execution ended without saying so (timed out, aborted, crashed) ends failed with that
    reason, and so does one whose execution never started or was lost (after a grace period, so a
    run being admitted right now is left alone). `execution_status` gives an execution's status by
    run id (None: no such execution). Returns the run ids whose slots were given back."""
    released = []
    settled = utcnow() - timedelta(seconds=SWEEP_GRACE_S)
    for lease in store.leases():
        try:
            record = store.get_run(lease.run_id)
        except NotFoundError:  # admitted, but its record never made it: nothing else will free it
            if lease.since < settled and store.release(lease.run_id):
                released.append(lease.run_id)
            continue
        if not record.status.terminal:
            status = execution_status(lease.run_id)
            if status == "RUNNING" or (status is None and lease.since >= settled):
                continue
            if status == OWNER_GONE:
                reason = "the process running it stopped"
            else:
                reason = (
                    f"execution {status.lower()}" if status else "its execution never started or was lost"
                )
            end_failed(store, lease.run_id, reason)
        else:  # ended, but its end was never announced nor its slot given back
            announce_end(store, lease.run_id)
        released.append(lease.run_id)
    return released


def reclaim_abandoned(store: Store, gone: Callable[[LeaseOwner], bool]) -> list[str]:
    """Give back the slots of runs whose owning process is `gone` (a CLI run killed with kill -9:
    no `serve` sweeper may be running to do it), as `sweep` does for runs whose execution died: a
    run still running ends failed with the reason; one that ended gets its end announced; a lease
    whose run was never recorded is released, its hourly count given back (it never started). A
    lease with no owner (Step Functions runs it) is never freed here, nor one `gone` does not know
    to be gone (another host's). Returns the run ids whose slots were given back."""
    released = []
    for lease in store.leases():
        if lease.owner is None or not gone(lease.owner):
            continue
        try:
            record = store.get_run(lease.run_id)
        except NotFoundError:
            if store.release(lease.run_id, refund=True):
                released.append(lease.run_id)
            continue
        if record.status.terminal:
            announce_end(store, lease.run_id)
        else:
            end_failed(store, lease.run_id, "the process running it stopped")
        released.append(lease.run_id)
    return released


def run_usage(store: Store, record: RunRecord) -> Usage:
    """What the run spent, whatever its end: the result's account once scored, else every call in
    its ledger (a failed or stopped run paid for the calls it made)."""
    if record.result is not None:
        return record.result.usage
    return usage_from(store.run_calls(record.run_id), 0, 0)


def end_failed(store: Store, run_id: str, reason: str, *, refund: bool = False) -> bool:
    """End a run that cannot finish as failed, with the reason, then announce its end. False when the
    run had already ended (it keeps its status; its end is announced all the same, idempotently).
    `refund`: the run never started, so its lease gives back the hourly count it took."""
    failed = store.set_status(run_id, RunStatus.FAILED, error=reason)
    announce_end(store, run_id, refund=refund)
    return failed


def announce_end(store: Store, run_id: str, *, refund: bool = False) -> None:
    """Append the run's one terminal event (run.succeeded, run.failed or run.stopped) from its
    record, after the last stage's own events: a subscriber may stop reading at it. Then release the
    run's lease (with `refund`, and its hourly count). Both steps are idempotent: a retry repeats
    neither."""
    record = store.get_run(run_id)
    if not record.status.terminal:
        return
    data: dict[str, Any] = {"status": record.status.value}
    if record.status is RunStatus.SUCCEEDED and record.interval is not None:
        data |= {"score": record.score, "interval": record.interval.model_dump(), "verdict": record.verdict}
    elif record.status is RunStatus.FAILED:
        data["error"] = record.error
    else:
        data["warnings"] = record.warnings
        if record.stop_reason is not None:
            data |= {"stop_reason": record.stop_reason, "verdict": record.verdict}
    end = RunEvent(run_id=run_id, type=f"run.{record.status.value}", data=data)
    if store.append_event(end, key="run.end") is not None:  # counted once, however often announced
        count(f"Runs{record.status.value.capitalize()}")
    # Every way a run ends comes here, so here its place under the concurrency cap is given back (the
    # sweeper catches a run whose process died before this line).
    store.release(run_id, refund=refund)
