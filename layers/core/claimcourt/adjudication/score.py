"""Stage 9: the scoring contract applied to the judge's numbers, the verdict and the result.

Pure: everything it needs is passed in, so every rule here is tested without I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from claimcourt.adjudication.rubric import rubric_verdict, scale_adjustments
from claimcourt.contract import (
    REFUTED_AT,
    SUPPORTED_AT,
    Shape,
    band,
    bounds,
    compose,
    pull_towards_50,
)
from claimcourt.models import (
    USER_CONTEXT_URL,
    Adjustment,
    Argument,
    Decomposition,
    Evidence,
    Interval,
    IntervalMethod,
    Judgement,
    Result,
    RubricJudgement,
    RunRequest,
    ScoreMover,
    Side,
    SourceRef,
    SubClaimJudgement,
    SubClaimResult,
    Usage,
    Verdict,
)


# Evidence quality, measured from the pool, moves the judge's numbers only this way: each finding pulls
# every score towards 50 by `pull` and widens the interval by `widen` (docs/scoring.md).
@dataclass(frozen=True)
class QualityFinding:
    name: str
    detail: str
    pull: float  # 1: no pull; 0.9: a tenth of the distance to 50
    widen: float  # 1: as wide as the judge said


# The rules that change the interval (Adjustment.kind, target "interval").
IntervalKind = Literal[
    "interval_recentred", "self_consistency", "panel", "evidence_quality", "interval_floor"
]

# Fewer cited passages than this is thin evidence.
THIN_EVIDENCE = 3
# The interval's half-width is at least this many points per unit of widening beyond ×1, so poor
# evidence widens even an interval the judge drew as a point (×1.6 → at least ±12).
MIN_HALF_WIDTH_PER_WIDEN = 20


def source_ref(e: Evidence) -> SourceRef:
    return SourceRef(
        evidence_id=e.id,
        title=e.title,
        source_url=e.source_url,
        tier=e.tier,
        published=e.published,
        page=e.page,
    )


def final_round(arguments: list[Argument], side: Side) -> Argument | None:
    """A side's last word: its last argument or refusal (a round it was absent from says nothing)."""
    mine = [a for a in arguments if a.side == side and not a.absent]
    return max(mine, key=lambda a: a.round) if mine else None


def _clamp(value: float, low: int = 0, high: int = 100) -> int:
    return int(max(low, min(high, round(value))))


def evidence_quality(
    cited: list[SourceRef], arguments: list[Argument], decisive: list[SourceRef] | None = None
) -> list[QualityFinding]:
    """What the pool's quality says about how far to trust the judge's numbers. Passages the user
    supplied (--context) are their assertion, not evidence found: they count for none of this, and a
    result the judge decided on them alone rests on them, whatever else was cited beside (a definition
    cited in passing does not make the user's notes evidence found)."""
    found = []
    retrieved = [s for s in cited if not s.source_url.startswith(USER_CONTEXT_URL)]
    decided = decisive or []
    theirs = bool(decided) and all(s.source_url.startswith(USER_CONTEXT_URL) for s in decided)
    if not retrieved and len(retrieved) < len(cited):
        found.append(
            QualityFinding(
                "user_context_only",
                "only passages the user supplied were cited; no evidence found agrees",
                0.25,
                2.0,
            )
        )
    elif theirs:
        found.append(
            QualityFinding(
                "user_context_only",
                "every source the judge found decisive is the user's own material; no evidence found "
                "decided it",
                0.25,
                2.0,
            )
        )
    elif not retrieved:
        found.append(
            QualityFinding("no_evidence", "no passage was cited by either side or the judge", 0.7, 1.6)
        )
    elif len(retrieved) < THIN_EVIDENCE:
        found.append(
            QualityFinding("thin_evidence", f"only {len(retrieved)} passage(s) were cited", 0.9, 1.3)
        )
    if retrieved and not any(s.tier == "T1" for s in retrieved):
        found.append(
            QualityFinding(
                "secondary_only", "every cited source is secondary (T2); none is primary", 0.95, 1.25
            )
        )
    refused = sorted({a.side for a in arguments if a.refusal is not None})
    if refused:  # a side that will not argue says something about the claim: widen, do not pull
        found.append(
            QualityFinding("debater_refused", f"the case-{'/'.join(refused)} declined to argue", 1.0, 1.25)
        )
    return found


@dataclass(frozen=True)
class Scored:
    """The score stage's numbers: what the result reports, and every adjustment that led there."""

    score: int
    interval: Interval
    method: IntervalMethod
    verdict: Verdict
    sub_scores: dict[str, int]
    sub_verdicts: dict[str, Verdict]
    adjustments: list[Adjustment]


def _sub_claim_verdict(judged: SubClaimJudgement, score: int, adjustments: list[Adjustment]) -> Verdict:
    """The judge's verdict on a sub-claim, unless its (reported) score's band contradicts it: the score
    is the more precise statement, so the verdict follows the band (named)."""
    said = judged.verdict
    fitted = {"supported": Verdict.SUPPORTED, "refuted": Verdict.REFUTED}.get(band(score))
    if fitted is None and said in (Verdict.SUPPORTED, Verdict.REFUTED):
        fitted = Verdict.NOT_ENOUGH_EVIDENCE
    if fitted is None or fitted is said:
        return said
    moved = "" if score == judged.score else f", reported as {score}"
    adjustments.append(
        Adjustment(
            target=judged.sub_claim_id,
            kind="verdict_band",
            detail=f"the judge said {said.value} at {judged.score}{moved}; scores from {SUPPORTED_AT} are "
            f"supported, up to {REFUTED_AT} refuted, so it reads {fitted.value}",
            before=judged.score,  # the scores the verdicts were read from
            after=score,
        )
    )
    return fitted


def _overall_verdict(score: int, interval: Interval, shape: Shape, subs: list[Verdict]) -> Verdict:
    """Supported or refuted needs the score in its band, the interval clear of the other band, and
    sub-claims that can carry it under the claim's shape; otherwise conflicting when sub-claims
    disagree, else not enough evidence."""
    supported = {
        "all": all(v is Verdict.SUPPORTED for v in subs),
        "any": Verdict.SUPPORTED in subs,
        "facets": Verdict.SUPPORTED in subs,
    }[shape]
    refuted = {
        "all": Verdict.REFUTED in subs,
        "any": all(v is Verdict.REFUTED for v in subs),
        "facets": Verdict.REFUTED in subs,
    }[shape]
    if band(score) == "supported" and interval.low > REFUTED_AT and supported:
        return Verdict.SUPPORTED
    if band(score) == "refuted" and interval.high < SUPPORTED_AT and refuted:
        return Verdict.REFUTED
    if Verdict.CONFLICTING in subs or (Verdict.SUPPORTED in subs and Verdict.REFUTED in subs):
        return Verdict.CONFLICTING
    return Verdict.NOT_ENOUGH_EVIDENCE


def _spread(values: list[int], centre: int) -> tuple[float, float]:
    return centre - min(values, default=centre), max(values, default=centre) - centre


def _overall_of(
    judgement: Judgement, shape: Shape, pulled: Callable[[int], int]
) -> tuple[int, int, int, int]:
    """(final, composed, low bound, high bound) of one judgement: the composition of its pulled
    sub-claim scores, or its own (pulled) overall when it gave a reason to depart, within the bounds."""
    scores = [pulled(j.score) for j in judgement.sub_claims]
    composed = compose(scores, shape)
    low, high = bounds(scores, shape)
    if judgement.adjustment_reason and judgement.adjustment_reason.strip():
        return max(low, min(high, pulled(judgement.overall_score))), composed, low, high
    return composed, composed, low, high


def _interval(centre: int, below: float, above: float) -> Interval:
    return Interval(low=_clamp(centre - below), high=_clamp(centre + above))


def _width(interval: Interval) -> int:
    return interval.high - interval.low


def score_judgements(
    judgements: list[Judgement],
    shape: Shape,
    quality: list[QualityFinding],
    panel_scores: list[int] | None = None,
) -> Scored:
    """Apply the scoring contract to the judge's numbers (docs/scoring.md), naming every change with
    its numbers before and after, in the order they were made. With `panel_scores` (a panel of judges:
    every judge's score, each scored as if it alone had judged, the first's among them), those, not
    samples, are the spread the interval is combined with:

    1. The overall score is composed from the judge's own sub-claim scores by the claim's shape,
       unless the judge gave a reason to depart from the rule; a departure stays within the
       sub-claims' bounds. (On the judge's footing: no evidence-quality pull is in this comparison.)
    2. Evidence quality pulls every sub-claim score towards 50 (never walls it), and so the overall.
    3. The interval is the judge's 80 % interval, moved to the final score (symmetric, its width kept,
       when the score moved), combined with the spread of the self-consistency samples, each scored
       the same way (or of the panel's judges), widened by each evidence-quality finding, with a floor,
       inside 0–100.
    4. Verdicts follow the bands, so score, interval, verdict and sub-claims never contradict."""
    first = judgements[0]
    adjustments: list[Adjustment] = []
    pull = math.prod(q.pull for q in quality)

    def pulled(score: int) -> int:
        return _clamp(pull_towards_50(score, pull))

    def unpulled(score: int) -> int:
        return score

    # 1. the rule, on the judge's own numbers
    said = first.overall_score
    ruled, composed, low_bound, high_bound = _overall_of(first, shape, unpulled)
    if first.adjustment_reason and first.adjustment_reason.strip():
        adjustments.append(
            Adjustment(
                target="overall",
                kind="judge_departure",
                detail=f"the judge departed from the {shape} rule ({composed}): "
                f"{first.adjustment_reason.strip()}",
                before=composed,
                after=said,
            )
        )
        if ruled != said:
            adjustments.append(
                Adjustment(
                    target="overall",
                    kind="sub_claim_bounds",
                    detail=f"{said} is outside what the sub-claims allow under {shape} "
                    f"({low_bound}–{high_bound})",
                    before=said,
                    after=ruled,
                )
            )
    elif ruled != said:
        adjustments.append(
            Adjustment(
                target="overall",
                kind="composition",
                detail=f"composed from the sub-claim scores by the {shape} rule; the judge said {said} "
                "and gave no reason to depart from it",
                before=said,
                after=ruled,
            )
        )

    # 2. evidence quality: the sub-claims, then the overall they make
    sub_scores: dict[str, int] = {}
    for j in first.sub_claims:
        sub_scores[j.sub_claim_id] = pulled(j.score)
        if sub_scores[j.sub_claim_id] != j.score:
            adjustments.append(
                Adjustment(
                    target=j.sub_claim_id,
                    kind="evidence_quality",
                    detail="pulled towards 50 for the evidence's quality",
                    before=j.score,
                    after=sub_scores[j.sub_claim_id],
                )
            )
    final = _overall_of(first, shape, pulled)[0]
    if final != ruled:
        names = ", ".join(q.name for q in quality if q.pull < 1)
        adjustments.append(
            Adjustment(
                target="overall",
                kind="evidence_quality",
                detail=f"pulled towards 50 for the evidence's quality ({names}): "
                f"{round(100 * (1 - pull))} % of its distance",
                before=ruled,
                after=final,
            )
        )

    # 3. the interval, from the judge's own
    judged = first.overall_interval
    below, above = float(said - judged.low), float(judged.high - said)
    current = judged

    def step(kind: IntervalKind, detail: str, target_below: float, target_above: float) -> None:
        nonlocal current, below, above
        below, above = target_below, target_above
        after = _interval(final, below, above)
        if after != current:
            adjustments.append(
                Adjustment(
                    target="interval",
                    kind=kind,
                    detail=f"{detail}: {current.low}–{current.high} → {after.low}–{after.high}",
                    before=_width(current),
                    after=_width(after),
                    before_interval=current,
                    after_interval=after,
                )
            )
        current = after

    if final != said:  # the judge's interval was around another score: keep its width, not its skew
        half = max(below, above)
        step(
            "interval_recentred",
            f"the judge's interval was drawn around {said}; moved to {final}",
            half,
            half,
        )
    method: IntervalMethod = "judge"
    if panel_scores is not None and len(panel_scores) > 1:
        spread_below, spread_above = _spread(panel_scores, final)
        method = "judge+panel"
        step(
            "panel",
            f"combined with the spread of the panel's {len(panel_scores)} judges "
            f"({min(panel_scores)}–{max(panel_scores)})",
            math.hypot(below, spread_below),
            math.hypot(above, spread_above),
        )
    elif len(judgements) > 1:
        samples = [final] + [_overall_of(j, shape, pulled)[0] for j in judgements[1:]]
        spread_below, spread_above = _spread(samples, final)
        method = "judge+self_consistency"
        step(
            "self_consistency",
            f"combined with the spread of {len(samples)} judgements ({min(samples)}–{max(samples)})",
            math.hypot(below, spread_below),
            math.hypot(above, spread_above),
        )
    for q in quality:
        step(
            "evidence_quality",
            f"{q.name}: {q.detail}; scores pulled {round(100 * (1 - q.pull))} % towards 50, "
            f"interval widened ×{q.widen:g}",
            below * q.widen,
            above * q.widen,
        )
    # Poor evidence widens even an interval the judge drew as a point.
    floor = MIN_HALF_WIDTH_PER_WIDEN * (math.prod(q.widen for q in quality) - 1)
    if below < floor or above < floor:
        step(
            "interval_floor",
            f"at least ±{floor:g} for the evidence's quality",
            max(below, floor),
            max(above, floor),
        )
    interval = current

    sub_verdicts = {
        j.sub_claim_id: _sub_claim_verdict(j, sub_scores[j.sub_claim_id], adjustments)
        for j in first.sub_claims
    }
    verdict = _overall_verdict(final, interval, shape, list(sub_verdicts.values()))
    return Scored(final, interval, method, verdict, sub_scores, sub_verdicts, adjustments)


def _resting_on_user_context(cited: list[SourceRef], decisive: list[Evidence | None]) -> list[str]:
    """A verdict that rests on the user's own material says so: the scoring contract discounts it
    (docs/scoring.md), and the reader should know whose word decided it."""

    def theirs(url: str) -> bool:
        return url.startswith(USER_CONTEXT_URL)

    if cited and all(theirs(s.source_url) for s in cited):
        return [
            "This result rests only on the material you supplied (--context): no evidence the run "
            "found was cited for or against it, so its score is pulled towards 50."
        ]
    named = sorted({e.source_url for e in decisive if e is not None and theirs(e.source_url)})
    if named:
        return [
            f"The decisive source is your own material ({', '.join(named)}), not evidence the run found: "
            "the result is only as good as what you supplied."
        ]
    return []


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
    natural_temperature: list[str] | None = None,
    rubric: RubricJudgement | None = None,
    panel_scores: list[int] | None = None,
) -> Result:
    """`sides` maps the judge's anonymous labels back to for/against ({"A": "against", "B": "for"});
    `rubric`, the rubric judge's own reply behind `judgements[0]` (judge rubric); `panel_scores`, a
    panel's scores, `judgements[0]` the one that speaks (see score_judgements)."""
    pool = {e.id: e for e in evidence}
    judgement = judgements[0]
    cited = [c for a in arguments for p in a.points for c in p.citations]
    cited += [j.decisive_evidence_id for j in judgement.sub_claims if j.decisive_evidence_id]
    sources = [source_ref(pool[c]) for c in dict.fromkeys(cited) if c in pool]
    sources.sort(key=lambda s: s.tier)  # stable: T1 first, then citation order
    decisive_ids = [judgement.decisive_evidence_id, *(j.decisive_evidence_id for j in judgement.sub_claims)]
    deciding = [source_ref(pool[i]) for i in dict.fromkeys(decisive_ids) if i and i in pool]
    quality = evidence_quality(sources, arguments, deciding)
    scored = score_judgements(judgements, decomposition.shape, quality, panel_scores)
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
                score=scored.sub_scores[sub.id],
                judge_score=j.score,
                verdict=scored.sub_verdicts[sub.id],
                case_for=_side_text(pro, sub.id),
                case_against=_side_text(con, sub.id),
                referee_synthesis=j.referee_synthesis,
                stronger_side=(sides or {}).get(j.stronger_position),
                decisive_source=source_ref(decisive) if decisive else None,
            )
        )
    decisive_overall = pool.get(judgement.decisive_evidence_id or "")
    notes = list(warnings)
    notes += _resting_on_user_context(
        sources, [decisive_overall, *(pool.get(j.decisive_evidence_id or "") for j in judgement.sub_claims)]
    )
    return Result(
        run_id=run_id,
        claim=request.claim,
        mode=request.mode,
        as_of_date=request.as_of_date,
        overall_score=scored.score,
        interval=scored.interval,
        overall_verdict=scored.verdict,
        interval_method=scored.method,
        judge_score=judgement.overall_score,
        judge_interval=judgement.overall_interval,
        shape=decomposition.shape,
        # The rubric's reading onto 0–100 comes first: it is what made the judge's numbers.
        adjustments=(scale_adjustments(rubric) if rubric else []) + scored.adjustments,
        natural_temperature=natural_temperature or [],
        rounds=max((a.round for a in arguments), default=0),
        rounds_fixed=request.rounds,
        first=request.first,
        judge=request.judge,
        rubric=rubric_verdict(rubric, sides or {}) if rubric else None,
        sub_claims=sub_results,
        decisive_source=source_ref(decisive_overall) if decisive_overall else None,
        what_would_change=[ScoreMover.model_validate(w.model_dump()) for w in judgement.what_would_change],
        structural_analysis=judgement.structural_analysis,
        sources=sources,
        warnings=notes,
        reasoner=reasoner,
        models=models,
        usage=usage,
    )
