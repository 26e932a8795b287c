"""Put files, folders (recursively) and urls into a collection.

Each document is read (evidence/documents.py), cut into passages (evidence/passages.py) and put into the
collection with the others as one new version. One that cannot be read is skipped with its reason and
the rest go in: `Outcome`s say what became of each, in the order they were named. A document already
in the collection with the same bytes is not read again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import urlparse

from claimcourt.evidence.collections import Collections, DocumentEntry, Outcome, Prepared, document_id
from claimcourt.evidence.documents import (
    MAX_DOCUMENT_BYTES,
    Document,
    Kind,
    Unreadable,
    extract,
    kind_of,
    too_big,
    unsupported,
)
from claimcourt.evidence.fetch import Fetched, fetch, is_url
from claimcourt.evidence.passages import passages

Fetch = Callable[[str], Fetched]


@dataclass(frozen=True)
class _Item:
    """One document to read: what the user named it by, and how to get its bytes."""

    source: str
    name: str  # its file name (a url's last path segment)
    read: Callable[[], tuple[bytes, Kind, str]]  # its bytes, its kind and the url its passages carry


def ingest(
    collections: Collections,
    tenant: str,
    collection: str,
    targets: Sequence[str],
    *,
    fetcher: Fetch = fetch,
    on_read: Callable[[str, str], None] | None = None,
) -> list[Outcome]:
    """Read every target (a file, a folder, an http(s) url) into the collection. `on_read(source, note)`
    hears of each document as it is read or skipped, before the collection takes them all."""
    held = Held(collections.documents(tenant, collection))
    read: list[Prepared] = []
    outcomes: list[Outcome | None] = []  # None: read, its outcome the collection's
    for item in _items(targets, fetcher):
        done = item if isinstance(item, Outcome) else _prepare(item, held)
        if isinstance(done, Prepared):
            read.append(done)
            outcomes.append(None)
            note = f"read: {count(len(done.passages), 'passage')}" + (
                f" from {count(done.pages, 'page')}" if done.pages else ""
            )
        else:
            outcomes.append(done)
            note = done.status if done.reason in (None, done.status) else f"{done.status}: {done.reason}"
        if on_read is not None:
            on_read(outcomes[-1].source if outcomes[-1] else read[-1].source, note)
    put = iter(collections.put(tenant, collection, read) if read else [])
    return [outcome if outcome is not None else next(put) for outcome in outcomes]


class Held:
    """The documents a collection holds, by id and by content: what need not be read again."""

    def __init__(self, documents: Sequence[DocumentEntry]) -> None:
        self.by_id = {d.id: d for d in documents}
        self.by_content = {d.content_hash: d for d in documents}

    def unchanged(self, source: str, content_hash: str) -> Outcome | None:
        same = self.by_id.get(document_id(source))
        if same is not None and same.content_hash == content_hash:
            return Outcome(source, "unchanged", None, same)
        twin = self.by_content.get(content_hash)
        if twin is not None:
            return Outcome(source, "unchanged", f"same content as {twin.source}, already in", twin)
        return None


def count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _items(targets: Sequence[str], fetcher: Fetch) -> Iterator[_Item | Outcome]:
    for target in targets:
        if is_url(target):
            yield _url(target, fetcher)
            continue
        path = Path(target).expanduser()
        if path.is_dir():
            yield from _folder(path)
        elif path.is_file():
            yield _file(path)
        elif "://" in target:
            yield Outcome(target, "skipped", "only http and https urls can be fetched")
        else:
            yield Outcome(target, "skipped", "no such file or folder")


def _folder(folder: Path) -> Iterator[_Item | Outcome]:
    """Every file under the folder, in name order; hidden files and folders (a dot first) are left out,
    as the operating system hides them. A file of a kind that cannot be read is named as skipped."""
    for root, folders, files in os.walk(folder):
        folders[:] = sorted(f for f in folders if not f.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                yield _file(Path(root) / name)


def _url(url: str, fetcher: Fetch) -> _Item:
    return _Item(url, PurePosixPath(urlparse(url).path).name or url, lambda: _fetched(url, fetcher))


def _file(path: Path) -> _Item | Outcome:
    source = str(path.resolve())
    kind = kind_of(path.name)
    if kind is None:
        return Outcome(source, "skipped", unsupported(path.suffix or "no extension"))
    return _Item(source, path.name, lambda: (_read_file(path), kind, path.resolve().as_uri()))


def _read_file(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_DOCUMENT_BYTES:  # said before a byte is read
            raise Unreadable(too_big(size))
        return path.read_bytes()
    except OSError as exc:
        raise Unreadable(f"cannot be read ({exc.strerror or exc})") from exc


def _fetched(url: str, fetcher: Fetch) -> tuple[bytes, Kind, str]:
    got = fetcher(url)
    kind = kind_of(PurePosixPath(urlparse(got.url).path).name, got.media_type)
    if kind is None:
        raise Unreadable(unsupported(got.media_type or "no media type"))
    return got.data, kind, got.url


def _prepare(item: _Item, held: Held) -> Prepared | Outcome:
    try:
        data, kind, url = item.read()
        if (unchanged := held.unchanged(item.source, hashlib.sha256(data).hexdigest())) is not None:
            return unchanged  # not read again
        document = extract(item.name, data, kind)
    except Unreadable as exc:
        return Outcome(item.source, "skipped", exc.reason)
    return prepared(item.source, url, document, data)


def prepared(source: str, url: str, document: Document, data: bytes) -> Prepared:
    """A read document, cut into passages. Its passages carry `url`, where it came from: a page may
    name any canonical url (a saved or uploaded page that says it is www.cdc.gov's would be cited as
    the CDC's, and tiered T1 by that url's rules), so a fetched page's canonical url is its locator
    only on the host it was fetched from; otherwise it is kept as `canonical_url`, and no more."""
    canonical = document.url if document.url and document.url != url else None
    trusted = canonical is not None and _same_host(canonical, url)
    return Prepared(
        source=source,
        url=canonical if canonical is not None and trusted else url,
        canonical_url=None if trusted else canonical,
        title=document.title,
        kind=document.kind,
        content_hash=hashlib.sha256(data).hexdigest(),
        size=len(data),
        passages=passages(document.sections),
        published=document.published,
        pages=document.pages,
    )


def _same_host(canonical: str, fetched: str) -> bool:
    """Both http(s) urls of one host (a leading www. aside): the site's own preferred address for a page."""

    def host(url: str) -> str | None:
        parsed = urlparse(url)
        name = parsed.hostname if parsed.scheme in ("http", "https") else None
        return name.removeprefix("www.") if name else None

    return host(fetched) is not None and host(canonical) == host(fetched)


def read_upload(name: str, data: bytes, media_type: str | None = None) -> Prepared:
    """One uploaded document (the HTTP API's), read and cut. Raises Unreadable. Its url names the
    upload, since there is no file to point to."""
    kind = kind_of(name, media_type)
    if kind is None:
        raise Unreadable(unsupported(PurePosixPath(name).suffix or "no extension"))
    return prepared(name, f"upload:{name}", extract(name, data, kind), data)
