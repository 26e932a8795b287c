"""The played corpus (claimcourt.bench.played): hand-written replies replayed through the real
Anthropic and OpenAI SDKs against the loopback replay server, through the real state machine, over
the bundled corpus. Every corpus run is replayed on both SDK paths and its declared checks must hold;
then the machinery: the call header, the API shapes, retries under their attempt keys, an unanswered
call, the writer's workflow, and a motion debate."""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from collections.abc import Callable
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion

from claimcourt import artifacts
from claimcourt.bench import played as played_cli
from claimcourt.bench.played import Replay, evaluate, play, reply_problems, report
from claimcourt.bench.played_corpus import (
    PATHS,
    Expect,
    PlayedCall,
    PlayedPrompt,
    PlayedRun,
    PlayedUsage,
    ProviderPath,
    corpus_files,
    load,
    output_tokens_of,
    save,
)
from claimcourt.bench.played_server import PlayedServer
from claimcourt.debate.argue import NO_ARGUMENT
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.local.runtime import LocalRuntime
from claimcourt.models import MotionRequest, RunStatus, StopReason, Verdict
from claimcourt.reasoning.base import (
    CALL_HEADER,
    RETRY_HEADER,
    RUN_HEADER,
    ProviderReply,
    Task,
    call_headers,
    with_feedback,
)
from claimcourt.reasoning.offline import OfflineReasoner
from claimcourt.reasoning.reasoner import Reasoner
from claimcourt.runs import create_run
from claimcourt.settings import Settings
from claimcourt.wiring import build_deps
from tests.fakes.debate_text import debate_positions

pytestmark = pytest.mark.timeout(300)

ARCTIC = "arctic-sea-ice"
CORPUS = {f.stem: f for f in corpus_files()}
Replayed = Callable[[Path, ProviderPath], Replay]


@pytest.fixture(scope="module")
def evidence(tmp_path_factory: pytest.TempPathFactory) -> CorpusSource:
    source = CorpusSource(index_dir=tmp_path_factory.mktemp("index"))
    source.warm()
    return source


@pytest.fixture(scope="module")
def replayed(evidence: CorpusSource, tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    """Each corpus run replayed once per SDK path in this module, whichever test asks first."""
    done: dict[tuple[Path, ProviderPath], Replay] = {}
    lock = threading.Lock()

    def get(file: Path, path: ProviderPath) -> Replay:
        with lock:
            if (file, path) not in done:
                done[(file, path)] = play(load(file), path, evidence, tmp_path_factory.mktemp("played"))
            return done[(file, path)]

    return get


def _arctic() -> PlayedRun:
    return load(CORPUS[ARCTIC])


# ---------------------------------------------------------------- the corpus


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_played_run_replays_as_it_declares(replayed: Replayed, name: str, path: ProviderPath) -> None:
    played = load(CORPUS[name])
    if path not in played.providers:
        pytest.skip(f"{name} is not played on the {path} path")
    # When the run is replayed through this SDK path
    replay = replayed(CORPUS[name], path)
    # Then every call found its reply, the ledger billed what the server reported, and every declared
    # check holds
    assert not replay.failed, "\n".join(report(replay))
    assert replay.unused == [], "replies no request asked for: a key has changed"


def test_a_declared_re_deliberation_and_interval_method_are_checked(replayed: Replayed) -> None:
    # Given the Arctic run (standard effort: one judgement, so no samples to disagree)
    replay = replayed(CORPUS[ARCTIC], "anthropic")
    # When its expect declares what the run did, the checks hold
    assert all(c.passed for c in evaluate(Expect(re_deliberated=False, interval_method="judge"), replay))
    # And when it declares otherwise, each check fails, naming what the run did
    wrong = Expect(re_deliberated=True, interval_method="judge+self_consistency")
    checks = {c.name: c for c in evaluate(wrong, replay)}
    assert not checks["re-deliberated"].passed and checks["re-deliberated"].detail == "no samples to review"
    assert not checks["interval method"].passed and checks["interval method"].detail == "judge"


def test_the_two_sdk_paths_send_the_same_prompts_and_reach_the_same_result(replayed: Replayed) -> None:
    # Given the Arctic run replayed through the Anthropic SDK and through the OpenAI SDK
    a, o = (replayed(CORPUS[ARCTIC], path) for path in PATHS)
    # Then both runs rendered the same prompts for the same calls (a replay is deterministic: the
    # judge's anonymization is seeded by the fixed run id, retrieval is the bundled corpus)
    prompts_a = {r.key: r.prompt for r in a.requests}
    prompts_o = {r.key: r.prompt for r in o.requests}
    assert prompts_a == prompts_o
    # And reached the same result, while each was billed at its own model's price
    assert a.result is not None and o.result is not None
    assert (a.result.overall_score, a.result.interval) == (o.result.overall_score, o.result.interval)
    assert [d.model_dump() for d in a.decisions] == [d.model_dump() for d in o.decisions]
    assert set(a.result.usage.models) == {"claude-sonnet-4-6"}
    assert set(o.result.usage.models) == {"gpt-4.1-2025-04-14"}
    assert a.result.usage.total_cost_usd != o.result.usage.total_cost_usd


def test_every_request_names_its_call_so_parallel_calls_find_their_own_reply(replayed: Replayed) -> None:
    for path in PATHS:
        replay = replayed(CORPUS[ARCTIC], path)
        # Every request carried its call key and its run, as headers the real providers send
        keys = [r.headers[CALL_HEADER.lower()] for r in replay.requests]
        assert all(r.headers.get(RUN_HEADER.lower()) == "played-arctic-sea-ice" for r in replay.requests)
        assert all(RETRY_HEADER.lower() not in r.headers for r in replay.requests)  # first attempts only
        # One request per call, each call its own key: the debaters, asked at the same time, and the
        # fact-checker beside the moderator are told apart by the key, not by their prompts
        assert sorted(keys) == sorted(replay.played.calls)
        assert {"argue:1:for:argue:", "argue:1:against:argue:", "factcheck:1::factcheck:"} <= set(keys)


def test_a_backtests_hindsight_check_is_played_through_each_sdk_on_the_small_model(
    replayed: Replayed,
) -> None:
    """The played backtest: one hindsight call for its one retrieval, sent through each SDK as its own
    task (the sources in tags, no claim) to the small model the role defaults to; the model leaves out a
    headline that names no date, which the lexical check would have kept."""
    from claimcourt.evidence.hindsight import date_source
    from claimcourt.models import DatedSource

    for path, model in (("anthropic", "claude-haiku-4-5"), ("openai", "gpt-4.1")):
        replay = replayed(CORPUS["backtest-arctic-sea-ice-2008"], path)
        (asked,) = [r for r in replay.requests if r.key == "retrieve:1:sc1:hindsight:"]
        assert asked.body["model"] == model  # an OpenAI-compatible base URL: its one configured model
        assert '<sources as_of="2008-01-01">' in asked.prompt.user and "<claim>" not in asked.prompt.user
        assert replay.result is not None and replay.result.backtest is not None
        dating = replay.result.backtest
        assert (dating.retrieved, dating.dated, dating.written_after) == (3, 0, 2)
        assert dating.judged_by[0].startswith(f"{path}:{model}")
    headline = next(d for d in dating.hindsight if "Absurd" in d.reason)
    text = '"Absurd January Warmth in Arctic Brings Record-Low Sea Ice Extent".'
    lexical = date_source(
        DatedSource(id=headline.id, title=headline.title, url=headline.url, text=text), date(2008, 1, 1)
    )
    assert lexical.written == "before"  # no date in it: only a model that knows the event can place it


def test_the_closing_rounds_rules_hold_on_played_prose(replayed: Replayed) -> None:
    """The closing round (the last of two or more) cites only what each side cited before and what was
    retrieved for it (its prompt's "New this round"): any other citation a played reply added there is
    dropped from its point, its marker from the text too."""
    dropped_somewhere = False
    for name, file in sorted(CORPUS.items()):
        played = load(file)
        if played.kind != "claim" or "anthropic" not in played.providers:
            continue
        replay = replayed(file, "anthropic")
        last = max((a.round for a in replay.arguments), default=0)
        if last < 2:
            continue
        for argument in (a for a in replay.arguments if a.round == last and not a.absent):
            before = {
                c
                for a in replay.arguments
                if a.side == argument.side and a.round < last
                for p in a.points
                for c in p.citations
            }
            call = played.calls[f"argue:{last}:{argument.side}:argue:"]
            new = re.search(r"^New this round: (.+)$", call.prompt.user, re.MULTILINE)
            allowed = before | (set(new.group(1).split(", ")) if new else set())
            written = {p["sub_claim_id"]: set(p.get("citations", [])) for p in call.reply["points"]}
            for point in argument.points:
                assert set(point.citations) <= allowed, f"{name}: {argument.side} {point.sub_claim_id}"
                for cited in written[point.sub_claim_id] - set(point.citations):
                    dropped_somewhere = True
                    assert f"[{cited}]" not in point.argument, f"{name}: a marker left for {cited}"
    assert dropped_somewhere, "no played run plays a citation the closing round drops"


def test_a_refusal_is_answered_once_then_judged_and_its_words_reach_no_one_on_played_prose(
    replayed: Replayed,
) -> None:
    """Issue 26, refusals as the research found them, in a claim debate argued at once: the case for
    declines in round 1 of at most 3 (a played structured refusal). It is not asked again; the case
    against gets round 2 alone, its one counter-argument turn, then the judge; nobody but the record reads
    the refusal's words, and the judge is told no side."""
    played = load(CORPUS["refusal-cru-fabrication"])
    replay = replayed(CORPUS["refusal-cru-fabrication"], "anthropic")
    reason = played.calls["argue:1:for:argue:"].reply["refusal"]["reason"]
    asked = {r.key: f"{r.prompt.system}\n{r.prompt.user}" for r in replay.requests if r.key}
    # The refusing side is asked once; round 2 is the other side's alone, and no round 3 follows (round 1's
    # two sides are argued at once, so they arrive in either order)
    argued = [k for k in asked if k.startswith("argue:")]
    assert sorted(argued[:2]) == ["argue:1:against:argue:", "argue:1:for:argue:"]
    assert argued[2:] == ["argue:2:against:argue:"]
    [absent] = [a for a in replay.arguments if a.round == 2 and a.side == "for"]
    assert absent.absent and not absent.points and absent.refusal is None
    # The answer round read that no argument was made where the refusal was, and that it is the last
    answer = asked["argue:2:against:argue:"]
    yours = re.search(r"your arguments are position ([AB])'s and the other side's position ([AB])'s", answer)
    assert yours, "the answer round is told which position is whose"
    said = {label: body for label, round, body in debate_positions(answer) if round == "1"}
    assert said[yours.group(2)] == "(no argument was made this round)" and said[yours.group(1)].startswith(
        "<point"
    )
    assert "round 2 of at most 2" in answer and "This is the closing round" in answer
    # The moderator aimed that round reading no refusal, and was not asked after it
    assert [k for k in asked if k.startswith("moderate:")] == ["moderate:1::moderate:"]
    # Nobody but the refusing side itself read its words: not the other side, the moderator or the judge
    words = reason[:60]
    assert [k for k, prompt in asked.items() if words in prompt] == []
    # The judge read one position making no argument in rounds 1 and 2, never why, never which side
    judged = asked["adjudicate:0::adjudicate:s0"]
    silent = [(p, r) for p, r, body in debate_positions(judged) if body == NO_ARGUMENT]
    assert [r for _, r in silent] == ["1", "2"] and len({p for p, _ in silent}) == 1
    assert not re.search(r"declined to argue|refus", judged, re.IGNORECASE)
    # The controller named the refusal: one answer round, then a stop with a round of the three left
    assert [(d.round, d.action.value) for d in replay.decisions] == [(1, "continue"), (2, "stop_converged")]
    assert all(
        d.rule.startswith("refused: the for side declined to argue in round 1") for d in replay.decisions
    )
    # And the result says what happened, with the reason the other side never read
    result = replay.result
    assert result is not None and result.rounds == 2 and result.ended_early is not None
    end = result.ended_early
    assert (end.side, end.round, end.reason, end.answered_by, end.answered_in_round) == (
        "for",
        1,
        reason,
        "against",
        2,
    )
    assert f"Ended early: the for side declined to argue in round 1; {end.followed}." in result.warnings


def test_an_off_topic_pool_is_said_to_the_debaters_and_the_judge_on_played_prose(replayed: Replayed) -> None:
    """Issue 23, item 6: "Humans only use 10 percent of their brains" against the climate corpus. Its
    passages share a word or two with the claim (a sentence on human evolution mentions the brain), so
    the check warns rather than stops: every role after the split reads, in the run's shared opening right
    after the round-1 pool it measured (cached with it), that the pool does not appear to speak to sc1,
    and why; once, as round 2's aimed search changed nothing in the reading."""
    replay = replayed(CORPUS["offtopic-ten-percent-brain"], "anthropic")
    told = {}
    for r in replay.requests:
        notes = re.findall(
            r"<pool_relevance round=\"(\d+)\">\n(.*?)</pool_relevance>", r.prompt.system, re.DOTALL
        )
        told[r.key or ""] = notes
        assert "<pool_relevance" not in r.prompt.user, r.key
    after_the_split = [
        k for k in told if k.startswith(("suitability:", "argue:", "factcheck:", "moderate:", "adjudicate:"))
    ]
    # suitability; two rounds of two debaters and a checker; the moderator; the judge
    assert len(after_the_split) == 9
    for key in after_the_split:
        [(round, note)] = told[key]
        assert round == "1", key
        assert '<sub_claim id="sc1">"unused" appears in none of its' in note, key
        assert 'the closest ("Human") shares only "brains" and "Humans"' in note, key
        assert "the pool is silent on it" in note, key
    assert all(not told[k] for k in told if k not in after_the_split)  # the decomposer: no pool yet
    # The debaters took it as a careful model would: the pool is silent, so the midpoint, with low confidence
    first = [a for a in replay.arguments if a.round == 1]
    assert [p.implied_score for a in first for p in a.points] == [50, 50]
    # And the user reads it: a warning with its reason, and the check's reading in the result
    result = replay.result
    assert result is not None and result.overall_verdict.value == "not-enough-evidence"
    [warning] = [w for w in result.warnings if "does not speak to" in w]
    assert warning.startswith('The evidence pool does not speak to sc1 ("Humans use only about 10 percent')
    assert result.pool_relevance is not None and not result.pool_relevance.add_documents
    [reading] = result.pool_relevance.sub_claims
    assert reading.reading == "off_topic" and reading.passages == 9  # round 2's aimed search found no better
    assert 0 < reading.scores["shared_words"] < 0.14  # below the warning; words shared, so no stop


def test_a_pool_that_speaks_to_nothing_is_answered_before_any_debater_on_played_prose(
    replayed: Replayed,
) -> None:
    """ "Vaccines cause autism" against the climate corpus: the decomposer's directive finds five climate
    passages sharing no word with the sub-claim. No debater is asked; the run ends stopped, answering not
    enough evidence, with what to add (add_documents)."""
    for path in PATHS:
        replay = replayed(CORPUS["offtopic-vaccines-autism"], path)
        # Only the decomposer was called: the stop comes before the suitability check and any debater
        assert [r.key for r in replay.requests] == ["decompose:0::decompose:a0"]
        record = replay.record
        assert record.status is RunStatus.STOPPED and record.result is None
        assert (record.stop_reason, record.verdict) == (StopReason.ADD_DOCUMENTS, Verdict.NOT_ENOUGH_EVIDENCE)
        finding, advice = record.warnings
        assert '"MMR", "vaccines" and "autism" appear in none of its 5 passages' in finding
        assert "a fixed corpus of English Wikipedia sentences" in advice
        assert all(part in advice for part in ("--context", "--corpus NAME", "ANTHROPIC_API_KEY"))


# ---------------------------------------------------------------- the replay server


def _calls(**entries: PlayedCall) -> dict[str, PlayedCall]:
    return dict(entries)


def _entry(reply: Any = None, **fields: Any) -> PlayedCall:
    return PlayedCall(
        prompt=PlayedPrompt(system="sys", user="user"),
        reply=reply,
        usage=PlayedUsage(output_tokens=fields.pop("output_tokens", 42)),
        **fields,
    )


SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}


def _ask_anthropic(server: PlayedServer, key: str, max_tokens: int = 300, **kwargs: Any) -> Message:
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.anthropic_url, max_retries=2)
    return client.messages.create(
        model="claude-sonnet-4-6",
        max_tokens=max_tokens,
        system=kwargs.pop("system", "You answer."),
        messages=[{"role": "user", "content": "Say it."}],
        tools=[{"name": "pick", "description": "the reply", "input_schema": SCHEMA}],
        tool_choice={"type": "tool", "name": "pick"},
        extra_headers={CALL_HEADER: key},
    )


def _ask_openai(server: PlayedServer, key: str, max_tokens: int = 300) -> ChatCompletion:
    client = openai.OpenAI(api_key="sk-test", base_url=server.openai_url, max_retries=2)
    return client.chat.completions.create(
        model="gpt-4.1",
        messages=[{"role": "system", "content": "You answer."}, {"role": "user", "content": "Say it."}],
        response_format={"type": "json_schema", "json_schema": {"name": "Answer", "schema": SCHEMA}},
        max_completion_tokens=max_tokens,
        extra_headers={CALL_HEADER: key},
    )


def test_replies_are_shaped_as_each_api_shapes_them() -> None:
    calls = _calls(
        ok=_entry({"answer": "yes"}, output_tokens=7),
        cut=_entry({"answer": "an answer that ran on"}, stop_reason="max_tokens"),
        no=_entry(refusal="I can't help with that.", refusal_category="general_harms"),
    )
    with PlayedServer(calls) as server:
        # Anthropic: the forced tool called with the reply, billed as the API would bill it
        message = _ask_anthropic(server, "ok")
        assert message.stop_reason == "tool_use"
        block = message.content[0]
        assert block.type == "tool_use" and block.name == "pick" and block.input == {"answer": "yes"}
        sent = server.requests[-1]
        assert message.usage.output_tokens == 7
        assert (
            message.usage.input_tokens == sent.input_tokens > 313
        )  # the tool-use system prompt, and the text
        # OpenAI: the reply as the message's JSON content, under the snapshot the alias names
        completion = _ask_openai(server, "ok")
        assert completion.model == "gpt-4.1-2025-04-14"
        assert json.loads(completion.choices[0].message.content or "") == {"answer": "yes"}
        assert completion.choices[0].finish_reason == "stop"
        assert completion.usage is not None and completion.usage.completion_tokens == 7
        # A reply played as cut off: max_tokens / length, every output token the limit allowed spent
        cut = _ask_anthropic(server, "cut", max_tokens=64)
        assert cut.stop_reason == "max_tokens" and cut.usage.output_tokens == 64
        cut_openai = _ask_openai(server, "cut", max_tokens=64)
        assert cut_openai.choices[0].finish_reason == "length"
        with pytest.raises(ValueError):
            json.loads(cut_openai.choices[0].message.content or "")  # cut mid-JSON, as a real one is
        # A refusal: stop_reason refusal with its details; OpenAI's message.refusal
        refused = _ask_anthropic(server, "no")
        assert refused.stop_reason == "refusal" and refused.content == []
        assert (
            refused.stop_details is not None and refused.stop_details.explanation == "I can't help with that."
        )
        refused_openai = _ask_openai(server, "no")
        assert refused_openai.choices[0].message.refusal == "I can't help with that."
        assert refused_openai.choices[0].message.content is None
        # Every body validates as the SDK's own model of the response (not just the SDK's lenient build)
        for request in server.requests:
            assert request.answered
    raw = _raw_answers(calls)
    Message.model_validate(raw["anthropic"])
    ChatCompletion.model_validate(raw["openai"])


def _raw_answers(calls: dict[str, PlayedCall]) -> dict[str, Any]:
    import urllib.request

    found: dict[str, Any] = {}
    with PlayedServer(calls) as server:
        bodies = {
            "anthropic": (
                f"{server.anthropic_url}/v1/messages",
                {
                    "model": "claude-sonnet-4-6",
                    "max_tokens": 100,
                    "messages": [{"role": "user", "content": "x"}],
                    "tools": [{"name": "submit", "input_schema": SCHEMA}],
                    "tool_choice": {"type": "tool", "name": "submit"},
                },
            ),
            "openai": (
                f"{server.openai_url}/chat/completions",
                {"model": "gpt-4.1", "messages": [{"role": "user", "content": "x"}]},
            ),
        }
        for protocol, (url, body) in bodies.items():
            request = urllib.request.Request(
                url, json.dumps(body).encode(), {"content-type": "application/json", CALL_HEADER: "ok"}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                found[protocol] = json.loads(response.read())
    return found


def test_a_call_without_a_reply_is_a_404_naming_it_and_is_not_retried(tmp_path: Path) -> None:
    with PlayedServer({}, prompts_dir=tmp_path, name="demo") as server:
        with pytest.raises(anthropic.NotFoundError, match="has no reply for call 'argue:1:for:argue:'"):
            _ask_anthropic(server, "argue:1:for:argue:", system="You argue.")
        with pytest.raises(openai.NotFoundError, match="has no reply for call 'moderate:1::moderate:'"):
            _ask_openai(server, "moderate:1::moderate:")
        assert len(server.requests) == 2  # the SDKs (max_retries=2) did not ask again
        assert server.missing() == ["argue:1:for:argue:", "moderate:1::moderate:"]
    # And the prompt was written for the writer, with the schema the reply must follow
    text = (tmp_path / "argue:1:for:argue:.prompt.md").read_text()
    assert "You argue." in text and "Say it." in text and '"answer"' in text
    assert "python -m claimcourt.bench.played add demo 'argue:1:for:argue:' reply.json" in text
    pending = json.loads((tmp_path / "argue:1:for:argue:.prompt.json").read_text())
    assert pending["prompt"] == {"system": "You argue.", "user": "Say it."}


def test_prompt_caching_is_played_as_each_api_does_it() -> None:
    long_system = "Shared instructions. " * 300  # 6,300 characters: past the 1,024-token minimum
    with PlayedServer({"ok": _entry({"answer": "yes"})}) as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.openai_url, max_retries=0)
        cached = []
        for user in ("first question", "second question"):
            completion = client.chat.completions.create(
                model="gpt-4.1",
                messages=[{"role": "system", "content": long_system}, {"role": "user", "content": user}],
                extra_headers={CALL_HEADER: "ok"},
            )
            assert completion.usage is not None and completion.usage.prompt_tokens_details is not None
            cached.append(completion.usage.prompt_tokens_details.cached_tokens)
        # OpenAI: nothing the first time; then the shared prefix, 1,024 tokens and steps of 128
        assert cached[0] == 0
        assert cached[1] == 1024 + 128 * ((len(long_system) - 4096) // 512)
        # Anthropic: only up to a cache_control breakpoint, written once, then read
        ant = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.anthropic_url, max_retries=0)
        usages = [
            ant.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=100,
                system=[{"type": "text", "text": long_system, "cache_control": {"type": "ephemeral"}}],
                messages=[{"role": "user", "content": user}],
                extra_headers={CALL_HEADER: "ok"},
            ).usage
            for user in ("first question", "second question")
        ]
        assert (usages[0].cache_creation_input_tokens, usages[0].cache_read_input_tokens) == (1575, 0)
        assert (usages[1].cache_creation_input_tokens, usages[1].cache_read_input_tokens) == (0, 1575)


# ---------------------------------------------------------------- retries and failures in a run


def test_a_retried_call_is_asked_again_under_its_attempt_key(
    replayed: Replayed, evidence: CorpusSource, tmp_path: Path
) -> None:
    # Given the Arctic run with two calls played as going wrong first: the moderator's reply cut off at
    # its output limit, and the suitability check answered without the split's audit it was asked for
    played = _arctic()
    moderate = played.calls["moderate:1::moderate:"]
    check = played.calls["suitability:0::suitability:a0"]
    played.calls["moderate:1::moderate:"] = moderate.model_copy(
        update={"reply": {"decisive_dispute": "Whether the projections"}, "stop_reason": "max_tokens"}
    )
    played.calls["moderate:1::moderate:#2"] = moderate
    unaudited = {k: v for k, v in check.reply.items() if k != "audit"}
    played.calls["suitability:0::suitability:a0"] = check.model_copy(update={"reply": unaudited})
    played.calls["suitability:0::suitability:a0#2"] = check
    # When it is replayed
    replay = play(played, "anthropic", evidence, tmp_path)
    # Then it ends as the corpus run does, having asked each of those calls twice
    assert replay.record.status is RunStatus.SUCCEEDED, replay.record.error
    played_as_written = replayed(CORPUS[ARCTIC], "anthropic").result
    assert replay.result is not None and played_as_written is not None
    assert replay.result.overall_score == played_as_written.overall_score
    assert replay.usage.llm_calls == 12  # the run's 10 calls, two of them asked twice
    assert [c.name for c in replay.failed if c.name != "calls"] == []
    by_key = {r.key: r for r in replay.requests}
    # the cut-off reply again with twice the limit, said so in the retry header
    again = by_key["moderate:1::moderate:#2"]
    assert again.retry == "truncated"
    assert again.body["max_tokens"] == 2 * by_key["moderate:1::moderate:"].body["max_tokens"]
    # the one without its audit again with what was missing, as a correction the user prompt carries
    corrected = by_key["suitability:0::suitability:a0#2"]
    assert corrected.retry == "correction"
    assert "<correction>" in corrected.prompt.user and "give the split's audit" in corrected.prompt.user


def test_an_unanswered_call_writes_its_prompt_and_fails_the_run_clearly(
    evidence: CorpusSource, tmp_path: Path
) -> None:
    # Given the Arctic run without the judge's reply
    played = _arctic()
    del played.calls["adjudicate:0::adjudicate:s0"]
    # When it is replayed with a folder for prompts
    replay = play(played, "openai", evidence, tmp_path / "run", prompts_dir=tmp_path / "prompts")
    # Then the run fails, naming the call, and where its prompt was written
    assert replay.record.status is RunStatus.FAILED
    error = replay.record.error or ""
    assert (
        error.startswith("ProviderError") and "has no reply for call 'adjudicate:0::adjudicate:s0'" in error
    )
    assert replay.missing == ["adjudicate:0::adjudicate:s0"]
    written = tmp_path / "prompts" / "adjudicate:0::adjudicate:s0.prompt.md"
    assert str(written) in error
    text = written.read_text()
    assert "You are the final judge" in text and "<citation_ledger>" in text and "(Judgement)" in text
    # and the replay counts it failed
    assert {c.name for c in replay.failed} >= {"every call answered", "status"}


def test_the_writers_workflow_plays_to_the_first_unanswered_call_then_on(
    evidence: CorpusSource,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(played_cli, "_evidence", lambda folder: evidence)
    corpus, out = tmp_path / "corpus", tmp_path / "out"
    corpus.mkdir()
    # Given a corpus file lacking the last two replies
    played = _arctic()
    judge = played.calls.pop("adjudicate:0::adjudicate:s0")
    played.calls.pop("factcheck:2::factcheck:")
    save(played, corpus / f"{ARCTIC}.json")
    where = ["--corpus", str(corpus), "--out", str(out)]
    # When the writer plays it: the calls answered are replayed, the first unanswered one's prompt written
    assert played_cli.main(["write", ARCTIC, *where]) == 1
    printed = capsys.readouterr().out
    assert "calls replayed; 1 without a reply" in printed
    assert f"factcheck:2::factcheck:  →  {out / ARCTIC}/factcheck:2::factcheck:.prompt.md" in printed
    # A reply the schema would reject is refused, naming the problem
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"checks": [{"key": "A_8", "credibility": 5}]}))
    args = ["add", ARCTIC, "factcheck:2::factcheck:", str(bad), *where]
    assert played_cli.main(args) == 2
    assert "checks.0.correspondence: Field required" in capsys.readouterr().err
    # The writer adds the reply, plays on to the next call, adds it, and the run completes
    original = _arctic()
    for key in ("factcheck:2::factcheck:", "adjudicate:0::adjudicate:s0"):
        reply = tmp_path / "reply.json"
        reply.write_text(
            json.dumps((original.calls[key] if key != "adjudicate:0::adjudicate:s0" else judge).reply)
        )
        assert played_cli.main(["add", ARCTIC, key, str(reply), *where]) == 0
        code = played_cli.main(["write", ARCTIC, *where])
    assert code == 0
    assert "complete, every call answered (10 replies)" in capsys.readouterr().out
    # The file holds each reply with the prompt it answers, and its output tokens
    written = load(corpus / f"{ARCTIC}.json")
    assert list(written.calls) == list(original.calls)
    added = written.calls["adjudicate:0::adjudicate:s0"]
    assert added.reply == judge.reply and added.prompt == judge.prompt
    assert added.usage.output_tokens == output_tokens_of(judge.reply)


def test_add_checks_a_reply_against_its_model_and_the_runs_limits() -> None:
    schema = {"properties": {"points": {"minItems": 1, "maxItems": 2}}}
    point = {"sub_claim_id": "sc1", "argument": "x", "implied_score": 50, "confidence": 0.5}
    assert reply_problems({"points": [point]}, "ArgumentDraft", schema) == []
    assert reply_problems({"points": [point] * 3}, "ArgumentDraft", schema) == [
        "points: 3 items, but between 1 and 2 are required"
    ]
    assert any(
        "Extra inputs" in p for p in reply_problems({"points": [point], "x": 1}, "ArgumentDraft", schema)
    )


# ---------------------------------------------------------------- a motion debate


class _Recording:
    """The offline reasoner, keeping each call's reply under the key the Reasoner names it by: a
    motion corpus for testing the machinery (the bundled corpus is hand-written)."""

    name = "offline"
    sends_temperature = True

    def __init__(self) -> None:
        self.inner = OfflineReasoner()
        self.calls: dict[str, PlayedCall] = {}
        self._lock = threading.Lock()

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        reply = self.inner.complete(task, model, feedback)
        prompt = PlayedPrompt(system=task.system_text, user=with_feedback(task.user_text, feedback))
        entry = PlayedCall(prompt=prompt, reply=reply.content, usage=PlayedUsage(output_tokens=50))
        with self._lock:
            self.calls[call_headers()[CALL_HEADER]] = entry
        return reply


@pytest.fixture(scope="module")
def motion_corpus(evidence: CorpusSource, tmp_path_factory: pytest.TempPathFactory) -> PlayedRun:
    request = {"motion": "Resolved: the loss of Arctic sea ice is driven by human activity.", "rounds": 1}
    tmp = tmp_path_factory.mktemp("motion")  # the recording run's store
    settings = Settings(data_dir=tmp, provider="offline", web_search=False, anthropic_api_key=None)
    deps = build_deps(settings)
    recording = _Recording()
    reasoner = Reasoner({"offline": recording}, settings.route, deps.store, settings.budget_usd)
    deps = dataclasses.replace(deps, reasoner=reasoner, evidence=evidence)
    run = PlayedRun(name="motion-demo", kind="motion", request=request, today=date(2026, 11, 27))
    with LocalRuntime(deps) as runtime:
        at = datetime.combine(run.today, time(12), tzinfo=UTC)
        create_run(deps.store, MotionRequest.model_validate(request), run_id=run.run_id, created_at=at)
        assert runtime.execute(run.run_id, timeout_s=120).status == "SUCCEEDED"
    result = artifacts.motion_result_of(deps.store, run.run_id)
    assert result is not None
    return run.model_copy(
        update={
            "calls": recording.calls,
            "expect": Expect(first_speaker=result.plan.first, ended_early=False, calls=len(recording.calls)),
        }
    )


@pytest.mark.parametrize("path", PATHS)
def test_a_motion_debate_replays_through_each_sdk_path(
    motion_corpus: PlayedRun, evidence: CorpusSource, tmp_path: Path, path: ProviderPath
) -> None:
    played = PlayedRun.model_validate(motion_corpus.model_dump())
    replay = play(played, path, evidence, tmp_path)
    assert replay.motion is not None
    assert not replay.failed, "\n".join(report(replay))
    assert replay.stale == [] and replay.unused == []  # the same prompts, call for call
    assert {r.key.split(":")[0] for r in replay.requests if r.key} >= {
        "stances",
        "vote",
        "speak",
        "cartograph",
    }
