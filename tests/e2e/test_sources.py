"""The console's Sources page in a real browser (Debian's Chromium, driven by Playwright) against
`claimcourt serve` with the offline reasoner: make a collection (a bad or taken name refused at the
field), upload real files by the picker and by drag and drop (a PDF pypdf writes, a text file, a
corrupt PDF and a scan, each with its outcome), see its documents, delete one and the collection; a
file over 25 MB refused in the browser, the tenant's quota by the server (413); then a run and a
motion over the collection from the Run page, whose verdict names what it searched and cites the
PDF's page. Screenshots in light, dark and on a phone (build/screenshots/)."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from claimcourt.bench.documents import make_pdf
from tests.e2e.console import Served, new_context, serve
from tests.e2e.test_console import THEMES, UNLABELLED, _no_sideways_scroll, _phone, shot

pytestmark = pytest.mark.timeout(240)

TITLE = "Port of Eastmouth Annual Harbour Report 2023"
REPORT = make_pdf(
    [
        "Port of Eastmouth\nAnnual Harbour Report 2023",
        "Governance. The harbour board met six times during the year and appointed\n"
        "a new chief engineer in March.",
        "Traffic. Container traffic at the Port of Eastmouth rose by 18 percent in 2023,\n"
        "reaching 1.2 million containers, the highest volume in the port's history.\n"
        "The increase followed the opening of the new deep-water berth in January.",
    ],
    title=TITLE,
)
NOTES = (
    "Berth notes\n\nThe new deep-water berth at Eastmouth opened on 16 January 2023. "
    "It takes ships of up to 18,000 containers.\n"
)
CLAIM = "Container traffic at the Port of Eastmouth rose in 2023"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # A quota of 1 MB, so that a test can meet the server's 413 with a file of 2.
    with serve(tmp_path_factory.mktemp("sources"), CLAIMCOURT_COLLECTIONS_QUOTA_MB="1") as running:
        yield running


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """Real files on disk, as a user would pick them."""
    made = {
        "harbour-2023.pdf": REPORT,
        "berth-notes.txt": NOTES.encode(),
        "board-minutes.pdf": b"%PDF-1.7\n1 0 obj <</Type /Catalog>> garbage, not a PDF body\n",
        "scanned-minutes.pdf": make_pdf(["", ""]),
    }
    for name, data in made.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in made}


def _collection(served: Served, name: str, *documents: tuple[str, bytes]) -> None:
    """A collection made through the API (for the tests whose subject is not making one)."""
    with served.client() as client:
        client.delete(f"/corpora/{name}")
        assert client.post("/corpora", json={"name": name}).status_code == 201
        for filename, data in documents:
            reply = client.put(f"/corpora/{name}/documents", params={"filename": filename}, content=data)
            assert reply.status_code == 200, reply.text


def _outcome(page: Page, filename: str) -> str:
    item = page.locator(f"#upload-outcomes li[data-file='{filename}']")
    expect(item).to_be_visible()
    return str(item.get_attribute("data-status"))


def _drop(page: Page, filename: str, data: bytes, media_type: str) -> None:
    """Drag a file onto the drop zone, as the browser hands it to the page: a DataTransfer."""
    transfer = page.evaluate_handle(
        """([name, b64, type]) => {
          const dt = new DataTransfer();
          dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type }));
          return dt;
        }""",
        [filename, base64.b64encode(data).decode(), media_type],
    )
    page.dispatch_event("#drop-zone", "dragover", {"dataTransfer": transfer})
    expect(page.locator("#drop-zone")).to_have_class(re.compile(r"\bover\b"))
    page.dispatch_event("#drop-zone", "drop", {"dataTransfer": transfer})


# ---------------------------------------------------------------- a collection, start to finish


def test_a_collection_is_made_filled_and_a_run_from_the_run_page_cites_its_pdfs_page(
    page: Page, served: Served, files: dict[str, Path]
) -> None:
    page.goto("/")
    page.get_by_role("link", name="Sources").click()
    expect(page.locator("h1")).to_have_text("Sources")
    expect(page.locator("[data-nav='sources']")).to_have_attribute("aria-current", "page")
    climate = page.locator("#corpora-table tr[data-corpus='climate']")
    expect(climate).to_contain_text("bundled, read-only")
    expect(climate.locator(".tier")).to_have_text("T2")
    # a bad name, then the bundled corpus's: each refused at the field, in the API's words
    name = page.get_by_label("Name", exact=True)
    name.fill("Harbour Reports!")
    page.get_by_role("button", name="Make collection").click()
    expect(page.locator("#corpus-name-error")).to_contain_text("is not a collection name: 1-63 of a-z, 0-9")
    expect(name).to_have_attribute("aria-invalid", "true")
    expect(name).to_be_focused()
    name.fill("climate")
    page.get_by_role("button", name="Make collection").click()
    expect(page.locator("#corpus-name-error")).to_contain_text("the bundled corpus's name")
    # made, as T1: straight to its page, empty
    name.fill("harbour")
    page.locator("label[for='corpus-tier-T1']").click()
    page.get_by_role("button", name="Make collection").click()
    expect(page).to_have_url(re.compile(r"#/sources/harbour$"))
    expect(page.locator("h1")).to_have_text("harbour")
    expect(page.locator("#corpus-summary .tier")).to_have_text("T1")
    expect(page.locator("#no-documents")).to_be_visible()
    # made again: taken
    page.goto("/#/sources")
    page.get_by_label("Name", exact=True).fill("harbour")
    page.get_by_role("button", name="Make collection").click()
    expect(page.locator("#corpus-name-error")).to_contain_text("harbour")
    expect(page.locator("#corpora-table tr[data-corpus='harbour']")).to_contain_text("T1")

    # four files at once through the picker: two go in, two are skipped with their reasons
    page.goto("/#/sources/harbour")
    page.locator("#upload-input").set_input_files(list(files.values()))
    assert _outcome(page, "harbour-2023.pdf") == "added"
    assert _outcome(page, "berth-notes.txt") == "added"
    assert _outcome(page, "board-minutes.pdf") == "skipped"
    assert _outcome(page, "scanned-minutes.pdf") == "skipped"
    outcomes = page.locator("#upload-outcomes")
    expect(outcomes.locator("li[data-file='harbour-2023.pdf']")).to_contain_text("3 passages, 3 pages")
    expect(outcomes.locator("li[data-file='scanned-minutes.pdf'] .reason")).to_contain_text("no text layer")
    expect(outcomes.locator("li[data-file='board-minutes.pdf'] .reason")).not_to_be_empty()
    expect(outcomes).to_contain_text("4 files, 2 not added")
    table = page.locator("#documents-table tbody tr")
    expect(table).to_have_count(2)
    report = page.locator("#documents-table tr", has_text=TITLE)
    expect(report.locator("td[data-label='Kind']")).to_have_text("PDF")
    expect(report.locator("td[data-label='Pages']")).to_have_text("3")
    expect(report.locator("td[data-label='Passages']")).to_have_text("3")
    expect(report.locator("td[data-label='Source']")).to_have_text("harbour-2023.pdf")
    expect(page.locator("#corpus-summary")).to_contain_text("2 documents, 4 passages")
    shot(page, "sources-collection", "light")
    # the last upload's skipped reasons outlive a reload
    page.reload()
    expect(page.locator("#upload-outcomes li[data-file='scanned-minutes.pdf'] .reason")).to_contain_text(
        "no text layer"
    )
    # the same PDF dropped on the zone: unchanged; a changed text file: replaced
    _drop(page, "harbour-2023.pdf", REPORT, "application/pdf")
    expect(page.locator("#upload-outcomes")).to_contain_text("1 file, all in")
    assert _outcome(page, "harbour-2023.pdf") == "unchanged"
    _drop(page, "berth-notes.txt", (NOTES + "It cost 240 million pounds.\n").encode(), "text/plain")
    assert _outcome(page, "berth-notes.txt") == "replaced"
    expect(table).to_have_count(2)

    # the Run page offers the collection (none picked by default), and the run searches it alone
    page.goto("/#/run")
    picker = page.locator("#run-sources")
    expect(picker).to_have_attribute("open", "")  # the tenant has collections of its own
    expect(picker.get_by_label("harbour")).not_to_be_checked()
    expect(picker.get_by_label("climate")).not_to_be_checked()
    picker.get_by_label("harbour").check()
    expect(picker.locator("summary")).to_contain_text("(harbour)")
    page.get_by_label("Claim", exact=True).fill(CLAIM)
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/runs")) as started:
        page.get_by_role("button", name="Start debate").click()
    assert started.value.post_data_json["corpora"] == ["harbour"]
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run = served.wait(page.url.split("/")[-2])
    assert run["status"] == "succeeded", run
    expect(page).to_have_url(re.compile(rf"#/runs/{run['run_id']}$"), timeout=30_000)
    # the verdict says what it searched (the collection, at its version) and cites the PDF's page 3
    (searched,) = run["result"]["searched"]
    assert searched.startswith("harbour@")
    expect(page.locator("#searched")).to_contain_text(f"Searched: harbour@{searched[8:16]}")
    expect(page.locator("#searched a")).to_have_attribute("href", "#/sources/harbour")
    cited = page.locator("#sources li", has_text=TITLE)
    expect(cited.first).to_be_visible()
    expect(page.locator("#sources")).to_contain_text(f"{TITLE}, p. 3")
    pages = {s["page"] for s in run["result"]["sources"] if s["title"] == TITLE}
    assert 3 in pages, run["result"]["sources"]
    decisive = run["result"]["decisive_source"]
    if decisive and decisive["page"] is not None:
        expect(page.locator("#decisive")).to_contain_text(f"{decisive['title']}, p. {decisive['page']}")
    shot(page, "verdict-collection", "light")


def test_a_motion_debated_over_a_collection_from_the_run_page(page: Page, served: Served) -> None:
    _collection(served, "harbour-motion", ("harbour-2023.pdf", REPORT), ("berth-notes.txt", NOTES.encode()))
    page.goto("/")
    page.get_by_label("Motion", exact=True).fill(
        "The Port of Eastmouth should build a second deep-water berth"
    )
    page.get_by_label("Rounds between opening and closing").fill("1")
    page.get_by_label("Voters").fill("6")
    picker = page.locator("#motion-sources")
    picker.get_by_label("harbour-motion").check()
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/motions")) as started:
        page.get_by_role("button", name="Start motion debate").click()
    assert started.value.post_data_json["corpora"] == ["harbour-motion"]
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run = served.wait(page.url.split("/")[-2])
    assert run["status"] == "succeeded", run
    page.goto(f"/#/runs/{run['run_id']}")
    expect(page.locator("#report #searched")).to_contain_text("harbour-motion@")


# ---------------------------------------------------------------- refusals


def test_a_file_over_25_mb_is_refused_in_the_browser_and_the_quota_by_the_server(
    page: Page, served: Served, tmp_path: Path
) -> None:
    _collection(served, "big")
    huge = tmp_path / "annual-accounts.pdf"
    with huge.open("wb") as f:  # sparse: 26 MB on paper, nothing on the disk
        f.truncate(26 * 1024 * 1024)
    puts: list[str] = []
    page.on("request", lambda r: puts.append(r.url) if r.method == "PUT" else None)
    page.goto("/#/sources/big")
    page.locator("#upload-input").set_input_files(str(huge))
    assert _outcome(page, "annual-accounts.pdf") == "not sent"
    expect(page.locator("#upload-outcomes li[data-file='annual-accounts.pdf'] .reason")).to_have_text(
        "annual-accounts.pdf is 26 MB, over the 25 MB limit a document:"
        " split it, or leave out what is not text"
    )
    assert puts == []  # refused before a byte was sent
    # 2 MB of text against the tenant's 1 MB quota: the server's 413, in its words, for the file and above
    notes = tmp_path / "long-notes.txt"
    notes.write_text("The harbour was busy that year. " * 65_000)
    page.locator("#upload-input").set_input_files(str(notes))
    assert _outcome(page, "long-notes.txt") == "refused"
    expect(page.locator("#upload-error")).to_contain_text("quota")
    expect(page.locator("#upload-outcomes li[data-file='long-notes.txt'] .reason")).to_contain_text(
        "CLAIMCOURT_COLLECTIONS_QUOTA_MB"
    )
    assert len(puts) == 1
    expect(page.locator("#no-documents")).to_be_visible()  # nothing went in
    shot(page, "sources-refused", "light")


def test_the_bundled_corpus_is_shown_read_only_and_an_unknown_collection_is_said_to_be(page: Page) -> None:
    page.goto("/#/sources")
    page.locator("#corpora-table").get_by_role("link", name="climate").click()
    expect(page).to_have_url(re.compile(r"#/sources/climate$"))
    expect(page.locator("#bundled-note")).to_contain_text("cannot be changed")
    expect(page.locator("#corpus-summary")).to_contain_text("passages")
    assert page.locator("#drop-zone").count() == 0
    assert page.locator("#corpus-delete").count() == 0
    page.goto("/#/sources/no-such-thing")
    expect(page.locator("main")).to_contain_text("There is no collection named no-such-thing")


def test_a_document_and_a_collection_are_deleted_only_once_confirmed(page: Page, served: Served) -> None:
    _collection(served, "scratch", ("harbour-2023.pdf", REPORT), ("berth-notes.txt", NOTES.encode()))
    page.goto("/#/sources/scratch")
    rows = page.locator("#documents-table tbody tr")
    expect(rows).to_have_count(2)
    asked: list[str] = []
    page.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    page.get_by_role("button", name=f"Delete {TITLE}").click()
    expect(rows).to_have_count(2)  # dismissed: nothing happened
    assert "3 passages go with it" in asked[0]
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name=f"Delete {TITLE}").click()
    expect(rows).to_have_count(1)
    expect(page.locator("#corpus-summary")).to_contain_text("1 document, 1 passage")
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.get_by_role("button", name="Delete collection").click()
    expect(page).to_have_url(re.compile(r"#/sources$"))
    assert "Delete the collection scratch, with its 1 document and 1 passage?" in asked[-1]
    expect(page.locator("#corpora-table tr[data-corpus='climate']")).to_be_visible()
    expect(page.locator("#corpora-table tr[data-corpus='scratch']")).to_have_count(0)
    # gone on the server too: a run naming it is refused
    with served.client() as client:
        assert client.get("/corpora/scratch").status_code == 404


def test_locally_the_files_go_through_the_api_once_the_server_says_presigned_uploads_are_a_stacks(
    page: Page, served: Served
) -> None:
    _collection(served, "local-way")
    asked: list[tuple[str, str, int]] = []
    page.on(
        "response",
        lambda r: (
            asked.append((r.request.method, urlsplit(r.url).path, r.status)) if "/corpora/" in r.url else None
        ),
    )
    page.goto("/#/sources/local-way")
    expect(page.locator("#drop-zone")).to_be_visible()
    page.wait_for_load_state("networkidle")
    upload = page.locator("#upload-input")

    upload.set_input_files(
        files=[{"name": "berth-notes.txt", "mimeType": "text/plain", "buffer": NOTES.encode()}]
    )
    assert _outcome(page, "berth-notes.txt") == "added"
    # The page asked for a presigned POST, heard the 409 that says it is a stack's, and PUT the file
    uploads, documents = "/corpora/local-way/uploads", "/corpora/local-way/documents"
    assert [a for a in asked if a[0] != "GET"] == [("POST", uploads, 409), ("PUT", documents, 200)]

    asked.clear()
    upload.set_input_files(
        files=[{"name": "harbour-2023.pdf", "mimeType": "application/pdf", "buffer": REPORT}]
    )
    assert _outcome(page, "harbour-2023.pdf") == "added"
    assert [a for a in asked if a[0] != "GET"] == [("PUT", documents, 200)]  # learnt: not asked again


# ---------------------------------------------------------------- keyboard, themes, a phone


# A file input's click() recorded instead of done: the test waits on this console message, not on
# Chromium's native file chooser (which a loaded machine may open late, or not at all, after a cancelled
# one). The page's own code is what is checked: that Enter on the input calls its click().
RECORD_FILE_INPUT_CLICKS = """
const click = HTMLInputElement.prototype.click;
HTMLInputElement.prototype.click = function () {
  if (this.type !== "file") return click.call(this);
  console.debug(`file input clicked: ${this.id}`);
};
"""


def test_the_drop_zone_is_a_real_file_input_the_keyboard_reaches_and_opens(
    page: Page, served: Served
) -> None:
    _collection(served, "keys")
    page.add_init_script(RECORD_FILE_INPUT_CLICKS)
    page.goto("/#/sources/keys")
    expect(page.locator("#drop-zone")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert page.evaluate(UNLABELLED) == []
    upload = page.locator("#upload-input")
    expect(upload).to_have_attribute("type", "file")
    expect(upload).to_have_attribute("multiple", "")  # several files at once
    page.locator("#corpus-delete").focus()
    page.keyboard.press("Tab")  # the next stop after the page's one button is the upload
    expect(upload).to_be_focused()
    outline = page.evaluate("getComputedStyle(document.querySelector('#drop-zone')).outlineStyle")
    assert outline != "none"  # the zone shows where the focus is
    # Enter opens the chooser (Chromium opens one on Space by itself, not on Enter): the input is clicked
    with page.expect_console_message(lambda m: m.text == "file input clicked: upload-input"):
        page.keyboard.press("Enter")
    expect(upload).to_be_focused()
    # What the chooser would hand the page, handed to the input itself
    upload.set_input_files(
        files=[{"name": "berth-notes.txt", "mimeType": "text/plain", "buffer": NOTES.encode()}]
    )
    assert _outcome(page, "berth-notes.txt") == "added"
    expect(page.locator("#upload-outcomes")).to_be_focused()  # the outcome is read next
    page.goto("/#/sources")
    page.wait_for_load_state("networkidle")
    assert page.evaluate(UNLABELLED) == []


@pytest.mark.parametrize("theme", THEMES)
def test_a_screenshot_of_the_sources_pages(browser: Browser, served: Served, theme: str) -> None:
    _collection(served, "harbour-shots", ("harbour-2023.pdf", REPORT), ("berth-notes.txt", NOTES.encode()))
    for context, suffix in (
        (new_context(browser, served, theme=theme), ""),
        (_phone(browser, served, theme), "-390"),
    ):
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda err, errors=errors: errors.append(str(err)))
        for name, route, ready in [
            ("sources", "/#/sources", "#corpora-table tbody tr"),
            ("sources-collection", "/#/sources/harbour-shots", "#documents-table tbody tr"),
            ("run-sources", "/#/run", "#run-sources input"),
        ]:
            page.goto(route)
            expect(page.locator(ready).first).to_be_visible(timeout=15_000)
            page.wait_for_load_state("networkidle")
            assert page.evaluate("document.documentElement.dataset.theme") == theme
            shot(page, f"{name}{suffix}", theme)
            _no_sideways_scroll(page)
        context.close()
        assert errors == [], errors
