"""Document collections: named sets of a tenant's documents, each searched through a BM25 index of its
own. The bundled climate corpus is one more collection, `climate`, which every tenant sees and none
may change.

`Collections` is the port; `LocalCollections` keeps them in the data directory:

    collections/<tenant>/<name>/collection.json            the manifest: tier, created, the documents
    collections/<tenant>/<name>/passages/<doc>-<hash>.json one document version's passages
    collections/<tenant>/<name>/index/<version>.v<format>-bm25s-<v>/   the index of that version
    collections/<tenant>/<name>/.lock                      held (flock) by whoever changes the collection

A collection's *version* is a hash of what its hits say (its tier and name, each document's content
hash, url, title and date): the index folder is named by it, and so is the collection as an evidence
source, which puts it in the retrieval cache's keys. A writer builds the new version's index under a
temporary name, renames it into place, and only then replaces the manifest (atomically), so a reader
always finds a whole index for the version it read. Old indexes and passages go after the switch; a
reader holding one mapped keeps reading it.

Deployed, the same port would keep the manifest in the table, the passages and built indexes in S3
under the tenant's prefix, and load an index into /tmp: docs/architecture.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError, TooLargeError
from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.bm25 import INDEX_FORMAT, Index, bm25s_version, build_index, load_index, lucene_idf
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.evidence.documents import Kind
from claimcourt.evidence.passages import Passage
from claimcourt.evidence.tiers import tier_for
from claimcourt.models import CORPUS_NAME, TENANT_ID, Tier, corpus_name_problem, utcnow

logger = logging.getLogger(__name__)

BUNDLED = "climate"  # the bundled CLIMATE-FEVER corpus, as every tenant's read-only collection
COLLECTION_NAME = re.compile(CORPUS_NAME)
PASSAGES_FORMAT = 1  # how documents are cut into passages (evidence/passages.py): part of every version
_MANIFEST, _LOCK = "collection.json", ".lock"


def check_name(name: str, field: str = "name") -> str:
    if problem := corpus_name_problem(name):
        raise InvalidRequestError(field, problem)
    return name


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DocumentEntry(_Strict):
    """One document of a collection, as its manifest holds it."""

    id: str = Field(
        description="Stable for what was added (a path, a url, an upload's name): re-adding it replaces it."
    )
    source: str = Field(description="What was added: a file's path, a url, or an upload's file name.")
    url: str = Field(
        description="The locator its passages carry: where it came from (a file: URI, the url fetched, "
        "upload:<file name>), or a fetched page's canonical url on the same host."
    )
    canonical_url: str | None = Field(
        default=None,
        description="An HTML page's canonical url when it is not the locator: what the page says of "
        "itself, kept but not trusted for its citation or tier.",
    )
    title: str
    kind: Kind
    content_hash: str = Field(description="SHA-256 of the document's bytes.")
    size: int = Field(ge=0, description="The document's bytes.")
    published: date | None = None
    pages: int | None = Field(default=None, description="A PDF's pages.")
    passages: int = Field(ge=0)
    added_at: datetime


class CollectionInfo(_Strict):
    """A collection as listed: what it is and what it holds."""

    name: str
    tier: Tier = Field(description="T1 for primary records (filings, statistics); T2 otherwise.")
    bundled: bool = Field(default=False, description="The bundled corpus: every tenant's, read-only.")
    created_at: datetime | None = None
    documents: int
    passages: int
    size: int = Field(default=0, description="The documents' bytes.")
    version: str = Field(
        description="A hash of its content: it changes whenever what a search can return does."
    )


class _Manifest(_Strict):
    name: str
    tier: Tier
    created_at: datetime
    documents: list[DocumentEntry] = Field(default_factory=list)

    def info(self) -> CollectionInfo:
        return CollectionInfo(
            name=self.name,
            tier=self.tier,
            created_at=self.created_at,
            documents=len(self.documents),
            passages=sum(d.passages for d in self.documents),
            size=sum(d.size for d in self.documents),
            version=self.version(),
        )

    def version(self) -> str:
        what = [
            PASSAGES_FORMAT,
            self.name,
            self.tier,
            sorted(
                [d.id, d.content_hash, d.url, d.title, d.published.isoformat() if d.published else None]
                for d in self.documents
            ),
        ]
        return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Prepared:
    """A document read and cut into passages, ready to go into a collection."""

    source: str
    url: str
    title: str
    kind: Kind
    content_hash: str
    size: int
    passages: list[Passage]
    published: date | None = None
    pages: int | None = None
    canonical_url: str | None = None  # what an HTML page says its url is, when that is not `url`

    @property
    def id(self) -> str:
        return document_id(self.source)


def document_id(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()[:12]


Status = Literal["added", "replaced", "unchanged", "skipped"]


@dataclass(frozen=True)
class Outcome:
    """What became of one document: `skipped` ones say why and were not indexed."""

    source: str
    status: Status
    reason: str | None = None
    document: DocumentEntry | None = None


class Searchable(Protocol):
    """An evidence source over a BM25 index, which can be searched together with others (MergedSource)."""

    @property
    def name(self) -> str: ...

    def index(self) -> Index | None:
        """Its index (None: it holds nothing)."""
        ...

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]: ...


class Collections(Protocol):
    """A tenant's document collections (the bundled `climate` among them)."""

    def create(self, tenant: str, name: str, tier: Tier) -> CollectionInfo: ...

    def list_collections(self, tenant: str) -> list[CollectionInfo]: ...

    def get(self, tenant: str, name: str) -> CollectionInfo: ...

    def documents(self, tenant: str, name: str) -> list[DocumentEntry]: ...

    def delete(self, tenant: str, name: str) -> None: ...

    def put(self, tenant: str, name: str, documents: Sequence[Prepared]) -> list[Outcome]: ...

    def remove(self, tenant: str, name: str, document: str) -> DocumentEntry: ...

    def source(self, tenant: str, name: str) -> Searchable: ...

    def sources(self, tenant: str, names: Sequence[str]) -> list[Searchable]:
        """Each named collection's source, for one search of them together (what a run searches)."""
        ...

    def check_searchable(self, tenant: str, names: Sequence[str]) -> None:
        """Raise what `sources` would (NotFoundError for a collection there is not, TooLargeError for
        indexes that cannot be loaded together), loading nothing: a request's check before any spend."""
        ...

    def source_name(self, tenant: str, name: str) -> str:
        """The name `source(tenant, name)` would have, read from the manifest alone: no index loaded."""
        ...


@runtime_checkable
class Uploads(Protocol):
    """Where documents reach a collection by themselves (a stack: S3, then the index function), not
    through the API's request: S3Collections. The records are s3_collections.UploadRecord."""

    def presign(self, tenant: str, name: str, filename: str) -> Any: ...

    def stage(self, tenant: str, name: str, filename: str, data: bytes) -> Any: ...

    def uploads(self, tenant: str, name: str) -> list[Any]: ...

    def upload_origin(self) -> str:
        """Where a presigned POST sends the browser (the console's policy lets it connect there)."""
        ...


# ---------------------------------------------------------------- searching one collection


def collection_source_name(collection: str, version: str) -> str:
    return f"{collection}@{version}"


def merged_name(names: Sequence[str]) -> str:
    return "collections:" + "+".join(names)


def page_url(url: str, page: int | None) -> str:
    """A passage's url: its document's, and for a page of a PDF `#page=N`, which PDF viewers open at."""
    return f"{url}#page={page}" if page is not None and "#" not in url else url


class CollectionSource:
    """One version of a collection, searched by BM25. Its name carries the version: a changed
    collection is another source to the retrieval cache."""

    def __init__(self, collection: str, version: str, index: Index | None) -> None:
        self.collection = collection
        self.version = version
        self._index = index  # None: the collection holds no documents

    @property
    def name(self) -> str:
        return collection_source_name(self.collection, self.version)

    def index(self) -> Index | None:
        return self._index

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        return search_together([self], query, limit=limit, as_of=as_of)


SHARE = 0.6  # of a search's passages, the most one source takes while another has some to offer


class MergedSource:
    """Several collections searched as one (search_together); its name is theirs, versions and all."""

    def __init__(self, sources: Sequence[Searchable]) -> None:
        if not sources:
            raise ValueError("no sources to merge")
        self.sources = list(sources)

    @property
    def name(self) -> str:
        return merged_name([s.name for s in self.sources])

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        return search_together(self.sources, query, limit=limit, as_of=as_of)


def check_corpora(collections: Collections | None, tenant: str, names: Sequence[str]) -> None:
    """Every collection a request names is the tenant's (or the bundled corpus), and they can be searched
    together: InvalidRequestError on the first that is not, or saying why not, before anything is stored
    or spent."""
    if not names:
        return
    if collections is None:
        raise InvalidRequestError("corpora", "document collections are not available on this deployment")
    try:
        collections.check_searchable(tenant, names)
    except (NotFoundError, TooLargeError) as exc:
        raise InvalidRequestError("corpora", str(exc)) from None


def searched_together(collections: Collections, tenant: str, names: Sequence[str]) -> EvidenceSource:
    """The source a run naming these collections searches: the bundled corpus alone is itself (the
    default offline source, prompts and all); anything else, the collections merged."""
    if list(names) == [BUNDLED]:
        return collections.source(tenant, BUNDLED)
    return MergedSource(collections.sources(tenant, names))


def searched_name(collections: Collections, tenant: str, names: Sequence[str]) -> str:
    """The name `searched_together` would give its source, from the manifests alone: the stages that
    only tell the prompts what is searched need not load (or, on a stack, download) an index."""
    if list(names) == [BUNDLED]:
        return collections.source_name(tenant, BUNDLED)
    return merged_name([collections.source_name(tenant, name) for name in names])


def search_together(
    sources: Sequence[Searchable], query: str, *, limit: int, as_of: date | None = None
) -> list[Hit]:
    """The query's best passages across the sources, ranked by BM25 with document frequencies summed
    over all of them, so that a score means the same in each (a word is rare or common in all the
    collections together, not in the smallest one). No source takes more than SHARE of the passages
    while another has passages to offer; when none has, the rest are filled by score. A backtest's
    `as_of` leaves out passages published after it (undated ones stay: retrieve.py scrubs them)."""
    indexes = [
        (order, index) for order, source in enumerate(sources) if (index := source.index()) is not None
    ]
    if limit <= 0 or not indexes:
        return []
    tokens = indexes[0][1].tokens(query)  # every index is tokenised alike (bm25.py)
    documents, counts = 0, [0] * len(tokens)
    for _, index in indexes:
        held, found = index.frequencies(tokens)
        documents += held
        counts = [a + b for a, b in zip(counts, found, strict=True)]
    if not any(counts):
        return []
    idf = [lucene_idf(count, documents) for count in counts]
    offered: list[tuple[float, int, int, Hit]] = []
    for order, index in indexes:
        # A backtest leaves out documents published after its date: look further down the ranking for them.
        ranked = index.rank_weighted(tokens, idf, limit if as_of is None else limit * 5)
        hits = [(index.hits[i], score) for i, score in ranked]
        if as_of is not None:
            hits = [(h, score) for h, score in hits if h.published is None or h.published <= as_of][:limit]
        offered += [(score, rank, order, hit) for rank, (hit, score) in enumerate(hits)]
    offered.sort(key=lambda o: (-o[0], o[1], o[2]))  # ties: the better-ranked, then the earlier source
    cap = max(1, int(limit * SHARE)) if len(sources) > 1 else limit
    chosen: list[int] = []
    held_back: list[int] = []
    per_source = [0] * len(sources)
    for position, (_, _, order, _) in enumerate(offered):
        if len(chosen) == limit:
            break
        if per_source[order] < cap:
            per_source[order] += 1
            chosen.append(position)
        else:
            held_back.append(position)
    chosen += held_back[: limit - len(chosen)]  # no other source had more to offer
    return [offered[position][3] for position in sorted(chosen)]


# ---------------------------------------------------------------- the data directory


class LocalCollections:
    """Collections as files under `root` (the data directory's `collections/`); the bundled corpus
    from `bundled` (None: no `climate` collection, e.g. in a test)."""

    def __init__(self, root: Path, bundled: CorpusSource | None = None) -> None:
        self.root = root
        self._bundled = bundled
        self._indexes: OrderedDict[Path, Index] = OrderedDict()
        self._indexes_lock = threading.Lock()
        self._manifests: dict[Path, tuple[tuple[int, int, int], _Manifest, str]] = {}

    # ------------------------------------------------------------ the collections themselves

    def create(self, tenant: str, name: str, tier: Tier) -> CollectionInfo:
        check_name(name)
        if name == BUNDLED:
            raise ConflictError(
                f"{BUNDLED} is the bundled corpus's name: choose another", "collection_exists"
            )
        folder = self._folder(tenant, name)
        folder.mkdir(parents=True, exist_ok=True)
        with self._locked(folder):
            if (folder / _MANIFEST).exists():
                raise ConflictError(f"a collection named {name} already exists", "collection_exists")
            manifest = _Manifest(name=name, tier=tier, created_at=utcnow())
            self._write_manifest(folder, manifest)
        return manifest.info()

    def list_collections(self, tenant: str) -> list[CollectionInfo]:
        found = [self._bundled_info()] if self._bundled is not None else []
        base = self._tenant_root(tenant)
        if base.is_dir():
            folders = (p for p in base.iterdir() if p.is_dir() and COLLECTION_NAME.fullmatch(p.name))
            for folder in sorted(folders):
                manifest = self._read_manifest(folder)
                if manifest is not None:
                    found.append(manifest.info())
        return found

    def get(self, tenant: str, name: str) -> CollectionInfo:
        if name == BUNDLED and self._bundled is not None:
            return self._bundled_info()
        return self._manifest(tenant, name).info()

    def documents(self, tenant: str, name: str) -> list[DocumentEntry]:
        if name == BUNDLED and self._bundled is not None:
            return []
        return self._manifest(tenant, name).documents

    def delete(self, tenant: str, name: str) -> None:
        self._writable(name)
        folder = self._folder(tenant, name)
        with self._locked(folder):
            if self._read_manifest(folder) is None:
                raise NotFoundError(f"no collection {name}")
            # Out of sight in one step; then away. A search holding its index mapped reads on.
            gone = folder.parent / f".deleted-{name}-{uuid.uuid4().hex[:8]}"
            os.rename(folder, gone)
        shutil.rmtree(gone, ignore_errors=True)

    # ------------------------------------------------------------ documents

    def put(self, tenant: str, name: str, documents: Sequence[Prepared]) -> list[Outcome]:
        """Add or replace documents, as one new version of the collection."""
        self._writable(name)
        folder = self._folder(tenant, name)
        outcomes: list[Outcome] = []
        with self._locked(folder):
            before = self._manifest(tenant, name)
            entries = {d.id: d for d in before.documents}
            by_content = {d.content_hash: d for d in before.documents}
            fresh: dict[str, list[Passage]] = {}  # what is written now need not be read back to index it
            for prepared in documents:
                entry, reason = new_entry(entries, by_content, prepared)
                if entry is None:  # another writer put the same bytes in meanwhile
                    outcomes.append(Outcome(prepared.source, "unchanged", reason))
                    continue
                path = self._passages_path(folder, entry)
                _write_atomically(path, passages_json(prepared.passages))
                fresh[entry.id] = prepared.passages
                replaced = entry.id in entries
                entries[entry.id] = by_content[entry.content_hash] = entry
                outcomes.append(Outcome(prepared.source, "replaced" if replaced else "added", None, entry))
            if fresh:
                after = before.model_copy(update={"documents": sorted(entries.values(), key=lambda d: d.id)})
                self._switch(folder, after, fresh)
        return outcomes

    def remove(self, tenant: str, name: str, document: str) -> DocumentEntry:
        """Take one document out: named by its id, what was added (a path, a url), its url or file name."""
        self._writable(name)
        folder = self._folder(tenant, name)
        with self._locked(folder):
            before = self._manifest(tenant, name)
            gone = one_document(before, document)
            after = before.model_copy(update={"documents": [d for d in before.documents if d is not gone]})
            self._switch(folder, after)
        return gone

    # ------------------------------------------------------------ searching

    def source(self, tenant: str, name: str) -> Searchable:
        if name == BUNDLED and self._bundled is not None:
            return self._bundled
        folder = self._folder(tenant, name)
        for attempt in (1, 2):
            read = self._current(folder)
            if read is None:
                raise NotFoundError(f"no collection {name}")
            manifest, version = read
            if not manifest.documents:
                return CollectionSource(name, version, None)
            try:
                return CollectionSource(name, version, self._index(folder, manifest, version))
            except FileNotFoundError:  # a writer replaced this version while it was being read: once more
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def sources(self, tenant: str, names: Sequence[str]) -> list[Searchable]:
        return [self.source(tenant, name) for name in names]  # the data directory: no cap but the disk

    def check_searchable(self, tenant: str, names: Sequence[str]) -> None:
        for name in names:
            self.source_name(tenant, name)

    def source_name(self, tenant: str, name: str) -> str:
        if name == BUNDLED and self._bundled is not None:
            return self._bundled.name
        read = self._current(self._folder(tenant, name))
        if read is None:
            raise NotFoundError(f"no collection {name}")
        return collection_source_name(name, read[1])

    def _index(self, folder: Path, manifest: _Manifest, version: str) -> Index:
        where = self._index_folder(folder, version)
        with self._indexes_lock:
            index = self._indexes.get(where)
            if index is not None:
                self._indexes.move_to_end(where)
                return index
        if not where.is_dir():  # kept by another bm25s or index format, or deleted: built again
            with self._locked(folder):
                if not where.is_dir():
                    self._build(folder, manifest, where)
        try:
            index = load_index(where)
        except (OSError, ValueError) as exc:
            if isinstance(exc, FileNotFoundError) and not where.exists():
                raise
            logger.warning("rebuilding the index of %s: it could not be loaded (%s)", folder, exc)
            with self._locked(folder):
                shutil.rmtree(where, ignore_errors=True)
                self._build(folder, manifest, where)
            index = load_index(where)
        with self._indexes_lock:
            self._indexes[where] = index
            while len(self._indexes) > 16:  # mapped, so cheap to hold; but a long serve sees many
                self._indexes.popitem(last=False)
        return index

    # ------------------------------------------------------------ the files

    def _folder(self, tenant: str, name: str) -> Path:
        return self._tenant_root(tenant) / check_name(name)

    def _tenant_root(self, tenant: str) -> Path:
        if not re.fullmatch(TENANT_ID, tenant):  # a path segment, as a name is: neither may climb out
            raise InvalidRequestError("tenant", f"{tenant!r} is not a tenant")
        return self.root / tenant

    def _writable(self, name: str) -> None:
        if name == BUNDLED and self._bundled is not None:
            raise ConflictError(
                f"{BUNDLED} is the bundled corpus: it cannot be changed", "collection_read_only"
            )

    def _bundled_info(self) -> CollectionInfo:
        assert self._bundled is not None
        return bundled_info(self._bundled)

    def _manifest(self, tenant: str, name: str) -> _Manifest:
        manifest = self._read_manifest(self._folder(tenant, name))
        if manifest is None:
            raise NotFoundError(f"no collection {name}")
        return manifest

    def _read_manifest(self, folder: Path) -> _Manifest | None:
        read = self._current(folder)
        return read[0] if read is not None else None

    def _current(self, folder: Path) -> tuple[_Manifest, str] | None:
        """The manifest and its version, parsed once per change of the file (a run's every retrieval
        reads it; one of thousands of documents takes tens of milliseconds to parse and hash)."""
        path = folder / _MANIFEST
        try:
            stat = path.stat()
            signature = (stat.st_ino, stat.st_mtime_ns, stat.st_size)  # a replaced file is another inode
            known = self._manifests.get(path)
            if known is not None and known[0] == signature:
                return known[1], known[2]
            manifest = _Manifest.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        version = manifest.version()
        self._manifests[path] = (signature, manifest, version)  # read and written whole: threads may share
        return manifest, version

    def _write_manifest(self, folder: Path, manifest: _Manifest) -> None:
        _write_atomically(folder / _MANIFEST, manifest.model_dump_json(indent=1).encode(), sync=True)

    @contextlib.contextmanager
    def _locked(self, folder: Path) -> Iterator[None]:
        """One writer at a time per collection, across processes (and threads: a lock file each)."""
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / _LOCK, "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _passages_path(self, folder: Path, entry: DocumentEntry) -> Path:
        return folder / "passages" / f"{entry.id}-{entry.content_hash[:16]}.json"

    def _index_folder(self, folder: Path, version: str) -> Path:
        return folder / "index" / f"{version}.v{INDEX_FORMAT}-bm25s-{bm25s_version()}"

    def _switch(self, folder: Path, after: _Manifest, fresh: dict[str, list[Passage]] | None = None) -> None:
        """Make `after` the collection: its index built and in place first, then the manifest; then
        what it no longer uses goes. Called with the collection locked."""
        version = after.version()
        if after.documents:
            where = self._index_folder(folder, version)
            if not where.is_dir():
                self._build(folder, after, where, fresh or {})
        self._write_manifest(folder, after)
        kept = {self._passages_path(folder, d).name for d in after.documents}
        for old in (folder / "passages").glob("*.json"):
            if old.name not in kept:
                old.unlink(missing_ok=True)
        for old in (folder / "index").glob("*"):
            if not old.name.startswith(f"{version}.") and not old.name.startswith("."):
                shutil.rmtree(old, ignore_errors=True)

    def _build(
        self, folder: Path, manifest: _Manifest, where: Path, fresh: dict[str, list[Passage]] | None = None
    ) -> None:
        """Index the manifest's passages (those in `fresh` as given, the others from their files)."""

        def rows(entry: DocumentEntry) -> list[tuple[str, int | None]]:
            given = (fresh or {}).get(entry.id)
            if given is not None:
                return [(p.text, p.page) for p in given]
            return [
                (text, page) for text, page in json.loads(self._passages_path(folder, entry).read_bytes())
            ]

        build_collection_index(manifest, rows).save(where)


def build_collection_index(
    manifest: _Manifest, rows: Callable[[DocumentEntry], list[tuple[str, int | None]]]
) -> Index:
    """A collection's BM25 index: each document's passages (`rows`: text and page), each indexed with
    its document's title before it, its hit carrying the document's provenance and tier."""
    hits: list[Hit] = []
    texts: list[str] = []
    for entry in manifest.documents:
        tier: Tier = "T1" if "T1" in (manifest.tier, tier_for(entry.url)) else "T2"
        for text, page in rows(entry):
            hits.append(
                Hit(text, entry.title, page_url(entry.url, page), entry.published, page, tier, manifest.name)
            )
            # The title with each passage: a passage often names its subject only as "the company".
            texts.append(f"{entry.title}. {text}")
    return build_index(texts, hits)


def passages_json(passages: Sequence[Passage]) -> bytes:
    """One document version's passages as kept: [[text, page], …]."""
    return json.dumps([[p.text, p.page] for p in passages]).encode()


def one_document(manifest: _Manifest, document: str) -> DocumentEntry:
    """The one document `document` names (its id, what was added, its url or file name)."""
    matches = [d for d in manifest.documents if document in names_of(d)]
    if not matches:
        raise NotFoundError(f"no document {document} in collection {manifest.name}")
    if len(matches) > 1:
        raise InvalidRequestError(
            "document",
            f"{document} names {len(matches)} documents: use one's id ({', '.join(d.id for d in matches)})",
        )
    return matches[0]


def bundled_info(bundled: CorpusSource) -> CollectionInfo:
    return CollectionInfo(
        name=BUNDLED,
        tier="T2",
        bundled=True,
        documents=0,
        passages=bundled.passages(),
        version=bundled.digest,
    )


def new_entry(
    entries: dict[str, DocumentEntry], by_content: dict[str, DocumentEntry], prepared: Prepared
) -> tuple[DocumentEntry | None, str | None]:
    """The manifest entry for a prepared document, or None and why nothing changes (every adapter's rule)."""
    same = entries.get(prepared.id)
    if same is not None and same.content_hash == prepared.content_hash:
        return None, None
    twin = by_content.get(prepared.content_hash)
    if twin is not None and entries.get(twin.id) is twin:
        return None, f"same content as {twin.source}, already in"
    return DocumentEntry(
        id=prepared.id,
        source=prepared.source,
        url=prepared.url,
        canonical_url=prepared.canonical_url,
        title=prepared.title,
        kind=prepared.kind,
        content_hash=prepared.content_hash,
        size=prepared.size,
        published=prepared.published,
        pages=prepared.pages,
        passages=len(prepared.passages),
        added_at=utcnow(),
    ), None


def names_of(entry: DocumentEntry) -> set[str]:
    return {entry.id, entry.source, entry.url, Path(entry.source).name, entry.url.rsplit("/", 1)[-1]}


def _write_atomically(path: Path, data: bytes, *, sync: bool = False) -> None:
    """Whole or not at all (written beside it, then renamed over it). `sync`: on disk before the rename
    (the manifest; a document's passages are not synced one by one, which cost ~5 ms a document: a
    power cut may leave one short, and the build that reads it back says which)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.parent / f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
    try:
        with open(scratch, "wb") as file:
            file.write(data)
            if sync:
                file.flush()
                os.fsync(file.fileno())
        os.replace(scratch, path)
    finally:
        scratch.unlink(missing_ok=True)
