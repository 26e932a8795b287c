"""The index function: uploads that reached the stack's bucket go into their collections.

S3 announces each new object under `uploads/` on EventBridge; a rule puts those events on a queue
(template.yaml), whose batches come here. A batch's uploads to one collection are read (the same
readers as `claimcourt corpus add`) and put in together: one new version, one index build, however many
documents arrived. An upload that cannot be read is recorded as skipped with its reason (GET
/corpora/{name}/documents lists it) and the rest go in. An upload already settled (a redelivered
message) or of a collection deleted meanwhile is left alone.

A build the collection refuses (too large to index, damaged) settles each of the batch's uploads as
skipped with the reason: trying again would refuse them again. A failure that may pass (the collection
busy with other writers, S3, the table) reports that collection's messages as failed, and the queue
offers them again; on the last receive (MAX_RECEIVES, the queue's maxReceiveCount) each upload is
settled as skipped with the reason before the message goes to the dead-letter queue (an alarm), so
none is left pending for good.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.errors import (
    ClaimcourtError,
    ConfigurationError,
    ConflictError,
    NotFoundError,
    TransientError,
)
from claimcourt.evidence.documents import Unreadable
from claimcourt.observability import logger, observed
from claimcourt.wiring import current_deps

if TYPE_CHECKING:
    from claimcourt.evidence.collections import Prepared
    from claimcourt.evidence.s3_collections import S3Collections, UploadRecord


# template.yaml's IndexQueue RedrivePolicy maxReceiveCount (a test holds the two equal): the receive after
# which the queue gives a message to its dead-letter queue.
MAX_RECEIVES = 5


class Retry(Exception):
    """A failure that may pass: the queue is to offer these uploads again (on their last receive they
    are settled as skipped with `reason`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Arrival:
    message_id: str
    tenant: str
    collection: str
    upload_id: str
    receives: int = 1  # SQS's ApproximateReceiveCount: 1 the first time the message is offered

    @property
    def last_chance(self) -> bool:
        return self.receives >= MAX_RECEIVES


def arrivals(event: dict[str, Any]) -> tuple[list[Arrival], list[str]]:
    """The uploads an SQS batch of S3 "Object Created" events announces, and the ids of messages that
    announce none (left alone: nothing to retry)."""
    from claimcourt.evidence.s3_collections import parse_upload_key

    found, strays = [], []
    for record in event.get("Records", []):
        try:
            key = json.loads(record["body"])["detail"]["object"]["key"]
        except (KeyError, TypeError, ValueError):
            key = None
        parsed = parse_upload_key(key) if isinstance(key, str) else None
        if parsed is None:
            logger.warning("not an upload: %s", str(record.get("body"))[:200])
            strays.append(record.get("messageId", ""))
            continue
        receives = str(record.get("attributes", {}).get("ApproximateReceiveCount", "1"))
        found.append(Arrival(record["messageId"], *parsed, int(receives) if receives.isdigit() else 1))
    return found, strays


def index_uploads(
    collections: S3Collections, event: dict[str, Any], quota_bytes: int | None = None
) -> dict[str, Any]:
    """Put each announced upload into its collection; the messages of collections that failed come back
    (SQS partial batch response). An upload that would take its tenant's collections past `quota_bytes`
    is skipped with that reason: a presigned POST's size is known only now."""
    found, _ = arrivals(event)
    by_collection: dict[tuple[str, str], list[Arrival]] = defaultdict(list)
    for arrival in found:
        by_collection[(arrival.tenant, arrival.collection)].append(arrival)
    failed: list[str] = []
    for (tenant, name), batch in by_collection.items():
        try:
            _index_collection(collections, tenant, name, batch, quota_bytes)
        except Exception as exc:  # this collection's messages are offered again; the others' are done
            logger.exception("indexing uploads to %s/%s failed", tenant, name)
            reason = exc.reason if isinstance(exc, Retry) else _STACK_FAULT
            _give_up_on_last_chance(collections, tenant, name, batch, reason)
            failed += [a.message_id for a in batch]
    return {"batchItemFailures": [{"itemIdentifier": m} for m in failed]}


# What a user is told of a failure that is the stack's (logged, traceback and all, for the alarm's reader).
_STACK_FAULT = (
    f"it could not be indexed after {MAX_RECEIVES} tries (a fault on the stack's side): upload it again"
)


def _give_up_on_last_chance(
    collections: S3Collections, tenant: str, name: str, batch: list[Arrival], reason: str
) -> None:
    """Settle as skipped, with `reason`, each upload whose message the queue will not offer again."""
    for arrival in batch:
        if not arrival.last_chance:
            continue
        try:
            upload = collections.upload(tenant, name, arrival.upload_id)
            if upload is not None and collections.awaited(upload):
                collections.settle(tenant, name, upload, reason)
        except Exception:  # the message goes to the dead-letter queue all the same (the alarm)
            logger.exception("settling upload %s of %s/%s failed", arrival.upload_id, tenant, name)


def _index_collection(
    collections: S3Collections, tenant: str, name: str, batch: list[Arrival], quota_bytes: int | None
) -> None:
    from claimcourt.evidence.ingest import read_upload

    held = sum(c.size for c in collections.list_collections(tenant) if not c.bundled)
    read: list[tuple[UploadRecord, Prepared]] = []
    for arrival in batch:
        upload = collections.upload(tenant, name, arrival.upload_id)
        if upload is None or not collections.awaited(upload):
            continue  # settled already: a message delivered twice
        try:
            data = collections.upload_bytes(tenant, name, upload.id)
            if quota_bytes is not None and held + len(data) > quota_bytes:
                collections.settle(
                    tenant, name, upload, f"over the tenant's collections quota ({quota_bytes // 2**20} MB)"
                )
                continue
            held += len(data)
            read.append((upload, read_upload(upload.filename, data)))
        except Unreadable as exc:
            collections.settle(tenant, name, upload, exc.reason)
        except ClaimcourtError as exc:  # too large: nothing of it read
            collections.settle(tenant, name, upload, str(exc))
    if not read:
        return
    try:
        outcomes = collections.put(tenant, name, [prepared for _, prepared in read])
    except NotFoundError:  # the collection was deleted meanwhile (and its uploads' objects with it)
        logger.info("collection %s/%s is gone: %d uploads dropped", tenant, name, len(read))
        return
    except ClaimcourtError as exc:
        if isinstance(exc, ConflictError) and exc.code == "busy":  # other writers: it will pass
            raise Retry(f"{exc} (it stayed busy through {MAX_RECEIVES} tries)") from exc
        if isinstance(exc, TransientError):
            raise Retry(f"{exc} (through {MAX_RECEIVES} tries)") from exc
        # Refused as it is (too large to index, damaged): so it would be again.
        logger.warning("collection %s/%s refused %d uploads: %s", tenant, name, len(read), exc)
        for upload, _ in read:
            collections.settle(tenant, name, upload, str(exc))
        return
    for (upload, _), outcome in zip(read, outcomes, strict=True):
        reason = outcome.reason if outcome.status == "skipped" else None
        collections.settle(tenant, name, upload, reason)
    logger.info(
        "indexed uploads",
        extra={"tenant": tenant, "collection": name, "outcomes": [o.status for o in outcomes]},
    )


@observed
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    from claimcourt.evidence.s3_collections import S3Collections

    collections = current_deps().collections
    if not isinstance(collections, S3Collections):
        raise ConfigurationError(
            "the index function needs the stack's collections (CLAIMCOURT_STORE=dynamodb)"
        )
    return index_uploads(
        collections, event, quota_bytes=current_deps().settings.collections_quota_mb * 1024 * 1024
    )
