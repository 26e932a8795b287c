"""Stage 8: the final moderator judges the anonymized positions, in the order they were argued (the
scoring contract's judge; the rubric judge, adjudication/rubric.py, shares its inputs and its handling)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from pydantic import BaseModel

from claimcourt.adjudication.review import first_batch
from claimcourt.contract import COMPOSITION_RULES, SHAPES
from claimcourt.debate.prefix import case_prefix, run_tools
from claimcourt.errors import MalformedReplyError, ProviderError, RefusedJudgementError, TruncatedReplyError
from claimcourt.models import (
    AdjudicateInput,
    JudgeKind,
    Judgement,
    Reconsider,
    SubClaimJudgement,
    Verdict,
    WouldChange,
)
from claimcourt.observability import logger
from claimcourt.prompts import dates_note, ledger_block, render
from claimcourt.reasoning.base import CallContext, Task
from claimcourt.reasoning.reasoner import Reasoner

OutT = TypeVar("OutT", bound=BaseModel)
Check = Callable[[OutT], list[str]]

SAMPLE_TEMPERATURE = 0.7
MODE_NOTES = {
    "spectral": " The person asked for the score: make it, and its interval, as well calibrated as you can.",
    "verdict": " The person asked for a verdict: it is read first, so make the verdicts exact; give every "
    "score too.",
}


CONTRACT_ANSWER = (
    "give the score and interval the whole pool supports; if the disagreement is real, let the interval "
    "show it."
)


def reconsider_note(reconsider: Reconsider | None, answer: str = CONTRACT_ANSWER) -> str:
    """The re-deliberation's addendum (our own numbers and ids: no untrusted text); `answer`: what to
    give back, in the judge's own terms."""
    if reconsider is None:
        return ""
    scores = ", ".join(str(s) for s in reconsider.scores)
    ids = ", ".join(reconsider.contrarian_ids[:20])
    return (
        f"\n\nThis is a second look. Independent judgements of this debate gave overall scores of {scores}: "
        f"{reconsider.spread} points apart. The pool holds evidence retrieved specifically against the way "
        f"the debate leaned ({ids}). Address that evidence and that disagreement explicitly: say in each "
        f"referee_synthesis how the contrarian evidence bears on the sub-claim, and {answer}"
    )


# Who checked the ledger's citations, as the judge is told (a run from before the neutral checker,
# re-judged, reads its checks as they were made).
_SCORED = (
    "for the source's credibility and for correspondence (does the passage say what the argument says it "
    "says?), 1–10, with a comment"
)
CHECKED_BY = {
    "neutral": f"each was checked once, by a fact-checker who takes neither position's side, {_SCORED}",
    "sides": (
        f"each was checked by the other position's fact-checker {_SCORED}, and the checked position answered"
    ),
}


def judge_values(inputs: AdjudicateInput) -> dict[str, str]:
    """What every judge's template is filled with: the debate, anonymized, and the claim's shape."""
    return {
        "rounds": str(max((p.round for p in inputs.positions), default=0)),
        "shape": inputs.shape,
        "shape_meaning": SHAPES[inputs.shape],
        "composition_rule": COMPOSITION_RULES[inputs.shape],
        "mode_note": MODE_NOTES[inputs.mode],
        # The pool holds each passage, and the debate above each sentence: the ledger names where.
        "ledger": ledger_block(inputs.ledger, passages=False, sources=False, sentences=False),
        "checked_by": CHECKED_BY[inputs.checked_by],
        "dates": dates_note(inputs.today, inputs.as_of, inputs.evidence),
    }


def once_each(wanted: Iterable[str], ids: list[str], what: str) -> list[str]:
    """The problems with a reply that must cover every one of `wanted` exactly once."""
    wanted = set(wanted)
    problems = [f"no {what} on {s}" for s in sorted(wanted - set(ids))]
    problems += [f"{s} is not a sub-claim" for s in sorted(set(ids) - wanted)]
    return problems + [f"{s} judged more than once" for s in sorted({i for i in ids if ids.count(i) > 1})]


def leads_problems(wanted: Iterable[str], leads: list[WouldChange]) -> list[str]:
    """The problems with a judge's what_would_change: each names a sub-claim of this run, or none."""
    known = set(wanted)
    return [
        f"what_would_change[{i}].sub_claim {lead.sub_claim} is not a sub-claim"
        for i, lead in enumerate(leads)
        if lead.sub_claim is not None and lead.sub_claim not in known
    ]


JUDGE_KINDS: dict[str, JudgeKind] = {"adjudicate": "contract", "adjudicate_rubric": "rubric"}


def judge_task(
    kind: str,
    output: type[OutT],
    inputs: AdjudicateInput,
    system: str,
    prompt: str,
    check: Check[OutT],
    reconsider: str = "",
) -> Task[OutT]:
    """A judge's task: sample 0 and the re-deliberation at temperature 0, the other samples sampled;
    one reply per sub-claim. Its opening is the one every call of the run reads (nothing in it names a
    side). When the run may ask for more than one judgement, sample 0 writes its whole prompt to the
    cache too, and the later samples and the re-deliberation (whose note, `reconsider`, comes after the
    prompt) read it; the other samples of the first batch run beside sample 0, so they could only
    write it again."""
    n = len(inputs.sub_claims)
    beside_the_first = inputs.sample in first_batch(inputs.samples)[1:]
    return Task(
        kind=kind,
        role="adjudicator",
        inputs=inputs,
        output=output,
        system=system,
        prompt=prompt,
        temperature=0.0 if inputs.sample == 0 or inputs.reconsider else SAMPLE_TEMPERATURE,
        array_limits={"sub_claims": (n, n)},
        check=check,
        # The debate is in the opening, round by round; its last round only the judge reads (its first
        # sample writes it with its prompt, for the later samples).
        shared=case_prefix(
            inputs.claim,
            inputs.sub_claims,
            inputs.evidence,
            inputs.positions,
            relevance=inputs.relevance,
            new_from=(max((p.round for p in inputs.positions), default=1), "debate"),
        ),
        tools=run_tools(JUDGE_KINDS[kind]),
        cache_prompt=inputs.samples > 1 and not beside_the_first,
        addendum=reconsider,
    )


def adjudicate_task(inputs: AdjudicateInput) -> Task[Judgement]:
    system, prompt = render("adjudicate", **judge_values(inputs))
    wanted = [s.id for s in inputs.sub_claims]

    def every_sub_claim_once(judgement: Judgement) -> list[str]:
        judged = once_each(wanted, [j.sub_claim_id for j in judgement.sub_claims], "judgement")
        return judged + leads_problems(wanted, judgement.what_would_change)

    return judge_task(
        "adjudicate",
        Judgement,
        inputs,
        system,
        prompt,
        every_sub_claim_once,
        reconsider_note(inputs.reconsider),
    )


def complete(judgement: Judgement, inputs: AdjudicateInput) -> Judgement:
    """Every sub-claim judged once, evidence ids real: a judge that skipped one gets it as
    not-enough-evidence rather than a silent gap."""
    pool = {e.id for e in inputs.evidence}
    by_id = {j.sub_claim_id: j for j in judgement.sub_claims}
    judged = []
    for sub in inputs.sub_claims:
        j = by_id.get(sub.id) or SubClaimJudgement(
            sub_claim_id=sub.id,
            score=50,
            verdict=Verdict.NOT_ENOUGH_EVIDENCE,
            referee_synthesis="The judge gave no verdict on this sub-claim.",
            decisive_evidence_id=None,
            stronger_position="neither",
        )
        if j.decisive_evidence_id not in pool:
            j = j.model_copy(update={"decisive_evidence_id": None})
        judged.append(j)
    decisive = judgement.decisive_evidence_id if judgement.decisive_evidence_id in pool else None
    return judgement.model_copy(update={"sub_claims": judged, "decisive_evidence_id": decisive})


def ask_judge(task: Task[OutT], inputs: AdjudicateInput, reasoner: Reasoner, ctx: CallContext) -> OutT | None:
    """One judge's reply: sample 0 at temperature 0, the others at a higher temperature, their spread
    widening the interval. A sample after the first that is refused, or whose reply cannot be used,
    is None (skipped: the run has its judgement); a refused sample 0 fails the run."""
    try:
        reply = reasoner.call(task, ctx, suffix=f"s{inputs.sample}")
    except (MalformedReplyError, TruncatedReplyError, ProviderError) as err:
        if inputs.sample == 0:
            raise
        logger.warning("self-consistency sample skipped", extra={"sample": inputs.sample, "error": str(err)})
        return None
    if reply.output is not None:
        return reply.output
    if inputs.sample == 0:
        raise RefusedJudgementError(reply.refusal or "no reason given")
    return None


def adjudicate(inputs: AdjudicateInput, reasoner: Reasoner, ctx: CallContext) -> Judgement | None:
    """One judgement by the scoring contract's judge (None: a skipped sample, see `ask_judge`)."""
    judgement = ask_judge(adjudicate_task(inputs), inputs, reasoner, ctx)
    return complete(judgement, inputs) if judgement is not None else None
