"""The CLI against a deployed stack: the stack's outputs name its tables and state machines; a run is
recorded in its DynamoDB table and started as an execution named by the run id, then followed
through the event log, exactly as the laptop follows a local run (claimcourt.runs.follow)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claimcourt.errors import ConfigurationError
from claimcourt.execution import StepFunctionsExecutor
from claimcourt.settings import Settings

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
    motion_state_machine_arn: str | None = None  # a stack deployed before motion debates has none

    def executor(self) -> StepFunctionsExecutor:
        return StepFunctionsExecutor(
            self.state_machine_arn, self.settings.aws_region, self.motion_state_machine_arn
        )


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
    return Stack(name, settings, outputs["DebateStateMachineArn"], outputs.get("MotionStateMachineArn"))
