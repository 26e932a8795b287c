"""Logs, traces and metrics, in one place (Powertools): the one `logger` every module logs with,
the `observed` wrapper every Lambda handler wears, and `count`, the business metrics.

- Logs: structured JSON; a handler's records carry its function's name and request id, and the
  run id as correlation id where there is a run.
- Traces (X-Ray): a handler's invocation is a segment, when `Settings.tracing` (true in the deployed
  template). The X-Ray SDK is imported only then, never at a cold import.
- Metrics (CloudWatch EMF, namespace `claimcourt`): runs started and ended by status, LLM calls,
  tokens, dollars, prompt-cache and retrieval-cache hits — see METRICS. Written to stdout at the end
  of each invocation when `Settings.metrics` (true in the deployed template); on the laptop they are
  dropped, so nothing but the verdict reaches the CLI's stdout.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.metrics import MetricUnit

from claimcourt.settings import load_settings

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

SERVICE = NAMESPACE = "claimcourt"
logger = Logger(service=SERVICE)
metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

# Every business metric, and what one unit of it is.
METRICS = {
    "RunsStarted": MetricUnit.Count,
    "RunsSucceeded": MetricUnit.Count,
    "RunsFailed": MetricUnit.Count,
    "RunsStopped": MetricUnit.Count,
    "LlmCalls": MetricUnit.Count,
    "InputTokens": MetricUnit.Count,
    "OutputTokens": MetricUnit.Count,
    "PromptCacheReadTokens": MetricUnit.Count,
    "PromptCacheWriteTokens": MetricUnit.Count,
    "CostUsd": MetricUnit.NoUnit,
    "RetrievalCacheHits": MetricUnit.Count,
    "RetrievalCacheMisses": MetricUnit.Count,
}

# Locally, parallel branches run their handlers in one process: adding and flushing are serialised
# so a flush never drops a metric another thread added meanwhile.
_metrics_lock = threading.Lock()
H = TypeVar("H", bound=Callable[..., Any])


def count(name: str, value: float = 1) -> None:
    """Add to a business metric of this invocation (a name from METRICS); nothing when metrics are off."""
    if value and load_settings().metrics:
        with _metrics_lock:
            metrics.add_metric(name=name, unit=METRICS[name], value=value)


def flush_metrics() -> None:
    """Write this invocation's metrics (when enabled) and start afresh."""
    with _metrics_lock:
        if load_settings().metrics and metrics.metric_set:
            metrics.flush_metrics()
        metrics.clear_metrics()


@functools.lru_cache(maxsize=1)
def tracer() -> Tracer:
    from aws_lambda_powertools import Tracer  # imports the X-Ray SDK: only where traces are sent

    return Tracer(service=SERVICE)


def observed(handler: H) -> H:
    """A Lambda handler with its context in every log record, traced when tracing is on, and its
    metrics written when it returns or raises."""
    logged = logger.inject_lambda_context(clear_state=True)(handler)
    traced: Callable[..., Any] | None = None

    @functools.wraps(handler)
    def entry(event: Any, context: Any) -> Any:
        nonlocal traced
        if traced is None:
            traced = tracer().capture_lambda_handler(logged) if load_settings().tracing else logged
        try:
            return traced(event, context)
        finally:
            flush_metrics()

    return entry  # type: ignore[return-value]
