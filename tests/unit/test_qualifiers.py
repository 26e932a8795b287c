"""The reader matches subjects: a passage about another place, scope or time, or about one half of a
comparison, is no support for a statement, however many of its words it shares (issue 24)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claimcourt.reasoning import embedding, stance_model
from claimcourt.reasoning.qualifiers import differs, other_half, places, times
from claimcourt.reasoning.stance import read
from claimcourt.reasoning.stance_model import judge

ARCTIC_LOWS = (
    "The Arctic sea ice September minimum extent (i.e., area with at least 15% sea ice coverage) reached new "
    "record lows in 2002, 2005, 2007, and 2012."
)
NORTH_ATLANTIC = (
    "The Medieval Warm Period (MWP) also known as the Medieval Climate Optimum, or Medieval Climatic Anomaly "
    "was a time of warm climate in the North Atlantic region lasting from c. 950 to c. 1250."
)


# ---------------------------------------------------------------- the two claims

READERS = [
    "lexical",
    pytest.param(
        "embedding",
        marks=pytest.mark.skipif(not embedding.available(), reason="the embed extra is not installed"),
    ),
]


@pytest.fixture(params=READERS)
def reader(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each shipped reader in turn: the rule decides where support may count, whichever weighs it."""
    stance_model.use(stance_model.shipped(embedded=request.param == "embedding"))
    yield str(request.param)
    stance_model.use(None)


@pytest.mark.usefixtures("reader")
def test_a_passage_about_the_arctic_in_2002_2012_is_no_support_for_antarctica_in_2023() -> None:
    claim = "Antarctic sea ice reached a record low in 2023"
    assert differs(claim, ARCTIC_LOWS, "Climate change in the Arctic") == "place: arctic, not antarctic"
    s = judge(claim, ARCTIC_LOWS, "Climate change in the Arctic")
    assert not s.may_support and s.support == 0.0
    # The same passage still supports what it is about: the rule reads the qualifiers, not the words.
    assert judge("Arctic sea ice reached record lows in 2007", ARCTIC_LOWS).may_support


@pytest.mark.usefixtures("reader")
def test_a_passage_about_the_north_atlantic_is_no_support_for_a_global_comparison() -> None:
    claim = "The Medieval Warm Period was warmer globally than today"
    reason = differs(claim, NORTH_ATLANTIC, "Medieval Warm Period")
    assert reason == "scope: north atlantic, not the whole world"
    assert judge(claim, NORTH_ATLANTIC, "Medieval Warm Period").support == 0.0


# ---------------------------------------------------------------- place and scope, beyond the two


@pytest.mark.parametrize(
    ("statement", "passage"),
    [
        (
            "The Greenland ice sheet is losing mass",
            "The Antarctic ice sheet is losing mass at an accelerating rate.",
        ),
        ("China's coal consumption fell in 2016", "Coal consumption in the United States fell in 2016."),
        (
            "Indian summer monsoon rainfall has declined",
            "Summer monsoon rainfall over Australia has declined.",
        ),
        ("Sea surface temperatures in the South Atlantic are rising", "The North Atlantic is warming fast."),
    ],
)
def test_another_place_is_not_the_statements_place(statement: str, passage: str) -> None:
    reason = differs(statement, passage)
    assert reason is not None and reason.startswith("place:")
    assert read(statement, passage).polarity == 0
    assert not judge(statement, passage).may_support


@pytest.mark.parametrize(
    ("statement", "passage"),
    [
        (
            "Global sea level rose during the 20th century",
            "Sea level in the Baltic Sea rose during the 20th century.",
        ),
        ("Glaciers have retreated worldwide", "Glaciers in the Alps have retreated since 1850."),
        (
            "The planet's temperature has risen",
            "Temperatures in some regions have risen faster than elsewhere.",
        ),
    ],
)
def test_a_region_is_not_the_whole_world(statement: str, passage: str) -> None:
    reason = differs(statement, passage)
    assert reason is not None and reason.startswith("scope:")


@pytest.mark.parametrize(
    ("statement", "passage", "title"),
    [
        # The same place, named otherwise, in part or in the title.
        ("Antarctic sea ice extent has increased", "Sea ice around Antarctica has increased.", ""),
        ("The North Atlantic is warming", "The Atlantic is warming.", ""),
        (
            "Arctic sea ice has declined since 1979",
            "Sea ice extent has declined every decade.",
            "Arctic sea ice decline",
        ),
        # A global statement and a passage that is global too.
        ("Global temperatures are rising", "Worldwide, temperatures are rising.", ""),
        # "Global warming" names a phenomenon, not a scope; a statement with no place has none to differ from.
        ("Global warming is causing sea levels to rise", "Sea levels in the Pacific are rising.", ""),
        ("Sea ice is declining", "Arctic sea ice is declining.", ""),
        # "us" is a pronoun, "US" the country.
        ("US emissions fell in 2019", "Emissions in the United States fell in 2019.", ""),
    ],
)
def test_the_statements_own_place_and_scope_match(statement: str, passage: str, title: str) -> None:
    assert differs(statement, passage, title) is None


def test_places_are_read_by_their_longest_name() -> None:
    named = {p.name for p in places("Warming of the Indian Ocean, South African droughts and us")}
    assert named == {"indian ocean", "south africa"}
    assert {p.name for p in places("The US and the UK")} == {"united states", "united kingdom"}


# ---------------------------------------------------------------- time


def test_times_are_years_decades_centuries_and_spans() -> None:
    assert times("record lows in 2002, 2005 and 2012") == ((2002, 2002), (2005, 2005), (2012, 2012))
    assert times("since the 1990s") == ((1990, 2100),)
    assert times("in the 1990s") == ((1990, 1999),)
    assert times("during the mid-20th century") == ((1900, 1999),)
    assert times("from 1961 to 1990") == times("the 1961–1990 baseline") == ((1961, 1990),)
    assert times("1000 years ago, 1500 km away") == ()


@pytest.mark.parametrize(
    ("statement", "passage", "differ"),
    [
        ("Arctic sea ice hit a record low in 2012", "Arctic sea ice hit a record low in 2007.", True),
        ("Global temperatures fell in the 1970s", "Global temperatures fell in the 1940s.", True),
        ("Arctic sea ice has declined since 1979", "Arctic sea ice extent in 2007 hit a record low.", False),
        ("Global warming stopped in 1998", "Warming continued from 1998 to 2012.", False),
        ("Arctic sea ice hit a record low in 2012", "Arctic sea ice hits record lows.", False),  # undated
    ],
)
def test_another_time_is_not_the_statements_time(statement: str, passage: str, differ: bool) -> None:
    reason = differs(statement, passage)
    assert (reason is not None and reason.startswith("time:")) is differ


# ---------------------------------------------------------------- comparison


def test_the_other_half_of_a_comparison() -> None:
    assert other_half("The Medieval Warm Period was warmer globally than today") == ["today"]
    assert other_half("Wind power is cheaper than coal power in Europe") == ["coal", "power", "europe"]
    # A quantity or a contrast compares nothing.
    assert other_half("More than 97% of climate scientists agree") is None
    assert other_half("Warming is caused by the Sun rather than by carbon dioxide") is None


def test_one_half_of_a_comparison_is_no_support() -> None:
    claim = "The Medieval Warm Period was warmer than today"
    half = "The Medieval Warm Period was a time of warm climate."
    assert differs(claim, half) == "comparison: says nothing of today"
    assert judge(claim, half).support == 0.0
    both = "Temperatures during the Medieval Warm Period were higher than those of today."
    assert differs(claim, both) is None
    # The 20th century is "today" for a comparison with the past; a cooler past refutes, as before.
    cooler = (
        "The Earth may have been slightly cooler during the Medieval Warm Period than in the 20th century."
    )
    assert differs(claim, cooler) is None
    assert read(claim, cooler).polarity == -1
