"""Monitors in DynamoDB: MON#<id> items, listed per tenant by claim (gsi1) and all of them by when
they are next due (gsi2's one DUE partition: the drift tick reads the overdue ones with one Query;
past some thousands of ticks a second it would want sharding)."""

from __future__ import annotations

from datetime import datetime

from claimcourt.errors import NotFoundError
from claimcourt.models import Monitor
from claimcourt.store.base import MonitorStore, monitor_listing_key, sortable
from claimcourt.store.dynamodb.tables import BY_SOURCE, GSI, DynamoTables, Item, string


class DynamoMonitors(DynamoTables, MonitorStore):
    def _monitor_item(self, monitor: Monitor) -> Item:
        due = sortable(monitor.next_due)
        return {
            "pk": string(f"MON#{monitor.monitor_id}"),
            "sk": string("MON"),
            "kind": string("monitor"),
            "gsi1pk": string(f"MONITORS#{monitor.tenant_id}"),
            "gsi1sk": string(monitor_listing_key(monitor)),
            "gsi2pk": string("DUE"),
            "gsi2sk": string(f"{due}#{monitor.monitor_id}"),
            "next_due": string(due),
            "doc": string(monitor.model_dump_json()),
        }

    def put_monitor(self, monitor: Monitor) -> None:
        self._put(self.table, self._monitor_item(monitor))

    def get_monitor(self, monitor_id: str) -> Monitor:
        item = self._get(self.table, {"pk": string(f"MON#{monitor_id}"), "sk": string("MON")})
        if item is None:
            raise NotFoundError(f"no monitor {monitor_id}")
        return Monitor.model_validate_json(item["doc"]["S"])

    def _monitors(self, tenant_id: str, claim_id: str | None = None) -> list[Monitor]:
        condition, values = "gsi1pk = :p", {":p": string(f"MONITORS#{tenant_id}")}
        if claim_id is not None:
            condition += " AND begins_with(gsi1sk, :claim)"
            values[":claim"] = string(f"{claim_id}#")
        listed = self._query(
            IndexName=GSI, KeyConditionExpression=condition, ExpressionAttributeValues=values
        )
        return self._documents([{"pk": item["pk"], "sk": item["sk"]} for item in listed], Monitor)

    def list_monitors(self, tenant_id: str) -> list[Monitor]:
        return self._monitors(tenant_id)

    def monitors_of_claim(self, tenant_id: str, claim_id: str) -> list[Monitor]:
        return self._monitors(tenant_id, claim_id)

    def delete_monitor(self, monitor_id: str) -> bool:
        with self._lock:
            reply = self.client.delete_item(
                TableName=self.table,
                Key={"pk": string(f"MON#{monitor_id}"), "sk": string("MON")},
                ReturnValues="ALL_OLD",
            )
        return "Attributes" in reply

    def due_monitors(self, now: datetime, limit: int) -> list[Monitor]:
        due = self._query(
            limit=limit,
            IndexName=BY_SOURCE,
            KeyConditionExpression="gsi2pk = :due AND gsi2sk <= :now",
            ExpressionAttributeValues={":due": string("DUE"), ":now": string(sortable(now) + "#~")},
        )
        return self._documents([{"pk": item["pk"], "sk": item["sk"]} for item in due], Monitor)

    def advance_monitor(self, monitor_id: str, due: datetime, next_due: datetime, run_id: str | None) -> bool:
        try:
            monitor = self.get_monitor(monitor_id)
        except NotFoundError:
            return False
        moved = monitor.model_copy(
            update={"next_due": next_due, "last_run_id": run_id or monitor.last_run_id}
        )
        written = self._conditional_write(
            self.client.put_item,
            TableName=self.table,
            Item=self._monitor_item(moved),
            ConditionExpression="next_due = :due",
            ExpressionAttributeValues={":due": string(sortable(due))},
        )
        return written is not None  # None: another tick moved it on, or it was deleted
