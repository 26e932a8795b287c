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
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import SplitResult, parse_qs, urlsplit


@dataclass
class FakePage:
    body: bytes | Callable[[SplitResult], bytes] = b""  # a callable answers each request from its url
    status: int = 200
    content_type: str | None = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    send_length: bool = True  # False: no content-length, the body ends when the connection closes
    hold: threading.Event | None = None  # answer only once this is set (or the server closes)
    entered: threading.Event = field(default_factory=threading.Event)  # set when its request arrives


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: LoopbackWeb


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        web = self.server.owner
        parts = urlsplit(self.path)
        web._arrived(parts.path, parse_qs(parts.query))
        page = web.pages.get(parts.path)
        if page is None:
            self._send(404, b"not found", "text/plain", {}, True)
            return
        page.entered.set()
        if page.hold is not None:
            while not page.hold.wait(0.05) and not web.closing.is_set():
                pass
        body = page.body(parts) if callable(page.body) else page.body
        try:
            self._send(page.status, body, page.content_type, page.headers, page.send_length)
        finally:
            web._answered(parts.path)

    def _send(
        self, status: int, body: bytes, kind: str | None, headers: dict[str, str], length: bool
    ) -> None:
        try:
            self.send_response(status)
            if kind is not None:
                self.send_header("content-type", kind)
            if length:
                self.send_header("content-length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout, a size cap)
            pass

    def log_message(self, format: str, *args: Any) -> None:
        return


class LoopbackWeb:
    def __init__(self) -> None:
        self.pages: dict[str, FakePage] = {}
        self.log: list[tuple[str, str]] = []  # ("enter" | "leave", path), in order
        self.queries: list[dict[str, list[str]]] = []  # each /search request's parameters
        self.closing = threading.Event()
        self._lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self._httpd.server_address[1]}{path}"

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

    def _arrived(self, path: str, query: dict[str, list[str]]) -> None:
        with self._lock:
            self.log.append(("enter", path))
            if path == "/search":
                self.queries.append(query)

    def _answered(self, path: str) -> None:
        with self._lock:
            self.log.append(("leave", path))

    def close(self) -> None:
        self.closing.set()  # a held page answers now
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
