"""`claimcourt suite` offline: the 2x2 per claim and motion through the real state machines, its
report, its files and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimcourt.bench.suite import CELLS, GRID_ROUNDS, accuracy, report, run_grid, run_suite, write
from claimcourt.models import SourceTag
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore

pytestmark = pytest.mark.timeout(300)


def test_a_suite_runs_every_cell_tags_its_debates_and_writes_its_tables_and_plots(
    clean_env: None, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path / "data", provider="offline", web_search=False)
    debates = run_suite(
        settings, claims=2, motions=1, rounds=1, max_rounds=2, seed=3, models=("offline:offline",) * 2
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
    assert names == {"suite.json", "claims.csv", "motions.csv", "stability.png", "swing.png", "grid.png"}
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
