"""What a run asks of a model, and what prompt caching saves: billed input with and without caching,
per effort and per task kind, for the Anthropic and the OpenAI paths.

Run: python -m claimcourt.bench.prompt_cost [--claim TEXT] [--model claude-sonnet-4-6]
                                             [--openai-model gpt-4.1]

Every effort runs one debate through the local runtime (the real state machine and stages) with the
offline reasoner answering, except that the decomposer splits the claim into as many sub-claims as the
effort allows, each searched by its own query — what a model does with a compound claim — so the
prompts carry the effort's full breadth of sub-claims and evidence. Each call's request is built as the
providers build it (`request_body` of reasoning/anthropic_provider.py and openai_provider.py: the run's
tools or the reply's schema, the shared opening with its breakpoints, the role's text, the prompt), and
its input is counted as the played corpus's server counts it: characters / 4 (English averages about 4
characters a token; a provider's own count differs by some percent), plus what each API adds (Anthropic's
tool-use system prompt, the messages' framing). The providers' prompt caches are simulated over the run's
calls in their real order (bench/prompt_cache.py): a call reads what an earlier step wrote, and the calls
of one step (the debaters, the fact-checkers beside the moderator, the judge's first samples) cannot
read each other's. "No cache" bills every token at the input rate; "cached" bills cache reads and writes
at their rates (Anthropic: 0.1× and 1.25×; OpenAI: its cached-input rate, writes free). Output tokens are
not measured: the offline reasoner's replies are far shorter than a model's, and only a real model can
say how long its replies are.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import threading
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claimcourt.bench.prompt_cache import CacheUsage, Caller, PromptCache, Protocol
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import (
    DecomposeInput,
    Decomposition,
    DecompositionCheck,
    SourceTag,
    SubClaim,
    SuitabilityInput,
)
from claimcourt.reasoning import anthropic_provider, openai_provider
from claimcourt.reasoning.base import STEP_HEADER, ProviderReply, Task, call_headers
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.prices import cache_rates, price_for
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.reasoning.stance import key_terms
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import EFFORT_PROFILES, Settings
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps

CLAIM = "Global warming is causing sea levels to rise and glaciers to retreat"
# The claim of the run before it, for the figure of a run on a busy service: it shares nothing with CLAIM
# but what every run sends alike.
WARM_CLAIM = "Arctic sea ice extent has declined since satellite records began in 1979"
PROTOCOLS: tuple[Protocol, ...] = ("anthropic", "openai")
BODIES = {"anthropic": anthropic_provider.request_body, "openai": openai_provider.request_body}
# The providers' default output limit (Settings.max_output_tokens): in the request, not in its input.
OUTPUT_LIMIT = 4096
# Anthropic's 1-hour cache write, × the input rate (platform.claude.com, "Prompt caching", the 1-hour
# cache duration, as read 2026-11; a 5-minute write is 1.25×, a read 0.1× either way).
WRITE_1H = 2.0


# The order the rows print in: a run's, whichever of two calls made at once came first.
KIND_ORDER = ("decompose", "suitability", "argue", "factcheck", "moderate", "adjudicate")


def _rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


@dataclass(frozen=True)
class Rates:
    """A model's input rates, USD per million tokens: plain, read from the cache, written to it."""

    model: str
    input: float
    read: float
    write: float

    @classmethod
    def of(cls, model: str) -> Rates:
        price, cache = price_for(model), cache_rates(model)
        if price is None or cache is None:
            raise SystemExit(f"no list price for {model}")
        return cls(model, price[0], *cache)

    def billed(self, used: CacheUsage, cached: bool = True) -> float:
        """The input's cost in tokens at the input rate: every token, or each at its cache rate."""
        if not cached:
            return float(used.total)
        return used.uncached + (used.read * self.read + used.write * self.write) / self.input

    def usd(self, tokens: float) -> float:
        return tokens * self.input / 1_000_000


@dataclass
class Bill:
    """One protocol's calls of a run: their usage, by task kind."""

    calls: dict[str, list[CacheUsage]] = field(default_factory=lambda: defaultdict(list))

    def total(self) -> list[CacheUsage]:
        return [u for used in self.calls.values() for u in used]


class MeasuringProvider:
    """The offline reasoner, with a decomposer as broad as the effort allows, billing every call's
    request as each provider would send it, through its prompt cache."""

    name = "offline"
    sends_temperature = True

    def __init__(
        self, models: dict[Protocol, str], caches: dict[Protocol, PromptCache] | None = None
    ) -> None:
        self.inner = OfflineReasoner()
        self.models = models
        # Another run's caches: what it wrote is readable (it ran within the cache's lifetime).
        self.caches = caches or {p: PromptCache() for p in PROTOCOLS}
        self.bills = {p: Bill() for p in PROTOCOLS}
        self._lock = threading.Lock()

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        caller = Caller.parse(call_headers().get(STEP_HEADER))
        for protocol in PROTOCOLS:
            body = BODIES[protocol](task, self.models[protocol], OUTPUT_LIMIT, feedback)
            used = self.caches[protocol].use(protocol, body, caller)
            with self._lock:
                self.bills[protocol].calls[task.kind].append(used)
        if isinstance(task.inputs, DecomposeInput):
            return ProviderReply(_broad(task.inputs).model_dump(mode="json"), None, "offline", 0, 0)
        reply = self.inner.complete(task, model, feedback)
        if isinstance(task.inputs, SuitabilityInput) and len(task.inputs.sub_claims) > 1:
            # The synthetic facets share their words: the audit accepts them (no re-split).
            reply.content["audit"] = DecompositionCheck(ok=True).model_dump(mode="json")
        return reply


def _broad(inputs: DecomposeInput) -> Decomposition:
    """As many facets as the effort allows, each searched by its own share of the claim's key terms
    (one query for all would retrieve the same passages for each, and the pool would not grow)."""
    n = inputs.max_sub_claims
    terms = key_terms(inputs.claim, 12)
    subs = [
        SubClaim(
            id=f"sc{i}",
            text=f"Facet {i} of the claim: {inputs.claim}",
            directive=" ".join(terms[i - 1 :: n] or terms),
        )
        for i in range(1, n + 1)
    ]
    return Decomposition(sub_claims=subs, shape="facets", rationale="as broad as the effort allows")


def run_effort(
    claim: str,
    effort: str,
    corpus: CorpusSource,
    models: dict[Protocol, str],
    caches: dict[Protocol, PromptCache] | None = None,
) -> MeasuringProvider:
    """One debate at `effort`, every call billed (`caches`: after the run that wrote them)."""
    with tempfile.TemporaryDirectory(prefix="claimcourt-bench-") as tmp:
        settings = Settings(data_dir=Path(tmp))
        store = SqliteStore(Path(tmp) / "bench.sqlite3")
        provider = MeasuringProvider(models, caches)
        reasoner = Reasoner({"offline": provider}, settings.route, store, settings.budget_usd)
        deps = Deps(settings=settings, store=store, reasoner=reasoner, evidence=corpus)
        with LocalRuntime(deps) as runtime:
            logging.getLogger("claimcourt").setLevel(logging.WARNING)
            record = create_run(store, parse_request({"claim": claim, "effort": effort}), SourceTag.BENCH)
            execution = runtime.execute(record.run_id)
        if execution.status != "SUCCEEDED":
            raise SystemExit(f"{effort}: the run ended {execution.status}: {execution.error}")
    return provider


def report(bill: Bill, rates: Rates) -> list[str]:
    """A protocol's table: per task kind and for the run, calls, input, what the cache read and wrote,
    and the input billed without and with caching (tokens at the input rate, then dollars)."""
    lines = [
        f"    {'task kind':16} {'calls':>5} {'input':>8} {'read':>8} {'written':>8} "
        f"{'billed, no cache':>17} {'cached':>8}"
    ]

    def row(name: str, used: list[CacheUsage]) -> str:
        plain = sum(rates.billed(u, cached=False) for u in used)
        cached = sum(rates.billed(u) for u in used)
        return (
            f"    {name:16} {len(used):>5} {sum(u.total for u in used):>8,} {sum(u.read for u in used):>8,} "
            f"{sum(u.write for u in used):>8,} {plain:>17,.0f} {cached:>8,.0f}"
        )

    for kind in sorted(bill.calls, key=_rank):
        lines.append(row(kind, bill.calls[kind]))
    total = bill.total()
    plain = sum(rates.billed(u, cached=False) for u in total)
    cached = sum(rates.billed(u) for u in total)
    lines.append(row("run", total))
    saved = 1 - cached / plain if plain else 0.0
    lines.append(
        f"    input billed: ${rates.usd(plain):.4f} without caching, ${rates.usd(cached):.4f} with it "
        f"({saved:.0%} less)"
    )
    return lines


def one_hour(alone: Bill, rates: Rates, warm: float) -> str:
    """What a 1-hour cache of what every run sends alike (the tools and the rules, which the decomposer
    writes) would bill, a deployment option this project does not set: the hour's first run writes them
    at 2× the input rate instead of 1.25×; a later run in the hour reads them, as after another run
    within 5 minutes. It pays from the second run in an hour."""
    written = alone.calls["decompose"][0].write  # the decomposer's call writes them, and nothing else
    first = sum(rates.billed(u) for u in alone.total()) + (WRITE_1H - rates.write / rates.input) * written
    return (
        f"a 1-hour cache of the tools and rules (not set): the hour's first run ${rates.usd(first):.4f}, "
        f"each later one ${rates.usd(warm):.4f}"
    )


def measure(claim: str, model: str, openai_model: str = "gpt-4.1") -> None:
    models: dict[Protocol, str] = {"anthropic": model, "openai": openai_model}
    rates = {p: Rates.of(m) for p, m in models.items()}
    corpus = CorpusSource()
    corpus.warm()
    print(f"claim: {claim}")
    print("input tokens ≈ characters / 4, plus what each API adds; billed in tokens at the input rate")
    for protocol, r in rates.items():
        print(
            f"  {protocol} {r.model}: ${r.input} per million input; a cache read ${r.read:g}, "
            f"a cache write ${r.write:g}"
        )
    print()
    for effort, profile in EFFORT_PROFILES.items():
        provider = run_effort(claim, effort, corpus, models)
        # The same debate on a service whose last run, of another claim, was within the cache's lifetime
        # (5 minutes, refreshed by every read): that run wrote what every run sends alike, the reply
        # tools and the rules, and this one reads them.
        earlier = run_effort(WARM_CLAIM, effort, corpus, models)
        warm = run_effort(claim, effort, corpus, models, earlier.caches)
        print(
            f"effort {effort}: {profile.max_sub_claims} sub-claims, {profile.evidence_per_query} passages a "
            f"query, {profile.rounds} rounds, {profile.self_consistency_samples} samples"
        )
        for protocol in PROTOCOLS:
            print(f"  {protocol} {models[protocol]}")
            print("\n".join(report(provider.bills[protocol], rates[protocol])))
            after = sum(rates[protocol].billed(u) for u in warm.bills[protocol].total())
            print(
                f"    after another run within the cache's lifetime: ${rates[protocol].usd(after):.4f} "
                f"({after:,.0f} tokens' worth)"
            )
            if protocol == "anthropic":
                print("    " + one_hour(provider.bills[protocol], rates[protocol], after))
        print()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claim", default=CLAIM)
    parser.add_argument("--model", default="claude-sonnet-4-6", help="the Anthropic model to bill at")
    parser.add_argument("--openai-model", default="gpt-4.1", help="the OpenAI model to bill at")
    args = parser.parse_args(argv)
    logging.getLogger("claimcourt").setLevel(logging.WARNING)
    measure(args.claim, args.model, args.openai_model)


if __name__ == "__main__":
    main()
