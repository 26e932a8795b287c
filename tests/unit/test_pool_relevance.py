"""The pool-relevance check (debate/relevance.py): how a sub-claim's passages are read, what the
user and the roles are told, and when a pool asks for documents instead of a debate."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from claimcourt.debate import relevance
from claimcourt.debate.relevance import (
    ABSENT_ZIPF,
    ADD_DOCUMENTS,
    FIGURE_WEIGHT,
    OFF_TOPIC,
    SIGNALS,
    WEIGHT_BASE,
    Reading,
    SharedWords,
    measure,
    weight,
)
from claimcourt.evidence.retrieve import context_evidence
from claimcourt.models import Evidence, SubClaim

BRAINS = "Humans only use 10 percent of their brains"


def passage(text: str, title: str = "Wikipedia", sub_claim_id: str = "sc1", n: int = 0) -> Evidence:
    return Evidence(
        id=f"E{abs(hash((text, title, n))) % 10**8:08d}",
        text=text,
        title=title,
        source_url="https://en.wikipedia.org/wiki/X",
        tier="T2",
        query="q",
        sub_claim_id=sub_claim_id,
        round=1,
    )


# What the bundled corpus returns for the brains claim (CLIMATE-FEVER's Wikipedia sentences): each
# shares one word with it at most, or a figure and a unit.
OFF_TOPIC_POOL = (
    passage(
        "It is the decrease in pH that signals the brain to breathe faster and deeper, expelling the "
        "excess CO2 and resupplying the cells with O2.",
        "Acid",
    ),
    passage("Climate Change Myths and Realities.", "Ozone depletion"),
    passage(
        "During this period, 19 percent of coral reefs worldwide were lost, and 60 percent of the remaining "
        "reefs are at immediate risk of being lost.",
        "Coral bleaching",
    ),
)
ON_TOPIC = passage(
    "The claim that humans use only ten percent of their brains is a myth: imaging shows activity in "
    "virtually every region of the brain over a day.",
    "Ten percent of the brain myth",
)


def sub(text: str, id: str = "sc1") -> SubClaim:
    return SubClaim(id=id, text=text, directive="q")


def test_words_weigh_by_how_rare_they_are_in_english() -> None:
    assert weight("the") < weight("use") < weight("percent") < weight("brains")
    assert weight("brains") == pytest.approx(WEIGHT_BASE - 4.1)  # wordfreq: Zipf 4.1
    # A word rarer than the list (a name, a term of art) weighs as the rarest; a figure, half as much.
    assert weight("leavitt") == WEIGHT_BASE - ABSENT_ZIPF
    assert weight("2023") == weight("10") == FIGURE_WEIGHT


def test_one_shared_word_is_not_relevance() -> None:
    # Each passage shares "brains", or "percent" and the figure's neighbour, and nothing else.
    reading = SharedWords().read(BRAINS, OFF_TOPIC_POOL)
    assert reading.score < ADD_DOCUMENTS
    assert reading.absent == ("Humans",)  # the rarest words (brains, humans, 10/percent) none holds


def test_a_passage_about_the_sub_claim_reads_on_topic() -> None:
    reading = SharedWords().read(BRAINS, [*OFF_TOPIC_POOL, ON_TOPIC])
    assert reading.score > OFF_TOPIC
    assert reading.closest == ON_TOPIC
    assert reading.shared[0] == "brains"  # rarest first
    assert reading.absent == ()


def test_the_sources_title_counts_with_its_text() -> None:
    # "The Great Barrier Reef can be seen from outer space", titled by its article: the reef and space.
    bare = passage("It can be seen from outer space and is the biggest structure made by living organisms.")
    titled = passage(bare.text, "Great Barrier Reef")
    statement = "The Great Barrier Reef is visible from space"
    assert SharedWords().read(statement, [titled]).score > SharedWords().read(statement, [bare]).score


def test_a_statement_of_one_word_reads_whole() -> None:
    assert SharedWords().read("Vaccines", [passage("Vaccines are safe.")]).score == 1.0
    assert SharedWords().read("Vaccines", [passage("Glaciers retreat.")]).score == 0.0


def test_no_passages_reads_zero() -> None:
    assert SharedWords().read(BRAINS, []) == Reading(0.0, None)


def test_thresholds_stop_below_where_they_warn() -> None:
    # A stop ends a debate; a warning only says so: whatever is stopped is warned first.
    for signal in SIGNALS:
        assert 0 < signal.add_documents < signal.off_topic < 1
    assert (ADD_DOCUMENTS, OFF_TOPIC) == (0.08, 0.14)  # bench/pool_relevance.py chose them (its test)


def test_a_pool_that_speaks_to_nothing_asks_for_documents() -> None:
    measured = measure([sub(BRAINS)], OFF_TOPIC_POOL, source="climate-fever-wikipedia")
    assert measured.add_documents
    (reading,) = measured.sub_claims
    assert reading.reading == "off_topic"
    assert reading.passages == 3
    assert reading.reason == (
        '"Humans" appears in none of its 3 passages; the closest ("Acid") shares only "brains"'
    )
    finding, advice = measured.warnings
    assert finding.startswith("Not enough evidence, and not debated")
    assert BRAINS in finding and reading.reason in finding
    # where the evidence came from, and every way to bring more
    for named in ("Wikipedia", "--context", "--corpus NAME", "ANTHROPIC_API_KEY", "CLAIMCOURT_SEARCH"):
        assert named in advice


def test_one_off_topic_sub_claim_warns_and_the_debate_goes_on() -> None:
    arctic = "Arctic sea ice extent has declined since 1979"
    pool = [
        passage("Arctic sea ice extent has declined steadily since satellite records began in 1979.", n=1),
        *(passage(e.text, e.title, sub_claim_id="sc2") for e in OFF_TOPIC_POOL),
    ]
    measured = measure([sub(arctic), sub(BRAINS, "sc2")], pool)
    assert not measured.add_documents
    assert [s.reading for s in measured.sub_claims] == ["on_topic", "off_topic"]
    (warning,) = measured.warnings
    assert warning.startswith(f'The evidence pool does not speak to sc2 ("{BRAINS}")')
    assert "The debaters and the judge were told" in warning


def test_a_sub_claim_with_no_passage_says_so() -> None:
    measured = measure([sub(BRAINS)], [])
    assert measured.add_documents
    assert measured.sub_claims[0].reading == "no_passages"
    assert "no passage was found for it" in measured.warnings[0]
    assert "the configured evidence source" in measured.warnings[1]  # no source named: said generally


def test_the_users_context_speaks_to_every_sub_claim() -> None:
    context = context_evidence(
        "Brain imaging shows that humans use virtually all of their brains, not 10 percent of them."
    )
    measured = measure([sub(BRAINS)], [*context, *OFF_TOPIC_POOL])
    assert not measured.add_documents
    assert measured.sub_claims[0].reading == "on_topic"
    assert measured.sub_claims[0].closest_evidence_id == context[0].id


class _Reads:
    """A second signal that reads every statement at a fixed score."""

    def __init__(self, score: float) -> None:
        self.name, self.off_topic, self.add_documents, self.score = "fixed", 0.5, 0.3, score

    def read(self, statement: str, passages: Sequence[Evidence]) -> Reading:
        return Reading(self.score, passages[0] if passages else None)


def test_a_second_signal_can_only_make_the_check_more_careful() -> None:
    # It reads the brains pool as relevant: the first signal alone no longer stops or warns.
    both = measure([sub(BRAINS)], OFF_TOPIC_POOL, signals=[SharedWords(), _Reads(0.9)])
    assert not both.add_documents
    assert both.sub_claims[0].reading == "on_topic"
    assert both.sub_claims[0].scores == {"shared_words": pytest.approx(0.0, abs=0.08), "fixed": 0.9}
    # One between its thresholds: a warning, no stop.
    between = measure([sub(BRAINS)], OFF_TOPIC_POOL, signals=[SharedWords(), _Reads(0.4)])
    assert (between.add_documents, between.sub_claims[0].reading) == (False, "off_topic")
    # Both below: stopped, as the first alone would.
    assert measure([sub(BRAINS)], OFF_TOPIC_POOL, signals=[SharedWords(), _Reads(0.1)]).add_documents


def test_the_word_list_loads_once() -> None:
    relevance.zipf_table.cache_clear()
    relevance.weight("brains")
    relevance.weight("humans")
    assert relevance.zipf_table.cache_info().misses == 1
    assert len(relevance.zipf_table()) > 30_000
