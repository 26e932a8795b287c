"""Settings: role routing, key fallback and the errors a bad configuration gives."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from claimcourt.settings import Settings

pytestmark = pytest.mark.usefixtures("clean_env")


def test_no_key_means_the_offline_reasoner_for_every_role() -> None:
    assert Settings().route("adjudicator") == ("offline", "offline")


def test_an_anthropic_key_routes_every_role_to_claude() -> None:
    s = Settings(anthropic_api_key=SecretStr("k"))
    assert s.route("case_for") == ("anthropic", s.anthropic_model)


def test_a_role_model_whose_provider_has_no_key_falls_back_to_the_default() -> None:
    s = Settings(anthropic_api_key=SecretStr("k"), models_by_role={"moderator": "openai:gpt-4.1"})
    assert s.route("moderator") == ("anthropic", s.anthropic_model)


def test_a_role_model_with_a_key_is_used() -> None:
    s = Settings(openai_base_url="http://127.0.0.1:9/v1", models_by_role={"adjudicator": "openai:gpt-4o"})
    assert s.route("adjudicator") == ("openai", "gpt-4o")
    assert s.route("case_for") == ("openai", s.openai_model)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"provider": "anthropic"}, "no key"),
        ({"models_by_role": {"referee": "openai:gpt-4o"}}, "unknown role"),
        ({"models_by_role": {"moderator": "gpt-4o"}}, "provider:model"),
    ],
)
def test_a_bad_configuration_names_its_problem(kwargs: dict[str, object], message: str) -> None:
    [problem] = Settings(**kwargs).problems()  # type: ignore[arg-type]
    assert message in problem


def test_a_bad_configuration_fails_at_the_first_model_call_not_at_cold_start() -> None:
    # A deployed function must start even so: its run then fails with the reason, it does not hang.
    from claimcourt.errors import ConfigurationError
    from claimcourt.wiring import LazyProviders

    providers = LazyProviders(Settings(provider="anthropic"))
    with pytest.raises(ConfigurationError, match="no key"):
        providers.get("anthropic")


def test_without_web_search_or_the_corpus_library_there_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    from claimcourt.errors import ConfigurationError
    from claimcourt.wiring import build_evidence

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "bm25s" else real(name))
    with pytest.raises(ConfigurationError, match="no evidence source: put an Anthropic or OpenAI key"):
        build_evidence(Settings())
