"""What `claimcourt motion` shows (the command is in cli.py): one line per vote, statement and map as
it lands, then the vote swing and the judge's report."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape

from claimcourt import artifacts
from claimcourt.debate.refusal import warning as refusal_warning
from claimcourt.local.render import evidence_from
from claimcourt.models import MotionRequest, MotionResult, RunEvent, RunRecord, StopReason
from claimcourt.motions.turns import PHASE_TEXT
from claimcourt.store.base import Store


class Progress:
    """One line on stderr per event worth a line: a tally, a statement, a map."""

    def __init__(self, console: Console, store: Store, run_id: str, request: MotionRequest) -> None:
        self.console, self.store, self.run_id, self.request = console, store, run_id, request
        self.seen = 0
        # A step whose last attempt failed (a retry that then succeeds takes it off): where a run broke.
        self.failed: dict[str, tuple[RunEvent, str]] = {}

    def tick(self) -> None:
        for event in self.store.list_events(self.run_id, after_seq=self.seen):
            self.seen = event.seq
            if event.type == "stage.failed":
                self.failed[_step(event)] = (event, str(event.data.get("error", "an error")))
            elif event.type == "stage.completed":
                self.failed.pop(_step(event), None)
            line = self.line(event)
            if line:
                self.console.print(line, highlight=False)

    def close(self) -> None:
        """Once the run has ended: the steps that failed for good, in red (nothing if none did)."""
        self.tick()
        for event, error in self.failed.values():
            round = f"round {event.round}" if event.round is not None else ""
            where = ", ".join(filter(None, [round, event.side or ""]))
            self.console.print(
                f"[red]✗ {event.stage}{f' ({where})' if where else ''} failed: {error}[/]", highlight=False
            )

    def line(self, event: RunEvent) -> str | None:
        if event.type != "stage.completed":
            return None
        s, r = event.data.get("summary", {}), event.round
        if event.stage == "tally" and r == 0:
            plan = artifacts.plan_of(self.store, self.run_id)
            knob = (
                f"; time knob: the team {plan.minority} gets {plan.allowance[plan.minority].words} words"
                if plan.minority
                else ""
            )
            drawn = " (a tie: drawn)" if plan.tie else ""
            return f"vote zero   {_shares(s)} → the team {plan.first} speaks first{drawn}{knob}"
        if event.stage == "tally":
            return f"  crowd     {_shares(s)} (mean {s.get('mean')})"
        if event.stage == "speak" and r is not None:
            what = (
                "declined to go on"
                if s.get("refused")
                else f"{s.get('words')} words, {s.get('citations')} citations"
            )
            return f"round {r} ({PHASE_TEXT[self.request.phase(r)]}) · {event.side}: {what}"
        if event.stage == "cartograph":
            return f"  judge     {s.get('consensus')} agreed, {s.get('frontier')} disputed"
        return None


def _step(event: RunEvent) -> str:
    """Which step an event is of: its stage and its scope (round, side, a vote's batch, a search's
    directive…), as the handler records both with every attempt's events."""
    scope = {k: v for k, v in event.data.items() if k not in ("error", "elapsed_ms", "summary")}
    return json.dumps([event.stage, event.round, event.side, scope], sort_keys=True, default=str)


def _shares(s: dict[str, Any]) -> str:
    return (
        f"{s.get('for_pct')} % for · {s.get('against_pct')} % against · {s.get('undecided_pct')} % undecided"
    )


def print_result(out: Console, result: MotionResult) -> None:
    z, f = result.vote_zero, result.final_vote
    out.print(f"\n[bold]{result.motion}[/]")
    out.print(f"vote zero  {z.for_pct:g} % for, {z.against_pct:g} % against ({z.voters} voters)")
    out.print(f"final      {f.for_pct:g} % for, {f.against_pct:g} % against")
    out.print(f"swing      for {result.swing['for']:+g} · against {result.swing['against']:+g} points")
    for w in result.warnings:
        out.print(f"[yellow]⚠ {escape(w)}[/]")
    if result.ended_early is not None:
        e = result.ended_early
        out.print(f"[yellow]⚠ {escape(refusal_warning(e))}[/] (its reason: {escape(e.reason)})")
    out.print(f"\n{result.report}")
    out.print(
        f"\n{result.turns} statements, {len(result.citations)} citations, reasoner {result.reasoner}, "
        f"${result.usage.total_cost_usd:.4f}{evidence_from(result.search)} · "
        f"artifacts: claimcourt export {result.run_id}"
    )


def print_stopped(out: Console, record: RunRecord) -> None:
    """A motion the suitability check stopped before its crowd voted: why, and what to do instead."""
    why = (
        "the evidence pool does not speak to it"
        if record.stop_reason is StopReason.ADD_DOCUMENTS
        else "it is not a motion a debate over evidence can serve"
    )
    out.print(f"[bold yellow]Not debated[/] ({record.run_id}): {why}; no vote was taken.")
    for w in record.warnings:
        out.print(f"  • {escape(w)}")
