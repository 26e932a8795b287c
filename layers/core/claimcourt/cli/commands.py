"""`claimcourt`: run a debate on the laptop, list runs, show one (every command of the command line).

Progress goes to stderr and the verdict (or --json) to stdout, so `claimcourt run … --json | jq` works.
Exit status: 0 succeeded, 1 failed, 2 bad input (nothing stored), 3 stopped by the suitability check,
4 `serve` cannot listen on its address.
The console script (claimcourt.local.console.main, a launcher) runs `entry`, which leaves without the
interpreter's teardown; tests call `main`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn, get_args

import click
from pydantic import TypeAdapter, ValidationError
from rich.console import Console
from rich.markup import escape

from claimcourt import artifacts
from claimcourt.errors import (
    ConfigurationError,
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    RateLimitedError,
)
from claimcourt.execution import Executor, Machine, StepFunctionsExecutor
from claimcourt.local.cloud import EXECUTION_CHECK_S, FOLLOW_POLL_S, Stack, load_stack
from claimcourt.local.collector import resume_collector
from claimcourt.local.processes import owner_gone, this_process
from claimcourt.local.render import (
    ProgressView,
    render_decisions,
    render_judgements,
    render_record,
    render_runs,
)
from claimcourt.models import (
    LOCAL_TENANT,
    PROVIDERS,
    BacktestDating,
    ClaimAsked,
    Effort,
    JudgeKind,
    Mode,
    MotionRequest,
    MotionResult,
    RunOutput,
    RunRecord,
    RunRequest,
    RunStatus,
    Side,
    Verdict,
    first_problem,
    utcnow,
)
from claimcourt.runs import follow, run_usage, submit_when_free, tenant_run
from claimcourt.settings import ROLES, Settings
from claimcourt.store.base import Store
from claimcourt.wiring import Deps, build_collections
from claimcourt.wiring import build_deps as _build_deps
from claimcourt.wiring import build_store as _build_store

EXIT_FAILED, EXIT_BAD_INPUT, EXIT_STOPPED, EXIT_CANNOT_LISTEN = 1, 2, 3, 4
EXIT_UNFLUSHED = 120  # what Python itself exits with when stdout cannot be flushed at the end

# The stores a command opened, for `entry` to close before it leaves (None: called as `main`, by tests).
_to_close: list[Store] | None = None


def build_store(settings: Settings) -> Store:
    store = _build_store(settings)
    if _to_close is not None:
        _to_close.append(store)
    return store


def build_deps(settings: Settings) -> Deps:
    deps = dataclasses.replace(_build_deps(settings), now=_clock())
    if _to_close is not None:
        _to_close.append(deps.store)
    return deps


def _clock() -> Callable[[], datetime]:
    """The time the cost guard admits the CLI's runs at (Deps.now): the wall clock, or the clock a
    caller hands `main` as its context object (`main(args, obj=clock)`: a test holding time still)."""
    context = click.get_current_context(silent=True)
    held = context.find_root().obj if context is not None else None
    if held is None:
        return utcnow
    if not callable(held):
        raise TypeError(f"main's context object is the CLI's clock: a callable, not {type(held).__name__}")
    clock: Callable[[], datetime] = held
    return clock


# Piped output is not cut to 80 columns: tables and long lines stay whole for files and pagers.
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False, soft_wrap=True)  # an error stays one line


def _quiet_logs(verbose: bool) -> None:
    """Handler logs are structured JSON for CloudWatch; on a terminal the progress view says it better.
    Each Powertools logger is named for its service: claimcourt, claimcourt-api, claimcourt-socket, …"""
    for name in [n for n in logging.root.manager.loggerDict if n.split("-")[0] == "claimcourt"]:
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO if verbose else logging.WARNING)
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler):
                handler.setStream(sys.stderr)  # never mix logs into stdout (--json)


def _fail(message: str, code: int) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}", markup=True, highlight=False)
    sys.exit(code)


def _settings(data_dir: Path | None) -> Settings:
    """Settings from the environment; a bad one is a one-line error, before anything runs."""
    overrides: dict[str, Any] = {"data_dir": data_dir} if data_dir else {}
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        _fail("configuration: " + ": ".join(first_problem(exc, "settings")), EXIT_BAD_INPUT)
    if problems := settings.problems():
        _fail(f"configuration: {problems[0]}", EXIT_BAD_INPUT)
    return settings


def _stack(name: str, data_dir: Path | None) -> Stack:
    # A deployed stack's run is followed for as long as it takes, without the local runtime (which
    # resumes the collector the console script paused for its start-up): resume it here.
    resume_collector()
    try:
        return load_stack(name, _settings(data_dir))
    except ConfigurationError as exc:
        _fail(f"stack: {exc}", EXIT_BAD_INPUT)
    except Exception as exc:  # botocore: no credentials, no such stack, no network
        _fail(f"stack: cannot read stack {name}: {exc}", EXIT_BAD_INPUT)


def _store(data_dir: Path | None, stack: str | None) -> Store:
    """Reading history needs the store only: no providers, no corpus."""
    return build_store(_stack(stack, data_dir).settings if stack else _settings(data_dir))


class _Choice(click.Choice[str]):
    """click.Choice, so that --help lists the choices (the request model's own), but refused as any
    bad input is: one line naming the request's field, exit 2, before anything runs."""

    def __init__(self, kind: Any, field: str) -> None:
        super().__init__(get_args(kind))
        self.field = field

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        try:
            return str(super().convert(value, param, ctx))
        except click.BadParameter:
            _fail(
                f"{self.field}: {value!r} is not one of {', '.join(map(str, self.choices))}", EXIT_BAD_INPUT
            )


class _Whole(click.ParamType[int]):
    """A whole number, refused as any bad input is (one line naming the request's field, exit 2);
    the request model checks its range."""

    name = "integer"

    def __init__(self, field: str) -> None:
        self.field = field

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            return int(value)
        except (TypeError, ValueError):
            _fail(f"{self.field}: {value!r} is not a whole number", EXIT_BAD_INPUT)


MODES, EFFORTS, SIDES, JUDGES = (
    _Choice(kind, field)
    for kind, field in [(Mode, "mode"), (Effort, "effort"), (Side, "first"), (JudgeKind, "judge")]
)

# Whose runs a command reads: the CLI's own are the `local` tenant's; a stack's, any key's tenant's.
runs_tenant_option = click.option(
    "--tenant", default=LOCAL_TENANT, show_default=True, help="Whose runs: the CLI's own are 'local'."
)
run_tenant_option = click.option(
    "--tenant", default=LOCAL_TENANT, show_default=True, help="Whose run: the CLI's own are 'local'."
)

data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where runs are stored (default: the user data directory, or $CLAIMCOURT_DATA_DIR).",
)
CORPUS_HELP = (
    "A document collection to search (`claimcourt corpus list`; `climate` is the bundled corpus); "
    "repeatable. Default: the bundled corpus, or web search with an Anthropic key."
)


stack_option = click.option(
    "--stack",
    default=None,
    help="A deployed stack's name: use its tables, state machines and cost guard (AWS credentials from "
    "your environment).",
)

CommandFunction = Callable[..., Any]  # a command's function, as click's decorators take and return it


def _options(
    *options: Callable[[CommandFunction], CommandFunction],
) -> Callable[[CommandFunction], CommandFunction]:
    """One decorator applying these click options, listed in the order `--help` shows them."""

    def apply(command: CommandFunction) -> CommandFunction:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


def _bundled_options(
    noun: str, described: str, most: int, default: int, ids: str
) -> Callable[[CommandFunction], CommandFunction]:
    """`--{noun}s N` and `--{noun}-ids`: how many of a bundled set the suite samples, or which."""
    return _options(
        click.option(
            f"--{noun}s",
            default=None,
            type=click.IntRange(0, most),
            help=f"How many bundled {described} to sample (seeded).  [default: {default}]",
        ),
        click.option(
            f"--{noun}-ids",
            multiple=True,
            help=f"These bundled {noun}s instead of a sample: ids such as {ids} (see --list).",
        ),
    )


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="claimcourt", prog_name="claimcourt", message="%(prog)s %(version)s")
def main() -> None:
    """claimcourt: a calibrated, source-cited score for a claim, from a staged debate."""


def entry() -> NoReturn:
    """The console script: `main`, then out with os._exit once its output is flushed and its stores
    are closed. Tearing the interpreter down (moto, boto3, pydantic, numpy, …) takes longer than
    most of a run does, and nothing is left to do: a command returns only when it is finished. A
    command that raises (a bug) leaves the ordinary way, with its traceback."""
    global _to_close
    _to_close = []
    try:
        main(prog_name="claimcourt")
        code = 0
    except SystemExit as exc:  # click's standalone mode always ends here
        code = _exit_status(exc.code)
    for store in _to_close:  # SQLite: checkpoints the WAL into the file, as a normal exit would
        with contextlib.suppress(Exception):
            getattr(store, "close", lambda: None)()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # e.g. `claimcourt runs | head`: the reader has gone
            code = code or (EXIT_UNFLUSHED if stream is sys.stdout else 0)
    os._exit(code)


def _exit_status(code: object) -> int:
    """As the interpreter turns a SystemExit's code into a status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


@main.command()
@click.argument("claim")
@click.option(
    "--mode", type=MODES, default="spectral", show_default=True, help="A 0–100 score, or a verdict."
)
@click.option("--context", default=None, help="Background text the debaters may use.")
@click.option("--as-of", "as_of", default=None, help="Backtest date YYYY-MM-DD: only evidence up to then.")
@click.option("--effort", type=EFFORTS, default="standard", show_default=True, help="High: more rounds.")
@click.option(
    "--first", type=SIDES, default=None, help="That side argues first each round, the other answers it."
)
@click.option(
    "--rounds",
    type=_Whole("rounds"),
    default=None,
    help="Exactly this many rounds, 1–6 (default: the effort's).",
)
@click.option(
    "--judge", type=JUDGES, default="contract", show_default=True, help="contract: 0–100; rubric: 0–10, DH."
)
@click.option(
    "--judges",
    "panel",
    default=None,
    help="A panel: provider[:model][+rubric|+contract], comma-separated, up to 5 (e.g. "
    "openai:gpt-4.1,anthropic,offline+rubric); each judges in its own call, the median speaks.",
)
@click.option("--corpus", "corpora", multiple=True, help=CORPUS_HELP)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the run as JSON (its status, and its result once scored)."
)
@click.option("--claim-author", default=None, help="Who made the claim (for its ClaimReview only).")
@click.option(
    "--claim-author-type",
    type=click.Choice(["Person", "Organization"]),
    default="Person",
    show_default=True,
    help="What the claim's author is.",
)
@click.option(
    "--claim-appearance", multiple=True, help="Where the claim appeared (a URL; repeat it, the first first)."
)
@click.option("--claim-date", default=None, help="When the claim was first made, YYYY-MM-DD.")
@click.option("--verbose", is_flag=True, help="Show each stage's structured log on stderr.")
@data_dir_option
@stack_option
def run(
    claim: str,
    mode: str,
    context: str | None,
    as_of: str | None,
    effort: str,
    first: str | None,
    rounds: int | None,
    judge: str,
    panel: str | None,
    corpora: tuple[str, ...],
    as_json: bool,
    claim_author: str | None,
    claim_author_type: str,
    claim_appearance: tuple[str, ...],
    claim_date: str | None,
    verbose: bool,
    data_dir: Path | None,
    stack: str | None,
) -> None:
    """Run a debate on CLAIM and print the verdict."""
    from claimcourt.runs import parse_request

    origin = None
    if claim_author is not None or claim_appearance or claim_date is not None:
        origin = {
            "author": claim_author,
            "author_type": claim_author_type,
            "appearances": list(claim_appearance),
            "date_made": claim_date,
        }
    try:
        request = parse_request(
            {
                "claim": claim,
                "mode": mode,
                "context": context,
                "as_of_date": as_of,
                "effort": effort,
                "first": first,
                "rounds": rounds,
                "judge": judge,
                "judges": _judges(panel),
                "claim_origin": origin,
                "corpora": list(corpora),
            }
        )
    except InvalidRequestError as exc:
        _fail(f"{exc.field}: {exc.message}", EXIT_BAD_INPUT)
    if stack:
        deployed = _stack(stack, data_dir)
        _check_stack_corpora(deployed, request.corpora)
        _check_panel(deployed.settings, request)
        _run_on_stack(deployed, request, as_json)
        return
    from claimcourt.local.runtime import LocalRuntime

    deps = build_deps(_settings(data_dir))
    _check_corpora(deps, request.corpora)
    _check_panel(deps.settings, request)
    with LocalRuntime(deps) as runtime:
        _quiet_logs(verbose)  # after the handlers are loaded: their logger is configured on import
        record = _submit(deps.store, runtime, deps.settings, request)
        view = ProgressView(err, deps.store, record, deps.reasoner.label(ROLES), _searching(deps, record))
        with view:
            runtime.follow(record.run_id, on_tick=view.refresh)
    _print_record(deps.store, deps.store.get_run(record.run_id), as_json)


def _judges(text: str | None) -> list[str]:
    """`--judges a,b,c` as the request's list (an empty one refused by name: `a,,b` is a typo, not two)."""
    if text is None:
        return []
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        _fail(f"judges: {text!r} names an empty judge (comma-separated, none empty)", EXIT_BAD_INPUT)
    return names


def _check_panel(settings: Settings, request: ClaimAsked) -> None:
    """A panel's judges can be heard here and paid for (a one-line error before anything runs), and what
    judging is estimated to cost, said on stderr."""
    from claimcourt.adjudication.panel import check

    try:
        estimate = check(settings, request)
    except InvalidRequestError as exc:
        _fail(f"{exc.field}: {exc.message}", EXIT_BAD_INPUT)
    if estimate is not None:
        err.print(f"[dim]panel: {escape(estimate.line())}[/]")


def _check_corpora(deps: Deps, corpora: list[str]) -> None:
    """Every collection named is the CLI's own (tenant local), or a one-line error before anything runs."""
    from claimcourt.evidence.collections import check_corpora

    try:
        check_corpora(deps.collections, LOCAL_TENANT, corpora)
    except InvalidRequestError as exc:
        _fail(f"{exc.field}: {exc.message} (claimcourt corpus list)", EXIT_BAD_INPUT)


def _check_stack_corpora(deployed: Stack, corpora: list[str]) -> None:
    """Every collection named is the stack's, of the CLI's tenant (local), or a one-line error."""
    from claimcourt.evidence.collections import check_corpora

    if not corpora:
        return
    try:
        check_corpora(build_collections(deployed.settings), LOCAL_TENANT, corpora)
    except InvalidRequestError as exc:
        _fail(f"{exc.field}: {exc.message} (on stack {deployed.name}: GET /corpora)", EXIT_BAD_INPUT)


def _searching(deps: Deps, record: RunRecord) -> str:
    """What the progress view says the run searches: its collections by name, else the source's name."""
    return ", ".join(record.request.corpora) or deps.evidence.name


def _dating(record: RunRecord) -> BacktestDating | None:
    return record.result.backtest if record.result is not None else None


def _submit(
    store: Store, executor: Executor, settings: Settings, request: RunRequest | MotionRequest
) -> RunRecord:
    """Start a run of the CLI's own under the cost guard, as the API's: while the concurrency cap is
    full (runs of `claimcourt serve`, or of the stack), wait for a slot (after giving back the slots
    of CLI runs on this host whose process was killed); over the hourly cap, stop."""
    try:
        return _start(store, executor, settings, request)
    except RateLimitedError as refused:
        _fail(f"cost guard: {refused.message} (nothing was started)", EXIT_FAILED)


def _start(
    store: Store, executor: Executor, settings: Settings, request: RunRequest | MotionRequest
) -> RunRecord:
    """As _submit, but a refusal over the hourly cap is raised (RateLimitedError), for a caller that
    has started runs already."""

    def waiting(refused: RateLimitedError) -> None:
        err.print(f"[dim]waiting for a free slot: {escape(refused.message)}[/]")

    # A run the local runtime executes is this process's: if it is killed, the next CLI run frees its
    # slot. A stack's runs are Step Functions' own, whatever becomes of this process.
    owned = not isinstance(executor, StepFunctionsExecutor)
    try:
        return submit_when_free(
            store,
            executor,
            settings,
            LOCAL_TENANT,
            request,
            timeout_s=settings.run_timeout_s,
            on_wait=waiting,
            owner=this_process() if owned else None,
            gone=owner_gone,
            now=_clock(),
        )
    except RateLimitedError:
        raise
    except Exception as exc:  # the run is recorded failed with the reason, its slot given back
        _fail(f"could not start the run: {exc}", EXIT_FAILED)


def _run_on_stack(deployed: Stack, request: RunRequest, as_json: bool) -> None:
    """Record the run in the stack's table under its cost guard, start its state machine, follow
    the events."""
    store, executor = build_store(deployed.settings), deployed.executor()
    record = _submit(store, executor, deployed.settings, request)
    view = ProgressView(err, store, record, f"as configured on stack {deployed.name}", "the stack's")
    with view:
        record = _follow_on_stack(deployed, store, executor, record.run_id, view.refresh)
    _print_record(store, record, as_json)


def _follow_on_stack(
    deployed: Stack, store: Store, executor: StepFunctionsExecutor, run_id: str, on_tick: Callable[[], None]
) -> RunRecord:
    """Follow a run started on the stack through its events until it ends (or the run timeout)."""
    follow(
        store,
        run_id,
        lambda: executor.ended(run_id),
        deployed.settings.run_timeout_s,
        on_tick,
        poll_s=FOLLOW_POLL_S,
        check_every_s=EXECUTION_CHECK_S,
    )
    record = store.get_run(run_id)
    if not record.status.terminal:
        _fail(f"run {run_id} is still running after {deployed.settings.run_timeout_s:.0f} s", EXIT_FAILED)
    return record


def _as_json(store: Store, record: RunRecord) -> str:
    return RunOutput.of(record, run_usage(store, record)).model_dump_json(indent=2)


def _print_record(store: Store, record: RunRecord, as_json: bool) -> None:
    if as_json:
        click.echo(_as_json(store, record))
    else:
        render_record(out, record)
    if record.status is RunStatus.FAILED:
        sys.exit(EXIT_FAILED)
    if record.status is RunStatus.STOPPED:
        sys.exit(EXIT_STOPPED)


def _parse_motion(raw: dict[str, Any]) -> MotionRequest:
    try:
        return MotionRequest.model_validate(raw)
    except ValidationError as exc:
        field, message = first_problem(exc, "motion")
        _fail(f"{field}: {message}", EXIT_BAD_INPUT)


def _lineup(pairs: tuple[str, ...]) -> dict[str, str]:
    found: dict[str, str] = {}
    for pair in pairs:
        role, sep, model = pair.partition("=")
        if not sep:
            _fail(f"lineup: {pair!r} is not role=provider:model", EXIT_BAD_INPUT)
        if role.strip() in found:
            _fail(
                f"lineup.{role.strip()}: named twice ({found[role.strip()]} and {model.strip()})",
                EXIT_BAD_INPUT,
            )
        found[role.strip()] = model.strip()
    return found


@main.command()
@click.argument("motion")
@click.option(
    "--rounds", default=2, show_default=True, help="Rounds between the opening and the closing (1–6)."
)
@click.option("--crowd", default=24, show_default=True, help="Personas in the audience (1–100).")
@click.option(
    "--words", default=250, show_default=True, help="Word limit of a statement, before the time knob."
)
@click.option("--citations", default=3, show_default=True, help="New citations a statement may add.")
@click.option("--seed", default=0, show_default=True, help="Draws the first speaker when vote zero is a tie.")
@click.option(
    "--first",
    default=None,
    type=click.Choice(["for", "against"]),
    help="Who speaks first (default: vote zero).",
)
@click.option(
    "--lean", default=0.60, show_default=True, help="Time knob: past this share of decided voters one way …"
)
@click.option("--ratio", default=1.25, show_default=True, help="… the other side gets this times the room.")
@click.option("--context", default=None, help="Background text the teams may use.")
@click.option("--corpus", "corpora", multiple=True, help=CORPUS_HELP)
@click.option(
    "--lineup",
    multiple=True,
    help="role=provider:model, e.g. debater_for=anthropic:claude-sonnet-4-5 (roles: debater_for, "
    "debater_against, factchecker_for, factchecker_against, judge, crowd). Repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run and its result as JSON.")
@click.option("--verbose", is_flag=True, help="Show each stage's structured log on stderr.")
@data_dir_option
@stack_option
def motion(
    motion: str,
    rounds: int,
    crowd: int,
    words: int,
    citations: int,
    seed: int,
    first: str | None,
    lean: float,
    ratio: float,
    context: str | None,
    corpora: tuple[str, ...],
    lineup: tuple[str, ...],
    as_json: bool,
    verbose: bool,
    data_dir: Path | None,
    stack: str | None,
) -> None:
    """Debate MOTION before a crowd that votes before and after every round; print the vote swing."""
    request = _parse_motion(
        {
            "motion": motion,
            "rounds": rounds,
            "crowd": crowd,
            "words": words,
            "citations": citations,
            "seed": seed,
            "first": first,
            "time_knob": {"lean_above": lean, "ratio": ratio},
            "context": context,
            "lineup": _lineup(lineup),
            "corpora": list(corpora),
        }
    )
    from claimcourt.local.motion_cli import Progress

    if stack:  # the providers are the stack's (its secret): a line-up is checked there, at its stage
        deployed = _stack(stack, data_dir)
        _check_stack_corpora(deployed, request.corpora)
        if deployed.motion_state_machine_arn is None:
            _fail(
                f"stack: stack {deployed.name} has no output MotionStateMachineArn: "
                "deploy this version of claimcourt to debate motions on it",
                EXIT_BAD_INPUT,
            )
        store, executor = build_store(deployed.settings), deployed.executor()
        run_id = _submit(store, executor, deployed.settings, request).run_id
        progress = Progress(err, store, run_id, request)
        _follow_on_stack(deployed, store, executor, run_id, progress.tick)
        progress.close()
        _print_motion(store, run_id, as_json)
        return
    from claimcourt.local.runtime import LocalRuntime

    settings = _settings(data_dir)
    try:
        settings.check_lineup(request.lineup)
    except InvalidRequestError as exc:
        _fail(str(exc), EXIT_BAD_INPUT)
    deps = build_deps(settings)
    _check_corpora(deps, request.corpora)
    with LocalRuntime(deps) as runtime:
        _quiet_logs(verbose)
        run_id = _submit(deps.store, runtime, deps.settings, request).run_id
        progress = Progress(err, deps.store, run_id, request)
        runtime.follow(run_id, on_tick=progress.tick)
        progress.close()
    _print_motion(deps.store, run_id, as_json)


def _print_motion(store: Store, run_id: str, as_json: bool) -> None:
    """The vote swing and the judge's report (or the run and its result as JSON); exit 3 when the
    suitability check stopped it before its crowd voted, 1 when it failed."""
    from claimcourt.local.motion_cli import print_result, print_stopped

    ended = store.get_run(run_id)
    result = artifacts.motion_result_of(store, run_id)
    if as_json:
        click.echo(_motion_json(ended, result))
    elif result is not None:
        print_result(out, result)
    elif ended.status is RunStatus.STOPPED:
        print_stopped(out, ended)
    if ended.status is RunStatus.STOPPED:
        sys.exit(EXIT_STOPPED)
    if ended.status is not RunStatus.SUCCEEDED:
        err.print(f"[red]the debate failed: {ended.error}[/]")
        sys.exit(EXIT_FAILED)


def _motion_json(record: RunRecord, result: MotionResult | None) -> str:
    """A motion debate as `motion --json` and `show --json` print it: `GET /motions/{id}`'s shape
    (less its links), the result filled once the debate has concluded."""
    fields = {
        "run_id",
        "status",
        "motion",
        "created_at",
        "finished_at",
        "error",
        "cost_usd",
        "stop_reason",
        "warnings",
    }
    doc = record.model_dump(mode="json", include=fields)
    doc["result"] = result.model_dump(mode="json") if result else None
    return json.dumps(doc, indent=2)


def _ids(values: tuple[str, ...]) -> list[str]:
    """Ids given as repeated flags and/or comma-separated lists, in order."""
    return [i.strip() for v in values for i in v.split(",") if i.strip()]


def _model_names(option: str, text: str, settings: Settings, size: int | None) -> list[str]:
    """A comma-separated list of provider:model names, each with its key at hand (exit 2 naming the
    first problem); `size`, when given, is how many the list must hold."""
    names = [m.strip() for m in text.split(",")]
    if (size is not None and len(names) != size) or not all(
        m.partition(":")[0] in PROVIDERS and m.partition(":")[2] for m in names
    ):
        shape = "two provider:model names, A,B" if size == 2 else "provider:model names, comma-separated"
        _fail(f"{option}: {text!r} is not {shape}", EXIT_BAD_INPUT)
    for m in names:
        if not settings.has_key(m.partition(":")[0]):
            _fail(f"{option}: {settings.missing_key(m.partition(':')[0])}", EXIT_BAD_INPUT)
    return names


@main.command()
@_bundled_options("claim", "fact-checked claims", 98, 4, "climate-3,health-12")
@_bundled_options("motion", "motions with real votes", 37, 2, "motion-4,motion-17")
@click.option(
    "--rounds", default=2, show_default=True, type=click.IntRange(1, 6), help="Rounds of each debate."
)
@click.option(
    "--max-rounds", default=3, show_default=True, type=click.IntRange(1, 6), help="Stability: 1 to this many."
)
@click.option("--seed", default=0, show_default=True, help="Which claims and motions the sample draws.")
@click.option(
    "--models",
    default=None,
    help="A,B: the two models of the 2x2 as provider:model (default: the configured debaters' model, twice).",
)
@click.option(
    "--matchup",
    "matchups",
    multiple=True,
    help="A,B as for --models; repeat it to run the suite (or the grid) once per model pair.",
)
@click.option(
    "--count",
    type=click.IntRange(1, 10_000),
    default=None,
    help="A randomised sweep of this many claim debates: claim, models, order and length drawn by --seed.",
)
@click.option(
    "--sweep-models",
    default=None,
    help="The sweep's declared models, provider:model comma-separated; two different ones per debate "
    "(default: the --models/--matchup models).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("suite-results"),
    show_default=True,
    help="Where suite.json, the CSV tables and the PNG plots go.",
)
@click.option(
    "--grid",
    is_flag=True,
    help="The core hypothesis: each claim at 1, 2, 4 and 6 rounds x both orders (x both line-ups); "
    "prints accuracy against ground truth by length and order.",
)
@click.option("--claim", "own_claim", default=None, help="Debate this claim (with --gt-verdict/--gt-score).")
@click.option(
    "--gt-verdict",
    type=click.Choice([v.value for v in Verdict]),
    default=None,
    help="--claim's ground-truth verdict.",
)
@click.option(
    "--gt-score", type=click.IntRange(0, 100), default=None, help="--claim's ground-truth score, 0-100."
)
@click.option(
    "--topic", default=None, help="Sample only the bundled claims of this topic (health, climate…)."
)
@click.option(
    "--list", "list_cases", is_flag=True, help="Print the bundled claims and motions with their ids."
)
@data_dir_option
def suite(
    claims: int | None,
    claim_ids: tuple[str, ...],
    motions: int | None,
    motion_ids: tuple[str, ...],
    rounds: int,
    max_rounds: int,
    seed: int,
    models: str | None,
    matchups: tuple[str, ...],
    count: int | None,
    sweep_models: str | None,
    out: Path,
    grid: bool,
    own_claim: str | None,
    gt_verdict: str | None,
    gt_score: int | None,
    topic: str | None,
    list_cases: bool,
    data_dir: Path | None,
) -> None:
    """Run an experiment suite: a 2x2 per claim and motion (which model argues which side x who speaks
    first), verdict stability by rounds; every debate tagged source=experiment. Prints the report.
    With --grid: each claim at 1, 2, 4, 6 rounds x both orders, and accuracy by length and order.
    With --count: a seeded random sweep of claim debates over a declared list of models."""
    from claimcourt.bench.suite import (
        UnknownCases,
        bundled_claims,
        bundled_motions,
        claim_cases,
        claim_topics,
        draw_sweep,
        fact_checked,
        motion_cases,
        pick,
        report,
        run_grid,
        run_suite,
        run_sweep,
        write,
    )

    if list_cases:
        for c in bundled_claims():
            click.echo(f"{c['id']:<11} {c.get('topic') or '-':<12} {c['verdict']:<20} {c['claim']}")
        for m in bundled_motions():
            pro = m["voteSwing"]["pro"]
            swing = f"audience swing {pro:+.0f}" if pro is not None else "no audience swing"
            click.echo(f"{m['id']:<11} {m.get('topic') or '-':<12} {swing:<20} {m['motion']}")
        return
    claim_id_list, motion_id_list = _ids(claim_ids), _ids(motion_ids)
    # Ways to choose the claims exclude one another: which one was meant is never guessed.
    chosen = [
        flag
        for flag, given in (
            ("--claims", claims is not None),
            ("--claim-ids", bool(claim_id_list)),
            ("--claim", own_claim is not None),
            ("--topic", topic is not None and own_claim is None),
        )
        if given
    ]
    if len(chosen) > 1 and chosen != ["--claims", "--topic"]:
        _fail(f"{' and '.join(chosen)} each choose the claims: use one", EXIT_BAD_INPUT)
    if (gt_verdict is not None or gt_score is not None) and own_claim is None:
        _fail(
            "--gt-verdict and --gt-score are the ground truth of --claim TEXT: name the claim", EXIT_BAD_INPUT
        )
    if own_claim is not None and gt_verdict is None and gt_score is None:
        _fail("--claim needs its ground truth: --gt-verdict and/or --gt-score", EXIT_BAD_INPUT)
    if own_claim is not None and not (grid or count):
        _fail(
            "--claim is debated by --grid or --count (the 2x2 suite samples the bundled sets)", EXIT_BAD_INPUT
        )
    if count is not None and grid:
        _fail("--count draws a random sweep; --grid debates every cell: use one", EXIT_BAD_INPUT)
    if motions is not None and motion_id_list:
        _fail("--motions and --motion-ids each choose the motions: use one", EXIT_BAD_INPUT)
    if (grid or count is not None) and (motion_id_list or motions is not None):
        _fail("motions are debated by the 2x2 suite, not by --grid or --count", EXIT_BAD_INPUT)
    if sweep_models is not None and count is None:
        _fail("--sweep-models are the models --count draws from: give --count", EXIT_BAD_INPUT)
    if models is not None and matchups:
        _fail("--models and --matchup each name the model pairs: use one", EXIT_BAD_INPUT)
    if own_claim is not None:
        try:
            own_claim = RunRequest(claim=own_claim).claim
        except ValidationError as e:
            _fail("--claim: " + first_problem(e, "claim")[1], EXIT_BAD_INPUT)
    if topic is not None and topic not in claim_topics():
        _fail(
            f"--topic: {topic!r} is none of the bundled claims' topics: {', '.join(claim_topics())}",
            EXIT_BAD_INPUT,
        )
    try:
        if claim_id_list:
            bundled = pick(bundled_claims(), claim_id_list, "claim")
        elif count is not None:  # a sweep draws from every bundled claim (of the topic) unless told which
            bundled = claim_cases(98 if claims is None else claims, seed, topic)
        else:
            bundled = claim_cases(4 if claims is None else claims, seed, topic)
        motion_set = (
            pick(bundled_motions(), motion_id_list, "motion")
            if motion_id_list
            else motion_cases(2 if motions is None else motions, seed)
        )
    except UnknownCases as e:
        _fail(f"--{e.what}-ids: {e}", EXIT_BAD_INPUT)

    settings = _settings(data_dir)
    default_model = ":".join(settings.route("case_for"))
    pairs = [
        _model_names("--matchup" if matchups else "--models", text, settings, 2)
        for text in (matchups or (models or f"{default_model},{default_model}",))
    ]
    if count is not None:
        drawn_from = (
            _model_names("--sweep-models", sweep_models, settings, None)
            if sweep_models is not None
            else list(dict.fromkeys(m for pair in pairs for m in pair))
        )
    _quiet_logs(False)

    def progress(d: Any) -> None:
        err.print(f"[dim]{d.kind:<6} {d.cell:<18} r{d.rounds} {d.status:<9} {escape(d.case[:70])}[/]")

    if own_claim is not None:
        truth = {"verdict": gt_verdict, "score": gt_score, "topic": topic, "source": "--gt flags"}
        cases = [(own_claim, truth)]
    else:
        cases = [(c["claim"], fact_checked(c)) for c in bundled]
    debates = []
    if count is not None:
        draws = draw_sweep(cases, drawn_from, count, seed)
        debates = run_sweep(settings, draws, suite=f"sweep-{seed}-{count}d", progress=progress)
    for a, b in pairs if count is None else []:
        if grid:
            debates += run_grid(
                settings, cases, models=(a, b), suite=f"grid-{seed}-{len(cases)}c", progress=progress
            )
        else:
            debates += run_suite(
                settings,
                bundled,
                motion_set,
                rounds=rounds,
                max_rounds=max_rounds,
                models=(a, b),
                suite=f"suite-{seed}-{len(bundled)}c{len(motion_set)}m{rounds}r",
                progress=progress,
            )
    for line in report(debates):
        click.echo(line)
    for path in write(debates, out):
        click.echo(str(path))
    if any(d.status != "succeeded" for d in debates):
        sys.exit(EXIT_FAILED)


_experiment_filters = _options(  # the filters `experiments` and `experiments plot` share
    click.option("--topic", default=None, help="Only this topic."),
    click.option(
        "--verdict",
        type=click.Choice([v.value for v in Verdict]),
        default=None,
        help="Only this verdict.",
    ),
    click.option(
        "--truth",
        type=click.Choice([v.value for v in Verdict]),
        default=None,
        help="Only this ground truth.",
    ),
    click.option(
        "--model", default=None, help="Only debates with this provider:model (in --role, if named)."
    ),
    click.option("--role", type=click.Choice(ROLES), default=None, help="The role --model played."),
    click.option(
        "--rounds", type=click.IntRange(1, 6), default=None, help="Only debates of this many rounds."
    ),
    click.option("--first", type=click.Choice(get_args(Side)), default=None, help="Only this order."),
    click.option("--min-score", type=click.IntRange(0, 100), default=None),
    click.option("--max-score", type=click.IntRange(0, 100), default=None),
    click.option("--since", type=click.DateTime(), default=None, help="Created at or after (UTC)."),
    click.option("--until", type=click.DateTime(), default=None, help="Created at or before (UTC)."),
    runs_tenant_option,
    data_dir_option,
    stack_option,
)


def _experiment_rows(store: Store, filters: dict[str, Any]) -> list[Any]:
    """The stored experiment debates these filters keep (exit 2 on an empty score range)."""
    from claimcourt.bench.experiments import Filters, load, select

    lo, hi = filters["min_score"], filters["max_score"]
    if lo is not None and hi is not None and lo > hi:
        _fail(f"--min-score {lo} is above --max-score {hi}", EXIT_BAD_INPUT)
    names = Filters.__dataclass_fields__
    return select(load(store, filters["tenant"]), Filters(**{k: v for k, v in filters.items() if k in names}))


@main.group(invoke_without_command=True)
@_experiment_filters
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--jsonl", "jsonl_path", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.pass_context
def experiments(
    ctx: click.Context,
    /,
    csv_path: Path | None,
    jsonl_path: Path | None,
    data_dir: Path | None,
    stack: str | None,
    **filters: Any,
) -> None:
    """List the stored experiment debates (suite's), filtered; print stats per cell; export CSV/JSONL.
    `experiments plot` draws their plots."""
    if ctx.invoked_subcommand is not None:
        # Options before the subcommand would be silently dropped: say where they go instead.
        named = {**filters, "data_dir": data_dir, "stack": stack, "csv": csv_path, "jsonl": jsonl_path}
        given = [f"--{k.replace('_', '-')}" for k, v in named.items() if v is not None and k != "tenant"]
        if given or filters["tenant"] != LOCAL_TENANT:
            _fail(
                f"{', '.join(given) or '--tenant'}: give them after `{ctx.invoked_subcommand}`",
                EXIT_BAD_INPUT,
            )
        return
    from claimcourt.bench.experiments import stats, write_csv, write_jsonl

    rows = _experiment_rows(_store(data_dir, stack), filters)
    for r in rows:
        truth_text = r.truth_verdict or "–"
        mark = {True: "right", False: "wrong", None: ""}[r.correct]
        click.echo(
            f"{r.run_id}  {r.created_at[:19]}  {r.status:<9} r{r.rounds or '-'} {r.first or 'both':<7} "
            f"{r.score if r.score is not None else '–':>3} {r.verdict or '–':<19} truth {truth_text:<19} "
            f"{mark:<5} {r.topic or '–':<11} {r.claim[:60]}"
        )
    click.echo(f"{len(rows)} experiment debates")
    if rows:
        click.echo("per cell: n, failed, mean score (sd), verdict = truth")
        for c in stats(rows):
            mean = f"{c.mean_score:5.1f}" if c.mean_score is not None else "    –"
            sd = f"({c.sd_score:4.1f})" if c.sd_score is not None else "(   –)"
            acc = f"{c.correct}/{c.judged}" + (f" {c.correct / c.judged:.0%}" if c.judged else "")
            click.echo(
                f"  {c.cell or '–':<22} r{c.rounds or '-'} {c.first or 'both':<7} "
                f"n {c.n:<3} failed {c.failed:<3} {mean} {sd}  {acc}"
            )
    for path, writer in ((csv_path, write_csv), (jsonl_path, write_jsonl)):
        if path is not None:
            click.echo(str(writer(rows, path)))


@experiments.command(name="plot")
@_experiment_filters
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("experiment-plots"),
    show_default=True,
    help="Where the PNG plots go.",
)
def experiments_plot(out: Path, data_dir: Path | None, stack: str | None, **filters: Any) -> None:
    """Draw the research plots of the stored experiment debates these filters keep."""
    from claimcourt.bench.experiments import as_debates
    from claimcourt.bench.plots import write_plots
    from claimcourt.bench.suite import grid_plot

    store = _store(data_dir, stack)
    debates = as_debates(store, _experiment_rows(store, filters))
    written = write_plots(debates, out)
    if any(d.outcome.get("by_round") and d.first for d in debates):
        written.insert(0, grid_plot(debates, out / "grid.png"))
    click.echo(f"{len(debates)} experiment debates")
    if not written:
        _fail("nothing to plot: no stored experiment debate these filters keep has finished", EXIT_BAD_INPUT)
    for path in written:
        click.echo(str(path))


@main.command()
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True, help="One JSON record per line.")
@runs_tenant_option
@data_dir_option
@stack_option
def runs(limit: int, as_json: bool, tenant: str, data_dir: Path | None, stack: str | None) -> None:
    """List past runs, newest first."""
    records = _store(data_dir, stack).list_runs(tenant, limit).runs
    if as_json:
        for r in records:
            click.echo(r.model_dump_json(exclude={"result"}))
    else:
        render_runs(out, records)


@main.command()
@click.argument("run_id")
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON, as `run --json` does.")
@click.option("--rounds", is_flag=True, help="Show the round controller's decision after each round instead.")
@run_tenant_option
@data_dir_option
@stack_option
def show(
    run_id: str, as_json: bool, rounds: bool, tenant: str, data_dir: Path | None, stack: str | None
) -> None:
    """Show one run of a tenant (not a deleted one): its verdict, or why it failed."""
    store = _store(data_dir, stack)
    try:
        record = tenant_run(store, tenant, run_id)
    except NotFoundError:
        _fail(f"run_id: no run {run_id} for tenant {tenant}", EXIT_BAD_INPUT)
    if rounds and record.motion is not None:
        _fail(
            f"run_id: {run_id} is a motion debate, which has no round controller: its votes round by round "
            f"are in `claimcourt export {run_id}` (score_trajectory.csv)",
            EXIT_BAD_INPUT,
        )
    if rounds:
        decisions = artifacts.decisions_of(store, run_id)
        if as_json:
            click.echo(json.dumps([d.model_dump(mode="json") for d in decisions], indent=2))
        else:
            render_decisions(out, decisions)
    elif as_json and record.motion is not None:
        click.echo(_motion_json(record, artifacts.motion_result_of(store, run_id)))
    elif as_json:
        click.echo(_as_json(store, record))
    elif record.motion is not None and (result := artifacts.motion_result_of(store, run_id)) is not None:
        from claimcourt.local.motion_cli import print_result

        print_result(out, result)
    elif record.motion is not None and record.status is RunStatus.STOPPED:
        from claimcourt.local.motion_cli import print_stopped

        print_stopped(out, record)
    else:
        render_record(out, record)


@main.command()
@click.argument("run_id")
@click.option(
    "--judge",
    "judges",
    multiple=True,
    required=True,
    help="A judge, provider:model (provider alone: its default model; offline: the offline reasoner); "
    "repeatable: each judges in its own call, in parallel.",
)
@click.option("--rubric", is_flag=True, help="Each judge also judges by the rubric, beside the contract.")
@click.option(
    "--crowd",
    is_flag=True,
    help="A motion debate: its crowd votes again on each new final report (else only the report is new).",
)
@click.option("--json", "as_json", is_flag=True, help="Print every judgement of the run as JSON.")
@run_tenant_option
@data_dir_option
def rejudge(
    run_id: str,
    judges: tuple[str, ...],
    rubric: bool,
    crowd: bool,
    as_json: bool,
    tenant: str,
    data_dir: Path | None,
) -> None:
    """Judge RUN's stored debate again with other judges, without re-running it: the same anonymized
    debate, each new judgement scored by the same rules and stored beside the run's own (never replacing
    it); a motion debate, a new final report from each judge (and with --crowd the crowd's final vote on
    it). Waits for every judge; prints the run's judgement and every re-judgement."""
    from claimcourt.rejudge import JudgementList, judgements_of
    from claimcourt.rejudge import rejudge as judge_again

    deps = build_deps(_settings(data_dir))
    try:
        record = tenant_run(deps.store, tenant, run_id)
    except NotFoundError:
        _fail(f"run_id: no run {run_id} for tenant {tenant}", EXIT_BAD_INPUT)
    try:
        judge_again(deps, record, judges, rubric=rubric, crowd=crowd)
    except (InvalidRequestError, ConflictError) as exc:
        _fail(str(exc), EXIT_BAD_INPUT)
    listed = judgements_of(deps, deps.store.get_run(run_id))
    if as_json:
        click.echo(JudgementList(run_id=run_id, judgements=listed).model_dump_json(indent=2))
    else:
        render_judgements(out, listed)


@main.command()
@click.argument("run_ids", nargs=-1)
@click.option("--all", "every", is_flag=True, help="Every run of the tenant (its latest 1000).")
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("judge_vs_judge.png"),
    show_default=True,
    help="Where to write the judge-against-judge plot (PNG).",
)
@click.option(
    "--spread-plot",
    "spread_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("panel_spread.png"),
    show_default=True,
    help="Where to write the plot of the judges' spread per claim (PNG).",
)
@runs_tenant_option
@data_dir_option
def agreement(
    run_ids: tuple[str, ...],
    every: bool,
    plot_path: Path,
    spread_path: Path,
    tenant: str,
    data_dir: Path | None,
) -> None:
    """Agreement over RUNs (or --all), their panels' judges and their re-judgements: judge–judge Pearson
    and Spearman on scores and Cohen's kappa on verdicts, judge–debater; a table, the judge–judge plot
    and the panel's spread per claim."""
    from claimcourt.bench.agreement import load, pairs, plot, spread_plot, table

    if bool(run_ids) == every:
        _fail("run_ids: name runs, or --all (not both)", EXIT_BAD_INPUT)
    deps = build_deps(_settings(data_dir))
    if every:
        run_ids = tuple(r.run_id for r in deps.store.list_runs(tenant, 1000).runs)
    for run_id in run_ids:
        try:
            tenant_run(deps.store, tenant, run_id)
        except NotFoundError:
            _fail(f"run_id: no run {run_id} for tenant {tenant}", EXIT_BAD_INPUT)
    runs = load(deps, run_ids)
    if not runs:
        _fail("run_ids: none of these runs has succeeded: nothing was judged", EXIT_BAD_INPUT)
    for line in table(runs):
        click.echo(line)
    click.echo(str(plot(pairs(runs), plot_path)))
    click.echo(str(spread_plot(runs, spread_path)))


@main.command(name="export")
@click.argument("run_id")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Where to write the four files.",
)
@click.option(
    "--claimreview",
    is_flag=True,
    help="Write the run's schema.org ClaimReview (JSON-LD) instead: <run>-claimreview.jsonld.",
)
@click.option(
    "--url",
    default=None,
    help="With --claimreview: the page that publishes the review (default: CLAIMCOURT_CLAIMREVIEW_URL).",
)
@run_tenant_option
@data_dir_option
@stack_option
def export_run(
    run_id: str,
    directory: Path,
    claimreview: bool,
    url: str | None,
    tenant: str,
    data_dir: Path | None,
    stack: str | None,
) -> None:
    """Write RUN's artifacts: transcript_full.md, citation_ledger.json, debate_logic_map.json,
    score_trajectory.csv, and a motion debate's history_chat.json, crowd_opinion.json and
    voter_sentiment_graph.csv (named <run>-<artifact>); or, with --claimreview, its ClaimReview."""
    from claimcourt.exports import artifact_names, export

    if url is not None and not claimreview:
        _fail("url: --url names the page of a ClaimReview: use it with --claimreview", EXIT_BAD_INPUT)
    settings = _stack(stack, data_dir).settings if stack else _settings(data_dir)
    store = build_store(settings)
    try:
        record = tenant_run(store, tenant, run_id)
    except NotFoundError:
        _fail(f"run_id: no run {run_id} for tenant {tenant}", EXIT_BAD_INPUT)
    if claimreview:
        _export_claimreview(record, directory, url, settings)
        return
    directory.mkdir(parents=True, exist_ok=True)
    for name in artifact_names(record):
        path = directory / f"{run_id}-{name}"
        path.write_text(export(store, run_id, name), encoding="utf-8")
        click.echo(str(path))


def _export_claimreview(record: RunRecord, directory: Path, url: str | None, settings: Settings) -> None:
    """The run's ClaimReview in one file, or one line saying why it has none (nothing written)."""
    from claimcourt.claimreview import FILE_SUFFIX, claim_review, publisher_of, review_url, to_json
    from claimcourt.errors import ConflictError
    from claimcourt.models import WebAddress

    if url is not None:
        try:
            url = TypeAdapter(WebAddress).validate_python(url)
        except ValidationError as exc:
            _fail(f"url: {first_problem(exc, 'url')[1]}", EXIT_BAD_INPUT)
    elif settings.claimreview_url is not None:
        url = review_url(settings.claimreview_url, record.run_id)
    else:
        _fail(
            "url: a ClaimReview names the page that publishes it: pass --url, or set "
            "CLAIMCOURT_CLAIMREVIEW_URL (e.g. https://example.org/checks/{run_id})",
            EXIT_BAD_INPUT,
        )
    try:
        review = claim_review(record, url=url, publisher=publisher_of(settings))
    except ConflictError as exc:
        _fail(f"run_id: {exc}", EXIT_BAD_INPUT)
    if settings.claimreview_author is None:
        err.print(
            "[dim]No author: set CLAIMCOURT_CLAIMREVIEW_AUTHOR (and _AUTHOR_URL) to name the publisher.[/]"
        )
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{record.run_id}-{FILE_SUFFIX}"
    path.write_text(to_json(review), encoding="utf-8")
    click.echo(str(path))


@main.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Loopback by default: nothing is exposed."
)
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535))
@click.option("--verbose", is_flag=True, help="Show each handler's structured log on stderr.")
@data_dir_option
def serve(host: str, port: int, verbose: bool, data_dir: Path | None) -> None:
    """Serve the HTTP and WebSocket APIs locally: the cloud's handlers, runs in the local runtime.
    Exit 4 if it cannot listen on the address (the port is taken, or the host is not this machine)."""
    from claimcourt.local.server import listen
    from claimcourt.local.server import serve as serve_api

    try:
        sock = listen(host, port)
    except OSError as exc:
        _fail(f"port: cannot listen on {host}:{port}: {exc.strerror or exc}", EXIT_CANNOT_LISTEN)
    deps = build_deps(_settings(data_dir))

    def started() -> None:
        _quiet_logs(verbose)
        err.print(f"claimcourt API on http://{host}:{port}, live progress on ws://{host}:{port}/")
        err.print(f"({deps.settings.store} store); Ctrl-C stops it")
        err.print("API keys: claimcourt keys create --tenant <name>")

    serve_api(deps, host, port, on_start=started, sock=sock)


@main.group()
def keys() -> None:
    """API keys: one per caller, owned by a tenant. Only a digest of each key is stored."""


def _tenant(ctx: click.Context, param: click.Parameter, tenant: str) -> str:
    """A --tenant as the stores take it, or a one-line error naming it (before anything is written)."""
    from claimcourt.access import valid_tenant

    if not valid_tenant(tenant):
        _fail(
            f"tenant: {tenant!r} must be 1-63 of a-z, 0-9 and -, starting with a letter or digit",
            EXIT_BAD_INPUT,
        )
    return tenant


@keys.command("create")
@click.option(
    "--tenant", required=True, callback=_tenant, help="Who owns the runs made with this key (a-z, 0-9, -)."
)
@click.option("--label", default="", help="A note to tell keys apart, e.g. who holds it.")
@click.option(
    "--admin",
    is_flag=True,
    help="The operator's: may change the server's settings and provider keys, which every tenant's runs "
    "use (a key of tenant local always may; any other key only reads them).",
)
@data_dir_option
@stack_option
def keys_create(tenant: str, label: str, admin: bool, data_dir: Path | None, stack: str | None) -> None:
    """Create a key and print it, once: it cannot be shown again."""
    from claimcourt.access import is_operator, issue_key

    key, record = issue_key(_store(data_dir, stack), tenant, label, admin=admin)
    role = "the operator's (it may change the settings)" if is_operator(record) else "it reads the settings"
    err.print(f"key {record.key_id} for tenant {tenant}, {role}; keep it secret, it is shown only now:")
    click.echo(key)


@keys.command("list")
@data_dir_option
@stack_option
def keys_list(data_dir: Path | None, stack: str | None) -> None:
    """List keys (ids, tenants, labels; never the keys)."""
    from claimcourt.access import is_operator

    click.echo(f"{'KEY':<16}  {'TENANT':<20} {'STATE':<24} {'CREATED':<10}  LABEL")
    for k in _store(data_dir, stack).list_api_keys():
        state = f"revoked {k.revoked_at:%Y-%m-%d %H:%M}" if k.revoked_at else "active"
        state += ", admin" if is_operator(k) else ""  # may change the settings (tenant local's always may)
        click.echo(f"{k.key_id:<16}  {k.tenant_id:<20} {state:<24} {k.created_at:%Y-%m-%d}  {k.label}")


@keys.command("revoke")
@click.argument("key_id")
@data_dir_option
@stack_option
def keys_revoke(key_id: str, data_dir: Path | None, stack: str | None) -> None:
    """Revoke a key by its id: requests with it are refused from now on."""
    if not _store(data_dir, stack).revoke_api_key(key_id):
        _fail(f"key_id: no active key {key_id}", EXIT_BAD_INPUT)
    err.print(f"revoked {key_id}")


tenant_option = click.option(
    "--tenant",
    default=LOCAL_TENANT,
    show_default=True,
    callback=_tenant,
    help="Whose monitors (the API's are per key's tenant).",
)


@main.group()
def monitor() -> None:
    """Claims to re-score on a schedule: `claimcourt drift tick` runs the ones that are due."""


@monitor.command("add")
@click.argument("claim")
@click.option("--cadence", required=True, help="hourly, daily, weekly, or a 5-field cron expression (UTC).")
@click.option("--threshold", type=int, required=True, help="Points the score must move to say so.")
@click.option(
    "--mode", type=MODES, default="spectral", show_default=True, help="A 0–100 score, or a verdict."
)
@click.option("--effort", type=EFFORTS, default="standard", show_default=True, help="High: more rounds.")
@click.option(
    "--judges", "panel", default=None, help="A panel judges each re-score (as `claimcourt run --judges`)."
)
@tenant_option
@data_dir_option
def monitor_add(
    claim: str,
    cadence: str,
    threshold: int,
    mode: str,
    effort: str,
    panel: str | None,
    tenant: str,
    data_dir: Path | None,
) -> None:
    """Watch CLAIM: it is first scored at the next tick, then on its cadence."""
    from claimcourt.models import MonitorRequest
    from claimcourt.watching.drift import create_monitor

    try:
        request = MonitorRequest(
            claim=claim, cadence=cadence, threshold=threshold, mode=mode, effort=effort, judges=_judges(panel)
        )
    except ValidationError as exc:
        _fail(": ".join(first_problem(exc, "monitor")), EXIT_BAD_INPUT)
    _check_panel(_settings(data_dir), request)
    made = create_monitor(_store(data_dir, None), tenant, request)
    err.print(f"monitor {made.monitor_id}: {request.cadence}, threshold {threshold} points")
    click.echo(made.monitor_id)


@monitor.command("list")
@tenant_option
@data_dir_option
def monitor_list(tenant: str, data_dir: Path | None) -> None:
    """List monitors: id, cadence, threshold, next due, last run, claim."""
    click.echo(f"{'MONITOR':<20}  {'CADENCE':<14} {'THRESHOLD':<9} {'NEXT DUE':<16}  {'LAST RUN':<44} CLAIM")
    for m in _store(data_dir, None).list_monitors(tenant):
        last, threshold = m.last_run_id or "-", f"±{m.request.threshold}"
        click.echo(
            f"{m.monitor_id:<20}  {m.request.cadence:<14} {threshold:<9} "
            f"{m.next_due:%Y-%m-%d %H:%M}  {last:<44} {m.request.claim}"
        )


@monitor.command("rm")
@click.argument("monitor_id")
@tenant_option
@data_dir_option
def monitor_rm(monitor_id: str, tenant: str, data_dir: Path | None) -> None:
    """Stop watching: the claim's runs and drift series stay."""
    store = _store(data_dir, None)
    try:
        owned = store.get_monitor(monitor_id).tenant_id == tenant
    except NotFoundError:
        owned = False
    if not owned or not store.delete_monitor(monitor_id):
        _fail(f"monitor_id: no monitor {monitor_id} for tenant {tenant}", EXIT_BAD_INPUT)
    err.print(f"removed {monitor_id}")


@main.group()
def drift() -> None:
    """Scheduled drift re-scoring, by hand."""


@drift.command("tick")
@click.option("--verbose", is_flag=True, help="Show each stage's structured log on stderr.")
@data_dir_option
def drift_tick(verbose: bool, data_dir: Path | None) -> None:
    """One scheduler tick: a re-score run for every due monitor (under the cost guard), each
    followed to its end, then the score each moved to."""
    from claimcourt.local.runtime import LocalRuntime
    from claimcourt.watching.drift import tick

    deps = build_deps(_settings(data_dir))
    with LocalRuntime(deps) as runtime:
        _quiet_logs(verbose)
        report = tick(deps.store, runtime, deps.settings, now=deps.now, wait_s=0.2)
        err.print(
            f"{len(report.started)} started, {report.already_started} already started, "
            f"{report.left_due} left due, {report.failed} failed"
        )
        _follow_and_print(runtime, deps.store, report.started)


class _Starts:
    """The runtime as an executor that remembers what it started (to follow those runs)."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.started: list[str] = []

    def start(self, run_id: str, machine: Machine = "debate") -> str:
        self.started.append(run_id)
        return str(self.runtime.start(run_id, machine))

    def execution_status(self, run_id: str) -> str | None:
        status: str | None = self.runtime.execution_status(run_id)
        return status


def _follow_and_print(runtime: Any, store: Store, run_ids: list[str]) -> None:
    """Follow each run to its end; print its score and how far it moved from its claim's last one."""
    for run_id in run_ids:
        runtime.follow(run_id)
        record = store.get_run(run_id)
        series = [p for p in store.drift_series(record.tenant_id, record.claim_id) if p.as_of_date is None]
        before = next((p.score for p in reversed(series) if p.run_id != run_id), None)
        moved = (
            "" if before is None or record.score is None else f" (was {before}, {record.score - before:+d})"
        )
        score = "-" if record.score is None else str(record.score)
        click.echo(f"{run_id}  {record.status.value:<9} {score:>3}{moved}  {record.request.claim}")


@main.group()
def events() -> None:
    """The project's bus, on the laptop."""


@events.command("put")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--verbose", is_flag=True, help="Show each stage's structured log on stderr.")
@data_dir_option
def events_put(file: Path, verbose: bool, data_dir: Path | None) -> None:
    """Put the event(s) in FILE on the bus: one JSON event or a list, each as EventBridge delivers
    it ({"detail-type", "source", "detail"}) or as PutEvents takes it ({"DetailType", "Source",
    "Detail"}). The monitor rule sends claim.check_requested and evidence.updated to the monitor
    function in SQS batches; the runs they start are followed to their end. Exit 2 if any event
    could not be acted on (each is printed with the reason); a file holding an event PutEvents would
    refuse (no detail-type, a detail that is not an object) is refused whole, before anything is put."""
    import dataclasses

    from claimcourt.bus import SqsDeadLetters
    from claimcourt.local.bus import LocalBus, entry
    from claimcourt.local.dispatch import LocalContext
    from claimcourt.local.runtime import LocalRuntime
    from claimcourt.local.template import REGION
    from claimcourt.watching.events import handler
    from claimcourt.wiring import use_deps

    try:
        loaded = json.loads(file.read_text())
    except ValueError as exc:
        _fail(f"{file}: not JSON: {exc}", EXIT_BAD_INPUT)
    sent = loaded if isinstance(loaded, list) else [loaded]
    if not all(isinstance(e, dict) for e in sent):
        _fail(f"{file}: expected an event object or a list of them", EXIT_BAD_INPUT)
    if not sent:
        _fail(f"{file}: no events (give one event object or a list of them)", EXIT_BAD_INPUT)
    entries = []
    for number, event in enumerate(sent, 1):  # all or nothing: a bad event is named, and none is put
        try:
            entries.append(entry(event))
        except ValueError as exc:
            _fail(f"{file}: event {number}: {exc}", EXIT_BAD_INPUT)
    deps = build_deps(_settings(data_dir))
    with LocalRuntime(deps) as runtime:
        _quiet_logs(verbose)
        bus = LocalBus(runtime.template)
        starts = _Starts(runtime)
        local = dataclasses.replace(
            deps, executor=starts, dead_letters=SqsDeadLetters(bus.dead_letter_url, REGION)
        )
        answers = bus.put(entries)
        with use_deps(local):
            drained = bus.drain(handler, LocalContext(function_name="claimcourt-MonitorFunction"), 600)
        refused = [(n, a) for n, a in enumerate(answers, 1) if "EventId" not in a]
        # The rule sends on only the types the monitor function acts on; the rest reach nothing
        taken = [(n, a["EventId"]) for n, a in enumerate(answers, 1) if "EventId" in a]
        unrouted = [n for n, event_id in taken if event_id not in drained.delivered]
        routed = ", ".join(bus.routed_types)
        err.print(f"{len(taken)} of {len(sent)} on the bus; {len(starts.started)} runs started")
        _follow_and_print(runtime, deps.store, list(dict.fromkeys(starts.started)))
    for number, answer in refused:
        reason = f"{answer.get('ErrorCode')}: {answer.get('ErrorMessage')}"
        err.print(f"[bold red]refused by the bus:[/] event {number}: {escape(reason)}", markup=True)
    for number in unrouted:
        kind = entries[number - 1]["DetailType"]
        err.print(
            f"[bold red]not routed:[/] event {number}: detail-type {escape(repr(kind))}: no rule takes it"
            f" (the monitor rule takes {routed}); nothing acted on it",
            markup=True,
        )
    for body, reason in drained.dead:
        err.print(f"[bold red]dead letter:[/] {escape(reason)}: {escape(body[:200])}", markup=True)
    if drained.dead or refused or unrouted:
        sys.exit(EXIT_BAD_INPUT)


@main.command(context_settings={"ignore_unknown_options": True, "help_option_names": []})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def bench(args: tuple[str, ...]) -> None:
    """The scorecard: calibration, averitec, climate-fever, probes or all, with --baselines beside the
    single-LLM judge and naive RAG + LLM on the same model. `claimcourt bench --help` for the options."""
    from claimcourt.bench.scorecard import main as scorecard

    scorecard(list(args))


@main.command()
@click.argument("claim")
@click.option("--dates", required=True, help="Comma-separated YYYY-MM-DD dates; `today` is a live run.")
@click.option(
    "--mode", type=MODES, default="spectral", show_default=True, help="A 0–100 score, or a verdict."
)
@click.option("--effort", type=EFFORTS, default="standard", show_default=True, help="High: more rounds.")
@click.option("--context", default=None, help="Background text the debaters may use.")
@click.option("--json", "as_json", is_flag=True, help="Print the series as JSON.")
@click.option("--verbose", is_flag=True, help="Show each stage's structured log on stderr.")
@data_dir_option
def backtest(
    claim: str,
    dates: str,
    mode: str,
    effort: str,
    context: str | None,
    as_json: bool,
    verbose: bool,
    data_dir: Path | None,
) -> None:
    """Score CLAIM as of each date (evidence bounded to what existed then) and print the series:
    how the answer looked, and how it drifted as evidence accumulated."""
    from claimcourt.local.runtime import LocalRuntime
    from claimcourt.runs import parse_request

    wanted = [d.strip() for d in dates.split(",") if d.strip()]
    if not wanted:
        _fail("dates: give at least one date", EXIT_BAD_INPUT)
    requests = []
    for when in dict.fromkeys(wanted):
        as_of = None if when.lower() == "today" else when
        try:
            requests.append(
                parse_request(
                    {"claim": claim, "as_of_date": as_of, "mode": mode, "effort": effort, "context": context}
                )
            )
        except InvalidRequestError as exc:  # a date names itself; any other field, as it is
            field = f"dates: {when}" if exc.field == "as_of_date" else exc.field
            _fail(f"{field}: {exc.message}", EXIT_BAD_INPUT)
    requests.sort(key=lambda r: (r.as_of_date is None, r.as_of_date))  # oldest first, today last
    deps = build_deps(_settings(data_dir))
    with LocalRuntime(deps) as runtime:
        _quiet_logs(verbose)
        err.print(f"{len(requests)} runs, one per date; following them to their end")
        records: list[RunRecord] = []
        refused: RateLimitedError | None = None
        for request in requests:
            try:
                records.append(_start(deps.store, runtime, deps.settings, request))
            except RateLimitedError as exc:  # over the hourly cap: the dates started still end
                refused = exc
                break
        if not records and refused is not None:
            _fail(f"cost guard: {refused.message} (nothing was started)", EXIT_FAILED)
        for record in records:
            runtime.follow(record.run_id)
    ended = [deps.store.get_run(r.run_id) for r in records]
    series = [
        {
            "as_of_date": r.request.as_of_date.isoformat() if r.request.as_of_date else "today",
            "run_id": r.run_id,
            "status": r.status.value,
            "score": r.score,
            "interval": r.interval.model_dump() if r.interval else None,
            "verdict": r.verdict.value if r.verdict else None,
            "error": r.error,
            "sources": dating.model_dump() if (dating := _dating(r)) else None,
        }
        for r in ended
    ]
    if as_json:
        click.echo(json.dumps({"claim": claim, "claim_id": ended[0].claim_id, "series": series}, indent=2))
    else:
        for r in ended:
            when = r.request.as_of_date.isoformat() if r.request.as_of_date else "today"
            shown = (
                "-"
                if r.score is None or r.interval is None
                else f"{r.score:>3} ({r.interval.low}–{r.interval.high})"
            )
            outcome = r.verdict.value if r.verdict else r.status.value
            sources = ""
            if (dating := _dating(r)) is not None:
                sources = (
                    f"  sources: {dating.retrieved} retrieved, {dating.dated} dated, "
                    f"{dating.dropped} dropped as after the date"
                    + (
                        f" ({dating.written_after} written after it, by their text)"
                        if dating.written_after
                        else ""
                    )
                )
            click.echo(f"{when:<10}  {shown:<13} {outcome:<20} {r.run_id}{sources}")
        datings = [d for r in ended if (d := _dating(r)) is not None and d.retrieved]
        if datings and not any(d.dated for d in datings):
            # Then a date can leave out no source as published after it: only the sources whose text
            # shows it and the sentences that name a later time go, and the dates may well score alike.
            click.echo(
                f"No retrieved source carried a publication date (the evidence source, "
                f"{deps.evidence.name}, dates none): no date could leave a source out as published "
                "after it; only its text could show it was written later (the hindsight check), and "
                "sentences that name a later time were cut."
            )
    if refused is not None:
        err.print(
            f"[bold red]cost guard:[/] {escape(refused.message)}: {len(records)} of {len(requests)} dates "
            "were started (above); the rest were not",
            markup=True,
        )
    if refused is not None or any(r.status is RunStatus.FAILED for r in ended):
        sys.exit(EXIT_FAILED)
    if any(r.status is RunStatus.STOPPED for r in ended):
        sys.exit(EXIT_STOPPED)
