"""A claim debate's neutral fact-checker (debate/factcheck.py): one call a round, every new citation of
both positions listed once by anonymous position, its reply stored in the ledger's keys, nobody answering
it; and what the judge reads of it (the ledger without sentences, comments redacted as nobody's)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from claimcourt.adjudication.adjudicate import adjudicate_task
from claimcourt.adjudication.anonymize import anonymize, debate_so_far, for_the_judge
from claimcourt.debate.factcheck import factcheck, factcheck_task, in_ledger_keys
from claimcourt.debate.ledger import build_ledger
from claimcourt.models import (
    AdjudicateInput,
    Argument,
    CitationCheck,
    CitationResponse,
    Evidence,
    FactcheckInput,
    FactcheckReply,
    LedgerEntry,
    Point,
    SubClaim,
)
from claimcourt.reasoning.base import CallContext
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.store.sqlite import SqliteStore
from tests.fakes.scripted import PRICED_MODEL, ScriptedProvider

RUN = "run_neutral"
SUBS = [SubClaim(id="sc1", text="Arctic sea ice has declined since 1979", directive="arctic sea ice")]


def _evidence(id: str, text: str, url: str, title: str, tier: str) -> Evidence:
    return Evidence.model_validate(
        {"id": id, "text": text, "source_url": url, "title": title, "tier": tier, "round": 1,
         "query": "arctic sea ice", "sub_claim_id": "sc1"}
    )  # fmt: skip


POOL = [
    _evidence("E1", "Satellites show the ice declining since 1979.", "https://a.example", "Sea ice", "T1"),
    _evidence("E2", "One summer had more ice than the last.", "https://b.example", "A blog", "T2"),
    _evidence("E3", "The record is continuous since 1978.", "https://c.example", "Records", "T2"),
]


def _point(text: str, *cited: str) -> Point:
    return Point(sub_claim_id="sc1", argument=text, implied_score=50, confidence=0.5, citations=list(cited))


# The case for cites E1 and E3; the case against cites E2 and (again, its own entry) E1; sides named freely.
FOR_1 = Argument(
    side="for",
    round=1,
    points=[
        _point("Satellites show the decline [E1]. The case-against ignores the record [E3].", "E1", "E3")
    ],
)
AGAINST_1 = Argument(side="against", round=1, points=[
    _point("My opponent overreads [E1]; one summer grew [E2].", "E1", "E2")])  # fmt: skip


def _inputs() -> FactcheckInput:
    """What the stage gives the round's neutral checker: the round's entries as the judge reads them."""
    ledger = build_ledger([FOR_1, AGAINST_1], POOL)
    debate, labels = debate_so_far([FOR_1, AGAINST_1], RUN, None, before=1)
    return FactcheckInput(
        claim="Arctic sea ice has declined",
        round=1,
        to_check=[for_the_judge(e, labels) for e in ledger if e.round == 1],
        sub_claims=SUBS,
        evidence=POOL,
        debate=debate,
        labels=labels,
    )


def _reasoner(provider: Any, tmp_path: Path) -> Reasoner:
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    registry = {"offline": OfflineReasoner(), provider.name: provider}
    return Reasoner(registry, lambda role: (provider.name, PRICED_MODEL), store, 1.0)


def test_every_new_citation_of_both_positions_is_listed_once_by_anonymous_position() -> None:
    inputs = _inputs()
    task = factcheck_task(inputs)
    listed = re.findall(r'<citation key="([AB]_\d+)"', task.prompt)
    # both sides' four entries (E1 cited by each side is two entries), each once, by position
    assert sorted(listed) == sorted(e.key for e in inputs.to_check) and len(listed) == 4
    assert {k[0] for k in listed} == {"A", "B"}
    for label in ("A", "B"):
        block = task.prompt.split(f'<citations_to_check position="{label}">')[1].split(
            "</citations_to_check>"
        )[0]
        assert set(re.findall(r'key="([AB])_', block)) == {label}
    # no side is named: not by key, not by attribute, not by the debaters' words
    everything = task.system + task.prompt
    assert not re.search(r"\b(?:for|against)_\d", everything) and 'side="' not in task.prompt
    assert "case-against" not in task.prompt.lower() and "my opponent" not in task.prompt.lower()
    assert "The other position overreads [E1]" in task.prompt  # redacted as the judge reads it
    # the cited passages are in the shared opening (the pool), not again in the prompt
    assert "<passage>" not in task.prompt and "Satellites show the ice" in "".join(
        s.text for s in task.shared
    )
    assert task.role == "fact_checker" and task.kind == "factcheck" and "Give no responses." in task.system


def test_the_check_names_a_missing_an_unknown_a_repeated_key_and_any_response() -> None:
    inputs = _inputs()
    check = factcheck_task(inputs).check
    assert check is not None
    keys = sorted(e.key for e in inputs.to_check)

    def scored(key: str) -> CitationCheck:
        return CitationCheck(key=key, credibility=5, correspondence=5, comment="ok")

    assert check(FactcheckReply(checks=[scored(k) for k in keys])) == []
    problems = check(
        FactcheckReply(
            checks=[scored(k) for k in keys[1:]] + [scored(keys[1]), scored("for_1")],
            responses=[CitationResponse(key=keys[0], response="Fair.")],
        )
    )
    assert f"no check of {keys[0]}" in problems
    assert "for_1 is not a citation to check" in problems
    assert f"{keys[1]} checked more than once" in problems
    assert f"{keys[0]} is not a check to answer" in problems


def test_the_reply_is_stored_in_the_ledgers_keys_and_reaches_both_sides_entries_unanswered(
    tmp_path: Path,
) -> None:
    inputs = _inputs()
    side_of = {label: side for side, label in inputs.labels.items()}

    def checked(task: Any) -> FactcheckReply:
        return FactcheckReply(
            checks=[
                CitationCheck(
                    key=e.key,
                    credibility=6,
                    correspondence=3 if e.key == "B_1" else 8,
                    comment=f"{e.key} reads it as A_1 does; the case against the claim stretches it.",
                )
                for e in task.inputs.to_check
            ],
            responses=[CitationResponse(key="A_1", response="Not mine to answer.")],
        )

    provider = ScriptedProvider().respond("factcheck", checked)
    reply = factcheck(inputs, _reasoner(provider, tmp_path), CallContext(RUN, "factcheck", 1))
    # a response is a problem the checker is asked once to correct (it answered again: dropped)
    assert len(provider.calls_of("factcheck")) == 2
    # keys, and keys named in the comments, are the ledger's; the response is dropped
    assert sorted(c.key for c in reply.checks) == ["against_1", "against_2", "for_1", "for_2"]
    assert all(f"{side_of['A']}_1 does" in c.comment for c in reply.checks) and reply.responses == []
    # applied to the ledger: every entry of both sides checked in round 1, none answered
    ledger = build_ledger([FOR_1, AGAINST_1], POOL, [(1, None, reply)])
    assert all(e.checked_round == 1 and e.credibility == 6 for e in ledger)
    assert all(e.response is None for e in ledger)
    assert {e.side for e in ledger if e.correspondence == 3} == {side_of["B"]}


def test_a_round_with_no_new_citation_makes_no_call(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    empty = _inputs().model_copy(update={"to_check": []})
    assert (
        factcheck(empty, _reasoner(provider, tmp_path), CallContext(RUN, "factcheck", 2)) == FactcheckReply()
    )
    assert provider.calls_of("factcheck") == []


def test_the_offline_checker_plays_the_neutral_one_deterministically(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "claimcourt.sqlite3")
    offline = Reasoner({"offline": OfflineReasoner()}, lambda role: ("offline", "offline"), store, 1.0)
    first = factcheck(_inputs(), offline, CallContext(RUN, "factcheck", 1))
    again = factcheck(_inputs(), offline, CallContext("run_other", "factcheck", 1))
    assert first == again and sorted(c.key for c in first.checks) == [
        "against_1",
        "against_2",
        "for_1",
        "for_2",
    ]
    assert first.responses == []
    # the user's context and the tiers as before: the T1 passage outranks the blog
    by_key = {c.key: c for c in first.checks}
    assert by_key["for_1"].credibility > by_key["against_2"].credibility


def _judged(positions: list[Any], ledger: list[LedgerEntry]) -> AdjudicateInput:
    return AdjudicateInput(
        claim="c", mode="spectral", sub_claims=SUBS, shape="all", positions=positions, evidence=POOL,
        ledger=ledger,
    )  # fmt: skip


def test_the_judge_reads_each_check_once_without_the_sentence_and_a_neutral_comment_names_no_side() -> None:
    holds = "The case for the claim holds here."
    stretches = "Arguing against the claim, it stretches for_1's passage."
    reply = FactcheckReply(
        checks=[
            CitationCheck(key="for_1", credibility=8, correspondence=9, comment=holds),
            CitationCheck(key="against_1", credibility=8, correspondence=3, comment=stretches),
        ]
    )
    ledger = build_ledger([FOR_1, AGAINST_1], POOL, [(1, None, reply)])
    positions, mapping = anonymize([FOR_1, AGAINST_1], seed=RUN)
    label = {side: name for name, side in mapping.items()}
    judged = [for_the_judge(e, label, neutral=True) for e in ledger]
    comments = " ".join(e.comment or "" for e in judged)
    # redacted as nobody's (a checker of no side has no "this position"), keys relabelled
    assert "case for [a position]" in comments and "Arguing [a position]" in comments
    assert f"{label['for']}_1's passage" in comments and "for_1" not in comments
    prompt = adjudicate_task(_judged(positions, judged)).prompt
    ledger_text = prompt.split("<citation_ledger>")[1].split("</citation_ledger>")[0]
    assert "<sentence>" not in ledger_text and "<response>" not in ledger_text
    assert f'<citation key="{label["for"]}_1" round="1" sub_claim="sc1" evidence="E1"' in ledger_text


def test_a_run_checked_by_each_sides_checker_is_judged_as_it_was_checked() -> None:
    [entry] = [e for e in build_ledger([FOR_1], POOL) if e.evidence_id == "E1"]
    answered = entry.model_copy(
        update={"key": "A_1", "credibility": 8, "correspondence": 9, "comment": "Fine.", "checked_round": 1,
                "response": "Agreed."}
    )  # fmt: skip
    positions, _ = anonymize([FOR_1, AGAINST_1], seed=RUN)
    base = _judged(positions, [answered])
    neutral = adjudicate_task(base).system
    sides = adjudicate_task(base.model_copy(update={"checked_by": "sides"})).system
    assert "a fact-checker who takes neither position's side" in neutral and "answered" not in neutral
    assert "the other position's fact-checker" in sides and "the checked position answered" in sides
    assert "<response>Agreed.</response>" in adjudicate_task(base).prompt  # an old run's answer still shown


def test_keys_written_by_position_become_the_ledgers() -> None:
    assert (
        in_ledger_keys("A_2 and B_10, not BA_1", {"for": "B", "against": "A"})
        == "against_2 and for_10, not BA_1"
    )
    # in either case: a lower-case b_2 is position B's, never (as the motions' a_/b_ keys) a side's
    assert in_ledger_keys("b_2 and a_1", {"for": "B", "against": "A"}) == "for_2 and against_1"


def test_the_judge_s_ledger_reads_the_same_whichever_side_is_position_a() -> None:
    """The ledger lists the side for first; the judge must not read that order (it would tell which
    position argued for the claim): its ledger comes in the debate's order, A (or the first speaker)
    first, whichever side A is."""
    from claimcourt.stages.adjudicate import by_position

    arguments = [FOR_1, AGAINST_1]
    ledger = build_ledger(arguments, POOL)
    seeds = {anonymize(arguments, seed)[1]["A"]: seed for seed in (f"run-{n}" for n in range(40))}
    assert set(seeds) == {"for", "against"}  # both assignments of A occur

    def shown(seed: str, first: Any = None) -> list[tuple[int, str]]:
        _, mapping = anonymize(arguments, seed, first)
        return [(e.round, e.key) for e in by_position(ledger, mapping, neutral=True, first=first)]

    a_is_for, a_is_against = shown(seeds["for"]), shown(seeds["against"])
    assert [k[0] for _, k in a_is_for] == [k[0] for _, k in a_is_against] == ["A", "A", "B", "B"]
    assert a_is_for == a_is_against
    # a debate in turn: the first speaker's position first, as the judge's debate record has it
    _, mapping = anonymize(arguments, seeds["for"], "against")
    opener = {side: label for label, side in mapping.items()}["against"]
    assert next(k for _, k in shown(seeds["for"], "against")).startswith(f"{opener}_")
