"""`claimcourt run|motion|runs|show --stack NAME`: the same commands against a deployed stack (its tables
from template.yaml and its state machine, under moto)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from click.testing import CliRunner, Result
from moto import mock_aws

from claimcourt.cli import main
from claimcourt.local import cloud
from claimcourt.models import LOCAL_TENANT, RunStatus
from claimcourt.settings import Settings
from claimcourt.wiring import build_store
from tests.contract.aws_resources import create_from_template, dynamodb_settings
from tests.fakes.clock import Clock

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]


def _state_machine(name: str) -> str:
    return str(
        boto3.client("stepfunctions", region_name="us-east-1").create_state_machine(
            name=name,
            definition=json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Succeed"}}}),
            roleArn="arn:aws:iam::123456789012:role/sfn",
        )["stateMachineArn"]
    )


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Settings, str, str]]:
    """A 'deployed' stack: tables and bucket built from template.yaml, its two state machines, its
    outputs and parameters: one run an hour (a stack named "old" was deployed before motion debates:
    it has no motion machine)."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")  # where the user's AWS profile points
    monkeypatch.setenv("CLAIMCOURT_HOURLY_RUNS_PER_TENANT", "1000")  # the shell's: the stack's wins
    monkeypatch.setenv("CLAIMCOURT_RUN_TIMEOUT_S", "60")  # a run nobody ends fails its test, not hangs it
    with mock_aws():
        settings = dynamodb_settings()
        create_from_template(settings)
        debate, motion = _state_machine("claimcourt-debate-test"), _state_machine("claimcourt-motion-test")
        outputs = {key: getattr(settings, field) for key, field in cloud.OUTPUT_SETTINGS.items()}
        outputs["DebateStateMachineArn"] = debate
        old = dict(outputs)
        outputs["MotionStateMachineArn"] = motion
        stacks = {
            "dev": cloud.Described(outputs, {"MaxActiveRuns": "3", "HourlyRunsPerTenant": "1"}),
            "old": cloud.Described(old, {}),
        }
        monkeypatch.setattr(
            cloud, "describe_stack", lambda name, region: stacks.get(name, cloud.Described({}, {}))
        )
        yield settings, debate, motion


@pytest.fixture
def stages(stack: tuple[Settings, str, str]) -> Iterator[Callable[[str], None]]:
    """The deployed state machine's stages would end each run; here a thread plays them: from
    `stages(reason)` on, it fails every run it finds running, with that reason."""
    stop, threads = threading.Event(), []
    store = build_store(stack[0])

    def fail_what_runs(reason: str) -> None:
        while not stop.wait(0.01):
            for run in store.list_runs(LOCAL_TENANT, 10).runs:
                if run.status is RunStatus.RUNNING:
                    store.set_status(run.run_id, RunStatus.FAILED, error=reason)

    def play(reason: str) -> None:
        threads.append(threading.Thread(target=fail_what_runs, args=(reason,), daemon=True))
        threads[-1].start()

    yield play
    stop.set()
    for thread in threads:
        thread.join(timeout=10)


def _only_execution(arn: str) -> tuple[str, dict[str, Any]]:
    """The name and input of the one execution of this state machine."""
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    [execution] = sfn.list_executions(stateMachineArn=arn)["executions"]
    described = sfn.describe_execution(executionArn=execution["executionArn"])
    return execution["name"], json.loads(described["input"])


def invoke(*args: str, now: Callable[[], datetime] | None = None) -> Result:
    """`claimcourt ARGS`; with `now`, its runs are admitted at the time it reads."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False, obj=now)


def test_run_on_a_stack_records_the_run_starts_its_execution_and_follows_it(
    stack: tuple[Settings, str, str], stages: Callable[[str], None]
) -> None:
    _, debate, motion = stack
    stages("ProviderError: no key in the secret")
    result = invoke("run", "Sea levels are rising", "--stack", "dev", "--json")
    assert result.exit_code == 1  # the run failed, and says why
    record = json.loads(result.stdout)
    assert record["error"] == "ProviderError: no key in the secret"
    # the execution is named by the run and carries only its id
    assert _only_execution(debate) == (record["run_id"], {"run_id": record["run_id"]})
    assert boto3.client("stepfunctions").list_executions(stateMachineArn=motion)["executions"] == []


def test_a_motion_on_a_stack_starts_the_motion_machine_and_follows_it(
    stack: tuple[Settings, str, str], stages: Callable[[str], None]
) -> None:
    settings, debate, motion = stack
    store = build_store(settings)
    stages("ProviderError: no key in the secret")
    # a line-up names a provider with no key here: on a stack the keys are the stack's, not ours
    result = invoke(
        "motion", "Cities should ban cars", "--stack", "dev", "--lineup", "judge=openai:gpt-5", "--json"
    )
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert (doc["status"], doc["error"], doc["result"]) == (
        "failed",
        "ProviderError: no key in the secret",
        None,
    )
    assert "the debate failed: ProviderError: no key in the secret" in result.stderr
    assert _only_execution(motion) == (doc["run_id"], {"run_id": doc["run_id"]})
    assert boto3.client("stepfunctions").list_executions(stateMachineArn=debate)["executions"] == []
    # recorded in the stack's table as a motion, under the cost guard's tenant like `run --stack`
    [recorded] = store.list_runs(LOCAL_TENANT, 5).runs
    assert recorded.run_id == doc["run_id"]
    assert recorded.motion is not None and recorded.motion.motion == "Cities should ban cars"


def test_the_cost_guard_on_a_stack_takes_the_stacks_limits_not_the_shells(
    stack: tuple[Settings, str, str], stages: Callable[[str], None]
) -> None:
    settings, debate, motion = stack
    stages("ProviderError: no key in the secret")
    clock = Clock(datetime(2026, 3, 1, 9, 59, 59, tzinfo=UTC))  # the CLI's admissions read this
    started = invoke("run", "Sea levels are rising", "--stack", "dev", now=clock)
    assert started.exit_code == 1 and "cost guard" not in started.stderr  # started, failed
    # the stack allows one run an hour (the shell's 1000 is not the stack's): nothing more starts
    refused = invoke("motion", "Cities should ban cars", "--stack", "dev", now=clock)
    assert refused.exit_code == 1
    assert refused.stderr.startswith("error: cost guard: ") and "(nothing was started)" in refused.stderr
    assert "resets at 10:00 UTC" in refused.stderr
    assert len(build_store(settings).list_runs(LOCAL_TENANT, 5).runs) == 1
    sfn = boto3.client("stepfunctions")
    assert [len(sfn.list_executions(stateMachineArn=arn)["executions"]) for arn in (debate, motion)] == [1, 0]
    # until the next hour: then the stack's cap has room again
    clock.at = datetime(2026, 3, 1, 10, tzinfo=UTC)
    again = invoke("motion", "Cities should ban cars", "--stack", "dev", now=clock)
    assert again.exit_code == 1 and "cost guard" not in again.stderr  # started, failed
    assert [len(sfn.list_executions(stateMachineArn=arn)["executions"]) for arn in (debate, motion)] == [1, 1]


def test_a_motion_on_a_stack_deployed_before_motions_is_a_one_line_error(stack: Any) -> None:
    result = invoke("motion", "Cities should ban cars", "--stack", "old")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: stack: stack old has no output MotionStateMachineArn")
    assert build_store(stack[0]).list_runs(LOCAL_TENANT, 5).runs == []  # nothing was recorded


def test_the_template_has_every_output_a_stack_is_read_by() -> None:
    import yaml

    from claimcourt.local.template import CfnLoader

    root = Path(__file__).resolve().parents[2]
    outputs = yaml.load((root / "template.yaml").read_text(), Loader=CfnLoader)["Outputs"]
    assert {*cloud.OUTPUT_SETTINGS, "DebateStateMachineArn", "MotionStateMachineArn"} <= set(outputs)


def test_runs_and_show_read_the_stack_table(stack: tuple[Settings, str, str]) -> None:
    settings = stack[0]
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


@pytest.mark.parametrize(
    ("parameters", "spends"),
    [
        ({}, True),  # its keys are in its secret, unknown here: every run counts, as its API judges
        ({"Provider": "offline"}, False),
        ({"Provider": "offline", "ModelsByRole": '{"adjudicator": "anthropic:claude-opus-4-1"}'}, True),
    ],
)
def test_whether_a_stacks_run_counts_against_its_hourly_cap_is_the_stacks_to_say(
    monkeypatch: pytest.MonkeyPatch, parameters: dict[str, str], spends: bool
) -> None:
    outputs = {key: "x" for key in (*cloud.OUTPUT_SETTINGS, "DebateStateMachineArn")}
    monkeypatch.setattr(cloud, "describe_stack", lambda name, region: cloud.Described(outputs, parameters))
    shell = Settings(provider="offline")  # the laptop's own choice is not the stack's
    assert cloud.load_stack("dev", shell).settings.may_spend() is spends


def test_a_run_on_a_stack_names_the_stacks_collections(
    stack: tuple[Settings, str, str], stages: Callable[[str], None]
) -> None:
    from claimcourt.evidence.ingest import read_upload
    from claimcourt.wiring import build_collections

    settings, debate, _ = stack
    collections = build_collections(settings)
    assert collections is not None
    collections.create(LOCAL_TENANT, "harbour", "T2")
    collections.put(LOCAL_TENANT, "harbour", [read_upload("report.md", b"# Harbour\n\nThe sea wall rose.\n")])

    refused = invoke("run", "Sea walls work", "--stack", "dev", "--corpus", "nowhere")
    assert refused.exit_code == 2 and "corpora: no collection nowhere (on stack dev" in refused.stderr

    stages("ProviderError: no key in the secret")
    result = invoke("run", "Sea walls work", "--stack", "dev", "--corpus", "harbour", "--json")
    record = json.loads(result.stdout)
    assert build_store(settings).get_run(record["run_id"]).request.corpora == ["harbour"]
    assert _only_execution(debate) == (record["run_id"], {"run_id": record["run_id"]})
