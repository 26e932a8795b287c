"""The cost guard in DynamoDB: the lease counter and the leases (LEASES partition) and the hourly
counters (limits table, TTL), taken and given back in transactions."""

from __future__ import annotations

from claimcourt.models import Lease
from claimcourt.store.base import AdmissionStore, hour_window, over_concurrency, over_hourly
from claimcourt.store.dynamodb.tables import AGAIN, Again, DynamoTables, Item, number, string

LEASES = "LEASES"


class DynamoAdmission(DynamoTables, AdmissionStore):
    def admit(self, lease: Lease, *, max_active: int, hourly_limit: int) -> None:
        """One transaction: the lease counter goes up if it is under the cap, the lease is put, and the
        caller's hourly counter goes up if it is under its cap (only for a lease that spends). All of
        it happens, or none of it."""
        window = hour_window(lease.since)
        window_end = lease.since.replace(minute=0, second=0, microsecond=0).timestamp() + 3600
        items = [
            {
                "Update": {
                    "TableName": self.table,
                    "Key": {"pk": string(LEASES), "sk": string("COUNT")},
                    "UpdateExpression": "SET #kind = :kind ADD n :one",
                    "ConditionExpression": "attribute_not_exists(n) OR n < :cap",
                    "ExpressionAttributeNames": {"#kind": "kind"},
                    "ExpressionAttributeValues": {
                        ":one": number(1),
                        ":cap": number(max_active),
                        ":kind": string("counter"),
                    },
                }
            },
            {
                "Put": {
                    "TableName": self.table,
                    "Item": {
                        "pk": string(LEASES),
                        "sk": string(f"LEASE#{lease.run_id}"),
                        "kind": string("lease"),
                        "doc": string(lease.model_dump_json()),
                    },
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self.limits_table,
                    "Key": {"pk": string(f"HOURLY#{lease.tenant_id}#{window}")},
                    "UpdateExpression": "SET expires_at = :expires ADD n :one",
                    "ConditionExpression": "attribute_not_exists(n) OR n < :cap",
                    "ExpressionAttributeValues": {
                        ":one": number(1),
                        ":cap": number(hourly_limit),
                        ":expires": number(int(window_end) + 3600),  # kept an hour past its window
                    },
                }
            },
        ]
        if not lease.spends:  # a run that spends nothing is not counted against the hourly cap
            items.pop()

        def cancelled(reasons: list[str]) -> Again | None:
            if reasons[1:2] == ["ConditionalCheckFailed"]:
                return None  # this run holds its lease already: a retried admission
            if reasons[0:1] == ["ConditionalCheckFailed"]:
                raise over_concurrency(max_active) from None
            if reasons[2:3] == ["ConditionalCheckFailed"]:
                raise over_hourly(hourly_limit, lease.since, lease.tenant_id) from None
            return AGAIN  # a transaction conflict with another admission

        self._retrying(lambda: self._transact(items), "admitting a run", cancelled)

    def release(self, run_id: str, *, refund: bool = False) -> bool:
        key = {"pk": string(LEASES), "sk": string(f"LEASE#{run_id}")}
        refundable = refund  # until the hour's counter turns out to be gone (expired) or at zero

        def attempt() -> bool:
            delete: Item = {"TableName": self.table, "Key": key}
            delete["ConditionExpression"] = "attribute_exists(pk)"
            items = [{"Delete": delete}, {"Update": self._lease_count(-1)}]
            if refundable:
                # The lease names the tenant and hour its admission counted against. Deleting it as
                # read, in the same transaction, is what makes the refund happen once.
                found = self._get(self.table, key)
                if found is None:
                    return False
                lease = Lease.model_validate_json(found["doc"]["S"])
                delete["ConditionExpression"] = "doc = :doc"
                delete["ExpressionAttributeValues"] = {":doc": found["doc"]}
                if lease.spends:  # else its admission counted nothing
                    items.append({"Update": self._hourly_refund(lease)})
            self._transact(items)
            return True

        def cancelled(reasons: list[str]) -> bool | Again:
            nonlocal refundable
            if reasons[0:1] == ["ConditionalCheckFailed"]:
                # No lease: released before, or never admitted (with a refund, read again to tell).
                return AGAIN if refundable else False
            if reasons[2:3] == ["ConditionalCheckFailed"]:
                refundable = False  # nothing left to give back: release the lease alone
            return AGAIN

        return self._retrying(attempt, f"run {run_id}: releasing its lease", cancelled)

    def _lease_count(self, change: int) -> Item:
        return {
            "TableName": self.table,
            "Key": {"pk": string(LEASES), "sk": string("COUNT")},
            "UpdateExpression": "ADD n :change",
            "ExpressionAttributeValues": {":change": number(change)},
        }

    def _hourly_refund(self, lease: Lease) -> Item:
        return {
            "TableName": self.limits_table,
            "Key": {"pk": string(f"HOURLY#{lease.tenant_id}#{hour_window(lease.since)}")},
            "UpdateExpression": "ADD n :minus_one",
            # Never below zero, and never a new counter for an hour whose counter has expired.
            "ConditionExpression": "n > :zero",
            "ExpressionAttributeValues": {":minus_one": number(-1), ":zero": number(0)},
        }

    def leases(self) -> list[Lease]:
        return [Lease.model_validate_json(item["doc"]["S"]) for item in self._partition(LEASES, "LEASE#")]
