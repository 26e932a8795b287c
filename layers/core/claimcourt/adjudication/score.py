"""Stage 9: the overall score, its interval, the tail constraint, the verdict and the result.

Pure: everything it needs is passed in, so every rule here is tested without I/O.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Literal

from claimcourt.models import (
    Argument,
    Decomposition,
    Evidence,
    Interval,
    Judgement,
    ModelUsage,
    Result,
    RunRequest,
    Side,
    SourceRef,
    SubClaimResult,
    Usage,
    Verdict,
)
from claimcourt.reasoning.base import CallRecord

# The tail constraint: a score beyond these needs a T1 source on its side, else it is capped.
HIGH_TAIL, LOW_TAIL = 85, 15
SUPPORTED_AT, REFUTED_AT = 60, 40
MIN_HALF_WIDTH, MAX_HALF_WIDTH = 4, 35


def source_ref(e: Evidence) -> SourceRef:
    return SourceRef(
        evidence_id=e.id, title=e.title, source_url=e.source_url, tier=e.tier, published=e.published
    )


def final_round(arguments: list[Argument], side: Side) -> Argument | None:
    mine = [a for a in arguments if a.side == side]
    return max(mine, key=lambda a: a.round) if mine else None


def _clamp(value: float, low: int = 0, high: int = 100) -> int:
    return int(max(low, min(high, round(value))))


IntervalMethod = Literal["self_consistency", "sub_claim_dispersion"]


def interval_for(
    judgements: list[Judgement], arguments: list[Argument]
) -> tuple[int, Interval, IntervalMethod]:
    """From self-consistency samples when there are several; else from sub-claim dispersion and
    how far apart the two sides ended."""
    first = judgements[0]
    if len(judgements) > 1:
        scores = [j.overall_score for j in judgements]
        centre = round(statistics.median(scores))
        half = max(MIN_HALF_WIDTH, (max(scores) - min(scores)) / 2 + 2)
        return centre, Interval(low=_clamp(centre - half), high=_clamp(centre + half)), "self_consistency"
    centre = first.overall_score
    sub_scores = [j.score for j in first.sub_claims]
    spread = statistics.pstdev(sub_scores) if len(sub_scores) > 1 else 0.0
    gap = 0.0
    pro, con = final_round(arguments, "for"), final_round(arguments, "against")
    if pro and con and pro.implied_score() is not None and con.implied_score() is not None:
        gap = abs((pro.implied_score() or 0) - (con.implied_score() or 0))
    half = min(MAX_HALF_WIDTH, max(MIN_HALF_WIDTH, 0.5 * spread + 0.2 * gap + MIN_HALF_WIDTH))
    return centre, Interval(low=_clamp(centre - half), high=_clamp(centre + half)), "sub_claim_dispersion"


def tail_constraint(score: int, judgement: Judgement, evidence: dict[str, Evidence]) -> tuple[int, list[str]]:
    """A score in either tail must rest on a T1 source that decided a sub-claim the same way."""

    def t1_decided(verdict: Verdict) -> bool:
        return any(
            j.verdict is verdict
            and j.decisive_evidence_id in evidence
            and evidence[j.decisive_evidence_id].tier == "T1"
            for j in judgement.sub_claims
        )

    if score > HIGH_TAIL and not t1_decided(Verdict.SUPPORTED):
        return HIGH_TAIL, [f"Score capped at {HIGH_TAIL}: no primary (T1) source supports a higher one."]
    if score < LOW_TAIL and not t1_decided(Verdict.REFUTED):
        return LOW_TAIL, [f"Score floored at {LOW_TAIL}: no primary (T1) source supports a lower one."]
    return score, []


def verdict_for(score: int, interval: Interval, judgement: Judgement) -> Verdict:
    subs = [j.verdict for j in judgement.sub_claims]
    if subs and all(v is Verdict.NOT_ENOUGH_EVIDENCE for v in subs):
        return Verdict.NOT_ENOUGH_EVIDENCE
    if Verdict.SUPPORTED in subs and Verdict.REFUTED in subs:
        return Verdict.CONFLICTING
    if score >= SUPPORTED_AT and interval.low >= REFUTED_AT:
        return Verdict.SUPPORTED
    if score <= REFUTED_AT and interval.high <= SUPPORTED_AT:
        return Verdict.REFUTED
    if Verdict.CONFLICTING in subs or (interval.low < REFUTED_AT and interval.high > SUPPORTED_AT):
        return Verdict.CONFLICTING
    return Verdict.NOT_ENOUGH_EVIDENCE


def usage_from(calls: Iterable[CallRecord], cache_hits: int, cache_misses: int) -> Usage:
    models: dict[str, ModelUsage] = {}
    for c in calls:
        m = models.setdefault(c.model, ModelUsage(provider=c.provider))
        m.input_tokens += c.input_tokens
        m.output_tokens += c.output_tokens
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


def _side_text(argument: Argument | None, sub_claim_id: str) -> str:
    if argument is None:
        return "(no argument)"
    if argument.refusal is not None:
        return f"(declined to argue: {argument.refusal.reason})"
    for p in argument.points:
        if p.sub_claim_id == sub_claim_id:
            return p.argument
    return "(no point made on this sub-claim)"


def compose_result(
    *,
    run_id: str,
    request: RunRequest,
    decomposition: Decomposition,
    arguments: list[Argument],
    judgements: list[Judgement],
    evidence: list[Evidence],
    usage: Usage,
    warnings: list[str],
    reasoner: str,
    models: dict[str, str],
    sides: dict[str, Side] | None = None,
) -> Result:
    """`sides` maps the judge's anonymous labels back to for/against ({"A": "against", "B": "for"})."""
    pool = {e.id: e for e in evidence}
    judgement = judgements[0]
    centre, interval, method = interval_for(judgements, arguments)
    score, tail_warnings = tail_constraint(centre, judgement, pool)
    if score != centre:  # keep the interval around the constrained score
        shift = score - centre
        interval = Interval(low=_clamp(interval.low + shift), high=_clamp(interval.high + shift))
    verdict = verdict_for(score, interval, judgement)
    pro, con = final_round(arguments, "for"), final_round(arguments, "against")
    judged = {j.sub_claim_id: j for j in judgement.sub_claims}
    sub_results = []
    for sub in decomposition.sub_claims:
        j = judged[sub.id]
        decisive = pool.get(j.decisive_evidence_id or "")
        sub_results.append(
            SubClaimResult(
                id=sub.id,
                text=sub.text,
                score=j.score,
                verdict=j.verdict,
                case_for=_side_text(pro, sub.id),
                case_against=_side_text(con, sub.id),
                referee_synthesis=j.referee_synthesis,
                stronger_side=(sides or {}).get(j.stronger_position),
                decisive_source=source_ref(decisive) if decisive else None,
            )
        )
    cited = [c for a in arguments for p in a.points for c in p.citations]
    cited += [j.decisive_evidence_id for j in judgement.sub_claims if j.decisive_evidence_id]
    sources = [source_ref(pool[c]) for c in dict.fromkeys(cited) if c in pool]
    sources.sort(key=lambda s: s.tier)  # stable: T1 first, then citation order
    decisive_overall = pool.get(judgement.decisive_evidence_id or "")
    if request.as_of_date is not None and any(s.published is None for s in sources):
        tail_warnings.append(
            f"Backtest as of {request.as_of_date.isoformat()}: some cited sources are undated, so they "
            "could not be checked against the date."
        )
    return Result(
        run_id=run_id,
        claim=request.claim,
        mode=request.mode,
        as_of_date=request.as_of_date,
        overall_score=score,
        interval=interval,
        overall_verdict=verdict,
        interval_method=method,
        rounds=max((a.round for a in arguments), default=0),
        sub_claims=sub_results,
        decisive_source=source_ref(decisive_overall) if decisive_overall else None,
        what_would_change=judgement.what_would_change,
        structural_analysis=judgement.structural_analysis,
        sources=sources,
        warnings=[*warnings, *tail_warnings],
        reasoner=reasoner,
        models=models,
        usage=usage,
    )
