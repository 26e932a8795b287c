"""The CLI against a deployed stack: the stack's outputs name its tables and state machines, its
parameters the cost guard's limits; a run is recorded in its DynamoDB table and started as an
execution named by the run id, then followed through the event log, exactly as the laptop follows a
local run (claimcourt.runs.follow)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, NamedTuple

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
# Stack parameter → the setting it fills: the cost guard's limits are the stack's, not the shell's.
PARAMETER_SETTINGS = {"MaxActiveRuns": "max_active_runs", "HourlyRunsPerTenant": "hourly_runs_per_tenant"}


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


class Described(NamedTuple):
    outputs: dict[str, str]
    parameters: dict[str, str]


def describe_stack(name: str, region: str | None) -> Described:
    import boto3

    stacks = boto3.client("cloudformation", region_name=region).describe_stacks(StackName=name)["Stacks"]
    return Described(
        {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])},
        {p["ParameterKey"]: p["ParameterValue"] for p in stacks[0].get("Parameters", [])},
    )


def load_stack(name: str, base: Settings) -> Stack:
    outputs, parameters = describe_stack(name, base.aws_region)
    missing = [key for key in (*OUTPUT_SETTINGS, "DebateStateMachineArn") if key not in outputs]
    if missing:
        raise ConfigurationError(
            f"stack {name} has no output {', '.join(missing)}: is it a claimcourt stack?"
        )
    fields: dict[str, Any] = {field: outputs[key] for key, field in OUTPUT_SETTINGS.items()}
    limits = {field: int(parameters[key]) for key, field in PARAMETER_SETTINGS.items() if key in parameters}
    # Whether a run may spend (the hourly cap counts it) is the stack's to say, as its own API judges
    # it: its keys are in its secret, unknown here, and its provider and models are its parameters.
    try:
        models = json.loads(parameters.get("ModelsByRole") or "{}")
    except ValueError as err:
        raise ConfigurationError(f"stack {name}: its ModelsByRole is not JSON: {err}") from err
    spend = {
        "provider_keys_known": False,
        "provider": parameters.get("Provider") or None,
        "models_by_role": models,
    }
    settings = base.model_copy(update={"store": "dynamodb", **fields, **limits, **spend})
    return Stack(name, settings, outputs["DebateStateMachineArn"], outputs.get("MotionStateMachineArn"))
