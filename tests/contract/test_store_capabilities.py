"""The Store port is split by capability: each adapter provides every capability, each in a module
of its own over the adapter's shared handle, and what a module needs it names by its capability (the
artifact readers need only artifacts)."""

from __future__ import annotations

import inspect

import pytest

from claimcourt import artifacts
from claimcourt.store import base
from claimcourt.store.dynamodb import DynamoStore, DynamoTables
from claimcourt.store.sqlite import SqliteDatabase, SqliteStore

CAPABILITIES = [
    base.RunStore,
    base.EventLog,
    base.ArtifactStore,
    base.CallLedger,
    base.RetrievalCacheStore,
    base.ClaimStore,
    base.KeyStore,
    base.AdmissionStore,
    base.MonitorStore,
    base.ConnectionStore,
    base.BenchmarkStore,
]
# The console's saved settings and keys: the laptop's store only (a stack's are its template's).
LAPTOP_ONLY = [base.SavedSettingsStore]


def _methods(protocol: type) -> set[str]:
    return {n for n, v in vars(protocol).items() if inspect.isfunction(v) and not n.startswith("_")}


def test_the_store_is_exactly_its_capabilities_and_each_method_has_one_home() -> None:
    methods = [m for c in CAPABILITIES for m in _methods(c)]
    assert len(methods) == len(set(methods))
    assert set(methods) == {m for c in base.Store.__mro__ if c in CAPABILITIES for m in _methods(c)}


@pytest.mark.parametrize("adapter", [SqliteStore, DynamoStore])
@pytest.mark.parametrize("capability", CAPABILITIES, ids=lambda c: c.__name__)
def test_each_adapter_provides_each_capability_with_its_signatures(adapter: type, capability: type) -> None:
    for name in _methods(capability):
        wanted = inspect.signature(getattr(capability, name))
        given = inspect.signature(getattr(adapter, name))
        assert list(given.parameters) == list(wanted.parameters), f"{adapter.__name__}.{name}"


def test_the_artifact_readers_ask_only_for_artifacts() -> None:
    for name, fn in inspect.getmembers(artifacts, inspect.isfunction):
        if fn.__module__ == artifacts.__name__ and "store" in inspect.signature(fn).parameters:
            assert inspect.signature(fn).parameters["store"].annotation == "ArtifactStore", name


# ---------------------------------------------------------------- each adapter split alike


@pytest.mark.parametrize(
    ("adapter", "handle"),
    [(SqliteStore, SqliteDatabase), (DynamoStore, DynamoTables)],
    ids=["sqlite", "dynamodb"],
)
def test_each_adapter_is_one_class_a_capability_over_one_shared_handle(adapter: type, handle: type) -> None:
    parts = adapter.__bases__
    wanted = CAPABILITIES + (LAPTOP_ONLY if adapter is SqliteStore else [])
    provided = [next(c for c in wanted if c in part.__bases__) for part in parts]
    assert sorted(c.__name__ for c in provided) == sorted(c.__name__ for c in wanted)
    for part, capability in zip(parts, provided, strict=True):
        # in a module of its own, over the shared handle, and its public methods are its capability's
        assert part.__bases__ == (handle, capability), part.__name__
        assert part.__module__ == f"{adapter.__module__}.{part.__module__.rsplit('.', 1)[1]}"
        own = {n for n, v in vars(part).items() if inspect.isfunction(v) and not n.startswith("_")}
        assert own == _methods(capability), part.__name__
    assert len({part.__module__ for part in parts}) == len(parts)
    own = {n for n, v in vars(adapter).items() if inspect.isfunction(v) and not n.startswith("__")}
    assert not own  # the store adds nothing to its parts
