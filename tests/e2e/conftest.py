"""The browser tests' shared fixtures: one Chromium a module, and a page of the module's `served`
console with its key, which fails the test on a script error or a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright

from tests.e2e.console import Served, chromium_path, new_context


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
    yield browser
    browser.close()


@pytest.fixture
def page(browser: Browser, served: Served) -> Iterator[Page]:
    with checked_page(new_context(browser, served)) as page:
        yield page


@contextmanager
def checked_page(context: BrowserContext) -> Iterator[Page]:
    """A page of `context` (closed after) that fails the test on a script error or a 5xx."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    # a 5xx is a bug on the server's side, whether or not the page recovers from it
    page.on(
        "response",
        lambda r: errors.append(f"{r.status} {r.request.method} {r.url}") if r.status >= 500 else None,
    )
    yield page
    context.close()
    assert errors == [], errors
