"""`claimcourt experiments`: the stored experiment debates (source tag `experiment`), as rows a
researcher filters, summarises per cell and exports (CSV, JSONL).

A row joins the run record (claim, status, verdict, score, error, warnings, dates) with its
`experiment` artifact (suite, cell, rounds, order, topic, ground truth, models): the bookkeeping lives
in that artifact, so nothing here is stored twice.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from claimcourt.bench.suite import EXPERIMENT, Debate, outcome_of
from claimcourt.errors import NotFoundError
from claimcourt.models import RunRecord, SourceTag
from claimcourt.store.base import Store


@dataclass(frozen=True)
class Row:
    run_id: str
    created_at: str
    status: str
    kind: str
    claim: str
    suite: str
    cell: str
    rounds: int | None
    first: str  # for | against | "" (both at once)
    topic: str
    verdict: str
    score: int | None
    truth_verdict: str
    truth_score: int | None
    correct: bool | None  # verdict = the truth's (None: no verdict, or no ground-truth verdict)
    models: dict[str, str] = field(default_factory=dict)  # role → provider:model
    error: str = ""
    warnings: list[str] = field(default_factory=list)


def row_of(record: RunRecord, tag: dict[str, Any]) -> Row:
    truth = tag.get("truth") or {}
    verdict = record.verdict.value if record.verdict else ""
    models = dict(tag.get("models") or {})
    for role, key in (("case_for", "for_model"), ("case_against", "against_model")):
        if tag.get(key):
            models.setdefault(role, tag[key])
    rounds = tag.get("rounds") or (record.result.rounds if record.result else record.request.rounds)
    first = tag.get("first", record.request.first or "")
    return Row(
        run_id=record.run_id,
        created_at=record.created_at.isoformat(),
        status=record.status.value,
        kind="motion" if record.motion else "claim",
        claim=record.motion.motion if record.motion else record.request.claim,
        suite=str(tag.get("suite", "")),
        cell=str(tag.get("cell", "")),
        rounds=rounds,
        first=first or "",
        topic=str(tag.get("topic") or truth.get("topic") or ""),
        verdict=verdict,
        score=record.score,
        truth_verdict=str(truth.get("verdict") or ""),
        truth_score=truth.get("score"),
        correct=(verdict == truth["verdict"]) if verdict and truth.get("verdict") else None,
        models=models,
        error=record.error or "",
        warnings=list(record.warnings),
    )


def load(store: Store, tenant: str) -> list[Row]:
    """Every experiment debate of the tenant, newest first (all pages)."""
    rows, cursor = [], None
    while True:
        page = store.list_runs(tenant, 100, cursor=cursor, source=SourceTag.EXPERIMENT)
        for record in page.runs:
            try:
                tag = store.get_artifact(record.run_id, EXPERIMENT)
            except NotFoundError:  # stored before its tag was (a crash between the two): still listed
                tag = {}
            rows.append(row_of(record, tag))
        if not page.next_cursor:
            return rows
        cursor = page.next_cursor


@dataclass(frozen=True)
class Filters:
    topic: str | None = None
    verdict: str | None = None
    truth: str | None = None
    model: str | None = None
    role: str | None = None  # with model: the model in this role; alone: any row with the role set
    rounds: int | None = None
    first: str | None = None
    min_score: int | None = None
    max_score: int | None = None
    since: datetime | None = None
    until: datetime | None = None

    def keep(self, row: Row) -> bool:
        if self.topic is not None and row.topic != self.topic:
            return False
        if self.verdict is not None and row.verdict != self.verdict:
            return False
        if self.truth is not None and row.truth_verdict != self.truth:
            return False
        if self.model is not None:
            roles = [self.role] if self.role else list(row.models)
            if not any(row.models.get(r) == self.model for r in roles):
                return False
        elif self.role is not None and self.role not in row.models:
            return False
        if self.rounds is not None and row.rounds != self.rounds:
            return False
        if self.first is not None and row.first != self.first:
            return False
        if (self.min_score is not None or self.max_score is not None) and row.score is None:
            return False
        if self.min_score is not None and row.score is not None and row.score < self.min_score:
            return False
        if self.max_score is not None and row.score is not None and row.score > self.max_score:
            return False
        created = datetime.fromisoformat(row.created_at)
        if self.since is not None and created < _aware(self.since):
            return False
        return not (self.until is not None and created > _aware(self.until))


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def select(rows: Iterable[Row], filters: Filters) -> list[Row]:
    return [r for r in rows if filters.keep(r)]


@dataclass(frozen=True)
class CellStats:
    cell: str
    rounds: int | None
    first: str
    n: int
    failed: int
    mean_score: float | None
    sd_score: float | None
    correct: int
    judged: int


def stats(rows: list[Row]) -> list[CellStats]:
    """Per (cell, rounds, order): how many, how many failed, the score's mean and spread, accuracy."""
    groups: dict[tuple[str, int | None, str], list[Row]] = {}
    for r in rows:
        groups.setdefault((r.cell, r.rounds, r.first), []).append(r)
    out = []
    for (cell, rounds, first), mine in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0, kv[0][2])
    ):
        scores = [r.score for r in mine if r.score is not None]
        judged = [r for r in mine if r.correct is not None]
        out.append(
            CellStats(
                cell=cell,
                rounds=rounds,
                first=first,
                n=len(mine),
                failed=sum(r.status != "succeeded" for r in mine),
                mean_score=round(statistics.mean(scores), 1) if scores else None,
                sd_score=round(statistics.stdev(scores), 1) if len(scores) > 1 else None,
                correct=sum(bool(r.correct) for r in judged),
                judged=len(judged),
            )
        )
    return out


CSV_FIELDS = [f for f in Row.__dataclass_fields__ if f not in ("models", "warnings")] + ["models", "warnings"]


def write_csv(rows: list[Row], path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        w.writeheader()
        for r in rows:
            doc = asdict(r)
            # Nested fields as JSON in their cell, so a spreadsheet keeps one row per debate.
            doc["models"], doc["warnings"] = json.dumps(r.models), json.dumps(r.warnings)
            w.writerow(doc)
    return path


def write_jsonl(rows: list[Row], path: Path) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(asdict(r)) + "\n")
    return path


def as_debates(store: Store, rows: list[Row]) -> list[Debate]:
    """The stored debates of these rows as `suite` records them, outcome and all, for its plots."""
    debates = []
    for r in rows:
        record = store.get_run(r.run_id)
        truth = {"verdict": r.truth_verdict or None, "score": r.truth_score, "topic": r.topic or None}
        debates.append(
            Debate(
                r.kind,
                r.claim,
                r.cell,
                r.rounds or 0,
                r.run_id,
                r.status,
                1,
                truth,
                outcome_of(store, record),
                r.first,
            )
        )
    return debates
