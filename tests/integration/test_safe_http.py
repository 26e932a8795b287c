"""A GET from the open web (evidence/safe_http.py), as a collection's url fetch (`corpus add URL`) and
the SearXNG page reader make it: hosts inside the network refused at every hop and on the socket unless
allowed, and a body the server compressed anyway capped on what it inflates to, as it streams."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import Iterator

import httpx
import pytest

from claimcourt.evidence import safe_http
from claimcourt.evidence.documents import Unreadable
from claimcourt.evidence.fetch import fetch
from claimcourt.evidence.pages import PageError, PageReader
from tests.fakes.web import LoopbackWeb

pytestmark = pytest.mark.timeout(60)

REPORT = b"Acme revenue was 4.2 billion dollars in 2023, the annual report says.\n" * 40
INSIDE = r"its host 127\.0\.0\.1 is on a private network or this machine"


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    with LoopbackWeb() as served:
        yield served


def gzip_bomb(inflated_mb: int) -> bytes:
    """A gzip body of `inflated_mb` MB of zeros: about a thousandth of that on the wire."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(1 << 20)
    return b"".join([*(packer.compress(zeros) for _ in range(inflated_mb)), packer.flush()])


# ---------------------------------------------------------------- addresses inside the network


def test_a_url_on_this_machine_is_refused_unless_private_addresses_are_allowed(web: LoopbackWeb) -> None:
    web.page("/report.txt", REPORT, content_type="text/plain")

    with pytest.raises(Unreadable, match=INSIDE):
        fetch(web.url("/report.txt"))
    assert web.fetched() == []  # refused before anything was sent

    assert fetch(web.url("/report.txt"), private=True).data == REPORT


def test_a_name_that_resolves_again_to_this_machine_is_refused_by_where_it_connected(
    web: LoopbackWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    web.page("/report.txt", REPORT, content_type="text/plain")
    # Given a name that looked public when it was checked, then reached this machine (DNS rebinding)
    monkeypatch.setattr(safe_http, "on_the_public_internet", lambda host: True)

    with pytest.raises(Unreadable, match=INSIDE):
        fetch(web.url("/report.txt"))


def test_every_redirect_is_checked_before_it_is_followed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a public site (resolved here without a network) that redirects to a private address
    real = safe_http.on_the_public_internet
    monkeypatch.setattr(
        safe_http, "on_the_public_internet", lambda host: host == "docs.example.org" or real(host)
    )
    asked: list[str] = []

    def serve(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        if request.url.host == "docs.example.org":
            return httpx.Response(302, headers={"location": "http://10.0.0.7/admin"})
        return httpx.Response(200, text="the router's admin page")

    client = httpx.Client(transport=httpx.MockTransport(serve))
    url = "https://docs.example.org/report"
    with (
        pytest.raises(safe_http.Refused, match=r"its host 10\.0\.0\.7 is on a private network"),
        safe_http.opened(client, url, private=False, timeout_s=5),
    ):
        pass
    assert asked == [url]  # the private hop was never asked

    with safe_http.opened(client, url, private=True, timeout_s=5) as (answer, _):
        assert answer.read() == b"the router's admin page"


# ---------------------------------------------------------------- bodies compressed though asked not to


@pytest.mark.parametrize(
    ("coding", "packed"),
    [
        ("gzip", gzip.compress(REPORT)),
        ("deflate", zlib.compress(REPORT)),  # as HTTP names it: zlib's format
        ("deflate", zlib.compress(REPORT, wbits=-zlib.MAX_WBITS)),  # as some servers send it: the raw stream
    ],
)
def test_a_body_compressed_anyway_is_read_inflated(web: LoopbackWeb, coding: str, packed: bytes) -> None:
    web.page("/report.txt", packed, content_type="text/plain", headers={"content-encoding": coding})

    assert fetch(web.url("/report.txt"), private=True).data == REPORT
    page = PageReader(private=True).read(web.url("/report.txt"))
    assert page.passages[0].startswith("Acme revenue was 4.2 billion dollars")


def test_a_gzip_bomb_is_cut_off_at_the_cap_without_inflating_the_rest(web: LoopbackWeb) -> None:
    # Given a page the server gzips though asked for identity: 48 KB on the wire, 50 MB inflated
    bomb = gzip_bomb(50)
    assert len(bomb) < 64 * 1024  # one read from the socket: a decoder inflating whole chunks holds 50 MB
    web.page("/bomb.txt", bomb, content_type="text/plain", headers={"content-encoding": "gzip"})

    tracemalloc.start()
    try:
        with pytest.raises(Unreadable, match="larger than the 1 MB limit for one document"):
            fetch(web.url("/bomb.txt"), max_bytes=1 << 20, private=True)
        with pytest.raises(PageError, match="it is larger than 100,000 bytes"):
            PageReader(private=True, max_bytes=100_000).read(web.url("/bomb.txt"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Then no more than the cap (and a chunk) was ever held: not the 50 MB it inflates to
    assert peak < 8 << 20, f"{peak / 2**20:.1f} MB held at the peak"


def test_a_coding_that_was_not_asked_for_and_is_not_read_is_refused_by_name(web: LoopbackWeb) -> None:
    web.page("/report.txt", b"\x1b\x03\x00", content_type="text/plain", headers={"content-encoding": "br"})

    with pytest.raises(Unreadable, match="its body is compressed as br, which was not asked for"):
        fetch(web.url("/report.txt"), private=True)


def test_a_damaged_compressed_body_says_so(web: LoopbackWeb) -> None:
    web.page(
        "/report.txt", b"not gzip at all", content_type="text/plain", headers={"content-encoding": "gzip"}
    )

    with pytest.raises(Unreadable, match="its compressed body is damaged"):
        fetch(web.url("/report.txt"), private=True)
