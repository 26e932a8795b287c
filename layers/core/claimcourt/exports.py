"""A run's four artifacts, for people to read, audit and chart:

- `transcript_full.md`: the whole debate for publishing: claim, sub-claims, each round's arguments
  with their citation keys linked to their sources, the fact-check exchanges, the moderator's map,
  the verdict with its decisive source and what would change it;
- `citation_ledger.json`: every citation with its verification (schema: docs/schemas/);
- `debate_logic_map.json`: consensus and the disagreement frontier, round by round;
- `score_trajectory.csv`: one row per (round, role, sub-claim): each side's implied scores, the
  moderator's provisional score, the judge's final scores — it charts directly.

Built from the run's stored artifacts (deterministic), and stored with the run when it is scored
(`export/<name>`, S3 over the item limit like every artifact).
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from claimcourt import artifacts, motion_artifacts
from claimcourt.debate.argue import opposite
from claimcourt.debate.citations import CITATION_MARKER
from claimcourt.errors import NotFoundError
from claimcourt.models import (
    Adjustment,
    Argument,
    Evidence,
    FrontierIssue,
    LedgerEntry,
    MotionMap,
    MotionResult,
    Panel,
    Result,
    RoundAction,
    RunRecord,
    RunStatus,
    StopReason,
    Suitability,
    VoteTally,
)
from claimcourt.motions.turns import PHASE_TEXT
from claimcourt.store.base import Store

MEDIA_TYPES = {
    "transcript_full.md": "text/markdown; charset=utf-8",
    "citation_ledger.json": "application/json",
    "debate_logic_map.json": "application/json",
    "score_trajectory.csv": "text/csv; charset=utf-8",
    # a motion debate's, beside the four (the seed spec's: claimcourt/motion_artifacts.py)
    "history_chat.json": "application/json",
    "crowd_opinion.json": "application/json",
    "voter_sentiment_graph.csv": "text/csv; charset=utf-8",
}
CLAIM_ARTIFACTS = (
    "transcript_full.md",
    "citation_ledger.json",
    "debate_logic_map.json",
    "score_trajectory.csv",
)
MOTION_ARTIFACTS = (*CLAIM_ARTIFACTS, "history_chat.json", "crowd_opinion.json", "voter_sentiment_graph.csv")
EXPORT_PREFIX = "export/"


class CitationLedger(BaseModel):
    """citation_ledger.json"""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    claim: str
    citations: list[LedgerEntry]


class RoundMap(BaseModel):
    model_config = ConfigDict(extra="forbid")
    round: int
    consensus: list[str]
    disagreement_frontier: list[FrontierIssue]
    action: RoundAction | None = None
    rule: str = ""


class DebateLogicMap(BaseModel):
    """debate_logic_map.json"""

    model_config = ConfigDict(extra="forbid")
    run_id: str
    claim: str
    rounds: list[RoundMap]


SCHEMAS: dict[str, type[BaseModel]] = {
    "citation_ledger.json": CitationLedger,
    "debate_logic_map.json": DebateLogicMap,
}


def stored_export(store: Store, run_id: str, name: str) -> str | None:
    """The artifact as stored when the run was scored, if the run still stands as it did then."""
    try:
        doc = store.get_artifact(run_id, EXPORT_PREFIX + name)
    except NotFoundError:  # not stored (a run not scored, or from before exports): built on demand
        return None
    return str(doc["content"]) if doc.get("status") == store.get_run(run_id).status.value else None


def save_exports(store: Store, record: RunRecord, pool: list[Evidence] | None = None) -> None:
    """Store the four artifacts of `record` (the run as it is about to be recorded); `pool`, the
    run's evidence, if the caller has read it already."""
    for name, content in build_exports(store, record.run_id, record, pool).items():
        doc = {"media_type": MEDIA_TYPES[name], "content": content, "status": record.status.value}
        store.put_artifact(record.run_id, EXPORT_PREFIX + name, doc)


def artifact_names(record: RunRecord) -> tuple[str, ...]:
    """The artifacts this run has: a claim run's four; a motion debate's seven."""
    return MOTION_ARTIFACTS if record.motion is not None else CLAIM_ARTIFACTS


def export(store: Store, run_id: str, name: str) -> str:
    """One artifact: as stored with the run, else built now. KeyError: not one this run has."""
    if name not in artifact_names(store.get_run(run_id)):
        raise KeyError(name)
    return stored_export(store, run_id, name) or build_exports(store, run_id)[name]


def build_exports(
    store: Store, run_id: str, record: RunRecord | None = None, pool: list[Evidence] | None = None
) -> dict[str, str]:
    record = record or store.get_run(run_id)
    if record.motion is not None:
        return motion_exports(store, record)
    arguments = artifacts.arguments_of(store, run_id)
    if pool is None:
        pool = artifacts.evidence_pool(artifacts.retrievals_of(store, run_id), record.request.context)
    if record.result is not None and record.result.citations:
        ledger = record.result.citations  # a scored run carries its ledger
    else:
        ledger = artifacts.ledger_of(store, run_id, arguments, pool)
    rounds = sorted({a.round for a in arguments})
    views = {r: artifacts.moderation_of(store, run_id, r)[1] for r in rounds}
    decisions = {d.round: d for d in artifacts.decisions_of(store, run_id)}
    maps = []
    for r in rounds:
        view, decision = views[r], decisions.get(r)
        maps.append(
            RoundMap(
                round=r,
                consensus=view.consensus if view is not None else [],
                disagreement_frontier=view.disagreement_frontier if view is not None else [],
                action=decision.action if decision is not None else None,
                rule=decision.rule if decision is not None else "",
            )
        )
    logic = DebateLogicMap(run_id=run_id, claim=record.request.claim, rounds=maps)
    cited = CitationLedger(run_id=run_id, claim=record.request.claim, citations=ledger)
    screened = _suitability(store, run_id) if record.status == RunStatus.STOPPED else None
    return {
        "transcript_full.md": transcript(record, arguments, ledger, logic, pool, screened),
        "citation_ledger.json": cited.model_dump_json(indent=2),
        "debate_logic_map.json": logic.model_dump_json(indent=2),
        "score_trajectory.csv": trajectory(record, arguments, logic, views),
    }


def _suitability(store: Store, run_id: str) -> Suitability | None:
    try:
        return artifacts.suitability_of(store, run_id)
    except NotFoundError:  # stopped before the check's artifact was stored: the run's warnings still say why
        return None


def trajectory(
    record: RunRecord, arguments: list[Argument], logic: DebateLogicMap, views: dict[int, Any]
) -> str:
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(["round", "role", "sub_claim_id", "score", "confidence", "interval_low", "interval_high"])
    for a in arguments:
        for p in a.points:
            rows.writerow([a.round, a.side, p.sub_claim_id, p.implied_score, f"{p.confidence:.2f}", "", ""])
    for r in logic.rounds:
        view = views.get(r.round)
        if view is not None:
            rows.writerow([r.round, "moderator", "claim", view.provisional_score, "", "", ""])
    result = record.result
    if result is not None:
        final = result.rounds
        # the judge's own numbers (judge_said), then the scoring contract's (judge): both charted
        for s in result.sub_claims:
            if s.judge_score is not None:
                rows.writerow([final, "judge_said", s.id, s.judge_score, "", "", ""])
        if result.judge_score is not None:
            said = result.judge_interval
            rows.writerow(
                [
                    final,
                    "judge_said",
                    "claim",
                    result.judge_score,
                    "",
                    *((said.low, said.high) if said else ("", "")),
                ]
            )
        for s in result.sub_claims:
            rows.writerow([final, "judge", s.id, s.score, "", "", ""])
        rows.writerow(
            [final, "judge", "claim", result.overall_score, "", result.interval.low, result.interval.high]
        )
    return out.getvalue()


def _judge_said(result: Result) -> str:
    said = str(result.judge_score)
    if result.judge_interval is not None:
        said += f", 80 % interval {result.judge_interval.low}–{result.judge_interval.high}"
    return said


def adjustment_numbers(a: Adjustment) -> str:
    """An adjustment's numbers: an interval's bounds, else a score's value."""
    if a.before_interval is not None and a.after_interval is not None:
        before, after = a.before_interval, a.after_interval
        return f" {before.low}–{before.high} → {after.low}–{after.high}"
    return f" {a.before} → {a.after}" if a.before is not None and a.after is not None else ""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _linked(text: str, keys: Mapping[str, LedgerEntry], pool: Mapping[str, Evidence]) -> str:
    """Evidence ids in a text as links to their sources: named by their ledger key where the speaker
    cited them, else (the judge's references, a passage named but not cited) by the id, from the pool."""

    def link(match: re.Match[str]) -> str:
        cited, found = keys.get(match.group(1)), pool.get(match.group(1))
        if cited is not None:
            return f"[{cited.key}]({cited.source_url})"
        return f"[{match.group(1)}]({found.source_url})" if found is not None else match.group(0)

    return CITATION_MARKER.sub(link, text)


def panel_table(panel: Panel) -> list[str]:
    """A panel's judges as a Markdown table, the one that speaks for the run in bold."""
    spread = "" if panel.spread is None else f"; spread {panel.spread}, sd {panel.sd:g}"
    lines = [
        "",
        f"Panel of judges ({_cell(panel.judges[panel.speaks].judge)} speaks for the run: {_cell(panel.rule)}"
        f"{spread}):",
        "",
        "| judge | model | score | interval | verdict | judge said | cost | note |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n, j in enumerate(panel.judges):
        name = f"**{_cell(j.judge)}** (speaks)" if n == panel.speaks else _cell(j.judge)
        cells = [
            name,
            _cell(j.model) + (" rubric" if j.kind == "rubric" else ""),
            "–" if j.score is None else str(j.score),
            "–" if j.interval is None else f"{j.interval.low}–{j.interval.high}",
            j.verdict.value if j.verdict else "–",
            "–" if j.judge_score is None else str(j.judge_score),
            f"${j.cost_usd:.4f}",
            _cell(j.error or ""),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def debate_line(r: Result) -> str:
    """How the debate was run: its rounds, its order, its judge (and the rubric judge's own rating)."""
    rounds = f"{r.rounds} round{'s' * (r.rounds != 1)}" + (
        " (as asked)" if r.rounds_fixed is not None else ""
    )
    order = "both sides at once" if r.first is None else f"{r.first} first, {opposite(r.first)} answering"
    judge: str = r.judge
    if r.panel is not None:
        speaker = r.panel.judges[r.panel.speaks].judge
        judge = f"{speaker} ({r.judge}), the median of a panel of {len(r.panel.judges)}"
    if r.rubric is not None:
        said = "null" if r.rubric.rating is None else f"{r.rubric.rating} of 10"
        judge += f", rating the claim {said} ({r.rubric.reading})"
    return f"Debate: {rounds}, {order}; judge: {judge}."


def transcript(
    record: RunRecord,
    arguments: list[Argument],
    ledger: list[LedgerEntry],
    logic: DebateLogicMap,
    pool: list[Evidence],
    screened: Suitability | None = None,
) -> str:
    """`screened`: the suitability check's reply, for a run it stopped."""
    request, result = record.request, record.result
    by_id = {e.id: e for e in pool}
    lines = [f"# {_cell(request.claim)}", ""]
    lines.append(f"Run `{record.run_id}` · {record.status.value} · {record.created_at:%Y-%m-%d %H:%M} UTC")
    if record.status == RunStatus.STOPPED:
        lines += stopped_section(record, screened)
        if not arguments and not ledger:  # nothing was debated: no rounds, no empty ledger
            return "\n".join(lines) + "\n"
    if result is not None:
        lines += [
            "",
            "## Verdict",
            "",
            f"**{result.overall_verdict.value}** — {result.overall_score} of 100 "
            f"(80 % interval {result.interval.low}–{result.interval.high}; "
            f"the judge said {_judge_said(result)}), reasoner: {result.reasoner}.",
            "",
            debate_line(result),
        ]
        if result.panel is not None:
            lines += panel_table(result.panel)
        if result.searched:
            lines += ["", f"Evidence searched: {', '.join(result.searched)}."]
        if result.warnings:
            lines += ["", "Warnings:", ""] + [f"- {_cell(w)}" for w in result.warnings]
        if result.adjustments:
            lines += ["", "What the scoring contract changed (docs/scoring.md):", ""] + [
                f"- {_cell(a.target)}: {a.kind.replace('_', ' ')}{adjustment_numbers(a)}: {_cell(a.detail)}"
                for a in result.adjustments
            ]
        if result.decisive_source is not None:
            d = result.decisive_source
            lines += ["", f"Decisive source: [{_cell(d.title)}]({d.source_url}) ({d.tier}{_page(d.page)})"]
        if result.what_would_change:
            lines += ["", "What would change this score:", ""] + [
                f"- {_linked(_cell(w.line()), {}, by_id)}" for w in result.what_would_change
            ]
        lines += ["", "## Sub-claims", ""]
        for s in result.sub_claims:
            lines.append(f"- **{s.id}** {_cell(s.text)} — {s.score} of 100, {s.verdict.value}")
            lines.append(f"  - {_linked(_cell(s.referee_synthesis), {}, by_id)}")
    elif record.error:
        lines += ["", f"The run failed: {_cell(record.error)}"]
    by_side = {(e.side, e.evidence_id): e for e in ledger}
    maps = {r.round: r for r in logic.rounds}
    for r in sorted({a.round for a in arguments}):
        lines += ["", f"## Round {r}"]
        # In the order they spoke: the first speaker first (for first when both spoke at once).
        for a in sorted(
            (a for a in arguments if a.round == r), key=lambda a: a.side != (request.first or "for")
        ):
            keys = {evidence_id: e for (side, evidence_id), e in by_side.items() if side == a.side}
            lines += ["", f"### {'For' if a.side == 'for' else 'Against'}", ""]
            if a.refusal is not None:
                lines.append(f"Declined to argue: {_cell(a.refusal.reason)}")
            if a.absent:
                lines.append("Not asked: this side had declined to argue (the other side's one answer turn).")
            for p in a.points:
                lines.append(
                    f"- **{p.sub_claim_id}** ({p.implied_score} of 100, confidence {p.confidence:.2f}): "
                    f"{_linked(_cell(p.argument), keys, by_id)}"
                )
        checked = [e for e in ledger if e.checked_round == r]
        if checked:
            # a claim debate's checks are a neutral checker's, and go unanswered: no response column
            answered = any(e.response for e in ledger)
            lines += [
                "",
                "### Fact-checks",
                "",
                "| citation | source | credibility | correspondence | check |" + " response |" * answered,
            ]
            lines.append("|---|---|---|---|---|" + "---|" * answered)
            for e in checked:
                lines.append(
                    f"| {e.key} | [{_cell(e.title)}]({e.source_url}) ({e.tier}) | {e.credibility} | "
                    f"{e.correspondence} | {_cell(e.comment or '')} |"
                    + f" {_cell(e.response or '')} |"
                    * answered
                )
        m = maps.get(r)
        if m is not None and (m.consensus or m.disagreement_frontier or m.action):
            lines += ["", "### Moderator", ""]
            lines += [f"- Agreed: {_cell(c)}" for c in m.consensus]
            lines += [
                f"- Disputed ({f.sub_claim_id}): {_cell(f.core_issue)} — for: {_cell(f.for_stance)}; "
                f"against: {_cell(f.against_stance)}"
                for f in m.disagreement_frontier
            ]
            if m.action is not None:
                lines.append(f"- Round controller: {m.action.value} ({_cell(m.rule)})")
    return "\n".join(lines + ledger_table(ledger)) + "\n"


def stopped_section(record: RunRecord, screened: Suitability | None) -> list[str]:
    """Why a stopped run was not debated: the pool speaks to none of its sub-claims (what to add), or
    the suitability check's flags and its warnings."""
    if record.stop_reason is StopReason.ADD_DOCUMENTS:
        return [
            "",
            "## Not enough evidence: not debated",
            "",
            "The evidence pool did not speak to any part of the claim, so no debater argued from it and no "
            "judge scored it: the answer is not enough evidence.",
            "",
        ] + [f"- {_cell(w)}" for w in record.warnings]
    flags = [f.value for f in screened.flags] if screened is not None else []
    warnings = (screened.warnings if screened is not None else []) or record.warnings
    lines = [
        "",
        "## Stopped by the suitability check",
        "",
        "The claim was not debated or scored: the check found it is not one a debate over evidence can "
        "give a meaningful probability for.",
    ]
    if flags:
        lines += ["", f"Flags: {', '.join(flags)}"]
    if warnings:
        lines += [""] + [f"- {_cell(w)}" for w in warnings]
    return lines


def _page(page: int | None) -> str:
    return f", p. {page}" if page is not None else ""


def ledger_table(ledger: list[LedgerEntry]) -> list[str]:
    """The transcript's closing section: every citation with its fact-check scores."""
    lines = ["", "## Citation ledger", "", "| key | round | source | tier | credibility | correspondence |"]
    lines.append("|---|---|---|---|---|---|")
    for e in ledger:
        lines.append(
            f"| {e.key} | {e.round} | [{_cell(e.title)}]({e.source_url}){_page(e.page)} | {e.tier} | "
            f"{e.credibility if e.credibility is not None else '–'} | "
            f"{e.correspondence if e.correspondence is not None else '–'} |"
        )
    return lines


def motion_exports(store: Store, record: RunRecord) -> dict[str, str]:
    """A motion debate's artifacts: its transcript, and every voter's score per round beside the
    debaters' implied scores (score_trajectory.csv, as before the spec's names); the ledger, the judge's
    maps, the chat, the crowd's opinions and the sentiment graph in the seed spec's shapes."""
    run_id, motion = record.run_id, record.motion
    assert motion is not None
    arguments = artifacts.spoken_in_order(store, run_id)
    pool = artifacts.evidence_pool(artifacts.retrievals_of(store, run_id), motion.context)
    ledger = artifacts.ledger_of(store, run_id, arguments, pool)
    maps = artifacts.maps_of(store, run_id)
    tallies = artifacts.tallies_of(store, run_id)
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(["round", "role", "sub_claim_id", "score", "confidence"])
    for t in tallies:
        rows.writerows(
            [t.round, f"voter:{persona}", "motion", score, ""] for persona, score in sorted(t.scores.items())
        )
        rows.writerow([t.round, "crowd", "motion", t.mean, ""])
    for a in arguments:
        rows.writerows([a.round, a.side, "motion", p.implied_score, f"{p.confidence:.2f}"] for p in a.points)
    result = artifacts.motion_result_of(store, run_id)
    events = store.list_events(run_id)
    spec = motion_artifacts.build(
        store, run_id, record.created_at, motion, arguments, ledger, pool, maps, tallies, events
    )
    return {
        "transcript_full.md": motion_transcript(record, arguments, ledger, maps, tallies, result),
        "score_trajectory.csv": out.getvalue(),
        **spec,
    }


def motion_transcript(
    record: RunRecord,
    arguments: list[Argument],
    ledger: list[LedgerEntry],
    maps: dict[int, MotionMap],
    tallies: list[VoteTally],
    result: MotionResult | None,
) -> str:
    motion = record.motion
    assert motion is not None
    lines = [f"# {_cell(motion.motion)}", ""]
    lines.append(
        f"Motion debate `{record.run_id}` · {record.status.value} · {record.created_at:%Y-%m-%d %H:%M} UTC"
    )
    if result is not None:
        z, f = result.vote_zero, result.final_vote
        lines += [
            "",
            "## The vote",
            "",
            f"Vote zero: {z.for_pct:g} % for, {z.against_pct:g} % against, {z.undecided_pct:g} % undecided "
            f"({z.voters} voters). Final: {f.for_pct:g} % for, {f.against_pct:g} % against, "
            f"{f.undecided_pct:g} % undecided. Swing: for {result.swing['for']:+g}, against "
            f"{result.swing['against']:+g} points.",
            "",
            f"The team {result.plan.first} spoke first"
            + (" (drawn: vote zero was a tie)" if result.plan.tie else " (the side vote zero favoured)")
            + (
                f"; the time knob gave the team {result.plan.minority} "
                f"{result.plan.allowance[result.plan.minority].words} words a statement."
                if result.plan.minority
                else "."
            ),
        ]
        if result.ended_early is not None:
            e = result.ended_early
            lines += [
                "",
                f"The team {e.side} declined to go on in round {e.round}: {_cell(e.reason)}."
                f" Then {e.followed}.",
            ]
        if result.searched:
            lines += ["", f"Evidence searched: {', '.join(result.searched)}."]
        lines += ["", "## The judge's report", "", _cell(result.report)]
    elif record.error:
        lines += ["", f"The debate failed: {_cell(record.error)}"]
    by_side = {(e.side, e.evidence_id): e for e in ledger}
    means = {t.round: t for t in tallies}
    for r in sorted({a.round for a in arguments}):
        lines += ["", f"## Round {r} ({PHASE_TEXT[motion.phase(r)]})"]
        for a in (a for a in arguments if a.round == r):
            keys = {evidence_id: e for (side, evidence_id), e in by_side.items() if side == a.side}
            lines += ["", f"### {'For' if a.side == 'for' else 'Against'}", ""]
            if a.refusal is not None:
                lines.append(f"Declined to go on: {_cell(a.refusal.reason)}")
            for p in a.points:
                lines.append(_linked(_cell(p.argument), keys, {}))
        m = maps.get(r)
        if m is not None:
            lines += ["", "### The judge's map", "", _cell(m.summary)]
            lines += [f"- Agreed: {_cell(c)}" for c in m.consensus]
            lines += [
                f"- Disputed: {_cell(f.core_issue)} — for: {_cell(f.for_stance)}; "
                f"against: {_cell(f.against_stance)}"
                for f in m.disagreement_frontier
            ]
        if (t := means.get(r)) is not None:
            lines += ["", f"The crowd: {t.for_pct:g} % for, {t.against_pct:g} % against (mean {t.mean:g})."]
    return "\n".join(lines + ledger_table(ledger)) + "\n"


def write_schemas(directory: Path) -> list[Path]:
    """The JSON Schemas of the artifacts (docs/schemas/): a claim run's JSON artifacts, and a motion
    debate's spec-shaped ones (a CSV's: one row's): `python -m claimcourt.exports DIR`."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    files = [(name.replace(".json", ".schema.json"), model) for name, model in SCHEMAS.items()]
    for file, model in [*files, *motion_artifacts.SCHEMAS.values()]:
        path = directory / file
        path.write_text(json.dumps(model.model_json_schema(), indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_schemas(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schemas")):
        sys.stdout.write(f"{path}\n")
