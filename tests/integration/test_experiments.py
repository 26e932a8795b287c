"""`claimcourt experiments`: the stored experiment debates filtered, summarised per cell and exported
(CSV and JSONL parse back to the same rows), after a small offline grid."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from claimcourt.bench.experiments import Filters, load, select
from claimcourt.bench.suite import run_grid
from claimcourt.cli.commands import main
from claimcourt.settings import Settings
from claimcourt.store.sqlite import SqliteStore

pytestmark = pytest.mark.timeout(300)


def test_experiments_are_listed_filtered_summarised_and_exported(clean_env: None, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", provider="offline", web_search=False)
    cases = [
        ("Arctic sea ice extent has declined since 1979", {"verdict": "supported", "topic": "climate"}),
        ("Global mean sea level has risen since 1900", {"verdict": "refuted", "topic": "oceans"}),
    ]
    debates = run_grid(settings, cases, models=("offline:offline",) * 2, suite="t", lengths=(1, 2))
    assert len(debates) == 8
    store = SqliteStore(tmp_path / "data" / "claimcourt.sqlite3")
    rows = load(store, "local")
    store.close()
    assert {r.run_id for r in rows} == {d.run_id for d in debates}
    # every model of the debate is on record, by role
    assert all(r.models["case_for"] == "offline:offline" and "adjudicator" in r.models for r in rows)
    assert len(select(rows, Filters(topic="oceans"))) == 4
    assert len(select(rows, Filters(rounds=2, first="against"))) == 2
    assert len(select(rows, Filters(truth="refuted", topic="climate"))) == 0
    assert len(select(rows, Filters(model="offline:offline", role="adjudicator"))) == 8
    assert len(select(rows, Filters(model="anthropic:claude-sonnet-4-5"))) == 0
    some = rows[0].score
    assert some is not None
    assert {r.run_id for r in select(rows, Filters(min_score=some, max_score=some))} == {
        r.run_id for r in rows if r.score == some
    }
    data = ["--data-dir", str(tmp_path / "data")]
    result = CliRunner().invoke(
        main,
        [
            "experiments",
            "--topic",
            "climate",
            "--csv",
            str(tmp_path / "e.csv"),
            "--jsonl",
            str(tmp_path / "e.jsonl"),
            *data,
        ],
    )
    assert result.exit_code == 0, result.output
    assert "4 experiment debates" in result.output and "per cell" in result.output
    with (tmp_path / "e.csv").open(newline="") as f:
        table = list(csv.DictReader(f))
    lines = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert len(table) == len(lines) == 4
    assert {t["run_id"] for t in table} == {j["run_id"] for j in lines}
    assert all(
        t["topic"] == "climate" and json.loads(t["models"])["case_for"] == "offline:offline" for t in table
    )
    assert all(j["truth_verdict"] == "supported" and j["rounds"] in (1, 2) for j in lines)
    # nothing in a range that holds none
    empty = CliRunner().invoke(main, ["experiments", "--since", "2999-01-01", *data])
    assert empty.exit_code == 0 and "0 experiment debates" in empty.output
    bad = CliRunner().invoke(main, ["experiments", "--min-score", "60", "--max-score", "40", *data])
    assert bad.exit_code == 2 and "above --max-score" in bad.output

    # the plots of what is stored, filtered as the listing is
    plotted = CliRunner().invoke(
        main, ["experiments", "plot", "--topic", "climate", "--out", str(tmp_path / "p"), *data]
    )
    assert plotted.exit_code == 0, plotted.output
    assert "4 experiment debates" in plotted.output
    names = {Path(line).name for line in plotted.output.splitlines()[1:]}
    assert names == {"grid.png", "turns.png", "self_vs_judge.png", "verdict_violins.png"}
    assert all((tmp_path / "p" / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in names)
    nothing = CliRunner().invoke(
        main, ["experiments", "plot", "--topic", "astrology", "--out", str(tmp_path / "q"), *data]
    )
    assert nothing.exit_code == 2 and "nothing to plot" in nothing.output
    misplaced = CliRunner().invoke(main, ["experiments", "--topic", "climate", "plot", *data])
    assert misplaced.exit_code == 2 and "--topic: give them after `plot`" in misplaced.output
