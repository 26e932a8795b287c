"""One price table, USD per million tokens (input, output). Unknown models cost 0 and say so."""

from __future__ import annotations

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
    # No model at all
    "offline": (0.0, 0.0),
}


# Prompt-cache rates, USD per million tokens (read from the cache, written to it), where they are not
# the input rate. Anthropic (platform.claude.com, "Pricing → Prompt caching", as read 2026-11): a cache
# read is 0.1× the input rate, a 5-minute cache write 1.25×. OpenAI (openai.com/api/pricing, "Cached
# input", as read 2026-11): cached input is discounted per model and writing costs the input rate.
ANTHROPIC_CACHE_READ, ANTHROPIC_CACHE_WRITE = 0.1, 1.25
OPENAI_CACHED_INPUT_PER_MTOK: dict[str, float] = {
    "gpt-4.1": 0.5,
    "gpt-4.1-mini": 0.1,
    "gpt-4o": 1.25,
    "gpt-4o-mini": 0.075,
    "gpt-5": 0.125,
    "gpt-5-mini": 0.025,
}

# Anthropic's server-side web search is billed per search on top of tokens ($10 per 1,000).
WEB_SEARCH_USD_PER_REQUEST = 0.01
# OpenAI's web search tool, per call on top of tokens (openai.com/api/pricing, "Built-in tools", as read
# 2025): $10 per 1,000 with a reasoning model (gpt-5, o-series; the search content it reads is billed as
# input tokens, which its usage counts), $25 per 1,000 with the others (gpt-4o, gpt-4.1; content free).
OPENAI_WEB_SEARCH_USD_PER_CALL = {"reasoning": 0.01, "other": 0.025}


def price_for(model: str) -> tuple[float, float] | None:
    """Exact match first, then the longest known prefix (dated snapshots share their family's rate)."""
    if model in PRICES_PER_MTOK:
        return PRICES_PER_MTOK[model]
    matches = [name for name in PRICES_PER_MTOK if model.startswith(name)]
    return PRICES_PER_MTOK[max(matches, key=len)] if matches else None


def _longest_prefix(model: str, table: dict[str, float]) -> float | None:
    matches = [name for name in table if model.startswith(name)]
    return table[max(matches, key=len)] if matches else None


def cache_rates(model: str) -> tuple[float, float] | None:
    """(read, write) USD per million prompt-cache tokens, or None when the model's price is unknown."""
    price = price_for(model)
    if price is None:
        return None
    if model.startswith("claude"):
        return price[0] * ANTHROPIC_CACHE_READ, price[0] * ANTHROPIC_CACHE_WRITE
    cached = _longest_prefix(model, OPENAI_CACHED_INPUT_PER_MTOK)
    return (price[0] if cached is None else cached), price[0]


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
