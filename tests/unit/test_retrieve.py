"""Retrieval: stable evidence ids, tiers, the query-keyed cache and backtest scrubbing."""

from __future__ import annotations

from datetime import date

import pytest

from claimcourt.evidence.base import Hit
from claimcourt.evidence.golden import GoldenSource
from claimcourt.evidence.retrieve import backtest, evidence_id, lexical_dater, retrieval
from claimcourt.evidence.scrub import scrub
from claimcourt.evidence.tiers import tier_for
from claimcourt.models import DatedSource, Directive, Evidence, HindsightReply, SourceDating
from claimcourt.store.sqlite import SqliteStore

GOV = Hit(
    "Global sea levels are rising about 3.4 mm a year.",
    "NOAA",
    "https://www.noaa.gov/sea-level",
    date(2021, 1, 1),
)
WIKI = Hit(
    "Sea level rise is caused by ocean warming and melting ice.",
    "Sea level rise",
    "https://en.wikipedia.org/wiki/Sea",
)
LATE = Hit(
    "In 2024 sea levels rose faster than ever.", "News", "https://news.example.com/2024", date(2024, 5, 1)
)
HITS = [GOV, WIKI, LATE]


class CountingSource(GoldenSource):
    """A GoldenSource that counts how often it was actually searched."""

    def __init__(self, hits: list[Hit], name: str = "counting") -> None:
        super().__init__(hits)
        self.name = name
        self.searches: list[tuple[str, date | None]] = []

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        self.searches.append((query, as_of))
        return super().search(query, limit=limit, as_of=as_of)


class UnfilteredSource(CountingSource):
    """A source that ignores as_of (as a careless adapter might)."""

    def search(self, query: str, *, limit: int, as_of: date | None = None) -> list[Hit]:
        return super().search(query, limit=limit, as_of=None)


def _run(
    source: CountingSource,
    store: SqliteStore,
    query: str = "sea level rise",
    *,
    round: int = 1,
    as_of: date | None = None,
    sub: str = "sc1",
) -> tuple[list[Evidence], bool]:
    found = retrieval(
        Directive(sub_claim_id=sub, query=query),
        round=round,
        source=source,
        cache=store,
        limit=5,
        as_of=as_of,
        ttl_s=3600,
    )
    return found.evidence, found.cache_hit


def test_evidence_ids_are_stable_and_depend_on_url_and_text() -> None:
    assert evidence_id(GOV) == evidence_id(Hit(GOV.text, "another title", GOV.url))
    assert evidence_id(GOV).startswith("E") and len(evidence_id(GOV)) == 9
    assert evidence_id(GOV) != evidence_id(Hit(GOV.text, GOV.title, "https://elsewhere.org/x"))
    assert evidence_id(GOV) != evidence_id(Hit(GOV.text + "!", GOV.title, GOV.url))


def test_evidence_carries_directive_round_and_tier(store: SqliteStore) -> None:
    found, hit = _run(CountingSource(HITS), store, round=3, sub="sc2")
    assert hit is False
    by_url = {e.source_url: e for e in found}
    assert by_url[GOV.url].tier == "T1"
    assert by_url[WIKI.url].tier == "T2"
    assert {(e.sub_claim_id, e.round, e.query) for e in found} == {("sc2", 3, "sea level rise")}
    assert {e.id for e in found} == {evidence_id(h) for h in HITS}
    assert by_url[GOV.url].published == date(2021, 1, 1)


@pytest.mark.parametrize(
    ("url", "tier"),
    [
        ("https://www.climate.gov/x", "T1"),
        ("https://data.giss.nasa.gov/x", "T1"),
        ("https://www.who.int/news", "T1"),
        ("https://ipcc.ch/report", "T1"),
        ("https://mit.edu/paper", "T1"),
        ("https://en.wikipedia.org/wiki/X", "T2"),
        ("https://notnasa.gov.example.com/x", "T2"),
        ("not a url", "T2"),
    ],
)
def test_tiering(url: str, tier: str) -> None:
    assert tier_for(url) == tier


def test_identical_directive_is_served_from_the_cache(store: SqliteStore) -> None:
    source = CountingSource(HITS)
    first, first_hit = _run(source, store, "Sea level rise")
    # case and spacing do not make a new query
    second, second_hit = _run(source, store, "  sea   LEVEL rise ")
    assert (first_hit, second_hit) == (False, True)
    assert len(source.searches) == 1
    assert [(e.id, e.text, e.tier, e.published) for e in second] == [
        (e.id, e.text, e.tier, e.published) for e in first
    ]


def test_cache_is_shared_across_sub_claims_and_rounds_but_not_across_sources(store: SqliteStore) -> None:
    a, b = CountingSource(HITS, name="source-a"), CountingSource(HITS, name="source-b")
    _run(a, store)
    _, hit_b = _run(b, store)
    _, hit_a = _run(a, store, sub="sc9", round=2)
    assert (hit_b, hit_a) == (False, True)


def test_different_as_of_is_a_different_cache_entry(store: SqliteStore) -> None:
    source = CountingSource(HITS)
    _run(source, store)
    _, hit = _run(source, store, as_of=date(2022, 1, 1))
    assert hit is False
    assert source.searches == [("sea level rise", None), ("sea level rise", date(2022, 1, 1))]
    _, hit_again = _run(source, store, as_of=date(2022, 1, 1))
    assert hit_again is True


def test_as_of_drops_hits_dated_after_it_even_if_the_source_does_not(store: SqliteStore) -> None:
    found, _ = _run(UnfilteredSource(HITS), store, as_of=date(2022, 1, 1))
    # undated hits stay (nothing says they are from the future); the 2024 one goes
    assert {e.source_url for e in found} == {GOV.url, WIKI.url}


def test_as_of_on_the_publication_day_keeps_the_hit(store: SqliteStore) -> None:
    found, _ = _run(UnfilteredSource(HITS), store, as_of=date(2024, 5, 1))
    assert LATE.url in {e.source_url for e in found}


def test_as_of_filter_also_applies_to_cached_hits(store: SqliteStore) -> None:
    source = UnfilteredSource(HITS)
    _run(source, store, as_of=date(2022, 1, 1))
    found, hit = _run(source, store, as_of=date(2022, 1, 1))
    assert hit is True
    assert LATE.url not in {e.source_url for e in found}


def test_duplicate_passages_are_returned_once(store: SqliteStore) -> None:
    copy = Hit(GOV.text, "NOAA mirror title", GOV.url, GOV.published)
    found, _ = _run(CountingSource([GOV, copy, WIKI]), store)
    assert [e.id for e in found].count(evidence_id(GOV)) == 1
    assert len(found) == 2


@pytest.mark.parametrize(
    ("sentence", "as_of", "kept"),
    [
        ("Arctic sea ice extent has declined since 1979.", "2015-01-01", True),
        ("In 2024 satellites measured record lows.", "2015-01-01", False),
        ("The March 2016 maximum was the lowest on record.", "2015-12-31", False),
        ("The March 2016 maximum was the lowest on record.", "2016-03-01", True),  # as of that March
        ("On 5 January 2015 the index was published.", "2015-01-04", False),
        ("On January 5, 2015 the index was published.", "2015-01-05", True),
        ("The value measured on 2014-12-31 was low.", "2015-01-01", True),
        ("The 2020s will be hotter.", "2015-01-01", False),
        ("The trend later reversed.", "2015-01-01", False),
        ("It would go on to become the warmest year.", "2015-01-01", False),
        ("Scientists have since then revised it.", "2015-01-01", False),
        ("ISO 9001 and a population of 2500 are not years.", "2015-01-01", True),
    ],
)
def test_a_backtest_scrubs_sentences_written_after_the_date(sentence: str, as_of: str, kept: bool) -> None:
    assert (scrub(sentence, date.fromisoformat(as_of)) == sentence) is kept


def test_a_backtests_three_layers_keep_only_what_could_be_read_then() -> None:
    as_of = date(2015, 1, 1)
    written_later = Hit(
        "Sea ice has declined since 1979. In 2020 it hit a record low. It later recovered.", "Sea ice", "u1"
    )
    hits = [
        written_later,
        Hit("Everything here is about 2021.", "Sea ice", "u2"),
        Hit("Sea ice declined.", "2016 in review", "u3"),  # titled for a later year
        Hit("Sea ice declined.", "Sea ice", "u4", published=date(2015, 1, 2)),  # published after
        Hit("Sea ice has declined since 1979. It later recovered.", "Sea ice", "u5"),
    ]
    asked: list[list[str]] = []

    def dater(sources: list[DatedSource]) -> tuple[HindsightReply, list[str]]:
        asked.append([s.url for s in sources])
        return lexical_dater(as_of)(sources)

    done = backtest(hits, as_of, dater)
    # The sentence scrub alone kept u1's first sentence; written in 2020 or later, u1 now goes whole.
    # u5's "later" dates nothing: it stays, without that sentence.
    assert [(h.url, h.text) for h in done.kept] == [("u5", "Sea ice has declined since 1979.")]
    assert [(d.url, d.reason) for d in done.hindsight] == [
        ("u1", 'it reports 2020 as past: "In 2020 it hit a record low."'),
        ("u2", 'it names 2021 as past or present, not as a forecast: "Everything here is about 2021."'),
    ]
    # What its date or title left out is not read for its text
    assert asked == [["u1", "u2", "u5"]]
    assert sorted(done.dropped) == sorted(evidence_id(h) for h in hits[:4])
    assert done.judged_by == ["offline"]
    assert set(done.checked.values()) == {"after", "before"} and len(done.checked) == 3


def test_the_hindsight_check_decides_whole_sources_and_the_scrub_still_cuts_sentences() -> None:
    as_of = date(2015, 1, 1)
    undated_tell = Hit("The record low surprised researchers.", "Sea ice", "q")  # only a model could date it
    dated_later = Hit("Sea ice declined. In 2020 it hit a record low.", "Sea ice", "d")

    def model(sources: list[DatedSource]) -> tuple[HindsightReply, list[str]]:
        said = [
            SourceDating(id=s.id, written="after" if s.url == "q" else "before", reason="r") for s in sources
        ]
        return HindsightReply(sources=said), ["scripted:small"]

    done = backtest([undated_tell, dated_later], as_of, model)
    assert [(h.url, h.text) for h in done.kept] == [("d", "Sea ice declined.")]
    assert [d.url for d in done.hindsight] == ["q"] and done.judged_by == ["scripted:small"]


def test_context_becomes_labelled_secondary_passages_split_by_paragraph_and_length() -> None:
    from claimcourt.evidence.retrieve import MAX_CONTEXT_PASSAGES, context_evidence

    long = " ".join(f"Sentence number {i} says something about the sea." for i in range(40))
    passages = context_evidence(f"First paragraph.\n\n  \n{long}")
    assert passages[0].text == "First paragraph."
    assert all(len(p.text) <= 800 for p in passages) and len(passages) > 2
    assert " ".join(p.text for p in passages[1:]) == long
    assert {p.tier for p in passages} == {"T2"} and {p.sub_claim_id for p in passages} == {"context"}
    assert [p.source_url for p in passages[:2]] == ["user-context:1", "user-context:2"]
    assert context_evidence(None) == context_evidence("") == []
    assert len(context_evidence("\n\n".join(f"p{i}" for i in range(50)))) == MAX_CONTEXT_PASSAGES


def test_a_backtests_retrieval_names_the_dated_passages_and_those_dropped_as_after_its_date(
    store: SqliteStore,
) -> None:
    old = Hit("Sea ice declined.", "Sea ice", "https://example.org/old", date(2010, 1, 1))
    titled = Hit(
        "Sea levels rose.", "Sea levels in 2023", "https://example.org/titled"
    )  # undated, titled later
    source = UnfilteredSource([GOV, WIKI, LATE, old, titled])  # it leaves the dating to retrieve
    found = retrieval(
        Directive(sub_claim_id="sc1", query="sea level rise ice"),
        round=1,
        source=source,
        cache=store,
        limit=5,
        as_of=date(2022, 1, 1),
        ttl_s=3600,
    )
    assert {e.source_url for e in found.evidence} == {GOV.url, WIKI.url, old.url}
    assert sorted(found.dated) == sorted(evidence_id(h) for h in (GOV, LATE, old))
    assert sorted(found.dropped) == sorted(evidence_id(h) for h in (LATE, titled))
    assert found.backtested is not None and found.backtested.judged_by == ["offline"]  # no model: lexical
    live = retrieval(
        Directive(sub_claim_id="sc1", query="sea level rise ice"),
        round=1,
        source=source,
        cache=store,
        limit=5,
        as_of=None,
        ttl_s=3600,
    )
    assert len(live.evidence) == 5 and live.dropped == []  # no date: nothing to drop
