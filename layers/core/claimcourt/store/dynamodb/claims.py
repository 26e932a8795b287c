"""Claims and their score series in DynamoDB: CLAIM#<tenant>#<id> partitions, listed by gsi1 (the
runs capability counts runs in and out of them)."""

from __future__ import annotations

from datetime import datetime

from claimcourt.models import ClaimRecord, DriftPoint
from claimcourt.store.base import ClaimStore
from claimcourt.store.dynamodb.tables import GSI, DynamoTables, claim_pk, string


class DynamoClaims(DynamoTables, ClaimStore):
    def list_claims(self, tenant_id: str, limit: int = 50) -> list[ClaimRecord]:
        items = self._query(
            limit=limit,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": string(f"CLAIMS#{tenant_id}")},
            ScanIndexForward=False,
        )
        return [
            ClaimRecord(
                claim_id=item["claim_id"]["S"],
                text=item["text"]["S"],
                run_count=int(item["run_count"]["N"]),
                first_seen=datetime.fromisoformat(item["first_seen"]["S"]),
                last_seen=datetime.fromisoformat(item["last_seen"]["S"]),
            )
            for item in items
        ]

    def drift_series(self, tenant_id: str, claim_id: str) -> list[DriftPoint]:
        return [
            DriftPoint.model_validate_json(item["doc"]["S"])
            for item in self._partition(claim_pk(tenant_id, claim_id), "DRIFT#")
        ]
