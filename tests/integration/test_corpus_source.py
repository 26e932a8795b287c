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
from claimcourt.evidence.bm25 import Index, StoredHits, load_index
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

    def counting_build(path: Path) -> Index:
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


# ---------------------------------------------------------------- the index kept between processes


def _counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    builds: list[Path] = []
    real_build = corpus._build_index

    def counting_build(path: Path) -> Index:
        builds.append(path)
        return real_build(path)

    monkeypatch.setattr(corpus, "_build_index", counting_build)
    return builds


def _write_corpus(path: Path, rows: list[dict[str, str]]) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)


ROWS = [
    {"article": "Sea_level_rise", "text": "Sea levels are rising because warming oceans expand."},
    {"article": "Glacier", "text": "Most mountain glaciers have retreated since 1850."},
    {"article": "Coral_reef", "text": "Coral bleaching follows marine heatwaves."},
]


def test_a_kept_index_is_loaded_memory_mapped_by_a_later_process_not_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, index_dir = tmp_path / "corpus.jsonl.gz", tmp_path / "index"
    _write_corpus(path, ROWS)
    builds = _counting_builds(monkeypatch)
    first = CorpusSource(path, index_dir).search("glaciers retreated", limit=3)
    assert builds == [path.resolve()]
    assert [p.name for p in index_dir.iterdir()] == [
        corpus.index_folder(index_dir, path.resolve(), corpus.corpus_digest(path)).name
    ]

    monkeypatch.setattr(corpus, "_INDEX_CACHE", {})  # a later process
    later = CorpusSource(path, index_dir)
    assert later.search("glaciers retreated", limit=3) == first
    assert first[0] == Hit(text=ROWS[1]["text"], title="Glacier", url="https://en.wikipedia.org/wiki/Glacier")
    assert builds == [path.resolve()]  # loaded, not built
    loaded = later._ready()
    assert isinstance(loaded.hits, StoredHits)
    assert type(loaded._retriever.scores["data"]).__name__ == "memmap"


def test_a_changed_corpus_is_built_again_and_its_old_index_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, index_dir = tmp_path / "corpus.jsonl.gz", tmp_path / "index"
    _write_corpus(path, ROWS)
    builds = _counting_builds(monkeypatch)
    assert CorpusSource(path, index_dir).search("volcano", limit=3) == []
    old = list(index_dir.iterdir())

    _write_corpus(path, [*ROWS, {"article": "Samalas", "text": "The Samalas volcano erupted in 1257."}])
    monkeypatch.setattr(corpus, "_INDEX_CACHE", {})  # a later process
    hits = CorpusSource(path, index_dir).search("volcano", limit=3)
    assert [hit.title for hit in hits] == ["Samalas"]
    assert builds == [path.resolve(), path.resolve()]
    kept = list(index_dir.iterdir())
    assert len(old) == len(kept) == 1 and old != kept


def test_a_damaged_kept_index_is_built_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, index_dir = tmp_path / "corpus.jsonl.gz", tmp_path / "index"
    _write_corpus(path, ROWS)
    builds = _counting_builds(monkeypatch)
    expected = CorpusSource(path, index_dir).search("coral bleaching", limit=3)
    (folder,) = index_dir.iterdir()
    (folder / "hits.jsonl").write_bytes(b"[")  # a disk that filled up, a copy cut short

    monkeypatch.setattr(corpus, "_INDEX_CACHE", {})  # a later process
    assert CorpusSource(path, index_dir).search("coral bleaching", limit=3) == expected
    assert len(builds) == 2
    monkeypatch.setattr(corpus, "_INDEX_CACHE", {})  # and the one after that loads the repaired index
    assert CorpusSource(path, index_dir).search("coral bleaching", limit=3) == expected
    assert len(builds) == 2


def test_an_index_that_cannot_be_kept_still_serves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "corpus.jsonl.gz"
    _write_corpus(path, ROWS)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    hits = CorpusSource(path, not_a_folder / "index").search("coral bleaching", limit=3)
    assert [hit.title for hit in hits] == ["Coral reef"]


def test_the_bundled_corpus_loaded_from_its_kept_index_ranks_exactly_as_a_fresh_build(tmp_path: Path) -> None:
    path = bundled_corpus_path().resolve()
    fresh = corpus._build_index(path)
    folder = corpus.index_folder(tmp_path, path, corpus.corpus_digest(path))
    fresh.save(folder)
    loaded = load_index(folder)
    assert len(loaded.hits) == len(fresh.hits) == 5240
    queries = [claim["claim"] for claim in _claims()[:200]]
    queries += ["sea level rise from melting glaciers", "Samalas", "the of and to a", ""]
    for query in queries:
        ranked = fresh.rank(query, 10)
        assert loaded.rank(query, 10) == ranked, query  # the same documents, order and scores
        assert [loaded.hits[i] for i, _ in ranked] == [fresh.hits[i] for i, _ in ranked]
    assert [loaded.hits[i] for i in (0, 2619, 5239)] == [fresh.hits[i] for i in (0, 2619, 5239)]
