"""The stage services the Lambda handlers call: load what a stage needs from the store, run the
pure stage function, save what it made, return a small summary for the state payload.

The state machine (statemachine/debate.asl.json) decides what runs when; nothing here loops
over stages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from claimcourt.adjudication.adjudicate import adjudicate
from claimcourt.adjudication.anonymize import anonymize
from claimcourt.adjudication.score import compose_result, usage_from
from claimcourt.debate.argue import argue
from claimcourt.debate.decompose import decompose
from claimcourt.debate.moderate import moderate
from claimcourt.debate.suitability import assess
from claimcourt.errors import NotFoundError
from claimcourt.evidence.base import EvidenceSource
from claimcourt.evidence.retrieve import context_evidence, retrieve
from claimcourt.execution import Executor
from claimcourt.models import (
    AdjudicateInput,
    ArgueInput,
    Argument,
    Decomposition,
    Directive,
    Evidence,
    Judgement,
    ModerateInput,
    ModeratorDecision,
    RunEvent,
    RunRequest,
    RunStatus,
    Side,
    Suitability,
    SuitabilityInput,
)
from claimcourt.reasoning.base import CallContext, CallRecord
from claimcourt.reasoning.prices import WEB_SEARCH_USD_PER_REQUEST, cost_usd
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.settings import MIN_ROUNDS, ROLES, SAMPLED_ROLES, Settings
from claimcourt.store.base import Store
from claimcourt.watch import SCORE_CHANGED, score_change

if TYPE_CHECKING:  # Powertools idempotency imports boto3: not at a handler's cold import
    from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer

    from claimcourt.bus import DeadLetters, Publisher
    from claimcourt.delivery import Poster


@dataclass(frozen=True)
class Deps:
    """A stage's collaborators, built once per cold start (or once per local runtime)."""

    settings: Settings
    store: Store
    reasoner: Reasoner
    evidence: EvidenceSource
    # Powertools idempotency records: DynamoDB in the cloud, the SQLite file on the laptop.
    idempotency: BasePersistenceLayer | None = None
    # Where the API starts runs: Step Functions, or the local runtime (None: this process cannot).
    executor: Executor | None = None
    # Where progress is posted to WebSocket connections (None: this deployment has no WebSocket API).
    poster: Poster | None = None
    # Where claim.score_changed goes: the project's EventBridge bus, or a file (None: nowhere).
    publisher: Publisher | None = None
    # Where the monitor function keeps bus events it cannot act on (None: not this function).
    dead_letters: DeadLetters | None = None


# ---------------------------------------------------------------- state payloads (kept small)


class Payload(BaseModel):
    model_config = ConfigDict(extra="ignore")
    run_id: str = Field(min_length=1, max_length=100)


class RoundPayload(Payload):
    round: int = Field(ge=1, le=20)


class RetrievePayload(RoundPayload):
    directive: Directive


class ArguePayload(RoundPayload):
    side: Side


class AdjudicatePayload(Payload):
    sample: int = Field(default=0, ge=0, le=10)


class FinishPayload(Payload):
    outcome: Literal["stopped", "failed"]
    error: dict[str, Any] | None = None  # a Catch's {"Error", "Cause"}


# ---------------------------------------------------------------- artifact keys


def evidence_key(round: int, sub_claim_id: str) -> str:
    return f"evidence/r{round:02d}/{sub_claim_id}"


def argument_key(round: int, side: Side) -> str:
    return f"argument/r{round:02d}/{side}"


def decision_key(round: int) -> str:
    return f"decision/r{round:02d}"


def judgement_key(sample: int) -> str:
    return f"judgement/s{sample:02d}"


def _request(deps: Deps, run_id: str) -> RunRequest:
    return deps.store.get_run(run_id).request


def _decomposition(deps: Deps, run_id: str) -> Decomposition:
    return Decomposition.model_validate(deps.store.get_artifact(run_id, "decomposition"))


def retrievals_of(store: Store, run_id: str) -> dict[str, dict[str, Any]]:
    """Every retrieval of the run so far (query, cache hit, evidence items), by artifact key."""
    return store.find_artifacts(run_id, "evidence/")


def evidence_pool(
    retrievals: dict[str, dict[str, Any]], context: str | None, up_to_round: int | None = None
) -> list[Evidence]:
    """The run's pool: the passages of its --context first, then every item retrieved so far, oldest
    first, each id once."""
    pool: dict[str, Evidence] = {e.id: e for e in context_evidence(context)}
    for key, doc in retrievals.items():
        if up_to_round is not None and int(key.split("/")[1][1:]) > up_to_round:
            continue
        for item in doc["items"]:
            e = Evidence.model_validate(item)
            pool.setdefault(e.id, e)
    return list(pool.values())


def arguments_of(store: Store, run_id: str) -> list[Argument]:
    """Every argument of the run, by round, then side."""
    found = [Argument.model_validate(v) for v in store.find_artifacts(run_id, "argument/").values()]
    return sorted(found, key=lambda a: (a.round, a.side))


def _argument(store: Store, run_id: str, round: int, side: Side) -> Argument | None:
    try:
        return Argument.model_validate(store.get_artifact(run_id, argument_key(round, side)))
    except NotFoundError:
        return None


# ---------------------------------------------------------------- stages


def suitability(deps: Deps, p: Payload) -> dict[str, Any]:
    request = _request(deps, p.run_id)
    result: Suitability = assess(
        SuitabilityInput(claim=request.claim, context=request.context),
        deps.reasoner,
        CallContext(p.run_id, "suitability"),
    )
    deps.store.put_artifact(p.run_id, "suitability", result.model_dump(mode="json"))
    return {"proceed": result.proceed, "flags": [f.value for f in result.flags]}


def decomposition(deps: Deps, p: Payload) -> dict[str, Any]:
    request = _request(deps, p.run_id)
    profile = deps.settings.effort(request.effort)
    result = decompose(
        request.claim,
        request.context,
        profile.max_sub_claims,
        deps.reasoner,
        CallContext(p.run_id, "decompose"),
        evidence_source=deps.evidence.name,
    )
    deps.store.put_artifact(p.run_id, "decomposition", result.model_dump(mode="json"))
    directives = [Directive(sub_claim_id=s.id, query=s.directive).model_dump() for s in result.sub_claims]
    return {
        "directives": directives,
        "sub_claims": len(directives),
        # What the state machine needs to run the rest: when to stop, and which judgements to ask for.
        "max_rounds": profile.max_rounds,
        "samples": list(range(profile.self_consistency_samples + 1)),
    }


def retrieval(deps: Deps, p: RetrievePayload) -> dict[str, Any]:
    request = _request(deps, p.run_id)
    found, cache_hit = retrieve(
        p.directive,
        round=p.round,
        source=deps.evidence,
        cache=deps.store,
        limit=deps.settings.effort(request.effort).evidence_per_query,
        as_of=request.as_of_date,
        ttl_s=deps.settings.cache_ttl_s,
    )
    doc = {
        "query": p.directive.query,
        "source": deps.evidence.name,
        "cache_hit": cache_hit,
        "items": [e.model_dump(mode="json") for e in found],
    }
    if not cache_hit:  # a cached answer cost nothing this time
        _bill_search(deps, p)
    deps.store.put_artifact(p.run_id, evidence_key(p.round, p.directive.sub_claim_id), doc)
    return {"sub_claim_id": p.directive.sub_claim_id, "found": len(found), "cache_hit": cache_hit}


def _bill_search(deps: Deps, p: RetrievePayload) -> None:
    """A source that calls a model to search (Anthropic web search) is billed like any other call."""
    usage: tuple[str, int, int] | None = getattr(deps.evidence, "last_usage", None)
    if usage is None:
        return
    model, input_tokens, output_tokens = usage
    cost, known = cost_usd(model, input_tokens, output_tokens)
    cost += WEB_SEARCH_USD_PER_REQUEST * int(getattr(deps.evidence, "last_search_requests", 0))
    key = f"retrieve:{p.round}:{p.directive.sub_claim_id}:search"
    record = CallRecord(
        p.run_id, key, deps.evidence.name, model, input_tokens, output_tokens, cost, known, None, None
    )
    deps.store.put_call(record)


def _persona(deps: Deps, run_id: str, round: int) -> int:
    if round <= 1:
        return 0
    try:
        return ModeratorDecision.model_validate(
            deps.store.get_artifact(run_id, decision_key(round - 1))
        ).persona
    except NotFoundError:
        return 0


def argument(deps: Deps, p: ArguePayload) -> dict[str, Any]:
    request = _request(deps, p.run_id)
    pool = evidence_pool(retrievals_of(deps.store, p.run_id), request.context, up_to_round=p.round)
    other: Side = "against" if p.side == "for" else "for"
    inputs = ArgueInput(
        claim=request.claim,
        context=request.context,
        side=p.side,
        round=p.round,
        max_rounds=deps.settings.effort(request.effort).max_rounds,
        persona=_persona(deps, p.run_id, p.round),
        sub_claims=_decomposition(deps, p.run_id).sub_claims,
        evidence=pool,
        new_evidence_ids=[e.id for e in pool if e.round == p.round] if p.round > 1 else [],
        own_previous=_argument(deps.store, p.run_id, p.round - 1, p.side),
        opponent_previous=_argument(deps.store, p.run_id, p.round - 1, other),
    )
    result = argue(inputs, deps.reasoner, CallContext(p.run_id, "argue", p.round, p.side))
    deps.store.put_artifact(p.run_id, argument_key(p.round, p.side), result.model_dump(mode="json"))
    return {"side": p.side, "implied_score": result.implied_score(), "refused": result.refusal is not None}


def moderation(deps: Deps, p: RoundPayload) -> dict[str, Any]:
    request = _request(deps, p.run_id)
    case_for = _argument(deps.store, p.run_id, p.round, "for")
    case_against = _argument(deps.store, p.run_id, p.round, "against")
    if case_for is None or case_against is None:
        raise NotFoundError(f"run {p.run_id} round {p.round} is missing an argument")
    retrievals = retrievals_of(deps.store, p.run_id)
    decision = moderate(
        ModerateInput(
            claim=request.claim,
            round=p.round,
            max_rounds=deps.settings.effort(request.effort).max_rounds,
            evidence_source=deps.evidence.name,
            sub_claims=_decomposition(deps, p.run_id).sub_claims,
            case_for=case_for,
            case_against=case_against,
            evidence=evidence_pool(retrievals, request.context),
            previous_queries=[doc["query"] for doc in retrievals.values()],
        ),
        deps.reasoner,
        CallContext(p.run_id, "moderate", p.round),
        min_rounds=MIN_ROUNDS,
        max_rounds=deps.settings.effort(request.effort).max_rounds,
        persona=_persona(deps, p.run_id, p.round),
    )
    deps.store.put_artifact(p.run_id, decision_key(p.round), decision.model_dump(mode="json"))
    return {
        "action": decision.action.value,
        "another_round": decision.action.another_round,
        "next_round": p.round + 1,
        "directives": [d.model_dump() for d in decision.directives],
    }


def adjudication(deps: Deps, p: AdjudicatePayload) -> dict[str, Any]:
    request = _request(deps, p.run_id)
    positions, mapping = anonymize(arguments_of(deps.store, p.run_id), seed=p.run_id)
    decomposition = _decomposition(deps, p.run_id)
    judgement = adjudicate(
        AdjudicateInput(
            claim=request.claim,
            mode=request.mode,
            sub_claims=decomposition.sub_claims,
            shape=decomposition.shape,
            positions=positions,
            evidence=evidence_pool(retrievals_of(deps.store, p.run_id), request.context),
            sample=p.sample,
        ),
        deps.reasoner,
        CallContext(p.run_id, "adjudicate"),
    )
    doc = {"mapping": mapping, "judgement": judgement.model_dump(mode="json") if judgement else None}
    deps.store.put_artifact(p.run_id, judgement_key(p.sample), doc)
    return {"sample": p.sample, "overall_score": judgement.overall_score if judgement else None}


def judgements_of(store: Store, run_id: str) -> tuple[list[Judgement], dict[str, Side]]:
    """The run's judgements, sample 0 first, refused samples left out; and the label → side mapping."""
    docs = [doc for _, doc in sorted(store.find_artifacts(run_id, "judgement/").items())]
    judged = [Judgement.model_validate(d["judgement"]) for d in docs if d["judgement"] is not None]
    return judged, docs[0]["mapping"] if docs else {}


def scoring(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    judgements, mapping = judgements_of(deps.store, p.run_id)
    retrievals = retrievals_of(deps.store, p.run_id)
    hits = sum(1 for doc in retrievals.values() if doc["cache_hit"])
    suitability_doc = Suitability.model_validate(deps.store.get_artifact(p.run_id, "suitability"))
    result = compose_result(
        run_id=p.run_id,
        request=record.request,
        decomposition=_decomposition(deps, p.run_id),
        arguments=arguments_of(deps.store, p.run_id),
        judgements=judgements,
        evidence=evidence_pool(retrievals, record.request.context),
        usage=usage_from(deps.store.run_calls(p.run_id), hits, len(retrievals) - hits),
        warnings=suitability_doc.warnings,
        reasoner=deps.reasoner.label(ROLES),
        models=deps.reasoner.models(ROLES),
        sides=mapping,
        natural_temperature=deps.reasoner.natural_temperature(ROLES, SAMPLED_ROLES),
    )
    # A run that had already ended (failed meanwhile) keeps its status: report that one.
    finished = deps.store.finish_run(p.run_id, result)
    status = RunStatus.SUCCEEDED if finished else deps.store.get_run(p.run_id).status
    if status is RunStatus.SUCCEEDED:
        announce_score_change(deps, p.run_id)
    return {
        "run_id": p.run_id,
        "status": status.value,
        "score": result.overall_score,
        "interval": result.interval.model_dump(),
        "verdict": result.overall_verdict.value,
    }


def _reason(error: dict[str, Any] | None) -> str:
    """'ErrorName: message' from a Catch's error object, never a stack trace."""
    if not error:
        return "unknown error"
    name = str(error.get("Error", "Error"))
    cause = error.get("Cause", "")
    try:
        message = json.loads(cause).get("errorMessage", "")
    except (TypeError, ValueError, AttributeError):
        message = str(cause)
    return f"{name}: {message}".strip().rstrip(":")[:1000]


def finish(deps: Deps, p: FinishPayload) -> dict[str, Any]:
    """The two ends that are not a score: stopped by the suitability check, or failed."""
    spent = usage_from(deps.store.run_calls(p.run_id), 0, 0)
    tokens = spent.input_tokens + spent.output_tokens
    if p.outcome == "stopped":
        warnings = Suitability.model_validate(deps.store.get_artifact(p.run_id, "suitability")).warnings
        deps.store.set_status(
            p.run_id, RunStatus.STOPPED, warnings=warnings, cost_usd=spent.total_cost_usd, tokens=tokens
        )
    else:
        deps.store.set_status(
            p.run_id, RunStatus.FAILED, error=_reason(p.error), cost_usd=spent.total_cost_usd, tokens=tokens
        )
    # A run that had already ended keeps its status: report what it is, not what was asked.
    record = deps.store.get_run(p.run_id)
    return {
        "run_id": p.run_id,
        "status": record.status.value,
        "error": record.error,
        "warnings": record.warnings,
    }


def announce_score_change(deps: Deps, run_id: str) -> None:
    """Put claim.score_changed on the bus if this live run moved its claim's score by a monitor's
    threshold. Published before it is marked in the run's events (which a retry of the stage
    checks first), so a retry after a crash may publish it again but never loses it."""
    if deps.publisher is None:
        return
    if any(e.type == SCORE_CHANGED for e in deps.store.list_events(run_id)):
        return
    changed = score_change(deps.store, deps.store.get_run(run_id))
    if changed is None:
        return
    detail = changed.model_dump(mode="json")
    deps.publisher.publish(SCORE_CHANGED, detail)
    deps.store.append_event(RunEvent(run_id=run_id, type=SCORE_CHANGED, data=detail), key=SCORE_CHANGED)


END_STAGES = frozenset({"score", "finish"})


def announce_end(store: Store, run_id: str) -> None:
    """Append the run's one terminal event (run.succeeded, run.failed or run.stopped) from its
    record, after the last stage's own events: a subscriber may stop reading at it. Then release the
    run's lease. Both steps are idempotent: a retry repeats neither."""
    record = store.get_run(run_id)
    if not record.status.terminal:
        return
    data: dict[str, Any] = {"status": record.status.value}
    if record.status is RunStatus.SUCCEEDED and record.interval is not None:
        data |= {"score": record.score, "interval": record.interval.model_dump(), "verdict": record.verdict}
    elif record.status is RunStatus.FAILED:
        data["error"] = record.error
    else:
        data["warnings"] = record.warnings
    store.append_event(RunEvent(run_id=run_id, type=f"run.{record.status.value}", data=data), key="run.end")
    # Every way a run ends comes here, so here its place under the concurrency cap is given back (the
    # sweeper catches a run whose process died before this line).
    store.release(run_id)
