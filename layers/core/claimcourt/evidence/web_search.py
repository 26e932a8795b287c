"""Web evidence through Anthropic's server-side web search tool: one Messages call per query, hits
built from the citations (quoted passages) and the search results (url, title, page age)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

import anthropic
from anthropic.types import Message, MessageParam, WebSearchTool20250305Param

from claimcourt.errors import TransientError
from claimcourt.evidence.base import Hit
from claimcourt.evidence.model_search import ModelWebSearch, SearchUsage
from claimcourt.evidence.web import ANTHROPIC_WEB, parse_page_age, search_prompt, select_hits
from claimcourt.reasoning.anthropic_provider import raise_mapped

# Error codes of a web_search_tool_result that a later retry may not hit.
_TRANSIENT_SEARCH_ERRORS = frozenset({"too_many_requests", "unavailable"})


@dataclass(frozen=True)
class _Result:
    title: str
    page_age: str | None


class AnthropicWebSearch(ModelWebSearch[anthropic.Anthropic]):
    """EvidenceSource over Anthropic's web search (Anthropic bills per search on top of tokens)."""

    name = ANTHROPIC_WEB

    def __init__(
        self,
        api_key: str,
        *,
        model: str,
        base_url: str | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
        max_output_tokens: int = 2048,
        max_uses: int = 3,
        tool_type: Literal["web_search_20250305"] = "web_search_20250305",
    ) -> None:
        super().__init__(
            api_key,
            model=model,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout,
            max_output_tokens=max_output_tokens,
        )
        self._tool: WebSearchTool20250305Param = {
            "type": tool_type,
            "name": "web_search",
            "max_uses": max_uses,
        }

    @staticmethod
    def _new_client(
        api_key: str | None, base_url: str | None, max_retries: int, timeout: float
    ) -> anthropic.Anthropic:
        return anthropic.Anthropic(
            api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    def _search(self, query: str, limit: int, as_of: date | None) -> list[Hit]:
        system, prompt = search_prompt("web_search", query, limit, as_of)
        messages: list[MessageParam] = [{"role": "user", "content": prompt}]
        try:
            response = self._client.messages.create(
                model=self._model,
                max_tokens=self._max_output_tokens,
                system=system,
                messages=messages,
                tools=[self._tool],
            )
        except anthropic.AnthropicError as err:
            raise_mapped(err, f"anthropic web search {self._model}", self._max_retries, self._api_key)

        usage = response.usage
        searches = usage.server_tool_use.web_search_requests if usage.server_tool_use is not None else 0
        self._bill(
            SearchUsage(
                response.model or self._model,
                usage.input_tokens,
                usage.output_tokens,
                cache_read_tokens=usage.cache_read_input_tokens or 0,
                cache_write_tokens=usage.cache_creation_input_tokens or 0,
            ),
            searches,
        )
        return self._hits(response, limit, as_of)

    def _hits(self, response: Message, limit: int, as_of: date | None) -> list[Hit]:
        results: dict[str, _Result] = {}
        search_errors: list[str] = []
        cited: list[tuple[str, str, str]] = []  # (url, title, cited_text), in reply order
        for block in response.content:
            if block.type == "web_search_tool_result":
                if isinstance(block.content, list):
                    for found in block.content:
                        results.setdefault(found.url, _Result(found.title, found.page_age))
                else:
                    search_errors.append(block.content.error_code)
            elif block.type == "text":
                for citation in block.citations or []:
                    if citation.type == "web_search_result_location" and citation.cited_text.strip():
                        cited.append((citation.url, citation.title or "", citation.cited_text.strip()))

        candidates: list[Hit] = []
        for url, title, text in cited:
            result = results.get(url)
            published = parse_page_age(result.page_age) if result else None
            candidates.append(
                Hit(text=text, title=title or (result.title if result else url), url=url, published=published)
            )
        # Results the model did not quote still point at a source: their title is all we can read.
        cited_urls = {url for url, _, _ in cited}
        for url, result in results.items():
            if url not in cited_urls:
                candidates.append(
                    Hit(
                        text=result.title,
                        title=result.title,
                        url=url,
                        published=parse_page_age(result.page_age),
                    )
                )

        hits = select_hits(candidates, limit, as_of)
        if not hits and search_errors and all(code in _TRANSIENT_SEARCH_ERRORS for code in search_errors):
            # An empty answer would be cached as "nothing found": make the stage retry instead.
            raise TransientError(f"anthropic web search failed: {', '.join(sorted(set(search_errors)))}")
        return hits
