"""The HTTP API's document collections over real HTTP (`claimcourt serve`'s app): making them,
uploading documents raw or as multipart, what is refused and why, tenants apart, and runs and motions
that name them."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claimcourt.evidence.collections import LocalCollections
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.evidence.documents import MAX_DOCUMENT_BYTES
from tests.conftest import MakeDeps
from tests.fakes.documents import make_pdf
from tests.integration.served import Served, serving
from tests.integration.test_local_server import _until_ended

pytestmark = pytest.mark.timeout(120)

REPORT = make_pdf(
    [
        "Port of Eastmouth Annual Harbour Report 2023\nThe work of the Harbour Authority during 2023.",
        "Traffic. Container traffic at the Port of Eastmouth rose by 18 percent in 2023,\n"
        "reaching 1.2 million containers, the highest volume in the port's history.",
    ],
    title="Port of Eastmouth Annual Harbour Report 2023",
)
SCAN = make_pdf(["", ""])


@pytest.fixture
def api(make_deps: MakeDeps, tmp_path: Path) -> Iterator[Served]:
    """The served API with collections in the test's data directory (tenants acme and globex)."""
    deps = make_deps()
    collections = LocalCollections(tmp_path / "collections", CorpusSource(index_dir=tmp_path / "index"))
    quota = deps.settings.model_copy(update={"collections_quota_mb": 1})  # 1 MB: a test can fill it
    with serving(dataclasses.replace(deps, collections=collections, settings=quota)) as served:
        yield served


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def made(api: Served, name: str = "harbour", tier: str = "T2", key: str | None = None) -> Any:
    return api.client.post("/corpora", json={"name": name, "tier": tier}, headers=auth(key or api.key))


def upload(api: Served, name: str, filename: str, data: bytes, key: str | None = None, **kw: Any) -> Any:
    headers = auth(key or api.key) | {"Content-Type": kw.pop("media_type", "application/pdf")}
    return api.client.put(
        f"/corpora/{name}/documents", params={"filename": filename}, content=data, headers=headers, **kw
    )


def test_a_collection_is_made_listed_shown_and_deleted(api: Served) -> None:
    reply = made(api, tier="T1")
    assert reply.status_code == 201, reply.text
    assert reply.headers["location"] == "/corpora/harbour"
    body = reply.json()
    assert (body["name"], body["tier"], body["documents"], body["links"]["documents"]) == (
        "harbour",
        "T1",
        0,
        "/corpora/harbour/documents",
    )
    listed = api.client.get("/corpora", headers=auth(api.key)).json()["corpora"]
    assert [(c["name"], c["bundled"]) for c in listed] == [("climate", True), ("harbour", False)]
    assert api.client.get("/corpora/harbour", headers=auth(api.key)).json()["tier"] == "T1"
    assert api.client.delete("/corpora/harbour", headers=auth(api.key)).status_code == 204
    gone = api.client.get("/corpora/harbour", headers=auth(api.key))
    assert (gone.status_code, gone.json()["code"]) == (404, "not_found")


def test_a_duplicate_name_a_bad_name_and_the_bundled_corpus_are_refused(api: Served) -> None:
    made(api)
    again = made(api)
    assert (again.status_code, again.json()["code"]) == (409, "collection_exists")
    bad = api.client.post("/corpora", json={"name": "Harbour Files"}, headers=auth(api.key))
    assert (bad.status_code, bad.json()["field"]) == (422, "name")
    # in words a person reads (the console shows it at the field), not as the regular expression
    assert bad.json()["detail"] == (
        "name: 'Harbour Files' is not a collection name:"
        " 1-63 of a-z, 0-9, - and _, starting with a letter or digit"
    )
    # A final newline is not the end of a name (Python's `$` would let it through): no second "harbour"
    newline = api.client.post("/corpora", json={"name": "harbour\n"}, headers=auth(api.key))
    assert (newline.status_code, newline.json()["field"]) == (422, "name")
    climate = made(api, "climate")
    assert (climate.status_code, climate.json()["code"]) == (409, "collection_exists")
    for reply in (
        api.client.delete("/corpora/climate", headers=auth(api.key)),
        upload(api, "climate", "r.pdf", REPORT),
    ):
        assert (reply.status_code, reply.json()["code"]) == (409, "collection_read_only")


def test_a_raw_upload_goes_in_with_its_pages_and_the_same_bytes_again_change_nothing(api: Served) -> None:
    made(api)
    reply = upload(api, "harbour", "eastmouth-2023.pdf", REPORT)
    assert reply.status_code == 200, reply.text
    [outcome] = reply.json()["documents"]
    assert (outcome["filename"], outcome["status"], outcome["document"]["pages"]) == (
        "eastmouth-2023.pdf",
        "added",
        2,
    )
    assert outcome["document"]["url"] == "upload:eastmouth-2023.pdf"
    assert reply.json()["corpus"]["documents"] == 1
    again = upload(api, "harbour", "eastmouth-2023.pdf", REPORT)
    assert again.json()["documents"][0]["status"] == "unchanged"
    # named by Content-Disposition instead, with a path the client had: only its name is kept
    named = api.client.put(
        "/corpora/harbour/documents",
        content=b"Harbour notes: the berth opened in January.",
        headers=auth(api.key)
        | {
            "Content-Type": "text/plain",
            "Content-Disposition": 'attachment; filename="C:\\\\docs\\\\notes.txt"',
        },
    )
    assert named.json()["documents"][0]["filename"] == "notes.txt", named.text
    documents = api.client.get("/corpora/harbour/documents", headers=auth(api.key)).json()["documents"]
    assert sorted(d["title"] for d in documents) == ["Port of Eastmouth Annual Harbour Report 2023", "notes"]
    note = next(d for d in documents if d["title"] == "notes")
    assert (
        api.client.delete(f"/corpora/harbour/documents/{note['id']}", headers=auth(api.key)).status_code
        == 204
    )
    assert api.client.get("/corpora/harbour", headers=auth(api.key)).json()["documents"] == 1


def test_a_multipart_upload_takes_what_it_can_and_names_what_it_cannot(api: Served) -> None:
    made(api)
    files = [
        ("file", ("eastmouth-2023.pdf", REPORT, "application/pdf")),
        ("file", ("minutes-scan.pdf", SCAN, "application/pdf")),
        ("file", ("latin1.txt", "Café".encode("latin-1"), "text/plain")),
    ]
    reply = api.client.put(
        "/corpora/harbour/documents", files=files, data={"note": "a form field"}, headers=auth(api.key)
    )
    assert reply.status_code == 200, reply.text
    outcomes = {d["filename"]: (d["status"], d["reason"]) for d in reply.json()["documents"]}
    assert outcomes["eastmouth-2023.pdf"] == ("added", None)
    assert outcomes["minutes-scan.pdf"][0] == "skipped" and "no text layer" in outcomes["minutes-scan.pdf"][1]
    assert outcomes["latin1.txt"][0] == "skipped" and "not UTF-8" in outcomes["latin1.txt"][1]


def test_an_upload_of_which_nothing_goes_in_is_422_with_each_reason(api: Served) -> None:
    made(api)
    reply = upload(api, "harbour", "scan.pdf", SCAN)
    body = reply.json()
    assert (reply.status_code, body["code"]) == (422, "unreadable_document")
    assert "scan.pdf: no text layer on any of its 2 pages" in body["detail"]
    assert body["documents"][0]["status"] == "skipped"
    assert api.client.get("/corpora/harbour", headers=auth(api.key)).json()["documents"] == 0


def test_an_upload_needs_a_name_a_collection_and_a_size_and_quota_it_fits(api: Served) -> None:
    made(api)
    unnamed = api.client.put("/corpora/harbour/documents", content=REPORT, headers=auth(api.key))
    assert (unnamed.status_code, unnamed.json()["field"]) == (422, "filename")
    missing = upload(api, "nowhere", "r.pdf", REPORT)
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    huge = upload(api, "harbour", "huge.txt", b"a" * (MAX_DOCUMENT_BYTES + 1), media_type="text/plain")
    assert (huge.status_code, huge.json()["code"]) == (413, "document_too_large")
    assert "over the 25 MB limit" in huge.json()["detail"]
    # the quota is 1 MB here: 600 KB goes in, 600 KB more does not
    first = upload(api, "harbour", "a.txt", b"Harbour text. " * 45_000, media_type="text/plain")
    assert first.status_code == 200, first.text
    second = upload(api, "harbour", "b.txt", b"Other harbour text. " * 30_000, media_type="text/plain")
    assert (second.status_code, second.json()["code"]) == (413, "quota_exceeded")
    assert "CLAIMCOURT_COLLECTIONS_QUOTA_MB" in second.json()["detail"]


def test_tenants_never_see_each_others_collections(api: Served) -> None:
    made(api)
    upload(api, "harbour", "eastmouth-2023.pdf", REPORT)
    other = auth(api.other_key)
    assert [c["name"] for c in api.client.get("/corpora", headers=other).json()["corpora"]] == ["climate"]
    for method, path in [
        ("GET", "/corpora/harbour"),
        ("GET", "/corpora/harbour/documents"),
        ("DELETE", "/corpora/harbour"),
    ]:
        reply = api.client.request(method, path, headers=other)
        assert reply.status_code == 404, (method, path)
    assert upload(api, "harbour", "x.pdf", REPORT, key=api.other_key).status_code == 404
    refused = api.client.post(
        "/runs", json={"claim": "Eastmouth's traffic rose", "corpora": ["harbour"]}, headers=other
    )
    assert (refused.status_code, refused.json()["field"]) == (422, "corpora")
    assert "no collection harbour" in refused.json()["detail"]
    assert api.client.get("/runs", headers=other).json()["runs"] == []  # nothing was stored


def test_a_run_over_an_uploaded_collection_cites_its_page(api: Served) -> None:
    made(api, tier="T1")
    upload(api, "harbour", "eastmouth-2023.pdf", REPORT)
    claim = {"claim": "Container traffic at the Port of Eastmouth rose in 2023", "corpora": ["harbour"]}
    reply = api.client.post("/runs", json=claim, headers=auth(api.key))
    assert reply.status_code == 202, reply.text
    done = _until_ended(api.client, api.key, reply.json()["run_id"])
    assert done["status"] == "succeeded", done
    result = done["result"]
    version = api.client.get("/corpora/harbour", headers=auth(api.key)).json()["version"]
    assert result["searched"] == [f"harbour@{version}"]
    pages = {(s["page"], s["source_url"], s["tier"]) for s in result["sources"]}
    assert (2, "upload:eastmouth-2023.pdf#page=2", "T1") in pages


def test_a_motion_naming_a_collection_that_does_not_exist_is_refused(api: Served) -> None:
    reply = api.client.post(
        "/motions", json={"motion": "Ports should grow", "corpora": ["nowhere"]}, headers=auth(api.key)
    )
    assert (reply.status_code, reply.json()["field"]) == (422, "corpora")


def test_where_collections_are_not_available_the_routes_say_so(served: Served) -> None:
    # (the deployed API this round, whose functions have no collections: 503, never a 500)
    for method, path in [("GET", "/corpora"), ("POST", "/corpora"), ("GET", "/corpora/harbour")]:
        reply = served.client.request(method, path, json={"name": "harbour"}, headers=auth(served.key))
        assert (reply.status_code, reply.json()["code"]) == (503, "unavailable"), (method, path)
    run = served.client.post(
        "/runs", json={"claim": "Ports grow", "corpora": ["harbour"]}, headers=auth(served.key)
    )
    assert (run.status_code, run.json()["field"]) == (422, "corpora")
    assert "not available on this deployment" in run.json()["detail"]


def test_a_presigned_upload_asked_of_the_local_server_is_409_naming_the_way_it_can(api: Served) -> None:
    assert made(api).status_code == 201
    reply = api.client.post(
        "/corpora/harbour/uploads", json={"filename": "report.pdf"}, headers=auth(api.key)
    )
    assert reply.status_code == 409, reply.text
    problem = reply.json()
    assert problem["code"] == "presigned_uploads_unavailable"
    assert "PUT the file to /corpora/{name}/documents" in problem["detail"]


def test_a_multipart_boundary_no_header_can_carry_is_a_400_not_a_500(api: Served) -> None:
    # API Gateway hands the handler a header as text, any character in it (a socket carries only bytes,
    # which the local server reads as Latin-1): so this goes to the handler as a stack's API calls it.
    from claimcourt.api.http import handler
    from claimcourt.wiring import use_deps
    from tests.fakes.apigw import LambdaContext, http_event

    made(api)
    part = 'Content-Disposition: form-data; name="file"; filename="a.md"\r\n\r\n# T\n\nA wall.'
    body = f"--b€\r\n{part}\r\n--b€--\r\n"
    event = http_event(
        "PUT",
        "/corpora/harbour/documents",
        headers={"authorization": f"Bearer {api.key}", "content-type": "multipart/form-data; boundary=b€"},
        raw_body=body,
    )
    with use_deps(api.server.deps):
        reply = handler(event, LambdaContext())
    problem = json.loads(reply["body"])
    assert (reply["statusCode"], problem["code"]) == (400, "malformed_multipart"), problem
    assert "ASCII boundary" in problem["detail"]
    assert api.client.get("/corpora/harbour", headers=auth(api.key)).json()["documents"] == 0
