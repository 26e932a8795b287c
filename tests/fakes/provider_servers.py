"""Fake Anthropic Messages and OpenAI Chat Completions servers on 127.0.0.1, for driving the real SDK
clients in tests without any network.

Each server answers POSTs from a scripted queue of responses (status, JSON body, headers, optional
delay) and records every request it received. When the queue is empty, `default` (a callable taking
the request's JSON body and returning a response body) answers with 200; without one, the server
answers 418 with `x-should-retry: false`, so a test that under-scripts fails fast and loudly.

    with FakeAnthropicServer() as server:
        server.enqueue(429, anthropic_error("rate_limit_error", "slow down"))
        server.enqueue(200, anthropic_tool_message({"answer": 42}))
        client = anthropic.Anthropic(api_key="test", base_url=server.url, max_retries=2)
        ...
        assert len(server.requests) == 2

Error responses carry `retry-after-ms: 1` by default: the SDKs ignore `retry-after: 0` (they only
honour a positive delay, else back off 0.5 s, 1 s, …), so a millisecond keeps retry tests fast.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Self

from claimcourt.bench.loopback import LoopbackServer, Reply, Request

FAST_RETRY = {"retry-after-ms": "1"}
_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}{next(_ids):024d}"


@dataclass(frozen=True)
class ScriptedResponse:
    status: int
    body: Any  # a JSON-serialisable value, or str/bytes sent as is
    headers: dict[str, str] = field(default_factory=dict)
    held: bool = False  # never answered while the server runs: the client's timeout always comes first


Responder = Callable[[Any], Any]


class FakeServer(LoopbackServer):
    """A scriptable JSON HTTP server on 127.0.0.1 with a real port, serving from a daemon thread."""

    base_path = ""

    def __init__(self, default: Responder | None = None) -> None:
        self.default = default
        self.requests: list[Request] = []
        self._queue: deque[ScriptedResponse] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()  # releases the held replies' handler threads
        super().__init__()

    def answer(self, request: Request) -> Reply:
        scripted = self._take(request)
        if scripted.held:
            self._closing.wait()
        return Reply.json(scripted.status, scripted.body, scripted.headers)

    def close(self) -> None:
        self._closing.set()
        super().close()

    @property
    def url(self) -> str:
        """The base URL to hand to the SDK client."""
        return f"{self.base_url}{self.base_path}"

    def enqueue(
        self, status: int, body: Any, headers: dict[str, str] | None = None, held: bool = False
    ) -> Self:
        """Script the next response. Error statuses get `retry-after-ms: 1` unless headers say else."""
        if headers is None:
            headers = dict(FAST_RETRY) if status >= 400 else {}
        with self._lock:
            self._queue.append(ScriptedResponse(status, body, headers, held))
        return self

    def enqueue_many(self, count: int, status: int, body: Any, headers: dict[str, str] | None = None) -> Self:
        for _ in range(count):
            self.enqueue(status, body, headers)
        return self

    @property
    def pending(self) -> int:
        """Scripted responses not yet served."""
        with self._lock:
            return len(self._queue)

    def refuse(self, request: Request) -> ScriptedResponse | None:
        """What the vendor answers a request it does not accept (None: it accepts it)."""
        return None

    def _take(self, request: Request) -> ScriptedResponse:
        refused = self.refuse(request)
        with self._lock:
            self.requests.append(request)
            if refused is not None:
                return refused
            if self._queue:
                return self._queue.popleft()
        if self.default is not None:
            return ScriptedResponse(200, self.default(request.body))
        return ScriptedResponse(
            418,
            {"error": {"type": "fake_server_error", "message": "no scripted response left"}},
            {"x-should-retry": "false"},
        )


class FakeAnthropicServer(FakeServer):
    """Anthropic's SDK posts to {base_url}/v1/messages."""


class FakeOpenAIServer(FakeServer):
    """OpenAI's SDK posts to {base_url}/chat/completions, and its base URLs end in /v1."""

    base_path = "/v1"


class FakeGeminiServer(FakeServer):
    """Gemini's OpenAI-compatible endpoint: the SDK posts to {base_url}/chat/completions under
    /v1beta/openai. It refuses what Gemini refuses, as Gemini words it (a JSON list holding the error,
    with a google.rpc `status`): a request field its compatibility page does not show ("Unknown name
    ... Cannot find field", 400 INVALID_ARGUMENT, as users report for frequency_penalty and others; so
    `max_completion_tokens`, on which the page is silent), and a model it does not serve (404)."""

    base_path = "/v1beta/openai"
    FIELDS = frozenset({
        "model", "messages", "response_format", "max_tokens", "temperature", "top_p", "n", "stop", "stream",
        "stream_options", "tools", "tool_choice", "reasoning_effort", "seed", "service_tier", "extra_body",
    })  # fmt: skip
    MODELS = ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite")

    def refuse(self, request: Request) -> ScriptedResponse | None:
        body = request.body if isinstance(request.body, dict) else {}
        unknown = sorted(set(body) - self.FIELDS)
        if unknown:
            message = "\n".join(
                f'Invalid JSON payload received. Unknown name "{n}": Cannot find field.' for n in unknown
            )
            return ScriptedResponse(
                400, gemini_error(400, "INVALID_ARGUMENT", message), {"x-should-retry": "false"}
            )
        if body.get("model") not in self.MODELS:
            message = (
                f"models/{body.get('model')} is not found for API version v1beta, or is not supported for "
                "generateContent. Call ListModels to see the list of available models and their supported "
                "methods."
            )
            return ScriptedResponse(404, gemini_error(404, "NOT_FOUND", message), {"x-should-retry": "false"})
        return None


class FakeXaiServer(FakeServer):
    """xAI's API at /v1. It refuses what docs.x.ai says its models refuse, as xAI words an error
    ({"code": "...", "error": "the message"}): presence_penalty, frequency_penalty and stop on a
    reasoning model, reasoning_effort on grok-4, minItems/maxItems in a reply schema (not among the
    JSON Schema keywords its structured outputs support), a key other than `key` (400, the key masked
    by xAI itself) and a model it does not serve (404)."""

    base_path = "/v1"
    MODELS = ("grok-4", "grok-4-0709", "grok-3-mini", "grok-4-fast-reasoning")

    def __init__(self, default: Responder | None = None, key: str = "xai-test-key-0123456789") -> None:
        super().__init__(default)
        self.key = key

    def refuse(self, request: Request) -> ScriptedResponse | None:
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model"))
        offered = request.headers.get("authorization", "").removeprefix("Bearer ")
        if offered != self.key:
            masked = f"{offered[:2]}***{offered[-2:]}"
            return _xai_refusal(
                400,
                f"Incorrect API key provided: {masked}. You can obtain an API key from https://console.x.ai.",
            )
        if model not in self.MODELS:
            return _xai_refusal(
                404, f"The model {model} does not exist or your team does not have access to it.",
                "Some requested entity was not found",
            )  # fmt: skip
        refused = {
            "presence_penalty": "presencePenalty",
            "frequency_penalty": "frequencyPenalty",
            "stop": "stop",
        }
        if model.startswith("grok-4"):  # grok-3-mini takes an effort; grok-4 has none
            refused["reasoning_effort"] = "reasoningEffort"
        for sent, name in refused.items():
            if sent in body:
                return _xai_refusal(400, f"Model {model} does not support parameter {name}.")
        schema = json.dumps(body.get("response_format", {}))
        for keyword in ("minItems", "maxItems"):
            if f'"{keyword}"' in schema:
                return _xai_refusal(
                    400, f"Invalid request content: the JSON schema keyword {keyword} is not supported."
                )
        return None


def _xai_refusal(
    status: int, message: str, code: str = "Client specified an invalid argument"
) -> ScriptedResponse:
    return ScriptedResponse(status, {"code": code, "error": message}, {"x-should-retry": "false"})


def gemini_error(code: int, status: str, message: str) -> list[dict[str, Any]]:
    """An error as Gemini's OpenAI-compatible endpoint returns it: a JSON list holding it."""
    return [{"error": {"code": code, "message": message, "status": status}}]


def running(server_cls: type[FakeServer], default: Responder | None = None) -> Iterator[FakeServer]:
    """Generator for a pytest fixture: `yield from running(FakeAnthropicServer)`."""
    server = server_cls(default)
    try:
        yield server
    finally:
        server.close()


# ---------------------------------------------------------------- Anthropic wire format


def anthropic_usage(
    input_tokens: int = 120,
    output_tokens: int = 40,
    web_searches: int = 0,
    cache_read: int = 0,
    cache_write: int = 0,
) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        "service_tier": "standard",
    }
    if web_searches:
        usage["server_tool_use"] = {"web_search_requests": web_searches, "web_fetch_requests": 0}
    return usage


def anthropic_message(
    content: list[dict[str, Any]],
    *,
    stop_reason: str = "end_turn",
    model: str = "claude-sonnet-4-6",
    input_tokens: int = 120,
    output_tokens: int = 40,
    stop_details: dict[str, Any] | None = None,
    web_searches: int = 0,
    cache_read: int = 0,
    cache_write: int = 0,
) -> dict[str, Any]:
    return {
        "id": _next_id("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "stop_details": stop_details,
        "usage": anthropic_usage(input_tokens, output_tokens, web_searches, cache_read, cache_write),
    }


def anthropic_tool_message(
    tool_input: dict[str, Any],
    *,
    name: str = "submit",
    preamble: str | None = None,
    stop_reason: str = "tool_use",
    **kwargs: Any,
) -> dict[str, Any]:
    """A reply that called the client tool `name` with `tool_input` (stop_reason tool_use; max_tokens
    for one cut off while writing it)."""
    content: list[dict[str, Any]] = []
    if preamble:
        content.append({"type": "text", "text": preamble})
    content.append({"type": "tool_use", "id": _next_id("toolu_"), "name": name, "input": tool_input})
    return anthropic_message(content, stop_reason=stop_reason, **kwargs)


def anthropic_text_message(text: str, **kwargs: Any) -> dict[str, Any]:
    return anthropic_message([{"type": "text", "text": text}], **kwargs)


def anthropic_refusal_message(
    explanation: str | None = "This request could enable harm.",
    *,
    category: str | None = "general_harms",
    **kwargs: Any,
) -> dict[str, Any]:
    """stop_reason "refusal": the API's classifiers stopped the reply (content may be empty)."""
    details = {"type": "refusal", "category": category, "explanation": explanation}
    return anthropic_message([], stop_reason="refusal", stop_details=details, **kwargs)


def anthropic_error(error_type: str, message: str) -> dict[str, Any]:
    """e.g. overloaded_error (529), rate_limit_error (429), invalid_request_error (400),
    authentication_error (401), api_error (500)."""
    return {
        "type": "error",
        "error": {"type": error_type, "message": message},
        "request_id": _next_id("req_"),
    }


@dataclass(frozen=True)
class FakeSearchResult:
    url: str
    title: str
    page_age: str | None = None
    cited_text: str | None = None  # None: the model did not cite this result


def anthropic_web_search_message(
    query: str,
    results: list[FakeSearchResult],
    *,
    summary: str = "Here is what the sources say.",
    error_code: str | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """A web-search turn as the API returns it: the model's preamble, its server_tool_use call, the
    web_search_tool_result (or an error object), then text blocks citing web_search_result_location."""
    tool_id = _next_id("srvtoolu_")
    tool_content: Any = (
        {"type": "web_search_tool_result_error", "error_code": error_code}
        if error_code
        else [
            {
                "type": "web_search_result",
                "url": r.url,
                "title": r.title,
                "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2E",
                "page_age": r.page_age,
            }
            for r in results
        ]
    )
    content: list[dict[str, Any]] = [
        {"type": "text", "text": f"I'll search for {query}."},
        {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}},
        {"type": "web_search_tool_result", "tool_use_id": tool_id, "content": tool_content},
        {"type": "text", "text": summary},
    ]
    for r in results:
        if r.cited_text is None:
            continue
        content.append(
            {
                "type": "text",
                "text": r.cited_text,
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": r.url,
                        "title": r.title,
                        "encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
                        "cited_text": r.cited_text,
                    }
                ],
            }
        )
    kwargs.setdefault("web_searches", 1)
    return anthropic_message(content, stop_reason="end_turn", **kwargs)


# ---------------------------------------------------------------- OpenAI wire format


def openai_completion(
    content: str | None,
    *,
    refusal: str | None = None,
    model: str = "gpt-4.1-2025-04-14",
    prompt_tokens: int = 100,
    completion_tokens: int = 30,
    finish_reason: str = "stop",
    usage: bool = True,
    cached_tokens: int = 0,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": _next_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal, "annotations": []},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "service_tier": "default",
        "system_fingerprint": "fp_fake",
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},  # of prompt_tokens, not beside it
        }
    return body


def xai_completion(payload: Any, *, reasoning_tokens: int = 0, **kwargs: Any) -> dict[str, Any]:
    """A grok reply: its reasoning tokens are counted beside completion_tokens, in total_tokens."""
    body = openai_json_completion(payload, **kwargs)
    usage = body["usage"]
    usage["completion_tokens_details"] = {"reasoning_tokens": reasoning_tokens}
    usage["total_tokens"] += reasoning_tokens
    return body


def openai_json_completion(payload: Any, **kwargs: Any) -> dict[str, Any]:
    return openai_completion(json.dumps(payload), **kwargs)


def openai_refusal(refusal: str = "I'm sorry, I can't help with that.", **kwargs: Any) -> dict[str, Any]:
    return openai_completion(None, refusal=refusal, **kwargs)


def openai_error(
    message: str, error_type: str = "invalid_request_error", code: str | None = None
) -> dict[str, Any]:
    """e.g. ("Rate limit reached", "requests", "rate_limit_exceeded") with 429, ("The server is
    overloaded", "server_error") with 503, ("Incorrect API key provided", ..., "invalid_api_key") with 401."""
    return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


# ---------------------------------------------------------------- OpenAI Responses wire format (web search)


def openai_response(
    output: list[dict[str, Any]],
    *,
    model: str = "gpt-4.1-2025-04-14",
    input_tokens: int = 900,
    output_tokens: int = 60,
    cached_tokens: int = 0,
    web_searches: int | None = 1,
    status: str = "completed",
    error: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A Responses API body as the API returns it (`web_searches` None: no tool_usage, as from a server
    that does not report it)."""
    body: dict[str, Any] = {
        "id": _next_id("resp_"),
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "error": error,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": 2048,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": False,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [{"type": "web_search", "search_context_size": "medium", "user_location": None}],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": input_tokens,
            "input_tokens_details": {"cached_tokens": cached_tokens},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": input_tokens + output_tokens,
        },
        "user": None,
        "metadata": {},
    }
    if web_searches is not None:
        body["tool_usage"] = {
            "image_gen": {"input_tokens": 0, "input_tokens_details": {"image_tokens": 0, "text_tokens": 0},
                          "output_tokens": 0, "total_tokens": 0},
            "web_search": {"num_requests": web_searches},
        }  # fmt: skip
    return body


def openai_web_search_call(query: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": _next_id("ws_"),
        "type": "web_search_call",
        "status": status,
        "action": {"type": "search", "query": query, "queries": [query], "sources": None},
    }


def openai_message(text: str, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": _next_id("msg_"),
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}],
    }


def openai_web_search_response(
    query: str, results: list[FakeSearchResult], *, searches: int = 1, **kwargs: Any
) -> dict[str, Any]:
    """A web-search turn as OpenAI's models write it when asked to quote: one search call, then a
    message with each quoted result on a line of its own, `[published …] "…"`, followed by a markdown
    link to it that its url_citation annotation spans (the url carrying ?utm_source=openai)."""
    text = f"Here is what the sources say about {query}:\n\n"
    annotations = []
    for r in results:
        if r.cited_text is None:
            continue
        url = f"{r.url}{'&' if '?' in r.url else '?'}utm_source=openai"
        host = r.url.split("/")[2].removeprefix("www.")
        text += f'- [published {r.page_age or "unknown"}] "{r.cited_text}" '
        marker = f"([{host}]({url}))"
        annotations.append(
            {"type": "url_citation", "start_index": len(text), "end_index": len(text) + len(marker),
             "url": url, "title": r.title}
        )  # fmt: skip
        text += marker + "\n"
    output = [openai_web_search_call(query) for _ in range(searches)] + [openai_message(text, annotations)]
    return openai_response(output, **kwargs)
