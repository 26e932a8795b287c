"""The Settings page in Chromium against `claimcourt serve`: settings edited and saved (a bad one
refused naming its field), a field the server's environment sets shown locked with the reason, a
provider key entered (shown only as its last four) and removed, all with the operator's key; a tenant's
key shown the settings read-only, without the SearXNG address or the keys; screenshots in
build/screenshots/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import checked_page
from tests.e2e.console import Served, new_context, serve
from tests.e2e.test_console import shot

pytestmark = pytest.mark.timeout(240)
KEY = "sk-proj-" + "k3y" * 10 + "LAST"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # The environment sets the budget: the page shows it locked.
    with serve(tmp_path_factory.mktemp("settings"), CLAIMCOURT_BUDGET_USD="3") as running:
        yield running


@pytest.fixture
def page(browser: Browser, served: Served) -> Iterator[Page]:
    """The operator's: only it edits the settings, which every tenant's runs use."""
    with checked_page(new_context(browser, served, operator=True)) as page:
        yield page


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
    with served.client() as client:  # a tenant's key reads what the operator saved
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


def test_a_tenants_key_is_shown_the_settings_read_only(browser: Browser, served: Served) -> None:
    """Review finding 3: the settings and provider keys are the whole server's. A tenant's key reads them,
    every control disabled and no Save, told why and who may change them; the SearXNG address and the
    keys are not shown to it."""
    with served.client() as client:
        assert client.put("/settings", json={"budget_usd": 1}).status_code == 403
    with checked_page(new_context(browser, served)) as page:
        page.goto("/#/settings")
        notice = page.locator("#read-only")
        expect(notice).to_contain_text("Read-only.")
        expect(notice).to_contain_text("claimcourt keys create --admin")
        expect(page.locator("main h1 + p")).to_contain_text("Tenant acme.")
        expect(page.locator("#save-settings")).to_have_count(0)
        controls = page.locator("#settings-form :is(input, select)")
        assert controls.count() > 10
        assert controls.evaluate_all("els => els.filter((e) => !e.disabled).map((e) => e.name)") == []
        expect(page.locator("#set-searxng_url")).to_have_attribute("placeholder", "not shown to this key")
        expect(page.locator("#keys")).to_contain_text("Provider keys are the operator's")
        expect(page.locator("#keys input")).to_have_count(0)
        shot(page, "settings-read-only", "light")
