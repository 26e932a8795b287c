"""`claimcourt run|runs|show --stack NAME`: the same commands against a deployed stack (its tables
from template.yaml and its state machine, under moto)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from click.testing import CliRunner, Result
from moto import mock_aws

from claimcourt.local import cloud
from claimcourt.local.cli import main
from claimcourt.models import LOCAL_TENANT, RunStatus
from claimcourt.settings import Settings
from claimcourt.wiring import build_store
from tests.contract.aws_resources import create_from_template, dynamodb_settings

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Settings, str]]:
    """A 'deployed' stack: tables and bucket built from template.yaml, a state machine, its outputs."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")  # where the user's AWS profile points
    with mock_aws():
        settings = dynamodb_settings()
        create_from_template(settings)
        arn = boto3.client("stepfunctions", region_name="us-east-1").create_state_machine(
            name="claimcourt-debate-test",
            definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
            roleArn="arn:aws:iam::123456789012:role/sfn",
        )["stateMachineArn"]
        outputs = {key: getattr(settings, field) for key, field in cloud.OUTPUT_SETTINGS.items()}
        outputs["DebateStateMachineArn"] = arn
        monkeypatch.setattr(cloud, "stack_outputs", lambda name, region: outputs if name == "dev" else {})
        yield settings, arn


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_run_on_a_stack_records_the_run_starts_its_execution_and_follows_it(
    stack: tuple[Settings, str],
) -> None:
    settings, arn = stack
    store = build_store(settings)

    # The deployed state machine's stages would finish the run; here a thread plays them.
    def finish_when_started() -> None:
        for _ in range(500):
            runs = store.list_runs(LOCAL_TENANT, 1).runs
            if runs:
                store.set_status(
                    runs[0].run_id, RunStatus.FAILED, error="ProviderError: no key in the secret"
                )
                return
            threading.Event().wait(0.01)

    threading.Thread(target=finish_when_started, daemon=True).start()
    result = invoke("run", "Sea levels are rising", "--stack", "dev", "--json")
    assert result.exit_code == 1  # the run failed, and says why
    record = json.loads(result.stdout)
    assert record["error"] == "ProviderError: no key in the secret"
    # the execution is named by the run and carries only its id
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    [execution] = sfn.list_executions(stateMachineArn=arn)["executions"]
    assert execution["name"] == record["run_id"]
    assert json.loads(sfn.describe_execution(executionArn=execution["executionArn"])["input"]) == {
        "run_id": record["run_id"]
    }


def test_runs_and_show_read_the_stack_table(stack: tuple[Settings, str]) -> None:
    settings, _ = stack
    from claimcourt.runs import create_run, parse_request

    run = create_run(build_store(settings), parse_request({"claim": "Glaciers are retreating"}))
    listing = invoke("runs", "--stack", "dev", "--json")
    assert [json.loads(line)["run_id"] for line in listing.stdout.splitlines()] == [run.run_id]
    shown = invoke("show", run.run_id, "--stack", "dev")
    assert shown.exit_code == 0 and "still running" in shown.stdout


def test_a_stack_that_is_not_claimcourt_is_a_one_line_error(stack: Any) -> None:
    result = invoke("runs", "--stack", "someone-elses")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: stack: stack someone-elses has no output")
