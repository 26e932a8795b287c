"""One drift tick over many due monitors, under the cost guard.

`--monitors` monitors (default 200), all due, over a SQLite store in a temporary directory; the
local runtime executes the runs with bench/latency.py's LatencyProvider (the offline reasoner's
answers after a fixed sleep per LLM call) and the bundled corpus. One tick (claimcourt.watching.drift.tick,
what the DriftFunction runs every minute) starts a re-score run per monitor with the concurrency cap
at `--cap` (default 3): when the cap is full it waits for a slot. A sampler thread reads the cost
guard's leases every few milliseconds. Prints the tick's wall time, the time until every run had
ended, the peak number of leases held at once (never above the cap) and how many runs started,
and fails if the cap was exceeded or any monitor did not get exactly one run.

    python -m claimcourt.bench.drift_tick --monitors 200 --cap 3 --latency 0.05
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from claimcourt.bench.latency import CLAIMS, LatencyProvider
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import MonitorRequest, RunStatus, SourceTag
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore
from claimcourt.watching.drift import create_monitor, tick
from claimcourt.wiring import Deps, build_idempotency


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--monitors", type=int, default=200)
    parser.add_argument("--cap", type=int, default=3, help="the cost guard's concurrent debates")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per LLM call")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="claimcourt-drift-") as tmp:
        measure(args.monitors, args.cap, args.latency, Path(tmp))


def measure(monitors: int, cap: int, latency: float, data_dir: Path) -> None:
    settings = Settings(data_dir=data_dir, max_active_runs=cap, hourly_runs_per_tenant=monitors + 10)
    store = SqliteStore(data_dir / "claimcourt.sqlite3")
    corpus = CorpusSource()
    corpus.warm()
    reasoner = Reasoner({"offline": LatencyProvider(latency)}, settings.route, store, settings.budget_usd)
    deps = Deps(settings, store, reasoner, corpus, idempotency=build_idempotency(settings, store))
    for i in range(monitors):
        claim = f"{CLAIMS[i % len(CLAIMS)]} (watch {i})"
        create_monitor(store, "acme", MonitorRequest(claim=claim, cadence="daily", threshold=10))
    peak, samples, stop = 0, 0, threading.Event()

    def sample() -> None:
        nonlocal peak, samples
        while not stop.is_set():
            peak, samples = max(peak, len(store.leases())), samples + 1
            time.sleep(0.002)

    with LocalRuntime(dataclasses.replace(deps)) as runtime:
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        started = time.perf_counter()
        report = tick(store, runtime, settings, wait_s=0.01)
        ticked = time.perf_counter() - started
        for run_id in report.started:
            runtime.follow(run_id)
        ended = time.perf_counter() - started
        stop.set()
        sampler.join()
    runs = [store.get_run(run_id) for run_id in report.started]
    per_monitor = Counter(run.request.claim for run in runs)
    statuses = Counter(run.status for run in runs)
    drift_runs = store.list_runs("acme", 100, source=SourceTag.DRIFT)
    print(f"monitors due: {monitors}; concurrency cap: {cap}; {latency * 1000:.0f} ms per LLM call")
    print(f"tick wall time (every run started): {ticked:.1f} s")
    print(f"until every run had ended:          {ended:.1f} s ({ended / monitors * 1000:.0f} ms a run)")
    print(f"peak concurrency (leases held):     {peak} (sampled {samples:,} times; cap {cap})")
    shown = ", ".join(f"{n} {status.value}" for status, n in statuses.items())
    print(f"runs started: {len(report.started)} ({shown}); left due: {report.left_due}")
    problems = []
    if peak > cap:
        problems.append(f"the cap was exceeded: {peak} > {cap}")
    if len(report.started) != monitors or set(per_monitor.values()) != {1}:
        problems.append("not exactly one run per monitor")
    if statuses != Counter({RunStatus.SUCCEEDED: monitors}) or not drift_runs.runs:
        problems.append("not every run succeeded")
    if problems:
        raise SystemExit("; ".join(problems))


if __name__ == "__main__":
    main()
