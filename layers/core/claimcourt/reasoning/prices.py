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


# Anthropic's server-side web search is billed per search on top of tokens ($10 per 1,000).
WEB_SEARCH_USD_PER_REQUEST = 0.01


def price_for(model: str) -> tuple[float, float] | None:
    """Exact match first, then the longest known prefix (dated snapshots share their family's rate)."""
    if model in PRICES_PER_MTOK:
        return PRICES_PER_MTOK[model]
    matches = [name for name in PRICES_PER_MTOK if model.startswith(name)]
    return PRICES_PER_MTOK[max(matches, key=len)] if matches else None


def cost_usd(model: str, input_tokens: int, output_tokens: int) -> tuple[float, bool]:
    """(cost, price_known)."""
    price = price_for(model)
    if price is None:
        return 0.0, False
    return (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000, True
