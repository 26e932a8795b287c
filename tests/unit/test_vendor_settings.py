"""gemini: and xai: in settings, line-ups and the price table."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import SecretStr, ValidationError

from claimcourt.errors import InvalidRequestError
from claimcourt.models import MotionRequest
from claimcourt.reasoning.prices import cost_usd, price_for
from claimcourt.settings import SECRET_KEYS, Settings

pytestmark = pytest.mark.usefixtures("clean_env")


def test_a_role_setting_routes_to_gemini_and_xai_when_their_keys_are_set(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path,
        gemini_api_key=SecretStr("g"),
        xai_api_key=SecretStr("x"),
        models_by_role={"case_for": "gemini:gemini-2.5-pro", "judge": "xai:"},
    )
    assert settings.problems() == []
    assert settings.route("case_for") == ("gemini", "gemini-2.5-pro")
    assert settings.route("judge") == ("xai", "grok-4")  # an empty model is the vendor's default
    assert settings.default_provider() == "gemini"  # the first key present, after Anthropic's and OpenAI's
    assert settings.route("hindsight") == ("gemini", "gemini-2.5-flash-lite")


def test_a_line_up_naming_a_vendor_without_its_key_is_refused_naming_the_variable(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, xai_api_key=SecretStr("x"))
    settings.check_lineup({"judge": "xai:grok-4"})
    with pytest.raises(
        InvalidRequestError, match=r"lineup\.crowd: no key is set for gemini \(GEMINI_API_KEY\)"
    ):
        settings.check_lineup({"crowd": "gemini:gemini-2.5-flash"})
    # a base URL alone is not a key: the vendor needs one
    assert not Settings(data_dir=tmp_path, gemini_base_url="http://127.0.0.1:9").has_key("gemini")


def test_a_role_setting_naming_an_unknown_provider_is_a_problem(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, models_by_role={"case_for": "gemni:gemini-2.5-pro"})
    assert settings.problems() == [
        "CLAIMCOURT_MODELS_BY_ROLE[case_for] must be provider:model, got 'gemni:gemini-2.5-pro'"
    ]


def test_a_motion_line_up_accepts_the_vendors_and_refuses_an_unknown_one() -> None:
    request = MotionRequest(
        motion="Resolved: x.", lineup={"judge": "gemini:gemini-2.5-pro", "crowd": "xai:grok-4"}
    )
    assert request.lineup["crowd"] == "xai:grok-4"
    with pytest.raises(ValidationError, match=r"lineup\.judge"):
        MotionRequest(motion="Resolved: x.", lineup={"judge": "grok:grok-4"})


def test_the_provider_keys_secret_holds_the_vendors_keys() -> None:
    assert SECRET_KEYS["GEMINI_API_KEY"] == "gemini_api_key"
    assert SECRET_KEYS["XAI_API_KEY"] == "xai_api_key"


def test_the_vendors_models_are_priced_with_their_cached_rates() -> None:
    assert price_for("gemini-2.5-flash-lite") == (0.10, 0.40)  # not gemini-2.5-flash's
    assert price_for("grok-4-0709") == (3.0, 15.0)
    assert price_for("grok-4-fast-reasoning") == (0.20, 0.50)  # not grok-4's
    assert price_for("grok-4.3") is None  # another version, not a grok-4 snapshot: unknown, and said so
    # 1M fresh input, 1M cached, 1M output
    assert cost_usd("gemini-2.5-pro", 10**6, 10**6, 10**6) == (pytest.approx(1.25 + 10.0 + 0.125), True)
    assert cost_usd("grok-4", 10**6, 10**6, 10**6) == (pytest.approx(3.0 + 15.0 + 0.75), True)
