"""A run's progress events in DynamoDB: EV#<seq> items in the run's partition, a counter moved by
one transaction an append, and a key marker that makes an append idempotent."""

from __future__ import annotations

from claimcourt.models import RunEvent
from claimcourt.store.base import EventLog
from claimcourt.store.dynamodb.tables import AGAIN, Again, DynamoTables, number, run_pk, string

MAX_SEQ = 10**10 - 1  # event keys hold ten digits


def _event_sk(seq: int) -> str:
    return f"EV#{seq:010d}"


class DynamoEvents(DynamoTables, EventLog):
    def append_event(self, event: RunEvent, key: str) -> RunEvent | None:
        """One transaction moves the run's event counter from n to n+1 (conditional on n), puts the
        key marker (conditional on its absence) and the event with seq n+1. So seqs have no gaps,
        and event n+1 cannot exist before event n does: a reader polling `after_seq` misses nothing."""
        pk = string(run_pk(event.run_id))

        def attempt() -> RunEvent | None:
            counter = self._get(self.table, {"pk": pk, "sk": string("EVSEQ")})
            last = int(counter["n"]["N"]) if counter else 0
            stored = event.model_copy(update={"seq": last + 1})
            guard = "attribute_not_exists(n)" if counter is None else "n = :last"
            values = {":next": number(last + 1), ":kind": string("counter")}
            if counter is not None:
                values[":last"] = number(last)
            items = [
                {
                    "Update": {
                        "TableName": self.table,
                        "Key": {"pk": pk, "sk": string("EVSEQ")},
                        "UpdateExpression": "SET n = :next, #kind = :kind",
                        "ConditionExpression": guard,
                        "ExpressionAttributeNames": {"#kind": "kind"},
                        "ExpressionAttributeValues": values,
                    }
                },
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": {
                            "pk": pk,
                            "sk": string(f"EVKEY#{key}"),
                            "kind": string("event_key"),
                            "seq": number(last + 1),
                        },
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": {
                            "pk": pk,
                            "sk": string(_event_sk(last + 1)),
                            "kind": string("event"),
                            "run_id": string(event.run_id),
                            "type": string(event.type),
                            "seq": number(last + 1),
                            "doc": string(stored.model_dump_json()),
                        },
                    }
                },
            ]
            self._transact(items)
            return stored

        def cancelled(reasons: list[str]) -> RunEvent | Again | None:
            if reasons[1:2] == ["ConditionalCheckFailed"]:
                return None  # this key was appended before: a retried stage
            return AGAIN  # another writer took seq n+1 (or a transaction conflict): read the counter again

        with self._lock:
            return self._retrying(attempt, f"run {event.run_id}: appending an event", cancelled)

    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]:
        if after_seq >= MAX_SEQ:
            return []  # past any seq an event key can hold (and BETWEEN refuses a reversed range)
        items = self._query(
            KeyConditionExpression="pk = :pk AND sk BETWEEN :lo AND :hi",
            ExpressionAttributeValues={
                ":pk": string(run_pk(run_id)),
                ":lo": string(_event_sk(after_seq + 1)),
                ":hi": string(_event_sk(MAX_SEQ)),
            },
            ConsistentRead=True,
        )
        return [RunEvent.model_validate_json(item["doc"]["S"]) for item in items]
