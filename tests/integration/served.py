"""`claimcourt serve`'s app on a free loopback port, for tests that speak real HTTP and WebSocket."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import uvicorn

from claimcourt.access import issue_key
from claimcourt.bench.processes import free_port
from claimcourt.local.server import LocalServer
from claimcourt.wiring import Deps


@dataclasses.dataclass
class Served:
    client: httpx.Client
    key: str  # tenant acme's
    other_key: str  # tenant globex's
    port: int
    server: LocalServer

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"


@contextmanager
def serving(deps: Deps) -> Iterator[Served]:
    key, _ = issue_key(deps.store, "acme")
    other, _ = issue_key(deps.store, "globex")
    port = free_port()
    server = LocalServer(deps, websocket_url=f"ws://127.0.0.1:{port}/")
    with server.running():
        uv = uvicorn.Server(uvicorn.Config(server, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=uv.run, daemon=True)
        thread.start()
        while not uv.started:
            time.sleep(0.01)
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
                yield Served(client, key, other, port, server)
        finally:
            uv.should_exit = True
            thread.join(timeout=10)
