"""Settings saved from the console (PUT /settings) and provider keys entered there: the local server's.

They live in the laptop's store (the SQLite file's `saved_settings` table), so every later run reads
them: `claimcourt serve`'s, the CLI's, a drift tick's. The environment still wins: a field whose
variable is set (CLAIMCOURT_BUDGET_USD, ANTHROPIC_API_KEY…) is locked, and the console says why.
A deployed stack has no preferences: its settings are its template's, its keys Secrets Manager's.

Keys are encrypted with Fernet (AES-128-CBC + HMAC-SHA256) under a key file made with mode 0600 in the
data directory; what is stored is only the token. They are never returned (only "set" and the last
four characters) and never logged.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import threading
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)

from claimcourt.errors import ConfigurationError, ConflictError, InvalidRequestError
from claimcourt.models import MODEL_NAME, Effort, Mode, ProviderName, RoundsMode, SearchName, first_problem
from claimcourt.observability import logger
from claimcourt.settings import MOTION_ROLES, ROLES, Settings
from claimcourt.store.base import SavedSettingsStore

SETTINGS_ROW, KEYS_ROW = "settings", "provider_keys"
KEY_FILE = "provider-keys.fernet"  # beside the SQLite file: the store holds tokens, not the key
# The providers whose key the console takes, the variable that sets it instead, and what one looks like
# (their published prefixes; the rest URL-safe characters). A base-URL-only server needs no key.
KEYED: dict[str, tuple[str, str, re.Pattern[str]]] = {
    "anthropic": ("anthropic_api_key", "ANTHROPIC_API_KEY", re.compile(r"^sk-ant-[A-Za-z0-9_-]{20,400}$")),
    "openai": ("openai_api_key", "OPENAI_API_KEY", re.compile(r"^sk-[A-Za-z0-9_-]{20,400}$")),
    "gemini": ("gemini_api_key", "GEMINI_API_KEY", re.compile(r"^AIza[A-Za-z0-9_-]{35}$")),
    "xai": ("xai_api_key", "XAI_API_KEY", re.compile(r"^xai-[A-Za-z0-9_-]{20,400}$")),
}


def _known_provider(wanted: Any) -> Any:
    """A role's provider:model, its provider said in words first (the pattern then checks the model)."""
    if isinstance(wanted, str):
        known = get_args(ProviderName)
        provider, colon, _ = wanted.partition(":")
        if not colon:
            raise ValueError(f"give provider:model (e.g. anthropic:claude-sonnet-4-6), not {wanted[:60]!r}")
        if provider not in known:
            raise ValueError(f"unknown provider {provider[:30]!r}; choose {', '.join(known)}")
    return wanted


class SavedSettings(BaseModel):
    """What the console may set. A field left out (null) is the environment's, or the default."""

    model_config = ConfigDict(extra="forbid")

    provider: ProviderName | None = Field(
        default=None, description="The default provider (null: from the keys present)."
    )
    models_by_role: dict[str, Annotated[str, Field(pattern=MODEL_NAME), BeforeValidator(_known_provider)]] = (
        Field(default_factory=dict, description="provider:model per role; a role not named uses the default.")
    )
    default_effort: Effort | None = None
    default_mode: Mode | None = None
    dynamic_rounds: RoundsMode | None = Field(
        default=None, description="The round controller: off, shadow, on."
    )
    budget_usd: float | None = Field(default=None, gt=0, le=100, description="Per-run spend cap, dollars.")
    max_active_runs: int | None = Field(default=None, ge=1, le=50, description="Debates running at once.")
    hourly_runs_per_tenant: int | None = Field(default=None, ge=1, le=10_000, description="Runs per hour.")
    search: SearchName | None = Field(default=None, description="anthropic, openai, searxng or none.")
    searxng_url: str | None = Field(default=None, max_length=500, description="A SearXNG instance.")

    @field_validator("models_by_role")
    @classmethod
    def _known_roles(cls, value: dict[str, str]) -> dict[str, str]:
        known = ROLES + tuple(MOTION_ROLES)
        if unknown := [role for role in value if role not in known]:
            raise ValueError(f"no role {unknown[0][:40]!r}; roles: {', '.join(known)}")
        return value

    @field_validator("searxng_url")
    @classmethod
    def _searxng(cls, value: str | None) -> str | None:
        if value is not None:  # Settings' own check, so the message is the environment's
            try:
                Settings.model_validate({"searxng_url": value})
            except ValidationError as err:
                raise ValueError(first_problem(err, "searxng_url")[1]) from None
        return value


class KeyStatus(BaseModel):
    provider: str
    set: bool
    last4: str | None = Field(description="The key's last four characters; never more of it.")
    source: Literal["console", "environment"] | None
    locked: str | None = Field(default=None, description="Why the console cannot change it, if it cannot.")


def env_name(field: str) -> str:
    keyed = {f: name for f, name, _ in KEYED.values()}
    return keyed.get(field, f"CLAIMCOURT_{field.upper()}")


class Preferences:
    """The local server's saved settings and keys, over `base` (the settings from the environment)."""

    def __init__(self, base: Settings, store: SavedSettingsStore, data_dir: Path) -> None:
        self.base = base
        self.store = store
        self.key_file = data_dir / KEY_FILE
        self._lock = threading.Lock()

    # ------------------------------------------------------------ settings

    def saved(self) -> SavedSettings:
        raw = self.store.get_saved(SETTINGS_ROW)
        if not raw:
            return SavedSettings()
        try:
            return SavedSettings.model_validate(raw)
        except ValidationError as err:
            # Saved under older rules (a SearXNG URL with a password in it, since refused): what no longer
            # passes is left out, named in the log (never its value), and the rest still applies; the
            # server starts, and the console shows the field unset, to be entered again.
            dropped = sorted({str(e["loc"][0]) for e in err.errors() if e["loc"]})
            logger.warning("saved settings left out: they are no longer valid", extra={"fields": dropped})
            return SavedSettings.model_validate({k: v for k, v in raw.items() if k not in dropped})

    def locked(self) -> dict[str, str]:
        """The saved fields the environment sets, with the reason the console says."""
        return {
            field: f"{env_name(field)} is set in the server's environment"
            for field in SavedSettings.model_fields
            if field in self.base.model_fields_set
        }

    def settings(self, saved: SavedSettings | None = None, keys: dict[str, str] | None = None) -> Settings:
        """The environment's settings with what was saved where the environment sets nothing."""
        saved = self.saved() if saved is None else saved
        update: dict[str, Any] = {
            k: v for k, v in saved.model_dump(exclude_none=True).items() if k not in self.locked()
        }
        if not saved.models_by_role:
            update.pop("models_by_role", None)
        for provider, key in (self._keys() if keys is None else keys).items():
            field = KEYED[provider][0]
            if field not in self.base.model_fields_set:
                update[field] = SecretStr(key)
        return self.base.model_copy(update=update)

    def save(self, saved: SavedSettings) -> Settings:
        """Store `saved`, or InvalidRequestError naming the field that stops runs from starting."""
        with self._lock:
            settings = self.settings(saved)
            _refuse_problems(settings, saved)
            self.store.put_saved(SETTINGS_ROW, saved.model_dump(mode="json", exclude_none=True))
            return settings

    # ------------------------------------------------------------ keys

    def key_status(self) -> list[KeyStatus]:
        stored = self._readable_keys()  # unreadable ones show as unset, so that they can be entered again
        found = []
        for provider, (field, name, _) in KEYED.items():
            if field in self.base.model_fields_set:
                value = getattr(self.base, field)
                last4 = value.get_secret_value()[-4:] if value is not None else None
                found.append(
                    KeyStatus(
                        provider=provider,
                        set=value is not None,
                        last4=last4,
                        source="environment",
                        locked=f"{name} is set in the server's environment",
                    )
                )
            else:
                key = stored.get(provider)
                found.append(
                    KeyStatus(
                        provider=provider,
                        set=key is not None,
                        last4=key[-4:] if key else None,
                        source="console" if key else None,
                    )
                )
        return found

    def put_key(self, provider: str, key: str) -> Settings:
        shape = self._keyed(provider)
        if not shape.fullmatch(key):
            # Never the key itself in the message: it would reach the client's logs and ours.
            raise InvalidRequestError(
                "key", f"not a {provider} API key (it should look like {shape.pattern[1:8]}…)"
            )
        with self._lock:
            keys = self._readable_keys() | {provider: key}
            self._write_keys(keys)
            return self.settings(keys=keys)

    def remove_key(self, provider: str) -> Settings:
        """Forget the key; ConflictError if the saved settings need it (choose another provider first)."""
        self._keyed(provider)
        with self._lock:
            keys = {p: k for p, k in self._readable_keys().items() if p != provider}
            settings = self.settings(keys=keys)
            if problems := settings.problems():
                raise ConflictError(f"the saved settings need this key: {problems[0]}", "key_in_use")
            self._write_keys(keys)
            return settings

    def _keyed(self, provider: str) -> re.Pattern[str]:
        """The shape of the provider's key, if the console may set it."""
        if provider not in KEYED:
            raise InvalidRequestError(
                "provider", f"no key is entered for {provider!r}; choose {', '.join(KEYED)}"
            )
        field, name, shape = KEYED[provider]
        if field in self.base.model_fields_set:
            raise ConflictError(
                f"{name} is set in the server's environment, which wins", "set_in_environment"
            )
        return shape

    def _keys(self) -> dict[str, str]:
        raw = self.store.get_saved(KEYS_ROW) or {}
        if not raw:
            return {}
        from cryptography.fernet import InvalidToken

        fernet = self._fernet()
        try:
            return {p: fernet.decrypt(str(token).encode()).decode() for p, token in raw.items() if p in KEYED}
        except InvalidToken:
            raise ConfigurationError(
                f"the provider keys in the store cannot be read with {self.key_file} (another key file?): "
                "enter them again"
            ) from None

    def _readable_keys(self) -> dict[str, str]:
        """The stored keys, or none if they cannot be read (the key file was lost or replaced): what the
        Settings page shows and what entering or removing a key starts from, so that the way out the
        error names (enter them again) is open. A run still fails on them, saying so (_keys)."""
        try:
            return self._keys()
        except ConfigurationError:
            return {}

    def _write_keys(self, keys: dict[str, str]) -> None:
        fernet = self._fernet()
        self.store.put_saved(KEYS_ROW, {p: fernet.encrypt(k.encode()).decode() for p, k in keys.items()})

    def _fernet(self) -> Any:
        from cryptography.fernet import Fernet  # the local extra's: a deployed function never imports it

        return Fernet(_key_file(self.key_file))


def _key_file(path: Path) -> bytes:
    """The Fernet key, made on first use with mode 0600: written whole to a file of this process's own,
    then linked into place, so that no process ever reads a half-written key and two processes making
    it at once end with one key (the loser reads the winner's)."""
    from cryptography.fernet import Fernet

    if not path.exists():
        made = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        fd = os.open(made, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(Fernet.generate_key())
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(made, path)
        finally:
            made.unlink(missing_ok=True)
    if stat.S_IMODE(path.stat().st_mode) & 0o077:
        raise ConfigurationError(f"{path} is readable by others: chmod 600 it")
    key = path.read_bytes().strip()
    if not key:
        raise ConfigurationError(f"{path} is empty: remove it, then enter the provider keys again")
    return key


def _refuse_problems(settings: Settings, saved: SavedSettings) -> None:
    """A saved setting that would stop every run (a provider with no key, a search not configured) is
    refused here, naming its field, rather than failing each run later."""
    if (
        settings.provider is not None
        and saved.provider == settings.provider
        and not settings.has_key(settings.provider)
    ):
        raise InvalidRequestError("provider", f"no key is set for {settings.provider}: enter one below first")
    if saved.search is not None and (problem := settings.search_problem()) is not None:
        raise InvalidRequestError("search", problem.removeprefix(f"CLAIMCOURT_SEARCH={saved.search} but "))


def parse_saved(raw: object) -> SavedSettings:
    try:
        return SavedSettings.model_validate(raw)
    except ValidationError as err:
        raise InvalidRequestError(*first_problem(err, "settings")) from err


def preferences_for(settings: Settings, store: object) -> Preferences | None:
    """The saved settings beside a store that keeps them (the laptop's SQLite file); None otherwise."""
    if not isinstance(store, SavedSettingsStore):
        return None
    path = getattr(store, "path", None)
    return Preferences(settings, store, Path(path).parent if path else settings.resolved_data_dir())
