"""The rules a motion debate's code enforces, without a state machine: who speaks first and the time
knob from vote zero, a statement's words and citations, a fact-checker that quotes its team's notes."""

from __future__ import annotations

from claimcourt.debate.factcheck import WITHHELD, withhold_notes
from claimcourt.models import (
    CitationCheck,
    CitationResponse,
    Evidence,
    FactcheckReply,
    MotionRequest,
    MotionStatement,
    PersonaVote,
    SpeakInput,
)
from claimcourt.motions.crowd import crowd_of, plan, tally
from claimcourt.motions.turns import enforce, statement_problems, words_in

MOTION = "Resolved: social media does more harm than good."


def _zero(n_for: int, n_against: int, n_undecided: int = 0):  # type: ignore[no-untyped-def]
    people = crowd_of(n_for + n_against + n_undecided)
    scores = [70] * n_for + [30] * n_against + [50] * n_undecided
    return tally(
        0, "vote zero", [PersonaVote(persona_id=p.id, score=s) for p, s in zip(people, scores, strict=True)]
    )


def test_the_time_knob_applies_past_its_lean_and_not_at_it() -> None:
    request = MotionRequest(motion=MOTION)
    # 12 of 20 decided is exactly 60 %: not "more than 60 %" (the rounded shares would say 60.02 %)
    at = plan(request, _zero(12, 8, 4))
    assert (at.first, at.knob_applied, at.lean) == ("for", False, 0.6)
    past = plan(request, _zero(13, 8))
    assert (past.knob_applied, past.minority) == (True, "against")
    assert (past.allowance["against"].words, past.allowance["against"].citations) == (313, 4)
    assert (past.allowance["for"].words, past.allowance["for"].citations) == (250, 3)


def test_the_minority_always_gets_more_room_rounded_up() -> None:
    knob = plan(MotionRequest(motion=MOTION, citations=2, words=101), _zero(15, 5))
    assert (knob.allowance["against"].citations, knob.allowance["against"].words) == (3, 127)


def test_a_set_first_speaker_overrides_vote_zero_but_the_knob_still_favours_the_minority() -> None:
    forced = plan(MotionRequest(motion=MOTION, first="for"), _zero(4, 16))
    assert (forced.first, forced.forced, forced.minority) == ("for", True, "for")


def test_a_tie_is_drawn_per_motion_and_seed_and_said_so() -> None:
    draws = {plan(MotionRequest(motion=f"Resolved: motion {i}."), _zero(5, 5)).first for i in range(12)}
    assert draws == {"for", "against"}  # not every tie the same way
    assert plan(MotionRequest(motion=MOTION, seed=3), _zero(5, 5)).tie


def _evidence(i: int) -> Evidence:
    return Evidence(id=f"E{i:06x}", text=f"Passage {i}.", title="T", source_url="https://x", tier="T2",
                    query="q", sub_claim_id="q1", round=1)  # fmt: skip


def _speak(**changes: object) -> SpeakInput:
    base = SpeakInput(
        motion=MOTION, side="for", stance="s", round=2, last_round=4, phase="rounds", speaks="first",
        word_limit=250, citation_limit=2, evidence=[_evidence(i) for i in range(6)], cited_before=["E000000"],
    )  # fmt: skip
    return base.model_copy(update=changes)


def test_a_statement_is_cut_at_its_word_limit_exactly() -> None:
    statement, cuts = enforce(_speak(), MotionStatement(statement=" ".join(["word"] * 600)))
    assert words_in(statement.statement) == 250 and statement.statement.endswith("word…")
    assert cuts == ["cut from 600 to 250 words"]


def test_only_the_allowance_of_new_citations_is_kept_and_the_text_cites_only_what_is_kept() -> None:
    # E000000 the team cited before (free), three new ones for an allowance of two, one outside the pool
    reply = MotionStatement(
        statement="A [E000000]. B [E000001]. C [E000002]. D [E000003]. E [E_nope]. F [E000005].",
        citations=["E000000", "E000001", "E000002", "E000003", "E_nope"],
    )
    statement, cuts = enforce(_speak(), reply)
    assert statement.citations == ["E000000", "E000001", "E000002"]
    assert statement.statement == "A [E000000]. B [E000001]. C [E000002]. D. E. F."
    assert "citation E000003 dropped" in cuts and "[E000005] removed from the statement" in cuts


def test_in_the_closing_nothing_new_is_kept() -> None:
    reply = MotionStatement(statement="Again [E000000], and [E000004].", citations=["E000000", "E000004"])
    statement, _ = enforce(_speak(phase="closing", citation_limit=0), reply)
    assert statement.citations == ["E000000"] and "E000004" not in statement.statement


def test_a_closing_statement_still_reads_once_its_new_citations_are_taken_out() -> None:
    reply = MotionStatement(
        statement="As we showed [E000000], costs fall. The other side will point to [E000004], which is old.",
        citations=["E000000", "E000004"],
    )
    statement, cuts = enforce(_speak(phase="closing", citation_limit=0), reply)
    assert statement.statement == "As we showed [E000000], costs fall."
    assert "[E000004] removed from the statement" in cuts


def test_notes_cite_any_passage_of_the_pool_past_the_allowance_and_nothing_outside_it() -> None:
    # five passages for an allowance of two: the notes are private and count against none; one listed
    # id and one bracketed only (E000004) are kept, an id outside the pool goes from the list and text
    notes = (
        "Held in reserve: [E000001], [E000002] and [E000003] back us; [E000004] is theirs to answer.\n"
        "Their [E00beef] claim is weak. The check on against_1 misread it."
    )
    reply = MotionStatement(
        statement="A [E000001].", citations=["E000001"], notes=notes,
        note_citations=["E000001", "E000002", "E000003", "E00beef", "E000005"],
    )  # fmt: skip
    assert statement_problems(_speak(), reply) == ["the notes cite ids not in the evidence pool: E00beef"]
    statement, cuts = enforce(_speak(), reply)
    assert statement.note_citations == ["E000001", "E000002", "E000003", "E000005", "E000004"]
    assert statement.notes == (
        "Held in reserve: [E000001], [E000002] and [E000003] back us; [E000004] is theirs to answer.\n"
        "Their claim is weak. The check on against_1 misread it."
    )
    assert cuts == ["note citation E00beef dropped"]
    # in the closing the pool shown is the team's own passages: the notes cite only those
    late = MotionStatement(
        statement="Again [E000000].", citations=["E000000"],
        notes="We stand on [E000000]. Also think of [E000003].", note_citations=["E000003"],
    )  # fmt: skip
    closing = _speak(phase="closing", citation_limit=0, evidence=[_evidence(0)])
    assert statement_problems(closing, late) == ["the notes cite ids not in the evidence pool: E000003"]
    kept, cuts = enforce(closing, late)
    assert (kept.notes, kept.note_citations) == ("We stand on [E000000].", ["E000000"])
    assert cuts == ["note citation E000003 dropped"]


def test_a_fact_check_that_quotes_the_teams_notes_is_withheld() -> None:
    notes = ["Press hard on the 2019 survey. Never concede the sample size."]
    reply = FactcheckReply(
        checks=[
            CitationCheck(key="against_1", credibility=5, correspondence=4,
                          comment="As planned: press hard on the 2019 survey."),
            CitationCheck(key="against_2", credibility=7, correspondence=8, comment="A fair source."),
        ],
        responses=[CitationResponse(key="for_1", response="We never concede the sample size.")],
    )  # fmt: skip
    safe = withhold_notes(reply, notes)
    assert [c.comment for c in safe.checks] == [WITHHELD, "A fair source."]
    assert safe.responses[0].response == WITHHELD
    assert withhold_notes(reply, []) == reply
