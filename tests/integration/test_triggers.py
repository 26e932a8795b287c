"""Event-triggered re-scoring: the monitor function (functions/monitor/app.py) fed SQS batches of
bus events, over the SQLite store with an executor that records what it was asked to start."""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from claimcourt.models import MonitorRequest, SourceTag
from claimcourt.watching.drift import create_monitor
from claimcourt.watching.events import handler
from claimcourt.wiring import Deps, use_deps
from tests.conftest import MakeDeps
from tests.fakes.apigw import LambdaContext
from tests.integration.test_http_api import RecordingExecutor

EVENTS = Path(__file__).resolve().parents[1] / "events"


def sample(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return event


def sqs_batch(*bodies: str) -> dict[str, Any]:
    """The SQS event Lambda gets, one record per message body."""
    return {
        "Records": [
            {
                "messageId": f"m{i}",
                "receiptHandle": uuid.uuid4().hex,
                "body": body,
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "md5OfBody": "",
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:claimcourt-monitor",
                "awsRegion": "us-east-1",
            }
            for i, body in enumerate(bodies)
        ]
    }


class RecordingDeadLetters:
    def __init__(self) -> None:
        self.kept: list[tuple[str, str]] = []

    def send(self, body: str, reason: str) -> None:
        self.kept.append((body, reason))


@pytest.fixture
def deps(make_deps: MakeDeps) -> Any:
    deps = dataclasses.replace(make_deps(), executor=RecordingExecutor(), dead_letters=RecordingDeadLetters())
    with use_deps(deps):
        yield deps


def _started(deps: Deps) -> list[str]:
    assert isinstance(deps.executor, RecordingExecutor)
    return deps.executor.started


def _dead(deps: Deps) -> list[tuple[str, str]]:
    assert isinstance(deps.dead_letters, RecordingDeadLetters)
    return deps.dead_letters.kept


def test_a_check_request_starts_one_run_however_often_it_is_delivered(deps: Deps) -> None:
    body = json.dumps(sample("claim_check_requested"))
    assert handler(sqs_batch(body), LambdaContext()) == {"batchItemFailures": []}
    assert handler(sqs_batch(body, body), LambdaContext()) == {"batchItemFailures": []}  # redelivered twice
    [run_id] = _started(deps)
    run = deps.store.get_run(run_id)
    assert (run.source_tag, run.tenant_id, run.request.effort) == (SourceTag.MONITOR, "acme", "low")
    assert run.request.claim == "Arctic sea ice extent has declined since 1979"


def test_evidence_updates_rescore_the_claims_a_tenant_watches(deps: Deps) -> None:
    watched = MonitorRequest(
        claim="Arctic sea ice extent has declined since 1979", cadence="weekly", threshold=5
    )
    create_monitor(deps.store, "acme", watched.model_copy(update={"effort": "high"}))
    event = sample("evidence_updated")
    event["detail"]["claim_ids"].append("c_0000000000000000")  # nobody watches this one
    handler(sqs_batch(json.dumps(event)), LambdaContext())
    [run_id] = _started(deps)
    assert deps.store.get_run(run_id).request.effort == "high"  # as the monitor asks
    other = {**event, "detail": {**event["detail"], "tenant_id": "globex"}, "id": "another-event"}
    handler(sqs_batch(json.dumps(other)), LambdaContext())
    assert len(_started(deps)) == 1  # globex watches nothing


@pytest.mark.parametrize(
    ("mangle", "reason"),
    [
        (lambda e: "not json at all", "not an EventBridge event"),
        (lambda e: json.dumps({**e, "detail-type": "claim.deleted"}), "unknown detail-type 'claim.deleted'"),
        (lambda e: json.dumps({**e, "detail": {"claim": "x"}}), "claim.check_requested: detail.tenant_id"),
        (
            lambda e: json.dumps({**e, "detail": {**e["detail"], "claim": "\u0000"}}),
            "claim.check_requested: detail.claim",
        ),
    ],
)
def test_a_malformed_event_goes_to_the_dead_letters_and_the_batch_goes_on(
    deps: Deps, mangle: Any, reason: str
) -> None:
    good = sample("claim_check_requested")
    poison = mangle(good)
    reply = handler(sqs_batch(poison, json.dumps(good)), LambdaContext())
    assert reply == {"batchItemFailures": []}  # the poison is kept aside, not retried
    [(body, why)] = _dead(deps)
    assert body == poison and why.startswith(reason), why
    assert len(_started(deps)) == 1


def test_an_event_the_cost_guard_refuses_fails_alone_to_be_delivered_again(deps: Deps) -> None:
    busy = dataclasses.replace(deps, settings=deps.settings.model_copy(update={"max_active_runs": 1}))
    first, second = sample("claim_check_requested"), sample("claim_check_requested")
    second["id"], second["detail"]["claim"] = "second", "Glaciers are retreating"
    with use_deps(busy):
        reply = handler(sqs_batch(json.dumps(first), json.dumps(second)), LambdaContext())
    assert reply == {"batchItemFailures": [{"itemIdentifier": "m1"}]}
    assert len(_started(deps)) == 1 and _dead(deps) == []
