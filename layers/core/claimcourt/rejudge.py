"""Re-judging a stored debate (issue 26): other judges read the same anonymized debate the run's judge
read (stages/adjudicate.judge_inputs: the same positions, labels and order, the same pool and ledger),
each in its own call, in parallel; each new judgement is scored by the score stage's rules
(adjudication/score.compose_result) and stored beside the run's own, under `rejudge/<id>/<n>`. The
run's result is never touched: a re-judgement is a second opinion, not a new verdict.

A judge is `provider:model` (an empty model: the provider's default; `offline`: the offline reasoner),
by the scoring contract's judge or, with `rubric`, the rubric judge. Its calls go into the run's ledger
under the `rejudge` stage, keyed by the re-judging's id, so each judgement's cost is its own calls'.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from claimcourt import artifacts
from claimcourt.adjudication.score import compose_result
from claimcourt.errors import (
    BudgetExceededError,
    ConflictError,
    InvalidRequestError,
    MalformedReplyError,
    NotFoundError,
    ProviderError,
    RefusedJudgementError,
    TruncatedReplyError,
)
from claimcourt.models import (
    PROVIDERS,
    AdjudicateInput,
    CallRecord,
    Interval,
    JudgeKind,
    RunRecord,
    RunStatus,
    Side,
    Verdict,
    usage_from,
)
from claimcourt.reasoning.base import CallContext
from claimcourt.settings import Settings
from claimcourt.stages import adjudicate
from claimcourt.wiring import Deps

STAGE = "rejudge"  # the ledger's stage for a re-judgement's calls (not a stage of the state machine)
PREFIX = "rejudge/"
MAX_JUDGES = 8
# `provider` or `provider:model`.
JUDGE_NAME = rf"^({'|'.join(PROVIDERS)})(:[A-Za-z0-9._:/-]{{0,100}})?$"
# What a judge's call may fail with and the others still be kept: the judgement says why.
JUDGE_FAILURES = (
    RefusedJudgementError,
    MalformedReplyError,
    TruncatedReplyError,
    ProviderError,
    BudgetExceededError,
)


class RejudgeRequest(BaseModel):
    """Judge a stored, succeeded debate again."""

    judges: list[str] = Field(
        min_length=1,
        max_length=MAX_JUDGES,
        description="The judges, each `provider:model` (`provider` alone: its default model; "
        "`offline`: the offline reasoner).",
        examples=[["openai:gpt-4.1", "anthropic:claude-sonnet-4-5"]],
    )
    rubric: bool = Field(
        default=False, description="Each judge also judges by the rubric (judge: rubric) beside the contract."
    )


class StoredJudgement(BaseModel):
    """One judgement of a run: the run's own (`original`) or a re-judgement, with the score it implies
    by the score stage's rules."""

    id: str = Field(description="`original`, or `<rejudging id>/<n>`.")
    original: bool
    rejudge_id: str | None = Field(default=None, description="The re-judging that asked for it.")
    judge: JudgeKind = Field(description="The contract's judge or the rubric judge.")
    model: str = Field(description="provider:model.")
    prompt_version: str | None = Field(
        default=None, description="The judge's prompt (`<template>@<digest>`; None: not recorded then)."
    )
    score: int | None = Field(default=None, description="The overall score it implies (None: no judgement).")
    interval: Interval | None = None
    verdict: Verdict | None = None
    judge_score: int | None = Field(default=None, description="The judge's own overall score, unadjusted.")
    sub_scores: dict[str, int] = Field(default_factory=dict)
    sides: dict[str, Side] = Field(default_factory=dict, description="Anonymous label → side, as judged.")
    stronger: dict[str, str] = Field(
        default_factory=dict, description="Sub-claim → the side whose argument the evidence bore out."
    )
    cost_usd: float = 0.0
    price_known: bool = True
    llm_calls: int = 0
    error: str | None = Field(default=None, description="Why there is no judgement (a refusal, a failure).")
    created_at: datetime | None = None


class JudgementList(BaseModel):
    run_id: str
    judgements: list[StoredJudgement]


def parse_judge(name: str, settings: Settings) -> tuple[str, str]:
    """(provider, model) of a judge's name, refused at the boundary (field `judges`) when malformed or
    naming a provider this deployment holds no key for."""
    if not re.fullmatch(JUDGE_NAME, name):
        raise InvalidRequestError(
            "judges", f"{name!r} is not provider:model (providers: {', '.join(PROVIDERS)})"
        )
    provider, _, model = name.partition(":")
    if provider == "offline":
        return "offline", "offline"
    if settings.provider_keys_known and not settings.has_key(provider):
        raise InvalidRequestError("judges", settings.missing_key(provider))
    return settings.named_route(f"{provider}:{model}")


def judgeable(record: RunRecord) -> None:
    """A run can be judged again once its debate has succeeded: a 409 (ConflictError) otherwise."""
    run = record.run_id
    if record.motion is not None:
        raise ConflictError(
            f"run {run} is a motion debate: re-judging covers claim debates only", "motion_debate"
        )
    if record.status is RunStatus.RUNNING:
        raise ConflictError(
            f"run {run} is still running: judge it again once it has succeeded", "run_running"
        )
    if record.status is not RunStatus.SUCCEEDED or record.result is None:
        raise ConflictError(
            f"run {run} did not succeed ({record.status.value}): there is no debate to judge again",
            f"run_{record.status.value}",
        )


def _new_id(now: datetime) -> str:
    """Sortable by time, unique beside another re-judging of the same second."""
    return now.strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)


def rejudge(
    deps: Deps, record: RunRecord, judges: Sequence[str], *, rubric: bool = False
) -> list[StoredJudgement]:
    """Judge `record`'s debate again with each judge (and, with `rubric`, each by the rubric too), in
    parallel; store and return the new judgements in the order asked. A judge that refuses or fails
    is kept with its error; the others are not lost."""
    judgeable(record)
    routes = [parse_judge(name, deps.settings) for name in judges]
    kinds: list[JudgeKind] = ["contract", "rubric"] if rubric else ["contract"]
    asked = [(route, kind) for route in routes for kind in kinds]
    inputs, labels = adjudicate.judge_inputs(deps, record)
    mapping: dict[str, Side] = {str(label): side for label, side in labels.items()}
    now = datetime.now(UTC)
    rejudge_id = _new_id(now)

    def one(n: int) -> StoredJudgement:
        route, kind = asked[n]
        return _judge_once(deps, record, inputs, mapping, route, kind, f"{rejudge_id}/{n}", now)

    with ThreadPoolExecutor(max_workers=len(asked)) as pool:
        judged = list(pool.map(one, range(len(asked))))
    for j in judged:
        deps.store.put_artifact(record.run_id, PREFIX + j.id, j.model_dump(mode="json"))
    return judged


def _judge_once(
    deps: Deps,
    record: RunRecord,
    inputs: AdjudicateInput,
    mapping: Mapping[str, Side],
    route: tuple[str, str],
    kind: JudgeKind,
    judgement_id: str,
    now: datetime,
) -> StoredJudgement:
    ctx = CallContext(record.run_id, STAGE, side=judgement_id, route=route, step=STAGE, lane=judgement_id)
    base = StoredJudgement(
        id=judgement_id,
        original=False,
        rejudge_id=judgement_id.split("/")[0],
        judge=kind,
        model=":".join(route),
        prompt_version=adjudicate.prompt_version(kind),
        sides=dict(mapping),
        created_at=now,
    )
    try:
        judgement, reply = adjudicate.judge(kind, inputs, deps.reasoner, ctx)
        error = None if judgement is not None else "the judge gave no usable judgement"
    except JUDGE_FAILURES as err:
        judgement, reply, error = None, None, f"{type(err).__name__}: {err}"
    calls = _calls_of(deps.store.run_calls(record.run_id), judgement_id)
    spent = base.model_copy(
        update={
            "cost_usd": sum(c.cost_usd for c in calls),
            "price_known": all(c.price_known for c in calls),
            "llm_calls": sum(c.attempts for c in calls),
            "error": error,
        }
    )
    if judgement is None:
        return spent
    # Scored as the score stage scores the run's own judgement: composition, bounds, evidence quality.
    result = compose_result(
        run_id=record.run_id,
        request=record.request.model_copy(update={"judge": kind}),
        decomposition=artifacts.decomposition_of(deps.store, record.run_id),
        arguments=artifacts.arguments_of(deps.store, record.run_id),
        judgements=[judgement],
        rubric=reply,
        evidence=inputs.evidence,
        usage=usage_from(calls, 0, 0),
        warnings=[],
        reasoner=route[0],
        models={"adjudicator": ":".join(route)},
        sides=dict(mapping),
    )
    return spent.model_copy(
        update={
            "score": result.overall_score,
            "interval": result.interval,
            "verdict": result.overall_verdict,
            "judge_score": judgement.overall_score,
            "sub_scores": {s.sub_claim_id: s.score for s in judgement.sub_claims},
            "stronger": {s.sub_claim_id: _side(s.stronger_position, mapping) for s in judgement.sub_claims},
        }
    )


def _side(label: str, mapping: Mapping[str, Side]) -> str:
    return mapping.get(label, "neither")


def _calls_of(calls: list[CallRecord], judgement_id: str) -> list[CallRecord]:
    """The ledger's calls made for one judgement (key `<stage>:<round>:<side>:…`)."""
    prefix = f"{STAGE}:0:{judgement_id}:"
    return [c for c in calls if c.call_key.startswith(prefix)]


def original(deps: Deps, record: RunRecord) -> StoredJudgement:
    """The run's own judgement, as its result has it (the judgement that speaks for the run)."""
    result = record.result
    if result is None:
        raise NotFoundError(f"run {record.run_id} has no result")
    judge_calls = [
        c for c in deps.store.run_calls(record.run_id) if c.call_key.startswith(f"{adjudicate.STAGE.value}:")
    ]
    docs = deps.store.find_artifacts(record.run_id, artifacts.JUDGEMENT_PREFIX)
    first = docs.get(artifacts.judgement_key(0), {})
    mapping: dict[str, Side] = first.get("mapping", {})
    return StoredJudgement(
        id="original",
        original=True,
        judge=result.judge,
        model=result.models.get("adjudicator", result.reasoner),
        prompt_version=first.get("prompt_version"),
        score=result.overall_score,
        interval=result.interval,
        verdict=result.overall_verdict,
        judge_score=result.judge_score,
        sub_scores={s.id: s.score for s in result.sub_claims},
        sides=mapping,
        cost_usd=sum(c.cost_usd for c in judge_calls),
        price_known=all(c.price_known for c in judge_calls),
        llm_calls=sum(c.attempts for c in judge_calls),
        stronger={
            s["sub_claim_id"]: _side(s["stronger_position"], mapping)
            for s in (first.get("judgement") or {}).get("sub_claims", [])
        },
        created_at=record.finished_at,
    )


def judgements_of(deps: Deps, record: RunRecord) -> list[StoredJudgement]:
    """The run's own judgement, then every re-judgement, oldest first (none before the run succeeded)."""
    if record.result is None:
        return []
    stored = deps.store.find_artifacts(record.run_id, PREFIX)
    again = [StoredJudgement.model_validate(d) for d in stored.values()]
    again.sort(key=lambda j: (j.rejudge_id or "", int(j.id.rsplit("/", 1)[1])))
    return [original(deps, record), *again]
