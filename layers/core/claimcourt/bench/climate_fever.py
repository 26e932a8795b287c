"""CLIMATE-FEVER claims-dev through the real pipeline: the offline engine against the majority baseline.

Run: python -m claimcourt.bench.climate_fever [--limit N] [--seed S] [--split all|tune|held-out]
                                              [--reader lexical|embedding]
                                              [--out results.json] [--data-dir DIR]

Every claim is one run through the local runtime (the state machine under moto, each stage its Lambda
handler), with the offline reasoner in every role and evidence retrieved from the bundled corpus; runs are
tagged "bench". The overall verdict maps to a label (supported→SUPPORTS, refuted→REFUTES,
not-enough-evidence→NOT_ENOUGH_INFO, conflicting→DISPUTED); a stopped or failed run has no verdict and
counts as a NOT_ENOUGH_INFO prediction, and so does a claim the request validation refuses (two dev
claims carry C1 control characters, mojibake in the source data). The mapping is one to one because the
definitions agree: CLIMATE-FEVER's claim label is the aggregate of its five sentences' labels (a supporting
and a refuting sentence: DISPUTED; only supporting: SUPPORTS; only refuting: REFUTES; none: NOT_ENOUGH_INFO),
and the engine's verdicts are the same four readings of its own evidence (docs/scoring.md). The baseline
predicts the evaluated set's most frequent label.

Halves: claims at even line indexes of the data file are the tuning half (the offline reasoner's stance
weights and thresholds were trained and every choice made on them only, see claimcourt.reasoning.offline
and claimcourt.bench.stance_train), odd ones the held-out half; a run over both reports each half
too. --limit takes a seeded, label-stratified sample of the chosen split.

Data: bench/data/climate_fever_claims_dev.jsonl.gz (Diggelmann et al. 2020, CLIMATE-FEVER; see its README).
The corpus holds every claim's annotated evidence sentences, so retrieval here is a closed world.

--reader: which passage reader the offline judge uses (claimcourt.reasoning.stance_model): the lexical
one (the default, as CLAIMCOURT_OFFLINE_READER's), or the embedding one (needs the `embed` extra).
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcourt.bench.metrics import (
    accuracy,
    balanced_accuracy,
    confusion,
    macro_f1,
    majority_label,
    per_class,
)

if TYPE_CHECKING:
    from claimcourt.store.base import Store

CLAIMS_FILE = Path(__file__).parent / "data" / "climate_fever_claims_dev.jsonl.gz"
LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")
LABEL_FOR_VERDICT = {
    "supported": "SUPPORTS",
    "refuted": "REFUTES",
    "not-enough-evidence": "NOT_ENOUGH_INFO",
    "conflicting": "DISPUTED",
}
NO_VERDICT_LABEL = "NOT_ENOUGH_INFO"
SPLITS = ("all", "tune", "held-out")


@dataclass(frozen=True)
class Claim:
    index: int  # line index in the data file: decides the half
    claim_id: str
    text: str
    gold: str

    @property
    def half(self) -> str:
        return "tune" if self.index % 2 == 0 else "held-out"


@dataclass(frozen=True)
class Outcome:
    index: int
    claim_id: str
    half: str
    gold: str
    predicted: str
    status: str  # the run's: succeeded, stopped or failed; refused: the request was invalid, no run
    verdict: str | None
    score: int | None
    error: str | None
    wall_s: float


def load_claims(path: Path = CLAIMS_FILE) -> list[Claim]:
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    return [Claim(i, str(r["claim_id"]), r["claim"], r["claim_label"]) for i, r in enumerate(rows)]


def select(claims: Sequence[Claim], split: str, limit: int | None, seed: int) -> list[Claim]:
    """The split's claims, or a seeded sample of `limit` of them with each label's share kept (largest
    remainder), in file order."""
    pool = [c for c in claims if split == "all" or c.half == split]
    if limit is None or limit >= len(pool):
        return pool
    rng = random.Random(seed)
    by_label = {label: [c for c in pool if c.gold == label] for label in LABELS}
    exact = {label: limit * len(group) / len(pool) for label, group in by_label.items()}
    quota = {label: int(share) for label, share in exact.items()}
    leftover = sorted(LABELS, key=lambda label: (-(exact[label] - quota[label]), LABELS.index(label)))
    for label in leftover[: limit - sum(quota.values())]:
        quota[label] += 1
    chosen = [c for label in LABELS for c in rng.sample(by_label[label], quota[label])]
    return sorted(chosen, key=lambda c: c.index)


def run_claims(
    claims: Sequence[Claim], data_dir: Path, observe: Callable[[Claim, str, Store], None] | None = None
) -> tuple[list[Outcome], float]:
    """Each claim through the real state machine, one after another. Returns outcomes and setup seconds.
    `observe` is called after each run with its claim, run id and the store (to read its artifacts)."""
    from claimcourt.errors import InvalidRequestError
    from claimcourt.local.runtime import LocalRuntime
    from claimcourt.models import RunStatus, SourceTag
    from claimcourt.runs import create_run, parse_request
    from claimcourt.settings import Settings
    from claimcourt.wiring import build_deps

    started = time.perf_counter()
    # Pinned whatever the environment holds: no provider keys, no web search, the bundled corpus.
    settings = Settings(data_dir=data_dir, provider="offline", models_by_role={}, web_search=False)
    deps = build_deps(settings)
    warm = getattr(deps.evidence, "warm", None)
    if callable(warm):
        warm()  # the index build is setup, not the first run's time
    outcomes: list[Outcome] = []
    with LocalRuntime(deps) as runtime:
        # Stage logs are structured JSON for CloudWatch: here they would drown the report.
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        setup_s = time.perf_counter() - started
        for n, claim in enumerate(claims, start=1):
            began = time.perf_counter()
            try:
                request = parse_request({"claim": claim.text})
            except InvalidRequestError as err:
                # The data is read as is; a claim the API would refuse is scored as a run without a verdict.
                outcomes.append(
                    Outcome(
                        index=claim.index,
                        claim_id=claim.claim_id,
                        half=claim.half,
                        gold=claim.gold,
                        predicted=NO_VERDICT_LABEL,
                        status="refused",
                        verdict=None,
                        score=None,
                        error=str(err),
                        wall_s=round(time.perf_counter() - began, 4),
                    )
                )
                continue
            record = create_run(deps.store, request, SourceTag.BENCH)
            runtime.execute(record.run_id)
            record = deps.store.get_run(record.run_id)
            wall = time.perf_counter() - began
            if observe is not None:
                observe(claim, record.run_id, deps.store)
            result = record.result
            if result is not None and result.reasoner != "offline":
                raise RuntimeError(
                    f"run {record.run_id} used reasoner {result.reasoner!r}, not the offline one"
                )
            # A run the pool-relevance check stopped answered not enough evidence without a debate.
            answered = result.overall_verdict if result is not None else record.verdict
            verdict = answered.value if answered is not None else None
            succeeded = record.status is RunStatus.SUCCEEDED and verdict is not None
            outcomes.append(
                Outcome(
                    index=claim.index,
                    claim_id=claim.claim_id,
                    half=claim.half,
                    gold=claim.gold,
                    predicted=LABEL_FOR_VERDICT[verdict] if succeeded and verdict else NO_VERDICT_LABEL,
                    status=record.status.value,
                    verdict=verdict,
                    score=result.overall_score if result is not None else None,
                    error=record.error,
                    wall_s=round(wall, 4),
                )
            )
            if n % 50 == 0 or n == len(claims):
                print(f"  {n}/{len(claims)} runs", file=sys.stderr, flush=True)
    return outcomes, setup_s


def supported_precision(gold: Sequence[str], predicted: Sequence[str]) -> float:
    """Of the claims predicted SUPPORTS, the share whose gold label is SUPPORTS (0 when none is)."""
    return per_class(gold, predicted, LABELS)["SUPPORTS"].precision


def scores(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, float]:
    return {
        "accuracy": accuracy(gold, predicted),
        "macro_f1": macro_f1(gold, predicted, LABELS),
        "balanced_accuracy": balanced_accuracy(gold, predicted, LABELS),
        "supported_precision": supported_precision(gold, predicted),
    }


def evaluate(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    gold = [o.gold for o in outcomes]
    predicted = [o.predicted for o in outcomes]
    majority = majority_label(gold, LABELS)
    return {
        "n": len(outcomes),
        "labels": {label: gold.count(label) for label in LABELS},
        "engine": scores(gold, predicted),
        "majority_label": majority,
        "majority": scores(gold, [majority] * len(gold)),
        "confusion": confusion(gold, predicted, LABELS),
        "per_class": {label: asdict(s) for label, s in per_class(gold, predicted, LABELS).items()},
    }


HEADER = f"  {'':<34}{'accuracy':>9}{'macro-F1':>10}{'balanced acc':>14}{'prec. of SUP':>15}"


def _metric_row(name: str, values: dict[str, float]) -> str:
    a, f, b = values["accuracy"], values["macro_f1"], values["balanced_accuracy"]
    return f"  {name:<34}{a:>9.3f}{f:>10.3f}{b:>14.3f}{values['supported_precision']:>15.3f}"


def report(outcomes: Sequence[Outcome], split: str, wall_s: float, setup_s: float) -> dict[str, Any]:
    """Print the report and return it as a document (for --out)."""
    summary = evaluate(outcomes)
    n = summary["n"]
    print(f"CLIMATE-FEVER claims-dev, split {split}: n = {n}")
    from claimcourt.reasoning.stance_model import model

    print(
        "engine: real pipeline (local state machine), offline reasoner, bundled BM25 corpus, effort standard"
    )
    print(f"reader: {model().reader}")
    print(
        "labels: "
        + ", ".join(
            f"{label} {summary['labels'][label]} ({summary['labels'][label] / n:.1%})" for label in LABELS
        )
    )
    print()
    print(HEADER)
    print(_metric_row("engine (offline reasoner)", summary["engine"]))
    print(_metric_row(f"majority ({summary['majority_label']})", summary["majority"]))
    print()
    print("engine confusion matrix (rows gold, columns predicted):")
    short = {"SUPPORTS": "SUP", "REFUTES": "REF", "NOT_ENOUGH_INFO": "NEI", "DISPUTED": "DIS"}
    print(f"  {'':<17}" + "".join(f"{short[label]:>6}" for label in LABELS) + f"{'total':>7}")
    for label, row in zip(LABELS, summary["confusion"], strict=True):
        print(f"  {label:<17}" + "".join(f"{v:>6}" for v in row) + f"{sum(row):>7}")
    column_totals = [sum(col) for col in zip(*summary["confusion"], strict=True)]
    print(f"  {'total':<17}" + "".join(f"{v:>6}" for v in column_totals) + f"{n:>7}")
    print()
    print(f"engine per class:  {'precision':>10}{'recall':>8}{'F1':>7}{'support':>9}")
    for label in LABELS:
        c = summary["per_class"][label]
        print(f"  {label:<17}{c['precision']:>10.3f}{c['recall']:>8.3f}{c['f1']:>7.3f}{c['support']:>9}")
    halves = {}
    present = sorted({o.half for o in outcomes}, key=lambda h: ("tune", "held-out").index(h))
    if len(present) > 1:
        print()
        print("by half (tune: even line indexes, the stance was trained on these; held-out: odd):")
        print(HEADER)
        for half in present:
            part = evaluate([o for o in outcomes if o.half == half])
            halves[half] = part
            print(_metric_row(f"{half} (n={part['n']}) engine", part["engine"]))
            print(_metric_row(f"{half} majority ({part['majority_label']})", part["majority"]))
    verdicts = Counter(o.verdict or f"({o.status})" for o in outcomes)
    print()
    print("verdicts: " + ", ".join(f"{v} {c}" for v, c in sorted(verdicts.items())))
    no_verdict = [o for o in outcomes if o.verdict is None or o.status != "succeeded"]
    by_status = Counter(o.status for o in no_verdict)
    print(
        f"failed/stopped runs: {len(no_verdict)}"
        + (f" ({', '.join(f'{s} {c}' for s, c in sorted(by_status.items()))})" if no_verdict else "")
        + f", each counted as a {NO_VERDICT_LABEL} prediction"
        + (
            f"; {sum(o.gold == NO_VERDICT_LABEL for o in no_verdict)} of them are gold {NO_VERDICT_LABEL}"
            if no_verdict
            else ""
        )
    )
    run_s = sum(o.wall_s for o in outcomes)
    print(
        f"wall time: {wall_s:.1f} s (setup {setup_s:.1f} s, runs {run_s:.1f} s), "
        f"{n / wall_s:.2f} runs/s overall, mean {run_s / n:.3f} s a run"
    )
    return {
        "split": split,
        **summary,
        "halves": halves,
        "failed_or_stopped": len(no_verdict),
        "wall_s": round(wall_s, 2),
        "setup_s": round(setup_s, 2),
        "runs_per_s": round(n / wall_s, 3),
        "outcomes": [asdict(o) for o in outcomes],
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m claimcourt.bench.climate_fever",
        description="CLIMATE-FEVER claims-dev: the offline engine against the majority baseline.",
    )
    parser.add_argument(
        "--limit", type=int, default=None, help="a seeded, label-stratified sample of N claims"
    )
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (with --limit)")
    parser.add_argument("--split", choices=SPLITS, default="all", help="all claims, or one half")
    parser.add_argument(
        "--reader",
        choices=("lexical", "embedding"),
        default="lexical",
        help="the offline judge's passage reader (embedding: needs the embed extra)",
    )
    parser.add_argument("--out", type=Path, default=None, help="write the report and every outcome as JSON")
    parser.add_argument(
        "--data-dir", type=Path, default=None, help="keep the runs' store here (default: temp)"
    )
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")

    from claimcourt.reasoning import embedding, stance_model

    if args.reader == "embedding" and not embedding.available():
        parser.error("--reader embedding needs the embed extra")
    stance_model.use(stance_model.shipped(embedded=args.reader == "embedding"))
    print(f"reader: {stance_model.model().reader}", file=sys.stderr, flush=True)
    claims = select(load_claims(), args.split, args.limit, args.seed)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="claimcourt-bench-") as tmp:
        data_dir = args.data_dir or Path(tmp)
        data_dir.mkdir(parents=True, exist_ok=True)
        print(f"running {len(claims)} claims (store: {data_dir})", file=sys.stderr, flush=True)
        outcomes, setup_s = run_claims(claims, data_dir)
    wall_s = time.perf_counter() - started
    document = report(outcomes, args.split, wall_s, setup_s)
    if args.out is not None:
        document.update(limit=args.limit, seed=args.seed)
        args.out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
