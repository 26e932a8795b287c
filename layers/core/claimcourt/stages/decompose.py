"""Stage 2: split the claim into sub-claims, each with one retrieval directive, and say its shape.

It runs first, before any search: an instruction posing as a claim is stopped here by the code's own
screen (debate/suitability.screen), with no model call and nothing searched. Its split is audited by
the suitability check after the first retrieval; attempt 1 is the one re-split a faulted audit asks for,
made with the audit's faults as feedback."""

from __future__ import annotations

from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.review import first_batch
from claimcourt.debate.argue import turns
from claimcourt.debate.decompose import decompose
from claimcourt.debate.suitability import screen
from claimcourt.errors import NotFoundError
from claimcourt.models import DecomposeInput, Decomposition, Directive, RunRequest, Stage, SubClaim
from claimcourt.reasoning.base import CallContext
from claimcourt.stages.payloads import SplitPayload
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.DECOMPOSE
FIRST_ROUND = 1


def run(deps: Deps, p: SplitPayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    request = record.request
    if (stopped := screen(request.claim)) is not None:
        deps.store.put_artifact(p.run_id, artifacts.SUITABILITY, stopped.model_dump(mode="json"))
        return _summary(deps, p, request, proceed=False, sub_claims=[])
    profile = deps.settings.effort(request.effort)
    previous = _faulted_split(deps, p) if p.attempt else None
    result = decompose(
        DecomposeInput(
            claim=request.claim,
            context=request.context,
            max_sub_claims=profile.max_sub_claims,
            feedback=artifacts.audit_feedback(deps.store, p.run_id, p.attempt - 1) if p.attempt else [],
            evidence_source=evidence_name(deps, record),
            judge=request.judge,
        ),
        deps.reasoner,
        CallContext(p.run_id, STAGE),
        attempt=p.attempt,
    )
    if previous is not None:
        # The first split stays on record beside the suitability check that faulted it.
        deps.store.put_artifact(
            p.run_id, artifacts.split_key(p.attempt - 1), previous.model_dump(mode="json")
        )
        _retire(deps, p.run_id, previous, result)
    deps.store.put_artifact(p.run_id, artifacts.DECOMPOSITION, result.model_dump(mode="json"))
    return _summary(deps, p, request, proceed=True, sub_claims=result.sub_claims)


def _faulted_split(deps: Deps, p: SplitPayload) -> Decomposition:
    """The split the audit faulted: the one kept for the record if this attempt already kept it (a
    retried re-split, whose `decomposition` is the re-split by now), else the run's current one."""
    try:
        return Decomposition.model_validate(
            deps.store.get_artifact(p.run_id, artifacts.split_key(p.attempt - 1))
        )
    except NotFoundError:
        return artifacts.decomposition_of(deps.store, p.run_id)


def _summary(
    deps: Deps, p: SplitPayload, request: RunRequest, *, proceed: bool, sub_claims: list[SubClaim]
) -> dict[str, Any]:
    """One shape whether the screen stopped the claim or not (the ASL selects every field)."""
    directives = [Directive(sub_claim_id=s.id, query=s.directive).model_dump() for s in sub_claims]
    return {
        "proceed": proceed,
        "attempt": p.attempt,
        "directives": directives,
        "sub_claims": len(directives),
        # What the state machine needs to run the rest: when to stop, and which judgements to ask for.
        "max_rounds": deps.settings.round_limit(request),
        # Whether the sides argue in turn (the Order? Choice), and who speaks first and second.
        "order": turns(request.first),
        # The judge's first samples; the review stage asks for the rest when these disagree. A panel of
        # judges replaces them (and the re-deliberation): one judgement from each judge, all at once.
        "samples": [] if request.judges else first_batch(deps.settings.judgements(request.effort)),
        "panel": list(range(len(request.judges))),
    }


def _retire(deps: Deps, run_id: str, previous: Decomposition, split: Decomposition) -> None:
    """The first split's round-1 retrievals of sub-claims the re-split no longer has are emptied (the
    store keeps no deletes): no pool reads them. The others the re-split's own retrievals overwrite."""
    kept = {s.id for s in split.sub_claims}
    for sub in previous.sub_claims:
        if sub.id not in kept:
            deps.store.put_artifact(
                run_id, artifacts.evidence_key(FIRST_ROUND, sub.id), artifacts.superseded(sub.directive)
            )
