"""The cloud store: DynamoDB (one main table, single-table design, plus a TTL table for the
retrieval cache) with S3 for documents too big for an item.

Main table (pk, sk; GSI `gsi1` on gsi1pk, gsi1sk; stream NEW_IMAGE):

    pk                  sk                      what
    RUN#<run_id>        RUN                     the run record    gsi1: RUNS#<tenant> / <created_at>#<run_id>
                                                                  gsi2: RUNS#<tenant>#<source tag> / same
    RUN#<run_id>        EVSEQ                   the run's event counter
    RUN#<run_id>        EV#<seq, 10 digits>     a progress event
    RUN#<run_id>        EVKEY#<key>             an event's idempotency key
    RUN#<run_id>        ART#<key>               an artifact (evidence/r01/sc1, argument/r01/for, …)
    RUN#<run_id>        CALL#<call_key>         a billed LLM call (the usage ledger)
    CLAIM#<tenant>#<id> CLAIM                   a tenant's claim  gsi1: CLAIMS#<tenant> / <last_seen>#<id>
    CLAIM#<tenant>#<id> DRIFT#<at>#<run_id>     one point of the claim's score series
    KEY#<key_id>        KEY                     an API key (digest only)  gsi1: KEYS / <tenant>#<created>#<id>
    MON#<monitor_id>    MON                     a monitor     gsi1: MONITORS#<tenant> / <claim>#<created>#<id>
                                                                  gsi2: DUE / <next_due>#<id>
    LEASES              COUNT                   how many leases are held (the concurrency cap's counter)
    LEASES              LEASE#<run_id>          a running debate's lease

A soft-deleted run's item loses its gsi1/gsi2 keys, so the sparse indexes stop listing it; its claim
counts it out and its drift point goes (a claim with no runs left loses its gsi1 keys too). Listings
are per tenant, which also spreads the index's write load over one partition per tenant. The
per-caller hourly counters are in the limits table (TTL): HOURLY#<tenant>#<yyyymmddhh>.

Connections table (pk, sk; GSI `gsi1`; TTL on `expires_at`, which expired items are also read past,
since TTL deletes lazily):

    pk                  sk                      what
    CONN#<id>           CONN                    a WebSocket connection (its tenant and key id)
    RUN#<run_id>        CONN#<id>               a subscription: sent_seq, claimed_until (ms), claimed_by
                                                                  gsi1: CONN#<id> / RUN#<run_id>

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
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from claimcourt.errors import NotFoundError, TransientError
from claimcourt.models import (
    ApiKeyRecord,
    CallRecord,
    ClaimRecord,
    ConnectionRecord,
    DriftPoint,
    Lease,
    Monitor,
    Result,
    RunEvent,
    RunPage,
    RunRecord,
    RunStatus,
    SourceTag,
    utcnow,
)
from claimcourt.store.base import (
    decode_cursor,
    finished,
    hour_window,
    listing_key,
    monitor_listing_key,
    over_concurrency,
    over_hourly,
    page_of,
    run_exists,
    sortable,
    with_status,
)

Doc = TypeVar("Doc", RunRecord, ApiKeyRecord, Monitor)
Item = dict[str, Any]  # an item in DynamoDB's wire format: {"attr": {"S": "…"}}

# A DynamoDB item may hold 400 KB (names and values). A document above this goes to S3 and the
# item keeps a pointer; the margin is for the keys and the other attributes.
INLINE_LIMIT = 350_000
GSI, BY_SOURCE = "gsi1", "gsi2"
LEASES = "LEASES"
BATCH_KEYS = 100  # BatchGetItem's limit per request
MAX_SEQ = 10**10 - 1  # event keys hold ten digits
MAX_ATTEMPTS = 50  # optimistic writes under contention (parallel branches appending events)


class _Again(Enum):
    """What a cancelled transaction's reasons say when it should simply be tried again."""

    AGAIN = "again"


AGAIN = _Again.AGAIN
T = TypeVar("T")


def _backoff(attempt: int) -> None:
    """Full jitter, capped: racing writers spread out instead of colliding again at once."""
    time.sleep(random.uniform(0, min(0.01 * 2**attempt, 0.5)))


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _n(value: float) -> dict[str, str]:
    return {"N": str(value)}  # str(float) is the shortest repr that round-trips


def _run_pk(run_id: str) -> str:
    return f"RUN#{run_id}"


def _claim_pk(tenant_id: str, claim_id: str) -> str:
    return f"CLAIM#{tenant_id}#{claim_id}"


def _drift_sk(at: datetime, run_id: str) -> str:
    return f"DRIFT#{sortable(at)}#{run_id}"


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

    def _retrying(
        self,
        attempt: Callable[[], T],
        what: str,
        cancelled: Callable[[list[str]], T | _Again] = lambda reasons: AGAIN,
    ) -> T:
        """The one retry loop of the conditional transactions: `attempt` reads what it needs, builds
        its transaction and writes it. When DynamoDB cancels it, `cancelled` reads the reasons (one
        per item): an outcome (or an error it raises) settles it; AGAIN (another writer moved first,
        or a transaction conflict) tries again after a jittered pause, MAX_ATTEMPTS times at most."""
        for n in range(MAX_ATTEMPTS):
            try:
                return attempt()
            except ClientError as err:
                if _code(err) != "TransactionCanceledException":
                    raise
                outcome = cancelled(_reasons(err))
                if not isinstance(outcome, _Again):
                    return outcome
                _backoff(n)
        raise TransientError(f"{what}: too much contention")

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
        item = {
            "pk": _s(_run_pk(record.run_id)),
            "sk": _s("RUN"),
            "kind": _s("run"),
            "run_id": _s(record.run_id),
            "claim_id": _s(record.claim_id),
            "status": _s(record.status.value),
            "created_at": _s(record.created_at.isoformat()),
            "ver": _n(version),
            **self._doc(record.run_id, "_run", record.model_dump_json()),
        }
        if record.deleted_at is None:  # sparse indexes: a deleted run is not listed
            key = _s(listing_key(record))
            item |= {
                "gsi1pk": _s(f"RUNS#{record.tenant_id}"),
                "gsi1sk": key,
                "gsi2pk": _s(f"RUNS#{record.tenant_id}#{record.source_tag.value}"),
                "gsi2sk": key,
            }
        return item

    def create_run(self, record: RunRecord) -> None:
        now = record.created_at.isoformat()
        items = [
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
                    "Key": {"pk": _s(_claim_pk(record.tenant_id, record.claim_id)), "sk": _s("CLAIM")},
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
                        ":claims": _s(f"CLAIMS#{record.tenant_id}"),
                        ":gsk": _s(f"{sortable(record.created_at)}#{record.claim_id}"),
                        ":one": _n(1),
                    },
                }
            },
        ]
        try:
            self._transact(items)
        except ClientError as err:
            if _code(err) == "TransactionCanceledException" and _reasons(err)[:1] == [
                "ConditionalCheckFailed"
            ]:
                raise run_exists(record.run_id) from None
            raise

    def _load_run(self, run_id: str) -> tuple[RunRecord, int]:
        item = self._get(self.table, {"pk": _s(_run_pk(run_id)), "sk": _s("RUN")})
        if item is None:
            raise NotFoundError(f"no run {run_id}")
        return RunRecord.model_validate_json(self._body(item)), int(item["ver"]["N"])

    def get_run(self, run_id: str) -> RunRecord:
        return self._load_run(run_id)[0]

    def list_runs(
        self, tenant_id: str, limit: int = 20, *, cursor: str | None = None, source: SourceTag | None = None
    ) -> RunPage:
        # The indexes project no documents (see template.yaml): they give the keys, newest first, and
        # the documents come from the table by key.
        index, name = (GSI, "gsi1") if source is None else (BY_SOURCE, "gsi2")
        partition = f"RUNS#{tenant_id}" + ("" if source is None else f"#{source.value}")
        condition = f"{name}pk = :p"
        values = {":p": _s(partition)}
        if cursor is not None:
            condition += f" AND {name}sk < :after"
            values[":after"] = _s(decode_cursor(cursor))
        listed = self._query(
            limit=limit + 1,  # one more than asked says whether there is a next page
            IndexName=index,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ScanIndexForward=False,
        )
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in listed]
        runs = self._documents(keys[:limit], RunRecord)
        return page_of(runs, limit, more=len(keys) > limit)

    def _documents(self, keys: list[Item], model: type[Doc]) -> list[Doc]:
        """The documents at `keys`, in their order (a key deleted meanwhile is skipped)."""
        found = self._batch_get(keys)
        return [
            model.model_validate_json(self._body(found[k["pk"]["S"]])) for k in keys if k["pk"]["S"] in found
        ]

    def delete_run(self, run_id: str) -> bool:
        def change(record: RunRecord) -> tuple[RunRecord, list[Item]] | None:
            if record.deleted_at is not None:
                return None
            return record.model_copy(update={"deleted_at": utcnow()}), self._uncounted(record)

        return self._update_run(run_id, change, only_running=False)

    def _uncounted(self, record: RunRecord) -> list[Item]:
        """What takes a deleted run out of its claim, in its delete's transaction: the claim counts one
        run fewer (conditional on the count read; a claim left with none loses its index keys, so it
        is not listed until a new run of it), and its drift point goes (a succeeded run's point is at
        its finish time)."""
        key = {"pk": _s(_claim_pk(record.tenant_id, record.claim_id)), "sk": _s("CLAIM")}
        ops: list[Item] = []
        claim = self._get(self.table, key)
        if claim is not None:
            count = int(claim["run_count"]["N"])
            unlist = " REMOVE gsi1pk, gsi1sk" if count <= 1 else ""
            update = {
                "TableName": self.table,
                "Key": key,
                "UpdateExpression": "SET run_count = :left" + unlist,
                "ConditionExpression": "run_count = :count",
                "ExpressionAttributeValues": {":left": _n(max(count - 1, 0)), ":count": _n(count)},
            }
            ops.append({"Update": update})
        if record.status is RunStatus.SUCCEEDED and record.finished_at is not None:
            drift = {"pk": key["pk"], "sk": _s(_drift_sk(record.finished_at, record.run_id))}
            ops.append({"Delete": {"TableName": self.table, "Key": drift}})
        return ops

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

    def _update_run(
        self,
        run_id: str,
        change: Callable[[RunRecord], tuple[RunRecord, list[Item]] | None],
        only_running: bool = True,
    ) -> bool:
        """Optimistic read-modify-write of a run (by default only of a running one: terminal is final).
        The write is conditional on the version read, so of two racing finishers one wins and the
        other sees a terminal run and gets False. `change` returns the new record and any other
        operations (Put, Update, Delete) for the same transaction, or None for "no change" (False)."""

        def attempt() -> bool:
            record, version = self._load_run(run_id)
            if only_running and record.status.terminal:
                return False
            changed = change(record)
            if changed is None:
                return False
            updated, also = changed
            put: Item = {
                "Put": {
                    "TableName": self.table,
                    "Item": self._run_item(updated, version + 1),
                    "ConditionExpression": "ver = :ver",
                    "ExpressionAttributeValues": {":ver": _n(version)},
                }
            }
            self._transact([put, *also])
            return True

        with self._lock:  # the run moved under us (or a conflict): read it again, after a pause
            return self._retrying(attempt, f"run {run_id}: updating it")

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
            if point is None:  # deleted while it ran: not a point of its claim's series
                return done, []
            drift = {
                "pk": _s(_claim_pk(record.tenant_id, record.claim_id)),
                "sk": _s(_drift_sk(point.at, run_id)),
                "kind": _s("drift"),
                "run_id": _s(run_id),
                "doc": _s(point.model_dump_json()),
            }
            return done, [{"Put": {"TableName": self.table, "Item": drift}}]

        return self._update_run(run_id, change)

    # ------------------------------------------------------------ events

    def append_event(self, event: RunEvent, key: str) -> RunEvent | None:
        """One transaction moves the run's event counter from n to n+1 (conditional on n), puts the
        key marker (conditional on its absence) and the event with seq n+1. So seqs have no gaps,
        and event n+1 cannot exist before event n does: a reader polling `after_seq` misses nothing."""
        pk = _s(_run_pk(event.run_id))

        def attempt() -> RunEvent | None:
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
            self._transact(items)
            return stored

        def cancelled(reasons: list[str]) -> RunEvent | _Again | None:
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
                ":pk": _s(_run_pk(run_id)),
                ":lo": _s(_event_sk(after_seq + 1)),
                ":hi": _s(_event_sk(MAX_SEQ)),
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

    def list_claims(self, tenant_id: str, limit: int = 50) -> list[ClaimRecord]:
        items = self._query(
            limit=limit,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :p",
            ExpressionAttributeValues={":p": _s(f"CLAIMS#{tenant_id}")},
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
            for item in self._partition(_claim_pk(tenant_id, claim_id), "DRIFT#")
        ]

    # ------------------------------------------------------------ API keys

    def _key_item(self, record: ApiKeyRecord) -> Item:
        return {
            "pk": _s(f"KEY#{record.key_id}"),
            "sk": _s("KEY"),
            "kind": _s("api_key"),
            "gsi1pk": _s("KEYS"),
            "gsi1sk": _s(f"{record.tenant_id}#{sortable(record.created_at)}#{record.key_id}"),
            "doc": _s(record.model_dump_json()),
        }

    def put_api_key(self, record: ApiKeyRecord) -> None:
        with self._lock:
            self.client.put_item(
                TableName=self.table,
                Item=self._key_item(record),
                ConditionExpression="attribute_not_exists(pk)",
            )

    def get_api_key(self, key_id: str) -> ApiKeyRecord:
        item = self._get(self.table, {"pk": _s(f"KEY#{key_id}"), "sk": _s("KEY")})
        if item is None:
            raise NotFoundError(f"no API key {key_id}")
        return ApiKeyRecord.model_validate_json(item["doc"]["S"])

    def revoke_api_key(self, key_id: str) -> bool:
        try:
            record = self.get_api_key(key_id)
        except NotFoundError:
            return False
        if record.revoked_at is not None:
            return False
        revoked = record.model_copy(update={"revoked_at": utcnow()})
        try:
            with self._lock:
                self.client.put_item(
                    TableName=self.table,
                    Item=self._key_item(revoked),
                    ConditionExpression="attribute_exists(pk) AND doc = :read",
                    ExpressionAttributeValues={":read": _s(record.model_dump_json())},
                )
        except ClientError as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise
            return False  # revoked by someone else meanwhile
        return True

    def list_api_keys(self) -> list[ApiKeyRecord]:
        listed = self._query(
            IndexName=GSI, KeyConditionExpression="gsi1pk = :p", ExpressionAttributeValues={":p": _s("KEYS")}
        )
        return self._documents([{"pk": item["pk"], "sk": item["sk"]} for item in listed], ApiKeyRecord)

    # ------------------------------------------------------------ the cost guard

    def admit(self, lease: Lease, *, max_active: int, hourly_limit: int) -> None:
        """One transaction: the lease counter goes up if it is under the cap, the lease is put, and the
        caller's hourly counter goes up if it is under its cap. All of it happens, or none of it."""
        window = hour_window(lease.since)
        window_end = lease.since.replace(minute=0, second=0, microsecond=0).timestamp() + 3600
        items = [
            {
                "Update": {
                    "TableName": self.table,
                    "Key": {"pk": _s(LEASES), "sk": _s("COUNT")},
                    "UpdateExpression": "SET #kind = :kind ADD n :one",
                    "ConditionExpression": "attribute_not_exists(n) OR n < :cap",
                    "ExpressionAttributeNames": {"#kind": "kind"},
                    "ExpressionAttributeValues": {
                        ":one": _n(1),
                        ":cap": _n(max_active),
                        ":kind": _s("counter"),
                    },
                }
            },
            {
                "Put": {
                    "TableName": self.table,
                    "Item": {
                        "pk": _s(LEASES),
                        "sk": _s(f"LEASE#{lease.run_id}"),
                        "kind": _s("lease"),
                        "doc": _s(lease.model_dump_json()),
                    },
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self.limits_table,
                    "Key": {"pk": _s(f"HOURLY#{lease.tenant_id}#{window}")},
                    "UpdateExpression": "SET expires_at = :expires ADD n :one",
                    "ConditionExpression": "attribute_not_exists(n) OR n < :cap",
                    "ExpressionAttributeValues": {
                        ":one": _n(1),
                        ":cap": _n(hourly_limit),
                        ":expires": _n(int(window_end) + 3600),  # kept an hour past its window
                    },
                }
            },
        ]

        def cancelled(reasons: list[str]) -> _Again | None:
            if reasons[1:2] == ["ConditionalCheckFailed"]:
                return None  # this run holds its lease already: a retried admission
            if reasons[0:1] == ["ConditionalCheckFailed"]:
                raise over_concurrency(max_active) from None
            if reasons[2:3] == ["ConditionalCheckFailed"]:
                raise over_hourly(hourly_limit, lease.since) from None
            return AGAIN  # a transaction conflict with another admission

        self._retrying(lambda: self._transact(items), "admitting a run", cancelled)

    def release(self, run_id: str) -> bool:
        items = [
            {
                "Delete": {
                    "TableName": self.table,
                    "Key": {"pk": _s(LEASES), "sk": _s(f"LEASE#{run_id}")},
                    "ConditionExpression": "attribute_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self.table,
                    "Key": {"pk": _s(LEASES), "sk": _s("COUNT")},
                    "UpdateExpression": "ADD n :minus_one",
                    "ExpressionAttributeValues": {":minus_one": _n(-1)},
                }
            },
        ]

        def attempt() -> bool:
            self._transact(items)
            return True

        def cancelled(reasons: list[str]) -> bool | _Again:
            # No lease: released before, or never admitted.
            return False if reasons[0:1] == ["ConditionalCheckFailed"] else AGAIN

        return self._retrying(attempt, f"run {run_id}: releasing its lease", cancelled)

    def leases(self) -> list[Lease]:
        return [Lease.model_validate_json(item["doc"]["S"]) for item in self._partition(LEASES, "LEASE#")]

    # ------------------------------------------------------------ monitors
    # One DUE partition in gsi2 orders every monitor by when it is next due: the drift tick reads the
    # overdue ones with one Query. (Past some thousands of ticks a second it would want sharding.)

    def _monitor_item(self, monitor: Monitor) -> Item:
        due = sortable(monitor.next_due)
        return {
            "pk": _s(f"MON#{monitor.monitor_id}"),
            "sk": _s("MON"),
            "kind": _s("monitor"),
            "gsi1pk": _s(f"MONITORS#{monitor.tenant_id}"),
            "gsi1sk": _s(monitor_listing_key(monitor)),
            "gsi2pk": _s("DUE"),
            "gsi2sk": _s(f"{due}#{monitor.monitor_id}"),
            "next_due": _s(due),
            "doc": _s(monitor.model_dump_json()),
        }

    def put_monitor(self, monitor: Monitor) -> None:
        self._put(self.table, self._monitor_item(monitor))

    def get_monitor(self, monitor_id: str) -> Monitor:
        item = self._get(self.table, {"pk": _s(f"MON#{monitor_id}"), "sk": _s("MON")})
        if item is None:
            raise NotFoundError(f"no monitor {monitor_id}")
        return Monitor.model_validate_json(item["doc"]["S"])

    def _monitors(self, tenant_id: str, claim_id: str | None = None) -> list[Monitor]:
        condition, values = "gsi1pk = :p", {":p": _s(f"MONITORS#{tenant_id}")}
        if claim_id is not None:
            condition, values[":claim"] = f"{condition} AND begins_with(gsi1sk, :claim)", _s(f"{claim_id}#")
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
                Key={"pk": _s(f"MON#{monitor_id}"), "sk": _s("MON")},
                ReturnValues="ALL_OLD",
            )
        return "Attributes" in reply

    def due_monitors(self, now: datetime, limit: int) -> list[Monitor]:
        due = self._query(
            limit=limit,
            IndexName=BY_SOURCE,
            KeyConditionExpression="gsi2pk = :due AND gsi2sk <= :now",
            ExpressionAttributeValues={":due": _s("DUE"), ":now": _s(sortable(now) + "#~")},
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
        try:
            with self._lock:
                self.client.put_item(
                    TableName=self.table,
                    Item=self._monitor_item(moved),
                    ConditionExpression="next_due = :due",
                    ExpressionAttributeValues={":due": _s(sortable(due))},
                )
        except ClientError as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise
            return False  # another tick moved it on, or it was deleted
        return True

    # ------------------------------------------------------------ WebSocket connections

    def put_connection(self, record: ConnectionRecord) -> None:
        self._put(
            self.connections_table,
            {
                "pk": _s(f"CONN#{record.connection_id}"),
                "sk": _s("CONN"),
                "doc": _s(record.model_dump_json()),
                "expires_at": _n(int(record.expires_at.timestamp())),
            },
        )

    def get_connection(self, connection_id: str) -> ConnectionRecord:
        key = {"pk": _s(f"CONN#{connection_id}"), "sk": _s("CONN")}
        item = self._get(self.connections_table, key)
        if item is None or int(item["expires_at"]["N"]) < time.time():
            raise NotFoundError(f"no connection {connection_id}")
        return ConnectionRecord.model_validate_json(item["doc"]["S"])

    def drop_connection(self, connection_id: str) -> None:
        followed = self._query(
            TableName=self.connections_table,
            IndexName=GSI,
            KeyConditionExpression="gsi1pk = :c",
            ExpressionAttributeValues={":c": _s(f"CONN#{connection_id}")},
        )
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in followed]
        keys.append({"pk": _s(f"CONN#{connection_id}"), "sk": _s("CONN")})
        with self._lock:
            for key in keys:
                self.client.delete_item(TableName=self.connections_table, Key=key)

    def _subscription_key(self, connection_id: str, run_id: str) -> Item:
        return {"pk": _s(_run_pk(run_id)), "sk": _s(f"CONN#{connection_id}")}

    def subscribe(self, connection_id: str, run_id: str, expires_at: datetime) -> None:
        with self._lock:
            self.client.update_item(
                TableName=self.connections_table,
                Key=self._subscription_key(connection_id, run_id),
                UpdateExpression="SET gsi1pk = :c, gsi1sk = :r, expires_at = :e,"
                " sent_seq = if_not_exists(sent_seq, :zero)",
                ExpressionAttributeValues={
                    ":c": _s(f"CONN#{connection_id}"),
                    ":r": _s(_run_pk(run_id)),
                    ":e": _n(int(expires_at.timestamp())),
                    ":zero": _n(0),
                },
            )

    def subscribers(self, run_id: str) -> list[str]:
        items = self._query(
            TableName=self.connections_table,
            KeyConditionExpression="pk = :pk AND begins_with(sk, :conn)",
            ExpressionAttributeValues={":pk": _s(_run_pk(run_id)), ":conn": _s("CONN#")},
            ConsistentRead=True,
        )
        now = time.time()
        return [i["sk"]["S"].removeprefix("CONN#") for i in items if int(i["expires_at"]["N"]) >= now]

    def claim_delivery(self, connection_id: str, run_id: str, until: datetime, token: str) -> int | None:
        try:
            with self._lock:
                reply = self.client.update_item(
                    TableName=self.connections_table,
                    Key=self._subscription_key(connection_id, run_id),
                    UpdateExpression="SET claimed_until = :until, claimed_by = :token",
                    ConditionExpression="attribute_exists(pk)"
                    " AND (attribute_not_exists(claimed_until) OR claimed_until < :now)",
                    ExpressionAttributeValues={
                        ":until": _n(int(until.timestamp() * 1000)),
                        ":now": _n(int(time.time() * 1000)),
                        ":token": _s(token),
                    },
                    ReturnValues="ALL_NEW",
                )
        except ClientError as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise
            return None  # claimed by another deliverer, or not subscribed
        return int(reply["Attributes"]["sent_seq"]["N"])

    def end_delivery(self, connection_id: str, run_id: str, sent_seq: int, token: str) -> bool:
        try:
            with self._lock:
                self.client.update_item(
                    TableName=self.connections_table,
                    Key=self._subscription_key(connection_id, run_id),
                    UpdateExpression="SET sent_seq = :seq REMOVE claimed_until, claimed_by",
                    ConditionExpression="claimed_by = :token",
                    ExpressionAttributeValues={":seq": _n(sent_seq), ":token": _s(token)},
                )
        except ClientError as err:
            if _code(err) != "ConditionalCheckFailedException":
                raise
            return False  # the claim lapsed and another deliverer holds it, or unsubscribed meanwhile
        return True

    def unsubscribe(self, connection_id: str, run_id: str) -> None:
        with self._lock:
            self.client.delete_item(
                TableName=self.connections_table, Key=self._subscription_key(connection_id, run_id)
            )
