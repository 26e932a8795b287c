"""A GET from the open web that cannot be turned against this machine or its memory: the one way the
SearXNG page reader (pages.py) and a collection's url fetch (fetch.py, `claimcourt corpus add URL`)
reach a url.

- Each connection is made by `client()`'s transport to an address it has just checked: the host is
  resolved once, refused when any of its addresses is not global (loopback, a private network,
  link-local, the IPv6 forms that carry such an IPv4 address) unless private addresses are allowed,
  and the socket connects to those very addresses. httpx never resolves the name again, so a name
  that answers a public address when checked and this machine's a moment later (DNS rebinding) is
  sent nothing: the request goes where the check looked. TLS is still the name's: SNI, the
  certificate's verification and the Host header all come from the url, only the TCP connection is
  pinned. No proxy is used (one would resolve the name itself, past the check).
- Redirects are followed by hand, at most MAX_REDIRECTS, each hop an http(s) url whose connection is
  checked as the first one was.
- The body is read under a size cap and a deadline for the whole transfer, counted as it arrives. A
  body the server compressed though it was asked not to (gzip or deflate) is inflated no further than
  the cap allows, so the cap counts what the body would become; another coding is refused.

A url not read raises `Refused` (or `TooLarge`, `TooLate`), a sentence naming no secret, which each
caller words as its own error. httpx's own errors (a timeout, no connection) pass through.
"""

from __future__ import annotations

import ipaddress
import socket
import time
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

MAX_REDIRECTS = 5
UNCOMPRESSED = {"accept-encoding": "identity"}  # what every client of this module asks for

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class Refused(Exception):
    """Why a url was not read, in a sentence naming no secret."""


class TooLarge(Refused):
    def __init__(self, max_bytes: int, declared: int | None = None) -> None:
        super().__init__(f"larger than {max_bytes:,} bytes" + (f" ({declared:,})" if declared else ""))
        self.max_bytes = max_bytes
        self.declared = declared  # what its content-length said, when that was already too large


class TooLate(Refused):
    """The deadline for the whole transfer passed while the body arrived."""


def is_public(address: str) -> bool:
    """A global address, looked through the IPv6 forms that carry an IPv4 one (mapped, compatible,
    NAT64): ::ffff:127.0.0.1, ::127.0.0.1 and 64:ff9b::7f00:1 are this machine."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif ip in _NAT64 or int(ip) >> 32 == 0:
            ip = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip.is_global


def client(
    *,
    private: bool,
    timeout_s: float,
    headers: Mapping[str, str],
    transport: httpx.BaseTransport | None = None,
) -> httpx.Client:
    """The client `opened` reads with: redirects left to it, bodies asked for uncompressed, and each
    connection made to the addresses just checked. `private`: loopback and private-network hosts are
    allowed (an intranet's). `transport`: a test's in-memory one, which has no sockets to check."""
    return httpx.Client(
        timeout=timeout_s,
        follow_redirects=False,  # each hop is checked before it is fetched
        headers={**headers, **UNCOMPRESSED},
        transport=transport or _CheckedTransport(private=private),
    )


class _CheckedTransport(httpx.HTTPTransport):
    """httpx's own transport (pool, TLS, its errors), its connections made by `_CheckedBackend`. httpx
    0.28 takes no network backend of its own accord, so its pool is replaced by httpcore's same pool
    given one, with httpx's default certificates (certifi, or SSL_CERT_FILE) and limits."""

    def __init__(self, *, private: bool) -> None:
        super().__init__()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=_CheckedBackend(private=private),
        )


class _CheckedBackend(httpcore.NetworkBackend):
    """Resolves a host once and connects to the addresses it answered, after checking every one of
    them; httpcore then speaks TLS over that socket for the url's host name."""

    def __init__(self, *, private: bool) -> None:
        self._private = private
        self._sockets = httpcore.SyncBackend()  # given an address, it connects without resolving

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = _addresses(host, port)
        if not self._private and not all(is_public(a) for a in addresses):
            raise _inside(host)  # before anything is sent
        failure: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in addresses:  # in the resolver's order, as socket.create_connection tries them
            try:
                return self._sockets.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as err:
                failure = err
        raise failure


def _addresses(host: str, port: int) -> list[str]:
    """The host's addresses, each once, in the resolver's order."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Refused(f"its host {host} was not found") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _inside(host: str) -> Refused:
    return Refused(f"its host {host} is on a private network or this machine")


def _no_turn(host: str) -> AbstractContextManager[None]:
    return nullcontext()


@contextmanager
def opened(
    client: httpx.Client,
    url: str,
    *,
    timeout_s: float,
    turn: Callable[[str], AbstractContextManager[None]] = _no_turn,
) -> Iterator[tuple[httpx.Response, float]]:
    """The answer at the end of `url`'s redirects, its body not yet read, and the deadline its body
    must arrive by. `client` is one of `client()`'s: its connections are checked, each hop's. `turn(host)`
    is held while a host is asked (pages take turns per site); the deadline runs from the first turn,
    so waiting for one's site does not count."""
    if client.follow_redirects:
        raise ValueError("the client must leave redirects to opened(): each hop is checked")
    deadline: float | None = None
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if parts.scheme not in ("http", "https") or not host:
            raise Refused(f"{url[:80]} is not an http(s) url")
        with turn(host):
            deadline = deadline or time.monotonic() + timeout_s
            left = deadline - time.monotonic()
            if left <= 0:
                raise TooLate(f"timed out after {timeout_s:g} s")
            with client.stream("GET", url, timeout=left) as response:
                if response.is_redirect and "location" in response.headers:
                    url = urljoin(url, response.headers["location"])
                    continue
                yield response, deadline
                return
    raise Refused(f"more than {MAX_REDIRECTS} redirects")


def read_body(response: httpx.Response, *, max_bytes: int, deadline: float, timeout_s: float) -> bytes:
    """The body, at most `max_bytes` of it after decompression, by `deadline`."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(max_bytes, int(declared))
    if response.is_stream_consumed:  # a transport that answered from memory (httpx.MockTransport's)
        if len(response.content) > max_bytes:
            raise TooLarge(max_bytes)
        return response.content
    inflate = _inflater(response.headers.get("content-encoding", ""))
    body = bytearray()
    for raw in response.iter_raw():
        pending = raw
        while pending:
            # One byte of room past the cap: a body that reaches it is too large, and nothing beyond.
            out, pending = inflate(pending, max_bytes - len(body) + 1)
            body += out
            if len(body) > max_bytes:
                raise TooLarge(max_bytes)
        if time.monotonic() > deadline:
            raise TooLate(f"timed out after {timeout_s:g} s")
    return bytes(body)


Inflate = Callable[[bytes, int], tuple[bytes, bytes]]  # (data, room) → (at most room bytes out, data left)


def _inflater(coding: str) -> Inflate:
    coding = coding.strip().lower()
    if coding in ("", "identity"):
        return lambda data, room: (data, b"")
    if coding in ("gzip", "x-gzip"):
        return _bounded(zlib.decompressobj(16 + zlib.MAX_WBITS))
    if coding == "deflate":
        return _deflate()
    raise Refused(f"its body is compressed as {coding}, which was not asked for and is not read")


def _bounded(decompressor: zlib._Decompress) -> Inflate:
    def inflate(data: bytes, room: int) -> tuple[bytes, bytes]:
        try:
            return decompressor.decompress(data, room), decompressor.unconsumed_tail
        except zlib.error:
            raise Refused("its compressed body is damaged") from None

    return inflate


def _deflate() -> Inflate:
    """HTTP's deflate is zlib's format, but some servers send the raw stream: the first bytes say."""
    chosen: list[Inflate] = []

    def inflate(data: bytes, room: int) -> tuple[bytes, bytes]:
        if not chosen:
            wrapped = zlib.decompressobj()
            try:
                out = wrapped.decompress(data, room)
            except zlib.error:
                chosen.append(_bounded(zlib.decompressobj(-zlib.MAX_WBITS)))
                return chosen[0](data, room)
            chosen.append(_bounded(wrapped))
            return out, wrapped.unconsumed_tail
        return chosen[0](data, room)

    return inflate
