"""Reading documents for a collection: each kind's text, title, date and pages, and every bad input
named with its reason (documents.extract raises Unreadable; nothing else escapes)."""

from __future__ import annotations

from datetime import date

import pytest

from claimcourt.evidence.documents import (
    MAX_DOCUMENT_BYTES,
    Section,
    Unreadable,
    extract,
    kind_of,
)
from claimcourt.evidence.passages import PASSAGE_MAX, passages
from tests.fakes.documents import make_docx, make_pdf, zip_bomb


def reason(name: str, data: bytes) -> str:
    kind = kind_of(name)
    assert kind is not None
    with pytest.raises(Unreadable) as refused:
        extract(name, data, kind)
    return refused.value.reason


# ---------------------------------------------------------------- what each kind gives


def test_a_pdf_keeps_its_pages_and_its_title() -> None:
    data = make_pdf(
        [
            "Acme annual report.\nThe board met four times.",
            "",
            "Revenue grew 12 percent to $4.2 billion in 2023.",
        ],
        title="Acme Annual Report 2023",
        created="D:20240315093000Z",
    )
    document = extract("acme-2023.pdf", data, "pdf")
    assert document.kind == "pdf" and document.title == "Acme Annual Report 2023"
    assert document.pages == 3
    # page 2 has no text: no section, and page 3 keeps its number
    assert [(s.page, s.text) for s in document.sections] == [
        (1, "Acme annual report. The board met four times."),
        (3, "Revenue grew 12 percent to $4.2 billion in 2023."),
    ]


@pytest.mark.parametrize(
    "created", ["D:20240315093000Z", "D:20121301000000", "garbage", "Tue Mar 3 10:00:00 2009"]
)
def test_a_pdfs_creation_date_well_formed_or_not_is_no_publication_date(created: str) -> None:
    # When the file was made (scanned, re-saved, exported) is not when it was published, and a backtest
    # drops or keeps a passage by its date; a date pypdf cannot parse must not lose the text either.
    data = make_pdf(["Container traffic at the port rose sharply in 2023."], title="Port", created=created)
    document = extract("port.pdf", data, "pdf")
    assert (document.title, document.published) == ("Port", None)
    assert document.sections[0].text == "Container traffic at the port rose sharply in 2023."


def test_a_pdf_line_broken_mid_word_is_joined_and_an_untitled_one_is_named_by_its_file() -> None:
    data = make_pdf(["The commis-\nsion reported in\nMarch."], title="Microsoft Word - draft3.docx")
    document = extract("eu_commission_report.pdf", data, "pdf")
    assert document.sections[0].text == "The commission reported in March."
    assert document.title == "eu commission report"


def test_a_pdf_encrypted_with_no_password_to_open_is_read() -> None:
    document = extract("open.pdf", make_pdf(["Readable text."], owner_password_only=True), "pdf")
    assert document.sections[0].text == "Readable text."


def test_an_html_page_gives_its_main_text_title_date_and_canonical_url() -> None:
    page = b"""<html><head><title>Acme posts record year | Acme News</title>
    <link rel="canonical" href="https://www.sec.gov/acme/annual">
    <meta property="article:published_time" content="2024-02-01"></head>
    <body><nav>Home | About | Careers</nav><article><h1>Acme posts record year</h1>
    <p>Acme's revenue grew by 12 percent in 2023 to 4.2 billion dollars, the company said on Thursday.</p>
    <p>The growth came from its factories in Ohio, which doubled their output over the year.</p>
    </article><footer>Copyright Acme</footer><script>track()</script></body></html>"""
    document = extract("acme.html", page, "html")
    assert document.title == "Acme posts record year"
    assert document.published == date(2024, 2, 1)
    assert document.url == "https://www.sec.gov/acme/annual"
    text = document.sections[0].text
    assert "revenue grew by 12 percent" in text and "factories in Ohio" in text
    assert "Careers" not in text and "track()" not in text


def test_markdown_gives_its_text_without_markup_and_its_first_heading_or_front_matter_title() -> None:
    source = (
        "# Field notes\n\nThe **Ohio** plant opened in [1998](https://example.com).\n\n- It employs 3,000.\n"
    )
    document = extract("notes.md", source.encode(), "markdown")
    assert document.title == "Field notes"
    assert document.sections[0].text == "Field notes\n\nThe Ohio plant opened in 1998.\n\nIt employs 3,000."
    front = "---\ntitle: 'Plant history'\ndate: 2021-06-30\n---\n# Heading\n\nText.\n"
    document = extract("history.md", front.encode(), "markdown")
    assert (document.title, document.published) == ("Plant history", date(2021, 6, 30))


def test_plain_text_is_utf8_with_or_without_a_bom_and_is_titled_by_its_file() -> None:
    document = extract("minutes_2023.txt", "\ufeffCafé minutes.\n\nSecond paragraph.".encode(), "text")
    assert document.title == "minutes 2023"
    assert document.sections[0].text == "Café minutes.\n\nSecond paragraph."


def test_a_docx_gives_its_paragraphs_tables_and_title() -> None:
    data = make_docx(
        ["Quarterly review", "Sales rose in every region.", "Costs fell."],
        title="Q3 review",
        table=[["Region", "Sales"], ["Ohio", "12"]],
    )
    document = extract("q3.docx", data, "docx")
    assert document.title == "Q3 review"
    assert document.published is None  # its core "created" is its template's (python-docx's: 2013-12-23)
    assert document.sections[0].text == (
        "Quarterly review\n\nSales rose in every region.\n\nCosts fell.\n\nRegion | Sales\n\nOhio | 12"
    )


@pytest.mark.parametrize(
    ("name", "media_type", "kind"),
    [
        ("a.PDF", None, "pdf"),
        ("a.htm", None, "html"),
        ("a.markdown", None, "markdown"),
        ("a.docx", None, "docx"),
        ("download", "application/pdf", "pdf"),
        ("page.php", "text/html; charset=utf-8", "html"),
        ("a.xlsx", None, None),
        ("noextension", None, None),
    ],
)
def test_a_kind_is_told_by_the_media_type_first_then_the_extension(
    name: str, media_type: str | None, kind: str | None
) -> None:
    assert kind_of(name, media_type) == kind


# ---------------------------------------------------------------- bad input: named and why


def test_a_pdf_that_needs_a_password_says_so() -> None:
    assert "needs a password" in reason("locked.pdf", make_pdf(["secret"], password="pw"))


def test_a_corrupt_pdf_says_it_is_not_a_readable_pdf() -> None:
    data = make_pdf(["Some text on a page."])
    assert "not a readable PDF" in reason("broken.pdf", data[: len(data) // 3])
    assert "not a readable PDF" in reason("fake.pdf", b"this is not a PDF at all")


def test_a_pdf_without_a_text_layer_says_it_is_scanned_or_image_only() -> None:
    said = reason("scan.pdf", make_pdf(["", ""]))
    assert "no text layer on any of its 2 pages" in said and "OCR" in said


def test_an_empty_file_says_so() -> None:
    assert reason("empty.txt", b"") == "the file is empty"
    assert reason("blank.md", b"  \n\n ") == "the file is empty"


def test_a_text_file_that_is_not_utf8_names_the_byte() -> None:
    said = reason("latin1.txt", "Café au lait".encode("latin-1"))
    assert said.startswith("not UTF-8 text (byte 0xE9 at offset 3)") and "save it as UTF-8" in said


def test_a_zip_bomb_dressed_as_a_docx_is_refused_before_it_is_unpacked() -> None:
    bomb = zip_bomb(120)
    assert len(bomb) < 1_000_000
    said = reason("bomb.docx", bomb)
    assert "would unpack to 120.0 MB, over the 100 MB limit" in said and "zip bomb" in said


def test_a_docx_that_is_not_a_zip_or_has_no_document_says_so() -> None:
    assert "not a zip archive" in reason("fake.docx", b"plain text pretending")
    assert reason("hollow.docx", zip_bomb(0)).startswith("not a readable Word document (DOCX)")


def test_a_document_over_25_mb_is_refused_before_it_is_parsed() -> None:
    said = reason("huge.txt", b"a" * (MAX_DOCUMENT_BYTES + 1))
    assert said == "25.0 MB is over the 25 MB limit for one document"


def test_a_page_that_is_all_script_says_its_text_may_be_drawn_by_scripts() -> None:
    page = b"<html><head><script src='app.js'></script></head><body><div id='root'></div>" + (
        b"<script>document.getElementById('root').innerText = 'Hello';</script></body></html>"
    )
    assert "drawn by scripts" in reason("app.html", page)


# ---------------------------------------------------------------- passages


def test_passages_are_whole_sentences_a_few_to_a_passage_never_across_pages() -> None:
    sentence = "Acme's Ohio plant produced {n} thousand widgets in the year, according to the audit."
    page_one = " ".join(sentence.format(n=n) for n in range(12))
    cut = passages([Section(page_one, 1), Section("A short last page.", 2)])
    assert [p.page for p in cut] == [1, 1, 2]
    assert all(p.text.endswith(".") for p in cut)
    assert " ".join(p.text for p in cut[:2]) == page_one  # nothing lost, nothing repeated
    assert all(400 <= len(p.text) <= PASSAGE_MAX for p in cut[:2])


def test_a_heading_stays_with_the_paragraph_under_it_and_a_long_paragraph_break_ends_a_passage() -> None:
    long = "The first paragraph says a great deal about one subject. " * 5
    last = "Another paragraph starts here, and it says enough to stand as a passage of its own."
    cut = passages([Section(f"Results\n\n{long.strip()}\n\n{last}")])
    assert [p.text for p in cut] == [f"Results {long.strip()}", last]
    # a remnant too short to stand alone joins the passage before it
    cut = passages([Section(f"{long.strip()}\n\nSee also.")])
    assert [p.text for p in cut] == [f"{long.strip()} See also."]


def test_a_sentence_longer_than_a_passage_is_cut_between_words() -> None:
    run_on = " ".join(f"item{n}" for n in range(400))  # a table flattened into one line
    cut = passages([Section(run_on)])
    assert len(cut) > 1 and all(len(p.text) <= PASSAGE_MAX for p in cut)
    assert " ".join(p.text for p in cut) == run_on


def test_abbreviations_do_not_end_a_sentence() -> None:
    text = "The U.S. Treasury, e.g. its auditors, agreed. Dr. Smith did not."
    cut = passages([Section(text)])
    assert [p.text for p in cut] == [text]
