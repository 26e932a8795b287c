"""On a schedule: give back the cost guard's slots of runs whose execution ended without doing so
(claimcourt.runs.sweep), so a crashed or timed-out run cannot hold a slot for ever."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.errors import ConfigurationError
from claimcourt.observability import logger, observed
from claimcourt.runs import sweep
from claimcourt.wiring import current_deps


@observed
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    deps = current_deps()
    if deps.executor is None:
        raise ConfigurationError("no executor: CLAIMCOURT_STATE_MACHINE_ARN is not set")
    released = sweep(deps.store, deps.executor.execution_status)
    logger.info("swept", extra={"released": released})
    return {"released": released}
