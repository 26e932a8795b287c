"""The pool-relevance check (debate/relevance.py): how a sub-claim's passages are read, in any script,
what the user and the roles are told, and when a pool asks for documents instead of a debate (only when
it shares no word with any sub-claim: a pool that refutes in other words is debated)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from claimcourt.debate import relevance
from claimcourt.debate.relevance import (
    ABSENT_ZIPF,
    FIGURE_WEIGHT,
    OFF_TOPIC,
    SIGNALS,
    WEIGHT_BASE,
    Reading,
    SharedWords,
    key_words,
    measure,
    weight,
    written_words,
)
from claimcourt.evidence.retrieve import context_evidence
from claimcourt.models import Evidence, SubClaim

BRAINS = "Humans only use 10 percent of their brains"
VACCINES = "Vaccines cause autism"  # the pools below share no word with it


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
    assert reading.score is not None and reading.score < 0.08
    assert reading.absent == ("Humans",)  # the rarest words (brains, humans, 10/percent) none holds
    assert not reading.silent  # but a word is shared: not a pool that speaks to nothing


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


def test_no_passages_reads_zero_and_silent() -> None:
    assert SharedWords().read(BRAINS, []) == Reading(0.0, None, silent=True)


def test_the_warning_threshold_is_the_benchs_choice() -> None:
    for signal in SIGNALS:
        assert 0 < signal.off_topic < 1
    assert OFF_TOPIC == 0.14  # bench/pool_relevance.py chose it (its test)


def test_a_pool_that_shares_no_word_with_the_claim_asks_for_documents() -> None:
    measured = measure([sub(VACCINES)], OFF_TOPIC_POOL, source="climate-fever-wikipedia")
    assert measured.add_documents
    (reading,) = measured.sub_claims
    assert reading.reading == "off_topic"
    assert reading.passages == 3
    assert reading.reason == (
        '"Vaccines", "autism" and "cause" appear in none of its 3 passages; none shares a word of it'
    )
    finding, advice = measured.warnings
    assert finding.startswith("Not enough evidence, and not debated")
    assert VACCINES in finding and reading.reason in finding
    # where the evidence came from, and every way to bring more
    for named in ("Wikipedia", "--context", "--corpus NAME", "ANTHROPIC_API_KEY", "CLAIMCOURT_SEARCH"):
        assert named in advice


def test_a_pool_that_shares_a_word_but_little_more_is_warned_of_and_debated() -> None:
    """Each passage shares one word with the claim ("brains", "percent"): it reads off topic, below where
    a stop once was (0.08), and is debated with the warning; only silence stops."""
    measured = measure([sub(BRAINS)], OFF_TOPIC_POOL, source="climate-fever-wikipedia")
    assert not measured.add_documents
    (reading,) = measured.sub_claims
    assert reading.reading == "off_topic" and reading.scores["shared_words"] < 0.08
    assert reading.reason == (
        '"Humans" appears in none of its 3 passages; the closest ("Acid") shares only "brains"'
    )
    (warning,) = measured.warnings
    assert warning.startswith(f'The evidence pool does not speak to sc1 ("{BRAINS}")')


@pytest.mark.parametrize(
    ("claim", "refuted_by"),
    [
        (
            "The Earth is flat.",
            [
                passage(
                    "Satellite imagery and circumnavigation show that the planet is an oblate spheroid.",
                    "Figure of the Earth",
                ),
                passage("Eratosthenes measured the circumference of the globe around 240 BC using shadows."),
            ],
        ),
        (
            "Humans evolved from chimpanzees.",
            [
                passage(
                    "Humans and chimpanzees share a common ancestor that lived roughly six to seven "
                    "million years ago.",
                    "Human evolution",
                )
            ],
        ),
    ],
)
def test_a_pool_that_refutes_the_claim_in_other_words_is_debated(
    claim: str, refuted_by: list[Evidence]
) -> None:
    """Review finding 1: "The Earth is flat" against "the planet is an oblate spheroid" read 0.0 and was
    stopped as not enough evidence, though the pool answers it."""
    measured = measure([sub(claim)], refuted_by)
    assert not measured.add_documents


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
    assert "Every role that read the pool was told" in warning


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
    """A second signal that reads every statement at a fixed score, silent below 0.3."""

    def __init__(self, score: float) -> None:
        self.name, self.off_topic, self.score = "fixed", 0.5, score

    def read(self, statement: str, passages: Sequence[Evidence]) -> Reading:
        return Reading(self.score, passages[0] if passages else None, silent=self.score < 0.3)


def test_a_second_signal_can_only_make_the_check_more_careful() -> None:
    # It reads the vaccines pool as relevant: the first signal alone no longer stops or warns.
    both = measure([sub(VACCINES)], OFF_TOPIC_POOL, signals=[SharedWords(), _Reads(0.9)])
    assert not both.add_documents
    assert both.sub_claims[0].reading == "on_topic"
    assert both.sub_claims[0].scores == {"shared_words": 0.0, "fixed": 0.9}
    # One below its warning but not silent: a warning, no stop.
    between = measure([sub(VACCINES)], OFF_TOPIC_POOL, signals=[SharedWords(), _Reads(0.4)])
    assert (between.add_documents, between.sub_claims[0].reading) == (False, "off_topic")
    # Both silent: stopped, as the first alone would.
    assert measure([sub(VACCINES)], OFF_TOPIC_POOL, signals=[SharedWords(), _Reads(0.1)]).add_documents


# ---------------------------------------------------------------- any script (review finding 1)


def test_words_are_unicodes_in_any_script_and_unspaced_scripts_read_in_pairs() -> None:
    assert list(written_words("Вакцины не вызывают аутизм.")) == ["Вакцины", "не", "вызывают", "аутизм"]
    assert list(written_words("हिन्दी भाषा")) == ["हिन्दी", "भाषा"]  # its vowel signs stay in the word
    assert list(written_words("疫苗不会")) == ["疫苗", "苗不", "不会"]
    assert list(written_words("NSIDC的数据")) == ["NSIDC", "的数", "数据"]  # the scripts part
    assert list(written_words("ไม่มี")) == ["ไม่", "ม่มี"]  # graphemes ไ ม่ มี: a tone mark stays on its consonant
    assert list(written_words("L'étendue d'environ, the Earth's")) == ["étendue", "environ", "the", "Earth's"]
    assert key_words("Die Straße ist nass").keys() == key_words("DIE STRASSE IST NASS").keys()  # casefolded


@pytest.mark.parametrize(
    ("claim", "stating_it", "about_else"),
    [
        (
            "Вакцины не вызывают аутизм.",
            "Крупные исследования показали, что вакцины не вызывают аутизм у детей.",
            "Площадь арктического морского льда сократилась с 1979 года.",
        ),
        ("疫苗不会导致自闭症。", "大型研究表明，疫苗不会导致儿童自闭症。", "北极海冰面积减少了。"),
        (
            "Τα εμβόλια δεν προκαλούν αυτισμό.",
            "Μεγάλες μελέτες έδειξαν ότι τα εμβόλια δεν προκαλούν αυτισμό στα παιδιά.",
            "Ο αρκτικός θαλάσσιος πάγος μειώνεται.",
        ),
        (
            "北極の海氷面積は減少している。",
            "北極の海氷面積は1979年以降、10年あたり約13%減少している。",
            "ワクチンは安全である。",
        ),
        (
            "आर्कटिक समुद्री बर्फ का विस्तार घटा है।",
            "NSIDC के अनुसार आर्कटिक समुद्री बर्फ का विस्तार हर दशक घटा है।",
            "टीके सुरक्षित हैं।",
        ),
    ],
    ids=["ru", "zh", "el", "ja", "hi"],
)
def test_a_claim_in_another_script_is_read_by_its_words(claim: str, stating_it: str, about_else: str) -> None:
    """Review finding 1: only ASCII letters were words, so every such claim read 0 and was stopped as
    not enough evidence, even against a passage stating it word for word. It is measured as English is:
    on topic against a passage that states it; stopped against one that shares no word with it."""
    stated = measure([sub(claim)], [passage(stating_it, "")])
    assert (stated.add_documents, stated.sub_claims[0].reading) == (False, "on_topic")
    assert stated.sub_claims[0].scores["shared_words"] > OFF_TOPIC
    elsewhere = measure([sub(claim)], [passage(about_else, "")])
    assert elsewhere.add_documents and elsewhere.sub_claims[0].reading == "off_topic"


def test_a_statement_with_no_word_the_check_reads_is_unmeasured_and_never_stops() -> None:
    measured = measure([sub("Is it not so?")], OFF_TOPIC_POOL)
    assert not measured.add_documents and measured.warnings == []
    (reading,) = measured.sub_claims
    assert (reading.reading, reading.scores) == ("unmeasured", {})
    assert "not measured" in reading.reason
    assert measured.off_topic() == []  # nor is it said to the roles
    # Beside a sub-claim the pool is silent on, it still keeps the debate going
    assert not measure([sub("Is it not so?"), sub(VACCINES, "sc2")], OFF_TOPIC_POOL).add_documents


def test_the_word_list_loads_once() -> None:
    relevance.zipf_table.cache_clear()
    relevance.weight("brains")
    relevance.weight("humans")
    assert relevance.zipf_table.cache_info().misses == 1
    assert len(relevance.zipf_table()) > 30_000
