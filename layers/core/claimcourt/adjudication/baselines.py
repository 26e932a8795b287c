"""The scorecard's baselines (claimcourt.bench): a claim judged in one call, no debate.

- `baseline_judge`, the single-LLM judge: the claim alone, judged from what the model knows.
- `baseline_rag`, naive RAG + LLM: the claim and the passages one search for it found, judged at once.

Both go to the adjudicator's model (the debate's judge), through the same Reasoner (ledger, budget, one
retry with the problem as feedback), and reply a BaselineJudgement under the same score bands as the
debate's sub-claims: a verdict its score cannot carry is asked again once, then follows the score's band.
"""

from __future__ import annotations

from typing import Literal

from claimcourt.adjudication.adjudicate import MODE_NOTES
from claimcourt.contract import REFUTED_AT, SUPPORTED_AT
from claimcourt.errors import RefusedJudgementError
from claimcourt.models import BaselineInput, BaselineJudgement, Verdict
from claimcourt.prompts import escape, evidence_block, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

BaselineKind = Literal["baseline_judge", "baseline_rag"]
BASELINE_KINDS: tuple[BaselineKind, ...] = ("baseline_judge", "baseline_rag")
ROLE = "adjudicator"  # the same model as the debate's judge


def _as_of(inputs: BaselineInput) -> str:
    if inputs.as_of_date is None:
        return ""
    return (
        f" Judge the claim as it could have been judged on {inputs.as_of_date.isoformat()}: use nothing "
        "published or learned after that date."
    )


def band_problems(judgement: BaselineJudgement, pool: set[str] | None) -> list[str]:
    """What the score bands (docs/scoring.md) and the pool say is wrong with a schema-valid reply."""
    problems = []
    score, verdict = judgement.score, judgement.verdict
    if verdict is Verdict.SUPPORTED and score < SUPPORTED_AT:
        problems.append(f"verdict supported needs score {SUPPORTED_AT} or more, not {score}")
    if verdict is Verdict.REFUTED and score > REFUTED_AT:
        problems.append(f"verdict refuted needs score {REFUTED_AT} or less, not {score}")
    if (
        verdict in (Verdict.NOT_ENOUGH_EVIDENCE, Verdict.CONFLICTING)
        and not REFUTED_AT < score < SUPPORTED_AT
    ):
        problems.append(f"verdict {verdict.value} needs a score between {REFUTED_AT} and {SUPPORTED_AT}")
    cited = judgement.decisive_evidence_id
    if cited is not None and (pool is None or cited not in pool):
        problems.append(f"decisive_evidence_id {cited} is not an evidence id of the pool")
    return problems


def baseline_task(kind: BaselineKind, inputs: BaselineInput) -> Task[BaselineJudgement]:
    common = {"as_of": _as_of(inputs), "mode_note": MODE_NOTES[inputs.mode], "claim": escape(inputs.claim)}
    if kind == "baseline_rag":
        system, prompt = render(kind, evidence=evidence_block(inputs.evidence), **common)
        pool: set[str] | None = {e.id for e in inputs.evidence}
    else:
        system, prompt = render(kind, **common)
        pool = None
    return Task(
        kind=kind,
        role=ROLE,
        inputs=inputs,
        output=BaselineJudgement,
        system=system,
        prompt=prompt,
        temperature=0.0,
        check=lambda judgement: band_problems(judgement, pool),
    )


def in_band(judgement: BaselineJudgement, pool: set[str] | None) -> BaselineJudgement:
    """A reply still wrong after its retry, repaired as the score stage repairs a judge's: the verdict
    follows its score's band, and an evidence id outside the pool is dropped."""
    update: dict[str, object] = {}
    score, verdict = judgement.score, judgement.verdict
    if score >= SUPPORTED_AT and verdict is not Verdict.SUPPORTED:
        update["verdict"] = Verdict.SUPPORTED
    elif score <= REFUTED_AT and verdict is not Verdict.REFUTED:
        update["verdict"] = Verdict.REFUTED
    elif REFUTED_AT < score < SUPPORTED_AT and verdict in (Verdict.SUPPORTED, Verdict.REFUTED):
        update["verdict"] = Verdict.NOT_ENOUGH_EVIDENCE
    if judgement.decisive_evidence_id is not None and (
        pool is None or judgement.decisive_evidence_id not in pool
    ):
        update["decisive_evidence_id"] = None
    return judgement.model_copy(update=update) if update else judgement


def judge_baseline(
    kind: BaselineKind, inputs: BaselineInput, reasoner: Reasoner, ctx: CallContext
) -> BaselineJudgement:
    """One baseline call. A refusal is a RefusedJudgementError, as the debate's judge's is."""
    reply = reasoner.call(baseline_task(kind, inputs), ctx)
    if reply.output is None:
        raise RefusedJudgementError(reply.refusal or "no reason given")
    pool = {e.id for e in inputs.evidence} if kind == "baseline_rag" else None
    return in_band(reply.output, pool)
