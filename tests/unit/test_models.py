"""RunRequest validation at the boundary: every bad request names its field; good ones are normalised."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from claimcourt.errors import InvalidRequestError
from claimcourt.models import MAX_CLAIM_CHARS, RunRequest
from claimcourt.runs import parse_request


def _field_of(raw: dict[str, Any]) -> str:
    with pytest.raises(InvalidRequestError) as caught:
        parse_request(raw)
    return caught.value.field


@pytest.mark.parametrize("claim", ["", "   ", "\n\t \n"])
def test_empty_or_blank_claim_is_rejected_naming_claim(claim: str) -> None:
    assert _field_of({"claim": claim}) == "claim"


def test_claim_over_the_limit_is_rejected_with_its_length() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_request({"claim": "x" * (MAX_CLAIM_CHARS + 1)})
    assert caught.value.field == "claim"
    assert str(MAX_CLAIM_CHARS + 1) in caught.value.message


def test_claim_at_the_limit_is_accepted() -> None:
    assert len(parse_request({"claim": "x" * MAX_CLAIM_CHARS}).claim) == MAX_CLAIM_CHARS


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\x7f"])
def test_control_character_in_claim_is_rejected(char: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_request({"claim": f"Sea levels{char} are rising"})
    assert caught.value.field == "claim"
    assert "control character" in caught.value.message


def test_control_character_in_context_is_rejected_naming_context() -> None:
    assert _field_of({"claim": "Sea levels are rising", "context": "bad\x00byte"}) == "context"


def test_future_as_of_date_is_rejected() -> None:
    tomorrow = datetime.now(UTC).date() + timedelta(days=1)
    with pytest.raises(InvalidRequestError) as caught:
        parse_request({"claim": "Sea levels are rising", "as_of_date": tomorrow.isoformat()})
    assert caught.value.field == "as_of_date"
    assert "future" in caught.value.message


@pytest.mark.parametrize("value", ["2024-13-01", "yesterday", "2024/01/01", "2024-02-30"])
def test_malformed_as_of_date_is_rejected(value: str) -> None:
    assert _field_of({"claim": "Sea levels are rising", "as_of_date": value}) == "as_of_date"


def test_past_as_of_date_is_parsed() -> None:
    request = parse_request({"claim": "Sea levels are rising", "as_of_date": "2020-01-31"})
    assert request.as_of_date == date(2020, 1, 31)


@pytest.mark.parametrize(("field", "value"), [("mode", "verbose"), ("effort", "extreme")])
def test_unknown_mode_or_effort_is_rejected_naming_it(field: str, value: str) -> None:
    assert _field_of({"claim": "Sea levels are rising", field: value}) == field


def test_unknown_field_is_rejected_naming_it() -> None:
    assert _field_of({"claim": "Sea levels are rising", "temperature": 2}) == "temperature"


def test_missing_claim_is_rejected_naming_claim() -> None:
    assert _field_of({"mode": "verdict"}) == "claim"


def test_claim_is_stripped_and_inner_line_breaks_and_tabs_collapse_to_single_spaces() -> None:
    request = parse_request({"claim": "  Sea levels\n\n are\trising  "})
    assert request.claim == "Sea levels are rising"


def test_defaults_are_spectral_standard_without_context_or_date() -> None:
    request = parse_request({"claim": "Sea levels are rising"})
    assert request == RunRequest(claim="Sea levels are rising", mode="spectral", effort="standard")
    assert request.context is None and request.as_of_date is None


def test_blank_context_becomes_none_and_context_is_stripped() -> None:
    assert parse_request({"claim": "Sea levels are rising", "context": "   "}).context is None
    assert parse_request({"claim": "Sea levels are rising", "context": " ctx \n"}).context == "ctx"


def test_runs_of_spaces_collapse_like_other_whitespace() -> None:
    assert parse_request({"claim": "Sea  levels   are rising"}).claim == "Sea levels are rising"


def test_windows_line_breaks_are_whitespace_not_control_characters() -> None:
    assert parse_request({"claim": "Sea levels\r\nare rising"}).claim == "Sea levels are rising"
