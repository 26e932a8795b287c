"""Re-judging is asynchronous (issue 26): POST /runs/{id}/judgements answers 202 at once, every new
judgement `pending`, with a Location that follows it; the judges answer elsewhere (the stack's re-judge
function, invoked with InvocationType Event; a thread on the laptop), and every judgement ends
`succeeded` or `failed` with why: a judge that fails, one that outlives its time, a worker that could
not be started, an error nobody foresaw, a worker that stopped. On DynamoDB and Lambda (moto), each
function needs nothing its policy in template.yaml does not grant. The tests wait on events (a judge
held until released, a worker's thread), never on the clock."""

from __future__ import annotations

import dataclasses
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws
from pydantic import SecretStr

from claimcourt import rejudge as rejudging
from claimcourt.access import issue_key
from claimcourt.api.http import handler
from claimcourt.evidence.golden import GoldenSource
from claimcourt.execution import LambdaRejudger
from claimcourt.local.dispatch import load_module
from claimcourt.local.runtime import LocalRuntime
from claimcourt.local.template import load_template, project_root
from claimcourt.models import RunRecord
from claimcourt.rejudge import CUT_OFF, GRACE_S, RUN_FOR_S, InProcess, ask, judgements_of, settle
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.store.dynamodb import DynamoStore
from claimcourt.wiring import Deps, build_deps, build_idempotency, use_deps
from tests.contract.aws_resources import (
    create_from_template,
    dynamo_store,
    dynamodb_settings,
    record_calls,
    ungranted,
)
from tests.fakes.apigw import LambdaContext, http_event
from tests.fakes.provider_servers import FakeOpenAIServer, openai_error, openai_json_completion
from tests.integration.test_provider_runs import CANNED, HITS

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]
TENANT = "acme"
JUDGES = ["openai:gpt-4.1", "openai:gpt-4o"]


def _judgement(sub_claims: list[str]) -> dict[str, Any]:
    """A judge's reply finding every sub-claim supported (82)."""
    reply = json.loads(json.dumps(CANNED["Judgement"]))
    reply["sub_claims"] = [
        {**reply["sub_claims"][0], "sub_claim_id": s, "score": 82, "verdict": "supported"} for s in sub_claims
    ]
    return reply | {"overall_score": 82, "overall_interval": {"low": 72, "high": 92}, "what_would_change": []}


class HeldJudge:
    """An OpenAI-compatible judge that answers only once released: `asked` is set by each request."""

    def __init__(self) -> None:
        self.asked = threading.Semaphore(0)
        self.release = threading.Event()
        self.sub_claims: list[str] = []
        self.server = FakeOpenAIServer(default=self._answer)

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        self.asked.release()
        assert self.release.wait(60), "the test never released the judge"
        return openai_json_completion(_judgement(self.sub_claims), prompt_tokens=1000, completion_tokens=200)

    def wait_asked(self, n: int) -> None:
        for _ in range(n):
            assert self.asked.acquire(timeout=30), "the judge was not asked"


@pytest.fixture
def judge() -> Iterator[HeldJudge]:
    held = HeldJudge()
    with held.server:
        try:
            yield held
        finally:
            held.release.set()  # a judge still held lets go, so its server can stop


def _deps(tmp_path: Path, judge: HeldJudge | None = None) -> Deps:
    keys: dict[str, Any] = {}
    if judge is not None:
        keys = {"openai_api_key": SecretStr("sk-test"), "openai_base_url": judge.server.url}
    settings = Settings(data_dir=tmp_path, provider="offline", **keys)
    return dataclasses.replace(build_deps(settings), evidence=GoldenSource(HITS))


def _debated(deps: Deps) -> RunRecord:
    with LocalRuntime(deps) as runtime:
        record = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id=TENANT)
        assert runtime.execute(record.run_id, timeout_s=60).status == "SUCCEEDED"
    return deps.store.get_run(record.run_id)


def _api(deps: Deps, method: str, path: str, **kw: Any) -> tuple[int, dict[str, str], Any]:
    key, _ = issue_key(deps.store, TENANT)
    with use_deps(deps):
        reply = handler(
            http_event(method, path, headers={"authorization": f"Bearer {key}"}, **kw), LambdaContext()
        )
    body = json.loads(reply["body"]) if reply.get("body") else None
    return reply["statusCode"], reply.get("headers") or {}, body


def _statuses(body: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(j["status"], j["error"]) for j in body["judgements"] if not j["original"]]


def _late_judges_done() -> None:
    """Wait for the judges' threads that outlived their re-judging (they end once released)."""
    for thread in threading.enumerate():
        if thread.name.startswith("rejudge_"):
            thread.join(30)
            assert not thread.is_alive()


def test_post_answers_at_once_with_pending_judgements_that_end_succeeded(
    tmp_path: Path, judge: HeldJudge
) -> None:
    # Given a debate that succeeded, and the laptop's worker (a thread) that a test can follow
    deps = _deps(tmp_path, judge)
    record = _debated(deps)
    judge.sub_claims[:] = [s.id for s in record.result.sub_claims]  # type: ignore[union-attr]
    worker = InProcess(deps)
    deps = dataclasses.replace(deps, rejudger=worker)
    # When two judges are asked for while neither can answer yet
    status, headers, accepted = _api(
        deps, "POST", f"/runs/{record.run_id}/judgements", body={"judges": JUDGES}
    )
    # Then the API has answered already: 202, both pending, and a Location that follows this re-judging
    assert status == 202, accepted
    rejudge_id = accepted["rejudge_id"]
    assert [j["status"] for j in accepted["judgements"]] == ["pending", "pending"]
    assert [j["model"] for j in accepted["judgements"]] == JUDGES
    assert headers["Location"] == f"/runs/{record.run_id}/judgements?rejudge={rejudge_id}"
    judge.wait_asked(2)
    status, _, followed = _api(
        deps, "GET", f"/runs/{record.run_id}/judgements", query={"rejudge": rejudge_id}
    )
    assert status == 200 and _statuses(followed) == [("pending", None), ("pending", None)]
    # When the judges answer
    judge.release.set()
    assert worker.wait(rejudge_id, 60)
    # Then each has succeeded with its score and cost, listed after the run's own judgement
    _, _, listed = _api(deps, "GET", f"/runs/{record.run_id}/judgements")
    original, *again = listed["judgements"]
    assert original["status"] == "succeeded" and original["original"]
    assert [(j["status"], j["judge_score"], j["verdict"]) for j in again] == [
        ("succeeded", 82, "supported")
    ] * 2
    assert all(j["ended_at"] and j["cost_usd"] > 0 for j in again)
    assert deps.store.get_run(record.run_id).result == record.result


def test_a_judge_that_fails_ends_failed_with_why_and_the_others_are_kept(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.enqueue_many(3, 400, openai_error("Invalid model", code="model_not_found"))
        settings = Settings(data_dir=tmp_path, provider="offline", openai_api_key=SecretStr("sk-test"),
                            openai_base_url=server.url)  # fmt: skip
        deps = dataclasses.replace(build_deps(settings), evidence=GoldenSource(HITS))
        record = _debated(deps)
        worker = InProcess(deps)
        deps = dataclasses.replace(deps, rejudger=worker)
        status, _, accepted = _api(
            deps, "POST", f"/runs/{record.run_id}/judgements", body={"judges": ["openai:gpt-nope", "offline"]}
        )
        assert status == 202, accepted
        assert worker.wait(accepted["rejudge_id"], 60)
    _, _, listed = _api(deps, "GET", f"/runs/{record.run_id}/judgements")
    (failed, failed_why), (succeeded, _) = _statuses(listed)
    assert (failed, succeeded) == ("failed", "succeeded")
    assert failed_why is not None and failed_why.startswith("ProviderError") and "Invalid model" in failed_why


def test_a_judge_that_outlives_its_time_is_stored_failed_and_stays_failed(
    tmp_path: Path, judge: HeldJudge
) -> None:
    deps = _deps(tmp_path, judge)
    record = _debated(deps)
    judge.sub_claims[:] = [s.id for s in record.result.sub_claims]  # type: ignore[union-attr]
    pending = ask(deps, record, ["openai:gpt-4.1"])
    # When the work's time runs out while its judge is held (it answers only once released)
    ended = settle(deps, record.run_id, pending[0].rejudge_id or "", within_s=0.5)
    # Then the judgement is stored failed, saying why
    assert [(j.status, j.error) for j in ended] == [("failed", "the judge gave no answer within 0.5 s")]
    # and when the judge answers late, its answer does not undo the end a reader has seen
    judge.wait_asked(1)
    judge.release.set()
    _late_judges_done()
    assert [(j.status, j.judge_score) for j in judgements_of(deps, record)[1:]] == [("failed", None)]


def test_work_that_cannot_start_or_breaks_leaves_nothing_pending(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps = _deps(tmp_path)
    record = _debated(deps)

    class Unreachable:
        def start_rejudge(self, run_id: str, rejudge_id: str) -> None:
            raise ConnectionError("no route to the function")

    # A worker that cannot be reached: 503, and the judgements it would have judged have failed
    status, _, problem = _api(
        dataclasses.replace(deps, rejudger=Unreachable()),
        "POST",
        f"/runs/{record.run_id}/judgements",
        body={"judges": ["offline"]},
    )
    assert (status, problem["code"]) == (503, "unavailable"), problem
    _, _, listed = _api(deps, "GET", f"/runs/{record.run_id}/judgements")
    assert _statuses(listed) == [("failed", "the re-judging could not be started; ask again")]

    # Work that breaks on something nobody foresaw: failed, named, and nothing of its insides shown
    def broken(*_: Any) -> Any:
        raise RuntimeError("disk full at /var/secret/path")

    monkeypatch.setattr(rejudging.adjudicate, "judge_inputs", broken)
    pending = ask(deps, record, ["offline"], rubric=True)
    ended = settle(deps, record.run_id, pending[0].rejudge_id or "")
    assert [(j.status, j.error) for j in ended] == [
        ("failed", "RuntimeError: an unexpected error (the service's log has it)")
    ] * 2


def test_a_judgement_a_stopped_worker_left_pending_reads_as_failed_once_past_its_time(tmp_path: Path) -> None:
    deps = _deps(tmp_path)
    record = _debated(deps)
    (pending,) = ask(deps, record, ["offline"])  # asked, and no worker ever came
    assert pending.created_at is not None
    within = pending.created_at + timedelta(seconds=RUN_FOR_S)
    past = pending.created_at + timedelta(seconds=RUN_FOR_S + GRACE_S + 1)
    assert [(j.status, j.error) for j in judgements_of(deps, record, now=within)[1:]] == [("pending", None)]
    assert [(j.status, j.error) for j in judgements_of(deps, record, now=past)[1:]] == [("failed", CUT_OFF)]
    # and a worker that turns up after its time stores it failed too, without judging
    late = settle(deps, record.run_id, pending.rejudge_id or "", within_s=-1)
    assert [(j.status, j.error, j.llm_calls) for j in late] == [
        ("failed", "not begun within 14 minutes of being asked", 0)
    ]


def test_a_judgement_stored_before_statuses_reads_as_ended() -> None:
    old = {
        "id": "20260101T000000-abcdef/0",
        "original": False,
        "judge": "contract",
        "model": "offline:offline",
    }
    assert rejudging.StoredJudgement.model_validate(old).status == "succeeded"
    assert rejudging.StoredJudgement.model_validate({**old, "error": "refused"}).status == "failed"


# ---------------------------------------------------------------- on a stack: DynamoDB and Lambda (moto)

ROOT = project_root()
FUNCTION = "claimcourt-rejudge-test"


def _lambda_function(name: str) -> None:
    """A function of that name in moto's Lambda (its code is never run: use_docker is off)."""
    iam = boto3.client("iam", region_name="us-east-1")
    role = iam.create_role(RoleName=f"{name}-role", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("app.py", "def handler(event, context):\n    return event\n")
    boto3.client("lambda", region_name="us-east-1").create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role,
        Handler="app.handler",
        Code={"ZipFile": code.getvalue()},
    )


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Deps]:
    """Deps on DynamoDB as the deployed API has them (no provider keys), its re-judgings handed to the
    re-judge function in moto's Lambda."""
    with mock_aws(config={"lambda": {"use_docker": False}}):
        settings = dynamodb_settings(data_dir=tmp_path).model_copy(
            update={"provider": "offline", "provider_keys_known": False, "rejudge_function_name": FUNCTION}
        )
        create_from_template(settings)
        _lambda_function(FUNCTION)
        store = dynamo_store(settings, inline_limit=200)
        deps = dataclasses.replace(build_deps(settings, store), evidence=GoldenSource(HITS))
        yield dataclasses.replace(deps, idempotency=build_idempotency(settings, store))


def test_on_a_stack_the_api_invokes_the_function_and_the_function_judges_within_their_policies(
    stack: Deps,
) -> None:
    assert isinstance(stack.rejudger, LambdaRejudger) and isinstance(stack.store, DynamoStore)
    record = _debated(stack)
    clients = [stack.store.client, stack.store.s3]
    # When a client asks for a re-judging through the API function
    api_calls = record_calls(clients, stack.settings, threading.current_thread())
    status, headers, accepted = _api(
        stack, "POST", f"/runs/{record.run_id}/judgements", body={"judges": ["offline"]}
    )
    # Then it has handed the work to the function (Lambda took the event: 202) and answered pending
    assert status == 202, accepted
    assert [j["status"] for j in accepted["judgements"]] == ["pending"]
    api_calls.add_call("RejudgeFunction", "lambda:InvokeFunction")  # what start_rejudge did, and Lambda took
    assert ungranted(api_calls, ["ApiFunction"]) == []
    # When Lambda delivers the event to the function (its handler, as template.yaml names it)
    spec = load_template(ROOT).functions["RejudgeFunction"]
    function = getattr(load_module(ROOT, spec), spec.handler.rsplit(".", 1)[1])
    order = {"run_id": record.run_id, "rejudge_id": accepted["rejudge_id"]}
    worker_calls = record_calls(clients, stack.settings)  # every thread: the judges run on their own
    with use_deps(stack):
        done = function(order, LambdaContext())
    # Then the judgement has succeeded, and the function needed nothing its policy does not grant
    assert done["judgements"] == {accepted["judgements"][0]["id"]: "succeeded"}
    assert ("MainTable", "dynamodb:PutItem") in worker_calls
    assert ungranted(worker_calls, ["RejudgeFunction"]) == []
    _, _, listed = _api(
        stack, "GET", headers["Location"].split("?")[0], query={"rejudge": order["rejudge_id"]}
    )
    assert _statuses(listed) == [("succeeded", None)]
    # and an order that is not one is refused by name, never half-read
    with use_deps(stack), pytest.raises(rejudging.MalformedEventError):
        function({"run_id": record.run_id}, LambdaContext())


def test_on_a_stack_a_function_lambda_will_not_invoke_fails_the_judgements_and_says_so(stack: Deps) -> None:
    # (moto's Lambda without Docker takes any invocation: Lambda's refusal is stubbed on the real client)
    record = _debated(stack)
    rejudger = LambdaRejudger(FUNCTION, "us-east-1")
    with Stubber(rejudger.client) as lambda_says:
        lambda_says.add_client_error("invoke", "TooManyRequestsException", http_status_code=429)
        deps = dataclasses.replace(stack, rejudger=rejudger)
        status, _, problem = _api(
            deps, "POST", f"/runs/{record.run_id}/judgements", body={"judges": ["offline"]}
        )
    assert status == 503, problem
    assert problem["code"] == "unavailable", problem
    _, _, listed = _api(stack, "GET", f"/runs/{record.run_id}/judgements")
    assert _statuses(listed) == [("failed", "the re-judging could not be started; ask again")]


def test_the_deployed_api_without_a_rejudge_function_refuses_rather_than_judging_in_its_own_process(
    tmp_path: Path,
) -> None:
    deps = _deps(tmp_path)
    record = _debated(deps)
    deployed = dataclasses.replace(
        deps, settings=deps.settings.model_copy(update={"state_machine_arn": "arn:aws:states:us-east-1:1:x"})
    )
    status, _, problem = _api(
        deployed, "POST", f"/runs/{record.run_id}/judgements", body={"judges": ["offline"]}
    )
    assert status == 503, problem
    assert judgements_of(deps, record)[1:] == []
