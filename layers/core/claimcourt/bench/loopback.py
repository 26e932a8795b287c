"""One loopback HTTP server for every stand-in that speaks HTTP: the played corpus's provider server,
the fault bench's flaky provider, and the tests' fakes (tests/fakes/: providers, a SearXNG with its
pages). It listens on 127.0.0.1 on a port of its own, serves from a thread of its own, reads each
request whole and asks its subclass's `answer` what to reply. Given a server TLS context it speaks
https (a test's url reader verifying a certificate); a handshake the client refuses drops that
connection only.

    class Hello(LoopbackServer):
        def answer(self, request: Request) -> Reply:
            return Reply.json(200, {"path": request.path})

    with Hello() as server:
        httpx.get(server.url("/x"))

`close` returns once the server has stopped: `shutdown` waits until `serve_forever` has returned, so
the thread has ended too. A handler still answering (a held page, a scripted delay) is not waited
for: its thread is a daemon's, and the client has gone."""

from __future__ import annotations

import contextlib
import json
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # with its query string
    headers: dict[str, str]  # lower-cased names
    body: Any  # the body's JSON, or None when it is not JSON
    raw: bytes


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)  # content-type among them, when there is one
    send_length: bool = True  # False: no content-length; the body ends when the connection closes

    @classmethod
    def json(cls, status: int, payload: Any, headers: Mapping[str, str] | None = None) -> Reply:
        """A JSON body; a str or bytes payload is sent as it is (a body that is not JSON, on purpose)."""
        if isinstance(payload, bytes):
            data = payload
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = json.dumps(payload).encode()
        return cls(status, data, {"content-type": "application/json", **(headers or {})})


class LoopbackServer:
    """An HTTP server on 127.0.0.1, serving from a daemon thread from construction until `close`."""

    keep_alive = False  # True: HTTP/1.1, connections kept open as the SDKs' connection pools expect

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        handler = _KeepAliveHandler if self.keep_alive else _Handler
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.owner = self
        self.scheme = "http"
        if tls is not None:  # each connection's handshake is made as it is accepted
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
            self.scheme = "https"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def answer(self, request: Request) -> Reply:
        """The reply to one request (on the request's own thread: guard shared state)."""
        raise NotImplementedError

    def answered(self, request: Request) -> None:
        """Called once `answer`'s reply has been written, or the client went away before it was."""

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._httpd.shutdown()  # blocks until serve_forever has returned
        self._httpd.server_close()
        self._thread.join()  # its target has returned: this is the thread's last step

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class _Server(ThreadingHTTPServer):
    # Handler threads are daemons, so untracked: close() does not wait for one still sleeping or held.
    daemon_threads = True
    block_on_close = False
    owner: LoopbackServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = Request(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw=raw,
        )
        owner = self.server.owner
        reply = owner.answer(request)
        try:
            self._write(reply)
        finally:
            owner.answered(request)

    def _write(self, reply: Reply) -> None:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.send_length:
                self.send_header("content-length", str(len(reply.body)))
            else:
                self.close_connection = True
                self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(reply.body)

    def log_message(self, format: str, *args: Any) -> None:  # keep test and bench output quiet
        return


class _KeepAliveHandler(_Handler):
    protocol_version = "HTTP/1.1"
