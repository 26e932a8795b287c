"""The CLIMATE-FEVER limits analysis: its oracle aggregates sentence labels as the data set does, and a
small run through the real pipeline gives figures of the right shape (a perfect reading of the pools can
only be right where the engine's pools hold the evidence; it is never worse than the gold label itself)."""

from __future__ import annotations

import pytest

from claimcourt.bench.climate_fever import load_claims, select
from claimcourt.bench.climate_limits import aggregate, main, measure

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]


@pytest.mark.parametrize(
    ("labels", "claim_label"),
    [
        ([], "NOT_ENOUGH_INFO"),
        (["NOT_ENOUGH_INFO", "NOT_ENOUGH_INFO"], "NOT_ENOUGH_INFO"),
        (["SUPPORTS", "NOT_ENOUGH_INFO"], "SUPPORTS"),
        (["REFUTES"], "REFUTES"),
        (["REFUTES", "SUPPORTS", "NOT_ENOUGH_INFO"], "DISPUTED"),
    ],
)
def test_the_oracle_aggregates_sentence_labels_as_climate_fever_does(
    labels: list[str], claim_label: str
) -> None:
    assert aggregate(labels) == claim_label


def test_a_small_sample_gives_every_reading(capsys: pytest.CaptureFixture[str]) -> None:
    claims = select(load_claims(), "tune", 8, 0)
    found = measure(claims)
    assert found["n"] == 8
    for key in ("engine", "perfect_reading", "perfect_retrieval"):
        assert set(found[key]) == {"accuracy", "macro_f1", "balanced_accuracy", "supported_precision"}
        assert all(0 <= v <= 1 for v in found[key].values())
    for share, total in found["pool_holds"].values():
        assert 0 <= share <= 1 and total <= 8
    main(["--split", "tune", "--limit", "4"])
    out = capsys.readouterr().out
    assert "perfect reading of the engine's pools" in out and "perfect retrieval" in out
