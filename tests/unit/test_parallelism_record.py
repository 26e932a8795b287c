"""debate/parallelism.py: the overlap of two debaters' spans, and the record read from stage events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from claimcourt.debate.parallelism import overlap_share, record
from claimcourt.models import DebaterSpan, RunEvent, Side, Stage

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def span(side: Side, start_ms: int, end_ms: int) -> DebaterSpan:
    return DebaterSpan(
        side=side,
        started_at=T0 + timedelta(milliseconds=start_ms),
        ended_at=T0 + timedelta(milliseconds=end_ms),
    )


def test_overlap_is_a_share_of_the_shorter_span() -> None:
    assert overlap_share(span("for", 0, 100), span("against", 50, 250)) == 0.5  # 50 of the shorter 100
    assert overlap_share(span("for", 0, 100), span("against", 10, 60)) == 1.0  # one inside the other
    assert overlap_share(span("for", 0, 100), span("against", 100, 200)) == 0.0  # touching is not overlapping
    assert overlap_share(span("for", 200, 300), span("against", 0, 100)) == 0.0


def event(type: str, side: Side, round: int, at_ms: int) -> RunEvent:
    return RunEvent(
        run_id="r",
        type=type,
        stage=Stage.ARGUE,
        round=round,
        side=side,
        at=T0 + timedelta(milliseconds=at_ms),
    )


def test_record_reads_each_round_from_the_argue_events_and_skips_a_round_cut_short() -> None:
    events = [
        event("stage.started", "for", 1, 0),
        event("stage.started", "against", 1, 5),
        event("stage.failed", "against", 1, 20),  # a retried attempt keeps its first start
        event("stage.completed", "for", 1, 100),
        event("stage.completed", "against", 1, 205),
        event("stage.started", "for", 2, 300),
        event("stage.completed", "for", 2, 400),
        event("stage.started", "against", 2, 400),
        event("stage.completed", "against", 2, 500),
        event("stage.started", "for", 3, 600),  # never completed
        RunEvent(run_id="r", type="stage.completed", stage=Stage.MODERATE, round=1, at=T0),
    ]
    first, second = record(events, in_turn=False)
    assert (first.round, first.gate, first.overlap) == (1, "PASS", 0.95)
    assert [d.started_at for d in first.debaters] == [T0, T0 + timedelta(milliseconds=5)]
    assert (second.round, second.gate, second.overlap) == (2, "FAIL", 0.0)
    (in_turn, _) = record(events, in_turn=True)
    assert in_turn.gate is None and in_turn.in_turn is True
