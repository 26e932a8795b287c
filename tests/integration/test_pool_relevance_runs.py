"""The pool-relevance check through the real state machine (issue 23, item 6): a pool that speaks to
no sub-claim is answered not enough evidence before any debater spends a token; a sub-claim whose
passages do not speak to it is said, to the roles in their prompts and to the user in the result."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from claimcourt import artifacts
from claimcourt.exports import build_exports
from claimcourt.models import RunOutput, RunRecord, RunStatus, StopReason, Verdict
from claimcourt.store.sqlite import SqliteStore
from claimcourt.wiring import Deps
from tests.fakes.scripted import ScriptedProvider

pytestmark = pytest.mark.timeout(120)

WAIT_S = 60
Runtime = Callable[[Deps], Any]
# The tests' evidence is five passages about sea level (tests/conftest.py DEFAULT_HITS) whatever the query.
OFF_TOPIC = "Einstein failed mathematics at school"
ON_TOPIC = "Sea levels are rising"
HALF = f"{ON_TOPIC} and {OFF_TOPIC}"


def test_a_pool_that_speaks_to_no_sub_claim_is_not_debated(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given a claim the pool says nothing about
    provider = ScriptedProvider()
    run = new_run(OFF_TOPIC)
    # When it runs
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    # Then it ends, stopped: not enough evidence, and why, and what to add
    assert execution.status == "SUCCEEDED", execution.error
    assert execution.output is not None
    assert (execution.output["status"], execution.output["stop_reason"]) == ("stopped", "add_documents")
    record = store.get_run(run.run_id)
    assert record.status is RunStatus.STOPPED
    assert (record.stop_reason, record.verdict) == (StopReason.ADD_DOCUMENTS, Verdict.NOT_ENOUGH_EVIDENCE)
    assert record.score is None and record.result is None
    finding, advice = record.warnings[:2]
    assert finding.startswith("Not enough evidence, and not debated") and OFF_TOPIC in finding
    assert "--context" in advice and "--corpus NAME" in advice
    # before any debater spent a token, and before the suitability check: only the decomposer was called
    assert sorted({c.kind for c in provider.calls}) == ["decompose"]
    events = store.list_events(run.run_id)
    assert not [e for e in events if e.stage in ("argue", "moderate", "adjudicate", "score")]
    [measured] = [e for e in events if e.type == "stage.completed" and e.stage == "relevance"]
    [stopped] = [e for e in events if e.type == "run.stopped"]
    assert stopped.data["stop_reason"] == "add_documents"
    assert stopped.data["verdict"] == "not-enough-evidence"
    assert stopped.data["warnings"] == record.warnings
    assert measured.seq < stopped.seq
    # the check's reading is kept, and the run as the API and the CLI's --json give it says the same
    relevance = artifacts.relevance_of(store, run.run_id)
    assert relevance.add_documents and [s.reading for s in relevance.sub_claims] == ["off_topic"]
    shown = RunOutput.of(record).model_dump(mode="json")
    assert (shown["stop_reason"], shown["verdict"]) == ("add_documents", "not-enough-evidence")
    # and the transcript says it was not debated, and why
    transcript = build_exports(store, record.run_id, record)["transcript_full.md"]
    assert "## Not enough evidence: not debated" in transcript
    assert finding.split(" (")[0] in transcript and "## Round" not in transcript


def test_a_sub_claim_the_pool_does_not_speak_to_is_said_to_the_roles_and_the_user(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # Given a claim of two parts, the pool speaking to the first only
    provider = ScriptedProvider()
    run = new_run(HALF)
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    # Then it is debated
    assert execution.status == "SUCCEEDED", execution.error
    record = store.get_run(run.run_id)
    assert record.status is RunStatus.SUCCEEDED and record.stop_reason is None
    result = record.result
    assert result is not None and [s.id for s in result.sub_claims] == ["sc1", "sc2"]
    # and every role that reads the pool was told, beside it, that sc2's passages do not speak to it:
    # suitability, every debater every round, the checkers, the moderator and the judge
    told = [c for c in provider.calls if c.kind != "decompose"]
    assert {c.kind for c in told} == {"suitability", "argue", "factcheck", "moderate", "adjudicate"}
    for call in told:
        [note] = re.findall(r'<pool_relevance round="1">\n(.*?)</pool_relevance>', call.prompt, re.DOTALL)
        assert '<sub_claim id="sc2">' in note and '<sub_claim id="sc1">' not in note
        assert "appear in none of its" in note and '"mathematics"' in note, note
    # and the decomposer, which split the claim before there was a pool, was not
    decomposer = [c for c in provider.calls if c.kind == "decompose"]
    assert decomposer and not [c for c in decomposer if "<pool_relevance round" in c.prompt]
    # and the user is, in the result's warnings and its reading of the pool
    [warning] = [w for w in result.warnings if "does not speak to" in w]
    assert warning.startswith(f'The evidence pool does not speak to sc2 ("{OFF_TOPIC}")')
    assert result.pool_relevance is not None
    assert [s.reading for s in result.pool_relevance.sub_claims] == ["on_topic", "off_topic"]
    assert not result.pool_relevance.add_documents
    # and in the transcript
    assert warning in build_exports(store, record.run_id, record)["transcript_full.md"]


def test_a_pool_that_speaks_to_every_sub_claim_changes_nothing(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    provider = ScriptedProvider()
    run = new_run(ON_TOPIC)
    execution = runtime(make_deps(provider)).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    result = store.get_run(run.run_id).result
    assert result is not None and result.pool_relevance is not None
    assert [s.reading for s in result.pool_relevance.sub_claims] == ["on_topic"]
    assert not [w for w in result.warnings if "does not speak to" in w]
    assert not [c for c in provider.calls if "<pool_relevance>\n" in c.prompt]


def test_the_users_context_can_be_all_the_pool_needs(
    make_deps: Any, runtime: Runtime, new_run: Callable[..., RunRecord], store: SqliteStore
) -> None:
    # The retrieved passages are about sea level, but the user's own material speaks to the claim.
    context = "Einstein's school records show he failed no mathematics exam; he excelled at it."
    run = new_run(OFF_TOPIC, context=context)
    execution = runtime(make_deps()).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    record = store.get_run(run.run_id)
    assert record.status is RunStatus.SUCCEEDED
    assert record.result is not None and record.result.pool_relevance is not None
    assert record.result.pool_relevance.sub_claims[0].closest_evidence_id is not None
    assert record.result.pool_relevance.sub_claims[0].closest_evidence_id.startswith("U")
