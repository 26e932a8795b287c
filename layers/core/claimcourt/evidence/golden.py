"""Gold evidence as an EvidenceSource: benchmarks feed a claim's annotated evidence instead of live retrieval.

Every hit is relevant by construction, so ranking only decides which come first when `limit` cuts the list:
a small dependency-free idf-weighted overlap is enough, and a query that matches nothing still gets hits.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from datetime import date
from typing import Any
from urllib.parse import urlparse

from claimcourt.evidence.base import Hit
from claimcourt.evidence.corpus import wikipedia_url

_WORD = re.compile(r"\w+")
# Short on purpose: gold evidence is already relevant, this only keeps filler words from deciding the order.
# fmt: off
_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "he", "her", "his", "how", "if", "in", "into", "is", "it", "its", "no", "not",
    "of", "on", "or", "she", "such", "that", "the", "their", "then", "there", "these", "they", "this",
    "to", "was", "were", "what", "when", "which", "who", "why", "will", "with",
})
# fmt: on


def _tokens(text: str) -> set[str]:
    return {token for token in _WORD.findall(text.lower()) if token not in _STOPWORDS}


class GoldenSource:
    """EvidenceSource over a fixed list of hits, ranked by idf-weighted word overlap with the query.
    `name` is part of the retrieval cache's key: give each claim's gold evidence its own."""

    def __init__(self, hits: Sequence[Hit], name: str = "golden") -> None:
        self.name = name
        self._hits = list(hits)
        self._hit_tokens = [_tokens(f"{hit.title} {hit.text}") for hit in self._hits]
        n = len(self._hits)
        document_frequency: dict[str, int] = {}
        for tokens in self._hit_tokens:
            for token in tokens:
                document_frequency[token] = document_frequency.get(token, 0) + 1
        # BM25's idf: a word found in every hit still counts a little, a rare one counts most.
        self._idf = {t: math.log(1 + (n - df + 0.5) / (df + 0.5)) for t, df in document_frequency.items()}

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        query_tokens = _tokens(query)
        scored = [
            (sum(self._idf[t] for t in query_tokens & tokens), hit)
            for hit, tokens in zip(self._hits, self._hit_tokens, strict=True)
            if as_of is None or hit.published is None or hit.published <= as_of
        ]
        # list.sort is stable: ties, including "no overlap at all", keep the given order.
        scored.sort(key=lambda pair: -pair[0])
        return [hit for _, hit in scored[: max(limit, 0)]]


class GoldenByRun:
    """Golden evidence for many runs at once (a benchmark's, concurrently): each run searches only the
    hits assigned to it before it started (`for_run`, see evidence.base.source_for_run); a run given
    none finds nothing. Its own name stays "golden", which is what the prompts' retrieval hint reads."""

    name = "golden"

    def __init__(self) -> None:
        self._sources: dict[str, GoldenSource] = {}
        self._lock = threading.Lock()

    def assign(self, run_id: str, hits: Sequence[Hit]) -> None:
        with self._lock:
            self._sources[run_id] = GoldenSource(hits, name=f"golden:{run_id}")

    def for_run(self, run_id: str) -> GoldenSource:
        with self._lock:
            return self._sources.get(run_id) or GoldenSource([], name=f"golden:{run_id}")

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        return []  # every run searches its own (for_run); nothing is everyone's


def _squash(text: str) -> str:
    # Extracted answers keep the line breaks of the PDFs they came from; they mean nothing in a prompt.
    return " ".join(text.split())


def averitec_hits(claim_record: dict[str, Any]) -> list[Hit]:
    """One hit per gold answer of an AVeriTeC claim: "Q: <question> A: <answer>" (+ boolean explanation)."""
    hits: list[Hit] = []
    for question in claim_record.get("questions") or []:
        for answer in question.get("answers") or []:
            text = f"Q: {_squash(question['question'])} A: {_squash(answer['answer'])}"
            if explanation := _squash(answer.get("boolean_explanation") or ""):
                text = f"{text} — {explanation}"
            url = answer.get("source_url") or ""
            hits.append(Hit(text=text, title=urlparse(url).hostname or "AVeriTeC evidence", url=url))
    return hits


def climate_fever_hits(claim_record: dict[str, Any]) -> list[Hit]:
    """The five annotated Wikipedia sentences of a CLIMATE-FEVER claim, shaped like CorpusSource hits."""
    hits: list[Hit] = []
    for evidence in claim_record["evidences"]:
        title = evidence["article"].replace("_", " ")
        hits.append(Hit(text=evidence["evidence"], title=title, url=wikipedia_url(title)))
    return hits
