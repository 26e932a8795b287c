"""Documents made to order, as a user's files would be: PDFs written with pypdf (a text layer of Helvetica
lines, one string per line; or none, as a scan), DOCX written with python-docx, and a zip bomb dressed as
a DOCX. For the collections bench (bench/collections_speed.py) and the tests."""

from __future__ import annotations

import io
import zipfile

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
