"""Agreement between judges, and between judges and debaters, over stored runs (issue 26).

Each run's judges are its own judgement (`original`) and its re-judgements (rejudge.py), named by
model and kind (`openai:gpt-4.1`, `offline:offline rubric`). Judge–judge: for each pair of judges, over
the runs both judged, Pearson and Spearman on overall scores and Cohen's κ on verdicts. Judge–debater:
each debater's own implied overall score (the mean of its final round's implied scores) against each
judge's score. Computed with numpy (no scipy in the environment); undefined values (fewer than two
runs, no variance) are None, never a made-up 0.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from claimcourt import artifacts
from claimcourt.adjudication.score import final_round
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
        scored = [j for j in judgements_of(deps, record) if j.score is not None and j.verdict is not None]
        arguments = artifacts.arguments_of(deps.store, run_id)
        own = {side: final_round(arguments, side) for side in SIDES}
        found.append(
            Judged(
                run_id,
                {judge_name(j): j.score for j in scored if j.score is not None},
                {judge_name(j): j.verdict.value for j in scored if j.verdict is not None},
                {s: v for s, a in own.items() if a is not None and (v := a.implied_score()) is not None},
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
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
