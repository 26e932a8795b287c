"""The parallelism record: in each round, did the two debaters run at once?

The design runs case for and case against as the two branches of one Parallel state. Whether they
really overlapped is read from what the run itself recorded, the argue stages' stage.started and
stage.completed events (the same times the trace page draws): a deployment that serialises them
(a Lambda concurrency limit of one, a runtime that runs a Parallel state's branches in turn) shows
here as FAIL, however fast each call was. A round argued in turn by design (a first speaker) is
recorded with its times but not gated; a round one side was absent from (the other side's one
counter-argument turn after a refusal) has nothing to compare, and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from claimcourt.models import DebaterSpan, RoundParallelism, RunEvent, Side, Stage

SIDES: tuple[Side, Side] = ("for", "against")


def overlap_share(a: DebaterSpan, b: DebaterSpan) -> float:
    """How long the two spans ran together, as a share of the shorter one (0 when they never met)."""
    shared = (min(a.ended_at, b.ended_at) - max(a.started_at, b.started_at)).total_seconds()
    shorter = min(a.ended_at - a.started_at, b.ended_at - b.started_at).total_seconds()
    if shared <= 0:
        return 0.0
    return 1.0 if shorter <= 0 else min(1.0, shared / shorter)


def record(events: Iterable[RunEvent], in_turn: bool) -> list[RoundParallelism]:
    """Per round with both debaters' argue stages completed: their spans, overlap and gate. A retried
    stage keeps its first start (the started event is appended once) and its one completion."""
    started: dict[tuple[int, Side], datetime] = {}
    ended: dict[tuple[int, Side], datetime] = {}
    one_sided: set[int] = set()
    for e in events:
        if e.stage != Stage.ARGUE or e.round is None or e.side is None:
            continue
        if e.type == "stage.started":
            started.setdefault((e.round, e.side), e.at)
        elif e.type == "stage.completed":
            ended[(e.round, e.side)] = e.at
            if (e.data.get("summary") or {}).get("absent"):
                one_sided.add(e.round)
    rounds = sorted({r for r, _ in ended} - one_sided)
    records = []
    for r in rounds:
        if not all((r, s) in started and (r, s) in ended for s in SIDES):
            continue  # a round cut short: nothing to compare
        spans = [DebaterSpan(side=s, started_at=started[(r, s)], ended_at=ended[(r, s)]) for s in SIDES]
        share = overlap_share(*spans)
        gate = None if in_turn else ("PASS" if share > 0 else "FAIL")
        records.append(RoundParallelism(round=r, in_turn=in_turn, debaters=spans, overlap=share, gate=gate))
    return records
