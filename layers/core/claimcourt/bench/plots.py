"""The research plots of a set of experiment debates (`suite`'s, or the stored ones `experiments plot`
rebuilds): turn progression by order, each debater's own score against the judge's, the score's
distribution by verdict, and a motion's crowd and frontier round by round. PNG, matplotlib's Agg."""

from __future__ import annotations

import statistics
from pathlib import Path

from claimcourt.bench.report import _pyplot
from claimcourt.bench.suite import ORDERS, Debate

FOR, AGAINST = "#1f77b4", "#d62728"
VERDICTS = ("supported", "refuted", "conflicting", "not-enough-evidence")


def _claims_by_round(debates: list[Debate]) -> list[Debate]:
    return [d for d in debates if d.kind == "claim" and d.first and d.outcome.get("by_round")]


def turn_progression(debates: list[Debate], path: Path) -> Path:
    """One panel per order: each turn's speaker's implied score (mean over the debates that reached the
    turn, the band one sd), turn 1 being the first speaker's of round 1, so the order shows as it ran."""
    plt = _pyplot()
    runs = _claims_by_round(debates)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    for axis, first in zip(axes, ORDERS, strict=True):
        second = "against" if first == "for" else "for"
        mine = [d for d in runs if d.first == first]
        longest = max((len(d.outcome["by_round"]) for d in mine), default=0)
        for side, colour in (("for", FOR), ("against", AGAINST)):
            xs, means, sds = [], [], []
            for r in range(1, longest + 1):
                got = [
                    row[side]
                    for d in mine
                    for row in d.outcome["by_round"]
                    if row["round"] == r and row.get(side) is not None
                ]
                if got:
                    xs.append(2 * r - 1 if side == first else 2 * r)
                    means.append(statistics.mean(got))
                    sds.append(statistics.pstdev(got))
            if xs:
                # Later turns come only from the longer debates: the legend says how many there are.
                axis.plot(xs, means, color=colour, marker="o", label=f"{side} ({len(mine)} debates)")
                lows = [m - s for m, s in zip(means, sds, strict=True)]
                highs = [m + s for m, s in zip(means, sds, strict=True)]
                axis.fill_between(xs, lows, highs, color=colour, alpha=0.15)
        axis.axhline(50, color="#999999", linewidth=0.8, linestyle=":")
        axis.set(title=f"{first} speaks first, then {second}", xlabel="turn", ylim=(0, 100))
        if longest:
            axis.set_xticks(range(1, 2 * longest + 1))
            axis.legend(fontsize=7, loc="best")  # a fixed corner hid the last turn's point
    axes[0].set_ylabel("speaker's implied score (mean ± sd)")
    fig.suptitle("turn progression by order")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def self_vs_judge(debates: list[Debate], path: Path) -> Path:
    """Each debater's implied score in its last round against the judge's score for the run: the identity
    line is a debater who agrees with the judge; Pearson r per side in the legend."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 5.2))
    ax.plot([0, 100], [0, 100], color="#999999", linestyle="--", linewidth=1, label="debater = judge")
    for side, colour, marker in (("for", FOR, "o"), ("against", AGAINST, "s")):
        points = []
        for d in _claims_by_round(debates):
            own = [row[side] for row in d.outcome["by_round"] if row.get(side) is not None]
            if own and d.outcome.get("score") is not None:
                points.append((d.outcome["score"], own[-1]))
        if not points:
            continue
        xs, ys = zip(*points, strict=True)
        label = f"{side}, n={len(points)}"
        if len(points) > 2 and len(set(xs)) > 1 and len(set(ys)) > 1:
            label += f", r={statistics.correlation(xs, ys):+.2f}"
        ax.scatter(xs, ys, color=colour, marker=marker, alpha=0.6, s=28, label=label)
    ax.set(
        xlim=(0, 100),
        ylim=(0, 100),
        xlabel="judge's score",
        ylabel="debater's own implied score (last round)",
    )
    ax.set_aspect("equal")
    ax.set_title("debaters' self-scores against the judge's")
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def score_violins(debates: list[Debate], path: Path) -> Path:
    """The judge's scores as violins, by the judge's verdict (left) and by the ground truth's (right):
    whether a score separates what is true from what is not. n under each violin."""
    plt = _pyplot()
    scored = [d for d in debates if d.kind == "claim" and d.outcome.get("score") is not None]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for axis, title, whose in (
        (axes[0], "by the judge's verdict", "judge"),
        (axes[1], "by the ground truth's verdict", "truth"),
    ):
        groups = [(v, [d.outcome["score"] for d in scored if _verdict(d, whose) == v]) for v in VERDICTS]
        groups = [(v, scores) for v, scores in groups if scores]
        for i, (_, scores) in enumerate(groups, 1):
            if len(set(scores)) > 1:  # a violin needs a spread; a single value is drawn as its point
                axis.violinplot([scores], positions=[i], showmedians=True, widths=0.8)
            axis.scatter([i] * len(scores), scores, color="#333333", s=8, alpha=0.5, zorder=3)
        axis.set_xticks(range(1, len(groups) + 1), [f"{v}\nn={len(s)}" for v, s in groups], fontsize=8)
        axis.axhline(50, color="#999999", linewidth=0.8, linestyle=":")
        axis.set(title=title, ylim=(0, 100))
    axes[0].set_ylabel("judge's score")
    fig.suptitle("score distributions by verdict")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _verdict(d: Debate, whose: str) -> str | None:
    verdict = d.outcome.get("verdict") if whose == "judge" else d.truth.get("verdict")
    return str(verdict) if verdict else None


def motion_rounds(debates: list[Debate], path: Path) -> Path:
    """Per motion debate: the crowd's mean score round by round (vote zero = round 0) and the judge's
    disagreement frontier's size after each round."""
    plt = _pyplot()
    runs = [d for d in debates if d.kind == "motion" and d.outcome.get("sentiment")]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for d in runs:
        label = f"{d.case[:32]}… ({d.first} first)" if len(d.case) > 32 else f"{d.case} ({d.first} first)"
        style = "-" if d.first == "for" else "--"
        rounds = [row["round"] for row in d.outcome["sentiment"]]
        (line,) = left.plot(
            rounds, [row["mean"] for row in d.outcome["sentiment"]], style, marker="o", label=label
        )
        frontier = d.outcome.get("frontier_by_round") or []
        if frontier:
            right.plot(
                [row["round"] for row in frontier],
                [row["issues"] for row in frontier],
                style,
                marker="o",
                color=line.get_color(),
            )
    left.axhline(50, color="#999999", linewidth=0.8, linestyle=":")
    left.set(
        title="crowd sentiment per round",
        xlabel="round (0 = vote zero)",
        ylabel="crowd's mean score (100 = for)",
        ylim=(0, 100),
    )
    right.set(title="disagreement frontier per round", xlabel="round", ylabel="issues on the frontier")
    right.set_ylim(bottom=0)
    right.yaxis.get_major_locator().set_params(integer=True)
    for axis in (left, right):
        axis.xaxis.get_major_locator().set_params(integer=True)
    left.legend(fontsize=6, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(debates: list[Debate], out: Path) -> list[Path]:
    """Every plot these debates have the data for, into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if _claims_by_round(debates):
        written += [
            turn_progression(debates, out / "turns.png"),
            self_vs_judge(debates, out / "self_vs_judge.png"),
        ]
    if any(d.kind == "claim" and d.outcome.get("score") is not None for d in debates):
        written.append(score_violins(debates, out / "verdict_violins.png"))
    if any(d.kind == "motion" and d.outcome.get("sentiment") for d in debates):
        written.append(motion_rounds(debates, out / "motion_rounds.png"))
    return written
