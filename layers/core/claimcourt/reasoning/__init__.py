"""L0: one vendor-agnostic call layer over Anthropic, OpenAI(-compatible) and the offline reasoner."""
