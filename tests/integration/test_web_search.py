"""AnthropicWebSearch: the real `anthropic` SDK against a fake Messages API serving web-search turns."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import pytest

from claimcourt.errors import ProviderError, TransientError
from claimcourt.evidence.base import Hit
from claimcourt.evidence.model_search import SearchUsage
from claimcourt.evidence.web_search import AnthropicWebSearch, parse_page_age
from claimcourt.reasoning.prices import WEB_SEARCH_USD_PER_REQUEST
from claimcourt.stages.retrieve import search_call
from tests.fakes.provider_servers import (
    FakeAnthropicServer,
    FakeSearchResult,
    anthropic_error,
    anthropic_web_search_message,
)

pytestmark = pytest.mark.timeout(30)

KEY = "sk-ant-api03-test-key-0123456789abcdef"
MODEL = "claude-haiku-4-5"

WHO = FakeSearchResult(
    url="https://www.who.int/news/measles-2024",
    title="Measles cases rise in 2024",
    page_age="March 12, 2024",
    cited_text="Measles cases rose by 20% in 2024 compared with 2023.",
)
CDC = FakeSearchResult(
    url="https://www.cdc.gov/measles/data",
    title="Measles data and statistics",
    page_age="2025-01-15T08:00:00Z",
    cited_text="In 2025 the US reported its highest count since 1992.",
)
BLOG = FakeSearchResult(
    url="https://example.org/blog/measles", title="A blog on measles", page_age="1 day ago"
)


@pytest.fixture
def server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as fake:
        yield fake


def source_for(server: FakeAnthropicServer, max_retries: int = 2) -> AnthropicWebSearch:
    return AnthropicWebSearch(KEY, model=MODEL, base_url=server.url, max_retries=max_retries, timeout=5.0)


def prompt_of(server: FakeAnthropicServer) -> str:
    content = server.requests[-1].body["messages"][0]["content"]
    assert isinstance(content, str)
    return content


def test_hits_are_the_cited_passages_with_their_sources_and_dates(server: FakeAnthropicServer) -> None:
    # Given a web-search turn citing two results
    server.enqueue(
        200,
        anthropic_web_search_message(
            "measles cases 2024", [WHO, CDC], model="claude-haiku-4-5-20251001", input_tokens=900
        ),
    )
    source = source_for(server)

    # When the source searches
    hits = source.search("measles cases 2024", limit=5)

    # Then each cited passage is a hit, dated from its result's page_age
    assert hits == [
        Hit(text=WHO.cited_text or "", title=WHO.title, url=WHO.url, published=date(2024, 3, 12)),
        Hit(text=CDC.cited_text or "", title=CDC.title, url=CDC.url, published=date(2025, 1, 15)),
    ]
    # And the usage is there to bill
    assert source.last_usage == SearchUsage("claude-haiku-4-5-20251001", 900, 40)
    assert source.last_search_requests == 1
    # And the request offered the server-side search tool, capped
    body = server.requests[0].body
    assert body["model"] == MODEL
    assert body["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}]
    assert "tool_choice" not in body
    assert "measles cases 2024" in prompt_of(server)


def test_prompt_cache_tokens_are_billed_at_their_own_rates(server: FakeAnthropicServer) -> None:
    # Given a search that read 2,000 tokens from the prompt cache and wrote 500 to it, beside its input
    server.enqueue(
        200,
        anthropic_web_search_message(
            "measles",
            [WHO],
            model="claude-haiku-4-5-20251001",
            input_tokens=900,
            cache_read=2000,
            cache_write=500,
        ),
    )
    source = source_for(server)
    source.search("measles", limit=5)

    billed = search_call(source, "r_1", "retrieve:1:sc1:search")

    assert billed is not None
    assert (billed.input_tokens, billed.cache_read_tokens, billed.cache_write_tokens) == (900, 2000, 500)
    # claude-haiku-4-5: $1 / $5 per million tokens, a cache read at 0.1 of input, a write at 1.25
    assert billed.cost_usd == pytest.approx(
        (900 * 1 + 40 * 5 + 2000 * 0.1 + 500 * 1.25) / 1e6 + WEB_SEARCH_USD_PER_REQUEST
    )


def test_uncited_results_follow_the_cited_ones_with_their_title_as_text(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_web_search_message("measles", [WHO, BLOG]))

    hits = source_for(server).search("measles", limit=5)

    assert [h.url for h in hits] == [WHO.url, BLOG.url]
    assert hits[1].text == BLOG.title and hits[1].published is not None


def test_hits_are_deduplicated_and_capped_at_the_limit(server: FakeAnthropicServer) -> None:
    # Given the same passage cited twice, and three sources in all
    server.enqueue(200, anthropic_web_search_message("measles", [WHO, WHO, CDC, BLOG]))

    hits = source_for(server).search("measles", limit=2)

    assert [(h.url, h.text) for h in hits] == [(WHO.url, WHO.cited_text), (CDC.url, CDC.cited_text)]


def test_backtest_drops_what_was_published_after_the_date(server: FakeAnthropicServer) -> None:
    # Given results from before and after the backtest date, and one from yesterday
    server.enqueue(200, anthropic_web_search_message("measles cases", [WHO, CDC, BLOG]))

    # When the source searches as of mid-2024
    hits = source_for(server).search("measles cases", limit=5, as_of=date(2024, 6, 30))

    # Then only the earlier source is left
    assert [h.url for h in hits] == [WHO.url]
    # And the prompt asked for sources up to that date, with the date in the query
    prompt = prompt_of(server)
    assert "measles cases (as of 2024-06-30)" in prompt
    assert "published on or before 2024-06-30" in prompt


def test_undated_results_are_kept_in_a_backtest(server: FakeAnthropicServer) -> None:
    undated = FakeSearchResult(url="https://example.com/x", title="X", page_age=None, cited_text="A quote.")
    server.enqueue(200, anthropic_web_search_message("x", [undated]))

    hits = source_for(server).search("x", limit=5, as_of=date(2020, 1, 1))

    assert [(h.text, h.published) for h in hits] == [("A quote.", None)]


def test_rate_limited_search_is_retried_then_succeeds(server: FakeAnthropicServer) -> None:
    server.enqueue(429, anthropic_error("rate_limit_error", "Too many requests"))
    server.enqueue(200, anthropic_web_search_message("measles", [WHO]))

    hits = source_for(server).search("measles", limit=5)

    assert len(hits) == 1
    assert len(server.requests) == 2


def test_persistently_overloaded_api_raises_transient_error(server: FakeAnthropicServer) -> None:
    server.enqueue_many(3, 529, anthropic_error("overloaded_error", "Overloaded"))
    source = source_for(server)

    with pytest.raises(TransientError, match="529 overloaded_error"):
        source.search("measles", limit=5)
    assert len(server.requests) == 3
    assert source.last_usage is None


def test_bad_request_raises_provider_error_without_retry_or_key(server: FakeAnthropicServer) -> None:
    server.enqueue(400, anthropic_error("invalid_request_error", f"web search is not enabled for {KEY}"))

    with pytest.raises(ProviderError) as caught:
        source_for(server).search("measles", limit=5)

    assert len(server.requests) == 1
    assert not isinstance(caught.value, TransientError)
    assert KEY not in str(caught.value)


def test_search_tool_outage_with_no_hits_is_transient(server: FakeAnthropicServer) -> None:
    # Given the search tool itself failed (a 200 whose tool result is an error), nothing must be cached
    server.enqueue(200, anthropic_web_search_message("measles", [], error_code="too_many_requests"))

    with pytest.raises(TransientError, match="too_many_requests"):
        source_for(server).search("measles", limit=5)


def test_search_that_used_up_its_searches_returns_what_it_found(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_web_search_message("measles", [], error_code="max_uses_exceeded"))

    assert source_for(server).search("measles", limit=5) == []


def test_zero_limit_makes_no_call(server: FakeAnthropicServer) -> None:
    assert source_for(server).search("measles", limit=0) == []
    assert server.requests == []


def test_a_failed_search_bills_nothing_not_the_search_before(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_web_search_message("measles", [WHO]))
    server.enqueue(400, anthropic_error("invalid_request_error", "bad"))
    source = source_for(server)
    source.search("measles", limit=5)
    assert source.last_search_requests == 1

    with pytest.raises(ProviderError):
        source.search("measles", limit=5)
    assert (source.last_usage, source.last_search_requests) == (None, 0)


def test_repr_names_the_model_and_server_never_the_key(server: FakeAnthropicServer) -> None:
    shown = repr(source_for(server))
    assert shown.startswith(f"AnthropicWebSearch(model={MODEL!r}, base_url='{server.url}")
    assert KEY not in shown


@pytest.mark.parametrize(
    ("page_age", "expected"),
    [
        ("April 30, 2025", date(2025, 4, 30)),
        ("Apr 30, 2025", date(2025, 4, 30)),
        ("30 April 2025", date(2025, 4, 30)),
        ("2025-04-30", date(2025, 4, 30)),
        ("2025-04-30T12:00:00Z", date(2025, 4, 30)),
        ("3 days ago", date(2025, 5, 7)),
        ("2 weeks ago", date(2025, 4, 26)),
        ("5 hours ago", date(2025, 5, 10)),
        ("recently", None),
        ("", None),
        (None, None),
    ],
)
def test_page_age_is_parsed_when_it_is_a_date(page_age: str | None, expected: date | None) -> None:
    assert parse_page_age(page_age, today=date(2025, 5, 10)) == expected
