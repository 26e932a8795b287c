"""Documents made in the test (claimcourt.bench.documents makes them: the collections bench uses them
too) and a loopback web server for urls."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from claimcourt.bench.documents import make_docx, make_pdf, zip_bomb

__all__ = ["Page", "WebServer", "make_docx", "make_pdf", "serving", "zip_bomb"]


@dataclass
class Page:
    body: bytes
    media_type: str = "text/html; charset=utf-8"
    status: int = 200
    # Set by the test when the server may answer: until then a request waits (a server that hangs).
    release: threading.Event | None = None
    headers: dict[str, str] = field(default_factory=dict)


class WebServer:
    """Loopback pages by path; every request is recorded. A page with a `release` event answers only
    once it is set (the test sets it after its fetch has given up, to let the server's thread go)."""

    def __init__(self, pages: dict[str, Page]) -> None:
        self.pages = pages
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                page = server.pages.get(self.path)
                if page is None:
                    self.send_error(404, "Not Found")
                    return
                if page.release is not None:
                    page.release.wait(30)
                self.send_response(page.status)
                self.send_header("Content-Type", page.media_type)
                self.send_header("Content-Length", str(len(page.body)))
                for name, value in page.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                    self.wfile.write(page.body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> WebServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for page in self.pages.values():
            if page.release is not None:
                page.release.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def serving(pages: dict[str, Page]) -> Iterator[WebServer]:
    with WebServer(pages) as server:
        yield server
