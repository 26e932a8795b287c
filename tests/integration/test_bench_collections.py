"""The collections bench, small: every document goes in, and a fresh process searches the collection."""

from __future__ import annotations

import re

import pytest

from claimcourt.bench.collections_speed import main

pytestmark = pytest.mark.timeout(180)


def test_the_bench_ingests_every_kind_and_searches_a_collection_from_a_fresh_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--documents", "10", "--passages", "500"])
    out = capsys.readouterr().out
    assert "ingest: 10 of 10 documents" in out
    assert re.search(r"documents/s +\d+ passages/s", out)
    assert "reading a document, median by kind: docx" in out and "pdf" in out and "txt" in out
    assert "scale: 500 passages in 10 documents" in out
    assert re.search(r"search, limit 5, 200 claims, alone: p50 [\d.]+ ms", out)
    assert re.search(r"merged with climate: p50 [\d.]+ ms", out)
    assert re.search(r"that process's peak RSS: \d+ MB", out)
