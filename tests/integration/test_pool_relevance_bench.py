"""bench/pool_relevance.py: its rule, run on the tune halves of its labelled sets, chooses the warning
threshold debate/relevance.py uses, and the check stops no on-topic claim there; its AUC is computed as
Mann–Whitney's; its probes in other scripts read on topic."""

from __future__ import annotations

import pytest

from claimcourt.bench import pool_relevance
from claimcourt.debate.relevance import OFF_TOPIC, SIGNALS


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
    assert warn_at == OFF_TOPIC
    # the stop (no word shared) ends no on-topic claim's debate (a stop below 0.08 ended 0.7 % of them)
    assert not [s.item.claim for s in scores if s.item.on_topic and s.stopped]
    # and off-topic claims read lower than on-topic ones, far more often than not
    weakest, strongest = pool_relevance._aucs(scores)
    assert weakest > 0.9 and strongest > 0.9


def test_every_probe_in_another_script_reads_on_topic_and_a_refuting_paraphrase_is_debated() -> None:
    probes = {p["probe"]: p for p in pool_relevance.probe_readings()}
    others = [p for name, p in probes.items() if not name.startswith("en:")]
    assert len(others) == 6 and all((p["reading"], p["outcome"]) == ("on_topic", "debated") for p in others)
    assert probes["en: flat earth, refuted"]["outcome"] == "debated"
    assert (
        probes["en: coffee, no word shared"]["outcome"] == "add documents"
    )  # what lexical reading cannot do
