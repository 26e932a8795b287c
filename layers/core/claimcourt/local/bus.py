"""The project's bus on the laptop: the event bus, the monitor rule, its queue and dead-letter queue
as template.yaml defines them, made in the local runtime's moto, with the monitor function fed the
queue's messages in SQS batches as Lambda's poller would (failures reported per message, deleted
otherwise, redelivered after the visibility timeout until the redrive policy moves them aside)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from claimcourt.local.template import REGION, Template

VISIBILITY_S = 1  # the cloud waits 180 s to redeliver; a laptop run should not (then 2, 4, 8 s)
BUS = "claimcourt-local"
PUT_EVENTS_MAX = 10  # entries in one PutEvents call


@dataclass
class Drained:
    batches: int = 0
    dead: list[tuple[str, str]] = field(default_factory=list)  # (body, reason)
    delivered: set[str] = field(default_factory=set)  # the ids of the events the queue delivered


def entry(event: dict[str, Any]) -> dict[str, Any]:
    """A PutEvents entry from an event as EventBridge delivers it, or from a PutEvents entry; a
    ValueError naming the field if PutEvents would refuse it, or drop it (a detail that is not a
    JSON object). No source is `local`, no detail `{}`."""
    aws = "DetailType" in event
    source, detail_type, detail_name = (
        ("Source", "DetailType", "Detail") if aws else ("source", "detail-type", "detail")
    )
    for name, value in ((source, event.get(source, "local")), (detail_type, event.get(detail_type))):
        if value is None:
            raise ValueError(f"{name}: required")
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name}: must be a non-empty string")
    if aws:
        text = event.get("Detail", "{}")
        if not isinstance(text, str):
            raise ValueError("Detail: must be a string holding a JSON object")
        try:
            detail = json.loads(text)
        except ValueError:
            raise ValueError("Detail: not JSON") from None
    else:
        detail = event.get("detail", {})
    if not isinstance(detail, dict):
        raise ValueError(f"{detail_name}: must be a JSON object, not {_kind(detail)}")
    return {
        "Source": event.get(source, "local"),
        "DetailType": event[detail_type],
        "Detail": json.dumps(detail),
    }


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", bool: "true or false", type(None): "null"}.get(
        type(value), "a number"
    )


def _event_id(body: str) -> str:
    try:
        return str(json.loads(body).get("id", ""))
    except (ValueError, AttributeError):
        return ""


class LocalBus:
    """Make inside the local runtime (its moto); `put` events, then `drain` them into the handler."""

    def __init__(self, template: Template) -> None:
        import boto3

        resources = template.resources
        self.events = boto3.client("events", region_name=REGION)
        self.sqs = boto3.client("sqs", region_name=REGION)
        self.events.create_event_bus(Name=BUS)
        self.dead_letter_url = self.sqs.create_queue(QueueName=f"{BUS}-dead-letters")["QueueUrl"]
        dead_arn = self._arn(self.dead_letter_url)
        redrive = resources["MonitorQueue"]["Properties"]["RedrivePolicy"]
        self.max_receives = int(redrive["maxReceiveCount"])
        self.queue_url = self.sqs.create_queue(
            QueueName=f"{BUS}-monitor",
            Attributes={
                "VisibilityTimeout": str(VISIBILITY_S),
                "RedrivePolicy": json.dumps(
                    {"deadLetterTargetArn": dead_arn, "maxReceiveCount": redrive["maxReceiveCount"]}
                ),
            },
        )["QueueUrl"]
        rule = resources["MonitorEventsRule"]["Properties"]
        self.routed_types: list[str] = rule["EventPattern"]["detail-type"]  # what the rule sends on
        self.events.put_rule(Name="monitor", EventBusName=BUS, EventPattern=json.dumps(rule["EventPattern"]))
        self.events.put_targets(
            Rule="monitor",
            EventBusName=BUS,
            Targets=[{"Id": "monitor-queue", "Arn": self._arn(self.queue_url)}],
        )

    def _arn(self, queue_url: str) -> str:
        attributes = self.sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
        return str(attributes["Attributes"]["QueueArn"])

    def put(self, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Put PutEvents entries (see `entry`) on the bus, ten a call as PutEvents takes them: the
        bus's answer for each, in order, {"EventId": …} or {"ErrorCode": …, "ErrorMessage": …}. The
        rule decides which reach the queue."""
        answers: list[dict[str, Any]] = []
        for start in range(0, len(entries), PUT_EVENTS_MAX):
            chunk = [e | {"EventBusName": BUS} for e in entries[start : start + PUT_EVENTS_MAX]]
            answers += self.events.put_events(Entries=chunk)["Entries"]
        return answers

    def _pending(self) -> int:
        names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        attributes = self.sqs.get_queue_attributes(QueueUrl=self.queue_url, AttributeNames=names)[
            "Attributes"
        ]
        return sum(int(attributes[name]) for name in names)

    def drain(self, handler: Any, context: Any, timeout_s: float) -> Drained:
        """Feed the queue to `handler` in batches of up to 10 until it is empty (or `timeout_s`)."""
        drained = Drained()
        deadline = time.monotonic() + timeout_s
        while self._pending() and time.monotonic() < deadline:
            messages = self.sqs.receive_message(
                QueueUrl=self.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"]
            ).get("Messages", [])
            if not messages:
                time.sleep(0.2)  # in flight: visible again after the visibility timeout
                continue
            drained.batches += 1
            drained.delivered.update(_event_id(m["Body"]) for m in messages)
            try:
                reply = handler({"Records": [self._record(m) for m in messages]}, context)
                failed = {f["itemIdentifier"] for f in reply.get("batchItemFailures", [])}
            except BatchProcessingError:  # every message failed: Lambda fails the batch, all come back
                failed = {m["MessageId"] for m in messages}
            for message in messages:
                if message["MessageId"] not in failed:
                    self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
                else:  # offered again a little later each time (1, 2, 4, 8 s); its last, to the redrive now
                    receives = int(message.get("Attributes", {}).get("ApproximateReceiveCount", "1"))
                    wait = 0 if receives >= self.max_receives else VISIBILITY_S * 2 ** (receives - 1)
                    self.sqs.change_message_visibility(
                        QueueUrl=self.queue_url,
                        ReceiptHandle=message["ReceiptHandle"],
                        VisibilityTimeout=wait,
                    )
        drained.dead = self.dead_letters()
        return drained

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": message["Body"],
            "attributes": message.get("Attributes", {}),
            "messageAttributes": {},
            "md5OfBody": message.get("MD5OfBody", ""),
            "eventSource": "aws:sqs",
            "eventSourceARN": self._arn(self.queue_url),
            "awsRegion": REGION,
        }

    def dead_letters(self) -> list[tuple[str, str]]:
        kept: list[tuple[str, str]] = []
        while True:
            messages = self.sqs.receive_message(
                QueueUrl=self.dead_letter_url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
            ).get("Messages", [])
            if not messages:
                return kept
            for message in messages:
                # No reason attached: the redrive policy moved it, after the monitor function failed it
                # at every delivery (the cost guard refused it each time, say).
                redriven = f"delivered {self.max_receives} times, failed every time"
                reason = message.get("MessageAttributes", {}).get("reason", {}).get("StringValue", redriven)
                kept.append((message["Body"], reason))
                self.sqs.delete_message(QueueUrl=self.dead_letter_url, ReceiptHandle=message["ReceiptHandle"])
