"""The learned passage stance: does this passage support, refute or not bear on this statement?

Two logistic regressions over the lexical readings of claimcourt.reasoning.stance.FEATURES (overlap with
the statement's subject and predicate, negation, antonyms, minimisers, hedges, figures, directions):
  bears    P(the passage supports or refutes the statement, rather than not bearing on it)
  refutes  P(it refutes the statement | it bears on it)
so a passage supports with probability bears × (1 − refutes) and refutes with bears × refutes.

A statement's pool is summarised by its most bearing passage (how much the pool says at all) and by the
bears-weighted mean of `refutes` over its TOP most bearing passages (which way it says it). The judge's
Decision turns that into a verdict: nothing bears enough, not enough evidence; otherwise supported,
refuted or, in between, conflicting (CLIMATE-FEVER's DISPUTED: good evidence both ways).

A second reader adds one reading to the lexical ones: the cosine of the statement's and the passage's
sentence embeddings (COSINE; claimcourt.reasoning.embedding, the `embed` extra). The shipped file holds
its fit too (its "with_embedding" part). The lexical reader judges unless the embedding one is asked for
(CLAIMCOURT_OFFLINE_READER=embedding, through prefer_embedding): on the held-out half the embedding reader
did no better (see claimcourt.reasoning.offline), at 3.6 to 5.6 times the time a run.

The weights and thresholds are data (stance_model.json), written by claimcourt.bench.stance_train from
the tune half of CLIMATE-FEVER dev only, with how they were trained; this module only reads them. Pure
Python (the embedding, when installed, is the one exception): it runs inside Lambda.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from claimcourt.models import Verdict
from claimcourt.reasoning import embedding
from claimcourt.reasoning.stance import FEATURES, features, read

MODEL_FILE = Path(__file__).with_name("stance_model.json")
# How many of a pool's most bearing passages say which way it leans.
TOP = 3
# A debater (of a claim or a motion) cites passages that bear on its statement at least this likely.
CITE_AT = 0.3
# The embedding reader's one reading beyond FEATURES: the cosine of the two texts' sentence embeddings.
COSINE = "embedding_cosine"
EMBEDDED_FEATURES = (*FEATURES, COSINE)
# Where the shipped file keeps the embedding reader's fit.
WITH_EMBEDDING = "with_embedding"


def readings(statement: str, passage: str, title: str = "", *, embedded: bool = False) -> tuple[float, ...]:
    """The raw readings a model weighs: FEATURES, and with `embedded` the COSINE (of the passage's text;
    the title's words are already read by the lexical features)."""
    raw = features(statement, passage, title)
    return (*raw, embedding.similarity(statement, passage)) if embedded else raw


@dataclass(frozen=True)
class PassageStance:
    """The learned probabilities, and what the lexical rule allows them to mean.

    A passage supports a statement only if it could state it as a proposition: it names the statement's
    subject and states (part of) its predicate, speaks of the statement's place, scope, time and both
    halves of its comparison (claimcourt.reasoning.qualifiers), and the rule does not read it as stating
    the opposite (claimcourt.reasoning.stance.read). Otherwise its support counts for nothing; what it
    refutes still counts, and a passage the rule reads as stating the opposite refutes with all its weight."""

    bears: float  # learned P(supports or refutes)
    refutes: float  # learned P(refutes | bears)
    rule: int  # the lexical rule's reading (stance().polarity): +1 states it, -1 its opposite, 0 neither
    may_support: bool
    differs: str | None = None  # how its place, scope, time or comparison differs (qualifiers.differs)

    @property
    def support(self) -> float:
        return self.bears * (1 - self.refutes) if self.may_support and self.rule >= 0 else 0.0

    @property
    def refute(self) -> float:
        return self.bears if self.rule < 0 else self.bears * self.refutes

    @property
    def weighed(self) -> tuple[float, float]:
        """(bears, refutes) as the judge counts them: support the rule does not allow is not counted."""
        total = self.support + self.refute
        return total, (self.refute / total if total else 0.5)


@dataclass(frozen=True)
class Decision:
    bears_at: float  # below this, the pool does not bear on the statement: not enough evidence
    supported_below: float  # a lean under this is supported …
    refuted_from: float  # … from this refuted, in between conflicting


@dataclass(frozen=True)
class Summary:
    bears: float  # the most bearing passage's P(bears); 0 for an empty pool
    refutes: float  # bears-weighted mean P(refutes) of the TOP most bearing passages; 0.5 if none


@dataclass(frozen=True)
class Call:
    verdict: Verdict
    strength: float  # 0..1: how far past its thresholds the call is (0 at an edge, 1 as far as it goes)


def summarise(pool: Sequence[tuple[float, float]]) -> Summary:
    """A pool of (bears, refutes) pairs, in the pool's order (ties keep it)."""
    top = sorted(pool, key=lambda pair: -pair[0])[:TOP]
    mass = sum(b for b, _ in top)
    if not top or not mass:
        return Summary(0.0, 0.5)
    return Summary(top[0][0], sum(b * r for b, r in top) / mass)


def decide(summary: Summary, decision: Decision) -> Call:
    b, r = summary.bears, summary.refutes
    if b < decision.bears_at:
        return Call(Verdict.NOT_ENOUGH_EVIDENCE, (decision.bears_at - b) / decision.bears_at)
    bearing = (b - decision.bears_at) / (1 - decision.bears_at) if decision.bears_at < 1 else 0.0
    if r < decision.supported_below:
        lean = (decision.supported_below - r) / decision.supported_below
        return Call(Verdict.SUPPORTED, (bearing + lean) / 2)
    if r >= decision.refuted_from:
        lean = (r - decision.refuted_from) / (1 - decision.refuted_from) if decision.refuted_from < 1 else 0.0
        return Call(Verdict.REFUTED, (bearing + lean) / 2)
    middle = (decision.supported_below + decision.refuted_from) / 2
    half = (decision.refuted_from - decision.supported_below) / 2
    return Call(Verdict.CONFLICTING, 1 - abs(r - middle) / half if half else 1.0)


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


@dataclass(frozen=True)
class _Logistic:
    bias: float
    weights: tuple[float, ...]

    def __call__(self, x: Sequence[float]) -> float:
        return _sigmoid(self.bias + sum(w * v for w, v in zip(self.weights, x, strict=True)))


class StanceModel:
    def __init__(
        self,
        mean: Sequence[float],
        scale: Sequence[float],
        bears: _Logistic,
        refutes: _Logistic,
        decision: Decision,
        *,
        embedded: bool = False,
    ) -> None:
        self._mean, self._scale = tuple(mean), tuple(scale)
        self._bears, self._refutes = bears, refutes
        self.decision = decision
        self.embedded = embedded  # reads COSINE too: needs the embed extra

    @property
    def reader(self) -> str:
        return f"lexical + {embedding.MODEL_ID} cosine" if self.embedded else "lexical"

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> StanceModel:
        names = tuple(doc["features"])
        if names not in (FEATURES, EMBEDDED_FEATURES):
            raise ValueError("the stance model was trained on other features: retrain it (stance_train)")

        def logistic(part: dict[str, Any]) -> _Logistic:
            return _Logistic(float(part["bias"]), tuple(float(part["weights"][f]) for f in names))

        d = doc["decision"]
        return cls(
            doc["mean"],
            doc["scale"],
            logistic(doc["bears"]),
            logistic(doc["refutes"]),
            Decision(float(d["bears_at"]), float(d["supported_below"]), float(d["refuted_from"])),
            embedded=names == EMBEDDED_FEATURES,
        )

    def judge(self, statement: str, passage: str, title: str = "") -> PassageStance:
        raw = readings(statement, passage, title, embedded=self.embedded)
        x = [(v - m) / s for v, m, s in zip(raw, self._mean, self._scale, strict=True)]
        rule = read(statement, passage, title)
        may_support = rule.polarity >= 0 and rule.subject_named and rule.stated > 0 and rule.differs is None
        return PassageStance(self._bears(x), self._refutes(x), rule.polarity, may_support, rule.differs)


_active: list[StanceModel] = []  # set by use(): training and benches
_preferred = {"embedded": False}  # set by prefer_embedding(): the process's settings


@lru_cache(maxsize=2)
def shipped(*, embedded: bool) -> StanceModel:
    """The shipped fit (stance_model.json) of the lexical reader, or of the embedding reader."""
    doc = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    return StanceModel.from_dict(doc[WITH_EMBEDDING] if embedded else doc)


def model() -> StanceModel:
    """The model in use: the one use() set, else the shipped reader the settings prefer (the lexical one
    unless prefer_embedding(True))."""
    return _active[-1] if _active else shipped(embedded=_preferred["embedded"])


def prefer_embedding(wanted: bool) -> None:
    """Judge with the shipped embedding reader (or, False, the lexical one) when use() set no model: the
    wiring's reading of CLAIMCOURT_OFFLINE_READER. The embedding reader needs the `embed` extra."""
    if wanted and not embedding.available():
        raise embedding.EmbeddingUnavailable(
            "the embedding reader needs the `embed` extra: pip install 'claimcourt[embed]'"
        )
    if _preferred["embedded"] != wanted:
        _preferred["embedded"] = wanted
        judge.cache_clear()


def use(replacement: StanceModel | None) -> None:
    """Judge with `replacement` from now on (None: the shipped reader the settings prefer). For training,
    benches and tests."""
    _active.clear()
    if replacement is not None:
        _active.append(replacement)
    judge.cache_clear()


@lru_cache(maxsize=32768)
def judge(statement: str, passage: str, title: str = "") -> PassageStance:
    """The model's stance of `passage` (from a source titled `title`) on `statement`."""
    return model().judge(statement, passage, title)
