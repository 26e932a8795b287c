"""Business metrics (CloudWatch EMF) and traces of a whole run, as the deployed functions emit them."""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from claimcourt.models import RunRecord
from claimcourt.observability import metrics
from claimcourt.settings import load_settings
from tests.fakes.scripted import ScriptedProvider

pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("clean_env")]


@pytest.fixture
def deployed_observability(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The switches template.yaml sets for every function: metrics and traces on."""
    monkeypatch.setenv("CLAIMCOURT_METRICS", "true")
    monkeypatch.setenv("CLAIMCOURT_TRACING", "true")
    load_settings.cache_clear()
    metrics.clear_metrics()  # a fresh function instance
    yield
    load_settings.cache_clear()


def emitted(stdout: str) -> Counter[str]:
    """Every EMF document on stdout, summed per metric name."""
    totals: Counter[str] = Counter()
    for line in stdout.splitlines():
        if not line.startswith("{") or '"_aws"' not in line:
            continue
        doc = json.loads(line)
        [directive] = doc["_aws"]["CloudWatchMetrics"]
        assert directive["Namespace"] == "claimcourt"
        for metric in directive["Metrics"]:
            values = doc[metric["Name"]]
            totals[metric["Name"]] += sum(values) if isinstance(values, list) else values
    return totals


def test_a_run_emits_its_business_metrics_once_each(
    deployed_observability: None,
    make_deps: Any,
    runtime: Any,
    new_run: Callable[..., RunRecord],
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given a model provider that bills 1000 input and 200 output tokens per call
    provider = ScriptedProvider()
    deps = make_deps(provider)
    run = new_run("Sea levels are rising")
    capsys.readouterr()
    # When the run executes through every stage handler (traced, metrics on)
    execution = runtime(deps).execute(run.run_id, timeout_s=60)
    assert execution.status == "SUCCEEDED", execution.error
    totals = emitted(capsys.readouterr().out)
    # Then its end, its calls, tokens and dollars, and its retrievals are each counted once
    calls = len(provider.calls)
    usage = deps.store.get_run(run.run_id).result.usage
    assert totals["RunsStarted"] == totals["RunsSucceeded"] == 1
    assert totals["RunsFailed"] == totals["RunsStopped"] == 0
    assert totals["LlmCalls"] == calls == usage.llm_calls
    assert totals["InputTokens"] == 1000 * calls
    assert totals["OutputTokens"] == 200 * calls
    assert totals["CostUsd"] == pytest.approx(usage.total_cost_usd)
    assert (
        totals["RetrievalCacheHits"] + totals["RetrievalCacheMisses"] == usage.cache_hits + usage.cache_misses
    )
    assert totals["RetrievalCacheMisses"] > 0
    # and every handler ran inside a trace (the X-Ray SDK is loaded only when tracing is on)
    assert "aws_xray_sdk.core" in sys.modules


def test_on_the_laptop_no_metric_reaches_stdout(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord], capsys: pytest.CaptureFixture[str]
) -> None:
    load_settings.cache_clear()
    run = new_run("Sea levels are rising")
    execution = runtime(make_deps(ScriptedProvider())).execute(run.run_id, timeout_s=60)
    assert execution.status == "SUCCEEDED"
    assert emitted(capsys.readouterr().out) == Counter()
