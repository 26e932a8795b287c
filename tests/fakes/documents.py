"""Documents made in the test, as a user's files would be: PDFs written with pypdf (a text layer of
Helvetica lines, one string per line; or none, as a scan), DOCX written with python-docx, a zip bomb
dressed as a DOCX, and a loopback web server for urls."""

from __future__ import annotations

import contextlib
import io
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject


def make_pdf(
    pages: list[str],
    *,
    title: str | None = None,
    created: str | None = None,
    password: str | None = None,
    owner_password_only: bool = False,
) -> bytes:
    """A PDF whose page N shows pages[N-1] (a line per "\\n"); "" gives a page with no text at all
    (a scanned page has an image and no text layer). `password`: opening needs it; with
    `owner_password_only`, encrypted but opened with no password (only editing is restricted)."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        if not text:
            continue
        lines = [
            line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in text.split("\n")
        ]
        operators = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td", *(f"({line}) Tj T*" for line in lines), "ET"]
        stream = DecodedStreamObject()
        stream.set_data("\n".join(operators).encode("latin-1"))
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
    metadata = {}
    if title is not None:
        metadata["/Title"] = title
    if created is not None:
        metadata["/CreationDate"] = created
    if metadata:
        writer.add_metadata(metadata)
    if password is not None:
        writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="AES-128")
    elif owner_password_only:
        writer.encrypt(user_password="", owner_password="owner", algorithm="AES-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def make_docx(
    paragraphs: list[str], *, title: str | None = None, table: list[list[str]] | None = None
) -> bytes:
    import docx

    document = docx.Document()
    for i, text in enumerate(paragraphs):
        if i == 0:
            document.add_heading(text, level=1)
        else:
            document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                grid.cell(r, c).text = cell
    if title is not None:
        document.core_properties.title = title
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def zip_bomb(unpacked_mb: int = 120) -> bytes:
    """A .docx-shaped zip of about 120 KB whose document part inflates to `unpacked_mb` MB of zeros."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        part = zipfile.ZipInfo("word/document.xml")
        part.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(part, "w", force_zip64=True) as out:
            zeros = bytes(1 << 20)
            for _ in range(unpacked_mb):
                out.write(zeros)
    return buffer.getvalue()


@dataclass
class Page:
    body: bytes
    media_type: str = "text/html; charset=utf-8"
    status: int = 200
    # Set by the test when the server may answer: until then a request waits (a server that hangs).
    release: threading.Event | None = None
    headers: dict[str, str] = field(default_factory=dict)


class WebServer:
    """Loopback pages by path; every request is recorded. A page with a `release` event answers only
    once it is set (the test sets it after its fetch has given up, to let the server's thread go)."""

    def __init__(self, pages: dict[str, Page]) -> None:
        self.pages = pages
        self.requests: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.requests.append(self.path)
                page = server.pages.get(self.path)
                if page is None:
                    self.send_error(404, "Not Found")
                    return
                if page.release is not None:
                    page.release.wait(30)
                self.send_response(page.status)
                self.send_header("Content-Type", page.media_type)
                self.send_header("Content-Length", str(len(page.body)))
                for name, value in page.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
                    self.wfile.write(page.body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> WebServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        for page in self.pages.values():
            if page.release is not None:
                page.release.set()
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def serving(pages: dict[str, Page]) -> Iterator[WebServer]:
    with WebServer(pages) as server:
        yield server
