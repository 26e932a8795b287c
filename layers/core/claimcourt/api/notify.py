"""The notifier (functions/notify): the main table's stream, filtered to new progress events
(template.yaml), posted to the WebSocket connections that follow their runs."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import DynamoDBStreamEvent
from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.api.socket import poster_of
from claimcourt.delivery import notify
from claimcourt.observability import logger, observed
from claimcourt.wiring import current_deps


@observed
def handler(event: dict[str, Any], context: LambdaContext) -> None:
    """Post each run's new events to its followers. A failure raises, and the stream retries the batch."""
    stream = DynamoDBStreamEvent(event)
    run_ids = [
        str(image["run_id"])
        for record in stream.records
        if record.dynamodb is not None
        and (image := record.dynamodb.new_image or {}).get("kind") == "event"
        and "run_id" in image
    ]
    deps = current_deps()
    notify(deps.store, poster_of(deps), run_ids)
    logger.info("notified", extra={"runs": len(set(run_ids)), "records": len(run_ids)})
