"""Re-judging a stored debate (issue 26): `claimcourt rejudge`, POST/GET /runs/{id}/judgements. A debate
run offline through the real state machine is judged again by the offline and rubric judges, and by two
models through the real OpenAI and Anthropic SDKs against servers on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from claimcourt.access import issue_key
from claimcourt.api.http import handler
from claimcourt.cli import main
from claimcourt.evidence.golden import GoldenSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import RunRecord, RunStatus
from claimcourt.rejudge import PREFIX, InProcess, judgements_of, rejudge
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.wiring import Deps, build_deps, use_deps
from tests.fakes.apigw import LambdaContext, http_event
from tests.fakes.provider_servers import (
    FakeAnthropicServer,
    FakeOpenAIServer,
    anthropic_tool_message,
    openai_json_completion,
)
from tests.integration.test_provider_runs import CANNED, HITS

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]
TENANT = "acme"


def judgement(score: int, verdict: str, sub_claims: list[str]) -> dict[str, Any]:
    """A judge's reply scoring every sub-claim `score`."""
    reply = json.loads(json.dumps(CANNED["Judgement"]))
    reply["sub_claims"] = [
        {**reply["sub_claims"][0], "sub_claim_id": s, "score": score, "verdict": verdict} for s in sub_claims
    ]
    reply["what_would_change"] = []
    low, high = max(score - 10, 0), min(score + 10, 100)
    return reply | {"overall_score": score, "overall_interval": {"low": low, "high": high}}


def debated(deps: Deps, tenant: str = TENANT) -> RunRecord:
    """A claim debated offline through the real state machine, stored for `tenant`."""
    with LocalRuntime(deps) as runtime:
        record = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id=tenant)
        execution = runtime.execute(record.run_id, timeout_s=60)
    assert execution.status == "SUCCEEDED"
    return deps.store.get_run(record.run_id)


def offline_deps(tmp_path: Path, **settings: Any) -> Deps:
    return dataclasses.replace(
        build_deps(Settings(data_dir=tmp_path, provider="offline", **settings)), evidence=GoldenSource(HITS)
    )


def api(deps: Deps, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    key, _ = issue_key(deps.store, TENANT)
    with use_deps(deps):
        reply = handler(
            http_event(method, path, headers={"authorization": f"Bearer {key}"}, body=body), LambdaContext()
        )
    return reply["statusCode"], json.loads(reply["body"]) if reply.get("body") else None


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeAnthropicServer]]:
    """OpenAI's judge finds the claim supported (82), Anthropic's refuted (20)."""
    subs: list[str] = []

    def openai(body: dict[str, Any]) -> dict[str, Any]:
        return openai_json_completion(
            judgement(82, "supported", subs), prompt_tokens=1000, completion_tokens=200
        )

    def anthropic(body: dict[str, Any]) -> dict[str, Any]:
        return anthropic_tool_message(
            judgement(20, "refuted", subs),
            name=body["tool_choice"]["name"],
            input_tokens=1000,
            output_tokens=200,
        )

    with FakeOpenAIServer(default=openai) as o, FakeAnthropicServer(default=anthropic) as a:
        o.sub_claims = a.sub_claims = subs  # type: ignore[attr-defined]
        yield o, a


@pytest.fixture
def deps_with_judges(tmp_path: Path, servers: tuple[FakeOpenAIServer, FakeAnthropicServer]) -> Deps:
    """Offline deps with keys for OpenAI and Anthropic, whose judges answer from `servers`."""
    o, a = servers
    return offline_deps(
        tmp_path,
        openai_api_key=SecretStr("sk-test"),
        openai_base_url=o.url,
        anthropic_api_key=SecretStr("sk-ant-test"),
        anthropic_base_url=a.url,
    )


def test_rejudging_offline_with_the_offline_and_rubric_judges_keeps_the_original(tmp_path: Path) -> None:
    # Given a debate that succeeded offline
    deps = offline_deps(tmp_path)
    record = debated(deps)
    # When it is judged again by the offline reasoner, by the contract and by the rubric
    judged = rejudge(deps, record, ["offline"], rubric=True)
    # Then two judgements are stored beside the run's own, each with its judge, prompt version and score
    assert [(j.judge, j.model) for j in judged] == [
        ("contract", "offline:offline"),
        ("rubric", "offline:offline"),
    ]
    assert judged[0].prompt_version and judged[0].prompt_version.startswith("adjudicate@")
    assert judged[1].prompt_version and judged[1].prompt_version.startswith("adjudicate_rubric@")
    assert all(j.score is not None and j.verdict is not None and j.error is None for j in judged)
    # the contract's judge reading the same anonymized debate gives the run's own score back
    assert judged[0].score == record.result.overall_score  # type: ignore[union-attr]
    assert len(deps.store.find_artifacts(record.run_id, PREFIX)) == 2
    # and the run's result is untouched; the listing puts it first
    after = deps.store.get_run(record.run_id)
    assert after.result == record.result
    listed = judgements_of(deps, after)
    assert [j.id for j in listed] == ["original", judged[0].id, judged[1].id]
    assert listed[0].original and listed[0].prompt_version == judged[0].prompt_version


def test_two_judge_models_judge_the_anonymized_debate_through_their_sdks(
    servers: tuple[FakeOpenAIServer, FakeAnthropicServer], deps_with_judges: Deps
) -> None:
    o, a = servers
    deps = deps_with_judges
    record = debated(deps)
    assert record.result is not None
    o.sub_claims[:] = [s.id for s in record.result.sub_claims]  # type: ignore[attr-defined]
    worker = InProcess(deps)  # the laptop's worker, followed to its end (test_rejudge_async.py: the rest)
    deps = dataclasses.replace(deps, rejudger=worker)
    # When two models judge it again through the API
    status, accepted = api(
        deps,
        "POST",
        f"/runs/{record.run_id}/judgements",
        {"judges": ["openai:gpt-4.1", "anthropic:claude-sonnet-4-6"]},
    )
    assert status == 202, accepted
    assert worker.wait(accepted["rejudge_id"], 60)
    status, body = api(deps, "GET", f"/runs/{record.run_id}/judgements")
    # Then each was asked once, with the debate anonymized (positions A and B, no side named)
    assert status == 200, body
    assert (len(o.requests), len(a.requests)) == (1, 1)
    for sent in (json.dumps(o.requests[0].body), json.dumps(a.requests[0].body)):
        assert '<argument position=\\"A\\"' in sent and '<argument position=\\"B\\"' in sent
        assert "case-for" not in sent and "for_1" not in sent
    # and each judgement has its model, its own cost and the score the score stage's rules give it
    original, openai, anthropic = body["judgements"]
    assert original["original"] and original["score"] == record.result.overall_score
    assert (openai["model"], anthropic["model"]) == ("openai:gpt-4.1", "anthropic:claude-sonnet-4-6")
    assert (openai["judge_score"], anthropic["judge_score"]) == (82, 20)
    assert openai["verdict"] == "supported" and anthropic["verdict"] == "refuted"
    assert openai["cost_usd"] == pytest.approx((1000 * 2.0 + 200 * 8.0) / 1e6)
    assert anthropic["cost_usd"] == pytest.approx((1000 * 3.0 + 200 * 15.0) / 1e6)
    # and the run's own result is unchanged
    assert deps.store.get_run(record.run_id).result == record.result


def test_bad_input_is_refused_before_anything_is_judged(tmp_path: Path) -> None:
    deps = offline_deps(tmp_path)
    record = debated(deps)
    running = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}), tenant_id=TENANT)
    assert running.status is RunStatus.RUNNING
    # an unknown run: 404; a run still running: 409; a malformed judge: 422 naming judges; an unkeyed one too
    assert api(deps, "POST", "/runs/run_nope/judgements", {"judges": ["offline"]})[0] == 404
    status, body = api(deps, "POST", f"/runs/{running.run_id}/judgements", {"judges": ["offline"]})
    assert (status, body["code"]) == (409, "run_running")
    for judges in (["openai gpt"], [], ["openai:gpt-4.1"]):
        status, body = api(deps, "POST", f"/runs/{record.run_id}/judgements", {"judges": judges})
        assert status == 422 and body["field"] == "judges", body
    assert api(deps, "GET", f"/runs/{running.run_id}/judgements")[1]["judgements"] == []
    assert deps.store.find_artifacts(record.run_id, PREFIX) == {}


def test_cli_rejudge_prints_the_table_and_exits_2_on_bad_input(tmp_path: Path) -> None:
    deps = offline_deps(tmp_path)
    record = debated(deps, tenant="local")
    running = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}))

    def cli(*args: str) -> Any:
        return CliRunner().invoke(main, [*args, "--data-dir", str(tmp_path)], catch_exceptions=False)

    result = cli("rejudge", record.run_id, "--judge", "offline", "--rubric")
    assert result.exit_code == 0, result.output
    assert "original" in result.stdout and "adjudicate_rubric@" in result.stdout
    assert len(deps.store.find_artifacts(record.run_id, PREFIX)) == 2
    for args, message in [
        (("rejudge", "run_nope", "--judge", "offline"), "no run run_nope"),
        (("rejudge", running.run_id, "--judge", "offline"), "still running"),
        (("rejudge", record.run_id, "--judge", "openai/gpt"), "is not provider:model"),
    ]:
        result = cli(*args)
        assert result.exit_code == 2 and message in result.stderr, result.output
    assert len(deps.store.find_artifacts(record.run_id, PREFIX)) == 2


def test_agreement_after_two_judge_models_prints_the_table_and_plot(
    tmp_path: Path, servers: tuple[FakeOpenAIServer, FakeAnthropicServer], deps_with_judges: Deps
) -> None:
    o, _ = servers
    deps = deps_with_judges
    record = debated(deps, tenant="local")
    assert record.result is not None
    o.sub_claims[:] = [s.id for s in record.result.sub_claims]  # type: ignore[attr-defined]
    rejudge(deps, record, ["openai:gpt-4.1", "anthropic:claude-sonnet-4-6"])
    plot = tmp_path / "jj.png"
    result = CliRunner().invoke(
        main,
        ["agreement", record.run_id, "--plot", str(plot), "--data-dir", str(tmp_path)],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "anthropic:claude-sonnet-4-6  vs  openai:gpt-4.1: n 1" in result.stdout
    assert "verdicts differ" in result.stdout and "vs  for debater" in result.stdout
    assert plot.read_bytes()[:4] == b"\x89PNG"
