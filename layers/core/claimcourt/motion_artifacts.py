"""A motion debate's artifacts as the platform's seed spec names them (docs/schemas/):

- `citation_ledger.json`: every citation grouped per team (`team a`, `team b`), keyed `a_1`, `b_1`, … in
  order of appearance, who added it in which turn and when, who verified it and when, both scores, the
  adversary's comment and the proponent's response; `index_by_round`. Team a is the first speaker. A
  passage a team cited only in its private notes is an entry too (`private`), numbered after the team's
  public ones: nobody else saw it during the debate, so nobody checked it.
- `debate_logic_map.json`: an array of the judge's per-round states (consensus, frontier), in order.
- `history_chat.json`: every turn (`turn_id`, `agent`, `timestamp`, statement, citations), and each
  team's private notes with the ledger keys they cite.
- `crowd_opinion.json`: per voter (persona id and name), per round, the score and its reason.
- `voter_sentiment_graph.csv`: the same votes, one row per (round, voter), to chart.

Timestamps are the run's own: each stage's `stage.completed` event, never the clock at export time.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel

from claimcourt import artifacts
from claimcourt.debate.argue import opposite
from claimcourt.debate.ledger import citing_sentence
from claimcourt.errors import NotFoundError
from claimcourt.models import (
    Argument,
    Evidence,
    LedgerEntry,
    MotionMap,
    MotionPhase,
    MotionPlan,
    MotionRequest,
    RunEvent,
    Side,
    Stage,
    Tier,
    VoteTally,
)
from claimcourt.motions.crowd import persona_set
from claimcourt.store.base import ArtifactStore

Team = Literal["a", "b"]
# The spec's names of a motion's phases and of its rounds' kinds.
SPEC_PHASE: dict[MotionPhase, str] = {"opening": "Phase 1", "rounds": "Phase 2", "closing": "Phase 3"}
ROUND_LABEL: dict[MotionPhase, str] = {"opening": "Opening", "rounds": "Debate", "closing": "Closing"}
Agent = Literal["debator_a", "debator_b"]
Checker = Literal["factchecker_a", "factchecker_b"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---------------------------------------------------------------- citation_ledger.json


class Verification(Strict):
    """null throughout until the other team's fact-checker has checked the citation."""

    source_credibility_score: int | None = Field(description="1–10.")
    content_correspondence_score: int | None = Field(description="1–10.")
    adversary_comment: str | None
    proponent_response: str | None = Field(description="The citing team's fact-checker's answer.")
    verified_by: Checker | None
    verified_at: datetime | None


class TeamCitation(Strict):
    source_url: str
    added_by: Agent
    added_in_turn: str = Field(description="The turn_id of history_chat.json that added it.")
    added_in_round: int
    added_at: datetime | None = Field(description="When that turn ended (null: no event recorded).")
    verification: Verification
    alias: str | None = Field(
        description="Its key in the run's flat ledger (GET /runs/{id}/ledger): for_1, …; null if private."
    )
    private: bool = Field(
        default=False,
        description="Cited only in the team's private notes: never shown to the other team, the judge or the "
        "crowd, so never checked.",
    )
    side: Side
    evidence_id: str
    title: str
    tier: Tier
    sentence: str = Field(
        description="The sentence of the statement (a private one: of the notes) that cited it."
    )


class TeamLedger(Strict):
    team_a: dict[str, TeamCitation] = Field(alias="team a")
    team_b: dict[str, TeamCitation] = Field(alias="team b")
    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)


class MotionLedger(Strict):
    """citation_ledger.json of a motion debate."""

    debate_id: str
    topic: str
    run_id: str = Field(description="debate_id, by the name the ledger used before the spec's shape.")
    claim: str = Field(description="topic, by the name the ledger used before the spec's shape.")
    teams: dict[Team, Side] = Field(description="Which side each team argued: a spoke first.")
    citations: TeamLedger
    index_by_round: dict[str, list[str]] = Field(description="Round number → the keys it added.")


# ---------------------------------------------------------------- debate_logic_map.json


class FrontierState(Strict):
    core_issue: str
    a_stance: str
    b_stance: str


class RoundState(Strict):
    round_number: int
    round_label: str = Field(description="Opening, Debate or Closing.")
    consensus: list[str]
    disagreement_frontier: list[FrontierState]
    summary: str = ""


class LogicMap(RootModel[list[RoundState]]):
    """debate_logic_map.json of a motion debate: the judge's state after every round, in order."""


# ---------------------------------------------------------------- history_chat.json


class PublicTurn(Strict):
    turn_id: str
    round_number: int
    round_label: str
    phase: str = Field(description="Phase 1 (opening), Phase 2 (the rounds), Phase 3 (closing).")
    speaker: Team
    agent: Agent
    timestamp: datetime | None
    statement: str = Field(description="What was said; a refusal's reason, for a team that declined.")
    refused: bool = False
    citations_used: list[str] = Field(description="The ledger keys it cited.")


class TeamNote(Strict):
    turn_id: str
    round_number: int
    supplementary_material: str = Field(description="The team's private notes of that turn: no word limit.")
    citations_used: list[str] = Field(
        description="The ledger keys they cite: the team's public key of a passage it also cited aloud, else "
        "its private one."
    )
    timestamp: datetime | None


class TeamNotes(Strict):
    a: list[TeamNote]
    b: list[TeamNote]


class ChatMetadata(Strict):
    created_at: datetime
    phase: str = Field(description="Its last turn's phase (Phase 0: nobody has spoken yet).")
    current_round: int


class HistoryChat(Strict):
    """history_chat.json: the public transcript, and each team's private notes."""

    debate_id: str
    topic: str
    metadata: ChatMetadata
    public_transcript: list[PublicTurn]
    team_notes: TeamNotes


# ------------------------------------------------ crowd_opinion.json, voter_sentiment_graph.csv


class Vote(Strict):
    round_sequence: int = Field(description="0 = vote zero, before anyone spoke.")
    score: int = Field(ge=0, le=100, description="0 = firmly against the motion, 100 = firmly for.")
    reason: str


class Voter(Strict):
    voter_id: str = Field(description="The persona's id in the versioned persona set.")
    persona: str
    voting_record: list[Vote]


class CrowdOpinion(Strict):
    """crowd_opinion.json"""

    debate_id: str
    personas: str = Field(description="The persona set's version.")
    voters: list[Voter]


class SentimentRow(Strict):
    """One row of voter_sentiment_graph.csv (every cell a string, as CSV reads)."""

    round_sequence: str = Field(pattern=r"^[0-9]+$")
    phase: str
    voter_id: str
    persona: str
    score: str = Field(pattern=r"^(100|[1-9]?[0-9])$")


SENTIMENT_COLUMNS = list(SentimentRow.model_fields)

# artifact → (its schema's file in docs/schemas/, its model); a CSV's schema is one row's
SCHEMAS: dict[str, tuple[str, type[BaseModel]]] = {
    "citation_ledger.json": ("motion_citation_ledger.schema.json", MotionLedger),
    "debate_logic_map.json": ("motion_debate_logic_map.schema.json", LogicMap),
    "history_chat.json": ("history_chat.schema.json", HistoryChat),
    "crowd_opinion.json": ("crowd_opinion.schema.json", CrowdOpinion),
    "voter_sentiment_graph.csv": ("voter_sentiment_graph.row.schema.json", SentimentRow),
}


def team_of(plan: MotionPlan, side: Side) -> Team:
    return "a" if side == plan.first else "b"


def completed_at(events: list[RunEvent]) -> dict[tuple[Stage, int, Side | None], datetime]:
    """When each (stage, round, side) last completed, from the run's own events."""
    return {(e.stage, e.round or 0, e.side): e.at for e in events if e.type == "stage.completed" and e.stage}


def turn_ids(arguments: list[Argument]) -> dict[tuple[int, Side], str]:
    """turn_001, turn_002, … in speaking order."""
    return {(a.round, a.side): f"turn_{i:03d}" for i, a in enumerate(arguments, start=1)}


def team_keys(plan: MotionPlan, ledger: list[LedgerEntry]) -> dict[str, str]:
    """Each ledger key (for_1, …) → its team key (a_1, …): the same numbering, by the team that cited it."""
    return {e.key: f"{team_of(plan, e.side)}_{e.key.split('_')[-1]}" for e in ledger}


class Note(BaseModel):
    """A turn's private notes as its `turn/rNN/<side>` artifact keeps them."""

    round: int
    side: Side
    text: str
    citations: list[str]


def private_citations(
    plan: MotionPlan, entries: list[LedgerEntry], notes: list[Note], pool: list[Evidence]
) -> tuple[dict[tuple[Side, str], str], list[tuple[str, Note, Evidence]]]:
    """Each (side, passage) a team's notes cite → its team key, and the private entries among them in
    order of appearance: (key, the notes that first cited it, its passage). A passage the team also
    cited aloud keeps its public key; any other is numbered after the team's public keys."""
    public = team_keys(plan, entries)
    keys = {(e.side, e.evidence_id): public[e.key] for e in entries}
    numbered = {side: sum(1 for e in entries if e.side == side) for side in ("for", "against")}
    evidence = {e.id: e for e in pool}
    private = []
    for note in notes:
        for evidence_id in note.citations:
            found = evidence.get(evidence_id)
            if (note.side, evidence_id) in keys or found is None:
                continue
            numbered[note.side] += 1
            key = f"{team_of(plan, note.side)}_{numbered[note.side]}"
            keys[(note.side, evidence_id)] = key
            private.append((key, note, found))
    return keys, private


def ledger(
    run_id: str,
    motion: MotionRequest,
    plan: MotionPlan,
    entries: list[LedgerEntry],
    turns: dict[tuple[int, Side], str],
    when: dict[tuple[Stage, int, Side | None], datetime],
    private: list[tuple[str, Note, Evidence]],
) -> MotionLedger:
    keys = team_keys(plan, entries)
    grouped: dict[Team, dict[str, TeamCitation]] = {"a": {}, "b": {}}
    index: dict[str, list[str]] = {}
    for e in entries:
        team, checker = team_of(plan, e.side), opposite(e.side)
        checked = e.correspondence is not None
        grouped[team][keys[e.key]] = TeamCitation(
            source_url=e.source_url,
            added_by=f"debator_{team}",
            added_in_turn=turns.get((e.round, e.side), ""),
            added_in_round=e.round,
            added_at=when.get((Stage.SPEAK, e.round, e.side)),
            verification=Verification(
                source_credibility_score=e.credibility,
                content_correspondence_score=e.correspondence,
                adversary_comment=e.comment,
                proponent_response=e.response,
                verified_by=f"factchecker_{team_of(plan, checker)}" if checked else None,
                verified_at=when.get((Stage.FACTCHECK, e.checked_round or 0, checker)) if checked else None,
            ),
            alias=e.key,
            side=e.side,
            evidence_id=e.evidence_id,
            title=e.title,
            tier=e.tier,
            sentence=e.sentence,
        )
        index.setdefault(str(e.round), []).append(keys[e.key])
    unchecked = Verification(
        source_credibility_score=None, content_correspondence_score=None, adversary_comment=None,
        proponent_response=None, verified_by=None, verified_at=None,
    )  # fmt: skip
    for key, note, found in private:
        team = team_of(plan, note.side)
        grouped[team][key] = TeamCitation(
            source_url=found.source_url,
            added_by=f"debator_{team}",
            added_in_turn=turns.get((note.round, note.side), ""),
            added_in_round=note.round,
            added_at=when.get((Stage.SPEAK, note.round, note.side)),
            verification=unchecked,
            alias=None,
            private=True,
            side=note.side,
            evidence_id=found.id,
            title=found.title,
            tier=found.tier,
            sentence=citing_sentence(note.text, found.id),
        )
        index.setdefault(str(note.round), []).append(key)
    return MotionLedger(
        debate_id=run_id,
        topic=motion.motion,
        run_id=run_id,
        claim=motion.motion,
        teams={"a": plan.first, "b": plan.second},
        citations=TeamLedger(team_a=grouped["a"], team_b=grouped["b"]),
        index_by_round=index,
    )


def logic_map(motion: MotionRequest, plan: MotionPlan, maps: dict[int, MotionMap]) -> LogicMap:
    def stance(issue_for: str, issue_against: str, team: Team) -> str:
        return issue_for if (plan.first if team == "a" else plan.second) == "for" else issue_against

    return LogicMap(
        [
            RoundState(
                round_number=r,
                round_label=ROUND_LABEL[motion.phase(r)],
                consensus=m.consensus,
                disagreement_frontier=[
                    FrontierState(
                        core_issue=f.core_issue,
                        a_stance=stance(f.for_stance, f.against_stance, "a"),
                        b_stance=stance(f.for_stance, f.against_stance, "b"),
                    )
                    for f in m.disagreement_frontier
                ],
                summary=m.summary,
            )
            for r, m in sorted(maps.items())
        ]
    )


def history_chat(
    run_id: str,
    created_at: datetime,
    motion: MotionRequest,
    plan: MotionPlan,
    spoken: list[Argument],
    entries: list[LedgerEntry],
    notes: list[Note],
    note_keys: dict[tuple[Side, str], str],
    when: dict[tuple[Stage, int, Side | None], datetime],
) -> HistoryChat:
    turns = turn_ids(spoken)
    keys = team_keys(plan, entries)
    by_cited = {(e.side, e.evidence_id): keys[e.key] for e in entries}
    noted = {(n.round, n.side): n for n in notes}
    public, private = [], TeamNotes(a=[], b=[])
    for a in spoken:
        team, turn_id, at = (
            team_of(plan, a.side),
            turns[(a.round, a.side)],
            when.get((Stage.SPEAK, a.round, a.side)),
        )
        cited = [by_cited[(a.side, c)] for p in a.points for c in p.citations if (a.side, c) in by_cited]
        public.append(
            PublicTurn(
                turn_id=turn_id,
                round_number=a.round,
                round_label=ROUND_LABEL[motion.phase(a.round)],
                phase=SPEC_PHASE[motion.phase(a.round)],
                speaker=team,
                agent=f"debator_{team}",
                timestamp=at,
                statement=a.points[0].argument if a.points else (a.refusal.reason if a.refusal else ""),
                refused=a.refusal is not None,
                citations_used=cited,
            )
        )
        if (note := noted.get((a.round, a.side))) is not None and note.text:
            getattr(private, team).append(
                TeamNote(
                    turn_id=turn_id,
                    round_number=a.round,
                    supplementary_material=note.text,
                    citations_used=[
                        note_keys[(a.side, c)] for c in note.citations if (a.side, c) in note_keys
                    ],
                    timestamp=at,
                )
            )
    last = spoken[-1].round if spoken else 0
    return HistoryChat(
        debate_id=run_id,
        topic=motion.motion,
        metadata=ChatMetadata(
            created_at=created_at,
            phase=SPEC_PHASE[motion.phase(last)] if last else "Phase 0",
            current_round=last,
        ),
        public_transcript=public,
        team_notes=private,
    )


def crowd_opinion(run_id: str, tallies: list[VoteTally], reasons: dict[int, dict[str, str]]) -> CrowdOpinion:
    version, personas = persona_set()
    names = {p.id: p.name for p in personas}
    voted = sorted({pid for t in tallies for pid in t.scores})
    return CrowdOpinion(
        debate_id=run_id,
        personas=version,
        voters=[
            Voter(
                voter_id=pid,
                persona=names.get(pid, pid),
                voting_record=[
                    Vote(
                        round_sequence=t.round,
                        score=t.scores[pid],
                        reason=reasons.get(t.round, {}).get(pid, ""),
                    )
                    for t in tallies
                    if pid in t.scores
                ],
            )
            for pid in voted
        ],
    )


def sentiment_csv(opinion: CrowdOpinion, tallies: list[VoteTally]) -> str:
    phases = {t.round: str(t.phase) for t in tallies}
    out = io.StringIO()
    rows = csv.writer(out, lineterminator="\n")
    rows.writerow(SENTIMENT_COLUMNS)
    for r in sorted(phases):
        for v in opinion.voters:
            for vote in v.voting_record:
                if vote.round_sequence == r:
                    rows.writerow([r, phases[r], v.voter_id, v.persona, vote.score])
    return out.getvalue()


def build(
    store: ArtifactStore,
    run_id: str,
    created_at: datetime,
    motion: MotionRequest,
    spoken: list[Argument],
    entries: list[LedgerEntry],
    pool: list[Evidence],
    maps: dict[int, MotionMap],
    tallies: list[VoteTally],
    events: list[RunEvent],
) -> dict[str, str]:
    """The spec's five artifacts of a motion debate, from what its stages stored."""
    try:
        plan = artifacts.plan_of(store, run_id)
    except NotFoundError:  # stopped before vote zero: nobody spoke, the teams are only named
        first = motion.first or "for"
        plan = MotionPlan(
            first=first, second=opposite(first), tie=False, lean=0.5, knob_applied=False, allowance={}
        )
    when = completed_at(events)
    turns = store.find_artifacts(run_id, artifacts.TURN_PREFIX)
    notes = [
        Note(round=a.round, side=a.side, text=doc.get("notes") or "", citations=doc.get("note_citations", []))
        for a in spoken
        if (doc := turns.get(artifacts.turn_key(a.round, a.side))) is not None
    ]
    note_keys, private = private_citations(plan, entries, notes, pool)
    reasons = {
        t.round: {v.persona_id: v.reason for v in artifacts.votes_of(store, run_id, t.round)} for t in tallies
    }
    opinion = crowd_opinion(run_id, tallies, reasons)
    return {
        "citation_ledger.json": ledger(
            run_id, motion, plan, entries, turn_ids(spoken), when, private
        ).model_dump_json(indent=2, by_alias=True),
        "debate_logic_map.json": logic_map(motion, plan, maps).model_dump_json(indent=2),
        "history_chat.json": history_chat(
            run_id, created_at, motion, plan, spoken, entries, notes, note_keys, when
        ).model_dump_json(indent=2),
        "crowd_opinion.json": opinion.model_dump_json(indent=2),
        "voter_sentiment_graph.csv": sentiment_csv(opinion, tallies),
    }
