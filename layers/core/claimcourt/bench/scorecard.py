"""The scorecard: calibration, AVeriTeC, CLIMATE-FEVER and behaviour probes, the debate beside its baselines.

    claimcourt bench calibration|averitec|climate-fever|probes|all [--baselines] [--limit N | --sample N]
    python -m claimcourt.bench.scorecard all --baselines
    python -m claimcourt.bench.calibration | averitec | probes  (the same, one bench)

Each bench's items go through the debate and, with --baselines, through the single-LLM judge and naive
RAG + LLM on the same model (claimcourt.bench.harness). Prints each bench's scorecard (every metric for
every system, then calls, tokens and dollars per item: spent, and, for the offline reasoner, metered as if
billed at a model's prices) and writes a directory `<out>/<name>-<UTC time>/`
with config.json, progress.jsonl, the store, scorecard.json, PNG plots and report.html
(claimcourt.bench.report). Interrupted (Ctrl-C, a crash), it resumes with --resume DIR. At the end the
scorecard and its plots are recorded in the configured store (CLAIMCOURT_DATA_DIR's, or --data-dir's, or
a stack's DynamoDB table and bucket), where `GET /benchmarks` and the console's Benchmarks page read it
(--no-record: not).

With no provider key every role is the offline reasoner, and the figures are its own (they say so). With
ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL set, the same command measures that model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claimcourt.bench import averitec, calibration, climate, probes
from claimcourt.bench.card import Options, Section, render
from claimcourt.bench.harness import (
    METER_MODEL,
    Job,
    Outcome,
    _digest,
    bench_settings,
    is_offline,
    reasoner_label,
    run_jobs,
    session,
    stamp,
)
from claimcourt.settings import Settings


@dataclass(frozen=True)
class Bench:
    name: str
    golden: bool  # the claims carry their own evidence
    jobs: Callable[[Options], list[Job]]
    evaluate: Callable[[Sequence[Outcome], Options], Section]


BENCHES = {
    b.name: b
    for b in (
        Bench(calibration.NAME, False, calibration.jobs, calibration.evaluate),
        Bench(averitec.NAME, True, averitec.jobs, averitec.evaluate),
        Bench(climate.NAME, False, climate.jobs, climate.evaluate),
        Bench(probes.NAME, False, probes.jobs, probes.evaluate),
    )
}
CONFIG, PROGRESS, SCORECARD = "config.json", "progress.jsonl", "scorecard.json"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="claimcourt bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("name", choices=[*BENCHES, "all"], help="which bench (all: each in turn)")
    parser.add_argument("--baselines", action="store_true", help="also the single-LLM judge and naive RAG")
    parser.add_argument("--limit", type=int, default=None, help="the first N items of each bench")
    parser.add_argument("--sample", type=int, default=None, help="a seeded, label-stratified sample of N")
    parser.add_argument("--seed", type=int, default=0, help="the sample's and the CV folds' seed")
    parser.add_argument("--runs", type=int, default=3, help="runs per claim of the calibration set")
    parser.add_argument(
        "--concurrency", type=int, default=None, help="jobs at once (default: CLAIMCOURT_MAX_ACTIVE_RUNS)"
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results"), help="where run directories go")
    parser.add_argument("--resume", type=Path, default=None, help="carry on an interrupted run's directory")
    parser.add_argument("--data-dir", type=Path, default=None, help="the store (default: the run directory)")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots and the HTML report")
    parser.add_argument(
        "--no-record",
        action="store_true",
        help="do not record the scorecard in the store (GET /benchmarks, the console's Benchmarks page)",
    )
    return parser


def _settings(data_dir: Path | None) -> Settings:
    try:
        overrides: dict[str, Any] = {"data_dir": data_dir} if data_dir else {}
        settings = Settings(**overrides)
    except ValidationError as exc:
        raise SystemExit(f"configuration: {exc.errors()[0]['msg']}") from exc
    if problems := settings.problems():
        raise SystemExit(f"configuration: {problems[0]}")
    return settings


def _progress(total: int, done: int, label: str) -> tuple[Any, Callable[[Outcome], None]]:
    """A progress bar on stderr (rich), advanced as each job ends."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    task = bar.add_task(label, total=total, completed=done)
    return bar, lambda outcome: bar.advance(task)


def run(argv: Sequence[str] | None = None) -> tuple[Path, list[Section]]:
    """Run (or resume) a scorecard; returns its directory and sections."""
    args = _parser().parse_args(argv)
    for flag in ("limit", "sample", "runs", "concurrency"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise SystemExit(f"--{flag} must be at least 1")
    settings = _settings(args.data_dir)
    if args.resume is not None:
        directory = args.resume
        if not (directory / CONFIG).exists():
            raise SystemExit(f"--resume: {directory} holds no {CONFIG}: not a bench run directory")
        saved = json.loads((directory / CONFIG).read_text(encoding="utf-8"))
        if saved["reasoner"] != reasoner_label(settings):
            raise SystemExit(
                f"--resume: {directory} was run with {saved['reasoner']}, not {reasoner_label(settings)}: "
                "one scorecard never mixes two reasoners"
            )
        options = Options.from_json(saved["options"])
        if args.concurrency:
            options = Options.from_json(options.to_json() | {"concurrency": args.concurrency})
    else:
        options = Options(
            benches=tuple(BENCHES) if args.name == "all" else (args.name,),
            baselines=args.baselines,
            limit=args.limit,
            sample=args.sample,
            seed=args.seed,
            runs=args.runs,
            concurrency=args.concurrency or settings.max_active_runs,
        )
        directory = args.out / f"{args.name}-{stamp()}"
        directory.mkdir(parents=True, exist_ok=False)
        config = {
            "options": options.to_json(),
            "reasoner": reasoner_label(settings),
            "offline": is_offline(settings),
        }
        (directory / CONFIG).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    label = reasoner_label(settings)
    offline = is_offline(settings)
    print(f"bench run: {directory}", file=sys.stderr)
    print(
        f"reasoner: {label}"
        + (
            " — these are the offline reasoner's figures, not a model's: its dollars are metered as if "
            f"billed at {METER_MODEL} prices, and $0 was spent"
            if offline
            else ""
        )
    )
    jobs = {name: BENCHES[name].jobs(options) for name in options.benches}
    debates = sum(job.system == "debate" for js in jobs.values() for job in js)
    stored = bench_settings(settings, args.data_dir or directory, debates)
    progress_path = directory / PROGRESS
    done = len({k for k in _done_keys(progress_path)} & {j.key for js in jobs.values() for j in js})
    total = sum(len(js) for js in jobs.values())
    if done:
        print(f"resuming: {done} of {total} jobs already done", file=sys.stderr)
    sections: list[Section] = []
    outcomes_of: dict[str, list[Outcome]] = {}
    started = time.perf_counter()
    bench_id = _digest(directory.resolve().as_posix())
    for name in options.benches:
        spec = BENCHES[name]
        bar, advance = _progress(
            len(jobs[name]), len(_done_keys(progress_path) & {j.key for j in jobs[name]}), name
        )
        with session(stored, bench_id, spec.golden, options.effort) as active, bar:
            outcomes = run_jobs(active, jobs[name], progress_path, options.concurrency, advance)
        outcomes_of[name] = list(outcomes)
        sections.append(spec.evaluate(outcomes, options))
    wall = time.perf_counter() - started
    for section in sections:
        print()
        print(render(section))
    document = {
        "reasoner": label,
        "offline": offline,
        "options": options.to_json(),
        "wall_s": round(wall, 1),
        "sections": [s.to_json() for s in sections],
    }
    (directory / SCORECARD).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    written = [directory / SCORECARD]
    images: dict[str, list[Path]] = {}
    if not args.no_plots:
        from claimcourt.bench.report import write_report

        images = write_report(directory, document)
        written += [*(p for paths in images.values() for p in paths), directory / "report.html"]
        written.append(directory.parent / "index.html")
    print()
    print(f"{total} jobs in {wall:.1f} s; wrote " + ", ".join(str(p) for p in written))
    if not args.no_record:
        _record(settings, bench_id, document, directory, sections, outcomes_of, images)
    return directory, sections


def _record(
    settings: Settings,
    bench_id: str,
    document: dict[str, Any],
    directory: Path,
    sections: list[Section],
    outcomes: dict[str, list[Outcome]],
    images: dict[str, list[Path]],
) -> None:
    """Into the store `serve` and the API read (the settings' own, not the bench directory's)."""
    from claimcourt.bench.record import record_scorecard
    from claimcourt.wiring import build_store

    store = build_store(settings)
    try:
        record = record_scorecard(
            store,
            bench_id=bench_id,
            document=document,
            directory=directory,
            sections=sections,
            outcomes=outcomes,
            plots=images,
        )
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()
    where = settings.table_name if settings.store == "dynamodb" else settings.resolved_data_dir()
    print(f"recorded as benchmark {record.benchmark_id} in {where}: GET /benchmarks/{record.benchmark_id}")


def _done_keys(path: Path) -> set[str]:
    from claimcourt.bench.harness import read_progress

    return set(read_progress(path))


def main(argv: Sequence[str] | None = None) -> None:
    try:
        run(argv)
    except KeyboardInterrupt:
        print(
            "\ninterrupted: the finished jobs are kept; carry on with --resume <the run directory>",
            file=sys.stderr,
        )
        raise SystemExit(130) from None


if __name__ == "__main__":
    main()
