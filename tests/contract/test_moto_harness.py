"""The harness's moto handles one DynamoDB request at a time (aws_resources.one_request_at_a_time, on for
every test), as the real service makes each request atomic. Without it, a Query that walks a table
while a Parallel branch's PutItem adds an item raised "dictionary changed size during iteration" inside
moto, and the debate failed (1 run in 8 of test_stages_record_their_idempotency_in_the_template_table)."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from moto import mock_aws
from moto.dynamodb.models import dynamodb_backends

from tests.contract.aws_resources import SESSION, create_from_template, dynamodb_settings

# How long the Query stays paused in the middle of its walk, for a write that may come. Under the
# harness none can come; without it the write lands well within this, and the walk then fails.
PAUSE_S = 1.0


def test_a_query_walking_a_table_is_never_interleaved_with_another_threads_write(clean_env: None) -> None:
    with mock_aws():
        settings = dynamodb_settings()
        create_from_template(settings)
        client, name = SESSION.client("dynamodb"), settings.table_name
        for pk in ("RUN#a", "RUN#b"):
            client.put_item(TableName=name, Item={"pk": {"S": pk}, "sk": {"S": "RUN"}})
        mid_walk, written = threading.Event(), threading.Event()
        outcome: dict[str, Any] = {}

        class Partitions(defaultdict[Any, Any]):
            """moto's table, as moto keeps it; its walk (every Query's) pauses after the first partition,
            on the querying thread only, until the other thread has written or PAUSE_S has passed."""

            def values(self) -> Iterator[Any]:  # type: ignore[override]
                for n, partition in enumerate(super().values()):
                    if n == 1 and threading.current_thread() is querier:
                        mid_walk.set()
                        written.wait(PAUSE_S)
                    yield partition

        table = dynamodb_backends["123456789012"]["us-east-1"].tables[name]
        table.items = Partitions(dict, table.items)

        def query() -> None:
            try:
                outcome["items"] = client.query(
                    TableName=name,
                    KeyConditionExpression="pk = :pk",
                    ExpressionAttributeValues={":pk": {"S": "RUN#a"}},
                )["Items"]
            except Exception as err:
                outcome["error"] = err

        def write() -> None:
            assert mid_walk.wait(30), "the query never walked the table"
            client.put_item(TableName=name, Item={"pk": {"S": "RUN#c"}, "sk": {"S": "RUN"}})
            written.set()

        querier, writer = threading.Thread(target=query), threading.Thread(target=write)
        querier.start()
        writer.start()
        querier.join()
        writer.join()
        # The write waited for the query's end: the query read the table as it was, whole
        assert "error" not in outcome, outcome["error"]
        assert outcome["items"] == [{"pk": {"S": "RUN#a"}, "sk": {"S": "RUN"}}]
        assert written.is_set() and len(client.scan(TableName=name)["Items"]) == 3
