"""Re-judging a stored debate (issue 26): other judges read the same anonymized debate the run's judge
read (stages/adjudicate.judge_inputs: the same positions, labels and order, the same pool and ledger),
each in its own call, in parallel; each new judgement is scored by the score stage's rules
(adjudication/score.compose_result) and stored beside the run's own, under `rejudge/<id>/<n>`. The
run's result is never touched: a re-judgement is a second opinion, not a new verdict.

A judge is `provider:model` (an empty model: the provider's default; `offline`: the offline reasoner),
by the scoring contract's judge or, with `rubric`, the rubric judge. Its calls go into the run's ledger
under the `rejudge` stage, keyed by the re-judging's id, so each judgement's cost is its own calls'.

A motion debate is re-judged by its judge's last task, the cartographer's final report over the whole
stored debate (the same statements, checked ledger and last map its judge read); its crowd votes again
only when asked (`crowd`): every persona's final vote, hearing the new report's map, against the vote
zero the debate took. The debate's own result is never touched here either.

Asked (`ask`), a re-judging stores each judgement `pending` at once; the work (`settle`) runs elsewhere,
each judgement stored `succeeded` or `failed` (with why) as its judge answers: on a stack in the re-judge
function, invoked asynchronously (execution.LambdaRejudger), so that the API answers 202 within its 29 s;
on the laptop in a thread (`InProcess`); the CLI waits for it (`rejudge`). Every judgement ends: one not
answered within RUN_FOR_S is stored failed, and one a stopped worker left pending reads as failed once
it is older than RUN_FOR_S and GRACE_S together.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, model_validator

from claimcourt import artifacts
from claimcourt.adjudication.panel import JUDGE_FAILURES
from claimcourt.adjudication.score import compose_result
from claimcourt.errors import (
    ClaimcourtError,
    ConflictError,
    InvalidRequestError,
    MalformedEventError,
    NotFoundError,
    UnavailableError,
)
from claimcourt.execution import Rejudger
from claimcourt.models import (
    PROVIDERS,
    AdjudicateInput,
    CallRecord,
    CartographInput,
    CrowdInput,
    FrontierIssue,
    Interval,
    JudgeKind,
    MotionMap,
    PersonaVote,
    RunRecord,
    RunStatus,
    Side,
    Verdict,
    VoteTally,
    usage_from,
)
from claimcourt.motions.crowd import batch_of, batches, tally
from claimcourt.motions.turns import cartograph_task, crowd_task
from claimcourt.observability import logger
from claimcourt.prompts import template_version
from claimcourt.reasoning.base import CallContext
from claimcourt.reasoning.prices import unpriced_judge
from claimcourt.settings import Settings
from claimcourt.stages import adjudicate
from claimcourt.stages.motions import route_for
from claimcourt.wiring import Deps, current_deps, evidence_name

STAGE = "rejudge"  # the ledger's stage for a re-judgement's calls (not a stage of the state machine)
PREFIX = "rejudge/"
MAX_JUDGES = 8
# `provider` or `provider:model`.
JUDGE_NAME = rf"^({'|'.join(PROVIDERS)})(:[A-Za-z0-9._:/-]{{0,100}})?$"
# A re-judging's judges have this long: the re-judge function's 15 minutes, less one to store what is left.
RUN_FOR_S = 14 * 60
# Past RUN_FOR_S and this, a judgement still pending was left by a worker that stopped (a function cut off,
# a server process ended): it reads as failed.
GRACE_S = 2 * 60
JudgementStatus = Literal["pending", "succeeded", "failed"]
# Who judged: a claim debate's judge by the scoring contract or by the rubric, or a motion debate's
# judge as cartographer (its final report).
JudgeRole = JudgeKind | Literal["cartographer"]


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
        default=False,
        description="Each judge also judges by the rubric (judge: rubric) beside the contract (claims only).",
    )
    crowd: bool = Field(
        default=False,
        description="A motion debate's crowd votes again on each new final report (its last round's vote, "
        "every persona); else only the report is new.",
    )


class StoredJudgement(BaseModel):
    """One judgement of a run: the run's own (`original`) or a re-judgement, with the score it implies
    by the score stage's rules."""

    id: str = Field(
        description="`original`; `panel/<n>`, the run's own panel's judge n; or `<rejudging id>/<n>`."
    )
    status: JudgementStatus = Field(
        description="pending (its judge has not answered yet), succeeded, or failed (`error` says why)."
    )
    original: bool
    rejudge_id: str | None = Field(default=None, description="The re-judging that asked for it.")
    judge: JudgeRole = Field(
        description="The contract's judge or the rubric judge (a claim debate); the cartographer (a motion "
        "debate's judge, its final report)."
    )
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
    report: str | None = Field(default=None, description="A motion debate's: the judge's final report.")
    consensus: list[str] = Field(default_factory=list, description="A motion's: what both teams accept.")
    frontier: list[FrontierIssue] = Field(
        default_factory=list, description="A motion's: what stays disputed."
    )
    crowd: bool = Field(default=False, description="A motion's: whether its crowd voted again.")
    final_vote: VoteTally | None = Field(
        default=None, description="A motion's: the final vote (the crowd's again, if asked: `crowd`)."
    )
    swing: dict[Side, float] | None = Field(
        default=None, description="A motion's: the final vote's shares less vote zero's, per side."
    )
    error: str | None = Field(default=None, description="Why there is no judgement (a refusal, a failure).")
    created_at: datetime | None = Field(default=None, description="When it was asked for.")
    ended_at: datetime | None = Field(default=None, description="When it succeeded or failed.")

    @model_validator(mode="before")
    @classmethod
    def _stored_before_status(cls, data: Any) -> Any:
        """A judgement stored before re-judging went asynchronous ended when it was stored."""
        if isinstance(data, dict) and "status" not in data:
            return {**data, "status": "failed" if data.get("error") else "succeeded"}
        return data


class JudgementList(BaseModel):
    run_id: str
    judgements: list[StoredJudgement]


class RejudgeAccepted(BaseModel):
    """A re-judging asked for: its judgements, each pending until its judge answers."""

    run_id: str
    rejudge_id: str = Field(description="GET /runs/{id}/judgements?rejudge=<this> follows it.")
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
    route = settings.named_route(f"{provider}:{model}")
    unpriced = unpriced_judge(*route, own_endpoint=settings.own_endpoint(route[0]))
    if unpriced:
        raise InvalidRequestError("judges", f"{name!r}: {unpriced}")
    return route


def judgeable(record: RunRecord) -> None:
    """A run can be judged again once its debate has succeeded: a 409 (ConflictError) otherwise."""
    run = record.run_id
    if record.status is RunStatus.RUNNING:
        raise ConflictError(
            f"run {run} is still running: judge it again once it has succeeded", "run_running"
        )
    if record.status is not RunStatus.SUCCEEDED or (record.result is None and record.motion is None):
        raise ConflictError(
            f"run {run} did not succeed ({record.status.value}): there is no debate to judge again",
            f"run_{record.status.value}",
        )


def _new_id(now: datetime) -> str:
    """Sortable by time, unique beside another re-judging of the same second."""
    return now.strftime("%Y%m%dT%H%M%S") + "-" + secrets.token_hex(3)


def ask(
    deps: Deps, record: RunRecord, judges: Sequence[str], *, rubric: bool = False, crowd: bool = False
) -> list[StoredJudgement]:
    """A re-judging of `record`'s debate by each judge (and, with `rubric`, each by the rubric too),
    checked (a ConflictError or InvalidRequestError before anything is stored) and stored pending, in
    the order asked. `settle` does the judging."""
    judgeable(record)
    routes = [parse_judge(name, deps.settings) for name in judges]
    if record.motion is not None and rubric:
        raise InvalidRequestError(
            "rubric", "the rubric rates a claim debate's sides: a motion has no verdict"
        )
    if record.motion is None and crowd:
        raise InvalidRequestError("crowd", "only a motion debate has a crowd to vote again")
    kinds: list[JudgeRole] = (
        ["cartographer"] if record.motion is not None else ["contract", "rubric"] if rubric else ["contract"]
    )
    now = datetime.now(UTC)
    rejudge_id = _new_id(now)
    pending = [
        StoredJudgement(
            id=f"{rejudge_id}/{n}",
            status="pending",
            original=False,
            rejudge_id=rejudge_id,
            judge=kind,
            model=":".join(route),
            prompt_version=_prompt_version(kind),
            crowd=crowd,
            created_at=now,
        )
        for n, (route, kind) in enumerate((route, kind) for route in routes for kind in kinds)
    ]
    for j in pending:
        _put(deps, record.run_id, j)
    return pending


def settle(deps: Deps, run_id: str, rejudge_id: str, *, within_s: float = RUN_FOR_S) -> list[StoredJudgement]:
    """Judge the re-judging's pending judgements, each in its own call, in parallel; store each as it
    ends, succeeded or failed with why. One not answered within `within_s`, nor within RUN_FOR_S of
    being asked (so nothing is stored after a reader was told it was cut off), or cut short by anything
    unforeseen, is stored failed: every judgement ends. Returns them in the order asked."""
    todo = [j for j in stored(deps, run_id, rejudge_id) if j.status == "pending"]
    if not todo:
        return stored(deps, run_id, rejudge_id)
    asked_at = min((j.created_at for j in todo if j.created_at is not None), default=datetime.now(UTC))
    within_s = min(within_s, RUN_FOR_S - (datetime.now(UTC) - asked_at).total_seconds())
    if within_s <= 0:  # its time had passed before the work began: judging now would cost and not count
        for j in todo:
            _end(deps, run_id, j, failed=f"not begun within {_span(RUN_FOR_S)} of being asked")
        return stored(deps, run_id, rejudge_id)
    pool = ThreadPoolExecutor(max_workers=len(todo), thread_name_prefix="rejudge")
    try:
        record = deps.store.get_run(run_id)
        judgeable(record)
        asked: dict[Future[StoredJudgement], StoredJudgement]
        if record.motion is not None:
            final = _final_map_inputs(deps, record)
            asked = {pool.submit(_report_once, deps, record, final, j): j for j in todo}
        else:
            inputs, labels = adjudicate.judge_inputs(deps, record)
            mapping: dict[str, Side] = {str(label): side for label, side in labels.items()}
            asked = {pool.submit(_judge_once, deps, record, inputs, mapping, j): j for j in todo}
        done, late = wait(asked, timeout=within_s)
        for future in done:
            if (err := future.exception()) is not None:
                _end(deps, run_id, asked[future], failed=_reason(err))
        for future in late:
            _end(deps, run_id, asked[future], failed=f"the judge gave no answer within {_span(within_s)}")
    except Exception as err:  # the work itself could not go on: nothing is left pending
        for j in todo:
            _end(deps, run_id, j, failed=_reason(err))
    finally:
        # a judge still thinking past the limit is not waited for (its late answer is not stored: _end)
        pool.shutdown(wait=False, cancel_futures=True)
    return stored(deps, run_id, rejudge_id)


def start(deps: Deps, rejudger: Rejudger, run_id: str, rejudge_id: str) -> None:
    """Hand a re-judging on to `rejudger`. If it cannot be, its judgements fail now, saying why, and an
    UnavailableError says so: nothing is left pending for nobody."""
    try:
        rejudger.start_rejudge(run_id, rejudge_id)
    except Exception as err:
        logger.exception("re-judging not started", extra={"run_id": run_id, "rejudge_id": rejudge_id})
        for j in stored(deps, run_id, rejudge_id):
            _end(deps, run_id, j, failed="the re-judging could not be started; ask again")
        raise UnavailableError(
            "the re-judging could not be started (its judgements are marked failed): ask again"
        ) from err


def rejudge(
    deps: Deps, record: RunRecord, judges: Sequence[str], *, rubric: bool = False, crowd: bool = False
) -> list[StoredJudgement]:
    """Judge `record`'s debate again and wait for every judge (the CLI's way): `ask`, then `settle`
    here. A judge that refuses or fails is kept with its error; the others are not lost."""
    pending = ask(deps, record, judges, rubric=rubric, crowd=crowd)
    return settle(deps, record.run_id, pending[0].rejudge_id or "")


# What the re-judge function keeps of its 15 minutes to store the judgements its judges did not answer.
STORE_S = 60


class RejudgeOrder(BaseModel):
    """The re-judge function's event (execution.rejudge_order)."""

    run_id: str = Field(min_length=1, max_length=200)
    rejudge_id: str = Field(pattern=r"^[0-9T]+-[0-9a-f]+$")


def work(event: dict[str, Any], remaining_s: float) -> dict[str, Any]:
    """The re-judge function's work: settle the re-judging its event names, within the time the function
    has left (less STORE_S to store what its judges did not answer)."""
    try:
        order = RejudgeOrder.model_validate(event)
    except ValidationError as err:
        raise MalformedEventError(f"not a re-judging's order: {err.errors()[0]['msg']}") from None
    within = max(1.0, min(RUN_FOR_S, remaining_s - STORE_S))
    judged = settle(current_deps(), order.run_id, order.rejudge_id, within_s=within)
    statuses = {j.id: j.status for j in judged}
    logger.info("re-judged", extra={"run_id": order.run_id, "rejudge_id": order.rejudge_id, **statuses})
    return {"run_id": order.run_id, "rejudge_id": order.rejudge_id, "judgements": statuses}


class InProcess:
    """A re-judging judged in a thread of this process: the laptop's way (the local server, and the API
    wherever no re-judge function is deployed), with the stack's contract. `wait` lets a caller (a test)
    follow one to its end."""

    def __init__(self, deps: Deps) -> None:
        self._deps = deps
        self._threads: dict[str, threading.Thread] = {}

    def start_rejudge(self, run_id: str, rejudge_id: str) -> None:
        thread = threading.Thread(
            target=settle, args=(self._deps, run_id, rejudge_id), name=f"rejudge-{rejudge_id}", daemon=True
        )
        self._threads[rejudge_id] = thread
        thread.start()

    def wait(self, rejudge_id: str, timeout_s: float | None = None) -> bool:
        """True once the re-judging's work has ended (within `timeout_s`)."""
        thread = self._threads.get(rejudge_id)
        if thread is not None:
            thread.join(timeout_s)
        return thread is None or not thread.is_alive()


def stored(deps: Deps, run_id: str, rejudge_id: str) -> list[StoredJudgement]:
    """One re-judging's judgements as stored, in the order asked."""
    docs = deps.store.find_artifacts(run_id, f"{PREFIX}{rejudge_id}/")
    return sorted((StoredJudgement.model_validate(d) for d in docs.values()), key=_order)


def _order(j: StoredJudgement) -> tuple[str, int]:
    return j.rejudge_id or "", int(j.id.rsplit("/", 1)[1])


def _put(deps: Deps, run_id: str, judgement: StoredJudgement) -> None:
    deps.store.put_artifact(run_id, PREFIX + judgement.id, judgement.model_dump(mode="json"))


# The worker's judges end their judgements from their own threads while it marks the late ones failed at
# the deadline: one at a time, so that the first end read as stored is the one that stands.
_ENDING = threading.Lock()


def _end(deps: Deps, run_id: str, judgement: StoredJudgement, *, failed: str | None = None) -> None:
    """Store a judgement's end, unless it has already ended (a late judge after its deadline, a second
    delivery of the same work): the first end stands."""
    with _ENDING:
        try:
            now = StoredJudgement.model_validate(deps.store.get_artifact(run_id, PREFIX + judgement.id))
        except NotFoundError:
            return
        if now.status != "pending":
            return
        if failed is not None:
            judgement = judgement.model_copy(update={"status": "failed", "error": failed})
        _put(deps, run_id, judgement.model_copy(update={"ended_at": datetime.now(UTC)}))


def _span(seconds: float) -> str:
    return f"{seconds / 60:g} minutes" if seconds >= 60 else f"{seconds:g} s"


def _reason(err: BaseException) -> str:
    """Why a judgement failed, for its reader: our errors say what happened; anything else is named and
    logged with its trace, which the reader never sees."""
    if isinstance(err, ClaimcourtError):
        return f"{type(err).__name__}: {err}"
    logger.error("re-judging failed", exc_info=err)
    return f"{type(err).__name__}: an unexpected error (the service's log has it)"


def _judge_once(
    deps: Deps,
    record: RunRecord,
    inputs: AdjudicateInput,
    mapping: Mapping[str, Side],
    asked: StoredJudgement,
) -> StoredJudgement:
    """One judge's call, its judgement scored, and stored as it ends."""
    provider, _, model = asked.model.partition(":")
    route, kind = (provider, model), asked.judge
    assert kind != "cartographer"  # a claim debate's judge (a motion's: _report_once)
    judgement_id = asked.id
    ctx = CallContext(record.run_id, STAGE, side=judgement_id, route=route, step=STAGE, lane=judgement_id)
    base = asked.model_copy(update={"sides": dict(mapping)})
    try:
        judgement, reply = adjudicate.judge(kind, inputs, deps.reasoner, ctx)
        error = None if judgement is not None else "the judge gave no usable judgement"
    except JUDGE_FAILURES as err:
        judgement, reply, error = None, None, f"{type(err).__name__}: {err}"
    calls = _calls_of(deps.store.run_calls(record.run_id), judgement_id)
    spent = base.model_copy(
        update={
            "status": "failed" if judgement is None else "succeeded",
            "cost_usd": sum(c.cost_usd for c in calls),
            "price_known": all(c.price_known for c in calls),
            "llm_calls": sum(c.attempts for c in calls),
            "error": error,
        }
    )
    if judgement is None:
        _end(deps, record.run_id, spent)
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
        models={"adjudicator": asked.model},
        sides=dict(mapping),
    )
    judged = spent.model_copy(
        update={
            "score": result.overall_score,
            "interval": result.interval,
            "verdict": result.overall_verdict,
            "judge_score": judgement.overall_score,
            "sub_scores": {s.sub_claim_id: s.score for s in judgement.sub_claims},
            "stronger": {s.sub_claim_id: _side(s.stronger_position, mapping) for s in judgement.sub_claims},
        }
    )
    _end(deps, record.run_id, judged)
    return judged


def _prompt_version(kind: JudgeRole) -> str:
    return template_version("cartograph") if kind == "cartographer" else adjudicate.prompt_version(kind)


def _final_map_inputs(deps: Deps, record: RunRecord) -> CartographInput:
    """What the motion's judge read for its final report: the whole debate as the cartograph stage
    gives it after the last round spoken (the closing, or where a refusal or spent budget ended it)."""
    motion = record.motion
    assert motion is not None
    said = artifacts.spoken_in_order(deps.store, record.run_id)
    last = max(artifacts.maps_of(deps.store, record.run_id), default=0)
    if last == 0:
        raise ConflictError(f"run {record.run_id} ended before its judge mapped a round", "run_unmapped")
    pool = artifacts.evidence_pool(artifacts.retrievals_of(deps.store, record.run_id), motion.context, last)
    return CartographInput(
        motion=motion.motion,
        round=last,
        last_round=motion.last_round,
        phase=motion.phase(last),
        final=True,
        research_follows=False,
        evidence_source=evidence_name(deps, record, artifacts.retrievals_of(deps.store, record.run_id)),
        statements=artifacts.statements_of(said, motion.phase),
        ledger=artifacts.ledger_of(deps.store, record.run_id, said, pool),
        previous=artifacts.map_of(deps.store, record.run_id, last - 1),
    )


def _report_once(
    deps: Deps, record: RunRecord, inputs: CartographInput, asked: StoredJudgement
) -> StoredJudgement:
    """One judge's final report on a motion debate (and, if asked, the crowd's vote on it), stored as
    it ends."""
    provider, _, model = asked.model.partition(":")
    ctx = CallContext(record.run_id, STAGE, side=asked.id, route=(provider, model), step=STAGE, lane=asked.id)
    view: MotionMap | None = None
    final_vote: VoteTally | None = None
    swing: dict[Side, float] | None = None
    error: str | None = None
    try:
        reply = deps.reasoner.call(cartograph_task(inputs), ctx)
        view = reply.output
        if view is None:
            error = f"the judge declined: {reply.refusal}" if reply.refusal else "the judge gave no report"
        elif asked.crowd:
            final_vote = _crowd_again(deps, record, inputs.round, view, ctx)
            zero = artifacts.tallies_of(deps.store, record.run_id)[0]
            swing = {
                "for": round(final_vote.for_pct - zero.for_pct, 1),
                "against": round(final_vote.against_pct - zero.against_pct, 1),
            }
    except JUDGE_FAILURES as err:
        error = f"{type(err).__name__}: {err}"
    calls = _calls_of(deps.store.run_calls(record.run_id), asked.id)
    ended = asked.model_copy(
        update={
            "status": "failed" if error else "succeeded",
            "error": error,
            "report": (view.report or view.summary) if view else None,
            "consensus": view.consensus if view else [],
            "frontier": view.disagreement_frontier if view else [],
            "final_vote": final_vote,
            "swing": swing,
            "cost_usd": sum(c.cost_usd for c in calls),
            "price_known": all(c.price_known for c in calls),
            "llm_calls": sum(c.attempts for c in calls),
        }
    )
    _end(deps, record.run_id, ended)
    return ended


def _crowd_again(deps: Deps, record: RunRecord, last: int, view: MotionMap, ctx: CallContext) -> VoteTally:
    """The crowd's final vote again, batch by batch as the vote stage takes it, hearing the new map: what
    was said, the checked ledger, and each persona's vote before the last round. A persona a reply
    leaves out keeps that vote, as in the debate."""
    motion = record.motion
    assert motion is not None
    said = artifacts.spoken_in_order(deps.store, record.run_id)
    pool = artifacts.evidence_pool(artifacts.retrievals_of(deps.store, record.run_id), motion.context)
    ledger = artifacts.ledger_of(deps.store, record.run_id, said, pool)
    before = {v.persona_id: v.score for v in artifacts.votes_of(deps.store, record.run_id, last - 1)}
    crowd_ctx = CallContext(
        ctx.run_id,
        ctx.stage,
        side=ctx.side,
        route=route_for(deps, motion, "crowd"),
        step=ctx.step,
        lane=ctx.lane,
    )
    votes: list[PersonaVote] = []
    for batch in batches(motion.crowd):
        personas = batch_of(motion.crowd, batch)
        inputs = CrowdInput(
            motion=motion.motion,
            round=last,
            phase=motion.phase(last),
            personas=personas,
            previous={p.id: before[p.id] for p in personas if p.id in before},
            statements=artifacts.statements_of(said, motion.phase),
            ledger=ledger,
            consensus=view.consensus,
            frontier=view.disagreement_frontier,
        )
        reply = deps.reasoner.call(crowd_task(inputs, motion.last_round), crowd_ctx, suffix=f"b{batch}")
        given = {v.persona_id: v for v in (reply.output.votes if reply.output else [])}
        votes += [
            given.get(p.id)
            or PersonaVote(persona_id=p.id, score=before.get(p.id, 50), reason="no vote given")
            for p in personas
        ]
    return tally(last, motion.phase(last), votes)


def _side(label: str, mapping: Mapping[str, Side]) -> str:
    return mapping.get(label, "neither")


def _calls_of(calls: list[CallRecord], judgement_id: str) -> list[CallRecord]:
    """The ledger's calls made for one judgement (key `<stage>:<round>:<side>:…`)."""
    prefix = f"{STAGE}:0:{judgement_id}:"
    return [c for c in calls if c.call_key.startswith(prefix)]


def original(deps: Deps, record: RunRecord) -> StoredJudgement:
    """The run's own judgement, as its result has it (the judgement that speaks for the run)."""
    if record.motion is not None:
        return _original_report(deps, record)
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
        status="succeeded",
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


def panel_judgements(deps: Deps, record: RunRecord) -> list[StoredJudgement]:
    """The run's own judgements when a panel judged it (`judges`): each judge's, as its result keeps it."""
    result = record.result
    if result is None or result.panel is None:
        return []
    docs = deps.store.find_artifacts(record.run_id, artifacts.JUDGEMENT_PREFIX)
    found = []
    for n, j in enumerate(result.panel.judges):
        doc = docs.get(artifacts.judgement_key(n), {})
        mapping: dict[str, Side] = doc.get("mapping", {})
        found.append(
            StoredJudgement(
                id=f"panel/{n}",
                status="failed" if j.error else "succeeded",
                original=True,
                judge=j.kind,
                model=j.model,
                prompt_version=j.prompt_version,
                score=j.score,
                interval=j.interval,
                verdict=j.verdict,
                judge_score=j.judge_score,
                sub_scores=j.sub_scores,
                sides=mapping,
                stronger={
                    s["sub_claim_id"]: _side(s["stronger_position"], mapping)
                    for s in (doc.get("judgement") or {}).get("sub_claims", [])
                },
                cost_usd=j.cost_usd,
                price_known=j.price_known,
                llm_calls=j.llm_calls,
                error=j.error,
                created_at=record.finished_at,
            )
        )
    return found


def _original_report(deps: Deps, record: RunRecord) -> StoredJudgement:
    """A motion debate's own final report, with the vote it concluded on."""
    result = artifacts.motion_result_of(deps.store, record.run_id)
    if result is None:
        raise NotFoundError(f"run {record.run_id} has no result")
    last = max(artifacts.maps_of(deps.store, record.run_id), default=0)
    calls = [c for c in deps.store.run_calls(record.run_id) if c.call_key.startswith(f"cartograph:{last}:")]
    return StoredJudgement(
        id="original",
        status="succeeded",
        original=True,
        judge="cartographer",
        model=result.models.get("judge", result.reasoner),
        prompt_version=None,
        report=result.report,
        consensus=result.consensus,
        frontier=result.frontier,
        final_vote=result.final_vote,
        swing=dict(result.swing),
        cost_usd=sum(c.cost_usd for c in calls),
        price_known=all(c.price_known for c in calls),
        llm_calls=sum(c.attempts for c in calls),
        created_at=record.finished_at,
    )


def judgements_of(
    deps: Deps, record: RunRecord, rejudge_id: str | None = None, now: datetime | None = None
) -> list[StoredJudgement]:
    """The run's own judgement (a panel's: each of its judges), then every re-judgement, oldest first
    (none before the run succeeded); with `rejudge_id`, that re-judging's only. A judgement a stopped
    worker left pending past its time reads as failed, saying so."""
    if record.status is not RunStatus.SUCCEEDED or (record.result is None and record.motion is None):
        return []
    prefix = PREFIX if rejudge_id is None else f"{PREFIX}{rejudge_id}/"
    again = sorted(
        (
            StoredJudgement.model_validate(d)
            for d in deps.store.find_artifacts(record.run_id, prefix).values()
        ),
        key=_order,
    )
    cut_off = (now or datetime.now(UTC)) - timedelta(seconds=RUN_FOR_S + GRACE_S)
    again = [
        j.model_copy(update={"status": "failed", "error": CUT_OFF})
        if j.status == "pending" and j.created_at is not None and j.created_at < cut_off
        else j
        for j in again
    ]
    return (
        again
        if rejudge_id is not None
        else [*(panel_judgements(deps, record) or [original(deps, record)]), *again]
    )


CUT_OFF = (
    f"no answer within {_span(RUN_FOR_S + GRACE_S)}: the work was cut off (its function timed out, or the "
    "process judging it ended)"
)
