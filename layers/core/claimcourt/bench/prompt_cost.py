"""What a run asks of a model, measured from the rendered templates: calls and input tokens per task
kind at each effort, and the list-price cost of the input side.

Run: python -m claimcourt.bench.prompt_cost [--claim TEXT] [--model claude-sonnet-4-6]

Every effort runs one debate through the local runtime (the real state machine and stages) with the
offline reasoner answering, except that the decomposer splits the claim into as many sub-claims as the
effort allows — what a model does with a compound claim — so the prompts carry the effort's full
breadth of sub-claims and evidence. Input tokens are the characters of the system text, the prompt and
the output schema sent with it, over 4 (English averages about 4 characters a token; a provider's own
count differs by some percent). Output tokens are not measured: the offline reasoner's replies are far
shorter than a model's, and only a real model can say how long its replies are.
"""

from __future__ import annotations

import argparse
import json
import logging
import tempfile
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from claimcourt.evidence.corpus import CorpusSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import DecomposeInput, Decomposition, DecompositionCheck, SourceTag, SubClaim
from claimcourt.reasoning.base import ProviderReply, Task
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.prices import price_for
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.reasoning.stance import key_terms
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import EFFORT_PROFILES, Settings
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps

CLAIM = "Global warming is causing sea levels to rise and glaciers to retreat"
CHARS_PER_TOKEN = 4


class MeasuringProvider:
    """The offline reasoner, with a decomposer as broad as the effort allows, measuring every prompt."""

    name = "offline"
    sends_temperature = True

    def __init__(self) -> None:
        self.inner = OfflineReasoner()
        self.input_tokens: dict[str, list[int]] = defaultdict(list)
        self._lock = threading.Lock()

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        sent = task.system + task.prompt + json.dumps(task.output_schema())
        with self._lock:
            self.input_tokens[task.kind].append(len(sent) // CHARS_PER_TOKEN)
        if isinstance(task.inputs, DecomposeInput):
            return ProviderReply(_broad(task.inputs).model_dump(mode="json"), None, "offline", 0, 0)
        if task.kind == "decompose_check":  # the synthetic facets share their words: accept them
            return ProviderReply(DecompositionCheck(ok=True).model_dump(mode="json"), None, "offline", 0, 0)
        return self.inner.complete(task, model, feedback)


def _broad(inputs: DecomposeInput) -> Decomposition:
    terms = key_terms(inputs.claim, 12)
    subs = [
        SubClaim(
            id=f"sc{i}",
            text=f"Facet {i} of the claim: {inputs.claim}",
            directive=" ".join(terms[i - 1 :] + terms[: i - 1]),
        )
        for i in range(1, inputs.max_sub_claims + 1)
    ]
    return Decomposition(sub_claims=subs, shape="facets", rationale="as broad as the effort allows")


def measure(claim: str, model: str) -> None:
    price = price_for(model)
    if price is None:
        raise SystemExit(f"no list price for {model}")
    corpus = CorpusSource()
    corpus.warm()
    print(f"claim: {claim}")
    print(
        f"input tokens ≈ characters / {CHARS_PER_TOKEN}; list price: {model} ${price[0]} per million input\n"
    )
    for effort, profile in EFFORT_PROFILES.items():
        with tempfile.TemporaryDirectory(prefix="claimcourt-bench-") as tmp:
            settings = Settings(data_dir=Path(tmp))
            store = SqliteStore(Path(tmp) / "bench.sqlite3")
            provider = MeasuringProvider()
            reasoner = Reasoner({"offline": provider}, settings.route, store, settings.budget_usd)
            deps = Deps(settings=settings, store=store, reasoner=reasoner, evidence=corpus)
            with LocalRuntime(deps) as runtime:
                logging.getLogger("claimcourt").setLevel(logging.WARNING)
                record = create_run(store, parse_request({"claim": claim, "effort": effort}), SourceTag.BENCH)
                execution = runtime.execute(record.run_id)
            if execution.status != "SUCCEEDED":
                raise SystemExit(f"{effort}: the run ended {execution.status}: {execution.error}")
        total_calls = sum(len(v) for v in provider.input_tokens.values())
        total_in = sum(sum(v) for v in provider.input_tokens.values())
        print(
            f"effort {effort}: {profile.max_sub_claims} sub-claims, {profile.evidence_per_query} passages a "
            f"query, {profile.rounds} rounds, {profile.self_consistency_samples} samples"
        )
        print(f"  {'task kind':16} {'calls':>5} {'mean in':>8} {'total in':>9}")
        for kind, sizes in provider.input_tokens.items():
            print(f"  {kind:16} {len(sizes):>5} {sum(sizes) // len(sizes):>8} {sum(sizes):>9}")
        cost = total_in * price[0] / 1_000_000
        print(f"  {'run':16} {total_calls:>5} {'':>8} {total_in:>9}   input at list price ${cost:.4f}\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--claim", default=CLAIM)
    parser.add_argument("--model", default="claude-sonnet-4-6")
    args = parser.parse_args(argv)
    logging.getLogger("claimcourt").setLevel(logging.WARNING)
    measure(args.claim, args.model)


if __name__ == "__main__":
    main()
