"""Behaviour probes: reported, not pass/fail.

    python -m claimcourt.bench.probes [--baselines] [--limit N]
    claimcourt bench probes --baselines

Data: bench/data/probes.json (each claim with why it is there).
- hindsight: a claim that unravelled, scored as of an earlier date (a backtest: evidence after it is
  dropped) and today; the score should fall. Reported: the mean score then and now, the share that fell,
  and how many sources each backtest left out as written after its date (the hindsight check).
- leakage ablation: the same claims, the single-LLM judge's prior (no evidence, told the date) against the
  debate's backtest and today's score. A prior that already sits near today's score, far from what the
  evidence of the time gives, knows what happened after the date: the model's knowledge leaks into the
  backtest. (The judge's prior runs even without --baselines: the probe needs it.)
- affirmation: overwhelmingly true claims: the mean score, and the share supported (60 or more).
- forecasts: forward-looking claims of very different likelihood: the spread of the scores (σ across
  claims), the share within 45–55, and how many distinct scores; a flat prior has no spread.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from claimcourt.bench.card import Options, Row, Section, Table, by_system, choose, cost_rows
from claimcourt.bench.harness import METER_MODEL, SYSTEM_NAMES, Job, Outcome

NAME = "probes"
DATA = Path(__file__).parent / "data" / "probes.json"
TODAY = "today"


@dataclass(frozen=True)
class Probe:
    kind: str  # hindsight | affirmation | forecasts
    id: str
    claim: str
    as_of: date | None = None


def load(path: Path = DATA) -> list[Probe]:
    raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return [
        Probe(kind, p["id"], p["claim"], date.fromisoformat(p["as_of"]) if "as_of" in p else None)
        for kind in ("hindsight", "affirmation", "forecasts")
        for p in raw[kind]
    ]


def chosen(options: Options) -> list[Probe]:
    """`--limit`/`--sample` apply to each kind of probe on its own."""
    probes = load()
    return [
        p
        for kind in ("hindsight", "affirmation", "forecasts")
        for p in choose([q for q in probes if q.kind == kind], lambda q: q.kind, options)
    ]


def _item(probe: Probe, when: str | None = None) -> str:
    return f"{probe.kind}:{probe.id}" + (f"@{when}" if when else "")


def jobs(options: Options) -> list[Job]:
    found: dict[str, Job] = {}
    for p in chosen(options):
        if p.kind == "hindsight" and p.as_of is not None:
            then, now = _item(p, p.as_of.isoformat()), _item(p, TODAY)
            wanted = [(then, s, p.as_of) for s in options.systems] + [(now, s, None) for s in options.systems]
            wanted.append((then, "judge", p.as_of))  # the leakage ablation's prior, baselines or not
        else:
            wanted = [(_item(p), s, None) for s in options.systems]
        for item, system, as_of in wanted:
            job = Job(bench=NAME, item=item, system=system, repeat=0, claim=p.claim, as_of=as_of)
            found.setdefault(job.key, job)
    return list(found.values())


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def evaluate(outcomes: Sequence[Outcome], options: Options) -> Section:
    probes = chosen(options)
    systems = list(options.systems)
    grouped = by_system(outcomes, [*systems, "judge"])
    score = {(o.system, o.item): float(o.value) for s in grouped for o in grouped[s]}
    hind = [p for p in probes if p.kind == "hindsight" and p.as_of is not None]
    affirm = [p for p in probes if p.kind == "affirmation"]
    forecast = [p for p in probes if p.kind == "forecasts"]
    rows: dict[str, dict[str, float | None]] = {}
    then_items = {_item(p, p.as_of.isoformat()) for p in hind if p.as_of is not None}
    for s in systems:
        then = [score[(s, _item(p, p.as_of.isoformat()))] for p in hind if p.as_of]
        now = [score[(s, _item(p, TODAY))] for p in hind]
        fell = [b < a for a, b in zip(then, now, strict=True)]
        aff = [score[(s, _item(p))] for p in affirm]
        fc = [score[(s, _item(p))] for p in forecast]
        rows.setdefault("then", {})[s] = _mean(then)
        rows.setdefault("now", {})[s] = _mean(now)
        rows.setdefault("fell", {})[s] = _mean([float(f) for f in fell])
        left_out = [
            o.written_after for o in grouped[s] if o.item in then_items and o.written_after is not None
        ]
        rows.setdefault("written_after", {})[s] = _mean([float(n) for n in left_out])
        rows.setdefault("aff", {})[s] = _mean(aff)
        rows.setdefault("aff_hi", {})[s] = _mean([float(v >= 60) for v in aff])
        rows.setdefault("fc_sd", {})[s] = statistics.pstdev(fc) if len(fc) > 1 else None
        rows.setdefault("fc_mid", {})[s] = _mean([float(45 <= v <= 55) for v in fc])
        rows.setdefault("fc_distinct", {})[s] = float(len(set(fc))) if fc else None
    leakage = Table(
        "leakage ablation: the judge's no-evidence prior as of the date, the debate's backtest, and today",
        ["claim", "as of", "prior (judge)", "backtest (debate)", "today (debate)"],
        [
            [
                p.id,
                p.as_of.isoformat(),
                f"{score.get(('judge', _item(p, p.as_of.isoformat())), 50.0):.0f}",
                f"{score.get(('debate', _item(p, p.as_of.isoformat())), 50.0):.0f}",
                f"{score.get(('debate', _item(p, TODAY)), 50.0):.0f}",
            ]
            for p in hind
            if p.as_of is not None
        ],
    )
    gaps = [
        (
            abs(score[("judge", _item(p, p.as_of.isoformat()))] - score[("debate", _item(p, TODAY))]),
            abs(score[("debate", _item(p, p.as_of.isoformat()))] - score[("debate", _item(p, TODAY))]),
        )
        for p in hind
        if p.as_of is not None and "debate" in systems
    ]
    notes = [
        f"{len(hind)} hindsight claims (each scored as of its date and today), {len(affirm)} affirmations, "
        f"{len(forecast)} forecasts; a run with no answer counts as 50",
    ]
    if gaps:
        prior_gap, backtest_gap = statistics.fmean(g for g, _ in gaps), statistics.fmean(b for _, b in gaps)
        notes.append(
            f"leakage: mean distance to today's debate score: the judge's prior as of the date "
            f"{prior_gap:.1f}, "
            f"the debate's backtest {backtest_gap:.1f} (a prior much nearer today than the backtest is knows "
            "what came after)"
        )
    prior_cost = [o for o in grouped["judge"] if "judge" not in systems]
    if prior_cost:
        spent = sum(o.cost_usd for o in prior_cost)
        metered = sum(o.metered_usd for o in prior_cost)
        dollars = f"${spent:.4f} spent" + (
            f" (${metered:.4f} metered as if billed at {METER_MODEL} prices)" if metered else ""
        )
        notes.append(f"the {len(prior_cost)} judge priors of the leakage ablation cost {dollars} in all")
    per_claim = Table(
        "score per probe",
        ["probe", *(SYSTEM_NAMES[s] for s in systems)],
        [
            [item, *(f"{score[(s, item)]:.0f}" if (s, item) in score else "—" for s in systems)]
            for item in dict.fromkeys(o.item for o in outcomes if o.system in systems)
        ],
    )
    return Section(
        bench=NAME,
        title="behaviour probes (reported, not pass/fail)",
        systems=systems,
        rows=[
            Row("hindsight: mean score as of the earlier date", rows["then"], "{:.1f}"),
            Row("hindsight: mean score today", rows["now"], "{:.1f}"),
            Row("hindsight: share that fell by today", rows["fell"], "{:.0%}"),
            Row(
                "hindsight: sources left out as written later, per backtest", rows["written_after"], "{:.1f}"
            ),
            Row("affirmation: mean score", rows["aff"], "{:.1f}"),
            Row("affirmation: share supported (≥ 60)", rows["aff_hi"], "{:.0%}"),
            Row("forecasts: spread σ across claims", rows["fc_sd"], "{:.1f}"),
            Row("forecasts: share within 45–55", rows["fc_mid"], "{:.0%}"),
            Row("forecasts: distinct scores", rows["fc_distinct"], "{:.0f}"),
            *cost_rows([o for o in outcomes if o.system in systems], systems),
        ],
        notes=notes,
        tables=[leakage, per_claim],
    )


def main(argv: Sequence[str] | None = None) -> None:
    from claimcourt.bench.scorecard import main as scorecard

    scorecard([NAME, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    main()
