"""The retrieval cache in DynamoDB: its own TTL table (expired entries are read past: TTL deletes
lazily)."""

from __future__ import annotations

import hashlib
import json
import math
import time
from typing import Any

from claimcourt.store.base import RetrievalCacheStore
from claimcourt.store.dynamodb.tables import DynamoTables, number, string


def _cache_pk(key: str) -> str:
    # A partition key holds 2,048 bytes; a long normalized query is hashed instead.
    return key if len(key.encode()) <= 1024 else "sha256:" + hashlib.sha256(key.encode()).hexdigest()


class DynamoCache(DynamoTables, RetrievalCacheStore):
    def cache_get(self, key: str) -> list[dict[str, Any]] | None:
        item = self._get(self.cache_table, {"pk": string(_cache_pk(key))}, consistent=False)
        # TTL deletion is lazy (up to days late): an expired entry may still be there.
        if item is None or float(item["expires_at"]["N"]) <= time.time():
            return None
        hits: list[dict[str, Any]] = json.loads(item["hits"]["S"])
        return hits

    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None:
        body = json.dumps(hits, default=str)
        if len(body.encode()) > self.inline_limit:
            return  # the cache saves a search; one too big for an item is not worth an S3 round trip
        self._put(
            self.cache_table,
            {
                "pk": string(_cache_pk(key)),
                "hits": string(body),
                # TTL wants whole epoch seconds; rounding up keeps an entry for at least ttl_s.
                "expires_at": number(math.ceil(time.time() + ttl_s)),
            },
        )
