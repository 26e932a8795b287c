"""API keys in SQLite (the record holds only a digest of the secret)."""

from __future__ import annotations

from claimcourt.errors import NotFoundError
from claimcourt.models import ApiKeyRecord
from claimcourt.store.base import KeyStore, revocation
from claimcourt.store.sqlite.database import SqliteDatabase


class SqliteKeys(SqliteDatabase, KeyStore):
    def put_api_key(self, record: ApiKeyRecord) -> None:
        with self._tx() as db:
            db.execute(
                "INSERT INTO api_keys (key_id, body) VALUES (?,?)", (record.key_id, record.model_dump_json())
            )

    def get_api_key(self, key_id: str) -> ApiKeyRecord:
        rows = self._query("SELECT body FROM api_keys WHERE key_id = ?", (key_id,))
        if not rows:
            raise NotFoundError(f"no API key {key_id}")
        return ApiKeyRecord.model_validate_json(rows[0][0])

    def revoke_api_key(self, key_id: str) -> bool:
        with self._tx() as db:  # the write lock first: the key stays as read until this commits
            change = revocation(self, key_id)
            if change is None:
                return False
            _, revoked = change
            db.execute("UPDATE api_keys SET body = ? WHERE key_id = ?", (revoked.model_dump_json(), key_id))
            return True

    def list_api_keys(self) -> list[ApiKeyRecord]:
        keys = [ApiKeyRecord.model_validate_json(r[0]) for r in self._query("SELECT body FROM api_keys")]
        return sorted(keys, key=lambda k: (k.tenant_id, k.created_at, k.key_id))
