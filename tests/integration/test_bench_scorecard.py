"""`claimcourt bench`: the scorecard offline end to end, on a small sample (the figures are the offline
reasoner's; only their shape is checked here, the metrics themselves in tests/unit/test_bench_metrics.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimcourt.bench import averitec
from claimcourt.bench.card import Options
from claimcourt.bench.scorecard import run
from claimcourt.cli import main
from claimcourt.models import LOCAL_TENANT, SourceTag
from claimcourt.store.sqlite import SqliteStore

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("clean_env")]


@pytest.fixture(autouse=True)
def data_dir(
    clean_env: None, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """The store a bench records its scorecard in (CLAIMCOURT_DATA_DIR's), never the user's own."""
    where = tmp_path_factory.mktemp("data")
    monkeypatch.setenv("CLAIMCOURT_DATA_DIR", str(where))
    return where


def test_bench_all_with_baselines_prints_the_scorecard_and_writes_json_plots_and_report(
    tmp_path: Path,
) -> None:
    result = CliRunner().invoke(
        main, ["bench", "all", "--baselines", "--limit", "2", "--runs", "2", "--out", str(tmp_path)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "these are the offline reasoner's figures, not a model's" in out
    # its dollars say what they are: metered as if billed at a model's prices, and nothing spent
    assert "its dollars are metered as if billed at claude-sonnet-4-6 prices, and $0 was spent" in out
    for title in ("== calibration", "== AVeriTeC", "== CLIMATE-FEVER", "== behaviour probes"):
        assert title in out
    for metric in ("stability σ", "MAE to anchors", "AUROC", "directional accuracy", "macro-F1 (4 classes)",
                   "spectral remap 40/60", "5-fold CV", "Brier", "$ per item, spent", "LLM calls per item",
                   "$ per item, metered as if billed at claude-sonnet-4-6 prices",
                   "hindsight", "leakage ablation", "affirmation", "forecasts"):  # fmt: skip
        assert metric in out, metric
    assert out.count("single-LLM judge") >= 4 and out.count("naive RAG + LLM") >= 4
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    card = json.loads((run_dir / "scorecard.json").read_text())
    assert card["offline"] is True and [s["bench"] for s in card["sections"]] == [
        "calibration", "averitec", "climate-fever", "probes"
    ]  # fmt: skip
    calibration = card["sections"][0]["metrics"]
    assert set(calibration["MAE to anchors (points)"]) == {"judge", "rag", "debate"}
    assert calibration["stability σ, mean (points)"]["debate"] == 0.0  # the offline reasoner is deterministic
    assert (
        calibration["LLM calls per item"]["judge"] == 1.0 and calibration["LLM calls per item"]["debate"] > 3
    )
    for png in (
        "calibration-calibration-curve",
        "averitec-confusion",
        "averitec-reliability",
        "climate-fever-confusion",
    ):
        assert (run_dir / f"{png}.png").read_bytes()[:4] == b"\x89PNG"
    report = (run_dir / "report.html").read_text()
    assert "offline reasoner's" in report and "averitec-confusion.png" in report
    assert "metered as if billed at claude-sonnet-4-6 prices" in report and "$0 was spent" in report
    metered = calibration["$ per item, metered as if billed at claude-sonnet-4-6 prices"]
    assert calibration["$ per item, spent"]["debate"] == 0.0 and metered["debate"] > 0
    assert run_dir.name in (tmp_path / "index.html").read_text()
    # Every debate is stored with source tag bench, under its own tenant: never in the product's history.
    store = SqliteStore(run_dir / "claimcourt.sqlite3")
    benched = store.list_runs("bench", 100, source=SourceTag.BENCH).runs
    assert len(benched) == len(store.list_runs("bench", 100).runs) > 10
    assert store.list_runs(LOCAL_TENANT, 10).runs == []


def test_an_interrupted_bench_resumes_with_only_what_is_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, first = run(
        ["calibration", "--baselines", "--limit", "2", "--runs", "2", "--out", str(tmp_path), "--no-plots"]
    )
    progress = run_dir / "progress.jsonl"
    lines = progress.read_text().splitlines()
    assert len(lines) == 12  # 2 claims × 2 runs × 3 systems
    progress.write_text("\n".join(lines[:7]) + "\n" + lines[7][:20])  # killed while writing the 8th line
    capsys.readouterr()
    again_dir, again = run(["calibration", "--resume", str(run_dir), "--no-plots"])
    assert again_dir == run_dir
    assert "resuming: 7 of 12 jobs already done" in capsys.readouterr().err
    assert len(progress.read_text().splitlines()) == 13  # the cut line stays unread; 5 new ones
    assert [r.values for r in again[0].rows[:5]] == [r.values for r in first[0].rows[:5]]


def test_golden_evidence_debates_search_only_their_own_claims_gold_answers(tmp_path: Path) -> None:
    run_dir, _ = run(["averitec", "--limit", "3", "--out", str(tmp_path), "--no-plots"])
    claims = {c.id: c for c in averitec.chosen(Options(benches=("averitec",), limit=3))}
    outcomes = [json.loads(line) for line in (run_dir / "progress.jsonl").read_text().splitlines()]
    store = SqliteStore(run_dir / "claimcourt.sqlite3")
    for outcome in outcomes:
        gold_urls = {hit.url for hit in claims[outcome["item"]].hits}
        found = store.find_artifacts(outcome["run_id"], "evidence/")
        urls = {item["source_url"] for doc in found.values() for item in doc["items"]}
        assert urls and urls <= gold_urls, outcome["item"]
        assert store.get_run(outcome["run_id"]).request.mode == "verdict"


def test_a_bench_records_its_scorecard_and_plots_in_the_store_the_api_reads(
    tmp_path: Path, data_dir: Path
) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["bench", "calibration", "--baselines", "--limit", "2", "--runs", "2", "--out", str(out)],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    store = SqliteStore(data_dir / "claimcourt.sqlite3")  # the settings' store, not the bench directory's
    (recorded,) = store.list_benchmarks()
    assert f"recorded as benchmark {recorded.benchmark_id}" in result.stdout
    assert recorded.offline is True and "offline reasoner" in recorded.model
    assert recorded.directory == str(run_dir.resolve()) and recorded.options["benches"] == ["calibration"]
    (section,) = recorded.sections
    card = json.loads((run_dir / "scorecard.json").read_text())["sections"][0]
    # every metric of every system, as scorecard.json has it, each over its 2 claims × 2 runs
    assert {(v.metric, v.system): v.value for v in section.values} == {
        (metric, system): value for metric, by in card["metrics"].items() for system, value in by.items()
    }
    assert {v.n for v in section.values} == {4} and section.systems == ["judge", "rag", "debate"]
    costs = {c.system: c for c in section.costs}
    assert costs["debate"].spent_usd == 0 and costs["debate"].metered_usd > costs["judge"].metered_usd > 0
    assert section.plots == ["calibration-calibration-curve.png"]
    png = store.get_benchmark_plot(recorded.benchmark_id, "calibration-calibration-curve.png")
    assert png == (run_dir / "calibration-calibration-curve.png").read_bytes()
    assert store.list_runs(LOCAL_TENANT, 10).runs == []  # its debates stay in the bench directory's store
    store.close()


def test_a_resumed_bench_records_again_under_the_same_id_and_no_record_records_nothing(
    tmp_path: Path, data_dir: Path
) -> None:
    args = ["calibration", "--limit", "1", "--runs", "1", "--out", str(tmp_path / "out"), "--no-plots"]
    run_dir, _ = run([*args, "--no-record"])
    assert (
        not (data_dir / "claimcourt.sqlite3").exists()
        or not SqliteStore(data_dir / "claimcourt.sqlite3").list_benchmarks()
    )
    run(["calibration", "--resume", str(run_dir)])
    run(["calibration", "--resume", str(run_dir)])
    store = SqliteStore(data_dir / "claimcourt.sqlite3")
    (recorded,) = store.list_benchmarks()
    assert recorded.directory == str(run_dir.resolve())
    assert recorded.sections[0].plots == ["calibration-calibration-curve.png"]  # --no-plots was not resumed
    store.close()
