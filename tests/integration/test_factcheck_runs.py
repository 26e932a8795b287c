"""Cross-examination through the real state machine: the neutral fact-checker after every round,
the citation ledger, and what the judge is shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from claimcourt import artifacts
from claimcourt.adjudication.adjudicate import adjudicate_task
from claimcourt.debate.argue import argue_task
from claimcourt.exports import build_exports
from claimcourt.models import CitationCheck, FactcheckReply, FrontierIssue, ModeratorView, RunEvent, RunRecord
from tests.fakes.scripted import ScriptedProvider

pytestmark = pytest.mark.timeout(120)
WAIT_S = 60


def debate(
    provider: ScriptedProvider, make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord]
) -> Any:
    deps = make_deps(provider)
    run = new_run("Sea levels are rising")
    execution = runtime(deps).execute(run.run_id, timeout_s=WAIT_S)
    assert execution.status == "SUCCEEDED", execution.error
    return deps.store, run.run_id


def test_one_neutral_checker_a_round_checks_both_positions_new_citations_and_nobody_answers(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord]
) -> None:
    provider = ScriptedProvider()  # every role answered as the offline reasoner would, billed
    store, run_id = debate(provider, make_deps, runtime, new_run)
    # Then one fact-check a round ran (in the RoundEnd Parallel), with no side, and made one call
    events: list[RunEvent] = store.list_events(run_id)
    started = sorted(
        (e.round, e.side) for e in events if e.stage == "factcheck" and e.type == "stage.started"
    )
    assert started == [(1, None), (2, None)]
    calls = provider.calls_of("factcheck")
    assert [c.inputs.round for c in calls] == [1]  # type: ignore[attr-defined]  # round 2 cited nothing new
    # and every citation is in the ledger once, keyed in order of appearance
    ledger = artifacts.whole_ledger(store, run_id, None)
    keys = [e.key for e in ledger]
    assert len(keys) == len(set(keys)) > 0
    for side in ("for", "against"):
        numbers = [int(e.key.split("_")[1]) for e in ledger if e.side == side]
        assert numbers == list(range(1, len(numbers) + 1))
    assert artifacts.whole_ledger(store, run_id, None) == ledger  # stable: built again, the same
    # the one call listed every round-1 citation of both sides once, by anonymous position …
    [checked] = calls
    listed = [e.key for e in checked.inputs.to_check]  # type: ignore[attr-defined]
    assert sorted(listed) == sorted(f"{checked.inputs.labels[e.side]}_{e.key.split('_')[1]}" for e in ledger)  # type: ignore[attr-defined]
    assert {e.side for e in ledger} == {"for", "against"}
    # … its checks reached both sides' entries, and nobody answered them
    assert all(e.checked_round == 1 and e.credibility is not None for e in ledger)
    assert all(e.response is None for e in ledger)
    assert set(store.find_artifacts(run_id, "factcheck/")) == {"factcheck/r01", "factcheck/r02"}
    # the closing round (2 of 2) added no citation
    assert [e for e in ledger if e.round == 2] == []
    # and the result carries the ledger
    result = store.get_run(run_id).result
    assert result is not None and result.citations == ledger
    # and the transcript's fact-checks have no column for answers nobody gave
    transcript = build_exports(store, run_id)["transcript_full.md"]
    assert "| citation | source | credibility | correspondence | check |\n" in transcript
    assert "response |" not in transcript


def test_a_citation_that_fails_correspondence_is_shown_to_the_judge_as_failed(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord]
) -> None:
    # Given fact-checkers who find that no cited passage says what the argument says
    def fails_everything(task: Any) -> FactcheckReply:
        return FactcheckReply(
            checks=[
                CitationCheck(
                    key=e.key, credibility=7, correspondence=1, comment="It says nothing of the kind."
                )
                for e in task.inputs.to_check
            ]
        )

    provider = ScriptedProvider().respond("factcheck", fails_everything)
    debate(provider, make_deps, runtime, new_run)
    # Then the judge's input carries the failed checks, by anonymous position
    [judged] = provider.calls_of("adjudicate")
    ledger = judged.inputs.ledger  # type: ignore[attr-defined]
    assert ledger and all(e.correspondence == 1 for e in ledger)
    assert {e.key.split("_")[0] for e in ledger} <= {"A", "B"}
    prompt = adjudicate_task(judged.inputs).prompt  # type: ignore[arg-type]
    assert 'correspondence="1"' in prompt and "It says nothing of the kind." in prompt
    # unlike a debate whose citations hold up
    holding = ScriptedProvider()
    debate(holding, make_deps, runtime, new_run)
    assert any(e.correspondence != 1 for e in holding.calls_of("adjudicate")[0].inputs.ledger)  # type: ignore[attr-defined]


def test_the_moderators_frontier_is_what_the_next_round_argues(
    make_deps: Any, runtime: Any, new_run: Callable[..., RunRecord]
) -> None:
    frontier = FrontierIssue(
        core_issue="whether the rise is accelerating",
        for_stance="it is",
        against_stance="it is not",
        sub_claim_id="sc1",
    )

    def mapped(task: Any) -> ModeratorView:
        return ModeratorView(
            decisive_dispute="acceleration",
            dispute_sub_claim_id="sc1",
            next_query="sea level rise acceleration",
            recommendation="continue",
            provisional_score=60,
            consensus=["Sea level has risen since 1900."],
            disagreement_frontier=[frontier],
        )

    provider = ScriptedProvider().respond("moderate", mapped)
    store, run_id = debate(provider, make_deps, runtime, new_run)
    # Then both sides of round 2 were given the frontier, in their prompt
    round_two = [c for c in provider.calls_of("argue") if c.inputs.round == 2]  # type: ignore[attr-defined]
    assert len(round_two) == 2 and all(c.inputs.frontier == [frontier] for c in round_two)  # type: ignore[attr-defined]
    assert "<frontier>" in argue_task(round_two[0].inputs).prompt  # type: ignore[arg-type]
    # and the round controller recorded the frontier's size
    [first] = [d for d in artifacts.decisions_of(store, run_id) if d.round == 1]
    assert first.signals is not None and first.signals.frontier == 1
