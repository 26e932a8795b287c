"""OpenAIWebSearch: the real `openai` SDK's Responses API against a fake server on 127.0.0.1 serving
web-search turns (a web_search_call, then a message whose url_citation annotations mark the sources)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from claimcourt.errors import ProviderError, TransientError
from claimcourt.evidence.base import Hit
from claimcourt.evidence.model_search import SearchUsage
from claimcourt.evidence.openai_search import OpenAIWebSearch
from claimcourt.reasoning.prices import OPENAI_WEB_SEARCH_USD_PER_CALL
from claimcourt.stages.retrieve import search_call
from tests.fakes.provider_servers import (
    FakeOpenAIServer,
    FakeSearchResult,
    openai_error,
    openai_message,
    openai_response,
    openai_web_search_call,
    openai_web_search_response,
)

pytestmark = pytest.mark.timeout(30)

KEY = "sk-proj-test-key-0123456789abcdef"
MODEL = "gpt-4.1"

WHO = FakeSearchResult(
    url="https://www.who.int/news/measles-2024",
    title="Measles cases rise in 2024",
    page_age="2024-03-12",
    cited_text="Measles cases rose by 20% in 2024 compared with 2023.",
)
CDC = FakeSearchResult(
    url="https://www.cdc.gov/measles/data?view=table",
    title="Measles data and statistics",
    page_age="January 15, 2025",
    cited_text="In 2025 the US reported its highest count since 1992.",
)
BLOG = FakeSearchResult(
    url="https://example.org/blog/measles",
    title="A blog on measles",
    page_age=None,
    cited_text="Measles is back, and vaccination rates explain it.",
)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def source_for(server: FakeOpenAIServer, max_retries: int = 2, model: str = MODEL) -> OpenAIWebSearch:
    return OpenAIWebSearch(
        KEY, model=model, base_url=server.url, max_retries=max_retries, timeout=5.0, malformed_backoff_s=0
    )


def body_of(server: FakeOpenAIServer) -> dict[str, Any]:
    body = server.requests[-1].body
    assert isinstance(body, dict)
    return body


def test_hits_are_the_quoted_passages_with_their_sources_and_dates(server: FakeOpenAIServer) -> None:
    # Given a web-search turn quoting two results, each with the date the model read on the page
    server.enqueue(200, openai_web_search_response("measles cases 2024", [WHO, CDC], input_tokens=900))
    source = source_for(server)

    # When the source searches
    hits = source.search("measles cases 2024", limit=5)

    # Then each quoted passage is a hit, its url without OpenAI's tracking parameter, dated as read
    assert hits == [
        Hit(text=WHO.cited_text or "", title=WHO.title, url=WHO.url, published=date(2024, 3, 12)),
        Hit(text=CDC.cited_text or "", title=CDC.title, url=CDC.url, published=date(2025, 1, 15)),
    ]
    # And the usage is there to bill, with the searches the API counted
    assert source.last_usage == SearchUsage("gpt-4.1-2025-04-14", 900, 60)
    assert source.last_search_requests == 1
    # And the request went to the Responses API with the hosted search tool, stored nowhere
    request = server.requests[0]
    assert request.method == "POST" and request.path == "/v1/responses"
    body = body_of(server)
    assert body["model"] == MODEL and body["store"] is False
    assert body["tools"] == [{"type": "web_search", "search_context_size": "medium"}]
    assert "<query>measles cases 2024</query>" in body["input"]
    assert "[published YYYY-MM-DD]" in body["instructions"]
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_the_search_is_billed_per_call_on_top_of_its_tokens(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_web_search_response("measles", [WHO], searches=2, web_searches=2))
    source = source_for(server)
    source.search("measles", limit=5)

    billed = search_call(source, "r_1", "retrieve:1:sc1:search")

    assert billed is not None
    # gpt-4.1: $2 / $8 per million tokens, and a non-reasoning model's search call
    assert billed.cost_usd == pytest.approx(
        (900 * 2 + 60 * 8) / 1e6 + 2 * OPENAI_WEB_SEARCH_USD_PER_CALL["other"]
    )
    assert (
        source_for(server, model="gpt-5-mini").usd_per_search == OPENAI_WEB_SEARCH_USD_PER_CALL["reasoning"]
    )


def test_cached_input_tokens_are_billed_at_the_cached_rate(server: FakeOpenAIServer) -> None:
    # Given a search whose 900 input tokens include 600 that OpenAI read from its prompt cache
    server.enqueue(
        200,
        openai_web_search_response("measles", [WHO], input_tokens=900, output_tokens=60, cached_tokens=600),
    )
    source = source_for(server)
    source.search("measles", limit=5)

    billed = search_call(source, "r_1", "retrieve:1:sc1:search")

    # Then the ledger keeps them apart from the rest of the input, as a debater's call is kept
    assert billed is not None
    assert (billed.input_tokens, billed.cache_read_tokens, billed.output_tokens) == (300, 600, 60)
    # gpt-4.1: $2 per million input tokens, $0.50 cached, $8 output; and one search call
    assert billed.cost_usd == pytest.approx(
        (300 * 2 + 600 * 0.5 + 60 * 8) / 1e6 + OPENAI_WEB_SEARCH_USD_PER_CALL["other"]
    )


def test_searches_are_counted_from_the_output_when_the_api_reports_no_tool_usage(
    server: FakeOpenAIServer,
) -> None:
    server.enqueue(200, openai_web_search_response("measles", [WHO], searches=3, web_searches=None))
    source = source_for(server)

    source.search("measles", limit=5)

    assert source.last_search_requests == 3


def test_backtest_drops_what_was_published_after_the_date_and_keeps_the_undated(
    server: FakeOpenAIServer,
) -> None:
    # Given passages dated before and after the backtest date, and one the page gave no date for
    server.enqueue(200, openai_web_search_response("measles cases", [WHO, CDC, BLOG]))

    # When the source searches as of mid-2024
    hits = source_for(server).search("measles cases", limit=5, as_of=date(2024, 6, 30))

    # Then the later passage is gone, the undated one stays
    assert [(h.url, h.published) for h in hits] == [(WHO.url, date(2024, 3, 12)), (BLOG.url, None)]
    # And the prompt asked for sources up to that date, with the date in the query
    prompt = body_of(server)["input"]
    assert "<query>measles cases (as of 2024-06-30)</query>" in prompt
    assert "published on or before 2024-06-30" in prompt


def test_hits_are_deduplicated_and_capped_at_the_limit(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_web_search_response("measles", [WHO, WHO, CDC, BLOG]))

    hits = source_for(server).search("measles", limit=2)

    assert [(h.url, h.text) for h in hits] == [(WHO.url, WHO.cited_text), (CDC.url, CDC.cited_text)]


def _cite(text: str, piece: str, url: str, title: str, *, after: int = 0) -> dict[str, Any]:
    start = text.index(piece, after)
    return {"type": "url_citation", "start_index": start, "end_index": start + len(piece), "url": url,
            "title": title}  # fmt: skip


def test_a_passage_cited_twice_in_a_row_and_prose_citations_are_read_as_the_model_wrote_them(
    server: FakeOpenAIServer,
) -> None:
    # Given a reply in prose: one passage backed by two sources, then a sentence in a paragraph
    text = (
        "According to the agencies:\n"
        "[published 2024-03-12] \u201cMeasles cases rose by 20% in 2024.\u201d "
        "([who.int](https://www.who.int/a?utm_source=openai)) "
        "([cdc.gov](https://www.cdc.gov/b?utm_source=openai))\n"
        "Europe saw most cases ([ecdc.europa.eu](https://www.ecdc.europa.eu/c?utm_source=openai)). "
        "Coverage fell below 95 percent ([unicef.org](https://www.unicef.org/d?utm_source=openai)).\n"
    )
    cited = [("who.int", "a", "WHO"), ("cdc.gov", "b", "CDC"), ("ecdc.europa.eu", "c", "ECDC"),
             ("unicef.org", "d", "UNICEF")]  # fmt: skip
    annotations = [
        _cite(text, f"([{site}](https://www.{site}/{page}?utm_source=openai))",
              f"https://www.{site}/{page}?utm_source=openai", title)
        for site, page, title in cited
    ]  # fmt: skip
    server.enqueue(
        200, openai_response([openai_web_search_call("measles"), openai_message(text, annotations)])
    )

    hits = source_for(server).search("measles", limit=5)

    assert [(h.title, h.url, h.text, h.published) for h in hits] == [
        ("WHO", "https://www.who.int/a", "Measles cases rose by 20% in 2024.", date(2024, 3, 12)),
        ("CDC", "https://www.cdc.gov/b", "Measles cases rose by 20% in 2024.", date(2024, 3, 12)),
        ("ECDC", "https://www.ecdc.europa.eu/c", "Europe saw most cases", None),
        ("UNICEF", "https://www.unicef.org/d", "Coverage fell below 95 percent", None),
    ]


def test_an_annotation_that_spans_the_cited_text_itself_is_that_passage(server: FakeOpenAIServer) -> None:
    # Given a server whose annotations mark the supported text rather than a link after it
    text = "- [published 2023-05-01] Vaccination coverage fell to 83% worldwide in 2022.\n"
    piece = "Vaccination coverage fell to 83% worldwide in 2022."
    annotations = [_cite(text, piece, "https://data.unicef.org/coverage", "Immunization coverage")]
    server.enqueue(
        200, openai_response([openai_web_search_call("coverage"), openai_message(text, annotations)])
    )

    hits = source_for(server).search("vaccination coverage", limit=5)

    assert hits == [
        Hit(text=piece, title="Immunization coverage", url="https://data.unicef.org/coverage",
            published=date(2023, 5, 1))
    ]  # fmt: skip


def test_a_sparse_response_from_another_server_is_read_as_far_as_it_goes(server: FakeOpenAIServer) -> None:
    # Given a server that leaves out what it does not track: usage, the call's action, a citation's title
    text = '- [published unknown] "Measles cases rose by 20% in 2024." ([who.int](https://www.who.int/a))\n'
    marker = "([who.int](https://www.who.int/a))"
    start = text.index(marker)
    citation = {"type": "url_citation", "start_index": start, "end_index": start + len(marker),
                "url": "https://www.who.int/a"}  # fmt: skip
    call = {"id": "ws_1", "type": "web_search_call", "status": "completed"}
    server.enqueue(200, {"id": "resp_1", "object": "response", "model": "gpt-4.1", "status": "completed",
                         "output": [call, openai_message(text, [citation])]})  # fmt: skip
    source = source_for(server)

    hits = source.search("measles", limit=5)

    assert hits == [Hit(text="Measles cases rose by 20% in 2024.", title="https://www.who.int/a",
                        url="https://www.who.int/a")]  # fmt: skip
    assert (source.last_usage, source.last_search_requests) == (SearchUsage("gpt-4.1", 0, 0), 1)


def test_rate_limited_search_is_retried_then_succeeds(server: FakeOpenAIServer) -> None:
    server.enqueue(429, openai_error("Rate limit reached", "requests", "rate_limit_exceeded"))
    server.enqueue(200, openai_web_search_response("measles", [WHO]))

    hits = source_for(server).search("measles", limit=5)

    assert len(hits) == 1 and len(server.requests) == 2


def test_a_persistently_unavailable_api_raises_transient_error(server: FakeOpenAIServer) -> None:
    server.enqueue_many(3, 503, openai_error("The server is overloaded", "server_error"))
    source = source_for(server)

    with pytest.raises(TransientError, match="HTTP 503"):
        source.search("measles", limit=5)
    assert len(server.requests) == 3
    assert source.last_usage is None


def test_a_bad_request_raises_provider_error_without_retry_or_key(server: FakeOpenAIServer) -> None:
    server.enqueue(400, openai_error(f"Hosted tool 'web_search' is not supported with {KEY}"))

    with pytest.raises(ProviderError) as caught:
        source_for(server).search("measles", limit=5)

    assert len(server.requests) == 1
    assert not isinstance(caught.value, TransientError)
    assert KEY not in str(caught.value)


def test_a_body_that_is_not_a_response_is_asked_again_then_transient(server: FakeOpenAIServer) -> None:
    server.enqueue(200, {})
    server.enqueue(200, openai_web_search_response("measles", [WHO]))

    assert len(source_for(server).search("measles", limit=5)) == 1

    server.enqueue_many(3, 200, {"unexpected": True})
    with pytest.raises(TransientError, match="not a response"):
        source_for(server).search("measles", limit=5)


def test_search_calls_that_all_failed_with_nothing_quoted_are_transient(server: FakeOpenAIServer) -> None:
    # Nothing found because the search itself failed must not be cached as "nothing found"
    failed = openai_response(
        [openai_web_search_call("measles", status="failed"), openai_message("I could not search.", [])]
    )
    server.enqueue(200, failed)

    with pytest.raises(TransientError, match="every web search call failed"):
        source_for(server).search("measles", limit=5)


def test_a_search_that_found_nothing_returns_nothing(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_web_search_response("an obscure thing", []))

    assert source_for(server).search("an obscure thing", limit=5) == []


def test_zero_limit_makes_no_call(server: FakeOpenAIServer) -> None:
    assert source_for(server).search("measles", limit=0) == []
    assert server.requests == []


def test_a_failed_search_bills_nothing_not_the_search_before(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_web_search_response("measles", [WHO]))
    server.enqueue(400, openai_error("bad request"))
    source = source_for(server)
    source.search("measles", limit=5)
    assert source.last_search_requests == 1

    with pytest.raises(ProviderError):
        source.search("measles", limit=5)
    assert (source.last_usage, source.last_search_requests) == (None, 0)


def test_repr_names_the_model_and_server_never_the_key(server: FakeOpenAIServer) -> None:
    shown = repr(source_for(server))
    assert shown.startswith(f"OpenAIWebSearch(model={MODEL!r}, base_url='{server.url}")
    assert KEY not in shown
