"""Document collections on a deployed stack (evidence/s3_collections.py, indexing.py), under moto: the
table and bucket from template.yaml, uploads by presigned POST, S3's EventBridge announcement routed by
the template's rule to the index queue, the index function on its messages, Retrieve's index from S3."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from moto import mock_aws

from claimcourt.access import issue_key
from claimcourt.api.http import handler as http_handler
from claimcourt.errors import ConflictError, InvalidRequestError, NotFoundError, TooLargeError
from claimcourt.evidence.collections import check_corpora
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.evidence.golden import GoldenSource
from claimcourt.evidence.s3_collections import (
    FETCH_HEADROOM_BYTES,
    UPLOAD_EXPIRES_S,
    UPLOAD_GRACE_S,
    UPLOAD_KEPT_S,
    S3Collections,
)
from claimcourt.indexing import MAX_RECEIVES, index_uploads
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.settings import Settings
from claimcourt.wiring import Deps, use_deps
from tests.conftest import DEFAULT_HITS
from tests.contract.aws_resources import (
    create_from_template,
    create_uploads_route,
    dynamo_store,
    dynamodb_settings,
    template,
)
from tests.fakes.apigw import LambdaContext, http_event
from tests.fakes.clock import Clock

pytestmark = pytest.mark.timeout(120)

REPORT = b"# Harbour report\n\nThe harbour sea wall was raised by 40 cm in 2021 after the storm surge.\n"


class Stack:
    def __init__(self, settings: Settings, queue: str, tmp: Path) -> None:
        self.settings, self.queue, self.tmp = settings, queue, tmp
        self.store = dynamo_store(settings)
        self.collections = self.function("api")

    def function(self, name: str, **options: Any) -> S3Collections:
        """Another function's collections (its own /tmp: a cold start)."""
        return S3Collections(dynamo_store(self.settings), self.tmp / name, **options)

    def post(self, tenant: str, name: str, filename: str, data: bytes) -> str:
        """What a client does: ask for a presigned POST, send the file to S3 with its fields."""
        ticket = self.collections.presign(tenant, name, filename)
        sent = requests.post(ticket.url, data=ticket.fields, files={"file": (filename, data)}, timeout=10)
        assert sent.status_code in (200, 204), sent.text
        return ticket.upload.id

    def deliver(self, collections: S3Collections | None = None) -> dict[str, Any]:
        """The queue's messages to the index function, as one SQS batch (Lambda's poller): those it
        reports failed are offered again at once (as if their visibility timeout had passed), the rest
        deleted."""
        sqs = boto3.client("sqs", region_name="us-east-1")
        messages = sqs.receive_message(
            QueueUrl=self.queue, MaxNumberOfMessages=10, AttributeNames=["ApproximateReceiveCount"]
        ).get("Messages", [])
        event = {
            "Records": [
                {"messageId": m["MessageId"], "body": m["Body"], "attributes": m["Attributes"]}
                for m in messages
            ]
        }
        reply = index_uploads(collections or self.function("index"), event)
        failed = {f["itemIdentifier"] for f in reply["batchItemFailures"]}
        for m in messages:
            if m["MessageId"] in failed:
                sqs.change_message_visibility(
                    QueueUrl=self.queue, ReceiptHandle=m["ReceiptHandle"], VisibilityTimeout=0
                )
            else:
                sqs.delete_message(QueueUrl=self.queue, ReceiptHandle=m["ReceiptHandle"])
        return reply

    def keys(self, prefix: str = "") -> list[str]:
        listed = boto3.client("s3", region_name="us-east-1").list_objects_v2(
            Bucket=self.settings.artifacts_bucket, Prefix=prefix
        )
        return [o["Key"] for o in listed.get("Contents", [])]


def without_list_bucket(collections: S3Collections, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make S3 answer a function as it does one without s3:ListBucket: 403 for a key that is not there
    (moto answers 404 whatever the policy)."""
    from botocore.exceptions import ClientError

    s3 = collections.tables.s3
    for operation, code in (("head_object", "403"), ("get_object", "AccessDenied")):
        original = getattr(s3, operation)

        def forbidden(*args: Any, _original: Any = original, _code: str = code, **kwargs: Any) -> Any:
            try:
                return _original(*args, **kwargs)
            except ClientError as err:
                if err.response["Error"]["Code"] not in ("404", "NoSuchKey"):
                    raise
                raise ClientError({"Error": {"Code": _code, "Message": "Forbidden"}}, "S3") from err

        monkeypatch.setattr(s3, operation, forbidden)


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        settings = dynamodb_settings()
        create_from_template(settings)
        yield Stack(settings, create_uploads_route(settings), tmp_path)


def test_an_upload_by_presigned_post_is_indexed_by_the_index_function_and_searched(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T1")
    upload = stack.post("acme", "harbour", "report.md", REPORT)
    assert [u.status for u in stack.collections.uploads("acme", "harbour")] == ["pending"]

    assert stack.deliver() == {"batchItemFailures": []}

    [document] = stack.collections.documents("acme", "harbour")
    assert (document.title, document.source, document.passages) == ("Harbour report", "report.md", 1)
    assert stack.collections.uploads("acme", "harbour") == []  # in: no longer an upload
    assert stack.keys(f"uploads/acme/harbour/{upload}") == []  # its bytes read and gone
    hits = stack.function("retrieve").source("acme", "harbour").search("sea wall raised", limit=3)
    assert [(h.title, h.tier, h.collection) for h in hits] == [("Harbour report", "T1", "harbour")]
    assert stack.deliver() == {"batchItemFailures": []}  # nothing more queued; nothing indexed twice


def test_an_unreadable_upload_is_skipped_with_its_reason_and_the_rest_go_in(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "scan.pdf", b"%PDF-1.7 this is no pdf at all")
    stack.post("acme", "harbour", "report.md", REPORT)

    stack.deliver()

    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["report.md"]
    [skipped] = stack.collections.uploads("acme", "harbour")
    assert (skipped.filename, skipped.status) == ("scan.pdf", "skipped")
    assert skipped.reason and "PDF" in skipped.reason
    assert stack.keys("uploads/") == []  # nothing left waiting: the reason is what remains


def test_a_warm_function_fetches_a_collections_index_once_per_version(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()
    retrieve = stack.function("retrieve")
    fetched: list[str] = []
    retrieve.tables.s3.meta.events.register(
        "before-parameter-build.s3.GetObject", lambda params, **_: fetched.append(params["Key"])
    )

    first = retrieve.source("acme", "harbour")
    assert first.search("harbour storm surge", limit=2) and fetched  # cold: the index downloaded
    fetched.clear()
    assert retrieve.source("acme", "harbour").search("harbour storm surge", limit=2)
    assert fetched == []  # warm: only the manifest (a GetItem) was read

    stack.post(
        "acme", "harbour", "levees.md", b"# Levees\n\nThe levees along the river were rebuilt in 2019.\n"
    )
    stack.deliver()
    second = retrieve.source("acme", "harbour")
    assert second.name != first.name and fetched  # a new version: fetched once
    assert [h.title for h in second.search("levees rebuilt", limit=1)] == ["Levees"]
    cached = sorted(p.name for p in (stack.tmp / "retrieve" / "acme" / "harbour").iterdir())
    assert len(cached) == 1 and cached[0].startswith(second.name.split("@")[1])  # the old version left /tmp


def test_a_half_built_index_is_never_served(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()
    before = stack.collections.get("acme", "harbour").version
    index = stack.function("index")
    uploaded: list[str] = []

    def fail_midway(filename: str, bucket: str, key: str, *args: Any, **kwargs: Any) -> None:
        if uploaded:
            raise OSError("connection reset")
        uploaded.append(key)
        boto3.client("s3", region_name="us-east-1").upload_file(filename, bucket, key)

    monkeypatch.setattr(index.tables.s3, "upload_file", fail_midway)
    stack.post(
        "acme", "harbour", "levees.md", b"# Levees\n\nThe levees along the river were rebuilt in 2019.\n"
    )

    reply = stack.deliver(index)

    assert len(reply["batchItemFailures"]) == 1  # offered again by the queue
    assert stack.collections.get("acme", "harbour").version == before  # still the whole old version
    assert [u.status for u in stack.collections.uploads("acme", "harbour")] == ["pending"]
    hits = stack.function("retrieve").source("acme", "harbour").search("sea wall", limit=2)
    assert [h.title for h in hits] == ["Harbour report"]


def test_tenants_are_kept_apart_by_their_prefix(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()

    assert [c.name for c in stack.collections.list_collections("globex")] == []
    with pytest.raises(InvalidRequestError, match="is not a tenant"):  # a key ending in a newline
        stack.collections.list_collections("acme\n")
    with pytest.raises(NotFoundError):
        stack.collections.source("globex", "harbour")
    with pytest.raises(NotFoundError):
        stack.collections.presign("globex", "harbour", "x.md")
    keys = stack.keys()
    assert keys and all(k.startswith("collections/acme/harbour/") for k in keys)
    stack.collections.create("globex", "harbour", "T2")  # the same name is another tenant's own
    assert stack.collections.documents("globex", "harbour") == []

    stack.collections.delete("acme", "harbour")
    assert stack.keys() == [] and stack.collections.list_collections("acme") == []


def test_a_collection_beyond_what_a_function_loads_is_refused_with_the_reason(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()

    with pytest.raises(TooLargeError, match=r"over the .* a function can load"):
        stack.function("retrieve", max_index_bytes=1000).source("acme", "harbour")

    small = stack.function("index", max_index_bytes=1000)
    stack.post(
        "acme", "harbour", "levees.md", b"# Levees\n\nThe levees along the river were rebuilt in 2019.\n"
    )
    # the build says so, and the upload is settled with why: it would be refused again, so no retry
    assert stack.deliver(small) == {"batchItemFailures": []}
    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["report.md"]
    [refused] = stack.collections.uploads("acme", "harbour")
    assert (refused.filename, refused.status) == ("levees.md", "skipped")
    assert (
        refused.reason
        and "would need an index of" in refused.reason
        and "another collection" in refused.reason
    )


def test_a_message_that_names_no_upload_is_left_alone(stack: Stack) -> None:
    event = {"Records": [{"messageId": "m1", "body": json.dumps({"detail": {"object": {"key": "x/y"}}})}]}
    assert index_uploads(stack.collections, event) == {"batchItemFailures": []}


def test_the_stacks_api_hands_out_presigned_uploads_and_lists_what_became_of_them(stack: Stack) -> None:
    key, _ = issue_key(stack.store, "acme")
    settings = stack.settings.model_copy(update={"data_dir": stack.tmp})
    reasoner = Reasoner({"offline": OfflineReasoner()}, lambda role: ("offline", "offline"), stack.store, 1.0)
    deps = Deps(settings, stack.store, reasoner, GoldenSource(DEFAULT_HITS), collections=stack.collections)

    def http(method: str, path: str, **kw: Any) -> tuple[int, Any]:
        headers = {"authorization": f"Bearer {key}", **kw.pop("headers", {})}
        reply = http_handler(http_event(method, path, headers=headers, **kw), LambdaContext())
        return reply["statusCode"], json.loads(reply["body"]) if reply.get("body") else None

    with use_deps(deps):
        assert http("POST", "/corpora", body={"name": "harbour"})[0] == 201
        assert http("POST", "/corpora/harbour/uploads", body={"filename": "a.exe"})[0] == 422
        assert http("POST", "/corpora/nowhere/uploads", body={"filename": "a.md"})[0] == 404
        status, ticket = http("POST", "/corpora/harbour/uploads", body={"filename": "scan.pdf"})
        assert status == 201 and ticket["upload"]["status"] == "pending" and ticket["max_bytes"] == 25 * 2**20
        sent = requests.post(ticket["url"], data=ticket["fields"], files={"file": ("scan.pdf", b"%PDF-1 no")})
        assert sent.ok
        # a small file straight through the API: kept for the index function too (202, pending)
        status, put = http(
            "PUT",
            "/corpora/harbour/documents",
            query={"filename": "report.md"},
            raw_body=REPORT.decode(),
            headers={"content-type": "text/markdown"},
        )
        assert status == 202 and [d["status"] for d in put["documents"]] == ["pending"]
        listed = http("GET", "/corpora/harbour/documents")[1]
        assert sorted(u["filename"] for u in listed["uploads"]) == ["report.md", "scan.pdf"]

        stack.deliver()

        listed = http("GET", "/corpora/harbour/documents")[1]
    assert [d["source"] for d in listed["documents"]] == ["report.md"]
    [skipped] = listed["uploads"]
    assert skipped["filename"] == "scan.pdf" and skipped["status"] == "skipped" and "PDF" in skipped["reason"]


def test_a_runs_retrieval_on_a_stack_searches_the_collections_it_names(stack: Stack) -> None:
    from claimcourt.runs import create_run, parse_request
    from claimcourt.wiring import run_evidence

    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()
    request = parse_request({"claim": "The harbour sea wall was raised", "corpora": ["harbour", "climate"]})
    record = create_run(stack.store, request, tenant_id="acme")
    retrieve = S3Collections(stack.store, stack.tmp / "retrieve", CorpusSource(index_dir=stack.tmp / "index"))
    deps = Deps(stack.settings, stack.store, None, GoldenSource(DEFAULT_HITS), collections=retrieve)  # type: ignore[arg-type]

    source = run_evidence(deps, record)

    version = stack.collections.get("acme", "harbour").version
    assert source.name.startswith(f"collections:harbour@{version}+")  # the cache key holds the version
    hits = source.search("harbour sea wall raised storm", limit=4)
    assert hits[0].collection == "harbour" and hits[0].title == "Harbour report"


def test_an_upload_that_would_pass_the_tenants_quota_is_skipped_when_its_size_is_known(stack: Stack) -> None:
    # A presigned POST's size is known only when the index function reads it: the quota is checked there
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.post("acme", "harbour", "big.md", REPORT + b"\n" + b"More about the harbour. " * 4000)
    sqs = boto3.client("sqs", region_name="us-east-1")
    messages = sqs.receive_message(QueueUrl=stack.queue, MaxNumberOfMessages=10).get("Messages", [])
    event = {"Records": [{"messageId": m["MessageId"], "body": m["Body"]} for m in messages]}

    assert index_uploads(stack.function("index"), event, quota_bytes=50_000) == {"batchItemFailures": []}

    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["report.md"]
    [skipped] = stack.collections.uploads("acme", "harbour")
    assert skipped.filename == "big.md" and skipped.reason and "quota" in skipped.reason


def test_the_stacks_api_counts_an_upload_not_yet_read_at_the_most_it_may_be(stack: Stack) -> None:
    key, _ = issue_key(stack.store, "acme")
    settings = stack.settings.model_copy(update={"data_dir": stack.tmp, "collections_quota_mb": 40})
    reasoner = Reasoner({"offline": OfflineReasoner()}, lambda role: ("offline", "offline"), stack.store, 1.0)
    deps = Deps(settings, stack.store, reasoner, GoldenSource(DEFAULT_HITS), collections=stack.collections)

    def post(filename: str) -> tuple[int, Any]:
        event = http_event(
            "POST", "/corpora/harbour/uploads", headers={"authorization": f"Bearer {key}"},
            body={"filename": filename},
        )  # fmt: skip
        reply = http_handler(event, LambdaContext())
        return reply["statusCode"], json.loads(reply["body"])

    with use_deps(deps):
        stack.collections.create("acme", "harbour", "T2")
        assert post("one.md")[0] == 201  # one pending: up to 25 MB of the 40
        status, problem = post("two.md")  # a second could take it to 50
    assert status == 413 and problem["code"] == "quota_exceeded"


def test_the_upload_origin_the_console_may_connect_to_is_where_a_presigned_post_goes(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T2")
    ticket = stack.collections.presign("acme", "harbour", "report.md")
    assert ticket.url.startswith(stack.collections.upload_origin() + "/")
    assert stack.collections.upload_origin() == f"https://{stack.settings.artifacts_bucket}.s3.amazonaws.com"


def test_an_upload_url_never_used_stops_holding_quota_once_it_lapses_and_is_listed_as_never_arrived(
    stack: Stack,
) -> None:
    clock = Clock()
    api = stack.function("api", now=clock)
    key, _ = issue_key(stack.store, "acme")
    settings = stack.settings.model_copy(update={"data_dir": stack.tmp, "collections_quota_mb": 60})
    reasoner = Reasoner({"offline": OfflineReasoner()}, lambda role: ("offline", "offline"), stack.store, 1.0)
    deps = Deps(settings, stack.store, reasoner, GoldenSource(DEFAULT_HITS), collections=api)

    def http(method: str, path: str, **kw: Any) -> tuple[int, Any]:
        reply = http_handler(
            http_event(method, path, headers={"authorization": f"Bearer {key}"}, **kw), LambdaContext()
        )
        return reply["statusCode"], json.loads(reply["body"])

    with use_deps(deps):
        api.create("acme", "harbour", "T2")
        status, sent = http("POST", "/corpora/harbour/uploads", body={"filename": "report.md"})
        assert status == 201
        posted = requests.post(sent["url"], data=sent["fields"], files={"file": ("report.md", REPORT)})
        assert posted.ok  # it arrives; the index function has not read it yet
        assert http("POST", "/corpora/harbour/uploads", body={"filename": "closed-tab.pdf"})[0] == 201
        refused = http("POST", "/corpora/harbour/uploads", body={"filename": "third.pdf"})
        assert (refused[0], refused[1]["code"]) == (413, "quota_exceeded")  # two pending: 50 of 60 MB
        assert "and 2 uploads not yet read, at up to 25 MB each" in refused[1]["detail"]

        clock.at += timedelta(seconds=UPLOAD_EXPIRES_S + UPLOAD_GRACE_S - 1)
        assert http("POST", "/corpora/harbour/uploads", body={"filename": "third.pdf"})[0] == 413  # in grace
        clock.at += timedelta(seconds=2)  # past it: the URL nobody used holds nothing
        assert http("POST", "/corpora/harbour/uploads", body={"filename": "third.pdf"})[0] == 201

        listed = {u["filename"]: u for u in http("GET", "/corpora/harbour/documents")[1]["uploads"]}
    assert listed["report.md"]["status"] == "pending"  # arrived: waiting for the index function
    assert listed["third.pdf"]["status"] == "pending"
    abandoned = listed["closed-tab.pdf"]
    assert abandoned["status"] == "skipped" and abandoned["reason"].startswith("never arrived: ")
    stack.deliver()
    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["report.md"]

    # Every upload record carries the attribute the table's TTL deletes by, a month on
    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    ttl = dynamodb.describe_time_to_live(TableName=stack.settings.table_name)["TimeToLiveDescription"]
    assert ttl["TimeToLiveStatus"] == "ENABLED"
    items = stack.store._partition("COLL#acme", "UPLOAD#harbour#")
    expiries = [int(item[ttl["AttributeName"]]["N"]) for item in items]
    assert len(expiries) == 2 and all(e >= clock.at.timestamp() + UPLOAD_KEPT_S - 60 for e in expiries)


@pytest.mark.parametrize("list_bucket", [True, False])
def test_a_post_begun_in_time_that_lands_after_its_grace_still_goes_in(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, list_bucket: bool
) -> None:
    clock = Clock()
    api = stack.function("api", now=clock)
    if not list_bucket:  # as deployed: S3 answers 403 for the upload not yet there
        without_list_bucket(api, monkeypatch)
    api.create("acme", "harbour", "T2")
    ticket = api.presign("acme", "harbour", "report.md")
    clock.at += timedelta(seconds=UPLOAD_EXPIRES_S + UPLOAD_GRACE_S + 1)
    [lapsed] = api.uploads("acme", "harbour")
    assert lapsed.status == "skipped" and lapsed.reason and lapsed.reason.startswith("never arrived")

    sent = requests.post(ticket.url, data=ticket.fields, files={"file": ("report.md", REPORT)}, timeout=10)
    assert sent.ok
    stack.deliver()

    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["report.md"]
    assert stack.collections.uploads("acme", "harbour") == []


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (ConflictError("collection harbour is changing under too many writers: try again", "busy"), "busy"),
        (OSError("connection reset"), "a fault on the stack's side"),
    ],
)
def test_a_build_that_keeps_failing_is_retried_then_settled_as_skipped_on_the_queues_last_receive(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, failure: Exception, reason: str
) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    index = stack.function("index")

    def fails(*args: Any, **kwargs: Any) -> None:
        raise failure

    monkeypatch.setattr(index, "put", fails)
    for receive in range(1, MAX_RECEIVES):
        assert len(stack.deliver(index)["batchItemFailures"]) == 1  # offered again
        [waiting] = stack.collections.uploads("acme", "harbour")
        assert waiting.status == "pending", receive

    # the last receive: the queue gives the message to its dead-letter queue (the alarm), and the upload
    # is no longer left pending for good
    assert len(stack.deliver(index)["batchItemFailures"]) == 1
    [settled] = stack.collections.uploads("acme", "harbour")
    assert settled.status == "skipped" and settled.reason and reason in settled.reason
    assert stack.keys("uploads/") == []


def test_the_last_receive_is_the_template_queues_max_receive_count() -> None:
    queue = template()["Resources"]["IndexQueue"]["Properties"]
    assert queue["RedrivePolicy"]["maxReceiveCount"] == MAX_RECEIVES


@pytest.mark.parametrize("list_bucket", [True, False])
def test_a_collection_that_lost_a_documents_passages_settles_uploads_with_the_reason(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, list_bucket: bool
) -> None:
    index = stack.function("index")
    if not list_bucket:  # as deployed: S3 answers 403 for the passages not there
        without_list_bucket(index, monkeypatch)
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()
    [lost] = stack.keys("collections/acme/harbour/passages/")
    boto3.client("s3", region_name="us-east-1").delete_object(
        Bucket=stack.settings.artifacts_bucket, Key=lost
    )
    stack.post(
        "acme", "harbour", "levees.md", b"# Levees\n\nThe levees along the river were rebuilt in 2019.\n"
    )

    assert stack.deliver(index) == {"batchItemFailures": []}  # no retry would find the passages

    [settled] = stack.collections.uploads("acme", "harbour")
    assert settled.filename == "levees.md" and settled.status == "skipped"
    assert settled.reason == (
        "collection harbour has lost the passages of report.md: remove that document and add it again"
    )
    stack.collections.remove("acme", "harbour", "report.md")  # and that mends it
    stack.post(
        "acme", "harbour", "levees.md", b"# Levees\n\nThe levees along the river were rebuilt in 2019.\n"
    )
    stack.deliver()
    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["levees.md"]


def test_a_stage_names_a_collection_from_its_manifest_items_version_alone(stack: Stack) -> None:
    stack.collections.create("acme", "harbour", "T2")
    stack.post("acme", "harbour", "report.md", REPORT)
    stack.deliver()
    stage = stack.function("argue", bundled=CorpusSource(index_dir=stack.tmp / "index"))
    fetched: list[str] = []
    stage.tables.s3.meta.events.register(
        "before-parameter-build.s3.GetObject", lambda params, **_: fetched.append(params["Key"])
    )

    name = stage.source_name("acme", "harbour")

    assert name == stack.function("retrieve").source("acme", "harbour").name
    assert fetched == [] and not (stack.tmp / "argue").exists()  # nothing downloaded, nothing in /tmp
    assert stage.source_name("acme", "climate") == "climate-fever-wikipedia"
    stack.collections.delete("acme", "harbour")
    with pytest.raises(NotFoundError):
        stage.source_name("acme", "harbour")


def _collections_of_three(stack: Stack) -> dict[str, int]:
    """Three indexed collections of acme's, and each one's index bytes (as the bucket holds them)."""
    notes = {
        "harbour": b"# Harbour\n\nThe harbour sea wall was raised by 40 cm in 2021 after the storm surge.\n",
        "levees": b"# Levees\n\nThe levees along the river were rebuilt in 2019 with federal money.\n",
        "quays": b"# Quays\n\nThe north quay was lengthened to take the larger container ships in 2022.\n",
    }
    for name, text in notes.items():
        stack.collections.create("acme", name, "T2")
        stack.post("acme", name, f"{name}.md", text)
    stack.deliver()
    s3 = boto3.client("s3", region_name="us-east-1")
    sizes = {}
    for name in notes:
        listed = s3.list_objects_v2(
            Bucket=stack.settings.artifacts_bucket, Prefix=f"collections/acme/{name}/index/"
        )
        sizes[name] = sum(o["Size"] for o in listed["Contents"])
    return sizes


def _cached(stack: Stack, function: str) -> list[str]:
    """The collections whose index a function holds in its /tmp."""
    root = stack.tmp / function / "acme"
    return sorted(p.name for p in root.iterdir() if any(root.glob(f"{p.name}/*"))) if root.is_dir() else []


def test_an_index_that_leaves_the_loaded_few_leaves_tmp_too(stack: Stack) -> None:
    _collections_of_three(stack)
    retrieve = stack.function("retrieve", max_loaded=2)
    for name in ("harbour", "levees", "quays"):
        assert retrieve.source("acme", name).search("harbour levees quay", limit=2) is not None
    assert _cached(stack, "retrieve") == ["levees", "quays"]  # harbour's folder went with its index
    assert [h.title for h in retrieve.source("acme", "harbour").search("sea wall", limit=1)] == ["Harbour"]
    assert _cached(stack, "retrieve") == ["harbour", "quays"]  # fetched again; levees, least recent, gone


def test_room_is_made_before_a_fetch_and_a_search_that_cannot_fit_is_refused_by_name(stack: Stack) -> None:
    sizes = _collections_of_three(stack)
    used = lambda: sum(f.stat().st_size for f in (stack.tmp / "retrieve").rglob("*") if f.is_file())  # noqa: E731
    # A /tmp with room for two of the three indexes (and the headroom a fetch keeps)
    capacity = FETCH_HEADROOM_BYTES + sizes["harbour"] + sizes["levees"] + sizes["quays"] // 2
    retrieve = stack.function("retrieve", free_bytes=lambda path: capacity - used())

    retrieve.sources("acme", ["harbour"])
    retrieve.sources("acme", ["levees"])
    assert _cached(stack, "retrieve") == ["harbour", "levees"]
    [quays] = retrieve.sources("acme", ["quays"])  # no room: the least recently searched goes first
    assert _cached(stack, "retrieve") == ["levees", "quays"] and quays.search("north quay", limit=1)
    retrieve.sources("acme", ["levees", "harbour"])  # one search needs both: quays makes way
    assert _cached(stack, "retrieve") == ["harbour", "levees"]

    with pytest.raises(
        TooLargeError, match=r"collection quays's index .* does not fit .* name fewer"
    ) as refused:
        retrieve.sources("acme", ["harbour", "levees", "quays"])  # none of them may go: refused, by name
    assert refused.value.code == "collection_too_large"
    assert _cached(stack, "retrieve") == ["harbour", "levees"]


def test_a_run_naming_more_index_than_one_search_may_load_is_refused_before_anything_is_spent(
    stack: Stack,
) -> None:
    sizes = _collections_of_three(stack)
    cap = sizes["harbour"] + sizes["levees"]  # two of them together, not three
    api = stack.function("api", bundled=CorpusSource(index_dir=stack.tmp / "index"), max_run_index_bytes=cap)
    check_corpora(api, "acme", ["harbour", "levees", "climate"])  # the bundled corpus is not counted

    with pytest.raises(
        InvalidRequestError, match=r"hold .* of index together \(harbour .*, over .* name fewer"
    ):
        check_corpora(api, "acme", ["harbour", "levees", "quays"])
    retrieve = stack.function("retrieve", max_run_index_bytes=cap)
    with pytest.raises(TooLargeError, match="one run can search"):  # and Retrieve, were it asked
        retrieve.sources("acme", ["harbour", "levees", "quays"])
    assert _cached(stack, "retrieve") == []  # refused before anything was fetched
