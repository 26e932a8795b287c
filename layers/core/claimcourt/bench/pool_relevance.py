"""The pool-relevance check (debate/relevance.py), calibrated and measured: does it tell a pool that
speaks to a claim from one that does not?

Run: python -m claimcourt.bench.pool_relevance [--shared DIR]

Labelled sets, each against the bundled climate corpus (the pipeline's own offline path: the offline
decomposer's sub-claims and directives at standard effort, 5 passages a directive, through the real
retrieval code):
  on topic   CLIMATE-FEVER dev claims (bench/data) and fact-checked climate claims (ai-debate's
             claims_verified_climate_48.json): the corpus is about their subject;
  off topic  fact-checked health (and some political) claims (ai-debate's claims_verified_health_50.json)
             and AVeriTeC dev claims (bench/data; mostly US politics): it is not.
The label is the set's, not a reading of each pool: some on-topic claims are about a detail the corpus
never covers (a named senator's votes, a 2025 storm warning), and the figures below count them as false
alarms; some off-topic claims touch it (a ban on fracking).

Halves: every set is split by line or list index, even = tune, odd = held-out (CLIMATE-FEVER's split is
bench/climate_fever.py's). The thresholds are chosen on the tune halves only, by the rule below; the
held-out halves are only measured. ai-debate's files are read from ../shared/data (README there), not
copied into the package.

What is printed: each signal's AUC (the claim's reading: its least relevant sub-claim for a warning, its
most relevant one for a stop), the warning threshold the rule chooses on the tune halves beside the one in
use (debate/relevance.py), and, per set and half: how many on-topic claims get a warning or are stopped
(false alarms) and how many off-topic ones get none or are not stopped (misses). Then the played corpus's
pools, each sub-claim's reading; then probes no labelled set holds: claims in other scripts against a pool
that states them, and pools that refute a claim in other words.

The rule: OFF_TOPIC (warn, and tell the roles) is the highest threshold at which at most WARN_FALSE_ALARMS
of the tune on-topic claims get a warning. The stop (add documents, no debate) has no threshold: it is
the check's own rule (measure(): every sub-claim without a passage, or sharing no word with any), so a
pool that refutes a claim in other words is debated. A stop that ends a good debate is the worst error.
The table by threshold still shows what a stop below a reading would do (the rule before: below 0.08,
chosen as the highest at which at most STOP_FALSE_ALARMS of the tune on-topic claims were stopped).

Measured (the bundled corpus, 964 claims), the stop before (a reading below 0.08) and now (no word
shared): on-topic claims stopped 0.7 % tune, 1.2 % held-out before, 0.0 % and 0.0 % now; off-topic claims
stopped 36.0 % and 38.7 % before, none now: each of their pools shares a word with the claim (a search
finds its hits by one), so each is debated with the warning, which catches 82.7 % and 72.0 % of them, as
before. The stop is left for a pool of another subject entirely (the played "Vaccines cause autism"
against the climate corpus: no word shared). Every probe in another script reads on topic (before, each
was stopped as speaking to nothing), and a refuting paraphrase that shares a word is debated (before, "The
Earth is flat" against "the planet is an oblate spheroid" was stopped).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claimcourt.bench.climate_fever import load_claims
from claimcourt.debate.relevance import OFF_TOPIC, SIGNALS, Signal, measure
from claimcourt.models import Evidence, SubClaim

DEFAULT_SHARED = Path(__file__).resolve().parents[4].parent / "shared" / "data"
WARN_FALSE_ALARMS = 0.10
STOP_FALSE_ALARMS = 0.01
EFFORT = "standard"
GRID = tuple(round(0.01 * i, 2) for i in range(101))


@dataclass(frozen=True)
class Item:
    """A labelled claim and its pool: sub-claims with their passages."""

    set: str
    half: str
    on_topic: bool
    claim: str
    sub_claims: tuple[SubClaim, ...]
    pool: tuple[Evidence, ...]


@dataclass(frozen=True)
class Scored:
    item: Item
    weakest: float  # the least relevant measured sub-claim's score: below a threshold, the claim is warned
    strongest: float  # the most relevant one's: what a stop below a threshold would read
    stopped: bool  # what the check does: no debate (measure's add_documents)


class _NoCache:
    def cache_get(self, key: str) -> list[dict[str, Any]] | None:
        return None

    def cache_put(self, key: str, hits: list[dict[str, Any]], ttl_s: int) -> None:
        return None


def pool_of(
    claim: str, source: Any, limit: int, max_sub_claims: int
) -> tuple[list[SubClaim], list[Evidence]]:
    """What a standard offline run decomposes and retrieves for a claim before its debate."""
    from claimcourt.evidence.retrieve import retrieval
    from claimcourt.models import DecomposeInput, Directive
    from claimcourt.reasoning.offline import OfflineReasoner

    split = OfflineReasoner().decompose(
        DecomposeInput(claim=claim, max_sub_claims=max_sub_claims, evidence_source=source.name)
    )
    pool: list[Evidence] = []
    for s in split.sub_claims:
        directive = Directive(sub_claim_id=s.id, query=s.directive)
        found = retrieval(
            directive, round=1, source=source, cache=_NoCache(), limit=limit, as_of=None, ttl_s=0
        )
        pool += found.evidence
    return split.sub_claims, pool


def labelled(shared: Path) -> list[tuple[str, str, bool, str]]:
    """(set, half, on topic, claim) of every labelled claim."""
    from claimcourt.bench.averitec import load as averitec_claims

    def half(i: int) -> str:
        return "tune" if i % 2 == 0 else "held-out"

    rows = [("climate-fever", c.half, True, c.text) for c in load_claims()]
    for name, on_topic, file in (
        ("ai-debate climate", True, "claims_verified_climate_48.json"),
        ("ai-debate health", False, "claims_verified_health_50.json"),
    ):
        claims = json.loads((shared / "ai-debate" / file).read_text(encoding="utf-8"))
        rows += [(name, half(i), on_topic, c["claim"]) for i, c in enumerate(claims)]
    rows += [("averitec", half(i), False, c.claim) for i, c in enumerate(averitec_claims())]
    return rows


def items(shared: Path) -> list[Item]:
    from pydantic import ValidationError

    from claimcourt.evidence.corpus import CorpusSource
    from claimcourt.models import ClaimAsked
    from claimcourt.settings import EFFORT_PROFILES

    profile = EFFORT_PROFILES[EFFORT]
    source = CorpusSource()
    out = []
    for name, half, on_topic, text in labelled(shared):
        try:
            claim = ClaimAsked(claim=" ".join(text.split())[:2000]).claim
        except (
            ValidationError
        ):  # refused before any run (two CLIMATE-FEVER claims hold C1 control characters)
            continue
        subs, pool = pool_of(claim, source, profile.evidence_per_query, profile.max_sub_claims)
        out.append(Item(name, half, on_topic, claim, tuple(subs), tuple(pool)))
    return out


def scored(items: Sequence[Item], signal: Signal) -> list[Scored]:
    """Each item's readings by `signal`; a claim none of whose sub-claims is measured reads 1 (it is
    never warned of, nor stopped)."""
    from claimcourt.debate.relevance import passages_for

    out = []
    for item in items:
        read = [signal.read(s.text, passages_for(s.id, item.pool)).score for s in item.sub_claims]
        scores = [v for v in read if v is not None] or [1.0]
        stopped = measure(item.sub_claims, item.pool, signals=(signal,)).add_documents
        out.append(Scored(item, min(scores), max(scores), stopped))
    return out


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float:
    """P(an on-topic claim reads higher than an off-topic one), ties counted half (Mann–Whitney)."""
    ranked = sorted([(v, 1) for v in positives] + [(v, 0) for v in negatives])
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mean_rank = (i + 1 + j) / 2
        rank_sum += mean_rank * sum(label for _, label in ranked[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def rate(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def choose(scores: Sequence[Scored], reading: Callable[[Scored], float], budget: float) -> float:
    """The highest threshold at which at most `budget` of the on-topic claims read below it."""
    on = [reading(s) for s in scores if s.item.on_topic]
    allowed = [t for t in GRID if rate([v < t for v in on]) <= budget]
    return max(allowed)


def lexical_relevance(items: Sequence[Item]) -> tuple[list[float], list[float]]:
    """The offline reader's own relevance (stance.read: the share of a statement's stems and bigrams a
    passage holds), its best passage per sub-claim: the measure a first attempt tried."""
    from claimcourt.debate.relevance import passages_for
    from claimcourt.reasoning.stance import stance

    def weakest(item: Item) -> float:
        return min(
            max(
                (stance(s.text, e.text, e.title).relevance for e in passages_for(s.id, item.pool)),
                default=0.0,
            )
            for s in item.sub_claims
        )

    values = [(weakest(i), i.on_topic) for i in items]
    return [v for v, on in values if on], [v for v, on in values if not on]


def played_pools() -> list[tuple[str, list[SubClaim], list[Evidence]]]:
    """Each played claim run's sub-claims and round-1 pool, as its replay retrieves them."""
    from claimcourt.bench.played_corpus import corpus_files, load
    from claimcourt.evidence.corpus import CorpusSource
    from claimcourt.evidence.retrieve import context_evidence, retrieval
    from claimcourt.models import Decomposition, Directive, RunRequest
    from claimcourt.settings import EFFORT_PROFILES

    source = CorpusSource()
    out = []
    for path in corpus_files():
        played = load(path)
        if played.kind != "claim":
            continue
        split = [played.calls[k].reply for k in played.calls if k.startswith("decompose:0::decompose:a")]
        if not split or split[-1] is None:
            continue  # stopped before it decomposed
        subs = Decomposition.model_validate(split[-1]).sub_claims
        request = RunRequest.model_validate(played.request)
        limit = EFFORT_PROFILES[request.effort].evidence_per_query
        pool = context_evidence(request.context)
        for s in subs:
            directive = Directive(sub_claim_id=s.id, query=s.directive)
            pool += retrieval(
                directive, round=1, source=source, cache=_NoCache(), limit=limit, as_of=None, ttl_s=0
            ).evidence
        out.append((played.name, subs, pool))
    return out


def _rates(
    part: Sequence[Scored], warn_at: float, stop_at: float | None = None
) -> tuple[float, float, float, float]:
    """(on-topic claims warned, on-topic stopped, off-topic not warned, off-topic not stopped): stopped as
    the check stops, or, given `stop_at`, as a stop below that reading would."""
    on = [s for s in part if s.item.on_topic]
    off = [s for s in part if not s.item.on_topic]

    def stops(s: Scored) -> bool:
        return s.stopped if stop_at is None else s.strongest < stop_at

    return (
        rate([s.weakest < warn_at for s in on]),
        rate([stops(s) for s in on]),
        rate([s.weakest >= warn_at for s in off]),
        rate([not stops(s) for s in off]),
    )


def _aucs(part: Sequence[Scored]) -> tuple[float, float]:
    """AUC of the weakest and of the strongest sub-claim's reading, on topic against off topic."""

    def of(reading: Callable[[Scored], float]) -> float:
        return auc(
            [reading(s) for s in part if s.item.on_topic], [reading(s) for s in part if not s.item.on_topic]
        )

    return of(lambda s: s.weakest), of(lambda s: s.strongest)


def report(all_items: Sequence[Item]) -> dict[str, Any]:
    tune = [i for i in all_items if i.half == "tune"]
    figures: dict[str, Any] = {"signals": {}}
    sets = list(dict.fromkeys(i.set for i in all_items))
    counts = ", ".join(f"{s} {sum(i.set == s for i in all_items)}" for s in sets)
    print(f"{len(all_items)} claims: {counts}; tune {len(tune)}, held-out {len(all_items) - len(tune)}")
    on, off = lexical_relevance(all_items)
    print(
        f"\nthe offline reader's lexical relevance (stance.read), weakest sub-claim: AUC {auc(on, off):.3f}"
    )
    for signal in SIGNALS:
        scores = scored(all_items, signal)
        print(f"\nsignal {signal.name}")
        for half in ("tune", "held-out", "all"):
            weakest, strongest = _aucs([s for s in scores if half == "all" or s.item.half == half])
            print(f"  AUC {half:8s}  weakest sub-claim {weakest:.3f}   strongest sub-claim {strongest:.3f}")
        tuned = [s for s in scores if s.item.half == "tune"]
        warn_at = choose(tuned, lambda s: s.weakest, WARN_FALSE_ALARMS)
        stop_at = choose(tuned, lambda s: s.strongest, STOP_FALSE_ALARMS)
        print(
            f"  chosen on the tune halves: off topic below {warn_at:.2f} (≤ {WARN_FALSE_ALARMS:.0%} "
            f"of on-topic claims warned); a stop below a reading would be below {stop_at:.2f} "
            f"(≤ {STOP_FALSE_ALARMS:.0%} stopped), not in use"
        )
        print(
            f"  in use (debate/relevance.py): off topic {signal.off_topic:.2f}; stop when no passage shares "
            "a word with any sub-claim"
        )
        print(
            "\n  tune halves by threshold: on topic warned, off topic not · "
            "a stop below the reading: on topic stopped, off topic not"
        )
        for t in (0.04, 0.06, 0.08, 0.10, 0.12, 0.14, 0.16, 0.18, 0.20):
            warned, stopped, unwarned, unstopped = _rates(tuned, t, t)
            print(f"    {t:.2f}   warn {warned:6.1%} {unwarned:6.1%}   stop {stopped:6.1%} {unstopped:6.1%}")
        print(f"\n  as the check reads       {'n':>4s}  {'warned':>7s} {'stopped':>8s}")
        rows = []
        for name in sets:
            for half in ("tune", "held-out"):
                part = [s for s in scores if s.item.set == name and s.item.half == half]
                warned = rate([s.weakest < signal.off_topic for s in part])
                stopped = rate([s.stopped for s in part])
                rows.append({"set": name, "half": half, "n": len(part), "warned": warned, "stopped": stopped})
                print(f"  {name:17s} {half:8s} {len(part):4d}  {warned:7.1%} {stopped:8.1%}")
        for half in ("tune", "held-out"):
            part = [s for s in scores if s.item.half == half]
            warned, stopped, unwarned, unstopped = _rates(part, signal.off_topic)
            print(
                f"  {half:8s} on topic (false alarms): {warned:.1%} warned, {stopped:.1%} stopped; "
                f"off topic (misses): {unwarned:.1%} not warned, {unstopped:.1%} not stopped"
            )
        figures["signals"][signal.name] = {
            "chosen": {"off_topic": warn_at, "stop_below_reading": stop_at},
            "in_use": {"off_topic": signal.off_topic, "add_documents": "no word shared"},
            "rows": rows,
        }
    print("\nthe played corpus's round-1 pools (each sub-claim: reading, scores)")
    for name, subs, pool in played_pools():
        measured = measure(subs, pool)
        readings = ", ".join(
            f"{s.sub_claim_id} {s.reading} " + " ".join(f"{v:.2f}" for v in s.scores.values())
            for s in measured.sub_claims
        )
        print(f"  {name:40s} {'add documents' if measured.add_documents else 'debated':13s} {readings}")
    print("\nprobes: other scripts, and pools that refute a claim in other words (reading, score, outcome)")
    figures["probes"] = probe_readings()
    for probe in figures["probes"]:
        print(f"  {probe['probe']:28s} {probe['reading']:11s} {probe['score']:5s} {probe['outcome']}")
    return figures


def probe_readings() -> list[dict[str, str]]:
    """Each probe's reading, its score (- when unmeasured), and whether it would be debated."""
    out = []
    for label, claim, passages in PROBES:
        sub = SubClaim(id="sc1", text=claim, directive=claim[:300])
        pool = [
            Evidence(
                id=f"e{i}",
                text=text,
                title=title,
                source_url="https://example.org/probe",
                tier="T2",
                query=claim[:300],
                sub_claim_id="sc1",
                round=1,
            )
            for i, (title, text) in enumerate(passages, 1)
        ]
        measured = measure([sub], pool)
        [read] = measured.sub_claims
        out.append(
            {
                "probe": label,
                "reading": read.reading,
                "score": " ".join(f"{v:.2f}" for v in read.scores.values()) or "-",
                "outcome": "add documents" if measured.add_documents else "debated",
            }
        )
    return out


# Hand-written, as no labelled set holds them: a claim in another script against a passage that states it
# (each was stopped as speaking to nothing when words were ASCII letters only), and pools that refute a
# claim in other words (a reading near 0 that must not stop a debate while any word is shared).
PROBES: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "ru: vaccines",
        "Вакцины не вызывают аутизм.",
        (("Исследования", "Крупные исследования показали, что вакцины не вызывают аутизм у детей."),),
    ),
    ("zh: vaccines", "疫苗不会导致自闭症。", (("研究", "大型研究表明，疫苗不会导致儿童自闭症。"),)),
    (
        "el: vaccines",
        "Τα εμβόλια δεν προκαλούν αυτισμό.",
        (("Μελέτες", "Μεγάλες μελέτες έδειξαν ότι τα εμβόλια δεν προκαλούν αυτισμό στα παιδιά."),),
    ),
    (
        "ja: sea ice",
        "北極の海氷面積は1979年以降減少している。",
        (("海氷", "NSIDCによると、北極の海氷面積は1979年以降、10年あたり約13%減少している。"),),
    ),
    (
        "hi: sea ice",
        "1979 से आर्कटिक समुद्री बर्फ का विस्तार घटा है।",
        (("समुद्री बर्फ", "NSIDC के अनुसार 1979 से आर्कटिक समुद्री बर्फ का विस्तार हर दशक लगभग 13 प्रतिशत घटा है।"),),
    ),
    (
        "fr: sea ice",
        "L'étendue de la banquise arctique a diminué depuis 1979.",
        (
            (
                "Banquise",
                "L'étendue de la banquise arctique a diminué d'environ 13 % par décennie depuis 1979.",
            ),
        ),
    ),
    (
        "en: flat earth, refuted",
        "The Earth is flat.",
        (
            (
                "Figure of the Earth",
                "Satellite imagery and circumnavigation show that the planet is an oblate spheroid.",
            ),
            (
                "Eratosthenes",
                "Eratosthenes measured the circumference of the globe around 240 BC using shadows.",
            ),
        ),
    ),
    (
        "en: chimpanzees, refuted",
        "Humans evolved from chimpanzees.",
        (
            (
                "Human evolution",
                "Humans and chimpanzees share a common ancestor that lived roughly six to seven million "
                "years ago.",
            ),
        ),
    ),
    (
        "en: coffee, no word shared",
        "Coffee causes dehydration.",
        (
            (
                "Caffeine and hydration",
                "Moderate caffeine intake does not lead to fluid loss in excess of the volume ingested, "
                "studies of habitual drinkers found.",
            ),
        ),
    ),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--shared", type=Path, default=DEFAULT_SHARED, help="the shared data folder (ai-debate/)"
    )
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    all_items = items(args.shared)
    figures = report(all_items)
    print(f"\n({time.perf_counter() - started:.0f} s; OFF_TOPIC {OFF_TOPIC}; a stop: no word shared)")
    if args.out is not None:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
