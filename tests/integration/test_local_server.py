"""`claimcourt serve`: real HTTP on 127.0.0.1 into the API handler, runs executed by the local
runtime (the real state machine) over the SQLite store."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from claimcourt.access import issue_key
from claimcourt.local.server import LocalServer
from tests.conftest import MakeDeps

pytestmark = pytest.mark.timeout(120)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served(make_deps: MakeDeps) -> Iterator[tuple[httpx.Client, str]]:
    deps = make_deps()
    key, _ = issue_key(deps.store, "acme")
    port = _free_port()
    server = LocalServer(deps)
    with server.running():
        uv = uvicorn.Server(uvicorn.Config(server, host="127.0.0.1", port=port, log_level="warning"))
        thread = threading.Thread(target=uv.run, daemon=True)
        thread.start()
        while not uv.started:
            time.sleep(0.01)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            yield client, key
        uv.should_exit = True
        thread.join(timeout=10)


def _until_ended(client: httpx.Client, key: str, run_id: str) -> dict[str, Any]:
    for _ in range(600):
        body: dict[str, Any] = client.get(
            f"/runs/{run_id}", headers={"Authorization": f"Bearer {key}"}
        ).json()
        if body["status"] != "running":
            return body
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not end")


def test_a_run_submitted_over_http_runs_to_a_scored_result(served: tuple[httpx.Client, str]) -> None:
    client, key = served
    auth = {"Authorization": f"Bearer {key}"}
    assert client.get("/health").json()["status"] == "ok"
    assert client.get("/runs").status_code == 401
    # no Content-Type, as `curl -d` sends: the body is still read as JSON
    reply = client.post("/runs", content=b'{"claim": "Sea levels are rising"}', headers=auth)
    assert reply.status_code == 202, reply.text
    run_id = reply.json()["run_id"]
    assert reply.headers["location"] == f"/runs/{run_id}"
    done = _until_ended(client, key, run_id)
    assert done["status"] == "succeeded" and 0 <= done["score"] <= 100
    assert done["result"]["sub_claims"]
    events = client.get(f"/runs/{run_id}/events", headers=auth).json()["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "run.created" and events[-1]["type"] == "run.succeeded"
    assert client.get("/runs", headers=auth).json()["runs"][0]["run_id"] == run_id


def test_an_oversized_body_is_refused_without_reading_it_all(served: tuple[httpx.Client, str]) -> None:
    client, key = served
    reply = client.post("/runs", content=b"x" * 5_000_000, headers={"Authorization": f"Bearer {key}"})
    assert (reply.status_code, reply.json()["code"]) == (413, "payload_too_large")
