"""Debates against a model provider that fails a share of its requests on purpose.

A server on 127.0.0.1 speaks Anthropic's Messages protocol. It answers each request with the
offline reasoner's reply to the same task (as a forced `submit` tool call, with token counts sized
from the prompt and the reply), except for a seeded share it fails: 529 overloaded, 500 or 429, or a
200 whose body is empty or cut off mid-JSON (the SDK cannot parse it; the provider asks again).
The runs go through everything a real deployment uses: the Anthropic SDK and its retries, the
provider's error mapping, the ASL's Retry of TransientError, the ledger and the budget. Prints:

- runs succeeded / failed / left running (the last must be 0: every run ends);
- requests the server received vs replies it completed, and the failures it injected;
- recorded cost (the runs' ledgers) vs actual cost (what the server's completed replies would be
  billed at the price table): equal when every paid reply is counted once.

    python -m claimcourt.bench.faults --runs 10 --fail 0.3
    python -m claimcourt.bench.faults --runs 5 --fail 0.6 --sdk-retries 1
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import random
import tempfile
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from claimcourt.bench.latency import CLAIMS
from claimcourt.bench.loopback import LoopbackServer, Reply, Request
from claimcourt.bench.prompt_cache import text_of
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import RunStatus, SourceTag
from claimcourt.reasoning.anthropic_provider import TOOL_NAME
from claimcourt.reasoning.base import Provider, ProviderReply, Task
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.prices import cost_usd
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run, parse_request, run_usage
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps, build_providers


@dataclass(frozen=True)
class Fault:
    label: str  # how the printout counts it
    status: int
    body: dict[str, Any] | bytes  # bytes: sent as is, not as JSON


def _error(kind: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": "injected failure"}}


# What an overloaded or throttled Anthropic API answers (each with a short Retry-After), and a 200
# whose body is not JSON: empty, or a message cut off mid-stream (a proxy or a dropped connection).
FAULTS = (
    Fault("529", 529, _error("overloaded_error")),
    Fault("500", 500, _error("api_error")),
    Fault("429", 429, _error("rate_limit_error")),
    Fault("200 empty", 200, b""),
    Fault("200 truncated", 200, b'{"id": "msg_bench", "type": "message", "content": [{"type": "tool_u'),
)
CHARS_PER_TOKEN = 4  # a rough tokenizer: the figures compare two counts of the same replies
CORRECTION = "\n\n<correction>\n"  # how reasoning.base.correction appends to the prompt


@dataclass
class Tally:
    requests: int = 0
    replies: int = 0
    failures: Counter[str] = field(default_factory=Counter)  # by Fault.label
    unscripted: int = 0  # a request whose prompt no task registered: a bench bug, shown if ever
    billed_usd: float = 0.0


class FlakyAnthropic(LoopbackServer):
    """The loopback provider: the offline reasoner's replies, a seeded share of failures."""

    def __init__(self, fail_share: float, seed: int, retry_after_ms: int) -> None:
        self.fail_share = fail_share
        self.retry_after_ms = retry_after_ms
        self.tally = Tally()
        self._rng = random.Random(seed)
        self._answers: dict[tuple[str, str], ProviderReply] = {}  # by (system, prompt)
        self._lock = threading.Lock()
        super().__init__()

    @property
    def url(self) -> str:
        return self.base_url

    def expect(self, system: str, prompt: str, reply: ProviderReply) -> None:
        with self._lock:
            self._answers[(system, prompt)] = reply

    def answer(self, request: Request) -> Reply:
        status, payload, headers = self.reply(request.body)
        return Reply.json(status, payload, headers)

    def reply(self, body: dict[str, Any]) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        with self._lock:
            self.tally.requests += 1
            if self._rng.random() < self.fail_share:
                fault = self._rng.choice(FAULTS)
                self.tally.failures[fault.label] += 1
                headers = {"retry-after-ms": str(self.retry_after_ms)} if fault.status >= 400 else {}
                return fault.status, fault.body, headers
            reply = self._answers.get((text_of(body.get("system")), _prompt_of(body)))
            if reply is None:
                self.tally.unscripted += 1
                error = {"type": "error", "error": {"type": "invalid_request_error", "message": "unknown"}}
                return 400, error, {}
            input_tokens = (
                len(text_of(body.get("system"))) + len(json.dumps(body["messages"]))
            ) // CHARS_PER_TOKEN
            output_tokens = len(json.dumps(reply.content)) // CHARS_PER_TOKEN + 20
            self.tally.replies += 1
            self.tally.billed_usd += cost_usd(body["model"], input_tokens, output_tokens)[0]
        forced = str((body.get("tool_choice") or {}).get("name") or TOOL_NAME)  # the tool the request forced
        return 200, _message(body["model"], reply, input_tokens, output_tokens, forced), {}


def _prompt_of(body: dict[str, Any]) -> str:
    """The task's prompt: the user message without the correction a retry appends to it."""
    text = text_of(body["messages"][0]["content"])
    return text.split(CORRECTION, 1)[0]


def _message(
    model: str, reply: ProviderReply, input_tokens: int, output_tokens: int, tool: str = TOOL_NAME
) -> dict[str, Any]:
    if reply.refusal is not None:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.refusal}]
        stop_reason = "refusal"
    else:
        content = [{"type": "tool_use", "id": "toolu_bench", "name": tool, "input": reply.content}]
        stop_reason = "tool_use"
    return {
        "id": "msg_bench",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


class PrimedProvider:
    """The real Anthropic provider, with the loopback server told the offline reasoner's answer to
    each task just before the provider asks for it."""

    name = "anthropic"
    sends_temperature = False

    def __init__(self, real: Provider, server: FlakyAnthropic) -> None:
        self.real = real
        self.server = server
        self.offline = OfflineReasoner()

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        self.server.expect(task.system_text, task.user_text, self.offline.complete(task, "offline", feedback))
        return self.real.complete(task, model, feedback)


@dataclass(frozen=True)
class Outcome:
    statuses: Counter[str]
    errors: Counter[str]
    recorded_usd: float
    tally: Tally


def measure(runs: int, fail_share: float, sdk_retries: int, seed: int, data_dir: Path) -> Outcome:
    server = FlakyAnthropic(fail_share, seed, retry_after_ms=20)
    try:
        settings = Settings(
            data_dir=data_dir,
            anthropic_api_key=SecretStr("sk-bench-loopback"),
            anthropic_base_url=server.url,
            provider_max_retries=sdk_retries,
            provider_timeout_s=30,
            web_search=False,  # the bundled corpus: this measures the model calls, not search
        )
        deps = build_deps(settings)
        providers = build_providers(settings)
        providers["anthropic"] = PrimedProvider(providers["anthropic"], server)
        reasoner = Reasoner(providers, settings.route, deps.store, settings.budget_usd)
        deps = dataclasses.replace(deps, reasoner=reasoner)
        with LocalRuntime(deps) as runtime:
            logging.getLogger("claimcourt").setLevel(logging.CRITICAL)
            ids = []
            for i in range(runs):
                request = parse_request({"claim": CLAIMS[i % len(CLAIMS)]})
                ids.append(create_run(deps.store, request, SourceTag.BENCH).run_id)
                runtime.start(ids[-1])
            for run_id in ids:
                runtime.follow(run_id, timeout_s=settings.run_timeout_s)
        records = [deps.store.get_run(run_id) for run_id in ids]
        return Outcome(
            statuses=Counter(r.status.value for r in records),
            errors=Counter((r.error or "").split(":", 1)[0] for r in records if r.status == RunStatus.FAILED),
            recorded_usd=sum(run_usage(deps.store, r).total_cost_usd for r in records),
            tally=server.tally,
        )
    finally:
        server.close()


def report(outcome: Outcome, runs: int, fail_share: float, sdk_retries: int) -> None:
    s, t = outcome.statuses, outcome.tally
    left = runs - s[RunStatus.SUCCEEDED.value] - s[RunStatus.FAILED.value] - s[RunStatus.STOPPED.value]
    print(f"{runs} debates, {fail_share:.0%} of requests failed on purpose, {sdk_retries} SDK retries")
    print(
        f"runs: {s[RunStatus.SUCCEEDED.value]} succeeded, {s[RunStatus.FAILED.value]} failed, "
        f"{s[RunStatus.STOPPED.value]} stopped, {left} left running"
    )
    for reason, count in outcome.errors.most_common():
        print(f"  failed: {count} × {reason}")
    injected = ", ".join(f"{n} × {label}" for label, n in sorted(t.failures.items()))
    print(
        f"requests: {t.requests} made, {t.replies} replies completed, failures injected: {injected or 'none'}"
    )
    if t.unscripted:
        print(f"  {t.unscripted} requests for an unknown prompt (a bench bug)")
    gap = outcome.recorded_usd - t.billed_usd
    print(
        f"cost: recorded ${outcome.recorded_usd:.4f}, actual ${t.billed_usd:.4f} "
        f"(recorded − actual {gap:+.4f})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=10, help="debates, all started at once")
    parser.add_argument("--fail", type=float, default=0.3, help="share of requests failed, 0–1")
    parser.add_argument("--sdk-retries", type=int, default=3, help="the SDK's own retries per call")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if not 0 <= args.fail <= 1:
        parser.error("--fail is a share between 0 and 1")
    with tempfile.TemporaryDirectory(prefix="claimcourt-faults-") as tmp:
        outcome = measure(args.runs, args.fail, args.sdk_retries, args.seed, Path(tmp))
    report(outcome, args.runs, args.fail, args.sdk_retries)


if __name__ == "__main__":
    main()
