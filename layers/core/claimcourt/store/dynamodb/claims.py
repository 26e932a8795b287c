"""Claims and their score series in DynamoDB: CLAIM#<tenant>#<id> partitions, listed by gsi1 (the
runs capability counts runs in and out of them)."""

from __future__ import annotations

from datetime import datetime

from claimcourt.errors import NotFoundError
from claimcourt.models import ClaimRecord, DriftPoint
from claimcourt.store.base import ClaimStore
from claimcourt.store.dynamodb.tables import GSI, DynamoTables, Item, claim_pk, string


class DynamoClaims(DynamoTables, ClaimStore):
    def list_claims(self, tenant_id: str, limit: int = 50) -> list[ClaimRecord]:
        items = self._query(
            limit=limit,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": string(f"CLAIMS#{tenant_id}")},
            ScanIndexForward=False,
        )
        return [_claim(item) for item in items]

    def get_claim(self, tenant_id: str, claim_id: str) -> ClaimRecord:
        item = self._get(self.table, {"pk": string(claim_pk(tenant_id, claim_id)), "sk": string("CLAIM")})
        if item is None or int(item["run_count"]["N"]) < 1:  # no runs left: unlisted, as in list_claims
            raise NotFoundError(f"no claim {claim_id}")
        return _claim(item)

    def drift_series(self, tenant_id: str, claim_id: str) -> list[DriftPoint]:
        return [
            DriftPoint.model_validate_json(item["doc"]["S"])
            for item in self._partition(claim_pk(tenant_id, claim_id), "DRIFT#")
        ]


def _claim(item: Item) -> ClaimRecord:
    return ClaimRecord(
        claim_id=item["claim_id"]["S"],
        text=item["text"]["S"],
        run_count=int(item["run_count"]["N"]),
        first_seen=datetime.fromisoformat(item["first_seen"]["S"]),
        last_seen=datetime.fromisoformat(item["last_seen"]["S"]),
    )
