"""The played corpus: hand-written model replies replayed through the real provider SDKs (Anthropic's
and OpenAI's) against a loopback server (`played_server.py`), through the real state machine
(LocalRuntime) and stages, over the bundled evidence corpus. See `played_corpus.py` for the format.

    python -m claimcourt.bench.played                       # replay every run through both SDK paths
    python -m claimcourt.bench.played replay NAME --path openai
    python -m claimcourt.bench.played new NAME --claim "…" [--effort standard --rounds 2 …]
    python -m claimcourt.bench.played write NAME            # play until the first unanswered call(s)
    python -m claimcourt.bench.played add NAME KEY reply.json
    python -m claimcourt.bench.played show NAME [KEY]
    python -m claimcourt.bench.played stale NAME [--accept] # prompts changed since their replies

`write` plays the run (the Anthropic path; `--path openai` for the other): every call the corpus
answers is replayed, and the first call(s) it does not answer have their rendered prompt written to
`<out>/<name>/<key>.prompt.md` (default out: ./build/played); it prints their paths and exits 1. Write
the reply, `add` it, and `write` again, until the run completes (exit 0). The same replies always
give the same prompts: the run id is fixed (`played-<name>`: the judge's anonymization is seeded by
it), so is its date (`today`, which the prompts state), retrieval is the bundled corpus, and nothing
else in a prompt varies.

The replay prints, per run and SDK path: calls, tokens (cache tokens too) and cost, the round
controller's decision and rule each round, the judge's score and interval, the final score and
interval, every adjustment, and the checks the file's `expect` declares; and at the end one line,
`played: N claim runs, M motions, K checks, F failed` (N and M count corpus files, each replayed on
every path it is valid for; K counts checks on all paths; exit 1 when F > 0).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import logging
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from datetime import time as clock
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr, ValidationError

from claimcourt import artifacts
from claimcourt import models as claim_models
from claimcourt.bench.played_corpus import (
    PATHS,
    Expect,
    PlayedCall,
    PlayedPrompt,
    PlayedRun,
    PlayedUsage,
    ProviderPath,
    corpus_files,
    load,
    output_tokens_of,
    resolve,
    save,
)
from claimcourt.bench.played_server import PlayedServer, Served
from claimcourt.evidence.base import EvidenceSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import (
    Argument,
    EarlyEnd,
    MotionRequest,
    MotionResult,
    Result,
    RoundDecision,
    RunRecord,
    SourceTag,
    Usage,
)
from claimcourt.reasoning.prices import cost_usd
from claimcourt.runs import create_run, parse_request, run_usage
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps

DEFAULT_OUT = Path("build/played")
RUN_TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    detail: str = ""


@dataclass
class Replay:
    """One played run through one SDK path: what the run did and what the server saw."""

    played: PlayedRun
    path: ProviderPath
    model: str
    record: RunRecord
    usage: Usage
    wall_s: float
    requests: list[Served]
    missing: list[str]
    stale: list[str]
    unused: list[str]
    prompt_files: dict[str, Path]
    decisions: list[RoundDecision] = field(default_factory=list)
    arguments: list[Argument] = field(default_factory=list)  # as stored: after the debate's rules
    motion: MotionResult | None = None
    checks: list[Check] = field(default_factory=list)

    @property
    def result(self) -> Result | None:
        return self.record.result

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]


def settings_for(played: PlayedRun, path: ProviderPath, server: PlayedServer, data_dir: Path) -> Settings:
    """Settings that route every role to `path`'s provider at the loopback server. Everything a run's
    course depends on is set here, so the environment (CLAIMCOURT_*) cannot change a replay."""
    model = played.model_for(path)
    values: dict[str, Any] = {
        "data_dir": data_dir,
        "provider": path,
        "models_by_role": {},
        "web_search": False,
        "dynamic_rounds": "shadow",
        "max_rounds": None,
        "judge_samples": None,
        "redeliberation": True,
        "redeliberate_spread": 20,
        "budget_usd": 2.0,
        "max_output_tokens": 4096,
        "offline_pace_ms": 0,
        "provider_max_retries": 2,
        "provider_timeout_s": 60.0,
        "store": "sqlite",
        "tracing": False,
        "metrics": False,
        "anthropic_api_key": None,
        "anthropic_base_url": None,
        "openai_api_key": None,
        "openai_base_url": None,
    }
    if path == "anthropic":
        values |= {
            "anthropic_api_key": SecretStr("sk-ant-played-loopback"),
            "anthropic_base_url": server.anthropic_url,
            "anthropic_model": model,
        }
    else:
        values |= {
            "openai_api_key": SecretStr("sk-played-loopback"),
            "openai_base_url": server.openai_url,
            "openai_model": model,
        }
    values |= played.settings
    return Settings(**values)


def play(
    played: PlayedRun,
    path: ProviderPath,
    evidence: EvidenceSource,
    data_dir: Path,
    prompts_dir: Path | None = None,
    timeout_s: float = RUN_TIMEOUT_S,
) -> Replay:
    """Run `played` through `path`'s SDK against its replies, and evaluate its checks."""
    request = MotionRequest.model_validate(played.request) if played.kind == "motion" else None
    with quiet(), PlayedServer(played.calls, prompts_dir, played.name) as server:
        settings = settings_for(played, path, server, data_dir)
        deps = dataclasses.replace(build_deps(settings), evidence=evidence)
        started = time.perf_counter()
        with LocalRuntime(deps) as runtime:
            logging.getLogger("claimcourt").setLevel(logging.CRITICAL)  # again: the stages import may set it
            record = create_run(
                deps.store,
                request or parse_request(played.request),
                SourceTag.BENCH,
                run_id=played.run_id,
                created_at=datetime.combine(played.today, clock(12), tzinfo=UTC),
            )
            runtime.execute(record.run_id, timeout_s=timeout_s)
        wall = time.perf_counter() - started
        record = deps.store.get_run(played.run_id)
        replay = Replay(
            played=played,
            path=path,
            model=played.model_for(path),
            record=record,
            usage=run_usage(deps.store, record),
            wall_s=wall,
            requests=list(server.requests),
            missing=server.missing(),
            stale=server.stale(),
            unused=server.unused(),
            prompt_files=dict(server.prompt_files),
        )
        if played.kind == "motion":
            replay.motion = artifacts.motion_result_of(deps.store, played.run_id)
        else:
            replay.decisions = artifacts.decisions_of(deps.store, played.run_id)
        replay.arguments = artifacts.arguments_of(deps.store, played.run_id)
        close = getattr(deps.store, "close", None)  # the SQLite file: read, and done with
        if callable(close):
            close()
    replay.checks = evaluate(played.expect, replay)
    return replay


@contextmanager
def quiet() -> Iterator[None]:
    """The replay's own report says what matters: no stage logs, no moto warnings (the loggers'
    levels are put back after)."""
    loggers = [logging.getLogger(name) for name in ("claimcourt", "moto", "aws_lambda_powertools")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


# ---------------------------------------------------------------- checks


def _within(value: int | None, bounds: tuple[int, int]) -> bool:
    return value is not None and bounds[0] <= value <= bounds[1]


def evaluate(expect: Expect, replay: Replay) -> list[Check]:
    """Two checks every run has (every call answered from the corpus, the run billed what the server
    reported), then one per field its `expect` sets."""
    checks = [
        Check(
            "every call answered",
            not replay.missing,
            "no reply for " + ", ".join(replay.missing) if replay.missing else "",
        ),
        _billing_check(replay),
    ]
    record, result = replay.record, replay.result
    checks.append(
        Check("status", record.status.value == expect.status, f"{record.status.value}: {record.error or ''}")
    )
    if expect.error is not None:
        checks.append(Check("error", expect.error in (record.error or ""), record.error or "no error"))
    if expect.calls is not None:
        checks.append(
            Check("calls", replay.usage.llm_calls == expect.calls, f"{replay.usage.llm_calls} calls")
        )
    if expect.stop_reason is not None:
        reason = record.stop_reason.value if record.stop_reason else "none"
        checks.append(Check("stop reason", record.stop_reason == expect.stop_reason, reason))
    if replay.played.kind == "motion":
        # A motion's warnings (its suitability check's) are on its run, as its result carries them.
        return checks + _warning_checks(expect, record.warnings) + _motion_checks(expect, replay.motion)
    if expect.rounds is not None:
        rounds = result.rounds if result else len(replay.decisions)
        checks.append(Check("rounds", rounds == expect.rounds, f"{rounds} rounds"))
    decisions = {d.round: d for d in replay.decisions}
    for number, wanted in sorted(expect.control.items()):
        checks.append(_round_check(number, wanted, decisions.get(number)))
    # A run stopped with an answer (not enough evidence, undebated): its verdict and warnings are its own.
    answered = result.overall_verdict if result is not None else record.verdict
    if expect.verdict is not None:
        checks.append(Check("verdict", answered == expect.verdict, answered.value if answered else "none"))
    checks += _warning_checks(expect, result.warnings if result is not None else record.warnings)
    if result is None:
        wanted_result = any(
            v
            for v in (
                expect.score,
                expect.judge_score,
                expect.interval_width,
                expect.interval_method,
                expect.re_deliberated is not None,
                expect.sub_claims,
                expect.ended_early is not None,
            )
        )
        if wanted_result:
            checks.append(Check("result", False, "the run has no result"))
        return checks
    if expect.score is not None:
        checks.append(Check("score", _within(result.overall_score, expect.score), f"{result.overall_score}"))
    if expect.judge_score is not None:
        checks.append(
            Check("judge score", _within(result.judge_score, expect.judge_score), f"{result.judge_score}")
        )
    if expect.interval_width is not None:
        width = result.interval.high - result.interval.low
        checks.append(Check("interval width", _within(width, expect.interval_width), f"{width}"))
    if expect.interval_method is not None:
        method = result.interval_method
        checks.append(Check("interval method", method == expect.interval_method, method))
    if expect.re_deliberated is not None:
        again = result.re_deliberation
        ran = again is not None and again.triggered
        detail = (
            f"{again.reason} (spread {again.spread_before}; {again.spread_after} from the samples' median)"
            if again is not None
            else "no samples to review"
        )
        checks.append(Check("re-deliberated", ran == expect.re_deliberated, detail))
    if expect.n_sub_claims is not None:
        n = len(result.sub_claims)
        checks.append(Check("sub-claims", n == expect.n_sub_claims, f"{n} sub-claims"))
    by_id = {s.id: s for s in result.sub_claims}
    for sub_id, wanted_sub in sorted(expect.sub_claims.items()):
        got = by_id.get(sub_id)
        if wanted_sub.verdict is not None:
            ok = got is not None and got.verdict == wanted_sub.verdict
            checks.append(Check(f"{sub_id} verdict", ok, got.verdict.value if got else "no such sub-claim"))
        if wanted_sub.score is not None:
            ok = got is not None and _within(got.score, wanted_sub.score)
            checks.append(Check(f"{sub_id} score", ok, f"{got.score}" if got else "no such sub-claim"))
    kinds = {a.kind for a in result.adjustments}
    for kind in expect.adjustments:
        checks.append(Check(f"adjustment {kind}", kind in kinds, ", ".join(sorted(kinds)) or "none"))
    for kind in expect.no_adjustments:
        checks.append(Check(f"no adjustment {kind}", kind not in kinds, ", ".join(sorted(kinds)) or "none"))
    if expect.citations is not None:
        n = len(result.citations)
        checks.append(Check("citations", _within(n, expect.citations), f"{n} ledger entries"))
    return checks + _ended_early_check(expect, result.ended_early)


def _ended_early_check(expect: Expect, ended: EarlyEnd | None) -> list[Check]:
    """A refusal shortened the debate (a claim's or a motion's result's `ended_early`), or not."""
    if expect.ended_early is None:
        return []
    return [Check("ended early", (ended is not None) == expect.ended_early, str(ended))]


def _billing_check(replay: Replay) -> Check:
    """The run's ledger holds exactly what the server reported for the replies it served: calls,
    input and output tokens, and the prompt cache's reads and writes."""
    served = [r for r in replay.requests if r.answered]
    # Anthropic's input_tokens excludes the cache; OpenAI's prompt_tokens includes its cached tokens,
    # which the provider takes out.
    sent_in = sum(r.input_tokens - (r.cache_read_tokens if r.protocol == "openai" else 0) for r in served)
    sent_out = sum(r.output_tokens for r in served)
    sent_read = sum(r.cache_read_tokens for r in served)
    sent_written = sum(r.cache_write_tokens for r in served)
    usage = replay.usage
    read = sum(m.cache_read_tokens for m in usage.models.values())
    written = sum(m.cache_write_tokens for m in usage.models.values())
    ledger = (usage.llm_calls, usage.input_tokens, usage.output_tokens, read, written)
    ok = ledger == (len(served), sent_in, sent_out, sent_read, sent_written)
    detail = (
        f"ledger {usage.llm_calls} calls {usage.input_tokens} in {usage.output_tokens} out "
        f"{read} read {written} written; server {len(served)} replies {sent_in} in {sent_out} out "
        f"{sent_read} read {sent_written} written"
    )
    return Check("billed as served", ok, detail)


def _round_check(number: int, wanted: Any, decision: RoundDecision | None) -> Check:
    name = f"round {number} control"
    if decision is None:
        return Check(name, False, "no decision recorded")
    problems = []
    if wanted.action is not None and decision.action != wanted.action:
        problems.append(f"action {decision.action.value}, not {wanted.action.value}")
    controller = decision.controller_action or decision.action
    if wanted.controller_action is not None and controller != wanted.controller_action:
        problems.append(f"controller {controller.value}, not {wanted.controller_action.value}")
    rule = decision.controller_rule or decision.rule
    if wanted.rule is not None and wanted.rule not in rule:
        problems.append(f"rule {rule!r} lacks {wanted.rule!r}")
    frontier = decision.signals.frontier if decision.signals else None
    if wanted.frontier is not None and frontier != wanted.frontier:
        problems.append(f"frontier {frontier}, not {wanted.frontier}")
    return Check(name, not problems, "; ".join(problems) or f"{decision.action.value}: {rule}")


def _warning_checks(expect: Expect, warnings: list[str]) -> list[Check]:
    checks = []
    for wanted_warning in expect.warnings:
        present = any(wanted_warning in w for w in warnings)
        checks.append(Check(f"warning {wanted_warning!r}", present, "; ".join(warnings) or "none"))
    if expect.no_warnings:
        checks.append(Check("no warnings", not warnings, "; ".join(warnings)))
    return checks


def _motion_checks(expect: Expect, result: MotionResult | None) -> list[Check]:
    checks: list[Check] = []
    wanted = any(
        v is not None for v in (expect.first_speaker, expect.final_lean, expect.swing_for, expect.ended_early)
    )
    if result is None:
        return [Check("motion result", False, "the motion has no result")] if wanted else []
    if expect.first_speaker is not None:
        checks.append(Check("first speaker", result.plan.first == expect.first_speaker, result.plan.first))
    if expect.final_lean is not None:
        lean = "for" if result.final_vote.mean > 50 else "against"
        checks.append(Check("final lean", lean == expect.final_lean, f"mean {result.final_vote.mean:.1f}"))
    if expect.swing_for is not None:
        low, high = expect.swing_for
        swing = result.swing.get("for", 0.0)
        checks.append(Check("swing for", low <= swing <= high, f"{swing:+.1f} points"))
    return checks + _ended_early_check(expect, result.ended_early)


# ---------------------------------------------------------------- the report


def input_billed(usage: Usage) -> float:
    """What a run's input cost: plain input, cache reads and writes, each at its rate (no output)."""
    return sum(
        cost_usd(name, m.input_tokens, 0, m.cache_read_tokens, m.cache_write_tokens)[0]
        for name, m in usage.models.items()
    )


def report(replay: Replay) -> list[str]:
    usage, record = replay.usage, replay.record
    cache_read = sum(m.cache_read_tokens for m in usage.models.values())
    cache_write = sum(m.cache_write_tokens for m in usage.models.values())
    lines = [
        f"{replay.played.name} · {replay.path} {replay.model} · "
        f"{record.status.value} in {replay.wall_s:.1f} s",
        f"  calls {usage.llm_calls} · input {usage.input_tokens:,} · output {usage.output_tokens:,} · "
        f"cache read {cache_read:,} · cache write {cache_write:,} · ${usage.total_cost_usd:.4f} "
        f"(input ${input_billed(usage):.4f})",
    ]
    if record.error:
        lines.append(f"  error: {record.error}")
    if record.stop_reason is not None:
        answered = f", answered {record.verdict.value}" if record.verdict else ""
        lines.append(f"  stopped: {record.stop_reason.value}{answered}")
        lines += [f"  warning: {w}" for w in record.warnings]
    for d in replay.decisions:
        controller = d.controller_action or d.action
        frontier = d.signals.frontier if d.signals else None
        lines.append(
            f"  round {d.round}: {d.action.value} ({d.rule}); controller {controller.value} "
            f"({d.controller_rule or d.rule})" + (f"; frontier {frontier}" if frontier is not None else "")
        )
    result = replay.result
    if result is not None:
        judge = result.judge_interval
        lines.append(
            f"  judge {result.judge_score}"
            + (f" [{judge.low}–{judge.high}]" if judge else "")
            + f" → final {result.overall_score} [{result.interval.low}–{result.interval.high}] "
            f"{result.overall_verdict.value} ({result.interval_method})"
        )
        for sub in result.sub_claims:
            lines.append(f"    {sub.id} {sub.score} {sub.verdict.value}: {sub.text}")
        for a in result.adjustments:
            change = f" {a.before}→{a.after}" if a.before is not None or a.after is not None else ""
            lines.append(f"  adjustment {a.kind} {a.target}{change}: {a.detail}")
        for w in result.warnings:
            lines.append(f"  warning: {w}")
    if replay.motion is not None:
        m = replay.motion
        lines.append(
            f"  first {m.plan.first} · vote zero {m.vote_zero.mean:.1f} → final {m.final_vote.mean:.1f} · "
            f"swing for {m.swing.get('for', 0):+.1f} · turns {m.turns}"
            + (f" · ended early: {m.ended_early.side} {m.ended_early.reason}" if m.ended_early else "")
        )
    if replay.stale:
        lines.append(f"  prompts changed since their replies were written: {', '.join(replay.stale)}")
    if replay.unused:
        lines.append(f"  replies no request asked for: {', '.join(replay.unused)}")
    for c in replay.failed:
        lines.append(f"  FAILED check {c.name}: {c.detail}")
    lines.append(f"  checks: {len(replay.checks) - len(replay.failed)} passed, {len(replay.failed)} failed")
    return lines


# ---------------------------------------------------------------- commands


def _evidence(folder: Path) -> EvidenceSource:
    from claimcourt.evidence.corpus import CorpusSource

    source = CorpusSource(index_dir=folder / "index")
    source.warm()
    return source


def replay_all(names: list[str], paths: list[ProviderPath], corpus: Path | None) -> int:
    files = [resolve(n, corpus) for n in names] if names else corpus_files(corpus)
    runs = [load(f) for f in files]
    checks = failed = 0
    with tempfile.TemporaryDirectory(prefix="claimcourt-played-") as tmp:
        evidence = _evidence(Path(tmp))
        for i, played in enumerate(runs):
            for path in (p for p in played.providers if p in paths):
                replay = play(played, path, evidence, Path(tmp) / f"{i}-{path}")
                print("\n".join(report(replay)), flush=True)
                checks += len(replay.checks)
                failed += len(replay.failed)
    claims = sum(1 for r in runs if r.kind == "claim")
    print(f"played: {claims} claim runs, {len(runs) - claims} motions, {checks} checks, {failed} failed")
    return 1 if failed else 0


def write(name: str, out: Path, path: ProviderPath, corpus: Path | None, redo: tuple[str, ...] = ()) -> int:
    """Play `name` up to its first unanswered call(s), writing their prompts. `redo`: calls to treat as
    unanswered this time (to re-answer a reply against the prompt as it is now: then `add --replace`)."""
    file = resolve(name, corpus)
    played = load(file)
    unknown = [key for key in redo if key not in played.calls]
    if unknown:
        print(f"{played.name} has no reply to redo for {', '.join(unknown)}", file=sys.stderr)
        return 2
    played = played.model_copy(update={"calls": {k: c for k, c in played.calls.items() if k not in redo}})
    prompts = out / played.name
    if prompts.is_dir():  # what an earlier write asked for: answered since, or asked again below
        for old in prompts.glob("*.prompt.*"):
            old.unlink()
    with tempfile.TemporaryDirectory(prefix="claimcourt-played-") as tmp:
        replay = play(played, path, _evidence(Path(tmp)), Path(tmp) / "run", prompts_dir=prompts)
    answered = sum(1 for r in replay.requests if r.answered)
    if replay.missing:
        print(f"{played.name}: {answered} calls replayed; {len(replay.missing)} without a reply:")
        for key in replay.missing:
            where = replay.prompt_files.get(key)
            print(f"  {key}  →  {where}" if where else f"  {key}")
        first = replay.missing[0]
        extra = (f" --out {out}" if out != DEFAULT_OUT else "") + (f" --corpus {corpus}" if corpus else "")
        print(
            "Write each reply as the model would (the JSON its schema asks for), add it, write again:\n"
            f"  python -m claimcourt.bench.played add {played.name} '{first}' reply.json{extra}\n"
            f"  python -m claimcourt.bench.played write {played.name}{extra}"
        )
        return 1
    print("\n".join(report(replay)))
    print(f"{played.name}: complete, every call answered ({answered} replies).")
    return 0


def stale(name: str, accept: bool, corpus: Path | None) -> int:
    """The calls whose prompt has changed since their reply was written, each as a diff of the stored
    prompt against the one sent now. Re-read each reply against its new prompt: re-answer it
    (`add --replace`), or, when it still answers the prompt as written, `--accept` the new prompts."""
    file = resolve(name, corpus)
    played = load(file)
    with tempfile.TemporaryDirectory(prefix="claimcourt-played-") as tmp:
        replay = play(played, "anthropic", _evidence(Path(tmp)), Path(tmp) / "run")
    sent = {r.key: r.prompt for r in replay.requests if r.stale and r.key}
    for key, prompt in sent.items():
        stored = played.calls[key].prompt
        for part in ("system", "user"):
            before, after = getattr(stored, part), getattr(prompt, part)
            if before != after:
                diff = difflib.unified_diff(
                    before.splitlines(),
                    after.splitlines(),
                    f"{key} {part} (stored)",
                    f"{key} {part} (now)",
                    lineterm="",
                )
                print("\n".join(diff))
        if accept:
            played.calls[key] = played.calls[key].model_copy(update={"prompt": prompt})
    if replay.missing:
        print(f"{played.name}: calls without a reply (run write): {', '.join(replay.missing)}")
    if accept and sent:
        save(played, file)
        print(f"{played.name}: the current prompts of {len(sent)} calls recorded")
    elif sent:
        print(f"{played.name}: {len(sent)} prompts changed: {', '.join(sent)}")
    else:
        print(f"{played.name}: every reply answers the prompt as it is sent now")
    return 0


def _output_model(name: str) -> type[BaseModel] | None:
    found = getattr(claim_models, name, None)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def reply_problems(reply: Any, schema_name: str, schema: dict[str, Any]) -> list[str]:
    """What the Reasoner would reject in a reply: its output model's validation and the run's count
    limits on its top-level lists (the task's own check, e.g. every sub-claim once, is the replay's)."""
    model = _output_model(schema_name)
    problems: list[str] = []
    if model is not None:
        try:
            model.model_validate(reply)
        except ValidationError as err:
            problems += [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in err.errors()]
    for name, spec in (schema.get("properties") or {}).items():
        if isinstance(reply, dict) and isinstance(reply.get(name), list) and isinstance(spec, dict):
            n = len(reply[name])
            low, high = spec.get("minItems"), spec.get("maxItems")
            if (low is not None and n < low) or (high is not None and n > high):
                problems.append(f"{name}: {n} items, but between {low} and {high} are required")
    return problems


def add(args: argparse.Namespace) -> int:
    file = resolve(args.name, args.corpus)
    played = load(file)
    pending_file = Path(f"{args.out / played.name / args.key}.prompt.json")
    if not pending_file.is_file():
        print(f"no pending prompt {pending_file}: run `write {played.name}` first", file=sys.stderr)
        return 2
    pending = json.loads(pending_file.read_text(encoding="utf-8"))
    if args.key in played.calls and not args.replace:
        print(f"{played.name} already answers {args.key!r} (--replace to write over it)", file=sys.stderr)
        return 2
    reply: Any = None
    if args.refusal is None:
        if args.reply is None:
            print("a reply file (or - for stdin) is needed, unless --refusal", file=sys.stderr)
            return 2
        text = sys.stdin.read() if args.reply == "-" else Path(args.reply).read_text(encoding="utf-8")
        reply = json.loads(text)
        if args.stop_reason != "max_tokens":
            problems = reply_problems(reply, pending["schema_name"], pending["schema"])
            if problems:
                print(f"the reply would be rejected ({pending['schema_name']}):", file=sys.stderr)
                for problem in problems:
                    print(f"  {problem}", file=sys.stderr)
                return 2
    played.calls[args.key] = PlayedCall(
        prompt=PlayedPrompt.model_validate(pending["prompt"]),
        reply=reply,
        usage=PlayedUsage(output_tokens=args.output_tokens or output_tokens_of(reply, args.refusal)),
        stop_reason=args.stop_reason,
        refusal=args.refusal,
        refusal_category=args.refusal_category,
        note=args.note,
    )
    save(played, file)
    for done in pending_file.parent.glob(f"{args.key}.prompt.*"):
        if done.name in (f"{args.key}.prompt.json", f"{args.key}.prompt.md"):
            done.unlink()
    print(f"{played.name}: {args.key} answered ({len(played.calls)} in all); next: write {played.name}")
    return 0


def new(args: argparse.Namespace) -> int:
    file = resolve(args.name, args.corpus)
    if file.exists():
        print(f"{file} exists", file=sys.stderr)
        return 2
    request: dict[str, Any] = json.loads(args.request) if args.request else {}
    if args.motion:
        request["motion"] = args.motion
    elif args.claim:
        request["claim"] = args.claim
    else:
        print("--claim or --motion is needed", file=sys.stderr)
        return 2
    for name in ("effort", "rounds", "first", "judge", "context", "mode"):
        value = getattr(args, name)
        if value is not None:
            request[name] = value
    kind = "motion" if args.motion else "claim"
    try:  # refused here as the API would refuse it, before a prompt is written
        MotionRequest.model_validate(request) if kind == "motion" else parse_request(request)
    except Exception as err:
        print(f"invalid request: {err}", file=sys.stderr)
        return 2
    played = PlayedRun(
        name=args.name,
        kind=kind,
        description=args.description or "",
        request=request,
        today=datetime.now(UTC).date(),
    )
    file.parent.mkdir(parents=True, exist_ok=True)
    save(played, file)
    print(f"{file} created; next: python -m claimcourt.bench.played write {args.name}")
    return 0


def show(args: argparse.Namespace) -> int:
    played = load(resolve(args.name, args.corpus))
    if args.key is None:
        print(f"{played.name} ({played.kind}): {played.description}")
        print(f"request: {json.dumps(played.request, ensure_ascii=False)}")
        for key, call in played.calls.items():
            what = "refusal" if call.refusal else f"{call.stop_reason or 'reply'}"
            print(f"  {key:40} {what:10} {call.usage.output_tokens:>6} out")
        return 0
    one = played.calls.get(args.key)
    if one is None:
        print(f"{played.name} has no reply for {args.key!r}", file=sys.stderr)
        return 2
    print(f"## System\n\n{one.prompt.system}\n\n## User\n\n{one.prompt.user}\n\n## Reply\n")
    print(json.dumps(one.reply, indent=2, ensure_ascii=False) if one.refusal is None else one.refusal)
    return 0


def _paths(value: str) -> list[ProviderPath]:
    return list(PATHS) if value == "both" else [value]  # type: ignore[list-item]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):
        argv = ["replay", *argv]
    parser = argparse.ArgumentParser(
        prog="python -m claimcourt.bench.played",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--corpus", type=Path, default=None, help="the corpus folder (default: the package's)"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", parents=[common], help="replay runs through the SDK paths and check them")
    p.add_argument("names", nargs="*", help="corpus runs (default: all)")
    p.add_argument("--path", choices=[*PATHS, "both"], default="both")

    p = sub.add_parser(
        "write", parents=[common], help="play a run until its first unanswered call(s); write their prompts"
    )
    p.add_argument("name")
    p.add_argument("--path", choices=PATHS, default="anthropic")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--redo", action="append", default=[], metavar="KEY", help="ask an answered call again")

    p = sub.add_parser("add", parents=[common], help="add a reply for a call `write` asked for")
    p.add_argument("name")
    p.add_argument("key", help="the call key, as `write` printed it")
    p.add_argument("reply", nargs="?", help="a JSON file holding the reply (- for stdin)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--replace", action="store_true", help="write over a reply the corpus already has")
    p.add_argument("--stop-reason", choices=["max_tokens"], default=None, help="play the reply as cut off")
    p.add_argument("--refusal", default=None, help="play a refusal with this text (no reply)")
    p.add_argument("--refusal-category", default=None)
    p.add_argument("--output-tokens", type=int, default=None, help="default: the reply's characters / 4")
    p.add_argument("--note", default=None, help="a note for the reviewer")

    p = sub.add_parser("new", parents=[common], help="start a played run's file")
    p.add_argument("name")
    p.add_argument("--claim")
    p.add_argument("--motion")
    p.add_argument("--description")
    p.add_argument("--effort", choices=["low", "standard", "high"])
    p.add_argument("--rounds", type=int)
    p.add_argument("--first", choices=["for", "against"])
    p.add_argument("--judge", choices=["contract", "rubric"])
    p.add_argument("--context")
    p.add_argument("--mode")
    p.add_argument("--request", help="more request fields, as a JSON object")

    p = sub.add_parser(
        "stale", parents=[common], help="diff the prompts that changed since their replies were written"
    )
    p.add_argument("name")
    p.add_argument("--accept", action="store_true", help="record the current prompts (replies re-read)")

    p = sub.add_parser("show", parents=[common], help="list a run's replies, or print one with its prompt")
    p.add_argument("name")
    p.add_argument("key", nargs="?")

    args = parser.parse_args(argv)
    if args.command == "replay":
        return replay_all(args.names, _paths(args.path), args.corpus)
    if args.command == "write":
        return write(args.name, args.out, args.path, args.corpus, tuple(args.redo))
    if args.command == "add":
        return add(args)
    if args.command == "new":
        return new(args)
    if args.command == "stale":
        return stale(args.name, args.accept, args.corpus)
    return show(args)


if __name__ == "__main__":
    raise SystemExit(main())
