"""Prompt caching, on the requests the real SDKs send: played runs replayed against the loopback server
(claimcourt.bench.played_server), whose usage follows each API's cache rules (bench/prompt_cache.py).
The run's calls share one opening — the run's reply tools, the rules, the claim and its sub-claims, the
evidence pool block by round — with its breakpoints where docs/architecture.md ("Prompt caching") says,
byte for byte, with nothing in it that names a side or a role, so the anonymized judge shares it too."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from claimcourt.bench.played import Replay, play
from claimcourt.bench.played_corpus import corpus_files, load
from claimcourt.bench.played_server import Served
from claimcourt.debate.argue import PERSONAS, ROLE_TEXT
from claimcourt.evidence.corpus import CorpusSource
from claimcourt.prompts import rules
from claimcourt.reasoning.prices import cost_usd

pytestmark = pytest.mark.timeout(300)

CORPUS = {f.stem: f for f in corpus_files()}
RUN_TOOLS = ["decompose", "suitability", "argue", "factcheck", "moderate", "adjudicate"]


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Replay]:
    evidence = CorpusSource(index_dir=tmp_path_factory.mktemp("index"))
    evidence.warm()
    found = {}
    for name in ("arctic-sea-ice", "redeliberate-medieval-warm-period"):
        for path in ("anthropic", "openai"):
            found[(name, path)] = play(load(CORPUS[name]), path, evidence, tmp_path_factory.mktemp("played"))
    return found


def _by_key(replay: Replay) -> dict[str, Served]:
    return {r.key: r for r in replay.requests if r.key}


def _system(served: Served) -> list[dict[str, Any]]:
    system = served.body["system"]
    assert isinstance(system, list), f"{served.key}: the system is not sent as blocks"
    return system


def _opening(served: Served) -> list[str]:
    """The shared blocks of a request's system: those up to and including its last breakpoint."""
    blocks = _system(served)
    last = max(i for i, b in enumerate(blocks) if "cache_control" in b)
    return [b["text"] for b in blocks[: last + 1]]


def test_every_call_after_the_split_sends_the_run_tools_and_its_opening_with_the_breakpoints(
    replays: dict[tuple[str, str], Replay],
) -> None:
    replay = replays[("arctic-sea-ice", "anthropic")]
    calls = [r for r in replay.requests if r.key]
    assert calls and all(r.status == 200 for r in calls)
    # Every call sends the same tools, byte for byte, and forces its own among them
    tools = {json.dumps(r.body["tools"]) for r in calls}
    assert len(tools) == 1 and [t["name"] for t in calls[0].body["tools"]] == RUN_TOOLS
    for r in calls:
        kind = r.key.split(":")[3]
        assert r.body["tool_choice"] == {"type": "tool", "name": kind}
        blocks = _system(r)
        marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
        texts = [b["text"] for b in blocks]
        # the rules first, a breakpoint after them; the role's own text last, after every breakpoint
        assert texts[0] == rules() and marked[0] == 0 and "cache_control" not in blocks[-1]
        if kind == "decompose":
            assert marked == [0] and len(blocks) == 2  # before the split: the rules alone
            continue
        # then the claim and its sub-claims, then round by round the pool's block and the debate's
        assert texts[1].startswith("<claim>")
        rounds = [re.match(r'<(evidence_pool|debate) round="(\d+)">', t) for t in texts[2:-1]]
        assert all(rounds), r.key
        assert len(marked) <= 2
        new = texts[marked[-1] + 1 : -1]  # what this call sends that no earlier step wrote, uncached
        if r.key.startswith("argue:2:") and ":against:" in r.key:  # beside the side writing the round
            assert [t.split(">")[0] for t in new] == ['<evidence_pool round="2"']
        elif kind == "adjudicate":  # the last round's arguments, which only the judge reads
            assert [t.split(">")[0] for t in new] == ['<debate round="2"']
        else:  # a writer, or a call with nothing new: a breakpoint after the last block
            assert new == [], r.key
        assert not any(
            "cache_control" in b for m in r.body["messages"] for b in m["content"] if isinstance(b, dict)
        )
    # The suitability check, after the first retrieval, sends the opening round 1's debaters send
    by_key = {r.key: r for r in calls}
    check, debater = by_key["suitability:0::suitability:a0"], by_key["argue:1:against:argue:"]
    assert _opening(check) == _opening(debater) and _opening(check)[-1].startswith(
        '<evidence_pool round="1">'
    )


def test_the_calls_of_a_round_share_their_opening_and_the_next_round_appends_to_it(
    replays: dict[tuple[str, str], Replay],
) -> None:
    calls = _by_key(replays[("arctic-sea-ice", "anthropic")])
    usage = {k: (r.cache_read_tokens, r.cache_write_tokens) for k, r in calls.items()}
    texts = {
        k: [b["text"] for b in _system(r)[:-1]]
        for k, r in calls.items()
        if isinstance(r.body["system"], list)
    }
    # Round 1: the suitability check, after the retrieval, writes the claim and the round's pool; both
    # debaters, at once, read all of it (neither pays for it uncached); the checker reads it all
    check, writer, beside = "suitability:0::suitability:a0", "argue:1:for:argue:", "argue:1:against:argue:"
    assert texts[check] == texts[writer] == texts[beside]
    assert usage[check][0] > 0 and usage[check][1] > 0  # the rules read, the claim and pool written
    assert usage[writer] == usage[beside] == (sum(usage[check]), 0)
    checker_1 = "factcheck:1::factcheck:"
    assert json.dumps(_system(calls[checker_1])[:-1]) == json.dumps(_system(calls[writer])[:-1])
    assert usage[checker_1] == (sum(usage[writer]), 0)
    # the moderator, beside it, reads it too and writes the round's arguments after it, for round 2
    moderator = "moderate:1::moderate:"
    assert texts[moderator][:-1] == texts[writer] and texts[moderator][-1].startswith('<debate round="1">')
    assert usage[moderator][0] == sum(usage[writer]) and usage[moderator][1] > 0
    # Round 2 appends its pool block: its debaters read all of round 1, the side for writes the block
    writer_2, beside_2 = "argue:2:for:argue:", "argue:2:against:argue:"
    assert texts[writer_2][:-1] == texts[moderator] and texts[writer_2][-1].startswith(
        '<evidence_pool round="2">'
    )
    assert usage[writer_2][0] == usage[beside_2][0] == sum(usage[moderator])
    assert usage[writer_2][1] > 0 and usage[beside_2][1] == 0
    checker_2 = "factcheck:2::factcheck:"
    assert texts[checker_2] == texts[writer_2] and usage[checker_2] == (sum(usage[writer_2]), 0)
    # The judge reads all of it, and round 2's arguments, which only it reads, follow uncached
    judge = "adjudicate:0::adjudicate:s0"
    assert texts[judge][:-1] == texts[writer_2] and texts[judge][-1].startswith('<debate round="2">')
    assert usage[judge] == (sum(usage[writer_2]), 0)


def test_nothing_in_the_judges_shared_opening_names_a_side_or_a_role(
    replays: dict[tuple[str, str], Replay],
) -> None:
    calls = _by_key(replays[("arctic-sea-ice", "anthropic")])
    opening = "".join(_opening(calls["adjudicate:0::adjudicate:s0"]))
    tools = json.dumps(calls["adjudicate:0::adjudicate:s0"].body["tools"])
    for text in (
        *ROLE_TEXT.values(),
        *PERSONAS,
        'of="you"',
        'side="for"',
        'side="against"',
        "for_1",
        "against_1",
    ):
        assert text not in opening + tools, text
    assert not re.search(r"\b(TRUE|FALSE|case-for|case-against)\b", opening + tools)
    # while what a debater reads after it does name its side
    argue = _system(calls["argue:1:for:argue:"])
    assert argue[-1]["text"].startswith(ROLE_TEXT["for"]) and ROLE_TEXT["for"] not in opening


def test_the_ledger_bills_the_cache_the_server_reported_at_its_rates(
    replays: dict[tuple[str, str], Replay],
) -> None:
    for path in ("anthropic", "openai"):
        replay = replays[("arctic-sea-ice", path)]
        [check] = [c for c in replay.checks if c.name == "billed as served"]
        assert check.passed, check.detail
        [(model, used)] = replay.usage.models.items()
        assert used.cache_read_tokens > 0
        # each token at its rate: Anthropic reads at 0.1× and writes at 1.25× the input price; OpenAI reads
        # at its cached-input price and writes nothing
        assert (used.cache_write_tokens > 0) == (path == "anthropic")
        billed = cost_usd(
            model, used.input_tokens, used.output_tokens, used.cache_read_tokens, used.cache_write_tokens
        )
        assert replay.usage.total_cost_usd == pytest.approx(
            billed[0], abs=1e-6
        )  # recorded to the micro-dollar
        assert (
            billed[0]
            < cost_usd(
                model,
                used.input_tokens + used.cache_read_tokens + used.cache_write_tokens,
                used.output_tokens,
            )[0]
        )


def test_the_judges_later_samples_and_the_re_deliberation_read_the_first_samples_whole_prompt(
    replays: dict[tuple[str, str], Replay],
) -> None:
    calls = _by_key(replays[("redeliberate-medieval-warm-period", "anthropic")])
    s0, s1 = calls["adjudicate:0::adjudicate:s0"], calls["adjudicate:0::adjudicate:s1"]
    # sample 0 caches its prompt; sample 1, asked beside it, could not read it, so it does not write it
    [prompt] = s0.body["messages"][0]["content"]
    assert prompt["cache_control"] == {"type": "ephemeral"} and isinstance(
        s1.body["messages"][0]["content"], str
    )
    whole = s0.cache_read_tokens + s0.cache_write_tokens
    # the later samples read all of it; the re-deliberation reads it too, and its note comes after
    for key in ("adjudicate:0::adjudicate:s2", "adjudicate:0::adjudicate:s3", "adjudicate:0::adjudicate:s4"):
        assert (calls[key].cache_read_tokens, calls[key].cache_write_tokens) == (whole, 0), key
    note = calls["adjudicate:0::adjudicate:s4"].body["messages"][0]["content"]
    assert note[0]["text"] == prompt["text"] and note[1]["text"].startswith("\n\nThis is a second look.")
    assert "cache_control" not in note[1]


def test_openai_calls_of_every_role_read_the_opening_they_share(
    replays: dict[tuple[str, str], Replay],
) -> None:
    calls = _by_key(replays[("arctic-sea-ice", "openai")])
    debate = calls  # the suitability check among them: it sends the opening too
    # one reply schema for every role of the run: the prefix OpenAI's cache matches starts with it
    assert len({json.dumps(r.body["response_format"]) for r in debate.values()}) == 1
    for key, served in debate.items():
        system = served.body["messages"][0]["content"]
        assert system.startswith(rules()), key  # what the run's calls share comes first
        if key != "decompose:0::decompose:a0":  # every call after the first reads at least the rules
            assert served.cache_read_tokens >= 1024, key
    # whatever its role: round 1's debaters read the claim and pool the suitability check sent, the
    # moderator at least that, the judge what round 2's sent
    check = calls["suitability:0::suitability:a0"]
    assert calls["argue:1:for:argue:"].cache_read_tokens > check.cache_read_tokens
    assert calls["moderate:1::moderate:"].cache_read_tokens >= calls["argue:1:for:argue:"].cache_read_tokens
    assert (
        calls["adjudicate:0::adjudicate:s0"].cache_read_tokens
        >= calls["argue:2:for:argue:"].cache_read_tokens
    )
    # and the calls of one step cannot read each other's: the debaters of round 1 read the same
    assert calls["argue:1:against:argue:"].cache_read_tokens == calls["argue:1:for:argue:"].cache_read_tokens
