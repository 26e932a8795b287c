"""The HTTP API handler (functions/api/app.py), driven with API Gateway HTTP API events, over the
SQLite store and an executor that records what it was asked to start."""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from pydantic import SecretStr

from claimcourt.access import issue_key
from claimcourt.api.http import handler, openapi_json
from claimcourt.models import Lease, RunStatus, SourceTag, utcnow
from claimcourt.runs import SWEEP_GRACE_S, announce_end, create_run, parse_request, submit_run, sweep
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps, use_deps
from tests.conftest import MakeDeps
from tests.contract.test_store_contract import _result
from tests.fakes.apigw import LambdaContext, http_event
from tests.fakes.clock import Clock

ROOT = Path(__file__).resolve().parents[2]
CLAIM = {"claim": "Sea levels are rising"}


class RecordingExecutor:
    def __init__(self, fail: bool = False) -> None:
        self.started: list[str] = []
        self.machines: dict[str, str] = {}
        self.fail = fail
        self._lock = threading.Lock()

    def start(self, run_id: str, machine: str = "debate") -> str:
        if self.fail:
            raise RuntimeError("Step Functions said no")
        with self._lock:
            self.started.append(run_id)
            self.machines[run_id] = machine
        return f"arn:aws:states:us-east-1:123456789012:execution:debate:{run_id}"

    def execution_status(self, run_id: str) -> str | None:
        return "RUNNING" if run_id in self.started else None


@dataclasses.dataclass
class Api:
    deps: Deps
    executor: RecordingExecutor
    key: str
    other_key: str

    @property
    def store(self) -> SqliteStore:
        assert isinstance(self.deps.store, SqliteStore)
        return self.deps.store

    def call(
        self,
        method: str,
        path: str,
        key: str | None = "default",
        headers: dict[str, str] | None = None,
        **kw: Any,
    ) -> tuple[int, dict[str, str], Any]:
        headers = dict(headers or {})
        if key is not None:
            headers["authorization"] = f"Bearer {self.key if key == 'default' else key}"
        reply = handler(http_event(method, path, headers=headers, **kw), LambdaContext())
        body = json.loads(reply["body"]) if reply.get("body") else None
        return reply["statusCode"], {k.lower(): v for k, v in reply.get("headers", {}).items()}, body


@pytest.fixture
def api(make_deps: MakeDeps) -> Any:
    executor = RecordingExecutor()
    deps = dataclasses.replace(make_deps(), executor=executor)
    key, _ = issue_key(deps.store, "acme")
    other, _ = issue_key(deps.store, "globex")
    with use_deps(deps):
        yield Api(deps, executor, key, other)


def _settings(api: Api, **changes: Any) -> None:
    api.deps = dataclasses.replace(api.deps, settings=api.deps.settings.model_copy(update=changes))


# ---------------------------------------------------------------- access


def test_health_needs_no_key(api: Api) -> None:
    status, _, body = api.call("GET", "/health", key=None)
    assert (status, body["status"]) == (200, "ok")


@pytest.mark.parametrize("key", [None, "cc_0123456789abcdef_" + "x" * 43, "not a key"])
def test_reads_and_writes_need_a_valid_key(api: Api, key: str | None) -> None:
    for method, path in [("GET", "/runs"), ("POST", "/runs"), ("GET", "/claims"), ("GET", "/runs/run_x")]:
        status, headers, body = api.call(method, path, key=key, body=CLAIM)
        assert (status, body["code"], headers["www-authenticate"]) == (401, "unauthorized", "Bearer")
    assert api.executor.started == []


def test_a_revoked_key_is_refused_and_no_key_is_ever_logged(
    api: Api, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    key_id = api.key.split("_")[1]
    assert api.call("GET", "/runs")[0] == 200
    api.store.revoke_api_key(key_id)
    assert api.call("GET", "/runs")[0] == 401
    caplog.set_level(logging.DEBUG)
    api.call("POST", "/runs", body=CLAIM)
    logged = caplog.text + "".join(capsys.readouterr())
    assert api.key not in logged and api.key.split("_", 2)[2] not in logged


# ---------------------------------------------------------------- starting a run


def test_post_runs_starts_a_run_and_links_to_it(api: Api) -> None:
    status, headers, body = api.call(
        "POST", "/runs", body={**CLAIM, "mode": "verdict", "as_of_date": "2020-01-01"}
    )
    assert status == 202
    run_id = body["run_id"]
    assert headers["location"] == f"/runs/{run_id}" == body["links"]["self"]
    assert body["links"]["events"] == f"/runs/{run_id}/events"
    assert (body["status"], body["mode"], body["as_of_date"]) == ("running", "verdict", "2020-01-01")
    assert api.executor.started == [run_id]
    record = api.store.get_run(run_id)
    assert (record.tenant_id, record.source_tag) == ("acme", SourceTag.APP)


@pytest.mark.parametrize(
    ("kwargs", "status", "code"),
    [
        ({"body": {**CLAIM, "verdict": "yes"}}, 422, "invalid_request"),  # an unknown field
        ({"body": {"claim": ""}}, 422, "invalid_request"),
        ({"body": {**CLAIM, "as_of_date": "2020-13-45"}}, 422, "invalid_request"),
        ({"body": {**CLAIM, "effort": "max"}}, 422, "invalid_request"),
        ({"body": ["a list"]}, 422, "invalid_request"),
        ({"raw_body": "{not json"}, 400, "malformed_json"),
        ({"raw_body": json.dumps({"claim": "x" * 70_000})}, 413, "payload_too_large"),
    ],
)
def test_bad_requests_are_refused_before_anything_is_stored_or_started(
    api: Api, kwargs: dict[str, Any], status: int, code: str
) -> None:
    got, _, body = api.call("POST", "/runs", **kwargs)
    assert (got, body["code"]) == (status, code)
    assert body["detail"] and "Traceback" not in json.dumps(body)
    assert api.store.list_runs("acme").runs == [] and api.executor.started == []
    assert api.store.leases() == []


@pytest.mark.parametrize(
    ("body", "field", "detail"),
    [
        ({**CLAIM, "first": "second"}, "first", "first: Input should be 'for' or 'against'"),
        ({**CLAIM, "first": ""}, "first", "first: Input should be 'for' or 'against'"),
        ({**CLAIM, "rounds": 7}, "rounds", "rounds: a debate has 1 to 6 rounds, not 7"),
        ({**CLAIM, "rounds": 0}, "rounds", "rounds: a debate has 1 to 6 rounds, not 0"),
        (
            {**CLAIM, "rounds": 2.5},
            "rounds",
            "rounds: Input should be a valid integer, got a number with a fractional part",
        ),
        ({**CLAIM, "judge": "jury"}, "judge", "judge: Input should be 'contract' or 'rubric'"),
        ({**CLAIM, "rounds": True}, "rounds", "rounds: a number, not true or false"),
    ],
)
def test_an_order_rounds_or_judge_out_of_bounds_is_refused_naming_the_field(
    api: Api, body: dict[str, Any], field: str, detail: str
) -> None:
    status, _, problem = api.call("POST", "/runs", body=body)
    assert (status, problem["code"], problem["field"], problem["detail"]) == (
        422,
        "invalid_request",
        field,
        detail,
    )
    assert api.store.list_runs("acme").runs == [] and api.executor.started == []


WATCH = {"claim": "Sea levels are rising", "cadence": "daily", "threshold": 8}
MOTION = {"motion": "Resolved: social media does more harm than good."}


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/runs", {"claim": "bad \ud800 surrogate"}, "claim"),
        ("/runs", {**CLAIM, "context": "a lone \udfff low half"}, "context"),
        ("/monitors", {**WATCH, "claim": "bad \ud800 surrogate"}, "claim"),
        ("/monitors", {**WATCH, "context": "\ud83d"}, "context"),
        ("/monitors", {**WATCH, "cadence": "dai\ud800ly"}, "cadence"),
        ("/motions", {"motion": "Resolved: \ud800."}, "motion"),
        ("/motions", {**MOTION, "context": "\udc00"}, "context"),
        ("/motions", {**MOTION, "lineup": {"judge": "openai:\ud800"}}, "lineup.judge"),
    ],
)
def test_a_lone_surrogate_in_a_text_field_is_refused_naming_it_before_the_cost_guard(
    api: Api, path: str, body: dict[str, Any], field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    admitted = _admissions(api, monkeypatch)
    # When a body escapes half a surrogate pair (JSON allows "\ud800"; it is no character)
    status, _, problem = api.call("POST", path, raw_body=json.dumps(body))
    # Then it is refused naming the field, before the cost guard is asked for anything
    assert (status, problem["code"], problem["field"]) == (422, "invalid_request", field), problem
    assert admitted == [] and api.store.leases() == []
    assert api.store.list_runs("acme").runs == [] and api.store.list_monitors("acme") == []
    assert api.executor.started == []
    assert api.call("POST", "/runs", body=CLAIM)[0] == 202 and len(admitted) == 1  # the guard is watched


def _admissions(api: Api, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The run ids the cost guard is asked to admit from now on (it admits them as before)."""
    admitted: list[str] = []
    admit = api.store.admit

    def recorded(lease: Lease, **caps: Any) -> None:
        admitted.append(lease.run_id)
        admit(lease, **caps)

    monkeypatch.setattr(api.store, "admit", recorded)
    return admitted


DEEP = "[" * 30_000 + "]" * 30_000  # 60 KB, under the body limit; past any recursion limit
HUGE = "1" * 4_301  # past Python's limit for int("…")


@pytest.mark.parametrize("path", ["/runs", "/monitors", "/motions"])
@pytest.mark.parametrize(
    "raw",
    [
        '{"claim": ' + DEEP + "}",
        '{"claim": "Sea levels are rising", "rounds": ' + HUGE + "}",
        '{"motion": ' + DEEP + "}",
        '{"crowd": ' + HUGE + "}",
        "[" + DEEP + "]",
    ],
    ids=["deep-claim", "huge-rounds", "deep-motion", "huge-crowd", "deep-body"],
)
def test_a_body_json_cannot_read_safely_is_malformed_json_on_every_route(
    api: Api, path: str, raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    admitted = _admissions(api, monkeypatch)
    assert len(raw.encode()) < api.deps.settings.max_body_bytes
    status, headers, problem = api.call("POST", path, raw_body=raw)
    assert (status, problem["code"], headers["content-type"]) == (
        400,
        "malformed_json",
        "application/problem+json",
    )
    assert api.store.list_runs("acme").runs == [] and api.store.list_monitors("acme") == []
    assert admitted == [] and api.executor.started == [] and api.store.leases() == []


@pytest.mark.parametrize(
    ("path", "body", "field"),
    [
        ("/runs", {**CLAIM, "rounds": "3"}, "rounds"),
        ("/runs", {**CLAIM, "rounds": " 3 "}, "rounds"),
        ("/monitors", {**WATCH, "threshold": "8"}, "threshold"),
        ("/monitors", {**WATCH, "rounds": "2"}, "rounds"),
        ("/motions", {**MOTION, "rounds": "2"}, "rounds"),
        ("/motions", {**MOTION, "crowd": "4"}, "crowd"),
        ("/motions", {**MOTION, "words": "300"}, "words"),
        ("/motions", {**MOTION, "citations": "2"}, "citations"),
        ("/motions", {**MOTION, "seed": "7"}, "seed"),
        ("/motions", {**MOTION, "time_knob": {"lean_above": "0.7"}}, "time_knob.lean_above"),
        ("/motions", {**MOTION, "time_knob": {"ratio": "1.5"}}, "time_knob.ratio"),
    ],
)
def test_a_number_sent_as_a_string_is_refused_naming_the_field(
    api: Api, path: str, body: dict[str, Any], field: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    admitted = _admissions(api, monkeypatch)
    status, _, problem = api.call("POST", path, body=body)
    assert (status, problem["code"], problem["field"], problem["detail"]) == (
        422,
        "invalid_request",
        field,
        f"{field}: a number, not a string",
    )
    assert admitted == [] and api.executor.started == [] and api.store.list_monitors("acme") == []


def test_a_run_in_turn_for_fixed_rounds_with_the_rubric_judge_runs_end_to_end(api: Api) -> None:
    # Given the API's runs executed by the local runtime (the state machine, every stage in-process)
    from claimcourt.local.runtime import LocalRuntime

    with LocalRuntime(api.deps) as runtime, use_deps(dataclasses.replace(api.deps, executor=runtime)):
        # When a client asks for three rounds, the against side first, judged by the rubric
        asked = {**CLAIM, "first": "against", "rounds": 3, "judge": "rubric"}
        status, _, run = api.call("POST", "/runs", body=asked)
        assert status == 202, run
        runtime.follow(run["run_id"], timeout_s=60)
        status, _, view = api.call("GET", f"/runs/{run['run_id']}")
    # Then the run is what it asked for, and its result says so
    assert (status, view["status"]) == (200, "succeeded"), view
    result = view["result"]
    assert (result["rounds"], result["rounds_fixed"], result["first"], result["judge"]) == (
        3,
        3,
        "against",
        "rubric",
    )
    assert result["rubric"]["reading"] in {"contradicted", "misleading", "supported", "needs more evidence"}
    assert result["adjustments"][0]["kind"] == "rubric_scale"
    events = api.call("GET", f"/runs/{run['run_id']}/events")[2]["events"]
    argued = [
        (e["round"], e["side"]) for e in events if e["type"] == "stage.completed" and e["stage"] == "argue"
    ]
    assert argued == [(r, side) for r in (1, 2, 3) for side in ("against", "for")]
    record = api.store.get_run(run["run_id"])
    assert (record.request.first, record.request.rounds, record.request.judge) == ("against", 3, "rubric")


def test_a_failed_start_ends_the_run_failed_and_gives_its_slot_back(api: Api) -> None:
    api.deps = dataclasses.replace(api.deps, executor=RecordingExecutor(fail=True))
    with use_deps(api.deps):
        status, _, body = api.call("POST", "/runs", body=CLAIM)
    assert (status, body["code"]) == (500, "internal_error")
    assert "Step Functions said no" not in json.dumps(body)
    [run] = api.store.list_runs("acme").runs
    assert (run.status, run.error) == (RunStatus.FAILED, "could not start the execution: RuntimeError")
    assert api.store.leases() == []


def test_the_same_idempotency_key_and_body_start_one_run(api: Api) -> None:
    headers = {"Idempotency-Key": "order-42"}
    first = api.call("POST", "/runs", body=CLAIM, headers=headers)
    again = api.call("POST", "/runs", body=CLAIM, headers=headers)
    assert first[0] == again[0] == 202
    assert first[2]["run_id"] == again[2]["run_id"]
    assert len(api.executor.started) == 1
    other_tenant = api.call("POST", "/runs", key=api.other_key, body=CLAIM, headers=headers)
    assert other_tenant[2]["run_id"] != first[2]["run_id"]  # keys are per tenant
    status, _, body = api.call("POST", "/runs", body={"claim": "Glaciers retreat"}, headers=headers)
    assert (status, body["code"]) == (409, "idempotency_key_reused")


@pytest.mark.parametrize("key", ["", "   ", "order\x0042", "order\t42", "order\x7f", "\x1b[31m"])
def test_an_empty_or_control_character_idempotency_key_is_refused_and_starts_nothing(
    api: Api, key: str
) -> None:
    headers = {"Idempotency-Key": key}
    status, _, problem = api.call("POST", "/runs", body=CLAIM, headers=headers)
    assert (status, problem["code"], problem["field"]) == (422, "invalid_request", "idempotency-key")
    assert api.executor.started == [] and api.store.list_runs("acme").runs == []
    # nor was it kept as a key: a valid one after it starts a run of its own
    assert api.call("POST", "/runs", body=CLAIM, headers={"Idempotency-Key": "order-42"})[0] == 202


def test_an_idempotent_replay_answers_with_the_runs_status_now(api: Api) -> None:
    headers = {"Idempotency-Key": "order-43"}
    first = api.call("POST", "/runs", body=CLAIM, headers=headers)[2]
    assert first["status"] == "running"
    api.store.finish_run(first["run_id"], _result(first["run_id"], 64))
    status, replay_headers, again = api.call("POST", "/runs", body=CLAIM, headers=headers)
    assert (status, again["run_id"], again["status"], again["score"]) == (
        202,
        first["run_id"],
        "succeeded",
        64,
    )
    assert replay_headers["location"] == first["links"]["self"]
    assert api.executor.started == [first["run_id"]]


def test_a_replay_of_a_deleted_runs_key_is_gone_and_starts_nothing(api: Api) -> None:
    headers = {"Idempotency-Key": "order-44"}
    run_id = api.call("POST", "/runs", body=CLAIM, headers=headers)[2]["run_id"]
    api.store.set_status(run_id, RunStatus.FAILED, error="e")
    assert api.call("DELETE", f"/runs/{run_id}")[0] == 204
    status, headers_back, body = api.call("POST", "/runs", body=CLAIM, headers=headers)
    assert (status, body["code"], headers_back["content-type"]) == (
        410,
        "run_deleted",
        "application/problem+json",
    )
    assert run_id in body["detail"]
    assert api.executor.started == [run_id] and api.store.list_runs("acme").runs == []
    assert api.call("POST", "/runs", body=CLAIM, headers={"Idempotency-Key": "order-45"})[0] == 202


# ---------------------------------------------------------------- the cost guard


def test_fifty_concurrent_posts_at_a_cap_of_three_start_exactly_three(api: Api) -> None:
    _settings(api, max_active_runs=3, hourly_runs_per_tenant=100)
    replies: list[tuple[int, dict[str, str], Any]] = []
    start = threading.Barrier(50)

    def post() -> None:
        start.wait()
        replies.append(api.call("POST", "/runs", body=CLAIM))

    with use_deps(api.deps):
        threads = [threading.Thread(target=post) for _ in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    statuses = sorted(status for status, _, _ in replies)
    assert statuses == [202] * 3 + [429] * 47
    refused = [(h["retry-after"], b["code"]) for s, h, b in replies if s == 429]
    assert set(refused) == {("30", "too_many_runs")}
    assert len(api.executor.started) == 3 and len(api.store.list_runs("acme").runs) == 3


def test_a_run_that_ends_gives_its_slot_to_the_next(api: Api) -> None:
    _settings(api, max_active_runs=1)
    with use_deps(api.deps):
        first = api.call("POST", "/runs", body=CLAIM)[2]["run_id"]
        assert api.call("POST", "/runs", body=CLAIM)[0] == 429
        api.store.set_status(first, RunStatus.FAILED, error="ProviderError: boom")
        announce_end(api.store, first)  # what the Catch path's finish stage does
        assert api.call("POST", "/runs", body=CLAIM)[0] == 202


def test_the_hourly_cap_is_per_key_owner_and_counts_each_utc_hour_afresh(api: Api) -> None:
    # As deployed: the API holds no provider keys, cannot tell a run is free, so every run counts.
    _settings(api, max_active_runs=50, hourly_runs_per_tenant=2, provider_keys_known=False)
    # Its runs are admitted by the API's clock: held still within an hour, then moved past its end.
    clock = Clock(datetime(2026, 3, 1, 9, 45, tzinfo=UTC))
    with use_deps(dataclasses.replace(api.deps, now=clock)):
        assert [api.call("POST", "/runs", body=CLAIM)[0] for _ in range(2)] == [202, 202]
        status, headers, body = api.call("POST", "/runs", body=CLAIM)
        assert (status, body["code"], headers["retry-after"]) == (429, "hourly_cap_reached", str(15 * 60))
        assert "resets at 10:00 UTC" in body["detail"]
        assert api.call("POST", "/runs", key=api.other_key, body=CLAIM)[0] == 202
        clock.at = datetime(2026, 3, 1, 10, tzinfo=UTC)
        assert [api.call("POST", "/runs", body=CLAIM)[0] for _ in range(3)] == [202, 202, 429]


# ---------------------------------------------------------------- reading runs


def test_a_tenant_never_sees_another_tenants_runs(api: Api) -> None:
    mine = api.call("POST", "/runs", body=CLAIM)[2]["run_id"]
    theirs = api.call("POST", "/runs", key=api.other_key, body=CLAIM)[2]["run_id"]
    assert [r["run_id"] for r in api.call("GET", "/runs")[2]["runs"]] == [mine]
    for method, path in [
        ("GET", f"/runs/{theirs}"),
        ("GET", f"/runs/{theirs}/events"),
        ("DELETE", f"/runs/{theirs}"),
    ]:
        status, _, body = api.call(method, path)
        assert (status, body["code"]) == (404, "not_found")
    assert api.call("GET", f"/runs/{mine}")[0] == 200


def test_runs_are_paged_newest_first_and_filtered_by_source(api: Api) -> None:
    made = [create_run(api.store, parse_request(CLAIM), tenant_id="acme").run_id for _ in range(5)]
    create_run(api.store, parse_request(CLAIM), SourceTag.BENCH, tenant_id="acme")
    seen: list[str] = []
    query: dict[str, str] = {"limit": "2", "source": "app"}
    while True:
        status, _, page = api.call("GET", "/runs", query=query)
        assert status == 200
        seen += [r["run_id"] for r in page["runs"]]
        if page["next_cursor"] is None:
            break
        query["cursor"] = page["next_cursor"]
    assert sorted(seen) == sorted(made) and len(seen) == 5
    assert [r["source_tag"] for r in api.call("GET", "/runs", query={"source": "bench"})[2]["runs"]] == [
        "bench"
    ]
    assert api.call("GET", "/runs", query={"cursor": "bogus"})[2]["code"] == "invalid_request"
    assert api.call("GET", "/runs", query={"source": "nope"})[0] == 422


def test_a_finished_run_reads_back_with_its_result_and_events(api: Api) -> None:
    run = create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    status, _, body = api.call("GET", f"/runs/{run.run_id}")
    assert (status, body["status"], body["result"]) == (200, "running", None)
    status, _, events = api.call("GET", f"/runs/{run.run_id}/events")
    assert [e["type"] for e in events["events"]] == ["run.created"]
    assert api.call("GET", f"/runs/{run.run_id}/events", query={"after": "1"})[2]["events"] == []


def test_a_runs_round_decisions_are_served_to_its_tenant_only(api: Api) -> None:
    from claimcourt import artifacts
    from claimcourt.models import RoundAction, RoundDecision, RoundSignals

    run = create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    for r, action in ((1, RoundAction.CONTINUE), (2, RoundAction.STOP_CONVERGED)):
        decision = RoundDecision(round=r, action=action, rule="a rule", signals=RoundSignals(new_points=r))
        api.store.put_artifact(run.run_id, artifacts.decision_key(r), decision.model_dump(mode="json"))
    status, _, body = api.call("GET", f"/runs/{run.run_id}/round_decisions")
    assert status == 200
    assert [(d["round"], d["action"], d["signals"]["new_points"]) for d in body["decisions"]] == [
        (1, "continue", 1),
        (2, "stop_converged", 2),
    ]
    assert api.call("GET", f"/runs/{run.run_id}/round_decisions", key=api.other_key)[0] == 404


def test_a_runs_citation_ledger_is_served_with_the_motion_aliases(api: Api) -> None:
    from claimcourt import artifacts
    from claimcourt.models import Argument, Point

    run = create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    item = {
        "id": "E1", "text": "Sea level rose 20 cm.", "title": "NOAA", "source_url": "https://noaa.gov/slr",
        "tier": "T1", "query": "sea level", "sub_claim_id": "sc1", "round": 1,
    }  # fmt: skip
    api.store.put_artifact(run.run_id, artifacts.evidence_key(1, "sc1"), {"query": "q", "items": [item]})
    point = Point(
        sub_claim_id="sc1", argument="It rose [E1].", implied_score=80, confidence=0.8, citations=["E1"]
    )
    argument = Argument(side="for", round=1, points=[point])
    api.store.put_artifact(run.run_id, artifacts.argument_key(1, "for"), argument.model_dump(mode="json"))
    status, _, body = api.call("GET", f"/runs/{run.run_id}/ledger")
    assert status == 200
    assert [(c["key"], c["evidence_id"], c["tier"], c["sentence"]) for c in body["citations"]] == [
        ("for_1", "E1", "T1", "It rose [E1].")
    ]
    assert (
        api.call("GET", f"/runs/{run.run_id}/ledger", query={"key": "a_1"})[2]["citations"][0]["key"]
        == "for_1"
    )
    assert api.call("GET", f"/runs/{run.run_id}/ledger", query={"key": "b_1"})[2]["citations"] == []
    assert api.call("GET", f"/runs/{run.run_id}/ledger", key=api.other_key)[0] == 404


def test_a_runs_artifacts_are_served_as_files(api: Api) -> None:
    run = create_run(api.store, parse_request(CLAIM), tenant_id="acme")

    def fetch(name: str, key: str) -> dict[str, Any]:
        event = http_event(
            "GET", f"/runs/{run.run_id}/artifacts/{name}", headers={"authorization": f"Bearer {key}"}
        )
        reply: dict[str, Any] = handler(event, LambdaContext())
        return reply

    reply = fetch("score_trajectory.csv", api.key)
    headers = {k.lower(): v for k, v in reply["headers"].items()}
    assert reply["statusCode"] == 200 and headers["content-type"].startswith("text/csv")
    assert headers["content-disposition"] == f'attachment; filename="{run.run_id}-score_trajectory.csv"'
    assert (
        reply["body"].splitlines()[0] == "round,role,sub_claim_id,score,confidence,interval_low,interval_high"
    )
    assert fetch("transcript_full.md", api.key)["body"].startswith("# ")
    assert fetch("secrets.txt", api.key)["statusCode"] == 404
    assert fetch("transcript_full.md", api.other_key)["statusCode"] == 404


CLAIMREVIEW_SCHEMA = json.loads((ROOT / "docs" / "schemas" / "claimreview.schema.json").read_text())


def test_a_runs_claimreview_is_json_ld_once_it_has_a_rating_and_a_409_naming_why_before(api: Api) -> None:
    origin = {
        "author": "Example Party",
        "author_type": "Organization",
        "appearances": ["https://x.example/p"],
    }
    status, _, started = api.call("POST", "/runs", body={**CLAIM, "claim_origin": origin})
    assert status == 202
    run_id = started["run_id"]
    status, headers, body = api.call("GET", f"/runs/{run_id}/claimreview")
    assert (status, body["code"]) == (409, "run_running") and "still running" in body["detail"]
    assert headers["content-type"] == "application/problem+json"

    api.store.finish_run(run_id, _result(run_id, 72))
    status, headers, review = api.call(
        "GET", f"/runs/{run_id}/claimreview", headers={"x-forwarded-proto": "http", "host": "127.0.0.1"}
    )
    assert (status, headers["content-type"]) == (200, "application/ld+json")
    jsonschema_rs.validate(CLAIMREVIEW_SCHEMA, review)
    # The review's page is the run's verdict page in this API's console, reached as the request was
    assert review["url"] == f"http://127.0.0.1/#/runs/{run_id}"
    assert review["itemReviewed"]["author"] == {"@type": "Organization", "name": "Example Party"}
    assert review["reviewRating"]["ratingValue"] == 72 and "author" not in review  # no publisher set

    _settings(
        api,
        claimreview_url="https://checks.example.org/{run_id}",
        claimreview_author="Example Checks",
        claimreview_author_url="https://checks.example.org",
    )
    with use_deps(api.deps):
        review = api.call("GET", f"/runs/{run_id}/claimreview")[2]
    assert review["url"] == f"https://checks.example.org/{run_id}"
    assert review["author"] == {
        "@type": "Organization",
        "name": "Example Checks",
        "url": "https://checks.example.org",
    }
    assert api.call("GET", f"/runs/{run_id}/claimreview", key=api.other_key)[0] == 404


def test_a_claimreview_of_a_stopped_or_failed_run_is_a_409_naming_why(api: Api) -> None:
    stopped = create_run(api.store, parse_request(CLAIM), tenant_id="acme").run_id
    api.store.set_status(stopped, RunStatus.STOPPED, warnings=["The claim refers to itself."])
    failed = create_run(api.store, parse_request(CLAIM), tenant_id="acme").run_id
    api.store.set_status(failed, RunStatus.FAILED, error="BudgetExceededError: the run's budget is spent")
    status, _, body = api.call("GET", f"/runs/{stopped}/claimreview")
    assert (status, body["code"]) == (409, "run_stopped") and "The claim refers to itself." in body["detail"]
    status, _, body = api.call("GET", f"/runs/{failed}/claimreview")
    assert (status, body["code"]) == (409, "run_failed") and "budget is spent" in body["detail"]


def test_delete_is_soft_and_only_for_runs_that_ended(api: Api) -> None:
    run_id = api.call("POST", "/runs", body=CLAIM)[2]["run_id"]
    status, _, body = api.call("DELETE", f"/runs/{run_id}")
    assert (status, body["code"]) == (409, "run_running")
    api.store.set_status(run_id, RunStatus.FAILED, error="e")
    assert api.call("DELETE", f"/runs/{run_id}")[0] == 204
    assert api.call("GET", f"/runs/{run_id}")[0] == 404
    assert api.call("GET", "/runs")[2]["runs"] == []
    assert api.store.get_run(run_id).deleted_at is not None  # kept


def test_claims_and_their_history_are_per_tenant(api: Api) -> None:
    create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    [claim] = api.call("GET", "/claims")[2]["claims"]
    assert claim["text"] == CLAIM["claim"]
    assert api.call("GET", "/claims", key=api.other_key)[2]["claims"] == []
    status, _, history = api.call("GET", f"/claims/{claim['claim_id']}/history")
    assert (status, history["points"]) == (200, [])


def test_the_history_of_a_claim_that_is_not_the_tenants_is_not_found(api: Api) -> None:
    # Given a claim of acme's (a run of it) and a claim acme only watches (a monitor, no run yet)
    create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    [claim] = api.call("GET", "/claims")[2]["claims"]
    watched = api.call("POST", "/monitors", body={**WATCH, "claim": "Glaciers are retreating"})[2]
    # Then acme reads both; an id no claim has, and acme's claim asked by another tenant, are 404
    assert api.call("GET", f"/claims/{claim['claim_id']}/history")[0] == 200
    assert api.call("GET", f"/claims/{watched['claim_id']}/history")[0] == 200
    for key, claim_id in ((api.key, "c_0123456789abcdef"), (api.other_key, claim["claim_id"])):
        status, _, problem = api.call("GET", f"/claims/{claim_id}/history", key=key)
        assert (status, problem["code"]) == (404, "not_found")
        assert claim_id in problem["detail"]


def test_a_deleted_run_leaves_its_claims_count_and_history(api: Api) -> None:
    kept, deleted = (api.call("POST", "/runs", body=CLAIM)[2]["run_id"] for _ in range(2))
    for run_id, score in ((kept, 40), (deleted, 70)):
        api.store.finish_run(run_id, _result(run_id, score))
    assert api.call("DELETE", f"/runs/{deleted}")[0] == 204
    [claim] = api.call("GET", "/claims")[2]["claims"]
    assert claim["run_count"] == 1
    history = api.call("GET", f"/claims/{claim['claim_id']}/history")[2]
    assert [p["run_id"] for p in history["points"]] == [kept]
    assert api.call("DELETE", f"/runs/{kept}")[0] == 204
    assert api.call("GET", "/claims")[2]["claims"] == []  # no runs left: no longer one of your claims


def test_an_unknown_route_is_a_problem_document(api: Api) -> None:
    status, headers, body = api.call("GET", "/nowhere")
    assert (status, body["code"], headers["content-type"]) == (
        404,
        "no_such_route",
        "application/problem+json",
    )


def test_the_openapi_document_in_the_repo_is_the_one_the_api_generates() -> None:
    committed = (ROOT / "docs" / "openapi.json").read_text()
    assert json.loads(committed) == json.loads(openapi_json()), "regenerate: python -m claimcourt.api.openapi"


def test_the_sweeper_frees_the_slots_of_runs_whose_execution_ended_without_saying_so(api: Api) -> None:
    _settings(api, max_active_runs=3)
    with use_deps(api.deps):
        alive, died, ended = (api.call("POST", "/runs", body=CLAIM)[2]["run_id"] for _ in range(3))
    api.store.set_status(ended, RunStatus.SUCCEEDED)  # ended, but its process died before releasing
    statuses = {alive: "RUNNING", died: "TIMED_OUT", ended: "SUCCEEDED"}
    assert sorted(sweep(api.store, statuses.get)) == sorted([died, ended])
    assert [lease.run_id for lease in api.store.leases()] == [alive]
    failed = api.store.get_run(died)
    assert (failed.status, failed.error) == (RunStatus.FAILED, "execution timed_out")
    assert [e.type for e in api.store.list_events(died)][-1] == "run.failed"
    assert sweep(api.store, statuses.get) == []  # nothing twice


def test_the_sweeper_leaves_runs_being_admitted_alone_and_ends_lost_ones_after_a_grace(api: Api) -> None:
    # Given leases of runs with no execution: one admitted just now (its start is under way), one
    # admitted long ago whose execution never started (or was lost with a restarted server), and a
    # lease whose run was never recorded
    recent = create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    lost = create_run(api.store, parse_request(CLAIM), tenant_id="acme")
    long_ago = utcnow() - timedelta(seconds=SWEEP_GRACE_S + 1)
    for run_id, since in ((recent.run_id, utcnow()), (lost.run_id, long_ago), ("run_never", long_ago)):
        api.store.admit(Lease(run_id=run_id, tenant_id="acme", since=since), max_active=5, hourly_limit=50)
    api.store.admit(
        Lease(run_id="run_being_made", tenant_id="acme", since=utcnow()), max_active=5, hourly_limit=50
    )
    # When the sweeper runs and no execution is known for any of them
    released = sweep(api.store, lambda run_id: None)
    # Then only the old ones are ended and freed; the recent ones keep their slots
    assert sorted(released) == sorted([lost.run_id, "run_never"])
    assert sorted(lease.run_id for lease in api.store.leases()) == sorted([recent.run_id, "run_being_made"])
    ended = api.store.get_run(lost.run_id)
    assert (ended.status, ended.error) == (RunStatus.FAILED, "its execution never started or was lost")
    assert api.store.get_run(recent.run_id).status is RunStatus.RUNNING


def test_keys_are_created_listed_and_revoked_from_the_cli(tmp_path: Path, clean_env: None) -> None:
    from click.testing import CliRunner

    from claimcourt.access import authenticate
    from claimcourt.cli import main
    from claimcourt.errors import UnauthorizedError

    runner = CliRunner()
    made = runner.invoke(
        main, ["keys", "create", "--tenant", "acme", "--label", "ci", "--data-dir", str(tmp_path)]
    )
    assert made.exit_code == 0, made.output
    key = made.stdout.strip()
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    record = authenticate(store, key)
    listed = runner.invoke(main, ["keys", "list", "--data-dir", str(tmp_path)]).stdout
    assert record.key_id in listed and "acme" in listed and key not in listed
    assert runner.invoke(main, ["keys", "revoke", record.key_id, "--data-dir", str(tmp_path)]).exit_code == 0
    with pytest.raises(UnauthorizedError):
        authenticate(store, key)
    assert runner.invoke(main, ["keys", "revoke", record.key_id, "--data-dir", str(tmp_path)]).exit_code == 2
    bad = runner.invoke(main, ["keys", "create", "--tenant", "Not OK", "--data-dir", str(tmp_path)])
    assert bad.exit_code == 2


def test_monitors_are_created_listed_and_deleted_per_tenant(api: Api) -> None:
    watch = {"claim": "Sea levels are rising", "cadence": "0 6 * * *", "threshold": 8}
    status, headers, made = api.call("POST", "/monitors", body=watch)
    assert (status, headers["location"]) == (201, f"/monitors/{made['monitor_id']}")
    assert (made["tenant_id"], made["request"]["cadence"], made["last_run_id"]) == ("acme", "0 6 * * *", None)
    assert [m["monitor_id"] for m in api.call("GET", "/monitors")[2]["monitors"]] == [made["monitor_id"]]
    assert api.call("GET", "/monitors", key=api.other_key)[2]["monitors"] == []
    # its Location answers, for its tenant only
    assert api.call("GET", headers["location"])[2] == made
    assert api.call("GET", headers["location"], key=api.other_key)[0] == 404
    assert api.call("DELETE", f"/monitors/{made['monitor_id']}", key=api.other_key)[0] == 404
    assert api.call("DELETE", f"/monitors/{made['monitor_id']}")[0] == 204
    assert api.call("DELETE", f"/monitors/{made['monitor_id']}")[0] == 404
    assert api.call("GET", f"/monitors/{made['monitor_id']}")[0] == 404


def test_a_monitors_order_rounds_and_judge_go_to_every_run_it_starts(api: Api) -> None:
    from claimcourt.watching.drift import tick

    watch = {"claim": "Sea levels are rising", "cadence": "daily", "threshold": 8}
    status, _, made = api.call(
        "POST", "/monitors", body={**watch, "first": "for", "rounds": 1, "judge": "rubric"}
    )
    assert status == 201, made
    assert (made["request"]["first"], made["request"]["rounds"], made["request"]["judge"]) == (
        "for",
        1,
        "rubric",
    )
    [started] = tick(api.store, api.executor, api.deps.settings).started
    request = api.store.get_run(started).request
    assert (request.first, request.rounds, request.judge) == ("for", 1, "rubric")


@pytest.mark.parametrize(
    ("watch", "field"),
    [
        ({"claim": "x y", "cadence": "every so often", "threshold": 8}, "cadence"),
        ({"claim": "x y", "cadence": "daily", "threshold": 5, "rounds": 9}, "rounds"),
        ({"claim": "x y", "cadence": "daily", "threshold": 0}, "threshold"),
        ({"claim": "x y", "cadence": "daily", "threshold": True}, "threshold"),
        ({"claim": "x y", "cadence": "daily"}, "threshold"),
        ({"claim": "x y", "cadence": "daily", "threshold": 5, "as_of_date": "2020-01-01"}, "as_of_date"),
    ],
)
def test_a_monitor_that_cannot_be_kept_is_refused_naming_the_field(
    api: Api, watch: dict[str, Any], field: str
) -> None:
    status, _, body = api.call("POST", "/monitors", body=watch)
    assert (status, body["code"], body["field"]) == (422, "invalid_request", field)
    assert api.store.list_monitors("acme") == []


def test_a_run_recorded_without_its_first_event_ends_failed_and_frees_its_slot(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(api.store, "append_event", broken)
    with pytest.raises(OSError):
        submit_run(api.store, api.executor, api.deps.settings, "acme", parse_request(CLAIM))
    monkeypatch.undo()
    [run] = api.store.list_runs("acme").runs
    assert (run.status, run.error) == (RunStatus.FAILED, "could not record the run's start")
    assert api.executor.started == []
    # The store failed its end event too, so the sweeper finishes the job
    assert sweep(api.store, lambda run_id: None) == [run.run_id]
    assert api.store.leases() == [] and api.store.list_events(run.run_id)[-1].type == "run.failed"


# ---------------------------------------------------------------- motion debates


def test_a_motion_debate_starts_on_its_own_state_machine_and_reads_back(api: Api) -> None:
    body = {"motion": "Resolved: social media does more harm than good.", "rounds": 3, "crowd": 30}
    status, headers, view = api.call("POST", "/motions", body=body)
    assert (status, view["status"], view["motion"]["rounds"]) == (202, "running", 3)
    run_id = view["run_id"]
    assert headers["location"] == f"/motions/{run_id}"
    assert api.executor.machines[run_id] == "motion"
    status, _, got = api.call("GET", f"/motions/{run_id}")
    assert (status, got["result"]) == (200, None)  # no result until it concludes
    status, _, votes = api.call("GET", f"/motions/{run_id}/votes")
    assert (status, votes["tallies"], votes["personas"]) == (200, [], "crowd-2026.11")
    # another tenant sees nothing; a claim run is not a motion
    assert api.call("GET", f"/motions/{run_id}", key=api.other_key)[0] == 404
    claim_run = api.call("POST", "/runs", body=CLAIM)[2]["run_id"]
    assert api.executor.machines[claim_run] == "debate"
    assert api.call("GET", f"/motions/{claim_run}")[0] == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"motion": ""}, "motion"),
        ({"motion": "Resolved: x.", "crowd": 101}, "crowd"),
        ({"motion": "Resolved: x.", "rounds": 7}, "rounds"),
        ({"motion": "Resolved: x.", "crowd": True}, "crowd"),
        ({"motion": "Resolved: x.", "citations": False}, "citations"),
        ({"motion": "Resolved: x.", "time_knob": {"ratio": True}}, "time_knob.ratio"),
        ({"motion": "Resolved: x.", "lineup": {"judge": "gpt-4o"}}, "lineup.judge"),
        ({"motion": "Resolved: x.", "lineup": {"audience": "openai:gpt-4o"}}, "lineup.audience.[key]"),
    ],
)
def test_a_bad_motion_is_refused_before_anything_starts(api: Api, body: dict[str, Any], field: str) -> None:
    status, _, problem = api.call("POST", "/motions", body=body)
    assert (status, problem["code"]) == (422, "invalid_request")
    assert problem["field"] == field
    assert api.executor.started == []


@pytest.mark.parametrize(("wanted", "detail"), [
    ("gemini:gemini-2.5-pro", "no key is set for gemini (GEMINI_API_KEY)"),
    ("xai:grok-4", "no key is set for xai (XAI_API_KEY)"),
])  # fmt: skip
def test_a_motion_naming_gemini_or_xai_without_its_key_is_refused_where_it_is_typed(
    api: Api, wanted: str, detail: str
) -> None:
    status, _, problem = api.call(
        "POST", "/motions", body={"motion": "Resolved: x.", "lineup": {"judge": wanted}}
    )
    assert (status, problem["field"], problem["detail"]) == (422, "lineup.judge", detail)
    assert api.executor.started == []
    _settings(api, gemini_api_key=SecretStr("AIza-test"), xai_api_key=SecretStr("xai-test"))
    with use_deps(api.deps):
        status, _, view = api.call(
            "POST", "/motions", body={"motion": "Resolved: x.", "lineup": {"judge": wanted}}
        )
    assert status == 202, view


def test_a_motion_whose_lineup_names_a_provider_without_a_key_is_refused_before_anything_starts(
    api: Api,
) -> None:
    body = {"motion": "Resolved: x.", "lineup": {"crowd": "offline:", "judge": "anthropic:claude-opus-4-1"}}
    assert not api.deps.settings.has_key("anthropic")
    status, _, problem = api.call("POST", "/motions", body=body)
    assert (status, problem["field"]) == (422, "lineup.judge")
    assert problem["detail"] == "no key or base URL is set for anthropic"
    assert api.executor.started == [] and api.store.list_runs("acme", 5).runs == []
    _settings(api, anthropic_api_key=SecretStr("sk-ant-test"))  # with a key, the same line-up starts
    with use_deps(api.deps):
        status, _, view = api.call("POST", "/motions", body=body)
    assert status == 202, view


# ---------------------------------------------------------------- benchmarks (the deployment's scorecards)


def test_benchmarks_are_listed_newest_first_read_by_id_with_their_plots_and_the_same_for_every_tenant(
    api: Api,
) -> None:
    from tests.contract.test_store_contract import PNG, benchmark

    status, _, body = api.call("GET", "/benchmarks")
    assert (status, body) == (200, {"benchmarks": []})
    for n in (1, 2):
        api.store.put_benchmark(benchmark(n), {"calibration-calibration-curve.png": PNG + bytes([n])})
    for key in ("default", api.other_key):  # benchmarks are the deployment's: every tenant reads them
        status, _, body = api.call("GET", "/benchmarks", key=key)
        assert status == 200
        assert [b["benchmark_id"] for b in body["benchmarks"]] == ["b_000000000002", "b_000000000001"]
    status, _, body = api.call("GET", "/benchmarks", query={"limit": "1"})
    assert [b["benchmark_id"] for b in body["benchmarks"]] == ["b_000000000002"]
    status, _, one = api.call("GET", "/benchmarks/b_000000000001")
    assert status == 200 and one["model"] == "the offline reasoner" and one["offline"] is True
    value = one["sections"][0]["values"][0]
    assert value == {"system": "judge", "metric": "MAE to anchors (points)", "value": 20.5, "n": 4}
    plot = one["links"]["plots"]["calibration-calibration-curve.png"]
    assert plot == "/benchmarks/b_000000000001/plots/calibration-calibration-curve.png"
    reply = handler(http_event("GET", plot, headers={"authorization": f"Bearer {api.key}"}), LambdaContext())
    assert (reply["statusCode"], reply["headers"]["Content-Type"]) == (200, "image/png")
    assert reply["isBase64Encoded"] and base64.b64decode(reply["body"]) == PNG + b"\x01"


@pytest.mark.parametrize(
    "path",
    [
        "/benchmarks/b_00000000000f",  # never recorded
        "/benchmarks/run_x",  # not a benchmark id
        "/benchmarks/b_000000000001/plots/averitec-confusion.png",  # not one of its plots
        "/benchmarks/b_000000000001/plots/..%2Fsecret.png",
        "/benchmarks/b_00000000000f/plots/calibration-calibration-curve.png",
    ],
)
def test_a_benchmark_or_plot_that_is_not_there_is_a_404(api: Api, path: str) -> None:
    from tests.contract.test_store_contract import PNG, benchmark

    api.store.put_benchmark(benchmark(1), {"calibration-calibration-curve.png": PNG})
    status, _, body = api.call("GET", path)
    assert (status, body["code"]) == (404, "not_found")


def test_benchmarks_need_a_key(api: Api) -> None:
    for path in ("/benchmarks", "/benchmarks/b_000000000001"):
        status, _, body = api.call("GET", path, key=None)
        assert (status, body["code"]) == (401, "unauthorized")


def test_a_limit_out_of_range_is_refused_naming_it(api: Api) -> None:
    for limit in ("0", "101", "many"):
        status, _, body = api.call("GET", "/benchmarks", query={"limit": limit})
        assert status == 422 and "limit" in json.dumps(body)
