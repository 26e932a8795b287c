"""SqliteStore: runs, status transitions, results and drift, claims, events, artifacts, cache, ledger."""

from __future__ import annotations

import time
from datetime import UTC, date, datetime, timedelta

import pytest

from claimcourt.errors import NotFoundError
from claimcourt.models import (
    Interval,
    Result,
    RunEvent,
    RunRecord,
    RunRequest,
    RunStatus,
    StructuralAnalysis,
    Usage,
    Verdict,
)
from claimcourt.reasoning.base import CallRecord
from claimcourt.store.base import claim_id_for
from claimcourt.store.sqlite import SqliteStore

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def _record(
    run_id: str, claim: str = "Sea levels are rising", created: datetime = T0, **request: object
) -> RunRecord:
    return RunRecord(
        run_id=run_id,
        claim_id=claim_id_for(claim),
        status=RunStatus.RUNNING,
        request=RunRequest.model_validate({"claim": claim, **request}),
        created_at=created,
    )


def _result(run_id: str, score: int = 72) -> Result:
    return Result(
        run_id=run_id,
        claim="Sea levels are rising",
        mode="spectral",
        overall_score=score,
        interval=Interval(low=score - 5, high=score + 5),
        overall_verdict=Verdict.SUPPORTED,
        interval_method="sub_claim_dispersion",
        rounds=2,
        sub_claims=[],
        what_would_change=[],
        structural_analysis=StructuralAnalysis(),
        sources=[],
        warnings=["capped"],
        reasoner="offline",
        usage=Usage(total_cost_usd=0.25, input_tokens=1000, output_tokens=234),
    )


# ================================================================ runs


def test_created_run_reads_back_unchanged(store: SqliteStore) -> None:
    record = _record("run_a", as_of_date="2020-02-02", context="ctx")
    store.create_run(record)
    assert store.get_run("run_a") == record


def test_unknown_run_is_not_found(store: SqliteStore) -> None:
    with pytest.raises(NotFoundError):
        store.get_run("run_missing")


def test_runs_are_listed_newest_first_up_to_the_limit(store: SqliteStore) -> None:
    for i, run_id in enumerate(["run_old", "run_new", "run_mid"]):
        store.create_run(_record(run_id, created=T0 + timedelta(minutes=[0, 10, 5][i])))
    assert [r.run_id for r in store.list_runs()] == ["run_new", "run_mid", "run_old"]
    assert [r.run_id for r in store.list_runs(limit=1)] == ["run_new"]


def test_set_status_moves_a_running_run_to_a_terminal_status(store: SqliteStore) -> None:
    store.create_run(_record("run_a"))
    assert store.set_status("run_a", RunStatus.STOPPED, error="unsuitable claim", warnings=["w1"]) is True
    run = store.get_run("run_a")
    assert (run.status, run.error, run.warnings) == (RunStatus.STOPPED, "unsuitable claim", ["w1"])
    assert run.finished_at is not None


def test_terminal_status_is_final(store: SqliteStore) -> None:
    store.create_run(_record("run_a"))
    store.set_status("run_a", RunStatus.FAILED, error="ProviderError: bad key")
    assert store.set_status("run_a", RunStatus.SUCCEEDED) is False
    assert store.set_status("run_a", RunStatus.FAILED, error="something else") is False
    run = store.get_run("run_a")
    assert (run.status, run.error) == (RunStatus.FAILED, "ProviderError: bad key")


def test_finish_run_stores_the_result_and_a_drift_point(store: SqliteStore) -> None:
    store.create_run(_record("run_a", as_of_date="2020-02-02"))
    store.finish_run("run_a", _result("run_a"))
    run = store.get_run("run_a")
    assert run.status is RunStatus.SUCCEEDED
    assert run.result == _result("run_a")
    assert (run.score, run.interval, run.verdict) == (72, Interval(low=67, high=77), Verdict.SUPPORTED)
    assert (run.cost_usd, run.tokens, run.warnings) == (0.25, 1234, ["capped"])
    assert run.finished_at is not None
    [point] = store.drift_series(run.claim_id)
    assert (point.run_id, point.score, point.as_of_date, point.verdict) == (
        "run_a",
        72,
        date(2020, 2, 2),
        Verdict.SUPPORTED,
    )


def test_finishing_twice_keeps_one_drift_point_and_the_first_finish_time(store: SqliteStore) -> None:
    store.create_run(_record("run_a"))
    store.finish_run("run_a", _result("run_a"))
    finished = store.get_run("run_a").finished_at
    store.finish_run("run_a", _result("run_a"))
    assert store.get_run("run_a").finished_at == finished
    assert len(store.drift_series(claim_id_for("Sea levels are rising"))) == 1


def test_drift_series_is_per_claim_in_time_order(store: SqliteStore) -> None:
    for run_id, score in [("run_1", 60), ("run_2", 70)]:
        store.create_run(_record(run_id))
        store.finish_run(run_id, _result(run_id, score))
    store.create_run(_record("run_other", claim="Glaciers are retreating"))
    store.finish_run("run_other", _result("run_other", 10))
    assert [p.score for p in store.drift_series(claim_id_for("Sea levels are rising"))] == [60, 70]


# ================================================================ claims


def test_claims_are_counted_once_per_distinct_claim_ignoring_case_and_spacing(store: SqliteStore) -> None:
    store.create_run(_record("run_1", "Sea levels are rising"))
    store.create_run(_record("run_2", "sea LEVELS are rising"))
    store.create_run(_record("run_3", "Sea levels  are   rising"))
    store.create_run(_record("run_4", "Glaciers are retreating", created=T0 + timedelta(hours=1)))
    claims = {c.text: c for c in store.list_claims()}
    assert set(claims) == {"Sea levels are rising", "Glaciers are retreating"}
    assert claims["Sea levels are rising"].run_count == 3
    assert claims["Glaciers are retreating"].run_count == 1
    assert store.list_claims()[0].text == "Glaciers are retreating"  # most recently seen first


# ================================================================ events


def _event(run_id: str, type: str = "stage.started", **data: object) -> RunEvent:
    return RunEvent(run_id=run_id, type=type, data=dict(data))


def test_events_get_increasing_seq_per_run_and_list_in_order(store: SqliteStore) -> None:
    stored = [store.append_event(_event("run_a", n=i), key=f"k{i}") for i in range(3)]
    store.append_event(_event("run_b"), key="k0")
    assert [e.seq for e in stored if e] == [1, 2, 3]
    assert [e.data["n"] for e in store.list_events("run_a")] == [0, 1, 2]
    assert [e.seq for e in store.list_events("run_b")] == [1]


def test_events_after_a_seq(store: SqliteStore) -> None:
    for i in range(4):
        store.append_event(_event("run_a", n=i), key=f"k{i}")
    assert [e.seq for e in store.list_events("run_a", after_seq=2)] == [3, 4]


def test_appending_the_same_key_twice_stores_one_event(store: SqliteStore) -> None:
    assert store.append_event(_event("run_a", n=1), key="argue:1:for:started") is not None
    assert store.append_event(_event("run_a", n=2), key="argue:1:for:started") is None
    [event] = store.list_events("run_a")
    assert event.data == {"n": 1}


# ================================================================ artifacts


def test_artifacts_round_trip_and_missing_ones_are_not_found(store: SqliteStore) -> None:
    store.put_artifact("run_a", "decomposition", {"sub_claims": [{"id": "sc1"}]})
    assert store.get_artifact("run_a", "decomposition") == {"sub_claims": [{"id": "sc1"}]}
    with pytest.raises(NotFoundError):
        store.get_artifact("run_a", "judgements")
    with pytest.raises(NotFoundError):
        store.get_artifact("run_b", "decomposition")


def test_put_artifact_replaces(store: SqliteStore) -> None:
    store.put_artifact("run_a", "k", {"v": 1})
    store.put_artifact("run_a", "k", {"v": 2})
    assert store.get_artifact("run_a", "k") == {"v": 2}


def test_find_artifacts_by_prefix_in_key_order_within_one_run(store: SqliteStore) -> None:
    for key in ["evidence/r02/sc1", "evidence/r01/sc2", "evidence/r01/sc1", "evidencex", "argument/r01/for"]:
        store.put_artifact("run_a", key, {"key": key})
    store.put_artifact("run_b", "evidence/r01/sc1", {"key": "other run"})
    found = store.find_artifacts("run_a", "evidence/")
    assert list(found) == ["evidence/r01/sc1", "evidence/r01/sc2", "evidence/r02/sc1"]
    assert found["evidence/r01/sc1"] == {"key": "evidence/r01/sc1"}
    assert store.find_artifacts("run_a", "decision/") == {}


# ================================================================ retrieval cache


def test_cache_returns_what_was_put_until_it_expires(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now)
    store.cache_put("golden|-|5|sea level", [{"text": "t", "url": "u"}], ttl_s=60)
    assert store.cache_get("golden|-|5|sea level") == [{"text": "t", "url": "u"}]
    monkeypatch.setattr(time, "time", lambda: now + 59)
    assert store.cache_get("golden|-|5|sea level") is not None
    monkeypatch.setattr(time, "time", lambda: now + 61)
    assert store.cache_get("golden|-|5|sea level") is None


def test_cache_miss_is_none(store: SqliteStore) -> None:
    assert store.cache_get("nothing") is None


def test_cache_put_refreshes_the_entry(store: SqliteStore) -> None:
    store.cache_put("k", [{"n": 1}], ttl_s=60)
    store.cache_put("k", [{"n": 2}], ttl_s=60)
    assert store.cache_get("k") == [{"n": 2}]


# ================================================================ usage ledger


def _call(run_id: str, key: str, cost: float, tokens: int = 10) -> CallRecord:
    return CallRecord(
        run_id, key, "scripted", "claude-sonnet-4-6", tokens, tokens, cost, True, '{"a":1}', None
    )


def test_ledger_sums_spend_per_run_and_lists_calls_by_key(store: SqliteStore) -> None:
    store.put_call(_call("run_a", "b", 0.25))
    store.put_call(_call("run_a", "a", 0.5))
    store.put_call(_call("run_b", "a", 9.0))
    assert store.run_spend("run_a") == pytest.approx(0.75)
    assert store.run_spend("run_none") == 0.0
    assert [c.call_key for c in store.run_calls("run_a")] == ["a", "b"]
    assert store.get_call("run_a", "a") == _call("run_a", "a", 0.5)
    assert store.get_call("run_a", "zzz") is None


def test_putting_the_same_call_key_replaces_it(store: SqliteStore) -> None:
    store.put_call(_call("run_a", "a", 0.5))
    store.put_call(_call("run_a", "a", 0.1))
    assert store.run_spend("run_a") == pytest.approx(0.1)
    assert len(store.run_calls("run_a")) == 1
