"""The usage ledger in DynamoDB: CALL#<key> items in the run's partition, the cost beside the
document so a run's spend reads only that."""

from __future__ import annotations

import json
from dataclasses import asdict

from claimcourt.models import CallRecord
from claimcourt.store.base import CallLedger
from claimcourt.store.dynamodb.tables import DynamoTables, number, run_pk, string


class DynamoCalls(DynamoTables, CallLedger):
    def get_call(self, run_id: str, call_key: str) -> CallRecord | None:
        item = self._get(self.table, {"pk": string(run_pk(run_id)), "sk": string(f"CALL#{call_key}")})
        return CallRecord(**json.loads(self._body(item))) if item else None

    def put_call(self, record: CallRecord) -> None:
        body = json.dumps(asdict(record), separators=(",", ":"))
        self._put(
            self.table,
            {
                "pk": string(run_pk(record.run_id)),
                "sk": string(f"CALL#{record.call_key}"),
                "kind": string("call"),
                "cost_usd": number(record.cost_usd),  # beside the doc, so run_spend reads only this
                **self._doc(record.run_id, f"_calls/{record.call_key}", body),
            },
        )

    def run_spend(self, run_id: str) -> float:
        items = self._partition(run_pk(run_id), "CALL#", ProjectionExpression="cost_usd")
        return float(sum(float(item["cost_usd"]["N"]) for item in items))

    def run_calls(self, run_id: str) -> list[CallRecord]:
        return [
            CallRecord(**json.loads(self._body(item))) for item in self._partition(run_pk(run_id), "CALL#")
        ]
