"""The played corpus's loopback server: Anthropic Messages and OpenAI Chat Completions on 127.0.0.1,
answering every request from a played run's replies by the call it is.

The real providers send the Reasoner's call key as `X-Claimcourt-Call` (`reasoning.base.CALL_HEADER`),
so parallel calls (for ∥ against, the fact-checkers, the judge's samples) and small changes in a
prompt's wording still find their reply. A reply is shaped as the real API shapes it:

- Anthropic (`POST /v1/messages`): a `tool_use` block calling the tool the request forced, with the
  reply as its input; `stop_reason` tool_use (max_tokens for a reply played as cut off, refusal with
  `stop_details` for a refusal); `usage` with input, output and prompt-cache tokens.
- OpenAI (`POST /v1/chat/completions`): `choices[0].message.content` the reply's JSON
  (`finish_reason` length and the JSON cut short for a cut-off reply; `message.refusal` for a
  refusal); `usage` with `prompt_tokens_details.cached_tokens`.

Input tokens are counted from the request as sent (characters / 4, plus what the API adds: the tool-use
system prompt for a forced tool, per-message framing), so they follow the prompts. Prompt caching is
played as the APIs do it, by the rules `bench/prompt_cache.py` simulates (`prompt_cost.py` bills by the
same): OpenAI caches automatically (the longest prefix an earlier request sent, from 1,024 tokens in
steps of 128, after the same reply schema), Anthropic only up to a `cache_control` breakpoint (written
once, read after, the lookback finding an earlier breakpoint's entry). Requests of one step of the state
machine (`X-Claimcourt-Step`: the debaters, the fact-checkers beside the moderator, the judge's first
samples) run at once and cannot read each other's writes, so a replay's usage does not depend on which
of them arrived first.

Every request is recorded. A request whose call has no reply in the corpus gets a 404 that names the
call (the SDKs do not retry it; the stage fails with the reason), and, given a folder, its rendered
prompt is written there as `<key>.prompt.md` (for the writer to read) beside `<key>.prompt.json` (for
`played add`).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from claimcourt.bench.loopback import LoopbackServer, Reply, Request
from claimcourt.bench.played_corpus import PlayedCall, PlayedPrompt
from claimcourt.bench.prompt_cache import Caller, PromptCache, text_of
from claimcourt.debate.prefix import JUDGE_TOOLS, ROLE_TOOLS
from claimcourt.reasoning.base import CALL_HEADER, RETRY_HEADER, RUN_HEADER, STEP_HEADER

Protocol = Literal["anthropic", "openai"]
ANTHROPIC_PATH = "/v1/messages"
OPENAI_PATH = "/v1/chat/completions"
# A correction's text, as the providers append it to the user prompt (reasoning.base.correction).
CORRECTION = "\n\n<correction>\n"


@dataclass
class Served:
    """One request the server received, and what it answered."""

    protocol: Protocol
    key: str | None  # the X-Claimcourt-Call header (None: the request did not say)
    run_id: str | None
    retry: str | None  # X-Claimcourt-Retry: correction | truncated
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any]
    prompt: PlayedPrompt
    status: int = 200
    answered: bool = False
    stale: bool = False  # the stored prompt differs from the one sent
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class PlayedServer(LoopbackServer):
    """Serves one played run's replies; `anthropic_url` and `openai_url` are the SDKs' base URLs."""

    keep_alive = True  # as the SDKs' connection pools expect

    def __init__(
        self,
        calls: Mapping[str, PlayedCall],
        prompts_dir: Path | None = None,
        name: str = "played",
    ) -> None:
        self.calls = calls
        self.prompts_dir = prompts_dir
        self.name = name
        self.requests: list[Served] = []
        self.prompt_files: dict[str, Path] = {}  # a call with no reply → its prompt, written
        self._cache = PromptCache()  # the provider's prompt cache, as the run's requests fill it
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        super().__init__()

    @property
    def anthropic_url(self) -> str:
        return self.base_url

    @property
    def openai_url(self) -> str:
        return f"{self.base_url}/v1"

    def missing(self) -> list[str]:
        """The calls asked for that have no reply, in the order first asked."""
        with self._lock:
            return list(dict.fromkeys(r.key or "(no call header)" for r in self.requests if not r.answered))

    def stale(self) -> list[str]:
        """Calls answered whose stored prompt is not the one sent now (the prompt has changed since)."""
        with self._lock:
            return list(dict.fromkeys(r.key for r in self.requests if r.stale and r.key))

    def unused(self) -> list[str]:
        """Replies in the corpus no request asked for."""
        with self._lock:
            asked = {r.key for r in self.requests}
        return [key for key in self.calls if key not in asked]

    # ------------------------------------------------------------ answering

    def answer(self, request: Request) -> Reply:
        status, payload = self.reply(request.path, request.headers, request.body)
        request_id = f"req_played{len(self.requests):06d}"
        headers = {"request-id": request_id, "x-request-id": request_id}  # Anthropic's, OpenAI's
        if status != 200:
            headers["x-should-retry"] = "false"
        return Reply.json(status, payload, headers)

    def reply(self, path: str, headers: dict[str, str], body: Any) -> tuple[int, dict[str, Any]]:
        protocol: Protocol | None = (
            "anthropic" if path == ANTHROPIC_PATH else "openai" if path == OPENAI_PATH else None
        )
        if protocol is None or not isinstance(body, dict):
            return 404, _openai_error(
                f"the played server serves {ANTHROPIC_PATH} and {OPENAI_PATH}, not {path}"
            )
        served = Served(
            protocol=protocol,
            key=headers.get(CALL_HEADER.lower()),
            run_id=headers.get(RUN_HEADER.lower()),
            retry=headers.get(RETRY_HEADER.lower()),
            headers=headers,
            body=body,
            prompt=_prompt_of(protocol, body),
        )
        with self._lock:
            self.requests.append(served)
            entry = self.calls.get(served.key) if served.key else None
            if entry is None:
                served.status = 404
                message = self._unanswered(served)
                if protocol == "anthropic":
                    return 404, _anthropic_error("not_found_error", message)
                return 404, _openai_error(message, code="played_reply_missing")
            served.answered = True
            served.stale = entry.prompt != served.prompt
            self._count(served, entry)
            n = next(self._ids)
        if protocol == "anthropic":
            return 200, _anthropic_message(body, entry, served, n)
        return 200, _openai_completion(body, entry, served, n)

    def _unanswered(self, served: Served) -> str:
        if served.key is None:
            return (
                f"played corpus {self.name!r}: the request carries no {CALL_HEADER} header, so its call "
                "is unknown (is it made outside Reasoner.call?)"
            )
        message = f"played corpus {self.name!r} has no reply for call {served.key!r}"
        if self.prompts_dir is not None:
            path = self._write_prompt(served)
            message += f"; its prompt is at {path}"
        return message

    def _write_prompt(self, served: Served) -> Path:
        assert served.key is not None and self.prompts_dir is not None
        self.prompts_dir.mkdir(parents=True, exist_ok=True)
        kind = served.key.split("#")[0].split(":")[3] if served.key.count(":") >= 3 else None
        schema, schema_name, limit = _schema_of(served.protocol, served.body, kind)
        pending = {
            "run": self.name,
            "key": served.key,
            "retry": served.retry,
            "protocol": served.protocol,
            "model": served.body.get("model"),
            "max_tokens": limit,
            "schema_name": schema_name,
            "schema": schema,
            "prompt": served.prompt.model_dump(),
        }
        base = self.prompts_dir / served.key
        Path(f"{base}.prompt.json").write_text(json.dumps(pending, indent=2, ensure_ascii=False) + "\n")
        md = Path(f"{base}.prompt.md")
        md.write_text(render_prompt_md(pending), encoding="utf-8")
        self.prompt_files[served.key] = md
        return md

    def _count(self, served: Served, entry: PlayedCall) -> None:
        """The usage the API would report for this request: its prompt cache simulated over the run's
        requests as they came (bench/prompt_cache.py), calls of one step unable to read each other's."""
        caller = Caller.parse(served.headers.get(STEP_HEADER.lower()))
        used = self._cache.use(served.protocol, served.body, caller)
        read, write = used.read, used.write
        # A reply may declare its uncached input (a real API's count): the cache's tokens come on top.
        uncached = entry.usage.input_tokens if entry.usage.input_tokens is not None else used.uncached
        served.cache_read_tokens, served.cache_write_tokens = read, write
        # Anthropic's input_tokens excludes the cache's tokens; OpenAI's prompt_tokens includes them.
        served.input_tokens = uncached + read if served.protocol == "openai" else uncached
        limit = _schema_of(served.protocol, served.body)[2]
        cut = entry.stop_reason == "max_tokens"
        served.output_tokens = limit if cut and limit else entry.usage.output_tokens


# ---------------------------------------------------------------- reading a request


def _prompt_of(protocol: Protocol, body: dict[str, Any]) -> PlayedPrompt:
    """The system text and the user prompt as sent (a correction, if any, is part of the user prompt)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    if protocol == "anthropic":
        system = text_of(body.get("system"))
        user = "".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")
    else:
        system = "".join(
            text_of(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
        )
        user = "".join(text_of(m.get("content")) for m in messages if m.get("role") == "user")
    return PlayedPrompt(system=system, user=user)


def _schema_of(
    protocol: Protocol, body: dict[str, Any], kind: str | None = None
) -> tuple[dict[str, Any], str, int | None]:
    """(the reply's JSON schema, its name, the output token limit) as the request sent them: under a
    claim debate's one reply schema (OpenAI's), the form of it that is the reply of the call's `kind`."""
    if protocol == "anthropic":
        tool = _forced_tool(body)
        schema = tool.get("input_schema") or {}
        return schema, str(schema.get("title") or tool.get("name") or ""), body.get("max_tokens")
    json_schema = ((body.get("response_format") or {}).get("json_schema")) or {}
    schema = json_schema.get("schema") or {}
    limit = body.get("max_completion_tokens") or body.get("max_tokens")
    form = ROLE_FORMS.get(kind or "")
    if form is not None and _one_reply(schema) and form in (schema.get("$defs") or {}):
        return {"$defs": schema["$defs"], **schema["$defs"][form]}, form, limit
    return schema, str(json_schema.get("name") or schema.get("title") or ""), limit


# The reply each role of a claim debate gives: its form of the run's one reply schema.
ROLE_FORMS = {t.name: t.output.__name__ for t in (*ROLE_TOOLS, *JUDGE_TOOLS.values())}


def _one_reply(schema: dict[str, Any]) -> bool:
    """Whether a schema is a claim debate's one reply (its only field `reply`: any role's)."""
    return set(schema.get("properties") or {}) == {"reply"}


def _forced_tool(body: dict[str, Any]) -> dict[str, Any]:
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    choice = body.get("tool_choice") or {}
    named = choice.get("name") if isinstance(choice, dict) and choice.get("type") == "tool" else None
    for tool in tools:
        if named is None or tool.get("name") == named:
            return tool
    return {}


# ---------------------------------------------------------------- answering as the APIs do


def _anthropic_message(body: dict[str, Any], entry: PlayedCall, served: Served, n: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    stop_details: dict[str, Any] | None = None
    if entry.refusal is not None:
        stop_reason = "refusal"
        stop_details = {"type": "refusal", "category": entry.refusal_category, "explanation": entry.refusal}
    else:
        tool = _forced_tool(body)
        name = tool.get("name") or "submit"
        content.append(
            {"type": "tool_use", "id": f"toolu_played{n:014d}", "name": name, "input": entry.reply}
        )
        stop_reason = "max_tokens" if entry.stop_reason == "max_tokens" else "tool_use"
    return {
        "id": f"msg_played{n:016d}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model"),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "stop_details": stop_details,
        "usage": {
            "input_tokens": served.input_tokens,
            "cache_creation_input_tokens": served.cache_write_tokens,
            "cache_read_input_tokens": served.cache_read_tokens,
            "output_tokens": served.output_tokens,
            "service_tier": "standard",
        },
    }


# The snapshot OpenAI answers for an alias (the response's model), where known.
OPENAI_SNAPSHOTS = {"gpt-4.1": "gpt-4.1-2025-04-14", "gpt-4.1-mini": "gpt-4.1-mini-2025-04-14"}


def _openai_completion(body: dict[str, Any], entry: PlayedCall, served: Served, n: int) -> dict[str, Any]:
    refusal = entry.refusal
    text: str | None = None
    finish_reason = "stop"
    if refusal is None:
        # Under a claim debate's one reply schema, the role's reply is its `reply`.
        wrapped = _one_reply(_schema_of("openai", body)[0])
        text = json.dumps({"reply": entry.reply} if wrapped else entry.reply, ensure_ascii=False)
        if entry.stop_reason == "max_tokens":
            text, finish_reason = text[: max(1, len(text) * 4 // 5)], "length"
    model = str(body.get("model"))
    return {
        "id": f"chatcmpl-played{n:016d}",
        "object": "chat.completion",
        "created": 1_767_225_600 + n,  # fixed: a replay is the same bytes
        "model": OPENAI_SNAPSHOTS.get(model, model),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": refusal, "annotations": []},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": served.input_tokens,
            "completion_tokens": served.output_tokens,
            "total_tokens": served.input_tokens + served.output_tokens,
            "prompt_tokens_details": {"cached_tokens": served.cache_read_tokens, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_played",
    }


def _anthropic_error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _openai_error(message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}


# ---------------------------------------------------------------- for the writer


def render_prompt_md(pending: dict[str, Any]) -> str:
    """A call's prompt as the writer reads it: who asks, the system text, the user prompt, the schema
    of the reply, and how to add the reply."""
    key, run = pending["key"], pending["run"]
    prompt = pending["prompt"]
    retry = pending.get("retry")
    lines = [
        f"# Played call `{key}` of `{run}`",
        "",
        f"The reply's schema: `{pending['schema_name']}`; output limit {pending['max_tokens']} tokens"
        + (f"; this attempt re-asks the call ({retry})." if retry else "."),
        "",
        "Answer as a careful state-of-the-art model would: read the system text and the prompt, then write",
        "the JSON the model returns (the tool's input), in real prose at real length. Save it to a file and:",
        "",
        "```sh",
        f"python -m claimcourt.bench.played add {run} '{key}' reply.json",
        "```",
        "",
        "## System",
        "",
        _fenced(prompt["system"]),
        "",
        "## User",
        "",
        _fenced(prompt["user"]),
        "",
        f"## Reply schema ({pending['schema_name']})",
        "",
        "```json",
        json.dumps(pending["schema"], indent=2, ensure_ascii=False),
        "```",
        "",
    ]
    return "\n".join(lines)


def _fenced(text: str) -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}text\n{text}\n{fence}"
