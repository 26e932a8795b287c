"""Build a stage's collaborators once per cold start from validated settings.

Provider SDKs and the BM25 corpus are imported only when the settings select them, so a handler
that never talks to OpenAI never pays for importing it.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from claimcourt.errors import ConfigurationError
from claimcourt.evidence.base import EvidenceSource
from claimcourt.pipeline import Deps
from claimcourt.reasoning.base import Provider
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.settings import ROLES, Settings, load_settings
from claimcourt.store.base import Store

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer


def build_store(settings: Settings) -> Store:
    if settings.store == "dynamodb":
        from claimcourt.store.dynamodb import DynamoStore  # imports boto3: only when selected

        return DynamoStore(
            settings.table_name,
            settings.cache_table_name,
            settings.artifacts_bucket,
            region=settings.aws_region,
            endpoint_url=settings.dynamodb_endpoint_url,
            s3_endpoint_url=settings.s3_endpoint_url,
        )
    from claimcourt.store.sqlite import SqliteStore

    return SqliteStore(settings.resolved_data_dir() / "claimcourt.sqlite3")


def build_providers(settings: Settings) -> dict[str, Provider]:
    providers: dict[str, Provider] = {"offline": OfflineReasoner()}
    used = {settings.route(role)[0] for role in ROLES}
    if "anthropic" in used and settings.anthropic_api_key is not None:
        from claimcourt.reasoning.anthropic_provider import AnthropicProvider

        providers["anthropic"] = AnthropicProvider(
            api_key=settings.anthropic_api_key.get_secret_value(),
            base_url=settings.anthropic_base_url,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
            max_output_tokens=settings.max_output_tokens,
        )
    if "openai" in used:
        from claimcourt.reasoning.openai_provider import OpenAIProvider

        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        providers["openai"] = OpenAIProvider(
            api_key=key,
            base_url=settings.openai_base_url,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
            max_output_tokens=settings.max_output_tokens,
        )
    return providers


def build_evidence(settings: Settings) -> EvidenceSource:
    uses_anthropic = any(settings.route(role)[0] == "anthropic" for role in ROLES)
    if settings.web_search and uses_anthropic and settings.anthropic_api_key is not None:
        from claimcourt.evidence.web_search import AnthropicWebSearch

        return AnthropicWebSearch(
            api_key=settings.anthropic_api_key.get_secret_value(),
            base_url=settings.anthropic_base_url,
            model=settings.anthropic_model,
            max_retries=settings.provider_max_retries,
            timeout=settings.provider_timeout_s,
        )
    if importlib.util.find_spec("bm25s") is None:
        # The Lambda layer ships without the laptop's BM25 corpus: the cloud searches the web.
        raise ConfigurationError(
            "no evidence source: put an Anthropic key in the provider keys secret (web search), "
            "or install claimcourt[local] for the bundled corpus"
        )
    from claimcourt.evidence.corpus import CorpusSource

    return CorpusSource()


def build_idempotency(settings: Settings, store: Store) -> BasePersistenceLayer:
    """Where Powertools keeps a stage's idempotency records: its own DynamoDB layer in the cloud,
    the SQLite file on the laptop."""
    if settings.store == "dynamodb":
        import boto3
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        client = boto3.client(
            "dynamodb", region_name=settings.aws_region, endpoint_url=settings.dynamodb_endpoint_url
        )
        return DynamoDBPersistenceLayer(table_name=settings.idempotency_table_name, boto3_client=client)
    from claimcourt.store.idempotency import SqliteIdempotencyLayer
    from claimcourt.store.sqlite import SqliteStore

    if not isinstance(store, SqliteStore):
        raise TypeError("the SQLite idempotency layer needs the SQLite store")
    return SqliteIdempotencyLayer(store)


def build_deps(settings: Settings, store: Store | None = None) -> Deps:
    store = store or build_store(settings)
    reasoner = Reasoner(build_providers(settings), settings.route, store, settings.budget_usd)
    return Deps(
        settings=settings,
        store=store,
        reasoner=reasoner,
        evidence=build_evidence(settings),
        idempotency=build_idempotency(settings, store),
    )


_lock = threading.Lock()
_current: Deps | None = None


def current_deps() -> Deps:
    """The process's collaborators: built on first use (a Lambda cold start), then reused."""
    global _current
    with _lock:
        if _current is None:
            _current = build_deps(load_settings())
        return _current


@contextmanager
def use_deps(deps: Deps) -> Iterator[Deps]:
    """Run handlers with these collaborators (the local runtime and tests)."""
    global _current
    with _lock:
        previous, _current = _current, deps
    try:
        yield deps
    finally:
        with _lock:
            _current = previous
