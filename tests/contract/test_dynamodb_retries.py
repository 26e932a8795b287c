"""The DynamoDB store has one retry loop (`DynamoTables._retrying`), and its batch reads use it too:
keys that BatchGetItem leaves unread (throttled) are asked for again, and a read that never completes
ends in a TransientError, as a conditional transaction under endless contention does."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from claimcourt.errors import TransientError
from claimcourt.models import LOCAL_TENANT, RunRecord, RunRequest, RunStatus
from claimcourt.store.base import claim_id_for
from claimcourt.store.dynamodb import DynamoStore, tables
from tests.contract.aws_resources import create_from_template, dynamo_store, dynamodb_settings

T0 = datetime(2025, 1, 1, tzinfo=UTC)


@pytest.fixture
def dynamo(clean_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoStore]:
    monkeypatch.setattr(tables, "_backoff", lambda attempt: None)  # no pauses between tries
    with mock_aws():
        settings = dynamodb_settings()
        create_from_template(settings)
        store = dynamo_store(settings)
        for i in range(4):
            store.create_run(
                RunRecord(
                    run_id=f"run_{i}",
                    claim_id=claim_id_for("Sea levels are rising"),
                    status=RunStatus.RUNNING,
                    request=RunRequest(claim="Sea levels are rising"),
                    created_at=T0 + timedelta(seconds=i),
                    tenant_id=LOCAL_TENANT,
                )
            )
        yield store


def _throttled(store: DynamoStore, monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """BatchGetItem answers only the first key it is asked for, `times` times; then every key."""
    asked: list[int] = []
    real = store.client.batch_get_item

    def batch_get_item(RequestItems: dict[str, Any]) -> dict[str, Any]:
        [(table, request)] = RequestItems.items()
        asked.append(len(request["Keys"]))
        if len(asked) > times:
            return dict(real(RequestItems=RequestItems))
        first, rest = request["Keys"][:1], request["Keys"][1:]
        reply = dict(real(RequestItems={table: {**request, "Keys": first}}))
        return reply | {"UnprocessedKeys": {table: {**request, "Keys": rest}} if rest else {}}

    monkeypatch.setattr(store.client, "batch_get_item", batch_get_item)
    return asked


def test_keys_a_batch_read_leaves_unread_are_read_again(
    dynamo: DynamoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _throttled(dynamo, monkeypatch, times=2)
    listed = [r.run_id for r in dynamo.list_runs(LOCAL_TENANT).runs]
    assert listed == ["run_3", "run_2", "run_1", "run_0"]
    assert asked == [4, 3, 2]  # each try asks only for what is still unread


def test_a_batch_read_that_never_completes_is_a_transient_error(
    dynamo: DynamoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []

    def refused(RequestItems: dict[str, Any]) -> dict[str, Any]:
        asked.append(1)
        return {"Responses": {}, "UnprocessedKeys": RequestItems}  # nothing read, every time

    monkeypatch.setattr(dynamo.client, "batch_get_item", refused)
    with pytest.raises(TransientError, match="reading items by key"):
        dynamo.list_runs(LOCAL_TENANT)
    assert len(asked) == tables.MAX_ATTEMPTS


def test_the_dynamodb_store_retries_in_one_loop_only() -> None:
    # Every pause between tries is _backoff's, and only _retrying pauses: no other retry loop.
    package = Path(tables.__file__).parent
    pauses = []
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                calls = {c.func for c in ast.walk(node) if isinstance(c, ast.Call)}
                names = {f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "") for f in calls}
                if names & {"sleep", "_backoff"}:
                    pauses.append(f"{path.name}:{node.name}")
    assert sorted(pauses) == ["tables.py:_backoff", "tables.py:_retrying"]
