"""Build a stage's collaborators once per cold start from validated settings.

Provider SDKs and the BM25 corpus are imported only when the settings select them, so a handler
that never talks to OpenAI never pays for importing it.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import tempfile
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from claimcourt.errors import ConfigurationError
from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.execution import Executor, LambdaRejudger, Rejudger, StepFunctionsExecutor
from claimcourt.models import PROVIDERS, RunRecord, utcnow
from claimcourt.reasoning import stance_model
from claimcourt.reasoning.base import Provider
from claimcourt.reasoning.embedding import EmbeddingUnavailable
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.paced import Paced
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.settings import ROLES, Settings, load_settings
from claimcourt.store.base import Store

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer

    from claimcourt.bus import DeadLetters, Publisher
    from claimcourt.delivery import Poster
    from claimcourt.evidence.collections import Collections
    from claimcourt.preferences import Preferences


@dataclass(frozen=True)
class Deps:
    """A stage's collaborators, built once per cold start (or once per local runtime)."""

    settings: Settings
    store: Store
    reasoner: Reasoner
    evidence: EvidenceSource
    # Powertools idempotency records: DynamoDB in the cloud, the SQLite file on the laptop.
    idempotency: BasePersistenceLayer | None = None
    # Where the API starts runs: Step Functions, or the local runtime (None: this process cannot).
    executor: Executor | None = None
    # Where the API hands a re-judging: the stack's re-judge function (None: a thread of the API's own
    # process, as under `claimcourt serve`; a deployed API without the function answers 503 instead).
    rejudger: Rejudger | None = None
    # Where progress is posted to WebSocket connections (None: this deployment has no WebSocket API).
    poster: Poster | None = None
    # Where claim.score_changed goes: the project's EventBridge bus, or a file (None: nowhere).
    publisher: Publisher | None = None
    # Where the monitor function keeps bus events it cannot act on (None: not this function).
    dead_letters: DeadLetters | None = None
    # The tenants' document collections (None: none here: BM25 is not installed).
    collections: Collections | None = None
    # Settings and provider keys saved from the console (None: a deployed stack, whose are its template's
    # and Secrets Manager's). `settings` already holds them, under the environment's.
    preferences: Preferences | None = None
    # The time as the cost guard reads it when it admits a run (the hour its hourly cap counts it
    # in): the wall clock; a test holds it still, so that two admissions it means to fall in one
    # hour do, however close to the top of an hour it runs.
    now: Callable[[], datetime] = utcnow


def build_store(settings: Settings) -> Store:
    if settings.store == "dynamodb":
        from claimcourt.store.dynamodb import DynamoStore  # imports boto3: only when selected

        return DynamoStore(
            settings.table_name,
            settings.cache_table_name,
            settings.limits_table_name,
            settings.connections_table_name,
            settings.artifacts_bucket,
            region=settings.aws_region,
            endpoint_url=settings.dynamodb_endpoint_url,
            s3_endpoint_url=settings.s3_endpoint_url,
        )
    from claimcourt.store.sqlite import SqliteStore

    return SqliteStore(settings.resolved_data_dir() / "claimcourt.sqlite3")


def build_providers(settings: Settings) -> dict[str, Provider]:
    if problems := settings.problems():
        raise ConfigurationError(problems[0])
    try:
        stance_model.prefer_embedding(settings.offline_reader == "embedding")
    except EmbeddingUnavailable as err:
        raise ConfigurationError(f"CLAIMCOURT_OFFLINE_READER=embedding: {err}") from None
    offline: Provider = OfflineReasoner()
    if settings.offline_pace_ms:
        offline = Paced(offline, settings.offline_pace_ms)
    providers: dict[str, Provider] = {"offline": offline}
    used = {settings.route(role)[0] for role in ROLES}
    used |= {p for p in PROVIDERS if settings.has_key(p)}  # a motion's line-up may name it
    if "anthropic" in used and settings.anthropic_api_key is not None:
        from claimcourt.reasoning.anthropic_provider import AnthropicProvider

        providers["anthropic"] = AnthropicProvider(
            api_key=settings.anthropic_api_key.get_secret_value(),
            base_url=settings.anthropic_base_url,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
            max_output_tokens=settings.max_output_tokens,
        )
    compatible = {
        "openai": (settings.openai_api_key, settings.openai_base_url),
        "gemini": (settings.gemini_api_key, settings.gemini_base_url),
        "xai": (settings.xai_api_key, settings.xai_base_url),
    }
    for name, (secret, base_url) in compatible.items():
        if name not in used or not settings.has_key(name):
            continue
        from claimcourt.reasoning.openai_provider import OpenAIProvider
        from claimcourt.reasoning.vendors import VENDORS

        providers[name] = OpenAIProvider(
            api_key=secret.get_secret_value() if secret else None,
            base_url=base_url,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
            max_output_tokens=settings.max_output_tokens,
            vendor=VENDORS[name],
        )
    return providers


def build_evidence(settings: Settings) -> EvidenceSource:
    if (problem := settings.search_problem()) is not None:
        raise ConfigurationError(problem)
    search = settings.web_search_source()
    if search in ("anthropic", "openai", "searxng"):
        from claimcourt.evidence.sources import web_search  # an SDK or the page reader: only when chosen

        return web_search(settings, search)
    if importlib.util.find_spec("bm25s") is None:
        # The Lambda layer ships without the laptop's BM25 corpus: the cloud searches the web.
        raise ConfigurationError(
            "no evidence source: put an Anthropic or OpenAI key in the provider keys secret, or set "
            "CLAIMCOURT_SEARXNG_URL (web search), or install claimcourt[local] for the bundled corpus"
        )
    from claimcourt.evidence.corpus import CorpusSource

    return CorpusSource(index_dir=settings.resolved_data_dir() / "index")  # built once, kept beside the runs


def build_collections(settings: Settings, store: Store | None = None) -> Collections | None:
    """The tenants' collections, with the bundled corpus as `climate`: beside a DynamoDB store, in its
    table and bucket (indexes fetched to a cache under /tmp, or the data directory when one is set);
    otherwise in the data directory. None where BM25 is not installed."""
    if importlib.util.find_spec("bm25s") is None:
        return None
    from claimcourt.evidence.corpus import CorpusSource

    if settings.store == "dynamodb":
        from claimcourt.evidence.s3_collections import S3Collections
        from claimcourt.store.dynamodb import DynamoStore

        store = store or build_store(settings)
        if not isinstance(store, DynamoStore):
            raise TypeError(f"no collections beside {type(store).__name__}")
        # A function's only writable place is /tmp; the laptop's DynamoDB mode keeps its data directory.
        cache = settings.data_dir or Path(tempfile.gettempdir()) / "claimcourt"
        return S3Collections(store, cache / "collections-cache", CorpusSource(index_dir=cache / "index"))
    from claimcourt.evidence.collections import LocalCollections

    data = settings.resolved_data_dir()
    return LocalCollections(data / "collections", CorpusSource(index_dir=data / "index"))


def run_evidence(deps: Deps, record: RunRecord) -> EvidenceSource:
    """What a run searches: the document collections it names (its tenant's), else the deployment's
    source (retrieval asks it for the run's own: source_for_run). Loads each collection's index (on a
    stack, downloads it): Retrieve's alone; a stage that only names the source reads evidence_name."""
    if not record.request.corpora:
        return deps.evidence
    from claimcourt.evidence.collections import searched_together

    return searched_together(_collections_of(deps), record.tenant_id, record.request.corpora)


def evidence_name(
    deps: Deps, record: RunRecord, retrievals: Mapping[str, Mapping[str, Any]] | None = None
) -> str:
    """The name of what a run searches, which the prompts read, without loading an index. Once the run
    has retrieved (`retrievals`, its evidence artifacts), the name its latest retrieval recorded: what
    the pool came from, however its collections changed since (one deleted mid-run, a rejudge after).
    Before, its collections' names and versions from their manifests."""
    if not record.request.corpora:
        return deps.evidence.name
    from claimcourt.artifacts import round_of

    recorded = [
        (round_of(key), str(doc["source"])) for key, doc in (retrievals or {}).items() if doc.get("source")
    ]
    if recorded:
        return max(recorded, key=lambda found: found[0])[1]
    from claimcourt.evidence.collections import searched_name

    return searched_name(_collections_of(deps), record.tenant_id, record.request.corpora)


def _collections_of(deps: Deps) -> Collections:
    if deps.collections is None:
        raise ConfigurationError("document collections are not available here: the run names some")
    return deps.collections


def build_idempotency(settings: Settings, store: Store) -> BasePersistenceLayer:
    """Where Powertools keeps a stage's idempotency records: its own DynamoDB layer in the cloud,
    the SQLite file on the laptop."""
    from claimcourt.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from claimcourt.store.idempotency import SqliteIdempotencyLayer

        return SqliteIdempotencyLayer(store)
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    from claimcourt.store.dynamodb import DynamoStore

    if not isinstance(store, DynamoStore):
        raise TypeError(f"no idempotency layer for {type(store).__name__}")
    # The store's client: one DynamoDB client per cold start, not two.
    return DynamoDBPersistenceLayer(table_name=settings.idempotency_table_name, boto3_client=store.client)


class LazyProviders(Mapping[str, Provider]):
    """Providers built at the first model call, not at cold start: a stage that calls no model (score,
    finish) runs whatever the provider settings say, so a misconfigured run still ends, failed with
    the reason. A configuration error also drops the cached settings, so a key put into the secret
    afterwards is read by the next invocation of a warm function."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._built: dict[str, Provider] | None = None
        self._lock = threading.Lock()

    def _providers(self) -> dict[str, Provider]:
        with self._lock:
            if self._built is None:
                self._built = _configured(build_providers, self._settings)
            return self._built

    def __getitem__(self, name: str) -> Provider:
        return self._providers()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._providers())

    def __len__(self) -> int:
        return len(self._providers())


class LazyEvidence:
    """The evidence source, built at the first retrieval (the only stage that searches)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._source: EvidenceSource | None = None
        self._lock = threading.Lock()

    def _built(self) -> EvidenceSource:
        with self._lock:
            if self._source is None:
                self._source = _configured(build_evidence, self._settings)
            return self._source

    @property
    def name(self) -> str:
        return self._built().name

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        return self._built().search(query, limit=limit, as_of=as_of)

    def __getattr__(self, attribute: str) -> Any:  # e.g. web search's last_usage, for billing
        return getattr(self._built(), attribute)


T = TypeVar("T")


def _configured(build: Callable[[Settings], T], settings: Settings) -> T:
    try:
        built: T = build(settings)
    except ConfigurationError:
        forget_configuration()
        raise
    return built


def forget_configuration() -> None:
    """Re-read settings (and the provider keys secret) at the next invocation. Collaborators handed
    in with use_deps (the local runtime, tests) are kept: only what this module built is dropped."""
    global _current
    load_settings.cache_clear()
    with _lock:
        if _built_here:
            _current = None


def build_deps(settings: Settings, store: Store | None = None) -> Deps:
    """`settings` from the environment; beside the laptop's store, with what the console saved under them."""
    from claimcourt.preferences import preferences_for

    store = store or build_store(settings)
    preferences = preferences_for(settings, store)
    if preferences is not None:
        settings = preferences.settings()
    return Deps(
        settings=settings,
        store=store,
        reasoner=_reasoner(settings, store),
        evidence=LazyEvidence(settings),
        preferences=preferences,
        idempotency=build_idempotency(settings, store),
        executor=build_executor(settings),
        rejudger=build_rejudger(settings),
        poster=build_poster(settings),
        publisher=build_publisher(settings, store),
        dead_letters=build_dead_letters(settings),
        collections=build_collections(settings, store),
    )


def _reasoner(settings: Settings, store: Store) -> Reasoner:
    return Reasoner(LazyProviders(settings), settings.route, store, settings.budget_usd)


def use_settings(settings: Settings) -> Deps:
    """Later runs use `settings` (saved from the console): the process's collaborators that follow from
    them are built anew (providers and evidence lazily, at their first use); the store, executor and
    the rest are kept. A stage of a run already going reads them at its next invocation."""
    global _current
    with _lock:
        if _current is None:
            raise ConfigurationError("no collaborators to change: nothing is running here")
        _current = dataclasses.replace(
            _current,
            settings=settings,
            reasoner=_reasoner(settings, _current.store),
            evidence=LazyEvidence(settings),
        )
        return _current


def build_executor(settings: Settings) -> Executor | None:
    if settings.state_machine_arn is None:
        return None
    return StepFunctionsExecutor(
        settings.state_machine_arn, settings.aws_region, settings.motion_state_machine_arn
    )


def build_publisher(settings: Settings, store: Store) -> Publisher | None:
    """The project's EventBridge bus when one is named; on the laptop's SQLite store, a file beside it."""
    if settings.event_bus_name is not None:
        from claimcourt.bus import EventBridgePublisher

        return EventBridgePublisher(settings.event_bus_name, settings.aws_region)
    from claimcourt.store.sqlite import SqliteStore

    if isinstance(store, SqliteStore):
        from claimcourt.bus import FilePublisher

        return FilePublisher(store.path.parent / "events.jsonl")
    return None


def build_dead_letters(settings: Settings) -> DeadLetters | None:
    if settings.dead_letter_queue_url is None:
        return None
    from claimcourt.bus import SqsDeadLetters

    return SqsDeadLetters(settings.dead_letter_queue_url, settings.aws_region)


def build_rejudger(settings: Settings) -> Rejudger | None:
    if settings.rejudge_function_name is None:
        return None
    return LambdaRejudger(settings.rejudge_function_name, settings.aws_region)


def build_poster(settings: Settings) -> Poster | None:
    if settings.websocket_url is None:
        return None
    from claimcourt.delivery import ApiGatewayPoster, management_endpoint

    return ApiGatewayPoster(management_endpoint(settings.websocket_url), settings.aws_region)


_lock = threading.Lock()
_current: Deps | None = None
_built_here = False  # True when _current came from the settings, not from use_deps


def current_deps() -> Deps:
    """The process's collaborators: built on first use (a Lambda cold start), then reused."""
    global _current, _built_here
    with _lock:
        if _current is None:
            _current, _built_here = build_deps(load_settings()), True
        return _current


@contextmanager
def use_deps(deps: Deps) -> Iterator[Deps]:
    """Run handlers with these collaborators (the local runtime and tests)."""
    global _current, _built_here
    with _lock:
        previous, _current = (_current, _built_here), deps
        _built_here = False
    try:
        yield deps
    finally:
        with _lock:
            _current, _built_here = previous
