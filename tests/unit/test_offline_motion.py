"""The offline reasoner's motion debaters and judge: two teams reading the same pool argue their own sides
in their own words, and the judge's frontier never pits a term against itself (issue 24: "whether Earth
outweighs Earth", word-identical statements from both teams)."""

from __future__ import annotations

import re

from claimcourt.models import CartographInput, Evidence, LedgerEntry, PublicStatement, Side, SpeakInput
from claimcourt.reasoning.offline_motion import cartograph, proposition, speak

MOTION = "Resolved: Arctic sea ice has declined since 1979."


def _evidence(n: int, text: str, title: str) -> Evidence:
    return Evidence(
        id=f"E{n:07x}",
        text=text,
        title=title,
        source_url=f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}",
        tier="T2",
        query="arctic sea ice",
        sub_claim_id="motion",
        round=1,
    )


POOL = [
    _evidence(
        1, "Arctic sea ice has declined sharply since 1979, satellite records show.", "Arctic sea ice decline"
    ),
    _evidence(2, "Arctic sea ice extent has declined every decade since 1979.", "Arctic sea ice decline"),
    _evidence(
        3, "Arctic sea ice has not declined since 1979, one early study claimed.", "Arctic sea ice decline"
    ),
    _evidence(4, "Antarctic sea ice grew between 1979 and 2014.", "Antarctic sea ice"),
    _evidence(5, "Polar bears hunt seals from the sea ice.", "Polar bear"),
]


def _speak(side: Side, statements: list[PublicStatement], round: int = 1) -> PublicStatement:
    phase = "opening" if round == 1 else "rounds"
    made = speak(
        SpeakInput(
            motion=MOTION,
            side=side,
            stance=f"{side} the motion",
            round=round,
            last_round=4,
            phase=phase,
            speaks="first" if not statements or statements[-1].round < round else "second",
            word_limit=250,
            citation_limit=3,
            evidence=POOL,
            cited_before=[c for s in statements if s.side == side for c in s.citations],
            statements=statements,
        )
    )
    return PublicStatement(
        side=side, round=round, phase=phase, statement=made.statement, citations=made.citations
    )


def _sentences(text: str) -> set[str]:
    bare = re.sub(r"\s*\[[^\]]+\]", "", text)
    return {s.strip() for s in re.split(r"(?<=[.!?])\s+", bare) if s.strip()}


def test_the_motions_proposition_is_read_without_its_preamble() -> None:
    assert proposition(MOTION) == "Arctic sea ice has declined since 1979"
    assert proposition("This house believes that nuclear power is safe.") == "that nuclear power is safe"


def test_two_teams_reading_one_pool_cite_their_own_passages_in_their_own_words() -> None:
    first = _speak("for", [])
    second = _speak("against", [first])
    assert first.citations and second.citations
    assert not set(first.citations) & set(second.citations)
    # Each cites the passages that back its side: the statements of the decline for, the denial against.
    assert {"E0000001", "E0000002"} <= set(first.citations)
    assert "E0000003" in second.citations and "E0000001" not in second.citations
    # Not one sentence in common, whatever the passages.
    assert not _sentences(first.statement) & _sentences(second.statement)


def test_a_team_answers_the_other_teams_passages_by_what_they_do_not_show() -> None:
    against = PublicStatement(
        side="against", round=1, phase="opening", statement="Antarctic ice grew.", citations=["E0000004"]
    )
    reply = _speak("for", [against])
    # The Antarctic passage is about another place than the motion's Arctic.
    assert 'Their "Antarctic sea ice" speaks of another place (antarctic, not arctic).' in reply.statement


def test_a_team_the_pool_does_not_back_says_so_and_borrows_nothing() -> None:
    # Only passages for the motion: the team against cites none of them, and says why.
    pool_for = POOL[:2]
    made = speak(
        SpeakInput(
            motion=MOTION,
            side="against",
            stance="against the motion",
            round=1,
            last_round=4,
            phase="opening",
            speaks="first",
            word_limit=250,
            citation_limit=3,
            evidence=pool_for,
        )
    )
    assert made.citations == []
    assert "No passage in the pool states the opposite" in made.statement


def _entry(side: Side, key: str, evidence_id: str, title: str, passage: str) -> LedgerEntry:
    return LedgerEntry(
        key=key,
        side=side,
        evidence_id=evidence_id,
        source_url="https://en.wikipedia.org/wiki/Earth",
        title=title,
        tier="T2",
        round=1,
        sub_claim_id="motion",
        sentence=f"{passage} [{evidence_id}].",
        passage=passage,
        correspondence=7,
    )


def _map(ledger: list[LedgerEntry]) -> CartographInput:
    return CartographInput(
        motion="Resolved: the Earth is warming.",
        round=1,
        last_round=4,
        phase="opening",
        final=False,
        statements=[
            PublicStatement(
                side="for", round=1, phase="opening", statement="…", citations=[ledger[0].evidence_id]
            ),
            PublicStatement(
                side="against", round=1, phase="opening", statement="…", citations=[ledger[1].evidence_id]
            ),
        ],
        ledger=ledger,
    )


def test_the_frontier_never_pits_a_title_against_itself() -> None:
    ledger = [
        _entry("for", "for_1", "E1", "Earth", "The Earth's surface temperature has risen since 1880."),
        _entry(
            "against",
            "against_1",
            "E2",
            "Earth",
            "The Earth's orbit changes over tens of thousands of years.",
        ),
    ]
    (issue,) = cartograph(_map(ledger)).disagreement_frontier
    assert issue.core_issue != "whether Earth outweighs Earth"
    pro, con = issue.core_issue.removeprefix("whether ").split(" outweighs ")
    assert pro != con
    assert pro == "Earth on surface temperature risen" and con == "Earth on orbit changes tens"


def test_one_passage_cited_by_both_teams_is_agreement_not_a_dispute() -> None:
    shared = "The Earth's surface temperature has risen since 1880."
    ledger = [
        _entry("for", "for_1", "E1", "Earth", shared),
        _entry("against", "against_1", "E1", "Earth", shared),
    ]
    mapped = cartograph(_map(ledger))
    assert mapped.disagreement_frontier == []
    assert mapped.consensus == ["Both teams rely on Earth [E1]."]
