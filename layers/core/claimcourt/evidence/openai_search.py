"""Web evidence through OpenAI's web search tool (the Responses API): one call per query; a hit is a
passage the model quoted, attributed by the url_citation annotation the API attached to it (url and
title), dated by the date the model read on the page.

OpenAI's search results carry no publication date (Anthropic's carry a page age), so the prompt asks
for each passage on a line of its own after `[published YYYY-MM-DD]`, read from the page. A backtest
drops a passage dated after its date, as it drops an Anthropic result whose page age is later; an
undated passage stays, as there.

An annotation's span is the citation marker the model wrote after the passage (a markdown link,
`([who.int](https://…))`) or, from other servers, the cited text itself: the passage is the text
before a marker, back to the line's start or the previous citation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

import openai
from openai.types.responses import Response, WebSearchToolParam

from claimcourt.errors import TransientError
from claimcourt.evidence.base import Hit
from claimcourt.evidence.model_search import ModelWebSearch, SearchUsage
from claimcourt.evidence.web import OPENAI_WEB, clean_url, parse_page_age, search_prompt, select_hits
from claimcourt.reasoning.base import retry_malformed
from claimcourt.reasoning.openai_provider import PLACEHOLDER_KEY, raise_mapped, takes_temperature
from claimcourt.reasoning.prices import OPENAI_WEB_SEARCH_USD_PER_CALL

_DATE_TAG = re.compile(r"\[\s*published:?\s*([^\]\n]*)\]", re.IGNORECASE)
_MARKDOWN_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_QUOTES = "\"'“”‘’«»"
_SHORTEST_PASSAGE = 12  # characters: shorter is a stray word between two citations, not a passage


@dataclass(frozen=True)
class _Cited:
    text: str
    published: date | None


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _is_marker(span: str, url: str) -> bool:
    """Whether an annotated span is the citation's marker (a link or a parenthesis after the passage)
    rather than the cited text itself."""
    stripped = span.strip()
    return not stripped or stripped[0] in "([" or "](" in stripped or url in stripped or "://" in stripped


def _cleaned(raw: str) -> _Cited:
    """A passage as the model wrote it: its [published …] tag read and taken out, links kept as their
    text, the list bullet, quotes and trailing citation punctuation gone."""
    published = None
    tag = _DATE_TAG.search(raw)
    if tag is not None:
        published = parse_page_age(tag.group(1))
        raw = raw[: tag.start()] + raw[tag.end() :]
    text = _MARKDOWN_LINK.sub(r"\1", raw)
    text = _BULLET.sub("", text.lstrip(" .,;:)")).strip().rstrip("—–-:;,").strip()
    text = text.removesuffix("(").strip()
    if text and text[0] in _QUOTES:  # "the passage" or "the passage". : the words inside the quotes
        closed = text.rstrip(".,;").rstrip()
        if len(closed) >= 2 and closed[-1] in _QUOTES:
            text = closed[1:-1].strip()
    return _Cited(" ".join(text.split()), published)


def cited_passages(response: Response) -> list[tuple[str, str, _Cited]]:
    """(url, title, passage) for every url_citation in the reply, in reply order."""
    found: list[tuple[str, str, _Cited]] = []
    for item in response.output:
        if item.type != "message":
            continue
        for part in item.content:
            if part.type != "output_text":
                continue
            text = part.text or ""
            citations = sorted(
                (a for a in getattr(part, "annotations", None) or [] if a.type == "url_citation"),
                key=lambda a: a.start_index,
            )
            boundary, previous = 0, None  # where the last citation ended, and what it cited
            for a in citations:
                start, end = max(0, a.start_index), min(len(text), a.end_index)
                line_start = _line_start(text, start)
                if _is_marker(text[start:end], a.url):
                    before = text[max(line_start, boundary) : start]
                    if not before.strip() and previous is not None and boundary > line_start:
                        cited = previous  # a second citation right after the first: the same passage
                    else:
                        cited = _cleaned(before)
                else:  # the span is the passage; its line may open with the date
                    cited = _Cited(_cleaned(text[start:end]).text, _cleaned(text[line_start:end]).published)
                boundary, previous = end, cited
                if len(cited.text) >= _SHORTEST_PASSAGE:
                    found.append((clean_url(a.url), (getattr(a, "title", None) or "").strip(), cited))
    return found


def _response_problem(response: object) -> str | None:
    """What makes a parsed 200 body unusable as a response (None: nothing): the SDK builds its
    Response without validating, so `{}` reaches here."""
    if not isinstance(response, Response) or not isinstance(getattr(response, "output", None), list):
        return "a body that is not a response with output"
    return None


class OpenAIWebSearch(ModelWebSearch[openai.OpenAI]):
    """EvidenceSource over OpenAI's web search tool (OpenAI bills per call on top of tokens)."""

    name = OPENAI_WEB

    def __init__(
        self,
        api_key: str | None,
        *,
        model: str,
        base_url: str | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
        max_output_tokens: int = 2048,
        malformed_backoff_s: float = 0.5,
    ) -> None:
        super().__init__(
            api_key,
            model=model,
            base_url=base_url,
            max_retries=max_retries,
            timeout=timeout,
            max_output_tokens=max_output_tokens,
        )
        self._malformed_backoff_s = malformed_backoff_s
        self._tool: WebSearchToolParam = {"type": "web_search", "search_context_size": "medium"}

    @staticmethod
    def _new_client(
        api_key: str | None, base_url: str | None, max_retries: int, timeout: float
    ) -> openai.OpenAI:
        return openai.OpenAI(
            api_key=api_key or PLACEHOLDER_KEY, base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    @property
    def usd_per_search(self) -> float:
        reasoning = not takes_temperature(self._model)  # the reasoning models: no temperature
        return OPENAI_WEB_SEARCH_USD_PER_CALL["reasoning" if reasoning else "other"]

    def _search(self, query: str, limit: int, as_of: date | None) -> list[Hit]:
        system, prompt = search_prompt("web_search_openai", query, limit, as_of)
        what = f"openai web search {self._model}"
        try:
            response = retry_malformed(
                lambda: self._client.responses.create(
                    model=self._model,
                    instructions=system,
                    input=prompt,
                    tools=[self._tool],
                    max_output_tokens=self._max_output_tokens,
                    store=False,  # nothing of a fact-check kept on OpenAI's side
                ),
                _response_problem,
                what,
                self._max_retries,
                self._malformed_backoff_s,
            )
        except openai.OpenAIError as err:
            raise_mapped(err, what, self._max_retries, self._api_key)

        # The SDK builds the response without validating it: a field another server leaves out is absent.
        usage = getattr(response, "usage", None)
        details = getattr(usage, "input_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", 0) or 0)
        calls = [item for item in response.output if getattr(item, "type", None) == "web_search_call"]
        billed = getattr(
            getattr(getattr(response, "tool_usage", None), "web_search", None), "num_requests", None
        )
        # A call without its action (older API versions) was a search: opening a page names its action.
        searches = sum(1 for c in calls if getattr(getattr(c, "action", None), "type", "search") == "search")
        self._bill(
            SearchUsage(
                getattr(response, "model", None) or self._model,
                int(getattr(usage, "input_tokens", 0) or 0) - cached,  # its input tokens count the cached
                int(getattr(usage, "output_tokens", 0) or 0),
                cache_read_tokens=cached,
            ),
            int(billed) if billed is not None else searches,
        )

        hits = select_hits(
            (
                Hit(text=cited.text, title=title or url, url=url, published=cited.published)
                for url, title, cited in cited_passages(response)
            ),
            limit,
            as_of,
        )
        if not hits and calls and all(getattr(c, "status", None) == "failed" for c in calls):
            # An empty answer would be cached as "nothing found": make the stage retry instead.
            raise TransientError(f"{what}: every web search call failed")
        if getattr(response, "status", None) == "failed":
            error = getattr(getattr(response, "error", None), "message", None) or "no reason given"
            raise TransientError(f"{what}: the response failed: {error}")
        return hits
