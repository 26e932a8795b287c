"""AnthropicProvider: the real `anthropic` SDK against a fake Messages API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pydantic import BaseModel, ConfigDict, Field

from claimcourt.errors import (
    BudgetExceededError,
    MalformedReplyError,
    ProviderError,
    TransientError,
    TruncatedReplyError,
)
from claimcourt.models import CallRecord
from claimcourt.reasoning.anthropic_provider import TOOL_NAME, AnthropicProvider
from claimcourt.reasoning.base import CallContext, Task, without_titles
from claimcourt.reasoning.reasoner import Reasoner
from tests.fakes.provider_servers import (
    FakeAnthropicServer,
    anthropic_error,
    anthropic_refusal_message,
    anthropic_text_message,
    anthropic_tool_message,
)

pytestmark = pytest.mark.timeout(30)

KEY = "sk-ant-api03-test-key-0123456789abcdef"
MODEL = "claude-sonnet-4-6"


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
def server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as fake:
        yield fake


def provider_for(
    server: FakeAnthropicServer, max_retries: int = 2, timeout: float = 5.0
) -> AnthropicProvider:
    return AnthropicProvider(
        KEY, base_url=server.url, max_retries=max_retries, timeout=timeout, malformed_backoff_s=0.0
    )


def reasoner_for(provider: AnthropicProvider, ledger: MemoryLedger) -> Reasoner:
    return Reasoner({"anthropic": provider}, lambda role: ("anthropic", MODEL), ledger, budget_usd=1.0)


def prompt_of(request_body: dict[str, object]) -> str:
    messages = request_body["messages"]
    assert isinstance(messages, list) and len(messages) == 1
    content = messages[0]["content"]
    assert isinstance(content, str)
    return content


def test_structured_reply_is_the_forced_tool_input_with_tokens_reported(server: FakeAnthropicServer) -> None:
    # Given the API answers with a call of the submit tool
    server.enqueue(
        200,
        anthropic_tool_message(
            {"score": 97, "reason": "Textbook physics."},
            preamble="Let me submit.",
            model="claude-sonnet-4-6-20260217",
            input_tokens=321,
            output_tokens=54,
        ),
    )

    # When the provider completes a task
    reply = provider_for(server).complete(ruling_task(), MODEL)

    # Then the tool input is the content, with the served model and its usage
    assert reply.content == {"score": 97, "reason": "Textbook physics."}
    assert reply.refusal is None
    assert (reply.model, reply.input_tokens, reply.output_tokens) == ("claude-sonnet-4-6-20260217", 321, 54)
    # And the request forced the tool whose schema is the output model's
    [request] = server.requests
    assert request.path == "/v1/messages"
    body = request.body
    assert body["model"] == MODEL
    assert body["system"] == "You are a careful referee."
    assert body["messages"] == [{"role": "user", "content": "Score the claim from 0 to 100 and say why."}]
    assert body["tools"][0]["name"] == TOOL_NAME
    assert body["tools"][0]["input_schema"] == without_titles(Ruling.model_json_schema())
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert body["max_tokens"] == 4096
    # The SDK's API version (2026-10-21) answers 400 to any temperature, so none is sent
    assert "temperature" not in body
    assert request.headers["anthropic-version"] == "2026-10-21"
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_rate_limited_call_is_retried_then_succeeds(server: FakeAnthropicServer) -> None:
    # Given one 429, then a good reply
    server.enqueue(
        429, anthropic_error("rate_limit_error", "Number of request tokens has exceeded your limit.")
    )
    server.enqueue(200, anthropic_tool_message({"score": 60, "reason": "ok"}))

    # When the provider completes
    reply = provider_for(server).complete(ruling_task(), MODEL)

    # Then the SDK retried once and the caller never saw the 429
    assert reply.content == {"score": 60, "reason": "ok"}
    assert len(server.requests) == 2


def test_persistently_overloaded_api_raises_transient_error_after_sdk_retries(
    server: FakeAnthropicServer,
) -> None:
    # Given the API is overloaded (529) on every attempt
    server.enqueue_many(3, 529, anthropic_error("overloaded_error", "Overloaded"))

    # When the provider completes, with max_retries=2
    with pytest.raises(TransientError) as caught:
        provider_for(server, max_retries=2).complete(ruling_task(), MODEL)

    # Then it tried three times and says what happened
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "529" in message and "overloaded_error" in message and "after 2 retries" in message
    assert KEY not in message


# A 200 whose body the SDK cannot read: empty, cut off mid-JSON, or JSON that is no Messages reply.
MALFORMED_BODIES = pytest.mark.parametrize(
    "body",
    ["", '{"id": "msg_01", "type": "message", "content": [{"type": "tool_u', "null"],
    ids=["empty", "truncated", "not-a-message"],
)


@MALFORMED_BODIES
def test_a_malformed_200_reply_is_retried_like_an_overload_then_succeeds(
    server: FakeAnthropicServer, body: str
) -> None:
    # Given one 200 whose body is not a Messages reply, then a good reply
    server.enqueue(200, body)
    server.enqueue(200, anthropic_tool_message({"score": 60, "reason": "ok"}))

    # When the provider completes
    reply = provider_for(server).complete(ruling_task(), MODEL)

    # Then it asked again and the caller never saw the bad body
    assert reply.content == {"score": 60, "reason": "ok"}
    assert len(server.requests) == 2


@MALFORMED_BODIES
def test_a_persistently_malformed_200_reply_is_transient_and_says_so(
    server: FakeAnthropicServer, body: str
) -> None:
    # Given the API answers 200 with an unreadable body on every attempt
    server.enqueue_many(3, 200, body)

    # When the provider completes, with max_retries=2
    with pytest.raises(TransientError) as caught:
        provider_for(server, max_retries=2).complete(ruling_task(), MODEL)

    # Then it tried three times, and the error (retried by the state machine) names the problem
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "returned a malformed reply" in message and "after 2 retries" in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_internal_server_error_is_transient(server: FakeAnthropicServer) -> None:
    server.enqueue_many(2, 500, anthropic_error("api_error", "Internal server error"))

    with pytest.raises(TransientError, match="500 api_error"):
        provider_for(server, max_retries=1).complete(ruling_task(), MODEL)
    assert len(server.requests) == 2


def test_timed_out_request_is_transient(server: FakeAnthropicServer) -> None:
    # Given a server that does not answer, twice (it holds each reply until the test closes it)
    for _ in range(2):
        server.enqueue(200, anthropic_tool_message({"score": 1, "reason": "late"}), held=True)

    # Then the timeout, after the SDK's retry, is transient
    with pytest.raises(TransientError, match="timed out"):
        provider_for(server, max_retries=1, timeout=0.25).complete(ruling_task(), MODEL)


def test_unreachable_server_is_transient() -> None:
    # Given a port where nothing listens
    with FakeAnthropicServer() as gone:
        url = gone.url
    provider = AnthropicProvider(KEY, base_url=url, max_retries=1, timeout=2.0)

    with pytest.raises(TransientError, match="could not connect"):
        provider.complete(ruling_task(), MODEL)


def test_bad_request_raises_provider_error_without_retry(server: FakeAnthropicServer) -> None:
    # Given the API rejects the request
    server.enqueue(400, anthropic_error("invalid_request_error", "tools.0.input_schema: invalid schema"))

    # When the provider completes
    with pytest.raises(ProviderError) as caught:
        provider_for(server).complete(ruling_task(), MODEL)

    # Then it did not retry, and the message carries the status, type and API message
    assert len(server.requests) == 1
    assert not isinstance(caught.value, TransientError)
    assert "400 invalid_request_error: tools.0.input_schema: invalid schema" in str(caught.value)


def test_rejected_key_raises_provider_error_that_never_contains_the_key(server: FakeAnthropicServer) -> None:
    # Given a 401 whose message echoes the key back
    server.enqueue(401, anthropic_error("authentication_error", f"invalid x-api-key: {KEY}"))

    with pytest.raises(ProviderError) as caught:
        provider_for(server).complete(ruling_task(), MODEL)

    # Then: one attempt, and the key appears nowhere in what the error carries
    assert len(server.requests) == 1
    assert "401 authentication_error" in str(caught.value)
    assert KEY not in str(caught.value)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    assert KEY not in repr(provider_for(server))


def test_text_reply_with_fenced_json_is_parsed(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_text_message('```json\n{"score": 12, "reason": "fenced"}\n```'))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content == {"score": 12, "reason": "fenced"}


def test_refusal_is_reported_as_refusal_without_content(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_refusal_message("I can't help with that request.", output_tokens=3))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content is None
    assert reply.refusal == "I can't help with that request."
    assert reply.output_tokens == 3


def test_refusal_without_explanation_still_names_a_reason(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_refusal_message(None, category="cyber"))

    reply = provider_for(server).complete(ruling_task(), MODEL)

    assert reply.content is None
    assert reply.refusal == "the model refused (category: cyber)"


def test_reasoner_turns_a_refusal_into_data(server: FakeAnthropicServer) -> None:
    # Given the model refuses
    server.enqueue(200, anthropic_refusal_message("Declined."))
    ledger = MemoryLedger()

    # When the Reasoner calls it
    reply = reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run-1", "adjudicate"))

    # Then the refusal is data: no output, no retry, and the call is on the ledger
    assert reply.output is None
    assert reply.refusal == "Declined."
    assert len(server.requests) == 1
    [record] = ledger.calls.values()
    assert record.refusal == "Declined." and record.output_json is None


def test_malformed_reply_is_retried_once_with_the_validation_error(server: FakeAnthropicServer) -> None:
    # Given a reply that is not JSON, then one that is valid
    server.enqueue(200, anthropic_text_message("Sure! The score is {high", output_tokens=7))
    server.enqueue(200, anthropic_tool_message({"score": 88, "reason": "fixed"}, output_tokens=20))
    ledger = MemoryLedger()

    # When the Reasoner calls through the provider
    reply = reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run-1", "adjudicate"))

    # Then it retried once, telling the model what was wrong, and returned the valid output
    assert reply.output == Ruling(score=88, reason="fixed")
    assert len(server.requests) == 2
    first, second = (prompt_of(r.body) for r in server.requests)
    assert "<correction>" not in first
    assert "<correction>" in second and "Invalid JSON" in second
    assert second.startswith("Score the claim from 0 to 100 and say why.")
    # And both calls' tokens were billed together
    [record] = ledger.calls.values()
    assert record.output_tokens == 27


def test_schema_violation_is_retried_with_the_field_errors(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_tool_message({"score": 250}))
    server.enqueue(200, anthropic_tool_message({"score": 50, "reason": "in range"}))

    reply = reasoner_for(provider_for(server), MemoryLedger()).call(
        ruling_task(), CallContext("run-1", "adj")
    )

    assert reply.output == Ruling(score=50, reason="in range")
    second = prompt_of(server.requests[1].body)
    assert "did not match the required JSON schema" in second
    assert "score:" in second and "reason:" in second


def test_malformed_reply_twice_raises_malformed_reply_error(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_text_message("not json"))
    server.enqueue(200, anthropic_tool_message({"score": "very high"}))
    ledger = MemoryLedger()

    with pytest.raises(MalformedReplyError):
        reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run-1", "adjudicate"))

    # Two attempts, both billed under the !malformed key
    assert len(server.requests) == 2
    [(_, key)] = ledger.calls.keys()
    assert key.endswith("!malformed")


# ---------------------------------------------------------------- replies cut off at the output limit


def test_a_cut_off_reply_is_asked_again_with_twice_the_limit_and_its_whole_reply_is_used(
    server: FakeAnthropicServer,
) -> None:
    # Given a reply cut off at max_tokens whose remains still validate, then a whole one
    server.enqueue(200, anthropic_tool_message({"score": 97, "reason": "Tex"}, stop_reason="max_tokens"))
    server.enqueue(200, anthropic_tool_message({"score": 97, "reason": "Textbook physics."}))
    ledger = MemoryLedger()
    # When the reasoner asks
    reply = reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run_1", "adjudicate"))
    # Then the remains were not taken: the call went again with twice the output limit
    assert reply.output is not None and reply.output.reason == "Textbook physics."
    assert [r.body["max_tokens"] for r in server.requests] == [4096, 8192]
    [record] = ledger.calls.values()
    assert record.attempts == 2 and record.input_tokens == 240  # both calls billed


def test_a_reply_cut_off_twice_fails_with_an_error_that_says_so(server: FakeAnthropicServer) -> None:
    cut = anthropic_tool_message({"score": 97, "reason": "Tex"}, stop_reason="max_tokens")
    server.enqueue(200, cut).enqueue(200, cut)
    ledger = MemoryLedger()
    said = (
        "adjudicate stage's adjudicate reply .* cut off at its output limit of 8192 tokens, after one at 4096"
    )
    with pytest.raises(TruncatedReplyError, match=said):
        reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run_1", "adjudicate"))
    # and what the two calls cost is still in the ledger
    [record] = ledger.calls.values()
    assert record.call_key.endswith("!truncated") and record.attempts == 2 and record.cost_usd > 0


def test_prompt_cache_tokens_are_billed_at_their_own_rates(server: FakeAnthropicServer) -> None:
    # Given a reply that read 50k tokens from the prompt cache and wrote 2k to it
    reply_body = anthropic_tool_message(
        {"score": 97, "reason": "Textbook physics."}, input_tokens=1000, output_tokens=200,
        cache_read=50_000, cache_write=2_000,
    )  # fmt: skip
    server.enqueue(200, reply_body)
    ledger = MemoryLedger()
    reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run_1", "adjudicate"))
    # Then the ledger has them, each at Sonnet's rate: $3 in, $15 out, 0.1× to read, 1.25× to write
    [record] = ledger.calls.values()
    assert (record.cache_read_tokens, record.cache_write_tokens) == (50_000, 2_000)
    expected = (1000 * 3 + 200 * 15 + 50_000 * 0.3 + 2_000 * 3.75) / 1_000_000
    assert record.cost_usd == pytest.approx(expected)  # 0.0285, where tokens alone said 0.006


def test_the_budget_counts_what_the_prompt_cache_cost(server: FakeAnthropicServer) -> None:
    # Given a budget of 2 cents and a first reply that wrote 5k tokens to the cache: $0.006 in tokens,
    # $0.02475 with the cache's write at 1.25× the input price
    server.enqueue(
        200,
        anthropic_tool_message(
            {"score": 97, "reason": "ok"}, input_tokens=1000, output_tokens=200, cache_write=5_000
        ),
    )
    ledger = MemoryLedger()
    reasoner = Reasoner({"anthropic": provider_for(server)}, lambda role: ("anthropic", MODEL), ledger, 0.02)
    reasoner.call(ruling_task(), CallContext("run_1", "adjudicate", side="a"))
    assert ledger.run_spend("run_1") == pytest.approx(0.02475)
    # Then the next call of the run is refused before it is made: the guard saw the cache's cost
    with pytest.raises(BudgetExceededError, match=r"of its \$0.02 budget"):
        reasoner.call(ruling_task(), CallContext("run_1", "adjudicate", side="b"))
    assert len(server.requests) == 1


def test_a_cut_off_reply_whose_retry_fails_is_still_billed(server: FakeAnthropicServer) -> None:
    server.enqueue(200, anthropic_tool_message({"score": 9, "reason": "T"}, stop_reason="max_tokens"))
    server.enqueue(400, anthropic_error("invalid_request_error", "bad"))
    ledger = MemoryLedger()
    with pytest.raises(ProviderError):
        reasoner_for(provider_for(server), ledger).call(ruling_task(), CallContext("run_1", "adjudicate"))
    [record] = ledger.calls.values()
    assert record.input_tokens == 120 and record.cost_usd > 0


def test_a_usable_reply_is_kept_when_its_correction_fails() -> None:
    # Given a stage whose check finds a problem, and a provider that fails on the correction
    from dataclasses import replace

    with FakeAnthropicServer() as fake:
        fake.enqueue(200, anthropic_tool_message({"score": 9, "reason": "short"}))
        fake.enqueue(400, anthropic_error("invalid_request_error", "bad"))
        picky = replace(ruling_task(), check=lambda ruling: ["reason: too short"])
        ledger = MemoryLedger()
        reply = reasoner_for(provider_for(fake), ledger).call(picky, CallContext("run_1", "adjudicate"))
    # Then the first reply stands (the stage repairs what it can), and it was billed once, under its key
    assert reply.output is not None and reply.output.reason == "short"
    [record] = ledger.calls.values()
    assert record.output_json is not None and record.attempts == 1
