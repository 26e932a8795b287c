"""Web evidence through a self-hosted SearXNG instance: its JSON API finds the pages
(`GET /search?q=…&format=json`), each page is then fetched and read (evidence/pages.py), and its
passages that share the query's words are the hits, with the page's title, url and date.

A page that cannot be read gives way to its result's snippet (the search engine's own excerpt of
it), when the result has one. Hits alternate between pages in the engine's order (each page's best
passage first), so one long page does not fill a directive's evidence alone. In a backtest a result
the engine dates after the date is not fetched, and a page dated after it is dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from itertools import zip_longest
from typing import Any
from urllib.parse import urlsplit

import httpx

from claimcourt.errors import ConfigurationError, TransientError
from claimcourt.evidence.base import Hit
from claimcourt.evidence.pages import USER_AGENT, Page, PageError, PageReader
from claimcourt.evidence.web import SEARXNG_WEB, clean_url, parse_page_age, select_hits
from claimcourt.observability import logger

SPARE_PAGES = 3  # read beyond the limit: some pages fail, some share nothing with the query
_WORD = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    "the and for are was were with from that this these those its has have had not but into than then "
    "their there which what when where who whom how why about over under more most less least such".split()
)


@dataclass(frozen=True)
class Result:
    """One result of SearXNG's JSON API."""

    url: str
    title: str
    snippet: str
    published: date | None


def terms(text: str) -> set[str]:
    """The words a passage must share with a query: lower case, a plural's s dropped, no short or
    common words (a number of any length counts)."""
    found = set()
    for word in _WORD.findall(text.lower()):
        if word.isdigit() or (len(word) > 2 and word not in _STOPWORDS):
            found.add(word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word)
    return found


def relevant_passages(passages: tuple[str, ...], query: str) -> list[str]:
    """The passages that share at least a third of the query's words (one at least), most shared first,
    then in page order."""
    wanted = terms(query)
    needed = max(1, -(-len(wanted) // 3))
    scored = [(len(wanted & terms(p)), i, p) for i, p in enumerate(passages)]
    return [p for shared, _, p in sorted(scored, key=lambda s: (-s[0], s[1])) if shared >= needed]


def results_of(body: Any) -> tuple[list[Result], list[str]]:
    """(results with an http(s) url, each url once; the engines that did not answer) of a JSON body."""
    if not isinstance(body, dict) or not isinstance(body.get("results"), list):
        raise ConfigurationError("SearXNG answered without a results list: is the url a SearXNG instance?")
    results: list[Result] = []
    seen: set[str] = set()
    for raw in body["results"]:
        if not isinstance(raw, dict) or not isinstance(raw.get("url"), str):
            continue
        url = clean_url(raw["url"])
        if not url.startswith(("http://", "https://")) or url in seen:
            continue
        seen.add(url)
        published = raw.get("publishedDate")
        results.append(
            Result(
                url=url,
                title=str(raw.get("title") or url).strip(),
                snippet=" ".join(str(raw.get("content") or "").split()),
                published=parse_page_age(published) if isinstance(published, str) else None,
            )
        )
    unresponsive = [
        str(e[0]) if isinstance(e, list) and e else str(e) for e in body.get("unresponsive_engines") or []
    ]
    return results, unresponsive


class SearxngSearch:
    """EvidenceSource over a SearXNG instance's JSON API and the pages it finds."""

    name = SEARXNG_WEB

    def __init__(
        self,
        base_url: str,
        *,
        pages: PageReader,
        timeout_s: float = 15.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        # How errors (a run's error, the logs) name the instance: never a user name or password, which
        # Settings refuses in CLAIMCOURT_SEARXNG_URL, should a source be built with them another way.
        self._shown = _without_credentials(self._base_url)
        self._pages = pages
        self._client = httpx.Client(
            timeout=timeout_s,
            headers={"user-agent": USER_AGENT, "accept": "application/json"},
            # Connection failures only (nothing was asked yet); an error status is not retried here.
            transport=transport or httpx.HTTPTransport(retries=2),
        )

    def __repr__(self) -> str:
        return f"SearxngSearch(base_url={self._shown!r})"

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        if limit <= 0:
            return []
        results = [
            r for r in self._results(query) if as_of is None or r.published is None or r.published <= as_of
        ][: limit + SPARE_PAGES]
        read = self._pages.read_all([r.url for r in results])
        per_page = [self._hits(result, page, query) for result, page in zip(results, read, strict=True)]
        in_turn = [hit for row in zip_longest(*per_page) for hit in row if hit is not None]
        return select_hits(in_turn, limit, as_of)

    def _results(self, query: str) -> list[Result]:
        where = f"SearXNG at {self._shown}"
        try:
            response = self._client.get(
                f"{self._base_url}/search", params={"q": query, "format": "json", "pageno": 1}
            )
        except httpx.TimeoutException:
            raise TransientError(f"{where}: timed out") from None
        except httpx.HTTPError as err:
            raise TransientError(f"{where} could not be reached ({type(err).__name__})") from None
        if response.status_code == 403:
            raise ConfigurationError(
                f"{where} refuses JSON (HTTP 403): add json to search.formats in its settings.yml"
            )
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientError(f"{where} answered HTTP {response.status_code}")
        if response.status_code >= 400:
            raise ConfigurationError(f"{where} answered HTTP {response.status_code} to a search")
        try:
            body = response.json()
        except ValueError:
            raise ConfigurationError(f"{where} did not answer JSON: is the url a SearXNG instance?") from None
        results, unresponsive = results_of(body)
        if not results and unresponsive:
            # An empty answer would be cached as "nothing found": make the stage retry instead.
            raise TransientError(f"{where}: no engine answered ({', '.join(sorted(set(unresponsive)))})")
        return results

    def _hits(self, result: Result, page: Page | PageError, query: str) -> list[Hit]:
        if isinstance(page, Page):
            published = page.published or result.published
            title = page.title if page.title != page.url else result.title
            found = [
                Hit(text=text, title=title, url=page.url, published=published)
                for text in relevant_passages(page.passages, query)
            ]
            if found:
                return found
            why = "no passage shares the query's words"
        else:
            why = str(page)
        logger.info("search result page not used", extra={"url": result.url, "reason": why})
        if not result.snippet:
            return []
        return [Hit(text=result.snippet, title=result.title, url=result.url, published=result.published)]


def _without_credentials(url: str) -> str:
    parts = urlsplit(url)
    return parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="").geturl()
