"""A document's text, from its bytes: PDF (pypdf, page by page), HTML (trafilatura: the main text, title,
date and canonical url), Markdown (markdown-it), plain text, and DOCX (python-docx).

A document that cannot be read raises `Unreadable` with the reason in words a user can act on; nothing
else escapes `extract`. Sizes are capped before anything is parsed (a file's bytes; a DOCX's parts as
they unpack, since a zip can claim one size and inflate to another); pypdf caps each stream it inflates.
The parsers are imported when a document of their kind is read: none of them is in the Lambda layer.
"""

from __future__ import annotations

import io
import logging
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import PurePath
from typing import Any, Literal

Kind = Literal["pdf", "html", "markdown", "text", "docx"]

MAX_DOCUMENT_BYTES = 25 * 1024 * 1024  # a file, an upload or a fetched page
MAX_UNPACKED_BYTES = 100 * 1024 * 1024  # a DOCX's parts, inflated together
MAX_TEXT_CHARS = 10_000_000  # what one document may hold once read (about 2,500 pages of prose)

EXTENSIONS: dict[str, Kind] = {
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
    ".docx": "docx",
}
MEDIA_TYPES: dict[str, Kind] = {
    "application/pdf": "pdf",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/plain": "text",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
}
SUPPORTED = "PDF, HTML, Markdown, plain text (UTF-8) and DOCX"
_NAMES: dict[Kind, str] = {
    "pdf": "PDF",
    "html": "HTML page",
    "markdown": "Markdown file",
    "text": "text file",
    "docx": "Word document (DOCX)",
}


_TOO_LONG = f"holds more than {MAX_TEXT_CHARS:,} characters of text: split it into smaller files"


class Unreadable(Exception):
    """This document cannot be indexed; the message says why (and, where it can, what would fix it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Section:
    """A run of the document's text: a page of a PDF, or the whole of a document without pages.
    Paragraphs are separated by blank lines."""

    text: str
    page: int | None = None


@dataclass(frozen=True)
class Document:
    kind: Kind
    title: str
    sections: list[Section]
    published: date | None = None
    url: str | None = None  # an HTML page's canonical url, when it names one
    pages: int | None = None  # a PDF's


def kind_of(name: str, media_type: str | None = None) -> Kind | None:
    """The kind a file's name (its extension) or a response's media type says, or None."""
    if media_type:
        found = MEDIA_TYPES.get(media_type.split(";")[0].strip().lower())
        if found is not None:
            return found
    return EXTENSIONS.get(PurePath(name).suffix.lower())


def extract(name: str, data: bytes, kind: Kind) -> Document:
    """The document's text, title, date and sections; `name` is its file name (the title when the
    document names none). Raises Unreadable."""
    if len(data) > MAX_DOCUMENT_BYTES:
        raise Unreadable(
            f"{megabytes(len(data))} is over the {megabytes(MAX_DOCUMENT_BYTES)} limit for one document"
        )
    if not data.strip():
        raise Unreadable("the file is empty")
    read = {"pdf": _pdf, "html": _html, "markdown": _markdown, "text": _text, "docx": _docx}[kind]
    try:
        document = read(name, data)
    except Unreadable:
        raise
    except Exception as exc:  # a parser's own error on a damaged file: named, never a traceback
        raise Unreadable(f"not a readable {_NAMES[kind]} ({type(exc).__name__}: {_first_line(exc)})") from exc
    sections = [Section(clean, s.page) for s in document.sections if (clean := _clean(s.text))]
    if sum(len(s.text) for s in sections) > MAX_TEXT_CHARS:
        raise Unreadable(_TOO_LONG)
    if not sections:
        raise Unreadable("no text was found in it")
    title = " ".join(document.title.split())[:300] or _stem(name)
    return Document(document.kind, title, sections, document.published, document.url, document.pages)


# ---------------------------------------------------------------- one reader per kind


def _pdf(name: str, data: bytes) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its warnings about odd files are not ours to print
    try:
        reader = PdfReader(io.BytesIO(data))
    except PdfReadError as exc:
        raise Unreadable(f"not a readable PDF ({_first_line(exc)})") from exc
    if reader.is_encrypted:
        # Many PDFs are encrypted with an empty user password (only editing is restricted): those open.
        try:
            opened = reader.decrypt("")
        except Exception as exc:
            raise Unreadable(f"encrypted, and it could not be opened ({_first_line(exc)})") from exc
        if not opened:
            raise Unreadable("encrypted: it needs a password to open; save an unprotected copy and add that")
    try:
        count = len(reader.pages)
    except FileNotDecryptedError as exc:
        raise Unreadable(
            "encrypted: it needs a password to open; save an unprotected copy and add that"
        ) from exc
    if count == 0:
        raise Unreadable("the PDF has no pages")
    sections, read = [], 0
    for number, page in enumerate(reader.pages, 1):
        text = _unwrap(page.extract_text() or "")
        read += len(text)
        if read > MAX_TEXT_CHARS:  # stop reading here rather than after the whole file
            raise Unreadable(_TOO_LONG)
        sections.append(Section(text, number))
    if not any(s.text.strip() for s in sections):
        raise Unreadable(
            f"no text layer on any of its {count} page{'s' * (count != 1)}: a scanned or image-only PDF; "
            "run OCR on it (e.g. ocrmypdf) and add the result"
        )
    title = _pdf_title(reader)
    # Undated: its /CreationDate is when the file was made (a scan, a re-save, an export), not when it
    # was published, and a backtest keeps or drops a dated passage by its date; an undated one it dates
    # by its text (retrieve.backtest).
    return Document("pdf", "" if _generated_title(title) else title, sections, pages=count)


def _pdf_title(reader: Any) -> str:
    """The PDF's /Title, or "" when its metadata cannot be read: the text is what matters."""
    try:
        metadata = reader.metadata
        return str(metadata.title or "") if metadata is not None else ""
    except Exception:  # a damaged Info dictionary: pypdf raises whatever it meets
        return ""


def _html(name: str, data: bytes) -> Document:
    import trafilatura

    found = trafilatura.bare_extraction(
        data,
        with_metadata=True,
        include_comments=False,
        # The date the page says it was published, from its markup only: a year in the text is no date.
        date_extraction_params={"extensive_search": False, "original_date": True},
    )
    page: dict[str, Any] = {} if found is None else found if isinstance(found, dict) else found.as_dict()
    body = str(page.get("text") or "")
    if not body.strip():
        raise Unreadable(
            "no readable text in the page: it may be drawn by scripts (save the page as the browser "
            "shows it, or as PDF, and add that)"
        )
    # trafilatura puts each paragraph on a line of its own.
    text = "\n\n".join(line for line in body.split("\n") if line.strip())
    published = _iso_date(str(page.get("date") or ""))
    return Document("html", str(page.get("title") or ""), [Section(text)], published, page.get("url") or None)


_FRONT_MATTER = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n", re.S)


def _markdown(name: str, data: bytes) -> Document:
    from markdown_it import MarkdownIt

    source = _utf8(data)
    meta: dict[str, str] = {}
    if front := _FRONT_MATTER.match(source):  # YAML front matter: its title and date, if it gives them
        for line in front.group(1).splitlines():
            key, sep, value = line.partition(":")
            if sep:
                meta[key.strip().lower()] = value.strip().strip("'\"")
        source = source[front.end() :]
    blocks: list[str] = []
    title = meta.get("title", "")
    tokens = MarkdownIt("commonmark").enable("table").parse(source)
    for i, token in enumerate(tokens):
        if token.type == "inline":
            words = "".join(child.content for child in token.children or [] if child.type in _TEXT_TOKENS)
            if not title and i and tokens[i - 1].type == "heading_open":
                title = words
            blocks.append(words)
        elif token.type in ("fence", "code_block"):
            blocks.append(token.content)
    return Document("markdown", title, [Section("\n\n".join(blocks))], _iso_date(meta.get("date", "")))


_TEXT_TOKENS = {"text", "code_inline", "softbreak", "hardbreak"}


def _text(name: str, data: bytes) -> Document:
    return Document("text", "", [Section(_utf8(data))])


def _docx(name: str, data: bytes) -> Document:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    _check_unpacked(data)
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError) as exc:
        raise Unreadable("not a Word document (DOCX): the archive holds no document part") from exc
    blocks = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            blocks.append(" | ".join(dict.fromkeys(cell.text.strip() for cell in row.cells)))
    core = document.core_properties
    # The document's own title, else its first title or heading (as a Markdown file's first heading).
    heading = next(
        (
            p.text
            for p in document.paragraphs
            if p.text.strip() and _is_heading(p.style.name if p.style else "")
        ),
        "",
    )
    # Undated, as a PDF: core.created is when the file (often its template: python-docx's says 2013) was made.
    return Document("docx", core.title or heading, [Section("\n\n".join(blocks))])


def _is_heading(style: str | None) -> bool:
    return bool(style) and (style == "Title" or str(style).startswith("Heading"))


def _check_unpacked(data: bytes) -> None:
    """A DOCX is a zip: refuse one whose parts would unpack past MAX_UNPACKED_BYTES. The sizes its
    directory declares are what bounds it: zipfile (which python-docx reads through) never inflates a
    part past its declared size, so a header that understates one only cuts that part short."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise Unreadable("not a Word document (DOCX): not a zip archive") from exc
    with archive:
        declared = sum(info.file_size for info in archive.infolist())
    if declared > MAX_UNPACKED_BYTES:
        raise Unreadable(
            f"its parts would unpack to {megabytes(declared)}, over the {megabytes(MAX_UNPACKED_BYTES)} "
            "limit (a zip bomb?)"
        )


# ---------------------------------------------------------------- text and dates


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(
            f"not UTF-8 text (byte 0x{data[exc.start]:02X} at offset {exc.start}): "
            "save it as UTF-8 and add it again"
        ) from exc


_HYPHENATED = re.compile(r"(\w)-\n(?=[a-z])")
_BREAK = re.compile(r"[ \t]*\n[ \t]*")


def _unwrap(page: str) -> str:
    """A PDF page's lines as prose: a word hyphenated at a line's end joined, lines joined into
    paragraphs (a blank line stays a paragraph break)."""
    page = _HYPHENATED.sub(r"\1", page.replace("\r\n", "\n"))
    paragraphs = re.split(r"\n\s*\n", page)
    return "\n\n".join(_BREAK.sub(" ", p).strip() for p in paragraphs)


def _clean(text: str) -> str:
    """Control characters out (a PDF's text can hold NULs and form feeds), spaces tidied, paragraphs kept."""
    text = "".join(
        ch if ch in "\n\t" or unicodedata.category(ch) != "Cc" else " "
        for ch in unicodedata.normalize("NFC", text)
    )
    paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", text))
    return "\n\n".join(p for p in paragraphs if p)


def _generated_title(title: str) -> bool:
    """A title a program wrote rather than an author ("Microsoft Word - draft3.docx", "untitled")."""
    lowered = title.strip().lower()
    return (
        not lowered or lowered.startswith("microsoft word -") or lowered in {"untitled", "title", "document"}
    )


def _iso_date(value: str) -> date | None:
    try:
        return date.fromisoformat(value.strip()[:10])
    except ValueError:
        return None


def _stem(name: str) -> str:
    stem = PurePath(name).stem or name
    return " ".join(stem.replace("_", " ").split())


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def too_big(size: int) -> str:
    return f"{megabytes(size)} is over the {megabytes(MAX_DOCUMENT_BYTES)} limit for one document"


def unsupported(what: str) -> str:
    return f"not a kind claimcourt reads ({what}): it reads {SUPPORTED}"


def megabytes(size: int) -> str:
    """A size as a person reads it: "25 MB", "25.3 MB", "5 KB"."""
    mb = 1024 * 1024
    if size < mb // 10:
        return f"{max(1, round(size / 1024))} KB"
    return f"{size // mb} MB" if size % mb == 0 else f"{size / mb:.1f} MB"
