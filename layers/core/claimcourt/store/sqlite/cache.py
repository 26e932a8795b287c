"""The retrieval cache in SQLite: hits as JSON, and an indexed expiry that each write purges by."""

from __future__ import annotations

import json
import time
from typing import Any

from claimcourt.store.base import RetrievalCacheStore
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteCache(SqliteDatabase, RetrievalCacheStore):
    def cache_get(self, key: str) -> list[dict[str, Any]] | None:
        rows = self._query(
            "SELECT hits FROM retrieval_cache WHERE key=? AND expires_at>?", (key, time.time())
        )
        if not rows:
            return None
        hits: list[dict[str, Any]] = json.loads(rows[0][0])
        return hits

    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO retrieval_cache (key, hits, expires_at) VALUES (?,?,?)",
                (key, json.dumps(hits, default=str), time.time() + ttl_s),
            )
            # The expired rows only, found by the expiry index: not a scan of the cache inside the lock.
            db.execute("DELETE FROM retrieval_cache WHERE expires_at <= ?", (time.time(),))
