"""Choosing what `claimcourt suite` runs: bundled claims and motions by id, the flags that choose them
refused when they clash or name nothing, and the randomised sweep's seeded draw."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from claimcourt.bench.suite import (
    GRID_ROUNDS,
    UnknownCases,
    bundled_claims,
    bundled_motions,
    draw_sweep,
    fact_checked,
    pick,
)
from claimcourt.cli.commands import main


def test_bundled_cases_have_ids_by_set_and_place_and_are_picked_in_the_order_named() -> None:
    claims, motions = bundled_claims(), bundled_motions()
    assert [c["id"] for c in claims[:2]] == ["climate-1", "climate-2"]
    assert claims[-1]["id"] == "health-50" and len({c["id"] for c in claims}) == len(claims) == 98
    assert motions[0]["id"] == "motion-1" and motions[-1]["id"] == "motion-37"
    got = pick(claims, ["health-3", "climate-7", "health-3"], "claim")
    assert [c["id"] for c in got] == ["health-3", "climate-7"]
    assert fact_checked(got[0])["case_id"] == "health-3"
    with pytest.raises(UnknownCases) as e:
        pick(claims, ["climate-49", "health-2", "tobacco-1"], "claim")
    assert e.value.missing == ["climate-49", "tobacco-1"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (
            ["--claim-ids", "climate-3,helth-2", "--claim-ids", "health-51"],
            "no bundled claim helth-2, health-51",
        ),
        (["--motion-ids", "motion-38"], "--motion-ids: no bundled motion motion-38"),
        (["--claims", "2", "--claim-ids", "climate-1"], "--claims and --claim-ids each choose the claims"),
        (["--claim-ids", "climate-1", "--topic", "health"], "--claim-ids and --topic each choose"),
        (["--motions", "1", "--motion-ids", "motion-1"], "--motions and --motion-ids each choose"),
        (["--grid", "--motion-ids", "motion-1"], "motions are debated by the 2x2 suite"),
        (["--count", "3", "--grid"], "use one"),
        (["--sweep-models", "offline:offline"], "give --count"),
        (["--models", "offline:a,offline:b", "--matchup", "offline:a,offline:b"], "use one"),
        (["--matchup", "offline:offline"], "--matchup: 'offline:offline' is not two provider:model"),
        (["--count", "2", "--sweep-models", "offline:a,nobody:b"], "--sweep-models: 'offline:a,nobody:b'"),
        (["--count", "0"], "0 is not in the range"),
    ],
)
def test_selection_flags_are_refused_at_the_boundary_naming_the_problem_and_nothing_is_stored(
    clean_env: None, tmp_path: Path, args: list[str], says: str
) -> None:
    result = CliRunner().invoke(main, ["suite", *args, "--data-dir", str(tmp_path / "data")])
    assert result.exit_code == 2, result.output
    assert says in result.output
    assert not (tmp_path / "data" / "claimcourt.sqlite3").exists()


def test_suite_list_prints_every_bundled_id(clean_env: None) -> None:
    result = CliRunner().invoke(main, ["suite", "--list"])
    assert result.exit_code == 0, result.output
    ids = [line.split()[0] for line in result.output.splitlines()]
    assert ids == [c["id"] for c in bundled_claims()] + [m["id"] for m in bundled_motions()]


CASES = [(c["claim"], fact_checked(c)) for c in bundled_claims()[:10]]
MODELS = ["anthropic:claude-sonnet-4-5", "openai:gpt-5", "offline:offline"]


def test_a_sweep_draw_is_the_seeds_the_same_seed_the_same_debates() -> None:
    first = draw_sweep(CASES, MODELS, 40, seed=7)
    assert first == draw_sweep(CASES, MODELS, 40, seed=7)
    assert first != draw_sweep(CASES, MODELS, 40, seed=8)
    assert len(first) == 40
    # two different declared models per debate; every factor actually varies over the draws
    assert all(
        d.for_model != d.against_model and {d.for_model, d.against_model} <= set(MODELS) for d in first
    )
    assert {d.first for d in first} == {"for", "against"}
    assert {d.rounds for d in first} == set(GRID_ROUNDS)
    assert len({d.text for d in first}) > 5
    assert len({(d.for_model, d.against_model) for d in first}) > 3


def test_a_sweep_of_one_model_debates_it_against_itself_and_an_empty_pool_is_refused() -> None:
    assert all(
        d.for_model == d.against_model == "offline:offline"
        for d in draw_sweep(CASES, ["offline:offline"], 5, 0)
    )
    with pytest.raises(ValueError, match="at least one claim and one model"):
        draw_sweep([], MODELS, 3, 0)
