"""Events claimcourt puts on the project's bus: EventBridge in the cloud, a JSON-lines file on the
laptop (`<data dir>/events.jsonl`), so the same code path runs in both."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any, Protocol

from claimcourt.aws import LazyClient
from claimcourt.errors import TransientError

SOURCE = "claimcourt"


class Publisher(Protocol):
    def publish(self, detail_type: str, detail: dict[str, Any]) -> None: ...


class EventBridgePublisher:
    def __init__(self, bus_name: str, region: str | None = None) -> None:
        self.bus_name = bus_name
        self._events = LazyClient("events", region_name=region)

    def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        entry = {
            "Source": SOURCE,
            "DetailType": detail_type,
            "Detail": json.dumps(detail),
            "EventBusName": self.bus_name,
        }
        reply = self._events.get().put_events(Entries=[entry])
        if reply.get("FailedEntryCount"):
            failure = reply["Entries"][0]
            raise TransientError(f"EventBridge refused {detail_type}: {failure.get('ErrorCode')}")


class DeadLetters(Protocol):
    def send(self, body: str, reason: str) -> None:
        """Keep a message that cannot be acted on, with why, for someone to look at."""
        ...


class SqsDeadLetters:
    def __init__(self, queue_url: str, region: str | None = None) -> None:
        self.queue_url = queue_url
        self._sqs = LazyClient("sqs", region_name=region)

    def send(self, body: str, reason: str) -> None:
        self._sqs.get().send_message(
            QueueUrl=self.queue_url,
            MessageBody=body,
            MessageAttributes={"reason": {"DataType": "String", "StringValue": reason[:1000] or "-"}},
        )


class FilePublisher:
    """One JSON line per event, shaped as EventBridge delivers it (source, detail-type, detail)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        line = json.dumps({"source": SOURCE, "detail-type": detail_type, "detail": detail})
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")
