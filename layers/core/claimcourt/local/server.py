"""`claimcourt serve`: the HTTP API on 127.0.0.1, through the same handler as in the cloud.

An ASGI app (served by uvicorn) turns each request into the API Gateway HTTP API event (payload
2.0) that functions/api/app.py receives in Lambda, and its reply back into HTTP. Runs execute in the
local runtime (the real state machine, in-process) over the SQLite store. A sweeper thread plays
the scheduled sweeper's part: it gives back the slot of any run whose execution ended without it.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, cast
from urllib.parse import unquote_plus

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.local.runtime import LocalRuntime
from claimcourt.pipeline import Deps
from claimcourt.runs import sweep
from claimcourt.wiring import use_deps

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
SWEEP_EVERY_S = 5.0


class _LocalContext:
    """What a Lambda context offers the handler (Powertools reads these)."""

    function_name = "claimcourt-api-local"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:claimcourt-api-local"

    def __init__(self) -> None:
        self.aws_request_id = uuid.uuid4().hex

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def http_event(scope: Scope, body: bytes) -> dict[str, Any]:
    """The API Gateway HTTP API (payload 2.0) event for one request."""
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]},{value}" if name in headers else value  # as API Gateway joins them
    query = scope.get("query_string", b"").decode("latin-1")
    params: dict[str, str] = {}
    for pair in filter(None, query.split("&")):
        name, _, value = pair.partition("=")
        params[unquote_plus(name)] = unquote_plus(value)
    now = datetime.now(UTC)
    try:
        text, encoded = body.decode("utf-8"), False
    except UnicodeDecodeError:
        text, encoded = base64.b64encode(body).decode(), True
    client = scope.get("client") or ("127.0.0.1", 0)
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": scope["path"],
        "rawQueryString": query,
        "headers": headers,
        "queryStringParameters": params or None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": headers.get("host", "127.0.0.1"),
            "http": {
                "method": scope["method"],
                "path": scope["path"],
                "protocol": f"HTTP/{scope.get('http_version', '1.1')}",
                "sourceIp": client[0],
                "userAgent": headers.get("user-agent", ""),
            },
            "requestId": uuid.uuid4().hex,
            "routeKey": "$default",
            "stage": "$default",
            "time": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "timeEpoch": int(now.timestamp() * 1000),
        },
        "body": text or None,
        "isBase64Encoded": encoded,
    }


class LocalServer:
    """The ASGI app. Use `running()` around serving: it starts the runtime and the sweeper."""

    def __init__(self, deps: Deps) -> None:
        self.deps = deps
        self.runtime = LocalRuntime(deps)
        from claimcourt.api.http import handler

        self._handler = handler

    @contextmanager
    def running(self) -> Iterator[Deps]:
        stop = threading.Event()
        with self.runtime:
            deps = dataclasses.replace(self.deps, executor=self.runtime)
            with use_deps(deps):
                sweeper = threading.Thread(
                    target=self._sweep_until, args=(stop,), daemon=True, name="sweeper"
                )
                sweeper.start()
                try:
                    yield deps
                finally:
                    stop.set()
                    sweeper.join(timeout=10)

    def _sweep_until(self, stop: threading.Event) -> None:
        while not stop.wait(SWEEP_EVERY_S):
            sweep(self.deps.store, self.runtime.execution_status)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] != "http":  # the WebSocket API is not served locally yet
            await send({"type": "websocket.close", "code": 1003})
            return
        body = await self._read_body(receive)
        context = cast(LambdaContext, _LocalContext())
        reply = await asyncio.to_thread(self._handler, http_event(scope, body), context)
        payload = reply.get("body") or ""
        data = base64.b64decode(payload) if reply.get("isBase64Encoded") else payload.encode()
        headers = [(k.lower().encode(), str(v).encode()) for k, v in (reply.get("headers") or {}).items()]
        if not any(name == b"content-type" for name, _ in headers) and data:
            headers.append((b"content-type", b"application/json"))
        await send({"type": "http.response.start", "status": reply["statusCode"], "headers": headers})
        await send({"type": "http.response.body", "body": data})

    async def _read_body(self, receive: Receive) -> bytes:
        """The whole body, but never more than one byte past the limit: the handler answers 413."""
        limit = self.deps.settings.max_body_bytes + 1
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            chunk = message.get("body", b"")
            if size < limit:
                chunks.append(chunk[: limit - size])
            size += len(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)


def serve(
    deps: Deps, host: str = "127.0.0.1", port: int = 8080, on_start: Callable[[], None] | None = None
) -> None:
    import uvicorn

    server = LocalServer(deps)
    with server.running():
        if on_start is not None:
            on_start()  # after the handlers are loaded (their loggers are configured on import)
        uvicorn.Server(uvicorn.Config(server, host=host, port=port, log_level="warning")).run()
