"""The lexical stance model: relevance, and polarity from scoped negation, antonyms and minimisers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from claimcourt.reasoning.offline import RELEVANT
from claimcourt.reasoning.stance import Stance, content_stems, key_terms, stance

SEA = "Sea levels are rising"


def polarity(statement: str, passage: str) -> int:
    return stance(statement, passage).polarity


def test_agreement_is_the_default() -> None:
    result = stance(SEA, "Tide gauges confirm that sea levels are rising along most coasts.")
    assert result.polarity == 1
    assert result.relevance >= 0.8


@pytest.mark.parametrize(
    "passage",
    [
        "Sea levels are not rising.",
        "Sea levels have never been rising this century.",
        "Sea levels aren't rising, the old records say.",
        "Sea levels isn’t rising",  # typographic apostrophe
    ],
)
def test_negation_in_the_passage_flips_polarity(passage: str) -> None:
    assert polarity(SEA, passage) == -1


def test_negation_in_the_statement_flips_polarity() -> None:
    assert polarity("Sea levels are not rising", "Global sea levels are rising, satellites show.") == -1


def test_two_negations_cancel() -> None:
    assert polarity("Sea levels are not rising", "Sea levels are not rising, the survey found.") == 1


def test_negation_about_something_else_flips_nothing() -> None:
    # "not" governs what follows it in its clause: the gauges, not the sea level.
    passage = "Sea levels are rising, measured where tide gauges were not yet installed by satellites."
    assert polarity(SEA, passage) == 1


def test_negation_inside_a_condition_flips_nothing() -> None:
    statement = "If we do nothing, emissions will keep rising"
    assert polarity(statement, "Emissions will keep rising this decade.") == 1


def test_not_only_is_no_negation() -> None:
    assert polarity(SEA, "Sea levels are not only rising but accelerating.") == 1


@pytest.mark.parametrize(
    ("statement", "passage"),
    [
        ("Arctic sea ice is increasing", "Arctic sea ice is decreasing."),
        ("Arctic sea ice has increased", "Arctic sea ice has declined for decades."),  # inflected forms
        ("Glaciers are advancing", "Glaciers are retreating worldwide."),
        (
            "Ocean level remains the same",
            "The melting of floating ice raises the ocean level.",
        ),  # stasis/change
    ],
)
def test_antonym_swap_flips_polarity(statement: str, passage: str) -> None:
    assert polarity(statement, passage) == -1


def test_antonym_and_negation_cancel() -> None:
    assert polarity("Arctic sea ice is not increasing", "Arctic sea ice is decreasing.") == 1


def test_a_clause_with_both_directions_states_neither() -> None:
    passage = "Of the polar bear subpopulations, one is in decline and two are increasing."
    assert polarity("Polar bear subpopulations are increasing", passage) == 0
    tides = "Tides, the generally twice-daily rise and fall of sea levels, are caused by the Moon."
    assert polarity("Sea levels are falling", tides) == 0


@pytest.mark.parametrize("word", ["hoax", "myth", "fraud", "scam", "debunked"])
def test_hoax_and_myth_words_act_as_negators(word: str) -> None:
    assert polarity("Global warming is real", f"Global warming is a {word}.") == -1
    assert polarity(f"Global warming is a {word}", "Global warming is real and measured.") == -1
    # Denied on both sides, the two agree.
    assert polarity(f"Global warming is a {word}", f"Global warming is a {word}, he said.") == 1


def test_minimiser_on_one_side_only_flips_polarity() -> None:
    statement = "Human emissions are only a tiny fraction of carbon dioxide emissions"
    assert polarity(statement, "Human emissions are a growing fraction of carbon dioxide emissions.") == -1
    assert polarity(statement, "Human emissions are a tiny fraction of carbon dioxide emissions.") == 1


def test_irrelevant_passage_has_low_relevance() -> None:
    result = stance(SEA, "Bananas are a popular yellow fruit grown in the tropics.")
    assert result.relevance == 0.0
    assert result.relevance < RELEVANT
    partial = stance("Polar bear populations are growing", "Bears hibernate through the winter.")
    assert (
        partial.relevance < stance("Polar bear populations are growing", "Polar bear numbers grew.").relevance
    )


def test_empty_or_stopword_text_is_irrelevant() -> None:
    assert stance("", "Sea levels are rising") == Stance(0.0, 1)
    assert stance(SEA, "it is what it is") == Stance(0.0, 1)


def test_other_figures_and_hedges_lower_relevance() -> None:
    statement = "Sea levels rose 20 cm since 1900"
    same = stance(statement, "Sea levels rose 20 cm since 1900, tide gauges show.").relevance
    other = stance(statement, "Sea levels rose 15 cm since 1880, tide gauges show.").relevance
    assert other < same
    plain = stance(SEA, "Sea levels are rising quickly.").relevance
    hedged = stance(SEA, "Sea levels may be rising quickly.").relevance
    assert hedged < plain


def test_strength_is_signed_relevance() -> None:
    result = stance(SEA, "Sea levels are not rising.")
    assert result.strength == -result.relevance


def test_content_stems_and_key_terms() -> None:
    assert content_stems("The sea levels are not rising") == ["sea", "level", "ris"]
    assert content_stems("increase increased increasing") == ["increas"] * 3
    assert key_terms("The warming and the warmer world are warming", 5) == ["warming", "warmer", "world"]


CASES = [
    (SEA, "Sea levels are not rising."),
    ("Global warming is a hoax", "Global warming is real and measured."),
    ("Arctic sea ice is increasing", "Arctic sea ice is decreasing, though not everywhere."),
    ("Human CO2 is a tiny fraction of emissions", "Human emissions are 40% of the total, not a tiny share."),
]


def test_deterministic_within_and_across_processes() -> None:
    here = [stance(s, p) for s, p in CASES]
    assert here == [stance(s, p) for s, p in CASES]
    # Sets of strings iterate in a per-process order: the result must not depend on it.
    script = (
        "import json, sys; from claimcourt.reasoning.stance import stance; "
        "cases = json.loads(sys.argv[1]); "
        "print(json.dumps([[r.relevance, r.polarity] for r in (stance(s, p) for s, p in cases)]))"
    )
    root = Path(__file__).resolve().parents[2]
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root / "layers" / "core")}
        out = subprocess.run(
            [sys.executable, "-c", script, json.dumps(CASES)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(out.stdout) == [[r.relevance, r.polarity] for r in here]
