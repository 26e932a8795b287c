"""Fetch one document from the web for a collection: http(s) only, a few redirects, a deadline for the
whole transfer (not only for each read: a server dripping one byte at a time is cut off too) and a size
cap checked as the bytes arrive. A failure raises `Unreadable` with the reason."""

from __future__ import annotations

import time
from dataclasses import dataclass
from urllib.parse import urlparse

from claimcourt.evidence.documents import MAX_DOCUMENT_BYTES, Unreadable, megabytes

FETCH_TIMEOUT_S = 20.0
MAX_REDIRECTS = 5
USER_AGENT = "claimcourt (document collections)"


@dataclass(frozen=True)
class Fetched:
    url: str  # where the document was found, after redirects
    data: bytes
    media_type: str | None


def is_url(target: str) -> bool:
    return urlparse(target).scheme in ("http", "https")


def fetch(url: str, *, timeout_s: float = FETCH_TIMEOUT_S, max_bytes: int = MAX_DOCUMENT_BYTES) -> Fetched:
    import httpx  # the provider SDKs' HTTP client: already installed, imported only here

    if not is_url(url) or not urlparse(url).hostname:
        raise Unreadable("only http and https urls can be fetched")
    deadline = time.monotonic() + timeout_s
    try:
        with (
            httpx.Client(
                timeout=timeout_s,
                follow_redirects=True,
                max_redirects=MAX_REDIRECTS,
                # identity: a compressed body is inflated a chunk at a time before the size cap counts it
                headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"},
            ) as client,
            client.stream("GET", url) as response,
        ):
            if response.status_code >= 400:
                raise Unreadable(
                    f"the server answered {response.status_code} {response.reason_phrase}".rstrip()
                )
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise Unreadable(
                    f"the server says it is {megabytes(int(declared))}, over the {megabytes(max_bytes)} limit"
                )
            body = bytearray()
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    raise Unreadable(f"larger than the {megabytes(max_bytes)} limit for one document")
                if time.monotonic() > deadline:
                    raise Unreadable(f"not received within {timeout_s:g} s")
            media_type = response.headers.get("content-type")
            return Fetched(str(response.url), bytes(body), media_type)
    except httpx.TimeoutException as exc:
        raise Unreadable(f"no answer within {timeout_s:g} s ({type(exc).__name__})") from exc
    except httpx.TooManyRedirects as exc:
        raise Unreadable(f"more than {MAX_REDIRECTS} redirects") from exc
    except httpx.HTTPError as exc:
        raise Unreadable(f"could not be fetched ({type(exc).__name__}: {exc})") from exc
