"""Document collections on disk: ingesting files, folders and urls, versions, the index kept whole,
searching one collection or several together, tenants apart."""

from __future__ import annotations

import functools
import json
import threading
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError
from claimcourt.evidence import bm25, collections
from claimcourt.evidence.collections import LocalCollections, MergedSource, Prepared, search_together
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.evidence.documents import Unreadable
from claimcourt.evidence.fetch import Fetched, fetch
from claimcourt.evidence.ingest import ingest, read_upload
from claimcourt.evidence.passages import Passage
from claimcourt.evidence.retrieve import retrieval
from claimcourt.models import Directive
from tests.fakes.documents import make_docx, make_pdf
from tests.fakes.web import LoopbackWeb

REVENUE = "In 2023 Acme's revenue grew by 12 percent to 4.2 billion dollars, driven by its Ohio factories."
GOVERNANCE = "Acme's board of directors met four times in 2023 and approved a new audit committee charter."


@pytest.fixture
def library(tmp_path: Path) -> LocalCollections:
    return LocalCollections(tmp_path / "collections", CorpusSource(index_dir=tmp_path / "index"))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A user's folder: a report PDF, notes in Markdown, a DOCX memo, in a subfolder an HTML page, and
    things that cannot be read (a scan, a Latin-1 text file, a spreadsheet) and a hidden file."""
    docs = tmp_path / "docs"
    (docs / "web").mkdir(parents=True)
    (docs / "acme-2023.pdf").write_bytes(make_pdf([GOVERNANCE, REVENUE], title="Acme Annual Report 2023"))
    (docs / "notes.md").write_text("# Site visit\n\nThe Ohio factories employ 3,000 people.\n")
    (docs / "memo.docx").write_bytes(make_docx(["Memo", "Dividends were raised twice in 2023."]))
    (docs / "web" / "press.html").write_text(
        "<html><head><title>Acme press release</title></head><body><article><p>"
        "Acme opened a new research centre in Dayton, Ohio, in May 2023, with 200 engineers.</p>"
        "</article></body></html>"
    )
    (docs / "scan.pdf").write_bytes(make_pdf([""]))
    (docs / "legacy.txt").write_bytes("Résumé of the 1998 plant opening".encode("latin-1"))
    (docs / "figures.xlsx").write_bytes(b"PK\x03\x04 not read")
    (docs / ".DS_Store").write_bytes(b"\x00\x01")
    return docs


def statuses(outcomes: list[collections.Outcome]) -> list[tuple[str, str]]:
    return [(Path(o.source).name, o.status) for o in outcomes]


def test_a_folder_goes_in_recursively_each_bad_document_named_with_its_reason(
    library: LocalCollections, folder: Path
) -> None:
    library.create("local", "acme", "T2")
    outcomes = ingest(library, "local", "acme", [str(folder)])
    assert statuses(outcomes) == [
        ("acme-2023.pdf", "added"),
        ("figures.xlsx", "skipped"),
        ("legacy.txt", "skipped"),
        ("memo.docx", "added"),
        ("notes.md", "added"),
        ("scan.pdf", "skipped"),
        ("press.html", "added"),
    ]  # name order, the subfolder after the files; the hidden file not at all
    reasons = {Path(o.source).name: o.reason for o in outcomes if o.status == "skipped"}
    assert "not a kind claimcourt reads (.xlsx)" in (reasons["figures.xlsx"] or "")
    assert (reasons["legacy.txt"] or "").startswith("not UTF-8 text")
    assert "no text layer" in (reasons["scan.pdf"] or "")
    info = library.get("local", "acme")
    assert (info.documents, info.tier) == (4, "T2")
    hits = library.source("local", "acme").index()
    assert hits is not None


def test_a_pdf_passage_is_found_with_its_page_its_title_and_a_url_that_opens_at_the_page(
    library: LocalCollections, folder: Path
) -> None:
    library.create("local", "acme", "T2")
    ingest(library, "local", "acme", [str(folder / "acme-2023.pdf")])
    source = library.source("local", "acme")
    [best, *_] = source.search("Acme revenue growth 2023", limit=3)
    assert best.text == REVENUE.replace("'", "’")  # pypdf reads Helvetica's quotesingle as a typographic one
    assert (best.page, best.title, best.collection, best.tier) == (2, "Acme Annual Report 2023", "acme", "T2")
    assert best.url == (folder / "acme-2023.pdf").resolve().as_uri() + "#page=2"


def test_the_collection_tier_and_the_url_tier_rules_both_apply(
    library: LocalCollections, tmp_path: Path
) -> None:
    def sec_gov(url: str) -> Fetched:  # the page as www.sec.gov serves it
        page = (
            '<html><head><title>Acme 10-K</title><link rel="canonical" href="https://www.sec.gov/acme/10k">'
            "</head><body><article><p>Acme reported revenue of 4.2 billion dollars for fiscal 2023.</p>"
            "</article></body></html>"
        )
        return Fetched(url, page.encode(), "text/html")

    notes = tmp_path / "notes.txt"
    notes.write_text("Acme revenue notes written by an analyst in 2024.")
    library.create("local", "analysts", "T2")
    library.create("local", "filings", "T1")
    ingest(library, "local", "analysts", ["https://sec.gov/acme/10k?from=feed", str(notes)], fetcher=sec_gov)
    ingest(library, "local", "filings", [str(notes)])
    by_url = {h.url: h.tier for h in library.source("local", "analysts").search("Acme revenue", limit=5)}
    # fetched from sec.gov, its canonical url (the same host's) is its locator, and the url's rules make it T1
    assert by_url == {"https://www.sec.gov/acme/10k": "T1", notes.resolve().as_uri(): "T2"}
    [filed] = library.source("local", "filings").search("Acme revenue", limit=5)
    assert filed.tier == "T1"  # a T1 collection's documents are primary records, whatever their url


def test_a_page_that_names_another_hosts_canonical_url_is_cited_and_tiered_where_it_came_from(
    library: LocalCollections, tmp_path: Path
) -> None:
    # Anyone can write <link rel=canonical href=cdc.gov>: a saved, uploaded or fetched page saying so
    # must not be cited as the CDC's, nor made T1 by the CDC's url.
    def page(copy: str) -> bytes:
        return (
            '<html><head><title>Vaccine report</title><link rel="canonical" '
            'href="https://www.cdc.gov/vaccines/report.html"></head><body><article><p>'
            f"The report found the vaccine caused the side effect in most children ({copy} copy).</p>"
            "</article></body></html>"
        ).encode()

    saved = tmp_path / "mine.html"
    saved.write_bytes(page("saved"))
    library.create("local", "mine", "T2")
    fetched = ingest(
        library,
        "local",
        "mine",
        [str(saved), "https://blog.example.net/post"],
        fetcher=lambda url: Fetched(url, page("fetched"), "text/html"),
    )
    assert [o.status for o in fetched] == ["added", "added"]
    library.put("local", "mine", [read_upload("upload.html", page("uploaded"))])

    hits = library.source("local", "mine").search("vaccine side effect children", limit=5)
    assert sorted((h.url, h.tier) for h in hits) == [
        (saved.resolve().as_uri(), "T2"),
        ("https://blog.example.net/post", "T2"),
        ("upload:upload.html", "T2"),
    ]
    documents = library.documents("local", "mine")
    assert [d.canonical_url for d in documents] == ["https://www.cdc.gov/vaccines/report.html"] * 3


def test_re_adding_an_unchanged_document_is_a_no_op_and_a_changed_one_replaces_its_passages(
    library: LocalCollections, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = tmp_path / "note.md"
    note.write_text("The Ohio plant makes widgets.")
    library.create("local", "acme", "T2")
    ingest(library, "local", "acme", [str(note)])
    before = library.get("local", "acme")
    builds = _count_builds(monkeypatch)
    again = ingest(library, "local", "acme", [str(note)])
    assert statuses(again) == [("note.md", "unchanged")] and builds == []
    assert library.get("local", "acme").version == before.version

    note.write_text("The Ohio plant makes gadgets now.")
    changed = ingest(library, "local", "acme", [str(note)])
    assert statuses(changed) == [("note.md", "replaced")] and len(builds) == 1
    after = library.get("local", "acme")
    assert (after.documents, after.passages) != (0, 0) and after.version != before.version
    source = library.source("local", "acme")
    assert source.search("widgets", limit=5) == []
    assert [h.text for h in source.search("gadgets", limit=5)] == ["The Ohio plant makes gadgets now."]
    # only the current version's index and passages are kept
    folder = library.root / "local" / "acme"
    assert len(list((folder / "index").iterdir())) == 1 and len(list((folder / "passages").iterdir())) == 1


def test_the_same_bytes_under_another_name_are_not_indexed_twice(
    library: LocalCollections, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("One memo about Ohio.")
    (tmp_path / "copy of a.txt").write_text("One memo about Ohio.")
    library.create("local", "acme", "T2")
    outcomes = ingest(library, "local", "acme", [str(tmp_path / "a.txt"), str(tmp_path / "copy of a.txt")])
    assert statuses(outcomes) == [("a.txt", "added"), ("copy of a.txt", "unchanged")]
    assert outcomes[1].reason == f"same content as {(tmp_path / 'a.txt').resolve()}, already in"
    assert library.get("local", "acme").documents == 1


def test_a_document_is_removed_by_its_file_name_and_a_collection_as_a_whole(
    library: LocalCollections, folder: Path
) -> None:
    library.create("local", "acme", "T2")
    ingest(library, "local", "acme", [str(folder / "notes.md"), str(folder / "memo.docx")])
    gone = library.remove("local", "acme", "notes.md")
    assert gone.title == "Site visit"
    assert [d.title for d in library.documents("local", "acme")] == ["Memo"]
    assert library.source("local", "acme").search("factories employ", limit=5) == []
    with pytest.raises(NotFoundError, match=r"no document notes\.md in collection acme"):
        library.remove("local", "acme", "notes.md")
    library.remove("local", "acme", "memo.docx")
    assert library.source("local", "acme").search("dividends", limit=5) == []
    library.delete("local", "acme")
    assert [c.name for c in library.list_collections("local")] == ["climate"]
    with pytest.raises(NotFoundError, match="no collection acme"):
        library.get("local", "acme")


def test_names_are_checked_a_duplicate_is_refused_and_the_bundled_corpus_is_read_only(
    library: LocalCollections,
) -> None:
    library.create("local", "acme", "T2")
    with pytest.raises(ConflictError, match="a collection named acme already exists") as taken:
        library.create("local", "acme", "T1")
    assert taken.value.code == "collection_exists"
    with pytest.raises(InvalidRequestError, match="is not a collection name"):
        library.create("local", "Acme Filings", "T2")
    with pytest.raises(InvalidRequestError):
        library.create("local", "../escape", "T2")
    with pytest.raises(InvalidRequestError, match="is not a tenant"):
        library.create("../other", "acme", "T2")
    with pytest.raises(InvalidRequestError, match="is not a tenant"):
        library.list_collections("..")
    with pytest.raises(InvalidRequestError, match="is not a collection name"):
        library.create("local", "acme\n", "T2")
    with pytest.raises(InvalidRequestError, match="is not a tenant"):
        library.list_collections("local\n")
    with pytest.raises(ConflictError, match="bundled corpus"):
        library.create("local", "climate", "T2")
    with pytest.raises(ConflictError, match="cannot be changed"):
        library.delete("local", "climate")
    climate = library.get("local", "climate")
    assert climate.bundled and climate.passages == 5240


def test_tenants_never_see_each_others_collections(library: LocalCollections, folder: Path) -> None:
    library.create("acme-corp", "private", "T2")
    ingest(library, "acme-corp", "private", [str(folder / "notes.md")])
    assert [c.name for c in library.list_collections("other")] == ["climate"]
    for read in (library.get, library.documents, library.source, library.delete):
        with pytest.raises(NotFoundError):
            read("other", "private")
    library.create("other", "private", "T2")  # the same name is another tenant's own
    assert library.get("other", "private").documents == 0
    assert library.get("acme-corp", "private").documents == 1


def test_a_failed_build_leaves_the_collection_as_it_was_and_no_half_built_index(
    library: LocalCollections, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.create("local", "acme", "T2")
    ingest(library, "local", "acme", [str(folder / "notes.md")])
    before = library.get("local", "acme")
    real_save = bm25.Index.save

    def save_then_fail(index: bm25.Index, where: Path) -> None:
        real_save(index, where.parent / f".{where.name}.partial")  # written under its temporary name …
        raise OSError(28, "No space left on device")  # … and the disk fills before it is renamed

    monkeypatch.setattr(bm25.Index, "save", save_then_fail)
    with pytest.raises(OSError, match="No space left"):
        ingest(library, "local", "acme", [str(folder / "memo.docx")])
    monkeypatch.undo()
    assert library.get("local", "acme") == before  # the manifest was never switched
    served = library.source("local", "acme")
    assert served.name == f"acme@{before.version}"
    assert [h.title for h in served.search("Ohio factories", limit=5)] == ["Site visit"]
    index_dir = library.root / "local" / "acme" / "index"
    assert [p.name for p in index_dir.iterdir() if not p.name.startswith(".")] == [
        p.name for p in index_dir.iterdir() if p.name.startswith(before.version)
    ]


def test_a_kept_index_is_built_again_when_missing_or_damaged(library: LocalCollections, folder: Path) -> None:
    library.create("local", "acme", "T2")
    ingest(library, "local", "acme", [str(folder / "notes.md")])
    [kept] = (library.root / "local" / "acme" / "index").iterdir()
    (kept / bm25.HITS).write_bytes(b"damaged")
    fresh = LocalCollections(library.root)  # another process: nothing cached
    assert [h.title for h in fresh.source("local", "acme").search("factories", limit=5)] == ["Site visit"]


def test_two_writers_at_once_both_get_their_documents_in(library: LocalCollections, folder: Path) -> None:
    library.create("local", "acme", "T2")
    other = LocalCollections(library.root)  # as another process would, with its own state
    ready = threading.Barrier(2)
    errors: list[BaseException] = []

    def add(into: LocalCollections, name: str) -> None:
        try:
            ready.wait()
            ingest(into, "local", "acme", [str(folder / name)])
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=add, args=(library, "notes.md")),
        threading.Thread(target=add, args=(other, "memo.docx")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(d.title for d in library.documents("local", "acme")) == ["Memo", "Site visit"]


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    builds: list[int] = []
    real = collections.build_index

    def counting(texts: Any, hits: Any) -> bm25.Index:
        builds.append(len(texts))
        return real(texts, hits)

    monkeypatch.setattr(collections, "build_index", counting)
    return builds


# ---------------------------------------------------------------- searching several together


def _prepared(name: str, texts: list[str], published: date | None = None) -> Prepared:
    return Prepared(
        source=name,
        url=f"upload:{name}",
        title=name,
        kind="text",
        content_hash=name + "-" + str(hash(tuple(texts))),
        size=1,
        passages=[Passage(t) for t in texts],
        published=published,
    )


def test_several_collections_rank_as_one_index_of_all_would(library: LocalCollections) -> None:
    # In a collection of three notes, "Ohio" and "factories" are in two of the three, so its own IDF
    # calls them common; against the climate corpus's 5,240 sentences both are rare. Ranked with the
    # frequencies summed over both, the note that names both outranks a sentence that names Ohio once.
    library.create("local", "acme", "T2")
    library.put(
        "local",
        "acme",
        [
            _prepared("visit", ["The Ohio factories employ 3,000 people."]),
            _prepared("plan", ["New factories in Ohio are planned for 2026."]),
            _prepared("board", ["The board met four times."]),
        ],
    )
    together = MergedSource([library.source("local", "acme"), library.source("local", "climate")])
    assert together.name.startswith("collections:acme@") and together.name.endswith(
        "+climate-fever-wikipedia"
    )
    found = together.search("factories Ohio employ people", limit=5)
    assert found[0].text == "The Ohio factories employ 3,000 people."
    assert {h.collection for h in found} == {"acme", None}  # climate's own sentences carry no collection


def test_no_source_takes_more_than_its_share_while_another_has_passages_to_offer(
    library: LocalCollections,
) -> None:
    for name in ("big", "small"):
        library.create("local", name, "T2")
    library.put(
        "local", "big", [_prepared(f"b{i}", [f"Widgets, widgets: report number {i}."]) for i in range(8)]
    )
    library.put(
        "local",
        "small",
        [_prepared(f"s{i}", [f"A memo {i} that mentions widgets once, in passing."]) for i in range(3)],
    )
    found = search_together(
        [library.source("local", "big"), library.source("local", "small")], "widgets", limit=5
    )
    # every "big" passage outscores every "small" one, but it takes only its share (60 % of 5)
    assert [h.collection for h in found] == ["big"] * 3 + ["small"] * 2


def test_when_the_other_sources_run_out_the_rest_is_filled_by_score(library: LocalCollections) -> None:
    for name in ("big", "small"):
        library.create("local", name, "T2")
    library.put(
        "local", "big", [_prepared(f"b{i}", [f"Widgets widgets report number {i}."]) for i in range(8)]
    )
    library.put("local", "small", [_prepared("s", ["Nothing relevant here at all."])])
    found = search_together(
        [library.source("local", "big"), library.source("local", "small")], "widgets", limit=5
    )
    assert [h.collection for h in found] == ["big"] * 5


def test_a_backtest_leaves_out_documents_published_after_its_date(library: LocalCollections) -> None:
    library.create("local", "news", "T2")
    library.put(
        "local",
        "news",
        [
            _prepared("old", ["Acme widgets sold well."], date(2020, 1, 1)),
            _prepared("new", ["Acme widgets sold badly."], date(2024, 1, 1)),
            _prepared("undated", ["Acme widgets exist."]),
        ],
    )
    found = library.source("local", "news").search("Acme widgets", limit=5, as_of=date(2022, 1, 1))
    assert sorted(h.title for h in found) == ["old", "undated"]


def test_the_retrieval_cache_key_changes_with_the_collections_content(library: LocalCollections) -> None:
    library.create("local", "acme", "T2")
    library.put("local", "acme", [_prepared("one", ["Acme widgets are blue."])])
    cache: dict[str, list[dict[str, Any]]] = {}

    class Cache:
        def cache_get(self, key: str) -> list[dict[str, Any]] | None:
            return cache.get(key)

        def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None:
            cache[key] = hits

    directive = Directive(sub_claim_id="sc1", query="Acme widgets")

    def retrieve() -> tuple[bool, list[str]]:
        got = retrieval(
            directive,
            round=1,
            source=MergedSource([library.source("local", "acme")]),
            cache=Cache(),
            limit=5,
            as_of=None,
            ttl_s=60,
        )
        return got.cache_hit, [e.text for e in got.evidence]

    assert retrieve() == (False, ["Acme widgets are blue."])
    assert retrieve() == (True, ["Acme widgets are blue."])
    library.put("local", "acme", [_prepared("two", ["Acme widgets are now red."])])
    hit, texts = retrieve()
    assert not hit and sorted(texts) == ["Acme widgets are blue.", "Acme widgets are now red."]
    assert all(key.split("|")[0].startswith("collections:acme@") for key in cache)
    assert len({json.dumps(k) for k in cache}) == 2


# ---------------------------------------------------------------- urls


def test_urls_are_fetched_read_and_each_failure_named(library: LocalCollections, tmp_path: Path) -> None:
    article = (
        b"<html><head><title>Acme opens Dayton centre</title>"
        b'<link rel="canonical" href="https://news.example.com/acme-dayton">'
        b'<meta property="article:published_time" content="2023-05-10"></head><body><article>'
        b"<p>Acme opened a research centre in Dayton, Ohio, with 200 engineers, the company said.</p>"
        b"</article></body></html>"
    )
    with LoopbackWeb() as web:
        web.page("/acme-dayton", article)
        report = make_pdf(["Page one.", "Acme revenue was 4.2 billion dollars."])
        web.page("/report", report, content_type="application/pdf")
        web.page("/app", b"<html><body><script>render()</script></body></html>")
        web.page("/sheet", b"a,b\n1,2\n", content_type="text/csv")
        urls = [web.url(path) for path in ("/acme-dayton", "/report", "/app", "/sheet", "/gone")]
        library.create("local", "web", "T2")
        outcomes = ingest(library, "local", "web", urls, fetcher=functools.partial(fetch, private=True))
    assert [o.status for o in outcomes] == ["added", "added", "skipped", "skipped", "skipped"]
    assert "drawn by scripts" in (outcomes[2].reason or "")
    assert "not a kind claimcourt reads (text/csv)" in (outcomes[3].reason or "")
    assert outcomes[4].reason == "the server answered 404 Not Found"
    article_doc, report_doc = outcomes[0].document, outcomes[1].document
    assert article_doc is not None and report_doc is not None
    # its canonical url is another host's: cited where it was fetched, the page's claim kept beside it
    assert (article_doc.url, article_doc.canonical_url, article_doc.published) == (
        web.url("/acme-dayton"),
        "https://news.example.com/acme-dayton",
        date(2023, 5, 10),
    )
    assert (report_doc.url, report_doc.pages) == (web.url("/report"), 2)
    [found] = library.source("local", "web").search("revenue billion", limit=5)
    assert found.url == web.url("/report#page=2")


def test_a_fetch_gives_up_at_its_deadline_and_at_its_size_cap() -> None:
    hanging = threading.Event()
    with LoopbackWeb() as web:
        web.page("/slow", b"<p>late</p>", hold=hanging)
        web.page("/big", b"x" * 5000, content_type="text/plain")
        with pytest.raises(Unreadable, match=r"no answer within 0\.3 s"):
            fetch(web.url("/slow"), timeout_s=0.3, private=True)
        hanging.set()
        with pytest.raises(Unreadable, match="the server says it is 5 KB, over the 1 KB limit"):
            fetch(web.url("/big"), max_bytes=1000, private=True)
    with pytest.raises(Unreadable, match="only http and https"):
        fetch("ftp://example.com/file.pdf")


def test_the_best_scores_are_picked_as_a_stable_sort_of_all_of_them_would() -> None:
    import numpy as np

    draw = np.random.default_rng(3)
    for size, limit in [(1, 5), (10, 3), (1000, 5), (1000, 1000), (5000, 10)]:
        scores = np.round(draw.random(size, dtype=np.float32) * 4, 1) - 1  # many ties, many below zero
        order = (-scores).argsort(kind="stable")[:limit]
        expected = [(int(i), float(scores[i])) for i in order if scores[i] > 0]
        assert bm25.Index._best(scores, limit) == expected
