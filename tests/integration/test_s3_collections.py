"""Document collections on a deployed stack (evidence/s3_collections.py, indexing.py), under moto: the
table and bucket from template.yaml, uploads by presigned POST, S3's EventBridge announcement routed by
the template's rule to the index queue, the index function on its messages, Retrieve's index from S3."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
import requests
from moto import mock_aws

from claimcourt.access import issue_key
from claimcourt.api.http import handler as http_handler
from claimcourt.errors import InvalidRequestError, NotFoundError, TooLargeError
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.evidence.golden import GoldenSource
from claimcourt.evidence.s3_collections import S3Collections
from claimcourt.indexing import index_uploads
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
)
from tests.fakes.apigw import LambdaContext, http_event

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
        """The queue's messages to the index function, as one SQS batch (Lambda's poller)."""
        sqs = boto3.client("sqs", region_name="us-east-1")
        messages = sqs.receive_message(QueueUrl=self.queue, MaxNumberOfMessages=10).get("Messages", [])
        event = {"Records": [{"messageId": m["MessageId"], "body": m["Body"]} for m in messages]}
        return index_uploads(collections or self.function("index"), event)

    def keys(self, prefix: str = "") -> list[str]:
        listed = boto3.client("s3", region_name="us-east-1").list_objects_v2(
            Bucket=self.settings.artifacts_bucket, Prefix=prefix
        )
        return [o["Key"] for o in listed.get("Contents", [])]


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
    assert stack.deliver(small)["batchItemFailures"]  # the build says so; the collection is unchanged
    assert [d.source for d in stack.collections.documents("acme", "harbour")] == ["report.md"]


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
