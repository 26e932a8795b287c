"""Settings, read once from the environment and validated. Nothing else reads os.environ (a bench
that starts a process hands it this one's environment through `child_environment`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Literal, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from claimcourt.errors import InvalidRequestError
from claimcourt.models import (
    PROVIDERS,
    ClaimAsked,
    Effort,
    Mode,
    MotionRole,
    ProviderName,
    RoundsMode,
    SearchName,
    WebAddress,
    parse_judge_spec,
)

R = TypeVar("R", bound=BaseModel)
ROLES = (
    "suitability", "decomposer", "case_for", "case_against", "fact_checker", "moderator", "adjudicator",
    "hindsight",
)  # fmt: skip
# Roles whose job is small and mechanical (a backtest's dating of its sources: debate/hindsight.py) run on
# the provider's small model unless CLAIMCOURT_MODELS_BY_ROLE names one. An OpenAI-compatible server
# (OPENAI_BASE_URL) serves only the model it was configured with.
SMALL_MODEL_ROLES = frozenset({"hindsight"})
SMALL_MODELS = {
    "anthropic": "claude-haiku-4-5",
    "openai": "gpt-4.1-mini",
    "gemini": "gemini-2.5-flash-lite",
    "xai": "grok-3-mini",
}
# Vendors that need their own key (their base URL is preset: an override alone, a proxy say, is not
# enough), unlike OpenAI's protocol, which a local server without a key may speak.
KEYED_VENDORS = {"gemini": "GEMINI_API_KEY", "xai": "XAI_API_KEY"}
# The roles asked to sample at the model's natural temperature (Task.temperature None): the debaters.
SAMPLED_ROLES = frozenset({"case_for", "case_against"})
# A motion debate's roles (claimcourt.motions), each routed as the claim role it plays unless named in
# CLAIMCOURT_MODELS_BY_ROLE or in the motion's own line-up.
MOTION_ROLES = {
    "debater_for": "case_for",
    "debater_against": "case_against",
    "factchecker_for": "fact_checker",
    "factchecker_against": "fact_checker",
    "judge": "moderator",
    "crowd": "moderator",
}


class EffortProfile(BaseModel):
    model_config = ConfigDict(frozen=True)

    rounds: int  # fixed rounds: what a run does with the round controller off or in shadow
    max_rounds: int  # the round controller's cap when it steers (dynamic rounds on)
    max_sub_claims: int
    evidence_per_query: int
    self_consistency_samples: int


EFFORT_PROFILES: dict[str, EffortProfile] = {
    # low is cheaper than standard in every call: half the sub-claims, fewer passages per query.
    "low": EffortProfile(
        rounds=2, max_rounds=3, max_sub_claims=2, evidence_per_query=3, self_consistency_samples=0
    ),
    "standard": EffortProfile(
        rounds=2, max_rounds=5, max_sub_claims=4, evidence_per_query=5, self_consistency_samples=0
    ),
    "high": EffortProfile(
        rounds=4, max_rounds=8, max_sub_claims=6, evidence_per_query=6, self_consistency_samples=3
    ),
}
MIN_ROUNDS = 2
# The web searches, in the order the first configured one is chosen; the first two are paid per search.
WEB_SEARCHES: tuple[SearchName, ...] = ("anthropic", "openai", "searxng")
PAID_SEARCHES = frozenset({"anthropic", "openai"})


class Settings(BaseSettings):
    """Every knob, from CLAIMCOURT_* variables (provider keys under their usual names)."""

    model_config = SettingsConfigDict(env_prefix="CLAIMCOURT_", extra="ignore", populate_by_name=True)

    # Where the embedded default keeps its SQLite store.
    data_dir: Path | None = None
    run_timeout_s: float = Field(
        default=900, gt=0, description="Local runtime: a run still going then is stopped."
    )

    # Providers. A role uses `provider` unless models_by_role names another "provider:model".
    provider: ProviderName | None = Field(default=None, description="None: pick from the keys present.")
    anthropic_api_key: SecretStr | None = Field(default=None, validation_alias="ANTHROPIC_API_KEY")
    anthropic_base_url: str | None = Field(default=None, validation_alias="ANTHROPIC_BASE_URL")
    openai_api_key: SecretStr | None = Field(default=None, validation_alias="OPENAI_API_KEY")
    openai_base_url: str | None = Field(default=None, validation_alias="OPENAI_BASE_URL")
    # Gemini and xAI over their OpenAI-compatible endpoints (reasoning/vendors.py), at their preset base
    # URLs unless these name another (a gateway, or a test's loopback server).
    gemini_api_key: SecretStr | None = Field(default=None, validation_alias="GEMINI_API_KEY")
    gemini_base_url: str | None = Field(default=None, validation_alias="GEMINI_BASE_URL")
    xai_api_key: SecretStr | None = Field(default=None, validation_alias="XAI_API_KEY")
    xai_base_url: str | None = Field(default=None, validation_alias="XAI_BASE_URL")
    provider_keys_known: bool = Field(
        default=True,
        description="False in a function that reads no provider keys (its CLAIMCOURT_PROVIDER_KEYS_SECRET "
        "is empty: it calls no model, e.g. the deployed API): it cannot tell which providers have a key.",
    )
    anthropic_model: str = "claude-sonnet-4-6"
    openai_model: str = "gpt-4.1"
    gemini_model: str = "gemini-2.5-flash"
    xai_model: str = "grok-4"
    models_by_role: dict[str, str] = Field(
        default_factory=dict, description='e.g. {"adjudicator": "anthropic:claude-opus-4-1"}'
    )
    max_output_tokens: int = 4096
    offline_reader: Literal["lexical", "embedding"] = Field(
        default="lexical",
        description="The offline judge's passage reader: lexical features, or those and the cosine of "
        "sentence embeddings (needs the embed extra; no better on the held-out half, slower).",
    )
    offline_pace_ms: int = Field(
        default=0,
        ge=0,
        le=60_000,
        description="The offline reasoner waits this long per call (demos, tests).",
    )
    provider_max_retries: int = Field(default=3, description="SDK-level retries with backoff.")
    provider_timeout_s: float = Field(
        default=60.0, description="Per request; × (retries + 1) × 2 stays inside the 900 s function timeout."
    )

    # Observability (claimcourt.observability): on in the deployed template, off on the laptop.
    tracing: bool = Field(default=False, description="Trace each invocation with X-Ray.")
    metrics: bool = Field(default=False, description="Write business metrics (CloudWatch EMF) to stdout.")

    # What a request that names no effort or mode gets (the request models' own defaults otherwise).
    default_effort: Effort = Field(default="standard", description="A run's effort when it names none.")
    default_mode: Mode = Field(default="spectral", description="A run's headline when it names none.")

    # The round controller (debate/control.py): off = the effort's fixed rounds; shadow = fixed rounds,
    # with what the controller would have decided recorded beside; on = the controller decides.
    dynamic_rounds: RoundsMode = Field(default="shadow", description="off, shadow or on.")
    max_rounds: int | None = Field(
        default=None, ge=MIN_ROUNDS, le=20, description="Caps the controller's rounds (None: the effort's)."
    )

    # Judging: with self-consistency samples, one more judgement when they disagree by more than
    # this many points and the pool holds contrarian evidence.
    judge_samples: int | None = Field(
        default=None,
        ge=0,
        le=6,
        description="Self-consistency samples beside the first (None: the effort's).",
    )
    redeliberation: bool = Field(default=True, description="Allow one re-deliberation per run.")
    redeliberate_spread: int = Field(
        default=20, ge=1, le=100, description="Samples' spread that triggers it."
    )

    # Spend and size limits.
    budget_usd: float = Field(default=2.0, gt=0, description="Per-run spend cap.")
    web_search: bool = Field(
        default=True,
        description="Search the web for evidence (false: the bundled corpus, whatever `search` says).",
    )
    search: SearchName | None = Field(
        default=None,
        description="The web search for evidence: anthropic, openai, searxng or none (the bundled corpus); "
        "None: the first of them that is configured.",
    )
    searxng_url: str | None = Field(
        default=None,
        description="A SearXNG instance (http(s)://host[:port][/path]) whose JSON API finds pages.",
    )
    fetch_private_pages: bool = Field(
        default=False,
        description="Let SearXNG's result pages and `corpus add` urls be fetched from loopback or "
        "private-network addresses (an intranet's own pages); off, such a page or url is refused.",
    )
    page_timeout_s: float = Field(default=10.0, gt=0, le=120, description="One result page, all of it.")
    max_page_bytes: int = Field(
        default=3_000_000, ge=10_000, description="A result page larger than this is not read."
    )

    # The cost guard, on runs started through the API (and by drift and monitors): both are checked
    # atomically when a run is admitted, before anything is stored or spent.
    max_active_runs: int = Field(default=3, ge=1, description="Debates running at once, across tenants.")
    hourly_runs_per_tenant: int = Field(default=20, ge=1, description="Runs a tenant may start per UTC hour.")

    # The API.
    max_body_bytes: int = Field(default=64 * 1024, ge=1024, description="Larger request bodies get 413.")
    collections_quota_mb: int = Field(
        default=500,
        ge=1,
        description="A tenant's documents across its collections, uploaded through the API.",
    )
    state_machine_arn: str | None = Field(default=None, description="Where the API starts executions.")
    motion_state_machine_arn: str | None = Field(
        default=None, description="Where the API starts motion debates (statemachine/motion.asl.json)."
    )
    rejudge_function_name: str | None = Field(
        default=None, description="The function the API hands a re-judging to (else a thread of its process)."
    )
    websocket_url: str | None = Field(default=None, description="wss://… for clients (the events link).")
    # A run's ClaimReview (claimcourt/claimreview.py): who publishes it, and the page each review is on.
    claimreview_author: str | None = Field(
        default=None, min_length=1, max_length=200, description="The publishing organisation's name."
    )
    claimreview_author_url: WebAddress | None = Field(default=None, description="The organisation's site.")
    claimreview_url: WebAddress | None = Field(
        default=None,
        description="Each review's page, {run_id} standing for the run: https://example.org/checks/{run_id}.",
    )
    dead_letter_queue_url: str | None = Field(
        default=None, description="Where the monitor function puts bus events it cannot act on."
    )
    event_bus_name: str | None = Field(
        default=None, description="The EventBridge bus for claim.score_changed (else a file on the laptop)."
    )
    cache_ttl_s: int = 24 * 3600

    # Store. SQLite (one file under data_dir) on a laptop; DynamoDB + S3 in the cloud, or on a laptop
    # pointed at a moto server, DynamoDB Local or a real account.
    store: Literal["sqlite", "dynamodb"] = "sqlite"
    table_name: str = Field(default="claimcourt-main", description="Runs, events, artifacts, calls, claims.")
    cache_table_name: str = Field(default="claimcourt-cache", description="Retrieval cache (TTL).")
    idempotency_table_name: str = Field(default="claimcourt-idempotency", description="Powertools (TTL).")
    limits_table_name: str = Field(default="claimcourt-limits", description="Rate-limit counters (TTL).")
    connections_table_name: str = Field(default="claimcourt-connections", description="WebSockets (TTL).")
    artifacts_bucket: str = Field(default="claimcourt-artifacts", description="Documents over 350 KB.")
    aws_region: str | None = Field(default=None, description="None: boto3's (AWS_REGION, the profile).")
    dynamodb_endpoint_url: str | None = Field(default=None, description="None: the region's endpoint.")
    s3_endpoint_url: str | None = Field(default=None, description="None: the region's endpoint.")

    @field_validator("search", mode="before")
    @classmethod
    def _known_search(cls, value: object) -> object:
        if isinstance(value, str) and value not in (*WEB_SEARCHES, "none"):
            raise ValueError(f"CLAIMCOURT_SEARCH={value!r}: choose anthropic, openai, searxng or none")
        return value

    @field_validator("searxng_url", mode="before")
    @classmethod
    def _http_url(cls, value: object) -> object:
        if isinstance(value, str):
            value = value.strip().rstrip("/") or None
            parts = urlsplit(value or "")
            if value is not None and "@" in parts.netloc:
                # Refused, not kept: the URL is shown in run errors, logs and GET /settings, and a user
                # name or password in it would go with it. The message does not repeat the URL.
                raise ValueError(
                    "CLAIMCOURT_SEARXNG_URL holds a user name or password (user:pass@host): give the "
                    "instance as http(s)://host[:port][/path] without them (a URL is shown in run errors, "
                    "logs and the settings)"
                )
            if value is not None and (parts.query or parts.fragment):
                raise ValueError(  # nor this one: a query may hold a token
                    "CLAIMCOURT_SEARXNG_URL holds a query or fragment (?… or #…): give the instance as "
                    "http(s)://host[:port][/path] (its searches are asked at <url>/search)"
                )
            if value is not None and (parts.scheme not in ("http", "https") or not parts.hostname):
                raise ValueError(
                    f"CLAIMCOURT_SEARXNG_URL={value!r}: give the instance as http(s)://host[:port]"
                )
        return value

    @field_validator("claimreview_url")
    @classmethod
    def _one_page_a_review(cls, value: str | None) -> str | None:
        if value is not None and "{run_id}" not in value:
            raise ValueError("it must hold {run_id}, so that each review has its own page")
        return value

    def problems(self) -> list[str]:
        """What stops these settings from running a debate. Not a validator: a deployed function must
        still start, so that the run records the problem instead of hanging without a reason."""
        found = []
        if self.provider is not None and not self.has_key(self.provider):
            found.append(f"CLAIMCOURT_PROVIDER={self.provider} but no key or base URL is set for it")
        for role, wanted in self.models_by_role.items():
            if role not in ROLES and role not in MOTION_ROLES:
                known = ", ".join(ROLES + tuple(MOTION_ROLES))
                found.append(f"CLAIMCOURT_MODELS_BY_ROLE names an unknown role {role!r}; roles: {known}")
            elif wanted.partition(":")[0] not in PROVIDERS:
                found.append(f"CLAIMCOURT_MODELS_BY_ROLE[{role}] must be provider:model, got {wanted!r}")
        if (search := self.search_problem()) is not None:
            found.append(search)
        return found

    def search_problem(self) -> str | None:
        """What stops the named web search (CLAIMCOURT_SEARCH) from serving, if anything."""
        needs = {
            "anthropic": "ANTHROPIC_API_KEY is not set",
            "openai": "neither OPENAI_API_KEY nor OPENAI_BASE_URL is set",
            "searxng": "CLAIMCOURT_SEARXNG_URL is not set",
        }
        chosen = self.search if self.web_search and self.provider_keys_known else None
        if chosen is not None and chosen in needs and not self.search_configured(chosen):
            return f"CLAIMCOURT_SEARCH={chosen} but {needs[chosen]}"
        return None

    def with_defaults(self, request: R) -> R:
        """The request with this deployment's default effort and mode where it named none."""
        unnamed = {"effort": self.default_effort, "mode": self.default_mode}
        update = {k: v for k, v in unnamed.items() if k in type(request).model_fields}
        update = {k: v for k, v in update.items() if k not in request.model_fields_set}
        return request.model_copy(update=update) if update else request

    def effort(self, name: str) -> EffortProfile:
        return EFFORT_PROFILES[name]

    def judgements(self, effort: str) -> int:
        """How many judgements the judge may give: the first and its self-consistency samples."""
        samples = (
            self.effort(effort).self_consistency_samples if self.judge_samples is None else self.judge_samples
        )
        return samples + 1

    def controller_max_rounds(self, effort: str) -> int:
        """The most rounds the round controller may run (it may want more than a fixed run does)."""
        profile = self.effort(effort)
        return max(profile.rounds, min(self.max_rounds or profile.max_rounds, profile.max_rounds))

    def rounds_mode(self, request: ClaimAsked) -> RoundsMode:
        """Who decides a run's rounds. A request that fixes its rounds (`rounds`) is never steered: with
        the controller `on` it runs as in `shadow` (the controller's decisions recorded beside)."""
        if request.rounds is not None and self.dynamic_rounds == "on":
            return "shadow"
        return self.dynamic_rounds

    def fixed_rounds(self, request: ClaimAsked) -> int:
        """The rounds a run has when the controller does not steer: the request's, else the effort's."""
        return request.rounds if request.rounds is not None else self.effort(request.effort).rounds

    def round_limit(self, request: ClaimAsked) -> int:
        """The most rounds a run may have: what the state machine and the prompts are told. Fixed
        rounds, unless the controller steers (then its cap)."""
        if self.rounds_mode(request) == "on":
            return self.controller_max_rounds(request.effort)
        return self.fixed_rounds(request)

    def search_configured(self, search: SearchName) -> bool:
        """Whether this search can serve: Anthropic's with its key; OpenAI's with a key or a base URL
        (chosen by default only for OpenAI itself: a compatible server has no hosted search); SearXNG
        with its URL."""
        if search == "anthropic":
            return self.anthropic_api_key is not None
        if search == "openai":
            return self.has_key("openai")
        if search == "searxng":
            return self.searxng_url is not None
        return True  # none: the bundled corpus

    def web_search_source(self) -> SearchName | None:
        """The web search that serves a run's evidence ("none": the bundled corpus): CLAIMCOURT_SEARCH,
        else the first configured of Anthropic's (with a key), OpenAI's (when OpenAI is the provider
        and no Anthropic key is set, on OpenAI itself) and SearXNG. Forcing the offline provider leaves
        out the searches paid per search. None where the keys are not known here (the deployed API)
        and no search is named."""
        if not self.web_search:
            return "none"
        if self.search is not None:
            return self.search
        if self.provider != "offline":
            if not self.provider_keys_known:
                return None
            if self.anthropic_api_key is not None:
                return "anthropic"
            on_openai = (
                self.openai_base_url is None or urlsplit(self.openai_base_url).hostname == "api.openai.com"
            )
            if self.default_provider() == "openai" and self.openai_api_key is not None and on_openai:
                return "openai"
        return "searxng" if self.searxng_url is not None else "none"

    def may_spend(self, lineup: Mapping[MotionRole, str] | None = None, judges: Sequence[str] = ()) -> bool:
        """Whether a run may spend money: a paid provider routed to any role (a motion's `lineup` and a
        claim's panel of `judges` included), or paid search. A run that spends nothing (the offline
        reasoner in every role, the bundled corpus) is not counted against the hourly cap. Where the
        keys are not known here (the deployed API), only a provider forced offline is known to be free
        (a panel's judges name their own providers: any but `offline` may spend)."""
        if not self.provider_keys_known and self.provider != "offline":
            return True
        roles = ROLES + tuple(MOTION_ROLES)
        named = [wanted.partition(":")[0] for wanted in (lineup or {}).values()]
        named += [parse_judge_spec(judge)[0] for judge in judges]
        paid = any(self.route(role)[0] != "offline" for role in roles) or any(p != "offline" for p in named)
        return paid or self.web_search_source() in PAID_SEARCHES

    def default_provider(self) -> ProviderName:
        if self.provider is not None:
            return self.provider
        if self.anthropic_api_key is not None:
            return "anthropic"
        if self.openai_api_key is not None or self.openai_base_url is not None:
            return "openai"
        if self.gemini_api_key is not None:
            return "gemini"
        if self.xai_api_key is not None:
            return "xai"
        return "offline"

    def own_endpoint(self, provider: str) -> bool:
        """Whether the operator pointed `provider` at a server of their own (its `*_BASE_URL`)."""
        return bool(getattr(self, f"{provider}_base_url", None))

    def has_key(self, provider: str) -> bool:
        if provider == "anthropic":
            return self.anthropic_api_key is not None
        if provider == "openai":
            return self.openai_api_key is not None or self.openai_base_url is not None
        if provider == "gemini":
            return self.gemini_api_key is not None
        if provider == "xai":
            return self.xai_api_key is not None
        return provider == "offline"

    def missing_key(self, provider: str) -> str:
        """What a line-up naming `provider` is told when has_key(provider) is False."""
        if provider in KEYED_VENDORS:
            return f"no key is set for {provider} ({KEYED_VENDORS[provider]})"
        if provider not in PROVIDERS:
            return f"unknown provider {provider!r}; providers: {', '.join(PROVIDERS)}"
        return f"no key or base URL is set for {provider}"

    def check_lineup(self, lineup: Mapping[MotionRole, str]) -> None:
        """A motion's line-up may name only providers this deployment holds a key (or base URL) for:
        refused at the boundary, before anything is spent, rather than failing at the role's first call.
        Where the keys are not known here (the deployed API), the role's first call is where it fails."""
        if not self.provider_keys_known:
            return
        for role, wanted in lineup.items():
            provider = wanted.partition(":")[0]
            if not self.has_key(provider):
                raise InvalidRequestError(f"lineup.{role}", self.missing_key(provider))

    def named_route(self, wanted: str) -> tuple[str, str]:
        """(provider, model) of a "provider:model" name; an empty model is the provider's default."""
        provider, _, model = wanted.partition(":")
        return provider, model or self.default_model(provider)

    def default_model(self, provider: str) -> str:
        defaults = {
            "anthropic": self.anthropic_model,
            "openai": self.openai_model,
            "gemini": self.gemini_model,
            "xai": self.xai_model,
        }
        return defaults.get(provider, "offline")

    def route(self, role: str) -> tuple[str, str]:
        """(provider, model) for a role; a role whose provider has no key falls back to the default
        (where the keys are not known here, as configured)."""
        wanted = self.models_by_role.get(role)
        if not wanted and role in MOTION_ROLES:
            return self.route(MOTION_ROLES[role])
        if wanted:
            provider, _, model = wanted.partition(":")
            if self.has_key(provider) or not self.provider_keys_known:
                return provider, model or self.default_model(provider)
        provider = self.default_provider()
        if role in SMALL_MODEL_ROLES and not (provider == "openai" and self.openai_base_url):
            return provider, SMALL_MODELS.get(provider, self.default_model(provider))
        return provider, self.default_model(provider)

    def resolved_data_dir(self) -> Path:
        if self.data_dir is not None:
            return self.data_dir
        from platformdirs import user_data_dir  # laptop-only dependency

        return Path(user_data_dir("claimcourt", appauthor=False))


class _KeysSecret(BaseSettings):
    """Where the cloud keeps the provider keys: a Secrets Manager secret holding
    {"ANTHROPIC_API_KEY": "...", "OPENAI_API_KEY": "...", "GEMINI_API_KEY": "...", "XAI_API_KEY": "..."}
    (any of them), never the environment itself."""

    model_config = SettingsConfigDict(env_prefix="CLAIMCOURT_", extra="ignore")
    provider_keys_secret: str | None = None


SECRET_KEYS = {
    "ANTHROPIC_API_KEY": "anthropic_api_key", "OPENAI_API_KEY": "openai_api_key",
    "GEMINI_API_KEY": "gemini_api_key", "XAI_API_KEY": "xai_api_key",
}  # fmt: skip


def provider_keys(secret: str) -> dict[str, SecretStr]:
    """The keys present in the secret, as Settings fields. Read once per cold start."""
    from aws_lambda_powertools.utilities.parameters import get_secret  # boto3: only when a secret is named

    raw = get_secret(secret, transform="json", max_age=3600)
    if not isinstance(raw, dict):
        raise ValueError(f"the provider keys secret {secret} must hold a JSON object")
    return {field: SecretStr(str(raw[name])) for name, field in SECRET_KEYS.items() if raw.get(name)}


@lru_cache(maxsize=1)
def load_settings() -> Settings:
    secret = _KeysSecret().provider_keys_secret
    keys = provider_keys(secret) if secret else {}
    # An empty secret name is a function's way to say it calls no model, so it holds no keys to judge by.
    return Settings(**keys, provider_keys_known=secret != "")  # type: ignore[arg-type]


def child_environment(drop: Callable[[str], bool] = lambda name: False, **overrides: str) -> dict[str, str]:
    """This process's environment for a child process it starts (a bench's server, a CLI under
    test): whole, without the variables `drop` names (the provider keys, say), with `overrides`."""
    return {k: v for k, v in os.environ.items() if not drop(k)} | overrides
