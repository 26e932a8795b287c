"""Stage handlers invoked directly, as Lambda would: payload in, small summary out, store written."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from claimcourt.errors import NotFoundError, ProviderError, StageInputError, TransientError
from claimcourt.evidence.model_search import SearchUsage
from claimcourt.local.dispatch import LocalContext, load_module
from claimcourt.local.template import load_template, project_root
from claimcourt.models import RunRecord, RunStatus
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import use_deps
from tests.fakes.scripted import ScriptedProvider

TEMPLATE = load_template(project_root())
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def _handler(logical_id: str) -> Handler:
    module: ModuleType = load_module(TEMPLATE.root, TEMPLATE.functions[logical_id])
    handler: Handler = module.handler
    return handler


def _invoke(logical_id: str, event: dict[str, Any]) -> dict[str, Any]:
    return _handler(logical_id)(event, LocalContext(function_name=TEMPLATE.functions[logical_id].name))


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def run(make_deps: Any, provider: ScriptedProvider, new_run: Callable[..., RunRecord]) -> Iterator[RunRecord]:
    """A recorded run, with handlers wired to a scripted provider and golden evidence."""
    with use_deps(make_deps(provider)):
        yield new_run("Sea levels are rising")


def _events(store: SqliteStore, run_id: str, stage: str) -> list[tuple[str, int | None, str | None]]:
    return [(e.type, e.round, e.side) for e in store.list_events(run_id) if e.stage == stage]


def _split_and_retrieve(run_id: str) -> None:
    """What comes before the suitability check: the split and the first round's retrieval."""
    for directive in _invoke("DecomposeFunction", {"run_id": run_id})["directives"]:
        _invoke("RetrieveFunction", {"run_id": run_id, "round": 1, "directive": directive})


def test_suitability_returns_a_small_summary_and_stores_its_artifact(
    run: RunRecord, store: SqliteStore
) -> None:
    _split_and_retrieve(run.run_id)
    summary = _invoke("SuitabilityFunction", {"run_id": run.run_id})
    assert summary == {"proceed": True, "flags": [], "resplit": False, "attempt": 0, "audit_ok": None}
    checked = {"proceed": True, "flags": [], "warnings": [], "audit": None}
    assert store.get_artifact(run.run_id, "suitability") == checked
    assert store.get_artifact(run.run_id, "suitability/a0") == checked
    assert _events(store, run.run_id, "suitability") == [
        ("stage.started", None, None),
        ("stage.completed", None, None),
    ]


def test_completed_event_carries_the_summary_and_timing(run: RunRecord, store: SqliteStore) -> None:
    summary = _invoke("DecomposeFunction", {"run_id": run.run_id})
    [completed] = [e for e in store.list_events(run.run_id) if e.type == "stage.completed"]
    assert completed.data["summary"] == summary
    assert completed.data["elapsed_ms"] >= 0


def test_invoking_a_stage_twice_appends_its_events_once_and_calls_the_model_once(
    run: RunRecord, store: SqliteStore, provider: ScriptedProvider
) -> None:
    # Given a stage that already ran (a Step Functions retry after, say, a lost response)
    _split_and_retrieve(run.run_id)
    first = _invoke("SuitabilityFunction", {"run_id": run.run_id})
    # When it is invoked again with the same payload
    second = _invoke("SuitabilityFunction", {"run_id": run.run_id})
    # Then it answers the same, the model was not asked again, and no event is duplicated
    assert first == second
    assert len(provider.calls_of("suitability")) == 1
    assert len(_events(store, run.run_id, "suitability")) == 2


def test_in_turn_the_second_speaker_cannot_argue_before_the_first(run: RunRecord, store: SqliteStore) -> None:
    # (the state machine orders them: ArgueFirst, then ArgueSecond)
    _invoke("DecomposeFunction", {"run_id": run.run_id})
    with pytest.raises(NotFoundError, match="the for side has not argued yet"):
        _invoke("ArgueFunction", {"run_id": run.run_id, "round": 1, "side": "against", "turn": "second"})
    assert store.find_artifacts(run.run_id, "argument/") == {}


def test_stage_chain_decompose_retrieve_argue(run: RunRecord, store: SqliteStore) -> None:
    decomposed = _invoke("DecomposeFunction", {"run_id": run.run_id})
    assert decomposed == {
        "proceed": True,
        "attempt": 0,
        "directives": [{"sub_claim_id": "sc1", "query": "sea levels rising", "contrarian": False}],
        "sub_claims": 1,
        "max_rounds": 2,
        "samples": [0],  # standard effort: one judgement, no self-consistency samples
        "panel": [],  # no panel of judges
        "order": {"sequential": False, "first": "for", "second": "against"},  # no first speaker: at once
    }

    [directive] = decomposed["directives"]
    retrieved = _invoke("RetrieveFunction", {"run_id": run.run_id, "round": 1, "directive": directive})
    assert retrieved["sub_claim_id"] == "sc1" and retrieved["found"] > 0 and retrieved["cache_hit"] is False
    evidence = store.get_artifact(run.run_id, "evidence/r01/sc1")
    assert evidence["query"] == "sea levels rising" and len(evidence["items"]) == retrieved["found"]
    assert _events(store, run.run_id, "retrieve") == [
        ("stage.started", 1, None),
        ("stage.completed", 1, None),
    ]
    assert all(
        e.data["sub_claim_id"] == "sc1" for e in store.list_events(run.run_id) if e.stage == "retrieve"
    )

    argued = _invoke("ArgueFunction", {"run_id": run.run_id, "round": 1, "side": "for"})
    assert argued["side"] == "for" and argued["refused"] is False
    assert store.get_artifact(run.run_id, "argument/r01/for")["side"] == "for"
    assert _events(store, run.run_id, "argue") == [("stage.started", 1, "for"), ("stage.completed", 1, "for")]
    # every summary stays small: it travels in the state payload
    for summary in (decomposed, retrieved, argued):
        assert len(json.dumps(summary)) < 1024


def test_extra_payload_fields_from_the_state_are_ignored(run: RunRecord) -> None:
    _split_and_retrieve(run.run_id)
    event = {"run_id": run.run_id, "split": {"big": "x" * 100}, "retrieved": []}
    assert _invoke("SuitabilityFunction", event)["proceed"] is True


@pytest.mark.parametrize(
    ("logical_id", "event"),
    [
        ("SuitabilityFunction", {}),
        ("SuitabilityFunction", {"run_id": ""}),
        ("ArgueFunction", {"run_id": "run_x", "round": 1}),
        ("ArgueFunction", {"run_id": "run_x", "round": 1, "side": "neutral"}),
        ("ModerateFunction", {"run_id": "run_x", "round": 0}),
        ("RetrieveFunction", {"run_id": "run_x", "round": 1, "directive": {"query": "q"}}),
        ("FinishFunction", {"run_id": "run_x", "outcome": "succeeded"}),
    ],
)
def test_unreadable_payload_raises_stage_input_error_before_anything_is_written(
    run: RunRecord, store: SqliteStore, logical_id: str, event: dict[str, Any]
) -> None:
    before = store.list_events(run.run_id)
    with pytest.raises(StageInputError):
        _invoke(logical_id, event)
    assert store.list_events(run.run_id) == before
    assert store.list_events("run_x") == []


def test_finish_failed_records_the_reason_without_a_stack_trace(run: RunRecord, store: SqliteStore) -> None:
    cause = json.dumps({"errorType": "ProviderError", "errorMessage": "bad key", "stackTrace": ["  File x"]})
    summary = _invoke(
        "FinishFunction",
        {"run_id": run.run_id, "outcome": "failed", "error": {"Error": "ProviderError", "Cause": cause}},
    )
    assert summary == {
        "run_id": run.run_id,
        "status": "failed",
        "stop_reason": None,
        "error": "ProviderError: bad key",
        "warnings": [],
    }
    record = store.get_run(run.run_id)
    assert (record.status, record.error) == (RunStatus.FAILED, "ProviderError: bad key")
    [failed] = [e for e in store.list_events(run.run_id) if e.type == "run.failed"]
    assert failed.data == {"status": "failed", "error": "ProviderError: bad key"}


def test_finish_failed_with_a_plain_text_cause(run: RunRecord, store: SqliteStore) -> None:
    _invoke(
        "FinishFunction",
        {
            "run_id": run.run_id,
            "outcome": "failed",
            "error": {"Error": "States.Timeout", "Cause": "took too long"},
        },
    )
    assert store.get_run(run.run_id).error == "States.Timeout: took too long"


def test_finish_stopped_records_the_suitability_warnings(
    make_deps: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    with use_deps(make_deps()):  # offline: flags the self-reference
        run = new_run("This statement is false.")
        _split_and_retrieve(run.run_id)
        assert _invoke("SuitabilityFunction", {"run_id": run.run_id})["proceed"] is False
        summary = _invoke("FinishFunction", {"run_id": run.run_id, "outcome": "stopped"})
    record = store.get_run(run.run_id)
    assert record.status is RunStatus.STOPPED
    assert record.warnings and summary["warnings"] == record.warnings


def test_finish_failed_on_an_already_finished_run_does_not_announce_a_failure(
    run: RunRecord, store: SqliteStore
) -> None:
    # Given a run already succeeded (its Score stage stored the result, then failed writing its event)
    store.set_status(run.run_id, RunStatus.SUCCEEDED)
    # When the ASL's Catch sends it to FinishFailed
    _invoke("FinishFunction", {"run_id": run.run_id, "outcome": "failed", "error": {"Error": "ClientError"}})
    # Then the record and the event log must agree
    assert store.get_run(run.run_id).status is RunStatus.SUCCEEDED
    assert not [e for e in store.list_events(run.run_id) if e.type == "run.failed"]


class _BilledSource:
    """A source that calls a model to search, as Anthropic web search does."""

    name = "billed-source"

    def __init__(self) -> None:
        self.searches = 0
        self.last_usage: SearchUsage | None = None
        self.last_search_requests = 0

    def search(self, query: str, *, limit: int, as_of: Any = None) -> list[Any]:
        from claimcourt.evidence.base import Hit

        self.searches += 1
        self.last_usage, self.last_search_requests = SearchUsage("claude-sonnet-4-6", 1000, 100), 2
        return [Hit("Sea levels are rising.", "Sea level", "https://www.noaa.gov/x")]


def test_a_search_is_billed_when_it_runs_and_not_on_a_cache_hit(
    make_deps: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    source = _BilledSource()
    event = {"round": 1, "directive": {"sub_claim_id": "sc1", "query": "sea level rise"}}
    with use_deps(make_deps(evidence=source)):
        first, second = new_run("Sea levels are rising"), new_run("Sea levels are rising")
        _invoke("RetrieveFunction", {"run_id": first.run_id, **event})
        _invoke("RetrieveFunction", {"run_id": second.run_id, **event})  # same directive: cached
    assert source.searches == 1
    # tokens at $3/$15 per Mtok plus two searches at $0.01
    assert store.run_spend(first.run_id) == pytest.approx(0.003 + 0.0015 + 0.02)
    assert store.run_spend(second.run_id) == 0


def test_a_stage_that_raises_leaves_a_failed_event(
    make_deps: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    provider = ScriptedProvider().fail("suitability", ProviderError("bad key"))
    with use_deps(make_deps(provider)):
        run = new_run("Sea levels are rising")
        _split_and_retrieve(run.run_id)
        with pytest.raises(ProviderError):
            _invoke("SuitabilityFunction", {"run_id": run.run_id})
    failed = [e for e in store.list_events(run.run_id) if e.type == "stage.failed"]
    assert [(e.stage, e.data["error"]) for e in failed] == [("suitability", "ProviderError")]


def test_a_retried_task_that_already_completed_gets_the_stored_summary_and_runs_nothing(
    run: RunRecord, store: SqliteStore, provider: ScriptedProvider
) -> None:
    # Given a stage that completed once
    _split_and_retrieve(run.run_id)
    first = _invoke("SuitabilityFunction", {"run_id": run.run_id})
    store._db.execute("DELETE FROM artifacts WHERE run_id=?", (run.run_id,))  # to see whether it runs again
    # When Step Functions retries the same task
    second = _invoke("SuitabilityFunction", {"run_id": run.run_id})
    # Then it gets the same summary back without running: no model call, no artifact, no new event
    assert second == first
    assert len(provider.calls_of("suitability")) == 1
    assert store.find_artifacts(run.run_id, "suitability") == {}
    assert _events(store, run.run_id, "suitability") == [
        ("stage.started", None, None),
        ("stage.completed", None, None),
    ]


def test_a_failed_attempt_does_not_block_its_retry(
    make_deps: Any, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    provider = ScriptedProvider().fail("suitability", TransientError("overloaded"), on_call=1)
    with use_deps(make_deps(provider)):
        run = new_run("Sea levels are rising")
        _split_and_retrieve(run.run_id)
        with pytest.raises(TransientError):
            _invoke("SuitabilityFunction", {"run_id": run.run_id})
        summary = _invoke("SuitabilityFunction", {"run_id": run.run_id})
    assert summary["proceed"] is True
    assert len(provider.calls_of("suitability")) == 2


# What no handler imports when Lambda loads it: each is imported at its first use, if ever. (Powertools
# itself imports botocore's package, 0.3 ms, for its user agent: not its clients.)
HEAVY_AT_USE = (
    "boto3",
    "botocore.client",
    "botocore.session",
    "aws_lambda_powertools.utilities.idempotency",
    "anthropic",
    "openai",
    "bm25s",
    "numpy",
    "trafilatura",
    "lxml",
    "regex",  # the pool-relevance check's words (12 ms), loaded at the first one it reads
    "httpx",
    "moto",
    "yaml",
    "claimcourt.local",
)
COLD_IMPORTS = """
import importlib.util, json, sys
heavy = {heavy!r}
loaded = {{}}
for logical, folder, handler in {functions!r}:
    module, attribute = handler.rsplit(".", 1)
    spec = importlib.util.spec_from_file_location("fn_" + logical, folder + "/" + module + ".py")
    sys.path.insert(0, folder)  # as Lambda puts the function's folder first
    code = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code)
    getattr(code, attribute)
    sys.path.remove(folder)
    loaded[logical] = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
print(json.dumps(loaded))
"""


def test_no_handler_imports_an_sdk_boto3_powertools_idempotency_or_the_laptop_at_cold_start() -> None:
    import subprocess
    import sys

    functions = [
        (logical, str(TEMPLATE.root / spec.code_uri), spec.handler)
        for logical, spec in TEMPLATE.functions.items()
    ]
    probe = COLD_IMPORTS.format(heavy=HEAVY_AT_USE, functions=functions)
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = json.loads(done.stdout)
    assert set(loaded) == set(TEMPLATE.functions)
    assert {logical: modules for logical, modules in loaded.items() if modules} == {}
