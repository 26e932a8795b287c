"""The providers' prompt caches as the played server and the cost bench simulate them
(claimcourt.bench.prompt_cache): what a request reads and writes, by the rules each API documents."""

from __future__ import annotations

import json
from typing import Any

import pytest

from claimcourt.bench.played import input_billed
from claimcourt.bench.prompt_cache import (
    ANTHROPIC_TOOL_PROMPT_TOKENS,
    CacheUsage,
    Caller,
    PromptCache,
    input_tokens,
)
from claimcourt.bench.prompt_cost import Bill, Rates, one_hour
from claimcourt.models import ModelUsage, Usage

RULES = "R" * 8000  # 2,000 tokens: past Sonnet's 1,024-token minimum, short of Haiku 4.5's 4,096
POOL_1 = "P" * 2000  # 500 tokens
POOL_2 = "Q" * 1200  # 300 tokens
TOOLS = [{"name": "argue", "input_schema": {"type": "object"}}, {"name": "judge", "input_schema": {}}]
MARK = {"type": "ephemeral"}


def anthropic(
    *blocks: tuple[str, bool], user: str = "go", model: str = "claude-sonnet-4-6", tool: str = "argue"
) -> dict[str, Any]:
    system = [
        {"type": "text", "text": t} | ({"cache_control": MARK} if marked else {}) for t, marked in blocks
    ]
    return {
        "model": model,
        "system": system,
        "messages": [{"role": "user", "content": user}],
        "tools": TOOLS,
        "tool_choice": {"type": "tool", "name": tool},
    }


def tokens(*texts: str) -> int:
    """The characters of these blocks, and of the tools and the tool-use prompt before them, as tokens."""
    tools = sum(len(json.dumps(t)) for t in TOOLS)
    return (tools + ANTHROPIC_TOOL_PROMPT_TOKENS * 4 + sum(len(t) for t in texts)) // 4


def test_anthropic_writes_a_prefix_at_its_breakpoint_once_and_later_calls_read_it() -> None:
    cache = PromptCache()
    first = cache.use("anthropic", anthropic((RULES, True), ("role one", False)))
    # the prefix up to the breakpoint (tools, tool-use prompt, rules) is written; the role's text is not
    assert (first.read, first.write) == (0, tokens(RULES))
    assert first.uncached == first.total - tokens(RULES)
    second = cache.use("anthropic", anthropic((RULES, True), ("role two", False), user="other"))
    assert (second.read, second.write) == (tokens(RULES), 0)


def test_anthropic_reads_the_longest_prefix_written_before_and_writes_the_rest_up_to_its_breakpoint() -> None:
    cache = PromptCache()
    cache.use("anthropic", anthropic((RULES, True), (POOL_1, True), ("argue", False)))
    # round 2 appends a block: its last breakpoint is further on; the lookback finds round 1's entry
    later = cache.use(
        "anthropic", anthropic((RULES, True), (POOL_1, False), (POOL_2, True), ("argue", False))
    )
    assert later.read == tokens(RULES, POOL_1)
    assert later.write == tokens(RULES, POOL_1, POOL_2) - tokens(RULES, POOL_1)
    # a changed block before the breakpoint breaks the prefix there: only the rules are read
    other = cache.use("anthropic", anthropic((RULES, True), ("X" * 2000, True), ("argue", False)))
    assert other.read == tokens(RULES) and other.write > 0


def test_anthropic_calls_of_one_step_cannot_read_each_others_writes_and_both_pay_the_write() -> None:
    cache = PromptCache()
    body = anthropic((RULES, True), ("argue", False))
    for_, against = Caller("argue:1", "for"), Caller("argue:1", "against")
    assert cache.use("anthropic", body, for_).write == tokens(RULES)
    assert cache.use("anthropic", body, against).write == tokens(RULES)  # it ran beside the writer
    assert cache.use("anthropic", body, against).read == tokens(RULES)  # its own lane's retry reads its write
    # the next step reads it, whichever lane wrote it
    assert cache.use("anthropic", body, Caller("roundend:1", "moderate")).read == tokens(RULES)
    # and a lane's later call (the decomposer's check after its split) reads its own lane's write
    lane = PromptCache()
    lane.use("anthropic", body, Caller("assess", "decompose"))
    assert lane.use("anthropic", body, Caller("assess", "decompose")).read == tokens(RULES)
    assert lane.use("anthropic", body, Caller("assess", "suitability")).read == 0


def test_anthropic_caches_nothing_below_the_models_minimum_and_nothing_without_a_breakpoint() -> None:
    cache = PromptCache()
    # Haiku 4.5 needs 4,096 tokens: this prefix (about 2,300) is neither written nor read
    small = anthropic((RULES, True), ("role", False), model="claude-haiku-4-5")
    assert (
        cache.use("anthropic", small)
        == cache.use("anthropic", small)
        == CacheUsage(small_total := input_tokens("anthropic", small))
    )
    assert small_total > 0
    # Sonnet caches it, but only where a breakpoint asks
    unmarked = anthropic((RULES, False), ("role", False))
    assert cache.use("anthropic", unmarked).write == 0 and cache.use("anthropic", unmarked).read == 0


def test_anthropic_a_breakpoint_in_the_messages_is_keyed_by_tool_choice_too() -> None:
    # the judge's whole prompt, cached for its later samples: read again only under the same tool_choice
    def judged(tool: str) -> dict[str, Any]:
        body = anthropic((RULES, True), ("judge", False), tool=tool)
        body["messages"] = [
            {"role": "user", "content": [{"type": "text", "text": "D" * 4000, "cache_control": MARK}]}
        ]
        return body

    cache = PromptCache()
    written = cache.use("anthropic", judged("judge"))
    again = cache.use("anthropic", judged("judge"))
    assert again.read == written.read + written.write and again.write == 0
    # a changed tool_choice: the messages' entry is not read; the system's is (written at its breakpoint)
    other = cache.use("anthropic", judged("argue"))
    assert other.read == tokens(RULES) and other.write == again.read - tokens(RULES)


def openai(system: str, user: str, schema: str = "A") -> dict[str, Any]:
    return {
        "model": "gpt-4.1",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "response_format": {"type": "json_schema", "json_schema": {"name": schema, "schema": {}}},
    }


def test_openai_reads_the_longest_shared_prefix_from_1024_tokens_in_steps_of_128() -> None:
    cache = PromptCache()
    assert cache.use("openai", openai(RULES, "first")).read == 0
    again = cache.use("openai", openai(RULES, "second"))
    prefix = len('{"type": "json_schema", "json_schema": {"name": "A", "schema": {}}}\x00' + RULES + "\x00")
    assert again.read == 1024 + 128 * ((prefix - 4096) // 512)
    assert again.write == 0 and again.uncached == again.total - again.read
    # the schema comes first: another role's reply schema shares nothing
    assert cache.use("openai", openai(RULES, "third", schema="B")).read == 0
    # and calls of one step cannot read each other's prompts
    parallel = PromptCache()
    parallel.use("openai", openai(RULES, "for"), Caller("argue:1", "for"))
    assert parallel.use("openai", openai(RULES, "against"), Caller("argue:1", "against")).read == 0


@pytest.mark.parametrize(
    ("model", "read", "write"),
    [("claude-sonnet-4-6", 0.3, 3.75), ("claude-haiku-4-5", 0.1, 1.25), ("gpt-4.1", 0.5, 2.0)],
)
def test_billed_input_prices_reads_and_writes_at_their_rates(model: str, read: float, write: float) -> None:
    rates = Rates.of(model)
    assert (rates.read, rates.write) == pytest.approx((read, write))
    used = CacheUsage(total=10_000, read=6_000, write=1_000)
    # 3,000 plain tokens, then the cache's at their share of the input rate
    assert rates.billed(used) == pytest.approx(3_000 + (6_000 * read + 1_000 * write) / rates.input)
    assert rates.billed(used, cached=False) == 10_000
    assert rates.usd(1_000_000) == pytest.approx(rates.input)


def test_a_caller_is_read_from_the_step_header() -> None:
    assert Caller.parse("roundend:2/factcheck:2:for") == Caller("roundend:2", "factcheck:2:for")
    assert Caller.parse(None) == Caller() and Caller().sees(Caller("judge", "s0"))


def test_a_one_hour_cache_bills_the_decomposers_write_at_twice_the_input_rate() -> None:
    bill = Bill()
    bill.calls["decompose"].append(CacheUsage(1000, 0, 800))  # it writes the tools and rules: 800
    bill.calls["argue"].append(CacheUsage(1200, 800, 0))
    rates = Rates("claude-sonnet-4-6", 3.0, 0.3, 3.75)
    # alone: 200 + 800 × 1.25 and 400 + 800 × 0.1 = 1,680 tokens' worth; a 1-hour write is 2×, +600
    assert sum(rates.billed(u) for u in bill.total()) == pytest.approx(1680)
    line = one_hour(bill, rates, warm=1000.0)
    assert "the hour's first run $0.0068, each later one $0.0030" in line  # 2,280 and 1,000 at $3/M


def test_a_played_runs_input_is_billed_at_each_rate_and_its_output_not() -> None:
    used = ModelUsage(provider="anthropic", input_tokens=1000, output_tokens=5000, cache_read_tokens=10_000,
                      cache_write_tokens=2000, calls=3)  # fmt: skip
    # $3 a million plain, $0.30 read, $3.75 written: 3,000 + 3,000 + 7,500 millionths
    assert input_billed(Usage(models={"claude-sonnet-4-6": used})) == pytest.approx(0.0135)
