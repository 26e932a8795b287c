"""A panel of judges (adjudication/panel.py, the request's `judges`): which judgement speaks for the run,
the spread, and what is refused before anything is stored. Pure: no run, no I/O."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import SecretStr

from claimcourt.adjudication.panel import JUDGE_TOKENS, check, estimate, members, speaker, spread
from claimcourt.errors import InvalidRequestError
from claimcourt.models import MAX_JUDGES, MonitorRequest, RunRequest
from claimcourt.rejudge import parse_judge
from claimcourt.runs import parse_request
from claimcourt.settings import Settings

CLAIM = "Sea levels are rising"
pytestmark = pytest.mark.usefixtures("clean_env")


def _request(judges: list[str], **fields: Any) -> RunRequest:
    return parse_request({"claim": CLAIM, "judges": judges, **fields})


# ---------------------------------------------------------------- who speaks for the run


@pytest.mark.parametrize(
    ("scores", "expected", "said"),
    [
        ([64], 0, "the only judgement"),
        ([82, 20, 55], 2, "the median of 3 scores (55)"),
        ([70, 30, 90, 70, 10], 0, "the median of 5 scores (70)"),  # 70 twice: the judge named first
        ([82, 20], 1, "of two scores (20, 82), the one nearer 50"),  # 20 is 30 from 50, 82 is 32
        ([40, 60], 0, "of two scores (40, 60), equally near 50, the judge named first"),
        ([60, 40], 0, "of two scores (40, 60), equally near 50, the judge named first"),
        ([90, 30, 66, 10], 2, "of the middle two of 4 scores (30, 66), the one nearer 50"),
        ([55, 55, 90, 10], 0, "of the middle two of 4 scores (55, 55), the one nearer 50"),
    ],
)
def test_the_median_speaks_and_an_even_panel_takes_the_middle_score_nearer_50(
    scores: list[int], expected: int, said: str
) -> None:
    assert speaker(scores) == (expected, said)


def test_the_spread_is_max_minus_min_and_the_population_sd() -> None:
    assert spread([82, 20, 55]) == (62, 25.4)  # mean 52.33; sqrt(((29.67)² + (32.33)² + (2.67)²)/3)
    assert spread([70, 70]) == (0, 0.0)
    assert spread([64]) == (None, None)
    assert spread([]) == (None, None)


# ---------------------------------------------------------------- refused by the request itself


@pytest.mark.parametrize(
    ("judges", "message"),
    [
        (["openai gpt-4.1"], "is not provider[:model][+rubric|+contract]"),
        (["openai:gpt-4.1+strict"], "is not provider[:model][+rubric|+contract]"),
        (["mistral:large"], "names an unknown provider 'mistral'; providers: anthropic, openai"),
        (["offline", "offline"], "'offline' is named twice: name each judge once"),
        (["offline", "offline+contract"], "'offline+contract' is the same judge as 'offline'"),
        (["offline"] * (MAX_JUDGES + 1), f"a panel has at most {MAX_JUDGES} judges"),
        ([""], "is not provider[:model]"),
        (["offline\ud800"], "lone surrogate"),
    ],
)
def test_a_malformed_panel_is_refused_naming_judges(judges: list[str], message: str) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        _request(judges)
    assert refused.value.field.split(".")[0] == "judges"  # a lone surrogate: the item, `judges.0`
    assert message in refused.value.message


def test_a_judge_is_of_the_requests_kind_unless_its_suffix_names_one() -> None:
    # the same model twice is two judges when one judges by the rubric
    request = _request(["offline", "offline+rubric", "openai:gpt-4.1"], judge="contract")
    settings = Settings(openai_api_key=SecretStr("sk-test"))
    assert [(m.model_name, m.kind) for m in members(request, settings)] == [
        ("offline:offline", "contract"),
        ("offline:offline", "rubric"),
        ("openai:gpt-4.1", "contract"),
    ]
    rubric = _request(["offline", "offline+contract"], judge="rubric")
    assert [m.kind for m in members(rubric, settings)] == ["rubric", "contract"]
    # a provider alone is its default model, as a re-judgement's is
    assert members(_request(["anthropic"]), Settings())[0].model_name == "anthropic:claude-sonnet-4-6"


def test_a_monitor_keeps_its_panel_for_every_run_it_starts() -> None:
    monitor = MonitorRequest(claim=CLAIM, cadence="daily", threshold=5, judges=["offline", "offline+rubric"])
    assert monitor.run_request().judges == ["offline", "offline+rubric"]


# ---------------------------------------------------------------- refused where the settings are known


def test_a_provider_without_a_key_is_refused_naming_judges() -> None:
    with pytest.raises(InvalidRequestError) as refused:
        check(Settings(), _request(["offline", "openai:gpt-4.1"]))
    assert refused.value.field == "judges"
    assert refused.value.message == "'openai:gpt-4.1': no key or base URL is set for openai"
    with pytest.raises(InvalidRequestError, match="'xai': no key is set for xai"):
        check(Settings(), _request(["xai"]))
    # where the keys are not known (the deployed API holds none), the judge's call is where it fails
    assert check(Settings(provider_keys_known=False), _request(["openai:gpt-4.1"])) is not None


def test_the_same_judge_twice_once_the_default_model_is_resolved_is_refused() -> None:
    settings = Settings(openai_api_key=SecretStr("sk-test"))
    with pytest.raises(InvalidRequestError) as refused:
        check(settings, _request(["openai", "openai:gpt-4.1"]))
    assert refused.value.message == (
        "'openai:gpt-4.1' is the same judge as 'openai' (openai:gpt-4.1): name each once"
    )
    with pytest.raises(InvalidRequestError, match="same judge as 'offline'"):
        check(settings, _request(["offline", "offline:offline"]))


def test_judging_estimated_over_the_runs_budget_is_refused_before_the_run() -> None:
    keyed = Settings(anthropic_api_key=SecretStr("sk-ant"), openai_api_key=SecretStr("sk"), budget_usd=0.5)
    panel = ["anthropic:claude-opus-4-1", "anthropic:claude-sonnet-4-6", "openai:gpt-4.1"]
    # each judge one call at the effort's size, at its model's price: Opus 4.1 $15/$75, Sonnet $3/$15,
    # gpt-4.1 $2/$8 per million tokens in/out
    tokens_in, tokens_out = JUDGE_TOKENS["high"]
    expected = sum(tokens_in * i / 1e6 + tokens_out * o / 1e6 for i, o in ((15, 75), (3, 15), (2, 8)))
    assert estimate(members(_request(panel), keyed), "high").total_usd == pytest.approx(expected)
    with pytest.raises(InvalidRequestError) as refused:
        check(keyed, _request(panel, effort="high"))
    assert refused.value.field == "judges"
    assert f"estimated to cost ${expected:.2f}" in refused.value.message
    assert "more than the run's whole budget of $0.50 (CLAIMCOURT_BUDGET_USD)" in refused.value.message
    # at effort low the same panel fits, and the estimate says what judging will cost
    fits = check(keyed, _request(panel, effort="low"))
    assert fits is not None and 0 < fits.total_usd < 0.5
    assert fits.line().startswith("3 judges (anthropic:claude-opus-4-1, anthropic:claude-sonnet-4-6, openai")


def test_offline_judges_cost_nothing_and_an_unpriced_model_is_said() -> None:
    settings = Settings(openai_api_key=SecretStr("sk"), openai_base_url="http://127.0.0.1:9/v1")
    found = check(settings, _request(["offline", "offline+rubric", "openai:my-local-model"]))
    assert found is not None and found.total_usd == 0
    assert found.unpriced == ["openai:my-local-model"]
    assert "(no price known for openai:my-local-model)" in found.line()
    assert check(settings, _request([])) is None


def test_a_paid_judge_makes_an_offline_run_count_against_the_hourly_cap() -> None:
    offline = Settings(provider="offline", web_search=False, openai_api_key=SecretStr("sk"))
    assert not offline.may_spend()
    assert not offline.may_spend(judges=["offline", "offline+rubric"])
    assert offline.may_spend(judges=["offline", "openai:gpt-4.1+rubric"])
    assert offline.may_spend(judges=["openai+rubric"])


def test_a_judge_with_no_known_price_is_refused_unless_the_operator_runs_its_server() -> None:
    # a model the price table does not know would be counted at $0 by every budget check: whoever holds
    # a key could have it judge at the operator's expense, with nothing holding the spend
    vendor = Settings(openai_api_key=SecretStr("sk"))
    for spec in ("openai:o1", "openai:gpt-5-pro"):  # gpt-5-pro is not gpt-5 (about 12× its price)
        with pytest.raises(InvalidRequestError) as refused:
            check(vendor, _request(["offline", spec]))
        assert refused.value.field == "judges" and "no price is known for" in str(refused.value)
    assert check(vendor, _request(["openai:gpt-5", "offline"])) is not None  # priced: accepted
    # an OpenAI-compatible server the operator runs (OPENAI_BASE_URL) prices its own models
    own = Settings(openai_api_key=SecretStr("sk"), openai_base_url="http://127.0.0.1:9/v1")
    assert check(own, _request(["openai:o1", "offline"])) is not None
    # re-judging names its judges the same way, and is refused the same way
    with pytest.raises(InvalidRequestError, match="no price is known for openai:o1"):
        parse_judge("openai:o1", vendor)
