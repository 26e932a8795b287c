"""Gemini and xAI as named providers: the real `openai` SDK against loopback servers that speak each
vendor's OpenAI-compatible protocol and refuse what the vendor documents refusing."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import openai
import pytest
from pydantic import BaseModel, ConfigDict, SecretStr

from claimcourt.errors import ProviderError
from claimcourt.evidence.golden import GoldenSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.reasoning.base import Task
from claimcourt.reasoning.openai_provider import OpenAIProvider, request_body
from claimcourt.reasoning.vendors import GEMINI, OPENAI, XAI
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps
from tests.fakes.provider_servers import (
    FakeGeminiServer,
    FakeXaiServer,
    openai_json_completion,
    xai_completion,
)
from tests.integration.test_provider_runs import CANNED, HITS, reply_form

pytestmark = pytest.mark.timeout(120)

GEMINI_KEY = "AIzaSy-test-gemini-key-0123456789"
XAI_KEY = "xai-test-key-0123456789"


class Picks(BaseModel):
    model_config = ConfigDict(extra="forbid")
    picks: list[str]


class PicksInput(BaseModel):
    claim: str


def picks_task() -> Task[Picks]:
    return Task(
        kind="decompose",
        role="decomposer",
        inputs=PicksInput(claim="Sea levels are rising"),
        output=Picks,
        system="You split claims.",
        prompt="Name one or two parts.",
        temperature=0.0,
        array_limits={"picks": (1, 2)},
    )


def gemini(server: FakeGeminiServer) -> OpenAIProvider:
    return OpenAIProvider(GEMINI_KEY, base_url=server.url, max_retries=0, vendor=GEMINI)


def xai(server: FakeXaiServer, key: str = XAI_KEY) -> OpenAIProvider:
    return OpenAIProvider(key, base_url=server.url, max_retries=0, vendor=XAI)


def test_gemini_is_asked_in_its_own_dialect_and_its_usage_is_read() -> None:
    with FakeGeminiServer() as server:
        server.enqueue(
            200,
            openai_json_completion(
                {"picks": ["rise"]}, model="models/gemini-2.5-flash", prompt_tokens=900, cached_tokens=600
            ),
        )
        reply = gemini(server).complete(picks_task(), "gemini-2.5-flash")
    [request] = server.requests
    assert request.path == "/v1beta/openai/chat/completions"
    assert request.headers["authorization"] == f"Bearer {GEMINI_KEY}"
    # the token limit under the name Gemini's page shows; the strict schema with the run's list limits
    assert request.body["max_tokens"] == 4096 and "max_completion_tokens" not in request.body
    schema = request.body["response_format"]["json_schema"]
    assert schema["strict"] is True
    assert schema["schema"]["properties"]["picks"] | {} == {
        "type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2,
    }  # fmt: skip
    assert request.body["temperature"] == 0.0
    # the reply's model without Gemini's "models/" prefix (so it is priced); cached tokens apart
    assert reply.content == {"picks": ["rise"]}
    assert (reply.model, reply.input_tokens, reply.cache_read_tokens) == ("gemini-2.5-flash", 300, 600)


def test_xai_is_asked_without_what_grok_refuses_and_billed_for_its_reasoning() -> None:
    with FakeXaiServer(key=XAI_KEY) as server:
        server.enqueue(
            200,
            xai_completion(
                {"picks": ["rise"]},
                model="grok-4-0709",
                prompt_tokens=1000,
                completion_tokens=20,
                reasoning_tokens=300,
                cached_tokens=800,
            ),
        )
        reply = xai(server).complete(picks_task(), "grok-4")
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.body["max_completion_tokens"] == 4096
    properties = request.body["response_format"]["json_schema"]["schema"]["properties"]
    assert properties["picks"] == {"type": "array", "items": {"type": "string"}}  # the limits: checked after
    assert not {"presence_penalty", "frequency_penalty", "stop", "reasoning_effort"} & set(request.body)
    # what grok wrote is its reasoning and its reply: 300 + 20
    assert (reply.model, reply.input_tokens, reply.cache_read_tokens, reply.output_tokens) == (
        "grok-4-0709", 200, 800, 320,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("server_cls", "vendor", "model", "refusal"),
    [
        (FakeGeminiServer, GEMINI, "gemini-2.5-flash", 'Unknown name "max_completion_tokens"'),
        (FakeXaiServer, XAI, "grok-4", "JSON schema keyword minItems is not supported"),
    ],
)
def test_the_servers_refuse_the_request_openai_would_be_sent(
    server_cls: type[FakeGeminiServer | FakeXaiServer], vendor: Any, model: str, refusal: str
) -> None:
    # The vendor's request differs from OpenAI's where the vendor refuses OpenAI's: the loopback
    # servers hold each vendor to it, so a provider that sent OpenAI's request would fail.
    with server_cls(default=answer_by_schema) as server:
        client = openai.OpenAI(api_key=XAI_KEY, base_url=server.url, max_retries=0)
        with pytest.raises(openai.APIStatusError) as refused:
            client.chat.completions.create(**request_body(picks_task(), model, 100, vendor=OPENAI))
        assert refused.value.status_code == 400 and refusal in str(refused.value.body)
        client.chat.completions.create(**request_body(picks_task(), model, 100, vendor=vendor))  # accepted
    assert len(server.requests) == 2


def test_an_unknown_gemini_model_is_a_clear_error() -> None:
    with FakeGeminiServer() as server, pytest.raises(ProviderError) as caught:
        gemini(server).complete(picks_task(), "gemini-9-ultra")
    assert str(caught.value) == (
        "gemini gemini-9-ultra: HTTP 404 NOT_FOUND: models/gemini-9-ultra is not found for API version "
        "v1beta, or is not supported for generateContent. Call ListModels to see the list of available "
        "models and their supported methods."
    )


def test_an_unknown_xai_model_and_a_wrong_key_are_clear_errors_that_keep_the_key_out() -> None:
    with FakeXaiServer(key=XAI_KEY) as server:
        with pytest.raises(ProviderError, match=r"^xai grok-9: HTTP 404 .*The model grok-9 does not exist"):
            xai(server).complete(picks_task(), "grok-9")
        wrong = "xai-wrong-key-ABCDEFGHIJ"
        with pytest.raises(ProviderError) as caught:
            xai(server, wrong).complete(picks_task(), "grok-4")
    assert "Incorrect API key provided: xa***IJ" in str(caught.value)
    assert wrong not in str(caught.value)


def test_a_vendor_without_its_key_is_refused_with_the_variable_named() -> None:
    with pytest.raises(ProviderError, match=r"gemini: an API key \(GEMINI_API_KEY\) is needed"):
        OpenAIProvider(None, base_url="http://127.0.0.1:9/v1beta/openai", vendor=GEMINI)


def test_the_vendors_base_urls_are_preset() -> None:
    assert "generativelanguage.googleapis.com/v1beta/openai/" in repr(OpenAIProvider("k", vendor=GEMINI))
    assert "https://api.x.ai/v1" in repr(OpenAIProvider("k", vendor=XAI))


def answer_by_schema(body: dict[str, Any]) -> dict[str, Any]:
    """A valid reply to any role's request, from the model asked."""
    replies = {"Picks": {"picks": ["rise"]}} | CANNED
    name, wrapped = reply_form(body)
    reply = {"reply": replies[name]} if wrapped else replies[name]
    return openai_json_completion(reply, model=body["model"], prompt_tokens=1000)


def test_a_run_with_one_debater_on_gemini_and_the_other_on_xai(tmp_path: Path) -> None:
    # Given Gemini and xAI keys, base URLs on this machine, and a role setting naming each for a debater
    with (
        FakeGeminiServer(default=answer_by_schema) as gem,
        FakeXaiServer(default=answer_by_schema, key=XAI_KEY) as grok,
    ):
        settings = Settings(
            data_dir=tmp_path,
            provider="offline",
            web_search=False,
            gemini_api_key=SecretStr(GEMINI_KEY),
            gemini_base_url=gem.url,
            xai_api_key=SecretStr(XAI_KEY),
            xai_base_url=grok.url,
            models_by_role={"case_for": "gemini:gemini-2.5-pro", "case_against": "xai:grok-4"},
        )
        deps = dataclasses.replace(build_deps(settings), evidence=GoldenSource(HITS))
        # When a claim is debated over offline evidence
        with LocalRuntime(deps) as runtime:
            run = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}))
            execution = runtime.execute(run.run_id, timeout_s=60)
        record = deps.store.get_run(run.run_id)
    # Then it succeeds, each debater's rounds went to its vendor and the other roles stayed offline
    assert execution.status == "SUCCEEDED", record.error
    assert record.result is not None
    assert record.result.reasoner == "gemini+offline+xai"
    assert [r.body["model"] for r in gem.requests] == ["gemini-2.5-pro"] * 2
    assert [r.body["model"] for r in grok.requests] == ["grok-4"] * 2
    assert all("temperature" not in r.body for r in gem.requests + grok.requests)  # debaters: natural
    # And each call is billed at its vendor's price (1000 in, 30 out each)
    usage = record.result.usage
    assert usage.llm_calls >= 4
    expected = 2 * (1000 * 1.25 + 30 * 10.0) / 1e6 + 2 * (1000 * 3.0 + 30 * 15.0) / 1e6
    assert usage.total_cost_usd == pytest.approx(expected)
