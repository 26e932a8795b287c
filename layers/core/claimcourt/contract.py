"""The scoring contract (docs/scoring.md) in code: what a score is, the verdict bands, how sub-claim
scores compose into the claim's score by its logical shape, and the bounds that keep the two consistent.

A score is the probability, 0–100, that the (sub-)claim is true given only the evidence in the pool;
50 means the evidence is silent or balanced. Everything that reads or makes a score — the prompts,
the offline reasoner, the score stage — takes its rules from here, so they cannot drift apart.
Pure and dependency-free: the lowest layer, imported from anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

# The verdict bands. A (sub-)claim is supported only from SUPPORTED_AT up, refuted only from REFUTED_AT
# down; in between it is not-enough-evidence or conflicting, whatever its lean.
SUPPORTED_AT, REFUTED_AT = 60, 40

# How a claim's sub-claims decide it, as the decomposer says:
#   all     jointly necessary: the claim is true only if every sub-claim is ("X rose and Y fell")
#   any     alternatives: the claim is true if at least one is ("X or Y caused it")
#   facets  aspects of one proposition, each telling part of the answer ("X is a durable moat":
#           scale, cost advantage, durability read as one judgement)
Shape = Literal["all", "any", "facets"]
SHAPES: dict[str, str] = {
    "all": "jointly necessary: the claim is true only if every sub-claim is true",
    "any": "alternatives: the claim is true if at least one sub-claim is true",
    "facets": "facets of one proposition: each bears on the claim, none decides it alone",
}

# The rule `compose` applies, in words, for the prompts.
COMPOSITION_RULES: dict[str, str] = {
    "all": "halfway between the product of the sub-claim probabilities (what it would be if they were "
    "independent) and the lowest of them (if they were fully dependent)",
    "any": "halfway between one minus the product of their complements (if they were independent) and "
    "the highest of them (if they were fully dependent)",
    "facets": "the mean of the sub-claim scores",
}

# The judge gives an 80 % interval: the claim's probability lies inside it four times in five.
INTERVAL_MASS = 0.8


def _p(scores: Sequence[int]) -> list[float]:
    return [min(100, max(0, s)) / 100 for s in scores]


def compose(scores: Sequence[int], shape: Shape) -> int:
    """The claim's score from its sub-claims' scores, by its shape.

    Sub-claims of one claim are rarely independent, so for `all` and `any` the rule takes the
    midpoint of the two extremes: independence (product; noisy-or) and full dependence (min; max).
    `facets` is the mean. One sub-claim is its own claim under every shape."""
    p = _p(scores)
    if not p:
        return 50
    if shape == "all":
        value = (math.prod(p) + min(p)) / 2
    elif shape == "any":
        value = ((1 - math.prod(1 - x for x in p)) + max(p)) / 2
    else:
        value = sum(p) / len(p)
    return round(100 * value)


def bounds(scores: Sequence[int], shape: Shape) -> tuple[int, int]:
    """The scores the claim may have given its sub-claims' scores, whatever their dependence
    (the Fréchet bounds for `all` and `any`; the sub-claims' range for `facets`). An overall score
    outside them contradicts the sub-claims."""
    p = _p(scores)
    if not p:
        return 0, 100
    if shape == "all":
        low, high = max(0.0, sum(p) - (len(p) - 1)), min(p)
    elif shape == "any":
        low, high = max(p), min(1.0, sum(p))
    else:
        low, high = min(p), max(p)
    return math.floor(100 * low + 1e-9), math.ceil(100 * high - 1e-9)


Band = Literal["supported", "refuted", "undecided"]


def band(score: int) -> Band:
    if score >= SUPPORTED_AT:
        return "supported"
    if score <= REFUTED_AT:
        return "refuted"
    return "undecided"


def pull_towards_50(score: float, factor: float) -> float:
    """Shrink a score's distance from 50 by `factor` (1: unchanged, 0: 50)."""
    return 50 + factor * (score - 50)


# The rubric judge (`--judge rubric`) rates a (sub-)claim 0–10, or null for "needs more evidence":
# 0–4 the pool contradicts it, 5 misleading (true in part, or pulled both ways), 6–10 the pool supports
# it. A rating reads as a score on the 0–100 scale and an 80 % interval around it (docs/scoring.md):
# the contradicted ratings inside the refuted band, the supported ones inside the supported band, eight
# points a step; 5 at 50, conflicting; null at 50 with the widest interval, not enough evidence.
Reading = Literal["contradicted", "misleading", "supported", "needs more evidence"]
RUBRIC_SCORES: dict[int, int] = {0: 4, 1: 12, 2: 20, 3: 28, 4: 36, 5: 50, 6: 64, 7: 72, 8: 80, 9: 88, 10: 96}
RUBRIC_HALF_WIDTHS: dict[Reading, int] = {
    "contradicted": 8,
    "misleading": 15,
    "supported": 8,
    "needs more evidence": 30,
}
RUBRIC_READINGS: dict[Reading, range] = {
    "contradicted": range(0, 5),
    "misleading": range(5, 6),
    "supported": range(6, 11),
}


def rubric_reading(rating: int | None) -> Reading:
    if rating is None:
        return "needs more evidence"
    return next(name for name, ratings in RUBRIC_READINGS.items() if rating in ratings)


def rubric_score(rating: int | None) -> tuple[int, int, int]:
    """(score, interval low, interval high) that a rubric rating reads as on the 0–100 scale."""
    score = 50 if rating is None else RUBRIC_SCORES[rating]
    half = RUBRIC_HALF_WIDTHS[rubric_reading(rating)]
    return score, max(0, score - half), min(100, score + half)


def nearest_rating(score: int, reading: Reading) -> int | None:
    """The rating of `reading` whose score is nearest `score` (the lower on a tie); None for needs more
    evidence. The inverse of `rubric_score` within a reading."""
    if reading == "needs more evidence":
        return None
    return min(RUBRIC_READINGS[reading], key=lambda r: (abs(RUBRIC_SCORES[r] - score), r))
