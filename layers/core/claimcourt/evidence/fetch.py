"""Fetch one document from the web for a collection: http(s) only, a few redirects, a deadline for the
whole transfer (not only for each read: a server dripping one byte at a time is cut off too) and a size
cap counted as the bytes arrive (after decompression, if the server compressed anyway). A host on this
machine or a private network is refused before anything is sent to it, at every redirect, and the
connection goes to the address that was checked, unless `private` (safe_http.py, as for SearXNG's
pages: the same setting, CLAIMCOURT_FETCH_PRIVATE_PAGES). A failure raises `Unreadable` with the
reason."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlparse

from claimcourt.evidence.documents import MAX_DOCUMENT_BYTES, Unreadable, megabytes

FETCH_TIMEOUT_S = 20.0
USER_AGENT = "claimcourt (document collections)"


@dataclass(frozen=True)
class Fetched:
    url: str  # where the document was found, after redirects
    data: bytes
    media_type: str | None


def is_url(target: str) -> bool:
    return urlparse(target).scheme in ("http", "https")


def fetch(
    url: str,
    *,
    timeout_s: float = FETCH_TIMEOUT_S,
    max_bytes: int = MAX_DOCUMENT_BYTES,
    private: bool = False,
) -> Fetched:
    import httpx  # the provider SDKs' HTTP client: already installed, imported only here

    from claimcourt.evidence.safe_http import Refused, TooLarge, TooLate, client, opened, read_body

    if not is_url(url) or not urlparse(url).hostname:
        raise Unreadable("only http and https urls can be fetched")
    try:
        with (
            client(private=private, timeout_s=timeout_s, headers={"User-Agent": USER_AGENT}) as web,
            opened(web, url, timeout_s=timeout_s) as (response, deadline),
        ):
            if response.status_code >= 400:
                raise Unreadable(
                    f"the server answered {response.status_code} {response.reason_phrase}".rstrip()
                )
            body = read_body(response, max_bytes=max_bytes, deadline=deadline, timeout_s=timeout_s)
            return Fetched(str(response.url), body, response.headers.get("content-type"))
    except TooLarge as exc:
        if exc.declared is not None:
            raise Unreadable(
                f"the server says it is {megabytes(exc.declared)}, over the {megabytes(max_bytes)} limit"
            ) from None
        raise Unreadable(f"larger than the {megabytes(max_bytes)} limit for one document") from None
    except TooLate:
        raise Unreadable(f"not received within {timeout_s:g} s") from None
    except Refused as exc:
        raise Unreadable(str(exc)) from None
    except httpx.TimeoutException as exc:
        raise Unreadable(f"no answer within {timeout_s:g} s ({type(exc).__name__})") from exc
    except httpx.HTTPError as exc:
        raise Unreadable(f"could not be fetched ({type(exc).__name__}: {exc})") from exc
