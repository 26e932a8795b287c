"""L1: evidence sources, tiers, the query cache and backtest filtering."""
