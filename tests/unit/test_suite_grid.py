"""`suite --grid`'s arithmetic: accuracy against ground truth by length and by order, from debates
whose verdicts are known, failures counted apart; and the ground-truth flags refused at the boundary."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claimcourt.bench.suite import Debate, accuracy, accuracy_table
from claimcourt.cli.commands import main


def debate(
    rounds: int, first: str, verdict: str | None, truth: str, score: int | None = None, **kw: object
) -> Debate:
    status = "succeeded" if verdict else "failed"
    outcome = {"verdict": verdict, "score": score} if verdict else {}
    return Debate(
        "claim",
        "c",
        f"A for, {first} first",
        rounds,
        "r",
        status,
        1,
        {"verdict": truth, **kw},
        outcome,
        first,
    )


def test_accuracy_by_length_and_order_counts_matches_and_keeps_failures_apart() -> None:
    debates = [
        debate(1, "for", "refuted", "refuted"),
        debate(1, "against", "supported", "refuted"),
        debate(6, "for", "refuted", "refuted"),
        debate(6, "against", "refuted", "refuted"),
        debate(6, "against", None, "refuted"),  # failed: neither right nor wrong
    ]
    t = accuracy(debates)
    assert (t[(1, "for")].correct, t[(1, "for")].judged) == (1, 1)
    assert (t[(1, "against")].correct, t[(1, "against")].judged) == (0, 1)
    assert (t[(1, None)].correct, t[(1, None)].judged) == (1, 2)
    assert (t[(6, "against")].correct, t[(6, "against")].judged, t[(6, "against")].failed) == (1, 1, 1)
    assert t[(None, "against")].accuracy == 0.5
    assert t[(None, "for")].accuracy == 1.0
    assert (t[(None, None)].correct, t[(None, None)].judged, t[(None, None)].failed) == (3, 4, 1)
    lines = accuracy_table(debates)
    assert lines[1].split() == ["rounds", "for", "first", "against", "first", "both", "orders"]
    assert lines[2].split()[:5] == ["1", "1/1", "100%", "0/1", "0%"]
    assert "(1 failed)" in lines[3]
    assert lines[-1].split()[:3] == ["all", "2/2", "100%"]


def test_a_ground_truth_score_gives_the_mean_absolute_error() -> None:
    debates = [
        debate(2, "for", "refuted", "refuted", score=20, score_truth=None),
        debate(2, "for", "refuted", "refuted", score=10),
    ]
    debates[0].truth["score"] = 10
    debates[1].truth["score"] = 0
    assert accuracy(debates)[(2, "for")].mae == 10.0
    assert "mae 10.0" in accuracy_table(debates)[2]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--grid", "--gt-verdict", "refuted"], "name the claim"),
        (["--grid", "--claim", "The sea is rising"], "needs its ground truth"),
        (["--grid", "--claim", "x", "--gt-verdict", "wrong"], "'wrong' is not one of"),
        (["--grid", "--claim", "x", "--gt-score", "101"], "101 is not in the range"),
        (["--claim", "The sea is rising", "--gt-verdict", "supported"], "debated by --grid"),
        (["--grid", "--topic", "astrology"], "none of the bundled claims' topics"),
    ],
)
def test_ground_truth_flags_are_refused_at_the_boundary_and_nothing_is_stored(
    clean_env: None, tmp_path: Path, args: list[str], says: str
) -> None:
    result = CliRunner().invoke(main, ["suite", *args, "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output
    assert says in result.output
    assert not (tmp_path / "data" / "claimcourt.sqlite3").exists()
