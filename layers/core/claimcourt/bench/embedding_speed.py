"""What the offline reader's sentence embedding costs: loading, a sentence, a debate.

Run: python -m claimcourt.bench.embedding_speed [--sentences N] [--claims N]

Needs the `embed` extra. Prints, on this machine:
- the import of onnxruntime and tokenizers, and the model's first load (the file's sha256 check, the
  session), each once, in a fresh process (this one);
- the time to embed one sentence of the bundled corpus, N sentences one at a time, never seen before
  (the cache is the text's: a sentence seen again costs nothing): median, 95th percentile and mean;
- the resident memory the model adds;
- a claim debated offline (the local state machine, the bundled corpus) by each reader, the first run of
  each claim in the process: the embedding reader's extra time is its cache filling.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m claimcourt.bench.embedding_speed", description=__doc__)
    parser.add_argument("--sentences", type=int, default=300, help="corpus sentences to embed, one at a time")
    parser.add_argument("--claims", type=int, default=10, help="claims to debate with each reader")
    args = parser.parse_args(argv)
    from claimcourt.reasoning import embedding

    if not embedding.available():
        sys.exit("the embed extra is not installed: pip install -e '.[local,embed]'")
    from claimcourt.evidence.corpus import bundled_corpus_path

    with gzip.open(bundled_corpus_path(), "rt", encoding="utf-8") as lines:
        sentences = [json.loads(line)["text"] for line in lines][: args.sentences + 1]
    before = _rss_mb()
    started = time.perf_counter()
    import onnxruntime  # noqa: F401
    import tokenizers  # noqa: F401

    imported = time.perf_counter() - started
    started = time.perf_counter()
    embedding.embed(sentences[:1])
    loaded = time.perf_counter() - started
    times = []
    for sentence in sentences[1:]:
        began = time.perf_counter()
        embedding.embed([sentence])
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    print(f"model: {embedding.MODEL_ID}, {embedding.DIMENSION} dimensions, one thread")
    print(
        f"import onnxruntime + tokenizers: {imported * 1000:.0f} ms; first load and first sentence: "
        f"{loaded * 1000:.0f} ms"
    )
    print(
        f"a sentence ({len(times)} corpus sentences, one at a time): "
        f"median {statistics.median(times):.1f} ms, "
        f"p95 {times[int(0.95 * (len(times) - 1))]:.1f} ms, mean {statistics.fmean(times):.1f} ms"
    )
    print(f"resident memory: {before:.0f} MB before the model, {_rss_mb():.0f} MB after (peak)")
    _debates(args.claims)


def _debates(n: int) -> None:
    from claimcourt.bench.climate_fever import load_claims, run_claims
    from claimcourt.reasoning import stance_model

    claims = [c for c in load_claims() if c.half == "tune"][:n]
    for embedded in (False, True):
        stance_model.use(stance_model.shipped(embedded=embedded))
        try:
            with tempfile.TemporaryDirectory(prefix="claimcourt-embed-") as tmp:
                outcomes, _ = run_claims(claims, Path(tmp))
        finally:
            stance_model.use(None)
        walls = [o.wall_s for o in outcomes]
        print(
            f"a debate, {stance_model.shipped(embedded=embedded).reader} reader ({len(walls)} claims, each "
            f"run once): median {statistics.median(walls):.2f} s, mean {statistics.fmean(walls):.2f} s"
        )


if __name__ == "__main__":
    main()
