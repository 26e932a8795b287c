"""The cloud store: DynamoDB (one main table, single-table design, plus a TTL table for the
retrieval cache) with S3 for documents too big for an item.

Main table (pk, sk; GSI `gsi1` on gsi1pk, gsi1sk; stream NEW_IMAGE):

    pk              sk                          what
    RUN#<run_id>    RUN                         the run record            gsi1: RUNS / <created_at>#<run_id>
    RUN#<run_id>    EVSEQ                       the run's event counter
    RUN#<run_id>    EV#<seq, 10 digits>         a progress event
    RUN#<run_id>    EVKEY#<key>                 an event's idempotency key
    RUN#<run_id>    ART#<key>                   an artifact (evidence/r01/sc1, argument/r01/for, …)
    RUN#<run_id>    CALL#<call_key>             a billed LLM call (the usage ledger)
    CLAIM#<id>      CLAIM                       a distinct claim          gsi1: CLAIMS / <last_seen>#<id>
    CLAIM#<id>      DRIFT#<at>#<run_id>         one point of the claim's score series

Everything of a run is one partition, so a stage reads what it needs with one Query. gsi1 projects
keys and a few small attributes, never documents: listing runs reads their documents by key
(BatchGetItem). Every item has a `kind` attribute, for stream filters. Every read is a GetItem,
a BatchGetItem or a Query: never a Scan.

JSON documents (records, events, artifacts, calls) are one string attribute `doc`, not native maps:
nothing queries inside a document (keys and index attributes carry what queries need), and a
string avoids DynamoDB's Decimal numbers, its empty-set rules and a second (de)serializer.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from claimcourt.errors import NotFoundError, TransientError
from claimcourt.models import ClaimRecord, DriftPoint, Result, RunEvent, RunRecord, RunStatus
from claimcourt.reasoning.base import CallRecord
from claimcourt.store.base import finished, with_status

Item = dict[str, Any]  # an item in DynamoDB's wire format: {"attr": {"S": "…"}}

# A DynamoDB item may hold 400 KB (names and values). A document above this goes to S3 and the
# item keeps a pointer; the margin is for the keys and the other attributes.
INLINE_LIMIT = 350_000
GSI = "gsi1"
RUNS, CLAIMS = "RUNS", "CLAIMS"  # gsi1 partitions: one key each, hot at high rates (see _run_item)
BATCH_KEYS = 100  # BatchGetItem's limit per request
MAX_ATTEMPTS = 50  # optimistic writes under contention (parallel branches appending events)


def _backoff(attempt: int) -> None:
    """Full jitter, capped: racing writers spread out instead of colliding again at once."""
    time.sleep(random.uniform(0, min(0.01 * 2**attempt, 0.5)))


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: float) -> dict[str, str]:
    return {"N": str(value)}  # str(float) is the shortest repr that round-trips


def sortable(at: datetime) -> str:
    """A timestamp whose string order is its time order (UTC, fixed width)."""
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def _claim_pk(claim_id: str) -> str:
    return f"CLAIM#{claim_id}"


def _event_sk(seq: int) -> str:
    return f"EV#{seq:010d}"


def _reasons(err: ClientError) -> list[str]:
    """Each transaction item's cancellation code ("None" for the items that were fine)."""
    return [r.get("Code", "None") for r in err.response.get("CancellationReasons", [])]


def _code(err: ClientError) -> str:
    return str(err.response.get("Error", {}).get("Code", ""))


class DynamoStore:
    def __init__(
        self,
        table: str,
        cache_table: str,
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
            return {"doc": _s(body)}
        digest = hashlib.sha256(data).hexdigest()[:16]
        key = f"{run_id}/{name}.{digest}.json"
        # The object first: an item never points at an object that is not there yet.
        self.s3.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType="application/json")
        return {"s3_key": _s(key), "size": _n(len(data))}

    def _body(self, item: Item) -> str:
        if "doc" in item:
            return str(item["doc"]["S"])
        obj = self.s3.get_object(Bucket=self.bucket, Key=item["s3_key"]["S"])
        return str(obj["Body"].read().decode())

    # ------------------------------------------------------------ low-level reads and writes

    def _put(self, table: str, item: Item) -> None:
        with self._lock:
            self.client.put_item(TableName=table, Item=item)

    def _transact(self, items: list[Item]) -> None:
        with self._lock:
            self.client.transact_write_items(TransactItems=items)

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
            ExpressionAttributeValues={":pk": _s(pk), ":prefix": _s(sk_prefix)},
            ConsistentRead=True,
            **kwargs,
        )

    # ------------------------------------------------------------ runs

    def _run_item(self, record: RunRecord, version: int) -> Item:
        return {
            "pk": _s(_run_pk(record.run_id)),
            "sk": _s("RUN"),
            "kind": _s("run"),
            "run_id": _s(record.run_id),
            "claim_id": _s(record.claim_id),
            "status": _s(record.status.value),
            "created_at": _s(record.created_at.isoformat()),
            # One partition for the newest-first listing: a hot key at high write rates. Issue 4
            # (tenants) should shard it, e.g. RUNS#<tenant> or RUNS#<day>.
            "gsi1pk": _s(RUNS),
            "gsi1sk": _s(f"{sortable(record.created_at)}#{record.run_id}"),
            "ver": _n(version),
            **self._doc(record.run_id, "_run", record.model_dump_json()),
        }

    def create_run(self, record: RunRecord) -> None:
        now = record.created_at.isoformat()
        self._transact(
            [
                {
                    "Put": {
                        "TableName": self.table,
                        "Item": self._run_item(record, 0),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
                {
                    "Update": {
                        "TableName": self.table,
                        "Key": {"pk": _s(_claim_pk(record.claim_id)), "sk": _s("CLAIM")},
                        # The first wording of a claim names it; every run counts and moves last_seen.
                        "UpdateExpression": "SET #kind = :kind, claim_id = :id,"
                        " #text = if_not_exists(#text, :text), first_seen = if_not_exists(first_seen, :now),"
                        " last_seen = :now, gsi1pk = :claims, gsi1sk = :gsk ADD run_count :one",
                        "ExpressionAttributeNames": {"#kind": "kind", "#text": "text"},
                        "ExpressionAttributeValues": {
                            ":kind": _s("claim"),
                            ":id": _s(record.claim_id),
                            ":text": _s(record.request.claim),
                            ":now": _s(now),
                            ":claims": _s(CLAIMS),
                            ":gsk": _s(f"{sortable(record.created_at)}#{record.claim_id}"),
                            ":one": _n(1),
                        },
                    }
                },
            ]
        )

    def _load_run(self, run_id: str) -> tuple[RunRecord, int]:
        item = self._get(self.table, {"pk": _s(_run_pk(run_id)), "sk": _s("RUN")})
        if item is None:
            raise NotFoundError(f"no run {run_id}")
        return RunRecord.model_validate_json(self._body(item)), int(item["ver"]["N"])

    def get_run(self, run_id: str) -> RunRecord:
        return self._load_run(run_id)[0]

    def list_runs(self, limit: int = 20) -> list[RunRecord]:
        # The index projects no documents (see template.yaml): it gives the keys, newest first, and
        # the documents come from the table by key.
        listed = self._query(
            limit=limit,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": _s(RUNS)},
            ScanIndexForward=False,
        )
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in listed]
        found = self._batch_get(keys)
        return [
            RunRecord.model_validate_json(self._body(found[key["pk"]["S"]]))
            for key in keys
            if key["pk"]["S"] in found
        ]

    def _batch_get(self, keys: list[Item]) -> dict[str, Item]:
        """Items of the main table by key, by pk (each key here has its own pk)."""
        found: dict[str, Item] = {}
        for start in range(0, len(keys), BATCH_KEYS):
            chunk = keys[start : start + BATCH_KEYS]
            request: dict[str, Any] = {self.table: {"Keys": chunk, "ConsistentRead": True}}
            for attempt in range(MAX_ATTEMPTS):
                reply = self.client.batch_get_item(RequestItems=request)
                for item in reply["Responses"].get(self.table, []):
                    found[item["pk"]["S"]] = item
                request = reply.get("UnprocessedKeys") or {}
                if not request:
                    break
                time.sleep(min(0.05 * 2**attempt, 1.0))  # throttled: back off as the SDKs advise
            else:
                raise TransientError("DynamoDB left keys unread after every retry")
        return found

    def _update_run(self, run_id: str, change: Callable[[RunRecord], tuple[RunRecord, list[Item]]]) -> bool:
        """Optimistic read-modify-write of a running run: the write is conditional on the version
        read, so of two racing finishers one wins and the other sees a terminal run and gets False.
        `change` returns the new record and any items to put in the same transaction."""
        with self._lock:
            for attempt in range(MAX_ATTEMPTS):
                record, version = self._load_run(run_id)
                if record.status.terminal:
                    return False  # terminal is final
                updated, also = change(record)
                put: Item = {
                    "Put": {
                        "TableName": self.table,
                        "Item": self._run_item(updated, version + 1),
                        "ConditionExpression": "ver = :ver",
                        "ExpressionAttributeValues": {":ver": _n(version)},
                    }
                }
                extra = [{"Put": {"TableName": self.table, "Item": item}} for item in also]
                try:
                    self._transact([put, *extra])
                    return True
                except ClientError as err:
                    if _code(err) != "TransactionCanceledException":
                        raise
                    # The run moved under us (or a transaction conflict): read it again, after a pause.
                    _backoff(attempt)
            raise TransientError(f"run {run_id}: too much contention to update it")

    def set_status(
        self,
        run_id: str,
        status: RunStatus,
        *,
        error: str | None = None,
        warnings: list[str] | None = None,
        cost_usd: float | None = None,
        tokens: int | None = None,
    ) -> bool:
        def change(record: RunRecord) -> tuple[RunRecord, list[Item]]:
            changed = with_status(
                record, status, error=error, warnings=warnings, cost_usd=cost_usd, tokens=tokens
            )
            return changed, []

        return self._update_run(run_id, change)

    def finish_run(self, run_id: str, result: Result) -> bool:
        def change(record: RunRecord) -> tuple[RunRecord, list[Item]]:
            done, point = finished(record, result)
            drift = {
                "pk": _s(_claim_pk(record.claim_id)),
                "sk": _s(f"DRIFT#{sortable(point.at)}#{run_id}"),
                "kind": _s("drift"),
                "run_id": _s(run_id),
                "doc": _s(point.model_dump_json()),
            }
            return done, [drift]

        return self._update_run(run_id, change)

    # ------------------------------------------------------------ events

    def append_event(self, event: RunEvent, key: str) -> RunEvent | None:
        """One transaction moves the run's event counter from n to n+1 (conditional on n), puts the
        key marker (conditional on its absence) and the event with seq n+1. So seqs have no gaps,
        and event n+1 cannot exist before event n does: a reader polling `after_seq` misses nothing."""
        pk = _s(_run_pk(event.run_id))
        with self._lock:
            for attempt in range(MAX_ATTEMPTS):
                counter = self._get(self.table, {"pk": pk, "sk": _s("EVSEQ")})
                last = int(counter["n"]["N"]) if counter else 0
                stored = event.model_copy(update={"seq": last + 1})
                guard = "attribute_not_exists(n)" if counter is None else "n = :last"
                values = {":next": _n(last + 1), ":kind": _s("counter")}
                if counter is not None:
                    values[":last"] = _n(last)
                items = [
                    {
                        "Update": {
                            "TableName": self.table,
                            "Key": {"pk": pk, "sk": _s("EVSEQ")},
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
                                "sk": _s(f"EVKEY#{key}"),
                                "kind": _s("event_key"),
                                "seq": _n(last + 1),
                            },
                            "ConditionExpression": "attribute_not_exists(pk)",
                        }
                    },
                    {
                        "Put": {
                            "TableName": self.table,
                            "Item": {
                                "pk": pk,
                                "sk": _s(_event_sk(last + 1)),
                                "kind": _s("event"),
                                "run_id": _s(event.run_id),
                                "type": _s(event.type),
                                "seq": _n(last + 1),
                                "doc": _s(stored.model_dump_json()),
                            },
                        }
                    },
                ]
                try:
                    self._transact(items)
                    return stored
                except ClientError as err:
                    if _code(err) != "TransactionCanceledException":
                        raise
                    if _reasons(err)[1:2] == ["ConditionalCheckFailed"]:
                        return None  # this key was appended before: a retried stage
                    # Another writer took seq n+1 (or a transaction conflict): read the counter again.
                    _backoff(attempt)
            raise TransientError(f"run {event.run_id}: too much contention to append an event")

    def list_events(self, run_id: str, after_seq: int = 0) -> list[RunEvent]:
        items = self._query(
            KeyConditionExpression="pk = :pk AND sk BETWEEN :lo AND :hi",
            ExpressionAttributeValues={
                ":pk": _s(_run_pk(run_id)),
                ":lo": _s(_event_sk(after_seq + 1)),
                ":hi": _s(_event_sk(10**10 - 1)),
            },
            ConsistentRead=True,
        )
        return [RunEvent.model_validate_json(item["doc"]["S"]) for item in items]

    # ------------------------------------------------------------ artifacts

    def put_artifact(self, run_id: str, key: str, value: dict[str, Any]) -> None:
        body = json.dumps(value, separators=(",", ":"), default=str)
        self._put(
            self.table,
            {
                "pk": _s(_run_pk(run_id)),
                "sk": _s(f"ART#{key}"),
                "kind": _s("artifact"),
                "key": _s(key),
                **self._doc(run_id, key, body),
            },
        )

    def get_artifact(self, run_id: str, key: str) -> dict[str, Any]:
        item = self._get(self.table, {"pk": _s(_run_pk(run_id)), "sk": _s(f"ART#{key}")})
        if item is None:
            raise NotFoundError(f"run {run_id} has no artifact {key}")
        value: dict[str, Any] = json.loads(self._body(item))
        return value

    def find_artifacts(self, run_id: str, prefix: str) -> dict[str, dict[str, Any]]:
        # Sort keys compare as UTF-8 bytes, as SQLite's BINARY collation does: the same key order.
        return {
            item["key"]["S"]: json.loads(self._body(item))
            for item in self._partition(_run_pk(run_id), f"ART#{prefix}")
        }

    # ------------------------------------------------------------ usage ledger

    def get_call(self, run_id: str, call_key: str) -> CallRecord | None:
        item = self._get(self.table, {"pk": _s(_run_pk(run_id)), "sk": _s(f"CALL#{call_key}")})
        return CallRecord(**json.loads(self._body(item))) if item else None

    def put_call(self, record: CallRecord) -> None:
        body = json.dumps(asdict(record), separators=(",", ":"))
        self._put(
            self.table,
            {
                "pk": _s(_run_pk(record.run_id)),
                "sk": _s(f"CALL#{record.call_key}"),
                "kind": _s("call"),
                "cost_usd": _n(record.cost_usd),  # beside the doc, so run_spend reads only this
                **self._doc(record.run_id, f"_calls/{record.call_key}", body),
            },
        )

    def run_spend(self, run_id: str) -> float:
        items = self._partition(_run_pk(run_id), "CALL#", ProjectionExpression="cost_usd")
        return float(sum(float(item["cost_usd"]["N"]) for item in items))

    def run_calls(self, run_id: str) -> list[CallRecord]:
        return [
            CallRecord(**json.loads(self._body(item))) for item in self._partition(_run_pk(run_id), "CALL#")
        ]

    # ------------------------------------------------------------ retrieval cache (TTL table)

    @staticmethod
    def _cache_pk(key: str) -> str:
        # A partition key holds 2,048 bytes; a long normalized query is hashed instead.
        return key if len(key.encode()) <= 1024 else "sha256:" + hashlib.sha256(key.encode()).hexdigest()

    def cache_get(self, key: str) -> list[dict[str, Any]] | None:
        item = self._get(self.cache_table, {"pk": _s(self._cache_pk(key))}, consistent=False)
        # TTL deletion is lazy (up to days late): an expired entry may still be there.
        if item is None or float(item["expires_at"]["N"]) <= time.time():
            return None
        hits: list[dict[str, Any]] = json.loads(item["hits"]["S"])
        return hits

    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None:
        body = json.dumps(hits, default=str)
        if len(body.encode()) > self.inline_limit:
            return  # the cache saves a search; one too big for an item is not worth an S3 round trip
        self._put(
            self.cache_table,
            {
                "pk": _s(self._cache_pk(key)),
                "hits": _s(body),
                # TTL wants whole epoch seconds; rounding up keeps an entry for at least ttl_s.
                "expires_at": _n(math.ceil(time.time() + ttl_s)),
            },
        )

    # ------------------------------------------------------------ claims and drift

    def list_claims(self, limit: int = 50) -> list[ClaimRecord]:
        items = self._query(
            limit=limit,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": _s(CLAIMS)},
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

    def drift_series(self, claim_id: str) -> list[DriftPoint]:
        return [
            DriftPoint.model_validate_json(item["doc"]["S"])
            for item in self._partition(_claim_pk(claim_id), "DRIFT#")
        ]
