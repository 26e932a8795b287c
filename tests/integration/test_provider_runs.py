"""Whole runs through the real state machine with the real provider SDKs, against servers on
127.0.0.1 that speak each provider's HTTP protocol."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from claimcourt.evidence.base import Hit
from claimcourt.evidence.golden import GoldenSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import RunStatus
from claimcourt.reasoning.openai_provider import RUN_REPLY
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps
from tests.fakes.provider_servers import (
    FakeAnthropicServer,
    FakeOpenAIServer,
    anthropic_error,
    openai_json_completion,
)

pytestmark = pytest.mark.timeout(120)

HITS = [
    Hit(
        "Global mean sea level has risen about 20 cm since 1900.",
        "Sea level rise",
        "https://www.noaa.gov/slr",
    ),
    Hit(
        "Sea level rise is accelerating as ice sheets melt.",
        "Sea level",
        "https://en.wikipedia.org/wiki/Sea_level",
    ),
]

# A valid reply per output model, keyed by the json_schema name the OpenAI provider sends.
CANNED: dict[str, dict[str, Any]] = {
    "Suitability": {"proceed": True, "flags": [], "warnings": []},
    "Decomposition": {
        "sub_claims": [{"id": "sc1", "text": "Sea levels are rising", "directive": "global sea level rise"}],
        "shape": "all",
        "rationale": "one proposition",
    },
    "ArgumentDraft": {
        "points": [
            {
                "sub_claim_id": "sc1",
                "argument": "Tide gauges show it.",
                "implied_score": 80,
                "confidence": 0.8,
            }
        ]
    },
    "ModeratorView": {
        "decisive_dispute": "rate of rise",
        "dispute_sub_claim_id": "sc1",
        "next_query": "sea level rise acceleration satellite altimetry",
        "recommendation": "continue",
        "provisional_score": 60,
    },
    "Judgement": {
        "sub_claims": [
            {
                "sub_claim_id": "sc1",
                "score": 82,
                "verdict": "supported",
                "referee_synthesis": "Well supported.",
                "decisive_evidence_id": None,
                "stronger_position": "A",
            }
        ],
        "overall_score": 82,
        "overall_interval": {"low": 72, "high": 90},
        "adjustment_reason": None,
        "decisive_evidence_id": None,
        "what_would_change": [
            {
                "direction": "toward 0",
                "what": "Satellite altimetry showing no rise since 1993.",
                "where_to_look": "satellite sea-level records",
                "sub_claim": "sc1",
            }
        ],
    },
}


# A claim debate's calls are all sent its one reply schema (RUN_REPLY: `reply`, any role's form of it):
# the model knows its form from its role's instructions, as these openings tell them apart.
FORM_BY_ROLE = {
    "You split the claim below": "Decomposition",
    "You screen this claim before it is debated": "Suitability",
    "You argue that the claim is": "ArgumentDraft",
    "You are the fact-checker of one side": "FactcheckReply",
    "You moderate this debate": "ModeratorView",
    "and you judge it by a rubric": "RubricJudgement",
    "You are the final judge": "Judgement",
}


def reply_form(body: dict[str, Any]) -> tuple[str, bool]:
    """The name of the reply a request asks for, and whether it is a claim debate's one reply's form."""
    name = body["response_format"]["json_schema"]["name"]
    if name != RUN_REPLY:
        return name, False
    system = body["messages"][0]["content"]
    return next(form for opening, form in FORM_BY_ROLE.items() if opening in system), True


def answer_by_schema(body: dict[str, Any]) -> dict[str, Any]:
    name, wrapped = reply_form(body)
    reply = {"reply": CANNED[name]} if wrapped else CANNED[name]
    return openai_json_completion(reply, prompt_tokens=1000, completion_tokens=200)


def run_once(settings: Settings, claim: str = "Sea levels are rising") -> Any:
    deps = dataclasses.replace(build_deps(settings), evidence=GoldenSource(HITS))
    with LocalRuntime(deps) as runtime:
        record = create_run(deps.store, parse_request({"claim": claim}))
        execution = runtime.execute(record.run_id, timeout_s=60)
    return execution, deps.store.get_run(record.run_id)


def test_run_through_the_openai_sdk_is_scored_and_billed(tmp_path: Path) -> None:
    # Given an OpenAI-compatible server that answers every role with a valid structured reply
    with FakeOpenAIServer(default=answer_by_schema) as server:
        settings = Settings(
            data_dir=tmp_path, openai_api_key=SecretStr("sk-test"), openai_base_url=server.url
        )
        # When a claim is debated
        execution, record = run_once(settings)
    # Then the run succeeds with the judge's score, labelled with the provider, and every call is billed
    assert execution.status == "SUCCEEDED", record.error
    assert record.result is not None
    # (the canned debaters cite nothing, so the contract pulls the judge's 82 towards 50, and says so)
    assert record.result.judge_score == 82
    assert record.result.overall_score == 72
    # (its one sub-claim scored 82 too: the rule agreed with it, so the one change is the pull)
    assert {a.kind for a in record.result.adjustments} == {"evidence_quality", "interval_recentred"}
    [overall] = [a for a in record.result.adjustments if a.target == "overall"]
    assert (overall.kind, overall.before, overall.after) == ("evidence_quality", 82, 72)
    assert record.result.reasoner == "openai"
    usage = record.result.usage
    calls = len(server.requests)
    # decompose, suitability (one sub-claim: no audit), 2 × 2 argue, 1 moderate (none after the
    # last round), adjudicate
    assert usage.llm_calls == calls
    assert calls == 8
    assert usage.input_tokens == 1000 * calls and usage.output_tokens == 200 * calls
    assert usage.total_cost_usd == pytest.approx(calls * (1000 * 2.0 + 200 * 8.0) / 1e6)
    assert all(r.body["model"] == "gpt-4.1" for r in server.requests)


def test_hard_provider_failure_ends_the_run_failed_without_leaking_the_key(tmp_path: Path) -> None:
    # Given an Anthropic server that rejects the key on every request
    with FakeAnthropicServer() as server:
        server.enqueue_many(20, 401, anthropic_error("authentication_error", "invalid x-api-key"))
        settings = Settings(
            data_dir=tmp_path,
            anthropic_api_key=SecretStr("sk-ant-secret-key"),
            anthropic_base_url=server.url,
            web_search=False,
        )
        execution, record = run_once(settings)
    # Then the execution fails, the run is marked failed with the provider's reason, and no key leaks
    assert execution.status == "FAILED"
    assert record.status is RunStatus.FAILED
    assert record.error is not None and record.error.startswith("ProviderError")
    assert "sk-ant-secret-key" not in record.error
    # The decomposer, the first call, tried once: a hard failure is not retried
    systems = [json.dumps(r.body["system"]) for r in server.requests]  # a string, or cached blocks
    assert len(systems) == 1 and "You split the claim" in systems[0]
