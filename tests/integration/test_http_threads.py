"""The HTTP API handler on threads, as `claimcourt serve` runs it: Powertools keeps the request it is
resolving on a class attribute (one per process), so requests must not be resolved at once, or one
thread's route answers another thread's request (a console file's GET came back as a 500 from
GET /runs's route)."""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any

from claimcourt.access import issue_key
from claimcourt.api.http import handler
from claimcourt.models import RunPage
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import use_deps
from tests.conftest import MakeDeps
from tests.fakes.apigw import LambdaContext, http_event


class HeldStore(SqliteStore):
    """A store whose list_runs holds its caller until released, saying when it got there."""

    def __init__(self, path: Any) -> None:
        super().__init__(path)
        self.entered = threading.Event()
        self.release = threading.Event()

    def list_runs(self, *args: Any, **kwargs: Any) -> RunPage:
        self.entered.set()
        assert self.release.wait(30), "the test never released the held request"
        return super().list_runs(*args, **kwargs)


def test_a_request_resolving_on_one_thread_is_not_joined_by_another(
    make_deps: MakeDeps, tmp_path: Any
) -> None:
    # Given a GET /runs held inside its route on one thread
    store = HeldStore(tmp_path / "held.sqlite")
    deps = dataclasses.replace(make_deps(), store=store)
    key, _ = issue_key(store, "acme")
    replies: dict[str, dict[str, Any]] = {}

    def get(name: str, path: str, headers: dict[str, str]) -> None:
        replies[name] = handler(http_event("GET", path, headers=headers), LambdaContext())

    with use_deps(deps):
        runs = threading.Thread(target=get, args=("runs", "/runs", {"authorization": f"Bearer {key}"}))
        runs.start()
        assert store.entered.wait(30)
        # When a console file is asked for on another thread meanwhile
        icon = threading.Thread(target=get, args=("icon", "/console/icon.svg", {}))
        icon.start()
        icon.join(0.5)
        # Then it waits for the held request rather than resolving beside it
        assert icon.is_alive() and "icon" not in replies
        store.release.set()
        runs.join(30)
        icon.join(30)
    # and each is answered by its own route
    assert replies["runs"]["statusCode"] == 200 and "runs" in json.loads(replies["runs"]["body"])
    assert replies["icon"]["statusCode"] == 200
    assert replies["icon"]["headers"]["Content-Type"].startswith("image/svg+xml")
