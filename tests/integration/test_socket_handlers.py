"""The WebSocket handler (functions/socket/app.py) and the notifier (functions/notify/app.py),
driven with API Gateway WebSocket and DynamoDB stream events, posting through a recording poster."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from claimcourt.access import issue_key
from claimcourt.api.notify import handler as notifier
from claimcourt.api.socket import handler
from claimcourt.delivery import deliver, management_endpoint
from claimcourt.errors import ConnectionGoneError, NotFoundError
from claimcourt.models import RunEvent
from claimcourt.runs import create_run, parse_request
from claimcourt.wiring import Deps, use_deps
from tests.conftest import MakeDeps
from tests.fakes.apigw import LambdaContext


class RecordingPoster:
    def __init__(self) -> None:
        self.sent: dict[str, list[dict[str, Any]]] = {}
        self.gone: set[str] = set()
        self.closed: list[str] = []
        self._lock = threading.Lock()

    def post(self, connection_id: str, message: dict[str, Any]) -> None:
        if connection_id in self.gone:
            raise ConnectionGoneError(f"connection {connection_id} is gone")
        with self._lock:
            self.sent.setdefault(connection_id, []).append(message)

    def close(self, connection_id: str) -> None:
        with self._lock:
            self.closed.append(connection_id)
            self.gone.add(connection_id)

    def seqs(self, connection_id: str) -> list[int]:
        return [m["event"]["seq"] for m in self.sent.get(connection_id, []) if m["type"] == "event"]


@dataclasses.dataclass
class Socket:
    deps: Deps
    poster: RecordingPoster
    key: str

    def send(self, route: str, connection_id: str, body: Any = None, **event: Any) -> dict[str, Any]:
        request = {
            "requestContext": {"routeKey": route, "connectionId": connection_id, "stage": "prod"},
            "isBase64Encoded": False,
            **event,
        }
        if body is not None:
            request["body"] = body if isinstance(body, str) else json.dumps(body)
        reply: dict[str, Any] = handler(request, LambdaContext())
        return reply

    def connect(self, connection_id: str, key: str | None = None) -> dict[str, Any]:
        return self.send("$connect", connection_id, headers={"x-api-key": key or self.key})


@pytest.fixture
def socket(make_deps: MakeDeps) -> Iterator[Socket]:
    poster = RecordingPoster()
    deps = dataclasses.replace(make_deps(), poster=poster)
    key, _ = issue_key(deps.store, "acme")
    with use_deps(deps):
        yield Socket(deps, poster, key)


def _event(run_id: str, kind: str = "event") -> dict[str, Any]:
    return {
        "eventName": "INSERT",
        "dynamodb": {
            "NewImage": {"pk": {"S": f"RUN#{run_id}"}, "kind": {"S": kind}, "run_id": {"S": run_id}}
        },
    }


def _append(deps: Deps, run_id: str, kind: str) -> None:
    deps.store.append_event(RunEvent(run_id=run_id, type=kind), key=f"{kind}:{kind}")


def test_connect_keeps_the_connection_with_its_tenant_and_disconnect_forgets_it(socket: Socket) -> None:
    assert socket.connect("c1") == {"statusCode": 200}
    assert socket.deps.store.get_connection("c1").tenant_id == "acme"
    assert socket.connect("c2", key="cc_0000000000000000_" + "x" * 43) == {"statusCode": 401}
    with pytest.raises(NotFoundError):
        socket.deps.store.get_connection("c2")
    assert socket.send("$disconnect", "c1") == {"statusCode": 200}
    with pytest.raises(NotFoundError):
        socket.deps.store.get_connection("c1")


def test_the_notifier_posts_new_events_to_the_connections_that_follow_the_run(socket: Socket) -> None:
    # Given two connections following a run, one following another run
    run = create_run(socket.deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    other = create_run(socket.deps.store, parse_request({"claim": "The moon is cheese"}), tenant_id="acme")
    for connection_id, run_id in (("c1", run.run_id), ("c2", run.run_id), ("c3", other.run_id)):
        socket.connect(connection_id)
        socket.send("subscribe", connection_id, {"action": "subscribe", "run_id": run_id})
    assert socket.poster.seqs("c1") == [1]  # the stored run.created
    # When two events are appended and their stream records arrive (with records the filter lets by)
    _append(socket.deps, run.run_id, "stage.started")
    _append(socket.deps, run.run_id, "stage.completed")
    notifier(
        {"Records": [_event(run.run_id), _event(run.run_id), _event(run.run_id, "counter")]}, LambdaContext()
    )
    # Then each follower got each new event once, in order; the other run's follower got nothing new
    assert socket.poster.seqs("c1") == socket.poster.seqs("c2") == [1, 2, 3]
    assert socket.poster.seqs("c3") == [1]
    notifier({"Records": [_event(run.run_id)]}, LambdaContext())  # a redelivered batch
    assert socket.poster.seqs("c1") == [1, 2, 3]


def test_a_gone_connection_is_removed_and_the_others_still_get_theirs(socket: Socket) -> None:
    run = create_run(socket.deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    for connection_id in ("c1", "c2"):
        socket.connect(connection_id)
        socket.send("subscribe", connection_id, {"action": "subscribe", "run_id": run.run_id})
    socket.poster.gone.add("c1")  # the client went away without a $disconnect (410 Gone)
    _append(socket.deps, run.run_id, "stage.started")
    notifier({"Records": [_event(run.run_id)]}, LambdaContext())
    assert socket.deps.store.subscribers(run.run_id) == ["c2"]
    with pytest.raises(NotFoundError):
        socket.deps.store.get_connection("c1")
    assert socket.poster.seqs("c2") == [1, 2]


def test_the_run_end_closes_the_subscription(socket: Socket) -> None:
    run = create_run(socket.deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    socket.connect("c1")
    socket.send("subscribe", "c1", {"action": "subscribe", "run_id": run.run_id})
    _append(socket.deps, run.run_id, "run.succeeded")
    notifier({"Records": [_event(run.run_id)]}, LambdaContext())
    assert socket.poster.seqs("c1") == [1, 2]
    assert socket.deps.store.subscribers(run.run_id) == []


def test_racing_deliverers_post_each_event_once_and_in_order(socket: Socket) -> None:
    # Given a follower, and events appended while several deliverers (subscribe, stream batches) race
    store = socket.deps.store
    run = create_run(store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    socket.connect("c1")
    socket.send("subscribe", "c1", {"action": "subscribe", "run_id": run.run_id})

    def append_and_deliver(i: int) -> None:
        store.append_event(RunEvent(run_id=run.run_id, type="stage.started"), key=f"k{i}")
        deliver(store, socket.poster, "c1", run.run_id)

    threads = [threading.Thread(target=append_and_deliver, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # Then the follower saw 1..31 exactly once each, in order: whoever held the claim posted them
    assert socket.poster.seqs("c1") == list(range(1, 32))


def test_posting_needs_a_websocket_endpoint(make_deps: MakeDeps) -> None:
    deps = make_deps()  # no poster: CLAIMCOURT_WEBSOCKET_URL unset
    with use_deps(deps), pytest.raises(Exception, match="CLAIMCOURT_WEBSOCKET_URL"):
        notifier({"Records": [_event("run_x")]}, LambdaContext())
    assert (
        management_endpoint("wss://abc.execute-api.eu-west-1.amazonaws.com/prod/")
        == "https://abc.execute-api.eu-west-1.amazonaws.com/prod"
    )


def test_a_subscription_held_by_a_stalled_deliverer_makes_the_stream_retry(socket: Socket) -> None:
    from datetime import timedelta

    from claimcourt.delivery import Busy
    from claimcourt.models import utcnow

    run = create_run(socket.deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    socket.connect("c1")
    socket.send("subscribe", "c1", {"action": "subscribe", "run_id": run.run_id})
    # Another deliverer took the subscription and died holding it
    socket.deps.store.claim_delivery("c1", run.run_id, until=utcnow() + timedelta(seconds=30), token="dead")
    _append(socket.deps, run.run_id, "stage.started")
    with pytest.raises(Busy):
        notifier({"Records": [_event(run.run_id)]}, LambdaContext())
    assert socket.poster.seqs("c1") == [1]
    # Once its claim is over (here: given back with seq 1 posted), the retried batch delivers the rest
    socket.deps.store.end_delivery("c1", run.run_id, 1, token="dead")
    notifier({"Records": [_event(run.run_id)]}, LambdaContext())
    assert socket.poster.seqs("c1") == [1, 2]


DEEP = "[" * 20_000 + "]" * 20_000


@pytest.mark.parametrize(
    ("route", "body", "code"),
    [
        ("$default", '{"action": "dance"}', "unknown_action"),
        ("$default", "not json", "invalid_message"),
        ("$default", '"subscribe"', "invalid_message"),
        ("$default", DEEP, "invalid_message"),
        ("$default", '{"action": ' + "1" * 4_301 + "}", "invalid_message"),
        ("subscribe", '{"action": "subscribe", "run_id": ' + DEEP + "}", "invalid_message"),
        ("subscribe", '{"action": "subscribe", "run_id": ' + "1" * 4_301 + "}", "invalid_message"),
    ],
    ids=["unknown", "not-json", "not-an-object", "deep", "huge", "deep-subscribe", "huge-subscribe"],
)
def test_a_message_that_is_not_a_readable_json_object_is_invalid_and_an_unknown_action_is_unknown(
    socket: Socket, route: str, body: str, code: str
) -> None:
    socket.connect("c1")
    assert socket.send(route, "c1", body) == {"statusCode": 200}
    [reply] = socket.poster.sent["c1"]
    assert (reply["type"], reply["code"]) == ("error", code)
    assert socket.deps.store.get_connection("c1").tenant_id == "acme"  # kept


def test_a_push_to_a_connection_whose_key_is_revoked_closes_it_and_posts_nothing(socket: Socket) -> None:
    # Given two connections following a run, each opened with its own key
    run = create_run(socket.deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    other_key, _ = issue_key(socket.deps.store, "acme")
    socket.connect("c1")
    socket.connect("c2", key=other_key)
    for connection_id in ("c1", "c2"):
        socket.send("subscribe", connection_id, {"action": "subscribe", "run_id": run.run_id})
    # When c1's key is revoked and the run goes on
    assert socket.deps.store.revoke_api_key(socket.key.split("_")[1])
    _append(socket.deps, run.run_id, "stage.started")
    notifier({"Records": [_event(run.run_id)]}, LambdaContext())
    # Then c1 is closed and forgotten without the new event; c2 gets it
    assert socket.poster.closed == ["c1"]
    assert socket.poster.seqs("c1") == [1] and socket.poster.seqs("c2") == [1, 2]
    assert socket.deps.store.subscribers(run.run_id) == ["c2"]
    with pytest.raises(NotFoundError):
        socket.deps.store.get_connection("c1")


@pytest.mark.parametrize("body", [{"action": "subscribe", "run_id": "run_nope"}, {"action": "dance"}])
def test_a_message_on_a_connection_whose_key_is_revoked_closes_it(socket: Socket, body: Any) -> None:
    socket.connect("c1")
    assert socket.deps.store.revoke_api_key(socket.key.split("_")[1])
    route = "subscribe" if body["action"] == "subscribe" else "$default"
    assert socket.send(route, "c1", body) == {"statusCode": 200}
    assert socket.poster.closed == ["c1"] and socket.poster.sent == {}
    with pytest.raises(NotFoundError):
        socket.deps.store.get_connection("c1")


def test_the_deployed_poster_closes_a_connection_through_the_management_api(clean_env: None) -> None:
    from moto import mock_aws
    from moto.apigatewaymanagementapi.models import apigatewaymanagementapi_backends

    from claimcourt.delivery import ApiGatewayPoster

    with mock_aws():
        endpoint = management_endpoint("wss://abc.execute-api.us-east-1.amazonaws.com/prod")
        poster = ApiGatewayPoster(endpoint, "us-east-1")
        poster.post("c1", {"type": "subscribed", "run_id": "run_x"})
        connections = apigatewaymanagementapi_backends["123456789012"]["us-east-1"].connections
        assert connections["c1"].data == b'{"type":"subscribed","run_id":"run_x"}'
        poster.close("c1")  # DELETE @connections/c1
        assert "c1" not in connections
        poster.close("c1")  # gone already: nothing to do


def test_the_functions_that_post_to_connections_may_also_close_them() -> None:
    from tests.contract.aws_resources import template

    resources = template()["Resources"]
    for function in ("SocketFunction", "NotifyFunction"):
        managed = [
            target["Fn::Sub"].rsplit("}/", 1)[1]  # e.g. POST/@connections/*
            for policy in resources[function]["Properties"]["Policies"]
            if "Ref" in policy
            for statement in resources[policy["Ref"]]["Properties"]["PolicyDocument"]["Statement"]
            if statement["Action"] == "execute-api:ManageConnections"
            for target in (
                statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            )
        ]
        assert sorted(managed) == ["DELETE/@connections/*", "POST/@connections/*"], function
