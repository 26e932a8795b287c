"""Shared fixtures: a tmp SQLite store, settings, a Deps factory and a LocalRuntime helper."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import pytest

from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.golden import GoldenSource
from claimcourt.models import RunRecord
from claimcourt.reasoning.base import Provider
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run, parse_request
from claimcourt.settings import Settings
from claimcourt.store.idempotency import SqliteIdempotencyLayer
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps
from tests.fakes.scripted import PRICED_MODEL

# Provider keys and CLAIMCOURT_* knobs from the developer's shell must not steer a test.
_ENV = (
    "CLAIMCOURT_STORE",
    "CLAIMCOURT_TABLE_NAME",
    "CLAIMCOURT_CACHE_TABLE_NAME",
    "CLAIMCOURT_IDEMPOTENCY_TABLE_NAME",
    "CLAIMCOURT_ARTIFACTS_BUCKET",
    "CLAIMCOURT_AWS_REGION",
    "CLAIMCOURT_DYNAMODB_ENDPOINT_URL",
    "CLAIMCOURT_S3_ENDPOINT_URL",
    "CLAIMCOURT_PROVIDER_KEYS_SECRET",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GEMINI_BASE_URL",
    "XAI_API_KEY",
    "XAI_BASE_URL",
    "CLAIMCOURT_GEMINI_MODEL",
    "CLAIMCOURT_XAI_MODEL",
    "CLAIMCOURT_PROVIDER",
    "CLAIMCOURT_MODELS_BY_ROLE",
    "CLAIMCOURT_BUDGET_USD",
    "CLAIMCOURT_DATA_DIR",
    "CLAIMCOURT_WEB_SEARCH",
    "CLAIMCOURT_SEARCH",
    "CLAIMCOURT_SEARXNG_URL",
    "CLAIMCOURT_FETCH_PRIVATE_PAGES",
    "CLAIMCOURT_PAGE_TIMEOUT_S",
    "CLAIMCOURT_MAX_PAGE_BYTES",
    "CLAIMCOURT_OFFLINE_READER",
    "CLAIMCOURT_CLAIMREVIEW_URL",
    "CLAIMCOURT_CLAIMREVIEW_AUTHOR",
    "CLAIMCOURT_CLAIMREVIEW_AUTHOR_URL",
)

# A handful of passages about sea level: one T1 (.gov), the rest T2; some dated.
GOV_HIT = Hit(
    text="Global sea levels are rising: the global mean has risen about 21 to 24 centimeters since 1880.",
    title="Climate Change: Global Sea Level",
    url="https://www.climate.gov/news-features/understanding-climate/climate-change-global-sea-level",
    published=date(2022, 4, 19),
)
WIKI_HIT = Hit(
    text="Sea levels are rising because warming oceans expand and glaciers and ice sheets melt.",
    title="Sea level rise",
    url="https://en.wikipedia.org/wiki/Sea_level_rise",
)
BLOG_HIT = Hit(
    text="Sea levels are not rising, says a sceptic reading old tide gauge records.",
    title="A sceptic's blog",
    url="https://sceptic-blog.example.net/sea-levels",
    published=date(2019, 6, 1),
)
LATE_HIT = Hit(
    text="In 2024 satellites measured global sea levels rising faster than in any year on record.",
    title="Sea level rise in 2024",
    url="https://news.example.com/2024/sea-level",
    published=date(2024, 3, 1),
)
WARMING_HIT = Hit(
    text="Global warming is caused by greenhouse gas emissions from human activity.",
    title="Global warming",
    url="https://en.wikipedia.org/wiki/Global_warming",
)
DEFAULT_HITS: tuple[Hit, ...] = (GOV_HIT, WIKI_HIT, BLOG_HIT, LATE_HIT, WARMING_HIT)


@pytest.fixture(autouse=True, scope="session")
def _moto_handles_one_request_at_a_time() -> Iterator[None]:
    """moto's DynamoDB and S3 are not safe to call from many threads at once, and the runtime's
    Parallel branches do (see aws_resources.one_request_at_a_time)."""
    from tests.contract.aws_resources import one_request_at_a_time

    with one_request_at_a_time():
        yield


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No provider key or CLAIMCOURT_* variable of the shell reaches Settings."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")  # moto's region; boto3 resolves it from here


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    s = SqliteStore(tmp_path / "claimcourt.sqlite3")
    yield s
    s.close()


@pytest.fixture
def settings(clean_env: None, tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path)


def golden(hits: Sequence[Hit] = DEFAULT_HITS) -> GoldenSource:
    return GoldenSource(hits)


class MakeDeps(Protocol):
    def __call__(
        self,
        *providers: Provider,
        route: Callable[[str], tuple[str, str]] | None = None,
        evidence: EvidenceSource | None = None,
        budget_usd: float = 1.0,
    ) -> Deps: ...


@pytest.fixture
def make_deps(store: SqliteStore, settings: Settings) -> MakeDeps:
    """Deps over the tmp store and settings. Every role goes to the first provider given (with a
    priced model), else to the offline reasoner; evidence defaults to GoldenSource over DEFAULT_HITS."""

    def make(
        *providers: Provider,
        route: Callable[[str], tuple[str, str]] | None = None,
        evidence: EvidenceSource | None = None,
        budget_usd: float = 1.0,
    ) -> Deps:
        registry: dict[str, Provider] = {"offline": OfflineReasoner()}
        registry.update({p.name: p for p in providers})
        target = (providers[0].name, PRICED_MODEL) if providers else ("offline", "offline")
        reasoner = Reasoner(registry, route or (lambda role: target), store, budget_usd)
        return Deps(
            settings=settings,
            store=store,
            reasoner=reasoner,
            evidence=evidence or golden(),
            idempotency=SqliteIdempotencyLayer(store),
        )

    return make


@pytest.fixture
def new_run(store: SqliteStore) -> Callable[..., RunRecord]:
    """`new_run(claim, **request)`: a run recorded as the API records one (running, run.created)."""

    def make(claim: str = "Sea levels are rising", **request: Any) -> RunRecord:
        return create_run(store, parse_request({"claim": claim, **request}))

    return make


@pytest.fixture
def runtime() -> Iterator[Callable[[Deps], Any]]:
    """`runtime(deps)` enters a LocalRuntime (moto + in-process dispatch) for the rest of the test."""
    from claimcourt.local.runtime import LocalRuntime

    with ExitStack() as stack:

        def enter(deps: Deps) -> LocalRuntime:
            return stack.enter_context(LocalRuntime(deps))

        yield enter
