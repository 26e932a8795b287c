"""Event-triggered re-scoring: the monitor function's side of the project's bus.

An EventBridge rule sends `claim.check_requested` and `evidence.updated` events to an SQS queue,
which the monitor function reads in batches. Each event starts re-score runs (source tag
`monitor`) whose ids are made from the event's id, so a redelivered event starts nothing twice.
An event claimcourt cannot act on goes to the dead-letter queue with the reason, and the rest of
the batch goes on; one refused by the cost guard fails alone and is delivered again later (after
the queue's maximum receives, it too reaches the dead-letter queue).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from contextlib import suppress
from datetime import datetime
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ValidationError

from claimcourt.errors import ConfigurationError, ConflictError, MalformedEventError
from claimcourt.execution import Executor
from claimcourt.models import (
    BusEnvelope,
    CheckRequested,
    EvidenceUpdated,
    RunRequest,
    SourceTag,
    first_problem,
    utcnow,
)
from claimcourt.observability import logger, observed
from claimcourt.runs import submit_run
from claimcourt.settings import Settings
from claimcourt.store.base import Store, claim_id_for
from claimcourt.wiring import current_deps

DETAILS: dict[str, type[CheckRequested] | type[EvidenceUpdated]] = {
    "claim.check_requested": CheckRequested,
    "evidence.updated": EvidenceUpdated,
}


def event_run_id(event_id: str, claim_id: str) -> str:
    """One run per event and claim, however often the event is delivered."""
    return "evt-" + hashlib.sha256(f"{event_id}#{claim_id}".encode()).hexdigest()[:24]


def _first_problem(err: ValidationError) -> str:
    return ": ".join(first_problem(err, "event"))


def parse(body: str) -> tuple[BusEnvelope, CheckRequested | EvidenceUpdated]:
    """The event and its detail, or MalformedEventError saying what is wrong with it."""
    try:
        envelope = BusEnvelope.model_validate_json(body)
    except ValidationError as err:
        raise MalformedEventError(f"not an EventBridge event: {_first_problem(err)}") from None
    model = DETAILS.get(envelope.detail_type)
    if model is None:
        raise MalformedEventError(f"unknown detail-type {envelope.detail_type!r}")
    try:
        detail: BaseModel = model.model_validate(envelope.detail)
    except ValidationError as err:
        raise MalformedEventError(f"{envelope.detail_type}: detail.{_first_problem(err)}") from None
    assert isinstance(detail, CheckRequested | EvidenceUpdated)
    return envelope, detail


def respond(
    store: Store, executor: Executor, settings: Settings, body: str, now: Callable[[], datetime] = utcnow
) -> list[str]:
    """Start the runs an event asks for (admitted at `now()`); the run ids (including ones a first
    delivery started). RateLimitedError if the cost guard refuses one: the event is delivered again later."""
    envelope, detail = parse(body)
    wanted: list[tuple[str, RunRequest]] = []
    if isinstance(detail, CheckRequested):
        wanted.append((claim_id_for(detail.claim), detail.run_request()))
    else:
        for claim_id in dict.fromkeys(detail.claim_ids):
            monitors = store.monitors_of_claim(detail.tenant_id, claim_id)
            if monitors:  # evidence about a claim nobody watches changes nothing here
                wanted.append((claim_id, monitors[0].request.run_request()))
    run_ids = []
    for claim_id, request in wanted:
        run_id = event_run_id(envelope.id, claim_id)
        with suppress(ConflictError):  # this event was delivered before, and started it then
            submit_run(
                store,
                executor,
                settings,
                detail.tenant_id,
                request,
                SourceTag.MONITOR,
                run_id=run_id,
                now=now,
            )
        run_ids.append(run_id)
    return run_ids


processor = BatchProcessor(event_type=EventType.SQS)


def _one(record: SQSRecord) -> list[str]:
    deps = current_deps()
    if deps.executor is None:
        raise ConfigurationError("no executor: CLAIMCOURT_STATE_MACHINE_ARN is not set")
    try:
        run_ids = respond(deps.store, deps.executor, deps.settings, record.body, deps.now)
    except MalformedEventError as err:
        if deps.dead_letters is None:
            raise ConfigurationError(
                "no dead-letter queue: CLAIMCOURT_DEAD_LETTER_QUEUE_URL is not set"
            ) from err
        logger.warning(
            "malformed event: to the dead-letter queue", extra={"reason": str(err), "id": record.message_id}
        )
        deps.dead_letters.send(record.body, str(err))
        return []
    logger.info("event handled", extra={"message_id": record.message_id, "runs": run_ids})
    return run_ids


@observed
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """An SQS batch; failures are reported per message (ReportBatchItemFailures)."""
    reply = process_partial_response(event=event, record_handler=_one, processor=processor, context=context)
    return dict(reply)
