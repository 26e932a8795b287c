"""The SearXNG source against a loopback SearXNG stand-in and loopback pages (tests/fakes/web.py): its
JSON API for results, then each page fetched and read, with a deadline, a size cap, one fetch per
host at a time, and what stands in for a page that cannot be read."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from datetime import date

import httpx
import pytest

from claimcourt.errors import ConfigurationError, TransientError
from claimcourt.evidence import safe_http
from claimcourt.evidence.base import Hit
from claimcourt.evidence.pages import Page, PageError, PageReader, passages_of
from claimcourt.evidence.retrieve import retrieval
from claimcourt.evidence.searxng import SearxngSearch, relevant_passages
from claimcourt.models import Directive
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.network import FakeInternet
from tests.fakes.web import LoopbackWeb

pytestmark = pytest.mark.timeout(60)

WHO_PAGE = """<!doctype html><html lang="en"><head><title>Measles cases rise in Europe | WHO</title>
<meta property="article:published_time" content="2024-03-12T09:00:00Z"></head><body>
<nav><a href="/">Home</a> | <a href="/news">News</a> | <a href="/about">About us</a></nav>
<article><h1>Measles cases rise in Europe</h1>
<p>Measles cases in the European Region rose by 20 percent in 2024 compared with 2023, according to
figures the World Health Organization published on Tuesday, with the largest outbreaks in Romania.</p>
<p>Officials said the rise in measles cases follows a fall in routine vaccination during the pandemic,
when coverage of the second dose dropped below the 95 percent needed to stop the virus spreading.</p>
<p>The agency also announced a new director for its regional office, who takes up the post in June.</p>
</article><footer>Copyright World Health Organization. Privacy policy. Cookie settings.</footer>
</body></html>"""

LATER_PAGE = """<html><head><title>Measles in 2025</title>
<meta name="date" content="2025-02-01"></head><body><article>
<p>Measles cases kept rising in 2025, with twice as many measles cases reported in January as a year
earlier across the European Region, the regional office said in its monthly bulletin.</p>
</article></body></html>"""

SCRIPT_ONLY = (
    "<html><head><script>window.app = {};</script></head>"
    "<body><script>document.write('measles cases rise');</script><noscript></noscript></body></html>"
)

MEASLES = "measles cases Europe 2024 rise"


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb() as w:
        yield w


def reader(**kwargs: object) -> PageReader:
    kwargs.setdefault("private", True)  # every page here is on 127.0.0.1
    kwargs.setdefault("timeout_s", 10.0)
    return PageReader(**kwargs)  # type: ignore[arg-type]


def source(web: LoopbackWeb, pages: PageReader | None = None) -> SearxngSearch:
    return SearxngSearch(web.base_url, pages=pages or reader(), timeout_s=10.0)


# ---------------------------------------------------------------- the search


def test_hits_are_the_pages_passages_on_the_query_with_their_titles_urls_and_dates(web: LoopbackWeb) -> None:
    # Given a SearXNG instance whose results point at two readable pages
    web.page("/who/measles", WHO_PAGE)
    web.page("/text/notes.txt", "Measles notes\n\nMeasles cases in Europe rose again in 2024, a note says.\n",
             content_type="text/plain; charset=utf-8")  # fmt: skip
    web.results([
        web.result("/who/measles", "Measles cases rise", snippet="Measles cases in the European Region…"),
        web.result("/text/notes.txt", "notes.txt"),
    ])  # fmt: skip

    # When the source searches
    hits = source(web).search(MEASLES, limit=3)

    # Then the hits are the pages' passages that bear on the query, best first, pages taking turns
    who = web.url("/who/measles")
    assert hits == [
        Hit(
            text="Measles cases in the European Region rose by 20 percent in 2024 compared with 2023, "
            "according to figures the World Health Organization published on Tuesday, with the largest "
            "outbreaks in Romania.",
            title="Measles cases rise in Europe",
            url=who,
            published=date(2024, 3, 12),
        ),
        Hit(
            text="Measles notes. Measles cases in Europe rose again in 2024, a note says.",
            title="notes.txt",
            url=web.url("/text/notes.txt"),
        ),
        Hit(
            text="Officials said the rise in measles cases follows a fall in routine vaccination during "
            "the pandemic, when coverage of the second dose dropped below the 95 percent needed to stop the "
            "virus spreading.",
            title="Measles cases rise in Europe",
            url=who,
            published=date(2024, 3, 12),
        ),
    ]
    # And no boilerplate reached them (navigation, footer), nor the passage off the query's subject
    assert not any("Privacy" in h.text or "director" in h.text for h in hits)
    # And SearXNG was asked for JSON
    assert web.queries == [{"q": [MEASLES], "format": ["json"], "pageno": ["1"]}]


def test_pages_that_cannot_be_read_give_way_to_their_snippets_and_the_rest_still_serve(
    web: LoopbackWeb,
) -> None:
    # Given results pointing at a page that never answers in time, one too large, a PDF, a page of
    # scripts only, one that is gone, and one good page
    web.page("/slow", WHO_PAGE, hold=threading.Event())
    web.page("/huge", "<html><body><p>" + "measles " * 40_000 + "</p></body></html>")
    web.page("/report.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3 binary", content_type="application/pdf")
    web.page("/app", SCRIPT_ONLY)
    web.page("/who/measles", WHO_PAGE)
    web.results([
        web.result("/slow", "Slow page", snippet="Measles cases in Europe rose in 2024 (its snippet)."),
        web.result("/huge", "Huge page", snippet="Measles everywhere (huge page's snippet)."),
        web.result("/report.pdf", "Report", snippet="Measles report 2024 (the PDF's snippet)."),
        web.result("/app", "App"),  # no snippet: nothing stands in for it
        web.result("/gone", "Gone"),
        web.result("/who/measles", "Measles cases rise"),
    ])  # fmt: skip

    # When the source searches with a 1 s deadline and a 100 kB cap per page
    hits = source(web, reader(timeout_s=1.0, max_bytes=100_000)).search(MEASLES, limit=6)

    # Then the readable page serves, and each unreadable one with a snippet is its snippet
    assert [(h.url.rsplit("/", 1)[1], h.text[:40]) for h in hits] == [
        ("slow", "Measles cases in Europe rose in 2024 (it"),
        ("huge", "Measles everywhere (huge page's snippet)"),
        ("report.pdf", "Measles report 2024 (the PDF's snippet)."),
        ("measles", "Measles cases in the European Region ros"),
        ("measles", "Officials said the rise in measles cases"),
    ]


@pytest.mark.parametrize(
    ("path", "kwargs", "why"),
    [
        ("/slow", {"hold": threading.Event()}, "timed out after 1 s"),
        ("/big", {"body": "<p>" + "x" * 200_000 + "</p>"}, "larger than 100,000 bytes (200,007)"),
        ("/big-unsized", {"body": "<p>" + "x" * 200_000 + "</p>", "send_length": False},
         "larger than 100,000 bytes"),
        ("/file.pdf", {"body": b"%PDF-1.7", "content_type": "application/pdf"},
         "not a web page (application/pdf)"),
        ("/untyped", {"body": b"\x00\x01", "content_type": None}, "not a web page (no content type)"),
        ("/scripts", {"body": SCRIPT_ONLY}, "no readable text (only scripts or markup)"),
        ("/error", {"body": "<p>oops</p>", "status": 500}, "HTTP 500"),
    ],
)  # fmt: skip
def test_a_page_that_cannot_be_read_says_why(
    web: LoopbackWeb, path: str, kwargs: dict[str, object], why: str
) -> None:
    web.page(path, **kwargs)  # type: ignore[arg-type]

    with pytest.raises(PageError, match=re.escape(why)):
        reader(timeout_s=1.0, max_bytes=100_000).read(web.url(path))


def test_a_redirect_is_followed_and_the_page_is_named_by_where_it_landed(web: LoopbackWeb) -> None:
    web.page("/old", status=301, headers={"location": "/who/measles"}, content_type=None)
    web.page("/who/measles", WHO_PAGE)
    web.page("/loop", status=302, headers={"location": "/loop"}, content_type=None)

    page = reader().read(web.url("/old"))

    assert page.url == web.url("/who/measles") and page.published == date(2024, 3, 12)
    with pytest.raises(PageError, match="more than 5 redirects"):
        reader().read(web.url("/loop"))


def test_a_page_on_this_machine_is_refused_unless_private_pages_are_allowed(web: LoopbackWeb) -> None:
    web.page("/who/measles", WHO_PAGE)

    with pytest.raises(PageError, match=r"127\.0\.0\.1 is on a private network or this machine"):
        PageReader(timeout_s=5.0).read(web.url("/who/measles"))
    assert web.fetched() == []  # refused before anything was sent

    assert reader().read(web.url("/who/measles")).title == "Measles cases rise in Europe"


def test_a_page_read_once_is_not_fetched_again(web: LoopbackWeb) -> None:
    web.page("/who/measles", WHO_PAGE)
    pages = reader()

    first, again = pages.read(web.url("/who/measles")), pages.read(web.url("/who/measles"))

    assert first == again and web.fetched() == ["/who/measles"]


def test_pages_of_one_host_are_fetched_one_at_a_time(web: LoopbackWeb) -> None:
    # Given a page held until the test lets it answer, and another page on the same host
    release = threading.Event()
    first_arrived = web.page("/a", WHO_PAGE, hold=release).entered
    second_arrived = web.page("/b", WHO_PAGE).entered
    # When both are read at once
    reading = threading.Thread(target=reader().read_all, args=([web.url("/a"), web.url("/b")],))
    reading.start()
    assert first_arrived.wait(10)
    # Then the second is not asked for while the first is being fetched (2 s is ample for it to arrive)
    assert not second_arrived.wait(2)
    release.set()
    reading.join(10)
    assert web.log == [("enter", "/a"), ("leave", "/a"), ("enter", "/b"), ("leave", "/b")]


def test_pages_of_different_hosts_are_fetched_side_by_side(web: LoopbackWeb) -> None:
    # Given a page on 127.0.0.1 that answers only once a page on localhost (the same server) is asked for
    other_arrived = web.page("/b", WHO_PAGE).entered
    web.page("/a", WHO_PAGE, hold=other_arrived)

    # When both are read at once, the first answers because the second host's fetch ran beside it
    found = reader().read_all([web.url("/a"), web.url("/b", host="localhost")])

    assert all(isinstance(p, Page) for p in found)
    assert web.log.index(("enter", "/b")) < web.log.index(("leave", "/a"))


def test_a_backtest_reads_no_page_the_engine_dates_later_and_drops_pages_dated_later(
    web: LoopbackWeb,
) -> None:
    # Given one page dated before the backtest date, one the engine dates after, one the page dates after
    web.page("/who/measles", WHO_PAGE)
    web.page("/later-by-engine", WHO_PAGE)
    web.page("/later-by-page", LATER_PAGE)
    web.results([
        web.result("/who/measles", "Measles cases rise"),
        web.result("/later-by-engine", "Later", snippet="Measles 2025.", published="2025-01-05T10:00:00Z"),
        web.result("/later-by-page", "Measles in 2025", snippet="Measles cases kept rising in 2025."),
    ])  # fmt: skip

    hits = source(web).search(MEASLES, limit=5, as_of=date(2024, 6, 30))

    assert {h.url for h in hits} == {web.url("/who/measles")}
    assert "/later-by-engine" not in web.fetched()  # not even fetched


def test_the_retrieval_tiers_every_url_and_caches_the_search(web: LoopbackWeb, store: SqliteStore) -> None:
    # Given results on a government site and a blog (their pages served in memory: no traffic leaves)
    gov, blog = "https://www.cdc.gov/measles/data", "https://measles-blog.example.net/post"

    def serve(request: httpx.Request) -> httpx.Response:
        body = WHO_PAGE if str(request.url) == gov else WHO_PAGE.replace("WHO", "A blog")
        return httpx.Response(200, text=body, headers={"content-type": "text/html"})

    pages = PageReader(private=True, transport=httpx.MockTransport(serve))
    web.results([
        {**web.result("/x", "CDC"), "url": gov},
        {**web.result("/y", "Blog"), "url": blog + "?utm_source=feed&id=7"},
    ])  # fmt: skip
    directive = Directive(sub_claim_id="sc1", query=MEASLES)

    def retrieve() -> list[tuple[str, str]]:
        found = retrieval(directive, round=1, source=source(web, pages), cache=store, limit=4, as_of=None,
                          ttl_s=3600)  # fmt: skip
        return [(e.source_url, e.tier) for e in found.evidence]

    # When the directive is retrieved twice
    first, second = retrieve(), retrieve()

    # Then a .gov page is T1 and the blog T2 (its tracking parameter gone), and the second was cached
    assert set(first) == {(gov, "T1"), (blog + "?id=7", "T2")}
    assert second == first and len(web.queries) == 1


# ---------------------------------------------------------------- the instance's answers


def test_an_instance_that_refuses_json_names_the_setting_to_change(web: LoopbackWeb) -> None:
    web.page("/search", "<h1>403 Forbidden</h1>", status=403)

    with pytest.raises(ConfigurationError, match=r"add json to search.formats in its settings.yml"):
        source(web).search(MEASLES, limit=3)


def test_a_url_that_is_not_searxng_is_a_configuration_error(web: LoopbackWeb) -> None:
    web.page("/search", "<html>a blog</html>")

    with pytest.raises(ConfigurationError, match="did not answer JSON"):
        source(web).search(MEASLES, limit=3)


def test_an_instance_down_or_failing_is_transient(web: LoopbackWeb) -> None:
    web.page("/search", "bad gateway", status=502, content_type="text/plain")
    with pytest.raises(TransientError, match="HTTP 502"):
        source(web).search(MEASLES, limit=3)

    closed = SearxngSearch("http://127.0.0.1:9", pages=reader(), timeout_s=5.0)  # nothing listens on 9
    with pytest.raises(TransientError, match="could not be reached"):
        closed.search(MEASLES, limit=3)


def test_an_error_names_the_instance_but_never_a_password_in_its_url() -> None:
    """Settings refuses such a URL; a source built with one some other way still keeps it out of the error
    (a run's error is shown through the API, and logged)."""
    closed = SearxngSearch("http://admin:hunter2@127.0.0.1:9", pages=reader(), timeout_s=5.0)
    with pytest.raises(TransientError) as failed:
        closed.search(MEASLES, limit=3)
    assert str(failed.value).startswith("SearXNG at http://127.0.0.1:9 could not be reached")
    assert "hunter2" not in str(failed.value) + repr(closed)


def test_no_results_because_every_engine_failed_is_transient_but_no_results_is_an_answer(
    web: LoopbackWeb,
) -> None:
    web.results([], unresponsive=[["duckduckgo", "CAPTCHA"], ["brave", "timeout"]])
    with pytest.raises(TransientError, match="no engine answered \\(brave, duckduckgo\\)"):
        source(web).search(MEASLES, limit=3)

    web.results([])
    assert source(web).search(MEASLES, limit=3) == []


def test_zero_limit_asks_nothing(web: LoopbackWeb) -> None:
    assert source(web).search(MEASLES, limit=0) == []
    assert web.queries == []


# ---------------------------------------------------------------- passages


def test_a_page_is_cut_into_passages_a_heading_joined_to_its_paragraph_a_long_one_at_sentence_ends() -> None:
    long = " ".join(f"Sentence number {i} says something about measles cases." for i in range(40))
    found = passages_of(f"Measles\n\nShort para.\n{long}\n")

    assert found[0].startswith("Measles. Short para. Sentence number 0")
    assert passages_of(
        "Measles\nMeasles cases rose in 2024 across the European Region, the WHO said.", "Measles"
    ) == ("Measles cases rose in 2024 across the European Region, the WHO said.",)
    assert all(len(p) <= 800 for p in found) and len(found) == 3
    assert " ".join(found).endswith("Sentence number 39 says something about measles cases.")


def test_relevant_passages_share_a_third_of_the_querys_words_most_first() -> None:
    passages = ("Rain fell in Spain.", "Measles cases rose.", "Measles cases in Europe rose in 2024.")

    assert relevant_passages(passages, "measles cases Europe 2024") == [
        "Measles cases in Europe rose in 2024.",
        "Measles cases rose.",
    ]


def test_a_page_is_asked_for_uncompressed_so_the_size_cap_counts_what_arrives() -> None:
    asked: list[str] = []

    def serve(request: httpx.Request) -> httpx.Response:
        asked.append(request.headers.get("accept-encoding", ""))
        return httpx.Response(200, text=WHO_PAGE, headers={"content-type": "text/html"})

    PageReader(private=True, transport=httpx.MockTransport(serve)).read("https://www.who.int/measles")
    assert asked == ["identity"]  # a gzip body is inflated a chunk at a time, before the cap can count it


def test_a_host_that_resolves_again_to_this_machine_is_sent_nothing(
    web: LoopbackWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a result's host that is public when checked and this machine from then on (DNS rebinding)
    internet = FakeInternet(monkeypatch)
    internet.name("www.who.int", "93.184.216.34", "127.0.0.1")
    web.page("/who/measles", "<html><body><p>This machine's own service: measles cases.</p></body></html>")
    with LoopbackWeb() as who:
        who.page("/who/measles", WHO_PAGE)
        internet.route("93.184.216.34", web.port, to=who.port)  # the site's real server

        page = reader(private=False).read(web.url("/who/measles", host="www.who.int"))

    # Then the page came from the address that was checked, and nothing reached this machine's service
    assert page.title == "Measles cases rise in Europe"
    assert internet.connected == [("93.184.216.34", web.port)] and web.fetched() == []


@pytest.mark.parametrize("address", ["::ffff:127.0.0.1", "::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1"])
def test_an_ipv6_form_of_a_private_ipv4_address_is_not_public(address: str) -> None:
    assert not safe_http.is_public(address)
    assert safe_http.is_public("93.184.216.34") and safe_http.is_public("2606:2800:220:1:248:1893:25c8:1946")
