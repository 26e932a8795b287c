"""Reading a web page for its passages: fetched with a deadline and a size cap, one fetch per host at a
time (politeness without robots.txt: a search's pages from one site are read one after another), its
main text, title and date extracted (trafilatura), then cut into passages a debater can quote.

A page that cannot be read (a timeout, an error status, too large, not a web page, no readable text,
an address inside the network) is a `PageError` naming why; the caller decides what stands in for it.
Pages read are kept (a bounded, per-process memo): a round's directives often find the same page.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from email.message import Message
from urllib.parse import urlsplit

import httpx

from claimcourt.evidence.safe_http import Refused, TooLarge, client, opened, read_body
from claimcourt.evidence.web import parse_page_age

USER_AGENT = "claimcourt/0.1 (evidence for a fact-check; one request per site at a time)"
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TEXT_TYPES = frozenset({"text/plain"})
MAX_PASSAGE_CHARS = 800  # a passage is a paragraph, or a run of its sentences up to this
SHORT_PARAGRAPH_CHARS = 80  # a heading or a caption: joined to the paragraph after it
PAGES_KEPT = 128
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"“(])")


class PageError(Exception):
    """Why a page was not read: said in a sentence, naming no secret."""


@dataclass(frozen=True)
class Page:
    url: str  # where the text came from, after redirects
    title: str
    published: date | None
    passages: tuple[str, ...]


def passages_of(text: str, title: str = "") -> tuple[str, ...]:
    """A page's text (paragraphs on lines of their own) as passages: a line that repeats the page's
    title left out (the passage's title says it), a short line (a heading) joined to the paragraph after
    it as a sentence, a long paragraph cut at sentence ends into runs of at most MAX_PASSAGE_CHARS (a
    sentence longer than that is a passage of its own)."""
    paragraphs = [" ".join(line.split()) for line in text.splitlines()]
    joined: list[str] = []
    pending = ""
    for paragraph in filter(None, paragraphs):
        if paragraph == title.strip():
            continue
        if pending:
            paragraph = f"{pending}{'' if pending[-1] in '.!?:;' else '.'} {paragraph}"
        if len(paragraph) < SHORT_PARAGRAPH_CHARS:
            pending = paragraph
            continue
        pending = ""
        joined.append(paragraph)
    if pending:
        joined.append(pending)
    found: list[str] = []
    for paragraph in joined:
        run = ""
        for sentence in _SENTENCE_END.split(paragraph):
            if run and len(run) + 1 + len(sentence) > MAX_PASSAGE_CHARS:
                found.append(run)
                run = sentence
            else:
                run = f"{run} {sentence}".strip()
        if run:
            found.append(run)
    return tuple(found)


class _HostTurns:
    """One fetch per host at a time, across every search of this process (a round's searches run side
    by side)."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    @contextmanager
    def turn(self, host: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(host, threading.Lock())
        with lock:
            yield


class PageReader:
    """Fetches and reads pages (safe_http.py: each hop's host resolved once and checked, the request
    sent to the address that was checked, so a name that rebinds to this machine reaches nothing
    here; the body capped as it arrives). `private`: also pages on loopback and private-network
    addresses (an intranet's); off, such a url is refused before anything is sent, after each
    redirect too (a search result must not reach the machine's own services). `transport`: a test's
    in-memory one, in place of the checked sockets."""

    def __init__(
        self,
        *,
        timeout_s: float = 10.0,
        max_bytes: int = 3_000_000,
        private: bool = False,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.timeout_s = timeout_s
        self.max_bytes = max_bytes
        self._client = client(
            private=private,
            timeout_s=timeout_s,
            headers={"user-agent": USER_AGENT, "accept": "text/html,application/xhtml+xml,text/plain;q=0.9"},
            transport=transport,
        )
        self._turns = _HostTurns()
        self._kept: OrderedDict[str, Page] = OrderedDict()
        self._kept_lock = threading.Lock()

    def read_all(self, urls: Sequence[str], workers: int = 6) -> list[Page | PageError]:
        """Each url's page or why not, in order; different hosts side by side."""
        if not urls:
            return []
        with ThreadPoolExecutor(max_workers=min(workers, len(urls)), thread_name_prefix="page") as pool:
            return list(pool.map(self._read_or_why, urls))

    def _read_or_why(self, url: str) -> Page | PageError:
        try:
            return self.read(url)
        except PageError as why:
            return why

    def read(self, url: str) -> Page:
        with self._kept_lock:
            if url in self._kept:
                self._kept.move_to_end(url)
                return self._kept[url]
        final_url, body, kind, charset = self._fetch(url)
        page = _extracted(final_url, body, kind, charset)
        with self._kept_lock:
            self._kept[url] = page
            while len(self._kept) > PAGES_KEPT:
                self._kept.popitem(last=False)
        return page

    def _fetch(self, url: str) -> tuple[str, bytes, str, str | None]:
        page = opened(self._client, url, timeout_s=self.timeout_s, turn=self._turns.turn)
        try:
            with page as (response, deadline):
                return str(response.url), *self._body(response, deadline)
        except TooLarge as why:
            raise PageError(f"it is {why}") from None
        except Refused as why:
            raise PageError(str(why)) from None
        except httpx.TimeoutException:
            raise PageError(f"timed out after {self.timeout_s:g} s") from None
        except httpx.HTTPError as err:
            raise PageError(f"could not be fetched ({type(err).__name__})") from None

    def _body(self, response: httpx.Response, deadline: float) -> tuple[bytes, str, str | None]:
        if response.status_code >= 400:
            raise PageError(f"its server answered HTTP {response.status_code}")
        header = Message()
        header["content-type"] = response.headers.get("content-type", "")
        kind = header.get_content_type() if response.headers.get("content-type") else ""
        if kind not in HTML_TYPES | TEXT_TYPES:
            raise PageError(f"it is not a web page ({kind or 'no content type'})")
        body = read_body(response, max_bytes=self.max_bytes, deadline=deadline, timeout_s=self.timeout_s)
        return body, kind, header.get_content_charset()


def _extracted(url: str, body: bytes, kind: str, charset: str | None) -> Page:
    if kind in TEXT_TYPES:
        try:
            plain = body.decode(charset or "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know
            plain = body.decode("utf-8", errors="replace")
        title = urlsplit(url).path.rsplit("/", 1)[-1] or url
        found = passages_of(plain)
        if not found:
            raise PageError("it holds no text")
        return Page(url, title, None, found)
    import trafilatura  # lxml and the date parsers: only where pages are read

    document = trafilatura.bare_extraction(body, url=url, with_metadata=True, include_comments=False)
    text = getattr(document, "text", None) if document is not None else None
    title = str(getattr(document, "title", None) or "").strip()
    found = passages_of(str(text or ""), title)
    if not found:
        raise PageError("it holds no readable text (only scripts or markup)")
    return Page(url, title or url, parse_page_age(getattr(document, "date", None)), found)
