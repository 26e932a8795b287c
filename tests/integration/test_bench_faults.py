"""The fault-injection benchmark: debates against a loopback provider that fails on purpose."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcourt.bench.faults import main, measure

pytestmark = pytest.mark.timeout(120)


def test_debates_survive_a_third_of_requests_failing_and_every_paid_reply_is_counted_once(
    tmp_path: Path,
) -> None:
    # Given a provider that fails about a third of its requests with 529/500/429 or a malformed 200
    outcome = measure(runs=3, fail_share=0.3, sdk_retries=3, seed=7, data_dir=tmp_path)
    # Then every debate succeeded through the SDK's and the state machine's retries
    assert outcome.statuses == {"succeeded": 3}
    assert sum(outcome.tally.failures.values()) > 0
    assert outcome.tally.requests == outcome.tally.replies + sum(outcome.tally.failures.values())
    assert outcome.tally.unscripted == 0
    # and the runs' ledgers record exactly what the provider billed: no paid reply lost or counted twice
    assert outcome.tally.billed_usd > 0
    assert outcome.recorded_usd == pytest.approx(outcome.tally.billed_usd, rel=1e-9)


def test_the_fault_mix_includes_malformed_200_replies_and_debates_survive_them(tmp_path: Path) -> None:
    # Given a provider that fails a third of its requests, some with an empty or cut-off 200 body
    outcome = measure(runs=2, fail_share=0.3, sdk_retries=3, seed=7, data_dir=tmp_path)
    # Then such replies were injected, and every debate still succeeded: they are retried as a 529 is
    malformed = {label: n for label, n in outcome.tally.failures.items() if label.startswith("200 ")}
    assert set(malformed) <= {"200 empty", "200 truncated"} and sum(malformed.values()) > 0
    assert outcome.statuses == {"succeeded": 2}
    assert outcome.recorded_usd == pytest.approx(outcome.tally.billed_usd, rel=1e-9)


def test_runs_that_cannot_get_a_reply_end_failed_not_left_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given a provider that fails every request, and an SDK that does not retry
    main(["--runs", "2", "--fail", "1", "--sdk-retries", "0"])
    out = capsys.readouterr().out
    # Then both runs failed with the transient error once the state machine's retries were spent
    assert "runs: 0 succeeded, 2 failed, 0 stopped, 0 left running" in out, out
    assert "2 × TransientError" in out
    assert "0 replies completed" in out
    assert "cost: recorded $0.0000, actual $0.0000" in out
