"""The console's Benchmarks page in Chromium against `claimcourt serve`: the empty state says how to run
one; after a small `claimcourt bench` records into the served store, the scorecard is listed newest
first with the debate beside its baselines, each metric's n, the costs, and its plots loaded through
the API with the key. The trace page draws each round's parallelism record. Screenshots in light,
dark and on a phone (build/screenshots/)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from claimcourt.bench import processes
from claimcourt.settings import child_environment
from tests.e2e.console import CLAIMCOURT, Served, new_context, serve
from tests.e2e.test_console import ARCTIC, THEMES, _no_sideways_scroll, _phone, shot

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("benchmarks")) as running:
        yield running


def _bench(served: Served, out: Path, *args: str) -> str:
    """`claimcourt bench` as a user runs it beside the server, recording into the served data directory."""
    environment = child_environment(
        processes.provider_setting, CLAIMCOURT_DATA_DIR=str(served.data_dir), CLAIMCOURT_PROVIDER="offline"
    )
    made = subprocess.run(
        [CLAIMCOURT, "bench", *args, "--out", str(out)], env=environment, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr[-2000:]
    return made.stdout


def test_the_empty_page_says_how_to_run_a_benchmark(page: Page) -> None:
    page.goto("/#/benchmarks")
    expect(page.locator("#no-benchmarks")).to_contain_text("claimcourt bench all --baselines")
    expect(page.locator("[data-nav='benchmarks']")).to_have_attribute("aria-current", "page")
    shot(page, "benchmarks-empty", "light")


def test_recorded_benchmarks_are_shown_newest_first_with_the_baselines_and_their_plots(
    browser: Browser, served: Served, tmp_path: Path
) -> None:
    _bench(served, tmp_path, "probes", "--limit", "2")
    printed = _bench(served, tmp_path, "calibration", "--baselines", "--limit", "2", "--runs", "2")
    newest = printed.split("recorded as benchmark ")[1].split()[0]
    with served.client() as client:
        listed = client.get("/benchmarks").json()["benchmarks"]
    assert len(listed) == 2 and listed[0]["benchmark_id"] == newest
    errors: list[str] = []
    for theme in THEMES:
        context = new_context(browser, served, theme=theme)
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto("/#/benchmarks")
        cards = page.locator("[data-benchmark]")
        expect(cards).to_have_count(2)
        assert cards.first.get_attribute("data-benchmark") == newest  # newest first
        table = cards.first.locator("table.scorecard[data-bench='calibration']")
        expect(table.locator("thead th")).to_have_text(
            ["Metric", "Debate", "Single-LLM judge", "Naive RAG + LLM"]
        )
        expect(table.locator("tr", has_text="MAE to anchors")).to_be_visible()
        expect(table.locator("tr", has_text="n (items asked)").locator("td")).to_have_text(["4", "4", "4"])
        expect(cards.first.locator(".notice")).to_contain_text("offline reasoner's figures")
        plot = cards.first.locator("img[alt='Plot: calibration calibration curve']")
        page.wait_for_function(
            "() => { const i = document.querySelector(\"img[alt='Plot: calibration calibration curve']\");"
            " return i && i.complete && i.naturalWidth > 100; }"
        )
        assert (plot.get_attribute("src") or "").startswith("data:image/png;base64,")
        page.wait_for_load_state("networkidle")
        shot(page, "benchmarks", theme)
        assert errors == [], errors
        context.close()


def test_the_benchmarks_page_fits_a_phone(browser: Browser, served: Served) -> None:
    context = _phone(browser, served)
    page = context.new_page()
    page.goto("/#/benchmarks")
    expect(page.locator("#benchmarks")).not_to_contain_text("Loading")
    _no_sideways_scroll(page)
    shot(page, "benchmarks-390", "light")
    context.close()


def test_the_trace_draws_each_rounds_parallelism_record(page: Page, served: Served) -> None:
    run = served.wait(served.start(ARCTIC)["run_id"])
    records = run["result"]["parallelism"]
    assert records and all(p["gate"] == "PASS" for p in records)  # paced offline calls: both at once
    page.goto(f"/#/runs/{run['run_id']}/live")
    for p in records:
        drawn = page.locator(f"[data-parallelism='{p['round']}']")
        expect(drawn).to_contain_text("PASS")
        expect(drawn).to_contain_text(f"overlap {round(p['overlap'] * 100)} % of the shorter")
        expect(drawn.locator(".overlap-bar")).to_have_count(2)
    shot(page, "trace-parallelism", "light")
