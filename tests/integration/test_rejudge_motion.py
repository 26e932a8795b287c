"""Re-judging a motion debate (issue 26: "works on motions too"): each judge writes the final report
again over the stored debate (the cartographer's last task, the same statements, ledger and map the
debate's judge read); the crowd votes again only when asked (`--crowd`, API `crowd`); the debate's own
result is untouched. An offline debate through the real motion state machine; a judge model through the
real OpenAI SDK against a loopback server."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import SecretStr

from claimcourt import artifacts
from claimcourt.access import issue_key
from claimcourt.api.http import handler
from claimcourt.cli import main
from claimcourt.evidence.golden import GoldenSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import MotionRequest, RunRecord
from claimcourt.motions.crowd import batches
from claimcourt.rejudge import InProcess, judgements_of, rejudge
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.wiring import Deps, build_deps, use_deps
from tests.fakes.apigw import LambdaContext, http_event
from tests.fakes.provider_servers import FakeOpenAIServer, openai_json_completion
from tests.integration.test_provider_runs import HITS

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]
MOTION = "Resolved: sea levels are rising."
CROWD = 18  # two batches


def _deps(tmp_path: Path, **settings: Any) -> Deps:
    built = build_deps(Settings(data_dir=tmp_path, provider="offline", **settings))
    return dataclasses.replace(built, evidence=GoldenSource(HITS))


def _debated(deps: Deps, tenant: str = "local") -> RunRecord:
    with LocalRuntime(deps) as runtime:
        record = create_run(deps.store, MotionRequest(motion=MOTION, crowd=CROWD, rounds=1), tenant_id=tenant)
        assert runtime.execute(record.run_id, timeout_s=60).status == "SUCCEEDED"
    return deps.store.get_run(record.run_id)


def _api(deps: Deps, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    key, _ = issue_key(deps.store, "local")
    with use_deps(deps):
        reply = handler(
            http_event(method, path, headers={"authorization": f"Bearer {key}"}, body=body), LambdaContext()
        )
    return reply["statusCode"], json.loads(reply["body"]) if reply.get("body") else None


def _rejudge_calls(deps: Deps, run_id: str, kind: str) -> list[str]:
    return [
        c.call_key
        for c in deps.store.run_calls(run_id)
        if c.call_key.startswith("rejudge:") and f":{kind}:" in c.call_key
    ]


def test_a_motion_is_judged_again_with_a_new_final_report_and_its_crowd_left_alone(tmp_path: Path) -> None:
    # Given a motion debate that succeeded offline
    deps = _deps(tmp_path)
    record = _debated(deps)
    before = artifacts.motion_result_of(deps.store, record.run_id)
    assert before is not None
    # When it is judged again from the command line, without --crowd
    result = CliRunner().invoke(
        main,
        ["rejudge", record.run_id, "--judge", "offline", "--data-dir", str(tmp_path)],
        catch_exceptions=False,
    )
    # Then the command waited for its judge and printed both reports
    assert result.exit_code == 0, result.output
    original, again = judgements_of(deps, deps.store.get_run(record.run_id))
    assert (original.judge, original.report, original.final_vote) == (
        "cartographer",
        before.report,
        before.final_vote,
    )
    assert (again.judge, again.status, again.model) == ("cartographer", "succeeded", "offline:offline")
    assert again.report and again.prompt_version and again.prompt_version.startswith("cartograph@")
    assert again.report in result.stdout and before.report in result.stdout
    # its judge read the whole debate (the offline judge's report names what each team established)
    assert again.report == before.report  # the same offline judge over the same debate: the same report
    # and the crowd was not asked again: no vote, no crowd call; the debate's result is as it was
    assert (again.crowd, again.final_vote, again.swing) == (False, None, None)
    assert _rejudge_calls(deps, record.run_id, "crowd") == []
    assert _rejudge_calls(deps, record.run_id, "cartograph") and again.llm_calls == 1
    assert artifacts.motion_result_of(deps.store, record.run_id) == before


def test_with_crowd_the_crowd_votes_again_on_the_new_report_through_the_api(tmp_path: Path) -> None:
    deps = _deps(tmp_path)
    record = _debated(deps)
    before = artifacts.motion_result_of(deps.store, record.run_id)
    assert before is not None
    worker = InProcess(deps)
    deps = dataclasses.replace(deps, rejudger=worker)
    status, accepted = _api(
        deps, "POST", f"/runs/{record.run_id}/judgements", {"judges": ["offline"], "crowd": True}
    )
    assert status == 202, accepted
    assert worker.wait(accepted["rejudge_id"], 60)
    status, listed = _api(deps, "GET", f"/runs/{record.run_id}/judgements")
    assert status == 200
    _, again = listed["judgements"]
    # every persona voted again, batch by batch (the offline crowd reads the ledger, not the map: the
    # same final vote as the debate's), the swing taken against the debate's own vote zero
    assert again["status"] == "succeeded" and again["crowd"]
    assert len(again["final_vote"]["scores"]) == CROWD
    assert again["final_vote"]["scores"] == before.final_vote.scores
    assert again["swing"] == before.swing
    assert len(_rejudge_calls(deps, record.run_id, "crowd")) == len(batches(CROWD))
    assert again["llm_calls"] == 1 + len(batches(CROWD))
    assert artifacts.motion_result_of(deps.store, record.run_id) == before


def test_a_judge_model_writes_the_report_from_the_final_maps_prompt_and_bad_asks_are_refused(
    tmp_path: Path,
) -> None:
    report = {
        "consensus": ["Both teams accept that tide gauges show a rise since 1900."],
        "disagreement_frontier": [],
        "next_query": None,
        "summary": "The closing round restated each case.",
        "report": "The team for established the twentieth-century rise; the team against showed only that "
        "some passages speak of other periods. Nothing the checks found overturned either.",
    }
    with FakeOpenAIServer(default=lambda body: openai_json_completion(report)) as server:
        deps = _deps(tmp_path, openai_api_key=SecretStr("sk-test"), openai_base_url=server.url)
        record = _debated(deps)
        (again,) = rejudge(deps, record, ["openai:gpt-4.1"])
        (sent,) = server.requests
    assert (again.status, again.report, again.consensus) == (
        "succeeded",
        report["report"],
        report["consensus"],
    )
    prompt = json.dumps(sent.body)
    assert "the final report on the whole debate" in prompt and MOTION.rstrip(".") in prompt
    # the rubric rates a claim debate's sides (a motion has none to rate); a claim debate has no crowd
    status, problem = _api(
        deps, "POST", f"/runs/{record.run_id}/judgements", {"judges": ["offline"], "rubric": True}
    )
    assert (status, problem["field"]) == (422, "rubric")
    with LocalRuntime(deps) as runtime:
        claim = create_run(deps.store, parse_request({"claim": "Sea levels are rising"}))
        assert runtime.execute(claim.run_id, timeout_s=60).status == "SUCCEEDED"
    status, problem = _api(
        deps, "POST", f"/runs/{claim.run_id}/judgements", {"judges": ["offline"], "crowd": True}
    )
    assert (status, problem["field"]) == (422, "crowd")
