"""A run's artifacts in DynamoDB: ART#<key> items in the run's partition (a big one's body in S3)."""

from __future__ import annotations

import json
from typing import Any

from claimcourt.errors import NotFoundError
from claimcourt.store.base import ArtifactStore
from claimcourt.store.dynamodb.tables import DynamoTables, run_pk, string


class DynamoArtifacts(DynamoTables, ArtifactStore):
    def put_artifact(self, run_id: str, key: str, value: dict[str, Any]) -> None:
        body = json.dumps(value, separators=(",", ":"), default=str)
        self._put(
            self.table,
            {
                "pk": string(run_pk(run_id)),
                "sk": string(f"ART#{key}"),
                "kind": string("artifact"),
                "key": string(key),
                **self._doc(run_id, key, body),
            },
        )

    def get_artifact(self, run_id: str, key: str) -> dict[str, Any]:
        item = self._get(self.table, {"pk": string(run_pk(run_id)), "sk": string(f"ART#{key}")})
        if item is None:
            raise NotFoundError(f"run {run_id} has no artifact {key}")
        value: dict[str, Any] = json.loads(self._body(item))
        return value

    def find_artifacts(self, run_id: str, prefix: str) -> dict[str, dict[str, Any]]:
        # Sort keys compare as UTF-8 bytes, as SQLite's BINARY collation does: the same key order.
        return {
            item["key"]["S"]: json.loads(self._body(item))
            for item in self._partition(run_pk(run_id), f"ART#{prefix}")
        }
