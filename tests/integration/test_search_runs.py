"""Whole runs on web evidence, through the command line and the state machine, as a user without an
Anthropic key gets it: SearXNG (a loopback stand-in and its pages) and OpenAI's web search (a fake
Responses API on 127.0.0.1). The offline reasoner argues and judges; the evidence is the web's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from claimcourt.cli import main
from tests.fakes.provider_servers import FakeOpenAIServer, FakeSearchResult, openai_web_search_response
from tests.fakes.web import LoopbackWeb
from tests.integration.test_cli import stored_runs
from tests.integration.test_searxng import WHO_PAGE

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("clean_env")]

CLAIM = "Measles cases in Europe rose in 2024"


def invoke(data_dir: Path, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--data-dir", str(data_dir)], catch_exceptions=False)


@pytest.fixture
def searxng(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackWeb]:
    """A SearXNG user's settings: the instance's url, its result pages on this machine allowed."""
    with LoopbackWeb() as web:
        web.page("/who/measles", WHO_PAGE)
        web.results([web.result("/who/measles", "Measles cases rise", snippet="Measles cases rose in 2024.")])
        monkeypatch.setenv("CLAIMCOURT_SEARXNG_URL", web.base_url)
        monkeypatch.setenv("CLAIMCOURT_FETCH_PRIVATE_PAGES", "true")
        yield web


def test_a_searxng_user_gets_web_evidence_and_the_result_says_searxng_served(
    tmp_path: Path, searxng: LoopbackWeb
) -> None:
    # When a user with only a SearXNG instance runs a claim (no key: the offline reasoner)
    result = invoke(tmp_path, "run", CLAIM)

    # Then the run's evidence came from the instance's pages, and every output says which search served
    assert result.exit_code == 0, result.output
    assert "evidence: searxng-web" in result.stderr  # the progress header
    assert "evidence: SearXNG web search" in result.stdout  # the verdict's last line
    assert searxng.queries and "/who/measles" in searxng.fetched()
    run_id = result.stdout.strip().rsplit(" ", 1)[-1]
    body = json.loads(invoke(tmp_path, "show", run_id, "--json").stdout)
    assert body["result"]["search"] == "searxng"
    assert {s["source_url"] for s in body["result"]["sources"]} <= {searxng.url("/who/measles")}


def test_a_motion_on_searxng_says_so_in_its_result(tmp_path: Path, searxng: LoopbackWeb) -> None:
    result = invoke(tmp_path, "motion", "Europe should make measles vaccination compulsory", "--rounds", "1",
                    "--crowd", "4", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"]["search"] == "searxng"


def test_without_web_search_the_result_says_none_served(tmp_path: Path) -> None:
    result = invoke(tmp_path, "run", "Arctic sea ice is declining", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["result"]["search"] == "none"


def test_an_openai_only_user_gets_web_evidence_billed_per_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given OpenAI's web search (a fake Responses API), every role on the offline reasoner
    who = FakeSearchResult(
        url="https://www.who.int/europe/news/measles-2024",
        title="Measles cases in Europe rise",
        page_age="2024-03-12",
        cited_text="Measles cases in the European Region rose by 20 percent in 2024 compared with 2023.",
    )

    def answer(body: Any) -> Any:
        assert body["tools"][0]["type"] == "web_search"  # only searches reach this server
        return openai_web_search_response("measles", [who])

    with FakeOpenAIServer(default=answer) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)  # OpenAI itself, played on this machine
        monkeypatch.setenv("CLAIMCOURT_SEARCH", "openai")
        monkeypatch.setenv("CLAIMCOURT_PROVIDER", "offline")
        result = invoke(tmp_path, "run", CLAIM, "--json")

    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)["result"]
    assert scored["search"] == "openai"
    assert [(s["source_url"], s["tier"], s["published"]) for s in scored["sources"]] == [
        (who.url, "T1", "2024-03-12")
    ]
    assert scored["usage"]["total_cost_usd"] > 0  # the searches' tokens and calls, though no role spent


def test_a_bad_or_unusable_search_is_one_line_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_SEARCH", "bing")
    bad = invoke(tmp_path, "run", CLAIM)
    assert bad.exit_code == 2
    assert bad.stderr.strip() == (
        "error: configuration: search: CLAIMCOURT_SEARCH='bing': choose anthropic, openai, searxng or none"
    )

    monkeypatch.setenv("CLAIMCOURT_SEARCH", "searxng")
    unusable = invoke(tmp_path, "run", CLAIM)
    assert unusable.exit_code == 2
    assert "CLAIMCOURT_SEARCH=searxng but CLAIMCOURT_SEARXNG_URL is not set" in unusable.stderr
    assert "Traceback" not in bad.output + unusable.output
    assert stored_runs(tmp_path) == 0
