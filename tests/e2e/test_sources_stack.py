"""The Sources page's uploads as a stack takes them, in a real browser: the console asks the API for a
presigned POST (a moto-backed S3Collections behind `claimcourt serve`'s app, in this process) and
sends each file straight to the bucket, whose origin the page's content security policy allows; the
file is then pending until the index function reads it. Against the local server the same page meets
the 409 that says presigned uploads are a stack's, and sends the files through the API instead.

Loopback cannot be S3: the browser's POST to the bucket's https origin is handed by Playwright to
moto (the form as the browser wrote it), and S3's CORS answer is played here. What only a real stack
shows: S3 evaluating the template's CORS rule against the console's execute-api origin, and API
Gateway's body limit that the presigned path goes around."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import boto3
import pytest
import requests
from moto import mock_aws
from playwright.sync_api import Page, Request, Route, expect

from claimcourt.access import issue_key
from claimcourt.wiring import build_deps
from tests.contract.aws_resources import create_from_template, dynamodb_settings
from tests.e2e.console import Served
from tests.e2e.test_sources import NOTES, REPORT, _collection, _outcome
from tests.integration.served import serving

pytestmark = pytest.mark.timeout(240)

TOO_LARGE = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>EntityTooLarge</Code>'
    b"<Message>Your proposed upload exceeds the maximum allowed size</Message></Error>"
)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    """The console on a stack's store and bucket (moto), and the bucket's name."""
    region = os.environ.get("AWS_DEFAULT_REGION")
    os.environ["AWS_DEFAULT_REGION"] = "us-east-1"
    try:
        with mock_aws():
            settings = dynamodb_settings(data_dir=tmp_path_factory.mktemp("stack"), provider="offline")
            create_from_template(settings)
            deps = build_deps(settings)
            operator_key, _ = issue_key(deps.store, "local")
            with serving(deps) as local:
                yield (
                    Served(f"http://127.0.0.1:{local.port}", local.key, settings.data_dir, operator_key),
                    settings.artifacts_bucket,
                )
    finally:
        if region is None:
            os.environ.pop("AWS_DEFAULT_REGION", None)
        else:
            os.environ["AWS_DEFAULT_REGION"] = region


@pytest.fixture(scope="module")
def served(stack: tuple[Served, str]) -> Served:
    return stack[0]


def _uploads(bucket: str) -> dict[str, bytes]:
    """What reached the bucket under uploads/, by key."""
    s3 = boto3.client("s3", region_name="us-east-1")
    listed = s3.list_objects_v2(Bucket=bucket, Prefix="uploads/").get("Contents", [])
    return {o["Key"]: s3.get_object(Bucket=bucket, Key=o["Key"])["Body"].read() for o in listed}


def test_on_a_stack_each_file_goes_to_the_bucket_by_its_presigned_post_and_is_pending(
    page: Page, stack: tuple[Served, str]
) -> None:
    served, bucket = stack
    _collection(served, "harbour-stack")
    to_bucket: list[str] = []

    def as_s3(route: Route, request: Request) -> None:
        """The bucket: the browser's form to moto, S3's CORS header on its answer (the template's rule)."""
        form = request.post_data_buffer or b""
        to_bucket.append(request.url)
        if b'filename="huge.pdf"' in form:  # what S3 answers a file past the policy's size
            route.fulfill(status=400, body=TOO_LARGE, headers=_cors(served, "application/xml"))
            return
        sent = requests.post(
            request.url, data=form, headers={"content-type": request.headers["content-type"]}, timeout=10
        )
        route.fulfill(status=sent.status_code, body=sent.content, headers=_cors(served))

    page.route(re.compile(rf"^https://{re.escape(bucket)}\.s3[.a-z0-9-]*\.amazonaws\.com/"), as_s3)
    # The policy the console goes out with names the bucket's origin (else the browser refuses the POST)
    policy = page.goto("/").headers["content-security-policy"]  # type: ignore[union-attr]
    page.goto("/#/sources/harbour-stack")
    expect(page.locator("#drop-zone")).to_be_visible()
    page.wait_for_load_state("networkidle")

    page.locator("#upload-input").set_input_files(
        files=[
            {"name": "harbour-2023.pdf", "mimeType": "application/pdf", "buffer": REPORT},
            {"name": "berth-notes.txt", "mimeType": "text/plain", "buffer": NOTES.encode()},
            {"name": "huge.pdf", "mimeType": "application/pdf", "buffer": b"%PDF-1.7 pretend it is 30 MB"},
        ]
    )

    assert _outcome(page, "harbour-2023.pdf") == "pending"
    assert _outcome(page, "berth-notes.txt") == "pending"
    assert _outcome(page, "huge.pdf") == "refused"
    expect(page.locator("#upload-outcomes li[data-file='huge.pdf'] .reason")).to_have_text(
        "the bucket refused it: Your proposed upload exceeds the maximum allowed size"
    )
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(to_bucket[0]))
    assert origin in policy.split("connect-src ")[1].split(";")[0]
    # The two went to the bucket as the browser sent them, and the collection lists them as pending
    assert sorted(_uploads(bucket).values()) == sorted([REPORT, NOTES.encode()])
    for name in ("harbour-2023.pdf", "berth-notes.txt"):
        expect(page.locator(f"#pending-uploads li[data-file='{name}']")).to_have_attribute(
            "data-status", "pending"
        )


def _cors(served: Served, content_type: str | None = None) -> dict[str, str]:
    headers = {"access-control-allow-origin": served.url}
    return headers | ({"content-type": content_type} if content_type else {})
