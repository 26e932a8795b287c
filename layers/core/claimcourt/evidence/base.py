"""The evidence-source port: a search that returns hits; tiers, ids and caching happen above it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Protocol

from claimcourt.models import Tier


@dataclass(frozen=True)
class Hit:
    text: str
    title: str
    url: str
    published: date | None = None
    # A document collection's passages say where in the document they are, how its owner ranks it,
    # and which collection holds it; other sources leave these unset (the url decides the tier).
    page: int | None = None
    tier: Tier | None = None
    collection: str | None = None


class EvidenceSource(Protocol):
    @property
    def name(self) -> str:
        """Part of the cache key: different sources never share cached results."""
        ...

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        """Up to `limit` hits for `query`; with `as_of`, only what could be known then."""
        ...


def source_for_run(source: EvidenceSource, run_id: str) -> EvidenceSource:
    """What a run searches: the source itself, or, for a source that answers per run (`for_run`: the
    benchmarks' golden evidence, each claim its own gold passages), the run's own."""
    scoped = getattr(source, "for_run", None)
    if not callable(scoped):
        return source
    own: EvidenceSource = scoped(run_id)
    return own
