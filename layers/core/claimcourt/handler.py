"""What every stage handler shares: parse the event, log with the run id as correlation id,
record started/completed progress events, call the stage service.

A stage's handler module is then one line:
`handler = stage_handler(argue.STAGE, argue.ArguePayload, argue.run)`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import ValidationError

from claimcourt.errors import StageInProgressError, StageInputError
from claimcourt.models import RunEvent, Stage
from claimcourt.observability import logger, observed
from claimcourt.runs import announce_end
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps, current_deps

IDEMPOTENCY_TTL_S = 24 * 3600  # longer than any run, including its retries

P = TypeVar("P", bound=Payload)
Handler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


def _scope(payload: Payload) -> dict[str, Any]:
    """Which part of the run an invocation is: round, side, sub-claim (for event keys and logs)."""
    data = payload.model_dump()
    scoped = ("round", "side", "sample", "judge", "outcome", "batch")
    scope = {k: data[k] for k in scoped if data.get(k) is not None}
    if data.get("attempt"):  # a re-split's stages (the first split's have none): events of their own
        scope["attempt"] = data["attempt"]
    directive = data.get("directive")
    if isinstance(directive, dict):
        scope["sub_claim_id"] = directive["sub_claim_id"]
        if directive.get("contrarian"):  # a second directive for the same sub-claim
            scope["contrarian"] = True
    return scope


def _once(
    deps: Deps, stage: Stage, payload: P, service: Callable[[Deps, P], dict[str, Any]], context: LambdaContext
) -> dict[str, Any]:
    """The service at most once per (stage, payload) — that is, per run, stage, round and side or
    sub-claim: a Step Functions retry of a task that already completed gets the stored summary back,
    with no second model call. A failure deletes the record, so a real retry runs again."""
    if deps.idempotency is None:
        return service(deps, payload)
    # Imported here: Powertools idempotency imports boto3, which a handler's cold import should not pay.
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyAlreadyInProgressError

    config = IdempotencyConfig(expires_after_seconds=IDEMPOTENCY_TTL_S)
    config.register_lambda_context(context)  # an attempt that dies mid-way unlocks when its time is up

    @idempotent_function(  # type: ignore[untyped-decorator]
        data_keyword_argument="key", config=config, persistence_store=deps.idempotency
    )
    def run(key: dict[str, Any]) -> dict[str, Any]:
        return service(deps, payload)

    try:
        summary: dict[str, Any] = run(key={"stage": stage, **payload.model_dump(mode="json")})
        return summary
    except IdempotencyAlreadyInProgressError as err:
        # The same task is running elsewhere (a duplicate delivery): retry later, through the ASL.
        raise StageInProgressError(f"{stage} is already in progress for this run") from err


def stage_handler(
    stage: Stage, payload_model: type[P], service: Callable[[Deps, P], dict[str, Any]]
) -> Handler:
    @observed
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
            summary = _once(deps, stage, payload, service, context)
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
        if stage.ends_run:
            announce_end(deps.store, payload.run_id)
        logger.info("stage completed", extra={"elapsed_ms": elapsed_ms})
        return summary

    handler.stage = stage  # type: ignore[attr-defined]  # which stage it serves, for tests/integration/test_layout.py
    return handler
