"""Document collections on a deployed stack: the `Collections` port over the main table and the stack's
bucket, with uploads that come straight to S3.

    table  COLL#<tenant> / COLL#<name>               the manifest (as LocalCollections' collection.json), its
                                                     `version` and its index's files and bytes
    table  COLL#<tenant> / UPLOAD#<name>#<upload>    an upload not (yet) in: pending, or skipped with why
                                                     (its `expires_at`: the table's TTL, UPLOAD_KEPT_S on)
    bucket uploads/<tenant>/<name>/<upload>          an upload's bytes, until the index function has read it
    bucket collections/<tenant>/<name>/passages/<doc>-<hash>.json   one document version's passages
    bucket collections/<tenant>/<name>/index/<version folder>/…     a version's built index

A tenant's collections are one partition (listed by one Query). A change builds the new version's index
locally, uploads every file of it, and only then switches the manifest by a write conditional on the
version it started from: a reader never finds a manifest naming an index that is not whole, and two
writers at once make one of them start again from the other's manifest. The index a search needs is
downloaded to `cache_dir` (Lambda's /tmp) once per version and kept mapped, so a warm Retrieve fetches
nothing but the manifest; /tmp holds only what is kept loaded (the most recently searched `max_loaded`),
and room is made before a fetch by clearing what this search does not need. A collection whose index is
over `max_index_bytes`, or a run's together over `max_run_index_bytes`, is refused with the reason
(docs/architecture.md: beyond that, OpenSearch).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
import tempfile
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from botocore.exceptions import ClientError
from pydantic import BaseModel, ConfigDict, Field

from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError, TooLargeError
from claimcourt.evidence.bm25 import INDEX_FORMAT, Index, bm25s_version, load_index
from claimcourt.evidence.collections import (
    BUNDLED,
    CollectionInfo,
    CollectionSource,
    DocumentEntry,
    Outcome,
    Prepared,
    Searchable,
    _Manifest,
    build_collection_index,
    bundled_info,
    check_name,
    collection_source_name,
    new_entry,
    one_document,
    passages_json,
)
from claimcourt.evidence.documents import MAX_DOCUMENT_BYTES, megabytes
from claimcourt.models import TENANT_ID, Tier, utcnow
from claimcourt.store.dynamodb.tables import error_code

if TYPE_CHECKING:
    from claimcourt.evidence.corpus import CorpusSource
    from claimcourt.store.dynamodb.tables import DynamoTables


class _Replaced(Exception):
    """A version's index was deleted while it was being fetched (a writer switched the collection)."""


class _MissingPassages(Exception):
    """A document's passages were not in the bucket when a build read them."""

    def __init__(self, entry: DocumentEntry) -> None:
        super().__init__(entry.source)
        self.entry = entry


logger = logging.getLogger(__name__)

# The largest index a function loads: about 670,000 passages (148 MB a 100,000, bench.collections_speed),
# a download of ~10 s at a cold start and 1 GB of /tmp.
MAX_INDEX_BYTES = 1_000_000_000
# What one run may search together: Retrieve's /tmp (EphemeralStorage, 2 GB) holds them side by side,
# with the bundled corpus's index and room to spare.
MAX_RUN_INDEX_BYTES = 1_500_000_000
FETCH_HEADROOM_BYTES = 64 * 1024 * 1024  # free space kept beyond an index being fetched
MAX_LOADED = 16  # indexes a warm function keeps loaded (mapped), and so on disk
UPLOAD_EXPIRES_S = 900
# After its ticket expires, how long a POST begun in time may still take to land (25 MB on a slow line).
UPLOAD_GRACE_S = 900
UPLOAD_KEPT_S = 30 * 86400  # an upload's record, from its last change: a skipped file's reason for a month
NEVER_ARRIVED = "never arrived"  # a pending upload whose ticket lapsed with no file in the bucket
UPLOADS, COLLECTIONS = "uploads/", "collections/"
MAX_SWITCH_ATTEMPTS = 5  # writers racing on one collection: each loss re-reads and rebuilds


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IndexFile(_Strict):
    name: str
    size: int


class _Stored(_Strict):
    """The manifest item's document: the manifest and the files of its version's index."""

    manifest: _Manifest
    index: list[IndexFile] = Field(default_factory=list)


UploadStatus = Literal["pending", "skipped"]


class UploadRecord(_Strict):
    """An upload not in the collection (yet): `pending` until the index function has read it, or
    `skipped` with the reason (nothing of it went in)."""

    id: str
    filename: str
    status: UploadStatus
    reason: str | None = None
    created_at: datetime


@dataclass(frozen=True)
class UploadTicket:
    """Where to send a document: a presigned S3 POST (its url and form fields; the file goes last, as
    the form's `file` field) that expires at `expires_at` and takes at most `max_bytes`."""

    upload: UploadRecord
    url: str
    fields: dict[str, str]
    expires_at: datetime
    max_bytes: int


def upload_key(tenant: str, name: str, upload_id: str) -> str:
    return f"{UPLOADS}{tenant}/{name}/{upload_id}"


def parse_upload_key(key: str) -> tuple[str, str, str] | None:
    """(tenant, collection, upload id) of an upload's object key, or None if it is not one."""
    parts = key.removeprefix(UPLOADS).split("/") if key.startswith(UPLOADS) else []
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 and all(parts) else None


def _s(value: str) -> dict[str, str]:
    return {"S": value}


class S3Collections:
    """A stack's collections: manifests in the main table, passages and indexes in the bucket (the
    store's own tables and clients); the bundled corpus from `bundled` (None: no `climate`)."""

    def __init__(
        self,
        tables: DynamoTables,
        cache_dir: Path,
        bundled: CorpusSource | None = None,
        *,
        max_index_bytes: int = MAX_INDEX_BYTES,
        max_run_index_bytes: int = MAX_RUN_INDEX_BYTES,
        max_loaded: int = MAX_LOADED,
        now: Callable[[], datetime] = utcnow,
        free_bytes: Callable[[Path], int] = lambda path: shutil.disk_usage(path).free,
    ) -> None:
        self.tables = tables
        self.cache_dir = cache_dir
        self._bundled = bundled
        self.max_index_bytes = max_index_bytes
        self.max_run_index_bytes = max_run_index_bytes
        self.max_loaded = max_loaded
        self._now = now  # when an upload's ticket has lapsed: a test's clock
        self._free_bytes = free_bytes  # what /tmp has left: a test's small disk
        self._indexes: OrderedDict[Path, Index] = OrderedDict()
        self._lock = threading.Lock()
        self._upload_origin: str | None = None
        self._fetching = threading.Lock()

    # ------------------------------------------------------------ the collections themselves

    def create(self, tenant: str, name: str, tier: Tier) -> CollectionInfo:
        check_name(name)
        if name == BUNDLED:
            raise ConflictError(
                f"{BUNDLED} is the bundled corpus's name: choose another", "collection_exists"
            )
        manifest = _Manifest(name=name, tier=tier, created_at=utcnow())
        if not self._write(tenant, _Stored(manifest=manifest), None):
            raise ConflictError(f"a collection named {name} already exists", "collection_exists")
        return manifest.info()

    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        found = [bundled_info(self._bundled)] if self._bundled is not None else []
        items = self.tables._partition(self._pk(tenant), "COLL#")
        return found + [self._stored(item).manifest.info() for item in items]

    def get(self, tenant: str, name: str) -> CollectionInfo:
        if name == BUNDLED and self._bundled is not None:
            return bundled_info(self._bundled)
        return self._read(tenant, name)[0].manifest.info()

    def documents(self, tenant: str, name: str) -> list[DocumentEntry]:
        if name == BUNDLED and self._bundled is not None:
            return []
        return self._read(tenant, name)[0].manifest.documents

    def delete(self, tenant: str, name: str) -> None:
        self._writable(name)
        self._read(tenant, name)  # 404 first
        for item in [*self.tables._partition(self._pk(tenant), f"UPLOAD#{name}#")]:
            self.tables.client.delete_item(
                TableName=self.tables.table, Key={"pk": item["pk"], "sk": item["sk"]}
            )
        self.tables.client.delete_item(TableName=self.tables.table, Key=self._key(tenant, name))
        # Out of sight once the manifest is gone; then its objects (a search holding one mapped reads on).
        self._delete_prefix(f"{COLLECTIONS}{tenant}/{name}/")
        self._delete_prefix(f"{UPLOADS}{tenant}/{name}/")

    # ------------------------------------------------------------ documents

    def put(self, tenant: str, name: str, documents: Sequence[Prepared]) -> list[Outcome]:
        """Add or replace documents, as one new version of the collection."""
        self._writable(name)
        for _ in range(MAX_SWITCH_ATTEMPTS):
            stored, version = self._read(tenant, name)
            before = stored.manifest
            entries = {d.id: d for d in before.documents}
            by_content = {d.content_hash: d for d in before.documents}
            fresh: dict[str, Prepared] = {}
            outcomes: list[Outcome] = []
            for prepared in documents:
                entry, reason = new_entry(entries, by_content, prepared)
                if entry is None:
                    outcomes.append(Outcome(prepared.source, "unchanged", reason))
                    continue
                fresh[entry.id] = prepared
                replaced = entry.id in entries
                entries[entry.id] = by_content[entry.content_hash] = entry
                outcomes.append(Outcome(prepared.source, "replaced" if replaced else "added", None, entry))
            if not fresh:
                return outcomes
            for entry_id, prepared in fresh.items():
                self._put_object(
                    self._passages_key(tenant, name, entries[entry_id]), passages_json(prepared.passages)
                )
            after = before.model_copy(update={"documents": sorted(entries.values(), key=lambda d: d.id)})
            if self._switched(tenant, stored, version, after, fresh):
                return outcomes
        raise ConflictError(f"collection {name} is changing under too many writers: try again", "busy")

    def remove(self, tenant: str, name: str, document: str) -> DocumentEntry:
        self._writable(name)
        for _ in range(MAX_SWITCH_ATTEMPTS):
            stored, version = self._read(tenant, name)
            gone = one_document(stored.manifest, document)
            after = stored.manifest.model_copy(
                update={"documents": [d for d in stored.manifest.documents if d is not gone]}
            )
            if self._switched(tenant, stored, version, after, {}):
                return gone
        raise ConflictError(f"collection {name} is changing under too many writers: try again", "busy")

    # ------------------------------------------------------------ uploads

    def presign(self, tenant: str, name: str, filename: str) -> UploadTicket:
        """An upload recorded as pending and a presigned POST for its bytes (at most MAX_DOCUMENT_BYTES:
        S3 refuses more). The object's arrival starts the index function (template.yaml)."""
        upload = self._new_upload(tenant, name, filename)
        post = self.tables.s3.generate_presigned_post(
            self.tables.bucket,
            upload_key(tenant, name, upload.id),
            Conditions=[["content-length-range", 1, MAX_DOCUMENT_BYTES]],
            ExpiresIn=UPLOAD_EXPIRES_S,
        )
        expires = upload.created_at + timedelta(seconds=UPLOAD_EXPIRES_S)
        return UploadTicket(upload, post["url"], dict(post["fields"]), expires, MAX_DOCUMENT_BYTES)

    def upload_origin(self) -> str:
        """Where a presigned POST sends a browser (scheme and host): the console's content security
        policy lets it connect there. Signing is local: nothing is sent."""
        if self._upload_origin is None:
            parts = urlsplit(self.tables.s3.generate_presigned_post(self.tables.bucket, "uploads/")["url"])
            self._upload_origin = f"{parts.scheme}://{parts.netloc}"
        return self._upload_origin

    def stage(self, tenant: str, name: str, filename: str, data: bytes) -> UploadRecord:
        """An upload that came through the API itself: its bytes to where a presigned POST puts them, so
        the index function reads it as any other."""
        upload = self._new_upload(tenant, name, filename)
        self._put_object(upload_key(tenant, name, upload.id), data)
        return upload

    def uploads(self, tenant: str, name: str) -> list[UploadRecord]:
        """The collection's uploads not in it: pending, or skipped with why (oldest first). A pending
        upload whose ticket lapsed (and its grace) with nothing in the bucket is settled here as skipped,
        never arrived: a client that asked for a URL and sent nothing (a closed tab, a file S3 refused as
        too large) holds no quota past that."""
        check_name(name)
        found = []
        for item in self.tables._partition(self._pk(tenant), f"UPLOAD#{name}#"):
            upload: UploadRecord | None = UploadRecord.model_validate_json(item["doc"]["S"])
            if upload is not None and self._lapsed(upload) and not self._arrived(tenant, name, upload.id):
                upload = self._never_arrived(tenant, name, upload, item["doc"]["S"])
            if upload is not None:
                found.append(upload)
        return sorted(found, key=lambda u: u.created_at)

    def _lapsed(self, upload: UploadRecord) -> bool:
        waited = timedelta(seconds=UPLOAD_EXPIRES_S + UPLOAD_GRACE_S)
        return upload.status == "pending" and self._now() > upload.created_at + waited

    def _arrived(self, tenant: str, name: str, upload_id: str) -> bool:
        try:
            self.tables.s3.head_object(Bucket=self.tables.bucket, Key=upload_key(tenant, name, upload_id))
        except ClientError as err:
            if not _absent(err):
                raise
            return False
        return True

    def _never_arrived(self, tenant: str, name: str, upload: UploadRecord, read: str) -> UploadRecord | None:
        """Settle a lapsed upload as skipped, unless the index function settled it meanwhile (then its
        record as it is now, None if it went in)."""
        expired = upload.created_at + timedelta(seconds=UPLOAD_EXPIRES_S)
        skipped = upload.model_copy(
            update={
                "status": "skipped",
                "reason": f"{NEVER_ARRIVED}: its upload URL expired at {expired:%Y-%m-%d %H:%M} UTC with "
                "no file sent (a file over 25 MB is refused by S3): ask for another",
            }
        )
        if self._put_upload(tenant, name, skipped, unchanged_from=read):
            return skipped
        return self.upload(tenant, name, upload.id)

    def upload(self, tenant: str, name: str, upload_id: str) -> UploadRecord | None:
        item = self.tables._get(self.tables.table, self._upload_key(tenant, name, upload_id))
        return UploadRecord.model_validate_json(item["doc"]["S"]) if item else None

    @staticmethod
    def awaited(upload: UploadRecord) -> bool:
        """An upload the index function is to read: pending, or settled as never arrived (its POST,
        begun in time, landed after the grace)."""
        return upload.status == "pending" or (upload.reason or "").startswith(NEVER_ARRIVED)

    def upload_bytes(self, tenant: str, name: str, upload_id: str) -> bytes:
        """An upload's bytes; TooLargeError (nothing read) over MAX_DOCUMENT_BYTES."""
        key = upload_key(tenant, name, upload_id)
        size = int(self.tables.s3.head_object(Bucket=self.tables.bucket, Key=key)["ContentLength"])
        if size > MAX_DOCUMENT_BYTES:
            raise TooLargeError(
                f"{megabytes(size)}, over the {megabytes(MAX_DOCUMENT_BYTES)} limit", "document_too_large"
            )
        return bytes(self.tables.s3.get_object(Bucket=self.tables.bucket, Key=key)["Body"].read())

    def settle(self, tenant: str, name: str, upload: UploadRecord, reason: str | None) -> None:
        """An upload read: in (its record goes, with any earlier skipped record of the same file name),
        or skipped with `reason` (its record says why). Its bytes go either way."""
        if reason is None:
            for other in self.uploads(tenant, name):
                if other.id == upload.id or (other.filename == upload.filename and other.status == "skipped"):
                    self.tables.client.delete_item(
                        TableName=self.tables.table, Key=self._upload_key(tenant, name, other.id)
                    )
        else:
            skipped = upload.model_copy(update={"status": "skipped", "reason": reason})
            self._put_upload(tenant, name, skipped)
        self.tables.s3.delete_object(Bucket=self.tables.bucket, Key=upload_key(tenant, name, upload.id))

    # ------------------------------------------------------------ searching

    def source(self, tenant: str, name: str) -> Searchable:
        return self.sources(tenant, [name])[0]

    def sources(self, tenant: str, names: Sequence[str]) -> list[Searchable]:
        """Each named collection's source, for one search of them together: each index from /tmp,
        fetched there first if this function has not that version (room made by clearing the indexes
        this search does not need), refused as `check_searchable` refuses."""
        for attempt in (1, 2):
            read = self._searchable(tenant, names)
            needed = {self._cache_folder(tenant, n, version) for n, (_, version) in read.items()}
            try:
                return [self._source(tenant, name, read.get(name), needed) for name in names]
            except _Replaced as exc:  # a writer replaced a version while it was fetched: once more
                if attempt == 2:
                    raise NotFoundError(f"collection {exc} changed while its index was fetched") from exc
        raise AssertionError("unreachable")

    def _source(
        self, tenant: str, name: str, read: tuple[_Stored, str] | None, needed: set[Path]
    ) -> Searchable:
        if read is None:  # the bundled corpus
            assert self._bundled is not None
            return self._bundled
        stored, version = read
        if not stored.manifest.documents:
            return CollectionSource(name, version, None)
        return CollectionSource(name, version, self._index(tenant, name, version, stored.index, needed))

    def check_searchable(self, tenant: str, names: Sequence[str]) -> None:
        self._searchable(tenant, names)

    def _searchable(self, tenant: str, names: Sequence[str]) -> dict[str, tuple[_Stored, str]]:
        """The named collections' manifests (the bundled corpus's aside; it is no collection of the
        table), refused if one's index is over what a function may load, or all of them together over
        what one search may (Retrieve's /tmp holds them side by side)."""
        read = {
            name: self._read(tenant, name)
            for name in names
            if not (name == BUNDLED and self._bundled is not None)
        }
        sizes = {name: sum(f.size for f in stored.index) for name, (stored, _) in read.items()}
        for name, size in sizes.items():
            if size > (most := self.max_index_bytes):
                raise TooLargeError(
                    f"collection {name}'s index is {megabytes(size)}, over the {megabytes(most)} a function "
                    "can load: split it into several collections",
                    "collection_too_large",
                )
        if (total := sum(sizes.values())) > self.max_run_index_bytes:
            each = ", ".join(f"{name} {megabytes(size)}" for name, size in sizes.items())
            raise TooLargeError(
                f"the collections named hold {megabytes(total)} of index together ({each}), over the "
                f"{megabytes(self.max_run_index_bytes)} one run can search: name fewer",
                "collection_too_large",
            )
        return read

    def source_name(self, tenant: str, name: str) -> str:
        if name == BUNDLED and self._bundled is not None:
            return self._bundled.name
        item = self.tables.client.get_item(
            TableName=self.tables.table,
            Key=self._key(tenant, name),
            ProjectionExpression="version",  # not the manifest: it may be large, or spilled to S3
            ConsistentRead=True,
        ).get("Item")
        if item is None:
            raise NotFoundError(f"no collection {name}")
        return collection_source_name(name, item["version"]["S"])

    def _index(
        self, tenant: str, name: str, version: str, files: list[IndexFile], needed: set[Path]
    ) -> Index:
        """The version's index from /tmp, fetched first if this function has not yet (kept loaded, and
        on disk while it is: one that leaves the loaded few leaves /tmp too)."""
        where = self._cache_folder(tenant, name, version)
        with self._lock:
            if (index := self._indexes.get(where)) is not None:
                self._indexes.move_to_end(where)
                return index
        with self._fetching:  # one fetch at a time: making room never clears what another is loading
            if not where.is_dir():
                self._make_room(name, sum(f.size for f in files), needed)
                self._fetch(name, self._index_prefix(tenant, name, version), files, where)
            index = load_index(where)  # mapped: a folder cleared later stays readable to a search holding it
            with self._lock:
                self._indexes[where] = index
                self._indexes.move_to_end(where)
                dropped = []
                while len(self._indexes) > self.max_loaded:
                    dropped.append(self._indexes.popitem(last=False)[0])
            for old in dropped:
                if old not in needed:
                    shutil.rmtree(old, ignore_errors=True)
        return index

    def _make_room(self, name: str, size: int, needed: set[Path]) -> None:
        """Free space in /tmp for an index of `size`: the indexes not loaded go first, then the loaded
        ones least recently searched, never one this search needs. TooLargeError if even that is not
        enough (a function's /tmp is its EphemeralStorage, shared with the bundled corpus's index)."""
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        wanted = size + FETCH_HEADROOM_BYTES
        if self._free_bytes(self.cache_dir) >= wanted:
            return
        with self._lock:
            loaded = {folder: order for order, folder in enumerate(self._indexes)}
        on_disk = [
            folder
            for folder in self.cache_dir.glob("*/*/*")
            if folder.is_dir() and not folder.name.startswith(".") and folder not in needed
        ]
        for folder in sorted(on_disk, key=lambda f: (f in loaded, loaded.get(f, 0))):
            with self._lock:
                self._indexes.pop(folder, None)
            shutil.rmtree(folder, ignore_errors=True)
            if self._free_bytes(self.cache_dir) >= wanted:
                return
        raise TooLargeError(
            f"collection {name}'s index ({megabytes(size)}) does not fit in this function's "
            f"{megabytes(self._free_bytes(self.cache_dir))} of free space beside the indexes this search "
            "needs: name fewer collections",
            "collection_too_large",
        )

    def _fetch(self, name: str, prefix: str, files: list[IndexFile], where: Path) -> None:
        """Download an index's files beside `where`, then rename it into place; older versions of the
        same collection leave /tmp (a warm function keeps one of each)."""
        where.parent.mkdir(parents=True, exist_ok=True)
        scratch = where.parent / f".{where.name}.{uuid.uuid4().hex[:8]}"
        try:
            for file in files:
                target = scratch / file.name
                target.parent.mkdir(parents=True, exist_ok=True)
                try:
                    self.tables.s3.download_file(self.tables.bucket, prefix + file.name, str(target))
                except ClientError as err:
                    if not _absent(err):
                        raise
                    raise _Replaced(name) from err
            with contextlib.suppress(OSError):  # another process got there first: theirs is as good
                scratch.rename(where)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        for old in where.parent.iterdir():
            if old != where and not old.name.startswith("."):
                with self._lock:
                    self._indexes.pop(old, None)
                shutil.rmtree(old, ignore_errors=True)

    # ------------------------------------------------------------ the table and the bucket

    def _pk(self, tenant: str) -> str:
        if not re.fullmatch(TENANT_ID, tenant):  # a key segment, as a name is
            raise InvalidRequestError("tenant", f"{tenant!r} is not a tenant")
        return f"COLL#{tenant}"

    def _key(self, tenant: str, name: str) -> dict[str, Any]:
        return {"pk": _s(self._pk(tenant)), "sk": _s(f"COLL#{check_name(name)}")}

    def _upload_key(self, tenant: str, name: str, upload_id: str) -> dict[str, Any]:
        return {"pk": _s(self._pk(tenant)), "sk": _s(f"UPLOAD#{check_name(name)}#{upload_id}")}

    def _cache_folder(self, tenant: str, name: str, version: str) -> Path:
        self._pk(tenant)  # a path segment: checked as a key's is
        return self.cache_dir / tenant / check_name(name) / _folder_name(version)

    def _writable(self, name: str) -> None:
        if name == BUNDLED and self._bundled is not None:
            raise ConflictError(
                f"{BUNDLED} is the bundled corpus: it cannot be changed", "collection_read_only"
            )

    def _stored(self, item: dict[str, Any]) -> _Stored:
        return _Stored.model_validate_json(self.tables._body(item))

    def _read(self, tenant: str, name: str) -> tuple[_Stored, str]:
        item = self.tables._get(self.tables.table, self._key(tenant, name))
        if item is None:
            raise NotFoundError(f"no collection {name}")
        return self._stored(item), item["version"]["S"]

    def _write(self, tenant: str, stored: _Stored, before: str | None) -> bool:
        """Put the manifest item if it is still at version `before` (None: if there is none yet)."""
        name = stored.manifest.name
        body = stored.model_dump_json()
        version = stored.manifest.version()
        item = {
            **self._key(tenant, name),
            "kind": _s("collection"),
            "version": _s(version),
            **self.tables._doc(f"{COLLECTIONS}{tenant}/{name}", f"manifest-{version}", body),
        }
        if before is None:
            condition: dict[str, Any] = {"ConditionExpression": "attribute_not_exists(pk)"}
        else:
            condition = {
                "ConditionExpression": "version = :before",
                "ExpressionAttributeValues": {":before": _s(before)},
            }
        written = self.tables._conditional_write(
            self.tables.client.put_item, TableName=self.tables.table, Item=item, **condition
        )
        return written is not None

    def _switched(
        self, tenant: str, stored: _Stored, version: str, after: _Manifest, fresh: dict[str, Prepared]
    ) -> bool:
        """`_switch`, and False (start again) when a document's passages went from under the build
        because another writer switched the collection; if none did, the collection is damaged."""
        try:
            return self._switch(tenant, stored, version, after, fresh)
        except _MissingPassages as missing:
            if self._read(tenant, after.name)[1] != version:
                return False
            raise ConflictError(
                f"collection {after.name} has lost the passages of {missing.entry.source}: remove that "
                "document and add it again",
                "collection_damaged",
            ) from missing

    def _switch(
        self, tenant: str, stored: _Stored, version: str, after: _Manifest, fresh: dict[str, Prepared]
    ) -> bool:
        """Make `after` the collection: its index built and uploaded whole first, then the manifest (if
        still at `version`); then what only the old version used goes. False: another writer moved first."""
        name, new_version = after.name, after.version()
        files: list[IndexFile] = []
        if after.documents:
            files = self._build(tenant, after, fresh)
        if not self._write(tenant, _Stored(manifest=after, index=files), version):
            return False
        kept = {self._passages_key(tenant, name, d) for d in after.documents}
        for old in stored.manifest.documents:
            if (key := self._passages_key(tenant, name, old)) not in kept:
                self.tables.s3.delete_object(Bucket=self.tables.bucket, Key=key)
        if version != new_version and stored.index:
            old_prefix = self._index_prefix(tenant, name, version)
            self._delete_keys([old_prefix + f.name for f in stored.index])
        return True

    def _build(self, tenant: str, manifest: _Manifest, fresh: dict[str, Prepared]) -> list[IndexFile]:
        """Build the manifest's index here and upload its files under its version's prefix."""

        def rows(entry: DocumentEntry) -> list[tuple[str, int | None]]:
            if (given := fresh.get(entry.id)) is not None:
                return [(p.text, p.page) for p in given.passages]
            try:
                body = self.tables.s3.get_object(
                    Bucket=self.tables.bucket, Key=self._passages_key(tenant, manifest.name, entry)
                )
            except ClientError as err:
                if not _absent(err):
                    raise
                raise _MissingPassages(entry) from err
            return [(text, page) for text, page in json.loads(body["Body"].read())]

        index = build_collection_index(manifest, rows)
        prefix = self._index_prefix(tenant, manifest.name, manifest.version())
        with tempfile.TemporaryDirectory(prefix="claimcourt-index-") as scratch:
            folder = Path(scratch) / "index"
            index.save(folder)
            files = [
                IndexFile(name=path.relative_to(folder).as_posix(), size=path.stat().st_size)
                for path in sorted(folder.rglob("*"))
                if path.is_file()
            ]
            size = sum(f.size for f in files)
            if size > self.max_index_bytes:
                raise TooLargeError(
                    f"collection {manifest.name} would need an index of {megabytes(size)}, over the "
                    f"{megabytes(self.max_index_bytes)} a function can load: put these documents in another "
                    "collection",
                    "collection_too_large",
                )
            for file in files:
                self.tables.s3.upload_file(str(folder / file.name), self.tables.bucket, prefix + file.name)
        return files

    def _new_upload(self, tenant: str, name: str, filename: str) -> UploadRecord:
        self._writable(name)
        self._read(tenant, name)  # 404 before anything is recorded
        upload = UploadRecord(
            id=uuid.uuid4().hex, filename=filename, status="pending", created_at=self._now()
        )
        self._put_upload(tenant, name, upload)
        return upload

    def _put_upload(
        self, tenant: str, name: str, upload: UploadRecord, *, unchanged_from: str | None = None
    ) -> bool:
        """Write an upload's record, kept UPLOAD_KEPT_S (the table's TTL attribute, `expires_at`);
        `unchanged_from`: only if its record is still that document. False: it was not."""
        item = {
            **self._upload_key(tenant, name, upload.id),
            "kind": _s("upload"),
            "doc": _s(upload.model_dump_json()),
            "expires_at": {"N": str(int(self._now().timestamp()) + UPLOAD_KEPT_S)},
        }
        if unchanged_from is None:
            self.tables._put(self.tables.table, item)
            return True
        written = self.tables._conditional_write(
            self.tables.client.put_item,
            TableName=self.tables.table,
            Item=item,
            ConditionExpression="doc = :read",
            ExpressionAttributeValues={":read": _s(unchanged_from)},
        )
        return written is not None

    def _put_object(self, key: str, data: bytes) -> None:
        self.tables.s3.put_object(Bucket=self.tables.bucket, Key=key, Body=data)

    def _passages_key(self, tenant: str, name: str, entry: DocumentEntry) -> str:
        return f"{COLLECTIONS}{tenant}/{name}/passages/{entry.id}-{entry.content_hash[:16]}.json"

    def _index_prefix(self, tenant: str, name: str, version: str) -> str:
        return f"{COLLECTIONS}{tenant}/{name}/index/{_folder_name(version)}/"

    def _delete_prefix(self, prefix: str) -> None:
        pages = self.tables.s3.get_paginator("list_objects_v2").paginate(
            Bucket=self.tables.bucket, Prefix=prefix
        )
        for page in pages:
            self._delete_keys([o["Key"] for o in page.get("Contents", [])])

    def _delete_keys(self, keys: list[str]) -> None:
        for start in range(0, len(keys), 1000):  # DeleteObjects' limit
            batch = [{"Key": k} for k in keys[start : start + 1000]]
            if batch:
                self.tables.s3.delete_objects(
                    Bucket=self.tables.bucket, Delete={"Objects": batch, "Quiet": True}
                )


def _absent(err: ClientError) -> bool:
    """S3's answer for a key of ours that is not there. To a caller without s3:ListBucket on the bucket
    (the functions hold it, if at all, only to list a prefix), S3 answers 403, not 404, lest it learn
    what exists; and a 403 means nothing else here: every function that reads uploads/ and collections/
    holds s3:GetObject on them, the bucket's keys are S3's own (SSE-S3), its policy denies only http."""
    return error_code(err) in ("404", "NoSuchKey", "403", "AccessDenied")


def _folder_name(version: str) -> str:
    return f"{version}.v{INDEX_FORMAT}-bm25s-{bm25s_version()}"
