"""GoldenSource: gold evidence served as an EvidenceSource, and the loaders that build it from data sets."""

from __future__ import annotations

import gzip
import json
from datetime import date
from pathlib import Path
from typing import Any

import claimcourt
from claimcourt.evidence.base import EvidenceSource, Hit
from claimcourt.evidence.corpus import wikipedia_url
from claimcourt.evidence.golden import GoldenSource, averitec_hits, climate_fever_hits

BENCH_DATA = Path(claimcourt.__file__).parent / "bench" / "data"


def _hit(text: str, title: str = "t", published: date | None = None) -> Hit:
    return Hit(text=text, title=title, url=f"https://example.org/{title}", published=published)


SEA_ICE = _hit("Arctic sea ice extent reached a record low in September.", "sea-ice")
POLAR_BEARS = _hit("Polar bear numbers are declining in two of the studied subpopulations.", "bears")
CORALS = _hit("Coral bleaching on the reef was the most widespread ever recorded.", "corals")
HITS = [SEA_ICE, POLAR_BEARS, CORALS]


def test_is_an_evidence_source_named_golden() -> None:
    source: EvidenceSource = GoldenSource(HITS)
    assert source.name == "golden"


def test_hit_sharing_most_query_words_comes_first() -> None:
    hits = GoldenSource(HITS).search("Are polar bear numbers declining?", limit=3)
    assert hits[0] == POLAR_BEARS
    assert set(hits) == set(HITS)


def test_rare_word_match_outranks_common_word_match() -> None:
    common_a = _hit("Climate models agree on warming.", "a")
    common_b = _hit("Climate policy is debated.", "b")
    rare = _hit("Glacier retreat is visible in the Alps.", "c")
    # "climate" is in two of three hits, "glacier" in one: the rarer word is worth more.
    hits = GoldenSource([common_a, common_b, rare]).search("climate glacier", limit=1)
    assert hits == [rare]


def test_equal_scores_keep_the_given_order() -> None:
    first = _hit("Sea level rise is accelerating.", "first")
    second = _hit("Sea level rise threatens coasts.", "second")
    assert GoldenSource([first, second]).search("sea level", limit=2) == [first, second]
    assert GoldenSource([second, first]).search("sea level", limit=2) == [second, first]


def test_returns_at_most_limit_hits() -> None:
    source = GoldenSource(HITS)
    assert len(source.search("reef ice bears", limit=2)) == 2
    assert len(source.search("reef ice bears", limit=10)) == 3
    assert source.search("reef ice bears", limit=0) == []


def test_query_with_no_overlap_still_returns_the_first_hits_in_given_order() -> None:
    source = GoldenSource(HITS)
    assert source.search("volcanic aerosols", limit=2) == [SEA_ICE, POLAR_BEARS]
    assert source.search("the of and", limit=2) == [SEA_ICE, POLAR_BEARS]
    assert source.search("", limit=5) == HITS


def test_hits_published_after_as_of_are_left_out() -> None:
    old = _hit("Coral reef survey from 2016.", "old", published=date(2016, 5, 1))
    same_day = _hit("Coral reef survey on the day.", "same-day", published=date(2020, 1, 1))
    new = _hit("Coral reef survey from 2023.", "new", published=date(2023, 5, 1))
    undated = _hit("Coral reef background.", "undated")
    source = GoldenSource([new, old, same_day, undated])
    assert source.search("coral reef", limit=10, as_of=date(2020, 1, 1)) == [old, same_day, undated]
    assert len(source.search("coral reef", limit=10)) == 4


def test_empty_source_returns_nothing() -> None:
    assert GoldenSource([]).search("anything", limit=5) == []


def test_averitec_answer_becomes_question_and_answer_hit_with_source_host_as_title() -> None:
    record: dict[str, Any] = {
        "questions": [
            {
                "question": "Did 10 million\nfall ill with TB in 2019?",
                "answers": [
                    {
                        "answer": "Yes, about\n10 million people.",
                        "answer_type": "Extractive",
                        "source_url": "https://www.who.int/news-room/fact-sheets/detail/tuberculosis",
                    }
                ],
            }
        ]
    }
    assert averitec_hits(record) == [
        Hit(
            text="Q: Did 10 million fall ill with TB in 2019? A: Yes, about 10 million people.",
            title="www.who.int",
            url="https://www.who.int/news-room/fact-sheets/detail/tuberculosis",
        )
    ]


def test_averitec_boolean_answer_carries_its_explanation() -> None:
    record = {
        "questions": [
            {
                "question": "Was the deadline extended?",
                "answers": [
                    {
                        "answer": "Yes",
                        "answer_type": "Boolean",
                        "source_url": "https://oag.dc.gov/memo.pdf",
                        "boolean_explanation": "The memo extends the deadline to nine days.",
                    }
                ],
            }
        ]
    }
    [hit] = averitec_hits(record)
    assert hit.text == "Q: Was the deadline extended? A: Yes — The memo extends the deadline to nine days."
    assert hit.title == "oag.dc.gov"


def test_averitec_answer_without_source_gets_empty_url_and_generic_title() -> None:
    record = {
        "questions": [
            {
                "question": "Who said it?",
                "answers": [
                    {"answer": "No answer could be found.", "answer_type": "Unanswerable", "source_url": ""}
                ],
            },
            {"question": "When?", "answers": [{"answer": "In 2020.", "answer_type": "Abstractive"}]},
        ]
    }
    hits = averitec_hits(record)
    assert [(hit.url, hit.title) for hit in hits] == [("", "AVeriTeC evidence"), ("", "AVeriTeC evidence")]
    assert all(hit.published is None for hit in hits)


def test_averitec_loader_yields_one_hit_per_answer_of_the_bundled_sample() -> None:
    with gzip.open(BENCH_DATA / "averitec_dev_stratified_100.json.gz", "rt", encoding="utf-8") as f:
        claims = json.load(f)
    for claim in claims:
        answers = [a for q in claim["questions"] for a in q["answers"]]
        hits = averitec_hits(claim)
        assert len(hits) == len(answers)
        assert [hit.url for hit in hits] == [a["source_url"] for a in answers]
        assert all(hit.text.startswith("Q: ") and " A: " in hit.text for hit in hits)


def test_climate_fever_loader_maps_the_five_evidence_sentences_to_wikipedia_hits() -> None:
    with gzip.open(BENCH_DATA / "climate_fever_claims_dev.jsonl.gz", "rt", encoding="utf-8") as f:
        claim = json.loads(next(iter(f)))
    hits = climate_fever_hits(claim)
    assert len(hits) == 5
    for hit, evidence in zip(hits, claim["evidences"], strict=True):
        assert hit.text == evidence["evidence"]
        assert hit.title == evidence["article"]
        assert hit.url == wikipedia_url(evidence["article"])
        assert hit.published is None


def test_climate_fever_article_underscores_become_spaces_in_title_only() -> None:
    claim = {"evidences": [{"article": "Georgia_(U.S._state)", "evidence": "It is humid."}]}
    assert climate_fever_hits(claim) == [
        Hit(
            text="It is humid.",
            title="Georgia (U.S. state)",
            url="https://en.wikipedia.org/wiki/Georgia_(U.S._state)",
        )
    ]


def test_wikipedia_url_quotes_what_wikipedia_quotes() -> None:
    assert wikipedia_url("Polar bear") == "https://en.wikipedia.org/wiki/Polar_bear"
    assert wikipedia_url("Amundsen–Scott South Pole Station") == (
        "https://en.wikipedia.org/wiki/Amundsen%E2%80%93Scott_South_Pole_Station"
    )
    assert (
        wikipedia_url("Who Killed the Electric Car?")
        == "https://en.wikipedia.org/wiki/Who_Killed_the_Electric_Car%3F"
    )
    assert wikipedia_url("Special Report on Global Warming of 1.5 °C").endswith("of_1.5_%C2%B0C")


def test_golden_by_run_gives_each_run_only_its_own_hits_under_its_own_cache_name() -> None:
    from claimcourt.evidence.base import source_for_run
    from claimcourt.evidence.golden import GoldenByRun

    golden = GoldenByRun()
    golden.assign("run_a", [SEA_ICE])
    golden.assign("run_b", [POLAR_BEARS, CORALS])
    a, b = source_for_run(golden, "run_a"), source_for_run(golden, "run_b")
    assert a.search("sea ice", limit=5) == [SEA_ICE]
    assert set(b.search("sea ice", limit=5)) == {POLAR_BEARS, CORALS}
    assert (golden.name, a.name, b.name) == ("golden", "golden:run_a", "golden:run_b")  # cache keys differ
    assert source_for_run(golden, "run_unknown").search("sea ice", limit=5) == []
    assert golden.search("sea ice", limit=5) == []
    plain = GoldenSource(HITS)
    assert source_for_run(plain, "run_a") is plain  # a source that is everyone's
