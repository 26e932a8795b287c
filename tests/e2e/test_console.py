"""The web console in a real browser (Debian's Chromium, driven by Playwright) against `claimcourt
serve` with the offline reasoner: start a run and watch it live, land on its verdict, follow a claim's
drift, watch and unwatch a claim, search and delete history, queue claims under the cost guard, refuse
a bad key, survive a reload mid-run; accessibility basics; a screenshot of every page in light and
dark (build/screenshots/)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect

from claimcourt.debate.refusal import warning as refusal_warning
from claimcourt.models import EarlyEnd, Result
from claimcourt.runs import create_run, parse_request
from claimcourt.store.sqlite import SqliteStore
from tests.e2e.console import SHOTS, Served, serve
from tests.e2e.console import new_context as _context

pytestmark = pytest.mark.timeout(240)
ARCTIC = "Arctic sea ice has declined since 1979"
THEMES = ("light", "dark")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # Two debates at once at most, so the queue meets the cost guard with three claims.
    with serve(tmp_path_factory.mktemp("console"), CLAIMCOURT_MAX_ACTIVE_RUNS="2") as running:
        yield running


def shot(page: Page, name: str, theme: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")  # else the sticky header is drawn where the page was scrolled to
    page.screenshot(path=str(SHOTS / f"{name}-{theme}.png"), full_page=True)


def _seqs(page: Page) -> list[int]:
    return [int(s) for s in page.locator("#event-log div").evaluate_all("els => els.map(e => e.dataset.seq)")]


# ---------------------------------------------------------------- keys


def test_a_bad_key_is_refused_and_a_good_one_is_kept(browser: Browser, served: Served) -> None:
    context = _context(browser, served, key=False)
    page = context.new_page()
    page.goto("/#/history")
    expect(page.locator("h1")).to_have_text("Your API key")
    page.get_by_label("API key", exact=True).fill("cc_0123456789abcdef_" + "x" * 43)
    page.get_by_role("button", name="Use this key").click()
    expect(page.locator("#key-message")).to_contain_text("refused")
    expect(page.get_by_label("API key", exact=True)).to_have_attribute("aria-invalid", "true")
    assert page.evaluate("localStorage.getItem('cc.key')") is None
    shot(page, "key", "light")
    page.get_by_label("API key", exact=True).fill(served.key)
    page.get_by_role("button", name="Use this key").click()
    expect(page.locator("h1#history-title")).to_be_visible()  # back where it was going
    assert page.evaluate("localStorage.getItem('cc.key')") == served.key
    context.close()


# ---------------------------------------------------------------- a flaky network


def test_a_page_whose_module_the_network_drops_is_fetched_again(page: Page) -> None:
    dropped: list[str] = []

    def drop_twice(route: Route) -> None:
        if len(dropped) < 2:
            dropped.append(route.request.url)
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route(re.compile(r"/console/page-history\.js"), drop_twice)
    page.goto("/#/history")
    expect(page.locator("h1#history-title")).to_be_visible()
    assert [url.rsplit("/", 1)[1] for url in dropped] == ["page-history.js", "page-history.js?attempt=1"]
    # dropped every time: said so, with a way to try again that works once the network is back
    page.unroute(re.compile(r"/console/page-history\.js"))
    page.route(re.compile(r"/console/page-monitors\.js"), lambda route: route.abort("connectionreset"))
    page.goto("/#/monitors")
    expect(page.locator("h1")).to_have_text("Something went wrong", timeout=10_000)
    page.unroute(re.compile(r"/console/page-monitors\.js"))
    page.get_by_role("button", name="Try again").click()
    expect(page.get_by_label("Claim to watch")).to_be_visible()


# ---------------------------------------------------------------- a run, live, then its verdict


def test_a_run_started_from_the_console_streams_live_and_lands_on_its_verdict_with_sources(
    page: Page, served: Served
) -> None:
    page.goto("/")
    page.get_by_label("Claim", exact=True).fill(ARCTIC)
    page.get_by_role("button", name="Start debate").click()
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run_id = page.url.split("/")[-2]
    # events arrive while the debate runs: stage by stage, the debaters side by side
    expect(page.locator(".step.running").first).to_be_visible(timeout=10_000)
    expect(page.locator("#event-count")).not_to_have_text("0 events")
    assert page.locator("#run-ended").count() == 0
    expect(page.locator("[data-round='1'] .step.role-for[data-step^='argue|']")).to_be_visible(timeout=10_000)
    expect(page.locator("[data-round='1'] .step.role-against[data-step^='argue|']")).to_be_visible()
    shot(page, "live", "light")
    # the round controller's decision after round 1, as round.decided said it
    expect(page.locator("[data-decision='1']")).to_contain_text("Round 1:", timeout=20_000)
    # the run ends and the console moves on to the verdict
    expect(page).to_have_url(re.compile(rf"#/runs/{run_id}$"), timeout=60_000)
    expect(page.locator("#score")).to_be_visible()
    run = served.wait(run_id)
    expect(page.locator("#score")).to_contain_text(str(run["score"]))
    expect(page.locator(f".pill.v-{run['verdict']}").first).to_be_visible()
    sources = page.locator("#sources li")
    assert sources.count() == len(run["result"]["sources"]) >= 1
    for i in range(sources.count()):
        expect(sources.nth(i).locator(".tier")).to_have_text(re.compile("^T[12]$"))
        assert (sources.nth(i).locator("a").get_attribute("href") or "").startswith("http")
    expect(page.locator("#decisive")).to_be_visible()
    expect(page.locator("[data-subclaim]").first).to_be_visible()
    # what would change the score: a lead a row, its direction, the sub-claim it bears on, where to look
    leads, wanted = page.locator("li.lead"), run["result"]["what_would_change"]
    assert leads.count() == len(wanted) >= 1
    for i, lead in enumerate(wanted):
        row = leads.nth(i)
        arrow = "↑" if lead["direction"] == "toward 100" else "↓"
        expect(row.locator(".lead-dir")).to_have_text(f"{arrow} {lead['direction']}")
        expect(row.locator(".lead-on")).to_have_text(lead["sub_claim"] or "the claim")
        expect(row.locator(".lead-what")).to_have_text(lead["what"])
        expect(row.locator(".lead-where")).to_have_text(f"Look: {lead['where_to_look']}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    card = page.locator("section[aria-labelledby='wwc-title']")
    card.screenshot(path=str(SHOTS / "what-would-change-light.png"))
    expect(page.locator("#cost")).to_contain_text("offline")
    with page.expect_download() as download:
        page.locator("#dl-result").click()
    assert Path(download.value.path()).read_text().startswith("{")
    with page.expect_download() as download:
        page.locator("#dl-claimreview").click()
    assert download.value.suggested_filename == f"{run_id}-claimreview.jsonld"
    review = json.loads(Path(download.value.path()).read_text())
    assert (review["@type"], review["reviewRating"]["ratingValue"]) == ("ClaimReview", run["score"])
    assert review["url"].endswith(f"/#/runs/{run_id}")  # the page it was downloaded from
    with page.expect_download() as download:
        page.locator("[data-artifact='transcript_full.md']").click()
    assert download.value.suggested_filename == f"{run_id}-transcript_full.md"
    assert ARCTIC in Path(download.value.path()).read_text()


def test_a_claim_debated_in_turns_with_fixed_rounds_and_the_rubric_judge(page: Page, served: Served) -> None:
    page.goto("/")
    page.get_by_label("Claim", exact=True).fill(ARCTIC)
    page.get_by_text("How to debate it").click()
    page.get_by_label("Who argues first").select_option("against")
    page.get_by_label("Rounds", exact=True).select_option("3")
    page.get_by_label("Judge", exact=True).select_option("rubric")
    page.get_by_role("button", name="Start debate").click()
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run = served.wait(page.url.split("/")[-2])
    result = run["result"]
    assert (result["first"], result["rounds"], result["judge"]) == ("against", 3, "rubric")
    expect(page).to_have_url(re.compile(rf"#/runs/{run['run_id']}$"), timeout=30_000)
    expect(page.locator("#score")).to_contain_text(str(run["score"]))


def test_a_panel_of_judges_is_asked_for_on_the_run_page_and_shown_on_the_verdict(
    page: Page, served: Served
) -> None:
    page.goto("/")
    page.get_by_label("Claim", exact=True).fill(ARCTIC)
    page.get_by_text("How to debate it").click()
    # a judge whose provider has no key is refused naming the field, which gets the focus
    panel = page.get_by_label("Panel of judges")
    panel.fill("offline, openai:gpt-4.1")
    page.get_by_role("button", name="Start debate").click()
    expect(page.locator("#run-form .error")).to_contain_text("'openai:gpt-4.1': no key or base URL is set")
    expect(panel).to_be_focused()
    # the offline reasoner by the contract and by the rubric: a panel with no key
    panel.fill("offline, offline+rubric")
    page.get_by_role("button", name="Start debate").click()
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run = served.wait(page.url.split("/")[-2])
    assert run["status"] == "succeeded", run["error"]
    expect(page).to_have_url(re.compile(rf"#/runs/{run['run_id']}$"), timeout=30_000)
    judged = run["result"]["panel"]
    card = page.locator("#panel")
    expect(card.locator("tbody tr")).to_have_count(2)
    for j in judged["judges"]:
        row = card.locator(f"tr[data-judge='{j['judge']}']")
        expect(row).to_contain_text(str(j["score"]))
        expect(row).to_contain_text(f"{j['interval']['low']}–{j['interval']['high']}")
    speaker = judged["judges"][judged["speaks"]]
    expect(card.locator("tr.speaks")).to_have_count(1)
    expect(card.locator("tr.speaks")).to_contain_text(speaker["judge"])
    expect(card.locator("tr.speaks")).to_contain_text("speaks for the run")
    expect(card).to_contain_text(
        f"{speaker['judge']} speaks for the run, the panel's median: {judged['rule']}."
    )
    expect(page.locator("#score")).to_contain_text(str(speaker["score"]))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shot(page, "verdict-panel", "light")
    for theme in THEMES:
        page.evaluate(f"document.documentElement.dataset.theme = '{theme}'")
        card.screenshot(path=str(SHOTS / f"panel-{theme}.png"))
    # the trace shows each judge of the panel as its own step, with its model and score
    page.get_by_role("link", name="Trace").click()
    steps = page.locator("[data-step^='adjudicate|']")
    expect(steps).to_have_count(2)
    for n, j in enumerate(judged["judges"]):
        # a step's key: stage|round|side|sub-claim|sample|judge|batch|attempt
        step = page.locator(f"[data-step='adjudicate||||0|{n}||']")
        expect(step).to_contain_text(f"Panel judge {n + 1}")
        expect(step).to_contain_text(f"{j['model']} · scores ")


def test_a_reload_mid_run_resumes_the_trace_from_the_last_seq_and_the_banner_follows_the_run(
    page: Page, served: Served
) -> None:
    page.goto("/")
    page.get_by_label("Claim", exact=True).fill("Global warming is causing sea levels to rise")
    page.locator("label[for='effort-high']").click()  # four rounds: a debate long enough to leave
    page.get_by_role("button", name="Start debate").click()
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run_id = page.url.split("/")[-2]
    expect(page.locator("#event-count")).to_have_text(re.compile(r"^([5-9]|\d\d+) events$"), timeout=10_000)
    # away and back: the banner follows the running debate on every page
    page.get_by_role("link", name="History").click()
    banner = page.locator(f".banner[data-run='{run_id}']")
    expect(banner).to_contain_text("Debate running")
    # a dropped connection reconnects by itself
    page.evaluate("window.ccLive.drop()")
    banner.get_by_role("link", name="Watch live").click()
    expect(page.locator(".conn")).to_have_text("live", timeout=10_000)
    # a reload while it still runs: the trace starts again from the stored events, then goes on live
    with served.client() as client:
        assert client.get(f"/runs/{run_id}").json()["status"] == "running"
    page.reload()
    expect(page.locator("#run-ended")).to_be_visible(timeout=60_000)
    with served.client() as client:
        stored = client.get(f"/runs/{run_id}/events").json()["events"]
    assert _seqs(page) == [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    expect(page.locator(f".banner[data-run='{run_id}']")).to_have_count(0)
    rounds = page.locator("[data-round]")
    assert rounds.count() == 4


# ---------------------------------------------------------------- drift, monitors, history


def test_a_claims_drift_chart_after_two_runs_and_a_backtest(page: Page, served: Served) -> None:
    claim = "Sea levels have risen since 1900"
    runs = [served.start(claim), served.start(claim)]
    runs = [served.wait(r["run_id"]) for r in runs]
    runs.append(served.wait(served.start(claim, as_of_date="2010-06-01")["run_id"]))
    page.goto(f"/#/runs/{runs[0]['run_id']}")
    page.get_by_role("link", name="Drift chart").click()
    expect(page).to_have_url(re.compile(rf"#/claims/{runs[0]['claim_id']}$"))
    expect(page.locator("h1")).to_have_text(claim)
    expect(page.locator("#drift-chart canvas")).to_be_visible()
    kinds = page.locator("#drift-table tbody tr").evaluate_all("rows => rows.map(r => r.dataset.kind)")
    assert sorted(kinds) == ["backtest", "live", "live"]
    expect(page.locator("#drift-table")).to_contain_text("as of 2010-06-01")


def test_a_motion_debate_started_from_the_console_shows_the_crowds_vote_and_its_swing(
    page: Page, served: Served
) -> None:
    page.goto("/")
    page.get_by_label("Motion", exact=True).fill(
        "As of 2014, state surveillance was a legitimate defense of our freedoms."
    )
    page.get_by_label("Voters").fill("12")
    page.get_by_role("button", name="Start motion debate").click()
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run = served.wait(page.url.split("/")[-2])
    assert run["status"] == "succeeded" and run["kind"] == "motion"
    page.goto(f"/#/runs/{run['run_id']}")
    expect(page.locator("#motion-title")).to_have_text("Motion debate: the crowd's vote")
    expect(page.locator("#motion")).to_contain_text("(12 voters)")
    expect(page.locator("#swing")).to_contain_text("for ")
    expect(page.get_by_role("button", name="Score trajectory (CSV)")).to_be_visible()
    shot(page, "motion", "light")
    # its trace lists the turns and the votes, as they happened
    page.get_by_role("link", name="Trace").click()
    expect(page.locator("#event-log")).to_contain_text("speak")
    expect(page.locator("#event-log")).to_contain_text("vote")
    shot(page, "motion-trace", "light")


def test_a_motion_debates_options_and_line_up_reach_the_debate(page: Page, served: Served) -> None:
    page.goto("/")
    page.get_by_label("Motion", exact=True).fill(
        "Wealthy nations should pay for climate damages in poorer countries."
    )
    page.get_by_label("Voters").fill("6")
    page.get_by_text("Rules and line-up").click()
    options = page.locator("#motion-options")
    # each role shows what it runs as unless named (the offline reasoner here)
    expect(options.get_by_label("Motion judge")).to_have_attribute("placeholder", re.compile(r"^offline:"))
    options.get_by_label("Who speaks first").select_option("against")
    # a bad value inside the options, closed again: the service refuses it, and the form shows where
    options.get_by_label("Words a statement").fill("")
    page.get_by_text("Rules and line-up").click()
    page.get_by_role("button", name="Start motion debate").click()
    expect(options.get_by_label("Words a statement")).to_be_focused()
    expect(page.locator("#motion-form .error")).to_contain_text("greater than or equal to 50")
    options.get_by_label("Words a statement").fill("120")
    options.get_by_label("New citations a statement").fill("1")
    # a provider this service holds no key for is refused where it is typed, before anything starts
    options.get_by_label("Motion judge").fill("anthropic:claude-opus-4-1")
    page.get_by_role("button", name="Start motion debate").click()
    expect(page.locator("#motion-form .error")).to_contain_text("no key or base URL is set for anthropic")
    expect(options.get_by_label("Motion judge")).to_be_focused()
    shot(page, "motion-options", "light")
    expect(page).to_have_url(re.compile(r"/(#/)?$"))
    options.get_by_label("Motion judge").fill("offline:")
    page.get_by_role("button", name="Start motion debate").click()
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run_id = page.url.split("/")[-2]
    assert served.wait(run_id)["status"] == "succeeded"
    with served.client() as client:
        motion = client.get(f"/motions/{run_id}").json()["motion"]
    assert (motion["first"], motion["words"], motion["citations"], motion["crowd"]) == ("against", 120, 1, 6)
    assert motion["lineup"] == {"judge": "offline:"} and motion["time_knob"]["ratio"] == 1.25


def test_a_monitor_is_added_and_removed(page: Page, served: Served) -> None:
    page.goto("/#/monitors")
    page.get_by_label("Claim to watch").fill(ARCTIC)
    page.get_by_label("Cadence").select_option("weekly")
    page.get_by_label("Threshold (points)").fill("7")
    page.get_by_role("button", name="Watch this claim").click()
    row = page.locator("[data-monitor]")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("weekly")
    expect(row).to_contain_text("±7")
    with served.client() as client:
        assert [m["request"]["threshold"] for m in client.get("/monitors").json()["monitors"]] == [7]
    row.get_by_role("button", name=re.compile("Stop watching")).click()
    expect(page.locator("#no-monitors")).to_be_visible()
    with served.client() as client:
        assert client.get("/monitors").json()["monitors"] == []


def test_history_is_searched_filtered_and_a_run_deleted(page: Page, served: Served) -> None:
    flat = served.wait(served.start("The Earth is flat")["run_id"])
    page.goto("/#/history")
    page.get_by_label("Search claims").fill("EARTH IS")
    expect(page.locator("#runs-table tbody tr")).to_have_count(1)
    page.get_by_label("Source").select_option("drift")
    expect(page.locator("#runs-table tbody tr")).to_have_count(0)
    page.get_by_label("Source").select_option("app")
    row = page.locator(f"[data-run='{flat['run_id']}']")
    expect(row).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name=re.compile("Delete")).click()
    expect(row).to_have_count(0)
    with served.client() as client:
        assert client.get(f"/runs/{flat['run_id']}").status_code == 404
    expect(page.locator("#claims-table")).to_contain_text(ARCTIC)


def test_the_queue_waits_on_a_429_and_starts_every_claim_as_slots_free(page: Page, served: Served) -> None:
    served.idle()
    page.goto("/")
    claims = ["Glaciers are retreating worldwide", "Ocean heat content is rising", "Snow cover has declined"]
    page.get_by_label("Claims to queue").fill("\n".join(claims))
    page.get_by_role("button", name="Add to queue").click()
    expect(page.locator(".queue-item")).to_have_count(3)
    page.get_by_role("button", name="Run the queue").click()
    # two slots: the third claim meets the cost guard and says when it will ask again
    expect(page.locator(".queue-item[data-state='waiting']")).to_contain_text(
        "Waiting for a slot (too_many_runs)", timeout=10_000
    )
    expect(page.locator(".queue-item[data-state='succeeded']")).to_have_count(3, timeout=90_000)
    with served.client() as client:
        started = {r["claim"] for r in client.get("/runs?limit=100").json()["runs"]}
    assert set(claims) <= started


# ---------------------------------------------------------------- themes and accessibility


def test_the_theme_is_set_before_any_module_runs_so_the_wrong_one_never_flashes(
    browser: Browser, served: Served
) -> None:
    context = _context(browser, served, theme="light")
    context.add_init_script("localStorage.setItem('cc.theme', 'dark')")
    page = context.new_page()
    page.route("**/console/app.js", lambda route: route.abort())  # no module at all: only <head> ran
    page.goto("/")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(13, 17, 23)"
    context.close()
    context = _context(browser, served, theme="dark")  # no choice made: the system's
    page = context.new_page()
    page.route("**/console/app.js", lambda route: route.abort())
    page.goto("/")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    context.close()


CONTRAST = """() => {
  const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  const lum = (hex) => {
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const out = {};
  for (const v of ["supported", "refuted", "conflicting", "nee"]) {
    out[v + " on surface"] = ratio(css("--" + v), css("--surface"));
    out[v + " on its pill"] = ratio(css("--" + v), css("--" + v + "-bg"));
  }
  for (const r of ["for", "against", "moderator", "judge"]) {
    out[r + " on surface"] = ratio(css("--" + r), css("--surface"));
  }
  return out;
}"""

UNLABELLED = """() => [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')]
  .filter((el) => !el.hidden && el.getClientRects().length)
  .filter((el) => el.tagName === 'BUTTON'
    ? !(el.textContent.trim() || el.getAttribute('aria-label'))
    : !(el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')))
  .map((el) => el.outerHTML.slice(0, 120))"""


@pytest.mark.parametrize("theme", THEMES)
def test_the_score_and_role_colours_keep_their_contrast(browser: Browser, served: Served, theme: str) -> None:
    context = _context(browser, served, theme=theme)
    page = context.new_page()
    page.goto("/#/settings")
    ratios: dict[str, float] = page.evaluate(CONTRAST)
    low = {name: round(r, 2) for name, r in ratios.items() if r < 4.5}
    assert low == {}, f"below 4.5:1 in {theme}: {low}"
    context.close()


def test_every_control_has_a_label_and_the_keyboard_reaches_it_visibly(page: Page, served: Served) -> None:
    run = served.wait(served.start(ARCTIC)["run_id"])
    for route in [
        "/#/run",
        "/#/history",
        "/#/monitors",
        "/#/settings",
        f"/#/runs/{run['run_id']}",
        f"/#/runs/{run['run_id']}/live",
        f"/#/claims/{run['claim_id']}",
    ]:
        page.goto(route)
        expect(page.locator("main h1").first).to_be_visible()
        page.wait_for_load_state("networkidle")
        assert page.evaluate(UNLABELLED) == [], route
    page.goto("/#/history")
    page.reload()  # a fresh document: the keyboard starts at the top
    expect(page.locator("h1")).to_be_visible()
    page.keyboard.press("Tab")
    focused: dict[str, Any] = page.evaluate(
        "() => ({text: document.activeElement.textContent.trim(),"
        " outline: getComputedStyle(document.activeElement).outlineStyle,"
        " width: parseFloat(getComputedStyle(document.activeElement).outlineWidth)})"
    )
    assert focused["text"] == "Skip to content" and focused["outline"] != "none" and focused["width"] >= 2
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    # the run form by keyboard alone: type the claim, then Enter on the focused button starts it
    page.goto("/#/run")
    expect(page.locator("#claim")).to_be_focused()
    page.keyboard.type("Coral reefs are bleaching more often")
    page.locator("#start").focus()
    assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    served.wait(page.url.split("/")[-2])


# ---------------------------------------------------------------- every page, light and dark


@pytest.mark.parametrize("theme", THEMES)
def test_a_screenshot_of_every_page(browser: Browser, served: Served, theme: str) -> None:
    served.idle()
    with served.client() as client:
        runs = client.get("/runs", params={"q": "Arctic sea ice", "source": "app"}).json()["runs"]
    done = [r for r in runs if r["status"] == "succeeded" and not r["as_of_date"]]
    run = done[0] if done else served.wait(served.start(ARCTIC)["run_id"])
    with served.client() as client:
        busiest = max(client.get("/claims").json()["claims"], key=lambda c: c["run_count"])
        client.post("/monitors", json={"claim": busiest["text"], "cadence": "daily", "threshold": 5})
    context = _context(browser, served, theme=theme)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    for name, route, ready in [
        ("run", "/#/run", "#run-form"),
        ("verdict", f"/#/runs/{run['run_id']}", "#score"),
        ("trace", f"/#/runs/{run['run_id']}/live", "#run-ended"),
        ("drift", f"/#/claims/{busiest['claim_id']}", "#drift-chart canvas"),
        ("history", "/#/history", "#runs-table tbody tr"),
        ("monitors", "/#/monitors", "[data-monitor]"),
        ("settings", "/#/settings", "#roles"),
    ]:
        page.goto(route)
        expect(page.locator(ready).first).to_be_visible(timeout=15_000)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        shot(page, name, theme)
    context.close()
    assert errors == [], errors
    with served.client() as client:
        for monitor in client.get("/monitors").json()["monitors"]:
            client.delete(f"/monitors/{monitor['monitor_id']}")


# ---------------------------------------------------------------- issue 25, item 14: a new user's console

UNITS = (
    "points|runs|events|passages|words|citations|batches|issues|rounds|voters|statements|tokens"
    "|model calls|hits|misses|monitors|tallies|queries|live runs|backtests|score changes"
)
ONE_PLURAL = re.compile(rf"(?<![\d.,])1 ({UNITS})\b")
# The console's own words on a page: not what a debater, the judge or the referee wrote (the offline
# reasoner's prose is its own), which the console only quotes.
CONSOLE_TEXT = """() => {
  const quoted = ".subclaim p, .versus, .statement p, #report > p:not(.small), .judge-map li, .callout,"
    + " #warnings td[data-label='What'], .notice, #wwc-title ~ ul, details ul, #sources, #ledger";
  const walk = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  const out = [];
  while (walk.nextNode()) {
    if (!walk.currentNode.parentElement.closest(quoted)) out.push(walk.currentNode.data);
  }
  return out.join(" ");
}"""


def _motion(served: Served, motion: str, **request: Any) -> dict[str, Any]:
    """A motion debate started through the API, once it has ended."""
    with served.client() as client:
        reply = client.post("/motions", json={"motion": motion, **request})
        assert reply.status_code == 202, reply.text
    return served.wait(reply.json()["run_id"])


def _phone(browser: Browser, served: Served, theme: str = "light") -> BrowserContext:
    context = browser.new_context(
        base_url=served.url, color_scheme=theme, viewport={"width": 390, "height": 844}
    )  # type: ignore[arg-type]
    context.add_init_script(f"localStorage.setItem('cc.key', '{served.key}')")
    return context


def _no_sideways_scroll(page: Page) -> None:
    widths = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the page scrolls sideways: {widths}"


def test_the_drift_chart_is_offered_only_where_there_is_a_score_to_chart(page: Page, served: Served) -> None:
    served.idle()
    motion = _motion(served, "Zoos do more good than harm.", crowd=6, rounds=1)
    stopped = served.wait(served.start("Climate change is bad")["run_id"])
    scored = served.wait(served.start("Glaciers in the Alps have lost mass since 1850")["run_id"])
    assert stopped["status"] == "stopped" and scored["score"] is not None
    # a motion (the crowd votes, nothing is scored) and a stopped run: no drift chart offered
    for run in (motion, stopped):
        page.goto(f"/#/runs/{run['run_id']}")
        expect(page.locator("[data-drift]")).to_have_attribute("data-drift", "none")
        expect(page.get_by_role("link", name="Drift chart")).to_have_count(0)
        expect(page.get_by_role("link", name="Trace")).to_be_visible()
    page.goto(f"/#/runs/{scored['run_id']}")
    expect(page.locator("[data-drift]")).to_have_attribute("data-drift", "offered")
    page.get_by_role("link", name="Drift chart").click()
    expect(page.locator("#drift-chart canvas")).to_be_visible()
    # History offers a row's drift chart only where the row has a score
    page.get_by_role("link", name="History").click()
    for run, drift in ((motion, 0), (stopped, 0), (scored, 1)):
        row = page.locator(f"[data-run='{run['run_id']}']")
        expect(row).to_be_visible()
        expect(row.get_by_role("link", name="drift", exact=True)).to_have_count(drift)
    # the claims table still leads to every claim: one with nothing to chart says why, and lists its runs
    page.locator("#claims-table").get_by_role("link", name="Zoos do more good than harm.").click()
    expect(page.locator("#no-points")).to_contain_text("Nothing to chart yet")
    expect(page.locator("#no-points")).to_contain_text("a motion debate")
    expect(page.locator("#drift-chart")).to_have_count(0)
    expect(page.locator("#claim-runs")).to_be_visible()
    shot(page, "drift-empty", "light")
    page.locator("#claim-runs").get_by_role("link", name="motion debate").click()
    expect(page).to_have_url(re.compile(rf"#/runs/{motion['run_id']}$"))
    expect(page.locator("#motion-title")).to_be_visible()


def test_the_verdicts_adjustments_fit_a_phone_screen(browser: Browser, served: Served) -> None:
    with served.client() as client:
        runs = client.get("/runs", params={"q": "Arctic sea ice", "source": "app"}).json()["runs"]
    done = [r for r in runs if r["status"] == "succeeded" and not r["as_of_date"]]
    run = done[0] if done else served.wait(served.start(ARCTIC)["run_id"])
    with served.client() as client:
        adjustments = client.get(f"/runs/{run['run_id']}").json()["result"]["adjustments"]
    assert adjustments, "the offline Arctic run is adjusted (secondary sources only)"
    for theme in THEMES:
        context = _phone(browser, served, theme)
        page = context.new_page()
        page.goto(f"/#/runs/{run['run_id']}")
        table = page.locator("#adjustments")
        expect(table).to_be_visible()
        expect(table.locator("tbody tr")).to_have_count(len(adjustments))
        _no_sideways_scroll(page)
        card = page.locator("#warnings").bounding_box()
        assert card
        for cell in table.locator("td").all():
            box = cell.bounding_box()
            assert box and card["x"] <= box["x"] and box["x"] + box["width"] <= card["x"] + card["width"]
        # on a phone each cell is named (the header row is hidden), and the prose wraps within the card
        first = table.locator("tbody tr").first
        labels = first.locator("td").evaluate_all(
            "tds => tds.map(td => getComputedStyle(td, '::before').content)"
        )
        assert labels == ['"Applies to"', '"Kind"', '"What"', '"Before → after"']
        expect(first).to_contain_text(adjustments[0]["detail"])
        shot(page, "verdict-390", theme)
        warnings = page.locator("#warnings").bounding_box()  # the page scrolled to its top by shot()
        page.screenshot(path=str(SHOTS / f"adjustments-390-{theme}.png"), full_page=True, clip=warnings)
        # the wide tables (the cost, the citation ledger) scroll in their own box, which the keyboard reaches
        cost = page.locator("#cost .scroll-x")
        expect(cost).to_have_attribute("tabindex", "0")
        cost.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("el => el.scrollLeft > 0", arg=cost.element_handle())
        context.close()


def test_a_claim_debate_a_refusal_ended_early_says_so_once_with_its_reason(
    page: Page, served: Served
) -> None:
    # Given a scored claim run whose for side declined in round 1 and was answered once (the offline
    # reasoner never declines: a scored result is stored as a refusal's would be, its early end and warning)
    scored = served.wait(served.start(ARCTIC)["run_id"])
    end = EarlyEnd(
        side="for",
        round=1,
        reason="I will not argue that the record was faked: SECRET-REASON.",
        answered_by="against",
        answered_in_round=2,
        followed="the against side made its one counter-argument turn (round 2), reading that no argument"
        " was made; then the debate ended",
    )
    result = Result.model_validate(scored["result"])
    store = SqliteStore(served.data_dir / "claimcourt.sqlite3")
    try:
        run = create_run(store, parse_request({"claim": ARCTIC}), tenant_id="acme")
        update = {
            "run_id": run.run_id,
            "ended_early": end,
            "warnings": [*result.warnings, refusal_warning(end)],
        }
        assert store.finish_run(run.run_id, result.model_copy(update=update))
    finally:
        store.close()
    # When its verdict is opened
    page.goto(f"/#/runs/{run.run_id}")
    # Then the early end is said as a motion's is, with the reason the other side never read
    ended = page.locator("#ended-early")
    expect(ended).to_contain_text(refusal_warning(end))
    expect(ended).to_contain_text("SECRET-REASON")
    # and once: not again in the list of warnings beside it
    expect(page.locator("#warnings")).to_contain_text("Ended early", use_inner_text=True)
    assert page.locator("#warnings").inner_text().count("Ended early") == 1
    shot(page, "verdict-ended-early", "light")


def test_counts_are_said_in_the_singular_for_one(page: Page, served: Served) -> None:
    served.idle()
    claim = "Sea surface temperatures have risen since 1950"
    run = served.wait(served.start(claim, rounds=1)["run_id"])
    motion = _motion(served, "Cities should plant more trees.", crowd=1, rounds=1)
    assert run["status"] == motion["status"] == "succeeded"
    pages = [
        (f"/#/claims/{run['claim_id']}", "#drift-chart canvas"),
        (f"/#/runs/{run['run_id']}", "#score"),
        (f"/#/runs/{run['run_id']}/live", "#run-ended"),
        (f"/#/runs/{motion['run_id']}", "#vote-chart canvas"),
        (f"/#/runs/{motion['run_id']}/live", "#run-ended"),
    ]
    for route, ready in pages:
        page.goto(route)
        expect(page.locator(ready)).to_be_visible(timeout=15_000)
        page.wait_for_load_state("networkidle")
        text = page.evaluate(CONSOLE_TEXT)
        assert not ONE_PLURAL.findall(text), (route, ONE_PLURAL.findall(text))
        if route.startswith("/#/claims/"):
            expect(page.locator("#point-count")).to_have_text("1 point: 1 live run")
        if route == f"/#/runs/{motion['run_id']}":
            expect(page.locator("#motion")).to_contain_text("(1 voter)")
            shot(page, "motion-one-voter", "light")
        if route == f"/#/runs/{motion['run_id']}/live":
            expect(page.locator("#trace")).to_contain_text("The crowd votes (1 batch)")
    page.goto("/#/history")
    page.get_by_label("Search claims").fill(claim)
    expect(page.locator("#runs-table tbody tr")).to_have_count(1)
    expect(page.locator("main")).to_contain_text("1 run shown")


def test_a_verdict_stays_under_the_tab_it_was_reached_from(page: Page, served: Served) -> None:
    run_tab, history_tab = page.locator("[data-nav='run']"), page.locator("[data-nav='history']")
    served.idle()
    page.goto("/")
    expect(run_tab).to_have_attribute("aria-current", "page")
    claim = "Permafrost has warmed since the 1980s"
    page.get_by_label("Claim", exact=True).fill(claim)
    page.get_by_text("How to debate it").click()
    page.get_by_label("Rounds", exact=True).select_option("1")
    page.get_by_role("button", name="Start debate").click()
    # started on Run: its live trace and then its verdict stay under Run (the current section, not page)
    expect(page).to_have_url(re.compile(r"#/runs/run_\w+/live$"))
    run_id = page.url.split("/")[-2]
    expect(run_tab).to_have_attribute("aria-current", "true")
    expect(history_tab).not_to_have_attribute("aria-current", re.compile(".*"))
    expect(page).to_have_url(re.compile(rf"#/runs/{run_id}$"), timeout=60_000)
    expect(page.locator("#score")).to_be_visible()
    expect(run_tab).to_have_attribute("aria-current", "true")
    expect(history_tab).not_to_have_attribute("aria-current", re.compile(".*"))
    shot(page, "verdict-from-run", "light")
    page.reload()  # the same page, under the same tab
    expect(page.locator("#score")).to_be_visible()
    expect(run_tab).to_have_attribute("aria-current", "true")
    page.get_by_role("link", name="Drift chart").click()  # deeper still: the same tab
    expect(page.locator("#drift-chart canvas")).to_be_visible()
    expect(run_tab).to_have_attribute("aria-current", "true")
    # the same verdict reached from History is under History
    page.get_by_role("link", name="History").click()
    expect(history_tab).to_have_attribute("aria-current", "page")
    page.locator(f"[data-run='{run_id}']").get_by_role("link", name=claim).click()
    expect(page.locator("#score")).to_be_visible()
    expect(history_tab).to_have_attribute("aria-current", "true")
    expect(run_tab).not_to_have_attribute("aria-current", re.compile(".*"))
    # and from Run's recent runs, under Run again
    run_tab.click()
    page.get_by_role("link", name=claim).first.click()
    expect(page.locator("#score")).to_be_visible()
    expect(run_tab).to_have_attribute("aria-current", "true")
    # opened afresh (a link pasted into a new tab): a verdict is under History, a live trace under Run
    fresh = page.context.new_page()
    fresh.goto(f"/#/runs/{run_id}")
    expect(fresh.locator("#score")).to_be_visible()
    expect(fresh.locator("[data-nav='history']")).to_have_attribute("aria-current", "true")
    fresh.close()
    fresh = page.context.new_page()
    fresh.goto(f"/#/runs/{run_id}/live")
    expect(fresh.locator("#run-ended")).to_be_visible()
    expect(fresh.locator("[data-nav='run']")).to_have_attribute("aria-current", "true")
    fresh.close()


def test_a_motions_result_charts_the_vote_round_by_round_with_every_statement(
    browser: Browser, served: Served
) -> None:
    served.idle()
    run = _motion(
        served, "Wealthy nations should pay for climate damages in poorer countries.", crowd=12, rounds=1
    )
    assert run["status"] == "succeeded"
    with served.client() as client:
        view = client.get(f"/motions/{run['run_id']}").json()
    result, statements = view["result"], view["statements"]
    tallies = result["sentiment"]
    rounds = sorted({s["round"] for s in statements})
    assert len(tallies) == len(rounds) + 1 == 4 and len(statements) == result["turns"]  # vote zero, 3 rounds
    errors: list[str] = []
    for theme in THEMES:
        context = _context(browser, served, theme=theme)
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(f"/#/runs/{run['run_id']}")
        # the crowd's vote, charted round by round (for, against, undecided) and said in a table
        chart = page.locator("#vote-chart")
        expect(chart.locator("canvas")).to_be_visible()
        for series in ("For", "Against", "Undecided"):
            expect(chart.locator(".u-legend")).to_contain_text(series)
        rows = page.locator("#vote-table tbody tr")
        expect(rows).to_have_count(len(tallies))
        for row, tally in zip(rows.all(), tallies, strict=True):
            expect(row.locator("td").nth(1)).to_have_text(f"{tally['for_pct']:g} %")
            expect(row.locator("td").nth(2)).to_have_text(f"{tally['against_pct']:g} %")
            expect(row.locator("td").nth(3)).to_have_text(f"{tally['undecided_pct']:g} %")
        # each round: its statements in speaking order, then the crowd's tally after it
        cards = page.locator("#motion-rounds [data-round]")
        expect(cards).to_have_count(len(rounds))
        for n in rounds:
            card = page.locator(f"#motion-rounds [data-round='{n}']")
            spoken = [s for s in statements if s["round"] == n]
            shown = card.locator("[data-statement]")
            expect(shown).to_have_count(len(spoken))
            for i, s in enumerate(spoken):
                expect(shown.nth(i)).to_have_attribute("data-statement", f"{n}-{s['side']}")
                first_words = re.split(r"\s*\[E", s["points"][0]["argument"])[0][:60]
                expect(shown.nth(i)).to_contain_text(first_words)
            tally = next(t for t in tallies if t["round"] == n)
            expect(card.locator(f"[data-tally='{n}']")).to_contain_text(f"{tally['for_pct']:g} % for")
        # a statement's citation links to its source, named by its ledger key
        entry = result["citations"][0]
        cite = page.locator(f"#motion-rounds a.cite:text-is('{entry['tier']} {entry['key']}')").first
        expect(cite).to_have_attribute("href", entry["source_url"])
        expect(page.locator("#report")).to_contain_text(result["report"])
        # a motion has no verdict to publish: no ClaimReview to download (the API answers 409)
        expect(page.locator("[data-artifact='transcript_full.md']")).to_be_visible()
        expect(page.locator("#dl-claimreview")).to_have_count(0)
        page.wait_for_load_state("networkidle")
        shot(page, "motion", theme)
        # the theme toggled: the chart is drawn again in the other colours, without an error
        page.locator("#theme-toggle").click()
        expect(chart.locator("canvas")).to_have_count(1)
        context.close()
    assert errors == [], errors
    context = _phone(browser, served)
    page = context.new_page()
    page.goto(f"/#/runs/{run['run_id']}")
    expect(page.locator("#vote-chart canvas")).to_be_visible()
    _no_sideways_scroll(page)
    shot(page, "motion-390", "light")
    context.close()


def test_a_motions_suitability_check_is_shown_where_it_stopped_or_warned(page: Page, served: Served) -> None:
    # A motion the bundled corpus has not a word of (its research finds no passage): stopped before the
    # crowd voted, and the page says why. (A pool that shares a word is debated, with a warning.)
    stopped = _motion(served, "Pickleball should supplant badminton.", crowd=4, rounds=1)
    assert stopped["status"] == "stopped" and stopped["stop_reason"] == "add_documents"
    page.goto(f"/#/runs/{stopped['run_id']}")
    card = page.locator("#motion-stopped")
    expect(card).to_contain_text("Not debated: stopped before the crowd voted")
    for warning in stopped["warnings"]:
        expect(card).to_contain_text(warning[:60])
    expect(page.locator("#vote-chart")).to_have_count(0)  # no vote was taken
    page.wait_for_load_state("networkidle")
    shot(page, "motion-stopped", "light")
    # A factual claim posing as a motion: debated, with the check's warning above the vote
    warned = _motion(served, "Sea levels are rising.", crowd=4, rounds=1)
    assert warned["status"] == "succeeded"
    with served.client() as client:
        result = client.get(f"/motions/{warned['run_id']}").json()["result"]
    assert result["warnings"], "the factual motion was not warned"
    page.goto(f"/#/runs/{warned['run_id']}")
    notice = page.locator("#motion-warnings")
    expect(notice).to_contain_text("Before the vote, the suitability check said:")
    expect(notice).to_contain_text(result["warnings"][0][:60])
    expect(page.locator("#vote-chart canvas")).to_be_visible()
    page.wait_for_load_state("networkidle")
    shot(page, "motion-warned", "light")
