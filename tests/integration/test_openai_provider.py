"""OpenAIProvider: the real `openai` SDK against a fake Chat Completions API on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel, ConfigDict, Field

from claimcourt.errors import MalformedReplyError, ProviderError, TransientError, TruncatedReplyError
from claimcourt.models import CallRecord
from claimcourt.reasoning.base import CallContext, Task, without_titles
from claimcourt.reasoning.openai_provider import PLACEHOLDER_KEY, OpenAIProvider
from claimcourt.reasoning.reasoner import Reasoner
from tests.fakes.provider_servers import (
    FakeOpenAIServer,
    openai_completion,
    openai_error,
    openai_json_completion,
    openai_refusal,
)

pytestmark = pytest.mark.timeout(30)

KEY = "sk-proj-test-key-0123456789abcdefABCDEF"
MODEL = "gpt-4.1"


class Ruling(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: int = Field(ge=0, le=100)
    reason: str


class RulingInput(BaseModel):
    claim: str


def ruling_task(temperature: float | None = 0.2) -> Task[Ruling]:
    return Task(
        kind="adjudicate",
        role="adjudicator",
        inputs=RulingInput(claim="Water boils at 100 °C at sea level."),
        output=Ruling,
        system="You are a careful referee.",
        prompt="Score the claim from 0 to 100 and say why.",
        temperature=temperature,
    )


class MemoryLedger:
    def __init__(self) -> None:
        self.calls: dict[tuple[str, str], CallRecord] = {}

    def get_call(self, run_id: str, call_key: str) -> CallRecord | None:
        return self.calls.get((run_id, call_key))

    def put_call(self, record: CallRecord) -> None:
        self.calls[(record.run_id, record.call_key)] = record

    def run_spend(self, run_id: str) -> float:
        return sum(r.cost_usd for (run, _), r in self.calls.items() if run == run_id)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def provider_for(server: FakeOpenAIServer, max_retries: int = 2, key: str | None = KEY) -> OpenAIProvider:
    return OpenAIProvider(
        key, base_url=server.url, max_retries=max_retries, timeout=5.0, malformed_backoff_s=0.0
    )


def reasoner_for(provider: OpenAIProvider, ledger: MemoryLedger) -> Reasoner:
    return Reasoner({"openai": provider}, lambda role: ("openai", MODEL), ledger, budget_usd=1.0)


def user_prompt(request_body: dict[str, object]) -> str:
    messages = request_body["messages"]
    assert isinstance(messages, list)
    [user] = [m for m in messages if m["role"] == "user"]
    content = user["content"]
    assert isinstance(content, str)
    return content


def test_structured_reply_is_parsed_with_tokens_reported(server: FakeOpenAIServer) -> None:
    # Given the server answers with JSON content
    server.enqueue(
        200,
        openai_json_completion(
            {"score": 97, "reason": "Textbook physics."},
            model="gpt-4.1-2025-04-14",
            prompt_tokens=250,
            completion_tokens=31,
        ),
    )

    # When the provider completes a task
    reply = provider_for(server).complete(ruling_task(temperature=0.3), MODEL)

    # Then the parsed JSON is the content, with the served model and its usage
    assert reply.content == {"score": 97, "reason": "Textbook physics."}
    assert reply.refusal is None
    assert (reply.model, reply.input_tokens, reply.output_tokens) == ("gpt-4.1-2025-04-14", 250, 31)
    # And the request carried the schema, messages, model and temperature
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    body = request.body
    assert body["model"] == MODEL
    assert body["temperature"] == 0.3
    assert body["max_completion_tokens"] == 4096
    assert body["messages"] == [
        {"role": "system", "content": "You are a careful referee."},
        {"role": "user", "content": "Score the claim from 0 to 100 and say why."},
    ]
    # (strict: the API enforces the schema: every object closed, every field required)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "Ruling",
            "schema": without_titles(to_strict_json_schema(Ruling)),
            "strict": True,
        },
    }
    assert body["response_format"]["json_schema"]["schema"]["additionalProperties"] is False
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_natural_temperature_sends_no_temperature(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_json_completion({"score": 5, "reason": "r"}))

    provider_for(server).complete(ruling_task(temperature=None), MODEL)

    assert "temperature" not in server.requests[0].body


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5-mini", "o3", "o4-mini"])
def test_a_reasoning_model_is_sent_no_temperature_and_its_roles_are_recorded_as_natural(
    server: FakeOpenAIServer, model: str
) -> None:
    # Given a reasoning model, which refuses any temperature (400), and a role asked at temperature 0
    server.enqueue(200, openai_json_completion({"score": 5, "reason": "r"}))
    provider = provider_for(server)
    provider.complete(ruling_task(temperature=0.0), model)
    # Then none is sent, and the Reasoner records the role as run at its natural temperature
    assert "temperature" not in server.requests[0].body
    reasoner = Reasoner({"openai": provider}, lambda role: ("openai", model), MemoryLedger(), budget_usd=1.0)
    assert reasoner.natural_temperature(("judge",), frozenset()) == ["judge"]
    gpt = Reasoner({"openai": provider}, lambda role: ("openai", "gpt-4.1"), MemoryLedger(), budget_usd=1.0)
    assert gpt.natural_temperature(("judge",), frozenset()) == []


def test_every_output_of_the_debate_is_sent_as_a_strict_schema_with_its_limits() -> None:
    from claimcourt.models import ArgumentDraft, Judgement
    from claimcourt.reasoning.openai_provider import response_schema

    argue = Task(kind="argue", role="case_for", inputs=RulingInput(claim="c"), output=ArgumentDraft,
                 system="s", prompt="p", temperature=None, array_limits={"points": (0, 3)})  # fmt: skip
    schema, strict = response_schema(argue)
    assert strict and schema["properties"]["points"]["maxItems"] == 3
    assert set(schema["required"]) == set(schema["properties"])
    judge = Task(kind="adjudicate", role="adjudicator", inputs=RulingInput(claim="c"), output=Judgement,
                 system="s", prompt="p", temperature=0.0)  # fmt: skip
    assert response_schema(judge)[1]


def test_compatible_server_without_key_gets_a_placeholder_key(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_json_completion({"score": 5, "reason": "local"}))

    reply = provider_for(server, key=None).complete(ruling_task(), "llama3.1:8b")

    assert reply.content == {"score": 5, "reason": "local"}
    assert server.requests[0].headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


def test_no_key_and_no_base_url_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="API key"):
        OpenAIProvider(None)


def test_missing_usage_counts_zero_tokens_and_keeps_the_requested_model(server: FakeOpenAIServer) -> None:
    # Given a compatible server that reports no usage and no model name
    server.enqueue(200, openai_json_completion({"score": 5, "reason": "r"}, usage=False, model=""))

    reply = provider_for(server).complete(ruling_task(), "local-model")

    assert (reply.model, reply.input_tokens, reply.output_tokens) == ("local-model", 0, 0)


def test_fenced_json_content_is_parsed(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_completion('```json\n{"score": 12, "reason": "fenced"}\n```'))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content == {"score": 12, "reason": "fenced"}


def test_non_json_content_is_returned_raw(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_completion("I think it scores about 90."))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content == "I think it scores about 90."


def test_rate_limited_call_is_retried_then_succeeds(server: FakeOpenAIServer) -> None:
    # Given one 429, then a good reply
    server.enqueue(429, openai_error("Rate limit reached for gpt-4.1", "requests", "rate_limit_exceeded"))
    server.enqueue(200, openai_json_completion({"score": 60, "reason": "ok"}))

    # When the provider completes
    reply = provider_for(server).complete(ruling_task(), MODEL)

    # Then the SDK retried once and the caller never saw the 429
    assert reply.content == {"score": 60, "reason": "ok"}
    assert len(server.requests) == 2


def test_persistently_overloaded_server_raises_transient_error_after_sdk_retries(
    server: FakeOpenAIServer,
) -> None:
    # Given the server answers 503 on every attempt
    server.enqueue_many(3, 503, openai_error("The server is overloaded or not ready yet.", "server_error"))

    # When the provider completes, with max_retries=2
    with pytest.raises(TransientError) as caught:
        provider_for(server, max_retries=2).complete(ruling_task(), MODEL)

    # Then it tried three times and says what happened
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "503 server_error" in message and "overloaded" in message and "after 2 retries" in message


# A 200 whose body the SDK cannot read: empty, cut off mid-JSON, or JSON that is no completion.
MALFORMED_BODIES = pytest.mark.parametrize(
    "body",
    ["", '{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0, "mess', "null"],
    ids=["empty", "truncated", "not-a-completion"],
)


@MALFORMED_BODIES
def test_a_malformed_200_reply_is_retried_like_an_overload_then_succeeds(
    server: FakeOpenAIServer, body: str
) -> None:
    # Given one 200 whose body is not a completion, then a good reply
    server.enqueue(200, body)
    server.enqueue(200, openai_json_completion({"score": 60, "reason": "ok"}))

    # When the provider completes
    reply = provider_for(server).complete(ruling_task(), MODEL)

    # Then it asked again and the caller never saw the bad body
    assert reply.content == {"score": 60, "reason": "ok"}
    assert len(server.requests) == 2


@MALFORMED_BODIES
def test_a_persistently_malformed_200_reply_is_transient_and_says_so(
    server: FakeOpenAIServer, body: str
) -> None:
    # Given the server answers 200 with an unreadable body on every attempt
    server.enqueue_many(3, 200, body)

    # When the provider completes, with max_retries=2
    with pytest.raises(TransientError) as caught:
        provider_for(server, max_retries=2).complete(ruling_task(), MODEL)

    # Then it tried three times, and the error (retried by the state machine) names the problem
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "returned a malformed reply" in message and "after 2 retries" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_unreachable_server_is_transient() -> None:
    with FakeOpenAIServer() as gone:
        url = gone.url
    provider = OpenAIProvider(KEY, base_url=url, max_retries=1, timeout=2.0)

    with pytest.raises(TransientError, match="could not connect"):
        provider.complete(ruling_task(), MODEL)


def test_bad_request_raises_provider_error_without_retry(server: FakeOpenAIServer) -> None:
    server.enqueue(
        400, openai_error("Invalid schema for response_format 'Ruling'.", code="invalid_json_schema")
    )

    with pytest.raises(ProviderError) as caught:
        provider_for(server).complete(ruling_task(), MODEL)

    assert len(server.requests) == 1
    assert not isinstance(caught.value, TransientError)
    assert "400 invalid_request_error: Invalid schema for response_format 'Ruling'." in str(caught.value)


def test_rejected_key_raises_provider_error_that_never_contains_the_key(server: FakeOpenAIServer) -> None:
    # Given a 401 that echoes the key, as OpenAI's does
    server.enqueue(401, openai_error(f"Incorrect API key provided: {KEY}.", code="invalid_api_key"))

    with pytest.raises(ProviderError) as caught:
        provider_for(server).complete(ruling_task(), MODEL)

    # Then: one attempt, and the key appears nowhere in what the error carries
    assert len(server.requests) == 1
    assert "401" in str(caught.value)
    assert KEY not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert KEY not in repr(provider_for(server))


def test_refusal_is_reported_as_refusal_without_content(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_refusal("I'm sorry, I can't assist with that."))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content is None
    assert reply.refusal == "I'm sorry, I can't assist with that."


def test_content_filtered_reply_is_a_refusal(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_completion(None, finish_reason="content_filter"))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content is None
    assert reply.refusal is not None and "content filter" in reply.refusal


def test_reasoner_turns_a_refusal_into_data(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_refusal("Declined."))
    ledger = MemoryLedger()

    reply = reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run-1", "adjudicate"))

    assert reply.output is None
    assert reply.refusal == "Declined."
    assert len(server.requests) == 1
    [record] = ledger.calls.values()
    assert record.refusal == "Declined." and record.output_json is None


def test_malformed_reply_is_retried_once_with_the_validation_error(server: FakeOpenAIServer) -> None:
    # Given truncated JSON, then a valid reply
    server.enqueue(200, openai_completion('{"score": 88, "reason": "cut o', completion_tokens=9))
    server.enqueue(200, openai_json_completion({"score": 88, "reason": "fixed"}, completion_tokens=12))
    ledger = MemoryLedger()

    # When the Reasoner calls through the provider
    reply = reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run-1", "adjudicate"))

    # Then it retried once with the validation error in the prompt and returned the valid output
    assert reply.output == Ruling(score=88, reason="fixed")
    assert len(server.requests) == 2
    first, second = (user_prompt(r.body) for r in server.requests)
    assert "<correction>" not in first
    assert "<correction>" in second and "Invalid JSON" in second
    # And the schema was sent again
    assert server.requests[1].body["response_format"] == server.requests[0].body["response_format"]
    [record] = ledger.calls.values()
    assert record.output_tokens == 21
    assert json.loads(record.output_json or "") == {"score": 88, "reason": "fixed"}


def test_malformed_reply_twice_raises_malformed_reply_error(server: FakeOpenAIServer) -> None:
    server.enqueue(200, openai_completion("not json"))
    server.enqueue(200, openai_json_completion({"score": -3, "reason": "negative"}))

    with pytest.raises(MalformedReplyError):
        reasoner_for(provider_for(server), MemoryLedger()).call(ruling_task(), CallContext("run-1", "adj"))

    assert len(server.requests) == 2


def test_a_reply_cut_off_at_length_is_asked_again_with_twice_the_limit(server: FakeOpenAIServer) -> None:
    # Given a compatible server whose first reply stops at its length limit, still valid JSON
    server.enqueue(200, openai_json_completion({"score": 40, "reason": "Sh"}, finish_reason="length"))
    server.enqueue(200, openai_json_completion({"score": 40, "reason": "Short answer."}))
    reply = reasoner_for(provider_for(server), MemoryLedger()).call(
        ruling_task(), CallContext("run-1", "adj")
    )
    # Then the remains were not taken: the whole reply, asked with twice the limit
    assert reply.output is not None and reply.output.reason == "Short answer."
    assert [r.body["max_completion_tokens"] for r in server.requests] == [4096, 8192]


def test_a_reply_cut_off_twice_fails_naming_the_limit(server: FakeOpenAIServer) -> None:
    cut = openai_json_completion({"score": 40, "reason": "Sh"}, finish_reason="length")
    server.enqueue(200, cut).enqueue(200, cut)
    with pytest.raises(TruncatedReplyError, match="cut off at its output limit of 8192 tokens"):
        reasoner_for(provider_for(server), MemoryLedger()).call(ruling_task(), CallContext("run-1", "adj"))


def test_cached_prompt_tokens_are_billed_at_the_cached_rate_not_twice(server: FakeOpenAIServer) -> None:
    # Given a reply whose 60k prompt tokens include 50k served from OpenAI's prompt cache
    server.enqueue(
        200,
        openai_json_completion(
            {"score": 40, "reason": "ok"}, prompt_tokens=60_000, completion_tokens=200, cached_tokens=50_000
        ),
    )
    ledger = MemoryLedger()
    reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run-1", "adj"))
    [record] = ledger.calls.values()
    assert (record.input_tokens, record.cache_read_tokens) == (10_000, 50_000)
    # gpt-4.1: $2 per million uncached, $0.50 cached, $8 out
    assert record.cost_usd == pytest.approx((10_000 * 2 + 50_000 * 0.5 + 200 * 8) / 1_000_000)


def _role_task(kind: str, output: type[BaseModel]) -> Task[Any]:
    """A claim debate's call: the run's reply tools beside its own (its prompt names its fields)."""
    from claimcourt.debate.prefix import run_tools

    return Task(kind=kind, role="moderator", inputs=RulingInput(claim="c"), output=output, system="s",
                prompt="p", temperature=0.0, array_limits={"points": (0, 3)} if kind == "argue" else {},
                tools=run_tools("contract"))  # fmt: skip


def test_every_role_of_a_claim_debate_is_sent_one_strict_reply_schema_and_its_form_is_read(
    server: FakeOpenAIServer,
) -> None:
    from claimcourt.models import ArgumentDraft, ModeratorView
    from claimcourt.reasoning.openai_provider import RUN_REPLY, request_body
    from claimcourt.reasoning.vendors import XAI

    argue, moderate = _role_task("argue", ArgumentDraft), _role_task("moderate", ModeratorView)
    # Given two roles of one run: one reply schema, byte for byte (OpenAI's cache prefix starts with it)
    sent = [request_body(t, MODEL, 100)["response_format"] for t in (argue, moderate)]
    assert sent[0] == sent[1] and sent[0]["json_schema"]["name"] == RUN_REPLY
    schema = sent[0]["json_schema"]["schema"]
    assert sent[0]["json_schema"]["strict"] and schema["required"] == ["reply"]
    forms = {ref["$ref"].rsplit("/", 1)[-1] for ref in schema["properties"]["reply"]["anyOf"]}
    assert {"ArgumentDraft", "ModeratorView", "Judgement", "FactcheckReply"} <= forms
    # no call's own limits in it (the counts are checked on the reply), nor the fields' descriptions
    assert "maxItems" not in json.dumps(schema["$defs"]["ArgumentDraft"]) and "description" not in json.dumps(
        schema
    )
    # and none at all for a vendor that refuses them
    assert "minItems" not in json.dumps(request_body(argue, "grok-4", 100, vendor=XAI)["response_format"])
    # When the model answers in the role's form, that form is the reply
    point = {"sub_claim_id": "sc1", "argument": "a", "implied_score": 60, "confidence": 0.5,
             "citations": [], "position_change": None}  # fmt: skip
    server.enqueue(200, openai_json_completion({"reply": {"points": [point], "refusal": None}}))
    reply = provider_for(server).complete(argue, MODEL)
    assert reply.content == {"points": [point], "refusal": None}
