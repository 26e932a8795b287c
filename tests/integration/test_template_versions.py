"""What SAM makes of template.yaml's stage versions: translated with aws-sam-translator (the transform
CloudFormation runs at deploy), after packaging as `sam deploy` does (every CodeUri and ContentUri an
S3 object named by its content's hash). A run in flight keeps the versions its definition names; a
deploy that changes a stage, or the layer, publishes new ones for the runs that start after it."""

from __future__ import annotations

import copy
import functools
import os
import re
from typing import Any
from unittest import mock

import pytest
from samtranslator.public.translator import ManagedPolicyLoader
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

from claimcourt.local.template import ACCOUNT, REGION, project_root

ROOT = project_root()
SOURCE: dict[str, Any] = yaml_parse((ROOT / "template.yaml").read_text())
PLACEHOLDER = re.compile(r"\$\{(\w+)\}")


class _NoManagedPolicies(ManagedPolicyLoader):
    """Only SAM's own execution policies are named by name: no IAM call to resolve the rest."""

    def __init__(self) -> None:
        pass

    def load(self) -> dict[str, str]:
        named = (("AWSLambdaBasicExecutionRole", "service-role/"), ("AWSXrayWriteOnlyAccess", ""))
        return {name: f"arn:aws:iam::aws:policy/{path}{name}" for name, path in named}


def _packaged(code: dict[str, str] | None = None, layer: str = "layer-1") -> dict[str, Any]:
    """template.yaml as `sam package` leaves it: `code` maps a function to its package's name."""
    doc = copy.deepcopy(SOURCE)
    for logical, resource in doc["Resources"].items():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function":
            props["CodeUri"] = f"s3://artifacts/{(code or {}).get(logical, logical + '-1')}"
        elif resource["Type"] == "AWS::Serverless::LayerVersion":
            props["ContentUri"] = f"s3://artifacts/{layer}"
        elif resource["Type"] == "AWS::Serverless::StateMachine":
            props["DefinitionUri"] = {"Bucket": "artifacts", "Key": props["DefinitionUri"]}
    return doc


def _translate(doc: dict[str, Any], parameters: dict[str, str] | None = None) -> dict[str, Any]:
    pseudo = {"AWS::Region": REGION, "AWS::Partition": "aws", "AWS::AccountId": ACCOUNT}
    with mock.patch.dict(os.environ, {"AWS_DEFAULT_REGION": REGION}):  # SAM's ARN partition lookup
        resources: dict[str, Any] = transform(doc, {**(parameters or {}), **pseudo}, _NoManagedPolicies())[
            "Resources"
        ]
    return resources


@functools.cache
def _deployed() -> dict[str, Any]:
    return _translate(_packaged())


def _versions(resources: dict[str, Any]) -> dict[str, str]:
    """Each function that publishes versions → the logical id of the version this deploy names."""
    return {
        v["Properties"]["FunctionName"]["Ref"]: k
        for k, v in resources.items()
        if v["Type"] == "AWS::Lambda::Version"
    }


def _invoked(machine: str) -> dict[str, Any]:
    """Each placeholder a Task state's FunctionName is → what SAM substitutes for it."""
    props = _deployed()[machine]["Properties"]  # an AWS::StepFunctions::StateMachine now
    definition = (ROOT / SOURCE["Resources"][machine]["Properties"]["DefinitionUri"]).read_text()
    used = {m for m in PLACEHOLDER.findall(definition) if m.endswith("FunctionArn")}
    return {key: props["DefinitionSubstitutions"][key] for key in used}


MACHINES = sorted(k for k, v in SOURCE["Resources"].items() if v["Type"] == "AWS::Serverless::StateMachine")


@pytest.mark.parametrize("machine", MACHINES)
def test_every_task_invokes_a_retained_version_of_its_function(machine: str) -> None:
    resources = _deployed()
    invoked = _invoked(machine)
    assert invoked
    for placeholder, value in invoked.items():
        version = resources.get(value.get("Ref", ""), {}) if isinstance(value, dict) else {}
        assert version.get("Type") == "AWS::Lambda::Version", f"{placeholder} names {value}"
        # Ref of a version is its ARN, qualified: arn:…:function:NAME:N
        function = version["Properties"]["FunctionName"]["Ref"]
        assert placeholder == f"{function}Arn"
        # Kept when a later deploy names a new one (DeletionPolicy) or replaces it (UpdateReplacePolicy)
        assert version["DeletionPolicy"] == "Retain" and version["UpdateReplacePolicy"] == "Retain"
        assert version["Properties"]["Description"] == {"Fn::Sub": "parameters revision ${ConfigRevision}"}


@pytest.mark.parametrize("machine", MACHINES)
def test_the_state_machine_may_invoke_the_versions_it_names(machine: str) -> None:
    """SAM's LambdaInvokePolicy grants function:NAME* (its policy template): NAME:N is granted."""
    resources = _deployed()
    granted = set()
    for policy in resources[f"{machine}Role"]["Properties"]["Policies"]:
        for statement in policy["PolicyDocument"]["Statement"]:
            if statement["Action"] == ["lambda:InvokeFunction"] and statement["Effect"] == "Allow":
                pattern, names = statement["Resource"]["Fn::Sub"]
                assert pattern.endswith(":function:${functionName}*")
                granted.add(names["functionName"]["Ref"])
    invoked = {resources[v["Ref"]]["Properties"]["FunctionName"]["Ref"] for v in _invoked(machine).values()}
    assert invoked <= granted


def test_only_functions_a_state_machine_invokes_publish_versions() -> None:
    """The others keep their event sources on the function itself: the API's, the schedules', the
    queues', the stream's, and the API's asynchronous invoke of the re-judge function."""
    resources = _deployed()
    stages = {
        resources[value["Ref"]]["Properties"]["FunctionName"]["Ref"]
        for machine in MACHINES
        for value in _invoked(machine).values()
    }
    assert set(_versions(resources)) == stages
    assert "RejudgeFunction" not in stages and "ApiFunction" not in stages
    aliases = [v for v in resources.values() if v["Type"] == "AWS::Lambda::Alias"]
    assert {a["Properties"]["FunctionName"]["Ref"] for a in aliases} == stages
    # The queues and the stream invoke their functions unqualified, as before.
    mappings = [v for v in resources.values() if v["Type"] == "AWS::Lambda::EventSourceMapping"]
    assert {m["Properties"]["FunctionName"]["Ref"] for m in mappings} == {
        "IndexFunction",
        "MonitorFunction",
        "NotifyFunction",
    }


def test_a_deploy_publishes_a_version_of_what_changed_and_of_nothing_else() -> None:
    before = _versions(_deployed())
    # The same packages again: the same versions (no new version at every deploy).
    assert _versions(_translate(_packaged())) == before
    # One stage's code: that stage's version only.
    one = _versions(_translate(_packaged(code={"ArgueFunction": "ArgueFunction-2"})))
    assert {f for f in before if one[f] != before[f]} == {"ArgueFunction"}
    # The layer, where the stages' code lives: every stage's.
    layer = _versions(_translate(_packaged(layer="layer-2")))
    assert all(layer[f] != before[f] for f in before)


def test_a_parameter_alone_publishes_nothing_unless_the_parameters_revision_changes() -> None:
    """SAM hashes the template as written, not parameter values (aws/serverless-application-model
    #3820): the version keeps its logical id. ConfigRevision is the version's description, whose change
    CloudFormation makes by replacement: a new version, the old one kept for the runs on it."""
    budget = _translate(_packaged(), {"RunBudgetUsd": "5"})
    assert _versions(budget) == _versions(_deployed())
    for logical in _versions(_deployed()).values():
        description = budget[logical]["Properties"]["Description"]["Fn::Sub"]
        assert "${ConfigRevision}" in description
