"""API keys: one per caller, owned by a tenant. A key is `cc_<key id>_<secret>`; only the SHA-256 of
the secret is stored (the secret is 256 random bits, so a fast digest is enough: there is nothing
to brute-force). Keys are checked in constant time and never logged or echoed in an error."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from claimcourt.errors import ForbiddenError, NotFoundError, UnauthorizedError
from claimcourt.models import LOCAL_TENANT, TENANT_ID, ApiKeyRecord
from claimcourt.store.base import Store

_KEY = re.compile(r"^cc_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def valid_tenant(tenant_id: str) -> bool:
    return re.fullmatch(TENANT_ID, tenant_id) is not None


def issue_key(
    store: Store, tenant_id: str, label: str = "", *, admin: bool = False
) -> tuple[str, ApiKeyRecord]:
    """A new key for `tenant_id`: the key itself (shown once, to whoever asked) and its stored record.
    `admin`: the operator's (is_operator), whatever its tenant."""
    key_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
    record = ApiKeyRecord(
        key_id=key_id, tenant_id=tenant_id, secret_sha256=_digest(secret), label=label, admin=admin
    )
    store.put_api_key(record)
    return f"cc_{key_id}_{secret}", record


def authenticate(store: Store, presented: str | None) -> ApiKeyRecord:
    """The key's record if `presented` is a live key; else UnauthorizedError (the same message for
    an unknown, malformed or revoked key, so a caller learns nothing about which it was)."""
    refused = UnauthorizedError("a valid API key is required (Authorization: Bearer <key>)")
    match = _KEY.fullmatch(presented or "")
    if match is None:
        raise refused
    key_id, secret = match.groups()
    try:
        record = store.get_api_key(key_id)
    except NotFoundError:
        raise refused from None
    if not hmac.compare_digest(record.secret_sha256, _digest(secret)) or record.revoked_at is not None:
        raise refused
    return record


def is_operator(record: ApiKeyRecord) -> bool:
    """Whether a key may change what every tenant's runs use (the server's settings, its provider keys):
    the CLI's own tenant's keys, which the person running the server makes, and keys made with --admin.
    Any other tenant's key reads them, less the SearXNG URL and the provider keys (GET /settings)."""
    return record.admin or record.tenant_id == LOCAL_TENANT


def refuse_unless_operator(operator: bool, what: str) -> None:
    """ForbiddenError (403 operator_only) for a key that is not the operator's."""
    if not operator:
        raise ForbiddenError(
            f"only the operator may {what}: a key of tenant {LOCAL_TENANT}, or one made with "
            "`claimcourt keys create --admin`; this key reads the settings but cannot change them",
            "operator_only",
        )


def key_is_live(store: Store, key_id: str) -> bool:
    """Whether the key with this id is still good (it exists and is not revoked): what a WebSocket
    connection, authenticated once at $connect, is checked against before anything goes to it."""
    try:
        return store.get_api_key(key_id).revoked_at is None
    except NotFoundError:
        return False


def presented_key(headers: dict[str, str], query: dict[str, str] | None = None) -> str | None:
    """The key from `Authorization: Bearer …` or `x-api-key` (header names in any case), or from the
    `api_key` query parameter, which browsers need for WebSockets (they cannot set headers there)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    auth = lowered.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return lowered.get("x-api-key") or (query or {}).get("api_key")
