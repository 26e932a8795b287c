"""Live progress over the WebSocket API: a real client against `claimcourt serve`'s app, whose
socket handler is functions/socket/app.py's and whose feed hands new events to the notifier's
`notify`, as the DynamoDB stream does in the cloud."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from claimcourt.delivery import ENDS_A_RUN
from tests.integration.served import Served

pytestmark = pytest.mark.timeout(120)
CLAIM = {"claim": "Sea levels are rising"}


def _open(served: Served, key: str | None = None, query: bool = False) -> ClientConnection:
    key = key or served.key
    if query:  # as a browser must: it cannot set headers on a WebSocket
        return connect(f"{served.ws_url}?api_key={key}", proxy=None, open_timeout=10)
    return connect(served.ws_url, additional_headers={"Authorization": f"Bearer {key}"}, proxy=None)


def _receive(ws: ClientConnection, timeout: float = 60) -> dict[str, Any]:
    message: dict[str, Any] = json.loads(ws.recv(timeout=timeout))
    return message


def _until_the_end(ws: ClientConnection) -> list[dict[str, Any]]:
    events = []
    while True:
        message = _receive(ws)
        assert message["type"] == "event", message
        events.append(message["event"])
        if message["event"]["type"] in ENDS_A_RUN:
            return events


def _start(served: Served) -> str:
    reply = served.client.post("/runs", json=CLAIM, headers={"Authorization": f"Bearer {served.key}"})
    assert reply.status_code == 202, reply.text
    run_id: str = reply.json()["run_id"]
    return run_id


def _stored(served: Served, run_id: str) -> list[dict[str, Any]]:
    reply = served.client.get(f"/runs/{run_id}/events", headers={"Authorization": f"Bearer {served.key}"})
    events: list[dict[str, Any]] = reply.json()["events"]
    return events


def test_a_subscriber_receives_every_stage_event_in_order_then_the_result(served: Served) -> None:
    # Given a connected client and a run just submitted over HTTP
    with _open(served) as ws:
        run_id = _start(served)
        # When it subscribes
        ws.send(json.dumps({"action": "subscribe", "run_id": run_id}))
        assert _receive(ws) == {"type": "subscribed", "run_id": run_id}
        events = _until_the_end(ws)
    # Then it got the whole log, stored then live, each event once and in order, ending with the result
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events == _stored(served, run_id)
    assert events[0]["type"] == "run.created" and events[-1]["type"] == "run.succeeded"
    assert (
        events[-1]["data"]["score"]
        == served.client.get(f"/runs/{run_id}", headers={"Authorization": f"Bearer {served.key}"}).json()[
            "score"
        ]
    )
    stages = [e["stage"] for e in events if e["type"] == "stage.completed"]
    for stage in ("suitability", "decompose", "retrieve", "argue", "moderate", "adjudicate", "score"):
        assert stage in stages
    assert stages.index("adjudicate") < stages.index("score") and stages[-1] == "score"
    started = [(e["stage"], e["data"]) for e in events if e["type"] == "stage.started"]
    completed = [
        (e["stage"], {k: v for k, v in e["data"].items() if k not in ("elapsed_ms", "summary")})
        for e in events
        if e["type"] == "stage.completed"
    ]
    assert sorted(map(repr, started)) == sorted(map(repr, completed))  # every stage that began, ended


def test_a_late_subscriber_gets_the_stored_events_of_a_finished_run(served: Served) -> None:
    with _open(served) as ws:
        run_id = _start(served)
        ws.send(json.dumps({"action": "subscribe", "run_id": run_id}))
        _receive(ws)
        _until_the_end(ws)
    with _open(served, query=True) as late:
        late.send(json.dumps({"action": "subscribe", "run_id": run_id}))
        assert _receive(late)["type"] == "subscribed"
        assert _until_the_end(late) == _stored(served, run_id)


def test_a_run_another_process_runs_on_the_same_store_streams_live_once_subscribed(served: Served) -> None:
    from claimcourt.models import RunEvent
    from claimcourt.runs import create_run, end_failed, parse_request

    # Given a run of another process (a CLI run, a drift tick) in the store this server reads
    store = served.server.deps.store
    run_id = create_run(store, parse_request(CLAIM), tenant_id="acme").run_id
    with _open(served) as ws:
        ws.send(json.dumps({"action": "subscribe", "run_id": run_id}))
        assert _receive(ws) == {"type": "subscribed", "run_id": run_id}
        assert served.server.feed.watches(run_id)  # before the reply: an end right after it is not missed
        assert [m["event"]["type"] for m in [_receive(ws)]] == ["run.created"]  # what is stored so far
        # When that process goes on, after the subscription
        started = RunEvent(run_id=run_id, type="stage.started", stage="suitability")
        store.append_event(started, key="suitability:started")
        end_failed(store, run_id, "the process running it stopped")
        # Then its events arrive live, to its end
        assert [e["type"] for e in _until_the_end(ws)] == ["stage.started", "run.failed"]


def test_a_connection_without_a_valid_key_is_refused_at_the_handshake(served: Served) -> None:
    for attempt in (
        lambda: connect(served.ws_url, proxy=None),
        lambda: _open(served, key="cc_0000000000000000_" + "x" * 43),
    ):
        with pytest.raises(InvalidStatus) as refused:
            attempt()
        assert refused.value.response.status_code == 403


def test_another_tenants_run_cannot_be_followed(served: Served) -> None:
    run_id = _start(served)
    with _open(served, key=served.other_key) as ws:
        ws.send(json.dumps({"action": "subscribe", "run_id": run_id}))
        assert _receive(ws) == {"type": "error", "code": "not_found", "detail": f"no run {run_id}"}
        ws.send(json.dumps({"action": "subscribe", "run_id": "run_nope"}))
        assert _receive(ws)["code"] == "not_found"  # the same answer as a run that does not exist


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ('{"action": "dance"}', "unknown_action"),
        ("not json", "invalid_message"),
        ('["action", "subscribe"]', "invalid_message"),
        ('{"action": "subscribe"}', "invalid_message"),
        ('{"action": "subscribe", "run_id": "../etc"}', "invalid_message"),
        ("[" * 20_000 + "]" * 20_000, "invalid_message"),
        ('{"action": "subscribe", "run_id": ' + "[" * 20_000 + "]" * 20_000 + "}", "invalid_message"),
        ('{"action": "subscribe", "run_id": ' + "1" * 4_301 + "}", "invalid_message"),
    ],
    ids=["unknown", "not-json", "not-an-object", "no-run", "bad-run", "deep", "deep-run", "huge-run"],
)
def test_a_message_it_cannot_act_on_gets_an_error_and_the_connection_stays(
    served: Served, message: str, code: str
) -> None:
    with _open(served) as ws:
        ws.send(message)
        assert _receive(ws)["code"] == code
        ws.send(json.dumps({"action": "subscribe", "run_id": "run_nope"}))
        assert _receive(ws)["code"] == "not_found"  # still open, still answering


def test_revoking_a_key_with_the_cli_closes_its_connections_before_the_next_event(served: Served) -> None:
    from click.testing import CliRunner
    from websockets.exceptions import ConnectionClosed

    from claimcourt.cli import main
    from claimcourt.models import RunEvent
    from claimcourt.runs import create_run, end_failed, parse_request

    # Given a connection following a run (one the test appends to, so it says when events come),
    # and a connection of another key
    store = served.server.deps.store
    run_id = create_run(store, parse_request(CLAIM), tenant_id="acme").run_id
    with _open(served) as ws, _open(served, key=served.other_key) as other:
        ws.send(json.dumps({"action": "subscribe", "run_id": run_id}))
        assert _receive(ws) == {"type": "subscribed", "run_id": run_id}
        assert _receive(ws)["event"]["type"] == "run.created"
        # When its key is revoked by the CLI (its own connection to the store, as from another
        # process), and the run goes on
        data_dir = str(served.server.deps.settings.data_dir)
        revoked = CliRunner().invoke(
            main, ["keys", "revoke", served.key.split("_")[1], "--data-dir", data_dir]
        )
        assert revoked.exit_code == 0, revoked.output
        store.append_event(
            RunEvent(run_id=run_id, type="stage.started", stage="suitability"), key="s:started"
        )
        # Then the server closes the connection (policy violation) instead of posting the event
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=30)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert store.subscribers(run_id) == []
        # and the other key's connection is still open and answering
        other.send(json.dumps({"action": "subscribe", "run_id": "run_nope"}))
        assert _receive(other)["code"] == "not_found"
    end_failed(store, run_id, "the test is over")
