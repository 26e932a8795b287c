"""The embedded default's store: one SQLite file in WAL mode (`database.py`), one module per
capability of the Store port, and `SqliteStore`, which is all of them over one file."""

from __future__ import annotations

from claimcourt.store.sqlite.admission import SqliteAdmission
from claimcourt.store.sqlite.artifacts import SqliteArtifacts
from claimcourt.store.sqlite.benchmarks import SqliteBenchmarks
from claimcourt.store.sqlite.cache import SqliteCache
from claimcourt.store.sqlite.calls import SqliteCalls
from claimcourt.store.sqlite.claims import SqliteClaims
from claimcourt.store.sqlite.connections import SqliteConnections
from claimcourt.store.sqlite.database import SCHEMA_VERSION, SqliteDatabase
from claimcourt.store.sqlite.events import SqliteEvents
from claimcourt.store.sqlite.keys import SqliteKeys
from claimcourt.store.sqlite.monitors import SqliteMonitors
from claimcourt.store.sqlite.runs import SqliteRuns
from claimcourt.store.sqlite.saved import SqliteSaved

__all__ = ["SCHEMA_VERSION", "SqliteDatabase", "SqliteStore"]


class SqliteStore(
    SqliteRuns,
    SqliteEvents,
    SqliteArtifacts,
    SqliteCalls,
    SqliteCache,
    SqliteClaims,
    SqliteKeys,
    SqliteAdmission,
    SqliteMonitors,
    SqliteConnections,
    SqliteSaved,
    SqliteBenchmarks,
):
    """Every capability over one file: `SqliteStore(path)` opens (or makes) it."""
