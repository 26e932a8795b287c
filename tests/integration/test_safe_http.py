"""A GET from the open web (evidence/safe_http.py), as a collection's url fetch (`corpus add URL`) and
the SearXNG page reader make it: hosts inside the network refused at every hop unless allowed, each
connection made to the address that was checked (names and routes played by tests/fakes/network.py),
and a body the server compressed anyway capped on what it inflates to, as it streams."""

from __future__ import annotations

import gzip
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from claimcourt.evidence.documents import Unreadable
from claimcourt.evidence.fetch import fetch
from claimcourt.evidence.pages import PageError, PageReader
from tests.fakes.network import FakeInternet
from tests.fakes.tls import TestAuthority
from tests.fakes.web import LoopbackWeb

pytestmark = pytest.mark.timeout(60)

PUBLIC = "93.184.216.34"  # any public address: a FakeInternet routes it to a loopback server
REPORT = b"Acme revenue was 4.2 billion dollars in 2023, the annual report says.\n" * 40
INSIDE = r"its host 127\.0\.0\.1 is on a private network or this machine"


@pytest.fixture
def web() -> Iterator[LoopbackWeb]:
    """This machine's own web: what a url must not reach unless private addresses are allowed."""
    with LoopbackWeb() as served:
        yield served


@pytest.fixture
def site() -> Iterator[LoopbackWeb]:
    """A site's server on the public internet, reached through a FakeInternet's route."""
    with LoopbackWeb() as served:
        yield served


@pytest.fixture
def internet(monkeypatch: pytest.MonkeyPatch) -> FakeInternet:
    return FakeInternet(monkeypatch)


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


def test_a_name_that_resolves_to_a_private_address_is_refused_before_anything_is_sent(
    web: LoopbackWeb, internet: FakeInternet
) -> None:
    internet.name("intranet.example", "10.0.0.7")

    with pytest.raises(Unreadable, match=r"its host intranet\.example is on a private network"):
        fetch(web.url("/report.txt", host="intranet.example"))
    assert internet.connected == []


def test_a_name_that_resolves_again_to_this_machine_is_connected_where_it_was_checked(
    web: LoopbackWeb, site: LoopbackWeb, internet: FakeInternet
) -> None:
    # Given a name that is public when it is checked and this machine from then on (DNS rebinding),
    # this machine's service at the port the url names, and the site's real server at the public address
    web.page("/report.txt", b"this machine's own service", content_type="text/plain")
    site.page("/report.txt", REPORT, content_type="text/plain")
    internet.name("rebind.example", PUBLIC, "127.0.0.1")
    internet.route(PUBLIC, web.port, to=site.port)

    assert fetch(web.url("/report.txt", host="rebind.example")).data == REPORT
    # Then the name was resolved once, and the request went to the address that was checked
    assert internet.lookups == ["rebind.example"]
    assert internet.connected == [(PUBLIC, web.port)]
    assert web.fetched() == []  # not one request reached this machine
    assert site.hosts == [f"rebind.example:{web.port}"]  # asked for by its name all the same


def test_each_redirect_is_connected_where_it_was_checked(
    web: LoopbackWeb, site: LoopbackWeb, internet: FakeInternet
) -> None:
    # Given a public site that moved its report to a name that rebinds to this machine
    moved = web.url("/report.txt", host="rebind.example")
    site.page("/old", status=302, headers={"location": moved})
    site.page("/report.txt", REPORT, content_type="text/plain")
    web.page("/report.txt", b"this machine's own service", content_type="text/plain")
    internet.name("docs.example.org", PUBLIC)
    internet.route(PUBLIC, site.port, to=site.port)
    internet.name("rebind.example", "93.184.216.35", "127.0.0.1")
    internet.route("93.184.216.35", web.port, to=site.port)

    found = fetch(site.url("/old", host="docs.example.org"))

    assert (found.url, found.data) == (moved, REPORT)
    assert internet.lookups == ["docs.example.org", "rebind.example"]  # each hop's name once
    assert internet.connected == [(PUBLIC, site.port), ("93.184.216.35", web.port)]
    assert web.fetched() == []


def test_a_redirect_to_a_private_address_is_refused_before_it_is_asked(
    web: LoopbackWeb, site: LoopbackWeb, internet: FakeInternet
) -> None:
    # Given a public site that redirects to the router's admin page on the private network
    site.page("/report", status=302, headers={"location": "http://10.0.0.7/admin"})
    web.page("/admin", b"the router's admin page", content_type="text/plain")
    internet.name("docs.example.org", PUBLIC)
    internet.route(PUBLIC, site.port, to=site.port)
    internet.route("10.0.0.7", 80, to=web.port)
    url = site.url("/report", host="docs.example.org")

    with pytest.raises(Unreadable, match=r"its host 10\.0\.0\.7 is on a private network"):
        fetch(url)
    assert internet.connected == [(PUBLIC, site.port)] and web.fetched() == []  # never asked

    assert fetch(url, private=True).data == b"the router's admin page"  # an intranet's, when allowed


def test_https_to_the_checked_address_verifies_the_certificate_for_the_name(
    internet: FakeInternet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an https site whose certificate names docs.example.org, and a second name for its address
    authority = TestAuthority(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(authority.ca_file))  # httpx trusts the test's authority
    with LoopbackWeb(tls=authority.server_context("docs.example.org")) as secure:
        secure.page("/report.txt", REPORT, content_type="text/plain")
        internet.name("docs.example.org", PUBLIC)
        internet.name("impostor.example", PUBLIC)
        internet.route(PUBLIC, secure.port, to=secure.port)

        # Then the connection to the address is verified as the name's (SNI and certificate), not the IP's
        assert fetch(secure.url("/report.txt", host="docs.example.org")).data == REPORT
        assert secure.hosts == [f"docs.example.org:{secure.port}"]
        # and the same address under another name is refused: its certificate is not that name's
        with pytest.raises(Unreadable, match="CERTIFICATE_VERIFY_FAILED"):
            fetch(secure.url("/report.txt", host="impostor.example"))
        assert internet.connected == [(PUBLIC, secure.port)] * 2 and secure.fetched() == ["/report.txt"]


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
