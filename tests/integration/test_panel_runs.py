"""A panel of judges (`judges`, issue 26) through the real state machine: two models judging one debate
through the real OpenAI and Anthropic SDKs against servers on 127.0.0.1, at once and each with the same
anonymized debate; the offline reasoner and the rubric judge as a panel with no key (the CLI, the
agreement table and the spread plot); a judge that fails beside one that answers; a stage retried for
one judge; and every way a bad panel is refused before anything is stored."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
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
from claimcourt.local.dispatch import LocalContext, load_module
from claimcourt.local.runtime import LocalRuntime
from claimcourt.local.template import load_template, project_root
from claimcourt.models import RunRecord, RunStatus, Verdict
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.stages.score import NO_JUDGEMENT
from claimcourt.wiring import Deps, build_deps, use_deps
from tests.fakes.apigw import LambdaContext, http_event
from tests.fakes.debate_text import debate_positions
from tests.fakes.provider_servers import (
    FakeAnthropicServer,
    FakeOpenAIServer,
    anthropic_error,
    anthropic_tool_message,
    openai_json_completion,
)
from tests.integration.test_http_api import RecordingExecutor
from tests.integration.test_provider_runs import CANNED, HITS

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]
TENANT = "acme"
CLAIM = "Sea levels are rising"
TWO_MODELS = ["openai:gpt-4.1", "anthropic:claude-sonnet-4-6"]


def texts(value: Any) -> Iterator[str]:
    """Every string in a request body: what the model reads, whichever SDK's shape it came in."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from texts(v)
    elif isinstance(value, list):
        for v in value:
            yield from texts(v)


def debate_read(body: Any) -> list[tuple[str, str, str]]:
    """The anonymized arguments a judge's request holds, in order: (position, round, text)."""
    return debate_positions("\n".join(texts(body)))


def judgement(body: Any, score: int, verdict: str) -> dict[str, Any]:
    """A judge's reply scoring every sub-claim its prompt names `score`."""
    subs = sorted(set(re.findall(r'<sub_claim id="(sc\d+)">', "\n".join(texts(body)))))
    reply = json.loads(json.dumps(CANNED["Judgement"]))
    reply["sub_claims"] = [
        {**reply["sub_claims"][0], "sub_claim_id": s, "score": score, "verdict": verdict} for s in subs
    ]
    reply["what_would_change"] = []
    low, high = max(score - 10, 0), min(score + 10, 100)
    return reply | {"overall_score": score, "overall_interval": {"low": low, "high": high}}


def keyed(tmp_path: Path, o: FakeOpenAIServer, a: FakeAnthropicServer, **settings: Any) -> Deps:
    """Every role offline but the panel's judges, which reach the two servers by their keys."""
    return dataclasses.replace(
        build_deps(
            Settings(
                data_dir=tmp_path,
                provider="offline",
                openai_api_key=SecretStr("sk-test"),
                openai_base_url=o.url,
                anthropic_api_key=SecretStr("sk-ant-test"),
                anthropic_base_url=a.url,
                **settings,
            )
        ),
        evidence=GoldenSource(HITS),
    )


def offline(tmp_path: Path, **settings: Any) -> Deps:
    return dataclasses.replace(
        build_deps(Settings(data_dir=tmp_path, provider="offline", **settings)), evidence=GoldenSource(HITS)
    )


def starting(deps: Deps) -> tuple[Deps, RecordingExecutor]:
    """The deps with an executor that records the runs the API starts (and starts none)."""
    executor = RecordingExecutor()
    return dataclasses.replace(deps, executor=executor), executor


def debated(deps: Deps, judges: list[str], tenant: str = TENANT) -> RunRecord:
    with LocalRuntime(deps) as runtime:
        record = create_run(deps.store, parse_request({"claim": CLAIM, "judges": judges}), tenant_id=tenant)
        execution = runtime.execute(record.run_id, timeout_s=60)
    assert execution.status == "SUCCEEDED", deps.store.get_run(record.run_id).error
    return deps.store.get_run(record.run_id)


def api(deps: Deps, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    key, _ = issue_key(deps.store, TENANT)
    with use_deps(deps):
        reply = handler(
            http_event(method, path, headers={"authorization": f"Bearer {key}"}, body=body), LambdaContext()
        )
    return reply["statusCode"], json.loads(reply["body"]) if reply.get("body") else None


@pytest.fixture
def servers() -> Iterator[tuple[FakeOpenAIServer, FakeAnthropicServer]]:
    """OpenAI's judge finds the claim supported (82), Anthropic's refuted (20). Neither answers until
    both have been asked: judges asked one after the other would never both be answered."""
    both_asked = threading.Barrier(2, timeout=30)

    def openai(body: dict[str, Any]) -> dict[str, Any]:
        both_asked.wait()
        return openai_json_completion(
            judgement(body, 82, "supported"), prompt_tokens=1000, completion_tokens=200
        )

    def anthropic(body: dict[str, Any]) -> dict[str, Any]:
        both_asked.wait()
        return anthropic_tool_message(
            judgement(body, 20, "refuted"),
            name=body["tool_choice"]["name"],
            input_tokens=1000,
            output_tokens=200,
        )

    with FakeOpenAIServer(default=openai) as o, FakeAnthropicServer(default=anthropic) as a:
        yield o, a


def test_two_models_judge_the_same_anonymized_debate_at_once_and_the_median_speaks(
    tmp_path: Path, servers: tuple[FakeOpenAIServer, FakeAnthropicServer]
) -> None:
    o, a = servers
    deps = keyed(tmp_path, o, a)
    # When a claim is debated offline and judged by a panel of two models
    record = debated(deps, TWO_MODELS)
    # Then each model was asked once, both at once (neither server answers before the other is asked),
    # each with the same debate, anonymized (positions A and B, no side named)
    assert (len(o.requests), len(a.requests)) == (1, 1)
    openai_read, anthropic_read = debate_read(o.requests[0].body), debate_read(a.requests[0].body)
    assert openai_read == anthropic_read and len(openai_read) >= 2
    assert {label for label, _, _ in openai_read} == {"A", "B"}
    for sent in (json.dumps(o.requests[0].body), json.dumps(a.requests[0].body)):
        assert "case-for" not in sent and "for_1" not in sent
    assert o.requests[0].body["model"] == "gpt-4.1" and a.requests[0].body["model"] == "claude-sonnet-4-6"
    # and the result keeps both judgements, each scored as if it alone had judged, with its own cost
    result = record.result
    assert result is not None and result.panel is not None
    gpt, claude = result.panel.judges
    assert (gpt.judge, gpt.model, gpt.judge_score, gpt.verdict) == (
        "openai:gpt-4.1",
        "openai:gpt-4.1",
        82,
        Verdict.SUPPORTED,
    )
    assert (claude.model, claude.judge_score, claude.verdict) == (
        "anthropic:claude-sonnet-4-6",
        20,
        Verdict.REFUTED,
    )
    assert gpt.cost_usd == pytest.approx((1000 * 2.0 + 200 * 8.0) / 1e6) and gpt.llm_calls == 1
    assert claude.cost_usd == pytest.approx((1000 * 3.0 + 200 * 15.0) / 1e6) and claude.llm_calls == 1
    assert result.usage.total_cost_usd == pytest.approx(gpt.cost_usd + claude.cost_usd)
    # and the one nearer 50 of the two speaks for the run, its interval widened by the panel's spread
    assert gpt.score is not None and claude.score is not None and claude.interval is not None
    spoke = 1 if abs(claude.score - 50) <= abs(gpt.score - 50) else 0
    assert result.panel.speaks == spoke
    speaking = result.panel.judges[spoke]
    assert result.overall_score == speaking.score
    assert result.panel.spread == abs(gpt.score - claude.score)
    assert result.panel.sd == pytest.approx(abs(gpt.score - claude.score) / 2, abs=0.05)
    assert result.panel.rule == f"of two scores ({claude.score}, {gpt.score}), the one nearer 50"
    assert result.interval_method == "judge+panel"
    assert result.overall_verdict is Verdict.NOT_ENOUGH_EVIDENCE  # a panel this split decides nothing
    assert speaking.interval is not None
    assert result.interval.low <= speaking.interval.low and result.interval.high > speaking.interval.high
    assert "panel" in {adjustment.kind for adjustment in result.adjustments}
    assert result.models["adjudicator"] == speaking.model
    assert result.reasoner == "anthropic+offline+openai"
    assert "adjudicator" in result.natural_temperature  # Anthropic's API is sent no temperature
    assert result.re_deliberation is None
    # and GET /runs/{id} serves the panel
    status, view = api(deps, "GET", f"/runs/{record.run_id}")
    assert status == 200 and view["result"]["panel"]["speaks"] == spoke
    assert [j["judge"] for j in view["result"]["panel"]["judges"]] == TWO_MODELS
    # and the run's judgements (GET /runs/{id}/judgements) are the panel's, its own
    status, listed = api(deps, "GET", f"/runs/{record.run_id}/judgements")
    assert [(j["id"], j["model"], j["original"]) for j in listed["judgements"]] == [
        ("panel/0", "openai:gpt-4.1", True),
        ("panel/1", "anthropic:claude-sonnet-4-6", True),
    ]


def test_a_judge_that_fails_is_kept_with_its_error_and_the_other_speaks(tmp_path: Path) -> None:
    def openai(body: dict[str, Any]) -> dict[str, Any]:
        return openai_json_completion(
            judgement(body, 75, "supported"), prompt_tokens=900, completion_tokens=150
        )

    with FakeOpenAIServer(default=openai) as o, FakeAnthropicServer() as a:
        a.enqueue(400, anthropic_error("invalid_request_error", "model: claude-sonnet-4-6 is not available"))
        record = debated(keyed(tmp_path, o, a), TWO_MODELS)
    result = record.result
    assert result is not None and result.panel is not None
    gpt, claude = result.panel.judges
    assert gpt.score is not None and gpt.error is None
    assert claude.score is None and claude.error is not None and claude.error.startswith("ProviderError: ")
    assert (result.panel.speaks, result.overall_score, result.panel.spread) == (0, gpt.score, None)
    assert result.interval_method == "judge"
    assert any(
        w.startswith("1 of the panel's 2 judges gave no judgement (anthropic:claude") for w in result.warnings
    )


def test_a_judge_whose_provider_stays_down_past_the_retries_is_kept_and_the_other_speaks(
    tmp_path: Path,
) -> None:
    # Given Anthropic overloaded on every attempt (a transient error: the state machine retries it, then
    # gives up), and OpenAI answering
    def openai(body: dict[str, Any]) -> dict[str, Any]:
        return openai_json_completion(
            judgement(body, 70, "supported"), prompt_tokens=900, completion_tokens=150
        )

    with FakeOpenAIServer(default=openai) as o, FakeAnthropicServer() as a:
        for _ in range(8):
            a.enqueue(529, anthropic_error("overloaded_error", "Overloaded"))
        record = debated(keyed(tmp_path, o, a, provider_max_retries=0), TWO_MODELS)
        tried = len(a.requests)
    # Then the run still succeeds on the judge that answered, the other kept with why it has no judgement
    result = record.result
    assert result is not None and result.panel is not None
    gpt, claude = result.panel.judges
    assert tried > 1  # the state machine did retry it
    assert gpt.score is not None and claude.score is None and claude.error == NO_JUDGEMENT
    assert result.panel.speaks == 0 and result.overall_score == gpt.score


def test_a_panel_whose_every_judge_fails_fails_the_run_with_each_reason(tmp_path: Path) -> None:
    with FakeOpenAIServer() as o, FakeAnthropicServer() as a:  # both answer 418: under-scripted
        deps = keyed(tmp_path, o, a, provider_max_retries=0)
        with LocalRuntime(deps) as runtime:
            record = create_run(deps.store, parse_request({"claim": CLAIM, "judges": TWO_MODELS}))
            execution = runtime.execute(record.run_id, timeout_s=60)
    assert execution.status == "FAILED"
    failed = deps.store.get_run(record.run_id)
    assert failed.status is RunStatus.FAILED and failed.error is not None
    assert failed.error.startswith("RefusedJudgementError: no judge of the panel judged: openai:gpt-4.1: ")
    assert "; anthropic:claude-sonnet-4-6: " in failed.error


def test_an_offline_panel_from_the_cli_prints_each_judge_and_the_median(tmp_path: Path) -> None:
    def cli(*args: str) -> Any:
        return CliRunner().invoke(main, [*args, "--data-dir", str(tmp_path)], catch_exceptions=False)

    # Given no key at all: the offline reasoner judges by the contract and by the rubric
    result = cli("run", "Arctic sea ice has declined since 1979", "--judges", "offline,offline+rubric")
    assert result.exit_code == 0, result.output
    assert "panel: 2 judges (offline, offline+rubric), the median speaks: judging estimated at $0.0000" in (
        result.stderr
    )
    assert re.search(r"Panel of judges \(offline(\+rubric)? speaks for the run: of two scores", result.stdout)
    assert re.search(r"▸\s+offline\s", result.stdout) or re.search(r"▸\s+offline\+rubric\s", result.stdout)
    assert "offline:offline rubric" in result.stdout
    # the progress line shows both judges at work at once, in whichever order they started
    assert re.search(r"adjudicate \(anonymized\)  judge ([12]) ∥ judge (?!\1)[12] ", result.stderr)
    [run_id] = re.findall(r"run_\w+", result.stdout.strip().splitlines()[-1])
    deps = build_deps(Settings(data_dir=tmp_path))
    stored = deps.store.get_run(run_id)
    assert stored.request.judges == ["offline", "offline+rubric"]
    assert stored.result is not None and stored.result.panel is not None
    assert [(j.kind, j.error) for j in stored.result.panel.judges] == [("contract", None), ("rubric", None)]
    # the transcript says who judged
    transcript = cli("export", run_id, "--dir", str(tmp_path / "out"))
    assert transcript.exit_code == 0, transcript.output
    text = (tmp_path / "out" / f"{run_id}-transcript_full.md").read_text()
    assert "the median of a panel of 2" in text and "| offline+rubric | offline:offline rubric |" in text
    # and agreement reads the panel's judges: a pair, the table and both plots
    plots = tmp_path / "plots"
    agreed = cli(
        "agreement", run_id, "--plot", str(plots / "jj.png"), "--spread-plot", str(plots / "spread.png")
    )
    assert agreed.exit_code == 0, agreed.output
    assert "offline:offline  vs  offline:offline rubric: n 1" in agreed.stdout
    assert (plots / "jj.png").read_bytes()[:4] == (plots / "spread.png").read_bytes()[:4] == b"\x89PNG"


def test_a_judge_retried_by_the_state_machine_is_not_judged_twice(tmp_path: Path) -> None:
    deps = offline(tmp_path)
    record = debated(deps, ["offline", "offline+rubric"])
    calls = deps.store.run_calls(record.run_id)
    events = deps.store.list_events(record.run_id)
    started = [e.data.get("judge") for e in events if e.stage == "adjudicate" and e.type == "stage.started"]
    assert sorted(started) == [0, 1]  # one adjudicate per judge, each its own events
    # When Step Functions retries judge 1's task after it completed (a lost response, say)
    template = load_template(project_root())
    spec = template.functions["AdjudicateFunction"]
    with use_deps(deps):
        again = load_module(template.root, spec).handler(
            {"run_id": record.run_id, "judge": 1}, LocalContext(function_name=spec.name)
        )
    # Then it answers what it answered, and nothing was asked or recorded twice
    [completed] = [
        e for e in events if e.stage == "adjudicate" and e.type == "stage.completed" and e.data["judge"] == 1
    ]
    assert again == completed.data["summary"] and again["model"] == "offline:offline"
    assert deps.store.run_calls(record.run_id) == calls
    assert len(deps.store.list_events(record.run_id)) == len(events)


# ---------------------------------------------------------------- refused, nothing stored


BAD_PANELS = [
    (["openai gpt-4.1"], "is not provider[:model][+rubric|+contract]"),
    (["mistral:large"], "unknown provider 'mistral'"),
    (["openai:gpt-4.1"], "'openai:gpt-4.1': no key or base URL is set for openai"),
    (["offline", "offline"], "'offline' is named twice"),
    (["offline", "offline:offline"], "is the same judge as 'offline'"),
    (["offline"] + [f"offline+{k}" for k in ("rubric", "contract")] * 3, "at most 5 judges"),
]


@pytest.mark.parametrize(("judges", "message"), BAD_PANELS)
def test_a_bad_panel_is_a_422_naming_judges_and_nothing_is_stored(
    tmp_path: Path, judges: list[str], message: str
) -> None:
    deps, executor = starting(offline(tmp_path))
    status, body = api(deps, "POST", "/runs", {"claim": CLAIM, "judges": judges})
    assert (status, body["field"]) == (422, "judges"), body
    assert message in body["detail"]
    monitor = {"claim": CLAIM, "cadence": "daily", "threshold": 5, "judges": judges}
    status, body = api(deps, "POST", "/monitors", monitor)
    assert (status, body["field"]) == (422, "judges"), body
    assert deps.store.list_runs(TENANT, 10).runs == [] and deps.store.list_monitors(TENANT) == []
    assert executor.started == []


def test_a_good_panel_is_accepted_and_kept_on_the_run_and_on_a_monitor(tmp_path: Path) -> None:
    deps, executor = starting(offline(tmp_path))
    status, view = api(deps, "POST", "/runs", {"claim": CLAIM, "judges": ["offline", "offline+rubric"]})
    assert status == 202, view
    assert executor.started == [view["run_id"]]
    assert deps.store.get_run(view["run_id"]).request.judges == ["offline", "offline+rubric"]
    monitor = {"claim": CLAIM, "cadence": "daily", "threshold": 5, "judges": ["offline+rubric"]}
    status, body = api(deps, "POST", "/monitors", monitor)
    assert status == 201, body
    [kept] = deps.store.list_monitors(TENANT)
    assert kept.request.run_request().judges == ["offline+rubric"]  # what each drift run asks for


def test_a_panel_the_budget_cannot_pay_for_is_refused_before_the_run(tmp_path: Path) -> None:
    deps, executor = starting(offline(tmp_path, anthropic_api_key=SecretStr("sk-ant"), budget_usd=0.25))
    panel = ["anthropic:claude-opus-4-1", "anthropic:claude-opus-4-1+rubric", "anthropic:claude-sonnet-4-6"]
    status, body = api(deps, "POST", "/runs", {"claim": CLAIM, "judges": panel, "effort": "high"})
    assert (status, body["field"]) == (422, "judges"), body
    assert "more than the run's whole budget of $0.25 (CLAIMCOURT_BUDGET_USD)" in body["detail"]
    assert deps.store.list_runs(TENANT, 10).runs == [] and executor.started == []


@pytest.mark.parametrize(
    ("panel", "message"),
    [*BAD_PANELS, ("offline,,offline+rubric", "names an empty judge")],
)
def test_the_cli_refuses_a_bad_panel_with_exit_2_before_anything_runs(
    tmp_path: Path, panel: list[str] | str, message: str
) -> None:
    given = panel if isinstance(panel, str) else ",".join(panel)
    result = CliRunner().invoke(
        main, ["run", CLAIM, "--judges", given, "--data-dir", str(tmp_path)], catch_exceptions=False
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: judges: ") and message in result.stderr
    assert build_deps(Settings(data_dir=tmp_path)).store.list_runs("local", 10).runs == []
