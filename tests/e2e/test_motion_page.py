"""A motion debate's page in a real browser (Debian's Chromium, Playwright) against `claimcourt serve`:
a person sees each of the seven artifacts offered by name, with what it holds, and follows each to a
file that is the one GET /motions/{id}/artifacts/{name} serves; each round shows the judge's map."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from claimcourt.exports import MOTION_ARTIFACTS
from tests.e2e.console import SHOTS, Served, serve

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("motion-page")) as running:
        yield running


def test_a_motions_page_offers_every_artifact_and_each_downloads_as_the_api_serves_it(
    page: Page, served: Served
) -> None:
    # Given a motion debate that has ended
    with served.client() as client:
        reply = client.post(
            "/motions", json={"motion": "Resolved: sea levels are rising.", "crowd": 6, "rounds": 1}
        )
        assert reply.status_code == 202, reply.text
    run_id = reply.json()["run_id"]
    assert served.wait(run_id)["status"] == "succeeded"
    with served.client() as client:
        served_files = {n: client.get(f"/motions/{run_id}/artifacts/{n}").text for n in MOTION_ARTIFACTS}
        logic = client.get(f"/motions/{run_id}/artifacts/debate_logic_map.json").json()
    # When a person opens its page
    page.goto(f"/#/runs/{run_id}")
    expect(page.locator("#motion-title")).to_be_visible()
    # Then every round shows the judge's map of it (the spec's array, one state a round)
    for state in logic:
        card = page.locator(f"#motion-rounds [data-round='{state['round_number']}']")
        expect(card.locator(".judge-map summary")).to_contain_text(
            f"{len(state['disagreement_frontier'])} disputed"
        )
    # and the download card names each of the seven artifacts, with what it holds, and nothing else
    card = page.locator("#motion-downloads")
    expect(card.get_by_role("heading")).to_have_text("Download the debate's artifacts")
    offered = card.locator("[data-artifact]")
    expect(offered).to_have_count(len(MOTION_ARTIFACTS))
    assert sorted(offered.evaluate_all("els => els.map(e => e.dataset.artifact)")) == sorted(MOTION_ARTIFACTS)
    for name in MOTION_ARTIFACTS:
        item = card.locator("li").filter(has=page.locator(f"[data-artifact='{name}']"))
        expect(item).to_be_visible()
        expect(item.locator(".muted")).not_to_be_empty()
    card.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    card.screenshot(path=str(SHOTS / "motion-downloads-light.png"))
    # When the person follows each one, by its name
    labels = card.locator("[data-artifact]").evaluate_all(
        "els => els.map(e => [e.dataset.artifact, e.textContent])"
    )
    for name, label in labels:
        with page.expect_download() as download:
            card.get_by_role("button", name=label, exact=True).click()
        # Then it is saved as a file named for the run, holding what the API serves for it
        assert download.value.suggested_filename == f"{run_id}-{name}"
        assert Path(download.value.path()).read_text() == served_files[name], name
    # and the result, as the API returns it, is there too
    with page.expect_download() as download:
        card.get_by_role("button", name="Result (JSON)").click()
    assert download.value.suggested_filename == f"{run_id}.result.json"
    assert re.search(r'"vote_zero"', Path(download.value.path()).read_text())
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "motion-page-light.png"), full_page=True)
