"""What the two model web searches (Anthropic's and OpenAI's tools) share: the vendor's client, built
once, and the bill of each thread's last search; each vendor keeps its request and the parsing of
its reply (evidence/web_search.py, evidence/openai_search.py)."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from datetime import date
from typing import ClassVar, Generic, NamedTuple, Protocol, TypeVar

from claimcourt.evidence.base import Hit


class _Client(Protocol):
    @property
    def base_url(self) -> object: ...


ClientT = TypeVar("ClientT", bound=_Client)


class SearchUsage(NamedTuple):
    """What one search's reply used, to bill (prices.cost_usd): input_tokens excludes the prompt-cache
    tokens, which have their own rates (OpenAI counts its cached tokens inside its input tokens, so
    they are taken out of them; Anthropic reports its apart)."""

    model: str
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class ModelWebSearch(ABC, Generic[ClientT]):
    """An EvidenceSource answered by a model with a web search tool. `last_usage` is this thread's
    last call's tokens (a SearchUsage) for the caller to bill; `last_search_requests` counts the
    searches it ran, which the vendor bills per search on top of tokens."""

    name: ClassVar[str]

    def __init__(
        self,
        api_key: str | None,
        *,
        model: str,
        base_url: str | None,
        max_retries: int,
        timeout: float,
        max_output_tokens: int,
    ) -> None:
        self._api_key = api_key
        self._model = model
        self._max_retries = max_retries
        self._max_output_tokens = max_output_tokens
        self._client = self._new_client(api_key, base_url, max_retries, timeout)
        # Per thread: a round's retrievals run side by side (a Map state) on one instance locally.
        self._last = threading.local()

    @staticmethod
    @abstractmethod
    def _new_client(api_key: str | None, base_url: str | None, max_retries: int, timeout: float) -> ClientT:
        """The vendor's SDK client (its own retries and timeout)."""

    @abstractmethod
    def _search(self, query: str, limit: int, as_of: date | None) -> list[Hit]:
        """The vendor's request and the hits read from its reply; calls `_bill` once it has a reply."""

    @property
    def last_usage(self) -> SearchUsage | None:
        """This thread's last search's tokens, for the caller to bill."""
        usage: SearchUsage | None = getattr(self._last, "usage", None)
        return usage

    @property
    def last_search_requests(self) -> int:
        return int(getattr(self._last, "search_requests", 0))

    def _bill(self, usage: SearchUsage, searches: int) -> None:
        self._last.usage = usage
        self._last.search_requests = searches

    def __repr__(self) -> str:  # never the key
        return f"{type(self).__name__}(model={self._model!r}, base_url={str(self._client.base_url)!r})"

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        # A search that fails or asks for nothing bills nothing, not the thread's previous search.
        self._last.usage = None
        self._last.search_requests = 0
        if limit <= 0:
            return []
        return self._search(query, limit, as_of)
