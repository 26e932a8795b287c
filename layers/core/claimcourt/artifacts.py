"""A run's artifacts: the keys its stages write them under, and the readers the later stages (and
the score) use. One module, so a key is spelled once.

Each stage writes the one artifact it makes (an upsert, so a retry is harmless) and returns only
a small summary to the state machine: the payloads stay far under Step Functions' 256 KB.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claimcourt.debate.ledger import build_ledger
from claimcourt.errors import NotFoundError
from claimcourt.evidence.retrieve import context_evidence
from claimcourt.models import (
    Argument,
    BacktestDating,
    Decomposition,
    Evidence,
    FactcheckReply,
    HindsightDrop,
    Judgement,
    LedgerEntry,
    ModeratorView,
    MotionMap,
    MotionPhase,
    MotionPlan,
    MotionResult,
    MotionSuitability,
    PersonaVote,
    PoolRelevance,
    PublicStatement,
    RoundDecision,
    RubricJudgement,
    RunRecord,
    Side,
    Stances,
    SubClaim,
    Suitability,
    VoteTally,
)
from claimcourt.store.base import ArtifactStore

SUITABILITY = "suitability"
DECOMPOSITION = "decomposition"
RELEVANCE = "relevance"  # the pool-relevance check of the first round's pool
REVIEW = "review"
OWNER = "owner"  # the local process executing the run: {host, pid}
EVIDENCE_PREFIX, ARGUMENT_PREFIX, JUDGEMENT_PREFIX = "evidence/", "argument/", "judgement/"
DECISION_PREFIX, FACTCHECK_PREFIX = "decision/", "factcheck/"


def evidence_key(round: int, sub_claim_id: str, contrarian: bool = False) -> str:
    return f"{EVIDENCE_PREFIX}r{round:02d}/{sub_claim_id}{'~contrarian' * contrarian}"


def round_of(key: str) -> int:
    """The round of a round's artifact key (`evidence/r02/sc1` → 2)."""
    return int(key.split("/")[1][1:])


def argument_key(round: int, side: Side) -> str:
    return f"{ARGUMENT_PREFIX}r{round:02d}/{side}"


def factcheck_key(round: int, side: Side | None = None) -> str:
    """A round's fact-check: a claim debate's neutral one (no side), or a motion team's checker's."""
    return f"{FACTCHECK_PREFIX}r{round:02d}" + (f"/{side}" if side else "")


def moderation_key(round: int) -> str:
    return f"moderation/r{round:02d}"


def decision_key(round: int) -> str:
    return f"{DECISION_PREFIX}r{round:02d}"


def judgement_key(sample: int) -> str:
    return f"{JUDGEMENT_PREFIX}s{sample:02d}"


def suitability_of(store: ArtifactStore, run_id: str) -> Suitability:
    """The suitability check the run stands on: the last one made (after a re-split, the second)."""
    return Suitability.model_validate(store.get_artifact(run_id, SUITABILITY))


def split_key(attempt: int) -> str:
    """A split a re-split replaced, kept for the record (the run's own is `decomposition`)."""
    return f"{DECOMPOSITION}/a{attempt}"


def suitability_key(attempt: int) -> str:
    """Each split's suitability check, kept: the first's audit is what the re-split was told."""
    return f"{SUITABILITY}/a{attempt}"


def audit_feedback(store: ArtifactStore, run_id: str, attempt: int) -> list[str]:
    """What the audit of split `attempt` faulted, as the decomposer's feedback for the next split."""
    audit = Suitability.model_validate(store.get_artifact(run_id, suitability_key(attempt))).audit
    if audit is None:
        return []
    return [f"overlap: {o}" for o in audit.overlaps] + [f"gap: {g}" for g in audit.gaps]


def superseded(query: str) -> dict[str, Any]:
    """What replaces a retrieval of a split the re-split replaced (the store has no delete): no reader of
    the run's retrievals sees it."""
    return {"query": query, "superseded": True}


def decomposition_of(store: ArtifactStore, run_id: str) -> Decomposition:
    return Decomposition.model_validate(store.get_artifact(run_id, DECOMPOSITION))


def relevance_of(store: ArtifactStore, run_id: str) -> PoolRelevance:
    return PoolRelevance.model_validate(store.get_artifact(run_id, RELEVANCE))


def retrievals_of(store: ArtifactStore, run_id: str) -> dict[str, dict[str, Any]]:
    """Every retrieval of the run so far (query, cache hit, evidence items), by artifact key; not those
    of a split the re-split replaced (`superseded`)."""
    found = store.find_artifacts(run_id, EVIDENCE_PREFIX)
    return {key: doc for key, doc in found.items() if not doc.get("superseded")}


def evidence_pool(
    retrievals: dict[str, dict[str, Any]], context: str | None, up_to_round: int | None = None
) -> list[Evidence]:
    """The run's pool: the passages of its --context first, then every item retrieved so far, oldest
    first, each id once."""
    pool: dict[str, Evidence] = {e.id: e for e in context_evidence(context)}
    for key, doc in retrievals.items():
        if up_to_round is not None and round_of(key) > up_to_round:
            continue
        for item in doc["items"]:
            e = Evidence.model_validate(item)
            pool.setdefault(e.id, e)
    return list(pool.values())


def retrieved_by_sub_claim(
    retrievals: dict[str, dict[str, Any]], context: str | None, up_to_round: int | None = None
) -> list[Evidence]:
    """What each sub-claim's directives found (and the user's context), a passage once per sub-claim
    that found it: the pool-relevance check reads a sub-claim's own passages, and the pool keeps a
    passage two directives found under the first one's sub-claim only."""
    found: dict[tuple[str, str], Evidence] = {(e.id, e.sub_claim_id): e for e in context_evidence(context)}
    for key, doc in retrievals.items():
        if up_to_round is not None and int(key.split("/")[1][1:]) > up_to_round:
            continue
        for item in doc["items"]:
            e = Evidence.model_validate(item)
            found.setdefault((e.id, e.sub_claim_id), e)
    return list(found.values())


def pool_readings(
    retrievals: dict[str, dict[str, Any]],
    context: str | None,
    sub_claims: list[SubClaim],
    up_to_round: int | None = None,
) -> dict[int, PoolRelevance]:
    """The pool-relevance check of the pool as it stood after each round's retrieval (up to
    `up_to_round`), keyed by round: the notes the shared opening shows after each round's evidence. A
    pure function of the stored retrievals, so every call of the run renders the same bytes (and reads
    them from the provider's cache)."""
    from claimcourt.debate.relevance import measure  # the word tables load on first use

    rounds = sorted(
        {round_of(key) for key in retrievals if up_to_round is None or round_of(key) <= up_to_round}
    )
    return {
        n: measure(sub_claims, retrieved_by_sub_claim(retrievals, context, up_to_round=n)) for n in rounds
    }


def searched(retrievals: dict[str, dict[str, Any]]) -> list[str]:
    """Every source the run's retrievals searched, in the order first searched (a collection as
    name@version: one that changed during the run is there twice)."""
    names: dict[str, None] = {}
    for doc in retrievals.values():
        names.update(dict.fromkeys(doc.get("searched", [doc["source"]])))
    return list(names)


def backtest_dating(retrievals: dict[str, dict[str, Any]]) -> BacktestDating:
    """A backtest's sources against its date, over every retrieval (each passage once): those
    returned (kept or dropped), those with a publication date, those dropped as after the date, and
    of those the ones the hindsight check read as written after it (why, and who read them)."""
    kept = {item["id"] for doc in retrievals.values() for item in doc["items"]}
    dated = {i for doc in retrievals.values() for i in doc.get("dated", [])}
    dropped = {i for doc in retrievals.values() for i in doc.get("dropped", [])}
    checks = [doc["hindsight"] for doc in retrievals.values() if "hindsight" in doc]
    after = {d["id"]: HindsightDrop.model_validate(d) for check in checks for d in check["after"]}
    judged_by = list(dict.fromkeys(who for check in checks for who in check["judged_by"]))
    return BacktestDating(
        retrieved=len(kept | dropped),
        dated=len(dated),
        dropped=len(dropped),
        written_after=len(after),
        hindsight=list(after.values()),
        judged_by=judged_by,
    )


def arguments_of(store: ArtifactStore, run_id: str) -> list[Argument]:
    """Every argument of the run, by round, then side."""
    found = [Argument.model_validate(v) for v in store.find_artifacts(run_id, ARGUMENT_PREFIX).values()]
    return sorted(found, key=lambda a: (a.round, a.side))


def argument_of(store: ArtifactStore, run_id: str, round: int, side: Side) -> Argument | None:
    try:
        return Argument.model_validate(store.get_artifact(run_id, argument_key(round, side)))
    except NotFoundError:
        return None


def factchecks_of(store: ArtifactStore, run_id: str) -> list[tuple[int, Side | None, FactcheckReply]]:
    """The run's fact-check replies: (round, the checker's side or None for a neutral checker, reply)."""
    return [
        (round_of(key), doc["side"], FactcheckReply.model_validate(doc["reply"]))
        for key, doc in sorted(store.find_artifacts(run_id, FACTCHECK_PREFIX).items())
    ]


def ledger_of(
    store: ArtifactStore, run_id: str, arguments: list[Argument], pool: list[Evidence]
) -> list[LedgerEntry]:
    """The run's citation ledger (debate/ledger.py) over these arguments and this pool, with the
    fact-checks made so far (the only artifacts it reads itself)."""
    return build_ledger(arguments, pool, factchecks_of(store, run_id))


def whole_ledger(store: ArtifactStore, run_id: str, context: str | None) -> list[LedgerEntry]:
    """The ledger of the whole run, for readers that have not read its arguments and pool."""
    pool = evidence_pool(retrievals_of(store, run_id), context)
    return ledger_of(store, run_id, arguments_of(store, run_id), pool)


def moderation_of(store: ArtifactStore, run_id: str, round: int) -> tuple[bool, ModeratorView | None]:
    """(whether the moderator was asked after this round, its view: None if it refused)."""
    try:
        doc = store.get_artifact(run_id, moderation_key(round))
    except NotFoundError:
        return False, None
    return True, ModeratorView.model_validate(doc["view"]) if doc["view"] is not None else None


def decisions_of(store: ArtifactStore, run_id: str) -> list[RoundDecision]:
    """The round controller's decisions, round by round."""
    docs = sorted(store.find_artifacts(run_id, DECISION_PREFIX).items())
    return [RoundDecision.model_validate(doc) for _, doc in docs]


def decision_of(store: ArtifactStore, run_id: str, round: int) -> RoundDecision | None:
    """The round controller's decision after `round` (None: not decided, or no such round)."""
    if round < 1:
        return None
    try:
        return RoundDecision.model_validate(store.get_artifact(run_id, decision_key(round)))
    except NotFoundError:
        return None


def persona_for(store: ArtifactStore, run_id: str, round: int) -> int:
    """The debaters' persona this round: what the previous round's decision said (0 at first)."""
    previous = decision_of(store, run_id, round - 1)
    return previous.persona if previous is not None else 0


@dataclass(frozen=True)
class JudgedSample:
    sample: int
    judgement: Judgement
    reconsidered: bool  # the re-deliberation: asked once more, told why
    rubric: RubricJudgement | None = None  # the rubric judge's own reply, before its reading onto 0–100


def judgements_of(store: ArtifactStore, run_id: str) -> tuple[list[JudgedSample], dict[str, Side]]:
    """The run's judgements in sample order, refused samples left out; and the label → side mapping."""
    docs = sorted(store.find_artifacts(run_id, JUDGEMENT_PREFIX).items())
    judged = [
        JudgedSample(
            int(key.rsplit("/s", 1)[1]),
            Judgement.model_validate(d["judgement"]),
            d.get("reconsider", False),
            RubricJudgement.model_validate(d["rubric"]) if d.get("rubric") else None,
        )
        for key, d in docs
        if d["judgement"] is not None
    ]
    return judged, docs[0][1]["mapping"] if docs else {}


def review_of(store: ArtifactStore, run_id: str) -> dict[str, Any] | None:
    """What the review stage decided about the samples (None before it ran)."""
    try:
        return store.get_artifact(run_id, REVIEW)
    except NotFoundError:
        return None


def contrarian_evidence_ids(retrievals: dict[str, dict[str, Any]]) -> list[str]:
    """The ids of evidence that only contrarian directives retrieved, once each: a passage a contrarian
    search found again after another search had found it is not evidence against the way the debate
    leaned (played runs listed the pool's strongest passage for the lean three times as contrarian)."""
    found_otherwise = {
        item["id"] for doc in retrievals.values() if not doc.get("contrarian") for item in doc["items"]
    }
    contrarian = (item["id"] for doc in retrievals.values() if doc.get("contrarian") for item in doc["items"])
    return list(dict.fromkeys(i for i in contrarian if i not in found_otherwise))


# ---------------------------------------------------------------- motion debates
# A motion debate's statements are stored as arguments (one point each), so the ledger, the
# fact-checkers and the exports read them as they read a claim debate's.

STANCES, PLAN, MOTION_RESULT = "motion/stances", "motion/plan", "motion/result"
MOTION_SUITABILITY = "motion/suitability"  # the check before vote zero: the screen and the pool's density
VOTES_PREFIX, TALLY_PREFIX, MAP_PREFIX, TURN_PREFIX = "votes/", "tally/", "map/", "turn/"
MOTION_POINT = "motion"  # the sub-claim id of a statement's one point


def votes_key(round: int, batch: int) -> str:
    return f"{VOTES_PREFIX}r{round:02d}/b{batch:02d}"


def tally_key(round: int) -> str:
    return f"{TALLY_PREFIX}r{round:02d}"


def map_key(round: int) -> str:
    return f"{MAP_PREFIX}r{round:02d}"


def turn_key(round: int, side: Side) -> str:
    """A turn's private record: the team's notes, the limits it had, what was cut."""
    return f"{TURN_PREFIX}r{round:02d}/{side}"


def stances_of(store: ArtifactStore, run_id: str) -> Stances:
    return Stances.model_validate(store.get_artifact(run_id, STANCES))


def plan_of(store: ArtifactStore, run_id: str) -> MotionPlan:
    return MotionPlan.model_validate(store.get_artifact(run_id, PLAN))


def first_speaker(store: ArtifactStore, record: RunRecord) -> Side:
    """The side of team a: a motion debate's first speaker (vote zero's pick, or the one asked for
    before the vote was taken); a claim debate has no teams, and its a is the side for."""
    if record.motion is None:
        return "for"
    try:
        return plan_of(store, record.run_id).first
    except NotFoundError:  # stopped before vote zero: nobody spoke
        return record.motion.first or "for"


def statements_of(
    arguments: list[Argument], phase: Callable[[int], MotionPhase], *, silences: bool = False
) -> list[PublicStatement]:
    """What everyone heard, in the order it was said. A refusal says nothing: left out, or with
    `silences` (what the other team reads) a turn in which no statement was made, never its reason."""
    return [
        PublicStatement(
            side=a.side,
            round=a.round,
            phase=phase(a.round),
            statement=a.points[0].argument if a.points else "",
            citations=a.points[0].citations if a.points else [],
            made=bool(a.points),
        )
        for a in arguments
        if a.points or silences
    ]


def spoken_in_order(store: ArtifactStore, run_id: str) -> list[Argument]:
    """The statements (and refusals) so far, in speaking order: by round, then who spoke first."""
    turns = store.find_artifacts(run_id, TURN_PREFIX)
    order = {key: doc.get("order", 0) for key, doc in turns.items()}
    return sorted(
        arguments_of(store, run_id),
        key=lambda a: (a.round, order.get(turn_key(a.round, a.side), 0)),
    )


def team_notes_of(store: ArtifactStore, run_id: str, side: Side) -> list[str]:
    """A team's private notes so far: only its own debater and fact-checker read them."""
    turns = store.find_artifacts(run_id, TURN_PREFIX)
    return [
        doc["notes"] for key, doc in sorted(turns.items()) if key.endswith("/" + side) and doc.get("notes")
    ]


def votes_of(store: ArtifactStore, run_id: str, round: int) -> list[PersonaVote]:
    docs = store.find_artifacts(run_id, f"{VOTES_PREFIX}r{round:02d}/")
    return [PersonaVote.model_validate(v) for _, doc in sorted(docs.items()) for v in doc["votes"]]


def tallies_of(store: ArtifactStore, run_id: str) -> list[VoteTally]:
    return [
        VoteTally.model_validate(doc) for _, doc in sorted(store.find_artifacts(run_id, TALLY_PREFIX).items())
    ]


def map_of(store: ArtifactStore, run_id: str, round: int) -> MotionMap | None:
    """The judge's map after this round (None: none yet, or round 0)."""
    try:
        return MotionMap.model_validate(store.get_artifact(run_id, map_key(round)))
    except NotFoundError:
        return None


def maps_of(store: ArtifactStore, run_id: str) -> dict[int, MotionMap]:
    return {
        int(key.split("/")[1][1:]): MotionMap.model_validate(doc)
        for key, doc in store.find_artifacts(run_id, MAP_PREFIX).items()
    }


def motion_suitability_of(store: ArtifactStore, run_id: str) -> MotionSuitability | None:
    """The motion's suitability check; None for a debate started before there was one."""
    try:
        return MotionSuitability.model_validate(store.get_artifact(run_id, MOTION_SUITABILITY))
    except NotFoundError:
        return None


def motion_result_of(store: ArtifactStore, run_id: str) -> MotionResult | None:
    try:
        return MotionResult.model_validate(store.get_artifact(run_id, MOTION_RESULT))
    except NotFoundError:
        return None
