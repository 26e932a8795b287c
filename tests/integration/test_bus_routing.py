"""The project's bus as the template builds it, under moto: the rule sends exactly the events the
monitor function acts on to its queue, and what arrives there is what the function reads."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import boto3
import pytest
from moto import mock_aws

from claimcourt.watching.changes import SCORE_CHANGED
from claimcourt.watching.events import handler
from claimcourt.wiring import use_deps
from tests.conftest import MakeDeps
from tests.contract.aws_resources import template
from tests.fakes.apigw import LambdaContext
from tests.integration.test_http_api import RecordingExecutor
from tests.integration.test_triggers import RecordingDeadLetters, sample

RESOURCES = template()["Resources"]


def _entry(event: dict[str, Any], bus: str) -> dict[str, Any]:
    return {
        "Source": event["source"],
        "DetailType": event["detail-type"],
        "Detail": json.dumps(event["detail"]),
        "EventBusName": bus,
    }


def test_the_drift_schedule_and_the_monitor_queue_are_wired_in_the_template() -> None:
    drift = RESOURCES["DriftFunction"]["Properties"]["Events"]
    assert [e["Type"] for e in drift.values()] == ["ScheduleV2"]
    queue = RESOURCES["MonitorQueue"]["Properties"]
    assert queue["RedrivePolicy"]["deadLetterTargetArn"] == {"Fn::GetAtt": ["MonitorDeadLetterQueue", "Arn"]}
    rule = RESOURCES["MonitorEventsRule"]["Properties"]
    assert rule["Targets"][0]["Arn"] == {"Fn::GetAtt": ["MonitorQueue", "Arn"]}
    (source,) = RESOURCES["MonitorFunction"]["Properties"]["Events"].values()
    assert source["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


@pytest.mark.usefixtures("clean_env")
def test_the_rule_routes_the_sample_events_and_nothing_else_to_the_monitor_function(
    make_deps: MakeDeps,
) -> None:
    with mock_aws():
        events, sqs = boto3.client("events"), boto3.client("sqs")
        events.create_event_bus(Name="claimcourt-test")
        queue_url = sqs.create_queue(QueueName="monitor")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        pattern = RESOURCES["MonitorEventsRule"]["Properties"]["EventPattern"]
        events.put_rule(Name="monitor", EventBusName="claimcourt-test", EventPattern=json.dumps(pattern))
        events.put_targets(
            Rule="monitor", EventBusName="claimcourt-test", Targets=[{"Id": "q", "Arn": queue_arn}]
        )
        # When the two sample events and claimcourt's own score_changed are put on the bus
        changed = {"source": "claimcourt", "detail-type": SCORE_CHANGED, "detail": {"run_id": "run_1"}}
        sent = [sample("claim_check_requested"), sample("evidence_updated"), changed]
        events.put_events(Entries=[_entry(e, "claimcourt-test") for e in sent])
        messages = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]
    # Then the queue got the two it should, as EventBridge envelopes the monitor function reads
    bodies = [m["Body"] for m in messages]
    assert sorted(json.loads(b)["detail-type"] for b in bodies) == [
        "claim.check_requested",
        "evidence.updated",
    ]
    deps = dataclasses.replace(make_deps(), executor=RecordingExecutor(), dead_letters=RecordingDeadLetters())
    batch = {
        "Records": [
            {
                "messageId": m["MessageId"],
                "body": m["Body"],
                "receiptHandle": m["ReceiptHandle"],
                "attributes": {},
                "messageAttributes": {},
                "eventSource": "aws:sqs",
            }
            for m in messages
        ]
    }
    with use_deps(deps):
        assert handler(batch, LambdaContext()) == {"batchItemFailures": []}
    assert len(deps.executor.started) == 1  # type: ignore[union-attr]  (nobody watches the updated claim)
    assert deps.dead_letters.kept == []  # type: ignore[union-attr]
