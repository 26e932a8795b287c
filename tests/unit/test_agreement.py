"""Agreement arithmetic (bench/agreement.py) against values computed by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcourt.bench.agreement import (
    Judged,
    cohen_kappa,
    debater_fits,
    pairs,
    pearson,
    plot,
    ranks,
    spearman,
    spread_plot,
)

X, Y = [1, 2, 3, 4, 5], [2, 4, 5, 4, 5]


def test_pearson_by_hand() -> None:
    # dx = -2..2, dy = -2, 0, 1, 0, 1: Σdxdy 6, Σdx² 10, Σdy² 6 → 6 / √60
    assert pearson(X, Y) == pytest.approx(6 / 60**0.5)


def test_spearman_ranks_ties_by_their_mean() -> None:
    assert list(ranks(Y)) == [1, 2.5, 4.5, 2.5, 4.5]
    # ranks of y centred: -2, -0.5, 1.5, -0.5, 1.5: Σdxdy 7, Σdy² 9 → 7 / √90
    assert spearman(X, Y) == pytest.approx(7 / 90**0.5)


def test_cohen_kappa_by_hand() -> None:
    a = ["supported", "supported", "refuted", "refuted", "conflicting"]
    b = ["supported", "refuted", "refuted", "refuted", "conflicting"]
    # observed 0.8; chance .4×.2 + .4×.6 + .2×.2 = .36 → (.8 − .36) / .64
    assert cohen_kappa(a, b) == pytest.approx(0.6875)


def test_undefined_is_none_not_zero() -> None:
    assert pearson([1], [2]) is None
    assert pearson([50, 50, 50], [1, 2, 3]) is None
    assert cohen_kappa([], []) is None
    assert cohen_kappa(["supported"] * 3, ["supported"] * 3) is None


def _runs() -> list[Judged]:
    scores = [(80, 70), (30, 40), (60, 65)]
    return [
        Judged(
            f"run_{i}",
            {"a": sa, "b": sb},
            {"a": "supported" if sa >= 60 else "refuted", "b": "supported" if sb >= 60 else "refuted"},
            {"for": sa + 5, "against": 100 - sa},
        )
        for i, (sa, sb) in enumerate(scores)
    ]


def test_pairs_and_debaters_over_runs() -> None:
    [pair] = pairs(_runs())
    assert (pair.a, pair.b, pair.n) == ("a", "b", 3)
    assert pair.pearson == pytest.approx(pearson([80, 30, 60], [70, 40, 65]))
    assert pair.kappa == pytest.approx(1.0)
    fits = {(f.judge, f.side): f for f in debater_fits(_runs())}
    assert fits[("a", "for")].pearson == pytest.approx(1.0) and fits[("a", "for")].mean_gap == 5
    assert fits[("a", "against")].pearson == pytest.approx(-1.0)


def test_the_plot_is_a_png(tmp_path: Path) -> None:
    written = plot(pairs(_runs()), tmp_path / "jj.png")
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_spread_plot_has_a_row_per_run_two_or_more_judges_scored(tmp_path: Path) -> None:
    panels = [
        ("Arctic sea ice has declined since 1979", {"gpt": 88, "claude": 81, "offline": 84}, "offline"),
        ("Global warming stopped in 1998", {"gpt": 12, "claude": 35, "offline": 22}, "offline"),
        (
            "Sea levels are rising because of volcanic activity under the oceans",
            {"gpt": 82, "claude": 20},
            "claude",
        ),
        ("One judge only", {"gpt": 50}, "gpt"),
    ]
    runs = [
        Judged(f"run_{i}", scores, {j: "supported" for j in scores}, {}, claim, speaks)
        for i, (claim, scores, speaks) in enumerate(panels)
    ]
    written = spread_plot(runs, tmp_path / "spread.png")
    assert written.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # three rows (a run one judge scored has no spread): the figure grows with them
    one_row = spread_plot(runs[:1], tmp_path / "one.png")
    from PIL import Image

    assert Image.open(written).height > Image.open(one_row).height
