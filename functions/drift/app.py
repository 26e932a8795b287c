"""On a schedule: start a re-score run (source tag drift) for every monitor that is due."""

from dataclasses import asdict
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.errors import ConfigurationError
from claimcourt.observability import logger, observed
from claimcourt.watching.drift import tick
from claimcourt.wiring import current_deps

SPARE_MS = 30_000  # stop waiting for a free slot with this much of the function's time left
WAIT_S = 5.0


@observed
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    deps = current_deps()
    if deps.executor is None:
        raise ConfigurationError("no executor: CLAIMCOURT_STATE_MACHINE_ARN is not set")
    report = tick(
        deps.store,
        deps.executor,
        deps.settings,
        now=deps.now,
        keep_going=lambda: context.get_remaining_time_in_millis() > SPARE_MS,
        wait_s=WAIT_S,
    )
    summary = asdict(report) | {"started": len(report.started)}
    logger.info("tick", extra=summary)
    return summary
