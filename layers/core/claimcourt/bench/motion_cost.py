"""What a motion debate costs at the defaults, phase by phase: the real motion state machine with every
role answered by the offline reasoner and billed as a model would bill its prompt and reply (4
characters a token, Claude Sonnet's list price: bench/rounds.MeteredOffline), its debaters speaking to
their word limit so that every prompt carries statements as long as a model's. Prints calls, input and
output tokens and dollars per phase (phase 0 / opening / each round / closing) and per stage, and the
bound: the same prompts with every reply at full length (a statement at its limit with notes of
NOTES_WORDS words, a reason for every vote, a full map and report, a comment for every check). A real
model's debate at these settings stays near it; its notes and reasons, which later prompts carry, may add
some input. The notes have no word limit (the seed spec's): the offline reasoner's, which later prompts
carry here, run 50–260 words, the played corpus's hand-written ones 40–160.

    python -m claimcourt.bench.motion_cost
    python -m claimcourt.bench.motion_cost --rounds 4 --crowd 100
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from claimcourt.bench.rounds import MODEL, MeteredOffline
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import CallRecord, MotionRequest, SourceTag, SpeakInput
from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.prices import cost_usd
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps

MOTION = "Resolved: social media does more harm than good."


def phase_of(call: CallRecord, request: MotionRequest) -> str:
    """'phase 0' for stances and vote zero, else the phase of the call's round (its key's second part)."""
    round_no = int(call.call_key.split(":")[1])
    return "phase 0" if round_no == 0 else f"{request.phase(round_no)} (round {round_no})"


class FullStatements(MeteredOffline):
    """The offline reasoner's debaters, but speaking to their word limit (their own words repeated),
    so every later prompt carries statements as long as a model's would."""

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        reply = super().complete(task, model, feedback)
        if task.kind != "speak" or not isinstance(reply.content, dict) or not reply.content.get("statement"):
            return reply
        inputs: SpeakInput = task.inputs  # type: ignore[assignment]
        words = reply.content["statement"].split()
        padded = " ".join((words * (inputs.word_limit // len(words) + 1))[: inputs.word_limit])
        content = {**reply.content, "statement": padded}
        return dataclasses.replace(reply, content=content, output_tokens=len(json.dumps(content)) // 4)


def measure(request: MotionRequest, data_dir: Path) -> list[CallRecord]:
    settings = Settings(data_dir=data_dir, provider="offline", models_by_role={}, web_search=False)
    deps = build_deps(settings)
    reasoner = Reasoner({"metered": FullStatements(0.0)}, lambda role: ("metered", MODEL), deps.store, 100)
    deps = dataclasses.replace(deps, reasoner=reasoner)
    with LocalRuntime(deps) as runtime:
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        record = create_run(deps.store, request, SourceTag.BENCH)
        execution = runtime.execute(record.run_id)
        if execution.status != "SUCCEEDED":
            raise SystemExit(f"the debate did not succeed: {execution.error}")
        return deps.store.run_calls(record.run_id)


TOKENS_PER_WORD = 4 / 3
NOTES_WORDS = 400  # no limit is set: about twice the longest notes written for the played corpus


def full_length(call: CallRecord, request: MotionRequest) -> int:
    """The output tokens of a reply at full length for this call's task."""
    stage = call.call_key.split(":")[0]
    reply = json.loads(call.output_json) if call.output_json else {}
    if stage == "speak":
        words = request.words * request.time_knob.ratio  # either side may get the knob's room: a bound
        return round((words + NOTES_WORDS) * TOKENS_PER_WORD)  # the statement at its limit, and the notes
    if stage == "vote":
        return 40 * len(reply.get("votes", []))  # a score and a sentence each
    if stage == "cartograph":
        return 400 + (600 if reply.get("report") else 0)
    if stage == "factcheck":
        return 80 * (len(reply.get("checks", [])) + len(reply.get("responses", [])))
    return 150  # stances


def report(calls: list[CallRecord], request: MotionRequest) -> None:
    by_phase: dict[str, list[CallRecord]] = defaultdict(list)
    by_role: dict[str, list[CallRecord]] = defaultdict(list)
    for c in sorted(calls, key=lambda c: int(c.call_key.split(":")[1])):
        by_phase[phase_of(c, request)].append(c)
        by_role[c.call_key.split(":")[0]].append(c)
    print(f"motion debate at {request.rounds} rounds, a crowd of {request.crowd}, {MODEL} list prices")
    print(f"{'':<24}{'calls':>6}{'input tok':>11}{'output tok':>11}{'$':>9}{'bound out':>11}{'bound $':>9}")

    def bound(group: list[CallRecord]) -> tuple[int, float]:
        out = sum(full_length(c, request) for c in group)
        return out, sum(cost_usd(MODEL, c.input_tokens, full_length(c, request))[0] for c in group)

    for title, groups in (("per phase", by_phase), ("per stage", by_role)):
        print(title)
        for name, group in groups.items():
            out, dollars = bound(group)
            print(
                f"  {name:<22}{sum(c.attempts for c in group):>6}{sum(c.input_tokens for c in group):>11,}"
                f"{sum(c.output_tokens for c in group):>11,}{sum(c.cost_usd for c in group):>9.4f}"
                f"{out:>11,}{dollars:>9.4f}"
            )
    out, dollars = bound(calls)
    print(
        f"total: {sum(c.attempts for c in calls)} calls, {sum(c.input_tokens for c in calls):,} input and "
        f"{sum(c.output_tokens for c in calls):,} output tokens, ${sum(c.cost_usd for c in calls):.4f}; "
        f"bound with full-length replies: {out:,} output tokens, ${dollars:.4f}"
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
