"""The scorecard's harness: the same items through three systems on the same model, side by side.

Systems: `judge` (the single-LLM judge: the claim alone, one call), `rag` (naive RAG + LLM: one search for
the claim, one call over what it found) and `debate` (claimcourt: the state machine, every stage). The
baselines are claimcourt.adjudication.baselines; they go to the debate judge's model.

A bench run is a directory (`<out>/<name>-<UTC time>/`): `config.json` (what was asked), `progress.jsonl`
(one line per finished job, written as each ends), `claimcourt.sqlite3` (the store: every debate is a run
with source tag `bench` and tenant `bench`, so none joins the product's history; the baselines' calls are
in its ledger), then `scorecard.json`, the PNG plots and `report.html`. `--resume DIR` carries on where
an interrupted run stopped: finished jobs are read back, the rest run, and a baseline call already paid for
is replayed from the ledger, not repeated.

Debates are admitted by the cost guard (`submit_when_free`: at most CLAIMCOURT_MAX_ACTIVE_RUNS at once,
waiting for a slot), and jobs run `--concurrency` at a time. With no provider key the offline reasoner plays
every role, metered: each call is priced as if billed at METER_MODEL's list price, its request as the
Anthropic provider would send it (its prompt cache simulated, bench/prompt_cache.py) and its reply at 4
characters a token, so calls, tokens and dollars compare the systems' prompts; the offline reasoner's
replies are shorter than a model's. Its figures are the offline reasoner's, and say so:
its dollars are `metered_usd` ("metered as if billed at … prices"), and `cost_usd` (spent) stays 0.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.baselines import BaselineKind, judge_baseline
from claimcourt.bench.prompt_cache import Meter
from claimcourt.errors import InvalidRequestError, NotFoundError
from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.golden import GoldenByRun, GoldenSource
from claimcourt.evidence.retrieve import retrieval
from claimcourt.models import (
    BaselineInput,
    Directive,
    Interval,
    Mode,
    RunRequest,
    RunStatus,
    SourceTag,
    Usage,
    Verdict,
    usage_from,
    utcnow,
)
from claimcourt.reasoning.base import CallContext, ProviderReply, Task
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import (
    OWNER_GONE,
    SWEEP_GRACE_S,
    new_run_id,
    parse_request,
    run_usage,
    submit_when_free,
    sweep,
)
from claimcourt.settings import ROLES, Settings
from claimcourt.stages.retrieve import search_call
from claimcourt.wiring import Deps, build_deps

SYSTEMS = ("judge", "rag", "debate")
SYSTEM_NAMES = {"judge": "single-LLM judge", "rag": "naive RAG + LLM", "debate": "debate"}
BASELINE_KINDS: dict[str, BaselineKind] = {"judge": "baseline_judge", "rag": "baseline_rag"}
BENCH_TENANT = "bench"
# Naive RAG's one search: this many passages for the claim (a debate round asks 5 for each sub-claim).
RAG_PASSAGES = 10
METER_MODEL = "claude-sonnet-4-6"


@dataclass(frozen=True)
class Job:
    """One claim through one system once."""

    bench: str
    item: str
    system: str
    repeat: int
    claim: str
    mode: Mode = "spectral"
    as_of: date | None = None
    gold: tuple[Hit, ...] | None = None  # the claim's own evidence (golden); None: the configured source

    @property
    def key(self) -> str:
        return f"{self.bench}/{self.item}/{self.system}/{self.repeat}"


@dataclass(frozen=True)
class Outcome:
    """What a job gave, as progress.jsonl keeps it. `status`: succeeded, stopped (the suitability
    check), failed, or refused (the request validation refused the claim: nothing ran)."""

    key: str
    bench: str
    item: str
    system: str
    repeat: int
    status: str
    score: int | None
    low: int | None
    high: int | None
    verdict: str | None
    error: str | None
    calls: int
    tokens: int
    cost_usd: float  # spent: what the providers billed
    wall_s: float
    run_id: str
    # The offline reasoner's calls priced as if billed at METER_MODEL's prices: nothing was spent on them.
    metered_usd: float = 0.0
    # A backtest's sources left out as written after its date by their text (the hindsight check; None:
    # not a backtest, or a system that retrieves nothing).
    written_after: int | None = None

    @property
    def answered(self) -> bool:
        return (
            self.status == RunStatus.SUCCEEDED.value and self.score is not None and self.verdict is not None
        )

    @property
    def value(self) -> int:
        """The score the metrics read: a job without an answer says 50 (nothing either way)."""
        return self.score if self.answered and self.score is not None else 50

    @property
    def label(self) -> str:
        """The verdict the metrics read: no answer is not enough evidence."""
        return self.verdict if self.answered and self.verdict else "not-enough-evidence"


class MeteredOffline:
    """The offline reasoner's answers, billed as METER_MODEL would bill their requests (prompt cache
    included) and replies (bench/prompt_cache.Meter)."""

    name = "offline"
    sends_temperature = True

    def __init__(self) -> None:
        self.inner = OfflineReasoner()
        self.meter = Meter(METER_MODEL)

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        return self.meter.bill(task, self.inner.complete(task, model, feedback), feedback)


def _tokens(usage: Usage) -> int:
    """Every token a job's calls sent and received, those read from or written to the cache too."""
    cached = sum(m.cache_read_tokens + m.cache_write_tokens for m in usage.models.values())
    return usage.input_tokens + usage.output_tokens + cached


def is_offline(settings: Settings) -> bool:
    return all(settings.route(role)[0] == "offline" for role in ROLES)


def reasoner_label(settings: Settings) -> str:
    if is_offline(settings):
        return f"the offline reasoner (no model; metered at {METER_MODEL} list prices)"
    return ", ".join(sorted({":".join(settings.route(role)) for role in ROLES}))


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass
class Session:
    """One bench's collaborators: a store, a reasoner, an evidence source, the local runtime."""

    deps: Deps
    runtime: Any
    golden: GoldenByRun | None
    bench_id: str
    effort: str = "standard"
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ------------------------------------------------------------ one job

    def run(self, job: Job) -> Outcome:
        began = time.perf_counter()
        run_id = ""
        try:  # every system is asked only what the API would accept
            request = parse_request(
                {"claim": job.claim, "mode": job.mode, "as_of_date": job.as_of, "effort": self.effort}
            )
        except InvalidRequestError as err:
            return _outcome(job, "refused", error=str(err), wall_s=time.perf_counter() - began)
        try:
            if job.system == "debate":
                run_id = new_run_id()
                return self._debate(job, run_id, request, began)
            run_id = f"bench_{self.bench_id}_{_digest(job.key)}"  # the same on a resume: the ledger replays
            return self._baseline(job, run_id, request.claim, began)
        except Exception as err:  # one job's failure is its outcome, not the bench's end
            error = f"{type(err).__name__}: {err}"
            return _outcome(job, "failed", error=error, run_id=run_id, wall_s=time.perf_counter() - began)

    def _debate(self, job: Job, run_id: str, request: RunRequest, began: float) -> Outcome:
        deps = self.deps
        if job.gold is not None:
            if self.golden is None:
                raise RuntimeError("golden evidence asked of a session without it")
            self.golden.assign(run_id, job.gold)
        submit_when_free(
            deps.store,
            self.runtime,
            deps.settings,
            BENCH_TENANT,
            request,
            SourceTag.BENCH,
            timeout_s=deps.settings.run_timeout_s,
            run_id=run_id,
        )
        self.runtime.follow(run_id)
        record = deps.store.get_run(run_id)
        return _outcome(
            job,
            record.status.value,
            error=record.error,
            wall_s=time.perf_counter() - began,
            run_id=run_id,
            score=record.score,
            interval=record.interval,
            verdict=record.verdict,
            usage=run_usage(deps.store, record),
            written_after=record.result.backtest.written_after
            if record.result is not None and record.result.backtest is not None
            else None,
        )

    def _baseline(self, job: Job, run_id: str, claim: str, began: float) -> Outcome:
        deps = self.deps
        evidence, written_after = self._search(job, run_id, claim) if job.system == "rag" else ([], None)
        judged = judge_baseline(
            BASELINE_KINDS[job.system],
            BaselineInput(claim=claim, mode=job.mode, as_of_date=job.as_of, evidence=evidence),
            deps.reasoner,
            CallContext(run_id, "bench", side=job.system),
        )
        return _outcome(
            job,
            RunStatus.SUCCEEDED.value,
            error=None,
            wall_s=time.perf_counter() - began,
            run_id=run_id,
            score=judged.score,
            interval=judged.interval,
            verdict=judged.verdict,
            usage=usage_from(deps.store.run_calls(run_id), 0, 0),
            written_after=written_after,
        )

    def _search(self, job: Job, run_id: str, claim: str) -> tuple[list[Any], int | None]:
        """Naive RAG's retrieval: the claim as the one query, against the same source as the debate's
        (the claim's own gold passages, all of them, when the bench has golden evidence); and in a
        backtest, how many sources it left out as written after the date (by the lexical check: naive
        RAG makes one call, the judge's)."""
        source: EvidenceSource
        if job.gold is not None:
            source, limit = GoldenSource(job.gold, name=f"golden:{run_id}"), max(RAG_PASSAGES, len(job.gold))
        else:
            source, limit = self.deps.evidence, RAG_PASSAGES
        with self._lock:  # a web search's usage is read back from the source: one search at a time
            found = retrieval(
                Directive(sub_claim_id="rag", query=claim[:300]),
                round=1,
                source=source,
                cache=self.deps.store,
                limit=limit,
                as_of=job.as_of,
                ttl_s=self.deps.settings.cache_ttl_s,
            )
            billed = search_call(source, run_id, "bench:search") if not found.cache_hit else None
        if billed is not None:  # a search that calls a model is billed like a call
            self.deps.store.put_call(billed)
        checked = found.backtested
        return found.evidence, len(checked.hindsight) if checked is not None else None


def _outcome(
    job: Job,
    status: str,
    *,
    error: str | None,
    wall_s: float,
    run_id: str = "",
    score: int | None = None,
    interval: Interval | None = None,
    verdict: Verdict | None = None,
    usage: Usage | None = None,
    written_after: int | None = None,
) -> Outcome:
    """A job's outcome: what it scored, and what it spent (nothing for one that never ran)."""
    return Outcome(
        key=job.key,
        bench=job.bench,
        item=job.item,
        system=job.system,
        repeat=job.repeat,
        status=status,
        score=score,
        low=interval.low if interval else None,
        high=interval.high if interval else None,
        verdict=verdict.value if verdict else None,
        error=error,
        calls=sum(m.calls for m in usage.models.values()) if usage else 0,
        tokens=_tokens(usage) if usage else 0,
        cost_usd=_dollars(usage, metered=False),
        wall_s=round(wall_s, 3),
        run_id=run_id,
        metered_usd=_dollars(usage, metered=True),
        written_after=written_after,
    )


def _dollars(usage: Usage | None, *, metered: bool) -> float:
    """Spent (calls to a provider), or metered (the offline reasoner's calls, which MeteredOffline
    prices as if billed at METER_MODEL's prices but which cost nothing)."""
    if usage is None:
        return 0.0
    return round(sum(m.cost_usd for m in usage.models.values() if (m.provider == "offline") == metered), 6)


def bench_settings(settings: Settings, data_dir: Path, debates: int) -> Settings:
    """The settings a bench runs under: its own store, and an hourly cap that lets the planned debates
    through (the concurrency cap stays: at most max_active_runs debates at once)."""
    return settings.model_copy(
        update={
            "data_dir": data_dir,
            "hourly_runs_per_tenant": max(settings.hourly_runs_per_tenant, debates, 1),
        }
    )


@contextmanager
def session(settings: Settings, bench_id: str, golden: bool, effort: str = "standard") -> Iterator[Session]:
    """A store, reasoner and runtime for one bench. Offline, the reasoner is metered; with golden
    evidence, each debate searches only its claim's own gold passages."""
    from claimcourt.local.processes import recorded_owner_gone
    from claimcourt.local.runtime import LocalRuntime

    deps = build_deps(settings)
    if is_offline(settings):
        reasoner = Reasoner(
            {"offline": MeteredOffline()},
            lambda role: ("offline", METER_MODEL),
            deps.store,
            settings.budget_usd,
        )
        deps = dataclasses.replace(deps, reasoner=reasoner)
    by_run = GoldenByRun() if golden else None
    if by_run is not None:
        deps = dataclasses.replace(deps, evidence=by_run)
    else:
        warm = getattr(deps.evidence, "warm", None)
        if callable(warm):
            warm()  # the corpus index is built once, before the first job
    with LocalRuntime(deps) as runtime:
        logging.getLogger("claimcourt").setLevel(logging.WARNING)
        limit = timedelta(seconds=settings.run_timeout_s + SWEEP_GRACE_S)

        def status(run_id: str) -> str | None:
            """A lease left by an interrupted bench: its process gone, or older than any run takes."""
            try:
                if recorded_owner_gone(deps.store.get_artifact(run_id, artifacts.OWNER)):
                    return OWNER_GONE
            except NotFoundError:
                pass
            return None if utcnow() - deps.store.get_run(run_id).created_at > limit else "RUNNING"

        sweep(deps.store, status)  # slots held by a bench that was killed are given back
        yield Session(deps, runtime, by_run, bench_id, effort)


# ---------------------------------------------------------------- running many jobs


def read_progress(path: Path) -> dict[str, Outcome]:
    """The finished jobs of an earlier attempt; a last line cut off by a crash is ignored."""
    done: dict[str, Outcome] = {}
    if not path.exists():
        return done
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            outcome = Outcome(**json.loads(line))
        except (ValueError, TypeError):
            continue
        done[outcome.key] = outcome
    return done


def run_jobs(
    active: Session,
    jobs: Sequence[Job],
    progress_path: Path,
    concurrency: int,
    on_done: Callable[[Outcome], None] = lambda outcome: None,
) -> list[Outcome]:
    """Every job not yet in progress.jsonl, `concurrency` at a time; each outcome is appended as it
    ends (and flushed), so an interruption loses only the jobs then running. Returns all outcomes,
    in job order."""
    done = read_progress(progress_path)
    todo = [job for job in jobs if job.key not in done]
    if (
        progress_path.exists()
        and not progress_path.read_bytes().endswith(b"\n")
        and progress_path.stat().st_size
    ):
        with progress_path.open("a", encoding="utf-8") as log:
            log.write(
                "\n"
            )  # a line cut off by a crash stays on its own, unread, and takes no outcome with it
    with progress_path.open("a", encoding="utf-8") as log, ThreadPoolExecutor(max(1, concurrency)) as pool:
        futures: dict[Future[Outcome], Job] = {pool.submit(active.run, job): job for job in todo}
        try:
            for future in as_completed(futures):
                outcome = future.result()
                log.write(json.dumps(asdict(outcome)) + "\n")
                log.flush()
                done[outcome.key] = outcome
                on_done(outcome)
        except BaseException:
            for future in futures:
                future.cancel()  # those not started; the running ones finish (and are not written)
            raise
    return [done[job.key] for job in jobs]


def stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
