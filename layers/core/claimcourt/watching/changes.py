"""When a monitored claim's live score has moved far enough to say so (claim.score_changed)."""

from __future__ import annotations

from claimcourt.models import RunRecord, ScoreChanged, ScorePoint
from claimcourt.store.base import Store

SCORE_CHANGED = "claim.score_changed"


def score_change(store: Store, record: RunRecord) -> ScoreChanged | None:
    """The change this succeeded run made to its claim's live score, if it is at least the threshold
    of one of the tenant's monitors of that claim. Backtests ("as of" a past date) form the same
    series but never raise it: they say what the score was, not that it moved."""
    if record.score is None or record.interval is None or record.request.as_of_date is not None:
        return None
    monitors = store.monitors_of_claim(record.tenant_id, record.claim_id)
    if not monitors:
        return None
    live = [p for p in store.drift_series(record.tenant_id, record.claim_id) if p.as_of_date is None]
    mine = next((p for p in live if p.run_id == record.run_id), None)
    if mine is None:
        return None
    before = [p for p in live if p.run_id != record.run_id and (p.at, p.run_id) < (mine.at, mine.run_id)]
    if not before:
        return None  # the first live score: the baseline later runs move from
    last = max(before, key=lambda p: (p.at, p.run_id))
    change = mine.score - last.score
    crossed = [m.monitor_id for m in monitors if abs(change) >= m.request.threshold]
    if not crossed:
        return None
    return ScoreChanged(
        tenant_id=record.tenant_id,
        claim_id=record.claim_id,
        claim=record.request.claim,
        run_id=record.run_id,
        old=ScorePoint(run_id=last.run_id, at=last.at, score=last.score, interval=last.interval),
        new=ScorePoint(run_id=mine.run_id, at=mine.at, score=mine.score, interval=mine.interval),
        change=change,
        monitor_ids=crossed,
    )
