"""What every stage handler shares: parse the event, log with the run id as correlation id,
record started/completed progress events, call the stage service.

A handler module is then one line: `handler = stage_handler("argue", ArguePayload, pipeline.argument)`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from claimcourt.errors import StageInputError
from claimcourt.models import RunEvent
from claimcourt.pipeline import END_STAGES, Deps, Payload, announce_end
from claimcourt.wiring import current_deps

logger = Logger(service="claimcourt")

P = TypeVar("P", bound=Payload)
Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def _scope(payload: Payload) -> dict[str, Any]:
    """Which part of the run an invocation is: round, side, sub-claim (for event keys and logs)."""
    data = payload.model_dump()
    scope = {k: data[k] for k in ("round", "side", "outcome") if data.get(k) is not None}
    directive = data.get("directive")
    if isinstance(directive, dict):
        scope["sub_claim_id"] = directive["sub_claim_id"]
    return scope


def stage_handler(
    stage: str, payload_model: type[P], service: Callable[[Deps, P], dict[str, Any]]
) -> Handler:
    @logger.inject_lambda_context(clear_state=True)
    def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        try:
            payload = payload_model.model_validate(event)
        except ValidationError as err:
            raise StageInputError(f"{stage}: unreadable payload: {err.errors()[:3]}") from err
        logger.set_correlation_id(payload.run_id)
        scope = _scope(payload)
        # Thread-safe: locally, parallel branches run their handlers in one process.
        logger.thread_safe_append_keys(stage=stage, **scope)
        deps = current_deps()
        key = ":".join([stage, *(str(v) for v in scope.values())])
        event_scope = {k: scope.get(k) for k in ("round", "side")}
        deps.store.append_event(
            RunEvent(run_id=payload.run_id, type="stage.started", stage=stage, data=scope, **event_scope),
            key=key + ":started",
        )
        started = time.perf_counter()
        try:
            summary = service(deps, payload)
        except Exception as exc:
            # One event per failed attempt, so a retry that then succeeds is visible too.
            deps.store.append_event(
                RunEvent(
                    run_id=payload.run_id,
                    type="stage.failed",
                    stage=stage,
                    data={**scope, "error": type(exc).__name__},
                    **event_scope,
                ),
                key=f"{key}:failed:{context.aws_request_id}",
            )
            raise
        elapsed_ms = round((time.perf_counter() - started) * 1000)
        deps.store.append_event(
            RunEvent(
                run_id=payload.run_id,
                type="stage.completed",
                stage=stage,
                data={**scope, "elapsed_ms": elapsed_ms, "summary": summary},
                **event_scope,
            ),
            key=key + ":completed",
        )
        if stage in END_STAGES:
            announce_end(deps.store, payload.run_id)
        logger.info("stage completed", extra={"elapsed_ms": elapsed_ms})
        return summary

    return handler
