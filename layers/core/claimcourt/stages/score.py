"""Stage 9: the scoring contract applied to the judgements (docs/scoring.md): the score, its
interval and verdict, every adjustment named; the result stored; a moved claim announced."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from claimcourt import artifacts
from claimcourt.adjudication.panel import members, speaker
from claimcourt.adjudication.panel import spread as panel_spread
from claimcourt.adjudication.score import compose_result
from claimcourt.debate import parallelism
from claimcourt.debate.control import summarize
from claimcourt.debate.refusal import early_end
from claimcourt.debate.refusal import warning as refusal_warning
from claimcourt.debate.relevance import measure
from claimcourt.errors import BudgetExceededError, RefusedJudgementError
from claimcourt.evidence import hindsight
from claimcourt.evidence.web import search_served
from claimcourt.exports import save_exports
from claimcourt.models import (
    CallRecord,
    Panel,
    PanelJudge,
    Redeliberation,
    Result,
    RunEvent,
    RunRecord,
    RunStatus,
    Stage,
    usage_from,
)
from claimcourt.settings import ROLES, SAMPLED_ROLES
from claimcourt.stages import adjudicate
from claimcourt.stages.payloads import Payload
from claimcourt.watching.changes import SCORE_CHANGED, score_change
from claimcourt.wiring import Deps, evidence_name

STAGE = Stage.SCORE


def run(deps: Deps, p: Payload) -> dict[str, Any]:
    record = deps.store.get_run(p.run_id)
    judged, mapping = artifacts.judgements_of(deps.store, p.run_id)
    retrievals = artifacts.retrievals_of(deps.store, p.run_id)
    hits = sum(1 for doc in retrievals.values() if doc["cache_hit"])
    calls = deps.store.run_calls(p.run_id)
    arguments = artifacts.arguments_of(deps.store, p.run_id)
    pool = artifacts.evidence_pool(retrievals, record.request.context)
    decomposition = artifacts.decomposition_of(deps.store, p.run_id)
    # As the judge read it (stages/adjudicate.py measures the same pool): what it was told, the user is.
    relevance = measure(
        decomposition.sub_claims,
        artifacts.retrieved_by_sub_claim(retrievals, record.request.context),
        source=evidence_name(deps, record, retrievals),
    )
    as_of = record.request.as_of_date
    dating = artifacts.backtest_dating(retrievals) if as_of is not None else None
    compose = partial(
        compose_result,
        run_id=p.run_id,
        decomposition=decomposition,
        arguments=arguments,
        evidence=pool,
        usage=usage_from(calls, hits, len(retrievals) - hits),
        warnings=artifacts.suitability_of(deps.store, p.run_id).warnings + relevance.warnings,
        sides=mapping,
    )
    if record.request.judges:
        result = judged_by_panel(deps, record, judged, calls, compose)
    else:
        ordered, re_deliberation = first_judgement_first(judged, artifacts.review_of(deps.store, p.run_id))
        result = compose(
            request=record.request,
            judgements=[j.judgement for j in ordered],
            rubric=ordered[0].rubric if ordered else None,
            reasoner=deps.reasoner.label(ROLES),
            models=deps.reasoner.models(ROLES),
            natural_temperature=deps.reasoner.natural_temperature(ROLES, SAMPLED_ROLES),
        ).model_copy(update={"re_deliberation": re_deliberation})
    backtest_warnings = (
        [] if dating is None or as_of is None else hindsight.warnings(dating, as_of, result.sources)
    )
    ended_early = early_end(arguments, result.first, deps.settings.round_limit(record.request))
    result = result.model_copy(
        update={
            "warnings": result.warnings
            + backtest_warnings
            + ([refusal_warning(ended_early)] if ended_early else []),
            "ended_early": ended_early,
            "round_control": summarize(artifacts.decisions_of(deps.store, p.run_id), calls),
            "citations": artifacts.ledger_of(deps.store, p.run_id, arguments, pool),
            "backtest": dating,
            "search": search_served(doc["source"] for doc in retrievals.values()),
            "pool_relevance": relevance,
            "searched": artifacts.searched(retrievals),
            "parallelism": parallelism.record(
                deps.store.list_events(p.run_id), in_turn=result.first is not None
            ),
        }
    )
    # The four artifacts, kept with the run: stored first, so the run is never seen succeeded without them.
    save_exports(
        deps.store, record.model_copy(update={"status": RunStatus.SUCCEEDED, "result": result}), pool
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


# A panel's judge that stored nothing: its call failed past the state machine's retries (an outage, a
# timeout), and the map went on without it (debate.asl.json, PanelistFailed).
NO_JUDGEMENT = "no judgement was stored: its call failed past its retries (an outage or a timeout)"


def judged_by_panel(
    deps: Deps,
    record: RunRecord,
    judged: list[artifacts.JudgedSample],
    calls: list[CallRecord],
    compose: Callable[..., Result],
) -> Result:
    """A panel's result (docs/scoring.md, "A panel of judges"): each judge's judgement scored as if it
    alone had judged; the median's judgement speaks for the run, its interval combined with the panel's
    spread; every judgement kept in `panel`. A judge that gave none is kept with its error (and said in
    the warnings); with none at all, the run cannot be scored."""
    panel = members(record.request, deps.settings)
    docs = deps.store.find_artifacts(record.run_id, artifacts.JUDGEMENT_PREFIX)
    by_slot = {j.sample: j for j in judged}
    others = tuple(role for role in ROLES if role != "adjudicator")
    heard: list[tuple[int, artifacts.JudgedSample, Result]] = []
    judges: list[PanelJudge] = []
    for n, member in enumerate(panel):
        doc = docs.get(artifacts.judgement_key(n), {})
        mine = [
            c
            for c in calls
            if c.call_key.startswith(f"{adjudicate.STAGE.value}:0:{adjudicate.panel_lane(n)}:")
        ]
        said = PanelJudge(
            judge=member.spec,
            model=member.model_name,
            kind=member.kind,
            prompt_version=doc.get("prompt_version"),
            cost_usd=sum(c.cost_usd for c in mine),
            price_known=all(c.price_known for c in mine),
            llm_calls=sum(c.attempts for c in mine if c.model != "offline"),  # as the run's usage counts
            error=(doc.get("panel") or {}).get("error") or (None if n in by_slot else NO_JUDGEMENT),
        )
        sample = by_slot.get(n)
        if sample is not None:
            alone = compose(
                request=record.request.model_copy(update={"judge": member.kind}),
                judgements=[sample.judgement],
                rubric=sample.rubric,
                reasoner=member.provider,
                models={"adjudicator": member.model_name},
            )
            heard.append((n, sample, alone))
            said = said.model_copy(
                update={
                    "score": alone.overall_score,
                    "interval": alone.interval,
                    "verdict": alone.overall_verdict,
                    "judge_score": alone.judge_score,
                    "sub_scores": {s.id: s.score for s in alone.sub_claims},
                }
            )
        judges.append(said)
    silent = [j for j in judges if j.score is None]
    if not heard:
        reasons = "; ".join(f"{j.judge}: {j.error}" for j in judges)
        spent = all((j.error or "").startswith(BudgetExceededError.__name__) for j in judges)
        raise (BudgetExceededError if spent else RefusedJudgementError)(
            f"no judge of the panel judged: {reasons}"
        )
    scores = [alone.overall_score for _, _, alone in heard]
    at, rule = speaker(scores)
    n, sample, _ = heard[at]
    member = panel[n]
    spread, sd = panel_spread(scores)
    natural = set(deps.reasoner.natural_temperature(others, SAMPLED_ROLES))
    if any(deps.reasoner.sends_temperature(panel[i].route) is False for i, _, _ in heard):
        natural.add("adjudicator")
    providers = set(deps.reasoner.label(others).split("+")) | {panel[i].provider for i, _, _ in heard}
    result = compose(
        request=record.request.model_copy(update={"judge": member.kind}),
        judgements=[sample.judgement],
        rubric=sample.rubric,
        panel_scores=scores,
        reasoner="+".join(sorted(providers)),
        models=deps.reasoner.models(ROLES) | {"adjudicator": member.model_name},
        natural_temperature=[role for role in ROLES if role in natural],
    )
    gave_none = [
        f"{len(silent)} of the panel's {len(judges)} judges gave no judgement ("
        + "; ".join(f"{j.judge}: {j.error}" for j in silent)
        + "): the others' median speaks for the run."
    ]
    return result.model_copy(
        update={
            "panel": Panel(judges=judges, speaks=n, rule=rule, spread=spread, sd=sd),
            "warnings": result.warnings + (gave_none if silent else []),
        }
    )


def first_judgement_first(
    judged: list[artifacts.JudgedSample], reviewed: dict[str, Any] | None
) -> tuple[list[artifacts.JudgedSample], Redeliberation | None]:
    """The judgements with the one that speaks for the run first: the re-deliberation if there was
    one, else the sample with the median overall score (the lowest sample on a tie); the others
    follow, for their spread. And the re-deliberation's record."""
    samples = [j for j in judged if not j.reconsidered]
    again = next((j for j in judged if j.reconsidered), None)
    by_score = sorted(samples, key=lambda j: (j.judgement.overall_score, j.sample))
    median = by_score[(len(by_score) - 1) // 2] if by_score else None
    first = again or median
    if first is None:
        return [], None
    ordered = [first] + [j for j in samples if j is not first]
    if reviewed is None or reviewed.get("spread") is None:
        return ordered, None
    after = None
    if again is not None and median is not None:
        after = abs(again.judgement.overall_score - median.judgement.overall_score)
    record = Redeliberation(
        triggered=reviewed.get("reconsider") is not None,
        spread_before=reviewed["spread"],
        spread_after=after,
        reason=reviewed["reason"],
    )
    return ordered, record


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
