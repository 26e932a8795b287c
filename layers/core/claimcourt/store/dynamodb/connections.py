"""WebSocket connections and subscriptions in DynamoDB's connections table (TTL on `expires_at`,
which reads skip past themselves, since TTL deletes lazily)."""

from __future__ import annotations

import time
from datetime import datetime

from claimcourt.errors import NotFoundError
from claimcourt.models import ConnectionRecord
from claimcourt.store.base import ConnectionStore
from claimcourt.store.dynamodb.tables import GSI, DynamoTables, Item, number, run_pk, string


def _subscription_key(connection_id: str, run_id: str) -> Item:
    return {"pk": string(run_pk(run_id)), "sk": string(f"CONN#{connection_id}")}


class DynamoConnections(DynamoTables, ConnectionStore):
    def put_connection(self, record: ConnectionRecord) -> None:
        self._put(
            self.connections_table,
            {
                "pk": string(f"CONN#{record.connection_id}"),
                "sk": string("CONN"),
                "doc": string(record.model_dump_json()),
                "expires_at": number(int(record.expires_at.timestamp())),
            },
        )

    def get_connection(self, connection_id: str) -> ConnectionRecord:
        key = {"pk": string(f"CONN#{connection_id}"), "sk": string("CONN")}
        item = self._get(self.connections_table, key)
        if item is None or int(item["expires_at"]["N"]) < time.time():
            raise NotFoundError(f"no connection {connection_id}")
        return ConnectionRecord.model_validate_json(item["doc"]["S"])

    def drop_connection(self, connection_id: str) -> None:
        followed = self._query(
            TableName=self.connections_table,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :c",
            ExpressionAttributeValues={":c": string(f"CONN#{connection_id}")},
        )
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in followed]
        keys.append({"pk": string(f"CONN#{connection_id}"), "sk": string("CONN")})
        with self._lock:
            for key in keys:
                self.client.delete_item(TableName=self.connections_table, Key=key)

    def subscribe(self, connection_id: str, run_id: str, expires_at: datetime) -> None:
        with self._lock:
            self.client.update_item(
                TableName=self.connections_table,
                Key=_subscription_key(connection_id, run_id),
                UpdateExpression="SET gsi1pk = :c, gsi1sk = :r, expires_at = :e,"
                " sent_seq = if_not_exists(sent_seq, :zero)",
                ExpressionAttributeValues={
                    ":c": string(f"CONN#{connection_id}"),
                    ":r": string(run_pk(run_id)),
                    ":e": number(int(expires_at.timestamp())),
                    ":zero": number(0),
                },
            )

    def subscribers(self, run_id: str) -> list[str]:
        items = self._query(
            TableName=self.connections_table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :conn)",
            ExpressionAttributeValues={":pk": string(run_pk(run_id)), ":conn": string("CONN#")},
            ConsistentRead=True,
        )
        now = time.time()
        return [i["sk"]["S"].removeprefix("CONN#") for i in items if int(i["expires_at"]["N"]) >= now]

    def claim_delivery(self, connection_id: str, run_id: str, until: datetime, token: str) -> int | None:
        reply = self._conditional_write(
            self.client.update_item,
            TableName=self.connections_table,
            Key=_subscription_key(connection_id, run_id),
            UpdateExpression="SET claimed_until = :until, claimed_by = :token",
            ConditionExpression="attribute_exists(pk)"
            " AND (attribute_not_exists(claimed_until) OR claimed_until < :now)",
            ExpressionAttributeValues={
                ":until": number(int(until.timestamp() * 1000)),
                ":now": number(int(time.time() * 1000)),
                ":token": string(token),
            },
            ReturnValues="ALL_NEW",
        )
        if reply is None:
            return None  # claimed by another deliverer, or not subscribed
        return int(reply["Attributes"]["sent_seq"]["N"])

    def end_delivery(self, connection_id: str, run_id: str, sent_seq: int, token: str) -> bool:
        written = self._conditional_write(
            self.client.update_item,
            TableName=self.connections_table,
            Key=_subscription_key(connection_id, run_id),
            UpdateExpression="SET sent_seq = :seq REMOVE claimed_until, claimed_by",
            ConditionExpression="claimed_by = :token",
            ExpressionAttributeValues={":seq": number(sent_seq), ":token": string(token)},
        )
        # None: the claim lapsed and another deliverer holds it, or unsubscribed meanwhile
        return written is not None

    def unsubscribe(self, connection_id: str, run_id: str) -> None:
        with self._lock:
            self.client.delete_item(
                TableName=self.connections_table, Key=_subscription_key(connection_id, run_id)
            )
