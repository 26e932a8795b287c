"""CLAIMCOURT_SEARCH: which web search finds a run's evidence, by default the first configured; a
bad value or a search without what it needs is a clear error before anything runs."""

from __future__ import annotations

import re
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError

from claimcourt.errors import ConfigurationError
from claimcourt.settings import Settings
from claimcourt.wiring import build_evidence

pytestmark = pytest.mark.usefixtures("clean_env")

ANTHROPIC = {"anthropic_api_key": SecretStr("sk-ant-k")}
OPENAI = {"openai_api_key": SecretStr("sk-k")}
SEARXNG = {"searxng_url": "http://127.0.0.1:8888/"}


@pytest.mark.parametrize(
    ("configured", "served"),
    [
        ({}, "none"),
        (ANTHROPIC, "anthropic"),
        (ANTHROPIC | OPENAI | SEARXNG, "anthropic"),
        (OPENAI, "openai"),
        (OPENAI | SEARXNG, "openai"),
        (SEARXNG, "searxng"),
        # a compatible server behind OPENAI_BASE_URL has no hosted web search: not chosen by default
        (OPENAI | {"openai_base_url": "http://127.0.0.1:8000/v1"}, "none"),
        (OPENAI | {"openai_base_url": "http://127.0.0.1:8000/v1"} | SEARXNG, "searxng"),
        (OPENAI | {"openai_base_url": "https://api.openai.com/v1"}, "openai"),
        # OpenAI's search only when OpenAI is the provider: a key beside a forced Anthropic provider is not
        (OPENAI | ANTHROPIC | {"provider": "anthropic"}, "anthropic"),
        # the offline provider pays for nothing: no paid search by default, SearXNG still
        (ANTHROPIC | OPENAI | {"provider": "offline"}, "none"),
        (ANTHROPIC | SEARXNG | {"provider": "offline"}, "searxng"),
        # the master switch
        (ANTHROPIC | SEARXNG | {"web_search": False}, "none"),
        (SEARXNG | {"web_search": False, "search": "searxng"}, "none"),
    ],
)
def test_the_default_search_is_the_first_configured(configured: dict[str, Any], served: str) -> None:
    assert Settings(**configured).web_search_source() == served


@pytest.mark.parametrize(
    ("configured", "served"),
    [
        (ANTHROPIC | OPENAI | SEARXNG | {"search": "searxng"}, "searxng"),
        (ANTHROPIC | OPENAI | {"search": "openai"}, "openai"),
        (ANTHROPIC | {"search": "none"}, "none"),
        (SEARXNG | {"provider": "offline", "search": "searxng"}, "searxng"),
        # named explicitly, OpenAI's search may go through a gateway at OPENAI_BASE_URL
        ({"openai_base_url": "http://127.0.0.1:8000/v1", "search": "openai"}, "openai"),
    ],
)
def test_claimcourt_search_chooses_explicitly(configured: dict[str, Any], served: str) -> None:
    settings = Settings(**configured)
    assert settings.web_search_source() == served
    assert settings.problems() == []


def test_the_search_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAIMCOURT_SEARCH", "searxng")
    monkeypatch.setenv("CLAIMCOURT_SEARXNG_URL", "http://searx.internal:8080/")
    settings = Settings()
    assert (settings.web_search_source(), settings.searxng_url) == ("searxng", "http://searx.internal:8080")


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("CLAIMCOURT_SEARCH", "bing", "CLAIMCOURT_SEARCH='bing': choose anthropic, openai, searxng or none"),
        ("CLAIMCOURT_SEARCH", "OpenAI", "CLAIMCOURT_SEARCH='OpenAI': choose"),
        ("CLAIMCOURT_SEARXNG_URL", "searx.local:8080", "give the instance as http(s)://host[:port]"),
        ("CLAIMCOURT_SEARXNG_URL", "ftp://searx.local", "give the instance as http(s)://host[:port]"),
    ],
)
def test_a_bad_value_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError, match=re.escape(message)):
        Settings()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://admin:hunter2@searx.internal:8888", "holds a user name or password (user:pass@host)"),
        ("https://hunter2@searx.internal", "holds a user name or password"),
        ("http://searx.internal:8888/?token=hunter2", "holds a query or fragment"),
        ("http://searx.internal:8888/#hunter2", "holds a query or fragment"),
    ],
)
def test_a_searxng_url_with_credentials_is_refused_without_repeating_them(
    monkeypatch: pytest.MonkeyPatch, url: str, message: str
) -> None:
    """The URL is shown in a run's error, the logs and GET /settings: a password in it would go too."""
    monkeypatch.setenv("CLAIMCOURT_SEARXNG_URL", url)
    with pytest.raises(ValidationError) as refused:
        Settings()
    [error] = refused.value.errors()
    assert message in error["msg"] and "hunter2" not in error["msg"]
    assert (
        Settings(searxng_url="http://searx.internal:8888/searxng").searxng_url is not None
    )  # a path is fine


@pytest.mark.parametrize(
    ("configured", "problem"),
    [
        ({"search": "anthropic"}, "CLAIMCOURT_SEARCH=anthropic but ANTHROPIC_API_KEY is not set"),
        (
            {"search": "openai"},
            "CLAIMCOURT_SEARCH=openai but neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
        ),
        ({"search": "searxng"}, "CLAIMCOURT_SEARCH=searxng but CLAIMCOURT_SEARXNG_URL is not set"),
    ],
)
def test_a_named_search_without_what_it_needs_is_a_problem_and_builds_no_source(
    configured: dict[str, Any], problem: str
) -> None:
    settings = Settings(**configured)
    assert settings.problems() == [problem]
    with pytest.raises(ConfigurationError, match=problem):
        build_evidence(settings)


def test_where_the_keys_are_not_known_the_search_is_what_is_named_or_not_known() -> None:
    assert Settings(provider_keys_known=False).web_search_source() is None
    assert Settings(provider_keys_known=False, search="openai").web_search_source() == "openai"
    assert Settings(provider_keys_known=False, search="openai").problems() == []  # the stages will tell


@pytest.mark.parametrize(
    ("configured", "paid"),
    [
        (OPENAI | {"provider": "offline", "search": "openai"}, True),
        (SEARXNG | {"provider": "offline"}, False),
    ],
)
def test_a_run_may_spend_when_its_search_is_paid_for(configured: dict[str, Any], paid: bool) -> None:
    assert Settings(**configured).may_spend() is paid


@pytest.mark.parametrize(
    ("configured", "built"),
    [
        (OPENAI, "OpenAIWebSearch"),
        (SEARXNG, "SearxngSearch"),
        (ANTHROPIC, "AnthropicWebSearch"),
        (ANTHROPIC | {"search": "none"}, "CorpusSource"),
    ],
)
def test_the_chosen_search_is_the_evidence_source_built(
    configured: dict[str, Any], built: str, tmp_path: Any
) -> None:
    assert type(build_evidence(Settings(data_dir=tmp_path, **configured))).__name__ == built
