"""The loopback server every stand-in serves from (bench/loopback.py): its teardown waits on the server's
own shutdown, never on a timer, and never on a reply a test still holds back."""

from __future__ import annotations

import threading

import httpx
import pytest

from claimcourt.bench.loopback import LoopbackServer, Reply, Request

pytestmark = pytest.mark.timeout(30)  # a teardown that hangs fails here, not the suite


class Held(LoopbackServer):
    """Answers /held only once `release` is set; anything else at once, echoing how it was asked."""

    def __init__(self, keep_alive: bool = False) -> None:
        self.keep_alive = keep_alive
        self.entered = threading.Event()
        self.release = threading.Event()
        self.answered_paths: list[str] = []
        super().__init__()

    def answer(self, request: Request) -> Reply:
        if request.path == "/held":
            self.entered.set()
            self.release.wait()
        return Reply.json(200, {"method": request.method, "body": request.body})

    def answered(self, request: Request) -> None:
        self.answered_paths.append(request.path)


def test_close_returns_once_the_server_has_stopped_and_its_thread_ended() -> None:
    server = Held()
    url = server.base_url
    assert httpx.post(f"{url}/echo", json={"a": 1}).json() == {"method": "POST", "body": {"a": 1}}

    server.close()

    assert not server._thread.is_alive()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/echo")
    assert server.answered_paths == ["/echo"]


def test_close_does_not_wait_for_a_reply_still_held_back() -> None:
    server = Held()
    client = threading.Thread(target=lambda: httpx.get(f"{server.base_url}/held", timeout=None))
    client.start()
    server.entered.wait()

    server.close()  # the held handler is still waiting on `release`

    assert not server._thread.is_alive()
    server.release.set()
    client.join()


@pytest.mark.parametrize("keep_alive", [False, True])
def test_a_reply_without_a_length_ends_where_the_connection_closes(keep_alive: bool) -> None:
    class Unsized(LoopbackServer):
        def answer(self, request: Request) -> Reply:
            return Reply(200, b"all of it", {"content-type": "text/plain"}, send_length=False)

    Unsized.keep_alive = keep_alive
    with Unsized() as server, httpx.Client() as client:
        first = client.get(f"{server.base_url}/a")
        second = client.get(f"{server.base_url}/b")  # a fresh connection: the first one was closed
    assert (first.text, second.text) == ("all of it", "all of it")
    assert "content-length" not in first.headers
