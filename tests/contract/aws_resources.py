"""Moto tables and bucket made from template.yaml's own resource definitions, so the schema the
tests run against is the schema that deploys. Call inside `mock_aws()`."""

from __future__ import annotations

import fnmatch
import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
import yaml

from claimcourt.local.template import CfnLoader, project_root
from claimcourt.settings import Settings
from claimcourt.store.dynamodb import DynamoStore

# Each table and bucket of the template, and the setting that names it to the code.
RESOURCE_SETTINGS = {
    "MainTable": "table_name",
    "RetrievalCacheTable": "cache_table_name",
    "IdempotencyTable": "idempotency_table_name",
    "RateLimitTable": "limits_table_name",
    "ConnectionsTable": "connections_table_name",
    "ArtifactsBucket": "artifacts_bucket",
}
DATA_TYPES = ("AWS::DynamoDB::Table", "AWS::S3::Bucket")


# One session for every test: it loads the service models once, which makes a client ~5 ms, not ~100 ms.
# Its credentials are resolved inside the first mock (moto's fake ones) and only ever used inside mocks.
SESSION = boto3.session.Session(region_name="us-east-1")


# The services whose moto backends hold data in plain dicts that a request may iterate: a Query or a
# Scan walks the whole table (moto's Table.all_items), so a Query on one thread while a PutItem on
# another adds an item raises "dictionary changed size during iteration" (a debate's Parallel
# branches did, 1 run in 8), and a conditional write or transaction can interleave with another. The
# real services make each request atomic; under `one_request_at_a_time` so does moto.
SERIALISED_SERVICES = frozenset({"dynamodb", "s3"})


@contextmanager
def one_request_at_a_time() -> Iterator[None]:
    """While it lasts, moto handles one DynamoDB or S3 request at a time, whichever thread makes it
    (other services' requests, which may call back into the code under test, are left as they are).
    Reentrant, for a request whose handling makes another on its own thread."""
    from moto.core.botocore_stubber import BotocoreStubber

    handling = threading.RLock()
    unserialised = BotocoreStubber.__call__

    def serialised(self: BotocoreStubber, event_name: str, request: Any, **kwargs: Any) -> Any:
        # botocore's event: before-send.<service>.<operation>
        if event_name.split(".")[1] not in SERIALISED_SERVICES:
            return unserialised(self, event_name, request, **kwargs)
        with handling:
            return unserialised(self, event_name, request, **kwargs)

    BotocoreStubber.__call__ = serialised  # type: ignore[method-assign]
    try:
        yield
    finally:
        BotocoreStubber.__call__ = unserialised  # type: ignore[method-assign]


def template() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.load((project_root() / "template.yaml").read_text(), Loader=CfnLoader)
    return doc


def data_resources() -> dict[str, dict[str, Any]]:
    return {k: v for k, v in template()["Resources"].items() if v["Type"] in DATA_TYPES}


def dynamodb_settings(**overrides: Any) -> Settings:
    """Settings selecting the DynamoDB store, with fresh names for every table and the bucket."""
    suffix = uuid.uuid4().hex[:8]
    names = {field: f"test-{field.replace('_', '-')}-{suffix}" for field in RESOURCE_SETTINGS.values()}
    # moto's region and endpoints, whatever the developer's shell says
    where = {"aws_region": "us-east-1", "dynamodb_endpoint_url": None, "s3_endpoint_url": None}
    return Settings(store="dynamodb", **{**where, **names, **overrides})


def create_table_args(name: str, props: dict[str, Any]) -> dict[str, Any]:
    """CloudFormation's table properties as create_table takes them. Only what the two share, or
    what differs by spelling, is carried over; the rest (PITR, deletion protection) has no effect
    on what the store can do."""
    args: dict[str, Any] = {
        "TableName": name,
        "KeySchema": props["KeySchema"],
        "AttributeDefinitions": props["AttributeDefinitions"],
        "BillingMode": props["BillingMode"],
    }
    if "GlobalSecondaryIndexes" in props:
        args["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    if "StreamSpecification" in props:
        view = props["StreamSpecification"]["StreamViewType"]
        args["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
    if "SSESpecification" in props:
        args["SSESpecification"] = {"Enabled": props["SSESpecification"]["SSEEnabled"]}
    return args


def create_from_template(settings: Settings) -> None:
    """Every table (with its TTL) and the bucket, named by `settings`. A data resource the map
    above does not know fails here: a new table needs a setting before tests can use it."""
    dynamodb = SESSION.client("dynamodb", region_name=settings.aws_region)
    s3 = SESSION.client("s3", region_name=settings.aws_region)
    for logical, resource in data_resources().items():
        name = getattr(settings, RESOURCE_SETTINGS[logical])
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::S3::Bucket":
            s3.create_bucket(Bucket=name)
            if (
                props.get("NotificationConfiguration", {})
                .get("EventBridgeConfiguration", {})
                .get("EventBridgeEnabled")
            ):
                s3.put_bucket_notification_configuration(
                    Bucket=name, NotificationConfiguration={"EventBridgeConfiguration": {}}
                )
            continue
        dynamodb.create_table(**create_table_args(name, props))
        ttl = props.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(
                TableName=name,
                TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": ttl["Enabled"]},
            )


def create_uploads_route(settings: Settings) -> str:
    """The template's UploadsRule (its pattern, with the bucket's name) on the default bus, targeting
    its IndexQueue, in moto: the queue's url. Call after create_from_template."""
    resources = template()["Resources"]
    names = {"ArtifactsBucket": settings.artifacts_bucket}

    def filled(value: Any) -> Any:
        if isinstance(value, dict):
            if set(value) == {"Ref"}:
                return names[value["Ref"]]
            return {k: filled(v) for k, v in value.items()}
        if isinstance(value, list):
            return [filled(v) for v in value]
        return value

    sqs = SESSION.client("sqs", region_name=settings.aws_region)
    events = SESSION.client("events", region_name=settings.aws_region)
    queue = resources["IndexQueue"]["Properties"]
    url = sqs.create_queue(
        QueueName=f"index-{uuid.uuid4().hex[:8]}",
        Attributes={"VisibilityTimeout": str(queue["VisibilityTimeout"])},
    )["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    rule = resources["UploadsRule"]["Properties"]
    name = f"uploads-{uuid.uuid4().hex[:8]}"
    events.put_rule(Name=name, EventPattern=json.dumps(filled(rule["EventPattern"])))
    events.put_targets(Rule=name, Targets=[{"Id": rule["Targets"][0]["Id"], "Arn": arn}])
    return str(url)


def dynamo_store(settings: Settings, **options: Any) -> DynamoStore:
    """The store build_store makes for these settings, on the shared session, every Scan refused.
    `options`: DynamoStore's own, e.g. a small inline_limit to send every document to S3."""
    store = DynamoStore(
        settings.table_name,
        settings.cache_table_name,
        settings.limits_table_name,
        settings.connections_table_name,
        settings.artifacts_bucket,
        region=settings.aws_region,
        session=SESSION,
        **options,
    )
    forbid_scans(store.client)
    return store


def forbid_scans(client: Any) -> None:
    """Make the client fail any Scan: every access pattern must be a GetItem or a Query."""

    def refuse(**_: Any) -> None:
        raise AssertionError("the store issued a DynamoDB Scan")

    client.meta.events.register("before-call.dynamodb.Scan", refuse)


def stage_functions() -> list[str]:
    """The functions the state machines invoke (named in their DefinitionSubstitutions: a published
    version of each, `!Ref XFunction.Version`), each once."""
    resources = template()["Resources"]
    named = {
        _function_named(value)
        for resource in resources.values()
        if resource["Type"] == "AWS::Serverless::StateMachine"
        for value in resource["Properties"].get("DefinitionSubstitutions", {}).values()
    }
    return sorted(name for name in named if name is not None and name in resources)


def _function_named(value: Any) -> str | None:
    """The function a substitution names: `!Ref XFunction.Version` (or `!GetAtt XFunction.Arn`)."""
    if isinstance(value, dict) and isinstance(value.get("Ref"), str):
        return str(value["Ref"]).split(".", 1)[0]
    if isinstance(value, dict) and "Fn::GetAtt" in value:
        return str(value["Fn::GetAtt"][0])
    return None


@dataclass(frozen=True)
class Grant:
    resource: str  # a template logical id, or "<logical id>/index" for its indexes
    actions: frozenset[str]
    leading_keys: tuple[str, ...] | None  # a dynamodb:LeadingKeys condition's patterns, if any


def grants(functions: list[str]) -> list[Grant]:
    """What these functions' policies grant (managed policies by Ref, and inline statements; SAM's
    policy templates name no table), with any dynamodb:LeadingKeys condition."""
    resources = template()["Resources"]
    statements: list[dict[str, Any]] = []
    for function in functions:
        for policy in resources[function]["Properties"].get("Policies", []):
            if "Ref" in policy:
                statements += resources[policy["Ref"]]["Properties"]["PolicyDocument"]["Statement"]
            elif "Statement" in policy:
                statements += policy["Statement"]
    found = []
    for statement in statements:
        targets, actions = (
            value if isinstance(value, list) else [value]
            for value in (statement["Resource"], statement["Action"])
        )
        conditions = statement.get("Condition", {}).values()
        leading = [c["dynamodb:LeadingKeys"] for c in conditions if "dynamodb:LeadingKeys" in c]
        for target in targets:
            if "Fn::GetAtt" in target:
                logical = target["Fn::GetAtt"][0]
            else:  # "${MainTable.Arn}/index/*" is the table's indexes, not the table
                sub = target.get("Fn::Sub", "")
                logical = sub.removeprefix("${").split(".")[0] + ("/index" if "/index/" in sub else "")
            found.append(Grant(logical, frozenset(actions), tuple(leading[0]) if leading else None))
    return found


class Calls(set[tuple[str, str]]):
    """(template logical id, IAM action) pairs, and the partition keys each keyed call touched."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[tuple[str, str], set[str]] = {}

    def add_call(self, where: str, action: str, key: dict[str, Any] | None = None) -> None:
        self.add((where, action))
        leading = (key.get("pk") or key.get("id") or {}).get("S") if key else None
        if leading is not None:
            self.keys.setdefault((where, action), set()).add(leading)

    def clear(self) -> None:
        super().clear()
        self.keys.clear()

    def snapshot(self) -> Calls:
        copy = Calls()
        copy.update(self)
        copy.keys = {k: set(v) for k, v in self.keys.items()}
        return copy

    def merge(self, other: Calls) -> None:
        self.update(other)
        for k, v in other.keys.items():
            self.keys.setdefault(k, set()).update(v)


def record_calls(clients: list[Any], settings: Settings, thread: threading.Thread | None = None) -> Calls:
    """Calls that fill with every call these clients make (from `thread` only, if given); a Query
    on an index is on "<logical id>/index". A transaction is authorized item by item, by each
    item's own action, so it is recorded so."""
    logical_of = {getattr(settings, field): logical for logical, field in RESOURCE_SETTINGS.items()}
    calls = Calls()

    def record(params: dict[str, Any], model: Any, **_: Any) -> None:
        if thread is not None and threading.current_thread() is not thread:
            return
        service = model.service_model.endpoint_prefix
        if model.name == "TransactWriteItems":
            for item in params["TransactItems"]:
                ((kind, body),) = item.items()
                action = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}[kind]
                calls.add_call(
                    logical_of[body["TableName"]], f"dynamodb:{action}", body.get("Key") or body.get("Item")
                )
            return
        if model.name == "BatchGetItem":
            for table in params["RequestItems"]:
                calls.add_call(logical_of[table], "dynamodb:BatchGetItem")
            return
        name = params.get("TableName") or params.get("Bucket")
        where = logical_of.get(name, str(name)) + ("/index" if params.get("IndexName") else "")
        key = params.get("Key") or params.get("Item") if service == "dynamodb" else None
        calls.add_call(where, f"{service}:{model.name}", key)

    for client in clients:
        client.meta.events.register("before-parameter-build.*.*", record)
    return calls


def ungranted(calls: Calls, functions: list[str]) -> list[tuple[str, str]]:
    """The calls no policy of these functions allows: a grant under a dynamodb:LeadingKeys condition
    allows only calls whose partition key matches one of its patterns."""
    allowed = grants(functions)
    refused = []
    for where, action in sorted(calls):
        applicable = [g for g in allowed if g.resource == where and action in g.actions]
        if any(g.leading_keys is None for g in applicable):
            continue
        patterns = [p for g in applicable for p in g.leading_keys or ()]
        keys = calls.keys.get((where, action), set())
        unmatched = sorted(k for k in keys if not any(fnmatch.fnmatchcase(k, p) for p in patterns))
        if not applicable or unmatched:
            refused.append((where, action + (f" on {', '.join(unmatched)}" if unmatched else "")))
    return refused
