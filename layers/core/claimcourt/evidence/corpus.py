"""The embedded evidence source: BM25 over CLIMATE-FEVER's Wikipedia sentences, bundled with the package.

bm25s, PyStemmer and numpy are imported only when the index is first needed: they cost about 100 ms and
are absent from the Lambda layer. Importing this module must stay cheap, so other heavy imports wait too.

Given a folder (the local runtime gives it one under the data directory), the built index is kept
there, in a folder named by the corpus file's SHA-256, the index format and the bm25s version, and
later processes load it memory-mapped instead of building it again: a changed corpus has another
name, so it is built afresh (and the index of the old one removed). The hits are kept as JSON lines
and read only when a search returns them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import shutil
import threading
import uuid
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

from claimcourt.evidence.base import Hit

logger = logging.getLogger(__name__)

CORPUS_FILE = "climate_fever_wikipedia.jsonl.gz"
# MediaWiki leaves these unescaped in its own article URLs; everything else ("?", "'", non-ASCII) is quoted.
_WIKI_SAFE = ";:@$!*(),/~"


def wikipedia_url(article: str) -> str:
    """English Wikipedia URL of an article title, in Wikipedia's own form (spaces as underscores)."""
    return "https://en.wikipedia.org/wiki/" + quote(article.replace(" ", "_"), safe=_WIKI_SAFE)


def bundled_corpus_path() -> Path:
    from importlib.resources import files  # ~15 ms to import: only when a source is constructed

    # The package ships as plain files (wheel, Lambda layer, source tree), never zipped: this is a real path.
    return Path(str(files("claimcourt.evidence").joinpath("data", CORPUS_FILE)))


# What a kept index folder holds beside bm25s's own files; bump when that changes.
INDEX_FORMAT = 1
_HITS, _OFFSETS = "hits.jsonl", "hits.offsets.npy"


class _Hits(Protocol):
    def __getitem__(self, position: int, /) -> Hit: ...

    def __len__(self) -> int: ...


class _StoredHits:
    """The hits of a kept index, one JSON line each, read from a memory map when a search returns them."""

    def __init__(self, folder: Path) -> None:
        import numpy as np

        with open(folder / _HITS, "rb") as file:
            self._lines = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        self._offsets = np.load(folder / _OFFSETS, mmap_mode="r")
        if int(self._offsets[-1]) != len(self._lines):
            raise ValueError(f"{folder / _HITS}: offsets do not match the file")

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, position: int) -> Hit:
        if not 0 <= position < len(self):
            raise IndexError(position)
        start, end = int(self._offsets[position]), int(self._offsets[position + 1])
        text, title, url = json.loads(self._lines[start:end])  # slicing does not seek: threads may share
        return Hit(text=text, title=title, url=url)


class _Index:
    """A built BM25 index and the hits it ranks; read-only once built, so threads can share it."""

    def __init__(self, hits: _Hits, retriever: Any, tokenize_query: Callable[[str], list[str]]) -> None:
        self.hits = hits
        self._retriever = retriever
        self._tokenize_query = tokenize_query

    def save(self, folder: Path) -> None:
        """Into `folder`, made whole or not at all: written beside it, then renamed into place."""
        import numpy as np

        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = folder.parent / f".{folder.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        try:
            self._retriever.save(str(scratch), show_progress=False)
            offsets = [0]
            with open(scratch / _HITS, "wb") as lines:
                for position in range(len(self.hits)):
                    hit = self.hits[position]
                    line = json.dumps([hit.text, hit.title, hit.url], ensure_ascii=False).encode() + b"\n"
                    lines.write(line)
                    offsets.append(offsets[-1] + len(line))
            np.save(scratch / _OFFSETS, np.array(offsets, dtype=np.int64))
            os.rename(scratch, folder)  # fails if another process got there first: theirs is as good
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def rank(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(position in hits, score) of the best `limit` documents with a positive score, best first."""
        tokens = self._tokenize_query(query)
        # Query words absent from the corpus are dropped here; bm25s's get_scores would fail on an empty list.
        token_ids = self._retriever.get_tokens_ids(tokens)
        if not token_ids:
            return []
        scores = self._retriever.get_scores_from_ids(token_ids)
        # A stable sort on the negated scores breaks ties by corpus order, so results are reproducible.
        order = (-scores).argsort(kind="stable")[:limit]
        return [(int(i), float(scores[i])) for i in order if scores[i] > 0]


def _bm25s() -> tuple[Any, Any]:
    try:
        import bm25s
        import Stemmer
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ImportError(
            "the embedded corpus needs bm25s and PyStemmer: pip install 'claimcourt[local]'"
        ) from exc
    return bm25s, Stemmer


def _query_tokenizer(bm25s: Any, stemmer: Any) -> Callable[[str], list[str]]:
    # PyStemmer keeps internal state and must not be called from two threads at once.
    stemmer_lock = threading.Lock()

    def tokenize_query(query: str) -> list[str]:
        # The corpus's own tokenizer, stopwords and stemmer, so query tokens meet the index's vocabulary.
        with stemmer_lock:
            tokens: list[str] = bm25s.tokenize(
                query, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
            )[0]
        return tokens

    return tokenize_query


def _build_index(path: Path) -> _Index:
    import gzip

    bm25s, Stemmer = _bm25s()
    hits: list[Hit] = []
    texts: list[str] = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            title = row["article"].replace("_", " ")
            hits.append(Hit(text=row["text"], title=title, url=wikipedia_url(title)))
            # Sentences often name their subject only as "it" or "the species": indexing the title with the
            # sentence lifts gold-sentence recall@5 on the CLIMATE-FEVER dev claims from 0.65 to 0.68.
            texts.append(f"{title}. {row['text']}")
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
    )
    return _Index(hits, retriever, _query_tokenizer(bm25s, stemmer))


def _load_index(folder: Path) -> _Index:
    bm25s, Stemmer = _bm25s()
    retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
    return _Index(_StoredHits(folder), retriever, _query_tokenizer(bm25s, Stemmer.Stemmer("english")))


def corpus_digest(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()[:16]


def _family(path: Path) -> str:
    """The start of the name of every index kept of this corpus file (the path's hash tells two files
    of one name apart), so that its older indexes can be found."""
    return f"{path.name}.{hashlib.sha256(str(path).encode()).hexdigest()[:8]}."


def index_folder(index_dir: Path, path: Path, digest: str) -> Path:
    """Where the index of this corpus file, with this content, is kept."""
    from bm25s import __version__ as bm25s_version

    return index_dir / f"{_family(path)}{digest}.v{INDEX_FORMAT}-bm25s-{bm25s_version}"


def _kept_or_built(path: Path, digest: str, index_dir: Path) -> _Index:
    folder = index_folder(index_dir, path, digest)
    if folder.is_dir():
        try:
            return _load_index(folder)
        except Exception as exc:  # damaged or partial: build it again
            logger.warning("rebuilding the BM25 index: %s could not be loaded (%s)", folder, exc)
            shutil.rmtree(folder, ignore_errors=True)
    index = _build_index(path)
    try:
        index.save(folder)
    except OSError as exc:  # read-only, full, or another process saved it first: this one still serves
        if not folder.is_dir():
            logger.warning("the BM25 index could not be kept in %s (%s)", index_dir, exc)
    for older in index_dir.glob(f"{_family(path)}*"):  # this file's indexes of earlier contents
        if older != folder and older.is_dir():
            shutil.rmtree(older, ignore_errors=True)
    return index


# One index per corpus content per process: the corpus is static.
_INDEX_CACHE: dict[tuple[Path, str], _Index] = {}
_INDEX_LOCK = threading.Lock()


def _index_for(path: Path, index_dir: Path | None = None) -> _Index:
    key = (path, corpus_digest(path))
    index = _INDEX_CACHE.get(key)
    if index is None:
        # Retrieval tasks run in threads: the first one here builds, the others wait rather than build again.
        with _INDEX_LOCK:
            index = _INDEX_CACHE.get(key)
            if index is None:
                built = _build_index(path) if index_dir is None else _kept_or_built(path, key[1], index_dir)
                index = _INDEX_CACHE[key] = built
    return index


class CorpusSource:
    """EvidenceSource over the bundled CLIMATE-FEVER Wikipedia sentences (or another file in that format)."""

    name = "climate-fever-wikipedia"

    def __init__(self, path: Path | None = None, index_dir: Path | None = None) -> None:
        """`index_dir`: where the built index is kept for later processes (None: built in each process)."""
        self._path = (path or bundled_corpus_path()).resolve()
        if not self._path.is_file():
            raise FileNotFoundError(f"evidence corpus not found: {self._path}")
        self._index_dir = index_dir
        self._index: _Index | None = None

    def _ready(self) -> _Index:
        index = self._index
        if index is None:
            index = self._index = _index_for(self._path, self._index_dir)
        return index

    def warm(self) -> None:
        """Load or build the index now (it is otherwise done by the first search)."""
        self._ready()

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        # Wikipedia sentences carry no date, so as_of cannot filter them: every hit has published=None.
        if limit <= 0:
            return []
        index = self._ready()
        return [index.hits[i] for i, _ in index.rank(query, limit)]
