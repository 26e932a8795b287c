"""Experiment suites (`claimcourt suite`): the research use of both formats.

A 2×2 design per claim and per motion — which model argues which side (A for and B against, or
swapped) × who speaks first (for, or against) — over a seeded random sample of the bundled sets: the
fact-checked claims (motions/claims_verified_*.json, each with its fact-checker's verdict) and the
motions with their real audiences' votes (motions/debate_motions.json). Every debate runs through the
real state machine, is stored with source tag `experiment` and an `experiment` artifact (suite, cell,
configuration, ground truth), and is retried once if it fails. Claims are also debated at 1…N rounds
(A for, parallel) for the verdict-stability plot.

Writes to the output directory: suite.json (every debate), claims.csv, motions.csv, stability.png
(each claim's score by number of rounds, and the share of verdicts that already match the last),
swing.png (the AI crowd's swing against the real audience's, per motion). Prints the tables and the
report: claim verdicts against the fact-checkers' ratings, per cell; the crowd's swing against the
audience's (sign agreement, correlation).
"""

from __future__ import annotations

import csv
import json
import random
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from claimcourt import artifacts
from claimcourt.bench.report import _pyplot
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import (
    LOCAL_TENANT,
    Effort,
    MotionRequest,
    RunRecord,
    RunRequest,
    RunStatus,
    Side,
    SourceTag,
)
from claimcourt.motions.crowd import HERE as MOTION_DATA
from claimcourt.runs import submit_when_free
from claimcourt.settings import ROLES, Settings
from claimcourt.store.base import Store
from claimcourt.wiring import Deps, build_deps

EXPERIMENT = "experiment"  # the artifact each debate of a suite carries
# The fact-checkers' verdicts (ai-debate's four) as claimcourt's.
FACT_CHECK_VERDICTS = {
    "supported": "supported",
    "contradicted": "refuted",
    "misleading": "conflicting",
    "needs more evidence": "not-enough-evidence",
}
# The bundled fact-checked sets by name: a claim's id is its set's name and its place in the file,
# 1-based (climate-1 … health-50), a motion's is motion-<place>. The files are copied unchanged from
# their source (motions/README.md), so an id names the same case in every release.
CLAIM_SETS = {"climate": "claims_verified_climate_48.json", "health": "claims_verified_health_50.json"}
MOTION_SET = "debate_motions.json"


@dataclass(frozen=True)
class Cell:
    """One cell of the 2×2: which model argues for (A or B), who speaks first."""

    for_model: str  # "A" or "B"
    first: Side

    @property
    def label(self) -> str:
        return f"{self.for_model} for, {self.first} first"


CELLS = (Cell("A", "for"), Cell("A", "against"), Cell("B", "for"), Cell("B", "against"))


GRID_ROUNDS = (1, 2, 4, 6)  # the lengths `suite --grid` debates each claim at
ORDERS: tuple[Side, Side] = ("for", "against")


@dataclass
class Debate:
    kind: str  # claim | motion
    case: str
    cell: str
    rounds: int
    run_id: str
    status: str
    attempts: int
    truth: dict[str, Any]
    outcome: dict[str, Any] = field(default_factory=dict)
    first: str = ""  # who spoke first: for | against ("" both at once)


def bundled_claims() -> list[dict[str, Any]]:
    """Every bundled fact-checked claim, each with its `id`."""
    return [
        {"id": f"{name}-{i}", **case}
        for name, file in CLAIM_SETS.items()
        for i, case in enumerate(json.loads((MOTION_DATA / file).read_text(encoding="utf-8")), 1)
    ]


def bundled_motions() -> list[dict[str, Any]]:
    """Every bundled motion with its real audience's votes, each with its `id`."""
    found = json.loads((MOTION_DATA / MOTION_SET).read_text(encoding="utf-8"))
    return [{"id": f"motion-{i}", **case} for i, case in enumerate(found, 1)]


class UnknownCases(ValueError):
    """Ids that name no bundled case; the message names every one of them."""

    def __init__(self, what: str, missing: list[str], known: list[str]) -> None:
        self.what, self.missing = what, missing
        super().__init__(
            f"no bundled {what} {', '.join(missing)}: the ids run {known[0]} … {known[-1]}"
            + (f" ({', '.join(sorted({k.rsplit('-', 1)[0] for k in known}))})" if what == "claim" else "")
            + "; `claimcourt suite --list` prints them"
        )


def pick(cases: list[dict[str, Any]], ids: list[str], what: str) -> list[dict[str, Any]]:
    """The cases these ids name, in the order named (a repeated id once); every unknown id refused at once."""
    by_id = {c["id"]: c for c in cases}
    missing = [i for i in dict.fromkeys(ids) if i not in by_id]
    if missing:
        raise UnknownCases(what, missing, list(by_id))
    return [by_id[i] for i in dict.fromkeys(ids)]


def claim_cases(n: int, seed: int, topic: str | None = None) -> list[dict[str, Any]]:
    """A seeded sample of the bundled fact-checked claims, of one topic if named."""
    found = [c for c in bundled_claims() if topic is None or c.get("topic") == topic]
    return random.Random(seed).sample(found, min(n, len(found)))


def claim_topics() -> list[str]:
    return sorted({c["topic"] for c in bundled_claims() if c.get("topic")})


def motion_cases(n: int, seed: int) -> list[dict[str, Any]]:
    found = bundled_motions()
    return random.Random(seed + 1).sample(found, min(n, len(found)))


def lineup(models: tuple[str, str], cell: Cell) -> tuple[str, str]:
    """(the model for, the model against) in this cell."""
    a, b = models
    return (a, b) if cell.for_model == "A" else (b, a)


@contextmanager
def runtime_for(
    settings: Settings, for_model: str, against_model: str
) -> Iterator[tuple[Deps, LocalRuntime]]:
    """A runtime whose claim debaters are these models (a claim run has no line-up of its own)."""
    routed = settings.model_copy(
        update={
            "models_by_role": {
                **settings.models_by_role,
                "case_for": for_model,
                "case_against": against_model,
            }
        }
    )
    deps = build_deps(routed)
    with LocalRuntime(deps) as runtime:
        yield deps, runtime


def debate(
    deps: Deps,
    runtime: LocalRuntime,
    request: RunRequest | MotionRequest,
    tag: dict[str, Any],
    cell: str,
    rounds: int,
) -> Debate:
    """Run one debate to its end, once more if it failed; a debate that could not even start (the cost
    guard refused it, say) is recorded as such and the suite goes on."""
    kind = "motion" if isinstance(request, MotionRequest) else "claim"
    text = request.motion if isinstance(request, MotionRequest) else request.claim
    first = request.first or ""
    record: RunRecord | None = None
    problem = ""
    for attempt in (1, 2):
        try:
            started = submit_when_free(
                deps.store,
                runtime,
                deps.settings,
                LOCAL_TENANT,
                request,
                SourceTag.EXPERIMENT,
                timeout_s=deps.settings.run_timeout_s,
            )
        except Exception as err:  # refused, or its execution could not start: nothing to follow
            problem = f"not started: {err}"
            continue
        models = {role: ":".join(deps.settings.route(role)) for role in ROLES}
        deps.store.put_artifact(started.run_id, EXPERIMENT, {"models": models, **tag, "attempt": attempt})
        runtime.follow(started.run_id)
        record = deps.store.get_run(started.run_id)
        if record.status is RunStatus.SUCCEEDED:
            break
    if record is None:
        return Debate(kind, text, cell, rounds, "", problem, attempt, tag["truth"], first=first)
    outcome = outcome_of(deps.store, record)
    status = record.status.value
    return Debate(kind, text, cell, rounds, record.run_id, status, attempt, tag["truth"], outcome, first)


def outcome_of(store: Store, record: RunRecord) -> dict[str, Any]:
    """What a finished experiment debate came to, from the stored run: `suite.json`'s `outcome`."""
    outcome = _motion_outcome(store, record) if record.motion else _claim_outcome(store, record)
    if record.error:
        outcome["error"] = record.error
    return outcome


def _claim_outcome(store: Store, record: RunRecord) -> dict[str, Any]:
    """The verdict and score, and each round's debaters' own implied scores (None: that side refused, or
    was absent after refusing)."""
    by_round: dict[int, dict[str, int | None]] = {}
    refusals = []
    for argument in artifacts.arguments_of(store, record.run_id):
        by_round.setdefault(argument.round, {})[argument.side] = argument.implied_score()
        if argument.refusal is not None:
            refusals.append({"round": argument.round, "side": argument.side})
    return {
        "score": record.score,
        "verdict": record.verdict.value if record.verdict else None,
        "by_round": [{"round": r, **sides} for r, sides in sorted(by_round.items())],
        "refusals": refusals,
    }


def _motion_outcome(store: Store, record: RunRecord) -> dict[str, Any]:
    result = artifacts.motion_result_of(store, record.run_id)
    if result is None:
        return {}
    zero, final = result.vote_zero, result.final_vote
    return {
        "vote_zero_for": zero.for_pct,
        "final_for": final.for_pct,
        "swing_for": result.swing["for"],
        # The real audiences' votes have no undecided: compared over the decided voters only.
        "swing_for_decided": round(
            _decided_for(final.for_pct, final.against_pct) - _decided_for(zero.for_pct, zero.against_pct), 1
        ),
        "first": result.plan.first,
        "sentiment": [
            {"round": t.round, "mean": t.mean, "for_pct": t.for_pct, "against_pct": t.against_pct}
            for t in result.sentiment
        ],
        "frontier_by_round": [
            {"round": r, "issues": len(m.disagreement_frontier)}
            for r, m in sorted(artifacts.maps_of(store, record.run_id).items())
        ],
    }


def _decided_for(for_pct: float, against_pct: float) -> float:
    return 100 * for_pct / (for_pct + against_pct) if for_pct + against_pct else 50.0


def run_suite(
    settings: Settings,
    claim_set: list[dict[str, Any]],
    motion_set: list[dict[str, Any]],
    *,
    rounds: int,
    max_rounds: int,
    models: tuple[str, str],
    suite: str,
    progress: Callable[[Debate], None] = lambda d: None,
) -> list[Debate]:
    """The 2x2 (line-up x order) over these bundled claims and motions (`bundled_claims`,
    `bundled_motions`: each with its id), and verdict stability by rounds over the claims."""
    done: list[Debate] = []

    def keep(d: Debate) -> None:
        done.append(d)
        progress(d)

    # A suite is admitted as one batch: its debates (and a retry each) on top of the hour's cap; the
    # concurrency cap still holds (one debate at a time here).
    planned = len(CELLS) * (len(claim_set) + len(motion_set)) + len(claim_set) * max_rounds
    settings = settings.model_copy(
        update={"hourly_runs_per_tenant": settings.hourly_runs_per_tenant + 2 * planned}
    )
    for for_model_key in ("A", "B"):
        for_model, against_model = lineup(models, Cell(for_model_key, "for"))
        with runtime_for(settings, for_model, against_model) as (deps, runtime):
            for cell in (c for c in CELLS if c.for_model == for_model_key):
                config = {
                    "suite": suite,
                    "cell": cell.label,
                    "for_model": for_model,
                    "against_model": against_model,
                }
                for case in claim_set:
                    request = RunRequest(claim=case["claim"], first=cell.first, rounds=rounds)
                    keep(
                        debate(
                            deps,
                            runtime,
                            request,
                            {**config, "truth": fact_checked(case)},
                            cell.label,
                            rounds,
                        )
                    )
                for case in motion_set:
                    motion = MotionRequest(
                        motion=case["motion"],
                        rounds=rounds,
                        first=cell.first,
                        lineup={"debater_for": for_model, "debater_against": against_model},
                    )
                    truth = {
                        "pre": case["preVote"],
                        "post": case["postVote"],
                        "swing_for": case["voteSwing"]["pro"],
                        "winner": case.get("winner"),
                        "source": case.get("source"),
                        "case_id": case.get("id"),
                    }
                    keep(debate(deps, runtime, motion, {**config, "truth": truth}, cell.label, rounds))
            if for_model_key == "A":  # verdict stability: A for, both at once, 1…max_rounds rounds
                for case in claim_set:
                    truth = fact_checked(case)
                    for r in range(1, max_rounds + 1):
                        request = RunRequest(claim=case["claim"], rounds=r)
                        tag = {"suite": suite, "cell": "stability", "truth": truth}
                        keep(debate(deps, runtime, request, tag, "stability", r))
    return done


def fact_checked(case: dict[str, Any]) -> dict[str, Any]:
    """A bundled fact-checked claim's ground truth, in claimcourt's verdicts."""
    return {
        "verdict": FACT_CHECK_VERDICTS.get(case["verdict"], case["verdict"]),
        "score": None,
        "topic": case.get("topic"),
        "publisher": case.get("publisher"),
        "url": case.get("url"),
        "case_id": case.get("id"),
    }


def _claim_debate(
    deps: Deps,
    runtime: LocalRuntime,
    text: str,
    truth: dict[str, Any],
    *,
    suite: str,
    cell: str,
    rounds: int,
    first: Side,
    effort: Effort,
    design: str,
) -> Debate:
    """One claim debate of the grid or a sweep, tagged with everything `experiments` filters on."""
    request = RunRequest(claim=text, first=first, rounds=rounds, effort=effort)
    for_model, against_model = (":".join(deps.settings.route(r)) for r in ("case_for", "case_against"))
    tag = {
        "suite": suite,
        "cell": cell,
        design: True,
        "topic": truth.get("topic"),
        "for_model": for_model,
        "against_model": against_model,
        "rounds": rounds,
        "first": first,
        "effort": effort,
        "truth": truth,
    }
    return debate(deps, runtime, request, tag, cell, rounds)


def _admitting(settings: Settings, planned: int) -> Settings:
    """A batch is admitted as one on top of the hour's cap (a retry each); one debate at a time still."""
    return settings.model_copy(
        update={"hourly_runs_per_tenant": settings.hourly_runs_per_tenant + 2 * planned}
    )


def run_grid(
    settings: Settings,
    cases: list[tuple[str, dict[str, Any]]],
    *,
    models: tuple[str, str],
    suite: str,
    lengths: tuple[int, ...] = GRID_ROUNDS,
    effort: Effort = "low",
    progress: Callable[[Debate], None] = lambda d: None,
) -> list[Debate]:
    """The core hypothesis: each (claim, ground truth) debated at every length × both orders × both
    line-ups (A for and B against, or swapped), 2 × 8 debates per claim and model pair. With one model
    twice the swap is the same debate, so it runs once: 8 per claim."""
    done: list[Debate] = []
    keys = ("A", "B") if models[0] != models[1] else ("A",)
    settings = _admitting(settings, len(cases) * len(lengths) * len(ORDERS) * len(keys))
    for key in keys:
        for_model, against_model = lineup(models, Cell(key, "for"))
        with runtime_for(settings, for_model, against_model) as (deps, runtime):
            for text, truth in cases:
                for first in ORDERS:
                    for rounds in lengths:
                        d = _claim_debate(
                            deps,
                            runtime,
                            text,
                            truth,
                            suite=suite,
                            cell=Cell(key, first).label,
                            rounds=rounds,
                            first=first,
                            effort=effort,
                            design="grid",
                        )
                        done.append(d)
                        progress(d)
    return done


@dataclass(frozen=True)
class Draw:
    """One debate of a randomised sweep: a claim, who argues for and against, who speaks first, how long."""

    text: str
    truth: dict[str, Any]
    for_model: str
    against_model: str
    first: Side
    rounds: int


def draw_sweep(
    cases: list[tuple[str, dict[str, Any]]],
    models: list[str],
    count: int,
    seed: int,
    lengths: tuple[int, ...] = GRID_ROUNDS,
) -> list[Draw]:
    """`count` debates drawn by one seeded generator: each a claim from `cases` (with replacement), two
    different models of the declared list for and against (the one model twice when the list has one),
    an order and a length of the grid's. The same seed and inputs draw the same debates."""
    if not cases or not models:
        raise ValueError("a sweep draws from at least one claim and one model")
    rng = random.Random(seed)
    draws = []
    for _ in range(count):
        text, truth = rng.choice(cases)
        for_model, against_model = rng.sample(models, 2) if len(models) > 1 else (models[0], models[0])
        draws.append(Draw(text, truth, for_model, against_model, rng.choice(ORDERS), rng.choice(lengths)))
    return draws


def run_sweep(
    settings: Settings,
    draws: list[Draw],
    *,
    suite: str,
    effort: Effort = "low",
    progress: Callable[[Debate], None] = lambda d: None,
) -> list[Debate]:
    """Every drawn debate (each retried once if it fails, as every suite debate is), in draw order. The
    draws of one line-up share its runtime, so they run line-up by line-up."""
    settings = _admitting(settings, len(draws))
    done: dict[int, Debate] = {}
    lineups = dict.fromkeys((d.for_model, d.against_model) for d in draws)
    for for_model, against_model in lineups:
        with runtime_for(settings, for_model, against_model) as (deps, runtime):
            for i, draw in enumerate(draws):
                if (draw.for_model, draw.against_model) != (for_model, against_model):
                    continue
                done[i] = _claim_debate(
                    deps,
                    runtime,
                    draw.text,
                    draw.truth,
                    suite=suite,
                    cell="sweep",
                    rounds=draw.rounds,
                    first=draw.first,
                    effort=effort,
                    design="sweep",
                )
                progress(done[i])
    return [done[i] for i in range(len(draws))]


@dataclass(frozen=True)
class Tally:
    """Verdicts that match the ground truth among the debates that reached one; failures apart."""

    correct: int = 0
    judged: int = 0
    failed: int = 0
    abs_errors: tuple[float, ...] = ()  # |score − ground-truth score|, where the truth has a score

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.judged if self.judged else None

    @property
    def mae(self) -> float | None:
        return statistics.mean(self.abs_errors) if self.abs_errors else None

    def add(self, d: Debate) -> Tally:
        verdict, score, truth = d.outcome.get("verdict"), d.outcome.get("score"), d.truth
        if d.status != "succeeded" or verdict is None:
            return Tally(self.correct, self.judged, self.failed + 1, self.abs_errors)
        errors = self.abs_errors
        if truth.get("score") is not None and score is not None:
            errors = (*errors, abs(score - truth["score"]))
        return Tally(self.correct + (verdict == truth.get("verdict")), self.judged + 1, self.failed, errors)


def accuracy(debates: list[Debate]) -> dict[tuple[int | None, str | None], Tally]:
    """The grid's accuracy against ground truth per (rounds, first), and the margins: (rounds, None)
    per length over both orders, (None, first) per order over every length, (None, None) all."""
    tallies: dict[tuple[int | None, str | None], Tally] = {}
    for d in debates:
        if d.kind != "claim" or not d.truth.get("verdict"):
            continue
        for key in ((d.rounds, d.first), (d.rounds, None), (None, d.first), (None, None)):
            tallies[key] = tallies.get(key, Tally()).add(d)
    return tallies


def accuracy_table(debates: list[Debate]) -> list[str]:
    """Accuracy by length (rows) and by order (columns), each cell `k/n pct`, failures and MAE apart."""
    tallies = accuracy(debates)
    if not tallies:
        return []
    firsts = [f for f in (*ORDERS, "") if (None, f) in tallies]
    lengths = sorted(r for r, f in tallies if r is not None and f is None)
    has_mae = any(t.abs_errors for t in tallies.values())

    def cell(t: Tally | None) -> str:
        if t is None:
            return "–"
        text = f"{t.correct}/{t.judged} {t.accuracy:4.0%}" if t.judged else "0/0   –"
        if has_mae:
            text += f" mae {t.mae:4.1f}" if t.mae is not None else " mae    –"
        return text + (f" ({t.failed} failed)" if t.failed else "")

    width = 24 if has_mae else 14
    heads = [f"{f} first" if f else "both at once" for f in firsts]
    lines = ["accuracy against ground truth: verdict = the truth's, by rounds and by who spoke first"]
    lines.append(f"  {'rounds':<8}" + "".join(f"{h:<{width}}" for h in [*heads, "both orders"]))
    for r in lengths:
        row = [cell(tallies.get((r, f))) for f in firsts] + [cell(tallies.get((r, None)))]
        lines.append(f"  {r:<8}" + "".join(f"{c:<{width}}" for c in row))
    row = [cell(tallies.get((None, f))) for f in firsts] + [cell(tallies.get((None, None)))]
    lines.append(f"  {'all':<8}" + "".join(f"{c:<{width}}" for c in row))
    return lines


# ---------------------------------------------------------------- the report


def write(debates: list[Debate], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "suite.json"]
    written[0].write_text(json.dumps([asdict(d) for d in debates], indent=2) + "\n", encoding="utf-8")
    for kind in ("claim", "motion"):
        rows = [d for d in debates if d.kind == kind]
        if not rows:
            continue
        path = out / f"{kind}s.csv"
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["case", "cell", "rounds", "run_id", "status", "attempts", "truth", "outcome"])
            for d in rows:
                w.writerow(
                    [
                        d.case,
                        d.cell,
                        d.rounds,
                        d.run_id,
                        d.status,
                        d.attempts,
                        json.dumps(d.truth),
                        json.dumps(d.outcome),
                    ]
                )
        written.append(path)
    if any(d.cell == "stability" for d in debates):
        written.append(stability_plot(debates, out / "stability.png"))
    if any(d.kind == "motion" for d in debates):
        written.append(swing_plot(debates, out / "swing.png"))
    if any(d.outcome.get("by_round") and d.first for d in debates):
        written.append(grid_plot(debates, out / "grid.png"))
    from claimcourt.bench.plots import write_plots  # it draws on this module's Debate

    return written + write_plots(debates, out)


def grid_plot(debates: list[Debate], path: Path) -> Path:
    """One panel per length: each round's implied scores, for (blue) and against (red), averaged over
    the claims, for-first solid and against-first dashed; the panel's title holds its accuracy."""
    plt = _pyplot()
    runs = [d for d in debates if d.first and d.outcome.get("by_round")]
    lengths = sorted({d.rounds for d in runs})
    tallies = accuracy(debates)
    fig, axes = plt.subplots(1, len(lengths), figsize=(3.2 * len(lengths), 3.6), sharey=True, squeeze=False)
    for axis, length in zip(axes[0], lengths, strict=True):
        for first, style in zip(ORDERS, ("-", "--"), strict=True):
            mine = [d for d in runs if d.rounds == length and d.first == first]
            for side, colour in (("for", "#1f77b4"), ("against", "#d62728")):
                points = []
                for r in range(1, length + 1):
                    got = [
                        row[side]
                        for d in mine
                        for row in d.outcome["by_round"]
                        if row["round"] == r and row.get(side) is not None
                    ]
                    if got:
                        points.append((r, statistics.mean(got)))
                if points:
                    axis.plot(
                        *zip(*points, strict=True),
                        style,
                        color=colour,
                        marker="o",
                        markersize=3,
                        label=f"{side} ({first} first)",
                    )
        tally = tallies.get((length, None))
        title = f"{length} round{'s' if length > 1 else ''}"
        if tally and tally.accuracy is not None:
            title += f": accuracy {tally.accuracy:.0%}"
        axis.set(title=title, xlabel="round", ylim=(0, 100), xticks=range(1, length + 1))
    axes[0][0].set_ylabel("debater's implied score")
    axes[0][-1].legend(fontsize=6, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def stability(debates: list[Debate]) -> dict[int, float]:
    """Per number of rounds: the share of claims whose verdict already is the one the most rounds gave."""
    runs = [d for d in debates if d.cell == "stability" and d.outcome.get("verdict")]
    if not runs:
        return {}
    most = max(d.rounds for d in runs)
    final = {d.case: d.outcome["verdict"] for d in runs if d.rounds == most}
    shares = {}
    for r in sorted({d.rounds for d in runs}):
        at = [d for d in runs if d.rounds == r and d.case in final]
        shares[r] = round(sum(d.outcome["verdict"] == final[d.case] for d in at) / len(at), 3) if at else 0.0
    return shares


def stability_plot(debates: list[Debate], path: Path) -> Path:
    plt = _pyplot()
    runs = [d for d in debates if d.cell == "stability" and d.outcome.get("score") is not None]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for case in sorted({d.case for d in runs}):
        points = sorted((d.rounds, d.outcome["score"]) for d in runs if d.case == case)
        left.plot(*zip(*points, strict=True), marker="o", linewidth=1, label=case[:40])
    left.set(xlabel="rounds", ylabel="score (0–100)", ylim=(0, 100), title="each claim's score by rounds")
    left.legend(fontsize=6, loc="lower left")
    shares = stability(debates)
    right.bar(list(shares), list(shares.values()), color="#1b9e77", width=0.6)
    right.set(xlabel="rounds", ylabel="share of claims", ylim=(0, 1), title="verdict already the final one")
    for axis in (left, right):
        axis.set_xticks(sorted({d.rounds for d in runs}))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def swing_plot(debates: list[Debate], path: Path) -> Path:
    plt = _pyplot()
    # A motion whose audience's swing was never published has nothing to be compared with.
    runs = [d for d in debates if d.kind == "motion" and "swing_for_decided" in d.outcome]
    runs = [d for d in runs if d.truth.get("swing_for") is not None]
    fig, ax = plt.subplots(figsize=(5.5, 5))
    # A marker and size per cell, largest first: cells that agree still show one another.
    for i, cell in enumerate(c.label for c in CELLS):
        mine = [d for d in runs if d.cell == cell]
        xs, ys = [d.truth["swing_for"] for d in mine], [d.outcome["swing_for_decided"] for d in mine]
        ax.scatter(xs, ys, label=cell, marker="osD^"[i], s=110 - 25 * i, alpha=0.75)
    ax.axhline(0, color="#999999", linewidth=0.8)
    ax.axvline(0, color="#999999", linewidth=0.8)
    ax.set(
        xlabel="real audience's swing for (points)", ylabel="AI crowd's swing for, decided voters (points)"
    )
    ax.set_title("vote swing: the AI crowd against the real audience")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def report(debates: list[Debate]) -> list[str]:
    lines = []
    claims = [d for d in debates if d.kind == "claim" and d.cell != "stability"]
    if claims:
        lines.append("claims: verdict against the fact-checker's, per cell")
        for cell in dict.fromkeys(d.cell for d in claims):
            mine = [d for d in claims if d.cell == cell]
            agree = sum(d.outcome.get("verdict") == d.truth["verdict"] for d in mine)
            lines.append(f"  {cell:<22} {agree} of {len(mine)} agree")
        for case in dict.fromkeys(d.case for d in claims):
            mine = [d for d in claims if d.case == case]
            cells = "  ".join(
                f"{d.outcome.get('score', '–')!s:>3} {d.outcome.get('verdict') or d.status}" for d in mine
            )
            lines.append(f"  {case[:60]:<60} truth {mine[0].truth['verdict']:<20} {cells}")
    motions = [d for d in debates if d.kind == "motion" and "swing_for_decided" in d.outcome]
    motions = [d for d in motions if d.truth.get("swing_for") is not None]  # unpublished: nothing to compare
    if motions:
        lines.append(
            "motions: the swing for, in points of the decided voters: the real audience's, the AI crowd's"
        )
        per_case = {}
        for case in dict.fromkeys(d.case for d in motions):
            mine = [d for d in motions if d.case == case]
            ai = statistics.mean(d.outcome["swing_for_decided"] for d in mine)
            per_case[case] = (mine[0].truth["swing_for"], ai)
            cells = " ".join(f"{d.outcome['swing_for_decided']:+6.1f}" for d in mine)
            lines.append(f"  {case[:60]:<60} real {mine[0].truth['swing_for']:+6.1f}  AI {cells}")
        same_sign = sum(1 for real, ai in per_case.values() if real * ai > 0)
        lines.append(f"  same direction: {same_sign} of {len(per_case)} motions")
        if len(per_case) >= 3 and len({ai for _, ai in per_case.values()}) > 1:
            real, ai = zip(*per_case.values(), strict=True)
            lines.append(f"  correlation (Pearson r): {statistics.correlation(real, ai):+.2f}")
    lines += accuracy_table(debates)
    shares = stability(debates)
    if shares:
        lines.append("verdict stability: " + ", ".join(f"{r} rounds {s:.0%}" for r, s in shares.items()))
    failed = [d for d in debates if d.status != "succeeded"]
    retried = [d for d in debates if d.attempts > 1]
    lines.append(f"{len(debates)} debates, {len(retried)} retried, {len(failed)} failed after the retry")
    return lines
