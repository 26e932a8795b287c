"""What every web search source shares (Anthropic's, OpenAI's, SearXNG's): which search a source
name stands for, dates read from what a page or a search result says, urls without tracking
parameters, and the last step every source takes: later passages out of a backtest, each
passage once, at most `limit`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from claimcourt.evidence.base import Hit
from claimcourt.models import ANTHROPIC_WEB, OPENAI_WEB, SEARCH_OF_SOURCE, SEARXNG_WEB, SearchName
from claimcourt.prompts import escape, render

__all__ = ["ANTHROPIC_WEB", "OPENAI_WEB", "SEARXNG_WEB"]  # the sources' names, from models

_RELATIVE_AGE = re.compile(r"^(\d+)\s+(minute|hour|day|week|month|year)s?\s+ago$", re.IGNORECASE)
_DAYS_PER_UNIT = {"minute": 0.0, "hour": 0.0, "day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%Y/%m/%d", "%m/%d/%Y", "%B %Y")


def search_prompt(kind: str, query: str, limit: int, as_of: date | None) -> tuple[str, str]:
    """(system, prompt) asking a model with a web search tool for up to `limit` quoted passages on
    `query`; in a backtest, only from sources published by `as_of` (the date is in the query too)."""
    search_for = f"{query} (as of {as_of.isoformat()})" if as_of else query
    dates = (
        f"\nOnly use sources published on or before {as_of.isoformat()}; ignore anything published "
        "later, and anything that reports events after that date."
        if as_of
        else ""
    )
    return render(kind, query=escape(search_for), limit=str(limit), dates=dates)


def search_served(source_names: Iterable[str]) -> SearchName:
    """Which web search served retrievals made by these sources ("none": no web search did)."""
    served = [SEARCH_OF_SOURCE[name] for name in source_names if name in SEARCH_OF_SOURCE]
    return served[0] if served else "none"


def parse_page_age(page_age: str | None, today: date | None = None) -> date | None:
    """A date as search results and pages give it ("April 30, 2025", "2025-04-30T…", "3 days ago"), or
    None. Relative ages count back from `today`: good enough to keep fresh pages out of a backtest."""
    if not page_age:
        return None
    text = page_age.strip()
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        pass
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    relative = _RELATIVE_AGE.match(text)
    if relative:
        days = int(relative.group(1)) * _DAYS_PER_UNIT[relative.group(2).lower()]
        return (today or datetime.now(UTC).date()) - timedelta(days=days)
    return None


def clean_url(url: str) -> str:
    """The url without its utm_* parameters (OpenAI adds utm_source=openai to every citation): one
    page has one url, so one evidence id and one tier."""
    parts = urlsplit(url.strip())
    if not parts.query:
        return url.strip()
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not k.startswith("utm_")]
    return urlunsplit(parts._replace(query=urlencode(kept)))


def select_hits(candidates: Iterable[Hit], limit: int, as_of: date | None) -> list[Hit]:
    """In order: nothing published after `as_of` (an undated passage stays: nothing dates it later),
    each (url, passage) once, at most `limit`."""
    hits: list[Hit] = []
    seen: set[tuple[str, str]] = set()
    for hit in candidates:
        if as_of is not None and hit.published is not None and hit.published > as_of:
            continue
        if not hit.text.strip() or (hit.url, hit.text) in seen:
            continue
        seen.add((hit.url, hit.text))
        hits.append(hit)
        if len(hits) == limit:
            break
    return hits
