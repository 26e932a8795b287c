"""The internet's names and routes, played on loopback, for the url reader's real sockets (safe_http.py).

    internet = FakeInternet(monkeypatch)
    internet.name("docs.example.org", "93.184.216.34")
    internet.name("rebind.example", "93.184.216.35", "127.0.0.1")  # one answer, then another
    internet.route("93.184.216.34", 443, to=site.port)  # that public address is this loopback server

A name answers its addresses in turn, one a lookup, the last for good (a rebinding DNS server's short
TTL: public when checked, this machine when connected). A connection to a routed public address goes
to its loopback server; to a loopback address, where it says; to any other address, nowhere: this
test has no internet, and ENETUNREACH comes at once on any machine, never a timeout. Literal addresses
and `localhost` resolve as they really do. Every connection asked for is recorded, in order."""

from __future__ import annotations

import errno
import ipaddress
import socket
import threading
from typing import Any

import pytest


class FakeInternet:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._answers: dict[str, list[str]] = {}
        self._routes: dict[tuple[str, int], int] = {}
        self._lock = threading.Lock()
        self.lookups: list[str] = []  # each name asked of the resolver, in order
        self.connected: list[tuple[str, int]] = []  # each (address, port) a connection was asked to
        self._getaddrinfo = socket.getaddrinfo
        self._create_connection = socket.create_connection
        monkeypatch.setattr(socket, "getaddrinfo", self.getaddrinfo)
        monkeypatch.setattr(socket, "create_connection", self.create_connection)

    def name(self, host: str, *addresses: str) -> None:
        """What `host` resolves to: each lookup the next address, the last one from then on."""
        self._answers[host.lower()] = list(addresses)

    def route(self, address: str, port: int, *, to: int) -> None:
        """A connection to (address, port) reaches the loopback server listening on port `to`."""
        self._routes[(address, port)] = to

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if _is_literal(name) or name == "localhost":
            return self._getaddrinfo(host, port, *args, **kwargs)
        with self._lock:
            self.lookups.append(name)
            answers = self._answers.get(name.lower())
            if not answers:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            address = answers.pop(0) if len(answers) > 1 else answers[0]
        number = int(port or 0)
        if ipaddress.ip_address(address).version == 6:
            return [(socket.AF_INET6, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, number, 0, 0))]
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, number))]

    def create_connection(self, address: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        """Connects as socket.create_connection does, a name resolved here first, through the routes."""
        host, port = address[0], int(address[1])
        failure: OSError | None = None
        for *_, sockaddr in self.getaddrinfo(host, port, 0, socket.SOCK_STREAM):
            ip = str(sockaddr[0])
            with self._lock:
                self.connected.append((ip, port))
            if (ip, port) in self._routes:
                return self._create_connection(("127.0.0.1", self._routes[(ip, port)]), *args, **kwargs)
            if ipaddress.ip_address(ip.split("%")[0]).is_loopback:
                return self._create_connection((ip, port), *args, **kwargs)
            failure = OSError(errno.ENETUNREACH, f"no route to {ip}: this test has no internet")
        raise failure or OSError(errno.ENETUNREACH, "no address")


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True
