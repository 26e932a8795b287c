"""Issue 23's findings, each pinned on played data: what a real model's prose did to the debate when it
was first played through, and what each mechanism does with that prose now. Each test names its finding.
The replies are the played corpus's (claimcourt.bench.played), replayed on the Anthropic SDK path (the
OpenAI path's own findings are checked on it); test_played.py checks every run's declared expectations
on both paths."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from claimcourt.adjudication.anonymize import anonymize, redact
from claimcourt.bench.played import Replay, play
from claimcourt.bench.played_corpus import ProviderPath, corpus_files, load
from claimcourt.debate.control import FAR_APART, STABLE_SHIFT
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.models import RoundAction, RunStatus

pytestmark = pytest.mark.timeout(300)

CORPUS = {f.stem: f for f in corpus_files()}
CLAIM_RUNS = sorted(name for name, f in CORPUS.items() if load(f).kind == "claim")
Replayed = Callable[[str, ProviderPath], Replay]

# What the old round controller needed before it called a debate converged: a side's rounds alike by
# this much (TF-IDF cosine). Played prose never comes near it: a careful debater does not repeat itself.
OLD_SIMILARITY_BAR = 0.85


@pytest.fixture(scope="module")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    evidence = CorpusSource(index_dir=tmp_path_factory.mktemp("index"))
    evidence.warm()
    done: dict[tuple[str, ProviderPath], Replay] = {}
    lock = threading.Lock()

    def get(name: str, path: ProviderPath = "anthropic") -> Replay:
        with lock:
            if (name, path) not in done:
                done[(name, path)] = play(
                    load(CORPUS[name]), path, evidence, tmp_path_factory.mktemp("played")
                )
            return done[(name, path)]

    return get


def _prompts(replay: Replay, kind: str) -> list[str]:
    """The full text (system, then user) of every request of one kind, as the server received it."""
    return [
        f"{s.prompt.system}\n{s.prompt.user}"
        for s in replay.requests
        if s.key and s.key.split(":")[0] == kind
    ]


# ------------------------------------------------------------------ 1. the round controller


def test_finding_1_a_converged_played_debate_stops_and_one_far_apart_escalates_whatever_its_wording(
    replayed: Replayed,
) -> None:
    converged = replayed("converge-glaciers", "anthropic")
    stop = next(d for d in converged.decisions if d.round == 2)
    # The played sides' rounds are far less alike than the old wording test required...
    assert stop.signals is not None
    for similarity in (stop.signals.similarity_for, stop.signals.similarity_against):
        assert similarity is not None and similarity < OLD_SIMILARITY_BAR
    # ...and still the controller calls round 2 converged, on what moved: nothing beyond STABLE_SHIFT
    assert stop.controller_action == RoundAction.STOP_CONVERGED
    assert stop.signals.score_shift is not None and stop.signals.score_shift <= STABLE_SHIFT

    apart = replayed("apart-kilimanjaro", "anthropic")
    actions = [d.controller_action for d in apart.decisions]
    # Sides that stay FAR_APART are escalated to a fresh persona once, then stopped as a stalemate
    assert actions.count(RoundAction.ESCALATE_NEW_PERSONA) == 1
    escalated = next(d for d in apart.decisions if d.controller_action == RoundAction.ESCALATE_NEW_PERSONA)
    assert escalated.signals is not None and escalated.signals.score_gap >= FAR_APART
    assert apart.decisions[-1].controller_action == RoundAction.STOP_CONVERGED
    assert "stalemate" in apart.decisions[-1].controller_rule + apart.decisions[-1].rule


# ------------------------------------------------------------------ 2. the closing round


def test_finding_2_the_closing_round_may_cite_what_was_retrieved_for_it(replayed: Replayed) -> None:
    """The closing round is shown new passages and may cite them: a side that moved more than 10 points
    there did it on a passage new that round, which the old rule forbade."""
    moved_on_new = False
    for name in CLAIM_RUNS:
        replay = replayed(name, "anthropic")
        last = max((a.round for a in replay.arguments), default=0)
        if last < 2:
            continue
        closing = [s for s in replay.requests if s.key and s.key.startswith(f"argue:{last}:")]
        for served in closing:
            new = re.search(r"^New this round: (.+)$", served.prompt.user, re.MULTILINE)
            side = served.key.split(":")[2] if served.key else ""
            argument = next(a for a in replay.arguments if a.round == last and a.side == side)
            cited = {c for p in argument.points for c in p.citations}
            if new and cited & set(new.group(1).split(", ")):
                moved_on_new = True
    assert moved_on_new, "no played closing round cites a passage retrieved for it"


# ------------------------------------------------------------------ 3. the score record


@pytest.mark.parametrize("name", CLAIM_RUNS)
def test_finding_3_the_record_keeps_the_judges_numbers_and_every_adjustment_says_before_and_after(
    replayed: Replayed, name: str
) -> None:
    result = replayed(name, "anthropic").result
    if result is None:
        pytest.skip(f"{name} ends without a result")
    assert result.judge_score is not None and result.judge_interval is not None
    assert result.judge_interval.low <= result.judge_score <= result.judge_interval.high
    for adjustment in result.adjustments:
        assert adjustment.before is not None and adjustment.after is not None, adjustment
        if adjustment.target == "interval":
            assert adjustment.before_interval is not None and adjustment.after_interval is not None
            assert adjustment.before == adjustment.before_interval.high - adjustment.before_interval.low
            assert adjustment.after == adjustment.after_interval.high - adjustment.after_interval.low


def test_finding_3_a_pull_the_judge_did_not_make_is_not_blamed_on_the_judge(replayed: Replayed) -> None:
    """The run resting on the user's context: the judge followed the composition rule; the move from its
    score is the evidence-quality pull, and the record says so."""
    result = replayed("user-context-harbour-gauge", "anthropic").result
    assert result is not None
    kinds = [a.kind for a in result.adjustments if a.target == "overall"]
    assert "evidence_quality" in kinds
    assert "composition" not in kinds and "judge_departure" not in kinds


# ------------------------------------------------------------------ 4. the user's context


def test_finding_4_the_users_context_is_discounted_once_and_a_verdict_resting_on_it_says_so(
    replayed: Replayed,
) -> None:
    replay = replayed("user-context-harbour-gauge", "anthropic")
    result = replay.result
    assert result is not None
    # The judge weighs it as any T2 passage and is told not to discount it again...
    (judge,) = _prompts(replay, "adjudicate")
    assert "user-context:" in judge and "do not discount it again for being theirs" in judge
    # ...because the score stage's user_context_only finding is the one discount: one pull of the score,
    # one widening of the interval, each named
    overall = [a for a in result.adjustments if a.target == "overall" and a.kind == "evidence_quality"]
    assert len(overall) == 1 and "user_context_only" in overall[0].detail
    widened = [a for a in result.adjustments if a.target == "interval" and "user_context_only" in a.detail]
    assert len(widened) == 1
    assert any("your own material" in w for w in result.warnings)


# ------------------------------------------------------------------ 5. dates


@pytest.mark.parametrize("name", CLAIM_RUNS)
def test_finding_5_every_role_that_reasons_about_time_knows_today_and_the_pools_dates(
    replayed: Replayed, name: str
) -> None:
    replay = replayed(name, "anthropic")
    today = f"Today is {load(CORPUS[name]).today.isoformat()}."
    for kind in ("suitability", "argue", "moderate", "adjudicate"):
        for prompt in _prompts(replay, kind):
            assert today in prompt, f"{name}: a {kind} prompt does not say what today is"
            # The bundled corpus dates nothing: a role reading the pool is told so, rather than letting
            # it pass as current (the suitability check too: it runs after the first retrieval)
            assert "No passage in the evidence pool carries a date" in prompt


# ------------------------------------------------------------------ 7. the anonymized judge

# What the first played runs let through to the judge: the sides named by direction, by role, by key.
SIDE_WORDS = re.compile(
    r"case-(?:for|against)|\b(?:for|against)_\d+\b|arguing (?:for |against )?the claim"
    r"|(?:strongest|best) case [\w\s]{0,30}?(?:for|against) the claim|\bmy opponent\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("name", CLAIM_RUNS)
def test_finding_7_the_judge_reads_no_side_in_arguments_ledger_or_checks(
    replayed: Replayed, name: str
) -> None:
    replay = replayed(name, "anthropic")
    for served in replay.requests:
        # the judge, and the neutral fact-checker, who reads the round's sentences as the judge does
        if not served.key or not served.key.startswith(("adjudicate:", "factcheck:")):
            continue
        debate = (
            served.prompt.user
        )  # the judge's system prompt explains the redaction: only the debate counts
        found = SIDE_WORDS.findall(debate)
        assert not found, f"{name}: the judge reads {found}"


def test_finding_7_the_played_runs_give_the_redaction_work(replayed: Replayed) -> None:
    """What the played debaters wrote, and the ledger as stored (a neutral checker's comment keeps the
    ledger's keys, such as for_3), named sides in some claim runs: the test above had work to check.
    (Fewer than when each side had its checker: those comments named the other side's keys in every run.)"""
    named = []
    for name in CLAIM_RUNS:
        replay = replayed(name, "anthropic")
        written = " ".join(str(c.reply) for k, c in replay.played.calls.items() if k.startswith("argue:"))
        citations = replay.result.citations if replay.result else []
        written += " ".join(f"{e.sentence} {e.comment}" for e in citations)
        named += [name] if SIDE_WORDS.search(written) else []
    assert named, "no played claim run names a side: the redaction is not exercised"


def test_finding_7_redaction_keeps_a_sentences_meaning() -> None:
    """The phrases the first played judge read, redacted by who speaks; 'with nothing on the other side'
    names no side and stays as written (the first redaction made it 'with nothing on [a position]')."""
    nothing = "The claim rests on one gauge, with nothing on the other side of the ledger to set against it."
    assert redact(nothing, "for") == nothing
    honestly = "Arguing the claim honestly, the most that can be said is little."
    assert (
        redact(honestly, "against")
        == "Arguing the other position honestly, the most that can be said is little."
    )
    assert redact(honestly, "for") == "Arguing this position honestly, the most that can be said is little."
    strongest = "The strongest case the pool allows for the claim is thin."
    assert (
        redact(strongest, "against") == "The strongest case the pool allows for the other position is thin."
    )


# ------------------------------------------------------------------ 8. motion fact-checks


@pytest.mark.parametrize(
    "name",
    sorted(n for n, f in CORPUS.items() if load(f).kind == "motion" and load(f).expect.status == "succeeded"),
)
def test_finding_8_a_motion_speaker_sees_checks_under_the_right_name(replayed: Replayed, name: str) -> None:
    """Each speaker is shown the other team's checks on its own citations (to answer) and its own
    fact-checker's checks on the other team's (to use), each labelled so, never the one as the other."""
    replay = replayed(name, "anthropic")
    assert replay.record.status == RunStatus.SUCCEEDED
    seen_both = False
    for served in replay.requests:
        if not served.key or not served.key.startswith("speak:"):
            continue
        side = served.key.split(":")[2]
        other = "against" if side == "for" else "for"
        text = served.prompt.user
        answer = re.search(
            r"<checks_on_your_citations[^>]*>(.*?)</checks_on_your_citations>", text, re.DOTALL
        )
        use = re.search(r"<your_fact_checks[^>]*>(.*?)</your_fact_checks>", text, re.DOTALL)
        # keys are the speaker's own citations under "on your citations", the other team's under "yours"
        if answer:
            assert f'key="{other}_' not in answer.group(1)
        if use:
            assert f'key="{side}_' not in use.group(1)
        seen_both = seen_both or bool(answer and use and "<check>" in answer.group(1) + use.group(1))
    assert seen_both, f"{name}: no speaker saw both kinds of checks"


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_finding_8_a_claim_debate_has_one_neutral_fact_check_a_round_and_a_motion_one_per_team(
    replayed: Replayed, name: str
) -> None:
    """Issue 23's token cut: a claim debate's round is checked by one neutral call (no side in its key,
    both positions' new citations in it, anonymous), a motion's by each team's checker, as before."""
    replay = replayed(name, "anthropic")
    checks = [s for s in replay.requests if s.key and s.key.startswith("factcheck:")]
    sides = [s.key.split(":")[2] for s in checks if s.key]
    rounds = [int(s.key.split(":")[1]) for s in checks if s.key]
    if replay.played.kind == "motion":
        assert checks and set(sides) <= {"for", "against"} and "" not in sides
        return
    assert set(sides) <= {""}, f"{name}: a claim debate's checker took a side: {sides}"
    assert len(rounds) == len(set(rounds)), f"{name}: more than one fact-check call in a round: {rounds}"
    # every round whose arguments cited a passage new to its side was checked, by that one call
    cited = {e.round for e in (replay.result.citations if replay.result else [])}
    assert set(rounds) == cited, f"{name}: rounds checked {rounds}, rounds with new citations {cited}"
    for served in checks:
        user = served.prompt.user
        assert 'key="for_' not in user and 'key="against_' not in user and 'side="' not in user
        assert '<citations_to_check position="A">' in user and '<citations_to_check position="B">' in user


# ------------------------------------------------------------------ 9. the ledger's sentences


ABBREVIATION_CUT = re.compile(r"\b(?:U\.S|U\.K|e\.g|i\.e|et al|Dr|Fig|approx|No)\.$")
ONLY_IDS = re.compile(r"^[\s\[\],;:.E0-9a-f-]*$")


@pytest.mark.parametrize("name", CLAIM_RUNS)
def test_finding_9_the_ledger_quotes_whole_sentences_that_make_the_point(
    replayed: Replayed, name: str
) -> None:
    replay = replayed(name, "anthropic")
    quoted = [
        (evidence, sentence.strip())
        for prompt in _prompts(replay, "adjudicate") + _prompts(replay, "factcheck")
        for sentence, cited in re.findall(
            r"<cited [^>]*>\s*<sentence>(.*?)</sentence>(.*?)</cited>", prompt, re.DOTALL
        )
        for evidence in re.findall(r'<citation [^>]*evidence="(E[0-9a-f]+)"', cited)
    ]
    for evidence, sentence in quoted:
        assert not ABBREVIATION_CUT.search(sentence), f"{name}: cut at an abbreviation: {sentence!r}"
        assert not ONLY_IDS.match(sentence.replace(evidence, "")), f"{name}: a list of ids: {sentence!r}"
    assert quoted or replay.result is None, f"{name}: no ledger sentence shown to the judge or a checker"
    # and every citation a fact-checker is shown names its source: title, tier and url
    for prompt in _prompts(replay, "factcheck"):
        for citation in re.findall(r"<citation [^>]*>", prompt):
            for attribute in ("url=", "tier=", "title="):
                assert attribute in citation, f"{name}: {citation}"


# ------------------------------------------------------------------ 10. tokens


@pytest.mark.parametrize("name", CLAIM_RUNS)
def test_finding_10_each_passage_once_a_prompt_and_no_audit_for_one_sub_claim(
    replayed: Replayed, name: str
) -> None:
    replay = replayed(name, "anthropic")
    for served in replay.requests:
        text = f"{served.prompt.system}\n{served.prompt.user}"
        ids = re.findall(r'<evidence id="(E[0-9a-f]+)"', text)
        assert len(ids) == len(set(ids)), f"{name} {served.key}: a passage shown twice"
    # The split's audit is the suitability check's, asked only of a split into two or more
    for prompt in _prompts(replay, "suitability"):
        split = prompt.split("<sub_claims", 1)[1].split("</sub_claims>", 1)[0].count("<sub_claim id=") > 1
        assert ("Audit the split too" in prompt) == split and ("leave audit null" in prompt) != split
    # and no prompt spends words on a range of one ("rounds 2 to 2", "at least two rounds, at most 2")
    for served in replay.requests:
        text = f"{served.prompt.system}\n{served.prompt.user}"
        assert not re.search(r"\brounds? (\d+) to \1\b|at least two rounds, at most 2\b", text), served.key


# ------------------------------------------------------------------ 11. the OpenAI path


def test_finding_11_the_openai_path_sends_strict_schemas_and_no_temperature_to_reasoning_models(
    replayed: Replayed, tmp_path: Path
) -> None:
    replay = replayed("converge-glaciers", "openai")
    assert replay.record.status == RunStatus.SUCCEEDED
    for served in replay.requests:
        schema = served.body["response_format"]["json_schema"]
        assert schema["strict"] is True, served.key
    # A reasoning model (in the price table) gets no temperature, and the run goes through
    played = load(CORPUS["converge-glaciers"])
    played.models = {**played.models, "openai": "gpt-5"}
    evidence = CorpusSource(index_dir=tmp_path / "index")
    reasoning = play(played, "openai", evidence, tmp_path / "data")
    assert reasoning.record.status == RunStatus.SUCCEEDED, reasoning.record.error
    assert reasoning.requests and all("temperature" not in s.body for s in reasoning.requests)
    assert any("temperature" in s.body for s in replay.requests)  # gpt-4.1 is sent one


# ------------------------------------------------------------------ 12. --first and the judge's order


def test_finding_12_under_first_the_judge_reads_each_round_in_speaking_order(replayed: Replayed) -> None:
    replay = replayed("rubric-first-against-urban-heat-island", "anthropic")
    assert replay.played.request.get("first") == "against"
    # The judge's prompt: in each round, the against side (which spoke first) comes first
    (judge,) = _prompts(replay, "adjudicate")
    shown = [
        (number, cited)
        for number, argued in re.findall(r'<debate round="(\d+)">(.*?)</debate>', judge, re.DOTALL)
        for cited in re.findall(r'<argument position="[AB]">\s*<point [^>]*citations="([^"]*)"', argued)
    ]
    assert shown
    assert [_side_of(replay, int(number), cited) for number, cited in shown] == ["against", "for"] * (
        len(shown) // 2
    )
    # Whichever label the against side draws: the played arguments, anonymized under seeds that give it
    # A and B, are ordered by who spoke, not by label
    drawn = set()
    for seed in (f"seed-{n}" for n in range(20)):
        positions, mapping = anonymize(replay.arguments, seed, first="against")
        drawn.add(next(label for label, side in mapping.items() if side == "against"))
        for number in {p.round for p in positions}:
            in_round = [mapping[p.label] for p in positions if p.round == number]
            assert in_round == ["against", "for"], (seed, number)
    assert drawn == {"A", "B"}


def _side_of(replay: Replay, number: int, citations: str) -> str:
    """Which side argued a round's position, known by its first point's citations."""
    return next(
        a.side
        for a in replay.arguments
        if a.round == number and a.points and ", ".join(a.points[0].citations) == citations
    )
