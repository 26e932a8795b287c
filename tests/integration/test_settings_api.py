"""The console's Settings: PUT /settings validated field by field, saved in the store and read by later
runs, the environment winning (and saying so); provider keys entered there, Fernet-encrypted at rest
under a 0600 key file, never returned (set + last 4) nor logged, removable, and used by a later run's
provider calls; a deployed stack (no preferences) refusing both with the reason. Settings and keys are
the whole server's: only the operator's key (tenant local, or made --admin) changes them, another
tenant's reads them without the SearXNG URL or the keys."""

from __future__ import annotations

import dataclasses
import logging
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claimcourt.access import issue_key
from claimcourt.models import LOCAL_TENANT, RunStatus
from claimcourt.preferences import KEY_FILE
from claimcourt.settings import Settings
from claimcourt.wiring import Deps, build_deps, current_deps, use_deps
from tests.fakes.provider_servers import FakeOpenAIServer
from tests.integration.served import serving
from tests.integration.test_http_api import Api, RecordingExecutor
from tests.integration.test_provider_runs import answer_by_schema, run_once

KEY = "sk-proj-" + "Q7x" * 10 + "tail9Z"  # shaped as an OpenAI key
LAST4 = KEY[-4:]


def _deps(tmp_path: Path) -> Deps:
    return build_deps(Settings(data_dir=tmp_path))


@pytest.fixture
def api(clean_env: None, tmp_path: Path) -> Iterator[Api]:
    """`key` is the operator's (tenant local, as `claimcourt serve`'s own user makes), `other_key` a
    tenant's (acme)."""
    deps = dataclasses.replace(_deps(tmp_path), executor=RecordingExecutor())
    operator, _ = issue_key(deps.store, LOCAL_TENANT)
    tenant, _ = issue_key(deps.store, "acme")
    with use_deps(deps):
        yield Api(deps, RecordingExecutor(), operator, tenant)
    deps.store.close()  # type: ignore[attr-defined]


def _get(api: Api) -> dict[str, Any]:
    status, _, body = api.call("GET", "/settings")
    assert status == 200
    return dict(body)


def _saved(shown: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in shown["saved"].items() if v is not None}


# ---------------------------------------------------------------- PUT /settings


@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        (
            {"models_by_role": {"case_for": "acme:model-1"}},
            "models_by_role.case_for",
            "unknown provider 'acme'",
        ),
        ({"models_by_role": {"case_for": "anthropic:bad model!"}}, "models_by_role.case_for", "pattern"),
        ({"models_by_role": {"case_for": "claude-sonnet"}}, "models_by_role.case_for", "provider:model"),
        ({"models_by_role": {"lawyer": "offline:offline"}}, "models_by_role", "no role 'lawyer'"),
        ({"budget_usd": 1000}, "budget_usd", "less than or equal to 100"),
        ({"max_active_runs": 0}, "max_active_runs", "greater than or equal to 1"),
        ({"hourly_runs_per_tenant": 20_000}, "hourly_runs_per_tenant", "less than or equal"),
        ({"default_effort": "extreme"}, "default_effort", "'low', 'standard' or 'high'"),
        ({"dynamic_rounds": "sometimes"}, "dynamic_rounds", "'off', 'shadow' or 'on'"),
        ({"searxng_url": "ftp://search.local"}, "searxng_url", "http(s)://host"),
        ({"searxng_url": "http://u:hunter2@search.local"}, "searxng_url", "without them"),
        ({"search": "searxng"}, "search", "CLAIMCOURT_SEARXNG_URL is not set"),
        ({"provider": "anthropic"}, "provider", "no key is set for anthropic"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
    ],
)
def test_a_bad_setting_is_refused_naming_its_field_and_nothing_is_saved(
    api: Api, body: dict[str, Any], field: str, says: str
) -> None:
    status, _, problem = api.call("PUT", "/settings", body=body)
    assert (status, problem["field"]) == (422, field), problem
    assert says in problem["detail"] and "hunter2" not in problem["detail"]
    assert _saved(_get(api)) == {"models_by_role": {}}


def test_a_setting_saved_before_it_was_refused_is_left_out_and_the_rest_still_applies(
    clean_env: None, tmp_path: Path
) -> None:
    """A SearXNG URL with a password, saved before such URLs were refused: the server still starts, runs
    read the other saved settings, and the URL is not used nor shown (the console shows it unset)."""
    _deps(tmp_path).store.put_saved(  # type: ignore[attr-defined]
        "settings", {"searxng_url": "http://u:hunter2@search.local", "default_effort": "low"}
    )
    deps = _deps(tmp_path)
    assert deps.settings.searxng_url is None and deps.settings.default_effort == "low"
    assert deps.preferences is not None
    assert deps.preferences.saved().model_dump(exclude_none=True) == {
        "models_by_role": {},
        "default_effort": "low",
    }


def test_saved_settings_are_shown_and_read_by_a_later_process_over_the_same_store(
    api: Api, tmp_path: Path
) -> None:
    saved = {
        "models_by_role": {"adjudicator": "offline:offline"},
        "default_effort": "low",
        "default_mode": "verdict",
        "dynamic_rounds": "off",
        "budget_usd": 0.5,
        "max_active_runs": 7,
        "hourly_runs_per_tenant": 40,
        "search": "none",
    }
    status, _, body = api.call("PUT", "/settings", body=saved)
    assert status == 200, body
    assert _saved(body) == saved
    shown = _get(api)
    assert (shown["default_effort"], shown["dynamic_rounds"], shown["max_active_runs"]) == ("low", "off", 7)
    assert shown["budget_usd"] == 0.5 and shown["locked"] == {} and shown["editable"] is True
    # Another process (the CLI, a drift tick) reads them from the store
    later = _deps(tmp_path).settings
    assert (later.default_effort, later.default_mode, later.dynamic_rounds) == ("low", "verdict", "off")
    assert (later.budget_usd, later.hourly_runs_per_tenant, later.search) == (0.5, 40, "none")


def test_the_environment_wins_over_a_saved_setting_and_the_page_is_told_why(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_BUDGET_USD", "5")
    deps = _deps(tmp_path)
    key, _ = issue_key(deps.store, LOCAL_TENANT)
    with use_deps(deps):
        api = Api(deps, RecordingExecutor(), key, key)
        status, _, body = api.call("PUT", "/settings", body={"budget_usd": 1.5, "max_active_runs": 9})
        assert status == 200, body
        shown = _get(api)
    assert shown["saved"]["budget_usd"] == 1.5  # kept, for when the variable goes
    assert shown["budget_usd"] == 5 and shown["max_active_runs"] == 9
    assert shown["locked"] == {"budget_usd": "CLAIMCOURT_BUDGET_USD is set in the server's environment"}
    assert _deps(tmp_path).settings.budget_usd == 5


def test_a_run_started_after_a_save_runs_with_the_saved_settings(clean_env: None, tmp_path: Path) -> None:
    deps = _deps(tmp_path)
    operator, _ = issue_key(deps.store, LOCAL_TENANT)
    with serving(deps) as served:
        saved = {"default_effort": "low", "dynamic_rounds": "off", "search": "none"}
        by_operator = {"Authorization": f"Bearer {operator}"}
        assert served.client.put("/settings", json=saved, headers=by_operator).status_code == 200
        reply = served.client.post(  # a tenant's run: the settings are every tenant's
            "/runs",
            json={"claim": "Arctic sea ice has declined since 1979"},
            headers={"Authorization": f"Bearer {served.key}"},
        )
        assert reply.status_code == 202, reply.text
        run_id = reply.json()["run_id"]
        execution = served.server.runtime.follow(run_id)
        record = deps.store.get_run(run_id)
    assert execution.status == "SUCCEEDED" and record.status == RunStatus.SUCCEEDED, record.error
    assert record.request.effort == "low"  # the saved default, for a request that named none
    assert record.result is not None and record.result.round_control is not None
    assert record.result.round_control.mode == "off"  # the saved controller mode, not the default shadow
    assert record.result.search == "none" and record.result.reasoner == "offline"


# ---------------------------------------------------------------- provider keys


def test_a_malformed_key_is_refused_without_echoing_it(api: Api) -> None:
    bad = "sk-ant-short"
    status, _, problem = api.call("PUT", "/settings/keys/anthropic", body={"key": bad})
    assert (status, problem["field"]) == (422, "key") and bad not in str(problem)
    status, _, problem = api.call("PUT", "/settings/keys/acme", body={"key": KEY})
    assert (status, problem["field"]) == (422, "provider")
    assert all(not k["set"] for k in _get(api)["keys"])


def test_a_key_is_kept_encrypted_under_a_0600_key_file_shown_as_its_last_four_and_removed(
    api: Api, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every record the service logs, whatever an earlier test left its level or handlers at
    logged_records = _Records()
    service = logging.getLogger("claimcourt")
    level = service.level
    service.setLevel(logging.DEBUG)  # setLevel, not the attribute: it clears the loggers' cached answers
    service.addHandler(logged_records)
    try:
        _keys_kept_shown_and_removed(api, tmp_path)
    finally:
        service.removeHandler(logged_records)
        service.setLevel(level)
    logged = "\n".join(logged_records.lines) + "".join(capsys.readouterr())
    assert "provider key saved" in logged and KEY not in logged and KEY[8:20] not in logged


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.getMessage()} {record.__dict__}")


def _keys_kept_shown_and_removed(api: Api, tmp_path: Path) -> None:
    status, _, body = api.call("PUT", "/settings/keys/openai", body={"key": KEY})
    assert status == 200, body
    assert KEY not in str(body)
    [openai] = [k for k in body["keys"] if k["provider"] == "openai"]
    assert openai == {"provider": "openai", "set": True, "last4": LAST4, "source": "console", "locked": None}
    assert stat.S_IMODE((tmp_path / KEY_FILE).stat().st_mode) == 0o600
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("claimcourt.sqlite3*"))
    assert b"openai" in stored and KEY.encode() not in stored and KEY[8:20].encode() not in stored
    assert api.deps.settings.openai_api_key is None  # the fixture's: the server's current ones have it
    assert _deps(tmp_path).settings.openai_api_key.get_secret_value() == KEY  # type: ignore[union-attr]
    # Removed: not set, and a later process has none
    status, _, _ = api.call("DELETE", "/settings/keys/openai")
    assert status == 204
    assert [k["set"] for k in _get(api)["keys"]] == [False] * 4  # anthropic, openai, gemini, xai
    assert _deps(tmp_path).settings.openai_api_key is None


def test_a_key_in_the_environment_is_shown_locked_and_cannot_be_replaced(
    clean_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-" + "e" * 30 + "ENV1")
    deps = _deps(tmp_path)
    key, _ = issue_key(deps.store, LOCAL_TENANT)
    with use_deps(deps):
        api = Api(deps, RecordingExecutor(), key, key)
        status, _, problem = api.call("PUT", "/settings/keys/anthropic", body={"key": "sk-ant-" + "c" * 30})
        [anthropic] = [k for k in _get(api)["keys"] if k["provider"] == "anthropic"]
    assert (status, problem["code"]) == (409, "set_in_environment")
    assert anthropic["last4"] == "ENV1" and anthropic["source"] == "environment"
    assert anthropic["locked"] == "ANTHROPIC_API_KEY is set in the server's environment"


def test_a_later_run_calls_the_provider_with_the_key_entered_in_the_console(
    api: Api, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeOpenAIServer(default=answer_by_schema) as server:
        status, _, _ = api.call("PUT", "/settings/keys/openai", body={"key": KEY})
        assert status == 200
        # A later run over the same data directory, the server's base URL in its environment
        execution, record = run_once(Settings(data_dir=tmp_path, openai_base_url=server.url))
    assert execution.status == "SUCCEEDED", record.error
    assert server.requests and {r.headers["authorization"] for r in server.requests} == {f"Bearer {KEY}"}


def test_a_deployed_stack_refuses_to_save_settings_or_keys_and_says_where_they_live(api: Api) -> None:
    deployed = dataclasses.replace(api.deps, preferences=None)
    with use_deps(deployed):
        status, _, problem = api.call("PUT", "/settings", body={"budget_usd": 1})
        assert (status, problem["code"]) == (409, "settings_deployed") and "template.yaml" in problem[
            "detail"
        ]
        status, _, problem = api.call("PUT", "/settings/keys/openai", body={"key": KEY})
        assert (status, problem["code"]) == (409, "keys_in_secrets_manager")
        assert "Secrets Manager" in problem["detail"]
        shown = _get(api)
    assert shown["editable"] is False and shown["keys"] == [] and "Secrets Manager" in shown["keys_note"]


# ---------------------------------------------------------------- who may change them

SETTINGS = {"search": "searxng", "searxng_url": "http://attacker.example:8888", "max_active_runs": 1}


def test_only_the_operator_changes_the_settings_and_keys_every_tenant_uses(api: Api) -> None:
    """Review finding 3: a tenant's key pointed every tenant's evidence at its own SearXNG, capped
    everyone's runs and replaced the provider keys. It is refused (403, the API's problem) and nothing
    changes; the operator's key, and a key made --admin whatever its tenant, may."""
    before = current_deps().settings
    for method, path, body in [
        ("PUT", "/settings", SETTINGS),
        ("PUT", "/settings/keys/openai", {"key": KEY}),
        ("DELETE", "/settings/keys/openai", None),
    ]:
        status, headers, problem = api.call(method, path, key=api.other_key, body=body)
        assert (status, problem["code"]) == (403, "operator_only"), (method, path, problem)
        assert headers["content-type"] == "application/problem+json"
        assert problem["title"] == "Forbidden" and "claimcourt keys create --admin" in problem["detail"]
    assert current_deps().settings == before and current_deps().settings.openai_api_key is None
    assert _saved(_get(api)) == {"models_by_role": {}} and _get(api)["keys"][1]["set"] is False

    status, _, body = api.call("PUT", "/settings", body=SETTINGS)  # the operator's key
    assert status == 200 and body["operator"] is True and body["editable"] is True, body
    assert current_deps().settings.max_active_runs == 1
    admin, record = issue_key(api.store, "acme", "the ops team", admin=True)
    assert record.admin
    status, _, body = api.call("PUT", "/settings/keys/openai", key=admin, body={"key": KEY})
    assert status == 200 and body["tenant_id"] == "acme" and body["operator"] is True
    assert api.call("DELETE", "/settings/keys/openai", key=admin)[0] == 204


def test_a_tenant_reads_the_settings_without_the_searxng_url_or_the_provider_keys(api: Api) -> None:
    assert api.call("PUT", "/settings", body=SETTINGS)[0] == 200
    assert api.call("PUT", "/settings/keys/openai", body={"key": KEY})[0] == 200
    status, _, shown = api.call("GET", "/settings", key=api.other_key)
    assert status == 200
    assert (shown["tenant_id"], shown["operator"], shown["editable"]) == ("acme", False, False)
    assert shown["search"] == "searxng" and shown["max_active_runs"] == 1  # what runs use, it may read
    assert shown["searxng_url"] is None and shown["saved"]["searxng_url"] is None
    assert "attacker.example" not in str(shown) and LAST4 not in str(shown)
    assert shown["keys"] == [] and "operator's" in shown["keys_note"]
    mine = _get(api)  # the operator sees it all (of a key, still only its last four)
    assert mine["searxng_url"] == "http://attacker.example:8888" and mine["operator"] is True
    assert {k["provider"]: k["last4"] for k in mine["keys"]}["openai"] == LAST4


def test_on_a_stack_a_tenant_is_refused_before_being_told_where_the_settings_live(api: Api) -> None:
    deployed = dataclasses.replace(
        api.deps,
        preferences=None,
        settings=api.deps.settings.model_copy(update={"searxng_url": "http://s:8"}),
    )
    with use_deps(deployed):
        status, _, problem = api.call("PUT", "/settings", key=api.other_key, body={"budget_usd": 1})
        assert (status, problem["code"]) == (403, "operator_only")
        status, _, problem = api.call("PUT", "/settings/keys/openai", key=api.other_key, body={"key": KEY})
        assert (status, problem["code"]) == (403, "operator_only")
        assert _get(api)["searxng_url"] == "http://s:8"
        shown = api.call("GET", "/settings", key=api.other_key)[2]
    assert shown["searxng_url"] is None and shown["editable"] is False and shown["operator"] is False


@pytest.mark.parametrize(
    ("provider", "good", "bad"),
    [
        ("gemini", "AIza" + "G" * 35, "sk-" + "g" * 30),
        ("xai", "xai-" + "x" * 40, "AIza" + "x" * 35),
    ],
)
def test_the_other_vendors_keys_are_taken_by_their_own_shape(
    api: Api, tmp_path: Path, provider: str, good: str, bad: str
) -> None:
    status, _, problem = api.call("PUT", f"/settings/keys/{provider}", body={"key": bad})
    assert status == 422 and bad not in str(problem)
    status, _, body = api.call("PUT", f"/settings/keys/{provider}", body={"key": good})
    assert status == 200, body
    [shown] = [k for k in body["keys"] if k["provider"] == provider]
    assert shown["set"] is True and shown["last4"] == good[-4:]
    assert getattr(_deps(tmp_path).settings, f"{provider}_api_key").get_secret_value() == good


def test_keys_that_a_lost_key_file_can_no_longer_read_can_be_entered_again(api: Api, tmp_path: Path) -> None:
    status, _, _ = api.call("PUT", "/settings/keys/openai", body={"key": KEY})
    assert status == 200
    # Given the key file lost (a new one is made: the stored token no longer decrypts)
    (tmp_path / KEY_FILE).unlink()
    # Then the page still loads, showing the key unset, and the key can be entered again and used
    status, _, body = api.call("GET", "/settings")
    assert status == 200, body
    [openai] = [k for k in body["keys"] if k["provider"] == "openai"]
    assert openai["set"] is False
    status, _, body = api.call("PUT", "/settings/keys/openai", body={"key": KEY})
    assert status == 200, body
    assert _deps(tmp_path).settings.openai_api_key.get_secret_value() == KEY  # type: ignore[union-attr]


def test_the_key_file_is_made_whole_once_and_an_empty_one_is_refused_by_name(tmp_path: Path) -> None:
    from claimcourt.preferences import _key_file

    path = tmp_path / KEY_FILE
    first = _key_file(path)
    assert _key_file(path) == first and len(first) == 44  # a Fernet key, kept
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # no file of its own left behind
    path.write_bytes(b"")  # a crash between creating and writing, under the old way
    with pytest.raises(Exception, match="is empty: remove it"):
        _key_file(path)
