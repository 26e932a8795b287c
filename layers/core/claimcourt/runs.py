"""Starting and reading runs on a caller's behalf: validate, admit under the cost guard, record,
start the execution. Nothing is stored or spent for a request that is refused."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from pydantic import ValidationError

from claimcourt.adjudication.score import usage_from
from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError
from claimcourt.execution import Executor
from claimcourt.models import (
    LOCAL_TENANT,
    Lease,
    RunEvent,
    RunRecord,
    RunRequest,
    RunStatus,
    SourceTag,
    Usage,
    first_problem,
    utcnow,
)
from claimcourt.pipeline import announce_end
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
    request: RunRequest,
    source_tag: SourceTag = SourceTag.APP,
    tenant_id: str = LOCAL_TENANT,
    run_id: str | None = None,
) -> RunRecord:
    record = RunRecord(
        run_id=run_id or new_run_id(),
        claim_id=claim_id_for(request.claim),
        status=RunStatus.RUNNING,
        request=request,
        source_tag=source_tag,
        tenant_id=tenant_id,
    )
    store.create_run(record)
    store.append_event(
        RunEvent(run_id=record.run_id, type="run.created", data={"claim": request.claim}), key="run.created"
    )
    return record


def submit_run(
    store: Store,
    executor: Executor,
    settings: Settings,
    tenant_id: str,
    request: RunRequest,
    source_tag: SourceTag = SourceTag.APP,
    run_id: str | None = None,
) -> RunRecord:
    """Admit, record and start a run. Over a cap: RateLimitedError, with nothing stored. If the
    execution cannot be started, the run ends failed with the reason (and gives its lease back).
    A caller that names the run (a drift tick, an event) gets ConflictError `run_exists` if that
    run was started before, and nothing happens twice."""
    if run_id is not None and _exists(store, run_id):
        raise run_exists(run_id)
    run_id = run_id or new_run_id()
    store.admit(
        Lease(run_id=run_id, tenant_id=tenant_id, since=utcnow()),
        max_active=settings.max_active_runs,
        hourly_limit=settings.hourly_runs_per_tenant,
    )
    try:
        record = create_run(store, request, source_tag, tenant_id=tenant_id, run_id=run_id)
    except ConflictError:
        # Started meanwhile by a twin caller: a running run keeps the (one) lease, an ended one frees it.
        if store.get_run(run_id).status.terminal:
            store.release(run_id)
        raise
    except BaseException:
        if _exists(store, run_id):  # recorded, but not its first event: end it, or it runs for ever
            store.set_status(run_id, RunStatus.FAILED, error="could not record the run's start")
            # Its end event and release; if the store fails these too, the lease stays for the sweeper.
            announce_end(store, run_id)
        else:
            store.release(run_id)
        raise
    try:
        executor.start(run_id)
    except Exception as err:
        store.set_status(
            run_id, RunStatus.FAILED, error=f"could not start the execution: {type(err).__name__}"
        )
        announce_end(store, run_id)
        raise
    return record


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
            store.set_status(lease.run_id, RunStatus.FAILED, error=reason)
        announce_end(store, lease.run_id)
        released.append(lease.run_id)
    return released


def run_usage(store: Store, record: RunRecord) -> Usage:
    """What the run spent, whatever its end: the result's account once scored, else every call in
    its ledger (a failed or stopped run paid for the calls it made)."""
    if record.result is not None:
        return record.result.usage
    return usage_from(store.run_calls(record.run_id), 0, 0)
