"""Runs in DynamoDB: the RUN item, listed by the sparse indexes, changed only under its version. A
run's claim counts it in the same transaction, and its drift point comes and goes with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

from botocore.exceptions import ClientError

from claimcourt.errors import NotFoundError
from claimcourt.models import Result, RunPage, RunRecord, RunStatus, SourceTag, utcnow
from claimcourt.store.base import (
    RunStore,
    StatusChange,
    decode_cursor,
    finished,
    listing_key,
    page_of,
    run_exists,
    sortable,
    with_status,
)
from claimcourt.store.dynamodb.tables import (
    BY_SOURCE,
    GSI,
    DynamoTables,
    Item,
    cancellation_reasons,
    claim_pk,
    drift_sk,
    error_code,
    number,
    run_pk,
    string,
)


class DynamoRuns(DynamoTables, RunStore):
    def _run_item(self, record: RunRecord, version: int) -> Item:
        item = {
            "pk": string(run_pk(record.run_id)),
            "sk": string("RUN"),
            "kind": string("run"),
            "run_id": string(record.run_id),
            "claim_id": string(record.claim_id),
            "status": string(record.status.value),
            "created_at": string(record.created_at.isoformat()),
            "ver": number(version),
            **self._doc(record.run_id, "_run", record.model_dump_json()),
        }
        if record.deleted_at is None:  # sparse indexes: a deleted run is not listed
            key = string(listing_key(record))
            item |= {
                "gsi1pk": string(f"RUNS#{record.tenant_id}"),
                "gsi1sk": key,
                "gsi2pk": string(f"RUNS#{record.tenant_id}#{record.source_tag.value}"),
                "gsi2sk": key,
            }
        return item

    def create_run(self, record: RunRecord) -> None:
        now = record.created_at.isoformat()
        items = [
            {
                "Put": {
                    "TableName": self.table,
                    "Item": self._run_item(record, 0),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
            {
                "Update": {
                    "TableName": self.table,
                    "Key": {"pk": string(claim_pk(record.tenant_id, record.claim_id)), "sk": string("CLAIM")},
                    # The first wording of a claim names it; every run counts and moves last_seen.
                    "UpdateExpression": "SET #kind = :kind, claim_id = :id,"
                    " #text = if_not_exists(#text, :text), first_seen = if_not_exists(first_seen, :now),"
                    " last_seen = :now, gsi1pk = :claims, gsi1sk = :gsk ADD run_count :one",
                    "ExpressionAttributeNames": {"#kind": "kind", "#text": "text"},
                    "ExpressionAttributeValues": {
                        ":kind": string("claim"),
                        ":id": string(record.claim_id),
                        ":text": string(record.request.claim),
                        ":now": string(now),
                        ":claims": string(f"CLAIMS#{record.tenant_id}"),
                        ":gsk": string(f"{sortable(record.created_at)}#{record.claim_id}"),
                        ":one": number(1),
                    },
                }
            },
        ]
        try:
            self._transact(items)
        except ClientError as err:
            if error_code(err) == "TransactionCanceledException" and cancellation_reasons(err)[:1] == [
                "ConditionalCheckFailed"
            ]:
                raise run_exists(record.run_id) from None
            raise

    def _load_run(self, run_id: str) -> tuple[RunRecord, int]:
        item = self._get(self.table, {"pk": string(run_pk(run_id)), "sk": string("RUN")})
        if item is None:
            raise NotFoundError(f"no run {run_id}")
        return RunRecord.model_validate_json(self._body(item)), int(item["ver"]["N"])

    def get_run(self, run_id: str) -> RunRecord:
        return self._load_run(run_id)[0]

    def list_runs(
        self, tenant_id: str, limit: int = 20, *, cursor: str | None = None, source: SourceTag | None = None
    ) -> RunPage:
        # The indexes project no documents (see template.yaml): they give the keys, newest first, and
        # the documents come from the table by key.
        index, name = (GSI, "gsi1") if source is None else (BY_SOURCE, "gsi2")
        partition = f"RUNS#{tenant_id}" + ("" if source is None else f"#{source.value}")
        condition = f"{name}pk = :p"
        values = {":p": string(partition)}
        if cursor is not None:
            condition += f" AND {name}sk < :after"
            values[":after"] = string(decode_cursor(cursor))
        listed = self._query(
            limit=limit + 1,  # one more than asked says whether there is a next page
            IndexName=index,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=values,
            ScanIndexForward=False,
        )
        keys = [{"pk": item["pk"], "sk": item["sk"]} for item in listed]
        runs = self._documents(keys[:limit], RunRecord)
        return page_of(runs, limit, more=len(keys) > limit)

    def delete_run(self, run_id: str) -> bool:
        def change(record: RunRecord) -> tuple[RunRecord, list[Item]] | None:
            if record.deleted_at is not None:
                return None
            return record.model_copy(update={"deleted_at": utcnow()}), self._uncounted(record)

        return self._update_run(run_id, change, only_running=False)

    def _uncounted(self, record: RunRecord) -> list[Item]:
        """What takes a deleted run out of its claim, in its delete's transaction: the claim counts one
        run fewer (conditional on the count read; a claim left with none loses its index keys, so it
        is not listed until a new run of it), and its drift point goes (a succeeded run's point is at
        its finish time)."""
        key = {"pk": string(claim_pk(record.tenant_id, record.claim_id)), "sk": string("CLAIM")}
        ops: list[Item] = []
        claim = self._get(self.table, key)
        if claim is not None:
            count = int(claim["run_count"]["N"])
            unlist = " REMOVE gsi1pk, gsi1sk" if count <= 1 else ""
            update = {
                "TableName": self.table,
                "Key": key,
                "UpdateExpression": "SET run_count = :left" + unlist,
                "ConditionExpression": "run_count = :count",
                "ExpressionAttributeValues": {":left": number(max(count - 1, 0)), ":count": number(count)},
            }
            ops.append({"Update": update})
        if record.status is RunStatus.SUCCEEDED and record.finished_at is not None:
            drift = {"pk": key["pk"], "sk": string(drift_sk(record.finished_at, record.run_id))}
            ops.append({"Delete": {"TableName": self.table, "Key": drift}})
        return ops

    def _update_run(
        self,
        run_id: str,
        change: Callable[[RunRecord], tuple[RunRecord, list[Item]] | None],
        only_running: bool = True,
    ) -> bool:
        """Optimistic read-modify-write of a run (by default only of a running one: terminal is final).
        The write is conditional on the version read, so of two racing finishers one wins and the
        other sees a terminal run and gets False. `change` returns the new record and any other
        operations (Put, Update, Delete) for the same transaction, or None for "no change" (False)."""

        def attempt() -> bool:
            record, version = self._load_run(run_id)
            if only_running and record.status.terminal:
                return False
            changed = change(record)
            if changed is None:
                return False
            updated, also = changed
            put: Item = {
                "Put": {
                    "TableName": self.table,
                    "Item": self._run_item(updated, version + 1),
                    "ConditionExpression": "ver = :ver",
                    "ExpressionAttributeValues": {":ver": number(version)},
                }
            }
            self._transact([put, *also])
            return True

        with self._lock:  # the run moved under us (or a conflict): read it again, after a pause
            return self._retrying(attempt, f"run {run_id}: updating it")

    def set_status(self, run_id: str, status: RunStatus, **fields: Unpack[StatusChange]) -> bool:
        def change(record: RunRecord) -> tuple[RunRecord, list[Item]]:
            return with_status(record, status, **fields), []

        return self._update_run(run_id, change)

    def finish_run(self, run_id: str, result: Result) -> bool:
        def change(record: RunRecord) -> tuple[RunRecord, list[Item]]:
            done, point = finished(record, result)
            if point is None:  # deleted while it ran: not a point of its claim's series
                return done, []
            drift = {
                "pk": string(claim_pk(record.tenant_id, record.claim_id)),
                "sk": string(drift_sk(point.at, run_id)),
                "kind": string("drift"),
                "run_id": string(run_id),
                "doc": string(point.model_dump_json()),
            }
            return done, [{"Put": {"TableName": self.table, "Item": drift}}]

        return self._update_run(run_id, change)
