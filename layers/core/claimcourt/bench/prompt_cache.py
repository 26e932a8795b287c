"""The providers' prompt caches, simulated over one run's requests in the order they were made: what
each request reads from the cache and writes to it, by the rules the providers document. The played
corpus's loopback server (`played_server.py`) reports its usage by them, and `prompt_cost.py` bills a
run's calls by them, so the two agree.

- **Anthropic** (platform.claude.com, "Prompt caching", as read 2026-11): the prefix is the tools, then
  the system blocks, then the messages, up to a block carrying `cache_control` (a breakpoint, at most 4
  a request). A request whose prefix at a breakpoint was written before reads it; else it looks back
  up to 20 blocks for a prefix an earlier request wrote (at its own breakpoint), reads that, and writes
  the rest up to the breakpoint. A prefix shorter than the model's minimum is not cached at all (1,024
  tokens for Sonnet; 4,096 for Opus 4.5/4.6 and Haiku 4.5; 2,048 for Haiku 3.5). A changed
  `tool_choice` invalidates only the messages' cache, so an entry inside the messages is keyed by it.
- **OpenAI** (developers.openai.com, "Prompt caching"): automatic. The prompt from 1,024 tokens on, in
  steps of 128, is cached; a request reads the longest such prefix an earlier request sent. The reply's
  schema (`response_format`) is a prefix of the system message, so only calls with the same schema share.
- **Both**: an entry is readable only once the response that writes it has begun, so calls made at the
  same time cannot read each other's writes: the calls of one step (`CallContext.step`: the branches of
  a Parallel state, the items of a Map) each write what none could read. A lane's calls, and the steps,
  follow one another. The cache lives 5 minutes from its last use, longer than a run's gaps; caches are
  per model, and per organisation, which this run alone is (a second run within 5 minutes would read
  the rules and tools the first wrote: not counted).

Tokens are characters / 4 (`played_corpus.CHARS_PER_TOKEN`), the played corpus's measure.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from claimcourt.bench.played_corpus import CHARS_PER_TOKEN
from claimcourt.reasoning import anthropic_provider
from claimcourt.reasoning.base import RUN_HEADER, STEP_HEADER, ProviderReply, Task, call_headers

Protocol = Literal["anthropic", "openai"]

# What the Messages API adds to the input for a forced tool (tool_choice "tool"), in tokens: its tool-use
# system prompt (Claude 4 models: 313) and a message's framing.
ANTHROPIC_TOOL_PROMPT_TOKENS = 313
ANTHROPIC_MESSAGE_TOKENS = 4
# Chat Completions: about 3 tokens a message, and 3 that prime the reply.
OPENAI_MESSAGE_TOKENS = 3
OPENAI_REPLY_TOKENS = 3
# Anthropic: the fewest tokens a breakpoint's prefix must hold to be cached, by model family (the
# longest matching prefix decides; any other model: 1,024).
ANTHROPIC_MIN_TOKENS = {
    "claude-opus-4-5": 4096,
    "claude-opus-4-6": 4096,
    "claude-opus-4-7": 2048,
    "claude-haiku-4-5": 4096,
    "claude-3-5-haiku": 2048,
}
ANTHROPIC_DEFAULT_MIN_TOKENS = 1024
ANTHROPIC_LOOKBACK_BLOCKS = 20
# OpenAI: the first cacheable block, then its increments.
OPENAI_FIRST_TOKENS = 1024
OPENAI_STEP_TOKENS = 128


@dataclass(frozen=True)
class CacheUsage:
    """One request's input, in tokens: in all, read from the cache, written to it (the rest is
    billed as plain input). Anthropic reports the three apart; OpenAI counts `read` inside `total`."""

    total: int
    read: int = 0
    write: int = 0

    @property
    def uncached(self) -> int:
        return self.total - self.read - self.write


@dataclass(frozen=True)
class Caller:
    """Which call sent a request: its step and lane (`reasoning.base.STEP_HEADER`, `step/lane`)."""

    step: str = ""
    lane: str = ""

    @classmethod
    def parse(cls, header: str | None) -> Caller:
        if not header:
            return cls()
        step, _, lane = header.rpartition("/")
        return cls(step, lane)

    def sees(self, writer: Caller) -> bool:
        """Whether an entry `writer` wrote can be read by this caller: not when both run at once."""
        return not (self.step and writer.step == self.step and writer.lane != self.lane)


def min_tokens(model: str) -> int:
    matches = [name for name in ANTHROPIC_MIN_TOKENS if model.startswith(name)]
    return ANTHROPIC_MIN_TOKENS[max(matches, key=len)] if matches else ANTHROPIC_DEFAULT_MIN_TOKENS


@dataclass
class PromptCache:
    """The cache entries of one run's requests, shared by both protocols (thread-safe: a server's
    handlers call it at once)."""

    _entries: dict[str, set[Caller]] = field(default_factory=dict)  # an entry's key → who wrote it
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def use(self, protocol: Protocol, body: dict[str, Any], caller: Caller = Caller()) -> CacheUsage:
        """What this request reads and writes (and it records what it writes)."""
        with self._lock:
            if protocol == "anthropic":
                return self._anthropic(body, caller)
            return self._openai(body, caller)

    def _visible(self, key: str, caller: Caller) -> bool:
        return any(caller.sees(writer) for writer in self._entries.get(key, ()))

    def _write(self, key: str, caller: Caller) -> None:
        self._entries.setdefault(key, set()).add(caller)

    def _anthropic(self, body: dict[str, Any], caller: Caller) -> CacheUsage:
        total = input_tokens("anthropic", body)
        blocks = anthropic_blocks(body)
        model = str(body.get("model"))
        least = min_tokens(model) * CHARS_PER_TOKEN
        choice = json.dumps(body.get("tool_choice"), sort_keys=True)
        ends, keys, length = [], [], 0
        digest = hashlib.sha256(model.encode())
        for text, level, _ in blocks:
            digest.update(text.encode() + b"\x1f")  # a block's end is part of the prefix it ends
            length += len(text)
            # an entry ending inside the messages depends on tool_choice too
            key = digest.hexdigest() + (f"|{choice}" if level == "messages" else "")
            ends.append(length)
            keys.append(key)
        breakpoints = [i for i, (_, _, marked) in enumerate(blocks) if marked and ends[i] >= least]
        if not breakpoints:
            return CacheUsage(total)
        read = 0
        for b in breakpoints:
            for i in range(b, max(-1, b - ANTHROPIC_LOOKBACK_BLOCKS), -1):
                if self._visible(keys[i], caller):
                    read = max(read, ends[i])
                    break
        for b in breakpoints:
            if not self._visible(keys[b], caller):
                self._write(keys[b], caller)
        write = max(0, ends[breakpoints[-1]] - read)
        return _tokens(total, read, write)

    def _openai(self, body: dict[str, Any], caller: Caller) -> CacheUsage:
        total = input_tokens("openai", body)
        text = openai_prefix(body)
        model = str(body.get("model"))
        read = 0
        end = OPENAI_FIRST_TOKENS * CHARS_PER_TOKEN
        while end <= len(text):
            key = hashlib.sha256((model + "\x00" + text[:end]).encode()).hexdigest()
            if self._visible(key, caller):
                read = end
            else:
                self._write(key, caller)
            end += OPENAI_STEP_TOKENS * CHARS_PER_TOKEN
        return CacheUsage(total, min(read // CHARS_PER_TOKEN, total), 0)


def _tokens(total: int, read_chars: int, write_chars: int) -> CacheUsage:
    """Characters as tokens, the written part as the difference of two prefixes' counts, so that what
    one call reads and writes adds up to what a later call reads of the same prefix."""
    read = min(read_chars // CHARS_PER_TOKEN, total)
    write = (read_chars + write_chars) // CHARS_PER_TOKEN - read
    return CacheUsage(total, read, max(0, min(write, total - read)))


# ---------------------------------------------------------------- reading a request


def text_of(content: Any) -> str:
    """A message's or system's text: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def _blocks(content: Any) -> list[tuple[str, bool]]:
    if isinstance(content, list):
        return [(text_of([b]), isinstance(b, dict) and "cache_control" in b) for b in content]
    return [(text_of(content), False)]


def anthropic_blocks(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The request's blocks in the API's order, as (text, level, breakpoint after it): each tool (and
    the tool-use system prompt the API adds after them), each system block, each message block."""
    found: list[tuple[str, str, bool]] = []
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    for tool in tools:
        plain = {k: v for k, v in tool.items() if k != "cache_control"}
        found.append((json.dumps(plain), "tools", "cache_control" in tool))
    if tools:
        found.append(("\x00" * (ANTHROPIC_TOOL_PROMPT_TOKENS * CHARS_PER_TOKEN), "tools", False))
    found += [(text, "system", marked) for text, marked in _blocks(body.get("system"))]
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        found += [(text, "messages", marked) for text, marked in _blocks(content)]
    return found


def openai_prefix(body: dict[str, Any]) -> str:
    """The text OpenAI's cache matches prefixes of: the reply's schema, then the messages in order."""
    schema = json.dumps(body.get("response_format") or {})
    messages = [text_of(m.get("content")) for m in body.get("messages") or [] if isinstance(m, dict)]
    return "\x00".join([schema, *messages])


def input_tokens(protocol: Protocol, body: dict[str, Any]) -> int:
    """The request's input as the API would count it: its text and schemas at 4 characters a token,
    plus what the API adds around them (the tool-use system prompt, the messages' framing)."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    chars = sum(len(text_of(m.get("content"))) for m in messages)
    if protocol == "anthropic":
        chars += len(text_of(body.get("system")))
        tools = [{k: v for k, v in t.items() if k != "cache_control"} for t in body.get("tools") or []]
        chars += len(json.dumps(tools))
        extra = ANTHROPIC_TOOL_PROMPT_TOKENS if tools else 0
        return chars // CHARS_PER_TOKEN + extra + ANTHROPIC_MESSAGE_TOKENS
    chars += len(json.dumps(body.get("response_format") or {}))
    return chars // CHARS_PER_TOKEN + OPENAI_MESSAGE_TOKENS * len(messages) + OPENAI_REPLY_TOKENS


# ---------------------------------------------------------------- metering the offline reasoner

METER_OUTPUT_LIMIT = 4096  # the providers' default output limit: in the request, not in its input


class Meter:
    """Bills the offline reasoner's calls as Anthropic would bill them at `model`: each call's request
    as the Anthropic provider builds it (the run's tools, the shared opening and its breakpoints, the
    role's text, the prompt), through its run's prompt cache (the run and step headers name them), and
    the reply's characters / 4 as output. The scorecard and the rounds bench meter by it."""

    def __init__(self, model: str) -> None:
        self.model = model
        self._caches: dict[str, PromptCache] = {}
        self._lock = threading.Lock()

    def bill(self, task: Task[Any], reply: ProviderReply, feedback: str | None = None) -> ProviderReply:
        headers = call_headers()
        with self._lock:
            cache = self._caches.setdefault(headers.get(RUN_HEADER, ""), PromptCache())
        body = anthropic_provider.request_body(task, self.model, METER_OUTPUT_LIMIT, feedback)
        used = cache.use("anthropic", body, Caller.parse(headers.get(STEP_HEADER)))
        return replace(
            reply,
            model=self.model,
            input_tokens=used.uncached,
            cache_read_tokens=used.read,
            cache_write_tokens=used.write,
            output_tokens=len(json.dumps(reply.content)) // CHARS_PER_TOKEN,
        )
