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
import shutil
import threading
from datetime import date
from pathlib import Path
from urllib.parse import quote

from claimcourt.evidence.base import Hit
from claimcourt.evidence.bm25 import INDEX_FORMAT, Index, bm25s_version, build_index, load_index

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


def _build_index(path: Path) -> Index:
    import gzip

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
    return build_index(texts, hits)


def corpus_digest(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()[:16]


def _family(path: Path) -> str:
    """The start of the name of every index kept of this corpus file (the path's hash tells two files
    of one name apart), so that its older indexes can be found."""
    return f"{path.name}.{hashlib.sha256(str(path).encode()).hexdigest()[:8]}."


def index_folder(index_dir: Path, path: Path, digest: str) -> Path:
    """Where the index of this corpus file, with this content, is kept."""
    return index_dir / f"{_family(path)}{digest}.v{INDEX_FORMAT}-bm25s-{bm25s_version()}"


def _kept_or_built(path: Path, digest: str, index_dir: Path) -> Index:
    folder = index_folder(index_dir, path, digest)
    if folder.is_dir():
        try:
            return load_index(folder)
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
_INDEX_CACHE: dict[tuple[Path, str], Index] = {}
_INDEX_LOCK = threading.Lock()


def _index_for(path: Path, index_dir: Path | None = None) -> Index:
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
        self._index: Index | None = None

    def _ready(self) -> Index:
        index = self._index
        if index is None:
            index = self._index = _index_for(self._path, self._index_dir)
        return index

    def warm(self) -> None:
        """Load or build the index now (it is otherwise done by the first search)."""
        self._ready()

    @property
    def digest(self) -> str:
        """A hash of the corpus file's content."""
        return corpus_digest(self._path)

    def passages(self) -> int:
        return len(self._ready().hits)

    def index(self) -> Index:
        """Its BM25 index, to be searched together with collections (evidence/collections.py)."""
        return self._ready()

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        # Wikipedia sentences carry no date, so as_of cannot filter them: every hit has published=None.
        if limit <= 0:
            return []
        index = self._ready()
        return [index.hits[i] for i, _ in index.rank(query, limit)]
