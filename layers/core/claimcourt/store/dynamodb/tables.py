"""What every DynamoDB capability shares: the clients and table names, documents inline or in S3,
the reads (by key, by Query, in batches), and the one retry loop."""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

# The package, for its BATCH_KEYS: read at each batch read, so that a test lowering it there takes
# effect. (The package imports this module first, so only what is read at call time may come from it.)
import claimcourt.store.dynamodb as adapter
from claimcourt.errors import TransientError
from claimcourt.models import ApiKeyRecord, Monitor, RunRecord
from claimcourt.store.base import sortable

Doc = TypeVar("Doc", RunRecord, ApiKeyRecord, Monitor)
Item = dict[str, Any]  # an item in DynamoDB's wire format: {"attr": {"S": "…"}}
T = TypeVar("T")

# A DynamoDB item may hold 400 KB (names and values). A document above this goes to S3 and the
# item keeps a pointer; the margin is for the keys and the other attributes.
INLINE_LIMIT = 350_000
GSI, BY_SOURCE = "gsi1", "gsi2"
MAX_ATTEMPTS = 50  # optimistic writes under contention (parallel branches appending events)


class Again(Enum):
    """What an attempt (or a cancelled transaction's reasons) says when it should simply be tried again."""

    AGAIN = "again"


AGAIN = Again.AGAIN


def _backoff(attempt: int) -> None:
    """Full jitter, capped: racing writers spread out instead of colliding again at once."""
    time.sleep(random.uniform(0, min(0.01 * 2**attempt, 0.5)))


def string(value: str) -> dict[str, str]:
    return {"S": value}


def number(value: float) -> dict[str, str]:
    return {"N": str(value)}  # str(float) is the shortest repr that round-trips


def run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def claim_pk(tenant_id: str, claim_id: str) -> str:
    return f"CLAIM#{tenant_id}#{claim_id}"


def drift_sk(at: datetime, run_id: str) -> str:
    return f"DRIFT#{sortable(at)}#{run_id}"


def cancellation_reasons(err: ClientError) -> list[str]:
    """Each transaction item's cancellation code ("None" for the items that were fine)."""
    return [r.get("Code", "None") for r in err.response.get("CancellationReasons", [])]


def error_code(err: ClientError) -> str:
    return str(err.response.get("Error", {}).get("Code", ""))


class DynamoTables:
    """The tables and the bucket one store reads and writes, through one session's clients."""

    def __init__(
        self,
        table: str,
        cache_table: str,
        limits_table: str,
        connections_table: str,
        bucket: str,
        *,
        region: str | None = None,
        endpoint_url: str | None = None,
        s3_endpoint_url: str | None = None,
        inline_limit: int = INLINE_LIMIT,
        session: Any = None,
    ) -> None:
        """`session`: a boto3 Session to use (a profile, assumed-role credentials); by default a new
        one for `region`. Sessions load service models once, so sharing one makes clients cheap."""
        self.table = table
        self.cache_table = cache_table
        self.limits_table = limits_table
        self.connections_table = connections_table
        self.bucket = bucket
        self.inline_limit = inline_limit
        config = Config(retries={"mode": "standard", "max_attempts": 5})
        # One session and its clients, shared by the local runtime's threads: clients are thread-safe,
        # sessions and resources are not.
        self._session = session or boto3.session.Session(region_name=region)
        self.client: Any = self._session.client("dynamodb", endpoint_url=endpoint_url, config=config)
        self._s3_args: dict[str, Any] = {"endpoint_url": s3_endpoint_url, "config": config}
        self._s3: Any = None  # made on first use: few runs spill, and a client adds ~50 ms to a cold start
        self._s3_lock = threading.Lock()
        # Serializes this process's writes. Across processes, the conditions keep every write safe and
        # the lock changes nothing (a Lambda process runs one invocation at a time). It matters to the
        # local runtime, whose stages write from several threads: it saves optimistic retries, and
        # moto's DynamoDB (in-process, or a moto server) deep-copies a whole table for each
        # transaction and fails ("dictionary changed size during iteration") if a write lands meanwhile.
        self._lock = threading.RLock()

    # ------------------------------------------------------------ documents, inline or in S3

    @property
    def s3(self) -> Any:
        with self._s3_lock:
            if self._s3 is None:
                self._s3 = self._session.client("s3", **self._s3_args)
            return self._s3

    def _doc(self, run_id: str, name: str, body: str) -> Item:
        """The attributes that hold a document: `doc` inline, or `s3_key` when it is too big. The
        object name carries a digest of the body, so a pointer never names other content (a lost
        conditional write or a racing upsert cannot leave an item pointing at the wrong version)."""
        data = body.encode()
        if len(data) <= self.inline_limit:
            return {"doc": string(body)}
        digest = hashlib.sha256(data).hexdigest()[:16]
        key = f"{run_id}/{name}.{digest}.json"
        # The object first: an item never points at an object that is not there yet.
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType="application/json")
        return {"s3_key": string(key), "size": number(len(data))}

    def _body(self, item: Item) -> str:
        if "doc" in item:
            return str(item["doc"]["S"])
        obj = self.s3.get_object(Bucket=self.bucket, Key=item["s3_key"]["S"])
        return str(obj["Body"].read().decode())

    # ------------------------------------------------------------ writes

    def _put(self, table: str, item: Item) -> None:
        with self._lock:
            self.client.put_item(TableName=table, Item=item)

    def _transact(self, items: list[Item]) -> None:
        with self._lock:
            self.client.transact_write_items(TransactItems=items)

    def _conditional_write(self, write: Callable[..., Item], **args: Any) -> Item | None:
        """One conditional write (`client.put_item`, `update_item`, …): DynamoDB's reply, or None if
        its condition did not hold."""
        try:
            with self._lock:
                reply: Item = write(**args)
        except ClientError as err:
            if error_code(err) != "ConditionalCheckFailedException":
                raise
            return None
        return reply

    def _retrying(
        self,
        attempt: Callable[[], T | Again],
        what: str,
        cancelled: Callable[[list[str]], T | Again] = lambda reasons: AGAIN,
    ) -> T:
        """The one retry loop. `attempt` makes one try: an outcome settles it, AGAIN asks for another
        (a batch read left keys unread). When DynamoDB cancels the conditional transaction it wrote,
        `cancelled` reads the reasons (one per item): an outcome (or an error it raises) settles it;
        AGAIN (another writer moved first, or a transaction conflict) tries again. Every try after
        the first waits a jittered pause, MAX_ATTEMPTS tries at most."""
        for n in range(MAX_ATTEMPTS):
            try:
                outcome = attempt()
            except ClientError as err:
                if error_code(err) != "TransactionCanceledException":
                    raise
                outcome = cancelled(cancellation_reasons(err))
            if not isinstance(outcome, Again):
                return outcome
            _backoff(n)
        raise TransientError(f"{what}: too much contention")

    # ------------------------------------------------------------ reads

    def _get(self, table: str, key: Item, consistent: bool = True) -> Item | None:
        item: Item | None = self.client.get_item(TableName=table, Key=key, ConsistentRead=consistent).get(
            "Item"
        )
        return item

    def _query(self, limit: int | None = None, **kwargs: Any) -> Iterator[Item]:
        """Every item of a Query, following pages (1 MB each), up to `limit` items."""
        args = {"TableName": self.table, **kwargs}
        if limit is not None:
            args["Limit"] = limit
        seen = 0
        while True:
            page = self.client.query(**args)
            for item in page.get("Items", []):
                yield item
                seen += 1
                if limit is not None and seen >= limit:
                    return
            if "LastEvaluatedKey" not in page:
                return
            args["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def _partition(self, pk: str, sk_prefix: str, **kwargs: Any) -> Iterator[Item]:
        return self._query(
            KeyConditionExpression="pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues={":pk": string(pk), ":prefix": string(sk_prefix)},
            ConsistentRead=True,
            **kwargs,
        )

    def _documents(self, keys: list[Item], model: type[Doc]) -> list[Doc]:
        """The documents at `keys`, in their order (a key deleted meanwhile is skipped)."""
        found = self._batch_get(keys)
        return [
            model.model_validate_json(self._body(found[k["pk"]["S"]])) for k in keys if k["pk"]["S"] in found
        ]

    def _batch_get(self, keys: list[Item]) -> dict[str, Item]:
        """Items of the main table by key, by pk (each key here has its own pk)."""
        found: dict[str, Item] = {}
        for start in range(0, len(keys), adapter.BATCH_KEYS):
            found |= self._read_batch(keys[start : start + adapter.BATCH_KEYS])
        return found

    def _read_batch(self, keys: list[Item]) -> dict[str, Item]:
        """One BatchGetItem, asked again for the keys it leaves unread (throttled) after a pause."""
        found: dict[str, Item] = {}
        request: dict[str, Any] = {self.table: {"Keys": keys, "ConsistentRead": True}}

        def attempt() -> dict[str, Item] | Again:
            nonlocal request
            reply = self.client.batch_get_item(RequestItems=request)
            found.update({item["pk"]["S"]: item for item in reply["Responses"].get(self.table, [])})
            request = reply.get("UnprocessedKeys") or {}
            return AGAIN if request else found

        return self._retrying(attempt, "reading items by key")
