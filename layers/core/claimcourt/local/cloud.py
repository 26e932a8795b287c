"""The CLI against a deployed stack: the stack's outputs name its tables and state machine; a run is
recorded in its DynamoDB table and started as an execution named by the run id, then followed
through the event log, exactly as the laptop follows a local run."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claimcourt.errors import ConfigurationError
from claimcourt.execution import StepFunctionsExecutor
from claimcourt.models import RunRecord, RunStatus
from claimcourt.pipeline import announce_end
from claimcourt.settings import Settings
from claimcourt.store.base import Store

FOLLOW_POLL_S = 0.5
EXECUTION_CHECK_S = 5.0
# Stack output → the setting it fills.
OUTPUT_SETTINGS = {
    "MainTableName": "table_name",
    "RetrievalCacheTableName": "cache_table_name",
    "IdempotencyTableName": "idempotency_table_name",
    "RateLimitTableName": "limits_table_name",
    "ArtifactsBucketName": "artifacts_bucket",
}


@dataclass(frozen=True)
class Stack:
    name: str
    settings: Settings
    state_machine_arn: str


def stack_outputs(name: str, region: str | None) -> dict[str, str]:
    import boto3

    stacks = boto3.client("cloudformation", region_name=region).describe_stacks(StackName=name)["Stacks"]
    return {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}


def load_stack(name: str, base: Settings) -> Stack:
    outputs = stack_outputs(name, base.aws_region)
    missing = [key for key in (*OUTPUT_SETTINGS, "DebateStateMachineArn") if key not in outputs]
    if missing:
        raise ConfigurationError(
            f"stack {name} has no output {', '.join(missing)}: is it a claimcourt stack?"
        )
    fields: dict[str, Any] = {field: outputs[key] for key, field in OUTPUT_SETTINGS.items()}
    settings = base.model_copy(update={"store": "dynamodb", **fields})
    return Stack(name, settings, outputs["DebateStateMachineArn"])


def start(stack: Stack, run_id: str) -> str:
    return StepFunctionsExecutor(stack.state_machine_arn, stack.settings.aws_region).start(run_id)


def execution_ended(stack: Stack, execution_arn: str) -> str | None:
    """None while the execution runs; else how it ended."""
    import boto3

    sfn = boto3.client("stepfunctions", region_name=stack.settings.aws_region)
    described = sfn.describe_execution(executionArn=execution_arn)
    if described["status"] == "RUNNING":
        return None
    return (
        f"execution {described['status'].lower()}: {described.get('cause') or described.get('error') or ''}"
    )


def follow(
    store: Store,
    run_id: str,
    timeout_s: float,
    on_tick: Callable[[], None],
    ended: Callable[[], str | None] = lambda: None,
) -> RunRecord:
    """Until the run's record ends (its events are what on_tick shows), or the timeout. An execution
    that ended without ending its run (it could not even record a failure) is recorded failed here."""
    deadline = time.monotonic() + timeout_s
    next_check = time.monotonic() + EXECUTION_CHECK_S
    while time.monotonic() < deadline:
        on_tick()
        record = store.get_run(run_id)
        if record.status.terminal:
            return record
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + EXECUTION_CHECK_S
            reason = ended()
            if reason is not None and store.set_status(run_id, RunStatus.FAILED, error=reason):
                announce_end(store, run_id)
        time.sleep(FOLLOW_POLL_S)
    return store.get_run(run_id)
