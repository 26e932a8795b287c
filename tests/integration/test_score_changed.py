"""claim.score_changed: a monitored claim's live score moving by a monitor's threshold is put on the
bus once; the first score, small moves, unmonitored claims and backtests are not."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from claimcourt.bus import FilePublisher
from claimcourt.models import MonitorRequest
from claimcourt.stages.score import announce_score_change
from claimcourt.watching.changes import SCORE_CHANGED
from claimcourt.watching.drift import create_monitor
from claimcourt.wiring import Deps
from tests.conftest import MakeDeps
from tests.contract.test_store_contract import T0, _record, _result

CLAIM = "Sea levels are rising"


class RecordingPublisher:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []

    def publish(self, detail_type: str, detail: dict[str, Any]) -> None:
        self.published.append((detail_type, detail))


@pytest.fixture
def deps(make_deps: MakeDeps) -> Deps:
    return dataclasses.replace(make_deps(), publisher=RecordingPublisher())


def _scored(deps: Deps, run_id: str, score: int, minutes: int, **request: Any) -> None:
    deps.store.create_run(
        _record(run_id, CLAIM, created=T0 + timedelta(minutes=minutes), tenant="acme", **request)
    )
    deps.store.finish_run(run_id, _result(run_id, score))


def _published(deps: Deps) -> list[tuple[str, dict[str, Any]]]:
    assert isinstance(deps.publisher, RecordingPublisher)
    return deps.publisher.published


def _watch(deps: Deps, threshold: int) -> str:
    return create_monitor(
        deps.store, "acme", MonitorRequest(claim=CLAIM, cadence="daily", threshold=threshold)
    ).monitor_id


def test_a_move_past_the_threshold_is_published_once(deps: Deps) -> None:
    close, far = _watch(deps, 10), _watch(deps, 30)
    _scored(deps, "run_1", 40, 0)
    announce_score_change(deps, "run_1")
    assert _published(deps) == []  # the first score is the baseline
    _scored(deps, "run_2", 55, 1)
    announce_score_change(deps, "run_2")
    announce_score_change(deps, "run_2")  # a retried score stage
    [(kind, detail)] = _published(deps)
    assert kind == SCORE_CHANGED
    assert (detail["old"]["score"], detail["new"]["score"], detail["change"]) == (40, 55, 15)
    assert (detail["run_id"], detail["old"]["run_id"], detail["monitor_ids"]) == ("run_2", "run_1", [close])
    assert far not in detail["monitor_ids"]
    marked = [e for e in deps.store.list_events("run_2") if e.type == SCORE_CHANGED]
    assert len(marked) == 1 and marked[0].data == detail


def test_small_moves_unmonitored_claims_and_backtests_publish_nothing(deps: Deps) -> None:
    _scored(deps, "run_1", 40, 0)
    _scored(deps, "run_2", 70, 1)
    announce_score_change(deps, "run_2")  # nobody watches this claim
    _watch(deps, 10)
    _scored(deps, "run_3", 75, 2)  # 5 points from run_2
    _scored(deps, "run_4", 10, 3, as_of_date="2015-01-01")  # a backtest: what it was, not a move
    for run_id in ("run_3", "run_4"):
        announce_score_change(deps, run_id)
    assert _published(deps) == []


def test_a_deleted_run_is_no_baseline_the_change_is_from_the_last_run_kept(deps: Deps) -> None:
    _watch(deps, 10)
    _scored(deps, "run_1", 40, 0)
    _scored(deps, "run_2", 70, 1)
    deps.store.delete_run("run_2")
    _scored(deps, "run_3", 72, 2)  # 2 points from the deleted run, 32 from the last one kept
    announce_score_change(deps, "run_3")
    [(_, detail)] = _published(deps)
    assert (detail["old"]["run_id"], detail["change"]) == ("run_1", 32)


def test_on_the_laptop_the_bus_is_a_file_of_eventbridge_shaped_lines(tmp_path: Path) -> None:
    bus = FilePublisher(tmp_path / "events.jsonl")
    bus.publish(SCORE_CHANGED, {"run_id": "run_1"})
    bus.publish(SCORE_CHANGED, {"run_id": "run_2"})
    lines = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert lines == [
        {"source": "claimcourt", "detail-type": SCORE_CHANGED, "detail": {"run_id": f"run_{i}"}}
        for i in (1, 2)
    ]
