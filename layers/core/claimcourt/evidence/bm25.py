"""BM25 indexes of passages, kept on disk: built once, saved whole or not at all, loaded memory-mapped.

Shared by the bundled corpus (corpus.py) and the document collections (collections.py). bm25s,
PyStemmer and numpy are imported only when an index is built or loaded: they cost about 100 ms and are
absent from the Lambda layer, so importing this module stays cheap.

A kept index is a folder: bm25s's own files, the hits as JSON lines (`hits.jsonl`, read from a memory
map only when a search returns them) and their offsets.
"""

from __future__ import annotations

import json
import math
import mmap
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from claimcourt.evidence.base import Hit

# What a kept index folder holds beside bm25s's own files; bump when that changes (a folder's name
# carries it, so an index of another format is built again rather than misread). A hit's line grew
# optional trailing fields (a collection's), which a line of three still reads as: still format 1.
INDEX_FORMAT = 1
HITS, OFFSETS = "hits.jsonl", "hits.offsets.npy"


def hit_row(hit: Hit) -> list[Any]:
    """A hit as one JSON array: text, title, url, then published, page, tier and collection, the
    trailing unset ones left out (the bundled corpus's sentences carry only the first three)."""
    row: list[Any] = [
        hit.text,
        hit.title,
        hit.url,
        hit.published.isoformat() if hit.published else None,
        hit.page,
        hit.tier,
        hit.collection,
    ]
    while len(row) > 3 and row[-1] is None:
        row.pop()
    return row


def hit_of(row: list[Any]) -> Hit:
    text, title, url, published, page, tier, collection = row + [None] * (7 - len(row))
    return Hit(
        text=text,
        title=title,
        url=url,
        published=date.fromisoformat(published) if published else None,
        page=page,
        tier=tier,
        collection=collection,
    )


class Hits(Protocol):
    def __getitem__(self, position: int, /) -> Hit: ...

    def __len__(self) -> int: ...


class StoredHits:
    """The hits of a kept index, one JSON line each, read from a memory map when a search returns them."""

    def __init__(self, folder: Path) -> None:
        import numpy as np

        with open(folder / HITS, "rb") as file:
            self._lines = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        self._offsets = np.load(folder / OFFSETS, mmap_mode="r")
        if int(self._offsets[-1]) != len(self._lines):
            raise ValueError(f"{folder / HITS}: offsets do not match the file")

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, position: int) -> Hit:
        if not 0 <= position < len(self):
            raise IndexError(position)
        start, end = int(self._offsets[position]), int(self._offsets[position + 1])
        return hit_of(json.loads(self._lines[start:end]))  # slicing does not seek: threads may share


class Index:
    """A built BM25 index and the hits it ranks; read-only once built, so threads can share it."""

    def __init__(self, hits: Hits, retriever: Any, tokenize_query: Callable[[str], list[str]]) -> None:
        self.hits = hits
        self._retriever = retriever
        self._tokenize_query = tokenize_query

    def save(self, folder: Path) -> None:
        """Into `folder`, made whole or not at all: written beside it, then renamed into place. Raises
        OSError if `folder` exists (another process got there first: theirs is as good)."""
        import numpy as np

        folder.parent.mkdir(parents=True, exist_ok=True)
        scratch = folder.parent / f".{folder.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
        try:
            self._retriever.save(str(scratch), show_progress=False)
            offsets = [0]
            with open(scratch / HITS, "wb") as lines:
                for position in range(len(self.hits)):
                    line = json.dumps(hit_row(self.hits[position]), ensure_ascii=False).encode() + b"\n"
                    lines.write(line)
                    offsets.append(offsets[-1] + len(line))
            np.save(scratch / OFFSETS, np.array(offsets, dtype=np.int64))
            os.rename(scratch, folder)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def rank(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(position in hits, score) of the best `limit` documents with a positive score, best first."""
        tokens = self.tokens(query)
        # Query words absent from the corpus are dropped here; bm25s's get_scores would fail on an empty list.
        token_ids = self._retriever.get_tokens_ids(tokens)
        if not token_ids:
            return []
        return self._best(self._retriever.get_scores_from_ids(token_ids), limit)

    def tokens(self, query: str) -> list[str]:
        return self._tokenize_query(query)

    def frequencies(self, tokens: Sequence[str]) -> tuple[int, list[int]]:
        """How many documents the index holds, and how many of them hold each token."""
        scores = self._retriever.scores
        indptr, vocabulary = scores["indptr"], self._retriever.vocab_dict
        columns = [vocabulary.get(token) for token in tokens]
        counts = [0 if c is None else int(indptr[c + 1] - indptr[c]) for c in columns]
        return int(scores["num_docs"]), counts

    def rank_weighted(
        self, tokens: Sequence[str], idf: Sequence[float], limit: int
    ) -> list[tuple[int, float]]:
        """As `rank`, with each token's IDF replaced by the one given: scores computed with statistics
        shared by several indexes rank their documents as one index of all of them would (but for
        document length, which each index normalises by its own average)."""
        import numpy as np

        scores = self._retriever.scores
        data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
        documents, counts = self.frequencies(tokens)
        total = np.zeros(documents, dtype=np.float32)
        vocabulary = self._retriever.vocab_dict
        for token, count, wanted in zip(tokens, counts, idf, strict=True):
            if not count:
                continue
            column = vocabulary[token]
            start, end = int(indptr[column]), int(indptr[column + 1])
            # bm25s stores IDF × the term-frequency part; trade its own IDF for the shared one.
            total[indices[start:end]] += data[start:end] * np.float32(wanted / lucene_idf(count, documents))
        return self._best(total, limit) if counts and any(counts) else []

    @staticmethod
    def _best(scores: Any, limit: int) -> list[tuple[int, float]]:
        """The `limit` best positive scores, best first, ties in corpus order (so results are
        reproducible): as a stable sort of all the scores would give them, without sorting them all
        (at 100,000 passages the whole sort took most of a search)."""
        import numpy as np

        scored = np.flatnonzero(scores > 0)
        if limit < len(scored):
            kth = np.partition(scores[scored], len(scored) - limit)[len(scored) - limit]
            scored = scored[scores[scored] >= kth]  # the best `limit`, and any tied with the last of them
        order = scored[np.lexsort((scored, -scores[scored]))][:limit]
        return [(int(i), float(scores[i])) for i in order]


def lucene_idf(df: int, documents: int) -> float:
    """BM25's IDF as bm25s computes it by default (Lucene's variant)."""
    return math.log(1 + (documents - df + 0.5) / (df + 0.5))


def bm25_modules() -> tuple[Any, Any]:
    try:
        import bm25s
        import Stemmer
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ImportError("BM25 search needs bm25s and PyStemmer: pip install 'claimcourt[local]'") from exc
    return bm25s, Stemmer


def bm25s_version() -> str:
    from bm25s import __version__

    return str(__version__)


def _query_tokenizer(bm25s: Any, stemmer: Any) -> Callable[[str], list[str]]:
    # PyStemmer keeps internal state and must not be called from two threads at once.
    stemmer_lock = threading.Lock()

    def tokenize_query(query: str) -> list[str]:
        # The index's own tokenizer, stopwords and stemmer, so query tokens meet its vocabulary.
        with stemmer_lock:
            tokens: list[str] = bm25s.tokenize(
                query, stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
            )[0]
        return tokens

    return tokenize_query


def build_index(texts: Sequence[str], hits: Hits) -> Index:
    """An index ranking `hits` by `texts` (the text indexed for each: it may say more than the hit)."""
    bm25s, Stemmer = bm25_modules()
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(list(texts), stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
    )
    return Index(hits, retriever, _query_tokenizer(bm25s, stemmer))


def load_index(folder: Path) -> Index:
    bm25s, Stemmer = bm25_modules()
    retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
    return Index(StoredHits(folder), retriever, _query_tokenizer(bm25s, Stemmer.Stemmer("english")))
