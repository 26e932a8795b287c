"""A whole debate through the local runtime with the DynamoDB store, selected by settings from the
environment, on moto tables made from template.yaml. The test's own mock_aws holds the tables; the
runtime's mock_aws nests inside it (moto resets its backends only when the outermost mock starts)."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from claimcourt.bench.loopback import LoopbackServer, Reply, Request
from claimcourt.errors import NotFoundError, ProviderError
from claimcourt.evidence.base import Hit
from claimcourt.evidence.golden import GoldenSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import LOCAL_TENANT, MonitorRequest, RunStatus
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.store.dynamodb import DynamoStore
from claimcourt.watching.drift import create_monitor
from claimcourt.wiring import Deps, build_idempotency, build_store
from tests.contract.aws_resources import (
    RESOURCE_SETTINGS,
    create_from_template,
    dynamo_store,
    dynamodb_settings,
    forbid_scans,
    record_calls,
    stage_functions,
    ungranted,
)
from tests.fakes.scripted import PRICED_MODEL, ScriptedProvider
from tests.integration.test_score_changed import RecordingPublisher

pytestmark = pytest.mark.timeout(120)

WAIT_S = 60
COMPOUND = "Sea levels are rising and glaciers are retreating worldwide"
HITS = (
    Hit(
        text="Global sea levels are rising: the global mean has risen about 21 to 24 centimeters since 1880.",
        title="Climate Change: Global Sea Level",
        url="https://www.climate.gov/news-features/understanding-climate/climate-change-global-sea-level",
    ),
    Hit(
        text="Glaciers are retreating almost everywhere around the world as temperatures rise.",
        title="Retreat of glaciers since 1850",
        url="https://en.wikipedia.org/wiki/Retreat_of_glaciers_since_1850",
    ),
    Hit(
        text="Sea levels are not rising, says a sceptic reading old tide gauge records.",
        title="A sceptic's blog",
        url="https://sceptic-blog.example.net/sea-levels",
    ),
)


@pytest.fixture
def dynamodb_env(clean_env: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Settings]:
    """CLAIMCOURT_STORE=dynamodb and fresh table names in the environment, the tables in moto."""
    with mock_aws():
        names = dynamodb_settings()
        monkeypatch.setenv("CLAIMCOURT_STORE", "dynamodb")
        for name in ("AWS_REGION", "DYNAMODB_ENDPOINT_URL", "S3_ENDPOINT_URL"):
            monkeypatch.delenv(f"CLAIMCOURT_{name}", raising=False)
        for field in RESOURCE_SETTINGS.values():
            monkeypatch.setenv(f"CLAIMCOURT_{field.upper()}", getattr(names, field))
        settings = Settings(data_dir=tmp_path)
        create_from_template(settings)
        yield settings


def _deps(settings: Settings, provider: ScriptedProvider, store: DynamoStore | None = None) -> Deps:
    """Every part on one store: two DynamoStores on one moto table would race (each serializes only
    its own writes, and moto's transactions copy the table they write)."""
    store = store or build_store(settings)
    assert isinstance(store, DynamoStore)
    forbid_scans(store.client)
    registry = {"offline": OfflineReasoner(), provider.name: provider}
    reasoner = Reasoner(registry, lambda role: (provider.name, PRICED_MODEL), store, 1.0)
    idempotency = build_idempotency(settings, store)  # Powertools' DynamoDBPersistenceLayer
    return Deps(
        settings=settings,
        store=store,
        reasoner=reasoner,
        evidence=GoldenSource(HITS),
        idempotency=idempotency,
    )


def _run_items(store: DynamoStore, run_id: str) -> list[dict[str, Any]]:
    pages = store.client.get_paginator("query").paginate(
        TableName=store.table,
        KeyConditionExpression="pk = :pk",
        ExpressionAttributeValues={":pk": {"S": f"RUN#{run_id}"}},
    )
    return [item for page in pages for item in page["Items"]]


def test_a_debate_runs_to_its_verdict_on_dynamodb(dynamodb_env: Settings) -> None:
    # Given the DynamoDB store, chosen by CLAIMCOURT_STORE, and a recorded run
    provider = ScriptedProvider()
    deps = _deps(dynamodb_env, provider)
    store = deps.store
    assert isinstance(store, DynamoStore)
    run = create_run(store, parse_request({"claim": COMPOUND}))

    # When the state machine runs it
    with LocalRuntime(deps) as runtime:
        execution = runtime.execute(run.run_id, timeout_s=WAIT_S)

    # Then it succeeded, and everything it made is in DynamoDB
    assert execution.status == "SUCCEEDED", execution.error
    record = store.get_run(run.run_id)
    assert record.status is RunStatus.SUCCEEDED and record.result is not None
    assert execution.output is not None and execution.output["score"] == record.result.overall_score
    assert [s.id for s in record.result.sub_claims] == ["sc1", "sc2"]
    assert record.result.usage.llm_calls == len(provider.calls) == len(store.run_calls(run.run_id))
    assert store.run_spend(run.run_id) == pytest.approx(record.cost_usd)
    # the event log: seq 1..n with no gap, nothing twice, created first and succeeded last
    events = store.list_events(run.run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert (events[0].type, events[-1].type) == ("run.created", "run.succeeded")
    scopes = Counter((e.type, e.stage, e.round, e.side, e.data.get("sub_claim_id")) for e in events)
    assert [k for k, n in scopes.items() if n > 1] == []
    # the artifacts every stage wrote, the claim and its drift point, the run in the listing
    assert store.find_artifacts(run.run_id, "evidence/r01/").keys() == {
        "evidence/r01/sc1",
        "evidence/r01/sc2",
    }
    assert {"argument/r01/for", "argument/r01/against"} <= store.find_artifacts(
        run.run_id, "argument/"
    ).keys()
    assert store.get_artifact(run.run_id, "judgement/s00")["mapping"]
    [point] = store.drift_series(LOCAL_TENANT, run.claim_id)
    assert (point.run_id, point.score) == (run.run_id, record.result.overall_score)
    assert [(c.claim_id, c.run_count) for c in store.list_claims(LOCAL_TENANT)] == [(run.claim_id, 1)]
    assert [r.run_id for r in store.list_runs(LOCAL_TENANT).runs] == [run.run_id]
    # and every item is far under DynamoDB's 400 KB
    largest = max(len(json.dumps(item)) for item in _run_items(store, run.run_id))
    assert largest < 100_000


def test_a_failed_debate_ends_failed_once_on_dynamodb(dynamodb_env: Settings) -> None:
    provider = ScriptedProvider().fail("argue", ProviderError("invalid x-api-key"), on_call=1)
    deps = _deps(dynamodb_env, provider)
    run = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}))
    with LocalRuntime(deps) as runtime:
        execution = runtime.execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "FAILED"
    record = deps.store.get_run(run.run_id)
    assert (record.status, record.error) == (RunStatus.FAILED, "ProviderError: invalid x-api-key")
    assert deps.store.set_status(run.run_id, RunStatus.SUCCEEDED) is False
    events = deps.store.list_events(run.run_id)
    assert [e.type for e in events].count("run.failed") == 1
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert deps.store.drift_series(LOCAL_TENANT, run.claim_id) == []


class _FakeDynamoDB(LoopbackServer):
    """Answers every DynamoDB call with an empty JSON object and remembers which call it was."""

    def __init__(self) -> None:
        self.targets: list[str] = []
        super().__init__()

    def answer(self, request: Request) -> Reply:
        self.targets.append(request.headers["x-amz-target"])
        return Reply(200, b"{}", {"content-type": "application/x-amz-json-1.0"})


def test_a_custom_endpoint_is_reached_past_the_runtimes_mock(clean_env: None, tmp_path: Path) -> None:
    # A laptop points dynamodb_endpoint_url at DynamoDB Local or a moto server: moto's mock (which the
    # local runtime always starts) intercepts only *.amazonaws.com, so those calls reach the endpoint.
    with _FakeDynamoDB() as server, mock_aws():
        store = build_store(dynamodb_settings(dynamodb_endpoint_url=server.base_url, data_dir=tmp_path))
        with pytest.raises(NotFoundError):
            store.get_run("run_x")
    assert server.targets == ["DynamoDB_20120810.GetItem"]


LARGEST_CLAIM = (
    "Sea levels are rising quickly worldwide; glaciers are retreating across mountain ranges; "
    "Arctic sea ice is shrinking every summer; ocean heat content is increasing steadily; "
    "coral reefs are bleaching more often; heatwaves are becoming more frequent everywhere"
)


def _long_hits(n: int = 40) -> list[Hit]:
    """Long, distinct passages that every sub-claim's query finds: retrieval returns its maximum."""
    words = "sea levels rising glaciers retreating arctic ice shrinking ocean heat coral reefs heatwaves"
    return [
        Hit(
            text=f"Passage {i}: " + " ".join([words] * 120),
            title=f"Report {i}",
            url=f"https://www.noaa.gov/r{i}",
        )
        for i in range(n)
    ]


def _always_continue(task: Any) -> Any:
    from claimcourt.models import ModeratorView

    return ModeratorView(
        decisive_dispute="still open",
        dispute_sub_claim_id="sc1",
        next_query=f"sea level glaciers arctic ocean coral heatwaves round {task.inputs.round}",
        recommendation="continue",
        provisional_score=50,
    )


def test_the_largest_debate_keeps_payloads_and_items_inside_aws_limits(dynamodb_env: Settings) -> None:
    # Given the largest debate the settings allow: effort high (4 rounds, 6 sub-claims, 6 passages a
    # query, 3 self-consistency samples), a moderator that never converges, long evidence
    provider = ScriptedProvider().respond("moderate", _always_continue)
    deps = _deps(dynamodb_env, provider)
    deps = Deps(deps.settings, deps.store, deps.reasoner, GoldenSource(_long_hits()), deps.idempotency)
    store = deps.store
    assert isinstance(store, DynamoStore)
    run = create_run(store, parse_request({"claim": LARGEST_CLAIM, "effort": "high"}))
    with LocalRuntime(deps) as runtime:
        arn = runtime.start(run.run_id)
        execution = runtime.follow(run.run_id, timeout_s=WAIT_S)
        history = runtime.history(arn)
    assert execution.status == "SUCCEEDED"
    result = store.get_run(run.run_id).result
    assert result is not None and result.rounds == 4 and len(result.sub_claims) == 6

    # Then no state payload nears Step Functions' 256 KB and no item DynamoDB's 400 KB
    payloads = [
        (len(details[field].encode()), f"{event['type']}.{field}")
        for event in history
        for key, details in event.items()
        if key.endswith("EventDetails") and isinstance(details, dict)
        for field in ("input", "output", "parameters")
        if isinstance(details.get(field), str)
    ]
    items = [(len(json.dumps(item).encode()), item["sk"]["S"]) for item in _run_items(store, run.run_id)]
    (payload, where), (item, which) = max(payloads), max(items)
    print(f"\nlargest debate: state payload {payload:,} B ({where}); DynamoDB item {item:,} B ({which})")
    assert payload < 16 * 1024
    assert item < 350 * 1024


def test_stages_record_their_idempotency_in_the_template_table(dynamodb_env: Settings) -> None:
    # Given a debate on DynamoDB, with Powertools' DynamoDB idempotency layer on the template's table
    provider = ScriptedProvider()
    deps = _deps(dynamodb_env, provider)
    run = create_run(deps.store, parse_request({"claim": COMPOUND}))
    with LocalRuntime(deps) as runtime:
        execution = runtime.execute(run.run_id, timeout_s=WAIT_S)
        assert execution.status == "SUCCEEDED", execution.error
        calls = len(provider.calls)
        # When a stage that completed is invoked again, as a Step Functions retry would
        handler = runtime.dispatcher._handlers["claimcourt-SuitabilityFunction"][1]
        from claimcourt.local.dispatch import LocalContext

        again = handler({"run_id": run.run_id}, LocalContext(function_name="claimcourt-SuitabilityFunction"))
    # Then it answers from its record, without another model call
    assert again["proceed"] is True and len(provider.calls) == calls
    # and the records are in the template's idempotency table, shaped as Powertools writes them
    from moto.dynamodb.models import dynamodb_backends

    table = dynamodb_backends["123456789012"]["us-east-1"].tables[dynamodb_env.idempotency_table_name]
    items = [item.to_json()["Attributes"] for item in table.all_items()]
    assert len(items) >= 10  # one per stage invocation of the run
    assert all({"id", "expiration", "status"} <= item.keys() for item in items)
    assert {item["status"]["S"] for item in items} == {"COMPLETED"}


def test_every_call_a_debate_makes_is_granted_by_the_template(dynamodb_env: Settings) -> None:
    # Given a debate whose documents all overflow to S3 (a tiny inline limit), with every AWS call recorded
    s = dynamodb_env
    store = dynamo_store(s, inline_limit=200)
    # and a monitor of its claim, so the score stage looks for a score change to publish
    deps = dataclasses.replace(_deps(s, ScriptedProvider(), store), publisher=RecordingPublisher())
    calls = record_calls([store.client, store.s3, deps.idempotency.client], s)  # type: ignore[union-attr]
    create_monitor(store, LOCAL_TENANT, MonitorRequest(claim=COMPOUND, cadence="daily", threshold=1))
    run = create_run(store, parse_request({"claim": COMPOUND}))  # the API's part, not a stage's
    calls.clear()
    with LocalRuntime(deps) as runtime:
        execution = runtime.execute(run.run_id, timeout_s=WAIT_S)
        assert execution.status == "SUCCEEDED", execution.error

    # Then each one is granted: stages need nothing the template does not give them
    assert ("ArtifactsBucket", "s3:PutObject") in calls and ("IdempotencyTable", "dynamodb:PutItem") in calls
    assert ("MainTable/index", "dynamodb:Query") in calls  # the claim's monitors
    assert ungranted(calls, stage_functions()) == []
