"""The embedded runtime: the real ASL under moto's Step Functions interpreter, handlers in-process,
SQLite store, CLI. Laptop-only dependencies (moto, rich, click, PyYAML) are imported here only."""
