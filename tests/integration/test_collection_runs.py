"""Runs over document collections through the real state machine: only Retrieve loads (on a stack,
downloads) a collection's index, every other stage names the source from the manifests or from what
the run's retrievals recorded; so a collection deleted after the run's last search is no matter to the
stages after it, nor to a re-judgement of the run."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from claimcourt import artifacts
from claimcourt.evidence.collections import LocalCollections, Searchable
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.evidence.ingest import read_upload
from claimcourt.models import RunEvent, RunRecord, Stage
from claimcourt.stages import adjudicate
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps, evidence_name

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60
Runtime = Callable[[Deps], Any]

REPORT = (
    b"# Eastmouth harbour report 2023\n\nContainer traffic at the Port of Eastmouth rose by 18 percent in "
    b"2023, reaching 1.2 million containers.\n\nThe harbour authority rebuilt the north quay in 2022.\n"
)
CLAIM = "Container traffic at the Port of Eastmouth rose in 2023"


class Watched(LocalCollections):
    """The data directory's collections, noting which stage loaded an index (source)."""

    def __init__(self, root: Path, bundled: CorpusSource | None = None) -> None:
        super().__init__(root, bundled)
        self.loaded_by: list[str] = []

    def source(self, tenant: str, name: str) -> Searchable:
        stage = next(
            (Path(f.filename).stem for f in inspect.stack() if "/claimcourt/stages/" in f.filename), "?"
        )
        self.loaded_by.append(stage)
        return super().source(tenant, name)


@pytest.fixture
def collections(tmp_path: Path) -> Watched:
    library = Watched(tmp_path / "collections", CorpusSource(index_dir=tmp_path / "index"))
    library.create("local", "harbour", "T1")
    library.put("local", "harbour", [read_upload("eastmouth-2023.md", REPORT)])
    return library


def test_only_retrieve_loads_a_collections_index(
    make_deps: Any,
    runtime: Runtime,
    new_run: Callable[..., RunRecord],
    store: SqliteStore,
    collections: Watched,
) -> None:
    run = new_run(CLAIM, corpora=["harbour", "climate"], rounds=2)
    deps = dataclasses.replace(make_deps(), collections=collections)

    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)

    assert execution.status == "SUCCEEDED", execution.error
    retrievals = artifacts.retrievals_of(store, run.run_id)
    assert set(collections.loaded_by) == {"retrieve"}  # no other stage loaded one to read its name
    assert len(collections.loaded_by) == 2 * len(retrievals)  # each search, each of the two
    version = collections.get("local", "harbour").version
    name = f"collections:harbour@{version}+climate-fever-wikipedia"
    assert {doc["source"] for doc in retrievals.values()} == {name}
    assert evidence_name(deps, store.get_run(run.run_id)) == name  # before a search: from the manifests


def test_a_collection_deleted_after_the_runs_last_search_fails_no_later_stage_nor_a_rejudge(
    make_deps: Any,
    runtime: Runtime,
    new_run: Callable[..., RunRecord],
    store: SqliteStore,
    collections: Watched,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = new_run(CLAIM, corpora=["harbour"], rounds=2)
    deps = dataclasses.replace(make_deps(), collections=collections)
    version = collections.get("local", "harbour").version
    append = store.append_event

    def deleting_before_the_last_round(event: RunEvent, key: str) -> RunEvent | None:
        # The moment the last round's arguing starts: its searches are done; argue, moderate, the
        # round's control, adjudicate, score and finish are still to come.
        starting = (event.type, event.stage, event.round) == ("stage.started", Stage.ARGUE, 2)
        if starting and collections.list_collections("local")[1:]:  # (each side's start: delete once)
            collections.delete("local", "harbour")
        return append(event, key)

    monkeypatch.setattr(store, "append_event", deleting_before_the_last_round)

    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)

    assert execution.status == "SUCCEEDED", execution.error
    assert [c.name for c in collections.list_collections("local")] == ["climate"]  # it was deleted
    record = store.get_run(run.run_id)
    assert record.result is not None and record.result.searched == [f"harbour@{version}"]
    # and a re-judgement reads what the judge read, the source's name with it
    inputs, _ = adjudicate.judge_inputs(deps, record)
    assert inputs.relevance is not None
