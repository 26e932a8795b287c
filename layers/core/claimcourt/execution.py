"""Starting a run's execution of the state machine: Step Functions in the cloud, the local runtime
(which has the same `start`) on the laptop."""

from __future__ import annotations

import json
from typing import Any, Protocol

from claimcourt.aws import LazyClient


class Executor(Protocol):
    def start(self, run_id: str) -> str:
        """Start the run's execution, named by its run id; the execution's ARN."""
        ...

    def execution_status(self, run_id: str) -> str | None:
        """RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED; None if there is no such execution."""
        ...


def execution_input(run_id: str) -> str:
    return json.dumps({"run_id": run_id})


class StepFunctionsExecutor:
    def __init__(self, state_machine_arn: str, region: str | None = None) -> None:
        self.state_machine_arn = state_machine_arn
        self._sfn = LazyClient("stepfunctions", region_name=region)  # a read-only API call needs none

    @property
    def client(self) -> Any:
        return self._sfn.get()

    def start(self, run_id: str) -> str:
        # The run id names the execution: a second start of the same run is refused, not repeated.
        reply = self.client.start_execution(
            stateMachineArn=self.state_machine_arn, name=run_id, input=execution_input(run_id)
        )
        return str(reply["executionArn"])

    def execution_status(self, run_id: str) -> str | None:
        arn = self.state_machine_arn.replace(":stateMachine:", ":execution:") + f":{run_id}"
        try:
            return str(self.client.describe_execution(executionArn=arn)["status"])
        except self.client.exceptions.ExecutionDoesNotExist:
            return None
