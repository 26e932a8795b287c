"""Stage 8: the final moderator judges the anonymized debate: one judgement (sample 0, or a
self-consistency sample; the Judge Map runs them in parallel), or, once, the re-deliberation the
review asked for (`reconsider`). By the contract's judge, or the rubric judge the request asked for
(`judge: rubric`, adjudication/rubric.py: stored read onto 0–100, its own reply beside). Or one judge
of the request's panel (`judge`: its index; the JudgePanel Map runs them all at once), by its own model
and kind, the same anonymized debate; its refusal or failure is stored as its error, for the others
still speak (adjudication/panel.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from claimcourt import artifacts
from claimcourt.adjudication.adjudicate import JUDGE_KINDS, adjudicate
from claimcourt.adjudication.anonymize import Label, anonymize, for_the_judge
from claimcourt.adjudication.panel import JUDGE_FAILURES, members
from claimcourt.adjudication.review import first_batch
from claimcourt.adjudication.rubric import adjudicate_rubric
from claimcourt.debate.ledger import build_ledger
from claimcourt.errors import NotFoundError, StageInputError
from claimcourt.models import (
    MAX_JUDGES,
    AdjudicateInput,
    JudgeKind,
    Judgement,
    LedgerEntry,
    Reconsider,
    RubricJudgement,
    RunRecord,
    Side,
    Stage,
)
from claimcourt.prompts import template_version
from claimcourt.reasoning.base import CallContext
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.stages.payloads import Payload
from claimcourt.wiring import Deps

STAGE = Stage.ADJUDICATE
# The template each judge reads (prompts/<kind>.md).
JUDGE_TEMPLATES: dict[JudgeKind, str] = {kind: name for name, kind in JUDGE_KINDS.items()}


class AdjudicatePayload(Payload):
    sample: int = Field(default=0, ge=0, le=10)
    reconsider: bool = Field(default=False, description="The re-deliberation the review asked for.")
    judge: int | None = Field(default=None, ge=0, lt=MAX_JUDGES, description="A panel judge's index.")


def by_position(
    ledger: list[LedgerEntry],
    mapping: Mapping[Label, Side],
    neutral: bool = False,
    first: Side | None = None,
) -> list[LedgerEntry]:
    """The ledger as the judge sees it: keys by anonymous position (A_3, not for_3), and the sentences,
    the fact-checkers' comments and their answers redacted (a team's checker names the sides, and the
    keys, as freely as a debater does; `neutral`: the run's checks are a neutral checker's). In the
    debate's order, not the ledger's: by round, then the position that spoke first (`first`'s), else A,
    as `anonymize` orders the arguments. The ledger lists the side for first, so its order would tell
    the judge which position that is."""
    label = {side: name for name, side in mapping.items()}
    opener = label[first] if first is not None else "A"
    shown = [for_the_judge(e, label, neutral) for e in ledger if e.side in label]
    return sorted(shown, key=lambda e: (e.round, not e.key.startswith(f"{opener}_"), _number(e.key)))


def _number(key: str) -> int:
    """A ledger key's number (A_12 → 12)."""
    return int(key.rsplit("_", 1)[1])


def _step(p: AdjudicatePayload, total: int) -> str:
    """The samples of the Judge Map run at once, then those of JudgeMore; the re-deliberation alone."""
    if p.reconsider:
        return ""
    return "judge" if p.sample in first_batch(total) else "judge-more"


def judge_inputs(
    deps: Deps,
    record: RunRecord,
    *,
    sample: int = 0,
    samples: int = 1,
    reconsider: Reconsider | None = None,
) -> tuple[AdjudicateInput, dict[Label, Side]]:
    """What a judge of this run reads, and the label → side mapping: the debate anonymized and in the
    order the run's seed gives it, so a re-judgement (rejudge.py) reads exactly what the judge read."""
    run_id, request = record.run_id, record.request
    arguments = artifacts.arguments_of(deps.store, run_id)
    retrievals = artifacts.retrievals_of(deps.store, run_id)
    pool = artifacts.evidence_pool(retrievals, request.context)
    positions, mapping = anonymize(arguments, seed=run_id, first=request.first)
    decomposition = artifacts.decomposition_of(deps.store, run_id)
    # A run checked by neutral checkers (every claim debate since they replaced the sides' checkers),
    # or an earlier one by each side's, re-judged as it was.
    checks = artifacts.factchecks_of(deps.store, run_id)
    neutral = not any(side is not None for _, side, _ in checks)
    inputs = AdjudicateInput(
        claim=request.claim,
        mode=request.mode,
        sub_claims=decomposition.sub_claims,
        shape=decomposition.shape,
        positions=positions,
        evidence=pool,
        sample=sample,
        reconsider=reconsider,
        ledger=by_position(build_ledger(arguments, pool, checks), mapping, neutral, request.first),
        checked_by="neutral" if neutral else "sides",
        today=record.created_at.date(),
        as_of=request.as_of_date,
        samples=samples,
        relevance=artifacts.pool_readings(retrievals, request.context, decomposition.sub_claims),
    )
    return inputs, mapping


def judge(
    kind: JudgeKind, inputs: AdjudicateInput, reasoner: Reasoner, ctx: CallContext
) -> tuple[Judgement | None, RubricJudgement | None]:
    """One judgement by the contract's judge or the rubric judge, and the rubric judge's own reply
    (None: the contract's judge, or a skipped sample)."""
    if kind == "rubric":
        judged = adjudicate_rubric(inputs, reasoner, ctx)
        return judged if judged is not None else (None, None)
    return adjudicate(inputs, reasoner, ctx), None


def prompt_version(kind: JudgeKind) -> str:
    """The version of the prompt a judge of this kind reads."""
    return template_version(JUDGE_TEMPLATES[kind])


def panel_lane(judge: int) -> str:
    """A panel judge's part of the run: its calls' ledger keys (`adjudicate:0:j1:…`) and its lane."""
    return f"j{judge}"


def judge_as_panelist(deps: Deps, record: RunRecord, n: int) -> dict[str, Any]:
    """The panel's judge `n`: one judgement at temperature 0 by its own model (sample 0 of its own),
    stored as `judgement/sNN` with who judged, or with why it could not."""
    panel = members(record.request, deps.settings)
    if n >= len(panel):
        raise StageInputError(f"run {record.run_id} has {len(panel)} judges: there is no judge {n}")
    member = panel[n]
    inputs, mapping = judge_inputs(deps, record)
    lane = panel_lane(n)
    ctx = CallContext(record.run_id, STAGE, side=lane, route=member.route, step="panel", lane=lane)
    try:
        judgement, rubric = judge(member.kind, inputs, deps.reasoner, ctx)
        error = None if judgement is not None else "the judge gave no usable judgement"
    except JUDGE_FAILURES as err:
        judgement, rubric, error = None, None, f"{type(err).__name__}: {err}"
    doc = {
        "mapping": mapping,
        "judgement": judgement.model_dump(mode="json") if judgement else None,
        "reconsider": False,
        "rubric": rubric.model_dump(mode="json") if rubric else None,
        "prompt_version": prompt_version(member.kind),
        "panel": {"judge": member.spec, "model": member.model_name, "kind": member.kind, "error": error},
    }
    deps.store.put_artifact(record.run_id, artifacts.judgement_key(n), doc)
    return {
        "judge": n,
        "model": member.model_name,
        "overall_score": judgement.overall_score if judgement else None,
        "error": error,
    }


def run(deps: Deps, p: AdjudicatePayload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    if p.judge is not None:
        return judge_as_panelist(deps, record, p.judge)
    total = deps.settings.judgements(record.request.effort)
    reconsider = None
    if p.reconsider:
        reviewed = artifacts.review_of(deps.store, p.run_id)
        if reviewed is None or reviewed["reconsider"] is None:
            raise NotFoundError(f"run {p.run_id}: no review asked to re-deliberate")
        reconsider = Reconsider.model_validate(reviewed["reconsider"])
    inputs, mapping = judge_inputs(deps, record, sample=p.sample, samples=total, reconsider=reconsider)
    ctx = CallContext(p.run_id, STAGE, step=_step(p, total), lane=f"s{p.sample}")
    judgement, rubric = judge(record.request.judge, inputs, deps.reasoner, ctx)
    doc = {
        "mapping": mapping,
        "judgement": judgement.model_dump(mode="json") if judgement else None,
        "reconsider": p.reconsider,
        # The rubric judge's own reply, before its ratings were read onto 0–100 (None: the contract's judge).
        "rubric": rubric.model_dump(mode="json") if rubric else None,
        "prompt_version": prompt_version(record.request.judge),
    }
    deps.store.put_artifact(p.run_id, artifacts.judgement_key(p.sample), doc)
    return {"sample": p.sample, "overall_score": judgement.overall_score if judgement else None}
