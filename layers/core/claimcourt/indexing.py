"""The index function: uploads that reached the stack's bucket go into their collections.

S3 announces each new object under `uploads/` on EventBridge; a rule puts those events on a queue
(template.yaml), whose batches come here. A batch's uploads to one collection are read (the same
readers as `claimcourt corpus add`) and put in together: one new version, one index build, however many
documents arrived. An upload that cannot be read is recorded as skipped with its reason (GET
/corpora/{name}/documents lists it) and the rest go in. An upload already settled (a redelivered
message) or of a collection deleted meanwhile is left alone. A failure of the collection itself (S3,
the table, a build) reports that collection's messages as failed: the queue offers them again, and
after five receives moves them to its dead-letter queue (an alarm).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.errors import ClaimcourtError, ConfigurationError, NotFoundError
from claimcourt.evidence.documents import Unreadable
from claimcourt.observability import logger, observed
from claimcourt.wiring import current_deps

if TYPE_CHECKING:
    from claimcourt.evidence.collections import Prepared
    from claimcourt.evidence.s3_collections import S3Collections, UploadRecord


@dataclass(frozen=True)
class Arrival:
    message_id: str
    tenant: str
    collection: str
    upload_id: str


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
        found.append(Arrival(record["messageId"], *parsed))
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
        except Exception:  # this collection's messages are offered again; the others' are done
            logger.exception("indexing uploads to %s/%s failed", tenant, name)
            failed += [a.message_id for a in batch]
    return {"batchItemFailures": [{"itemIdentifier": m} for m in failed]}


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
