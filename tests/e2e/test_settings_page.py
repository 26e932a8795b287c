"""The Settings page in Chromium against `claimcourt serve`: settings edited and saved (a bad one
refused naming its field), a field the server's environment sets shown locked with the reason, a
provider key entered (shown only as its last four) and removed; screenshots in build/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.console import Served, serve
from tests.e2e.test_console import shot

pytestmark = pytest.mark.timeout(240)
KEY = "sk-proj-" + "k3y" * 10 + "LAST"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # The environment sets the budget: the page shows it locked.
    with serve(tmp_path_factory.mktemp("settings"), CLAIMCOURT_BUDGET_USD="3") as running:
        yield running


def test_settings_are_edited_and_saved_and_the_environments_are_locked(page: Page, served: Served) -> None:
    page.goto("/#/settings")
    budget = page.locator("#set-budget_usd")
    expect(budget).to_be_disabled()
    expect(page.locator('[data-field="budget_usd"] .locked')).to_contain_text(
        "CLAIMCOURT_BUDGET_USD is set in the server's environment"
    )
    # A cap out of range is refused, naming its field, and nothing is saved
    page.fill("#set-max_active_runs", "500")
    page.click("#save-settings")
    expect(page.locator("#settings-status")).to_contain_text("max_active_runs: ")
    page.fill("#set-max_active_runs", "4")
    page.select_option("#set-default_effort", "low")
    page.select_option("#set-dynamic_rounds", "off")
    page.select_option('[name="role-provider-adjudicator"]', "offline")
    page.fill('[name="role-model-adjudicator"]', "offline")
    page.click("#save-settings")
    expect(page.locator("#settings-status")).to_contain_text("Saved")
    shot(page, "settings-saved", "light")
    with served.client() as client:
        shown = client.get("/settings").json()
    assert (shown["max_active_runs"], shown["default_effort"], shown["dynamic_rounds"]) == (4, "low", "off")
    assert shown["saved"]["models_by_role"] == {"adjudicator": "offline:offline"}
    page.reload()
    expect(page.locator("#set-default_effort")).to_have_value("low")
    expect(page.locator('[data-role="adjudicator"] td').nth(3)).to_have_text("offline:offline")


def test_a_provider_key_is_entered_shown_by_its_last_four_and_removed(page: Page, served: Served) -> None:
    page.goto("/#/settings")
    row = page.locator('#keys [data-provider="openai"]')
    page.fill("#key-openai", "sk-short")
    row.get_by_role("button", name="Save key").click()
    expect(page.locator("#settings-status")).to_contain_text("key: not a openai API key")
    page.fill("#key-openai", KEY)
    row.get_by_role("button", name="Save key").click()
    expect(row.locator(".key-state")).to_have_text("set, ending LAST")
    expect(page.locator("#key-openai")).to_have_value("")
    assert KEY not in page.content()
    shot(page, "settings-key", "light")
    row.get_by_role("button", name="Remove").click()
    expect(row.locator(".key-state")).to_have_text("not set")
