"""The citation ledger (debate/ledger.py): keys in order of appearance, and each fact-check reply applied
so that no check or response is lost, whichever side spoke first."""

from __future__ import annotations

import pytest

from claimcourt.debate.ledger import build_ledger
from claimcourt.models import (
    Argument,
    CitationCheck,
    CitationResponse,
    Evidence,
    FactcheckReply,
    LedgerEntry,
    Point,
    Side,
)


def _evidence(eid: str) -> Evidence:
    return Evidence(
        id=eid, text=f"passage {eid}", title=f"title {eid}", source_url=f"https://example.org/{eid}",
        tier="T2", query="q", sub_claim_id="sc1", round=1,
    )  # fmt: skip


def _said(side: Side, round: int, *cites: str) -> Argument:
    text = "We rely on " + ", ".join(f"[{c}]" for c in cites) + " for this point."
    point = Point(sub_claim_id="sc1", argument=text, implied_score=50, confidence=0.5, citations=list(cites))
    return Argument(side=side, round=round, points=[point])


def _check(key: str) -> CitationCheck:
    return CitationCheck(key=key, credibility=4, correspondence=3, comment=f"{key} is weak.")


def _answer(key: str) -> CitationResponse:
    return CitationResponse(key=key, response=f"{key} stands.")


POOL = [_evidence(e) for e in ("E01", "E02", "E03", "E04")]


def _by_key(ledger: list[LedgerEntry]) -> dict[str, LedgerEntry]:
    return {e.key: e for e in ledger}


@pytest.mark.parametrize("first", ["for", "against"])
def test_a_motion_teams_defence_is_kept_whichever_team_speaks_first(first: Side) -> None:
    # Given a motion debate of two rounds: each team's checker runs just before its team speaks, so in
    # round 2 the first team's checker checks the second's round-1 citations, and the second team's
    # checker (after the first spoke) answers those checks in the same round
    second: Side = "against" if first == "for" else "for"
    arguments = [_said(first, 1, "E01"), _said(second, 1, "E02"), _said(first, 2, "E03"), _said(second, 2)]
    factchecks: list[tuple[int, Side, FactcheckReply]] = [
        (1, first, FactcheckReply()),  # nothing said yet
        (1, second, FactcheckReply(checks=[_check(f"{first}_1")])),
        (2, first, FactcheckReply(checks=[_check(f"{second}_1")], responses=[_answer(f"{first}_1")])),
        (2, second, FactcheckReply(checks=[_check(f"{first}_2")], responses=[_answer(f"{second}_1")])),
        (3, first, FactcheckReply(responses=[_answer(f"{first}_2")])),
    ]
    # When the ledger is built (the artifacts come back sorted by key: for before against)
    ledger = _by_key(build_ledger(arguments, POOL, sorted(factchecks, key=lambda f: (f[0], f[1] != "for"))))
    # Then every citation was checked, and every response reached its entry, the second team's too
    assert {k: (e.checked_round, e.response) for k, e in ledger.items()} == {
        f"{first}_1": (1, f"{first}_1 stands."),
        f"{second}_1": (2, f"{second}_1 stands."),
        f"{first}_2": (2, f"{first}_2 stands."),
    }


def test_a_response_never_reaches_a_citation_that_was_not_checked() -> None:
    arguments = [_said("for", 1, "E01"), _said("against", 1, "E02")]
    factchecks: list[tuple[int, Side, FactcheckReply]] = [
        (1, "for", FactcheckReply(responses=[_answer("for_1")])),  # nobody checked for_1
        (1, "against", FactcheckReply(responses=[_answer("for_1"), _answer("against_1")])),  # wrong side
    ]
    ledger = _by_key(build_ledger(arguments, POOL, factchecks))
    assert ledger["for_1"].response is None and ledger["against_1"].response is None


def test_the_ledger_quotes_the_sentence_that_makes_the_point_and_abbreviations_do_not_end_one() -> None:
    text = (
        "The U.S. Navy predicted an ice-free summer by 2016 [E01], e.g. in its 2013 briefing. "
        "Dr. Maslowski et al. made the estimate. Also [E02], [E01]."
    )
    point = Point(
        sub_claim_id="sc1", argument=text, implied_score=50, confidence=0.5, citations=["E01", "E02"]
    )
    ledger = _by_key(build_ledger([Argument(side="for", round=1, points=[point])], POOL))
    # the sentence that says most, whole ("U.S." and "e.g." end nothing)
    assert ledger["for_1"].sentence == (
        "The U.S. Navy predicted an ice-free summer by 2016 [E01], e.g. in its 2013 briefing."
    )
    # a list of ids quotes the sentence it backs, with the list
    assert ledger["for_2"].sentence == "Dr. Maslowski et al. made the estimate. Also [E02], [E01]."
