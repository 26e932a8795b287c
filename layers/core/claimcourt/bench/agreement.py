"""Agreement between judges, and between judges and debaters, over stored runs (issue 26).

Each run's judges are its own judgement (`original`, or each judge of its panel: `judges`) and its
re-judgements (rejudge.py), named by model and kind (`openai:gpt-4.1`, `offline:offline rubric`).
Judge–judge: for each pair of judges, over the runs both judged, Pearson and Spearman on overall scores
and Cohen's κ on verdicts; and each run's spread (`spread_plot`). Judge–debater: each debater's own
implied overall score (the mean of its final round's implied scores) against each judge's score.
Computed with numpy (no scipy in the environment); undefined values (fewer than two runs, no variance)
are None, never a made-up 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from claimcourt import artifacts
from claimcourt.adjudication.score import final_round
from claimcourt.bench.report import _pyplot
from claimcourt.contract import REFUTED_AT, SUPPORTED_AT
from claimcourt.models import RunStatus, Side
from claimcourt.rejudge import StoredJudgement, judgements_of
from claimcourt.wiring import Deps

SIDES: tuple[Side, ...] = ("for", "against")


def pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    a, b = np.asarray(x, float), np.asarray(y, float)
    if len(a) < 2 or a.std() == 0 or b.std() == 0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


def ranks(values: Sequence[float]) -> np.ndarray:
    """1-based ranks, ties sharing their mean rank (as Spearman's ρ needs)."""
    a = np.asarray(values, float)
    order = a.argsort(kind="stable")
    ranked = np.empty(len(a))
    ranked[order] = np.arange(1, len(a) + 1)
    for v in np.unique(a):
        tied = a == v
        ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    return pearson(list(ranks(x)), list(ranks(y))) if len(x) >= 2 else None


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's κ of two raters' labels; None when undefined (no items, or chance agreement of 1)."""
    if not a:
        return None
    labels = sorted(set(a) | set(b))
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / len(a)
    expected = sum((a.count(k) / len(a)) * (b.count(k) / len(b)) for k in labels)
    return None if expected == 1 else (observed - expected) / (1 - expected)


@dataclass(frozen=True)
class Judged:
    """One run as its judges and debaters scored it."""

    run_id: str
    scores: dict[str, int]  # judge → overall score
    verdicts: dict[str, str]  # judge → verdict
    debaters: dict[Side, int]  # side → its own implied overall score
    claim: str = ""
    speaks: str | None = None  # the judge whose judgement is the run's result (a panel's median)


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    n: int
    pearson: float | None
    spearman: float | None
    kappa: float | None
    scores: tuple[tuple[int, int], ...]  # (a's, b's) per run, for the plot


def judge_name(j: StoredJudgement) -> str:
    return j.model + (" rubric" if j.judge == "rubric" else "")


def load(deps: Deps, run_ids: Sequence[str]) -> list[Judged]:
    """The succeeded claim runs among `run_ids`, with every judgement that gave a score (a judge's
    latest, when it judged one run more than once)."""
    found = []
    for run_id in run_ids:
        record = deps.store.get_run(run_id)
        if record.status is not RunStatus.SUCCEEDED or record.motion is not None:
            continue
        judged = judgements_of(deps, record)
        scored = [j for j in judged if j.score is not None and j.verdict is not None]
        arguments = artifacts.arguments_of(deps.store, run_id)
        own = {side: final_round(arguments, side) for side in SIDES}
        panel = record.result.panel if record.result is not None else None
        found.append(
            Judged(
                run_id,
                {judge_name(j): j.score for j in scored if j.score is not None},
                {judge_name(j): j.verdict.value for j in scored if j.verdict is not None},
                {s: v for s, a in own.items() if a is not None and (v := a.implied_score()) is not None},
                record.request.claim,
                judge_name(judged[panel.speaks if panel is not None else 0]),
            )
        )
    return found


def pairs(runs: Sequence[Judged]) -> list[Pair]:
    """Every pair of judges, over the runs both scored."""
    judges = sorted({j for r in runs for j in r.scores})
    found = []
    for a, b in itertools.combinations(judges, 2):
        both = [r for r in runs if a in r.scores and b in r.scores]
        x, y = [r.scores[a] for r in both], [r.scores[b] for r in both]
        kappa = cohen_kappa([r.verdicts[a] for r in both], [r.verdicts[b] for r in both])
        found.append(
            Pair(a, b, len(both), pearson(x, y), spearman(x, y), kappa, tuple(zip(x, y, strict=True)))
        )
    return found


@dataclass(frozen=True)
class DebaterFit:
    judge: str
    side: Side
    n: int
    pearson: float | None
    spearman: float | None
    mean_gap: float | None  # mean |debater − judge|


def debater_fits(runs: Sequence[Judged]) -> list[DebaterFit]:
    judges = sorted({j for r in runs for j in r.scores})
    found = []
    for judge, side in itertools.product(judges, SIDES):
        both = [r for r in runs if judge in r.scores and side in r.debaters]
        x, y = [r.debaters[side] for r in both], [r.scores[judge] for r in both]
        gap = float(np.mean(np.abs(np.subtract(x, y)))) if both else None
        found.append(DebaterFit(judge, side, len(both), pearson(x, y), spearman(x, y), gap))
    return found


def plot(found: Sequence[Pair], path: Path) -> Path:
    """Judge against judge: one scatter per pair (identity line; r and n in the title)."""
    plt = _pyplot()
    shown = [p for p in found if p.n] or list(found)
    cols = min(len(shown), 3) or 1
    rows = max(1, -(-len(shown) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4.2 * rows), squeeze=False)
    for ax, p in zip(axes.flat, shown, strict=False):
        ax.plot([0, 100], [0, 100], color="grey", linewidth=0.8, linestyle="--")
        if p.scores:
            xs, ys = zip(*p.scores, strict=True)
            ax.scatter(xs, ys, alpha=0.7)
        r = "undefined" if p.pearson is None else f"{p.pearson:.2f}"
        ax.set_title(f"r = {r}, n = {p.n}", fontsize=10)
        ax.set_xlabel(p.a, fontsize=9)
        ax.set_ylabel(p.b, fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 100)
    for ax in list(axes.flat)[len(shown) :]:
        ax.axis("off")
    fig.suptitle("Judge against judge: overall score (0–100)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def spread_plot(runs: Sequence[Judged], path: Path) -> Path:
    """The panel's spread per claim: a row per run two or more judges scored, each judge's score a
    marker of its own (the legend names them), a line from the lowest to the highest, the judgement
    that speaks for the run ringed, max − min at the right; the verdict bands shaded behind."""
    plt = _pyplot()
    shown = [r for r in runs if len(r.scores) >= 2]
    judges = sorted({j for r in shown for j in r.scores})
    markers = "osD^vP*X"
    fig, ax = plt.subplots(figsize=(10, 1.9 + 0.55 * max(len(shown), 1)))
    ax.axvspan(0, REFUTED_AT, color="#d62728", alpha=0.06, linewidth=0)
    ax.axvspan(SUPPORTED_AT, 100, color="#2ca02c", alpha=0.06, linewidth=0)
    ax.axvline(50, color="#999999", linewidth=0.8, linestyle=":")
    for row, r in enumerate(shown):
        low, high = min(r.scores.values()), max(r.scores.values())
        ax.plot([low, high], [row, row], color="#555555", linewidth=1.5, zorder=1)
        ax.annotate(f"spread {high - low}", (101, row), va="center", fontsize=8, annotation_clip=False)
        if r.speaks in r.scores:
            ax.scatter([r.scores[r.speaks]], [row], s=260, facecolors="none", edgecolors="black", zorder=3)
    for i, judge in enumerate(judges):
        rows = [(r.scores[judge], row) for row, r in enumerate(shown) if judge in r.scores]
        xs, ys = zip(*rows, strict=True) if rows else ((), ())
        ax.scatter(xs, ys, marker=markers[i % len(markers)], s=60, zorder=2, label=judge)
    ax.scatter([], [], s=160, facecolors="none", edgecolors="black", label="speaks for the run")
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([_short(r.claim or r.run_id) for r in shown], fontsize=8)
    ax.set_ylim(len(shown) - 0.5, -0.5)  # the first run at the top
    ax.set_xlim(0, 100)
    ax.set_xlabel("overall score (0–100); shaded: refuted ≤ 40, supported ≥ 60")
    runs_shown = f"{len(shown)} run{'s' if len(shown) != 1 else ''}"
    ax.set_title(f"The panel's spread per claim ({runs_shown} with two or more judges)", fontsize=10)
    # beside the plot, past the spreads written at its right edge: never over a row or the axis
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.19, 0.5), frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def _short(text: str, width: int = 48) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:+.2f}"


def table(runs: Sequence[Judged]) -> list[str]:
    """The agreement report as lines: per run its judges' scores, then judge–judge and judge–debater."""
    lines = ["per run: each judge's score and verdict; the spread; whether the verdicts agree"]
    for r in runs:
        said = ", ".join(f"{j} {r.scores[j]} {r.verdicts[j]}" for j in sorted(r.scores))
        spread = max(r.scores.values()) - min(r.scores.values()) if r.scores else 0
        agree = "agree" if len(set(r.verdicts.values())) <= 1 else "differ"
        debaters = " ".join(f"{s} {v}" for s, v in r.debaters.items())
        lines.append(f"  {r.run_id}  spread {spread:>3}  verdicts {agree:<6}  {said}  (debaters: {debaters})")
    lines.append("judge–judge over runs: n, Pearson r, Spearman ρ (scores), Cohen's κ (verdicts)")
    for p in pairs(runs):
        lines.append(
            f"  {p.a}  vs  {p.b}: n {p.n:<3} r {_num(p.pearson)}  ρ {_num(p.spearman)}  κ {_num(p.kappa)}"
        )
    lines.append("judge–debater over runs: n, Pearson r, Spearman ρ, mean |debater − judge|")
    for f in debater_fits(runs):
        gap = "–" if f.mean_gap is None else f"{f.mean_gap:.1f}"
        lines.append(
            f"  {f.judge}  vs  {f.side} debater: n {f.n:<3} "
            f"r {_num(f.pearson)}  ρ {_num(f.spearman)}  gap {gap}"
        )
    return lines
