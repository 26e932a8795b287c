"""A loopback web for the SearXNG source: one HTTP server on 127.0.0.1 that plays a SearXNG instance
(`GET /search?q=…&format=json`) and the pages its results point at, each page scripted (status,
content type, body, a redirect, or a hold: the page answers only once an event is set).

    with LoopbackWeb() as web:
        web.page("/who", ARTICLE_HTML)
        web.results([web.result("/who", "Measles cases rise", snippet="…")])
        source = SearxngSearch(web.base_url, pages=PageReader(private=True))

Every request is recorded (path and query) in arrival order, with the moments each page was entered
and answered, for tests of what was fetched and when relative to what."""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import SplitResult, parse_qs, urlsplit

from claimcourt.bench.loopback import LoopbackServer, Reply, Request


@dataclass
class FakePage:
    body: bytes | Callable[[SplitResult], bytes] = b""  # a callable answers each request from its url
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    send_length: bool = True  # False: no content-length, the body ends when the connection closes
    hold: threading.Event | None = None  # answer only once this is set (or the server closes)
    entered: threading.Event = field(default_factory=threading.Event)  # set when its request arrives


class LoopbackWeb(LoopbackServer):
    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.pages: dict[str, FakePage] = {}
        self.log: list[tuple[str, str]] = []  # ("enter" | "leave", path), in order
        self.queries: list[dict[str, list[str]]] = []  # each /search request's parameters
        self.hosts: list[str] = []  # each request's Host header, in arrival order
        self.closing = threading.Event()
        self._lock = threading.Lock()
        super().__init__(tls)

    def answer(self, request: Request) -> Reply:
        parts = urlsplit(request.path)
        self._arrived(parts.path, parse_qs(parts.query), request.headers.get("host", ""))
        page = self.pages.get(parts.path)
        if page is None:
            return Reply(404, b"not found", {"content-type": "text/plain"})
        page.entered.set()
        if page.hold is not None:
            while not page.hold.wait(0.05) and not self.closing.is_set():
                pass
        body = page.body(parts) if callable(page.body) else page.body
        kind = {"content-type": page.content_type} if page.content_type is not None else {}
        return Reply(page.status, body, {**kind, **page.headers}, page.send_length)

    def answered(self, request: Request) -> None:
        path = urlsplit(request.path).path
        if path in self.pages:
            with self._lock:
                self.log.append(("leave", path))

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def page(self, path: str, body: str | bytes = b"", **kwargs: Any) -> FakePage:
        page = FakePage(body=body.encode() if isinstance(body, str) else body, **kwargs)
        self.pages[path] = page
        return page

    def results(self, results: list[dict[str, Any]], unresponsive: list[list[str]] | None = None) -> None:
        """What the SearXNG stand-in answers to every search: its JSON API's shape."""

        def answer(parts: SplitResult) -> bytes:
            query = parse_qs(parts.query).get("q", [""])[0]
            return json.dumps(
                {
                    "query": query,
                    "number_of_results": 0,
                    "results": results,
                    "answers": [],
                    "corrections": [],
                    "infoboxes": [],
                    "suggestions": [],
                    "unresponsive_engines": unresponsive or [],
                }
            ).encode()

        self.pages["/search"] = FakePage(body=answer, content_type="application/json")

    def result(
        self, path: str, title: str, snippet: str = "", published: str | None = None, host: str = "127.0.0.1"
    ) -> dict[str, Any]:
        """A result as SearXNG's JSON API gives one, pointing at a page of this server."""
        url = self.url(path, host)
        return {
            "url": url,
            "title": title,
            "content": snippet,
            "engine": "duckduckgo",
            "parsed_url": ["http", url.split("/")[2], path, "", "", ""],
            "template": "default.html",
            "engines": ["duckduckgo", "brave"],
            "positions": [1],
            "publishedDate": published,
            "score": 1.0,
            "category": "general",
        }

    def fetched(self) -> list[str]:
        """The paths requested, in arrival order (the /search calls left out)."""
        with self._lock:
            return [path for event, path in self.log if event == "enter" and path != "/search"]

    def _arrived(self, path: str, query: dict[str, list[str]], host: str) -> None:
        with self._lock:
            self.log.append(("enter", path))
            self.hosts.append(host)
            if path == "/search":
                self.queries.append(query)

    def close(self) -> None:
        self.closing.set()  # a held page answers now
        super().close()
