"""The Store contract: one suite, run against SqliteStore and against DynamoStore (moto, with the
tables and bucket made from template.yaml, and every Scan refused)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from claimcourt.benchmarks import BenchmarkCost, BenchmarkRecord, BenchmarkSection, BenchmarkValue
from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError, RateLimitedError
from claimcourt.models import (
    LOCAL_TENANT,
    ApiKeyRecord,
    CallRecord,
    ConnectionRecord,
    Direction,
    Interval,
    Lease,
    Monitor,
    MonitorRequest,
    Result,
    RunEvent,
    RunRecord,
    RunRequest,
    RunStatus,
    ScoreMover,
    SourceTag,
    Stage,
    StopReason,
    StructuralAnalysis,
    Usage,
    Verdict,
)
from claimcourt.store import dynamodb
from claimcourt.store.base import CONCURRENCY_RETRY_AFTER_S, Store, claim_id_for
from claimcourt.store.dynamodb import INLINE_LIMIT, DynamoStore
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import build_store
from tests.contract.aws_resources import (
    RESOURCE_SETTINGS,
    create_from_template,
    data_resources,
    dynamo_store,
    dynamodb_settings,
    template,
)

T0 = datetime(2025, 1, 1, tzinfo=UTC)
LOCAL = LOCAL_TENANT
ITEM_LIMIT = 400 * 1024  # DynamoDB's item size limit
BIG = "x" * (INLINE_LIMIT + 50_000)  # a document over the inline threshold


@pytest.fixture
def aws(clean_env: None) -> Iterator[None]:
    with mock_aws():
        yield


@pytest.fixture
def dynamo(aws: None) -> DynamoStore:
    settings = dynamodb_settings()
    create_from_template(settings)
    return dynamo_store(settings)


@pytest.fixture(params=["sqlite", "dynamodb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        sqlite = SqliteStore(tmp_path / "claimcourt.sqlite3")
        yield sqlite
        sqlite.close()
    else:
        yield request.getfixturevalue("dynamo")


def _record(
    run_id: str,
    claim: str = "Sea levels are rising",
    created: datetime = T0,
    tenant: str = LOCAL,
    source: SourceTag = SourceTag.APP,
    **request: object,
) -> RunRecord:
    return RunRecord(
        run_id=run_id,
        claim_id=claim_id_for(claim),
        status=RunStatus.RUNNING,
        request=RunRequest.model_validate({"claim": claim, **request}),
        created_at=created,
        tenant_id=tenant,
        source_tag=source,
    )


def _listed(store: Store, limit: int = 20, tenant: str = LOCAL, **kwargs: Any) -> list[RunRecord]:
    return store.list_runs(tenant, limit, **kwargs).runs


def _result(run_id: str, score: int = 72, **changes: Any) -> Result:
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
    ).model_copy(update=changes)


# ================================================================ runs


def test_created_run_reads_back_unchanged(store: Store) -> None:
    record = _record("run_a", as_of_date="2020-02-02", context="ctx")
    store.create_run(record)
    assert store.get_run("run_a") == record


def test_unknown_run_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.get_run("run_missing")


def test_runs_are_listed_newest_first_up_to_the_limit(store: Store) -> None:
    for i, run_id in enumerate(["run_old", "run_new", "run_mid"]):
        store.create_run(_record(run_id, created=T0 + timedelta(minutes=[0, 10, 5][i])))
    assert [r.run_id for r in _listed(store)] == ["run_new", "run_mid", "run_old"]
    assert [r.run_id for r in _listed(store, limit=1)] == ["run_new"]


def test_runs_created_at_the_same_instant_are_listed_by_run_id_descending(store: Store) -> None:
    for run_id in ["run_b", "run_c", "run_a"]:
        store.create_run(_record(run_id))
    assert [r.run_id for r in _listed(store)] == ["run_c", "run_b", "run_a"]


def test_listing_more_runs_than_one_batch_read_takes(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dynamodb, "BATCH_KEYS", 2)  # BatchGetItem reads 100 keys at a time; here 2
    for i in range(7):
        store.create_run(_record(f"run_{i}", created=T0 + timedelta(seconds=i)))
    assert [r.run_id for r in _listed(store, limit=5)] == ["run_6", "run_5", "run_4", "run_3", "run_2"]


def test_listed_runs_show_their_latest_status(store: Store) -> None:
    store.create_run(_record("run_a"))
    store.set_status("run_a", RunStatus.FAILED, error="boom")
    [listed] = _listed(store)
    assert (listed.status, listed.error) == (RunStatus.FAILED, "boom")


def test_set_status_moves_a_running_run_to_a_terminal_status(store: Store) -> None:
    store.create_run(_record("run_a"))
    assert store.set_status("run_a", RunStatus.STOPPED, error="unsuitable claim", warnings=["w1"]) is True
    run = store.get_run("run_a")
    assert (run.status, run.error, run.warnings) == (RunStatus.STOPPED, "unsuitable claim", ["w1"])
    assert run.finished_at is not None


def test_set_status_records_spend(store: Store) -> None:
    store.create_run(_record("run_a"))
    store.set_status("run_a", RunStatus.FAILED, error="e", cost_usd=0.125, tokens=321)
    run = store.get_run("run_a")
    assert (run.cost_usd, run.tokens) == (0.125, 321)


def test_set_status_says_why_a_run_stopped_and_refuses_a_field_it_does_not_know(store: Store) -> None:
    store.create_run(_record("run_a"))
    with pytest.raises(TypeError, match="unexpected fields: refusal"):
        store.set_status("run_a", RunStatus.STOPPED, refusal="no")  # type: ignore[call-arg]
    assert store.get_run("run_a").status is RunStatus.RUNNING
    store.set_status(
        "run_a", RunStatus.STOPPED, stop_reason=StopReason.ADD_DOCUMENTS, verdict=Verdict.NOT_ENOUGH_EVIDENCE
    )
    run = store.get_run("run_a")
    assert (run.status, run.stop_reason, run.verdict, run.error) == (
        RunStatus.STOPPED,
        StopReason.ADD_DOCUMENTS,
        Verdict.NOT_ENOUGH_EVIDENCE,
        None,
    )


def test_terminal_status_is_final(store: Store) -> None:
    store.create_run(_record("run_a"))
    store.set_status("run_a", RunStatus.FAILED, error="ProviderError: bad key")
    assert store.set_status("run_a", RunStatus.SUCCEEDED) is False
    assert store.set_status("run_a", RunStatus.FAILED, error="something else") is False
    assert store.finish_run("run_a", _result("run_a")) is False
    run = store.get_run("run_a")
    assert (run.status, run.error, run.result) == (RunStatus.FAILED, "ProviderError: bad key", None)
    assert store.drift_series(LOCAL, run.claim_id) == []


def test_finish_run_stores_the_result_and_a_drift_point(store: Store) -> None:
    store.create_run(_record("run_a", as_of_date="2020-02-02"))
    assert store.finish_run("run_a", _result("run_a")) is True
    run = store.get_run("run_a")
    assert run.status is RunStatus.SUCCEEDED
    assert run.result == _result("run_a")
    assert (run.score, run.interval, run.verdict) == (72, Interval(low=67, high=77), Verdict.SUPPORTED)
    assert (run.cost_usd, run.tokens, run.warnings) == (0.25, 1234, ["capped"])
    assert run.finished_at is not None
    [point] = store.drift_series(LOCAL, run.claim_id)
    assert (point.run_id, point.score, point.as_of_date, point.verdict) == (
        "run_a",
        72,
        date(2020, 2, 2),
        Verdict.SUPPORTED,
    )


def test_finishing_twice_keeps_one_drift_point_and_the_first_finish_time(store: Store) -> None:
    store.create_run(_record("run_a"))
    assert store.finish_run("run_a", _result("run_a")) is True
    finished = store.get_run("run_a").finished_at
    assert store.finish_run("run_a", _result("run_a", score=10)) is False
    assert store.get_run("run_a").finished_at == finished
    assert store.get_run("run_a").score == 72
    assert len(store.drift_series(LOCAL, claim_id_for("Sea levels are rising"))) == 1


def test_a_result_too_big_for_one_item_round_trips(store: Store) -> None:
    store.create_run(_record("run_a"))
    big = _result(
        "run_a", what_would_change=[ScoreMover(direction=Direction.TOWARD_100, what=BIG, sub_claim="sc1")]
    )
    assert store.finish_run("run_a", big) is True
    assert store.get_run("run_a").result == big
    assert [r.result for r in _listed(store)] == [big]
    assert store.set_status("run_a", RunStatus.FAILED) is False


def test_drift_series_is_per_claim_in_time_order(store: Store) -> None:
    for run_id, score in [("run_1", 60), ("run_2", 70), ("run_3", 65)]:
        store.create_run(_record(run_id))
        store.finish_run(run_id, _result(run_id, score))
    store.create_run(_record("run_other", claim="Glaciers are retreating"))
    store.finish_run("run_other", _result("run_other", 10))
    series = store.drift_series(LOCAL, claim_id_for("Sea levels are rising"))
    assert [p.score for p in series] == [60, 70, 65]
    assert [p.at for p in series] == sorted(p.at for p in series)
    assert store.drift_series(LOCAL, "c_unknown") == []


def test_pages_follow_on_from_the_cursor_without_gaps_or_repeats(store: Store) -> None:
    for i in range(7):
        store.create_run(_record(f"run_{i}", created=T0 + timedelta(seconds=i // 2)))  # ties on time too
    seen: list[str] = []
    cursor = None
    while True:
        page = store.list_runs(LOCAL, 3, cursor=cursor)
        seen += [r.run_id for r in page.runs]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == [r.run_id for r in _listed(store, limit=100)]
    assert sorted(seen) == [f"run_{i}" for i in range(7)]
    assert store.list_runs(LOCAL, 7).next_cursor is None  # exactly one page: no empty page after it


def test_a_cursor_not_made_by_the_store_is_a_bad_request(store: Store) -> None:
    with pytest.raises(InvalidRequestError, match="cursor"):
        store.list_runs(LOCAL, cursor="not-a-cursor")


def test_runs_are_listed_by_source_tag(store: Store) -> None:
    store.create_run(_record("run_app", source=SourceTag.APP))
    store.create_run(_record("run_bench", created=T0 + timedelta(seconds=1), source=SourceTag.BENCH))
    store.create_run(_record("run_drift", created=T0 + timedelta(seconds=2), source=SourceTag.DRIFT))
    assert [r.run_id for r in _listed(store, source=SourceTag.BENCH)] == ["run_bench"]
    assert [r.run_id for r in _listed(store, source=SourceTag.MONITOR)] == []
    assert len(_listed(store)) == 3


def test_a_tenant_lists_only_its_own_runs_claims_and_drift(store: Store) -> None:
    store.create_run(_record("run_mine", tenant="acme"))
    store.create_run(_record("run_theirs", tenant="globex"))
    store.finish_run("run_theirs", _result("run_theirs"))
    assert [r.run_id for r in _listed(store, tenant="acme")] == ["run_mine"]
    assert [r.run_id for r in _listed(store, tenant="globex")] == ["run_theirs"]
    assert [c.run_count for c in store.list_claims("acme")] == [
        1
    ]  # not 2: the same claim, counted per tenant
    claim_id = claim_id_for("Sea levels are rising")
    assert store.drift_series("acme", claim_id) == []
    assert [p.run_id for p in store.drift_series("globex", claim_id)] == ["run_theirs"]
    assert _listed(store) == []  # the CLI's own tenant has none of them


def test_a_tenants_claim_is_found_by_id_while_it_has_runs(store: Store) -> None:
    store.create_run(_record("run_mine", tenant="acme"))
    claim_id = claim_id_for("Sea levels are rising")
    found = store.get_claim("acme", claim_id)
    assert (found.claim_id, found.text, found.run_count) == (claim_id, "Sea levels are rising", 1)
    for tenant, unknown in (("globex", claim_id), ("acme", "c_unknown")):
        with pytest.raises(NotFoundError):
            store.get_claim(tenant, unknown)
    store.set_status("run_mine", RunStatus.FAILED, error="e")
    store.delete_run("run_mine")
    with pytest.raises(NotFoundError):  # no runs of it left: no longer the tenant's, as in list_claims
        store.get_claim("acme", claim_id)


def test_a_deleted_run_is_kept_but_no_longer_listed(store: Store) -> None:
    store.create_run(_record("run_a"))
    store.create_run(_record("run_b", created=T0 + timedelta(seconds=1)))
    store.set_status("run_a", RunStatus.FAILED, error="e")
    assert store.delete_run("run_a") is True
    assert store.delete_run("run_a") is False  # once
    assert [r.run_id for r in _listed(store)] == ["run_b"]
    kept = store.get_run("run_a")
    assert kept.deleted_at is not None and kept.error == "e"
    with pytest.raises(NotFoundError):
        store.delete_run("run_missing")


def test_a_deleted_run_stays_unlisted_when_it_finishes(store: Store) -> None:
    store.create_run(_record("run_a"))
    store.delete_run("run_a")
    assert store.finish_run("run_a", _result("run_a")) is True
    assert _listed(store) == [] and store.get_run("run_a").status is RunStatus.SUCCEEDED
    assert store.drift_series(LOCAL, claim_id_for("Sea levels are rising")) == []  # nor a point
    assert store.list_claims(LOCAL) == []


def test_a_deleted_run_no_longer_counts_in_its_claim_nor_its_drift_series(store: Store) -> None:
    claim_id = claim_id_for("Sea levels are rising")
    for i, run_id in enumerate(["run_1", "run_2"]):
        store.create_run(_record(run_id, created=T0 + timedelta(minutes=i)))
        store.finish_run(run_id, _result(run_id, 60 + i))
    store.create_run(_record("run_other", "Glaciers are retreating", created=T0 + timedelta(hours=1)))
    assert store.delete_run("run_2") is True
    assert store.delete_run("run_2") is False  # counted out once
    claims = {c.text: c.run_count for c in store.list_claims(LOCAL)}
    assert claims == {"Sea levels are rising": 1, "Glaciers are retreating": 1}
    assert [p.run_id for p in store.drift_series(LOCAL, claim_id)] == ["run_1"]
    # A claim whose runs are all deleted is no longer listed, until a new run of it
    store.delete_run("run_1")
    assert [c.text for c in store.list_claims(LOCAL)] == ["Glaciers are retreating"]
    assert store.drift_series(LOCAL, claim_id) == []
    store.create_run(_record("run_3", created=T0 + timedelta(days=1)))
    assert {c.text: c.run_count for c in store.list_claims(LOCAL)}["Sea levels are rising"] == 1


# ================================================================ API keys


def _key(key_id: str, tenant: str = "acme", at: datetime = T0) -> ApiKeyRecord:
    return ApiKeyRecord(key_id=key_id, tenant_id=tenant, secret_sha256="ab" * 32, label="ci", created_at=at)


def test_api_keys_are_stored_listed_and_revoked_once(store: Store) -> None:
    store.put_api_key(_key("k2", "globex"))
    store.put_api_key(_key("k1", "acme"))
    assert store.get_api_key("k1") == _key("k1", "acme")
    assert [k.key_id for k in store.list_api_keys()] == ["k1", "k2"]  # by tenant
    assert store.revoke_api_key("k1") is True
    assert store.revoke_api_key("k1") is False
    assert store.revoke_api_key("k_missing") is False
    assert store.get_api_key("k1").revoked_at is not None
    with pytest.raises(NotFoundError):
        store.get_api_key("k_missing")


def test_an_api_key_id_is_never_reused(store: Store) -> None:
    store.put_api_key(_key("k1"))
    with pytest.raises(Exception):  # noqa: B017 - each backend raises its own conflict error
        store.put_api_key(_key("k1", "globex"))
    assert store.get_api_key("k1").tenant_id == "acme"


# ================================================================ the cost guard


def _lease(run_id: str, tenant: str = "acme", at: datetime = T0) -> Lease:
    return Lease(run_id=run_id, tenant_id=tenant, since=at)


def test_admission_stops_at_the_concurrency_cap_until_a_lease_is_released(store: Store) -> None:
    for i in range(3):
        store.admit(_lease(f"run_{i}", tenant=f"t{i}"), max_active=3, hourly_limit=20)
    with pytest.raises(RateLimitedError) as refused:
        store.admit(_lease("run_3"), max_active=3, hourly_limit=20)
    assert (refused.value.limit, refused.value.retry_after_s) == ("concurrency", CONCURRENCY_RETRY_AFTER_S)
    assert store.release("run_1") is True
    assert store.release("run_1") is False  # released once, however often a run's end is retried
    store.admit(_lease("run_3"), max_active=3, hourly_limit=20)
    assert [lease.run_id for lease in store.leases()] == ["run_0", "run_2", "run_3"]


def test_admission_stops_at_the_hourly_cap_until_the_next_hour(store: Store) -> None:
    at = T0 + timedelta(minutes=59, seconds=30)
    for i in range(2):
        store.admit(_lease(f"run_{i}", at=at), max_active=10, hourly_limit=2)
        store.release(f"run_{i}")  # finished: the hourly cap counts starts, not running debates
    with pytest.raises(RateLimitedError) as refused:
        store.admit(_lease("run_2", at=at), max_active=10, hourly_limit=2)
    assert (refused.value.limit, refused.value.retry_after_s) == ("hourly", 30)
    store.admit(_lease("run_3", tenant="globex", at=at), max_active=10, hourly_limit=2)  # per caller
    store.admit(_lease("run_4", at=at + timedelta(seconds=30)), max_active=10, hourly_limit=2)  # next hour
    assert [lease.run_id for lease in store.leases()] == ["run_3", "run_4"]


def test_a_run_that_spends_nothing_is_neither_counted_nor_refused_by_the_hourly_cap(store: Store) -> None:
    store.admit(_lease("run_0"), max_active=5, hourly_limit=1)
    free = _lease("run_1").model_copy(update={"spends": False})  # the offline reasoner, no paid search
    store.admit(free, max_active=5, hourly_limit=1)
    assert store.release("run_1", refund=True) is True  # it took nothing, so it gives nothing back
    with pytest.raises(RateLimitedError) as refused:
        store.admit(_lease("run_2"), max_active=5, hourly_limit=1)
    assert refused.value.limit == "hourly"
    with pytest.raises(RateLimitedError) as full:  # the concurrency cap still holds it
        store.admit(_lease("run_3").model_copy(update={"spends": False}), max_active=1, hourly_limit=1)
    assert full.value.limit == "concurrency"


@pytest.mark.parametrize(
    ("tenant", "who"),
    [
        ("acme", "tenant acme has started 1 paid run"),
        (LOCAL, "the CLI (tenant local) has started 1 paid run"),
    ],
)
def test_the_hourly_refusal_names_its_setting_and_when_the_hour_resets(
    store: Store, tenant: str, who: str
) -> None:
    at = T0 + timedelta(hours=13, minutes=20)
    store.admit(_lease("run_0", tenant=tenant, at=at), max_active=5, hourly_limit=1)
    with pytest.raises(RateLimitedError) as refused:
        store.admit(_lease("run_1", tenant=tenant, at=at), max_active=5, hourly_limit=1)
    message = refused.value.message
    assert message.startswith(who), message
    assert "CLAIMCOURT_HOURLY_RUNS_PER_TENANT" in message and "resets at 14:00 UTC" in message
    assert "API key" not in message and refused.value.retry_after_s == 40 * 60


def test_a_refused_admission_takes_nothing(store: Store) -> None:
    store.admit(_lease("run_0"), max_active=1, hourly_limit=1)
    with pytest.raises(RateLimitedError):
        store.admit(_lease("run_1", tenant="globex"), max_active=1, hourly_limit=1)
    store.release("run_0")
    store.admit(_lease("run_1", tenant="globex"), max_active=1, hourly_limit=1)  # its hour was not charged


def test_a_lease_given_back_unspent_returns_its_hourly_count_once(store: Store) -> None:
    store.admit(_lease("run_0"), max_active=5, hourly_limit=1)
    assert store.release("run_0", refund=True) is True  # its run never started: the hour is given back
    assert store.release("run_0", refund=True) is False  # and only once
    store.admit(_lease("run_1"), max_active=5, hourly_limit=1)
    with pytest.raises(RateLimitedError):  # the repeated refund gave nothing more back
        store.admit(_lease("run_2"), max_active=5, hourly_limit=1)
    assert store.release("run_1") is True  # an ordinary end keeps the hour spent
    with pytest.raises(RateLimitedError):
        store.admit(_lease("run_2"), max_active=5, hourly_limit=1)
    assert store.leases() == []


def test_a_refund_after_the_hours_count_has_gone_still_releases_the_lease(store: Store) -> None:
    store.admit(_lease("run_0", at=T0), max_active=5, hourly_limit=1)
    store.admit(_lease("run_1", at=T0 + timedelta(days=2)), max_active=5, hourly_limit=1)  # prunes T0's day
    assert store.release("run_0", refund=True) is True
    assert [lease.run_id for lease in store.leases()] == ["run_1"]
    with pytest.raises(RateLimitedError):  # nothing was given back to the later hour
        store.admit(_lease("run_2", at=T0 + timedelta(days=2)), max_active=5, hourly_limit=1)


def test_a_dynamodb_refund_whose_hourly_counter_expired_creates_no_counter(dynamo: DynamoStore) -> None:
    dynamo.admit(_lease("run_0"), max_active=5, hourly_limit=1)
    counter = {"pk": {"S": "HOURLY#acme#2025010100"}}
    dynamo.client.delete_item(TableName=dynamo.limits_table, Key=counter)  # as its TTL would
    assert dynamo.release("run_0", refund=True) is True
    assert dynamo.leases() == []
    assert "Item" not in dynamo.client.get_item(TableName=dynamo.limits_table, Key=counter)


def test_admitting_a_run_twice_holds_one_lease(store: Store) -> None:
    store.admit(_lease("run_0"), max_active=2, hourly_limit=5)
    store.admit(_lease("run_0"), max_active=2, hourly_limit=5)
    store.admit(_lease("run_1"), max_active=2, hourly_limit=5)
    assert len(store.leases()) == 2


def test_concurrent_admissions_never_exceed_the_cap(store: Store) -> None:
    admitted: list[str] = []
    refused: list[str] = []
    start = threading.Barrier(20)

    def try_admit(i: int) -> None:
        start.wait()
        try:
            store.admit(_lease(f"run_{i:02d}", tenant=f"t{i}"), max_active=3, hourly_limit=20)
            admitted.append(f"run_{i:02d}")
        except RateLimitedError:
            refused.append(f"run_{i:02d}")

    threads = [threading.Thread(target=try_admit, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (len(admitted), len(refused)) == (3, 17)
    assert sorted(lease.run_id for lease in store.leases()) == sorted(admitted)


# ================================================================ WebSocket connections


def _connection(connection_id: str, tenant: str = "acme", hours: float = 2) -> ConnectionRecord:
    now = datetime.now(UTC)
    return ConnectionRecord(
        connection_id=connection_id, tenant_id=tenant, key_id="k1", expires_at=now + timedelta(hours=hours)
    )


def test_a_connection_is_kept_until_it_is_dropped_or_expires(store: Store) -> None:
    store.put_connection(_connection("c1"))
    store.put_connection(_connection("old", hours=-1))  # past its TTL, not yet deleted by it
    assert store.get_connection("c1").tenant_id == "acme"
    with pytest.raises(NotFoundError):
        store.get_connection("old")
    store.drop_connection("c1")
    store.drop_connection("c1")  # a second $disconnect changes nothing
    with pytest.raises(NotFoundError):
        store.get_connection("c1")


def test_subscriptions_follow_runs_until_unsubscribed_or_the_connection_is_dropped(store: Store) -> None:
    until = datetime.now(UTC) + timedelta(hours=2)
    for connection_id in ("c1", "c2"):
        store.put_connection(_connection(connection_id))
    store.subscribe("c1", "run_a", until)
    store.subscribe("c1", "run_b", until)
    store.subscribe("c2", "run_a", until)
    store.subscribe("c3", "run_a", datetime.now(UTC) - timedelta(seconds=1))  # expired
    assert store.subscribers("run_a") == ["c1", "c2"]
    store.unsubscribe("c2", "run_a")
    assert store.subscribers("run_a") == ["c1"]
    store.drop_connection("c1")
    assert (store.subscribers("run_a"), store.subscribers("run_b")) == ([], [])


def test_one_deliverer_at_a_time_and_what_it_posted_is_remembered(store: Store) -> None:
    now = datetime.now(UTC)
    soon, gone = now + timedelta(seconds=30), now - timedelta(seconds=1)
    store.subscribe("c1", "run_a", now + timedelta(hours=2))
    assert store.claim_delivery("c1", "run_a", until=soon, token="t1") == 0
    assert store.claim_delivery("c1", "run_a", until=soon, token="t2") is None  # held by t1
    assert store.end_delivery("c1", "run_a", sent_seq=7, token="t1") is True
    store.subscribe("c1", "run_a", now + timedelta(hours=2))  # subscribing again keeps what was posted
    assert store.claim_delivery("c1", "run_a", until=gone, token="t3") == 7
    # t3's claim has lapsed (a deliverer that died or stalled): t4 takes over, and t3 records nothing
    assert store.claim_delivery("c1", "run_a", until=soon, token="t4") == 7
    assert store.end_delivery("c1", "run_a", sent_seq=3, token="t3") is False
    assert store.end_delivery("c1", "run_a", sent_seq=9, token="t4") is True
    assert store.claim_delivery("c1", "run_a", until=soon, token="t5") == 9
    assert store.claim_delivery("c9", "run_a", until=soon, token="t6") is None  # not subscribed
    store.unsubscribe("c1", "run_a")
    assert store.end_delivery("c1", "run_a", sent_seq=11, token="t5") is False  # unsubscribed meanwhile
    assert store.subscribers("run_a") == []


# ================================================================ claims


def test_claims_are_counted_once_per_distinct_claim_ignoring_case_and_spacing(store: Store) -> None:
    store.create_run(_record("run_1", "Sea levels are rising"))
    store.create_run(_record("run_2", "sea LEVELS are rising"))
    store.create_run(_record("run_3", "Sea levels  are   rising"))
    store.create_run(_record("run_4", "Glaciers are retreating", created=T0 + timedelta(hours=1)))
    claims = {c.text: c for c in store.list_claims(LOCAL)}
    assert set(claims) == {"Sea levels are rising", "Glaciers are retreating"}
    assert claims["Sea levels are rising"].run_count == 3
    assert claims["Glaciers are retreating"].run_count == 1
    assert store.list_claims(LOCAL)[0].text == "Glaciers are retreating"  # most recently seen first


def test_a_claim_keeps_its_first_sighting_and_moves_its_last(store: Store) -> None:
    store.create_run(_record("run_1", created=T0))
    store.create_run(_record("run_2", created=T0 + timedelta(days=1)))
    store.create_run(_record("run_3", "Glaciers are retreating", created=T0 + timedelta(hours=1)))
    first = store.list_claims(LOCAL)[0]
    assert (first.text, first.first_seen, first.last_seen) == (
        "Sea levels are rising",
        T0,
        T0 + timedelta(days=1),
    )
    assert [c.text for c in store.list_claims(LOCAL, limit=1)] == ["Sea levels are rising"]


# ================================================================ events


def _event(run_id: str, type: str = "stage.started", **data: object) -> RunEvent:
    return RunEvent(run_id=run_id, type=type, data=dict(data))


def test_events_get_increasing_seq_per_run_and_list_in_order(store: Store) -> None:
    stored = [store.append_event(_event("run_a", n=i), key=f"k{i}") for i in range(3)]
    store.append_event(_event("run_b"), key="k0")
    assert [e.seq for e in stored if e] == [1, 2, 3]
    assert [e.data["n"] for e in store.list_events("run_a")] == [0, 1, 2]
    assert [e.seq for e in store.list_events("run_a")] == [1, 2, 3]
    assert [e.seq for e in store.list_events("run_b")] == [1]
    assert store.list_events("run_none") == []


def test_an_event_reads_back_as_appended_with_its_seq(store: Store) -> None:
    event = RunEvent(
        run_id="run_a",
        type="stage.completed",
        stage=Stage.ARGUE,
        round=2,
        side="for",
        data={
            "x": 0.1 + 0.2,
            "tiny": 1e-7,
            "big": 12345678901234567890,
            "text": 'é "q" \\ \u2028',
            "seq": 99,
        },
    )
    store.append_event(_event("run_a"), key="first")
    stored = store.append_event(event, key="second")
    assert stored == event.model_copy(update={"seq": 2})
    assert store.list_events("run_a")[1] == stored


def test_events_after_a_seq(store: Store) -> None:
    for i in range(4):
        store.append_event(_event("run_a", n=i), key=f"k{i}")
    assert [e.seq for e in store.list_events("run_a", after_seq=2)] == [3, 4]
    assert store.list_events("run_a", after_seq=4) == []


def test_appending_the_same_key_twice_stores_one_event_and_leaves_no_gap(store: Store) -> None:
    assert store.append_event(_event("run_a", n=1), key="argue:1:for:started") is not None
    assert store.append_event(_event("run_a", n=2), key="argue:1:for:started") is None
    [event] = store.list_events("run_a")
    assert event.data == {"n": 1}
    later = store.append_event(_event("run_a", n=3), key="argue:1:for:completed")
    assert later is not None and later.seq == 2


def test_events_appended_from_many_threads_get_seq_1_to_n_once_each(store: Store) -> None:
    def append(i: int) -> None:
        store.append_event(_event("run_a", n=i), key=f"k{i}")
        store.append_event(_event("run_a", n=i), key=f"k{i}")  # a retry: no second event

    threads = [threading.Thread(target=append, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.list_events("run_a")
    assert [e.seq for e in events] == list(range(1, 13))
    assert sorted(e.data["n"] for e in events) == list(range(12))


# ================================================================ artifacts


def test_artifacts_round_trip_and_missing_ones_are_not_found(store: Store) -> None:
    store.put_artifact("run_a", "decomposition", {"sub_claims": [{"id": "sc1"}]})
    assert store.get_artifact("run_a", "decomposition") == {"sub_claims": [{"id": "sc1"}]}
    with pytest.raises(NotFoundError):
        store.get_artifact("run_a", "judgements")
    with pytest.raises(NotFoundError):
        store.get_artifact("run_b", "decomposition")


def test_artifact_numbers_round_trip_exactly(store: Store) -> None:
    value = {"score": 0.1, "big": 2**60, "tiny": 1e-300, "neg": -3.5, "none": None, "empty": [], "s": ""}
    store.put_artifact("run_a", "k", value)
    assert store.get_artifact("run_a", "k") == value


def test_put_artifact_replaces(store: Store) -> None:
    store.put_artifact("run_a", "k", {"v": 1})
    store.put_artifact("run_a", "k", {"v": 2})
    assert store.get_artifact("run_a", "k") == {"v": 2}


def test_find_artifacts_by_prefix_in_key_order_within_one_run(store: Store) -> None:
    for key in ["evidence/r02/sc1", "evidence/r01/sc2", "evidence/r01/sc1", "evidencex", "argument/r01/for"]:
        store.put_artifact("run_a", key, {"key": key})
    store.put_artifact("run_b", "evidence/r01/sc1", {"key": "other run"})
    found = store.find_artifacts("run_a", "evidence/")
    assert list(found) == ["evidence/r01/sc1", "evidence/r01/sc2", "evidence/r02/sc1"]
    assert found["evidence/r01/sc1"] == {"key": "evidence/r01/sc1"}
    assert store.find_artifacts("run_a", "decision/") == {}


def test_a_large_artifact_round_trips_by_get_and_by_prefix(store: Store) -> None:
    big = {"items": [{"text": BIG}], "query": "sea level"}
    store.put_artifact("run_a", "evidence/r01/sc1", big)
    store.put_artifact("run_a", "evidence/r01/sc2", {"items": []})
    assert store.get_artifact("run_a", "evidence/r01/sc1") == big
    assert store.find_artifacts("run_a", "evidence/") == {
        "evidence/r01/sc1": big,
        "evidence/r01/sc2": {"items": []},
    }
    store.put_artifact("run_a", "evidence/r01/sc1", {"items": ["small again"]})
    assert store.get_artifact("run_a", "evidence/r01/sc1") == {"items": ["small again"]}


def test_many_artifacts_past_one_query_page_are_all_found(store: Store) -> None:
    # DynamoDB returns at most 1 MB per Query page: 5 × 300 KB needs several pages.
    for i in range(5):
        store.put_artifact("run_a", f"evidence/r01/sc{i}", {"text": "y" * 300_000, "i": i})
    found = store.find_artifacts("run_a", "evidence/")
    assert [doc["i"] for doc in found.values()] == list(range(5))


# ================================================================ retrieval cache


def test_cache_returns_what_was_put_until_it_expires(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now)
    store.cache_put("golden|-|5|sea level", [{"text": "t", "url": "u"}], ttl_s=60)
    assert store.cache_get("golden|-|5|sea level") == [{"text": "t", "url": "u"}]
    monkeypatch.setattr(time, "time", lambda: now + 59)
    assert store.cache_get("golden|-|5|sea level") is not None
    monkeypatch.setattr(time, "time", lambda: now + 61)
    assert store.cache_get("golden|-|5|sea level") is None


def test_cache_miss_is_none(store: Store) -> None:
    assert store.cache_get("nothing") is None


def test_cache_put_refreshes_the_entry(store: Store) -> None:
    store.cache_put("k", [{"n": 1}], ttl_s=60)
    store.cache_put("k", [{"n": 2}], ttl_s=60)
    assert store.cache_get("k") == [{"n": 2}]


def test_cache_keys_longer_than_a_partition_key_allows_still_work(store: Store) -> None:
    long_a, long_b = "q" * 3000 + "a", "q" * 3000 + "b"
    store.cache_put(long_a, [{"n": "a"}], ttl_s=60)
    store.cache_put(long_b, [{"n": "b"}], ttl_s=60)
    assert (store.cache_get(long_a), store.cache_get(long_b)) == ([{"n": "a"}], [{"n": "b"}])


# ================================================================ usage ledger


def _call(run_id: str, key: str, cost: float, tokens: int = 10) -> CallRecord:
    return CallRecord(
        run_id, key, "scripted", "claude-sonnet-4-6", tokens, tokens, cost, True, '{"a":1}', None
    )


def test_ledger_sums_spend_per_run_and_lists_calls_by_key(store: Store) -> None:
    store.put_call(_call("run_a", "b", 0.25))
    store.put_call(_call("run_a", "a", 0.5))
    store.put_call(_call("run_b", "a", 9.0))
    assert store.run_spend("run_a") == pytest.approx(0.75)
    assert store.run_spend("run_none") == 0.0
    assert [c.call_key for c in store.run_calls("run_a")] == ["a", "b"]
    assert store.get_call("run_a", "a") == _call("run_a", "a", 0.5)
    assert store.get_call("run_a", "zzz") is None


def test_putting_the_same_call_key_replaces_it(store: Store) -> None:
    store.put_call(_call("run_a", "a", 0.5))
    store.put_call(_call("run_a", "a", 0.1))
    assert store.run_spend("run_a") == pytest.approx(0.1)
    assert len(store.run_calls("run_a")) == 1


def test_a_call_with_a_refusal_and_retries_round_trips(store: Store) -> None:
    call = CallRecord("run_a", "judge:0::adjudicate:", "openai", "gpt-4.1", 5, 0, 0.0, False, None, "no", 2)
    store.put_call(call)
    assert store.get_call("run_a", call.call_key) == call
    assert store.run_calls("run_a") == [call]


def test_a_calls_prompt_cache_tokens_round_trip(store: Store) -> None:
    call = CallRecord(
        "run_a", "argue:1:for:argue:", "anthropic", "claude-sonnet-4-6", 1000, 200, 0.0285, True, "{}", None,
        cache_read_tokens=50_000, cache_write_tokens=2_000,
    )  # fmt: skip
    store.put_call(call)
    assert store.get_call("run_a", call.call_key) == call
    assert store.run_calls("run_a") == [call]


# ================================================================ DynamoDB only: items, S3, keys, races


def _item_size(item: dict[str, Any]) -> int:
    """DynamoDB's item size: attribute names plus values (strings as UTF-8, numbers ~ digits)."""
    size = 0
    for name, value in item.items():
        size += len(name.encode())
        (kind, raw) = next(iter(value.items()))
        size += len(raw.encode()) if kind in ("S", "N") else len(str(raw))
    return size


def _items(dynamo: DynamoStore, pk: str) -> list[dict[str, Any]]:
    """Every item of a partition, as stored (following Query pages)."""
    pages = dynamo.client.get_paginator("query").paginate(
        TableName=dynamo.table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": pk}},
    )
    return [item for page in pages for item in page["Items"]]


def test_settings_select_the_dynamodb_store_and_name_its_tables(aws: None, tmp_path: Path) -> None:
    settings = dynamodb_settings(
        aws_region="eu-west-1", dynamodb_endpoint_url="http://127.0.0.1:1", data_dir=tmp_path
    )
    store = build_store(settings)
    assert isinstance(store, DynamoStore)
    assert (store.table, store.cache_table, store.bucket) == (
        settings.table_name,
        settings.cache_table_name,
        settings.artifacts_bucket,
    )
    assert store.client.meta.region_name == "eu-west-1"
    assert store.client.meta.endpoint_url == "http://127.0.0.1:1"
    assert isinstance(build_store(settings.model_copy(update={"store": "sqlite"})), SqliteStore)


def test_the_scan_guard_is_armed(dynamo: DynamoStore) -> None:
    with pytest.raises(AssertionError, match="Scan"):
        dynamo.client.scan(TableName=dynamo.table)


def test_a_large_artifact_goes_to_s3_behind_a_small_item(dynamo: DynamoStore) -> None:
    dynamo.put_artifact("run_a", "evidence/r01/sc1", {"items": [{"text": BIG}]})
    [item] = _items(dynamo, "RUN#run_a")
    assert "doc" not in item and _item_size(item) < 1000
    key = item["s3_key"]["S"]
    assert key.startswith("run_a/evidence/r01/sc1.") and key.endswith(".json")
    body = dynamo.s3.get_object(Bucket=dynamo.bucket, Key=key)["Body"].read()
    assert len(body) > INLINE_LIMIT and int(item["size"]["N"]) == len(body)


def test_every_item_of_a_big_run_stays_under_400_kb(dynamo: DynamoStore) -> None:
    dynamo.create_run(_record("run_a", context="c" * 20_000))
    for i in range(3):
        dynamo.put_artifact("run_a", f"evidence/r01/sc{i}", {"text": "z" * (INLINE_LIMIT - 100)})
    dynamo.put_artifact("run_a", "judgements", {"text": BIG * 2})
    dynamo.put_call(CallRecord("run_a", "argue:1:for:argue:", "p", "m", 1, 1, 0.1, True, BIG, None))
    dynamo.append_event(_event("run_a", note="e" * 10_000), key="k")
    dynamo.finish_run(
        "run_a",
        _result(
            "run_a",
            what_would_change=[ScoreMover(direction=Direction.TOWARD_100, what=BIG, sub_claim="sc1")],
            warnings=[BIG],
        ),
    )
    items = _items(dynamo, "RUN#run_a")
    sizes = sorted(_item_size(item) for item in items)
    assert sizes[-1] < ITEM_LIMIT
    assert sum("s3_key" in item for item in items) == 3  # judgements, the call, the finished run


def test_event_items_carry_what_a_stream_consumer_filters_on(dynamo: DynamoStore) -> None:
    dynamo.append_event(_event("run_a", type="stage.completed"), key="k1")
    [event] = [i for i in _items(dynamo, "RUN#run_a") if i["kind"]["S"] == "event"]
    assert (event["sk"]["S"], event["type"]["S"], event["run_id"]["S"], event["seq"]["N"]) == (
        "EV#0000000001",
        "stage.completed",
        "run_a",
        "1",
    )


def test_two_processes_appending_at_once_never_share_a_seq(aws: None) -> None:
    # Two stores (two Lambda processes) on one table; A's first read of the counter is stale, as when
    # B appends between A's read and A's write. A's conditional write fails and A tries again.
    settings = dynamodb_settings()
    create_from_template(settings)
    a, b = dynamo_store(settings), dynamo_store(settings)
    real_get = a._get
    raced = []

    def stale_once(table: str, key: dict[str, Any], consistent: bool = True) -> dict[str, Any] | None:
        seen = real_get(table, key, consistent)
        if key["sk"]["S"] == "EVSEQ" and not raced:
            raced.append(b.append_event(_event("run_a", by="b"), key="from-b"))
        return seen

    a._get = stale_once  # type: ignore[method-assign]
    stored = a.append_event(_event("run_a", by="a"), key="from-a")
    assert stored is not None and stored.seq == 2
    assert [(e.seq, e.data["by"]) for e in a.list_events("run_a")] == [(1, "b"), (2, "a")]


def test_a_finish_that_loses_a_race_to_a_failure_changes_nothing(aws: None) -> None:
    settings = dynamodb_settings()
    create_from_template(settings)
    a, b = dynamo_store(settings), dynamo_store(settings)
    a.create_run(_record("run_a"))
    real_load = a._load_run

    def fail_in_between(run_id: str) -> tuple[RunRecord, int]:
        loaded = real_load(run_id)
        b.set_status(run_id, RunStatus.FAILED, error="ProviderError: late")
        return loaded

    a._load_run = fail_in_between  # type: ignore[method-assign]
    assert a.finish_run("run_a", _result("run_a")) is False
    run = b.get_run("run_a")
    assert (run.status, run.error, run.result) == (RunStatus.FAILED, "ProviderError: late", None)
    assert b.drift_series(LOCAL, run.claim_id) == []


def test_cache_entries_carry_the_ttl_attribute_the_table_expires_on(dynamo: DynamoStore) -> None:
    dynamo.cache_put("k", [{"n": 1}], ttl_s=3600)
    ttl = dynamo.client.describe_time_to_live(TableName=dynamo.cache_table)["TimeToLiveDescription"]
    item = dynamo.client.get_item(TableName=dynamo.cache_table, Key={"pk": {"S": "k"}})["Item"]
    assert ttl["TimeToLiveStatus"] == "ENABLED"
    assert abs(int(item[ttl["AttributeName"]]["N"]) - (time.time() + 3600)) < 5


def test_a_cache_entry_too_big_for_an_item_is_not_cached(dynamo: DynamoStore) -> None:
    dynamo.cache_put("k", [{"text": BIG}], ttl_s=60)
    assert dynamo.cache_get("k") is None


# ================================================================ the template and the settings agree


def test_every_table_and_the_bucket_is_named_to_the_functions_by_its_setting() -> None:
    env = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["CLAIMCOURT_STORE"] == "dynamodb"
    assert set(data_resources()) == set(RESOURCE_SETTINGS)
    for logical, field in RESOURCE_SETTINGS.items():
        assert env[f"CLAIMCOURT_{field.upper()}"] == {"Ref": logical}


def test_the_main_table_streams_new_images_and_ttl_tables_expire() -> None:
    tables = {k: v["Properties"] for k, v in data_resources().items() if v["Type"].endswith("Table")}
    assert tables["MainTable"]["StreamSpecification"] == {"StreamViewType": "NEW_IMAGE"}
    for name, props in tables.items():
        assert props["BillingMode"] == "PAY_PER_REQUEST"
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
        assert props["SSESpecification"] == {"SSEEnabled": True}
        # every table expires what it holds by its TTL; the main table only a collection's upload records
        assert props["TimeToLiveSpecification"]["Enabled"] is True, name


# ================================================================ monitors


def _monitor(
    monitor_id: str, claim: str = "Sea levels are rising", tenant: str = "acme", **kw: Any
) -> Monitor:
    request = MonitorRequest(claim=claim, cadence="daily", threshold=10)
    fields: dict[str, Any] = {"next_due": T0, "created_at": T0} | kw
    return Monitor(
        monitor_id=monitor_id, tenant_id=tenant, claim_id=claim_id_for(claim), request=request, **fields
    )


def test_monitors_are_listed_per_tenant_and_by_claim(store: Store) -> None:
    store.put_monitor(_monitor("m2", "Glaciers are retreating", created_at=T0 + timedelta(minutes=1)))
    store.put_monitor(_monitor("m1"))
    store.put_monitor(_monitor("m3", created_at=T0 + timedelta(minutes=2)))
    store.put_monitor(_monitor("m4", tenant="globex"))
    assert store.get_monitor("m2").request.claim == "Glaciers are retreating"
    assert {m.monitor_id for m in store.list_monitors("acme")} == {"m1", "m2", "m3"}
    assert [m.monitor_id for m in store.monitors_of_claim("acme", claim_id_for("Sea levels are rising"))] == [
        "m1",
        "m3",
    ]
    assert [m.monitor_id for m in store.list_monitors("globex")] == ["m4"]
    assert store.delete_monitor("m1") is True
    assert store.delete_monitor("m1") is False
    with pytest.raises(NotFoundError):
        store.get_monitor("m1")


def test_due_monitors_come_most_overdue_first_and_move_on_once(store: Store) -> None:
    for i, minutes in enumerate((30, -10, 0, 5)):  # due 30 min after T0, 10 before, at T0, 5 after
        store.put_monitor(_monitor(f"m{i}", next_due=T0 + timedelta(minutes=minutes)))
    assert [m.monitor_id for m in store.due_monitors(T0, limit=10)] == ["m1", "m2"]
    assert [m.monitor_id for m in store.due_monitors(T0 + timedelta(hours=1), limit=3)] == ["m1", "m2", "m3"]
    tomorrow = T0 + timedelta(days=1)
    assert store.advance_monitor("m1", T0 - timedelta(minutes=10), tomorrow, "run_1") is True
    assert store.advance_monitor("m1", T0 - timedelta(minutes=10), tomorrow, "run_1") is False  # moved on
    assert store.advance_monitor("nope", T0, tomorrow, "run_x") is False
    moved = store.get_monitor("m1")
    assert (moved.next_due, moved.last_run_id) == (tomorrow, "run_1")
    assert [m.monitor_id for m in store.due_monitors(T0, limit=10)] == ["m2"]


def test_a_run_id_is_taken_once(store: Store) -> None:
    store.create_run(_record("run_1"))
    with pytest.raises(ConflictError) as taken:
        store.create_run(_record("run_1", "Another claim"))
    assert taken.value.code == "run_exists"
    assert store.list_claims(LOCAL)[0].run_count == 1  # the refused run counted nothing


def test_events_after_the_largest_seq_are_none(store: Store) -> None:
    store.create_run(_record("run_1"))
    store.append_event(RunEvent(run_id="run_1", type="stage.started"), key="k1")
    assert store.list_events("run_1", after_seq=10**10 - 1) == []
    assert [e.seq for e in store.list_events("run_1", after_seq=0)] == [1]


# ================================================================ benchmarks
# A scorecard and its plots stored, listed newest first, read back by id; a resumed bench replaces what
# it recorded; what is not there is a NotFoundError; plots that do not match the record are refused
# before anything is written.

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def benchmark(
    n: int, plots: tuple[str, ...] = ("calibration-calibration-curve.png",), **changes: object
) -> BenchmarkRecord:
    return BenchmarkRecord(
        benchmark_id=f"b_{n:012x}",
        recorded_at=T0 + timedelta(minutes=n),
        model="the offline reasoner",
        offline=True,
        options={"benches": ["calibration"], "baselines": True},
        wall_s=12.5,
        directory=f"/tmp/bench-results/calibration-{n}",
        sections=[
            BenchmarkSection(
                bench="calibration",
                title="calibration",
                systems=["judge", "debate"],
                values=[
                    BenchmarkValue(system="judge", metric="MAE to anchors (points)", value=20.5, n=4),
                    BenchmarkValue(system="debate", metric="MAE to anchors (points)", value=11.0, n=4),
                    BenchmarkValue(system="debate", metric="AUROC true vs false", value=None, n=4),
                ],
                costs=[BenchmarkCost(system="debate", n=4, spent_usd=0.0, metered_usd=0.12)],
                plots=list(plots),
            )
        ],
    ).model_copy(update=changes)


def test_a_benchmark_reads_back_with_its_plots_and_lists_newest_first(store: Store) -> None:
    assert store.list_benchmarks() == []
    for n in (1, 3, 2):
        store.put_benchmark(benchmark(n), {"calibration-calibration-curve.png": PNG + bytes([n])})
    assert [b.benchmark_id for b in store.list_benchmarks()] == [f"b_{n:012x}" for n in (3, 2, 1)]
    assert [b.benchmark_id for b in store.list_benchmarks(limit=2)] == [f"b_{n:012x}" for n in (3, 2)]
    assert store.get_benchmark("b_000000000002") == benchmark(2)
    assert store.get_benchmark_plot("b_000000000002", "calibration-calibration-curve.png") == PNG + b"\x02"


def test_a_benchmark_recorded_again_replaces_the_first_and_its_plots(store: Store) -> None:
    store.put_benchmark(benchmark(1), {"calibration-calibration-curve.png": PNG})
    again = benchmark(1, plots=("calibration-reliability.png",), wall_s=30.0)
    store.put_benchmark(again, {"calibration-reliability.png": PNG + b"!"})
    assert store.list_benchmarks() == [again]
    assert store.get_benchmark_plot("b_000000000001", "calibration-reliability.png") == PNG + b"!"
    with pytest.raises(NotFoundError):
        store.get_benchmark_plot("b_000000000001", "calibration-calibration-curve.png")


def test_what_is_not_there_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.get_benchmark("b_000000000009")
    with pytest.raises(NotFoundError):
        store.get_benchmark_plot("b_000000000009", "calibration-calibration-curve.png")
    store.put_benchmark(benchmark(1), {"calibration-calibration-curve.png": PNG})
    with pytest.raises(NotFoundError):
        store.get_benchmark_plot("b_000000000001", "averitec-confusion.png")


@pytest.mark.parametrize(
    "plots",
    [
        {},
        {"calibration-calibration-curve.png": b"GIF89a"},
        {"calibration-calibration-curve.png": PNG, "x.png": PNG},
    ],
)
def test_plots_that_do_not_match_the_record_are_refused_and_nothing_is_stored(
    store: Store, plots: dict[str, bytes]
) -> None:
    with pytest.raises(InvalidRequestError):
        store.put_benchmark(benchmark(1), plots)
    assert store.list_benchmarks() == []
