"""What the web console needs from the HTTP API, which scripts get too: the console's own files at
`/` and `/console/<file>` (no key, a content security policy naming only this API), `GET /settings`
(providers and each role's model, never a key), `GET /runs?q=` (search by claim text, paged), and
the runs that raised claim.score_changed in a claim's history."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from claimcourt.access import issue_key
from claimcourt.api import console
from claimcourt.models import RunEvent, RunRequest
from claimcourt.runs import create_run
from claimcourt.settings import MOTION_ROLES, ROLES
from claimcourt.wiring import use_deps
from tests.conftest import MakeDeps
from tests.contract.test_store_contract import _result
from tests.integration.test_http_api import Api, RecordingExecutor

CONSOLE = Path(console.__file__).resolve().parents[1] / "console"


@pytest.fixture
def api(make_deps: MakeDeps) -> Iterator[Api]:
    deps = dataclasses.replace(make_deps(), executor=RecordingExecutor())
    key, _ = issue_key(deps.store, "acme")
    other, _ = issue_key(deps.store, "globex")
    with use_deps(deps):
        yield Api(deps, RecordingExecutor(), key, other)


@contextmanager
def _settings(api: Api, **changes: Any) -> Iterator[None]:
    with use_deps(dataclasses.replace(api.deps, settings=api.deps.settings.model_copy(update=changes))):
        yield


def _finished(api: Api, claim: str, **request: Any) -> str:
    record = create_run(api.store, RunRequest(claim=claim, **request), tenant_id="acme")
    api.store.finish_run(record.run_id, _result(record.run_id))
    return record.run_id


# ---------------------------------------------------------------- the console's files


def test_the_console_page_is_served_without_a_key_under_a_policy_that_names_only_its_own_apis(
    api: Api,
) -> None:
    with _settings(api, websocket_url="wss://abc123.execute-api.eu-west-1.amazonaws.com/prod"):
        status, headers, _ = _raw(api, "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "connect-src 'self' wss://abc123.execute-api.eu-west-1.amazonaws.com;" in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("name", ["app.js", "styles.css", "theme.js", "uplot.esm.js", "uplot-license.txt"])
def test_each_console_file_is_served_with_its_type(api: Api, name: str) -> None:
    status, headers, body = _raw(api, f"/console/{name}")
    assert status == 200
    assert (
        headers["content-type"].split(";")[0]
        == {
            "js": "text/javascript",
            "css": "text/css",
            "txt": "text/plain",
        }[name.rsplit(".", 1)[1]]
    )
    assert body == (CONSOLE / name).read_text()


@pytest.mark.parametrize(
    "path", ["/console/nope.js", "/console/..%2Fhttp.py", "/console/APP.JS", "/console/"]
)
def test_no_other_file_is_served(api: Api, path: str) -> None:
    status, _, _ = _raw(api, path)
    assert status in (401, 404)


def test_only_reading_the_console_needs_no_key(api: Api) -> None:
    assert api.call("POST", "/", key=None, body={})[0] == 401
    assert api.call("GET", "/runs", key=None)[0] == 401


def test_every_file_the_console_loads_is_there() -> None:
    """Each module a page imports and each file index.html names exists, so no page breaks on a 404."""
    named: set[str] = set()
    for path in CONSOLE.iterdir():
        if path.suffix in (".js", ".html") and path.name != "uplot.esm.js":
            text = path.read_text()
            named |= set(re.findall(r"""["'](?:\./|/console/)([\w.-]+\.(?:js|css|svg))["']""", text))
    assert named and all((CONSOLE / name).is_file() for name in named), named
    assert all(console.asset(name) is not None for name in named)


def test_the_vendored_chart_library_keeps_its_licence() -> None:
    assert "MIT" in (CONSOLE / "uplot-license.txt").read_text()
    assert "Leon Sorokin" in (CONSOLE / "uplot.esm.js").read_text()[:400]


# ---------------------------------------------------------------- GET /settings


def test_settings_name_the_providers_and_each_roles_model_and_never_a_key(api: Api) -> None:
    secret = "sk-ant-very-secret-value"
    with _settings(
        api,
        anthropic_api_key=SecretStr(secret),
        models_by_role={"adjudicator": "anthropic:claude-opus-4-1", "crowd": "anthropic:claude-haiku-4-5"},
        websocket_url="ws://127.0.0.1:9/",
    ):
        status, _, body = api.call("GET", "/settings")
    assert status == 200
    assert secret not in str(body) and "very-secret" not in str(body)
    assert body["tenant_id"] == "acme" and body["websocket_url"] == "ws://127.0.0.1:9/"
    providers = {p["name"]: p for p in body["providers"]}
    assert providers["anthropic"] == {"name": "anthropic", "configured": True, "default": True}
    assert providers["openai"]["configured"] is False
    assert [p["name"] for p in body["providers"]] == ["anthropic", "openai", "gemini", "xai", "offline"]
    roles = {r["role"]: (r["provider"], r["model"]) for r in body["roles"]}
    assert roles["adjudicator"] == ("anthropic", "claude-opus-4-1")
    assert roles["case_for"] == ("anthropic", "claude-sonnet-4-6")
    assert set(roles) == set(ROLES)
    # a motion debate's roles: named ones as named, the rest as the claim role each plays
    motion_roles = {r["role"]: (r["provider"], r["model"]) for r in body["motion_roles"]}
    assert set(motion_roles) == set(MOTION_ROLES)
    assert motion_roles["crowd"] == ("anthropic", "claude-haiku-4-5")
    assert motion_roles["judge"] == roles["moderator"] and motion_roles["debater_for"] == roles["case_for"]
    assert api.call("GET", "/settings", key=None)[0] == 401


def test_settings_where_the_keys_are_not_known_route_each_role_as_configured(api: Api) -> None:
    """The deployed API reads no provider keys: it says so, and shows each role as configured rather
    than as falling back for want of a key it cannot see."""
    named = {"crowd": "openai:gpt-4o-mini", "adjudicator": "anthropic:claude-opus-4-1"}
    with _settings(api, provider_keys_known=False, models_by_role=named):
        body = api.call("GET", "/settings")[2]
    assert body["provider_keys_known"] is False
    motion_roles = {r["role"]: (r["provider"], r["model"]) for r in body["motion_roles"]}
    roles = {r["role"]: (r["provider"], r["model"]) for r in body["roles"]}
    assert motion_roles["crowd"] == ("openai", "gpt-4o-mini")
    assert roles["adjudicator"] == ("anthropic", "claude-opus-4-1")
    with _settings(api, models_by_role=named):  # the laptop, with no keys: both fall back, as they will
        body = api.call("GET", "/settings")[2]
    assert body["provider_keys_known"] is True
    assert {r["role"]: r["provider"] for r in body["motion_roles"]}["crowd"] == "offline"


def test_settings_say_which_web_search_finds_the_evidence(api: Api) -> None:
    def search(**changes: Any) -> tuple[Any, Any]:
        with _settings(api, **changes):
            body = api.call("GET", "/settings")[2]
        return body["search"], body["web_search"]

    assert search() == ("none", False)  # no key, no SearXNG: the bundled corpus
    assert search(openai_api_key=SecretStr("sk-proj-secret")) == ("openai", True)
    assert search(searxng_url="http://127.0.0.1:8888") == ("searxng", True)
    assert search(searxng_url="http://127.0.0.1:8888", search="none") == ("none", False)
    # the deployed API holds no keys: what is named, else not known here
    assert search(provider_keys_known=False) == (None, True)
    assert search(provider_keys_known=False, search="searxng") == ("searxng", True)


# ---------------------------------------------------------------- GET /runs?q=


def test_runs_are_searched_by_claim_text_in_any_case(api: Api) -> None:
    sea = _finished(api, "Sea levels are rising")
    _finished(api, "Arctic sea ice has declined since 1979")
    _finished(api, "The Earth is flat")
    status, _, body = api.call("GET", "/runs", query={"q": "SEA"})
    assert status == 200
    assert [r["claim"] for r in body["runs"]] == [
        "Arctic sea ice has declined since 1979",
        "Sea levels are rising",
    ]
    assert body["next_cursor"] is None
    _, _, page = api.call("GET", "/runs", query={"q": "sea", "limit": "1"})
    assert len(page["runs"]) == 1 and page["next_cursor"]
    _, _, rest = api.call("GET", "/runs", query={"q": "sea", "limit": "1", "cursor": page["next_cursor"]})
    assert [r["run_id"] for r in rest["runs"]] == [sea] and rest["next_cursor"] is None
    assert api.call("GET", "/runs", query={"q": "moon"})[2]["runs"] == []


def test_another_tenants_runs_are_not_found_by_search(api: Api) -> None:
    _finished(api, "Sea levels are rising")
    _, _, body = api.call("GET", "/runs", key=api.other_key, query={"q": "sea"})
    assert body["runs"] == []


# ---------------------------------------------------------------- a claim's history


def test_a_claims_history_names_the_runs_that_moved_its_score(api: Api) -> None:
    first = _finished(api, "Sea levels are rising")
    second = _finished(api, "Sea levels are rising")
    api.store.append_event(
        RunEvent(run_id=second, type="claim.score_changed", data={}), key="claim.score_changed"
    )
    claim_id = api.store.get_run(first).claim_id
    status, _, body = api.call("GET", f"/claims/{claim_id}/history")
    assert status == 200
    assert {p["run_id"] for p in body["points"]} == {first, second}
    assert body["score_changes"] == [second]


def _raw(api: Api, path: str) -> tuple[int, dict[str, str], str]:
    """A GET with no key, the body as text (the console's files are not JSON)."""
    import base64
    import gzip

    from claimcourt.api.http import handler
    from tests.fakes.apigw import LambdaContext, http_event

    reply = handler(http_event("GET", path, headers={}), LambdaContext())
    body = reply.get("body") or ""
    if reply.get("isBase64Encoded"):
        body = gzip.decompress(base64.b64decode(body)).decode()
    return reply["statusCode"], {k.lower(): v for k, v in reply.get("headers", {}).items()}, body


def test_on_a_stack_the_policy_lets_the_page_post_to_the_bucket_its_uploads_are_presigned_for(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Bucket:  # a stack's collections, as far as the console's policy reads them
        def presign(self, tenant: str, name: str, filename: str) -> None: ...
        def stage(self, tenant: str, name: str, filename: str, data: bytes) -> None: ...
        def uploads(self, tenant: str, name: str) -> list[Any]:
            return []

        def upload_origin(self) -> str:
            return "https://claimcourt-artifacts.s3.amazonaws.com"

    with use_deps(dataclasses.replace(api.deps, collections=Bucket())):  # type: ignore[arg-type]
        policy = _raw(api, "/")[1]["content-security-policy"]
    assert "connect-src 'self' https://claimcourt-artifacts.s3.amazonaws.com;" in policy
    assert "s3" not in _raw(api, "/")[1]["content-security-policy"]  # the local server's: no bucket
