"""In the cloud the provider keys come from Secrets Manager at cold start, never from the environment."""

from __future__ import annotations

import json
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from claimcourt.errors import InvalidRequestError
from claimcourt.settings import load_settings

pytestmark = pytest.mark.usefixtures("clean_env")


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with mock_aws():
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        arn = boto3.client("secretsmanager", region_name="us-east-1").create_secret(
            Name="claimcourt/test/provider-keys", SecretString=json.dumps({"ANTHROPIC_API_KEY": "sk-ant-x"})
        )["ARN"]
        monkeypatch.setenv("CLAIMCOURT_PROVIDER_KEYS_SECRET", arn)
        load_settings.cache_clear()
        yield arn
        load_settings.cache_clear()


def test_keys_in_the_secret_route_roles_to_their_provider(secret: str) -> None:
    settings = load_settings()
    assert settings.anthropic_api_key is not None
    assert settings.anthropic_api_key.get_secret_value() == "sk-ant-x"
    assert settings.route("adjudicator")[0] == "anthropic"
    assert "sk-ant-x" not in repr(settings)  # a SecretStr never prints


def test_a_forced_provider_is_satisfied_by_a_key_from_the_secret(
    secret: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_PROVIDER", "anthropic")
    assert load_settings().default_provider() == "anthropic"


def test_a_secret_that_is_not_a_json_object_is_a_clear_error(secret: str) -> None:
    boto3.client("secretsmanager", region_name="us-east-1").put_secret_value(
        SecretId=secret, SecretString="[]"
    )
    with pytest.raises(ValueError, match="must hold a JSON object"):
        load_settings()


def test_no_secret_named_means_no_keys() -> None:
    load_settings.cache_clear()
    try:
        assert load_settings().route("case_for") == ("offline", "offline")
    finally:
        load_settings.cache_clear()


def test_a_function_that_reads_no_keys_does_not_judge_a_line_up_by_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lineup = {"judge": "anthropic:claude-opus-4-1"}
    load_settings.cache_clear()
    try:
        with pytest.raises(InvalidRequestError, match="no key or base URL is set for anthropic"):
            load_settings().check_lineup(lineup)  # the laptop: its keys are its environment's
        # the deployed API (template.yaml: CLAIMCOURT_PROVIDER_KEYS_SECRET ""): the stages hold the keys
        monkeypatch.setenv("CLAIMCOURT_PROVIDER_KEYS_SECRET", "")
        load_settings.cache_clear()
        assert load_settings().provider_keys_known is False
        load_settings().check_lineup(lineup)
    finally:
        load_settings.cache_clear()


def test_keys_from_the_secret_are_known(secret: str) -> None:
    assert load_settings().provider_keys_known is True
    load_settings().check_lineup({"judge": "anthropic:claude-opus-4-1"})
    with pytest.raises(InvalidRequestError, match=r"lineup\.crowd: no key or base URL is set for openai"):
        load_settings().check_lineup({"crowd": "openai:gpt-4o-mini"})
