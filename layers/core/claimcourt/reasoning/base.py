"""The call layer's types: a Task (what a role must produce), a Provider (who produces it) and the
Reasoner (routing, validation with one retry, refusals, usage ledger, per-run budget)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from claimcourt.errors import TransientError
from claimcourt.models import CallRecord
from claimcourt.prompts import Segment

OutT = TypeVar("OutT", bound=BaseModel)
ResponseT = TypeVar("ResponseT")


# A provider takes at most this many prompt-cache breakpoints in one request (Anthropic's limit).
MAX_BREAKPOINTS = 4


def without_key(
    schema: Any, key: str, *, keep_root: bool = False, names: bool = False, root: bool = True
) -> Any:
    """A JSON schema without the keyword `key` (a text or a number: a title, a description, a limit)
    anywhere in it (`keep_root`: but the root's). (`names`: this is a `properties` or `$defs` mapping,
    whose keys are names, so a field called `key` stays.)"""
    if isinstance(schema, dict):
        return {
            k: without_key(
                v,
                key,
                keep_root=keep_root,
                names=k in ("properties", "$defs", "definitions") and not names,
                root=False,
            )
            for k, v in schema.items()
            if names or (root and keep_root) or not (k == key and isinstance(v, str | int | float))
        }
    if isinstance(schema, list):
        return [without_key(v, key, keep_root=keep_root, root=False) for v in schema]
    return schema


def without_titles(schema: Any) -> Any:
    """A JSON schema without the `title`s pydantic gives every field and nested model, which only
    restate their names (a model reads the names; the titles were a sixth of every schema a call
    sent). The root's title stays: it names the reply's model."""
    return without_key(schema, "title", keep_root=True)


@dataclass(frozen=True)
class ReplyTool:
    """A role's reply as a tool (Anthropic's structured output): the tool named `name` takes `output`."""

    name: str
    output: type[BaseModel]

    def schema(self) -> dict[str, Any]:
        """The plain schema, with no call's limits in it: every call of a run sends the same tools. Without
        the fields' descriptions too: every call sends every role's tool, in the prefix it reads, and each
        role's prompt explains its own reply field by field (the descriptions said it again: 43 % of
        the tools' text)."""
        schema: dict[str, Any] = without_key(without_titles(self.output.model_json_schema()), "description")
        return schema


@dataclass(frozen=True)
class Task(Generic[OutT]):
    """One role's job. `inputs` is the structured truth; `shared`, `system` and `prompt` render it for an
    LLM, in that order: what the run's calls share first, so a provider can cache it (`shared` is sent
    before the role's own `system` text; the whole system text is `system_text`)."""

    kind: str  # suitability | decompose | argue | factcheck | moderate | adjudicate | …
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
    # The start of the system text every call of the run sends alike (the common rules, the claim,
    # the evidence pool as it grew), with its cache breakpoints.
    shared: tuple[Segment, ...] = ()
    # The reply tools every call of the run sends alike (this task's, named `kind`, among them), so
    # that the tools do not change the shared prefix; empty: this task's own tool alone.
    tools: tuple[ReplyTool, ...] = ()
    # A breakpoint after `prompt` too: for a prompt that later calls send again (the judge's samples).
    cache_prompt: bool = False
    # Sent after the prompt (and its breakpoint): what a call adds to a prompt others send as it is
    # (the re-deliberation's note to the judge).
    addendum: str = ""

    def __post_init__(self) -> None:
        if self.tools and not any(t.name == self.kind and t.output is self.output for t in self.tools):
            raise ValueError(f"{self.kind}: its reply tool is not among the run's tools")
        breakpoints = sum(s.cache for s in self.shared) + self.cache_prompt
        if breakpoints > MAX_BREAKPOINTS:
            raise ValueError(f"{self.kind}: {breakpoints} cache breakpoints, at most {MAX_BREAKPOINTS}")

    @property
    def system_text(self) -> str:
        """The whole system text, as the model reads it: the shared prefix, then the role's own."""
        return "".join(s.text for s in self.shared) + self.system

    @property
    def user_text(self) -> str:
        """The whole user prompt, as the model reads it (before any correction)."""
        return self.prompt + self.addendum

    def output_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = without_titles(self.output.model_json_schema())
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
    # The step of the state machine that makes the call. The calls of one step run at the same time,
    # one in each lane (the branches of a Parallel state, the items of a Map), so none of them can read
    # what another writes to a provider's prompt cache; a lane's calls follow one another. "": no call
    # runs beside this one. The lane defaults to the stage invocation's (stage, round, side).
    step: str = ""
    lane: str = ""

    def key(self, task: Task[Any], suffix: str = "") -> str:
        return ":".join(str(p) for p in (self.stage, self.round, self.side, task.kind, suffix))

    def step_name(self) -> str:
        """What STEP_HEADER says: `<step>/<lane>`, or "" for a call that runs alone."""
        if not self.step:
            return ""
        return f"{self.step}/{self.lane or ':'.join((self.stage, str(self.round), self.side))}"


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


def correction(feedback: str) -> str:
    """What a correction adds after the prompt: the problems of the reply it asks again for."""
    return (
        f"\n\n<correction>\nYour previous reply was rejected. {feedback}\n"
        "Reply again, correcting exactly these problems and following the schema.\n</correction>"
    )


def with_feedback(prompt: str, feedback: str | None) -> str:
    return prompt + correction(feedback) if feedback else prompt


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


def retry_malformed(
    send: Callable[[], ResponseT],
    problem_of: Callable[[ResponseT], str | None],
    what: str,
    retries: int,
    backoff_s: float,
) -> ResponseT:
    """`send()` again when an HTTP 200's body is unreadable, as the SDKs retry a 529: `retries` more
    times, backing off (0.5 s, 1 s, … by default). The SDKs raise json.JSONDecodeError for an empty or
    cut-off body and hand back whatever other JSON they got unchecked, so `problem_of` says what is
    wrong with a response that did parse (None: it is usable). Still malformed after the retries: a
    TransientError, so the state machine tries the stage again later, naming what came back."""
    problem = ""
    for attempt in range(retries + 1):
        if attempt and backoff_s > 0:
            time.sleep(min(backoff_s * 2 ** (attempt - 1), 8.0))
        try:
            response = send()
        except (json.JSONDecodeError, UnicodeDecodeError) as err:  # the body is not JSON at all
            problem = f"a body that is not JSON ({type(err).__name__}: {err})"
            continue
        found = problem_of(response)
        if found is None:
            return response
        problem = found
    # Not chained: the SDK's error is about the body, and this message already says what was wrong.
    raise TransientError(
        f"{what}: the provider returned a malformed reply (HTTP 200 with {problem}) after {retries} retries"
    ) from None


# ---------------------------------------------------------------- which call a request is
# The Reasoner names every request a provider makes by its call key (CallContext.key), and the real
# providers send that name as request headers. Real APIs ignore them (they show in a proxy's logs);
# the played corpus's loopback server (claimcourt.bench.played_server) answers each request by it.
CALL_HEADER = "X-Claimcourt-Call"  # the key; a second or later attempt of one call: "<key>#<attempt>"
RUN_HEADER = "X-Claimcourt-Run"  # the run id
RETRY_HEADER = "X-Claimcourt-Retry"  # why an attempt after the first was made: correction | truncated
STEP_HEADER = "X-Claimcourt-Step"  # CallContext.step_name(): which calls run beside this one

_call_headers: ContextVar[Mapping[str, str] | None] = ContextVar("claimcourt_call_headers", default=None)


def call_name(key: str, attempt: int) -> str:
    """What CALL_HEADER says for one attempt of the call `key` (attempts count from 1)."""
    return key if attempt <= 1 else f"{key}#{attempt}"


@contextmanager
def naming_call(
    run_id: str, key: str, attempt: int, retry: str | None = None, step: str = ""
) -> Iterator[None]:
    """While a provider makes this attempt of the call: `call_headers()` names it."""
    headers = {CALL_HEADER: call_name(key, attempt), RUN_HEADER: run_id}
    if retry is not None:
        headers[RETRY_HEADER] = retry
    if step:
        headers[STEP_HEADER] = step
    token = _call_headers.set(headers)
    try:
        yield
    finally:
        _call_headers.reset(token)


def call_headers() -> dict[str, str]:
    """The headers naming the call being made (empty outside `Reasoner.call`), for a provider to send
    with its request."""
    return dict(_call_headers.get() or {})
