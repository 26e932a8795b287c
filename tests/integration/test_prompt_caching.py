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
RUN_TOOLS = ["decompose", "decompose_check", "argue", "factcheck", "moderate", "adjudicate"]


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
    calls = [r for r in replay.requests if r.key and not r.key.startswith("suitability")]
    assert calls and all(r.status == 200 for r in calls)
    # Every call sends the same tools, byte for byte, and forces its own among them
    tools = {json.dumps(r.body["tools"]) for r in calls}
    assert len(tools) == 1 and [t["name"] for t in calls[0].body["tools"]] == RUN_TOOLS
    for r in calls:
        kind = r.key.split(":")[3]
        assert r.body["tool_choice"] == {"type": "tool", "name": kind}
        blocks = _system(r)
        marked = [i for i, b in enumerate(blocks) if "cache_control" in b]
        # the rules first, a breakpoint after them; the role's own text last, after every breakpoint
        assert blocks[0]["text"] == rules() and marked[0] == 0
        assert "cache_control" not in blocks[-1] and marked[-1] == len(blocks) - 2
        if kind in ("decompose", "decompose_check"):
            assert marked == [0]  # before the split: the rules alone
        else:  # then the claim, its sub-claims, and the pool by round, a breakpoint after its last block
            assert len(marked) == 2 and blocks[1]["text"].startswith("<claim>")
            assert all(b["text"].startswith("<evidence_pool round=") for b in blocks[2:-1])
        assert not any(
            "cache_control" in b for m in r.body["messages"] for b in m["content"] if isinstance(b, dict)
        )
    # The suitability check runs beside the decomposer, before anything is shared: its own tool alone
    [suitability] = [r for r in replay.requests if r.key == "suitability:0::suitability:"]
    assert isinstance(suitability.body["system"], str) and len(suitability.body["tools"]) == 1


def test_the_calls_of_a_round_share_their_opening_and_the_next_round_appends_to_it(
    replays: dict[tuple[str, str], Replay],
) -> None:
    calls = _by_key(replays[("arctic-sea-ice", "anthropic")])
    round_1 = [
        "argue:1:for:argue:",
        "argue:1:against:argue:",
        "factcheck:1:for:factcheck:",
        "moderate:1::moderate:",
    ]
    round_2 = ["argue:2:for:argue:", "argue:2:against:argue:", "factcheck:2:against:factcheck:"]
    openings_1 = {json.dumps(_system(calls[k])[: len(_opening(calls[k]))]) for k in round_1}
    openings_2 = {json.dumps(_system(calls[k])[: len(_opening(calls[k]))]) for k in round_2}
    assert len(openings_1) == 1 and len(openings_2) == 1  # byte for byte, breakpoints included
    first, second = _opening(calls[round_1[0]]), _opening(calls[round_2[0]])
    assert second[: len(first)] == first and len(second) == len(first) + 1  # round 2's pool block appended
    # The judge reads the same opening as the last round's debaters (this run searched nothing after it)
    judge = calls["adjudicate:0::adjudicate:s0"]
    assert _opening(judge) == second
    # and the server read it from the cache: every call after the first step read the rules at least
    usage = {k: (r.cache_read_tokens, r.cache_write_tokens) for k, r in calls.items()}
    assert all(usage[k][0] > 0 for k in round_1 + round_2 + ["adjudicate:0::adjudicate:s0"])
    # the two debaters of a round ran at once: each wrote the round's new block, neither read the other's
    assert usage["argue:1:for:argue:"] == usage["argue:1:against:argue:"]
    assert usage["argue:1:for:argue:"][1] > 0
    # the checkers and the moderator beside them read all of it and wrote nothing
    assert all(usage[k][1] == 0 for k in round_1[2:])
    assert usage["moderate:1::moderate:"][0] == sum(usage["argue:1:for:argue:"])


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
        assert replay.usage.total_cost_usd == pytest.approx(billed[0])
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


def test_openai_calls_of_one_role_read_the_opening_they_share(replays: dict[tuple[str, str], Replay]) -> None:
    calls = _by_key(replays[("arctic-sea-ice", "openai")])
    for key in ("argue:2:for:argue:", "factcheck:2:for:factcheck:"):
        system = calls[key].body["messages"][0]["content"]
        assert system.startswith(rules())  # what the run's calls share comes first
        assert calls[key].cache_read_tokens >= 1024, key  # and round 2 read round 1's, after the same schema
    # calls of one step, and of another role (another schema before the system), read nothing
    assert calls["argue:1:against:argue:"].cache_read_tokens == 0
    assert calls["moderate:1::moderate:"].cache_read_tokens == 0
