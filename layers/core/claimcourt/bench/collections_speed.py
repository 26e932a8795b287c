"""How fast document collections are: ingest throughput, and retrieval at 100,000 passages.

Run: PYTHONPATH=layers/core python -m claimcourt.bench.collections_speed [--documents 250] [--passages 100000]

1. Ingest: a folder of N documents in a temp dir, a fifth each PDF (8 pages), DOCX, HTML, Markdown and
   plain text, their prose the bundled corpus's sentences; `ingest` end to end, as `corpus add` runs it
   (read, extract, cut into passages, then write and index them as one version). Prints documents and
   passages a second, and how the time splits between reading and indexing.
2. Scale: a collection of P passages (the bundled corpus's sentences, three to five to a passage, in
   random order, under 2,000 document titles) put in directly: the build, the index on disk, then in a
   fresh process (as a run's would be) the load and the search latency over 200 claims of CLIMATE-FEVER
   dev, the collection alone and merged with the bundled corpus, and that process's peak memory.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from claimcourt.bench.documents import make_docx, make_pdf
from claimcourt.evidence.collections import LocalCollections, MergedSource, Prepared
from claimcourt.evidence.corpus import CorpusSource, bundled_corpus_path
from claimcourt.evidence.ingest import ingest
from claimcourt.evidence.passages import Passage
from claimcourt.settings import child_environment

CLAIMS_FILE = Path(__file__).parent / "data" / "climate_fever_claims_dev.jsonl.gz"
KINDS = ("pdf", "docx", "html", "md", "txt")
LIMIT = 5  # passages a query, as a standard run asks


def _sentences() -> list[str]:
    with gzip.open(bundled_corpus_path(), "rt", encoding="utf-8") as lines:
        return [json.loads(line)["text"] for line in lines]


def _claims(n: int) -> list[str]:
    with gzip.open(CLAIMS_FILE, "rt", encoding="utf-8") as lines:
        return [json.loads(line)["claim"] for line, _ in zip(lines, range(n), strict=False)]


def _paragraphs(draw: random.Random, sentences: list[str], count: int) -> list[str]:
    return [" ".join(draw.sample(sentences, draw.randint(3, 6))) for _ in range(count)]


def _write_documents(folder: Path, count: int, sentences: list[str]) -> int:
    """`count` documents of every kind in turn, about 4,000 characters of prose each; their bytes."""
    draw = random.Random(7)
    size = 0
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        title = f"Report {i}"
        paragraphs = _paragraphs(draw, sentences, 8)
        path = folder / f"doc-{i:04d}.{kind}"
        if kind == "pdf":  # a paragraph a page, wrapped at about 90 characters a line
            pages = ["\n".join(_wrapped(p)) for p in paragraphs]
            data = make_pdf(pages, title=title)
        elif kind == "docx":
            data = make_docx([title, *paragraphs])
        elif kind == "html":
            body = "".join(f"<p>{p}</p>" for p in paragraphs)
            page = f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{body}</article>"
            data = (page + "<footer>Contact us</footer></body></html>").encode()
        elif kind == "md":
            data = (f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n").encode()
        else:
            data = "\n\n".join(paragraphs).encode()
        path.write_bytes(data)
        size += len(data)
    return size


def _wrapped(text: str, width: int = 90) -> list[str]:
    lines, line = [], ""
    for word in text.encode("latin-1", "replace").decode("latin-1").split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def ingest_throughput(workdir: Path, documents: int, sentences: list[str]) -> None:
    folder = workdir / "documents"
    folder.mkdir()
    size = _write_documents(folder, documents, sentences)
    library = LocalCollections(workdir / "collections")
    library.create("bench", "reports", "T2")
    read_at: list[float] = []
    started = time.perf_counter()
    outcomes = ingest(
        library, "bench", "reports", [str(folder)], on_read=lambda *_: read_at.append(time.perf_counter())
    )
    ended = time.perf_counter()
    added = [o for o in outcomes if o.status == "added"]
    passages = sum(o.document.passages for o in added if o.document is not None)
    wall = ended - started
    reading = read_at[-1] - started
    print(f"ingest: {len(added)} of {documents} documents ({size / 1e6:.1f} MB: {', '.join(KINDS)} in turn)")
    rates = f"{len(added) / wall:7.1f} documents/s   {passages / wall:8.0f} passages/s"
    print(f"  {wall:6.2f} s   {rates} ({passages} passages)")
    print(f"  of which reading and cutting {reading:.2f} s, writing and indexing {ended - read_at[-1]:.2f} s")
    by_kind: dict[str, list[float]] = {}
    for previous, now, outcome in zip([started, *read_at], read_at, outcomes, strict=False):
        by_kind.setdefault(Path(outcome.source).suffix, []).append(now - previous)
    print("  reading a document, median by kind: " + ", ".join(
        f"{kind[1:]} {statistics.median(times) * 1000:.1f} ms" for kind, times in sorted(by_kind.items())
    ))  # fmt: skip


def scale(workdir: Path, passages: int, sentences: list[str]) -> None:
    draw = random.Random(11)
    documents = max(1, min(2000, passages // 50))  # 50 passages a document, 2,000 at 100,000
    per = passages // documents
    library = LocalCollections(workdir / "collections")
    library.create("bench", "large", "T2")
    prepared = [
        Prepared(
            source=f"synthetic-{d:04d}",
            url=f"https://example.org/report-{d}.pdf",
            title=f"{draw.choice(sentences).split(' ')[0]} report {d}",
            kind="pdf",
            content_hash=f"{d:064x}",
            size=0,
            passages=[Passage(p, page=1 + i // 4) for i, p in enumerate(_paragraphs(draw, sentences, per))],
            pages=per // 4 + 1,
        )
        for d in range(documents)
    ]
    started = time.perf_counter()
    library.put("bench", "large", prepared)
    build = time.perf_counter() - started
    info = library.get("bench", "large")
    index_dir = workdir / "collections" / "bench" / "large" / "index"
    on_disk = sum(p.stat().st_size for p in index_dir.rglob("*") if p.is_file())
    print(f"\nscale: {info.passages:,} passages in {info.documents:,} documents")
    print(f"  build (write passages, tokenize, index, rename into place): {build:.1f} s")
    print(f"  index on disk {on_disk / 1e6:.0f} MB")
    print(f"  this process's peak RSS so far: {_peak_mb():.0f} MB")
    probe = subprocess.run(
        [sys.executable, "-m", "claimcourt.bench.collections_speed", "--probe", str(workdir)],
        capture_output=True, text=True, check=True, env=child_environment(),
    )  # fmt: skip
    print(probe.stdout, end="")


def probe(workdir: Path) -> None:
    """A fresh process, as a run's: load the 100k collection's index, search it alone and with climate."""
    import bm25s  # noqa: F401  (its import, ~0.1 s, is the process's, not the collection's)

    started = time.perf_counter()
    library = LocalCollections(workdir / "collections", CorpusSource(index_dir=workdir / "index"))
    large = library.source("bench", "large")
    load_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    library.source("bench", "large")
    again_ms = (time.perf_counter() - started) * 1000
    climate = library.source("bench", "climate")
    climate.index()  # built (or loaded) here, not in the first search
    queries = _claims(200)
    rows: list[tuple[str, list[float]]] = []
    for label, source in (("alone", large), ("merged with climate", MergedSource([large, climate]))):
        source.search(queries[0], limit=LIMIT)  # the first search maps the pages it reads
        took = []
        for q in queries:
            t = time.perf_counter()
            source.search(q, limit=LIMIT)
            took.append((time.perf_counter() - t) * 1000)
        rows.append((label, sorted(took)))
    print(
        f"  a fresh process: first load (manifest, index memory-mapped) {load_ms:.1f} ms, "
        f"then {again_ms:.2f} ms"
    )
    for label, took in rows:
        print(
            f"  search, limit {LIMIT}, {len(took)} claims, {label}: p50 {_pct(took, 0.5):.1f} ms  "
            f"p99 {_pct(took, 0.99):.1f} ms  mean {statistics.fmean(took):.1f} ms"
        )
    print(f"  that process's peak RSS: {_peak_mb():.0f} MB")


def _pct(sorted_values: list[float], fraction: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, round(fraction * (len(sorted_values) - 1)))]


def _peak_mb() -> float:
    """This process's peak resident memory: VmHWM, which a process started by exec has of its own
    (getrusage's ru_maxrss carries over the parent's peak at the fork)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes, where /proc is not


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--documents", type=int, default=250)
    parser.add_argument("--passages", type=int, default=100_000)
    parser.add_argument("--probe", type=Path, default=None, help=argparse.SUPPRESS)
    args: Any = parser.parse_args(argv)
    if args.probe is not None:
        probe(args.probe)
        return
    sentences = _sentences()
    with tempfile.TemporaryDirectory(prefix="claimcourt-collections-") as tmp:
        ingest_throughput(Path(tmp), args.documents, sentences)
        scale(Path(tmp), args.passages, sentences)


if __name__ == "__main__":
    main()
