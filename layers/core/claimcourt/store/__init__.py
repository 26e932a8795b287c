"""L5: the Store port and its adapters (SQLite for the embedded default)."""
