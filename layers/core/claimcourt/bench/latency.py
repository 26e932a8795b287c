"""How close a run comes to its critical path, and how much the two debaters overlap.

A provider that answers like the offline reasoner, each call lasting a fixed latency (the offline
reasoner's own work, about a millisecond, included: it stands in for the model's), stands in for a
real model, so the figures measure the orchestration (the ASL under the local runtime, the
handlers, the store), not reasoning. The process starts as the console script does (the cyclic
collector paused until the runtime is up, then the start-up heap frozen). Prints, per run and on
average:

- wall / critical path, where the critical path is the sequential LLM calls as long as each lasted
  (decompose, then suitability after the first retrieval, a re-split's again; then per round
  max(argue for, argue against) and max(the fact-checkers, when either has citations to check, and
  the moderator beside them), then adjudicate): about the
  number of sequential calls × latency, plus the provider's own lateness (its sleeps wake late by ~0.1 ms);
- for each round, how much of the shorter debater call the other overlapped;
- the CPU the process spent on the run (every thread: the orchestration, the handlers, the store and
  the offline reasoner's own work), which contention from other processes does not inflate as it
  does the wall.

    python -m claimcourt.bench.latency --latency 0.3 --runs 5
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcourt.evidence.corpus import CorpusSource
from claimcourt.local.collector import pause_collector
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import ArgueInput, FactcheckInput, SourceTag
from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps

CLAIMS = (
    "Global warming is causing sea levels to rise and glaciers to retreat",
    "Arctic sea ice extent has declined since 1979",
    "Global warming is a hoax",
    "Carbon dioxide is a greenhouse gas",
    "Nokia's manufacturing scale is a durable competitive moat",
)


@dataclass(frozen=True)
class Call:
    kind: str
    label: str  # the side for argue calls, else ""
    round: int | None  # for argue and factcheck calls
    start: float
    end: float


class LatencyProvider:
    """The offline reasoner's answers, each after a fixed sleep, with every call's timing kept."""

    name = "offline"
    sends_temperature = True

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.inner = OfflineReasoner()
        self.calls: list[Call] = []
        self._lock = threading.Lock()

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        start = time.perf_counter()
        reply = self.inner.complete(task, model, feedback)
        time.sleep(max(0.0, self.latency_s - (time.perf_counter() - start)))
        label = task.inputs.side if isinstance(task.inputs, ArgueInput) else ""
        round_ = task.inputs.round if isinstance(task.inputs, ArgueInput | FactcheckInput) else None
        with self._lock:
            self.calls.append(Call(task.kind, label, round_, start, time.perf_counter()))
        return reply


def critical_path(calls: list[Call], duration: Callable[[Call], float] = lambda c: c.end - c.start) -> float:
    """The run's longest path through its LLM calls, each lasting `duration`: decompose, then the
    suitability check after the first retrieval (each once more after a re-split), then per round the
    longer debater (the two argue in parallel) and the longest of the fact-checkers (when either had
    citations to check: a checker with nothing to check makes no call) and the moderator (none after
    the last round), which run beside each other (RoundEnd), and the judge (its samples in parallel).
    By default a call lasts as long as it did: the provider's own overshoot of its latency (a sleep
    wakes late) is the provider's, not the orchestration's."""

    def longest(kind: str, round_: int | None = None) -> float:
        return max((duration(c) for c in calls if c.kind == kind and c.round == round_), default=0.0)

    def total(*kinds: str) -> float:
        return sum(duration(c) for c in calls if c.kind in kinds)

    rounds = sorted({c.round for c in calls if c.kind in ("argue", "factcheck")}, key=lambda r: r or 0)
    split = total("decompose", "suitability")  # one after the other, before anyone argues
    debate = sum(longest("argue", r) + max(longest("factcheck", r), longest("moderate", r)) for r in rounds)
    return split + debate + longest("adjudicate")


def debater_overlaps(calls: list[Call]) -> list[float]:
    """Per round: the overlap of the two argue calls, as a share of the shorter one."""
    argues = [c for c in calls if c.kind == "argue"]
    overlaps = []
    for pro, con in zip(argues[0::2], argues[1::2], strict=False):
        shared = min(pro.end, con.end) - max(pro.start, con.start)
        shorter = min(pro.end - pro.start, con.end - con.start)
        overlaps.append(max(0.0, shared) / shorter)
    return overlaps


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per LLM call")
    parser.add_argument("--runs", type=int, default=len(CLAIMS))
    args = parser.parse_args(argv)
    logging.getLogger("claimcourt").setLevel(logging.WARNING)
    pause_collector()  # as the console script starts; the runtime resumes it

    with tempfile.TemporaryDirectory(prefix="claimcourt-bench-") as tmp:
        measure(args.latency, args.runs, Settings(data_dir=Path(tmp)))


def measure(latency: float, runs: int, settings: Settings) -> None:
    store = SqliteStore(settings.resolved_data_dir() / "bench.sqlite3")
    corpus = CorpusSource()
    corpus.warm()  # the index is built once per process; do not bill it to the first run
    ratios: list[float] = []
    cpu_ms: list[float] = []
    all_overlaps: list[float] = []
    print(f"latency per LLM call: {latency * 1000:.0f} ms")
    print(
        f"{'run':>4}  {'calls':>5}  {'critical':>8}  {'wall s':>7}  {'ratio':>6}  {'cpu ms':>6}"
        "  debater overlap per round"
    )
    provider = LatencyProvider(latency)
    reasoner = Reasoner({"offline": provider}, settings.route, store, settings.budget_usd)
    deps = Deps(settings=settings, store=store, reasoner=reasoner, evidence=corpus)
    with LocalRuntime(deps) as runtime:
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        # Run 0 is the cold one (handler imports, the one ASL parse): shown, not averaged.
        for i in range(runs + 1):
            provider.calls.clear()
            cpu_start = time.process_time()
            record = create_run(store, parse_request({"claim": CLAIMS[i % len(CLAIMS)]}), SourceTag.BENCH)
            execution = runtime.execute(record.run_id)
            cpu = (time.process_time() - cpu_start) * 1000
            if execution.status != "SUCCEEDED":
                raise SystemExit(f"run {record.run_id} ended {execution.status}: {execution.error}")
            critical = critical_path(provider.calls)
            ratio = execution.wall_s / critical
            overlaps = debater_overlaps(provider.calls)
            if i > 0:
                ratios.append(ratio)
                cpu_ms.append(cpu)
                all_overlaps.extend(overlaps)
            shown = ", ".join(f"{o:.1%}" for o in overlaps)
            print(
                f"{'cold' if i == 0 else i:>4}  {len(provider.calls):>5}  {critical:>7.2f}s  "
                f"{execution.wall_s:>7.2f}  {ratio:>6.3f}  {cpu:>6.1f}  {shown}"
            )
    print(
        f"wall / critical path: mean {sum(ratios) / len(ratios):.3f}, median {statistics.median(ratios):.3f},"
        f" worst {max(ratios):.3f} (goal: median ≤ 1.08 at 50 ms a call)"
    )
    print(f"CPU a warm run: median {statistics.median(cpu_ms):.1f} ms, worst {max(cpu_ms):.1f} ms")
    mean_overlap = sum(all_overlaps) / len(all_overlaps)
    print(f"debater overlap: mean {mean_overlap:.1%}, worst {min(all_overlaps):.1%} (goal ≥ 90%)")


if __name__ == "__main__":
    main()
