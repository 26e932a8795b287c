"""`claimcourt serve`: real HTTP on 127.0.0.1 into the API handler, runs executed by the local
runtime (the real state machine) over the SQLite store."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.integration.served import Served

pytestmark = pytest.mark.timeout(120)


def _until_ended(client: httpx.Client, key: str, run_id: str) -> dict[str, Any]:
    for _ in range(600):
        body: dict[str, Any] = client.get(
            f"/runs/{run_id}", headers={"Authorization": f"Bearer {key}"}
        ).json()
        if body["status"] != "running":
            return body
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not end")


def test_a_run_submitted_over_http_runs_to_a_scored_result(served: Served) -> None:
    client, key = served.client, served.key
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


def test_an_oversized_body_is_refused_without_reading_it_all(served: Served) -> None:
    client, key = served.client, served.key
    reply = client.post("/runs", content=b"x" * 5_000_000, headers={"Authorization": f"Bearer {key}"})
    assert (reply.status_code, reply.json()["code"]) == (413, "payload_too_large")


@pytest.mark.parametrize("path", ["/runs", "/monitors", "/motions"])
def test_a_body_json_cannot_read_safely_is_malformed_json_and_the_server_goes_on(
    served: Served, path: str
) -> None:
    auth = {"Authorization": f"Bearer {served.key}"}
    for body in (
        b'{"claim": ' + b"[" * 30_000 + b"]" * 30_000 + b"}",  # 60 KB: under the limit, past recursion
        b'{"claim": "Sea levels are rising", "rounds": ' + b"1" * 4_301 + b"}",  # past int("…")'s digits
    ):
        reply = served.client.post(path, content=body, headers=auth)
        assert (reply.status_code, reply.json()["code"]) == (400, "malformed_json"), reply.text
    assert served.client.get("/runs", headers=auth).json()["runs"] == []


def test_the_sweeper_leaves_runs_of_other_processes_alone_until_they_are_too_old(make_deps: Any) -> None:
    from datetime import timedelta

    from claimcourt.local.server import LocalServer
    from claimcourt.runs import create_run, parse_request

    deps = make_deps()
    server = LocalServer(deps)
    elsewhere = create_run(
        deps.store, parse_request({"claim": "Sea levels are rising"})
    )  # another terminal's
    assert server._swept_status(elsewhere.run_id) == "RUNNING"
    old = elsewhere.created_at - timedelta(seconds=deps.settings.run_timeout_s + 3600)
    stale = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}))
    deps.store.create_run(stale.model_copy(update={"run_id": "run_stale", "created_at": old}))
    assert server._swept_status("run_stale") is None  # long past any run's time: lost
