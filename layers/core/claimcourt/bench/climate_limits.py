"""What limits the offline reasoner on CLIMATE-FEVER: its retrieval, or its reading of what it retrieved?

Run: python -m claimcourt.bench.climate_limits [--split tune|held-out|all] [--limit N] [--seed S]

Every claim of the split goes through the real pipeline (as claimcourt.bench.climate_fever runs it), and
the evidence pool each run gathered is kept. Then three readings of the same claims, each mapped to a label
as the bench maps verdicts (claimcourt.bench.climate_fever):

  engine            the run's own verdict
  perfect reading   the pool read by an oracle: CLIMATE-FEVER's own sentence labels for the claim's five
                    annotated sentences, any other sentence counted as saying nothing; the claim's label
                    is the aggregate of what the pool holds (a supporting and a refuting sentence:
                    DISPUTED, and so on). What the engine would score if its stance were perfect.
  perfect retrieval the engine's own judge (the shipped stance and thresholds) over the claim's five
                    annotated sentences instead of the pool: what it would score if retrieval were perfect
                    (with the thresholds fitted on the pipeline's pools; refitted for five-sentence pools by
                    cross-validation within the tune half it scores about the same, docs/architecture.md).

It also prints how often the pool holds a sentence annotated as supporting (refuting) the claim, among the
claims that have one. This reads the split's gold sentence labels to *measure*; nothing here changes what
the engine does, so running it on the held-out half tunes nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcourt import artifacts
from claimcourt.bench.climate_fever import (
    CLAIMS_FILE,
    LABEL_FOR_VERDICT,
    SPLITS,
    Claim,
    load_claims,
    run_claims,
    scores,
    select,
)

if TYPE_CHECKING:
    from claimcourt.store.base import Store

NONE = "NOT_ENOUGH_INFO"


def aggregate(labels: Sequence[str]) -> str:
    """CLIMATE-FEVER's claim label from its sentences' labels."""
    supports, refutes = "SUPPORTS" in labels, "REFUTES" in labels
    if supports and refutes:
        return "DISPUTED"
    return "SUPPORTS" if supports else "REFUTES" if refutes else NONE


def _annotated(path: Path = CLAIMS_FILE) -> dict[int, list[dict[str, Any]]]:
    import gzip
    import json

    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return {i: json.loads(line)["evidences"] for i, line in enumerate(lines)}


def measure(claims: Sequence[Claim]) -> dict[str, Any]:
    from claimcourt.models import Evidence, Verdict
    from claimcourt.reasoning.offline import call, weighed_pool

    annotated = _annotated()
    pools: dict[int, list[Evidence]] = {}
    subs: dict[int, list[tuple[str, str]]] = {}

    def observe(claim: Claim, run_id: str, store: Store) -> None:
        found: dict[str, Evidence] = {}
        for _, doc in sorted(artifacts.retrievals_of(store, run_id).items()):
            for item in doc["items"]:
                e = Evidence.model_validate(item)
                found.setdefault(e.id, e)
        pools[claim.index] = list(found.values())
        try:
            decomposition = store.get_artifact(run_id, "decomposition")
        except Exception:  # a run stopped before it decomposed: judged whole
            decomposition = None
        subs[claim.index] = [(s["id"], s["text"]) for s in (decomposition or {}).get("sub_claims", [])] or [
            ("sc1", claim.text)
        ]

    with tempfile.TemporaryDirectory(prefix="claimcourt-limits-") as tmp:
        outcomes, _ = run_claims(claims, Path(tmp), observe)

    def claim_label(verdicts: list[Verdict]) -> str:
        if verdicts and all(v is Verdict.SUPPORTED for v in verdicts):
            return "SUPPORTS"
        for v in (Verdict.REFUTED, Verdict.CONFLICTING):
            if v in verdicts:
                return LABEL_FOR_VERDICT[v.value]
        return NONE

    gold = [c.gold for c in claims]
    engine = [o.predicted for o in outcomes]
    perfect_reading, perfect_retrieval = [], []
    held = {"SUPPORTS": [0, 0], "REFUTES": [0, 0]}
    for claim in claims:
        sentences = annotated[claim.index]
        label_of = {(s["article"], s["evidence"]): s["evidence_label"] for s in sentences}
        in_pool = {(e.title, e.text) for e in pools.get(claim.index, [])}
        perfect_reading.append(aggregate([label for key, label in label_of.items() if key in in_pool]))
        for wanted, count in held.items():
            if any(label == wanted for label in label_of.values()):
                count[1] += 1
                count[0] += any(label == wanted and key in in_pool for key, label in label_of.items())
        gold_pool = [
            Evidence(
                id=f"G{n}",
                text=s["evidence"],
                title=s["article"],
                source_url="https://en.wikipedia.org/",
                tier="T2",
                query="(annotated)",
                sub_claim_id="context",
                round=1,
            )
            for n, s in enumerate(sentences)
        ]
        perfect_retrieval.append(
            claim_label(
                [
                    call(weighed_pool(sid, text, gold_pool)).verdict
                    for sid, text in subs.get(claim.index, [("sc1", claim.text)])
                ]
            )
        )
    return {
        "n": len(claims),
        "pool_holds": {k: (v[0] / v[1] if v[1] else 0.0, v[1]) for k, v in held.items()},
        "engine": scores(gold, engine),
        "perfect_reading": scores(gold, perfect_reading),
        "perfect_retrieval": scores(gold, perfect_retrieval),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m claimcourt.bench.climate_limits", description=__doc__)
    parser.add_argument("--split", choices=SPLITS, default="tune")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    claims = select(load_claims(), args.split, args.limit, args.seed)
    print(f"running {len(claims)} claims", file=sys.stderr, flush=True)
    found = measure(claims)
    print(f"CLIMATE-FEVER claims-dev, split {args.split}: n = {found['n']}")
    for label, (share, total) in found["pool_holds"].items():
        print(
            f"  the pool holds an annotated {label} sentence for {share:.1%} of the {total} claims with one"
        )
    print(f"  {'':<44}{'accuracy':>9}{'macro-F1':>10}{'balanced acc':>14}{'prec. of SUP':>15}")
    rows = (
        ("engine", "engine"),
        ("perfect reading of the engine's pools", "perfect_reading"),
        ("engine's reading, perfect retrieval", "perfect_retrieval"),
    )
    for name, key in rows:
        v = found[key]
        print(
            f"  {name:<44}{v['accuracy']:>9.3f}{v['macro_f1']:>10.3f}{v['balanced_accuracy']:>14.3f}"
            f"{v['supported_precision']:>15.3f}"
        )


if __name__ == "__main__":
    main()
