"""Benchmarks: speed of the embedded corpus, and the engine's accuracy on public claim data sets."""
