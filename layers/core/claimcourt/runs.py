"""Starting a run: validate the request and record the run before anything is spent."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import ValidationError

from claimcourt.errors import InvalidRequestError
from claimcourt.models import RunEvent, RunRecord, RunRequest, RunStatus, SourceTag
from claimcourt.store.base import Store, claim_id_for


def parse_request(raw: dict[str, Any]) -> RunRequest:
    """A RunRequest, or an InvalidRequestError naming the first bad field."""
    try:
        return RunRequest.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "request"
        message = first["msg"].removeprefix("Value error, ")
        raise InvalidRequestError(field, message) from err


def new_run_id() -> str:
    return "run_" + uuid.uuid4().hex[:20]


def create_run(store: Store, request: RunRequest, source_tag: SourceTag = SourceTag.APP) -> RunRecord:
    record = RunRecord(
        run_id=new_run_id(),
        claim_id=claim_id_for(request.claim),
        status=RunStatus.RUNNING,
        request=request,
        source_tag=source_tag,
    )
    store.create_run(record)
    store.append_event(
        RunEvent(run_id=record.run_id, type="run.created", data={"claim": request.claim}), key="run.created"
    )
    return record
