"""runs.submit_run under the cost guard: what a run that never starts leaves behind (nothing of the
tenant's hourly quota), and which runs the hourly cap counts at all."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import SecretStr

from claimcourt.errors import RateLimitedError
from claimcourt.execution import Machine
from claimcourt.local.processes import owner_gone, this_process
from claimcourt.models import Lease, LeaseOwner, MotionRequest, RunRecord, RunRequest, RunStatus, utcnow
from claimcourt.runs import parse_request, reclaim_abandoned, submit_run
from claimcourt.settings import ROLES, Settings
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.clock import Clock

pytestmark = pytest.mark.usefixtures("clean_env")

CLAIM = parse_request({"claim": "Sea levels are rising"})
# When these tests' runs are admitted: one hour, whatever the wall clock does meanwhile.
HELD = Clock(datetime(2026, 1, 1, 10, 30, tzinfo=UTC))


class Executor:
    """Starts nothing; `failing` makes every start raise, as Step Functions down would."""

    def __init__(self, failing: bool = False) -> None:
        self.failing = failing
        self.started: list[str] = []

    def start(self, run_id: str, machine: Machine = "debate") -> str:
        if self.failing:
            raise ConnectionError("states.amazonaws.com unreachable")
        self.started.append(run_id)
        return f"arn:aws:states:::execution:{run_id}"

    def execution_status(self, run_id: str) -> str | None:
        return "RUNNING" if run_id in self.started else None


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    yield store
    store.close()


def paid(tmp_path: Path, hourly: int = 1) -> Settings:
    """Settings whose debaters and judge are a paid model (OpenAI): every run counts against the cap."""
    return Settings(
        data_dir=tmp_path,
        openai_api_key=SecretStr("sk-test"),
        hourly_runs_per_tenant=hourly,
        max_active_runs=10,
    )


def submit(
    store: SqliteStore,
    settings: Settings,
    executor: Executor | None = None,
    request: RunRequest = CLAIM,
    now: Callable[[], datetime] = HELD,
) -> RunRecord:
    return submit_run(store, executor or Executor(), settings, "acme", request, now=now)


def test_a_run_whose_record_cannot_be_made_spends_none_of_the_hour(
    store: SqliteStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = paid(tmp_path, hourly=1)

    def broken(record: object) -> None:
        raise OSError("disk I/O error")

    with monkeypatch.context() as patched:
        patched.setattr(store, "create_run", broken)
        with pytest.raises(OSError):
            submit(store, settings)
    assert store.leases() == [] and store.list_runs("acme").runs == []
    started = submit(store, settings)  # the hour's one run is still there to be had
    assert store.get_run(started.run_id).status is RunStatus.RUNNING
    with pytest.raises(RateLimitedError) as refused:  # and that one spent it
        submit(store, settings)
    assert refused.value.limit == "hourly"


def test_a_run_whose_execution_cannot_start_ends_failed_and_spends_none_of_the_hour(
    store: SqliteStore, tmp_path: Path
) -> None:
    settings = paid(tmp_path, hourly=1)
    with pytest.raises(ConnectionError):
        submit(store, settings, Executor(failing=True))
    [failed] = store.list_runs("acme").runs
    assert (failed.status, failed.error) == (
        RunStatus.FAILED,
        "could not start the execution: ConnectionError",
    )
    assert store.list_events(failed.run_id)[-1].type == "run.failed"
    assert store.leases() == []
    submit(store, settings)  # admitted: the failed start took nothing from the hour
    with pytest.raises(RateLimitedError):
        submit(store, settings)


def test_runs_the_offline_reasoner_serves_are_not_counted_against_the_hourly_cap(
    store: SqliteStore, tmp_path: Path
) -> None:
    offline = Settings(data_dir=tmp_path, hourly_runs_per_tenant=1, max_active_runs=10)
    assert not offline.may_spend()
    for _ in range(3):
        submit(store, offline)
    assert len(store.list_runs("acme").runs) == 3
    submit(store, paid(tmp_path, hourly=1))  # a paid run still has the hour's one
    with pytest.raises(RateLimitedError):
        submit(store, paid(tmp_path, hourly=1))
    submit(store, offline)  # and an offline run is still admitted past the cap


def test_the_hourly_cap_admits_again_from_the_top_of_the_next_utc_hour(
    store: SqliteStore, tmp_path: Path
) -> None:
    settings, clock = paid(tmp_path, hourly=1), Clock(datetime(2026, 1, 1, 10, 59, 59, tzinfo=UTC))
    submit(store, settings, now=clock)
    clock.at += timedelta(microseconds=999_999)  # the last instant of 10:00-11:00: still its hour
    with pytest.raises(RateLimitedError) as refused:
        submit(store, settings, now=clock)
    assert (refused.value.limit, refused.value.retry_after_s) == ("hourly", 1)
    assert "resets at 11:00 UTC" in refused.value.message
    clock.at += timedelta(microseconds=1)  # 11:00:00: a new hour, a new count
    submit(store, settings, now=clock)
    with pytest.raises(RateLimitedError) as again:  # of which that run took the one
        submit(store, settings, now=clock)
    assert "resets at 12:00 UTC" in again.value.message
    # each lease holds the time its admission read from the clock
    admitted = [datetime(2026, 1, 1, 10, 59, 59, tzinfo=UTC), datetime(2026, 1, 1, 11, tzinfo=UTC)]
    assert [lease.since for lease in store.leases()] == admitted


MOTION = {"motion": "Cities should ban cars from their centres"}


@pytest.mark.parametrize(
    ("settings", "lineup", "spends"),
    [
        ({}, {}, False),
        ({"openai_api_key": "sk-test"}, {}, True),  # every role's default provider is OpenAI
        ({"openai_api_key": "sk-test", "provider": "offline"}, {}, False),  # a key held, none used
        ({"openai_api_key": "sk-test", "provider": "offline"}, {"judge": "openai:gpt-4.1"}, True),
        ({"models_by_role": {"adjudicator": "openai:gpt-4.1"}, "openai_base_url": "http://x"}, {}, True),
        (
            {"anthropic_api_key": "sk-test", "models_by_role": dict.fromkeys(ROLES, "offline")},
            {},
            True,
        ),  # search
        (
            {
                "anthropic_api_key": "sk",
                "models_by_role": dict.fromkeys(ROLES, "offline"),
                "web_search": False,
            },
            {},
            False,
        ),
        ({"provider_keys_known": False}, {}, True),  # the deployed API cannot tell: it counts
        ({"provider_keys_known": False, "provider": "offline"}, {}, False),
    ],
)
def test_a_run_counts_against_the_hourly_cap_when_a_role_or_its_search_may_be_paid(
    store: SqliteStore, tmp_path: Path, settings: dict[str, object], lineup: dict[str, str], spends: bool
) -> None:
    configured = Settings(data_dir=tmp_path, hourly_runs_per_tenant=1, **settings)  # type: ignore[arg-type]
    assert configured.may_spend(lineup) is spends
    request = MotionRequest.model_validate({**MOTION, "lineup": lineup})
    submit_run(store, Executor(), configured, "acme", request)
    [lease] = store.leases()
    assert lease.spends is spends


def _exited_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def test_only_leases_whose_owner_is_known_gone_from_this_host_are_given_back(
    store: SqliteStore, tmp_path: Path
) -> None:
    settings = paid(tmp_path, hourly=10)
    me = this_process()
    owners = {
        "dead": me.model_copy(update={"pid": _exited_pid()}),
        "recycled": me.model_copy(update={"started": "another process's start"}),  # its pid, reused
        "alive": me,
        "elsewhere": LeaseOwner(host="another-host", pid=_exited_pid(), started=None),
        # a container beside this one: the same hostname, its own pids
        "next_door": me.model_copy(update={"pid": _exited_pid(), "pid_namespace": "4026531999"}),
        "unknown_namespace": me.model_copy(update={"pid": _exited_pid(), "pid_namespace": None}),
        "cloud": None,  # Step Functions runs it: no process here owns it
    }
    runs = {}
    for name, owner in owners.items():
        runs[name] = submit_run(store, Executor(), settings, "acme", CLAIM, owner=owner).run_id
    store.admit(  # admitted by a process killed before it recorded the run
        Lease(run_id="run_never_recorded", tenant_id="acme", since=utcnow(), owner=owners["dead"]),
        max_active=10,
        hourly_limit=10,
    )
    freed = reclaim_abandoned(store, owner_gone)
    assert sorted(freed) == sorted([runs["dead"], runs["recycled"], "run_never_recorded"])
    kept = ("alive", "elsewhere", "next_door", "unknown_namespace", "cloud")
    assert {lease.run_id for lease in store.leases()} == {runs[name] for name in kept}
    for name in ("dead", "recycled"):
        ended = store.get_run(runs[name])
        assert (ended.status, ended.error) == (RunStatus.FAILED, "the process running it stopped")
    assert reclaim_abandoned(store, owner_gone) == []  # once
