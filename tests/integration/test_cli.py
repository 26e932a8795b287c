"""The `claimcourt` command as a user runs it: exit statuses, what is stored, what is printed."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from claimcourt.cli import main
from claimcourt.models import LOCAL_TENANT, Direction, RunStatus, ScoreMover
from claimcourt.runs import create_run, parse_request
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.clock import Clock
from tests.fakes.provider_servers import FakeOpenAIServer, openai_json_completion

pytestmark = [pytest.mark.timeout(180), pytest.mark.usefixtures("clean_env")]


def invoke(data_dir: Path, *args: str, now: Callable[[], datetime] | None = None) -> Result:
    """`claimcourt ARGS --data-dir DATA_DIR`; with `now`, its runs are admitted at the time it reads."""
    return CliRunner().invoke(main, [*args, "--data-dir", str(data_dir)], catch_exceptions=False, obj=now)


@pytest.fixture
def paid_runs(clean_env: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """Runs that spend, so the hourly cap counts them: the suitability check on a paid model (a fake
    OpenAI server on 127.0.0.1 that lets every claim through), every other role offline."""
    suitable = openai_json_completion({"proceed": True, "flags": [], "warnings": []})
    with FakeOpenAIServer(default=lambda body: suitable) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("CLAIMCOURT_PROVIDER", "offline")
        monkeypatch.setenv("CLAIMCOURT_MODELS_BY_ROLE", json.dumps({"suitability": "openai:gpt-4.1"}))
        yield server


def stored_runs(data_dir: Path) -> int:
    path = data_dir / "claimcourt.sqlite3"
    return len(SqliteStore(path).list_runs(LOCAL_TENANT, 100).runs) if path.exists() else 0


def test_run_prints_a_verdict_and_stores_the_run(tmp_path: Path) -> None:
    result = invoke(tmp_path, "run", "Global warming is causing sea levels to rise")
    assert result.exit_code == 0, result.output
    assert "Score" in result.stdout and "verdict" in result.stdout
    assert "no language model was used" in result.stdout
    assert "round 2" in result.stderr  # progress went to stderr, every round shown
    assert stored_runs(tmp_path) == 1


def test_run_json_is_the_full_result_on_a_clean_stdout(tmp_path: Path) -> None:
    result = invoke(tmp_path, "run", "Arctic sea ice is declining", "--json", "--mode", "verdict")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)  # nothing but the JSON on stdout
    assert body["status"] == "succeeded" and body["mode"] == "verdict"
    scored = body["result"]
    assert scored["reasoner"] == "offline"
    assert scored["overall_verdict"] in {"supported", "refuted", "not-enough-evidence", "conflicting"}
    assert 0 <= scored["interval"]["low"] <= scored["overall_score"] <= scored["interval"]["high"] <= 100
    assert (body["score"], body["verdict"]) == (scored["overall_score"], scored["overall_verdict"])
    # and show --json gives the same shape for the same run
    shown = invoke(tmp_path, "show", body["run_id"], "--json")
    assert json.loads(shown.stdout) == body


def test_motion_json_is_the_motions_shape_and_show_json_gives_the_same(tmp_path: Path) -> None:
    motion = "Nuclear power should be central to decarbonisation"
    result = invoke(tmp_path, "motion", motion, "--rounds", "1", "--crowd", "4", "--json")
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)  # GET /motions/{id}'s shape, less its links
    assert (body["status"], body["motion"]["motion"], body["motion"]["crowd"]) == ("succeeded", motion, 4)
    assert body["result"]["vote_zero"]["voters"] == 4 and "swing" in body["result"]
    assert json.loads(invoke(tmp_path, "show", body["run_id"], "--json").stdout) == body
    # a motion has no round controller: said so, not "stopped before its first round ended"
    rounds = invoke(tmp_path, "show", body["run_id"], "--rounds")
    assert rounds.exit_code == 2
    assert rounds.stderr.startswith(f"error: run_id: {body['run_id']} is a motion debate, which has no round")


def test_a_motion_role_named_twice_in_the_line_up_is_refused(tmp_path: Path) -> None:
    lineup = ["--lineup", "judge=offline:a", "--lineup", "judge=offline:b"]
    result = invoke(tmp_path, "motion", "Cities should ban cars from their centres", *lineup)
    assert result.exit_code == 2
    assert result.stderr == "error: lineup.judge: named twice (offline:a and offline:b)\n"
    assert stored_runs(tmp_path) == 0


def test_run_in_turn_for_fixed_rounds_with_the_rubric_judge_as_the_readme_shows(tmp_path: Path) -> None:
    claim = "Global warming is causing sea levels to rise and glaciers to retreat"
    result = invoke(tmp_path, "run", claim, "--first", "against", "--rounds", "3", "--judge", "rubric")
    assert result.exit_code == 0, result.output
    # the progress shows the turns in order, every round; the verdict says how the debate was run
    assert result.stderr.count("argue  against → for") == 3 and "round 4" not in result.stderr
    assert "Debate: 3 rounds (as asked), against first, for answering; judge: rubric, rating the claim" in (
        " ".join(result.stdout.split())
    )
    assert "Disagreement hierarchy" in result.stdout and "rubric_scale" in result.stdout
    body = json.loads(invoke(tmp_path, "runs", "--json").stdout.splitlines()[0])
    scored = json.loads(invoke(tmp_path, "show", body["run_id"], "--json").stdout)["result"]
    assert (scored["rounds"], scored["rounds_fixed"], scored["first"], scored["judge"]) == (
        3,
        3,
        "against",
        "rubric",
    )
    assert {h["side"] for h in scored["rubric"]["hierarchy"]} == {"for", "against"}


def test_a_stopped_run_prints_the_same_json_shape_with_no_result(tmp_path: Path) -> None:
    result = invoke(tmp_path, "run", "This statement is false", "--json")
    assert result.exit_code == 3
    body = json.loads(result.stdout)
    assert (body["status"], body["result"], body["score"]) == ("stopped", None, None)
    assert body["warnings"] and set(body) == set(
        json.loads(invoke(tmp_path, "show", body["run_id"], "--json").stdout)
    )


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["   "], "claim"),
        (["x" * 2001], "claim"),
        (["bell\x07 claim"], "claim"),
        (["Sea levels rise", "--mode", "bogus"], "mode"),
        (["Sea levels rise", "--effort", "max"], "effort"),
        (["Sea levels rise", "--as-of", "2020-13-45"], "as_of_date"),
        (["Sea levels rise", "--as-of", "2999-01-01"], "as_of_date"),
        (["Sea levels rise", "--first", "second"], "first"),
        (["Sea levels rise", "--rounds", "7"], "rounds"),
        (["Sea levels rise", "--rounds", "0"], "rounds"),
        (["Sea levels rise", "--rounds", "two"], "rounds"),
        (["Sea levels rise", "--judge", "jury"], "judge"),
    ],
)
def test_bad_input_is_one_line_naming_the_field_and_stores_nothing(
    tmp_path: Path, args: list[str], field: str
) -> None:
    result = invoke(tmp_path, "run", *args)
    assert result.exit_code == 2
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: {field}:")
    assert stored_runs(tmp_path) == 0


def test_version_is_the_installed_packages() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert (result.exit_code, result.stdout) == (0, f"claimcourt {version('claimcourt')}\n")


@pytest.mark.parametrize(
    ("command", "choices"),
    [
        (["run"], {"--mode": "spectral|verdict", "--effort": "low|standard|high", "--first": "for|against"}),
        (["run"], {"--judge": "contract|rubric"}),
        (["backtest"], {"--mode": "spectral|verdict", "--effort": "low|standard|high"}),
        (["monitor", "add"], {"--mode": "spectral|verdict", "--effort": "low|standard|high"}),
        (["motion"], {"--first": "for|against"}),
    ],
)
def test_help_shows_each_options_choices(command: list[str], choices: dict[str, str]) -> None:
    shown = CliRunner().invoke(main, [*command, "--help"]).stdout
    for option, values in choices.items():
        assert f"{option} [{values}]" in shown, shown


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["backtest", "Sea ice", "--dates", "2015-01-01", "--effort", "max"], "error: effort: 'max' is not"),
        (
            ["monitor", "add", "Sea ice", "--cadence", "daily", "--threshold", "5", "--mode", "x"],
            "error: mode: ",
        ),
    ],
)
def test_an_option_outside_its_choices_is_one_line_naming_it(
    tmp_path: Path, args: list[str], line: str
) -> None:
    result = invoke(tmp_path, *args)
    assert result.exit_code == 2
    [said] = result.stderr.splitlines()
    assert said.startswith(line) and ("low, standard, high" in said or "spectral, verdict" in said), said
    assert stored_runs(tmp_path) == 0


def test_keys_list_and_monitor_list_print_a_header_over_their_columns(tmp_path: Path) -> None:
    made = invoke(tmp_path, "keys", "create", "--tenant", "acme", "--label", "ci")
    key_id = made.stdout.strip().split("_")[1]
    header, row = invoke(tmp_path, "keys", "list").stdout.splitlines()
    assert header.split() == ["KEY", "TENANT", "STATE", "CREATED", "LABEL"]
    assert row.split()[:3] == [key_id, "acme", "active"] and row.split()[-1] == "ci"
    assert [row.index(word) for word in ("acme", "active", "ci")] == [
        header.index(word) for word in ("TENANT", "STATE", "LABEL")
    ]
    invoke(tmp_path, "monitor", "add", "Sea levels are rising", "--cadence", "daily", "--threshold", "5")
    header, row = invoke(tmp_path, "monitor", "list").stdout.splitlines()
    assert header.split() == ["MONITOR", "CADENCE", "THRESHOLD", "NEXT", "DUE", "LAST", "RUN", "CLAIM"]
    assert row.index("daily") == header.index("CADENCE") and row.index("Sea levels") == header.index("CLAIM")


def test_an_admin_key_is_the_operators_and_is_listed_so(tmp_path: Path) -> None:
    """The server's settings and provider keys are every tenant's: a key made --admin may change them, as
    tenant local's may; any other reads them."""
    admin = invoke(tmp_path, "keys", "create", "--tenant", "acme", "--admin", "--label", "ops")
    assert admin.exit_code == 0 and "the operator's (it may change the settings)" in admin.stderr
    plain = invoke(tmp_path, "keys", "create", "--tenant", "globex")
    assert "it reads the settings" in plain.stderr
    own = invoke(tmp_path, "keys", "create", "--tenant", "local")
    assert "the operator's" in own.stderr
    _, *rows = invoke(tmp_path, "keys", "list").stdout.splitlines()
    admins = {row.split()[1]: "active, admin" in row for row in rows}
    assert admins == {"acme": True, "globex": False, "local": True}


def test_an_unsuitable_claim_exits_3_with_its_warning(tmp_path: Path) -> None:
    result = invoke(tmp_path, "run", "This statement is false.")
    assert result.exit_code == 3
    assert "refers to itself" in result.stdout


def test_runs_lists_history_newest_first_and_show_prints_one(tmp_path: Path) -> None:
    first = json.loads(invoke(tmp_path, "run", "Sea levels are rising", "--json").stdout)["run_id"]
    second = json.loads(invoke(tmp_path, "run", "Glaciers are retreating", "--json").stdout)["run_id"]
    listing = invoke(tmp_path, "runs", "--json")
    assert [json.loads(line)["run_id"] for line in listing.stdout.splitlines()] == [second, first]
    shown = invoke(tmp_path, "show", first)
    assert shown.exit_code == 0 and "Sea levels are rising" in shown.stdout


def test_show_an_unknown_run_is_bad_input(tmp_path: Path) -> None:
    result = invoke(tmp_path, "show", "run_nope")
    assert result.exit_code == 2 and "no run run_nope" in result.stderr


def test_show_sees_the_clis_own_runs_unless_told_another_tenant_and_never_deleted_ones(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    theirs = create_run(store, parse_request({"claim": "Sea levels are rising"}), tenant_id="acme")
    mine = create_run(store, parse_request({"claim": "Glaciers are retreating"}))
    hidden = invoke(tmp_path, "show", theirs.run_id)
    assert hidden.exit_code == 2 and f"no run {theirs.run_id} for tenant local" in hidden.stderr
    assert "Sea levels" not in hidden.stdout
    shown = invoke(tmp_path, "show", theirs.run_id, "--tenant", "acme", "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["run_id"] == theirs.run_id
    assert invoke(tmp_path, "show", mine.run_id).exit_code == 0
    store.set_status(mine.run_id, RunStatus.FAILED, error="e")
    store.delete_run(mine.run_id)
    assert invoke(tmp_path, "show", mine.run_id).exit_code == 2  # deleted: as the API, no longer served


def test_serve_on_a_busy_port_says_so_before_any_banner_and_exits_4(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = invoke(tmp_path, "serve", "--port", str(port))
    assert result.exit_code == 4, result.output
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"error: port: cannot listen on 127.0.0.1:{port}") and "in use" in line
    assert "claimcourt API on" not in result.output


def test_a_bad_configuration_is_one_line_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_PROVIDER", "anthropic")  # forced, but no key
    result = invoke(tmp_path, "run", "Sea levels are rising")
    assert result.exit_code == 2
    assert "CLAIMCOURT_PROVIDER=anthropic" in result.stderr and "Traceback" not in result.output
    assert stored_runs(tmp_path) == 0


def test_monitors_are_added_listed_ticked_and_removed(tmp_path: Path) -> None:
    added = invoke(
        tmp_path,
        "monitor",
        "add",
        "Arctic sea ice has declined since 1979",
        "--cadence",
        "daily",
        "--threshold",
        "5",
    )
    assert added.exit_code == 0, added.output
    monitor_id = added.stdout.strip()
    assert invoke(tmp_path, "monitor", "add", "x y", "--cadence", "often", "--threshold", "5").exit_code == 2
    for tenant in ("Acme", ""):  # a tenant the stores cannot hold: one line naming it, nothing written
        bad = invoke(
            tmp_path, "monitor", "add", "x y", "--cadence", "daily", "--threshold", "5", "--tenant", tenant
        )
        assert (
            bad.exit_code == 2
            and bad.stderr.startswith("error: tenant: ")
            and len(bad.stderr.splitlines()) == 1
        )
    ticked = invoke(tmp_path, "drift", "tick")
    assert ticked.exit_code == 0, ticked.output
    [line] = ticked.stdout.splitlines()
    assert line.startswith(f"drift-{monitor_id}-") and " succeeded " in line
    assert invoke(tmp_path, "drift", "tick").stdout == ""  # not due again until tomorrow
    listed = invoke(tmp_path, "monitor", "list").stdout
    assert monitor_id in listed and line.split()[0] in listed
    assert invoke(tmp_path, "monitor", "rm", monitor_id).exit_code == 0
    assert invoke(tmp_path, "monitor", "rm", monitor_id).exit_code == 2


def test_events_put_runs_what_the_rule_routes_and_reports_dead_letters(tmp_path: Path) -> None:
    events = Path(__file__).resolve().parents[1] / "events"
    check = json.loads((events / "claim_check_requested.json").read_text())
    poison = {"detail-type": "claim.check_requested", "source": "x", "detail": {"claim": "whose?"}}
    ignored = {"detail-type": "claim.score_changed", "source": "claimcourt", "detail": {}}
    (tmp_path / "events.json").write_text(json.dumps([check, poison, ignored]))
    put = invoke(tmp_path, "events", "put", str(tmp_path / "events.json"))
    assert put.exit_code == 2, put.output  # one dead letter
    [line] = put.stdout.splitlines()
    assert line.startswith("evt-") and " succeeded " in line and check["detail"]["claim"] in line
    assert "dead letter: claim.check_requested: detail.tenant_id" in put.stderr
    (tmp_path / "one.json").write_text(json.dumps(check))
    assert invoke(tmp_path, "events", "put", str(tmp_path / "one.json")).exit_code == 0


@pytest.mark.usefixtures("paid_runs")
def test_an_event_the_cost_guard_refuses_every_time_is_retried_then_dead_lettered_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_HOURLY_RUNS_PER_TENANT", "1")  # the second event is over the cap
    check = {"detail-type": "claim.check_requested", "source": "x", "detail": {"tenant_id": "acme"}}
    claims = ["Arctic sea ice has declined since 1979", "Sea levels are rising"]
    (tmp_path / "events.json").write_text(
        json.dumps([{**check, "detail": {**check["detail"], "claim": c}} for c in claims])
    )
    # in the same hour as the first, however close to an hour's end the test runs: the clock is held
    put = CliRunner().invoke(
        main, ["events", "put", str(tmp_path / "events.json"), "--data-dir", str(tmp_path)], obj=Clock()
    )
    assert put.exception is None or isinstance(put.exception, SystemExit), put.exception
    assert put.exit_code == 2, put.output
    [line] = put.stdout.splitlines()  # the first ran to its end; nothing is left running
    assert line.startswith("evt-") and " succeeded " in line
    assert put.stderr.count("dead letter: delivered 5 times, failed every time: ") == 1
    assert "Traceback" not in put.output
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    assert [r.status for r in store.list_runs("acme", 5).runs] == [RunStatus.SUCCEEDED]
    assert store.leases() == []


CHECK = {
    "detail-type": "claim.check_requested",
    "source": "x",
    "detail": {"tenant_id": "acme", "claim": "Ice"},
}


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([], "no events"),
        ({}, "event 1: detail-type: required"),
        ({**CHECK, "detail": []}, "event 1: detail: must be a JSON object, not a list"),
        ([CHECK, {**CHECK, "detail": "Ice"}], "event 2: detail: must be a JSON object, not a string"),
        ([CHECK, {**CHECK, "detail-type": 7}], "event 2: detail-type: must be a non-empty string"),
        ([CHECK, {**CHECK, "source": ""}], "event 2: source: must be a non-empty string"),
        ({"DetailType": "claim.check_requested", "Source": "x", "Detail": "[1]"}, "event 1: Detail: must be"),
        (
            {"DetailType": "claim.check_requested", "Source": "x", "Detail": "{no"},
            "event 1: Detail: not JSON",
        ),
        (
            {"DetailType": "claim.check_requested", "Source": "x", "Detail": {}},
            "event 1: Detail: must be a string",
        ),
        ([[CHECK]], "expected an event object or a list of them"),
    ],
)
def test_events_put_refuses_what_putevents_would_in_one_line_and_puts_nothing(
    tmp_path: Path, events: object, problem: str
) -> None:
    (tmp_path / "events.json").write_text(json.dumps(events))
    put = invoke(tmp_path, "events", "put", str(tmp_path / "events.json"))
    assert put.exit_code == 2, put.output
    [line] = put.stderr.strip().splitlines()
    assert line.startswith("error: ") and problem in line, line
    assert stored_runs(tmp_path) == 0  # the file's good events are not half put: nothing is


def test_events_put_says_which_events_no_rule_routes_and_exits_2(tmp_path: Path) -> None:
    unwatched = {"tenant_id": "acme", "claim_ids": ["c_0000000000000000"]}  # routed; starts no run
    updated = {"detail-type": "evidence.updated", "source": "x", "detail": unwatched}
    typo = {**CHECK, "detail-type": "claim.check_request"}
    (tmp_path / "events.json").write_text(json.dumps([updated, typo]))
    put = invoke(tmp_path, "events", "put", str(tmp_path / "events.json"))
    assert put.exit_code == 2, put.output
    [line] = [line for line in put.stderr.splitlines() if line.startswith("not routed:")]
    assert (
        line.startswith("not routed: event 2: detail-type 'claim.check_request'")
        and "evidence.updated" in line
    )
    assert "dead letter" not in put.stderr


def _readme_block(after: str, language: str) -> str:
    """The first fenced block of `language` in README.md after the text `after`."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    rest = readme[readme.index(after) :]
    start = rest.index(f"```{language}\n") + len(f"```{language}\n")
    return rest[start : rest.index("```", start)]


def test_the_readmes_event_example_saved_as_a_file_runs_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "events.json").write_text(_readme_block("**Events in.**", "json"))
    commands = [
        shlex.split(line, comments=True)
        for line in _readme_block("Saved as `events.json`", "bash").splitlines()
    ]
    assert [c[:3] for c in commands] == [
        [".venv/bin/claimcourt", "monitor", "add"],
        [".venv/bin/claimcourt", "events", "put"],
    ]
    for command in commands:
        done = invoke(tmp_path, *command[1:])
        assert done.exit_code == 0, done.output
    ran = done.stdout.splitlines()
    assert len(ran) == 2 and all(" succeeded " in line and line.startswith("evt-") for line in ran), ran


def test_events_put_takes_more_events_than_one_putevents_call(tmp_path: Path) -> None:
    unwatched = {"tenant_id": "acme", "claim_ids": ["c_0000000000000000"]}  # starts no run
    updated = {"detail-type": "evidence.updated", "source": "x", "detail": unwatched}
    (tmp_path / "events.json").write_text(json.dumps([updated] * 11))
    put = invoke(tmp_path, "events", "put", str(tmp_path / "events.json"))
    assert put.exit_code == 0, put.output
    assert "11 of 11 on the bus; 0 runs started" in put.stderr


def test_backtest_prints_one_point_per_date_oldest_first_and_they_join_the_claims_series(
    tmp_path: Path,
) -> None:
    claim = "Arctic sea ice has declined since 1979"
    done = invoke(tmp_path, "backtest", claim, "--dates", "today,2015-01-01,2005-06-01", "--json")
    assert done.exit_code == 0, done.output
    series = json.loads(done.stdout)["series"]
    assert [p["as_of_date"] for p in series] == ["2005-06-01", "2015-01-01", "today"]
    assert all(p["status"] == "succeeded" and 0 <= p["score"] <= 100 for p in series)
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    points = store.drift_series(LOCAL_TENANT, json.loads(done.stdout)["claim_id"])
    assert sorted(str(p.as_of_date) for p in points) == ["2005-06-01", "2015-01-01", "None"]
    bad = invoke(tmp_path, "backtest", claim, "--dates", "2015-01-01,2999-01-01")
    assert bad.exit_code == 2 and "2999-01-01" in bad.stderr
    # a bad option names itself, not the dates
    mode = invoke(tmp_path, "backtest", claim, "--dates", "2015-01-01", "--mode", "foo")
    assert mode.exit_code == 2 and mode.stderr.startswith("error: mode: ")


@pytest.mark.usefixtures("paid_runs")
def test_a_backtest_over_the_hourly_cap_ends_the_dates_it_started_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_HOURLY_RUNS_PER_TENANT", "2")
    dates, clock = "2005-06-01,2015-01-01,today", Clock()  # every run admitted in one hour
    done = invoke(tmp_path, "backtest", "Arctic sea ice has declined since 1979", "--dates", dates, now=clock)
    assert done.exit_code == 1
    *rows, note = done.stdout.splitlines()  # the note: the bundled corpus dates no source
    assert [row.split()[0] for row in rows] == ["2005-06-01", "2015-01-01"]
    assert note.startswith("No retrieved source carried a publication date")
    assert "2 of 3 dates were started (above); the rest were not" in done.stderr
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    assert {r.status for r in store.list_runs(LOCAL_TENANT, 5).runs} == {RunStatus.SUCCEEDED}
    assert store.leases() == []  # nothing left running, holding a slot
    # over the cap from the first date: nothing is started, and it says so
    again = invoke(
        tmp_path, "backtest", "Arctic sea ice has declined since 1979", "--dates", dates, now=clock
    )
    assert again.exit_code == 1 and "(nothing was started)" in again.stderr


def test_a_backtest_on_the_undated_corpus_says_per_date_how_many_sources_were_dated_and_dropped(
    tmp_path: Path,
) -> None:
    claim, dates = "Arctic sea ice has declined since 1979", "2005-01-01,2012-01-01,today"
    done = invoke(tmp_path, "backtest", claim, "--dates", dates)
    assert done.exit_code == 0, done.output
    *rows, note = done.stdout.splitlines()
    assert [row.split()[0] for row in rows] == ["2005-01-01", "2012-01-01", "today"]
    for row in rows[:2]:
        assert re.search(r"sources: \d+ retrieved, 0 dated, \d+ dropped as after the date", row), row
    assert "sources:" not in rows[2]  # a live run is bounded by no date
    assert note.startswith("No retrieved source carried a publication date")
    # and the JSON and the stored results say the same
    series = json.loads(invoke(tmp_path, "backtest", claim, "--dates", dates, "--json").stdout)["series"]
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    for point in series[:2]:
        record = store.get_run(point["run_id"])
        dating = record.result.backtest  # type: ignore[union-attr]
        assert dating is not None and dating.retrieved > 0 and dating.dated == 0
        assert point["sources"] == dating.model_dump()
        # With no source dated, the result says so, and that only their text could date them
        assert any("none of the" in w and "carried a publication date" in w for w in record.warnings)
        assert dating.judged_by == ["offline"] and dating.written_after == len(dating.hindsight)
    assert series[2]["sources"] is None
    # and `run --as-of` shows the same warning under the verdict
    shown = invoke(tmp_path, "run", claim, "--as-of", "2005-01-01")
    assert shown.exit_code == 0 and "carried a publication date" in shown.stdout


def test_a_backtest_of_a_claim_the_suitability_check_stops_exits_3(tmp_path: Path) -> None:
    stopped = invoke(tmp_path, "backtest", "This statement is false", "--dates", "2015-01-01")
    assert stopped.exit_code == 3, stopped.output


def test_run_waits_for_a_free_slot_when_the_cost_guard_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the one slot taken by a run of another process (claimcourt serve), which ends once the
    # CLI has been refused a slot (the refusal itself frees it: no timer races the CLI's start-up)
    from typing import Any

    from claimcourt.errors import RateLimitedError
    from claimcourt.models import Lease, utcnow
    from claimcourt.store.sqlite.admission import SqliteAdmission

    monkeypatch.setenv("CLAIMCOURT_MAX_ACTIVE_RUNS", "1")
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    store.admit(Lease(run_id="run_elsewhere", tenant_id="acme", since=utcnow()), max_active=1, hourly_limit=9)
    admit = SqliteAdmission.admit
    refusals: list[str] = []

    def admit_then_free_when_refused(self: SqliteAdmission, *args: Any, **kwargs: Any) -> None:
        try:
            admit(self, *args, **kwargs)
        except RateLimitedError as refused:
            refusals.append(refused.limit)
            store.release("run_elsewhere")
            raise

    monkeypatch.setattr(SqliteAdmission, "admit", admit_then_free_when_refused)
    # When the CLI runs a claim
    result = invoke(tmp_path, "run", "Arctic sea ice is declining", "--json")
    # Then it said it was waiting, then ran once the slot was free, and gave the slot back
    assert result.exit_code == 0, result.output
    assert refusals == ["concurrency"]
    assert "waiting for a free slot" in result.stderr
    assert json.loads(result.stdout)["status"] == "succeeded"
    assert store.leases() == []


@pytest.mark.usefixtures("paid_runs")
def test_run_over_the_hourly_cap_stops_before_anything_is_started_and_says_when_it_resets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_HOURLY_RUNS_PER_TENANT", "1")
    clock = Clock()  # both runs admitted in one hour
    assert invoke(tmp_path, "run", "Arctic sea ice is declining", now=clock).exit_code == 0
    result = invoke(tmp_path, "run", "Glaciers are retreating", now=clock)
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith("error: cost guard: the CLI (tenant local) has started 1 paid run this hour")
    assert "CLAIMCOURT_HOURLY_RUNS_PER_TENANT" in line and "nothing was started" in line
    assert re.search(r"resets at \d\d:00 UTC", line) and "API key" not in line
    assert stored_runs(tmp_path) == 1


def test_offline_runs_spend_nothing_so_the_hourly_cap_never_stops_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAIMCOURT_HOURLY_RUNS_PER_TENANT", "1")
    for claim in ("Arctic sea ice is declining", "Glaciers are retreating", "Sea levels are rising"):
        done = invoke(tmp_path, "run", claim)
        assert done.exit_code == 0, done.output
    assert stored_runs(tmp_path) == 3


def _first_stage_started(store: SqliteStore, process: subprocess.Popen[str]) -> str:
    """The run id of the first run whose first stage has started (the process wrote it), once it has."""
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        for record in store.list_runs(LOCAL_TENANT, 5).runs:
            if any(e.type == "stage.started" for e in store.list_events(record.run_id)):
                return record.run_id
        time.sleep(0.05)
    raise AssertionError(
        f"no stage started (exit {process.poll()}): {process.stderr and process.stderr.read()}"
    )


def test_a_cli_run_killed_with_sigkill_gives_its_slot_to_the_next_run_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the one slot taken by a CLI run in a process of its own, killed with SIGKILL in its first
    # stage (each of its model calls takes a minute), with no `serve` to sweep after it
    monkeypatch.setenv("CLAIMCOURT_MAX_ACTIVE_RUNS", "1")
    env = {**os.environ, "CLAIMCOURT_DATA_DIR": str(tmp_path), "CLAIMCOURT_OFFLINE_PACE_MS": "60000"}
    command = [sys.executable, "-c", "from claimcourt.local.console import main; main()"]
    killed = subprocess.Popen(
        [*command, "run", "Sea levels are rising"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    try:
        run_id = _first_stage_started(store, killed)
    finally:
        killed.kill()
        killed.wait()  # reaped: as a shell does
    [lease] = store.leases()
    assert lease.run_id == run_id and lease.owner is not None and lease.owner.pid == killed.pid
    # When the next run starts (one that would wait 30 s for the slot, not 900)
    monkeypatch.setenv("CLAIMCOURT_RUN_TIMEOUT_S", "30")
    result = invoke(tmp_path, "run", "Arctic sea ice is declining", "--json")
    # Then it got the slot at once, and the killed run ended failed, saying why
    assert result.exit_code == 0, result.output
    assert "waiting for a free slot" not in result.stderr
    assert json.loads(result.stdout)["status"] == "succeeded"
    ended = store.get_run(run_id)
    assert (ended.status, ended.error) == (RunStatus.FAILED, "the process running it stopped")
    assert store.list_events(run_id)[-1].type == "run.failed"
    assert store.leases() == []


def test_show_rounds_prints_the_round_controllers_decisions(tmp_path: Path) -> None:
    run_id = json.loads(invoke(tmp_path, "run", "Arctic sea ice is declining", "--json").stdout)["run_id"]
    shown = invoke(tmp_path, "show", run_id, "--rounds", "--json")
    assert shown.exit_code == 0, shown.output
    decisions = json.loads(shown.stdout)
    assert [d["round"] for d in decisions] == [1, 2]
    assert decisions[-1]["action"] == "stop_max_rounds" and decisions[-1]["mode"] == "shadow"
    assert decisions[-1]["controller_action"] in {"continue", "stop_converged", "escalate_new_persona"}
    table = invoke(tmp_path, "show", run_id, "--rounds")
    assert "round controller shadow" in table.stdout and "stop_max_rounds" in table.stdout


def _console_script(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`claimcourt …` as installed (pyproject's console script), in a process of its own: it ends with
    os._exit."""
    command = [sys.executable, "-c", "from claimcourt.local.console import main; main()", *args]
    env = {**os.environ, "CLAIMCOURT_DATA_DIR": str(data_dir)}
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False, env=env)


def test_the_console_script_leaves_fast_with_its_output_whole_its_status_and_its_store_closed(
    tmp_path: Path,
) -> None:
    done = _console_script(tmp_path, "run", "Arctic sea ice has declined since 1979", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)  # the whole JSON, flushed before the process left
    assert body["status"] == "succeeded"
    assert "round 2" in done.stderr
    # The store was closed (its write-ahead log checkpointed into the file), as a normal exit does.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("claimcourt")) == [
        "claimcourt.sqlite3"
    ]
    assert stored_runs(tmp_path) == 1
    assert _console_script(tmp_path, "run", "This statement is false").returncode == 3
    bad = _console_script(tmp_path, "run", "")
    assert bad.returncode == 2 and "error:" in bad.stderr
    assert _console_script(tmp_path, "--help").returncode == 0
    assert _console_script(tmp_path, "no-such-command").returncode == 2  # click's usage error


START_UP_WITHOUT_THE_COLLECTOR = """
import gc, json, tempfile
from pathlib import Path
from claimcourt.local import collector
collector.resume_collector()  # nothing was paused: nothing changes
state = [gc.isenabled(), gc.get_freeze_count()]
collector.pause_collector()
state += [gc.isenabled()]
from claimcourt.local.runtime import LocalRuntime
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps
with tempfile.TemporaryDirectory() as data_dir:
    with LocalRuntime(build_deps(Settings(data_dir=Path(data_dir), provider="offline"))):
        state += [gc.isenabled(), gc.get_freeze_count() > 100_000]
print(json.dumps(state))
"""


def test_the_console_script_starts_without_the_collector_and_the_runtime_resumes_it_frozen() -> None:
    done = subprocess.run(
        [sys.executable, "-c", START_UP_WITHOUT_THE_COLLECTOR], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == [True, 0, False, True, True]


def test_an_offline_run_leaves_leads_a_client_can_act_on_and_show_prints_one_line_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one lead, one line: no wrapping to read around
    body = json.loads(invoke(tmp_path, "run", "Arctic sea ice has declined since 1979", "--json").stdout)
    scored = body["result"]
    verdicts = {s["id"]: s["verdict"] for s in scored["sub_claims"]}
    leads = [ScoreMover.model_validate(lead) for lead in scored["what_would_change"]]
    assert leads and {lead.sub_claim for lead in leads} <= set(verdicts)
    for lead in leads:
        # The offline judge's lead points against what the pool said: a supported sub-claim's, down.
        if verdicts[lead.sub_claim or ""] == "supported":
            assert lead.direction is Direction.TOWARD_0
        elif verdicts[lead.sub_claim or ""] == "refuted":
            assert lead.direction is Direction.TOWARD_100
        assert lead.where_to_look.startswith("primary sources")
    shown = invoke(tmp_path, "show", body["run_id"]).stdout.splitlines()
    assert [f"  {lead.line()}" for lead in leads] == [
        line for line in shown if line.startswith(("  ↑", "  ↓"))
    ]


def test_a_monitor_can_be_judged_by_a_panel_and_a_bad_one_is_refused_before_it_is_kept(
    tmp_path: Path, clean_env: None
) -> None:
    made = invoke(
        tmp_path, "monitor", "add", "Sea levels are rising", "--cadence", "daily", "--threshold", "5",
        "--judges", "offline,offline+rubric",
    )  # fmt: skip
    assert made.exit_code == 0, made.stderr
    [monitor] = SqliteStore(tmp_path / "claimcourt.sqlite3").list_monitors(LOCAL_TENANT)
    assert monitor.request.judges == ["offline", "offline+rubric"]
    # a judge with no key here: exit 2 naming judges, and no second monitor kept
    refused = invoke(
        tmp_path, "monitor", "add", "Sea levels are rising", "--cadence", "daily", "--threshold", "5",
        "--judges", "offline,anthropic",
    )  # fmt: skip
    assert refused.exit_code == 2 and "judges: 'anthropic'" in refused.stderr
    assert len(SqliteStore(tmp_path / "claimcourt.sqlite3").list_monitors(LOCAL_TENANT)) == 1
