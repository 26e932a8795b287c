"""A re-judging's judges (claimcourt.rejudge.settle), invoked by the API asynchronously (InvocationType
Event) with {"run_id", "rejudge_id"}: each judgement stored as its judge answers, none left pending."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from claimcourt.observability import observed
from claimcourt.rejudge import work


@observed
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return work(event, context.get_remaining_time_in_millis() / 1000)
