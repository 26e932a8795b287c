"""`claimcourt suite` offline: the 2x2 per claim and motion through the real state machines, its
report, its files and its plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import claimcourt.bench.suite as suite_module
from claimcourt.bench.suite import (
    CELLS,
    GRID_ROUNDS,
    accuracy,
    bundled_claims,
    claim_cases,
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
from claimcourt.errors import RateLimitedError
from claimcourt.models import SourceTag
from claimcourt.runs import submit_when_free
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore

pytestmark = pytest.mark.timeout(300)


def test_a_suite_runs_every_cell_tags_its_debates_and_writes_its_tables_and_plots(
    clean_env: None, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "data", provider="offline", web_search=False)
    debates = run_suite(
        settings,
        claim_cases(2, 3),
        motion_cases(1, 3),
        rounds=1,
        max_rounds=2,
        models=("offline:offline",) * 2,
        suite="suite-test",
    )
    # 2 claims and 1 motion in each of the 4 cells, and 2 claims at 1 and 2 rounds
    assert len(debates) == 3 * len(CELLS) + 2 * 2
    assert {d.cell for d in debates if d.kind == "motion"} == {c.label for c in CELLS}
    assert all(d.status == "succeeded" for d in debates), [d for d in debates if d.status != "succeeded"]
    # who speaks first is the cell's, whatever vote zero said
    for d in (d for d in debates if d.kind == "motion"):
        assert d.outcome["first"] == ("for" if d.cell.endswith("for first") else "against")
    # stored as experiments, with their configuration and ground truth
    store = SqliteStore(tmp_path / "data" / "claimcourt.sqlite3")
    tagged = store.list_runs("local", 100, source=SourceTag.EXPERIMENT).runs
    assert {r.run_id for r in tagged} == {d.run_id for d in debates}
    doc = store.get_artifact(debates[0].run_id, "experiment")
    assert doc["cell"] == debates[0].cell and "verdict" in doc["truth"]
    store.close()
    # the report and the files
    lines = report(debates)
    assert any(line.startswith("claims: verdict against") for line in lines)
    assert any("real" in line and "AI" in line for line in lines)
    assert any(line.startswith("verdict stability:") for line in lines)
    written = write(debates, tmp_path / "out")
    names = {p.name for p in written}
    assert names == {
        *("suite.json", "claims.csv", "motions.csv", "stability.png", "swing.png", "grid.png"),
        *("turns.png", "self_vs_judge.png", "verdict_violins.png", "motion_rounds.png"),
    }
    assert (tmp_path / "out" / "stability.png").read_bytes()[:4] == b"\x89PNG"
    assert len(json.loads((tmp_path / "out" / "suite.json").read_text())) == len(debates)


def test_the_grid_debates_each_claim_at_every_length_in_both_orders_and_scores_it_against_the_truth(
    clean_env: None, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "data", provider="offline", web_search=False)
    cases = [
        (
            "Arctic sea ice extent has declined since 1979",
            {"verdict": "supported", "score": 90, "topic": "climate"},
        ),
        (
            "Arctic sea ice extent has grown since 1979",
            {"verdict": "refuted", "score": 5, "topic": "climate"},
        ),
    ]
    debates = run_grid(settings, cases, models=("offline:offline",) * 2, suite="grid-test")
    # one model twice: the swap is the same debate, so 2 claims x 4 lengths x 2 orders
    assert len(debates) == 2 * len(GRID_ROUNDS) * 2
    assert {(d.case, d.rounds, d.first) for d in debates} == {
        (c, r, f) for c, _ in cases for r in GRID_ROUNDS for f in ("for", "against")
    }
    assert all(d.status == "succeeded" for d in debates), [d for d in debates if d.status != "succeeded"]
    # each debate ran the length it was asked for, and every round's debaters are on record
    assert all(len(d.outcome["by_round"]) == d.rounds for d in debates)
    store = SqliteStore(tmp_path / "data" / "claimcourt.sqlite3")
    for d in debates:
        record = store.get_run(d.run_id)
        assert record.result is not None and record.result.rounds == d.rounds
        assert record.result.first == d.first
        doc = store.get_artifact(d.run_id, "experiment")
        assert doc["rounds"] == d.rounds and doc["first"] == d.first and doc["truth"]["topic"]
    store.close()
    tallies = accuracy(debates)
    assert tallies[(None, None)].judged == len(debates)
    assert tallies[(None, None)].correct == sum(d.outcome["verdict"] == d.truth["verdict"] for d in debates)
    assert all(tallies[(r, None)].judged == 4 for r in GRID_ROUNDS)
    assert report(debates)[-7].startswith("  rounds")
    written = {p.name: p for p in write(debates, tmp_path / "out")}
    assert "grid.png" in written
    png = written["grid.png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_a_sweep_runs_its_draws_in_order_each_tagged_with_its_models_order_and_length(
    clean_env: None, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "data", provider="offline", web_search=False)
    cases = [
        (c["claim"], fact_checked(c)) for c in pick(bundled_claims(), ["climate-2", "health-5"], "claim")
    ]
    draws = draw_sweep(cases, ["offline:offline"], 3, seed=1, lengths=(1, 2))
    debates = run_sweep(settings, draws, suite="sweep-test")
    assert [(d.case, d.rounds, d.first) for d in debates] == [(w.text, w.rounds, w.first) for w in draws]
    assert all(d.status == "succeeded" and d.attempts == 1 for d in debates)
    store = SqliteStore(tmp_path / "data" / "claimcourt.sqlite3")
    for d, w in zip(debates, draws, strict=True):
        doc = store.get_artifact(d.run_id, "experiment")
        assert doc["sweep"] is True and doc["cell"] == "sweep"
        assert (doc["for_model"], doc["against_model"], doc["rounds"], doc["first"]) == (
            w.for_model,
            w.against_model,
            w.rounds,
            w.first,
        )
        assert doc["truth"]["case_id"] == w.truth["case_id"]
    store.close()


def test_a_failed_debate_is_retried_once_and_only_once(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two draws: the first fails to start once then runs; the second fails both times and is recorded
    as failed after its retry, never tried a third time."""
    settings = Settings(data_dir=tmp_path / "data", provider="offline", web_search=False)
    cases = [("Arctic sea ice extent has declined since 1979", {"verdict": "supported"})]
    draws = draw_sweep(cases, ["offline:offline"], 2, seed=0, lengths=(1,))
    real = submit_when_free
    calls: list[int] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1 or len(calls) >= 3:  # the first debate's first try, and every try after
            raise RateLimitedError("hourly", "the hour's cap is reached", 60)
        return real(*args, **kwargs)

    monkeypatch.setattr(suite_module, "submit_when_free", flaky)
    first, second = run_sweep(settings, draws, suite="retry-test")
    assert (first.status, first.attempts) == ("succeeded", 2)
    assert second.attempts == 2 and second.status.startswith("not started:")
    assert "hour's cap" in second.status
    assert len(calls) == 4
    assert report([first, second])[-1] == "2 debates, 2 retried, 1 failed after the retry"
