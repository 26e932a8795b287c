"""The embedded evidence source: BM25 over CLIMATE-FEVER's Wikipedia sentences, bundled with the package.

bm25s, PyStemmer and numpy are imported only when the index is first built: they cost a few hundred ms and
are absent from the Lambda layer. Importing this module must stay cheap, so other heavy imports wait too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from claimcourt.evidence.base import Hit

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


class _Index:
    """A built BM25 index and the hits it ranks; read-only once built, so threads can share it."""

    def __init__(self, hits: list[Hit], retriever: Any, tokenize_query: Callable[[str], list[str]]) -> None:
        self.hits = hits
        self._retriever = retriever
        self._tokenize_query = tokenize_query

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


def _build_index(path: Path) -> _Index:
    import gzip
    import json

    try:
        import bm25s
        import Stemmer
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ImportError(
            "the embedded corpus needs bm25s and PyStemmer: pip install 'claimcourt[local]'"
        ) from exc

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
    # PyStemmer keeps internal state and must not be called from two threads at once.
    stemmer_lock = threading.Lock()

    def tokenize_query(query: str) -> list[str]:
        # The corpus's own tokenizer, stopwords and stemmer, so query tokens meet the index's vocabulary.
        with stemmer_lock:
            tokens: list[str] = bm25s.tokenize(
                query, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
            )[0]
        return tokens

    return _Index(hits, retriever, tokenize_query)


# One index per corpus file per process: the corpus is static and building it takes a second or so.
_INDEX_CACHE: dict[Path, _Index] = {}
_INDEX_LOCK = threading.Lock()


def _index_for(path: Path) -> _Index:
    index = _INDEX_CACHE.get(path)
    if index is None:
        # Retrieval tasks run in threads: the first one here builds, the others wait rather than build again.
        with _INDEX_LOCK:
            index = _INDEX_CACHE.get(path)
            if index is None:
                index = _INDEX_CACHE[path] = _build_index(path)
    return index


class CorpusSource:
    """EvidenceSource over the bundled CLIMATE-FEVER Wikipedia sentences (or another file in that format)."""

    name = "climate-fever-wikipedia"

    def __init__(self, path: Path | None = None) -> None:
        self._path = (path or bundled_corpus_path()).resolve()
        if not self._path.is_file():
            raise FileNotFoundError(f"evidence corpus not found: {self._path}")

    def warm(self) -> None:
        """Build the index now (it is otherwise built by the first search)."""
        _index_for(self._path)

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        # Wikipedia sentences carry no date, so as_of cannot filter them: every hit has published=None.
        if limit <= 0:
            return []
        index = _index_for(self._path)
        return [index.hits[i] for i, _ in index.rank(query, limit)]
