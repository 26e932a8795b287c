"""The research plots drawn from known debates: each written as a non-empty PNG, and only the plots
the debates have data for."""

from __future__ import annotations

from pathlib import Path

from claimcourt.bench.plots import write_plots
from claimcourt.bench.suite import Debate

PNG = b"\x89PNG\r\n\x1a\n"


def claim(i: int, first: str, rounds: int, score: int, verdict: str, truth: str) -> Debate:
    by_round = [{"round": r, "for": 70 - r, "against": 30 + r} for r in range(1, rounds + 1)]
    outcome = {"score": score, "verdict": verdict, "by_round": by_round}
    return Debate(
        "claim", f"claim {i}", "A for", rounds, f"r{i}", "succeeded", 1, {"verdict": truth}, outcome, first
    )


def motion(first: str) -> Debate:
    outcome = {
        "sentiment": [{"round": r, "mean": 50 + 3 * r, "for_pct": 40, "against_pct": 40} for r in range(4)],
        "frontier_by_round": [{"round": r, "issues": 4 - r} for r in range(1, 4)],
    }
    return Debate("motion", "The motion", "A for", 3, "m", "succeeded", 1, {"swing_for": 4}, outcome, first)


CLAIMS = [
    claim(1, "for", 2, 80, "supported", "supported"),
    claim(2, "against", 4, 20, "refuted", "refuted"),
    claim(3, "for", 1, 55, "conflicting", "refuted"),
    claim(4, "against", 2, 75, "supported", "supported"),
]


def test_every_plot_is_written_as_a_png_from_known_debates(tmp_path: Path) -> None:
    written = write_plots([*CLAIMS, motion("for"), motion("against")], tmp_path)
    assert [p.name for p in written] == [
        "turns.png",
        "self_vs_judge.png",
        "verdict_violins.png",
        "motion_rounds.png",
    ]
    for path in written:
        data = path.read_bytes()
        assert data[:8] == PNG and len(data) > 10_000, path.name


def test_only_the_plots_the_debates_have_data_for_are_written(tmp_path: Path) -> None:
    assert [p.name for p in write_plots([motion("for")], tmp_path / "m")] == ["motion_rounds.png"]
    failed = Debate(
        "claim", "c", "A for", 1, "", "not started: refused", 2, {"verdict": "refuted"}, {}, "for"
    )
    assert write_plots([failed], tmp_path / "f") == []
