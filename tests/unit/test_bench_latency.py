"""The latency bench's critical path: the sequential LLM calls of a run, as the state machine orders
them (parallel branches count once)."""

from __future__ import annotations

import pytest

from claimcourt.bench.latency import Call, critical_path


def critical_calls(calls: list[Call]) -> int:
    """Sequential LLM calls on the run's longest path: each counted as lasting 1."""
    return round(critical_path(calls, duration=lambda c: 1.0))


def _call(kind: str, label: str = "", round_: int | None = None) -> Call:
    return Call(kind, label, round_, 0.0, 0.0)


def test_a_round_is_argue_then_fact_checks_beside_the_moderator_each_parallel_set_counted_once() -> None:
    calls = [_call("decompose"), _call("suitability")]
    for round_ in (1, 2):
        calls += [_call("argue", "for", round_), _call("argue", "against", round_)]
        calls += [_call("factcheck", "for", round_), _call("factcheck", "against", round_)]
    calls += [_call("moderate", round_=1), _call("adjudicate")]
    # decompose, then suitability (with the split's audit) after retrieval, 2 × (argue, fact-checks ∥
    # moderate), the judge: seven sequential calls
    assert critical_calls(calls) == 2 + 2 * 2 + 1 == 7
    # a re-split: decompose and suitability once more, nine
    assert critical_calls([_call("decompose"), _call("suitability"), *calls]) == 9


def test_a_round_whose_checkers_had_nothing_to_check_adds_no_fact_check() -> None:
    calls = [_call("decompose"), _call("argue", "for", 1), _call("argue", "against", 1)]
    calls += [_call("factcheck", "against", 2), _call("argue", "for", 2), _call("argue", "against", 2)]
    assert critical_calls(calls) == 1 + 2 + 1


def test_the_critical_path_lasts_as_long_as_its_calls_did_the_longer_of_each_parallel_pair() -> None:
    def timed(kind: str, start: float, end: float, label: str = "", round_: int | None = None) -> Call:
        return Call(kind, label, round_, start, end)

    calls = [timed("decompose", 0.0, 0.10), timed("suitability", 0.12, 0.30)]
    calls += [timed("argue", 0.3, 0.40, "for", 1), timed("argue", 0.3, 0.45, "against", 1)]
    calls += [timed("factcheck", 0.5, 0.52, "for", 1), timed("factcheck", 0.5, 0.51, "against", 1)]
    calls += [timed("moderate", 0.5, 0.55, round_=1), timed("adjudicate", 0.7, 0.80)]
    calls += [timed("adjudicate", 0.7, 0.76)]
    # decompose (0.10) then suitability (0.18); then 0.15 + max(0.02, 0.05) + 0.10
    assert critical_path(calls) == pytest.approx(0.10 + 0.18 + 0.15 + 0.05 + 0.10)
    assert critical_calls(calls) == 2 + 1 + 1 + 1  # counted, decompose and suitability are two
