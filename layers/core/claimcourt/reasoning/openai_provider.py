"""The OpenAI(-compatible) provider: structured output by `response_format: json_schema` over the
official SDK's Chat Completions, so any server that speaks that API (vLLM, Ollama, llama.cpp…) works,
and so do Gemini and xAI at their preset base URLs (reasoning/vendors.py: where each one differs)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, NoReturn, Union

import openai
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam
from openai.types.chat.completion_create_params import ResponseFormat
from pydantic import BaseModel, ConfigDict, create_model

from claimcourt.errors import ProviderError, TransientError
from claimcourt.reasoning.base import (
    ProviderReply,
    ReplyTool,
    Task,
    call_headers,
    correction,
    retry_malformed,
    without_key,
    without_titles,
)
from claimcourt.reasoning.vendors import OPENAI, Vendor

# A local OpenAI-compatible server usually wants no key, but the SDK insists on one.
PLACEHOLDER_KEY = "not-needed"

# What the SDK itself retries (408, 409, 429, 5xx): once its retries are spent, the ASL's retry of
# TransientError gets a later, second chance.
_TRANSIENT_STATUS = frozenset({408, 409, 429})
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)
_SCHEMA_NAME = re.compile(r"[^a-zA-Z0-9_-]")
# Reasoning models (the o-series, the gpt-5 family but its chat models) take no temperature: a request
# with one is refused (400), so they are sent none and run at their natural temperature.
_REASONING_MODEL = re.compile(r"^(?:o\d+|gpt-5)(?![\w.-]*chat)(?:[\w.-]*)$")


def takes_temperature(model: str) -> bool:
    return not _REASONING_MODEL.match(model.rsplit("/", 1)[-1])


# The reply schema of a claim debate's calls, one for all its roles (`run_reply`): its name.
RUN_REPLY = "claim_debate_reply"


@lru_cache(maxsize=16)
def run_reply(tools: tuple[ReplyTool, ...]) -> type[BaseModel]:
    """The one reply every call of a claim debate is sent: `reply`, any of its roles' replies. OpenAI's
    prompt cache matches a prefix that starts with the reply's schema, so a schema of each role's own
    kept each role's calls apart; one for all lets every call read the opening the others sent (the
    role's instructions say which reply is its own; `Task.problems` checks what a schema cannot)."""
    outputs = tuple(t.output for t in tools)
    return create_model(RUN_REPLY, __config__=ConfigDict(extra="forbid"), reply=(Union[outputs], ...))  # noqa: UP007


def reply_model(task: Task[Any]) -> type[BaseModel]:
    """The model of the reply a task is sent: the run's one reply when it shares the run's tools."""
    return run_reply(task.tools) if task.tools else task.output


def response_schema(task: Task[Any], vendor: Vendor = OPENAI) -> tuple[dict[str, Any], bool]:
    """The reply's schema and whether the API can enforce it (strict structured outputs: every object
    closed, every field required, optional ones nullable, as the SDK's own conversion makes it), with
    the run's list limits where the vendor takes them; the plain schema, not enforced, for an output
    strict mode cannot express. A claim debate's call is sent the run's one reply (`run_reply`), without
    the fields' descriptions (each role's prompt explains its own) and without any call's limits."""
    if task.tools:
        return _run_schema(task.tools, vendor.schema_array_limits)
    try:
        schema: dict[str, Any] = without_titles(to_strict_json_schema(task.output))
    except Exception:  # a construct strict mode has no form for: the schema then only guides the model
        schema = task.output_schema()
        if not vendor.schema_array_limits:
            for name in task.array_limits:
                for limit in ("minItems", "maxItems"):
                    schema["properties"][name].pop(limit, None)
        return schema, False
    if vendor.schema_array_limits:
        for name, (low, high) in task.array_limits.items():
            schema["properties"][name] |= {"minItems": low, "maxItems": high}
    return schema, True


@lru_cache(maxsize=16)
def _run_schema(tools: tuple[ReplyTool, ...], array_limits: bool) -> tuple[dict[str, Any], bool]:
    model = run_reply(tools)
    try:
        schema, strict = to_strict_json_schema(model), True
    except Exception:  # a construct strict mode has no form for: the schema then only guides the model
        schema, strict = model.model_json_schema(), False
    schema = without_key(without_titles(schema), "description")
    if not array_limits:  # a vendor that refuses them: the counts are checked on the reply
        schema = without_key(without_key(schema, "minItems"), "maxItems")
    return schema, strict


def _redact(text: str, secret: str | None) -> str:
    """Strip the key from an error message: OpenAI's 401 echoes (part of) it back."""
    if secret and secret != PLACEHOLDER_KEY:
        text = text.replace(secret, "[redacted]")
    return re.sub(r"\bsk-[A-Za-z0-9_\-*]{6,}", "sk-[redacted]", text)


def _error_body(body: object) -> dict[str, Any]:
    """The error object of an error response, as {message, type|status, code}, whichever vendor wrote
    it: OpenAI's {"error": {...}} (the SDK hands over the inner object), Gemini's [{"error": {...}}] (a
    list, with a `status` such as NOT_FOUND) and xAI's {"code": "...", "error": "the message"} (the SDK
    hands over the message alone)."""
    if isinstance(body, list) and body and isinstance(body[0], dict):
        inner = body[0].get("error", body[0])
        return inner if isinstance(inner, dict) else {"message": inner}
    if isinstance(body, str):
        return {"message": body}
    return body if isinstance(body, dict) else {}


def raise_mapped(err: openai.OpenAIError, what: str, max_retries: int, api_key: str | None) -> NoReturn:
    """Turn an SDK error (raised after its own retries) into TransientError or ProviderError. The
    message names the status, error type and code; never the key. The SDK error is not chained
    (`from None`): its text embeds the raw response body."""
    if isinstance(err, openai.APIStatusError):
        body = _error_body(err.body)
        detail = _redact(str(body.get("message") or ""), api_key) or "no message"
        kind = err.type or err.code or body.get("status") or "unknown_error"
        request_id = f" (request-id {err.request_id})" if err.request_id else ""
        status = err.status_code
        if status in _TRANSIENT_STATUS or status >= 500:
            raise TransientError(
                f"{what}: HTTP {status} {kind} after {max_retries} retries: {detail}{request_id}"
            ) from None
        raise ProviderError(f"{what}: HTTP {status} {kind}: {detail}{request_id}") from None
    if isinstance(err, openai.APITimeoutError):
        raise TransientError(f"{what}: request timed out after {max_retries} retries") from None
    if isinstance(err, openai.APIConnectionError):
        raise TransientError(f"{what}: could not connect after {max_retries} retries") from None
    raise ProviderError(f"{what}: {type(err).__name__}: {_redact(str(err), api_key)}") from None


def _parse_json_text(text: str) -> Any:
    match = _FENCE.match(text)
    candidate = match.group(1) if match else text
    try:
        return json.loads(candidate)
    except ValueError:
        return text  # the Reasoner retries once with the validation error


def _completion_problem(response: object) -> str | None:
    """What makes a parsed 200 body unusable as a chat completion (None: nothing). The SDK builds its
    ChatCompletion without validating, so `{}` or `null` reach here."""
    if not isinstance(response, ChatCompletion):
        return f"a {type(response).__name__} body, not a chat completion"
    if not isinstance(response.choices, list) or any(c.message is None for c in response.choices):
        return "a chat completion without choices"
    return None


def request_body(
    task: Task[Any], model: str, max_tokens: int, feedback: str | None = None, vendor: Vendor = OPENAI
) -> dict[str, Any]:
    """The Chat Completions request for one attempt of `task`, as sent to `vendor` (without its headers).

    OpenAI caches every prompt's prefix of 1,024 tokens or more by itself, so what the run's calls
    share goes first: the system message opens with the shared prefix (`task.shared`), then the role's
    own text; the user message is the round's material. The reply's schema comes before both, so only
    calls of the same role (the same schema) share a cached prefix."""
    schema, strict = response_schema(task, vendor)
    response_format: ResponseFormat = {
        "type": "json_schema",
        "json_schema": {
            "name": _SCHEMA_NAME.sub("_", reply_model(task).__name__)[:64],
            "schema": schema,
            "strict": strict,
        },
    }
    user = task.user_text + (correction(feedback) if feedback else "")
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": task.system_text},
        {"role": "user", "content": user},
    ]
    body: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "response_format": response_format,
        vendor.output_limit_field: max_tokens,
    }
    # Only OpenAI's own reasoning models refuse a temperature (Gemini's and xAI's documentation name no
    # model that does).
    if task.temperature is not None and (vendor is not OPENAI or takes_temperature(model)):
        body["temperature"] = task.temperature
    return body


class OpenAIProvider:
    """Provider over OpenAI's Chat Completions (or any compatible server at `base_url`), or over another
    vendor's compatible endpoint (`vendor`: Gemini, xAI), at its preset base URL unless `base_url`."""

    sends_temperature = True  # but not to an OpenAI reasoning model: see takes_temperature

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
        max_output_tokens: int = 4096,
        malformed_backoff_s: float = 0.5,
        vendor: Vendor = OPENAI,
    ) -> None:
        if api_key is None and (base_url is None or vendor is not OPENAI):
            needs = " unless base_url names a compatible server" if vendor is OPENAI else ""
            raise ProviderError(f"{vendor.name}: an API key ({vendor.key_variable}) is needed{needs}")
        self.name = vendor.name
        self._vendor = vendor
        self._api_key = api_key
        self._max_retries = max_retries
        self._max_output_tokens = max_output_tokens
        self._malformed_backoff_s = malformed_backoff_s  # the first wait before asking again, doubling
        self._client = openai.OpenAI(
            api_key=api_key or PLACEHOLDER_KEY,
            base_url=base_url or vendor.base_url,
            max_retries=max_retries,
            timeout=timeout,
        )

    def __repr__(self) -> str:  # never the key
        return f"OpenAIProvider(vendor={self.name!r}, base_url={str(self._client.base_url)!r})"

    def takes_temperature(self, model: str) -> bool:
        return self._vendor is not OPENAI or takes_temperature(model)

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        limit = task.max_output_tokens or self._max_output_tokens
        body = request_body(task, model, limit, feedback, self._vendor)
        what = f"{self.name} {model}"
        headers = call_headers()  # which call this is (X-Claimcourt-Call): for proxies and the played corpus
        try:
            response = retry_malformed(
                lambda: self._client.chat.completions.create(**body, extra_headers=headers),
                _completion_problem,
                what,
                self._max_retries,
                self._malformed_backoff_s,
            )
        except openai.OpenAIError as err:
            raise_mapped(err, what, self._max_retries, self._api_key)

        usage = response.usage
        details = usage.prompt_tokens_details if usage else None
        cached = (details.cached_tokens or 0) if details else 0
        # OpenAI counts cached tokens inside prompt_tokens; input_tokens here excludes them, as Anthropic's.
        input_tokens = (usage.prompt_tokens - cached) if usage else 0
        # What the model wrote, reasoning included: OpenAI counts reasoning inside completion_tokens, xAI
        # beside it (in total_tokens only), so whichever is larger is what is billed.
        written = (usage.total_tokens or 0) - usage.prompt_tokens if usage else 0
        output_tokens = max(usage.completion_tokens, written) if usage else 0
        served_by = (response.model or model).removeprefix(self._vendor.served_model_prefix)
        if not response.choices:
            return ProviderReply("", None, served_by, input_tokens, output_tokens)
        choice = response.choices[0]
        message = choice.message
        refusal = message.refusal
        if refusal is None and not message.content and choice.finish_reason == "content_filter":
            refusal = "the reply was withheld by the provider's content filter"
        content = None if refusal is not None else _parse_json_text(message.content or "")
        if task.tools and isinstance(content, dict) and set(content) == {"reply"}:
            content = content["reply"]  # the run's one reply: this role's form of it
        return ProviderReply(
            content,
            refusal,
            served_by,
            input_tokens,
            output_tokens,
            truncated=choice.finish_reason == "length",
            output_limit=limit,
            cache_read_tokens=cached,
        )
