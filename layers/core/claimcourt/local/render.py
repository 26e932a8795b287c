"""What the CLI shows: live stage progress while a run executes, then a readable verdict."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.console import Console, Group
from rich.live import Live
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from claimcourt.debate.refusal import warning as refusal_warning
from claimcourt.exports import adjustment_numbers, debate_line
from claimcourt.models import (
    Panel,
    Result,
    RoundDecision,
    RubricVerdict,
    RunEvent,
    RunRecord,
    RunStatus,
    Stage,
    StopReason,
    Verdict,
)
from claimcourt.rejudge import StoredJudgement
from claimcourt.store.base import Store

# Each stage's line (a re-split's decompose, retrieve, relevance and suitability join the first's).
STEP_TITLE = {
    Stage.DECOMPOSE: "decompose",
    Stage.SUITABILITY: "suitability (and the split's audit)",
    Stage.RETRIEVE: "retrieve",
    Stage.RELEVANCE: "pool relevance",
    Stage.ARGUE: "argue",
    Stage.MODERATE: "moderate",
    Stage.CONTROL: "round controller",
    Stage.ADJUDICATE: "adjudicate (anonymized)",
    Stage.SCORE: "score",
    Stage.FINISH: "finish",
}
# What served a run's evidence (its result's `search`), as the CLI says it.
EVIDENCE_FROM = {
    "anthropic": "Anthropic web search",
    "openai": "OpenAI web search",
    "searxng": "SearXNG web search",
    "none": "no web search",
}


def evidence_from(search: str | None) -> str:
    """' · evidence: …' for a result that records its search ('' for one from before)."""
    return f" · evidence: {EVIDENCE_FROM[search]}" if search in EVIDENCE_FROM else ""


VERDICT_STYLE = {
    Verdict.SUPPORTED: "bold green",
    Verdict.REFUTED: "bold red",
    Verdict.CONFLICTING: "bold yellow",
    Verdict.NOT_ENOUGH_EVIDENCE: "bold blue",
}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


@dataclass
class _Step:
    title: str
    round: int | None
    running: dict[str, float] = field(default_factory=dict)  # part → start (monotonic)
    done: dict[str, float] = field(default_factory=dict)  # part → elapsed seconds
    failed: set[str] = field(default_factory=set)  # parts whose last attempt raised
    first_start: float = 0.0
    last_end: float = 0.0

    @property
    def finished(self) -> bool:
        return not self.running and (bool(self.done) or bool(self.failed))


class ProgressView:
    """Follows a run's event log and shows each step: what runs now, parallel parts joined by ∥,
    elapsed time. On a terminal it redraws in place; elsewhere it prints one line per finished step."""

    def __init__(
        self, console: Console, store: Store, record: RunRecord, reasoner: str, evidence: str
    ) -> None:
        self.console = console
        self.store = store
        self.record = record
        self.reasoner = reasoner
        self.evidence = evidence
        self.steps: dict[tuple[str, int | None], _Step] = {}
        self.seq = 0
        self.started = time.monotonic()
        self._live: Live | None = None
        self._printed: set[tuple[str, int | None]] = set()
        self._last_refresh = 0.0

    def __enter__(self) -> ProgressView:
        reasoner = "offline reasoner (no model)" if self.reasoner == "offline" else f"models: {self.reasoner}"
        self.console.print(
            f"[bold]claimcourt[/] · {self.record.run_id} · {escape(reasoner)} · "
            f"evidence: {escape(self.evidence)}\n[dim]claim:[/] {escape(self.record.request.claim)}"
        )
        if self.console.is_terminal:
            self._live = Live(self._table(), console=self.console, refresh_per_second=12, transient=False)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.refresh(force=True)
        if self._live is not None:
            self._live.__exit__(None, None, None)

    def refresh(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_refresh < 0.05:
            return
        self._last_refresh = now
        for event in self.store.list_events(self.record.run_id, after_seq=self.seq):
            self.seq = event.seq
            self._apply(event, now)
        if self._live is not None:
            self._live.update(self._table())
        else:
            self._print_finished()

    def _apply(self, event: RunEvent, now: float) -> None:
        if event.stage is None:
            return
        key = (event.stage, event.round)
        step = self.steps.setdefault(key, _Step(STEP_TITLE.get(event.stage, event.stage), event.round))
        sample, judge = event.data.get("sample"), event.data.get("judge")
        part = event.side or str(event.data.get("sub_claim_id") or (f"sample {sample}" if sample else ""))
        if judge is not None:  # a panel's judge: one of several at once
            part = f"judge {judge + 1}"
        if event.type == "stage.started":
            step.running[part] = now
            step.first_start = step.first_start or now
        elif event.type == "stage.completed":
            step.running.pop(part, None)
            step.failed.discard(part)  # a retry that succeeded
            step.done[part] = float(event.data.get("elapsed_ms", 0)) / 1000
            step.last_end = now
        elif event.type == "stage.failed":
            step.running.pop(part, None)
            step.failed.add(part)
            step.last_end = now

    def _line(self, step: _Step, now: float) -> tuple[Text, str, str, str]:
        parts = [p for p in [*step.done, *step.running] if p]
        # In turn (--first), the sides argue one after the other: in the order they spoke.
        beside = " → " if step.title == STEP_TITLE[Stage.ARGUE] and self.record.request.first else " ∥ "
        joined = beside.join(parts) if len(parts) > 1 else (parts[0] if parts else "")
        span = (step.last_end if step.finished else now) - step.first_start
        if not step.finished:
            mark = Text(SPINNER[int(now * 10) % len(SPINNER)], "cyan")
        elif step.failed:  # its last attempt raised and nothing retried it: where the run broke
            mark = Text("✗", style="bold red")
        else:
            mark = Text("✓", style="green")
        round_label = f"round {step.round}" if step.round else ""
        title = f"[red]{step.title}[/]" if step.finished and step.failed else step.title
        return mark, round_label, f"{title}  [dim]{escape(joined)}[/]", f"{span:5.2f}s"

    def _table(self) -> Group:
        now = time.monotonic()
        table = Table.grid(padding=(0, 2))
        for _ in range(4):
            table.add_column()
        for step in self.steps.values():
            table.add_row(*self._line(step, now))
        return Group(table, Text(f"elapsed {now - self.started:.1f}s", style="dim"))

    def _print_finished(self) -> None:
        now = time.monotonic()
        for key, step in self.steps.items():
            if step.finished and key not in self._printed:
                self._printed.add(key)
                mark, round_label, title, span = self._line(step, now)
                self.console.print(f"  {mark.markup} {round_label:8} {title}  {span}")


def score_bar(score: int, low: int, high: int, width: int = 50) -> Text:
    """0–100 on `width` cells: the interval drawn thick, the score as a dot."""
    bar = Text()
    marker = round(score * width / 100)
    for cell in range(width + 1):
        value = cell * 100 / width
        if cell == marker:
            bar.append("●", style="bold")
        elif low <= value <= high:
            bar.append("━", style="cyan")
        else:
            bar.append("─", style="dim")
    return bar


def render_record(console: Console, record: RunRecord) -> None:
    if record.status is RunStatus.FAILED:
        console.print(f"[bold red]Run failed[/] ({record.run_id}): {escape(record.error or 'unknown error')}")
        return
    if record.status is RunStatus.STOPPED:
        if record.stop_reason is StopReason.ADD_DOCUMENTS:
            console.print(
                f"[bold blue]Not enough evidence[/] ({record.run_id}): the evidence pool does not speak to "
                "the claim, so it was not debated."
            )
        else:
            console.print(
                f"[bold yellow]Not debated[/] ({record.run_id}): the claim is not one a debate can settle."
            )
        for w in record.warnings:
            console.print(f"  • {escape(w)}")
        return
    if record.status is RunStatus.RUNNING or record.result is None:
        console.print(f"Run {record.run_id} is still running.")
        return
    render_result(console, record.result)


def render_result(console: Console, r: Result) -> None:
    verdict = Text(r.overall_verdict.value.upper(), style=VERDICT_STYLE[r.overall_verdict])
    console.print()
    console.print(Text.assemble(("Claim  ", "bold"), r.claim))
    headline = Text.assemble(
        ("Score  ", "bold"),
        (f"{r.overall_score}", "bold"),
        f" / 100   interval {r.interval.low}–{r.interval.high} ({r.interval_method.replace('_', ' ')})   ",
        ("verdict ", "bold"),
        verdict,
    )
    if r.mode == "verdict":
        headline = Text.assemble(("Verdict  ", "bold"), verdict, f"   score {r.overall_score} / 100")
    console.print(headline)
    console.print(
        Text.assemble("       0 ", score_bar(r.overall_score, r.interval.low, r.interval.high), " 100")
    )
    if r.judge_score is not None and r.adjustments:
        console.print(
            f"[dim]The judge said {_judge_said(r)}; the scoring contract (docs/scoring.md) adjusted:[/]"
        )
        for a in r.adjustments:
            moved = adjustment_numbers(a)
            console.print(f"[dim]  • {escape(a.target)}: {escape(a.kind)}{moved}: {escape(a.detail)}[/]")
    if r.reasoner == "offline":
        console.print("[dim]Produced by the offline reasoner: no language model was used.[/]")
    console.print(f"[dim]{escape(debate_line(r))}[/]")
    if r.panel is not None:
        render_panel(console, r.panel)
    if r.rubric is not None:
        render_rubric(console, r.rubric)
    ended = r.ended_early
    for w in r.warnings:
        # A refusal's warning with its reason, as a motion's is shown (local/motion_cli.py)
        why = f" (its reason: {escape(ended.reason)})" if ended and w == refusal_warning(ended) else ""
        console.print(f"[yellow]⚠ {escape(w)}[/]{why}")

    console.print("\n[bold]Sub-claims[/]")
    for s in r.sub_claims:
        style = VERDICT_STYLE[s.verdict]
        stronger = f"  [dim](stronger: {s.stronger_side})[/]" if s.stronger_side else ""
        console.print(
            f" [bold]{s.id}[/] [{style}]{s.verdict.value}[/] {s.score}/100  {escape(s.text)}{stronger}"
        )
        console.print(f"    [green]for[/]      {escape(s.case_for)}")
        console.print(f"    [red]against[/]  {escape(s.case_against)}")
        console.print(f"    [cyan]referee[/]  {escape(s.referee_synthesis)}")
        if s.decisive_source:
            d = s.decisive_source
            console.print(
                f"    [bold]decisive[/] [{d.tier}] {escape(d.title)}{_page(d.page)} — {d.source_url}"
            )

    if r.decisive_source:
        d = r.decisive_source
        console.print(
            f"\n[bold]Decisive source[/]  [{d.tier}] {escape(d.title)}{_page(d.page)} — {d.source_url}"
        )
    if r.what_would_change:
        console.print("\n[bold]What would change this score[/]")
        for item in r.what_would_change:
            # A lead stored before directions were has no arrow: a bullet keeps the list's shape.
            console.print(f"  {'' if item.direction else '• '}{escape(item.line())}")
    if r.sources:
        console.print("\n[bold]Sources[/] (T1 primary first)")
        for src in r.sources:
            dated = f", {src.published.isoformat()}" if src.published else ""
            console.print(
                f"  [{src.tier}] {escape(src.title)}{_page(src.page)}{dated} — {src.source_url}  "
                f"[dim]{src.evidence_id}[/]"
            )
    u = r.usage
    if r.natural_temperature:
        console.print(f"\n[dim]At the model's natural temperature: {', '.join(r.natural_temperature)}.[/]")
    if r.searched:
        console.print(f"\n[dim]evidence searched: {escape(', '.join(r.searched))}[/]")
    # The run id ends the output: a script reads it as the last word
    console.print(
        f"{'' if r.searched else chr(10)}[dim]{r.rounds} rounds · {u.llm_calls} LLM calls · "
        f"{u.input_tokens + u.output_tokens} tokens · ${u.total_cost_usd:.4f}{evidence_from(r.search)} · "
        f"retrieval cache {u.cache_hits} hits / {u.cache_misses} misses · {r.run_id}[/]"
    )


def _page(page: int | None) -> str:
    return f", p. {page}" if page is not None else ""


def _judge_said(r: Result) -> str:
    own = f" (80 % interval {r.judge_interval.low}–{r.judge_interval.high})" if r.judge_interval else ""
    if r.rubric is None:
        return f"{r.judge_score}{own}"
    rating = "null (needs more evidence)" if r.rubric.rating is None else f"{r.rubric.rating} of 10"
    return f"{rating}, read as {r.judge_score}{own}"


def render_panel(console: Console, panel: Panel) -> None:
    """A panel's judges, each with its score as if it alone had judged; the one that speaks marked."""
    spread = "" if panel.spread is None else f"; spread {panel.spread}, sd {panel.sd:g}"
    speaker = panel.judges[panel.speaks].judge
    console.print(
        f"[bold]Panel of judges[/] ({escape(speaker)} speaks for the run: {escape(panel.rule)}{spread})"
    )
    table = Table(show_edge=False, header_style="bold", box=None)
    for col in ("", "judge", "model", "score", "verdict", "judge said", "cost", "note"):
        table.add_column(col, no_wrap=col != "note")
    for n, j in enumerate(panel.judges):
        score = "–" if j.score is None else str(j.score)
        if j.interval is not None:
            score += f" ({j.interval.low}–{j.interval.high})"
        table.add_row(
            "▸" if n == panel.speaks else "",
            escape(j.judge),
            escape(j.model) + (" rubric" if j.kind == "rubric" else ""),
            score,
            j.verdict.value if j.verdict else "–",
            _signal(j.judge_score),
            f"${j.cost_usd:.4f}" + ("" if j.price_known else " (price unknown)"),
            escape(j.error or ""),
        )
    console.print(table)


def render_rubric(console: Console, rubric: RubricVerdict) -> None:
    """Where the rubric judge put each side's arguments on the disagreement hierarchy."""
    console.print("[bold]Disagreement hierarchy[/] (the rubric judge, on each side's arguments)")
    for h in rubric.hierarchy:
        level = h.name or "no argument"
        console.print(f"  {h.side:8} {h.sub_claim_id}: {escape(level)}  [dim]{escape(h.comment)}[/]")


def render_runs(console: Console, records: list[RunRecord]) -> None:
    if not records:
        console.print('No runs yet. Try: claimcourt run "Sea levels are rising"')
        return
    table = Table(show_edge=False, header_style="bold")
    for col in ("run", "started (UTC)", "status", "score", "verdict", "source", "claim"):
        table.add_column(col, no_wrap=col != "claim")
    for rec in records:
        score = ""
        if rec.score is not None and rec.interval is not None:
            score = f"{rec.score} ({rec.interval.low}–{rec.interval.high})"
        claim = rec.request.claim if len(rec.request.claim) <= 60 else rec.request.claim[:59] + "…"
        table.add_row(
            rec.run_id,
            rec.created_at.strftime("%Y-%m-%d %H:%M"),
            rec.status.value,
            score,
            rec.verdict.value if rec.verdict else "",
            rec.source_tag.value,
            escape(claim),
        )
    console.print(table)


def render_judgements(console: Console, judged: list[StoredJudgement]) -> None:
    """A run's judgements, its own first: who judged, by which prompt, the score it implies, the cost."""
    table = Table(show_edge=False, header_style="bold")
    for col in (
        "judgement",
        "status",
        "judge",
        "model",
        "prompt",
        "score",
        "verdict",
        "judge said",
        "cost",
        "note",
    ):
        table.add_column(col, no_wrap=col != "note")
    for j in judged:
        score = "" if j.score is None else str(j.score)
        if j.interval is not None:
            score += f" ({j.interval.low}–{j.interval.high})"
        cost = f"${j.cost_usd:.4f}" + ("" if j.price_known else " (price unknown)")
        table.add_row(
            j.id,
            j.status,
            j.judge,
            escape(j.model),
            j.prompt_version or "–",
            score or "–",
            j.verdict.value if j.verdict else "–",
            _signal(j.judge_score),
            cost,
            escape(j.error or ""),
        )
    console.print(table)
    for j in judged:  # a motion debate's judgements are reports: each, with the vote it ends on
        if j.judge != "cartographer" or j.report is None:
            continue
        vote = j.final_vote
        voted = (
            f" · final vote {vote.for_pct:g} % for, {vote.against_pct:g} % against"
            + (f" (crowd again; swing for {j.swing['for']:+g})" if j.crowd and j.swing else "")
            if vote
            else ""
        )
        console.print(f"\n[bold]{escape(j.id)}[/] {escape(j.model)}{voted}")
        console.print(escape(j.report))


def _signal(value: float | int | None, fmt: str = "{}") -> str:
    return "–" if value is None else fmt.format(value)


def render_decisions(console: Console, decisions: list[RoundDecision]) -> None:
    """The round controller's decision after each round, with what it measured."""
    if not decisions:
        console.print("No round decisions (the run stopped before its first round ended).")
        return
    mode = decisions[-1].mode
    beside = ": the controller's own decision beside the run's" if mode == "shadow" else ""
    console.print(f"[bold]Rounds[/] (round controller {mode}{beside})")
    table = Table(show_edge=False, header_style="bold")
    columns = ["round", "action", "rule"]
    if mode == "shadow":
        columns += ["controller", "its rule"]
    columns += ["similar for/against", "shift", "gap", "new ev.", "new pts", "moderator", "persona next"]
    for col in columns:
        table.add_column(col, no_wrap=col not in ("rule", "its rule"))
    for d in decisions:
        s = d.signals
        measured = (
            [
                f"{_signal(s.similarity_for, '{:.2f}')}/{_signal(s.similarity_against, '{:.2f}')}",
                _signal(s.score_shift),
                _signal(s.score_gap),
                str(s.new_evidence),
                str(s.new_points),
                s.moderator,
            ]
            if s is not None
            else ["–"] * 6
        )
        shadow = [d.controller_action.value if d.controller_action else "–", escape(d.controller_rule)]
        table.add_row(
            str(d.round),
            d.action.value,
            escape(d.rule),
            *(shadow if mode == "shadow" else []),
            *measured,
            escape(d.persona_name),
        )
    console.print(table)
