"""What a motion debate costs at the defaults, phase by phase: the real motion state machine with every
role answered by the offline reasoner and billed as a model would bill its prompt and reply (4
characters a token, Claude Sonnet's list price: bench/rounds.MeteredOffline). Prints calls, input and
output tokens and dollars per phase (phase 0 / opening / each round / closing) and per role, and the
total: the cost bound a real-model debate at these settings should stay near (replies of a real model
are longer than the offline reasoner's; its prompts are the same).

    python -m claimcourt.bench.motion_cost
    python -m claimcourt.bench.motion_cost --rounds 4 --crowd 100
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import tempfile
from collections import defaultdict
from pathlib import Path

from claimcourt.bench.rounds import MODEL, MeteredOffline
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import CallRecord, MotionRequest, SourceTag
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps

MOTION = "Resolved: social media does more harm than good."


def phase_of(call: CallRecord, request: MotionRequest) -> str:
    """'phase 0' for stances and vote zero, else the phase of the call's round (its key's second part)."""
    round_no = int(call.call_key.split(":")[1])
    return "phase 0" if round_no == 0 else f"{request.phase(round_no)} (round {round_no})"


def measure(request: MotionRequest, data_dir: Path) -> list[CallRecord]:
    settings = Settings(data_dir=data_dir, provider="offline", models_by_role={}, web_search=False)
    deps = build_deps(settings)
    reasoner = Reasoner({"metered": MeteredOffline(0.0)}, lambda role: ("metered", MODEL), deps.store, 100)
    deps = dataclasses.replace(deps, reasoner=reasoner)
    with LocalRuntime(deps) as runtime:
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        record = create_run(deps.store, request, SourceTag.BENCH)
        execution = runtime.execute(record.run_id)
        if execution.status != "SUCCEEDED":
            raise SystemExit(f"the debate did not succeed: {execution.error}")
        return deps.store.run_calls(record.run_id)


def report(calls: list[CallRecord], request: MotionRequest) -> None:
    by_phase: dict[str, list[CallRecord]] = defaultdict(list)
    by_role: dict[str, list[CallRecord]] = defaultdict(list)
    for c in sorted(calls, key=lambda c: int(c.call_key.split(":")[1])):
        by_phase[phase_of(c, request)].append(c)
        by_role[c.call_key.split(":")[0]].append(c)
    print(f"motion debate at {request.rounds} rounds, a crowd of {request.crowd}, {MODEL} list prices")
    print(f"{'':<24}{'calls':>6}{'input tok':>11}{'output tok':>11}{'$':>9}")
    for title, groups in (("per phase", by_phase), ("per stage", by_role)):
        print(title)
        for name, group in groups.items():
            print(
                f"  {name:<22}{sum(c.attempts for c in group):>6}{sum(c.input_tokens for c in group):>11,}"
                f"{sum(c.output_tokens for c in group):>11,}{sum(c.cost_usd for c in group):>9.4f}"
            )
    print(
        f"total: {sum(c.attempts for c in calls)} calls, {sum(c.input_tokens for c in calls):,} input and "
        f"{sum(c.output_tokens for c in calls):,} output tokens, ${sum(c.cost_usd for c in calls):.4f}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--crowd", type=int, default=24)
    args = parser.parse_args(argv)
    request = MotionRequest(motion=MOTION, rounds=args.rounds, crowd=args.crowd)
    with tempfile.TemporaryDirectory() as data_dir:
        report(measure(request, Path(data_dir)), request)


if __name__ == "__main__":
    main()
