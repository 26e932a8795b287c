"""The embedded runtime: executes statemachine/debate.asl.json with moto's Step Functions
interpreter, each Lambda task dispatched in-process to its handler (see dispatch.py)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcourt import artifacts
from claimcourt.errors import NotFoundError
from claimcourt.execution import Ended, Machine, ended_from
from claimcourt.local import threads
from claimcourt.local.collector import resume_collector
from claimcourt.local.dispatch import ENDS, LambdaDispatcher, described_end, load_handlers
from claimcourt.local.processes import this_process
from claimcourt.local.template import ACCOUNT, REGION, load_template, project_root
from claimcourt.runs import end_failed, execution_end_reason, follow
from claimcourt.wiring import Deps, use_deps

# The template's state machines, by the Machine name runs use (execution.Machine).
STATE_MACHINES = {"debate": "DebateStateMachine", "motion": "MotionStateMachine"}
# The execution's end wakes a follower at once (dispatch.ENDS), so a poll buys no wall time, only CPU
# that the run's own threads feel (a wake-up after an idle moment costs ~0.3 ms). A follower with a
# view to refresh looks ten times a second; one without looks twice a second, only in case the
# execution died without saying.
POLL_S = 0.1
DESCRIBE_EVERY_S = 0.5


@dataclass(frozen=True)
class Execution:
    run_id: str
    status: str  # SUCCEEDED | FAILED | TIMED_OUT | ABORTED
    output: dict[str, Any] | None
    error: str | None
    wall_s: float


class LocalRuntime:
    """Use as a context manager; `execute(run_id)` runs one debate to its end."""

    def __init__(self, deps: Deps, root: Path | None = None) -> None:
        self.deps = deps
        self.template = load_template(root or project_root())
        self.dispatcher = LambdaDispatcher(load_handlers(self.template))
        self._stack = ExitStack()
        self._sfn: Any = None
        self._arns: dict[str, str] = {}

    def __enter__(self) -> LocalRuntime:
        import boto3
        from moto import mock_aws

        # moto logs every failed state at WARNING with its whole parse tree; the run's events say it better.
        logging.getLogger("moto").setLevel(logging.CRITICAL)

        from moto.core.config import DefaultConfig
        from moto.core.models import botocore_stubber

        config: DefaultConfig = {
            "stepfunctions": {"execute_state_machine": True},
            "lambda": {"use_docker": False},
        }
        if self.deps.settings.store == "dynamodb" and not botocore_stubber.enabled:
            # A real account (or DynamoDB Local): only Step Functions is emulated; the store is real.
            config["core"] = {"passthrough": {"services": ["dynamodb", "s3"]}}
        self._stack.enter_context(mock_aws(config=config))
        self._stack.enter_context(self.dispatcher.installed())
        self._stack.enter_context(use_deps(self.deps))
        self._sfn = boto3.client("stepfunctions", region_name=REGION)
        for machine, logical_id in STATE_MACHINES.items():
            self._arns[machine] = self._sfn.create_state_machine(
                name=f"claimcourt-{machine}-local",
                definition=self.template.render(logical_id),
                roleArn=f"arn:aws:iam::{ACCOUNT}:role/claimcourt-local",
                type="STANDARD",
            )["stateMachineArn"]
        resume_collector()  # the console script's start-up is over (see console.py)
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._any_running():  # else a run is still going: nothing waits for its model calls
            threads.settle()  # the threads an ended execution left behind finish on the runtime's code
        self._stack.close()

    def _any_running(self) -> bool:
        from moto.stepfunctions.responses import get_backend

        machines = [m for m in get_backend(ACCOUNT, REGION).state_machines if m.arn in self._arns.values()]
        return any(described_end(e) is None for m in machines for e in m.executions)

    def start(self, run_id: str, machine: Machine | None = None) -> str:
        """Start the run's execution on its state machine (by default, the one its record asks for)."""
        # Who runs it: a later process that finds the run unfinished and this one gone ends it at once.
        self.deps.store.put_artifact(run_id, artifacts.OWNER, this_process().model_dump(mode="json"))
        machine = machine or self._machine(run_id)
        # The run id is the execution name: starting the same run twice is refused, not repeated.
        # Straight to moto's backend, as its StartExecution handler does: no request through boto3 and
        # moto's HTTP stub (about 4 ms of CPU on every run's critical path).
        from moto.stepfunctions.responses import get_backend

        execution = get_backend(ACCOUNT, REGION).start_execution(
            self._arns[machine], run_id, json.dumps({"run_id": run_id})
        )
        return str(execution.execution_arn)

    def _machine(self, run_id: str) -> Machine:
        return "motion" if self.deps.store.get_run(run_id).motion is not None else "debate"

    def _execution_arn(self, run_id: str, machine: Machine | None = None) -> str:
        arn = self._arns[machine or self._machine(run_id)]
        return arn.replace(":stateMachine:", ":execution:") + f":{run_id}"

    def execution_status(self, run_id: str) -> str | None:
        """RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED; None if this runtime never started it."""
        try:
            return str(self._sfn.describe_execution(executionArn=self._execution_arn(run_id))["status"])
        except (self._sfn.exceptions.ExecutionDoesNotExist, NotFoundError):
            return None

    def ended(self, run_id: str) -> Ended | None:
        """How the run's execution ended; None while it runs. A followed execution's end is known
        the moment moto records it (dispatch.ENDS); any other is read from moto's record of it."""
        return self._ended_at(self._execution_arn(run_id))

    def _ended_at(self, arn: str) -> Ended | None:
        # Read from moto's own record, as start() starts it: DescribeExecution through boto3 and
        # moto's stub would cost ~1 ms of CPU, ~2 ms after an idle moment.
        from moto.stepfunctions.responses import get_backend

        described = ENDS.described(arn) or described_end(get_backend(ACCOUNT, REGION).describe_execution(arn))
        return None if described is None else ended_from(described)

    def execute(
        self, run_id: str, timeout_s: float | None = None, on_tick: Callable[[], None] | None = None
    ) -> Execution:
        machine = self._machine(run_id)  # read once, for the start and the follower alike
        arn = self._execution_arn(run_id, machine)
        ENDS.follow(arn)  # before it starts: an execution that ends at once still wakes its follower
        try:
            self.start(run_id, machine)
        except BaseException:
            ENDS.unfollow(arn)
            raise
        return self._follow(run_id, arn, timeout_s, on_tick)

    def follow(
        self, run_id: str, timeout_s: float | None = None, on_tick: Callable[[], None] | None = None
    ) -> Execution:
        """Wait for a started run's execution to end (its wall time counts from now). moto announces
        the execution's end (dispatch.ENDS), which wakes the wait at once. Between, the record is read
        every POLL_S when there is a view to refresh (`on_tick`), else every DESCRIBE_EVERY_S; the
        execution is asked every DESCRIBE_EVERY_S, in case it died without saying (not when the record
        has ended: the last stage's execution is then still ending)."""
        return self._follow(run_id, self._execution_arn(run_id), timeout_s, on_tick)

    def _follow(
        self, run_id: str, arn: str, timeout_s: float | None, on_tick: Callable[[], None] | None
    ) -> Execution:
        store, started = self.deps.store, time.perf_counter()
        execution_ended = ENDS.follow(arn)
        last_asked = time.monotonic()

        def wait(seconds: float) -> None:
            if execution_ended.wait(seconds):
                execution_ended.clear()  # once: then plain sleeps (a run that could not record its end)

        def execution_end() -> Ended | None:
            nonlocal last_asked
            if ENDS.described(arn) is None and time.monotonic() - last_asked < DESCRIBE_EVERY_S:
                return None
            last_asked = time.monotonic()
            return self._ended_at(arn)

        try:
            follow(
                store,
                run_id,
                execution_end,
                timeout_s or self.deps.settings.run_timeout_s,
                on_tick,
                poll_s=POLL_S if on_tick is not None else DESCRIBE_EVERY_S,
                check_every_s=DESCRIBE_EVERY_S,
                until_execution_ends=True,
                wait=wait,
            )
            end = self._ended_at(arn)
            if end is None:  # timed out: stop it, and the run ends failed with why
                self._sfn.stop_execution(executionArn=arn, error="Timeout", cause="local wait timed out")
                end = self._ended_at(arn) or Ended("ABORTED", "local wait timed out", None)
                end_failed(store, run_id, execution_end_reason(end))
        except BaseException:  # Ctrl-C or a crash: the run still ends in a terminal state
            end_failed(store, run_id, "interrupted before it finished")
            raise
        finally:
            ENDS.unfollow(arn)
        wall = time.perf_counter() - started
        output = json.loads(end.output) if end.output else None
        return Execution(run_id, end.status, output, store.get_run(run_id).error, wall)

    def history(self, execution_arn: str) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = self._sfn.get_execution_history(executionArn=execution_arn)["events"]
        return events
