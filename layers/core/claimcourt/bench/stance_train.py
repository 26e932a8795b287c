"""Train the offline reasoner's passage stance (reasoning/stance_model.json) from the tune half of
CLIMATE-FEVER dev.

Run: python -m claimcourt.bench.stance_train [--check]

Data: the bench's bundled claims (bench/data/climate_fever_claims_dev.jsonl.gz), the claims at even line
indexes only (the bench's "tune" half; the odd, "held-out" half is skipped unread). Each claim comes with
five Wikipedia sentences annotators labelled SUPPORTS, REFUTES or NOT_ENOUGH_INFO for it.

Stage 1, the weights: two logistic regressions over the lexical features of
claimcourt.reasoning.stance.FEATURES, trained on the tune half's (claim, sentence, label) pairs, each with
balanced class weights and an L2 penalty of L2 on features standardised over those pairs, fitted by
Newton's method to convergence (the optimum is unique: no seed, no iteration count):
  bears    does the passage bear on the statement (SUPPORTS or REFUTES) or not (NOT_ENOUGH_INFO)?
  refutes  of the passages that bear on it, does it refute (REFUTES) rather than support (SUPPORTS)?

Stage 2, the judge's thresholds (stance_model.Decision): every tune claim run through the real pipeline
(the bench's local state machine, the offline reasoner with stage 1's weights, the bundled corpus; what
the debaters cite and the moderator asks for does not depend on the thresholds), each sub-claim's pool
weighed as the judge weighs it, and the grid point (bears_at, and a conflicting band symmetric around
0.5) with the best macro-F1 + balanced accuracy over the four claim labels among those whose precision of
supported is at least MIN_SUPPORTED_PRECISION. CLIMATE-FEVER's claim label is the aggregate of its
sentences' labels (a supporting and a refuting one: DISPUTED; only supporting: SUPPORTS; only refuting:
REFUTES; neither: NOT_ENOUGH_INFO), and the judge's verdicts read its pool the same way.

Deterministic: the same data gives byte-identical output. --check compares a fresh fit with the shipped
file and fails if they differ.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from claimcourt import artifacts
from claimcourt.bench.climate_fever import CLAIMS_FILE, LABEL_FOR_VERDICT
from claimcourt.models import Verdict
from claimcourt.reasoning import embedding
from claimcourt.reasoning.stance import FEATURES
from claimcourt.reasoning.stance_model import (
    EMBEDDED_FEATURES,
    MODEL_FILE,
    TOP,
    WITH_EMBEDDING,
    Decision,
    StanceModel,
    decide,
    readings,
    summarise,
    use,
)

# The L2 penalty (on standardised weights, in units of training pairs). Chosen, like everything here, by
# 4-fold cross-validation of the whole system within the tune half (weights and thresholds fitted on three
# folds, claims of the fourth run through the pipeline): 100 did no better than 10.
L2 = 10.0
# Supported must be right this often on the tune claims. Above the 0.70 because thresholds fitted on
# one set are optimistic on the next: cross-validated within the tune half, 0.72 / 0.74 / 0.76 here gave
# precision of supported 0.67 / 0.69 / 0.71 out of fold, at macro-F1 0.36 / 0.35 / 0.33.
MIN_SUPPORTED_PRECISION = 0.76
_BEARS_GRID = tuple(round(0.3 + 0.01 * i, 2) for i in range(61))  # 0.30 … 0.90
# The refutes model is fitted with balanced classes, so 0.5 is where support and refutation weigh alike:
# the conflicting band is symmetric around it, margin on each side. (Three free thresholds fitted the tune
# half better and cross-validated worse within it: 0.39 against 0.40 macro-F1.)
_MARGIN_GRID = tuple(round(0.01 * i, 2) for i in range(31))  # 0 … 0.30
LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")


def tune_claims(path: Path = CLAIMS_FILE) -> list[tuple[int, dict[str, Any]]]:
    """The tune half, with line indexes: claims at even line indexes (claimcourt.bench.climate_fever's
    split). The held-out lines are skipped unread."""
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        return [(i, json.loads(line)) for i, line in enumerate(lines) if i % 2 == 0]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """a x = b by Gauss-Jordan elimination with partial pivoting (a: small, symmetric, positive definite)."""
    n = len(b)
    m = [[*row, rhs] for row, rhs in zip(a, b, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[r][col]:
                factor = m[r][col] / m[col][col]
                m[r] = [x - factor * y for x, y in zip(m[r], m[col], strict=True)]
    return [m[i][n] / m[i][i] for i in range(n)]


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def fit_logistic(rows: Sequence[Sequence[float]], ys: Sequence[int], l2: float = L2) -> list[float]:
    """[bias, *weights] of an L2-penalised logistic regression with balanced class weights, by Newton's
    method. `rows` are standardised features; the bias is not penalised."""
    n, positives = len(ys), sum(ys)
    weight = {1: n / (2 * positives), 0: n / (2 * (n - positives))}
    xs = [[1.0, *row] for row in rows]
    dim = len(xs[0])
    beta = [0.0] * dim
    for _ in range(100):
        grad = [l2 * b if j else 0.0 for j, b in enumerate(beta)]
        hess = [[(l2 if i == j and i else 0.0) for j in range(dim)] for i in range(dim)]
        for x, y in zip(xs, ys, strict=True):
            p = _sigmoid(sum(b * v for b, v in zip(beta, x, strict=True)))
            w = weight[y]
            g, h = w * (p - y), w * p * (1 - p)
            for i in range(dim):
                if x[i]:
                    grad[i] += g * x[i]
                    hx = h * x[i]
                    row = hess[i]
                    for j in range(dim):
                        row[j] += hx * x[j]
        step = _solve(hess, grad)
        beta = [b - s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-10:
            break
    return beta


def _scores(counts: dict[tuple[str, str], int], gold: dict[str, int]) -> dict[str, float]:
    """Macro-F1, balanced accuracy and precision of SUPPORTS from (gold, predicted) counts."""
    f1s, recalls = [], []
    for label in LABELS:
        hit = counts.get((label, label), 0)
        said = sum(counts.get((g, label), 0) for g in LABELS)
        precision = hit / said if said else 0.0
        recall = hit / gold[label] if gold[label] else 0.0
        f1s.append(2 * precision * recall / (precision + recall) if precision + recall else 0.0)
        recalls.append(recall)
    said_supported = sum(counts.get((g, "SUPPORTS"), 0) for g in LABELS)
    return {
        "macro_f1": round(sum(f1s) / len(LABELS), 4),
        "balanced_accuracy": round(sum(recalls) / len(LABELS), 4),
        "supported_precision": round(counts.get(("SUPPORTS", "SUPPORTS"), 0) / said_supported, 4)
        if said_supported
        else 0.0,
    }


def claim_verdict(calls: Sequence[Verdict]) -> Verdict:
    """A claim's verdict from its sub-claims' (all jointly necessary, as the offline decomposer says), as
    the score stage reads them (claimcourt.adjudication.score): supported only if every sub-claim is,
    refuted if one is, conflicting if one is, else not enough evidence."""
    if calls and all(v is Verdict.SUPPORTED for v in calls):
        return Verdict.SUPPORTED
    if Verdict.REFUTED in calls:
        return Verdict.REFUTED
    if Verdict.CONFLICTING in calls:
        return Verdict.CONFLICTING
    return Verdict.NOT_ENOUGH_EVIDENCE


Pool = Sequence[tuple[float, float]]  # a sub-claim's passages as the judge weighs them: (bears, refutes)


def fit_decision(claims: Sequence[Sequence[Pool]], gold: Sequence[str]) -> tuple[Decision, dict[str, float]]:
    """The grid's best thresholds for the claims (each a list of its sub-claims' pools), judged as the
    bench judges the engine (claimcourt.bench.climate_fever.LABEL_FOR_VERDICT)."""
    summaries = [[summarise(pool) for pool in subs] for subs in claims]
    totals = {label: gold.count(label) for label in LABELS}
    label_for = {v: LABEL_FOR_VERDICT[v.value] for v in Verdict}
    best: tuple[float, Decision, dict[str, float]] | None = None
    for bears_at in _BEARS_GRID:
        for margin in _MARGIN_GRID:
            decision = Decision(bears_at, round(0.5 - margin, 2), round(0.5 + margin, 2))
            counts: dict[tuple[str, str], int] = {}
            for subs, g in zip(summaries, gold, strict=True):
                verdict = claim_verdict([decide(s, decision).verdict for s in subs])
                key = (g, label_for[verdict])
                counts[key] = counts.get(key, 0) + 1
            m = _scores(counts, totals)
            if m["supported_precision"] < MIN_SUPPORTED_PRECISION:
                continue
            objective = m["macro_f1"] + m["balanced_accuracy"]
            if best is None or objective > best[0]:
                best = (objective, decision, m)
    if best is None:
        raise RuntimeError("no threshold reaches the precision asked for")
    return best[1], best[2]


def fit_weights(claims: Sequence[dict[str, Any]], *, embedded: bool = False) -> dict[str, Any]:
    """Stage 1: the model document's weights, from these claims' annotated (claim, sentence) pairs; with
    `embedded`, for the embedding reader (FEATURES and the sentence embeddings' cosine)."""
    pairs = [
        (c["claim"], e["evidence"], e["article"], e["evidence_label"]) for c in claims for e in c["evidences"]
    ]
    names = EMBEDDED_FEATURES if embedded else FEATURES
    raw = [readings(claim, text, title, embedded=embedded) for claim, text, title, _ in pairs]
    mean = [sum(col) / len(raw) for col in zip(*raw, strict=True)]
    scale = [
        math.sqrt(sum((v - m) ** 2 for v in col) / len(raw)) or 1.0
        for col, m in zip(zip(*raw, strict=True), mean, strict=True)
    ]
    std = [[(v - m) / s for v, m, s in zip(row, mean, scale, strict=True)] for row in raw]
    labels = [label for *_, label in pairs]
    bears = fit_logistic(std, [int(label != "NOT_ENOUGH_INFO") for label in labels])
    bearing = [i for i, label in enumerate(labels) if label != "NOT_ENOUGH_INFO"]
    refutes = fit_logistic([std[i] for i in bearing], [int(labels[i] == "REFUTES") for i in bearing])
    return {
        "about": (
            "The offline reasoner's passage stance: two logistic regressions over the lexical features of "
            "claimcourt.reasoning.stance.FEATURES (standardised: (value - mean) / scale), and the judge's "
            "thresholds; in with_embedding, the same for the embedding reader (the features and "
            f"{embedding.MODEL_ID}'s cosine). Written by python -m claimcourt.bench.stance_train from the "
            "tune half (even line indexes) of CLIMATE-FEVER dev; do not edit by hand."
            if not embedded
            else "The embedding reader's fit: FEATURES and the sentence embeddings' cosine "
            "(embedding_cosine)."
        ),
        "trained_on": {
            "claims": len(claims),
            "pairs": len(pairs),
            "labels": {label: labels.count(label) for label in ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")},
            "l2": L2,
            "min_supported_precision": MIN_SUPPORTED_PRECISION,
            "top": TOP,
        },
        "features": list(names),
        "mean": [round(m, 6) for m in mean],
        "scale": [round(s, 6) for s in scale],
        "bears": _weights(names, bears),
        "refutes": _weights(names, refutes),
        # Placeholders until stage 2: the debaters and the moderator, who decide what is retrieved, never
        # read them, so the pools stage 2 sees do not depend on them.
        "decision": {"bears_at": 1.0, "supported_below": 0.0, "refuted_from": 1.0},
    }


Passages = list[tuple[str, list[tuple[str, str]]]]  # a claim's sub-claims: (text, [(passage, title)])


def pipeline_passages(claims: Sequence[dict[str, Any]], indexes: Sequence[int]) -> list[Passages]:
    """Each claim run through the real pipeline (the bench's local state machine, the offline reasoner
    with the model in use, the bundled corpus), and the passages the judge would weigh for each of its
    sub-claims (claimcourt.reasoning.offline.weighed_pool: which passages does not depend on the model). A
    claim the request validation refuses has no sub-claim (not enough evidence)."""
    import tempfile

    from claimcourt.bench.climate_fever import Claim, run_claims
    from claimcourt.models import Evidence
    from claimcourt.reasoning.offline import weighed_pool
    from claimcourt.store.base import Store

    found: dict[int, Passages] = {}

    def observe(claim: Claim, run_id: str, store: Store) -> None:
        decomposition = store.get_artifact(run_id, "decomposition")
        evidence: dict[str, Evidence] = {}
        for _, doc in sorted(artifacts.retrievals_of(store, run_id).items()):
            for item in doc["items"]:
                e = Evidence.model_validate(item)
                evidence.setdefault(e.id, e)
        found[claim.index] = [
            (
                sub["text"],
                [(e.text, e.title) for e, _ in weighed_pool(sub["id"], sub["text"], list(evidence.values()))],
            )
            for sub in decomposition["sub_claims"]
        ]

    runs = [
        Claim(i, str(c["claim_id"]), c["claim"], c["claim_label"])
        for i, c in zip(indexes, claims, strict=True)
    ]
    with tempfile.TemporaryDirectory(prefix="claimcourt-stance-") as tmp:
        run_claims(runs, Path(tmp), observe)
    return [found.get(i, []) for i in indexes]


def weighed(model: StanceModel, passages: Passages) -> list[Pool]:
    """A claim's sub-claim pools as `model` weighs them (stage 2's input)."""
    return [[model.judge(text, passage, title).weighed for passage, title in pool] for text, pool in passages]


def fit(claims: Sequence[dict[str, Any]], indexes: Sequence[int], *, embedded: bool) -> dict[str, Any]:
    """Both stages for one reader: the weights from the claims' annotated pairs, then the thresholds from
    their pipeline pools judged with those weights."""
    doc = fit_weights(claims, embedded=embedded)
    weights_only = StanceModel.from_dict(doc)
    use(weights_only)
    try:
        passages = pipeline_passages(claims, indexes)
    finally:
        use(None)
    decision, fitted = fit_decision(
        [weighed(weights_only, p) for p in passages], [c["claim_label"] for c in claims]
    )
    doc["decision"] = {
        "bears_at": decision.bears_at,
        "supported_below": decision.supported_below,
        "refuted_from": decision.refuted_from,
    }
    doc["tune_fit"] = fitted
    return doc


def build(path: Path = CLAIMS_FILE) -> dict[str, Any]:
    """The shipped file: the lexical reader's fit, with the embedding reader's inside it (WITH_EMBEDDING).
    Needs the `embed` extra."""
    if not embedding.available():
        raise SystemExit("stance_train fits the embedding reader too: install the embed extra first")
    indexed = tune_claims(path)
    claims, indexes = [c for _, c in indexed], [i for i, _ in indexed]
    doc = fit(claims, indexes, embedded=False)
    doc[WITH_EMBEDDING] = fit(claims, indexes, embedded=True)
    return doc


def cross_validate(
    folds: int, seeds: Sequence[int], *, embedded: bool, path: Path = CLAIMS_FILE
) -> dict[str, Any]:
    """The whole system's expected held-out figures, measured within the tune half only: claims split into
    `folds` folds (grouped by claim: a claim's five sentences are never in two folds), weights and
    thresholds fitted on the others, the fold's claims judged with them; once per seed of the split. The
    pools are those the pipeline retrieves with the whole tune half's weights (the debaters' citations and
    the moderator's queries depend on the weights a little; the judge's reading of each pool is what is
    measured)."""
    import random

    indexed = tune_claims(path)
    claims = [c for _, c in indexed]
    gold = [c["claim_label"] for c in claims]
    use(StanceModel.from_dict(fit_weights(claims, embedded=embedded)))
    try:
        passages = pipeline_passages(claims, [i for i, _ in indexed])
    finally:
        use(None)
    label_for = {v: LABEL_FOR_VERDICT[v.value] for v in Verdict}
    per_seed = []
    for seed in seeds:
        order = list(range(len(claims)))
        random.Random(seed).shuffle(order)
        predicted: dict[int, str] = {}
        for fold in range(folds):
            held = set(order[fold::folds])
            train = [i for i in range(len(claims)) if i not in held]
            fitted = StanceModel.from_dict(fit_weights([claims[i] for i in train], embedded=embedded))
            pools = {i: weighed(fitted, passages[i]) for i in range(len(claims))}
            decision, _ = fit_decision([pools[i] for i in train], [gold[i] for i in train])
            for i in held:
                calls = [decide(summarise(pool), decision).verdict for pool in pools[i]]
                predicted[i] = label_for[claim_verdict(calls)]
        counts: dict[tuple[str, str], int] = {}
        for i, g in enumerate(gold):
            counts[(g, predicted[i])] = counts.get((g, predicted[i]), 0) + 1
        per_seed.append(_scores(counts, {label: gold.count(label) for label in LABELS}))
    mean = {m: round(sum(r[m] for r in per_seed) / len(per_seed), 4) for m in per_seed[0]}
    return {"folds": folds, "seeds": list(seeds), "mean": mean, "per_seed": per_seed}


def _weights(names: Sequence[str], beta: Sequence[float]) -> dict[str, Any]:
    return {
        "bias": round(beta[0], 6),
        "weights": {f: round(w, 6) for f, w in zip(names, beta[1:], strict=True)},
    }


def _said(row: dict[str, float]) -> str:
    return (
        f"macro-F1 {row['macro_f1']:.3f}, balanced accuracy {row['balanced_accuracy']:.3f}, "
        f"precision of supported {row['supported_precision']:.3f}"
    )


def render(model: dict[str, Any]) -> str:
    return json.dumps(model, indent=1) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m claimcourt.bench.stance_train", description=__doc__)
    parser.add_argument(
        "--check", action="store_true", help="fail if the shipped file differs from a fresh fit"
    )
    parser.add_argument(
        "--cv",
        type=int,
        metavar="K",
        default=None,
        help="write nothing: K-fold cross-validation of the whole system within the tune half",
    )
    parser.add_argument("--seeds", type=int, default=2, help="with --cv: this many fold splits (seeds 0…)")
    parser.add_argument(
        "--reader",
        choices=("lexical", "embedding"),
        default="lexical",
        help="with --cv: which reader (embedding: the lexical features and the embeddings' cosine)",
    )
    args = parser.parse_args(argv)
    if args.cv is not None:
        if args.cv < 2:
            parser.error("--cv needs at least 2 folds")
        if args.reader == "embedding" and not embedding.available():
            parser.error("--reader embedding needs the embed extra")
        result = cross_validate(args.cv, range(args.seeds), embedded=args.reader == "embedding")
        for seed, row in zip(result["seeds"], result["per_seed"], strict=True):
            sys.stdout.write(f"{args.reader} reader, seed {seed}: {_said(row)}\n")
        sys.stdout.write(f"mean of {len(result['seeds'])} ({args.cv} folds): {_said(result['mean'])}\n")
        return
    text = render(build())
    if args.check:
        if MODEL_FILE.read_text(encoding="utf-8") != text:
            sys.exit(f"{MODEL_FILE} differs from a fresh fit: run python -m claimcourt.bench.stance_train")
        sys.stdout.write(f"{MODEL_FILE.name} matches a fresh fit\n")
        return
    MODEL_FILE.write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {MODEL_FILE}\n")


if __name__ == "__main__":
    main()
