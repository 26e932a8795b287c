"""template.yaml and statemachine/*.asl.json agree with each other, with the code and with the linters."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import claimcourt.errors
from claimcourt.local.dispatch import load_module
from claimcourt.local.template import CfnLoader, load_template, project_root

ROOT = project_root()
LAMBDA_RETRY = {
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
}
FAILURE_HANDLER = "FinishFailed"


TEMPLATE: dict[str, Any] = yaml.load((ROOT / "template.yaml").read_text(), Loader=CfnLoader)
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
FUNCTIONS = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::Function"}
MACHINES = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::Serverless::StateMachine"}


def _function_named_by(substitution: Any) -> str | None:
    """The function a DefinitionSubstitution names, in any form (its ARN, name, a version or alias)."""
    if isinstance(substitution, dict) and "Fn::GetAtt" in substitution:
        logical = substitution["Fn::GetAtt"][0]
    elif isinstance(substitution, dict) and "Ref" in substitution:
        logical = str(substitution["Ref"]).split(".", 1)[0]
    else:
        return None
    return logical if logical in FUNCTIONS else None


# Stage functions are the ones a state machine invokes; the others (APIs, notifier, sweeper) have
# their own event sources.
STAGES = {
    k: v
    for k, v in FUNCTIONS.items()
    if any(
        _function_named_by(value) == k
        for m in MACHINES.values()
        for value in m["Properties"].get("DefinitionSubstitutions", {}).values()
    )
}
ASL_FILES = sorted((ROOT / "statemachine").glob("*.asl.json"))


def _asl(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _states(
    states: dict[str, Any], enclosing: tuple[dict[str, Any], ...] = ()
) -> Iterator[tuple[str, dict[str, Any], tuple[dict[str, Any], ...]]]:
    """Every state, recursively, with the Parallel/Map states that enclose it (innermost last)."""
    for name, state in states.items():
        yield name, state, enclosing
        inner = (*enclosing, state)
        for branch in state.get("Branches", []):
            yield from _states(branch["States"], inner)
        processor = state.get("ItemProcessor") or state.get("Iterator")
        if processor:
            yield from _states(processor["States"], inner)


def _all_states() -> list[tuple[str, str, dict[str, Any], tuple[dict[str, Any], ...]]]:
    return [(p.name, n, s, enc) for p in ASL_FILES for n, s, enc in _states(_asl(p)["States"])]


TASKS = [(f, n, s, enc) for f, n, s, enc in _all_states() if s["Type"] == "Task"]
CAUGHT = [t for t in TASKS if t[1] != FAILURE_HANDLER]  # the failure handler itself ends in a Fail state


def _machine_for(path: Path) -> dict[str, Any]:
    rel = path.relative_to(ROOT).as_posix()
    [machine] = [m for m in MACHINES.values() if m["Properties"]["DefinitionUri"] == rel]
    return machine


def test_there_is_a_state_machine_with_tasks() -> None:
    assert ASL_FILES and MACHINES and FUNCTIONS
    assert len(TASKS) >= 8


@pytest.mark.parametrize("path", ASL_FILES, ids=lambda p: p.name)
def test_placeholders_and_definition_substitutions_match(path: Path) -> None:
    placeholders = set(re.findall(r"\$\{([A-Za-z0-9_]+)\}", path.read_text()))
    substitutions = set(_machine_for(path)["Properties"].get("DefinitionSubstitutions", {}))
    assert placeholders - substitutions == set(), "placeholders without a DefinitionSubstitution"
    assert substitutions - placeholders == set(), "DefinitionSubstitutions no placeholder uses"


@pytest.mark.parametrize(("file", "name", "state", "enclosing"), TASKS, ids=[f"{t[0]}:{t[1]}" for t in TASKS])
def test_every_task_retries_lambda_and_transient_errors(
    file: str, name: str, state: dict[str, Any], enclosing: object
) -> None:
    retried = {error for retrier in state.get("Retry", []) for error in retrier["ErrorEquals"]}
    assert LAMBDA_RETRY | {"TransientError"} <= retried
    for retrier in state["Retry"]:
        assert retrier.get("MaxAttempts", 3) >= 1


@pytest.mark.parametrize(
    ("file", "name", "state", "enclosing"), CAUGHT, ids=[f"{t[0]}:{t[1]}" for t in CAUGHT]
)
def test_every_task_is_caught_into_the_failure_handler(
    file: str, name: str, state: dict[str, Any], enclosing: tuple[dict[str, Any], ...]
) -> None:
    catchers = [c for s in (state, *enclosing) for c in s.get("Catch", [])]
    assert any("States.ALL" in c["ErrorEquals"] and c["Next"] == FAILURE_HANDLER for c in catchers), (
        f"{name} is not caught into {FAILURE_HANDLER}"
    )


def test_catchers_leading_to_the_failure_handler_put_the_error_where_it_reads_it() -> None:
    for path in ASL_FILES:
        handler = _asl(path)["States"][FAILURE_HANDLER]
        reads = handler["Parameters"]["Payload"]["error.$"]
        catchers = [c for _, s, _ in _states(_asl(path)["States"]) for c in s.get("Catch", [])]
        into_handler = [c for c in catchers if c["Next"] == FAILURE_HANDLER]
        assert into_handler and all(c.get("ResultPath") == reads for c in into_handler)


def test_failure_handler_ends_the_execution_failed() -> None:
    for path in ASL_FILES:
        states = _asl(path)["States"]
        handler = states[FAILURE_HANDLER]
        assert states[handler["Next"]]["Type"] == "Fail"
        assert all(states[c["Next"]]["Type"] == "Fail" for c in handler.get("Catch", []))


def test_every_error_name_in_retry_and_catch_exists() -> None:
    ours = {
        name
        for name, value in vars(claimcourt.errors).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    }
    names = {
        error
        for _, _, state, _ in _all_states()
        for rule in (*state.get("Retry", []), *state.get("Catch", []))
        for error in rule["ErrorEquals"]
    }
    unknown = {n for n in names if not n.startswith(("States.", "Lambda.")) and n not in ours}
    assert unknown == set()
    assert "TransientError" in names


def test_retryable_errors_in_the_code_are_the_ones_the_asl_retries() -> None:
    retried = {e for _, _, s, _ in TASKS for r in s.get("Retry", []) for e in r["ErrorEquals"]}
    assert {cls.__name__ for cls in claimcourt.errors.RETRYABLE} <= retried


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_every_function_has_a_handler(logical_id: str) -> None:
    spec = load_template(ROOT).functions[logical_id]
    props = FUNCTIONS[logical_id]["Properties"]
    handler_file = ROOT / props["CodeUri"] / "app.py"
    assert handler_file.is_file()
    assert props.get("Handler", "app.handler") == "app.handler"
    assert callable(getattr(load_module(ROOT, spec), "handler", None))


@pytest.mark.parametrize("logical_id", sorted(STAGES))
def test_every_stage_function_has_a_substitution_and_an_invoke_policy(logical_id: str) -> None:
    substituted = [
        v
        for m in MACHINES.values()
        for v in m["Properties"].get("DefinitionSubstitutions", {}).values()
        if _function_named_by(v) == logical_id
    ]
    assert substituted, f"{logical_id} is not in any DefinitionSubstitutions"
    invokable = [
        p["LambdaInvokePolicy"]["FunctionName"]
        for m in MACHINES.values()
        for p in m["Properties"].get("Policies", [])
        if isinstance(p, dict) and "LambdaInvokePolicy" in p
    ]
    assert {"Ref": logical_id} in invokable


def _task_function_names(path: Path) -> list[tuple[str, str]]:
    """(state, the ${Placeholder} its FunctionName is) for every Task state of one ASL file."""
    found = []
    for name, state, _ in _states(_asl(path)["States"]):
        if state["Type"] == "Task":
            placeholder = re.fullmatch(r"\$\{(\w+)\}", state["Parameters"]["FunctionName"])
            assert placeholder, f"{path.name}:{name} names its function outside DefinitionSubstitutions"
            found.append((name, placeholder.group(1)))
    return found


@pytest.mark.parametrize("path", ASL_FILES, ids=lambda p: p.name)
def test_every_task_invokes_a_version_its_function_publishes_at_each_deploy(path: Path) -> None:
    """An execution keeps the definition it started with. Naming a version (not the function, whose
    $LATEST a deploy replaces, nor an alias, which a deploy moves) keeps a run's every stage on the
    code it started with across a deploy: the next deploy writes a definition naming new versions.
    Versions are kept when the template stops naming them (SAM's VersionDeletionPolicy defaults to
    Retain) or a parameters revision replaces them (UpdateReplacePolicy), for the runs still on them;
    AutoPublishAliasAllProperties publishes one for a change of any property, the layer's too."""
    substitutions = _machine_for(path)["Properties"]["DefinitionSubstitutions"]
    for state, placeholder in _task_function_names(path):
        logical = _function_named_by(substitutions[placeholder])
        assert substitutions[placeholder] == {"Ref": f"{logical}.Version"}, (
            f"{path.name}:{state} invokes {substitutions[placeholder]}, not a published version"
        )
        function = FUNCTIONS[str(logical)]
        props = function["Properties"]
        assert props.get("AutoPublishAlias") and props.get("AutoPublishAliasAllProperties") is True, logical
        assert props.get("VersionDeletionPolicy", "Retain") == "Retain", logical
        assert function.get("UpdateReplacePolicy") == "Retain", logical
        assert props.get("VersionDescription") == {"Fn::Sub": "parameters revision ${ConfigRevision}"}
        # A hash given by hand would replace SAM's hash of the properties: no version for a new layer.
        assert "AutoPublishCodeSha256" not in props, logical
    layer = RESOURCES["CoreLayer"]["Properties"]
    assert layer.get("PublishLambdaVersion") is True  # a new layer publishes every stage anew


def test_every_function_dir_is_in_the_template() -> None:
    dirs = {p.parent.name for p in (ROOT / "functions").glob("*/app.py")}
    declared = {Path(f["Properties"]["CodeUri"]).name for f in FUNCTIONS.values()}
    assert dirs == declared


def _tool(name: str) -> str:
    return str(Path(sys.executable).parent / name)


@pytest.mark.timeout(120)
def test_cfn_lint_is_clean() -> None:
    done = subprocess.run(
        [_tool("cfn-lint"), "template.yaml"], cwd=ROOT, capture_output=True, text=True, timeout=110
    )
    assert done.returncode == 0, done.stdout + done.stderr


RENDERABLE = load_template(ROOT)


@pytest.mark.parametrize("logical_id", sorted(RENDERABLE.state_machines))
def test_statelint_is_clean_on_the_rendered_definition(logical_id: str, tmp_path: Path) -> None:
    # What Step Functions receives: the ASL with every ${Placeholder} substituted.
    rendered = tmp_path / f"{logical_id}.asl.json"
    rendered.write_text(RENDERABLE.render(logical_id))
    done = subprocess.run([_tool("statelint"), str(rendered)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == ""


def _statements(node: Any) -> list[dict[str, Any]]:
    """Every IAM policy statement anywhere in the template (inline policies and role documents)."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if "Effect" in node and "Action" in node:
            found.append(node)
        for value in node.values():
            found += _statements(value)
    elif isinstance(node, list):
        for value in node:
            found += _statements(value)
    return found


def test_no_policy_grants_a_wildcard_action() -> None:
    # Least privilege: every action is named (SAM policy templates expand to named actions too).
    statements = _statements(TEMPLATE["Resources"])
    assert statements, "expected inline IAM statements in the template"
    for statement in statements:
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        wild = [a for a in actions if a == "*" or str(a).endswith(":*")]
        assert not wild, f"wildcard action {wild} in {statement}"


def test_provider_keys_come_from_secrets_manager_not_parameters_or_the_environment() -> None:
    env = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    assert env["CLAIMCOURT_PROVIDER_KEYS_SECRET"] == {"Ref": "ProviderKeysSecret"}
    assert TEMPLATE["Resources"]["ProviderKeysSecret"]["Type"] == "AWS::SecretsManager::Secret"
    secret_names = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "XAI_API_KEY")
    assert not [name for name in env if name in secret_names]
    assert not [p for p in TEMPLATE.get("Parameters", {}) if "key" in p.lower() or "secret" in p.lower()]


@pytest.mark.parametrize(
    ("url", "taken"),
    [
        ("", True),
        ("http://127.0.0.1:8888", True),
        ("https://search.example.org/searxng/", True),
        ("http://admin:hunter2@search.example.org", False),
        ("http://search.example.org/?token=hunter2", False),
        ("ftp://search.example.org", False),
    ],
)
def test_the_searxng_url_parameter_takes_what_the_settings_take(
    clean_env: None, url: str, taken: bool
) -> None:
    """A stack refuses at deploy what every function would refuse at its start (Settings._http_url)."""
    from pydantic import ValidationError

    from claimcourt.settings import Settings

    pattern = TEMPLATE["Parameters"]["SearxngUrl"]["AllowedPattern"]
    assert (re.fullmatch(pattern, url) is not None) is taken
    try:
        Settings(searxng_url=url)
        settled = True
    except ValidationError:
        settled = False
    assert settled is taken


@pytest.mark.parametrize("logical_id", sorted(FUNCTIONS))
def test_a_function_that_reads_the_provider_keys_secret_may_read_it(logical_id: str) -> None:
    # load_settings fetches the secret at every cold start where it is named: without the grant,
    # every invocation of the function would fail on AccessDenied.
    globals_env = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    props = FUNCTIONS[logical_id]["Properties"]
    env = {**globals_env, **props.get("Environment", {}).get("Variables", {})}
    reads_secret = env.get("CLAIMCOURT_PROVIDER_KEYS_SECRET") not in (None, "")
    may_read = {"Ref": "ProviderKeysReadPolicy"} in props.get("Policies", [])
    assert reads_secret == may_read, f"{logical_id}: reads the secret {reads_secret}, may read it {may_read}"
    # only the stages call models, and the function that judges a stored debate again
    assert reads_secret == (logical_id in STAGES or logical_id == "RejudgeFunction")


ALARMS = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::CloudWatch::Alarm"}
COMPOSITES = {k: v for k, v in RESOURCES.items() if v["Type"] == "AWS::CloudWatch::CompositeAlarm"}


def _watched(alarm: dict[str, Any]) -> list[dict[str, Any]]:
    """The metrics an alarm retrieves (its Metrics' MetricStat items), or its one metric."""
    props = alarm["Properties"]
    if "MetricName" in props:
        return [{"MetricName": props["MetricName"], "Dimensions": props.get("Dimensions", [])}]
    return [m["MetricStat"]["Metric"] for m in props.get("Metrics", []) if "MetricStat" in m]


def _named_in_rule(composite: dict[str, Any]) -> set[str]:
    """The alarms (logical ids) a composite alarm's rule names, each as ALARM("${Id}")."""
    rule = composite["Properties"]["AlarmRule"]
    text = rule["Fn::Sub"] if isinstance(rule, dict) else rule
    return set(re.findall(r'ALARM\("\$\{(\w+)\}"\)', text))


def test_alarms_watch_failed_executions_lambda_errors_and_throttles() -> None:
    watched = {m["MetricName"] for a in ALARMS.values() for m in _watched(a)}
    assert {"ExecutionsFailed", "Errors", "Throttles"} <= watched
    # every state machine's executions that fail, time out or are aborted: the claim's and the motion's
    for metric in ("ExecutionsFailed", "ExecutionsTimedOut", "ExecutionsAborted"):
        machines = {
            m["Dimensions"][0]["Value"]["Ref"]
            for a in ALARMS.values()
            if {"Ref": "AlarmTopic"} in a["Properties"].get("AlarmActions", [])
            for m in _watched(a)
            if m["MetricName"] == metric
        }
        assert machines == set(MACHINES), (metric, machines)
    for metric in ("Errors", "Throttles"):
        # Every function is watched, and by an alarm that reaches the topic: its own, or a composite's
        notifying = {
            k for k, a in ALARMS.items() if {"Ref": "AlarmTopic"} in a["Properties"].get("AlarmActions", [])
        }
        for composite in COMPOSITES.values():
            if {"Ref": "AlarmTopic"} in composite["Properties"].get("AlarmActions", []):
                notifying |= _named_in_rule(composite)
        covered = {
            m["Dimensions"][0]["Value"]["Ref"]
            for k, a in ALARMS.items()
            if k in notifying
            for m in _watched(a)
            if m["MetricName"] == metric
        }
        assert covered == set(FUNCTIONS), (metric, set(FUNCTIONS) ^ covered)


@pytest.mark.parametrize("logical_id", sorted(ALARMS))
def test_no_alarm_retrieves_more_than_ten_metrics(logical_id: str) -> None:
    """CloudWatch's hard limit for an alarm on a metric math expression (PutMetricAlarm: at most 10
    MetricStat items and 10 expressions in its Metrics); cfn-lint does not check it, a deploy fails."""
    metrics = ALARMS[logical_id]["Properties"].get("Metrics", [])
    assert len(_watched(ALARMS[logical_id])) <= 10
    assert len([m for m in metrics if "Expression" in m]) <= 10


def test_a_function_alarm_is_notified_once_through_its_composite() -> None:
    """The per-group alarms under a composite send nothing themselves: the composite's one message
    says which of them is in alarm."""
    for composite in COMPOSITES.values():
        for child in _named_in_rule(composite):
            assert child in ALARMS, child
            assert not ALARMS[child]["Properties"].get("AlarmActions"), child


def test_the_api_function_serves_the_web_console_at_the_root_and_under_its_catch_all() -> None:
    """The console's page is GET / on the HTTP API (its files, /console/*, come through the catch-all),
    so the page and the API share an origin: the console's policy names only this API."""
    events = FUNCTIONS["ApiFunction"]["Properties"]["Events"]
    routes = {(e["Properties"]["Path"], e["Properties"]["Method"]) for e in events.values()}
    assert {("/", "GET"), ("/{proxy+}", "ANY")} <= routes
    assert "ConsoleUrl" in TEMPLATE["Outputs"]
    assert (ROOT / "layers" / "core" / "claimcourt" / "console" / "index.html").is_file()  # in the layer


def test_the_http_api_grants_no_other_origin_cross_origin_access() -> None:
    """No CorsConfiguration: a browser on any other origin cannot read the API (its preflight gets
    no Access-Control-Allow-Origin), and the console needs none, being on the API's own origin."""
    for resource in RESOURCES.values():
        if resource["Type"] in ("AWS::Serverless::HttpApi", "AWS::ApiGatewayV2::Api"):
            assert "CorsConfiguration" not in resource.get("Properties", {})
    assert "Cors" not in TEMPLATE.get("Globals", {}).get("HttpApi", {})


def test_the_template_is_read_with_libyaml_and_reads_as_the_pure_python_loader_reads_it() -> None:
    from claimcourt.local import template

    assert issubclass(CfnLoader, yaml.CSafeLoader)  # PyYAML's wheels are built with libyaml

    class PurePython(yaml.SafeLoader):
        pass

    PurePython.add_multi_constructor("!", template._intrinsic)
    text = (ROOT / "template.yaml").read_text()
    assert yaml.load(text, Loader=PurePython) == TEMPLATE
    assert TEMPLATE["Resources"]["DebateStateMachine"]["Properties"]["DefinitionSubstitutions"]


def test_the_bucket_lets_the_console_post_a_presigned_upload_and_nothing_else() -> None:
    # The console is served at the ConsoleUrl output; the bucket's CORS rule must let that origin POST
    console = TEMPLATE["Outputs"]["ConsoleUrl"]["Value"]["Fn::Sub"]
    [rule] = RESOURCES["ArtifactsBucket"]["Properties"]["CorsConfiguration"]["CorsRules"]
    assert rule["AllowedMethods"] == ["POST"]  # no page reads an object
    [allowed] = rule["AllowedOrigins"]
    where = {"${AWS::Region}": "eu-west-1", "${AWS::URLSuffix}": "amazonaws.com", "${HttpApi}": "abc123"}

    def filled(text: str) -> str:
        for name, value in where.items():
            text = text.replace(name, value)
        return text

    origin = filled(console).rstrip("/")
    assert re.fullmatch(re.escape(filled(allowed["Fn::Sub"])).replace(r"\*", "[a-z0-9]+"), origin)
    assert "*" not in filled(allowed["Fn::Sub"]).removeprefix("https://*")  # one wildcard: the API's id
