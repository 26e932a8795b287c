"""Posting a run's progress events to the WebSocket connections that follow it.

Both the `subscribe` route (a late subscriber's stored events) and the notifier (new events, from
the DynamoDB stream in the cloud, from the local runtime on the laptop) call `deliver`. A
subscription remembers the last seq it was posted and is posted to by one deliverer at a time (a
short claim in the store), so a connection gets each event in seq order, stored ones before live
ones, whoever delivers them. A delivery that dies between a post and its record may post an event
twice: clients keep the highest seq they have seen and skip anything at or below it.

A connection lives no longer than the API key it was opened with: a delivery first checks the key
(a revocation, by the API or by the CLI in another process, is only ever written to the store) and
closes the connection of a revoked key instead of posting to it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from contextlib import suppress
from datetime import timedelta
from typing import Any, Protocol

from claimcourt.access import key_is_live
from claimcourt.aws import LazyClient
from claimcourt.errors import ConnectionGoneError, NotFoundError, TransientError
from claimcourt.models import RunEvent, RunStatus, utcnow
from claimcourt.observability import logger
from claimcourt.store.base import Store

CLAIM_FOR = timedelta(seconds=30)  # a deliverer that dies frees its subscriptions after this
ENDS_A_RUN = frozenset(f"run.{status.value}" for status in RunStatus if status.terminal)


class Poster(Protocol):
    def post(self, connection_id: str, message: dict[str, Any]) -> None:
        """Send one JSON message; ConnectionGoneError if the client has gone."""
        ...

    def close(self, connection_id: str) -> None:
        """Close the connection from the server's side; nothing if the client has gone already."""
        ...


def event_message(event: RunEvent) -> dict[str, Any]:
    return {"type": "event", "run_id": event.run_id, "event": event.model_dump(mode="json")}


def close_if_revoked(store: Store, poster: Poster, connection_id: str) -> bool:
    """Close the connection if the key it was opened with has been revoked (or is gone): True if so.
    A connection the store no longer holds (expired, dropped) is left to the post to find out."""
    try:
        connection = store.get_connection(connection_id)
    except NotFoundError:
        return False
    if key_is_live(store, connection.key_id):
        return False
    store.drop_connection(connection_id)  # first: no deliverer posts to it from here on
    with suppress(ConnectionGoneError):
        poster.close(connection_id)
    logger.info(
        "closed: its key was revoked", extra={"connection_id": connection_id, "key_id": connection.key_id}
    )
    return True


class Busy(TransientError):
    """Another deliverer holds a subscription: the stream hands the batch over again, so events are
    not stranded if that deliverer died holding its claim (the claim lapses after CLAIM_FOR)."""


def deliver(store: Store, poster: Poster, connection_id: str, run_id: str) -> int | None:
    """Post the run's events this connection has not had, in order. Returns how many were posted,
    or None if another deliverer holds the subscription: it looks again for new events after it
    lets go, so nothing appended meanwhile is missed while it lives. A connection whose key has been
    revoked is closed, and gets nothing."""
    posted, token = 0, uuid.uuid4().hex
    while True:
        sent = store.claim_delivery(connection_id, run_id, until=utcnow() + CLAIM_FOR, token=token)
        if sent is None:
            return posted if posted else None
        last, ended = sent, False
        try:
            events = store.list_events(run_id, after_seq=sent)
            # The key is checked after the events are read: an event appended after a revocation is
            # read only once the revocation is there to see (a check before the read could miss it).
            if events and close_if_revoked(store, poster, connection_id):
                return posted
            for event in events:
                poster.post(connection_id, event_message(event))
                last, ended, posted = event.seq, event.type in ENDS_A_RUN, posted + 1
        except ConnectionGoneError:
            store.drop_connection(connection_id)
            return posted
        finally:
            held = store.end_delivery(connection_id, run_id, last, token)
        if not held:
            return posted  # the claim lapsed while posting: its new holder goes on from its own record
        if ended:  # the run's last event: nothing more will come for this subscription
            store.unsubscribe(connection_id, run_id)
            return posted
        if not store.list_events(run_id, after_seq=last):
            return posted


def notify(store: Store, poster: Poster, run_ids: Iterable[str]) -> None:
    """Deliver new events of these runs to every connection that follows them. A connection whose
    delivery fails is logged and skipped, the others still get theirs; then the first failure is
    raised (or Busy, if a subscription was held by another deliverer), so the stream hands the
    batch over again (what was posted is not posted twice)."""
    failures: list[Exception] = []
    for run_id in dict.fromkeys(run_ids):
        for connection_id in store.subscribers(run_id):
            try:
                if deliver(store, poster, connection_id, run_id) is None:
                    failures.append(Busy(f"a delivery to {connection_id} is under way elsewhere"))
            except Exception as err:
                logger.exception("delivery failed", extra={"run_id": run_id, "connection_id": connection_id})
                failures.append(err)
    if failures:
        raise failures[0]


class ApiGatewayPoster:
    """Posts through API Gateway's management API (`https://<api>.execute-api.<region>.amazonaws.com/<stage>`)."""

    def __init__(self, endpoint_url: str, region: str | None = None) -> None:
        self.endpoint_url = endpoint_url
        self._api = LazyClient("apigatewaymanagementapi", endpoint_url=endpoint_url, region_name=region)

    def post(self, connection_id: str, message: dict[str, Any]) -> None:
        data = json.dumps(message, separators=(",", ":")).encode()
        client = self._api.get()
        try:
            client.post_to_connection(ConnectionId=connection_id, Data=data)
        except client.exceptions.GoneException as err:
            raise ConnectionGoneError(f"connection {connection_id} is gone") from err

    def close(self, connection_id: str) -> None:
        client = self._api.get()
        with suppress(client.exceptions.GoneException):  # the client has gone already
            client.delete_connection(ConnectionId=connection_id)


def management_endpoint(websocket_url: str) -> str:
    """wss://<api>.execute-api.<region>.amazonaws.com/<stage> → the https:// URL to post through."""
    return "https://" + websocket_url.removeprefix("wss://").removeprefix("ws://").rstrip("/")
