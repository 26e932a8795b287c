"""The offline engine end to end (the local state machine, the offline reasoner, the bundled corpus) on
the claims issue 9 named: famous false claims are not supported, a true one is, opinions are stopped."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcourt.bench.climate_fever import Claim, Outcome, run_claims

FAMOUS_FALSE = (
    "The Earth is flat",
    "Global warming stopped in 1998",
    "The Sun is the main cause of recent global warming",
    "Sea levels are falling",
)
TRUE = "Arctic sea ice has declined since 1979"
OPINIONS = ("Climate change is bad", "Carbon taxes are the best climate policy")
# Issue 24: the corpus speaks of the words, not of the claim's place, scope or time.
OTHER_QUALIFIERS = (
    "Antarctic sea ice reached a record low in 2023",  # the corpus: Arctic record lows, 2002-2012
    "The Medieval Warm Period was warmer globally than today",  # the corpus: the North Atlantic
)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    texts = (*FAMOUS_FALSE, TRUE, *OPINIONS, *OTHER_QUALIFIERS)
    claims = [Claim(i, f"c{i}", text, "SUPPORTS") for i, text in enumerate(texts)]
    done, _ = run_claims(claims, Path(tmp_path_factory.mktemp("offline-claims")))
    return {text: o for text, o in zip(texts, done, strict=True)}


@pytest.mark.parametrize("claim", FAMOUS_FALSE[1:])
def test_famous_false_claims_are_not_supported(outcomes: dict[str, Outcome], claim: str) -> None:
    outcome = outcomes[claim]
    assert outcome.status == "succeeded"
    assert outcome.verdict != "supported"
    assert outcome.score is not None and outcome.score < 60


def test_a_claim_the_corpus_says_nothing_of_is_debated_to_not_enough_evidence(
    outcomes: dict[str, Outcome],
) -> None:
    # The climate corpus holds nothing on the Earth's shape, but its passages share "Earth": the pool-
    # relevance check warns and does not stop (a pool that answers a claim in other words shares as
    # little: review finding 1), and the debate finds the pool silent on it.
    outcome = outcomes["The Earth is flat"]
    assert (outcome.status, outcome.verdict) == ("succeeded", "not-enough-evidence")


def test_warming_stopped_and_the_sun_as_main_cause_are_refuted(outcomes: dict[str, Outcome]) -> None:
    assert outcomes["Global warming stopped in 1998"].verdict == "refuted"
    assert outcomes["The Sun is the main cause of recent global warming"].verdict == "refuted"


def test_a_true_claim_the_corpus_states_is_supported(outcomes: dict[str, Outcome]) -> None:
    assert outcomes[TRUE].verdict == "supported"


@pytest.mark.parametrize("claim", OPINIONS)
def test_opinions_are_stopped(outcomes: dict[str, Outcome], claim: str) -> None:
    assert outcomes[claim].status == "stopped"
    assert outcomes[claim].verdict is None


@pytest.mark.parametrize("claim", OTHER_QUALIFIERS)
def test_passages_about_another_place_or_time_do_not_support_a_claim(
    outcomes: dict[str, Outcome], claim: str
) -> None:
    outcome = outcomes[claim]
    assert outcome.status == "succeeded"
    assert outcome.verdict != "supported"
    assert outcome.score is not None and outcome.score < 60
