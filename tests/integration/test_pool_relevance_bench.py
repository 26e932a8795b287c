"""bench/pool_relevance.py: its rule, run on the tune halves of its labelled sets, chooses the
thresholds debate/relevance.py uses; and its AUC is computed as Mann–Whitney's."""

from __future__ import annotations

import pytest

from claimcourt.bench import pool_relevance
from claimcourt.debate.relevance import ADD_DOCUMENTS, OFF_TOPIC, SIGNALS


def test_auc_counts_ties_as_half() -> None:
    assert pool_relevance.auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert pool_relevance.auc([0.1], [0.9]) == 0.0
    assert pool_relevance.auc([0.5, 0.5], [0.5]) == 0.5
    assert pool_relevance.auc([0.3, 0.7], [0.5, 0.1]) == pytest.approx(0.75)


def test_the_thresholds_in_use_are_the_rules_choice_on_the_tune_halves() -> None:
    items = [i for i in pool_relevance.items(pool_relevance.DEFAULT_SHARED) if i.half == "tune"]
    assert {i.set for i in items} == {"climate-fever", "ai-debate climate", "ai-debate health", "averitec"}
    scores = pool_relevance.scored(items, SIGNALS[0])
    warn_at = pool_relevance.choose(scores, lambda s: s.weakest, pool_relevance.WARN_FALSE_ALARMS)
    stop_at = pool_relevance.choose(scores, lambda s: s.strongest, pool_relevance.STOP_FALSE_ALARMS)
    assert (warn_at, stop_at) == (OFF_TOPIC, ADD_DOCUMENTS)
    # and off-topic claims read lower than on-topic ones, far more often than not
    weakest, strongest = pool_relevance._aucs(scores)
    assert weakest > 0.9 and strongest > 0.9
