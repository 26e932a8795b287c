"""The dispatch hook alone: Lambda tasks of a stub template run in-process, errors come back as Lambda's."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from claimcourt.local.dispatch import LambdaDispatcher, function_name_and_qualifier, load_handlers
from claimcourt.local.template import ACCOUNT, REGION, Template, load_template

TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  EchoFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/echo/
      Handler: app.handler
  BoomFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/boom/
      Handler: app.handler
  StubMachine:
    Type: AWS::Serverless::StateMachine
    Properties:
      DefinitionUri: statemachine/stub.asl.json
      DefinitionSubstitutions:
        EchoArn: !GetAtt EchoFunction.Arn
        BoomArn: !GetAtt BoomFunction.Arn
"""
ECHO = """\
def handler(event, context):
    return {
        "event": event,
        "function_name": context.function_name,
        "arn": context.invoked_function_arn,
        "remaining_ms": context.get_remaining_time_in_millis(),
    }
"""
BOOM = """\
class QuotaError(Exception):
    pass


def handler(event, context):
    raise QuotaError("out of quota for " + context.function_name)
"""
ASL = {
    "StartAt": "Echo",
    "States": {
        "Echo": {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": "${EchoArn}", "Payload": {"msg.$": "$.msg"}},
            "OutputPath": "$.Payload",
            "Next": "Boom",
        },
        "Boom": {
            "Type": "Task",
            "Resource": "arn:aws:states:::lambda:invoke",
            "Parameters": {"FunctionName": "${BoomArn}", "Payload": {}},
            "Catch": [{"ErrorEquals": ["QuotaError"], "ResultPath": "$.caught", "Next": "Done"}],
            "Next": "Done",
        },
        "Done": {"Type": "Succeed"},
    },
}


@pytest.fixture
def stub(tmp_path: Path) -> Template:
    (tmp_path / "template.yaml").write_text(TEMPLATE)
    for name, code in (("echo", ECHO), ("boom", BOOM)):
        (tmp_path / "functions" / name).mkdir(parents=True)
        (tmp_path / "functions" / name / "app.py").write_text(textwrap.dedent(code))
    (tmp_path / "statemachine").mkdir()
    (tmp_path / "statemachine" / "stub.asl.json").write_text(json.dumps(ASL))
    return load_template(tmp_path)


@pytest.fixture
def dispatcher(stub: Template) -> LambdaDispatcher:
    return LambdaDispatcher(load_handlers(stub))


def _arn(name: str) -> str:
    return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{name}"


def test_template_names_the_functions_and_fills_the_substitutions(stub: Template) -> None:
    assert {spec.name for spec in stub.functions.values()} == {
        "claimcourt-EchoFunction",
        "claimcourt-BoomFunction",
    }
    rendered = json.loads(stub.render("StubMachine"))
    assert rendered["States"]["Echo"]["Parameters"]["FunctionName"] == _arn("claimcourt-EchoFunction")


def test_handler_gets_the_json_payload_and_a_context(dispatcher: LambdaDispatcher) -> None:
    payload = {"run_id": "run_1", "round": 2, "nested": {"a": [1, 2]}}
    reply = dispatcher.invoke(
        {"FunctionName": _arn("claimcourt-EchoFunction"), "Payload": json.dumps(payload).encode()}, REGION
    )
    assert reply["StatusCode"] == 200 and "FunctionError" not in reply
    assert reply["Payload"]["event"] == payload
    assert reply["Payload"]["function_name"] == "claimcourt-EchoFunction"
    assert reply["Payload"]["arn"] == _arn("claimcourt-EchoFunction")
    assert reply["Payload"]["remaining_ms"] > 0
    assert dispatcher.invocations == ["claimcourt-EchoFunction"]


def test_payload_may_be_a_string_or_missing_and_a_plain_name_works(dispatcher: LambdaDispatcher) -> None:
    as_text = dispatcher.invoke({"FunctionName": "claimcourt-EchoFunction", "Payload": '{"x": 1}'}, REGION)
    missing = dispatcher.invoke({"FunctionName": "claimcourt-EchoFunction"}, REGION)
    assert as_text["Payload"]["event"] == {"x": 1}
    assert missing["Payload"]["event"] == {}


def test_exception_comes_back_as_a_function_error_named_by_its_class(dispatcher: LambdaDispatcher) -> None:
    reply = dispatcher.invoke({"FunctionName": _arn("claimcourt-BoomFunction"), "Payload": b"{}"}, REGION)
    assert reply["FunctionError"] == "Unhandled"
    assert reply["Payload"] == {
        "errorType": "QuotaError",
        "errorMessage": "out of quota for claimcourt-BoomFunction",
    }
    assert dispatcher.invocations == ["claimcourt-BoomFunction"]


def test_unknown_function_is_resource_not_found(dispatcher: LambdaDispatcher) -> None:
    reply = dispatcher.invoke({"FunctionName": _arn("claimcourt-Nope"), "Payload": b"{}"}, REGION)
    assert reply["FunctionError"] == "Unhandled"
    assert reply["Payload"]["errorType"] == "ResourceNotFoundException"
    assert "claimcourt-Nope" in reply["Payload"]["errorMessage"]
    assert dispatcher.invocations == []


@pytest.mark.parametrize(
    ("identifier", "expected"),
    [
        ("claimcourt-EchoFunction", ("claimcourt-EchoFunction", None)),
        ("claimcourt-EchoFunction:7", ("claimcourt-EchoFunction", "7")),
        (f"{ACCOUNT}:function:claimcourt-EchoFunction", ("claimcourt-EchoFunction", None)),
        (f"{ACCOUNT}:function:claimcourt-EchoFunction:live", ("claimcourt-EchoFunction", "live")),
        (_arn("claimcourt-EchoFunction"), ("claimcourt-EchoFunction", None)),
        (_arn("claimcourt-EchoFunction") + ":12", ("claimcourt-EchoFunction", "12")),
        (_arn("claimcourt-EchoFunction") + ":$LATEST", ("claimcourt-EchoFunction", "$LATEST")),
    ],
)
def test_every_form_of_function_name_lambda_takes_names_the_function(
    identifier: str, expected: tuple[str, str | None]
) -> None:
    assert function_name_and_qualifier(identifier) == expected


VERSIONED = TEMPLATE.replace(
    "      CodeUri: functions/echo/\n", "      CodeUri: functions/echo/\n      AutoPublishAlias: live\n"
).replace("EchoArn: !GetAtt EchoFunction.Arn", "EchoArn: !Ref EchoFunction.Version")


def test_a_published_version_renders_qualified_and_runs_the_working_tree(stub: Template) -> None:
    """template.yaml's state machines name `!Ref XFunction.Version` (SAM: the version's ARN). Locally
    nothing is published: the one version is the working tree, $LATEST, and the handler runs."""
    (stub.root / "template.yaml").write_text(VERSIONED)
    versioned = load_template(stub.root)
    rendered = json.loads(versioned.render("StubMachine"))
    qualified = _arn("claimcourt-EchoFunction") + ":$LATEST"
    assert rendered["States"]["Echo"]["Parameters"]["FunctionName"] == qualified
    dispatcher = LambdaDispatcher(load_handlers(versioned))
    reply = dispatcher.invoke({"FunctionName": qualified, "Payload": b'{"x": 1}'}, REGION)
    assert reply["Payload"]["event"] == {"x": 1}
    assert reply["Payload"]["function_name"] == "claimcourt-EchoFunction"
    assert reply["Payload"]["arn"] == qualified  # as Lambda's context gives the ARN invoked
    assert dispatcher.invocations == ["claimcourt-EchoFunction"]


def test_a_version_of_a_function_that_publishes_none_is_refused(stub: Template) -> None:
    """As SAM refuses it: only a function with AutoPublishAlias has a .Version to name."""
    unpublished = VERSIONED.replace("EchoFunction.Version", "BoomFunction.Version")
    (stub.root / "template.yaml").write_text(unpublished)
    with pytest.raises(ValueError, match=r"BoomFunction\.Version: the function has no AutoPublishAlias"):
        load_template(stub.root).render("StubMachine")


def _moto_hooks() -> dict[str, object]:
    """Every attribute the dispatcher could patch in moto's Step Functions interpreter."""
    from moto.stepfunctions.parser import models as parser_models
    from moto.stepfunctions.parser.asl.component.common.path import result_path
    from moto.stepfunctions.parser.asl.component.common.string import string_expression
    from moto.stepfunctions.parser.asl.component.program.program import Program
    from moto.stepfunctions.parser.asl.component.state.exec import execute_state
    from moto.stepfunctions.parser.asl.component.state.exec.state_map import state_map
    from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration import (
        inline_iteration_component,
        job,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_parallel import (
        branch_worker,
        state_parallel,
    )
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils
    from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import state_task_service
    from moto.stepfunctions.parser.asl.eval import environment, states
    from moto.stepfunctions.parser.asl.utils import json_path
    from moto.stepfunctions.parser.backend import execution_worker
    from moto.stepfunctions.parser.backend.execution import BaseExecutionWorkerCommunication
    from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

    modules = [lambda_eval_utils, ExecutionWorker, result_path, string_expression, states, json_path]
    modules += [parser_models, BaseExecutionWorkerCommunication, execute_state, execute_state.ExecutionState]
    modules += [Program, environment, job, branch_worker, inline_iteration_component, execution_worker]
    modules += [state_parallel, state_map, state_task_service]
    return {f"{m.__name__}.{k}": v for m in modules for k, v in vars(m).items()}


def test_moto_function_is_patched_only_inside_the_context(dispatcher: LambdaDispatcher) -> None:
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils

    before = _moto_hooks()
    with dispatcher.installed() as installed:
        assert installed is dispatcher
        assert lambda_eval_utils._invoke_lambda_function == dispatcher.invoke
    assert _moto_hooks() == before


def test_moto_parses_each_jsonpath_once_inside_the_context(dispatcher: LambdaDispatcher) -> None:
    from moto.stepfunctions.parser.asl.component.common.path import result_path
    from moto.stepfunctions.parser.asl.utils import json_path

    with dispatcher.installed():
        for module in (json_path, result_path):
            assert module.parse("$.run_id") is module.parse("$.run_id")  # the same parsed path
            assert module.parse("$.run_id").find({"run_id": "r1"})[0].value == "r1"
    assert json_path.parse("$.run_id") is not json_path.parse("$.run_id")  # moto's own, restored


def test_state_data_is_copied_deeply_and_the_same() -> None:
    from datetime import datetime

    from claimcourt.local.dispatch import JsonCopy
    from claimcourt.models import Stage

    json_only = {"a": [1, 2.5, {"b": None, "c": True}], "d": "x", "e": [], "f": -(2**70)}
    with_others = {**json_only, "when": datetime(2026, 1, 1), "stage": Stage.ARGUE}
    for data in (json_only, with_others):  # copied in C, and attribute by attribute
        copied = JsonCopy.deepcopy(data)
        assert copied == data
        assert [type(v) for v in copied.values()] == [type(v) for v in data.values()]
        assert copied["a"] is not data["a"] and copied["a"][2] is not data["a"][2]
        copied["a"][2]["b"] = "changed"
        assert data["a"][2]["b"] is None


def test_moto_program_states_and_closed_jobs_are_copied_deeply_and_the_same() -> None:
    from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration.job import JobClosed
    from moto.stepfunctions.parser.asl.eval.program_state import ProgramError, ProgramRunning

    from claimcourt.local.dispatch import JsonCopy, _plain_classes

    for kind in _plain_classes():  # still plain: nothing of its own that copy.deepcopy would honour
        assert not {"__deepcopy__", "__reduce__", "__reduce_ex__", "__slots__", "__setstate__"} & set(
            vars(kind)
        )
    running = ProgramRunning()
    running.next_state_name = "Argue"
    copied = JsonCopy.deepcopy(running)
    assert type(copied) is ProgramRunning and copied is not running
    assert copied.next_state_name == "Argue"
    copied.next_state_name = "Judge"
    assert running.next_state_name == "Argue"
    failed = ProgramError(error={"error": "States.Timeout", "cause": "slow"})
    assert (
        JsonCopy.deepcopy(failed).error == failed.error
        and JsonCopy.deepcopy(failed).error is not failed.error
    )
    jobs = {JobClosed(job_index=0, job_output={"found": [1]}), JobClosed(job_index=1, job_output=None)}
    copied_jobs = JsonCopy.deepcopy(jobs)
    assert sorted((j.job_index, j.job_output) for j in copied_jobs) == [(0, {"found": [1]}), (1, None)]
    assert not {id(j) for j in copied_jobs} & {id(j) for j in jobs}


def test_moto_function_is_restored_even_when_the_body_raises(dispatcher: LambdaDispatcher) -> None:
    before = _moto_hooks()
    with pytest.raises(RuntimeError), dispatcher.installed():
        raise RuntimeError("boom")
    assert _moto_hooks() == before


@pytest.mark.timeout(60)
def test_moto_execution_runs_the_stub_handlers_in_process(
    stub: Template, dispatcher: LambdaDispatcher
) -> None:
    import boto3
    from moto import mock_aws

    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}), dispatcher.installed():
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn.create_state_machine(
            name="stub",
            definition=stub.render("StubMachine"),
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/stub",
        )["stateMachineArn"]
        execution = sfn.start_execution(stateMachineArn=arn, input=json.dumps({"msg": "hello"}))[
            "executionArn"
        ]
        described = _wait(sfn, execution)
    assert described["status"] == "SUCCEEDED"
    output = json.loads(described["output"])
    assert output["event"] == {"msg": "hello"}
    assert output["function_name"] == "claimcourt-EchoFunction"
    # the Catch matched the handler's exception class name, as it would match Lambda's errorType
    assert output["caught"]["Error"] == "QuotaError"
    assert json.loads(output["caught"]["Cause"])["errorMessage"] == "out of quota for claimcourt-BoomFunction"
    assert dispatcher.invocations == ["claimcourt-EchoFunction", "claimcourt-BoomFunction"]


def _wait(sfn: Any, execution_arn: str, timeout_s: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        described: dict[str, Any] = sfn.describe_execution(executionArn=execution_arn)
        if described["status"] != "RUNNING":
            return described
        time.sleep(0.01)
    raise AssertionError(f"{execution_arn} still running after {timeout_s}s")


@pytest.mark.timeout(60)
def test_each_definition_is_parsed_once_for_its_creation_and_all_its_executions(
    stub: Template, dispatcher: LambdaDispatcher
) -> None:
    import boto3
    from botocore.exceptions import ClientError
    from moto import mock_aws

    from claimcourt.local.dispatch import PARSED

    # A definition no other test has parsed.
    definition = json.dumps({**json.loads(stub.render("StubMachine")), "Comment": str(uuid.uuid4())})
    before = PARSED.parses
    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}), dispatcher.installed():
        sfn = boto3.client("stepfunctions", region_name=REGION)
        role = f"arn:aws:iam::{ACCOUNT}:role/stub"
        arn = sfn.create_state_machine(name="once", definition=definition, roleArn=role)["stateMachineArn"]
        for name in ("first", "second"):
            execution = sfn.start_execution(stateMachineArn=arn, name=name, input=json.dumps({"msg": "hi"}))
            assert _wait(sfn, execution["executionArn"])["status"] == "SUCCEEDED"
        # A definition that does not parse is still refused at creation, as moto refuses it.
        with pytest.raises(ClientError, match="definition"):
            sfn.create_state_machine(name="bad", definition='{"StartAt": "Nowhere"}', roleArn=role)
    assert PARSED.parses - before == 2  # the good one once, the bad one once


@pytest.mark.timeout(60)
def test_each_execution_gets_a_tree_of_its_own_made_ready_before_it_starts(
    stub: Template, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claimcourt.local import dispatch

    monkeypatch.setattr(dispatch, "SPARE_AFTER_S", 0.0)
    parsed = dispatch.ParsedDefinitions()
    definition = stub.render("StubMachine")
    trees = []
    for _ in range(3):
        trees.append(parsed.program(definition))
        deadline = time.monotonic() + 10
        while definition not in parsed._spares:  # the next one's copy, made on a pooled worker
            assert time.monotonic() < deadline, "no copy made ready"
            time.sleep(0.001)
    assert (parsed.parses, parsed.spares_used) == (1, 2)  # parsed once; the later two started on a copy
    # A burst of starts: the first takes the ready copy, the rest unpickle their own, and only one
    # next copy is made meanwhile
    monkeypatch.setattr(dispatch, "SPARE_AFTER_S", 0.2)
    trees += [parsed.program(definition) for _ in range(4)]
    assert parsed.spares_used == 3 and parsed._making == {definition}
    assert len({id(tree) for tree in trees}) == 7 and all(type(tree) is type(trees[0]) for tree in trees)
    assert trees[1].start_at.start_at_name == trees[0].start_at.start_at_name


@pytest.mark.timeout(60)
def test_a_follower_is_told_the_moment_its_execution_has_ended(
    stub: Template, dispatcher: LambdaDispatcher
) -> None:
    import boto3
    from moto import mock_aws

    from claimcourt.local.dispatch import ENDS

    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}), dispatcher.installed():
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn.create_state_machine(
            name="ends", definition=stub.render("StubMachine"), roleArn=f"arn:aws:iam::{ACCOUNT}:role/stub"
        )["stateMachineArn"]
        execution_arn = arn.replace(":stateMachine:", ":execution:") + ":told"
        ended = ENDS.follow(execution_arn)
        sfn.start_execution(stateMachineArn=arn, name="told", input=json.dumps({"msg": "hi"}))
        assert ended.wait(30)
        # moto had recorded the end before it told: the status is final at once.
        described = sfn.describe_execution(executionArn=execution_arn)
        assert described["status"] == "SUCCEEDED"
        # and the follower knows how it ended without asking: what DescribeExecution says
        told = ENDS.described(execution_arn)
        assert told is not None
        assert (told["status"], told.get("error"), told.get("cause")) == (
            described["status"],
            described.get("error"),
            described.get("cause"),
        )
        assert json.loads(told["output"]) == json.loads(described["output"])
        ENDS.unfollow(execution_arn)
        assert execution_arn not in ENDS._followed and ENDS.described(execution_arn) is None


@pytest.mark.timeout(60)
def test_moto_forgets_its_finished_threads_at_each_execution_end(
    stub: Template, dispatcher: LambdaDispatcher
) -> None:
    import boto3
    from moto import mock_aws
    from moto.stepfunctions.parser.utils import TMP_THREADS

    with mock_aws(config={"stepfunctions": {"execute_state_machine": True}}), dispatcher.installed():
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn.create_state_machine(
            name="threads", definition=stub.render("StubMachine"), roleArn=f"arn:aws:iam::{ACCOUNT}:role/stub"
        )["stateMachineArn"]
        for n in range(5):
            execution = sfn.start_execution(
                stateMachineArn=arn, name=f"t{n}", input=json.dumps({"msg": "hi"})
            )
            assert _wait(sfn, execution["executionArn"])["status"] == "SUCCEEDED"
        time.sleep(0.1)  # the last execution's own thread, still ending when it announced its end
    # Each execution starts several threads; of the finished ones, at most the last execution's remain
    # (they were still ending when it announced its end).
    assert len([thread for thread in TMP_THREADS if not thread.is_alive()]) <= 3, TMP_THREADS


THREADS_TEMPLATE = """\
AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  WhereFunction:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/where/
      Handler: app.handler
  ThreadsMachine:
    Type: AWS::Serverless::StateMachine
    Properties:
      DefinitionUri: statemachine/threads.asl.json
      DefinitionSubstitutions:
        WhereArn: !GetAtt WhereFunction.Arn
"""
# Where a handler runs, and what a context variable held there when it started (a logger's
# per-thread keys live in one): each invocation sets it.
WHERE = """\
import contextvars
import threading
import time

SEEN = contextvars.ContextVar("seen", default=None)
MEET = threading.Barrier(2)  # two branches meet here only if they run at the same time


def handler(event, context):
    if event.get("meet"):
        MEET.wait(timeout=20)
    time.sleep(event.get("sleep", 0))
    before, _ = SEEN.get(), SEEN.set(event["name"])
    return {"thread": threading.current_thread().name, "seen": before}
"""


def _where(name: str, **extra: Any) -> dict[str, Any]:
    return {
        "Type": "Task",
        "Resource": "arn:aws:states:::lambda:invoke",
        "Parameters": {"FunctionName": "${WhereArn}", "Payload": {"name": name, "sleep": 0.0}},
        "ResultSelector": {"thread.$": "$.Payload.thread", "seen.$": "$.Payload.seen"},
        "ResultPath": f"$.{name}",
        **extra,
    }


def _run_threads_machine(tmp_path: Path, states: dict[str, Any], **machine: Any) -> dict[str, Any]:
    import boto3
    from moto import mock_aws

    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "template.yaml").write_text(THREADS_TEMPLATE)
    (tmp_path / "functions" / "where").mkdir(parents=True)
    (tmp_path / "functions" / "where" / "app.py").write_text(WHERE)
    (tmp_path / "statemachine").mkdir()
    asl = {"StartAt": next(iter(states)), "States": states, **machine}
    (tmp_path / "statemachine" / "threads.asl.json").write_text(json.dumps(asl))
    template = load_template(tmp_path)
    with (
        mock_aws(config={"stepfunctions": {"execute_state_machine": True}}),
        LambdaDispatcher(load_handlers(template)).installed(),
    ):
        sfn = boto3.client("stepfunctions", region_name=REGION)
        arn = sfn.create_state_machine(
            name="threads",
            definition=template.render("ThreadsMachine"),
            roleArn=f"arn:aws:iam::{ACCOUNT}:role/t",
        )["stateMachineArn"]
        execution = sfn.start_execution(stateMachineArn=arn, input="{}")["executionArn"]
        return _wait(sfn, execution)


@pytest.mark.timeout(60)
def test_a_state_without_a_timeout_does_its_work_on_the_thread_that_evaluates_it(tmp_path: Path) -> None:
    described = _run_threads_machine(
        tmp_path, {"First": _where("first", Next="Second"), "Second": _where("second", End=True)}
    )
    assert described["status"] == "SUCCEEDED"
    output = json.loads(described["output"])
    # one thread ran both (moto's thread for the execution), none started for either task's work
    assert output["first"]["thread"] == output["second"]["thread"]
    assert "_exec_and_notify" not in output["first"]["thread"]
    # each in a fresh context, as on a thread of its own: nothing set by the first reaches the second
    assert output["second"]["seen"] is None


@pytest.mark.timeout(60)
def test_a_parallels_branches_run_at_once_on_parked_workers_that_the_next_execution_reuses(
    tmp_path: Path,
) -> None:
    from claimcourt.local.threads import POOL

    def branch(name: str) -> dict[str, Any]:
        where = _where(name, End=True)
        where["Parameters"]["Payload"]["meet"] = True
        del where["ResultPath"]
        return {"StartAt": name, "States": {name: where}}

    states = {"Both": {"Type": "Parallel", "Branches": [branch("left"), branch("right")], "End": True}}
    described = _run_threads_machine(tmp_path, states)
    # each branch waited for the other at a barrier: one after the other, the first would time out
    assert described["status"] == "SUCCEEDED", described
    left, right = json.loads(described["output"])
    # each branch's program ran on its worker, not on a thread of its own started by the program
    assert left["thread"] == right["thread"] == "claimcourt-pooled"
    workers = POOL.started
    assert _run_threads_machine(tmp_path / "again", states)["status"] == "SUCCEEDED"
    assert POOL.started == workers  # the second execution's threads were parked ones


@pytest.mark.timeout(60)
def test_a_program_with_a_timeout_still_times_out(tmp_path: Path) -> None:
    slow = _where("slow", End=True)
    slow["Parameters"]["Payload"]["sleep"] = 3.0
    described = _run_threads_machine(tmp_path, {"Slow": slow}, TimeoutSeconds=1)
    assert described["status"] == "TIMED_OUT"


@pytest.mark.timeout(60)
def test_a_state_with_a_timeout_still_runs_on_a_thread_of_its_own_and_times_out(tmp_path: Path) -> None:
    slow = _where("slow", TimeoutSeconds=1, End=True)
    slow["Parameters"]["Payload"]["sleep"] = 3.0
    quick = _where("quick", TimeoutSeconds=30, Next="Slow")
    described = _run_threads_machine(tmp_path, {"Quick": quick, "Slow": slow})
    assert (described["status"], described.get("error")) == ("FAILED", "States.Timeout")


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("items", "max_concurrency", "workers"), [(2, 8, 2), (3, 1, 1), (3, 0, 3)])
def test_a_map_starts_no_more_workers_than_it_has_items(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, items: int, max_concurrency: int, workers: int
) -> None:
    from moto.stepfunctions.parser.asl.component.state.exec.state_map.iteration import (
        inline_iteration_component as inline_map,
    )

    launched = []
    launch = inline_map.InlineIterationComponent._launch_worker

    def counted(component: Any, *args: Any, **kwargs: Any) -> Any:
        launched.append(1)
        return launch(component, *args, **kwargs)

    monkeypatch.setattr(inline_map.InlineIterationComponent, "_launch_worker", counted)
    each = _where("each", End=True)
    each["Parameters"]["Payload"] = {"name.$": "$.name", "sleep": 0.0}
    del each["ResultPath"], each["ResultSelector"]
    states = {
        "Items": {"Type": "Pass", "Result": [{"name": f"i{n}"} for n in range(items)], "Next": "Each"},
        "Each": {
            "Type": "Map",
            "MaxConcurrency": max_concurrency,
            "ItemProcessor": {"StartAt": "Where", "States": {"Where": each}},
            "ResultSelector": {"seen.$": "$[*].Payload.seen"},
            "End": True,
        },
    }
    described = _run_threads_machine(tmp_path, states)
    assert described["status"] == "SUCCEEDED"
    assert len(json.loads(described["output"])["seen"]) == items  # every item ran, in order
    assert len(launched) == workers


# A debate in a fresh interpreter, so that no other test's imports are in its sys.modules.
DEBATE_IN_A_FRESH_PROCESS = """
import sys, tempfile
from pathlib import Path
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import SourceTag
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps

with tempfile.TemporaryDirectory() as data_dir:
    deps = build_deps(Settings(data_dir=Path(data_dir), provider="offline"))
    with LocalRuntime(deps) as runtime:
        request = parse_request({"claim": "Arctic sea ice has declined since 1979"})
        record = create_run(deps.store, request, SourceTag.APP)
        print(runtime.execute(record.run_id).status)
print(sorted(m for m in sys.modules if m.split(".")[:2] in (["moto", "ec2"], ["moto", "batch"])))
"""


def _fresh_python(code: str) -> list[str]:
    env = {k: v for k, v in __import__("os").environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()


@pytest.mark.timeout(150)
def test_a_local_debate_never_imports_moto_ec2_or_batch() -> None:
    status, loaded = _fresh_python(DEBATE_IN_A_FRESH_PROCESS)[-2:]
    assert status == "SUCCEEDED"
    assert loaded == "[]"


@pytest.mark.timeout(150)
def test_the_batch_integration_still_loads_when_a_state_machine_asks_for_it() -> None:
    code = """
import sys
from claimcourt.local.dispatch import defer_batch_integration
defer_batch_integration()
from moto.stepfunctions.parser.asl.component.state.exec.state_task.service import state_task_service_factory
print("moto.batch" in sys.modules)
service = state_task_service_factory.state_task_service_for("batch")
print(type(service).__module__, type(service).__name__, "moto.batch" in sys.modules)
"""
    assert _fresh_python(code)[-2:] == [
        "False",
        "moto.stepfunctions.parser.asl.component.state.exec.state_task.service.state_task_service_batch"
        " StateTaskServiceBatch True",
    ]
