"""API keys in DynamoDB: KEY#<id> items holding only the secret's digest, all listed by gsi1 (KEYS)."""

from __future__ import annotations

from claimcourt.errors import NotFoundError
from claimcourt.models import ApiKeyRecord
from claimcourt.store.base import KeyStore, revocation, sortable
from claimcourt.store.dynamodb.tables import GSI, DynamoTables, Item, string


class DynamoKeys(DynamoTables, KeyStore):
    def _key_item(self, record: ApiKeyRecord) -> Item:
        return {
            "pk": string(f"KEY#{record.key_id}"),
            "sk": string("KEY"),
            "kind": string("api_key"),
            "gsi1pk": string("KEYS"),
            "gsi1sk": string(f"{record.tenant_id}#{sortable(record.created_at)}#{record.key_id}"),
            "doc": string(record.model_dump_json()),
        }

    def put_api_key(self, record: ApiKeyRecord) -> None:
        with self._lock:
            self.client.put_item(
                TableName=self.table,
                Item=self._key_item(record),
                ConditionExpression="attribute_not_exists(pk)",
            )

    def get_api_key(self, key_id: str) -> ApiKeyRecord:
        item = self._get(self.table, {"pk": string(f"KEY#{key_id}"), "sk": string("KEY")})
        if item is None:
            raise NotFoundError(f"no API key {key_id}")
        return ApiKeyRecord.model_validate_json(item["doc"]["S"])

    def revoke_api_key(self, key_id: str) -> bool:
        change = revocation(self, key_id)
        if change is None:
            return False
        record, revoked = change
        written = self._conditional_write(
            self.client.put_item,
            TableName=self.table,
            Item=self._key_item(revoked),
            ConditionExpression="attribute_exists(pk) AND doc = :read",
            ExpressionAttributeValues={":read": string(record.model_dump_json())},
        )
        return written is not None  # None: revoked by someone else meanwhile

    def list_api_keys(self) -> list[ApiKeyRecord]:
        listed = self._query(
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": string("KEYS")},
        )
        return self._documents([{"pk": item["pk"], "sk": item["sk"]} for item in listed], ApiKeyRecord)
