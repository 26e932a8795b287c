"""`claimcourt serve`: the HTTP and WebSocket APIs on 127.0.0.1, through the cloud's handlers.

An ASGI app (served by uvicorn) turns each HTTP request into the API Gateway HTTP API event (payload
2.0) that functions/api/app.py receives in Lambda, and its reply back into HTTP; each WebSocket
connection into the $connect, message and $disconnect events of functions/socket/app.py, with the
same route selection (`$request.body.action`). Runs execute in the local runtime (the real state
machine, in-process). Two threads play the cloud's other parts:

- the feed stands in for the main table's stream and the notifier function: it watches the event
  log of every run this server started and hands new events to the same `notify` the notifier calls;
- the sweeper plays the scheduled sweeper: it gives back the slot of any run whose execution ended
  without doing so.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import gc
import json
import socket
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from urllib.parse import unquote_plus

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt import artifacts
from claimcourt.api import corpora
from claimcourt.api.bodies import read_json
from claimcourt.delivery import ENDS_A_RUN, notify
from claimcourt.errors import ConnectionGoneError, NotFoundError
from claimcourt.execution import Machine
from claimcourt.local.processes import recorded_owner_gone
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import utcnow
from claimcourt.observability import logger
from claimcourt.runs import OWNER_GONE, SWEEP_GRACE_S, sweep
from claimcourt.store.base import Store
from claimcourt.wiring import Deps, use_deps

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
SWEEP_EVERY_S = 5.0
FEED_EVERY_S = 0.05  # a stream delivers within a fraction of a second too


class _LocalContext:
    """What a Lambda context offers the handler (Powertools reads these)."""

    function_name = "claimcourt-api-local"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:claimcourt-api-local"

    def __init__(self) -> None:
        self.aws_request_id = uuid.uuid4().hex

    def get_remaining_time_in_millis(self) -> int:
        return 29_000


def _headers(scope: Scope) -> dict[str, str]:
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]},{value}" if name in headers else value  # as API Gateway joins them
    return headers


def _query(scope: Scope) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in filter(None, scope.get("query_string", b"").decode("latin-1").split("&")):
        name, _, value = pair.partition("=")
        params[unquote_plus(name)] = unquote_plus(value)
    return params


def http_event(scope: Scope, body: bytes) -> dict[str, Any]:
    """The API Gateway HTTP API (payload 2.0) event for one request."""
    headers, params = _headers(scope), _query(scope)
    headers["x-forwarded-proto"] = scope.get("scheme", "http")  # as API Gateway says how it was reached
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
        "rawQueryString": scope.get("query_string", b"").decode("latin-1"),
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


def route_key(body: str) -> str:
    """API Gateway's route selection, `$request.body.action`: a declared route, else $default (also
    for what is not a JSON object, or JSON too deep to read safely: the handler answers it)."""
    try:
        action = read_json(body).get("action")
    except (ValueError, AttributeError):
        return "$default"
    return "subscribe" if action == "subscribe" else "$default"


def socket_event(scope: Scope, connection_id: str, route: str, body: str | None = None) -> dict[str, Any]:
    """The API Gateway WebSocket event for a connection's $connect, message or $disconnect."""
    kind = {"$connect": "CONNECT", "$disconnect": "DISCONNECT"}.get(route, "MESSAGE")
    now_ms = int(time.time() * 1000)
    client = scope.get("client") or ("127.0.0.1", 0)
    headers = _headers(scope) if kind == "CONNECT" else None  # API Gateway sends them with $connect only
    query = _query(scope) if kind == "CONNECT" else None
    event: dict[str, Any] = {
        "requestContext": {
            "routeKey": route,
            "eventType": kind,
            "messageDirection": "IN",
            "stage": "local",
            "connectedAt": now_ms,
            "requestTimeEpoch": now_ms,
            "identity": {"sourceIp": client[0], "userAgent": (headers or {}).get("user-agent", "")},
            "requestId": uuid.uuid4().hex,
            "domainName": "127.0.0.1",
            "connectionId": connection_id,
            "apiId": "local",
        },
        "isBase64Encoded": False,
    }
    if kind == "CONNECT":
        event |= {"headers": headers, "queryStringParameters": query or None}
    if kind == "MESSAGE":
        event |= {"body": body}
        event["requestContext"]["messageId"] = uuid.uuid4().hex
    return event


class LocalPoster:
    """Posts to this server's open WebSocket connections, as API Gateway's management API posts to
    the cloud's: from any thread, in order, ConnectionGoneError once the client has gone. A
    connection's outbox holds its messages, then None once the server closes it."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Queue[str | None]]] = {}
        self._lock = threading.Lock()

    def opened(
        self, connection_id: str, loop: asyncio.AbstractEventLoop, outbox: asyncio.Queue[str | None]
    ) -> None:
        with self._lock:
            self._open[connection_id] = (loop, outbox)

    def closed(self, connection_id: str) -> None:
        with self._lock:
            self._open.pop(connection_id, None)

    def post(self, connection_id: str, message: dict[str, Any]) -> None:
        with self._lock:
            found = self._open.get(connection_id)
        if found is None:
            raise ConnectionGoneError(f"connection {connection_id} is gone")
        loop, outbox = found
        try:
            loop.call_soon_threadsafe(outbox.put_nowait, json.dumps(message, separators=(",", ":")))
        except RuntimeError as err:  # its event loop has closed: the server is stopping
            raise ConnectionGoneError(f"connection {connection_id} is gone") from err

    def close(self, connection_id: str) -> None:
        with self._lock:
            found = self._open.pop(connection_id, None)  # a post from now on finds it gone
        if found is None:
            return
        loop, outbox = found
        # RuntimeError: its event loop has closed (the server is stopping, and the connection with it)
        with suppress(RuntimeError):
            loop.call_soon_threadsafe(outbox.put_nowait, None)  # after what was posted before it


class Feed:
    """The main table's stream and its notifier, for runs this server started or a client subscribed
    to while they ran (a run of another process on the same store): every FEED_EVERY_S
    it looks for new events in each watched run's log and hands the run to `notify`, until the
    run's last event has gone out."""

    def __init__(self, store: Store, poster: LocalPoster) -> None:
        self.store = store
        self.poster = poster
        self._seen: dict[str, int] = {}  # run id → the last seq handed on
        self._lock = threading.Lock()

    def watch(self, run_id: str) -> None:
        with self._lock:
            self._seen.setdefault(run_id, 0)

    def watches(self, run_id: str) -> bool:
        with self._lock:
            return run_id in self._seen

    def tick(self) -> None:
        with self._lock:
            watched = dict(self._seen)
        for run_id, seen in watched.items():
            events = self.store.list_events(run_id, after_seq=seen)
            if not events:
                continue
            try:
                notify(self.store, self.poster, [run_id])
            except Exception:  # logged by notify; the next tick hands the run on again, as a stream retries
                continue
            with self._lock:
                if events[-1].type in ENDS_A_RUN:
                    del self._seen[run_id]
                else:
                    self._seen[run_id] = events[-1].seq

    def run_until(self, stop: threading.Event) -> None:
        while not stop.wait(FEED_EVERY_S):
            try:
                self.tick()
            except Exception:  # a store hiccup must not end live progress for the server's lifetime
                logger.exception("feed tick failed")


class LocalServer:
    """The ASGI app. Use `running()` around serving: it starts the runtime, the feed and the
    sweeper. It is also the API's executor: a run it starts is run by the runtime and watched by
    the feed. `websocket_url` is what the API's links tell clients to connect to."""

    def __init__(self, deps: Deps, websocket_url: str | None = None) -> None:
        self.poster = LocalPoster()
        settings = deps.settings
        if websocket_url is not None:
            settings = settings.model_copy(update={"websocket_url": websocket_url})
            if deps.preferences is not None:  # settings saved later are built on it: they keep the URL
                base = deps.preferences.base
                deps.preferences.base = base.model_copy(update={"websocket_url": websocket_url})
        self.deps = dataclasses.replace(deps, settings=settings, executor=self, poster=self.poster)
        self.runtime = LocalRuntime(self.deps)
        self.feed = Feed(deps.store, self.poster)
        self._started: set[str] = set()
        from claimcourt.api.http import handler
        from claimcourt.api.socket import handler as socket_handler

        self._handler = handler
        self._socket_handler = socket_handler

    def start(self, run_id: str, machine: Machine = "debate") -> str:
        self._started.add(run_id)
        self.feed.watch(run_id)
        return self.runtime.start(run_id, machine)

    def execution_status(self, run_id: str) -> str | None:
        return self.runtime.execution_status(run_id)

    def _swept_status(self, run_id: str) -> str | None:
        """The sweeper's view. The SQLite file may hold leases of runs another process is running
        (`claimcourt drift tick`, `events put`), whose executions this runtime cannot see: those are
        judged lost only once they are older than any run may take."""
        if run_id in self._started:
            return self.execution_status(run_id)
        try:
            if recorded_owner_gone(self.deps.store.get_artifact(run_id, artifacts.OWNER)):
                return OWNER_GONE  # e.g. this server before a crash: its runs end now, not in 17 minutes
        except NotFoundError:
            pass  # started before runs named their owner, or not started at all
        record = self.deps.store.get_run(run_id)
        limit = timedelta(seconds=self.deps.settings.run_timeout_s + SWEEP_GRACE_S)
        return None if utcnow() - record.created_at > limit else "RUNNING"

    @contextmanager
    def running(self) -> Iterator[Deps]:
        stop = threading.Event()
        with self.runtime, use_deps(self.deps):
            # Before the first request: runs a stopped process left running give their slots back now.
            sweep(self.deps.store, self._swept_status)
            threads = [
                threading.Thread(target=self._sweep_until, args=(stop,), daemon=True, name="sweeper"),
                threading.Thread(target=self.feed.run_until, args=(stop,), daemon=True, name="feed"),
            ]
            for thread in threads:
                thread.start()
            try:
                yield self.deps
            finally:
                stop.set()
                for thread in threads:
                    thread.join(timeout=10)

    def _sweep_until(self, stop: threading.Event) -> None:
        while not stop.wait(SWEEP_EVERY_S):
            sweep(self.deps.store, self._swept_status)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
            return
        body = await self._read_body(receive, scope)
        context = cast(LambdaContext, _LocalContext())
        reply = await asyncio.to_thread(self._handler, http_event(scope, body), context)
        payload = reply.get("body") or ""
        data = base64.b64decode(payload) if reply.get("isBase64Encoded") else payload.encode()
        headers = [(k.lower().encode(), str(v).encode()) for k, v in (reply.get("headers") or {}).items()]
        if not any(name == b"content-type" for name, _ in headers) and data:
            headers.append((b"content-type", b"application/json"))
        await send({"type": "http.response.start", "status": reply["statusCode"], "headers": headers})
        await send({"type": "http.response.body", "body": data})

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One connection, start to end, through the socket handler's routes."""
        connection_id = uuid.uuid4().hex[:16]
        await receive()  # websocket.connect

        async def call(route: str, body: str | None = None) -> dict[str, Any]:
            event = socket_event(scope, connection_id, route, body)
            context = cast(LambdaContext, _LocalContext())
            reply: dict[str, Any] = await asyncio.to_thread(self._socket_handler, event, context)
            return reply

        if (await call("$connect")).get("statusCode") != 200:
            await send({"type": "websocket.close", "code": 1008})  # before accept: the handshake gets 403
            return
        outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.poster.opened(connection_id, asyncio.get_running_loop(), outbox)
        await send({"type": "websocket.accept"})

        async def forward() -> None:
            while (text := await outbox.get()) is not None:
                await send({"type": "websocket.send", "text": text})
            # Closed by the server (its key was revoked): policy violation. The client's close
            # reply then ends the receive loop below, as a client's own close does.
            await send({"type": "websocket.close", "code": 1008})

        forwarding = asyncio.create_task(forward())
        try:
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    break
                body = message.get("text")
                if body is None:
                    body = (message.get("bytes") or b"").decode("utf-8", "replace")
                route = route_key(body)
                if route == "subscribe":  # watched first: nothing appended after the reply is missed
                    await asyncio.to_thread(self._watch_subscribed, body)
                await call(route, body)
        finally:
            self.poster.closed(connection_id)
            forwarding.cancel()
            await call("$disconnect")

    def _watch_subscribed(self, body: str) -> None:
        """A run another process runs (a CLI run, a drift tick, an event's) shares the store but
        not this server's feed: a subscription to it, while it runs, has the feed watch it too.
        Called before the subscription is made: a run that ends between the two is either seen
        ended here (the subscription's stored events then reach its end) or watched to its end."""
        try:
            run_id = str(read_json(body)["run_id"])
            running = not self.deps.store.get_run(run_id).status.terminal
        except (ValueError, KeyError, TypeError, NotFoundError):
            return  # the socket handler answers it (an invalid message, or no such run)
        if running:
            self.feed.watch(run_id)

    async def _read_body(self, receive: Receive, scope: Scope) -> bytes:
        """The whole body, but never more than one byte past the limit (a document upload's, or the
        settings' for JSON): the handler answers 413."""
        upload = corpora.is_upload(scope["method"], scope["path"])
        limit = (corpora.MAX_UPLOAD_BYTES if upload else self.deps.settings.max_body_bytes) + 1
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


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to (host, port) as uvicorn binds one, for `serve`; OSError if it cannot be (the
    port is taken, the address is not this machine's): said before anything else is loaded."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    deps: Deps,
    host: str = "127.0.0.1",
    port: int = 8080,
    on_start: Callable[[], None] | None = None,
    sock: socket.socket | None = None,
) -> None:
    """Serve until stopped, on `sock` (bound by `listen`) or on a socket bound here to (host, port)."""
    import uvicorn

    sock = sock or listen(host, port)
    server = LocalServer(deps, websocket_url=f"ws://{host}:{port}/")
    with server.running():
        if on_start is not None:
            on_start()  # after the handlers are loaded (their loggers are configured on import)
        # What is loaded by now (handlers, the corpus, moto) lives as long as the server: keep it out
        # of every full collection, whose pauses stop all the runs' threads at once.
        gc.collect()
        gc.freeze()
        uvicorn.Server(uvicorn.Config(server, host=host, port=port, log_level="warning")).run(sockets=[sock])
