"""pydantic models for every artifact a run reads, writes or returns.

Boundaries (the run request, LLM replies, stored records) are validated here and nowhere else.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from claimcourt.contract import SHAPES, Reading, Shape

MAX_CLAIM_CHARS = 2000
MAX_CONTEXT_CHARS = 20000

Mode = Literal["spectral", "verdict"]
Effort = Literal["low", "standard", "high"]
Side = Literal["for", "against"]
# How a side takes its turn in a round: both sides at once, or first / second, the second answering.
Turn = Literal["together", "first", "second"]
Tier = Literal["T1", "T2"]
Score = Annotated[int, Field(ge=0, le=100)]
# The judge a claim debate ends with: the scoring contract's (a 0–100 score per sub-claim) or the
# rubric judge (the disagreement hierarchy per side, and a 0–10 rating or null, read onto 0–100).
JudgeKind = Literal["contract", "rubric"]
MAX_FIXED_ROUNDS = 6
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]


class Verdict(StrEnum):
    SUPPORTED = "supported"
    REFUTED = "refuted"
    NOT_ENOUGH_EVIDENCE = "not-enough-evidence"
    CONFLICTING = "conflicting"


class RunStatus(StrEnum):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    STOPPED = "stopped"  # the suitability check ended the run with a warning

    @property
    def terminal(self) -> bool:
        return self is not RunStatus.RUNNING


class SourceTag(StrEnum):
    APP = "app"
    BENCH = "bench"
    DRIFT = "drift"
    MONITOR = "monitor"
    EXPERIMENT = "experiment"  # a debate of an experiment suite (claimcourt suite)


class Stage(StrEnum):
    """A stage of the debate: one name for its function folder, its ASL state, its module under
    claimcourt/stages, its handler, its events and its calls (tests/integration/test_layout.py)."""

    SUITABILITY = "suitability"
    DECOMPOSE = "decompose"
    RETRIEVE = "retrieve"
    RELEVANCE = "relevance"  # does the first round's pool speak to each sub-claim? (no model call)
    ARGUE = "argue"
    FACTCHECK = "factcheck"  # a claim debate's neutral fact-checker (a motion's: each team's)
    MODERATE = "moderate"
    CONTROL = "control"  # the round controller: what follows a round
    ADJUDICATE = "adjudicate"
    REVIEW = "review"  # the judge's samples: more of them, a re-deliberation, or neither
    SCORE = "score"
    FINISH = "finish"  # the ends that are not a score: stopped by suitability, or failed
    # motion debates (statemachine/motion.asl.json); they share retrieve, factcheck and finish
    STANCES = "stances"  # phase 0: the teams' stances and the opening research
    VOTE = "vote"  # a batch of the crowd votes
    TALLY = "tally"  # a round's votes counted; at vote zero, who speaks first and the time knob
    SPEAK = "speak"  # a team's statement
    CARTOGRAPH = "cartograph"  # the judge maps the round: consensus and frontier, no winner
    CONCLUDE = "conclude"  # the vote swing and the judge's report: the motion's result

    @property
    def ends_run(self) -> bool:
        return self in (Stage.SCORE, Stage.FINISH, Stage.CONCLUDE)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _a_number(value: Any) -> Any:
    """A JSON number, not what lax validation would read as one: true and false are not 1 and 0
    (Python's bool is an int), and "3" is text (lax validation parses it), both refused."""
    if isinstance(value, bool):
        raise ValueError("a number, not true or false")
    if isinstance(value, str | bytes | bytearray):
        raise ValueError("a number, not a string")
    return value


# A number a caller sends (a request's count, limit or knob): never a boolean or a string.
NUMBER = BeforeValidator(_a_number)


def _whole_characters(value: Any) -> Any:
    """JSON may escape half a surrogate pair ("\\ud800"): that is no character, and text holding one
    cannot be encoded, hashed or stored, so it is refused here, before anything is admitted. (Before
    the type's own checks: a length or pattern would refuse it too, with a message naming nothing.)"""
    if isinstance(value, str):
        try:
            value.encode()
        except UnicodeEncodeError as err:
            raise ValueError(f"a lone surrogate (U+{ord(value[err.start]):04X}) is not a character") from None
    return value


# Text a caller sends (a claim, a context, a motion, a cadence, a model's name): whole characters only.
# After a Field's constraints in an Annotated (they then stay in the JSON schema), or as `Text`.
WHOLE_TEXT = BeforeValidator(_whole_characters)
Text = Annotated[str, WHOLE_TEXT]


def first_problem(err: ValidationError, whole: str) -> tuple[str, str]:
    """(field, message) of a validation error's first problem: what every boundary reports, one
    problem at a time, naming the field (`whole` when it is the input as a whole)."""
    first = err.errors()[0]
    field = ".".join(str(p) for p in first["loc"]) or whole
    return field, str(first["msg"]).removeprefix("Value error, ")


def _reject_control_chars(value: str, field: str) -> str:
    for ch in value:
        if unicodedata.category(ch) == "Cc" and ch not in "\n\t\r":
            raise ValueError(f"{field} contains a control character (U+{ord(ch):04X})")
    return value


# ---------------------------------------------------------------- the request


def _clean_claim(value: str) -> str:
    value = re.sub(r"\s+", " ", _reject_control_chars(value, "claim")).strip()
    if not value:
        raise ValueError("claim is empty")
    if len(value) > MAX_CLAIM_CHARS:
        raise ValueError(f"claim is {len(value)} characters; the limit is {MAX_CLAIM_CHARS}")
    return value


def _clean_context(value: str | None) -> str | None:
    if value is None:
        return None
    value = _reject_control_chars(value, "context").strip()
    if len(value) > MAX_CONTEXT_CHARS:
        raise ValueError(f"context is {len(value)} characters; the limit is {MAX_CONTEXT_CHARS}")
    return value or None


# A panel's size at most: each judge is one more whole judgement (its cost, its wait).
MAX_JUDGES = 5
# A panel judge: `provider`, `provider:model`, either with `+rubric` or `+contract` (which judge it is; else
# the request's `judge`). The model's characters are a line-up's (MODEL_NAME), which hold no `+`.
# No named groups: the pattern is in the OpenAPI document too, read by JSON Schema's (ECMA 262) regexes.
JUDGE_SPEC = r"^([a-z]+)(?::([A-Za-z0-9._:/-]{0,100}))?(?:\+(contract|rubric))?$"
JudgeSpec = Annotated[str, Field(max_length=120, json_schema_extra={"pattern": JUDGE_SPEC}), WHOLE_TEXT]


def parse_judge_spec(spec: str) -> tuple[str, str, JudgeKind | None]:
    """(provider, model, kind) of a panel judge as named: model "" is the provider's default, kind None the
    request's judge. A ValueError says what is wrong with it."""
    found = re.match(JUDGE_SPEC, spec)
    if found is None:
        raise ValueError(
            f"{spec[:130]!r} is not provider[:model][+rubric|+contract] (e.g. openai:gpt-4.1, offline+rubric)"
        )
    provider, model, suffix = found.groups()
    if provider not in PROVIDERS:
        raise ValueError(
            f"{spec!r} names an unknown provider {provider!r}; providers: {', '.join(PROVIDERS)}"
        )
    kind: JudgeKind | None = "rubric" if suffix == "rubric" else "contract" if suffix else None
    return provider, model or "", kind


class ClaimAsked(Strict):
    """A claim and how to debate it: what a run, a monitor and a check request all carry."""

    claim: Text = Field(description="A falsifiable claim, up to 2,000 characters.")
    mode: Mode = "spectral"
    context: Text | None = Field(default=None, description="Optional background text for the debaters.")
    effort: Effort = "standard"
    first: Side | None = Field(
        default=None,
        description="Who argues first in every round, the other then answering it (null: both at once).",
    )
    rounds: Annotated[int | None, NUMBER] = Field(
        default=None,
        ge=1,
        le=MAX_FIXED_ROUNDS,
        description="Exactly this many rounds, 1–6 (null: the effort's, or the round controller's).",
    )
    judge: JudgeKind = Field(
        default="contract",
        description="contract: the judge scores 0–100; rubric: the disagreement hierarchy and a 0–10 rating.",
    )
    judges: list[JudgeSpec] = Field(
        default_factory=list,
        max_length=MAX_JUDGES,
        description="A panel of judges, each judging the same anonymized debate in its own call: "
        "`provider[:model][+rubric|+contract]` (`provider` alone: its default model; `offline`: the offline "
        "reasoner; the suffix: which judge it is, else `judge`'s). The panel's median speaks for the run; "
        "it replaces self-consistency samples and re-deliberation. Empty: one judge, as configured.",
        examples=[["openai:gpt-4.1", "anthropic:claude-sonnet-4-6", "offline+rubric"]],
    )

    @field_validator("claim")
    @classmethod
    def _claim(cls, value: str) -> str:
        return _clean_claim(value)

    @field_validator("judges", mode="before")
    @classmethod
    def _panel_size(cls, value: Any) -> Any:
        """Said in the panel's words before the type's own (`List should have at most 5 items`)."""
        if isinstance(value, list) and len(value) > MAX_JUDGES:
            raise ValueError(
                f"a panel has at most {MAX_JUDGES} judges (each is one more judgement), not {len(value)}"
            )
        return value

    @field_validator("judges")
    @classmethod
    def _panel(cls, value: list[str], info: ValidationInfo) -> list[str]:
        """Every judge well formed, of a known provider, and named once (as the judge it judges as)."""
        seen: dict[tuple[str, str, str], str] = {}
        default_kind = info.data.get("judge", "contract")
        for spec in value:
            provider, model, kind = parse_judge_spec(spec)
            key = (provider, model, kind or default_kind)
            if key in seen:
                same = "is named twice" if seen[key] == spec else f"is the same judge as {seen[key]!r}"
                raise ValueError(f"{spec!r} {same}: name each judge once")
            seen[key] = spec
        return value

    @field_validator("context")
    @classmethod
    def _context(cls, value: str | None) -> str | None:
        return _clean_context(value)

    @field_validator("rounds", mode="before")
    @classmethod
    def _rounds(cls, value: Any) -> Any:
        """A whole number out of range says what is allowed (anything else: NUMBER's or the type's)."""
        if isinstance(value, int) and not isinstance(value, bool) and not 1 <= value <= MAX_FIXED_ROUNDS:
            raise ValueError(f"a debate has 1 to {MAX_FIXED_ROUNDS} rounds, not {value}")
        return value

    def run_request(self) -> RunRequest:
        """A live run of this claim, as asked."""
        return RunRequest(**{name: getattr(self, name) for name in ClaimAsked.model_fields})


def _web_address(value: str) -> str:
    """An http(s) address with a host, as a reader's browser would open it: no spaces or controls."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value[:80]!r} is not an http(s) address")
    if any(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cs") for ch in value):
        raise ValueError("an address cannot hold spaces or control characters")
    return value


WebAddress = Annotated[str, Field(max_length=2000), WHOLE_TEXT, AfterValidator(_web_address)]


class ClaimOrigin(Strict):
    """Who made the claim, where it appeared and when: what a ClaimReview of the run publishes as the
    claim it reviews (itemReviewed). Never shown to the debate: who said it is no evidence of it."""

    author: Text | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="Who made the claim: a person's or an organisation's name.",
    )
    author_type: Literal["Person", "Organization"] = Field(
        default="Person", description="What the author is."
    )
    appearances: list[WebAddress] = Field(
        default_factory=list,
        max_length=10,
        description="Where the claim appeared (http(s) addresses), the first known first.",
    )
    date_made: date | None = Field(default=None, description="When the claim was first made.")

    @field_validator("author")
    @classmethod
    def _author(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = " ".join(_reject_control_chars(value, "author").split())
        if not value:
            raise ValueError("author is blank")
        return value

    @field_validator("date_made")
    @classmethod
    def _made(cls, value: date | None) -> date | None:
        if value is not None and value > datetime.now(UTC).date():
            raise ValueError(f"date_made {value.isoformat()} is in the future")
        return value

    @model_validator(mode="after")
    def _something(self) -> ClaimOrigin:
        if self.author is None and not self.appearances and self.date_made is None:
            raise ValueError("claim_origin names no author, appearance or date: leave it out instead")
        return self


# A document collection's name (evidence/collections.py), and how many one run may search.
CORPUS_NAME = r"^[a-z0-9][a-z0-9_-]{0,62}$"
MAX_CORPORA = 8


def corpus_name_problem(name: str) -> str | None:
    if re.fullmatch(CORPUS_NAME, name):
        return None
    return f"{name!r} is not a collection name: 1-63 of a-z, 0-9, - and _, starting with a letter or digit"


def _corpus_name(name: str) -> str:
    if problem := corpus_name_problem(name):
        raise ValueError(problem)
    return name


def _distinct_corpora(names: list[str]) -> list[str]:
    if len(set(names)) != len(names):
        raise ValueError("a collection is named twice")
    return names


# A collection's name, refused in words (the pattern alone would be refused as a regular expression).
CorpusName = Annotated[str, AfterValidator(_corpus_name), Field(json_schema_extra={"pattern": CORPUS_NAME})]

Corpora = Annotated[
    list[CorpusName],
    Field(
        max_length=MAX_CORPORA,
        description="Document collections to search, by name (`climate` is the bundled corpus); empty: the "
        "deployment's evidence source.",
    ),
    AfterValidator(_distinct_corpora),
]


class RunRequest(ClaimAsked):
    """What a caller asks for. Validated before anything is stored or spent."""

    as_of_date: date | None = Field(default=None, description="Backtest: use only evidence up to this date.")
    claim_origin: ClaimOrigin | None = Field(
        default=None,
        description="Who made the claim, where and when: published in the run's ClaimReview only.",
    )
    corpora: Corpora = Field(default_factory=list)

    @field_validator("as_of_date")
    @classmethod
    def _as_of(cls, value: date | None) -> date | None:
        if value is not None and value > datetime.now(UTC).date():
            raise ValueError(f"as_of_date {value.isoformat()} is in the future")
        return value


# Cadences a monitor may name, as the cron expressions they stand for (UTC).
CADENCES = {"hourly": "0 * * * *", "daily": "0 0 * * *", "weekly": "0 0 * * 1"}


class MonitorRequest(ClaimAsked):
    """A claim to re-score on a schedule, and how far its score must move to say so."""

    cadence: Text = Field(
        max_length=100, description="hourly, daily, weekly, or a 5-field cron expression (UTC)."
    )
    threshold: Annotated[int, NUMBER] = Field(
        ge=1, le=100, description="Points the score must move for a claim.score_changed event."
    )

    @field_validator("cadence")
    @classmethod
    def _cadence(cls, value: str) -> str:
        from croniter import croniter  # only where cadences are read: not at a stage's cold start

        value = " ".join(value.split()).lower()
        if value in CADENCES:
            return value
        if len(value.split(" ")) != 5 or not croniter.is_valid(value):
            raise ValueError(f"{value!r} is not hourly, daily, weekly or a 5-field cron expression")
        try:  # a valid expression may still never come round (30 February)
            croniter(value, datetime.now(UTC)).get_next(datetime)
        except Exception:
            raise ValueError(f"{value!r} never comes round") from None
        return value


# ---------------------------------------------------------------- stage artifacts


class DecompositionCheck(Strict):
    """The suitability check's audit of the split (two or more sub-claims): an overlapping or gapped
    split is split once more, with the audit as feedback."""

    ok: bool
    overlaps: list[str] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)


class SuitabilityFlag(StrEnum):
    TIME_SENSITIVE = "time_sensitive"
    SELF_REFERENTIAL = "self_referential"
    UNFALSIFIABLE = "unfalsifiable"
    NOT_A_CLAIM = "not_a_claim"


class Suitability(Strict):
    """The suitability check, made once the first round's pool is in: whether a debate can serve the
    claim, and (when it was split in two or more) its audit of the split."""

    proceed: bool = Field(description="False stops the run: a debate cannot serve this claim.")
    flags: list[SuitabilityFlag] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list, description="Human-readable, one per flag.")
    audit: DecompositionCheck | None = Field(
        default=None, description="The split's audit: asked only when the claim has two or more sub-claims."
    )


class StopReason(StrEnum):
    """Why a stopped run was not debated: the suitability check's two outcomes that end a run."""

    UNSUITABLE = "unsuitable"  # the claim is not one a debate over evidence can serve (its flags say why)
    ADD_DOCUMENTS = "add_documents"  # the evidence pool does not speak to it: not enough evidence, bring some


class SubClaimRelevance(Strict):
    """How far a sub-claim's passages (the user's context among them) speak to it, measured before the
    debate (debate/relevance.py)."""

    sub_claim_id: str
    passages: int = Field(ge=0, description="Its passages: those retrieved for it, and the user's context.")
    scores: dict[str, float] = Field(
        default_factory=dict,
        description="Each signal's reading, 0–1: how far its best passage speaks to it (a signal that could "
        "not measure it is left out).",
    )
    reading: Literal["on_topic", "off_topic", "no_passages", "unmeasured"] = Field(
        description="unmeasured: it has no word the check reads; it is never warned of, nor stops a debate."
    )
    closest_evidence_id: str | None = None
    reason: str = Field(
        default="", description="Why it reads off topic or unmeasured, in words (empty when on topic)."
    )


class PoolRelevance(Strict):
    """The pool-relevance check: each sub-claim's reading, and whether none is worth a debate."""

    sub_claims: list[SubClaimRelevance]
    add_documents: bool = Field(
        description="No sub-claim's passages share a word with it (or it has none): answered not enough "
        "evidence, with no debate."
    )
    warnings: list[str] = Field(default_factory=list)

    def off_topic(self) -> list[SubClaimRelevance]:
        """The sub-claims the pool does not speak to (an unmeasured one is not said to be)."""
        return [s for s in self.sub_claims if s.reading in ("off_topic", "no_passages")]


# What every role of a claim debate that reads the pool is told of it, in the run's shared opening: the
# pool-relevance check after each round's retrieval, by round (artifacts.pool_readings).
RelevanceByRound = Annotated[
    dict[int, PoolRelevance],
    Field(
        description="The pool-relevance check after each round's retrieval, by round: in the shared opening."
    ),
]


class SubClaim(Strict):
    id: str = Field(pattern=r"^sc[0-9]+$", description="sc1, sc2, …")
    # As long as a claim may be: a claim debated whole is its own single sub-claim.
    text: str = Field(min_length=1, max_length=MAX_CLAIM_CHARS)
    directive: str = Field(min_length=1, max_length=300, description="One exact search query.")


# The most sub-claims any effort asks for; a task's schema narrows it to its effort's limit.
MAX_SUB_CLAIMS = 6


class Decomposition(Strict):
    sub_claims: list[SubClaim] = Field(min_length=1, max_length=MAX_SUB_CLAIMS)
    shape: Shape = Field(
        description="How the sub-claims decide the claim. "
        + "; ".join(f"{name}: {meaning}" for name, meaning in SHAPES.items())
    )
    rationale: str = Field(default="", description="Why the split is exclusive and exhaustive.")


class Directive(Strict):
    """One retrieval directive: small enough to travel in a state payload."""

    sub_claim_id: str
    query: str
    contrarian: bool = Field(default=False, description="It seeks evidence against the emerging verdict.")


# The source_url prefix of passages the user supplied with --context (not evidence anyone found).
USER_CONTEXT_URL = "user-context:"


class Evidence(Strict):
    id: str = Field(description="Stable within a run: E + a short hash of source and text.")
    text: str
    title: str
    source_url: str
    tier: Tier
    published: date | None = None
    page: int | None = Field(default=None, description="The page of its document (a PDF's), when known.")
    query: str = Field(description="The directive that found it.")
    sub_claim_id: str
    round: int = Field(ge=1)


class Point(Strict):
    sub_claim_id: str
    argument: str = Field(min_length=1)
    implied_score: Score = Field(
        description="Your honest probability, 0–100, that the sub-claim is true given the evidence pool: "
        "your belief, not your advocacy."
    )
    confidence: Confidence = Field(
        description="How sure you are of implied_score, 0–1: low when the evidence is thin, indirect or "
        "secondary."
    )
    citations: list[str] = Field(default_factory=list, description="Evidence ids from the pool.")
    position_change: str | None = Field(
        default=None, description="From round 2: what moved and which new evidence moved it."
    )


class Refusal(Strict):
    reason: str


class ArgumentDraft(Strict):
    """What a debater returns: points (one per sub-claim), or a structured refusal, never both."""

    points: list[Point] = Field(
        default_factory=list, description="One point per sub-claim; empty if refusing."
    )
    refusal: Refusal | None = Field(default=None, description="Only if you decline to argue; then no points.")

    @model_validator(mode="after")
    def _points_xor_refusal(self) -> ArgumentDraft:
        if self.points and self.refusal is not None:
            raise ValueError("give points or a refusal, not both")
        if not self.points and self.refusal is None:
            raise ValueError("give one point per sub-claim, or a refusal")
        return self


class Argument(Strict):
    side: Side
    round: int = Field(ge=1)
    persona: int = Field(default=0, ge=0, description="Bumped when the moderator escalates.")
    points: list[Point] = Field(default_factory=list)
    refusal: Refusal | None = None
    absent: bool = Field(
        default=False,
        description="Not asked this round: its side had declined to argue in an earlier round (the other"
        " side's one counter-argument turn). No points, no refusal.",
    )

    @property
    def made(self) -> bool:
        """Whether an argument was made: not a refusal, not an absence."""
        return self.refusal is None and not self.absent

    def implied_score(self) -> int | None:
        if not self.points:
            return None
        return round(sum(p.implied_score for p in self.points) / len(self.points))


class RoundAction(StrEnum):
    """What the round controller decides after a round: the only five outcomes."""

    CONTINUE = "continue"
    STOP_CONVERGED = "stop_converged"
    ESCALATE_NEW_PERSONA = "escalate_new_persona"
    STOP_MAX_ROUNDS = "stop_max_rounds"
    STOP_SAFETY = "stop_safety"

    @classmethod
    def _missing_(cls, value: object) -> RoundAction | None:
        return cls.ESCALATE_NEW_PERSONA if value == "escalate" else None  # its name before the controller

    @property
    def another_round(self) -> bool:
        return self in (RoundAction.CONTINUE, RoundAction.ESCALATE_NEW_PERSONA)


RoundsMode = Literal["off", "shadow", "on"]


class FrontierIssue(Strict):
    """One live disagreement: what the sides still dispute, and where each stands."""

    core_issue: str
    for_stance: str
    against_stance: str
    sub_claim_id: str


class ModeratorView(Strict):
    """The moderator's reading of one round (the LLM's part of the round controller's signals)."""

    decisive_dispute: str
    dispute_sub_claim_id: str
    next_query: str = Field(min_length=2, max_length=300)
    recommendation: Literal["continue", "converged", "escalate", "safety"]
    provisional_score: Score = Field(
        description="The moderator's current probability, 0–100, that the claim is true given the pool."
    )
    contrarian_query: str | None = Field(
        default=None,
        max_length=300,
        description="When the debate leans one way: a search for the strongest evidence the other way.",
    )
    consensus: list[str] = Field(default_factory=list, description="Statements both sides accept.")
    disagreement_frontier: list[FrontierIssue] = Field(
        default_factory=list, description="What is still disputed: the next round argues these."
    )
    rationale: str = ""


class RoundSignals(Strict):
    """What the round controller measured after a round (None where there is nothing to compare)."""

    similarity_for: float | None = Field(
        default=None, description="The case-for's argument vs its previous round: cosine, 0–1."
    )
    similarity_against: float | None = None
    score_shift: float | None = Field(
        default=None, description="Mean change of the sides' implied sub-claim scores since the last round."
    )
    score_gap: float = Field(default=0.0, description="Mean distance between the sides' implied scores.")
    provisional_score: int | None = None
    provisional_shift: int | None = Field(
        default=None, description="Change of the moderator's provisional score since the last round."
    )
    new_evidence: int = Field(default=0, description="Evidence ids cited this round that no round cited.")
    new_points: int = Field(
        default=0,
        description="New moves (both sides): a point on a sub-claim its side had not argued, or citing a "
        "passage its side had not cited there.",
    )
    frontier: int | None = Field(default=None, description="Issues on the moderator's disagreement frontier.")
    frontier_shift: int | None = Field(
        default=None, description="Its change since the last round (− narrows)."
    )
    moderator: Literal["continue", "converged", "escalate", "safety", "refused", "not asked"] = "not asked"


class RoundDecision(Strict):
    """The round controller's decision after one round, as persisted (decision/rNN) and served."""

    round: int
    action: RoundAction = Field(description="What the run did.")
    rule: str = Field(default="", description="The rule that decided it.")
    mode: RoundsMode = "on"
    controller_action: RoundAction | None = Field(
        default=None, description="What the controller decided; in shadow mode it may differ from action."
    )
    controller_rule: str = ""
    signals: RoundSignals | None = None
    decisive_dispute: str = ""
    directives: list[Directive] = Field(default_factory=list)
    persona: int = Field(default=0, description="The debaters' persona next round (an index of PERSONAS).")
    persona_name: str = ""
    rationale: str = ""


Rating = Annotated[int, Field(ge=1, le=10)]


# A motion team's checker reads these docstrings in its reply's schema (a claim debate's tools carry no
# descriptions): they speak to it. A claim debate's neutral checker scores either position's citations
# and answers none.
class CitationCheck(Strict):
    """A fact-checker's scores for one of the other side's citations."""

    key: str = Field(description="The citation's ledger key, e.g. against_3.")
    credibility: Rating = Field(description="How credible the source is, 1–10 (T1 primary sources high).")
    correspondence: Rating = Field(
        description="Does the passage say what the argument says it says? 1 (not at all) – 10 (exactly)."
    )
    comment: str = Field(description="Why, in a sentence or two: the adversary's case against it.")


class CitationResponse(Strict):
    """A fact-checker's answer to the scores left on its own side's citation (the proponent's reply)."""

    key: str
    response: str


class FactcheckReply(Strict):
    """What a fact-checker returns: a check of each new citation of the other side, and a response
    to each check left on its own side's citations. It adds no citations."""

    checks: list[CitationCheck] = Field(default_factory=list)
    responses: list[CitationResponse] = Field(default_factory=list)


# ---------------------------------------------------------------- a backtest's hindsight check
# Each retrieved source of a backtest is dated from its text: written before the date, or after it.

Written = Literal["before", "after"]


class DatedSource(Strict):
    """One source as the hindsight check reads it: the passage as the source returned it."""

    id: str
    title: str
    url: str
    published: date | None = Field(
        default=None, description="Its publication date, when the source gave one."
    )
    text: str


class HindsightInput(Strict):
    as_of: date = Field(description="The backtest's date.")
    today: date | None = Field(default=None, description="The run's date: what 'now' means to the role.")
    sources: list[DatedSource]


class SourceDating(Strict):
    id: str = Field(description="The source's id, as given.")
    written: Written = Field(
        description="after: it reports, reviews or cites what happened after the date, or says it was "
        "written later; before: nothing in it places its writing after the date."
    )
    reason: str = Field(max_length=400, description="One sentence quoting the words that decide it.")


class HindsightReply(Strict):
    """When each source was written, against the backtest's date."""

    sources: list[SourceDating]


class HindsightDrop(Strict):
    """A source a backtest left out as written after its date, and why."""

    id: str
    title: str
    url: str
    reason: str


class LedgerEntry(Strict):
    """One citation in the run's ledger: who made it, where, on what, and how it fared."""

    key: str = Field(description="for_1, for_2, … and against_1, …, in order of appearance.")
    side: Side
    evidence_id: str
    source_url: str
    title: str
    tier: Tier
    page: int | None = Field(default=None, description="The page of its document (a PDF's), when known.")
    round: int = Field(description="The round whose argument added it.")
    sub_claim_id: str
    sentence: str = Field(description="The sentence of the argument that used it.")
    passage: str = Field(default="", description="What the cited passage says.")
    credibility: int | None = Field(
        default=None, description="1–10, from the fact-checker (a motion's: the other team's)."
    )
    correspondence: int | None = Field(
        default=None, description="1–10, from the fact-checker (a motion's: the other team's)."
    )
    comment: str | None = None
    checked_round: int | None = None
    response: str | None = Field(
        default=None,
        description="A motion team's fact-checker's answer to the check (a claim debate's go unanswered).",
    )


class FactcheckInput(Strict):
    claim: str
    side: Side | None = Field(
        default=None,
        description="A motion team's fact-checker's own side; None: a claim debate's neutral checker.",
    )
    round: int
    to_check: list[LedgerEntry] = Field(
        description="The citations new this round: the other side's (a motion team's checker), or both"
        " positions', keyed by position as the judge reads them (A_1, B_2: the neutral checker)."
    )
    to_answer: list[LedgerEntry] = Field(
        default_factory=list, description="A motion team's own citations checked last round."
    )
    # Motion debates: the team speaks first or second in its round; its private notes.
    turn: Turn = "together"
    team_notes: list[str] = Field(default_factory=list)
    # A claim debate's: what every call of the run reads first (the cited passages are in the pool).
    sub_claims: list[SubClaim] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list, description="The pool up to this round.")
    debate: list[AnonymousPosition] = Field(
        default_factory=list,
        description="The rounds before this one, as the judge reads them: in the shared opening.",
    )
    labels: dict[Side, Literal["A", "B"]] = Field(
        default_factory=dict, description="Which position each side is in `debate`."
    )
    relevance: RelevanceByRound = {}  # pydantic copies a default for each model
    judge: JudgeKind = Field(
        default="contract", description="The run's judge: its reply tool is among those every call sends."
    )


class SubClaimJudgement(Strict):
    sub_claim_id: str
    score: Score = Field(
        description="The probability, 0–100, that this sub-claim is true given only the pool."
    )
    verdict: Verdict
    referee_synthesis: str
    # Required but nullable: the judge must say "none" rather than forget.
    decisive_evidence_id: str | None = Field(description="The evidence id that decided it, or null.")
    stronger_position: Literal["A", "B", "neither"]


class StructuralAnalysis(Strict):
    assumptions: list[str] = Field(default_factory=list)
    first_principles: list[str] = Field(default_factory=list)
    critical_path: list[str] = Field(default_factory=list)
    external_dependencies: list[str] = Field(default_factory=list)


class Interval(Strict):
    low: Score
    high: Score

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.low > self.high:
            raise ValueError(f"interval low {self.low} is above high {self.high}")
        return self


class Direction(StrEnum):
    """Which way new evidence would move a score."""

    TOWARD_0 = "toward 0"
    TOWARD_100 = "toward 100"


WOULD_CHANGE = "The specific new evidence that would move the score most, most decisive first."
_DIRECTION = (
    "Which way that evidence would move the claim's score: toward 0 (against it) or toward 100 (for it)."
)
_WHAT = "The evidence that would move it, in a sentence: what it would have to show."
_WHERE = "Where to look for it: the kind of source that would hold it, or a search query for it."
_SUB_CLAIM = "The id of the sub-claim it bears on, or null when it bears on the claim as a whole."


class WouldChange(Strict):
    """One piece of new evidence that would move the score, as a judge names it: a lead a reader can
    follow (what to find, where, which sub-claim it bears on, and which way it would move the score)."""

    direction: Direction = Field(description=_DIRECTION)
    what: str = Field(min_length=1, description=_WHAT)
    where_to_look: str = Field(description=_WHERE)
    sub_claim: str | None = Field(description=_SUB_CLAIM)


class ScoreMover(Strict):
    """A result's `what_would_change` item: a judge's `WouldChange`, or one read from a result stored
    before those were objects (a sentence: `what` is it, direction and sub-claim unknown)."""

    direction: Direction | None = Field(
        description=_DIRECTION + " Null: not recorded (a result from before directions were)."
    )
    what: str = Field(description=_WHAT)
    where_to_look: str = Field(default="", description=_WHERE + " Empty: not recorded.")
    sub_claim: str | None = Field(default=None, description=_SUB_CLAIM)

    @model_validator(mode="before")
    @classmethod
    def _from_sentence(cls, value: Any) -> Any:
        # Results stored before issue 27 hold each item as a sentence: it stays readable, unguessed.
        return {"direction": None, "what": value} if isinstance(value, str) else value

    def line(self) -> str:
        """One readable line: "↑ toward 100 — sc2: what (look: where)"; a stored sentence as it was."""
        if self.direction is None:
            return self.what + (f" (look: {self.where_to_look})" if self.where_to_look else "")
        arrow = "↑" if self.direction is Direction.TOWARD_100 else "↓"
        look = f" (look: {self.where_to_look})" if self.where_to_look else ""
        return f"{arrow} {self.direction.value} — {self.sub_claim or 'the claim'}: {self.what}{look}"


class Judgement(Strict):
    """The final moderator's reply, over anonymized positions A and B."""

    sub_claims: list[SubClaimJudgement]
    overall_score: Score = Field(description="The probability, 0–100, that the claim is true given the pool.")
    overall_interval: Interval = Field(description="Your 80 % interval for overall_score; it contains it.")
    adjustment_reason: str | None = Field(
        description="Null when overall_score follows the composition rule; else why it departs from it."
    )
    decisive_evidence_id: str | None = Field(description="The single evidence id that decided it, or null.")
    what_would_change: list[WouldChange] = Field(default_factory=list, description=WOULD_CHANGE)
    structural_analysis: StructuralAnalysis = Field(default_factory=StructuralAnalysis)

    @model_validator(mode="after")
    def _interval_holds_the_score(self) -> Judgement:
        if not self.overall_interval.low <= self.overall_score <= self.overall_interval.high:
            raise ValueError(
                f"overall_interval {self.overall_interval.low}–{self.overall_interval.high} must contain "
                f"overall_score {self.overall_score}"
            )
        return self


# The disagreement hierarchy (Graham), lowest first: what the rubric judge rates each position's
# arguments by. A level says how a position argued, never how true the claim is.
DISAGREEMENT_HIERARCHY = (
    "DH0 name-calling",
    "DH1 ad hominem",
    "DH2 responding to tone",
    "DH3 contradiction",
    "DH4 counterargument",
    "DH5 refutation",
    "DH6 refuting the central point",
)
Rubric = Annotated[int, Field(ge=0, le=10)]


class HierarchyRating(Strict):
    """Where one position's arguments on one sub-claim reach on the disagreement hierarchy."""

    position: Literal["A", "B"]
    sub_claim_id: str
    level: int | None = Field(
        ge=0, le=6, description="The highest level they reach, 0–6 (DH0–DH6); null: no argument on it."
    )
    comment: str = Field(description="Why that level, in a sentence.")


class SubClaimRubric(Strict):
    sub_claim_id: str
    # Required but nullable, as every judge's: null is an answer ("needs more evidence"), not an omission.
    rating: Rubric | None = Field(
        description="0–4 the pool contradicts it, 5 misleading, 6–10 the pool supports it; null: needs "
        "more evidence."
    )
    referee_synthesis: str
    decisive_evidence_id: str | None = Field(description="The evidence id that decided it, or null.")
    stronger_position: Literal["A", "B", "neither"]


class RubricJudgement(Strict):
    """The rubric judge's reply (`judge: rubric`), over anonymized positions A and B: each position's
    arguments on the disagreement hierarchy, and a 0–10 rating (or null) per sub-claim and overall."""

    hierarchy: list[HierarchyRating]
    sub_claims: list[SubClaimRubric]
    rating: Rubric | None = Field(description="The claim as a whole, 0–10; null: needs more evidence.")
    adjustment_reason: str | None = Field(
        description="Null when rating follows the composition rule; else why it departs from it."
    )
    decisive_evidence_id: str | None = Field(description="The single evidence id that decided it, or null.")
    what_would_change: list[WouldChange] = Field(default_factory=list, description=WOULD_CHANGE)
    structural_analysis: StructuralAnalysis = Field(default_factory=StructuralAnalysis)


class BaselineJudgement(Strict):
    """A baseline's reply: the claim judged in one call, no debate."""

    score: Score = Field(description="The probability, 0–100, that the claim is true.")
    interval: Interval = Field(description="Your 80 % interval for score; it contains it.")
    verdict: Verdict
    rationale: str = Field(default="", description="What decided it, briefly.")
    decisive_evidence_id: str | None = Field(
        default=None, description="The evidence id that decided it, or null."
    )

    @model_validator(mode="after")
    def _interval_holds_the_score(self) -> BaselineJudgement:
        if not self.interval.low <= self.score <= self.interval.high:
            raise ValueError(
                f"interval {self.interval.low}–{self.interval.high} must contain score {self.score}"
            )
        return self


# ---------------------------------------------------------------- the result


class SourceRef(Strict):
    evidence_id: str
    title: str
    source_url: str
    tier: Tier
    published: date | None = None
    page: int | None = Field(default=None, description="The page of its document (a PDF's), when known.")


class SubClaimResult(Strict):
    id: str
    text: str
    score: Score
    verdict: Verdict
    case_for: str
    case_against: str
    referee_synthesis: str
    judge_score: Score | None = Field(default=None, description="The judge's score before any adjustment.")
    stronger_side: Side | None = Field(
        default=None, description="Which side the judge found stronger, re-attached after anonymized judging."
    )
    decisive_source: SourceRef | None = None


class ModelUsage(Strict):
    provider: str
    input_tokens: int = Field(default=0, description="Input tokens outside the prompt cache.")
    output_tokens: int = 0
    cache_read_tokens: int = Field(default=0, description="Input tokens read from the prompt cache.")
    cache_write_tokens: int = Field(default=0, description="Input tokens written to the prompt cache.")
    calls: int = 0
    cost_usd: float = 0.0
    price_known: bool = True


@dataclass(frozen=True)
class CallRecord:
    """One billed call, as the ledger keeps it."""

    run_id: str
    call_key: str
    provider: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    price_known: bool
    output_json: str | None
    refusal: str | None
    attempts: int = 1  # a malformed reply and its retry are two billed calls
    # Prompt-cache tokens, billed at their own rates; input_tokens excludes them.
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


class Usage(Strict):
    models: dict[str, ModelUsage] = Field(default_factory=dict)
    llm_calls: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    total_cost_usd: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0


def usage_from(calls: Iterable[CallRecord], cache_hits: int, cache_misses: int) -> Usage:
    """A run's account from its ledger: per model, and in total."""
    models: dict[str, ModelUsage] = {}
    for c in calls:
        m = models.setdefault(c.model, ModelUsage(provider=c.provider))
        m.input_tokens += c.input_tokens
        m.output_tokens += c.output_tokens
        m.cache_read_tokens += c.cache_read_tokens
        m.cache_write_tokens += c.cache_write_tokens
        m.calls += c.attempts
        m.cost_usd += c.cost_usd
        m.price_known = m.price_known and c.price_known
    return Usage(
        models=models,
        llm_calls=sum(m.calls for name, m in models.items() if name != "offline"),
        cache_hits=cache_hits,
        cache_misses=cache_misses,
        total_cost_usd=round(sum(m.cost_usd for m in models.values()), 6),
        input_tokens=sum(m.input_tokens for m in models.values()),
        output_tokens=sum(m.output_tokens for m in models.values()),
    )


class RoundControl(Strict):
    """A run's rounds against the round controller's decisions: in shadow mode, what steering would
    have saved (it wanted to stop earlier) or added (it wanted to go on after the last fixed round)."""

    mode: RoundsMode
    rounds: int
    controller_stop_round: int | None = Field(
        default=None, description="The round after which the controller decided to stop (None: it never did)."
    )
    would_save_rounds: int = 0
    would_save_usd: float = Field(default=0.0, description="What the rounds after that stop cost.")
    would_save_calls: int = 0
    would_continue: bool = Field(default=False, description="The controller wanted more rounds than ran.")


class Redeliberation(Strict):
    """Conditional re-deliberation: one more judgement when the independent ones disagreed widely
    and the pool holds contrarian evidence (at most one extra call per run)."""

    triggered: bool
    spread_before: int | None = Field(default=None, description="Max − min of the samples' overall scores.")
    spread_after: int | None = Field(
        default=None, description="How far the re-deliberated score lies from the samples' median."
    )
    reason: str


class Adjustment(Strict):
    """One thing the score stage did to the judge's numbers, and why (docs/scoring.md)."""

    target: str = Field(description="'overall', 'interval', or a sub-claim id.")
    kind: Literal[
        "rubric_scale",
        "composition",
        "judge_departure",
        "sub_claim_bounds",
        "evidence_quality",
        "interval_recentred",
        "self_consistency",
        "panel",
        "interval_floor",
        "verdict_band",
    ]
    detail: str
    before: int | None = Field(
        default=None, description="A score's value before; for target 'interval', the interval's width."
    )
    after: int | None = Field(
        default=None, description="A score's value after; for target 'interval', the interval's width."
    )
    before_interval: Interval | None = Field(
        default=None, description="Target 'interval': the interval before."
    )
    after_interval: Interval | None = Field(
        default=None, description="Target 'interval': the interval after."
    )


class SideHierarchy(Strict):
    """One side's arguments on one sub-claim on the disagreement hierarchy, as the rubric judge rated them."""

    side: Side
    sub_claim_id: str
    level: int | None = Field(description="0–6 (DH0–DH6); null: it made no argument on the sub-claim.")
    name: str = Field(description="The level's name, e.g. 'DH5 refutation' ('' for null).")
    comment: str


class RubricVerdict(Strict):
    """What the rubric judge said, before its ratings were read onto the 0–100 scale (docs/scoring.md)."""

    rating: int | None = Field(
        description="The judge's own 0–10 rating of the claim; null: needs more evidence."
    )
    reading: Reading
    sub_claims: dict[str, int | None] = Field(description="Each sub-claim's 0–10 rating (null: needs more).")
    hierarchy: list[SideHierarchy] = Field(default_factory=list)


# How the interval was found. The last two are those of runs scored before the contract.
IntervalMethod = Literal[
    "judge", "judge+self_consistency", "judge+panel", "self_consistency", "sub_claim_dispersion"
]


class BacktestDating(Strict):
    """What a backtest could check of its sources against its date: of the passages its retrievals
    returned (each counted once), how many carried a publication date, and how many were left out
    as after the date (published or titled later, written later by their text, or nothing left once
    sentences naming a later time were cut). A source that knows dates leaves later passages out
    itself, before they are counted; the bundled corpus is undated."""

    retrieved: int = Field(ge=0)
    dated: int = Field(ge=0)
    dropped: int = Field(ge=0)
    written_after: int = Field(
        default=0,
        ge=0,
        description="Of those dropped, how many the hindsight check read as written after the date.",
    )
    hindsight: list[HindsightDrop] = Field(
        default_factory=list, description="Each source the hindsight check left out, and why."
    )
    judged_by: list[str] = Field(
        default_factory=list,
        description="Who dated the sources by their text: a provider:model, or offline (the lexical check).",
    )


# Which web search serves a run's evidence (CLAIMCOURT_SEARCH): none is the bundled corpus.
SearchName = Literal["anthropic", "openai", "searxng", "none"]
# Each web search source's name (a part of its retrievals' cache key; prompts name it) and its search.
ANTHROPIC_WEB, OPENAI_WEB, SEARXNG_WEB = "anthropic-web", "openai-web", "searxng-web"
SEARCH_OF_SOURCE: dict[str, SearchName] = {
    ANTHROPIC_WEB: "anthropic",
    OPENAI_WEB: "openai",
    SEARXNG_WEB: "searxng",
}


SEARCHED = (
    "The evidence sources the run searched: a document collection as name@version (a hash of its content), "
    "else the source's name (climate-fever-wikipedia: the bundled corpus; anthropic-web; golden)."
)


class DebaterSpan(Strict):
    """One debater's argue stage in a round, from its stage.started to its stage.completed event."""

    side: Side
    started_at: datetime
    ended_at: datetime


class RoundParallelism(Strict):
    """Whether a round's two debaters ran at once (the seed's parallelism gate), from their stage events."""

    round: int
    in_turn: bool = Field(
        description="The sides argued one after the other by design (a first speaker): nothing to gate."
    )
    debaters: list[DebaterSpan] = Field(description="Case for, then case against.")
    overlap: float = Field(
        ge=0, le=1, description="How much the two overlapped, as a share of the shorter one (0 to 1)."
    )
    gate: Literal["PASS", "FAIL"] | None = Field(
        description="PASS: they overlapped (ran in parallel); FAIL: one ran after the other though both "
        "were meant to run at once; null: in turn by design."
    )


class PanelJudge(Strict):
    """One judge of a run's panel (`judges`) and the judgement it gave, scored by the scoring contract as
    if it alone had judged the run."""

    judge: str = Field(
        description="The judge as the request named it, e.g. `openai:gpt-4.1`, `offline+rubric`."
    )
    model: str = Field(description="provider:model that judged.")
    kind: JudgeKind = Field(description="The contract's judge or the rubric judge.")
    prompt_version: str | None = Field(default=None, description="The judge's prompt, `<template>@<digest>`.")
    score: Score | None = Field(
        default=None, description="The overall score it implies (null: no judgement)."
    )
    interval: Interval | None = Field(
        default=None, description="Its 80 % interval, as if it alone had judged."
    )
    verdict: Verdict | None = None
    judge_score: Score | None = Field(
        default=None, description="Its own overall score, before any adjustment."
    )
    sub_scores: dict[str, Score] = Field(
        default_factory=dict, description="Each sub-claim's score it implies."
    )
    cost_usd: float = Field(default=0.0, description="Its own calls' cost.")
    price_known: bool = True
    llm_calls: int = 0
    error: str | None = Field(default=None, description="Why it gave no judgement (a refusal, a failure).")


class Panel(Strict):
    """A panel of judges (the request's `judges`): every judgement, which one speaks for the run, and how
    far apart they are (docs/scoring.md, "A panel of judges")."""

    judges: list[PanelJudge] = Field(description="In the order the request named them.")
    speaks: int = Field(ge=0, description="The index in `judges` of the judgement that speaks for the run.")
    rule: str = Field(description="How that one was chosen: the panel's median, stated.")
    spread: int | None = Field(
        default=None, description="Max − min of the judges' scores (null: fewer than two judged)."
    )
    sd: float | None = Field(
        default=None, description="The judges' scores' standard deviation (population; null: fewer than two)."
    )


class Result(Strict):
    run_id: str
    claim: str
    mode: Mode
    as_of_date: date | None = None
    overall_score: Score = Field(
        description="The probability, 0–100, that the claim is true given the evidence."
    )
    interval: Interval = Field(description="80 % interval around overall_score.")
    overall_verdict: Verdict
    interval_method: IntervalMethod
    judge_score: Score | None = Field(
        default=None, description="The judge's own overall score, before any adjustment."
    )
    judge_interval: Interval | None = Field(
        default=None, description="The judge's own 80 % interval, before any adjustment."
    )
    shape: Shape | None = Field(default=None, description="How the sub-claims decide the claim.")
    adjustments: list[Adjustment] = Field(
        default_factory=list, description="Every change made to the judge's numbers, named."
    )
    natural_temperature: list[str] = Field(
        default_factory=list, description="Roles whose calls ran at the model's natural temperature."
    )
    rounds: int
    rounds_fixed: int | None = Field(
        default=None, description="The rounds the request fixed (null: the effort's, or the controller's)."
    )
    first: Side | None = Field(
        default=None,
        description="Who argued first in every round, the other answering it (null: both at once).",
    )
    judge: JudgeKind = Field(default="contract", description="Which judge scored it.")
    rubric: RubricVerdict | None = Field(
        default=None, description="The rubric judge's own ratings (judge rubric), before the 0–100 reading."
    )
    citations: list[LedgerEntry] = Field(
        default_factory=list, description="The citation ledger: every citation with its fact-check."
    )
    re_deliberation: Redeliberation | None = Field(
        default=None, description="Whether the judgement was asked once more, and why (None: one sample)."
    )
    panel: Panel | None = Field(
        default=None,
        description="A panel of judges' every judgement, its median and spread (null: one judge).",
    )
    round_control: RoundControl | None = Field(
        default=None, description="What the round controller did, or in shadow mode would have done."
    )
    ended_early: EarlyEnd | None = Field(
        default=None, description="A debater declined to argue: when, and what followed (null: no refusal)."
    )
    sub_claims: list[SubClaimResult]
    decisive_source: SourceRef | None = None
    what_would_change: list[ScoreMover] = Field(
        description="What new evidence would move the score, which way, and where to look for it."
    )
    structural_analysis: StructuralAnalysis
    sources: list[SourceRef] = Field(description="Every cited source, T1 first.")
    warnings: list[str] = Field(default_factory=list)
    reasoner: str = Field(description="Which reasoner produced this: 'offline' means no model was used.")
    models: dict[str, str] = Field(default_factory=dict, description="Role → provider:model.")
    usage: Usage
    backtest: BacktestDating | None = Field(
        default=None, description="A backtest's (as_of_date) check of its sources against the date."
    )
    search: SearchName | None = Field(
        default=None,
        description="The web search that served the run's evidence: anthropic, openai or searxng; none: "
        "no web search did (the bundled corpus); null: not recorded (a run from before this field).",
    )
    pool_relevance: PoolRelevance | None = Field(
        default=None, description="How far each sub-claim's passages speak to it (the pool the judge read)."
    )
    searched: list[str] = Field(default_factory=list, description=SEARCHED)
    parallelism: list[RoundParallelism] = Field(
        default_factory=list, description="Per round: the debaters' times and whether they ran at once."
    )


# ---------------------------------------------------------------- records and events


def utcnow() -> datetime:
    return datetime.now(UTC)


class RunEvent(Strict):
    run_id: str
    seq: int = 0
    type: str  # stage.started, stage.completed, run.succeeded, run.failed, run.stopped, …
    stage: Stage | None = None
    round: int | None = None
    side: Side | None = None
    at: datetime = Field(default_factory=utcnow)
    data: dict[str, Any] = Field(default_factory=dict)


LOCAL_TENANT = "local"  # the laptop's CLI runs, and the owner of runs made before tenants existed
TENANT_ID = r"^[a-z0-9][a-z0-9-]{0,62}$"


class RunRecord(Strict):
    run_id: str
    claim_id: str
    status: RunStatus
    request: RunRequest
    source_tag: SourceTag = SourceTag.APP
    tenant_id: str = LOCAL_TENANT
    deleted_at: datetime | None = None  # soft delete: kept, but no longer listed or served
    created_at: datetime = Field(default_factory=utcnow)
    finished_at: datetime | None = None
    score: int | None = None
    interval: Interval | None = None
    verdict: Verdict | None = None
    cost_usd: float = 0.0
    tokens: int = 0
    error: str | None = None
    warnings: list[str] = Field(default_factory=list)
    stop_reason: StopReason | None = None  # a stopped run: why it was not debated
    result: Result | None = None
    # A motion debate (statemachine/motion.asl.json); `request` then carries its motion as the claim.
    motion: MotionRequest | None = None


class RunOutput(BaseModel):
    """One run as `claimcourt run --json`, `claimcourt show --json` and the HTTP API give it, whatever
    its status: the headline fields, the error or warnings, and the full result once it has succeeded."""

    run_id: str
    kind: Literal["claim", "motion"] = Field(
        default="claim", description="A claim debate, or a motion debate (its result: GET /motions/{id})."
    )
    status: RunStatus
    claim: str
    claim_id: str
    mode: Mode
    source_tag: SourceTag
    as_of_date: str | None
    created_at: datetime
    finished_at: datetime | None
    score: int | None
    interval: Interval | None
    verdict: Verdict | None
    error: str | None
    warnings: list[str]
    stop_reason: StopReason | None = Field(
        default=None,
        description="A stopped run: unsuitable (not a claim a debate can serve), or add_documents (the "
        "evidence pool does not speak to it: not enough evidence; the warnings say what to add).",
    )
    cost_usd: float
    tokens: int
    usage: Usage | None = Field(
        default=None, description="Every call the run made, whatever its end (in the run's own view)."
    )
    result: Result | None = Field(default=None, description="The full result, once the run has succeeded.")

    @classmethod
    def fields_of(cls, record: RunRecord, full: bool = True, usage: Usage | None = None) -> dict[str, Any]:
        return {
            "run_id": record.run_id,
            "kind": "motion" if record.motion is not None else "claim",
            "status": record.status,
            "claim": record.request.claim,
            "claim_id": record.claim_id,
            "mode": record.request.mode,
            "source_tag": record.source_tag,
            "as_of_date": record.request.as_of_date.isoformat() if record.request.as_of_date else None,
            "created_at": record.created_at,
            "finished_at": record.finished_at,
            "score": record.score,
            "interval": record.interval,
            "verdict": record.verdict,
            "error": record.error,
            "warnings": record.warnings,
            "stop_reason": record.stop_reason,
            "cost_usd": record.cost_usd,
            "tokens": record.tokens,
            "usage": usage,
            "result": record.result if full else None,
        }

    @classmethod
    def of(cls, record: RunRecord, usage: Usage | None = None) -> RunOutput:
        return cls(**cls.fields_of(record, usage=usage))


class ClaimRecord(Strict):
    claim_id: str
    text: str
    run_count: int
    first_seen: datetime
    last_seen: datetime


class RunPage(Strict):
    """One page of a newest-first listing; `next_cursor` reads on from where it stopped."""

    runs: list[RunRecord]
    next_cursor: str | None = None


class ApiKeyRecord(Strict):
    """A tenant's API key as stored: only a digest of its secret, never the secret."""

    key_id: str
    tenant_id: str = Field(pattern=TENANT_ID)
    secret_sha256: str
    label: str = ""
    # The operator's: may change what is the whole deployment's (settings, provider keys), as a key of the
    # CLI's own tenant may (access.is_operator). Made with `claimcourt keys create --admin`.
    admin: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class LeaseOwner(Strict):
    """The process that runs a lease's run in itself (a CLI run on the laptop): its host, its pid,
    and when it started as the system tells it, so that a pid since given to another process is
    not taken for the owner (None where the system does not say)."""

    host: str
    pid: int
    started: str | None = None
    # Its pid namespace (containers on one host may share a hostname and a data volume, each with its
    # own pids): a pid is read only in the namespace it was taken in.
    pid_namespace: str | None = None


class Lease(Strict):
    """A debate's place under the concurrency cap, held from admission until the run ends."""

    run_id: str
    tenant_id: str
    since: datetime
    # Whether the run may spend (a paid model in some role, or paid search): only then does its
    # admission count against its tenant's hourly cap (Settings.may_spend).
    spends: bool = True
    # Who runs it, when a process runs it in itself: once that process is gone, nothing else will
    # end the run or give its slot back. None: an executor of its own runs it (Step Functions).
    owner: LeaseOwner | None = None


class Monitor(Strict):
    """A tenant's watched claim: re-scored (source tag drift) each time `next_due` comes round."""

    monitor_id: str
    tenant_id: str = Field(pattern=TENANT_ID)
    claim_id: str
    request: MonitorRequest
    created_at: datetime = Field(default_factory=utcnow)
    next_due: datetime
    last_run_id: str | None = None


class ScorePoint(Strict):
    run_id: str
    at: datetime
    score: int
    interval: Interval


class ScoreChanged(Strict):
    """`claim.score_changed` on the project's bus: a monitored claim's live score moved by at least
    a monitor's threshold since its last live score. At least once: consumers dedupe on `run_id`."""

    tenant_id: str
    claim_id: str
    claim: str
    run_id: str  # the run that moved it
    old: ScorePoint
    new: ScorePoint
    change: int
    monitor_ids: list[str]


class CheckRequested(ClaimAsked):
    """`claim.check_requested`: score this claim for this tenant (source tag monitor)."""

    tenant_id: str = Field(pattern=TENANT_ID)


class EvidenceUpdated(Strict):
    """`evidence.updated`: evidence bearing on these claims changed; the tenant's monitored ones
    among them are re-scored (source tag monitor), as their monitors ask."""

    tenant_id: str = Field(pattern=TENANT_ID)
    claim_ids: list[str] = Field(min_length=1, max_length=50)
    reason: str | None = Field(default=None, max_length=500)


class BusEnvelope(BaseModel):
    """An EventBridge event as a rule delivers it to SQS; only what routing and idempotency need."""

    model_config = ConfigDict(populate_by_name=True)

    id: str = Field(min_length=1, max_length=128)
    detail_type: str = Field(alias="detail-type")
    source: str
    detail: dict[str, Any]


class ConnectionRecord(Strict):
    """A WebSocket connection, authenticated at $connect: whose it is, and until when it is kept."""

    connection_id: str = Field(min_length=1, max_length=128)
    tenant_id: str = Field(pattern=TENANT_ID)
    key_id: str
    connected_at: datetime = Field(default_factory=utcnow)
    expires_at: datetime


class DriftPoint(Strict):
    tenant_id: str = LOCAL_TENANT
    claim_id: str
    run_id: str
    at: datetime
    as_of_date: date | None
    score: int
    interval: Interval
    verdict: Verdict


# ---------------------------------------------------------------- role inputs
# What each role is given. LLM providers see them rendered into a prompt; the offline reasoner
# works from them directly.


class SuitabilityInput(Strict):
    claim: str
    context: str | None = None
    evidence_source: str = Field(default="", description="The evidence source's name: what it covers.")
    today: date | None = Field(default=None, description="The run's date: what 'now' means to the role.")
    as_of: date | None = Field(default=None, description="A backtest's date.")
    sub_claims: list[SubClaim] = Field(
        default_factory=list, description="The split to audit (two or more: the audit is asked for)."
    )
    shape: Shape = "all"
    evidence: list[Evidence] = Field(
        default_factory=list,
        description="The first round's pool (the user's context first), as the debaters read it.",
    )
    relevance: RelevanceByRound = {}  # pydantic copies a default for each model
    judge: JudgeKind = Field(
        default="contract", description="The run's judge: its reply tool is among those every call sends."
    )


class DecomposeInput(Strict):
    claim: str
    context: str | None = None
    max_sub_claims: int
    evidence_source: str = Field(default="", description="The evidence source's name: how to write queries.")
    feedback: list[str] = Field(default_factory=list, description="What the split's audit found last time.")
    judge: JudgeKind = Field(
        default="contract", description="The run's judge: its reply tool is among those every call sends."
    )


class ArgueInput(Strict):
    claim: str
    context: str | None = None
    side: Side
    round: int
    max_rounds: int = 2
    turn: Turn = Field(
        default="together", description="Both sides at once, or in turn: first, or second (having read it)."
    )
    opponent_now: Argument | None = Field(
        default=None, description="Speaking second: the other side's argument of this round."
    )
    persona: int = 0
    sub_claims: list[SubClaim]
    evidence: list[Evidence]
    new_evidence_ids: list[str] = Field(default_factory=list)
    own_previous: Argument | None = None
    opponent_previous: Argument | None = None
    cited_before: list[str] = Field(
        default_factory=list, description="Ids this side cited in earlier rounds."
    )
    frontier: list[FrontierIssue] = Field(
        default_factory=list, description="Last round's live disagreements."
    )
    today: date | None = Field(default=None, description="The run's date: what 'now' means to the role.")
    as_of: date | None = Field(default=None, description="A backtest's date.")
    judge: JudgeKind = Field(
        default="contract", description="The run's judge: its reply tool is among those every call sends."
    )
    relevance: RelevanceByRound = {}  # pydantic copies a default for each model
    debate: list[AnonymousPosition] = Field(
        default_factory=list,
        description="The rounds before this one, as the judge reads them: in the shared opening.",
    )
    labels: dict[Side, Literal["A", "B"]] = Field(
        default_factory=dict, description="Which position each side is in `debate`."
    )


class ModerateInput(Strict):
    claim: str
    round: int
    max_rounds: int = 2
    first: Side | None = Field(
        default=None, description="The side that spoke first in each round, if one did."
    )
    evidence_source: str = ""
    sub_claims: list[SubClaim]
    case_for: Argument
    case_against: Argument
    evidence: list[Evidence]
    previous_queries: list[str] = Field(default_factory=list)
    today: date | None = Field(default=None, description="The run's date: what 'now' means to the role.")
    as_of: date | None = Field(default=None, description="A backtest's date.")
    judge: JudgeKind = Field(
        default="contract", description="The run's judge: its reply tool is among those every call sends."
    )
    debate: list[AnonymousPosition] = Field(
        default_factory=list,
        description="The rounds up to this one, as the judge reads them: in the shared opening.",
    )
    labels: dict[Side, Literal["A", "B"]] = Field(
        default_factory=dict, description="Which position each side is in `debate`."
    )
    relevance: RelevanceByRound = {}  # pydantic copies a default for each model


class AnonymousPosition(Strict):
    """An argument with its side stripped: the final moderator sees only 'A' or 'B'."""

    label: Literal["A", "B"]
    round: int
    points: list[Point]
    made: bool = Field(
        default=True, description="False: this position made no argument this round (never why it made none)."
    )


class Reconsider(Strict):
    """Why a judgement is asked once more: the independent judgements disagreed, and the pool holds
    evidence retrieved against the emerging verdict."""

    scores: list[int] = Field(description="The overall scores the independent judgements gave.")
    spread: int
    contrarian_ids: list[str] = Field(description="Evidence retrieved by contrarian directives.")


class AdjudicateInput(Strict):
    claim: str
    mode: Mode
    sub_claims: list[SubClaim]
    shape: Shape
    positions: list[AnonymousPosition]
    evidence: list[Evidence]
    sample: int = Field(default=0, description="Self-consistency sample index.")
    samples: int = Field(default=1, ge=1, description="How many judgements the run may ask for.")
    reconsider: Reconsider | None = None
    ledger: list[LedgerEntry] = Field(
        default_factory=list,
        description="Every citation with its fact-check, keyed by position (A_1, B_1, …).",
    )
    checked_by: Literal["neutral", "sides"] = Field(
        default="neutral",
        description="Who checked the ledger: one neutral checker a round, or (a run from before it,"
        " re-judged) each side's checker, the other side's citations, each check answered.",
    )
    today: date | None = Field(default=None, description="The run's date: what 'now' means to the role.")
    as_of: date | None = Field(default=None, description="A backtest's date.")
    relevance: RelevanceByRound = {}  # pydantic copies a default for each model


class BaselineInput(Strict):
    """A baseline's one call (the scorecard's, claimcourt.bench): the claim alone for the single-LLM
    judge; with the passages one search for the claim found, for naive RAG."""

    claim: str
    mode: Mode = "spectral"
    as_of_date: date | None = Field(default=None, description="Judge the claim as of this date.")
    evidence: list[Evidence] = Field(default_factory=list)


# ---------------------------------------------------------------- motion debates
# The second format (statemachine/motion.asl.json): two teams debate a motion in turns before a crowd
# of personas that votes 0–100 (0 against, 100 for) before the debate and after every round.

MotionRole = Literal[
    "debater_for", "debater_against", "factchecker_for", "factchecker_against", "judge", "crowd"
]
MotionPhase = Literal["opening", "rounds", "closing"]
# The model providers a role, a line-up or CLAIMCOURT_MODELS_BY_ROLE may name (claimcourt.settings).
ProviderName = Literal["anthropic", "openai", "gemini", "xai", "offline"]
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)
MODEL_NAME = rf"^({'|'.join(PROVIDERS)}):[A-Za-z0-9._:/-]{{0,100}}$"
MAX_MOTION_ROUNDS = 6
MAX_CROWD = 100


class TimeKnob(Strict):
    """When the crowd leans more than `lean_above` one way at vote zero, the minority side gets `ratio`
    times the word limit and citation allowance (at or below it: 1:1)."""

    lean_above: Annotated[float, NUMBER] = Field(default=0.60, ge=0.5, le=1.0)
    ratio: Annotated[float, NUMBER] = Field(default=1.25, ge=1.0, le=3.0)


class MotionRequest(Strict):
    """A motion to debate before a crowd. Validated before anything is stored or spent."""

    motion: Text = Field(description="The motion, e.g. 'Resolved: social media does more harm than good.'")
    context: Text | None = Field(default=None, description="Optional background text for the teams.")
    rounds: Annotated[int, NUMBER] = Field(
        default=2, ge=1, le=MAX_MOTION_ROUNDS, description="Rounds between opening and closing."
    )
    crowd: Annotated[int, NUMBER] = Field(
        default=24, ge=1, le=MAX_CROWD, description="Personas voting (the first N of the set)."
    )
    words: Annotated[int, NUMBER] = Field(
        default=250, ge=50, le=1500, description="Word limit of a statement (before the knob)."
    )
    citations: Annotated[int, NUMBER] = Field(
        default=3, ge=0, le=10, description="New citations a statement may add."
    )
    time_knob: TimeKnob = Field(default_factory=TimeKnob)
    seed: Annotated[int, NUMBER] = Field(
        default=0, ge=0, le=2**31 - 1, description="Breaks a vote-zero tie (recorded)."
    )
    first: Side | None = Field(
        default=None,
        description="Who speaks first, whatever vote zero says (an experiment's factor); null: vote zero.",
    )
    lineup: dict[MotionRole, Annotated[str, Field(pattern=MODEL_NAME), WHOLE_TEXT]] = Field(
        default_factory=dict, description="provider:model per role; a role not named uses the deployment's."
    )
    effort: Effort = "standard"
    corpora: Corpora = Field(default_factory=list)

    @field_validator("motion")
    @classmethod
    def _motion(cls, value: str) -> str:
        try:
            return _clean_claim(value)
        except ValueError as err:
            raise ValueError(str(err).replace("claim", "motion", 1)) from None

    @field_validator("context")
    @classmethod
    def _context(cls, value: str | None) -> str | None:
        return _clean_context(value)

    def run_request(self) -> RunRequest:
        """What the platform's shared parts (retrieval, the ledger, listings) read of a run."""
        return RunRequest(claim=self.motion, context=self.context, effort=self.effort, corpora=self.corpora)

    @property
    def last_round(self) -> int:
        """Rounds are numbered: 1 the opening, 2…rounds+1 the debate, rounds+2 the closing."""
        return self.rounds + 2

    def research_follows(self, round: int) -> bool:
        """Whether evidence is retrieved after this round: not before the closing, nor after it."""
        return round + 1 < self.last_round

    def phase(self, round: int) -> MotionPhase:
        if round <= 1:
            return "opening"
        return "closing" if round >= self.last_round else "rounds"


class Persona(Strict):
    """One voter of the crowd: who they are, and the priors the offline crowd votes from."""

    id: str = Field(pattern=r"^p[0-9]{3}$")
    name: str
    description: str
    leanings: dict[str, float] = Field(
        description="Per value axis, -1…1: how a motion that moves that way sits with them."
    )
    openness: float = Field(ge=0.0, le=1.0, description="How far a round's arguments move them.")
    evidence_weight: float = Field(ge=0.0, le=2.0, description="How much checked evidence counts for them.")


class Stances(Strict):
    """Phase 0: what each team must argue, and the opening research."""

    for_stance: str = Field(min_length=1, max_length=600, description="What the team for the motion holds.")
    against_stance: str = Field(min_length=1, max_length=600, description="What the team against holds.")
    queries: list[str] = Field(
        min_length=1, max_length=4, description="Search queries for the opening research, both sides' needs."
    )


class StancesInput(Strict):
    motion: str
    context: str | None = None
    evidence_source: str = ""


# ---------------------------------------------------------------- the motion's suitability (before vote zero)

MotionKind = Literal["policy", "value", "factual", "not_a_motion"]
FitOutcome = Literal["proceed", "warn", "stop"]


class MotionSuitabilityInput(Strict):
    motion: str
    context: str | None = None


class MotionScreen(Strict):
    """The screen of a motion's wording, before its crowd votes: a model's reply, or the offline rules'."""

    kind: MotionKind = Field(
        description="policy: what should be done; value: what matters more or is better; factual: a "
        "claim about what is the case, posing as a motion; not_a_motion: a fragment, or an instruction to "
        "the system."
    )
    movable: bool = Field(
        description="Whether evidence and argument could move a fair-minded audience on it (false for taste, "
        "faith or a question no evidence bears on)."
    )
    loaded: bool = Field(
        description="Whether its wording presupposes its answer or casts one side's stakeholders as wrong."
    )
    stakeholders: str = Field(
        max_length=600,
        description="Who has a stake on each side, in a sentence: balanced, or whom the wording leaves out.",
    )
    outcome: FitOutcome = Field(
        description="proceed; warn (debatable, with a concern the audience should know); stop (no debate "
        "over evidence can serve it)."
    )
    reasons: list[str] = Field(
        default_factory=list,
        max_length=4,
        description="One per concern, addressed to the person who asked, saying what to ask instead.",
    )


class EvidenceDensity(Strict):
    """How much of the opening research speaks to the motion, and which way: measured without a model call."""

    passages: int = Field(description="Passages in the pool (the user's context among them).")
    on_topic: int = Field(description="Passages that speak to the motion (shared words: the claim check's).")
    for_side: int = Field(description="Passages that back the motion more than its opposite.")
    against_side: int = Field(description="Passages that back its opposite more than the motion.")
    closest: float | None = Field(
        description="The best passage's shared-words reading, 0–1; null: the motion has no word the check "
        "reads (not measured, so never a stop)."
    )
    outcome: FitOutcome
    warnings: list[str] = Field(default_factory=list)


class MotionSuitability(Strict):
    """The motion's suitability check: the screen and the pool's density, and what follows from both."""

    screen: MotionScreen
    density: EvidenceDensity
    outcome: FitOutcome
    stop_reason: StopReason | None = Field(default=None, description="Set when outcome is stop.")
    warnings: list[str] = Field(default_factory=list)


class PersonaVote(Strict):
    persona_id: str
    score: Score = Field(description="0 = firmly against the motion, 50 = undecided, 100 = firmly for.")
    reason: str = Field(default="", max_length=300)


class CrowdVotes(Strict):
    votes: list[PersonaVote]


class PublicStatement(Strict):
    """A statement as everyone heard it: what the crowd, the judge and the other team see."""

    side: Side
    round: int
    phase: MotionPhase
    statement: str
    citations: list[str] = Field(default_factory=list)
    made: bool = Field(
        default=True,
        description="False: the team made no statement this turn (the other team's view of a refusal).",
    )


class CrowdInput(Strict):
    motion: str
    round: int = Field(description="0 = vote zero, before anyone spoke.")
    phase: MotionPhase | Literal["vote zero"]
    personas: list[Persona]
    previous: dict[str, int] = Field(default_factory=dict, description="Persona id → last score.")
    statements: list[PublicStatement] = Field(default_factory=list, description="Everything said so far.")
    ledger: list[LedgerEntry] = Field(default_factory=list, description="The citations, as checked.")
    consensus: list[str] = Field(default_factory=list)
    frontier: list[FrontierIssue] = Field(default_factory=list)


class MotionStatement(Strict):
    """A team's turn: a public statement with its citations and private notes for its own team, or a
    refusal (which ends the debate early), never both."""

    statement: str = Field(default="", description="Public: the crowd, the judge and the other team hear it.")
    citations: list[str] = Field(default_factory=list, description="Evidence ids from the pool.")
    # No word limit, as the platform's seed spec has it ("supplementary_material has no word limit"):
    # the reply's output limit bounds it, and later prompts carry only the team's own.
    notes: str = Field(
        default="",
        description="Private to your team (debater and fact-checker): supplementary material, no word limit.",
    )
    note_citations: list[str] = Field(
        default_factory=list,
        description="Evidence ids your notes cite, from the pool: private, against no allowance.",
    )
    implied_score: Score = Field(
        default=50, description="Your honest probability, 0–100, that the motion's claim holds: belief."
    )
    refusal: Refusal | None = Field(
        default=None, description="Only if you decline to go on; then no statement."
    )

    @model_validator(mode="after")
    def _statement_xor_refusal(self) -> MotionStatement:
        if self.statement.strip() and self.refusal is not None:
            raise ValueError("give a statement or a refusal, not both")
        if not self.statement.strip() and self.refusal is None:
            raise ValueError("give a statement, or a refusal")
        return self


class SpeakInput(Strict):
    motion: str
    context: str | None = None
    side: Side
    stance: str
    round: int
    last_round: int
    phase: MotionPhase
    speaks: Literal["first", "second"]
    word_limit: int
    citation_limit: int = Field(description="New citations this statement may add (0 in the closing).")
    evidence: list[Evidence] = Field(default_factory=list)
    cited_before: list[str] = Field(
        default_factory=list, description="Ids your team cited in earlier turns: citing them again is free."
    )
    statements: list[PublicStatement] = Field(default_factory=list, description="Everything said so far.")
    team_notes: list[str] = Field(default_factory=list, description="Your team's private notes so far.")
    consensus: list[str] = Field(default_factory=list)
    frontier: list[FrontierIssue] = Field(default_factory=list)
    checks: list[LedgerEntry] = Field(
        default_factory=list, description="Your side's citations with the other side's checks: to answer."
    )
    own_checks: list[LedgerEntry] = Field(
        default_factory=list,
        description="The other side's citations with your own fact-checker's checks: to use.",
    )


class MotionMap(Strict):
    """The judge after a round, as a cartographer: no winner, the state of the argument."""

    consensus: list[str] = Field(default_factory=list, description="What both teams now accept.")
    disagreement_frontier: list[FrontierIssue] = Field(default_factory=list, description="What is disputed.")
    next_query: str | None = Field(
        default=None, max_length=300, description="A search for what the frontier needs (null: none)."
    )
    summary: str = Field(default="", description="The round in a few sentences, for the audience.")
    report: str | None = Field(
        default=None, description="After the last round only: the final report on the whole debate."
    )


class CartographInput(Strict):
    motion: str
    round: int
    last_round: int
    phase: MotionPhase
    final: bool = Field(description="The last map: write the final report.")
    research_follows: bool = Field(default=True, description="Evidence is retrieved for the next round.")
    evidence_source: str = ""
    statements: list[PublicStatement]
    ledger: list[LedgerEntry] = Field(default_factory=list)
    previous: MotionMap | None = None


class SideAllowance(Strict):
    words: int
    citations: int


class MotionPlan(Strict):
    """What vote zero decided: who speaks first, and the time knob's allowances."""

    first: Side
    second: Side
    tie: bool = Field(description="Vote zero split evenly: the first speaker was drawn (seeded).")
    forced: bool = Field(default=False, description="The request named the first speaker, not vote zero.")
    lean: float = Field(description="The majority's share of decided voters at vote zero, 0.5–1.")
    knob_applied: bool
    minority: Side | None = None
    allowance: dict[Side, SideAllowance]


class VoteTally(Strict):
    round: int
    phase: MotionPhase | Literal["vote zero"]
    voters: int
    mean: float = Field(description="Mean score, 0–100 (100 = for).")
    for_pct: float = Field(description="Share of voters above 50, %.")
    against_pct: float = Field(description="Share of voters below 50, %.")
    undecided_pct: float
    scores: dict[str, int] = Field(default_factory=dict, description="Persona id → score.")


class EarlyEnd(Strict):
    """A debate a refusal shortened: who declined, when and why, and what followed."""

    side: Side = Field(description="The side that declined to argue.")
    round: int
    reason: str = Field(description="Its reason, as it gave it (its opponent never read it).")
    answered_by: Side | None = Field(
        default=None, description="The side that made the one counter-argument turn (null: none followed)."
    )
    answered_in_round: int | None = None
    followed: str = Field(default="", description="What followed the refusal, in a sentence.")


class MotionResult(Strict):
    run_id: str
    motion: str
    rounds: int = Field(description="Rounds between opening and closing, as asked.")
    turns: int = Field(description="Statements made.")
    plan: MotionPlan
    vote_zero: VoteTally
    final_vote: VoteTally
    swing: dict[Side, float] = Field(description="Final − vote zero, percentage points, per side.")
    sentiment: list[VoteTally] = Field(description="Every round's tally, vote zero first.")
    report: str = Field(description="The judge's final report.")
    consensus: list[str] = Field(default_factory=list)
    frontier: list[FrontierIssue] = Field(default_factory=list)
    ended_early: EarlyEnd | None = None
    citations: list[LedgerEntry] = Field(default_factory=list)
    personas: str = Field(description="The persona set's version.")
    reasoner: str
    models: dict[str, str] = Field(default_factory=dict)
    usage: Usage
    search: SearchName | None = Field(
        default=None, description="The web search that served the evidence (as a claim run's result)."
    )
    searched: list[str] = Field(default_factory=list, description=SEARCHED)
    warnings: list[str] = Field(
        default_factory=list, description="What the suitability check raised before the crowd voted."
    )
