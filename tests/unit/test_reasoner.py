"""The Reasoner: routing per role, ledger replay, the per-run budget and cost from the price table."""

from __future__ import annotations

from dataclasses import replace

import pytest

from claimcourt.debate.suitability import suitability_task
from claimcourt.errors import BudgetExceededError, MalformedReplyError, ProviderError
from claimcourt.models import ArgumentDraft, CallRecord, Suitability, SuitabilityInput
from claimcourt.prompts import Segment
from claimcourt.reasoning.base import CallContext, ReplyTool
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.prices import cost_usd, price_for
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.settings import ROLES, Settings
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.scripted import PRICED_MODEL, Refuse, ScriptedProvider

pytestmark = pytest.mark.usefixtures("clean_env")  # Settings must not see the shell's keys

RUN = "run_reasoner"
TASK = suitability_task(SuitabilityInput(claim="Sea levels are rising"))
CTX = CallContext(RUN, "suitability")
# 1000 input + 200 output tokens of claude-sonnet-4-6 at $3 / $15 per million
ONE_CALL_USD = (1000 * 3.0 + 200 * 15.0) / 1_000_000


def _reasoner(store: SqliteStore, provider: ScriptedProvider, budget_usd: float = 1.0) -> Reasoner:
    return Reasoner(
        {"offline": OfflineReasoner(), provider.name: provider},
        lambda role: (provider.name, PRICED_MODEL),
        store,
        budget_usd,
    )


# ================================================================ routing


def test_each_role_uses_its_configured_provider_and_model() -> None:
    settings = Settings(
        anthropic_api_key="sk-ant-test",
        openai_api_key="sk-test",
        models_by_role={"adjudicator": "openai:gpt-4.1-mini", "moderator": "openai"},
    )
    assert settings.route("adjudicator") == ("openai", "gpt-4.1-mini")
    assert settings.route("moderator") == ("openai", "gpt-4.1")  # no model: the provider's default
    assert settings.route("case_for") == ("anthropic", "claude-sonnet-4-6")


def test_role_whose_provider_has_no_key_falls_back_to_the_default() -> None:
    settings = Settings(anthropic_api_key="sk-ant-test", models_by_role={"adjudicator": "openai:gpt-4.1"})
    assert settings.route("adjudicator") == ("anthropic", "claude-sonnet-4-6")


def test_without_any_key_every_role_is_offline() -> None:
    settings = Settings(models_by_role={"case_for": "anthropic:claude-opus-4-1"})
    assert {settings.route(role) for role in ROLES} == {("offline", "offline")}


def test_openai_compatible_base_url_counts_as_configured() -> None:
    settings = Settings(openai_base_url="http://127.0.0.1:9/v1")
    assert settings.route("decomposer") == ("openai", "gpt-4.1")


def test_calls_go_to_the_provider_and_model_the_router_picks(store: SqliteStore) -> None:
    # Given settings that send suitability to openai and every other role to anthropic
    settings = Settings(
        anthropic_api_key="sk-ant-test",
        openai_api_key="sk-test",
        models_by_role={"suitability": "openai:gpt-4o"},
    )
    anthropic = ScriptedProvider(name="anthropic", model=None)
    openai = ScriptedProvider(name="openai", model=None)
    reasoner = Reasoner(
        {"offline": OfflineReasoner(), "anthropic": anthropic, "openai": openai}, settings.route, store, 1.0
    )
    # When the suitability role is called
    reply = reasoner.call(TASK, CTX)
    # Then openai answered with the routed model and anthropic was not asked
    assert (reply.provider, reply.model) == ("openai", "gpt-4o")
    assert [c.model for c in openai.calls] == ["gpt-4o"]
    assert anthropic.calls == []
    assert reasoner.label(ROLES) == "anthropic+openai"
    assert reasoner.models(ROLES)["suitability"] == "openai:gpt-4o"
    assert reasoner.models(ROLES)["case_for"] == "anthropic:claude-sonnet-4-6"


def test_route_to_an_unconfigured_provider_is_a_provider_error(store: SqliteStore) -> None:
    reasoner = Reasoner({"offline": OfflineReasoner()}, lambda role: ("anthropic", "m"), store, 1.0)
    with pytest.raises(ProviderError, match="anthropic"):
        reasoner.call(TASK, CTX)


# ================================================================ ledger replay


def test_second_call_with_the_same_key_is_replayed_not_repeated(store: SqliteStore) -> None:
    provider = ScriptedProvider()
    reasoner = _reasoner(store, provider)
    first = reasoner.call(TASK, CTX)
    second = reasoner.call(TASK, CTX)
    assert len(provider.calls) == 1
    assert (first.replayed, second.replayed) == (False, True)
    assert second.output == first.output
    assert (second.provider, second.model) == ("scripted", PRICED_MODEL)
    assert len(store.run_calls(RUN)) == 1  # billed once


def test_replayed_refusal_stays_a_refusal(store: SqliteStore) -> None:
    provider = ScriptedProvider().refuse("suitability", "no")
    reasoner = _reasoner(store, provider)
    reasoner.call(TASK, CTX)
    replay = reasoner.call(TASK, CTX)
    assert (replay.output, replay.refusal, replay.replayed) == (None, "no", True)
    assert len(provider.calls) == 1


def test_a_different_suffix_round_or_run_is_a_new_call(store: SqliteStore) -> None:
    provider = ScriptedProvider()
    reasoner = _reasoner(store, provider)
    reasoner.call(TASK, CTX)
    reasoner.call(TASK, CTX, suffix="s1")
    reasoner.call(TASK, CallContext(RUN, "suitability", round=2))
    reasoner.call(TASK, CallContext("run_other", "suitability"))
    assert len(provider.calls) == 4


# ================================================================ budget and cost


def test_cost_is_computed_from_the_price_table(store: SqliteStore) -> None:
    _reasoner(store, ScriptedProvider()).call(TASK, CTX)
    [record] = store.run_calls(RUN)
    assert (record.input_tokens, record.output_tokens) == (1000, 200)
    assert record.cost_usd == pytest.approx(ONE_CALL_USD) == pytest.approx(0.006)
    assert record.price_known is True
    assert store.run_spend(RUN) == pytest.approx(0.006)


def test_unknown_model_costs_nothing_and_says_so(store: SqliteStore) -> None:
    _reasoner(store, ScriptedProvider(model="homegrown-7b")).call(TASK, CTX)
    [record] = store.run_calls(RUN)
    assert (record.cost_usd, record.price_known) == (0.0, False)


def test_dated_snapshot_is_priced_as_its_family() -> None:
    assert price_for("claude-sonnet-4-6-20260101") == (3.0, 15.0)
    assert price_for("gpt-4.1-mini-2025-04-14") == (0.4, 1.6)  # the longest prefix wins over gpt-4.1
    assert cost_usd("gpt-4o", 1_000_000, 1_000_000) == (12.5, True)


def test_run_at_its_budget_is_stopped_before_the_provider_is_called(store: SqliteStore) -> None:
    # Given a run whose ledger already holds its whole budget
    store.put_call(CallRecord(RUN, "earlier", "scripted", PRICED_MODEL, 0, 0, 0.05, True, None, None))
    provider = ScriptedProvider()
    # When another call is made
    with pytest.raises(BudgetExceededError, match=RUN):
        _reasoner(store, provider, budget_usd=0.05).call(TASK, CTX)
    # Then the provider was never asked and nothing more was billed
    assert provider.calls == []
    assert store.run_spend(RUN) == pytest.approx(0.05)


def test_run_below_its_budget_may_call_even_if_the_call_overshoots(store: SqliteStore) -> None:
    provider = ScriptedProvider()
    reasoner = _reasoner(store, provider, budget_usd=0.01)
    reasoner.call(TASK, CTX, suffix="1")  # 0.006 spent
    reasoner.call(TASK, CTX, suffix="2")  # 0.012 spent: over, but it started under
    with pytest.raises(BudgetExceededError):
        reasoner.call(TASK, CTX, suffix="3")
    assert len(provider.calls) == 2


def test_budget_is_per_run(store: SqliteStore) -> None:
    store.put_call(CallRecord("run_spent", "k", "scripted", PRICED_MODEL, 0, 0, 5.0, True, None, None))
    assert _reasoner(store, ScriptedProvider(), budget_usd=1.0).call(TASK, CTX).output is not None


def test_replay_is_free_even_over_budget(store: SqliteStore) -> None:
    provider = ScriptedProvider()
    reasoner = _reasoner(store, provider, budget_usd=0.006)
    reasoner.call(TASK, CTX)  # spends the whole budget
    assert reasoner.call(TASK, CTX).replayed is True


# ================================================================ malformed replies and refusals


def test_malformed_reply_is_retried_once_with_the_validation_error(store: SqliteStore) -> None:
    provider = ScriptedProvider().queue("suitability", {"proceed": "perhaps"}, Suitability(proceed=True))
    reply = _reasoner(store, provider).call(TASK, CTX)
    assert reply.output == Suitability(proceed=True)
    first, second = provider.calls
    assert first.feedback is None
    assert second.feedback is not None and "proceed" in second.feedback
    [record] = store.run_calls(RUN)
    assert (record.input_tokens, record.output_tokens) == (2000, 400)  # both attempts billed


def test_non_json_text_is_retried_like_a_schema_error(store: SqliteStore) -> None:
    provider = ScriptedProvider().queue("suitability", "Sure! Here is my answer", Suitability(proceed=True))
    assert _reasoner(store, provider).call(TASK, CTX).output == Suitability(proceed=True)
    assert provider.calls[1].feedback is not None


def test_two_malformed_replies_raise_and_are_still_billed(store: SqliteStore) -> None:
    provider = ScriptedProvider().queue("suitability", {"nope": 1}, {"nope": 2})
    with pytest.raises(MalformedReplyError):
        _reasoner(store, provider).call(TASK, CTX)
    [record] = store.run_calls(RUN)
    assert record.call_key.endswith("!malformed")
    assert record.cost_usd == pytest.approx(2 * ONE_CALL_USD)


def test_refusal_is_data_not_an_exception(store: SqliteStore) -> None:
    provider = ScriptedProvider().queue("suitability", Refuse("against policy"))
    reply = _reasoner(store, provider).call(TASK, CTX)
    assert (reply.output, reply.refusal, reply.replayed) == (None, "against policy", False)
    assert len(provider.calls) == 1  # a refusal is not retried


def test_provider_exceptions_propagate_and_nothing_is_billed(store: SqliteStore) -> None:
    provider = ScriptedProvider().fail("suitability", ProviderError("bad key"))
    with pytest.raises(ProviderError, match="bad key"):
        _reasoner(store, provider).call(TASK, CTX)
    assert store.run_calls(RUN) == []


# ================================================================ a task's shared opening


def test_a_task_sends_its_shared_opening_before_its_own_system_text_and_names_its_tool() -> None:
    shared = (Segment("rules\n\n", cache=True), Segment("the case\n\n"), Segment("the pool\n\n", cache=True))
    task = replace(TASK, shared=shared)
    assert task.system_text == "rules\n\nthe case\n\nthe pool\n\n" + TASK.system
    # the run's tools must include the task's own, by its kind and reply model
    with pytest.raises(ValueError, match="its reply tool is not among the run's tools"):
        replace(TASK, tools=(ReplyTool("argue", ArgumentDraft),))
    assert replace(TASK, tools=(ReplyTool("suitability", Suitability),)).tools
    # and a provider takes at most four breakpoints a request
    with pytest.raises(ValueError, match="5 cache breakpoints, at most 4"):
        replace(TASK, shared=shared * 2, cache_prompt=True)


def test_a_tier_word_after_a_known_name_is_another_model_not_a_variant() -> None:
    assert price_for("gpt-5-pro") is None  # not gpt-5's rate: about 12× it
    assert price_for("gpt-5-pro-2025-10-06") is None
    assert price_for("gpt-5-2025-08-07") == price_for("gpt-5")  # a dated snapshot is still gpt-5
    assert price_for("gemini-2.5-pro") == (1.25, 10.0)  # a known name that ends in a tier word is itself
