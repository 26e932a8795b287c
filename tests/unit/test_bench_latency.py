"""The latency bench's critical path: the sequential LLM calls of a run, as the state machine orders
them (parallel branches count once)."""

from __future__ import annotations

from claimcourt.bench.latency import Call, critical_calls


def _call(kind: str, label: str = "", round_: int | None = None) -> Call:
    return Call(kind, label, round_, 0.0, 0.0)


def test_a_round_is_argue_then_fact_checks_then_moderate_each_parallel_pair_counted_once() -> None:
    calls = [_call("suitability"), _call("decompose"), _call("decompose_check")]
    for round_ in (1, 2):
        calls += [_call("argue", "for", round_), _call("argue", "against", round_)]
        calls += [_call("factcheck", "for", round_), _call("factcheck", "against", round_)]
    calls += [_call("moderate"), _call("adjudicate")]
    # decompose + its check (suitability beside them), 2 × (argue, fact-checks), moderate, the judge
    assert critical_calls(calls) == 2 + 2 * 2 + 1 + 1


def test_a_round_whose_checkers_had_nothing_to_check_adds_no_fact_check() -> None:
    calls = [_call("decompose"), _call("argue", "for", 1), _call("argue", "against", 1)]
    calls += [_call("factcheck", "against", 2), _call("argue", "for", 2), _call("argue", "against", 2)]
    assert critical_calls(calls) == 1 + 2 + 1
