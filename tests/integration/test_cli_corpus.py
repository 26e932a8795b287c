"""`claimcourt corpus …` and `run|motion --corpus` as a user runs them: a folder of their documents in,
a debate over it out, citing the page it read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from claimcourt.cli import main
from tests.fakes.documents import make_pdf
from tests.fakes.web import LoopbackWeb
from tests.integration.test_cli import stored_runs

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("clean_env")]

TRAFFIC = (
    "Traffic. Container traffic at the Port of Eastmouth rose by 18 percent in 2023,\n"
    "reaching 1.2 million containers, the highest volume in the port's history.\n"
    "The increase followed the opening of the new deep-water berth in January."
)
CLAIM = "Container traffic at the Port of Eastmouth rose in 2023"


def invoke(data_dir: Path, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--data-dir", str(data_dir)], catch_exceptions=False)


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """A folder with the harbour authority's report (the answer is on its page 3) and a scan."""
    folder = tmp_path / "reports"
    folder.mkdir()
    (folder / "harbour-2023.pdf").write_bytes(
        make_pdf(
            [
                "Port of Eastmouth\nAnnual Harbour Report 2023",
                "Governance. The harbour board met six times during the year and appointed\n"
                "a new chief engineer in March.",
                TRAFFIC,
            ],
            title="Port of Eastmouth Annual Harbour Report 2023",
        )
    )
    (folder / "scanned-minutes.pdf").write_bytes(make_pdf(["", ""]))
    return folder


def test_add_says_what_became_of_each_document_and_exits_1_when_one_was_skipped(
    tmp_path: Path, reports: Path
) -> None:
    added = invoke(tmp_path / "data", "corpus", "add", "harbour", str(reports), "--tier", "T1")
    assert added.exit_code == 1, added.output
    lines = added.stdout.splitlines()
    assert lines[0].startswith("added") and lines[0].endswith("harbour-2023.pdf  (3 passages, 3 pages)")
    assert (
        lines[1].startswith("skipped")
        and "scanned-minutes.pdf: no text layer on any of its 2 pages" in lines[1]
    )
    assert lines[2].startswith("harbour (T1): 1 documents, 3 passages, version ")
    assert "1 of 2 not added" in added.stderr

    again = invoke(tmp_path / "data", "corpus", "add", "harbour", str(reports / "harbour-2023.pdf"))
    assert again.exit_code == 0, again.output  # all went in (it was already)
    assert again.stdout.splitlines()[0].startswith("unchanged")


def test_list_show_and_remove(tmp_path: Path, reports: Path) -> None:
    data = tmp_path / "data"
    invoke(data, "corpus", "add", "harbour", str(reports / "harbour-2023.pdf"))
    listed = invoke(data, "corpus", "list", "--json")
    assert [json.loads(line)["name"] for line in listed.stdout.splitlines()] == ["climate", "harbour"]
    shown = invoke(data, "corpus", "show", "harbour", "--json")
    [document] = json.loads(shown.stdout)["documents"]
    assert (document["title"], document["pages"], document["passages"]) == (
        "Port of Eastmouth Annual Harbour Report 2023",
        3,
        3,
    )
    assert "harbour-2023.pdf" in invoke(data, "corpus", "show", "harbour").stdout
    removed = invoke(data, "corpus", "remove", "harbour", "harbour-2023.pdf")
    assert removed.exit_code == 0 and "harbour holds 0 documents" in removed.stderr
    assert invoke(data, "corpus", "remove", "harbour").exit_code == 0
    assert invoke(data, "corpus", "show", "harbour").exit_code == 2


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["corpus", "create", "Harbour Files"], "'Harbour Files' is not a collection name"),
        (["corpus", "add", "climate", "x.pdf"], "climate is the bundled corpus: it cannot be changed"),
        (["corpus", "remove", "climate"], "climate is the bundled corpus: it cannot be changed"),
        (["corpus", "remove", "nothing"], "no collection nothing"),
        (["corpus", "show", "nothing"], "no collection nothing"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str) -> None:
    refused = invoke(tmp_path, *args)
    assert refused.exit_code == 2 and said in refused.stderr, refused.output


def test_a_duplicate_name_and_another_tier_for_an_existing_collection_are_refused(tmp_path: Path) -> None:
    assert invoke(tmp_path, "corpus", "create", "harbour", "--tier", "T1").exit_code == 0
    duplicate = invoke(tmp_path, "corpus", "create", "harbour")
    assert duplicate.exit_code == 2 and "a collection named harbour already exists" in duplicate.stderr
    note = tmp_path / "note.txt"
    note.write_text("A note.")
    retiered = invoke(tmp_path, "corpus", "add", "harbour", str(note), "--tier", "T2")
    assert (
        retiered.exit_code == 2
        and "harbour is T1: a tier is set when a collection is made" in retiered.stderr
    )


def test_a_run_over_a_folder_of_pdfs_cites_the_page_that_answers_the_claim(
    tmp_path: Path, reports: Path
) -> None:
    data = tmp_path / "data"
    invoke(data, "corpus", "add", "harbour", str(reports), "--tier", "T1")
    ran = invoke(data, "run", CLAIM, "--corpus", "harbour", "--json")
    assert ran.exit_code == 0, ran.output
    result = json.loads(ran.stdout)["result"]
    version = json.loads(invoke(data, "corpus", "show", "harbour", "--json").stdout)["collection"]["version"]
    assert result["searched"] == [f"harbour@{version}"]
    report = (reports / "harbour-2023.pdf").resolve().as_uri()
    decisive = result["decisive_source"]
    assert (decisive["page"], decisive["source_url"], decisive["tier"]) == (3, f"{report}#page=3", "T1")
    assert decisive["title"] == "Port of Eastmouth Annual Harbour Report 2023"
    cited = {(c["page"], c["source_url"]) for c in result["citations"]}
    assert (3, f"{report}#page=3") in cited
    # the passage the result cites is the page's text
    traffic = next(c for c in result["citations"] if c["page"] == 3)
    assert traffic["passage"].startswith(
        "Traffic. Container traffic at the Port of Eastmouth rose by 18 percent"
    )

    shown = invoke(data, "show", json.loads(ran.stdout)["run_id"])
    assert "Port of Eastmouth Annual Harbour Report 2023, p. 3" in shown.stdout
    exported = invoke(data, "export", json.loads(ran.stdout)["run_id"], "--dir", str(tmp_path / "out"))
    transcript = next((tmp_path / "out").glob("*transcript_full.md")).read_text()
    assert f"Evidence searched: harbour@{version}." in transcript and exported.exit_code == 0
    assert (
        f"Decisive source: [Port of Eastmouth Annual Harbour Report 2023]({report}#page=3) (T1, p. 3)"
        in transcript
    )


def test_a_run_naming_a_collection_that_does_not_exist_stores_nothing(tmp_path: Path) -> None:
    refused = invoke(tmp_path, "run", CLAIM, "--corpus", "harbour")
    assert refused.exit_code == 2
    assert "corpora: no collection harbour (claimcourt corpus list)" in refused.stderr
    assert stored_runs(tmp_path) == 0
    named_twice = invoke(tmp_path, "run", CLAIM, "--corpus", "climate", "--corpus", "climate")
    assert named_twice.exit_code == 2 and "a collection is named twice" in named_twice.stderr


def test_the_bundled_corpus_named_alone_is_the_default_source(tmp_path: Path) -> None:
    named = invoke(tmp_path, "run", "Arctic sea ice is declining", "--corpus", "climate", "--json")
    default = invoke(tmp_path, "run", "Arctic sea ice is declining", "--json")
    assert json.loads(named.stdout)["result"]["searched"] == ["climate-fever-wikipedia"]
    strip = {"run_id", "searched", "usage"}
    same = [
        {k: v for k, v in json.loads(r.stdout)["result"].items() if k not in strip} for r in (named, default)
    ]
    assert same[0]["sources"] == same[1]["sources"] and same[0]["overall_score"] == same[1]["overall_score"]


def test_a_run_over_a_collection_and_the_bundled_corpus_searches_both(tmp_path: Path, reports: Path) -> None:
    data = tmp_path / "data"
    invoke(data, "corpus", "add", "harbour", str(reports / "harbour-2023.pdf"))
    ran = invoke(data, "run", CLAIM, "--corpus", "harbour", "--corpus", "climate", "--json")
    assert ran.exit_code == 0, ran.output
    searched = json.loads(ran.stdout)["result"]["searched"]
    assert [s.split("@")[0] for s in searched] == ["harbour", "climate-fever-wikipedia"]


def test_a_motion_debates_from_the_collections_it_names(tmp_path: Path, reports: Path) -> None:
    data = tmp_path / "data"
    invoke(data, "corpus", "add", "harbour", str(reports / "harbour-2023.pdf"))
    debated = invoke(
        data, "motion", "The Port of Eastmouth should build a second deep-water berth", "--rounds", "1",
        "--crowd", "4", "--corpus", "harbour", "--json",
    )  # fmt: skip
    assert debated.exit_code == 0, debated.output
    body = json.loads(debated.stdout)
    assert body["motion"]["corpora"] == ["harbour"]
    assert [s.split("@")[0] for s in body["result"]["searched"]] == ["harbour"]
    assert all(c["source_url"].startswith("file://") for c in body["result"]["citations"])


def test_add_refuses_a_url_on_this_machine_unless_private_pages_are_allowed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with LoopbackWeb() as web:
        web.page("/traffic.txt", TRAFFIC, content_type="text/plain")
        refused = invoke(tmp_path / "data", "corpus", "add", "port", web.url("/traffic.txt"))
        assert refused.exit_code == 1, refused.output
        assert "its host 127.0.0.1 is on a private network or this machine" in refused.stdout
        assert web.fetched() == []  # nothing was asked of the machine's own service

        monkeypatch.setenv("CLAIMCOURT_FETCH_PRIVATE_PAGES", "true")  # an intranet's pages, allowed
        added = invoke(tmp_path / "data", "corpus", "add", "port", web.url("/traffic.txt"))
    assert added.exit_code == 0, added.output
    assert added.stdout.startswith("added") and "port (T2): 1 documents" in added.stdout
