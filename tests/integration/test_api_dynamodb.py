"""The HTTP API, the WebSocket handlers and the sweeper on the DynamoDB store (moto, tables from
template.yaml), with every AWS call they make checked against their own function's IAM policies."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import boto3
import pytest
from moto import mock_aws

from claimcourt.access import issue_key
from claimcourt.api.http import handler as http_handler
from claimcourt.api.notify import handler as notifier
from claimcourt.api.socket import handler as socket_handler
from claimcourt.evidence.golden import GoldenSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import Lease, RunStatus, utcnow
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import SWEEP_GRACE_S, announce_end, create_run, parse_request, sweep
from claimcourt.store.dynamodb import DynamoStore
from claimcourt.wiring import Deps, build_idempotency, use_deps
from tests.conftest import DEFAULT_HITS
from tests.contract.aws_resources import (
    Calls,
    create_from_template,
    dynamo_store,
    dynamodb_settings,
    record_calls,
    ungranted,
)
from tests.fakes.apigw import LambdaContext, http_event
from tests.integration.test_socket_handlers import RecordingPoster

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def cloud(clean_env: None, tmp_path: Any) -> Iterator[Deps]:
    """Deps on DynamoDB as a deployed function has them; documents over 200 B go to S3, so reads
    of large documents are exercised too."""
    with mock_aws():
        # as the deployed API reads them: it holds no provider keys, so every run may spend (and counts)
        settings = dynamodb_settings(data_dir=tmp_path).model_copy(update={"provider_keys_known": False})
        create_from_template(settings)
        store = dynamo_store(settings, inline_limit=200)
        reasoner = Reasoner({"offline": OfflineReasoner()}, lambda role: ("offline", "offline"), store, 1.0)
        yield Deps(
            settings=settings,
            store=store,
            reasoner=reasoner,
            evidence=GoldenSource(DEFAULT_HITS),
            idempotency=build_idempotency(settings, store),
        )


def _calls(deps: Deps) -> Calls:
    """What this thread's calls through the store's clients touch (stages run on other threads)."""
    assert isinstance(deps.store, DynamoStore)
    return record_calls([deps.store.client, deps.store.s3], deps.settings, threading.current_thread())


def _http(method: str, path: str, key: str, **kw: Any) -> tuple[int, Any]:
    headers = {"authorization": f"Bearer {key}", **kw.pop("headers", {})}
    reply = http_handler(http_event(method, path, headers=headers, **kw), LambdaContext())
    return reply["statusCode"], json.loads(reply["body"]) if reply.get("body") else None


def test_the_http_api_works_on_dynamodb_within_its_iam_policy(cloud: Deps) -> None:
    # Given the API on DynamoDB, its runs executed by the local runtime, and a tenant's key
    key, _ = issue_key(cloud.store, "acme")  # the CLI's part, not the API's
    with LocalRuntime(cloud) as runtime, use_deps(dataclasses.replace(cloud, executor=runtime)):
        calls = _calls(cloud)
        # When a client starts a run (twice, under one Idempotency-Key) and reads everything about it
        body, once = {"claim": "Sea levels are rising"}, {"idempotency-key": "k-1"}
        status, run = _http("POST", "/runs", key, body=body, headers=once)
        assert status == 202, run
        assert _http("POST", "/runs", key, body=body, headers=once)[1]["run_id"] == run["run_id"]
        deadline = time.monotonic() + 60
        while (view := _http("GET", f"/runs/{run['run_id']}", key)[1])["status"] == "running":
            assert time.monotonic() < deadline, "the run did not end"
            time.sleep(0.1)
        assert view["status"] == "succeeded" and view["result"]["sub_claims"], view
        assert (
            _http("GET", "/runs", key, query={"source": "app", "limit": "5"})[1]["runs"][0]["run_id"]
            == run["run_id"]
        )
        # (the record flips to succeeded just before its last events are appended: read until the end event)
        while (
            events := _http("GET", f"/runs/{run['run_id']}/events", key, query={"after": "1"})[1]["events"]
        )[-1]["type"] != "run.succeeded":
            assert time.monotonic() < deadline, "no end event"
            time.sleep(0.05)
        assert events[0]["seq"] == 2
        (claim,) = _http("GET", "/claims", key)[1]["claims"]
        assert len(_http("GET", f"/claims/{claim['claim_id']}/history", key)[1]["points"]) == 1
        assert _http("DELETE", f"/runs/{run['run_id']}", key)[0] == 204
        assert _http("GET", "/runs", key)[1]["runs"] == []
        watch = {"claim": "Sea levels are rising", "cadence": "daily", "threshold": 5}
        status, monitor = _http("POST", "/monitors", key, body=watch)
        assert status == 201, monitor
        assert [m["monitor_id"] for m in _http("GET", "/monitors", key)[1]["monitors"]] == [
            monitor["monitor_id"]
        ]
        assert _http("DELETE", f"/monitors/{monitor['monitor_id']}", key)[0] == 204
    # Then it needed nothing the template does not grant the API function
    assert ("ArtifactsBucket", "s3:GetObject") in calls and ("RateLimitTable", "dynamodb:UpdateItem") in calls
    assert ungranted(calls, ["ApiFunction"]) == []


def test_the_websocket_handlers_work_on_dynamodb_within_their_iam_policy(cloud: Deps) -> None:
    # Given two connections following a run, one of which has gone without a $disconnect
    poster = RecordingPoster()
    deps = dataclasses.replace(cloud, poster=poster)
    key, _ = issue_key(deps.store, "acme")
    run = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    with use_deps(deps):
        calls = _calls(deps)

        def send(route: str, connection_id: str, **event: Any) -> None:
            context = {"routeKey": route, "connectionId": connection_id, "stage": "prod"}
            request = {"requestContext": context, "isBase64Encoded": False, **event}
            assert socket_handler(request, LambdaContext())["statusCode"] == 200

        for connection_id in ("c1", "c2"):
            send("$connect", connection_id, headers={"x-api-key": key})
            send("subscribe", connection_id, body=json.dumps({"action": "subscribe", "run_id": run.run_id}))
        poster.gone.add("c2")
        socket_calls = calls.snapshot()
        # When the run ends (a stage's part, not recorded) and its stream record reaches the notifier
        deps.store.set_status(run.run_id, RunStatus.FAILED, error="test")
        announce_end(deps.store, run.run_id)
        calls.clear()
        stream = {"dynamodb": {"NewImage": {"kind": {"S": "event"}, "run_id": {"S": run.run_id}}}}
        notifier({"Records": [{"eventName": "INSERT", **stream}]}, LambdaContext())
        notify_calls = calls.snapshot()
        calls.clear()
        send("$disconnect", "c1")
        socket_calls.merge(calls)
    # Then the live one got the stored and the final event, the gone one was removed, nobody follows on
    assert poster.seqs("c1") == [1, 2]
    assert deps.store.subscribers(run.run_id) == []
    # and neither function needed anything the template does not grant it
    assert ("ConnectionsTable", "dynamodb:PutItem") in socket_calls
    assert ("ConnectionsTable", "dynamodb:DeleteItem") in notify_calls
    assert ungranted(socket_calls, ["SocketFunction"]) == []
    assert ungranted(notify_calls, ["NotifyFunction"]) == []


def test_the_sweeper_works_on_dynamodb_within_its_iam_policy(cloud: Deps) -> None:
    store = cloud.store
    old = utcnow() - timedelta(seconds=SWEEP_GRACE_S + 5)
    runs = [create_run(store, parse_request({"claim": f"claim {i}"}), tenant_id="acme") for i in range(2)]
    for run in runs:
        store.admit(Lease(run_id=run.run_id, tenant_id="acme", since=old), max_active=5, hourly_limit=50)
    store.admit(Lease(run_id="run_orphan", tenant_id="acme", since=old), max_active=5, hourly_limit=50)
    calls = _calls(cloud)
    statuses = {runs[0].run_id: "RUNNING", runs[1].run_id: "TIMED_OUT"}
    assert sorted(sweep(store, statuses.get)) == sorted([runs[1].run_id, "run_orphan"])
    assert ungranted(calls, ["SweeperFunction"]) == []


def test_the_deployed_sweeper_ends_a_run_whose_step_functions_execution_does_not_exist(cloud: Deps) -> None:
    # Given a deployed state machine (moto's Step Functions), one run whose execution is running and
    # one whose execution vanished (never started, or deleted with its history), both past the grace
    from claimcourt.execution import StepFunctionsExecutor
    from functions.sweeper.app import handler as sweeper_handler

    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    machine = sfn.create_state_machine(
        name="claimcourt-debate",
        definition=json.dumps(
            {"StartAt": "Wait", "States": {"Wait": {"Type": "Wait", "Seconds": 600, "End": True}}}
        ),
        roleArn="arn:aws:iam::123456789012:role/claimcourt-states",
    )["stateMachineArn"]
    executor = StepFunctionsExecutor(machine, region="us-east-1")
    old = utcnow() - timedelta(seconds=SWEEP_GRACE_S + 5)
    alive, lost = (
        create_run(cloud.store, parse_request({"claim": f"claim {i}"}), tenant_id="acme") for i in (1, 2)
    )
    for run in (alive, lost):
        cloud.store.admit(
            Lease(run_id=run.run_id, tenant_id="acme", since=old), max_active=5, hourly_limit=50
        )
    executor.start(alive.run_id)
    # When the scheduled sweeper runs
    with use_deps(dataclasses.replace(cloud, executor=executor)):
        reply = sweeper_handler({}, LambdaContext())
    # Then the lost run is failed with the reason and its slot given back; the running one is untouched
    assert reply == {"released": [lost.run_id]}
    ended = cloud.store.get_run(lost.run_id)
    assert (ended.status, ended.error) == (RunStatus.FAILED, "its execution never started or was lost")
    assert cloud.store.get_run(alive.run_id).status == RunStatus.RUNNING
    assert [lease.run_id for lease in cloud.store.leases()] == [alive.run_id]


def test_the_drift_tick_and_the_monitor_function_work_on_dynamodb_within_their_iam_policy(
    cloud: Deps,
) -> None:
    from claimcourt.models import MonitorRequest
    from claimcourt.watching.drift import create_monitor, tick
    from claimcourt.watching.events import handler as monitor_handler
    from tests.integration.test_http_api import RecordingExecutor
    from tests.integration.test_triggers import RecordingDeadLetters, sample, sqs_batch

    deps = dataclasses.replace(cloud, executor=RecordingExecutor(), dead_letters=RecordingDeadLetters())
    claim = sample("claim_check_requested")["detail"]["claim"]
    create_monitor(deps.store, "acme", MonitorRequest(claim=claim, cadence="daily", threshold=5))
    calls = _calls(deps)
    report = tick(deps.store, deps.executor, deps.settings)  # type: ignore[arg-type]
    assert len(report.started) == 1
    drift_calls = calls.snapshot()
    calls.clear()
    with use_deps(deps):
        batch = sqs_batch(json.dumps(sample("claim_check_requested")), json.dumps(sample("evidence_updated")))
        assert monitor_handler(batch, LambdaContext()) == {"batchItemFailures": []}
    assert len(deps.executor.started) == 3  # type: ignore[union-attr]
    assert ("MainTable/index", "dynamodb:Query") in drift_calls | calls
    assert ungranted(drift_calls, ["DriftFunction"]) == []
    assert ungranted(calls, ["MonitorFunction"]) == []
