"""The Anthropic provider: structured output by forced tool use over the official SDK.

The SDK (2.x) sends `anthropic-version: 2026-10-21`, which rejects `temperature`, `top_p` and `top_k`
with a 400 even at their defaults, and its `messages.create` no longer accepts them: so
`Task.temperature` is not sent here. Every model runs at its natural sampling.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

import anthropic
from anthropic.types import (
    CacheControlEphemeralParam,
    Message,
    TextBlockParam,
    ToolChoiceToolParam,
    ToolParam,
)

from claimcourt.errors import ProviderError, TransientError
from claimcourt.reasoning.base import (
    ProviderReply,
    Task,
    call_headers,
    correction,
    retry_malformed,
)

TOOL_NAME = "submit"

# What the SDK itself retries (408 timeout, 409 lock, 429 rate limit, 5xx incl. 529 overloaded):
# once its retries are spent, the ASL's retry of TransientError gets a later, second chance.
_TRANSIENT_STATUS = frozenset({408, 409, 429})
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


def is_transient_status(status: int) -> bool:
    return status in _TRANSIENT_STATUS or status >= 500


def redact(text: str, secret: str | None) -> str:
    """Strip the key from an error message: some servers echo it back."""
    if secret:
        text = text.replace(secret, "[redacted]")
    return re.sub(r"\bsk-[A-Za-z0-9_\-*]{6,}", "sk-[redacted]", text)


def raise_mapped(err: anthropic.AnthropicError, what: str, max_retries: int, api_key: str | None) -> NoReturn:
    """Turn an SDK error (raised after its own retries) into TransientError or ProviderError.

    The message names the status, error type and request id; never the key. The SDK error is not
    chained (`from None`): its text embeds the raw response body, which is not ours to log."""
    if isinstance(err, anthropic.APIStatusError):
        detail = redact(err.api_message or "", api_key) or "no message"
        kind = err.type or "unknown_error"
        request_id = f" (request-id {err.request_id})" if err.request_id else ""
        if is_transient_status(err.status_code):
            raise TransientError(
                f"{what}: HTTP {err.status_code} {kind} after {max_retries} retries: {detail}{request_id}"
            ) from None
        raise ProviderError(f"{what}: HTTP {err.status_code} {kind}: {detail}{request_id}") from None
    if isinstance(err, anthropic.APITimeoutError):
        raise TransientError(f"{what}: request timed out after {max_retries} retries") from None
    if isinstance(err, anthropic.APIConnectionError):
        raise TransientError(f"{what}: could not connect after {max_retries} retries") from None
    raise ProviderError(f"{what}: {type(err).__name__}: {redact(str(err), api_key)}") from None


def message_problem(response: object) -> str | None:
    """What makes a parsed 200 body unusable as a Messages reply (None: nothing). The SDK builds its
    Message without validating, so `{}` or `null` reach here."""
    if not isinstance(response, Message):
        return f"a {type(response).__name__} body, not a message"
    if not isinstance(response.content, list) or response.usage is None:
        return "a message without content or usage"
    return None


def parse_json_text(text: str) -> Any:
    """JSON from a text reply (``` fences stripped); the raw text when it is not JSON, so the
    Reasoner's validation retry can say what was wrong."""
    match = _FENCE.match(text)
    candidate = match.group(1) if match else text
    try:
        return json.loads(candidate)
    except ValueError:
        return text


CACHE_BREAKPOINT: CacheControlEphemeralParam = {"type": "ephemeral"}  # the 5-minute cache


def tool_name(task: Task[Any]) -> str:
    """The forced tool's name: the task's kind among the run's tools, else the one `submit` tool."""
    return task.kind if task.tools else TOOL_NAME


def request_body(task: Task[Any], model: str, max_tokens: int, feedback: str | None = None) -> dict[str, Any]:
    """The Messages request for one attempt of `task`, as sent (without its headers).

    Prompt caching: the run's shared prefix (`task.shared`, after the run's tools) goes as system
    blocks, a `cache_control` breakpoint after each marked one; the role's own system text follows as a
    last block. With `task.cache_prompt`, the user prompt is a block with a breakpoint of its own, and
    what follows it (the addendum, a correction) comes as blocks after it. A changed `tool_choice`
    leaves the tools' and the system's cache in place (it invalidates only the messages'), so every role
    reads the prefix the others wrote. A task with no shared prefix sends plain strings, as before."""
    tools: list[ToolParam] = [
        {
            "name": t.name,
            "description": f"Submit your {t.name} reply.",
            "input_schema": t.schema(),
        }
        for t in task.tools
    ] or [
        {
            "name": TOOL_NAME,
            "description": f"Submit your {task.kind} reply.",
            "input_schema": task.output_schema(),
        }
    ]
    system: str | list[TextBlockParam] = task.system_text
    if task.shared:
        system = [_block(s.text, s.cache) for s in task.shared]
        if task.system:
            system.append(_block(task.system))
    after = task.addendum + (correction(feedback) if feedback else "")
    content: str | list[TextBlockParam] = task.prompt + after
    if task.cache_prompt:
        content = [_block(task.prompt, cache=True)] + ([_block(after)] if after else [])
    choice: ToolChoiceToolParam = {"type": "tool", "name": tool_name(task)}
    return {
        "model": model,
        "max_tokens": max_tokens,
        "system": system,
        "messages": [{"role": "user", "content": content}],
        "tools": tools,
        "tool_choice": choice,
    }


def _block(text: str, cache: bool = False) -> TextBlockParam:
    block: TextBlockParam = {"type": "text", "text": text}
    if cache:
        block["cache_control"] = CACHE_BREAKPOINT
    return block


class AnthropicProvider:
    """Provider over Anthropic's Messages API; the reply is the input of a forced `submit` tool call."""

    name = "anthropic"
    sends_temperature = False  # the SDK's API version rejects it: every role runs at natural temperature

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None = None,
        max_retries: int = 3,
        timeout: float = 120.0,
        max_output_tokens: int = 4096,
        malformed_backoff_s: float = 0.5,
    ) -> None:
        self._api_key = api_key
        self._max_retries = max_retries
        self._max_output_tokens = max_output_tokens
        self._malformed_backoff_s = malformed_backoff_s  # the first wait before asking again, doubling
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    def __repr__(self) -> str:  # never the key
        return f"AnthropicProvider(base_url={str(self._client.base_url)!r})"

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        limit = task.max_output_tokens or self._max_output_tokens
        body = request_body(task, model, limit, feedback)
        what = f"anthropic {model}"
        headers = call_headers()  # which call this is (X-Claimcourt-Call): for proxies and the played corpus
        try:
            response = retry_malformed(
                lambda: self._client.messages.create(**body, extra_headers=headers),
                message_problem,
                what,
                self._max_retries,
                self._malformed_backoff_s,
            )
        except anthropic.AnthropicError as err:
            raise_mapped(err, what, self._max_retries, self._api_key)

        usage = response.usage
        texts = [block.text for block in response.content if block.type == "text"]
        content: Any = None
        refusal: str | None = None
        if response.stop_reason == "refusal":
            details = response.stop_details
            refusal = (details.explanation if details else None) or " ".join(texts).strip()
            if not refusal:
                category = details.category if details and details.category else "unspecified"
                refusal = f"the model refused (category: {category})"
        else:
            forced = tool_name(task)
            tool_inputs = [b.input for b in response.content if b.type == "tool_use" and b.name == forced]
            content = tool_inputs[0] if tool_inputs else parse_json_text("".join(texts))
        return ProviderReply(
            content=content,
            refusal=refusal,
            model=response.model or model,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            truncated=response.stop_reason == "max_tokens",
            output_limit=limit,
            cache_read_tokens=usage.cache_read_input_tokens or 0,
            cache_write_tokens=usage.cache_creation_input_tokens or 0,
        )
