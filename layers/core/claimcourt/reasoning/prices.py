"""One price table, USD per million tokens (input, output). Unknown models cost 0 and say so."""

from __future__ import annotations

from collections.abc import Iterable

PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    # Anthropic
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-sonnet-4-6": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "claude-3-5-haiku-latest": (0.8, 4.0),
    # OpenAI
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    # Gemini, standard tier, prompts up to 200k tokens (ai.google.dev/gemini-api/docs/pricing, as quoted
    # with its date by deploybase.ai "Gemini API Pricing 2026", 2026-03, and hivebook.wiki's Gemini 2.5
    # page; Google's own page was not in the docs search). Thinking tokens are billed as output.
    "gemini-2.5-pro": (1.25, 10.0),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-flash-lite": (0.10, 0.40),
    # xAI (docs.x.ai "Models and Pricing"): grok-3 and grok-3-mini as that page read on 2025-06-02
    # (archive.fo/dYUtw); grok-4 (grok-4-0709) as xAI's page is quoted by apidog.com, 2025; the grok-4
    # fast models as quoted by getmaxim.ai's calculator (xAI's page renders its prices by script, so the
    # search holds no copy of them). Reasoning tokens are billed as output.
    "grok-4": (3.0, 15.0),
    "grok-4-0709": (3.0, 15.0),
    "grok-4-fast": (0.20, 0.50),
    "grok-4-1-fast": (0.20, 0.50),
    "grok-3": (3.0, 15.0),
    "grok-3-mini": (0.30, 0.50),
    # No model at all
    "offline": (0.0, 0.0),
}


# Prompt-cache rates, USD per million tokens (read from the cache, written to it), where they are not
# the input rate. Anthropic (platform.claude.com, "Pricing → Prompt caching", as read 2026-11): a cache
# read is 0.1× the input rate, a 5-minute cache write 1.25×. OpenAI (openai.com/api/pricing, "Cached
# input", as read 2026-11): cached input is discounted per model and writing costs the input rate. So for
# Gemini (implicit caching: a read at a tenth of the input rate, the same sources as above; storage is
# not billed for implicit caches) and xAI (automatic caching, "Cached Input" on the same pages). A model
# whose cached rate was not found (the grok-4 fast models) bills its cached tokens at the input rate.
ANTHROPIC_CACHE_READ, ANTHROPIC_CACHE_WRITE = 0.1, 1.25
CACHED_INPUT_PER_MTOK: dict[str, float] = {
    "gpt-4.1": 0.5,
    "gpt-4.1-mini": 0.1,
    "gpt-4o": 1.25,
    "gpt-4o-mini": 0.075,
    "gpt-5": 0.125,
    "gpt-5-mini": 0.025,
    "gemini-2.5-pro": 0.125,
    "gemini-2.5-flash": 0.03,
    "gemini-2.5-flash-lite": 0.01,
    "grok-4": 0.75,
    "grok-4-0709": 0.75,
    "grok-3": 0.75,
    "grok-3-mini": 0.075,
}

# Anthropic's server-side web search is billed per search on top of tokens ($10 per 1,000).
WEB_SEARCH_USD_PER_REQUEST = 0.01
# OpenAI's web search tool, per call on top of tokens (openai.com/api/pricing, "Built-in tools", as read
# 2025): $10 per 1,000 with a reasoning model (gpt-5, o-series; the search content it reads is billed as
# input tokens, which its usage counts), $25 per 1,000 with the others (gpt-4o, gpt-4.1; content free).
OPENAI_WEB_SEARCH_USD_PER_CALL = {"reasoning": 0.01, "other": 0.025}


# A tier word after a known name makes another, dearer model (gpt-5-pro is about 12× gpt-5), not a
# variant of it: priced as unknown, and so refused where a caller names a judge.
_TIERS = ("-pro", "-max", "-ultra", "-heavy", "-deep-research")


def _family(model: str, names: Iterable[str]) -> str | None:
    """The longest known name `model` is, or is a variant of (a dated snapshot, "-latest"). A name
    followed by a dot or a digit is another version (grok-4.3 is not grok-4), not a variant; followed
    by a tier word (`_TIERS`), another model."""
    matches = [
        n
        for n in names
        if model.startswith(n)
        and model[len(n) : len(n) + 1] not in tuple(".0123456789")
        and not model[len(n) :].startswith(_TIERS)
    ]
    return max(matches, key=len) if matches else None


def price_for(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens of the model's family (dated snapshots share its rate)."""
    family = _family(model, PRICES_PER_MTOK)
    return PRICES_PER_MTOK[family] if family else None


def cache_rates(model: str) -> tuple[float, float] | None:
    """(read, write) USD per million prompt-cache tokens, or None when the model's price is unknown."""
    price = price_for(model)
    if price is None:
        return None
    if model.startswith("claude"):
        return price[0] * ANTHROPIC_CACHE_READ, price[0] * ANTHROPIC_CACHE_WRITE
    family = _family(model, CACHED_INPUT_PER_MTOK)
    return (price[0] if family is None else CACHED_INPUT_PER_MTOK[family]), price[0]


def cost_usd(
    model: str, input_tokens: int, output_tokens: int, cache_read_tokens: int = 0, cache_write_tokens: int = 0
) -> tuple[float, bool]:
    """(cost, price_known). input_tokens excludes the prompt-cache tokens, which have their own rates."""
    price, cache = price_for(model), cache_rates(model)
    if price is None or cache is None:
        return 0.0, False
    per_mtok = (
        input_tokens * price[0]
        + output_tokens * price[1]
        + cache_read_tokens * cache[0]
        + cache_write_tokens * cache[1]
    )
    return per_mtok / 1_000_000, True


def unpriced_judge(provider: str, model: str, own_endpoint: bool = False) -> str | None:
    """Why a judge a caller names cannot be used, or None: a model with no known price would be counted
    at $0 by every budget check, so nothing would hold its spend (a panel's or a re-judging's judges are
    chosen by whoever holds a key, not by the operator). `own_endpoint`: the operator pointed this
    provider at a server of their own (a self-hosted model, `OPENAI_BASE_URL`), whose models are theirs
    to price."""
    if provider == "offline" or own_endpoint or price_for(model) is not None:
        return None
    return (
        f"no price is known for {provider}:{model}, so its spend could not be held to the budget: name a "
        "model in the price table (reasoning/prices.py)"
    )
