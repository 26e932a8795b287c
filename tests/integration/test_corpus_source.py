"""CorpusSource against the real bundled CLIMATE-FEVER Wikipedia corpus and claims."""

from __future__ import annotations

import gzip
import json
import shutil
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import claimcourt
from claimcourt.evidence import corpus
from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.corpus import CorpusSource, bundled_corpus_path

CLAIMS_FILE = Path(claimcourt.__file__).parent / "bench" / "data" / "climate_fever_claims_dev.jsonl.gz"


def _claims() -> list[dict[str, Any]]:
    with gzip.open(CLAIMS_FILE, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


@pytest.fixture(scope="module")
def source() -> CorpusSource:
    return CorpusSource()


def test_is_an_evidence_source_over_the_bundled_file(source: CorpusSource) -> None:
    typed: EvidenceSource = source
    assert typed.name == "climate-fever-wikipedia"
    assert bundled_corpus_path().is_file()


def test_known_evidence_sentence_is_among_the_top_hits_for_its_claim(source: CorpusSource) -> None:
    [claim] = [c for c in _claims() if c["claim_id"] == "14"]
    assert (
        claim["claim"] == "The Great Barrier Reef is experiencing the most widespread bleaching ever recorded"
    )
    gold = {e["evidence"] for e in claim["evidences"] if e["evidence_label"] == "SUPPORTS"}
    hits = source.search(claim["claim"], limit=3)
    assert gold & {hit.text for hit in hits}


def test_gold_evidence_is_in_the_top_ten_for_most_dev_claims(source: CorpusSource) -> None:
    # A guard on tokenization (query and corpus must be stemmed alike), not a benchmark: 149/200 when written.
    claims = _claims()[:200]
    found = sum(
        any(
            e["evidence"] in {hit.text for hit in source.search(c["claim"], limit=10)} for e in c["evidences"]
        )
        for c in claims
    )
    assert found >= 140


def test_hits_are_wikipedia_sentences_with_article_title_and_url(source: CorpusSource) -> None:
    hits = source.search("polar bear population", limit=5)
    assert hits
    for hit in hits:
        assert hit.title == "Polar bear"
        assert hit.url == "https://en.wikipedia.org/wiki/Polar_bear"
        assert hit.published is None


def test_returns_at_most_limit_hits(source: CorpusSource) -> None:
    assert len(source.search("climate", limit=7)) == 7
    assert len(source.search("climate", limit=1)) == 1
    assert source.search("climate", limit=0) == []


def test_hits_come_best_first_with_positive_scores(source: CorpusSource) -> None:
    query = "sea level rise from melting glaciers"
    # Scores are not part of the Hit; read them from the index the source uses.
    ranked = corpus._index_for(bundled_corpus_path().resolve()).rank(query, 10)
    scores = [score for _, score in ranked]
    assert len(scores) == 10
    assert all(score > 0 for score in scores)
    assert scores == sorted(scores, reverse=True)
    # A smaller limit is a prefix of a larger one: the order does not depend on the limit.
    assert source.search(query, limit=4) == source.search(query, limit=10)[:4]


def test_a_query_matching_fewer_documents_than_limit_returns_only_the_matches(source: CorpusSource) -> None:
    hits = source.search("Samalas", limit=50)
    assert 0 < len(hits) < 50
    assert all("Samalas" in hit.title or "Samalas" in hit.text for hit in hits)


@pytest.mark.parametrize("query", ["the of and to a", "xqzvwk blorptang", "", "?! -- ..."])
def test_stopword_gibberish_or_empty_query_returns_empty_list(source: CorpusSource, query: str) -> None:
    assert source.search(query, limit=5) == []


def test_same_query_gives_identical_hits(source: CorpusSource) -> None:
    query = "Global warming is driving polar bears toward extinction"
    first = source.search(query, limit=10)
    assert source.search(query, limit=10) == first
    assert CorpusSource().search(query, limit=10) == first


def test_as_of_does_not_filter_undated_wikipedia_sentences(source: CorpusSource) -> None:
    query = "carbon dioxide concentration"
    assert source.search(query, limit=5, as_of=date(1900, 1, 1)) == source.search(query, limit=5)


def test_missing_corpus_file_fails_at_construction(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        CorpusSource(tmp_path / "missing.jsonl.gz")


def test_concurrent_first_searches_build_the_index_once_and_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: CorpusSource
) -> None:
    # A copy under a new path is a cache key no search has used yet: a fresh build, as in a new process.
    fresh_path = tmp_path / "corpus.jsonl.gz"
    shutil.copyfile(bundled_corpus_path(), fresh_path)
    builds: list[Path] = []
    real_build = corpus._build_index

    def counting_build(path: Path) -> corpus._Index:
        builds.append(path)
        time.sleep(0.05)  # widen the window in which the other threads arrive mid-build
        return real_build(path)

    monkeypatch.setattr(corpus, "_build_index", counting_build)
    queries = ["coral bleaching", "sea ice extent", "carbon dioxide", "polar bear"]
    fresh = CorpusSource(fresh_path)
    start = threading.Barrier(4)
    results: dict[int, list[list[Hit]]] = {}
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            start.wait()
            results[n] = [fresh.search(q, limit=5) for q in queries]
        except BaseException as exc:  # surfaced below: an exception in a thread would otherwise vanish
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert builds == [fresh_path.resolve()]
    expected = [source.search(q, limit=5) for q in queries]
    assert all(expected)
    assert [results[n] for n in range(4)] == [expected] * 4
