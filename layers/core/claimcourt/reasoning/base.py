"""The call layer's types: a Task (what a role must produce), a Provider (who produces it) and the
Reasoner (routing, validation with one retry, refusals, usage ledger, per-run budget)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from claimcourt.models import CallRecord

OutT = TypeVar("OutT", bound=BaseModel)


@dataclass(frozen=True)
class Task(Generic[OutT]):
    """One role's job. `inputs` is the structured truth; `system`/`prompt` render it for an LLM."""

    kind: str  # suitability | decompose | decompose_check | argue | moderate | adjudicate
    role: str  # a settings.ROLES name: picks the provider and model
    inputs: BaseModel
    output: type[OutT]
    system: str
    prompt: str
    temperature: float | None  # None: the model's natural temperature
    # Top-level list fields narrowed to this run's limits in the schema the model sees: {"points": (1, 4)}.
    array_limits: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    # What a schema cannot say (every sub-claim covered, each once): the problems found in a valid
    # reply. A reply with problems is asked again once, with them as feedback.
    check: Callable[[OutT], list[str]] | None = None
    # The reply's output token limit; None: the provider's configured one. Raised for a retry of a
    # reply that was cut off.
    max_output_tokens: int | None = None

    def output_schema(self) -> dict[str, Any]:
        schema = self.output.model_json_schema()
        for name, (low, high) in self.array_limits.items():
            schema["properties"][name] |= {"minItems": low, "maxItems": high}
        return schema

    def problems(self, output: OutT) -> list[str]:
        """What is wrong with a schema-valid reply: its count limits, then the task's own check."""
        found = []
        for name, (low, high) in self.array_limits.items():
            n = len(getattr(output, name))
            if not low <= n <= high:
                found.append(f"{name}: {n} items, but between {low} and {high} are required")
        return found + (self.check(output) if self.check else [])


@dataclass(frozen=True)
class ProviderReply:
    """What a provider returns: parsed JSON (or raw text if it was not JSON), or a refusal."""

    content: Any
    refusal: str | None
    model: str
    input_tokens: int
    output_tokens: int
    # Cut off at the output limit (max_tokens / length): what is left is not the reply.
    truncated: bool = False
    output_limit: int | None = None  # the limit the call ran with
    # Prompt-cache tokens, not counted in input_tokens: read from the cache, and written to it.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class Provider(Protocol):
    name: str
    sends_temperature: bool  # False: the API takes no temperature, so every call samples naturally

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        """One call. `feedback` is the validation error of the previous, malformed reply."""
        ...


@dataclass(frozen=True)
class CallContext:
    """Where a call happens; (run_id, key) makes it idempotent across Step Functions retries."""

    run_id: str
    stage: str
    round: int = 0
    side: str = ""
    # (provider, model) for this call instead of its role's: a motion debate's own line-up.
    route: tuple[str, str] | None = None

    def key(self, task: Task[Any], suffix: str = "") -> str:
        return ":".join(str(p) for p in (self.stage, self.round, self.side, task.kind, suffix))


class Ledger(Protocol):
    def get_call(self, run_id: str, call_key: str) -> CallRecord | None: ...

    def put_call(self, record: CallRecord) -> None: ...

    def run_spend(self, run_id: str) -> float: ...


@dataclass(frozen=True)
class Reply(Generic[OutT]):
    output: OutT | None
    refusal: str | None
    provider: str
    model: str
    replayed: bool = False  # True when a retried stage got the stored reply back


def validate_reply(task: Task[OutT], content: Any) -> OutT:
    """Parse a provider's content into the task's output model (raises ValidationError)."""
    if isinstance(content, str):
        return task.output.model_validate_json(content)
    return task.output.model_validate(content)


def describe_validation_error(err: ValidationError | ValueError) -> str:
    if isinstance(err, ValidationError):
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in err.errors()]
        return "Your reply did not match the required JSON schema: " + "; ".join(problems[:10])
    return f"Your reply was not valid JSON: {err}"
