"""ScriptedProvider: a Provider whose replies a test decides, kind by kind.

Per task kind (suitability, decompose, argue, moderate, adjudicate) a test can
queue replies, install a callable, make the Nth call raise, refuse, or sleep. Anything not scripted
is delegated to the OfflineReasoner, so a run always completes. Every call is recorded, and every
reply is billed `input_tokens`/`output_tokens` on a model with a known price, so the usage ledger,
cost accounting and the budget can be tested.

    provider = ScriptedProvider().queue("moderate", view).fail("argue", TransientError("busy"))
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.offline import OfflineReasoner

PRICED_MODEL = "claude-sonnet-4-6"  # $3 / $15 per million tokens


@dataclass(frozen=True)
class Refuse:
    """A scripted reply that is a refusal (the provider declined), not an exception."""

    reason: str = "I can't help with that."


@dataclass(frozen=True)
class Call:
    kind: str
    role: str
    inputs: BaseModel
    model: str
    feedback: str | None
    n: int  # 1-based: the nth call of this kind
    temperature: float | None
    prompt: str = ""  # the rendered system and user prompt, as the model reads them


# What a scripted reply may be: an output model, raw JSON-ish content (dict, or a str that may not
# even be JSON), a Refuse, or an exception instance to raise.
ScriptedReply = BaseModel | dict[str, Any] | str | Refuse | BaseException
Responder = Callable[[Task[Any]], ScriptedReply | None]  # None: fall through to the offline reasoner


class ScriptedProvider:
    name = "scripted"
    sends_temperature = True

    def __init__(
        self,
        *,
        model: str | None = PRICED_MODEL,
        input_tokens: int = 1000,
        output_tokens: int = 200,
        name: str = "scripted",
    ) -> None:
        self.name = name
        self.model = model  # None: report the model the router asked for
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.calls: list[Call] = []
        self._offline = OfflineReasoner()
        self._lock = threading.Lock()
        self._queues: dict[str, list[ScriptedReply]] = {}
        self._responders: dict[str, Responder] = {}
        self._failures: dict[tuple[str, int], BaseException] = {}
        self._delays: dict[str, float] = {}
        self._meetings: dict[str, threading.Barrier] = {}

    # ------------------------------------------------------------ scripting (chainable)

    def queue(self, kind: str, *replies: ScriptedReply) -> ScriptedProvider:
        """The next calls of `kind` get these replies in order; then the responder or the default."""
        self._queues.setdefault(kind, []).extend(replies)
        return self

    def respond(self, kind: str, fn: Responder) -> ScriptedProvider:
        """Every call of `kind` (once its queue is empty) is answered by `fn(task)`."""
        self._responders[kind] = fn
        return self

    def fail(self, kind: str, error: BaseException, on_call: int = 1) -> ScriptedProvider:
        """Raise `error` on the `on_call`th call of `kind` (1-based); other calls behave normally."""
        self._failures[(kind, on_call)] = error
        return self

    def refuse(self, kind: str, reason: str = "I can't help with that.") -> ScriptedProvider:
        return self.respond(kind, lambda task: Refuse(reason))

    def sleep(self, kind: str, seconds: float) -> ScriptedProvider:
        self._delays[kind] = seconds
        return self

    def meet(self, kind: str, parties: int = 2) -> ScriptedProvider:
        """Calls of `kind` wait for each other, `parties` at a time, before answering: calls made one
        after the other never meet, and the first fails with BrokenBarrierError (after 60 s), so a test
        proves calls run at once by structure, not by a clock."""
        self._meetings[kind] = threading.Barrier(parties, timeout=60)
        return self

    # ------------------------------------------------------------ inspection

    def calls_of(self, kind: str) -> list[Call]:
        with self._lock:
            return [c for c in self.calls if c.kind == kind]

    def kinds(self) -> list[str]:
        with self._lock:
            return [c.kind for c in self.calls]

    # ------------------------------------------------------------ the Provider protocol

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        with self._lock:
            n = sum(1 for c in self.calls if c.kind == task.kind) + 1
            rendered = task.system_text + "\n" + task.user_text
            self.calls.append(
                Call(task.kind, task.role, task.inputs, model, feedback, n, task.temperature, rendered)
            )
            failure = self._failures.get((task.kind, n))
            queued = self._queues.get(task.kind)
            # A failing call does not use up a queued reply: the retry gets it.
            scripted: ScriptedReply | None = queued.pop(0) if queued and failure is None else None
            responder = self._responders.get(task.kind)
        if task.kind in self._delays:
            time.sleep(self._delays[task.kind])
        if task.kind in self._meetings:
            self._meetings[task.kind].wait()
        if failure is not None:
            raise failure
        if scripted is None and responder is not None:
            scripted = responder(task)
        if scripted is None:
            scripted = self._offline.complete(task, "offline", feedback).content
        return self._reply(scripted, model)

    def _reply(self, scripted: ScriptedReply, model: str) -> ProviderReply:
        if isinstance(scripted, BaseException):
            raise scripted
        used = self.model or model
        if isinstance(scripted, Refuse):
            return ProviderReply(None, scripted.reason, used, self.input_tokens, self.output_tokens)
        content = scripted.model_dump(mode="json") if isinstance(scripted, BaseModel) else scripted
        return ProviderReply(content, None, used, self.input_tokens, self.output_tokens)
