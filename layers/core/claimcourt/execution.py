"""Starting a run's execution of the state machine: Step Functions in the cloud, the local runtime
(which has the same `start`) on the laptop. And starting a re-judging's work (claimcourt.rejudge):
the stack's re-judge function, invoked asynchronously, or a thread of the process on the laptop."""

from __future__ import annotations

import json
from typing import Any, Literal, NamedTuple, Protocol

from claimcourt.aws import LazyClient

# Which state machine runs a run: a claim debate's, or a motion debate's.
Machine = Literal["debate", "motion"]


class Executor(Protocol):
    def start(self, run_id: str, machine: Machine = "debate") -> str:
        """Start the run's execution, named by its run id; the execution's ARN."""
        ...

    def execution_status(self, run_id: str) -> str | None:
        """RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED; None if there is no such execution."""
        ...


class Ended(NamedTuple):
    """How an execution ended."""

    status: str  # SUCCEEDED, FAILED, TIMED_OUT or ABORTED
    cause: str | None  # the error's cause, for an execution that did not succeed
    output: str | None  # the execution's output (JSON), for one that did


def ended_from(described: dict[str, Any]) -> Ended | None:
    """An execution's end from its DescribeExecution reply; None while it runs."""
    if described["status"] == "RUNNING":
        return None
    cause = described.get("cause") or described.get("error")
    return Ended(str(described["status"]), cause, described.get("output"))


def execution_input(run_id: str) -> str:
    return json.dumps({"run_id": run_id})


class StepFunctionsExecutor:
    def __init__(
        self, state_machine_arn: str, region: str | None = None, motion_state_machine_arn: str | None = None
    ) -> None:
        self.state_machine_arn = state_machine_arn
        self.arns: dict[str, str] = {"debate": state_machine_arn}
        if motion_state_machine_arn:
            self.arns["motion"] = motion_state_machine_arn
        self._sfn = LazyClient("stepfunctions", region_name=region)  # a read-only API call needs none

    @property
    def client(self) -> Any:
        return self._sfn.get()

    def start(self, run_id: str, machine: Machine = "debate") -> str:
        if machine not in self.arns:
            raise ValueError(f"this deployment has no {machine} state machine")
        # The run id names the execution: a second start of the same run is refused, not repeated.
        reply = self.client.start_execution(
            stateMachineArn=self.arns[machine], name=run_id, input=execution_input(run_id)
        )
        return str(reply["executionArn"])

    def _described(self, run_id: str) -> dict[str, Any] | None:
        """The run's execution, on whichever state machine has it (None: neither)."""
        for arn in self.arns.values():
            try:
                described: dict[str, Any] = self.client.describe_execution(
                    executionArn=arn.replace(":stateMachine:", ":execution:") + f":{run_id}"
                )
                return described
            except self.client.exceptions.ExecutionDoesNotExist:
                continue
        return None

    def execution_status(self, run_id: str) -> str | None:
        described = self._described(run_id)
        return str(described["status"]) if described is not None else None

    def ended(self, run_id: str) -> Ended | None:
        """How the run's execution ended; None while it runs (or not found yet)."""
        described = self._described(run_id)
        return ended_from(described) if described is not None else None


class Rejudger(Protocol):
    def start_rejudge(self, run_id: str, rejudge_id: str) -> None:
        """Judge the re-judging's pending judgements elsewhere; returns as soon as the work is handed on
        (raises if it could not be)."""
        ...


def rejudge_order(run_id: str, rejudge_id: str) -> dict[str, str]:
    """What the re-judge function is invoked with."""
    return {"run_id": run_id, "rejudge_id": rejudge_id}


class LambdaRejudger:
    """The stack's re-judge function, invoked asynchronously (InvocationType Event): Lambda queues the
    event and answers 202 at once, so the API's 29 seconds never wait on a judge."""

    def __init__(self, function_name: str, region: str | None = None) -> None:
        self.function_name = function_name
        self._lambda = LazyClient("lambda", region_name=region)

    @property
    def client(self) -> Any:
        return self._lambda.get()

    def start_rejudge(self, run_id: str, rejudge_id: str) -> None:
        reply = self.client.invoke(
            FunctionName=self.function_name,
            InvocationType="Event",
            Payload=json.dumps(rejudge_order(run_id, rejudge_id)).encode(),
        )
        if reply.get("StatusCode") != 202:
            raise RuntimeError(
                f"the re-judge function did not take the work (status {reply.get('StatusCode')})"
            )
