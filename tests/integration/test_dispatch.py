"""The dispatch hook alone: Lambda tasks of a stub template run in-process, errors come back as Lambda's."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from claimcourt.local.dispatch import LambdaDispatcher, load_handlers
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


def _moto_hooks() -> dict[str, object]:
    """Every attribute the dispatcher could patch in moto's Step Functions interpreter."""
    from moto.stepfunctions.parser.asl.component.common.path import result_path
    from moto.stepfunctions.parser.asl.component.common.string import string_expression
    from moto.stepfunctions.parser.asl.component.state.exec.state_task import lambda_eval_utils
    from moto.stepfunctions.parser.asl.eval import states
    from moto.stepfunctions.parser.asl.utils import json_path
    from moto.stepfunctions.parser.backend.execution_worker import ExecutionWorker

    modules = [lambda_eval_utils, ExecutionWorker, result_path, string_expression, states, json_path]
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

    data = {"a": [1, 2.5, {"b": None, "c": True}], "d": "x", "when": datetime(2026, 1, 1)}
    copied = JsonCopy.deepcopy(data)
    assert copied == data
    assert copied["a"] is not data["a"] and copied["a"][2] is not data["a"][2]
    copied["a"][2]["b"] = "changed"
    assert data["a"][2]["b"] is None


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
