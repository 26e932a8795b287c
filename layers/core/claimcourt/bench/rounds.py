"""What the round controller does to a claim set: fixed rounds (dynamic rounds off) against the
controller steering (on), the same claims through the real state machine.

Every role is the offline reasoner, metered: each call is billed at Claude Sonnet's list price as
Anthropic would bill its request (prompt cache included: bench/prompt_cache.Meter) and its reply,
and optionally sleeps a fixed latency (`--latency`, a stand-in for a model). Prints, per mode:
rounds per run (distribution), LLM calls, tokens and dollars per run, wall time per run, how often
the verdict differs from the fixed-rounds run of the same claim, and the share of runs re-deliberated.

    python -m claimcourt.bench.rounds --claims 40
    python -m claimcourt.bench.rounds --claims 20 --latency 0.05 --effort high
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcourt.bench.climate_fever import load_claims, select
from claimcourt.bench.latency import CLAIMS as SAMPLE_CLAIMS
from claimcourt.bench.prompt_cache import Meter
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import RoundsMode, SourceTag, Usage
from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps

MODEL = "claude-sonnet-4-6"


class MeteredOffline:
    """The offline reasoner's answers, billed as a model would bill their requests (prompt cache
    included) and replies (bench/prompt_cache.Meter)."""

    name = "metered"
    sends_temperature = True

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.inner = OfflineReasoner()
        self.meter = Meter(MODEL)

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        if self.latency_s:
            time.sleep(self.latency_s)
        return self.meter.bill(task, self.inner.complete(task, model, feedback), feedback)


def _cached(usage: Usage) -> int:
    return sum(m.cache_read_tokens + m.cache_write_tokens for m in usage.models.values())


@dataclass(frozen=True)
class Run:
    claim: str
    rounds: int
    calls: int
    tokens: int
    cost_usd: float
    wall_s: float
    verdict: str | None
    redeliberated: bool


def run_mode(claims: list[str], mode: RoundsMode, effort: str, latency_s: float, data_dir: Path) -> list[Run]:
    settings = Settings(
        data_dir=data_dir, provider="offline", models_by_role={}, web_search=False, dynamic_rounds=mode
    )
    deps = build_deps(settings)
    reasoner = Reasoner(
        {"metered": MeteredOffline(latency_s)}, lambda role: ("metered", MODEL), deps.store, 100
    )
    deps = dataclasses.replace(deps, reasoner=reasoner)
    warm = getattr(deps.evidence, "warm", None)
    if callable(warm):
        warm()
    runs = []
    with LocalRuntime(deps) as runtime:
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        for claim in claims:
            record = create_run(
                deps.store, parse_request({"claim": claim, "effort": effort}), SourceTag.BENCH
            )
            execution = runtime.execute(record.run_id)
            result = deps.store.get_run(record.run_id).result
            if result is None:
                runs.append(Run(claim, 0, 0, 0, 0.0, execution.wall_s, None, False))
                continue
            usage = result.usage
            runs.append(
                Run(
                    claim=claim,
                    rounds=result.rounds,
                    calls=sum(m.calls for m in usage.models.values()),
                    tokens=usage.input_tokens + usage.output_tokens + _cached(usage),
                    cost_usd=usage.total_cost_usd,
                    wall_s=execution.wall_s,
                    verdict=result.overall_verdict.value,
                    redeliberated=bool(result.re_deliberation and result.re_deliberation.triggered),
                )
            )
    return runs


def report(mode: str, runs: list[Run], fixed: list[Run] | None) -> None:
    scored = [r for r in runs if r.verdict is not None]
    distribution = ", ".join(f"{k} rounds: {v}" for k, v in sorted(Counter(r.rounds for r in scored).items()))
    print(f"\ndynamic rounds {mode}: {len(scored)} of {len(runs)} runs scored")
    print(f"  rounds per run      {statistics.mean(r.rounds for r in scored):.2f}  ({distribution})")
    print(f"  LLM calls per run   {statistics.mean(r.calls for r in scored):.1f}")
    print(f"  tokens per run      {statistics.mean(r.tokens for r in scored):,.0f}")
    print(f"  $ per run (Sonnet)  {statistics.mean(r.cost_usd for r in scored):.4f}")
    print(f"  wall per run        {statistics.mean(r.wall_s for r in scored):.2f} s")
    if fixed is not None:
        same = {r.claim: r.verdict for r in fixed}
        changed = sum(1 for r in scored if same.get(r.claim) not in (None, r.verdict))
        print(f"  verdict differs from fixed rounds: {changed} of {len(scored)}")
    print(f"  re-deliberated      {sum(r.redeliberated for r in scored)} of {len(scored)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claims", type=int, default=40, help="CLIMATE-FEVER claims (a stratified sample)")
    parser.add_argument("--effort", default="standard", choices=("low", "standard", "high"))
    parser.add_argument(
        "--latency", type=float, default=0.0, help="seconds each call sleeps, as a model would"
    )
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    claims = list(SAMPLE_CLAIMS) + [c.text for c in select(load_claims(), "all", args.claims, args.seed)]
    print(
        f"{len(claims)} claims ({len(SAMPLE_CLAIMS)} samples + {args.claims} CLIMATE-FEVER), "
        f"effort {args.effort}, offline reasoner metered at {MODEL} prices, "
        f"{args.latency * 1000:.0f} ms per call"
    )
    with tempfile.TemporaryDirectory(prefix="claimcourt-rounds-") as tmp:
        fixed = run_mode(claims, "off", args.effort, args.latency, Path(tmp) / "off")
        steered = run_mode(claims, "on", args.effort, args.latency, Path(tmp) / "on")
    report("off (fixed rounds)", fixed, None)
    report("on (the controller steers)", steered, fixed)


if __name__ == "__main__":
    main()
