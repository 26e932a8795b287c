"""`claimcourt serve` under load: concurrent runs, and concurrent reads of a finished run.

The real local HTTP server (LocalServer under uvicorn on 127.0.0.1, the local runtime, a SQLite
store in a temporary directory, the bundled BM25 corpus warmed up front) runs in a child process,
so that the load generator here never holds the server's GIL. The reasoner is bench/latency.py's
LatencyProvider: the offline reasoner's answers after a fixed sleep per LLM call, standing in for
a model. Every request carries an API key and goes through the API handler.

1. Concurrent runs. After a warm-up run (handler imports, the one ASL parse; not counted), one run
   alone, then `--runs` runs submitted at once (the cost guard's caps raised to admit them all). A
   run is submitted with POST /runs and polled with GET /runs/{id} every `--poll` seconds until it
   is no longer running; it ends at its record's `finished_at` (the same clock, so the poll interval
   does not blur the figure, though the polls are load on the server). Prints the one run's wall,
   the batch's wall (first submit to last end) and their ratio (goal ≤ 1.5), the per-run min,
   median and max of the batch, and how long the batch took to be admitted. Any run that does not
   succeed fails the benchmark (exit status 1).
2. Read load. `--clients` keep-alive connections GET /runs/{id} of a finished run (its full result)
   for `--duration` seconds, each sending the next request when the reply is in. Prints p50 and p99
   latency, requests per second, the number of requests and of non-200 replies. The readers speak
   HTTP/1.1 on bare asyncio streams: httpx costs this process more CPU per request than the server
   spends, so with it the figures measured the client.

Where /proc exists, each phase also prints the CPU the server used (per run or per request, and as
a share of one core: the GIL makes one core its ceiling), and what this process and every other
process on the machine used meanwhile, which says whether the figures were measured on a quiet box.

    python -m claimcourt.bench.server_load --latency 0.3 --runs 20 --clients 50 --duration 10
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from claimcourt.bench.latency import CLAIMS
from claimcourt.bench.processes import free_port
from claimcourt.settings import child_environment

DB_FILE = "claimcourt.sqlite3"  # the file wiring.build_store uses, so `claimcourt show` could read it
TENANT = "bench"
HEALTH_TIMEOUT_S = 60.0
RUN_TIMEOUT_S = 600.0
RUN_GOAL = 1.5


# ---------------------------------------------------------------- the server (in the child process)


def serve_child(port: int, data_dir: Path, latency: float, max_active: int) -> None:
    """The server, as `claimcourt serve` builds it but with the scripted reasoner; until SIGTERM."""
    from claimcourt.local.collector import pause_collector

    pause_collector()  # as the console script starts; the runtime resumes it, the start-up heap frozen
    logging.getLogger("claimcourt").setLevel(logging.WARNING)
    from claimcourt.bench.latency import LatencyProvider
    from claimcourt.evidence.corpus import CorpusSource
    from claimcourt.local.server import serve
    from claimcourt.reasoning.reasoner import Reasoner
    from claimcourt.settings import Settings
    from claimcourt.store.sqlite import SqliteStore
    from claimcourt.wiring import Deps, build_idempotency

    settings = Settings(
        data_dir=data_dir,
        provider="offline",  # every role to the scripted reasoner, whatever keys the environment holds
        max_active_runs=max_active,
        hourly_runs_per_tenant=1000,
    )
    store = SqliteStore(data_dir / DB_FILE)
    corpus = CorpusSource()
    corpus.warm()  # the index is built once per process; do not bill it to the first run
    reasoner = Reasoner({"offline": LatencyProvider(latency)}, settings.route, store, settings.budget_usd)
    deps = Deps(
        settings=settings,
        store=store,
        reasoner=reasoner,
        evidence=corpus,
        idempotency=build_idempotency(settings, store),
    )

    def quiet() -> None:  # after the handlers are loaded: their loggers are configured on import
        for name in ("claimcourt", "claimcourt-api", "uvicorn", "uvicorn.error"):
            logging.getLogger(name).setLevel(logging.WARNING)

    serve(deps, "127.0.0.1", port, on_start=quiet)


# ---------------------------------------------------------------- the load generator (this process)


@dataclass(frozen=True)
class CpuClock:
    """CPU seconds used so far by the server, by this process and by the whole machine (all from
    /proc: None elsewhere). The machine's share tells whether anything else was competing."""

    server: float | None
    own: float
    machine: float | None

    @classmethod
    def read(cls, server_pid: int) -> CpuClock:
        tick = os.sysconf("SC_CLK_TCK")
        try:
            fields = Path(f"/proc/{server_pid}/stat").read_text().rsplit(")", 1)[1].split()
            server: float | None = (int(fields[11]) + int(fields[12])) / tick
            total = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
            machine: float | None = (sum(total) - total[3] - total[4]) / tick  # all but idle and iowait
        except OSError:
            server = machine = None
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return cls(server, usage.ru_utime + usage.ru_stime, machine)

    def since(self, start: CpuClock, wall_s: float, count: int, unit: str) -> str:
        if self.server is None or start.server is None or self.machine is None or start.machine is None:
            return ""
        server, own = self.server - start.server, self.own - start.own
        others = max(0.0, self.machine - start.machine - server - own)
        return (
            f"server CPU {server:.2f} s ({server / count * 1000:.1f} ms {unit},"
            f" {server / wall_s:.0%} of a core); this process {own / wall_s:.0%},"
            f" other processes {others / wall_s:.0%} of a core"
        )


def issue_bench_key(data_dir: Path) -> str:
    from claimcourt.access import issue_key
    from claimcourt.store.sqlite import SqliteStore

    store = SqliteStore(data_dir / DB_FILE)
    try:
        key, _ = issue_key(store, TENANT, label="server_load bench")
    finally:
        store.close()
    return key


@dataclass(frozen=True)
class Finished:
    run_id: str
    submitted: float  # time.time() just before the POST
    accepted: float  # time.time() when the 202 came back
    ended: float  # the record's finished_at, as time.time()
    seen: float  # time.time() when a poll first saw it terminal

    @property
    def wall_s(self) -> float:
        return self.ended - self.submitted


async def wait_healthy(client: httpx.AsyncClient, child: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if child.poll() is not None:
            raise SystemExit(f"the server exited with status {child.returncode} before it was healthy")
        try:
            if (await client.get("/health")).status_code == 200:
                return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.1)
    raise SystemExit(f"the server was not healthy after {HEALTH_TIMEOUT_S:.0f} s")


async def run_one(client: httpx.AsyncClient, claim: str, poll_s: float) -> Finished:
    submitted = time.time()
    reply = await client.post("/runs", json={"claim": claim})
    accepted = time.time()
    if reply.status_code != 202:
        raise SystemExit(f"POST /runs answered {reply.status_code}: {reply.text[:500]}")
    run_id = str(reply.json()["run_id"])
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        await asyncio.sleep(poll_s)
        polled = await client.get(f"/runs/{run_id}")
        if polled.status_code != 200:
            raise SystemExit(f"GET /runs/{run_id} answered {polled.status_code}: {polled.text[:500]}")
        body: dict[str, Any] = polled.json()
        if body["status"] == "running":
            continue
        seen = time.time()
        if body["status"] != "succeeded":
            raise SystemExit(f"run {run_id} ended {body['status']}: {body.get('error')}")
        ended = datetime.fromisoformat(body["finished_at"]).timestamp()
        return Finished(run_id, submitted, accepted, ended, seen)
    raise SystemExit(f"run {run_id} was still running after {RUN_TIMEOUT_S:.0f} s")


@dataclass
class ReadLoad:
    latencies_s: list[float]
    non_200: int
    errors: int
    elapsed_s: float


async def read_reply(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """One HTTP/1.1 reply, read to its end: the status, and whether the server keeps the connection."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split(" ", 2)[1])
    headers = {
        name.strip().lower(): value.strip().lower() for name, _, value in (h.partition(":") for h in head[1:])
    }
    if "content-length" in headers:
        await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        while True:
            size = int((await reader.readline()).split(b";")[0], 16)
            await reader.readexactly(size + 2)  # the chunk and its CRLF (the last one: no trailers)
            if size == 0:
                break
    else:
        raise ValueError("a reply with neither Content-Length nor chunked encoding")
    return status, headers.get("connection") != "close"


async def read_load(base_url: str, key: str, path: str, clients: int, duration_s: float) -> ReadLoad:
    """`clients` keep-alive connections, each sending GET `path` again as soon as the reply is in.
    A bare HTTP/1.1 client on asyncio streams: httpx spends about 1.8 ms of CPU a request, which
    saturates this process's core before the server's (measured: ~98% of a core at ~540 per second)."""
    url = httpx.URL(base_url)
    host, port = url.host, url.port or 80
    request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {key}\r\n\r\n".encode()
    latencies: list[float] = []
    counts = {"non_200": 0, "errors": 0}
    started = time.perf_counter()
    deadline = started + duration_s

    async def client() -> None:
        reader: asyncio.StreamReader | None = None
        writer: asyncio.StreamWriter | None = None
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            try:
                if writer is None or reader is None:
                    reader, writer = await asyncio.open_connection(host, port)
                writer.write(request)
                status, keep = await read_reply(reader)
            except (OSError, EOFError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                counts["errors"] += 1
                keep, status = False, 0
            else:
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    counts["non_200"] += 1
            if not keep and writer is not None:
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return ReadLoad(latencies, counts["non_200"], counts["errors"], time.perf_counter() - started)


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, round(q / 100 * len(sorted_values) + 0.5))
    return sorted_values[min(rank, len(sorted_values)) - 1]


async def bench(base_url: str, key: str, child: subprocess.Popen[bytes], args: argparse.Namespace) -> None:
    limits = httpx.Limits(max_connections=max(args.runs, args.clients), max_keepalive_connections=None)
    auth = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base_url, headers=auth, timeout=60, limits=limits) as client:
        await wait_healthy(client, child)
        print(
            f"claimcourt serve on {base_url} (SQLite store, BM25 corpus); "
            f"latency per LLM call {args.latency * 1000:.0f} ms; polls every {args.poll * 1000:.0f} ms"
        )
        await run_one(client, CLAIMS[-1], args.poll)  # warm-up: handler imports, the one ASL parse

        start = CpuClock.read(child.pid)
        alone = await run_one(client, CLAIMS[0], args.poll)
        alone_cpu = CpuClock.read(child.pid).since(start, alone.wall_s, 1, "a run")
        start = CpuClock.read(child.pid)
        batch = await asyncio.gather(
            *(run_one(client, CLAIMS[i % len(CLAIMS)], args.poll) for i in range(args.runs))
        )
        first = min(f.submitted for f in batch)
        batch_wall = max(f.ended for f in batch) - first
        batch_cpu = CpuClock.read(child.pid).since(start, batch_wall, args.runs, "a run")
        seen_wall = max(f.seen for f in batch) - first
        walls = sorted(f.wall_s for f in batch)
        ratio = batch_wall / alone.wall_s
        print("\nconcurrent runs (submit → terminal)")
        alone_seen = alone.seen - alone.submitted
        print(f"  {'one run alone':<22} {alone.wall_s:7.2f} s   (seen by the poller {alone_seen:.2f} s)")
        print(
            f"  {f'{args.runs} runs at once':<22} {batch_wall:7.2f} s   "
            f"(first submit → last terminal; seen by the poller {seen_wall:.2f} s)"
        )
        print(f"  {'ratio':<22} {ratio:7.2f}     (goal ≤ {RUN_GOAL})")
        print(
            f"  per run of the {args.runs}:  min {walls[0]:.2f} s, "
            f"median {statistics.median(walls):.2f} s, max {walls[-1]:.2f} s"
        )
        last_accepted = max(f.accepted for f in batch) - first
        print(
            f"  all {args.runs} accepted (202) {last_accepted:.2f} s after the first submit "
            f"(one alone: {alone.accepted - alone.submitted:.3f} s)"
        )
        if alone_cpu:
            print(f"  one run alone: {alone_cpu}")
            print(f"  {args.runs} runs at once: {batch_cpu}")

        print(f"\nread load: GET /runs/{{id}} of a finished run, {args.clients} clients, {args.duration:g} s")
        start = CpuClock.read(child.pid)
        load = await read_load(base_url, key, f"/runs/{alone.run_id}", args.clients, args.duration)
        read_cpu = CpuClock.read(child.pid).since(
            start, load.elapsed_s, max(1, len(load.latencies_s)), "a request"
        )
    if not load.latencies_s:
        raise SystemExit("read load: no request completed")
    ms = sorted(x * 1000 for x in load.latencies_s)
    print(f"  {'requests':<22} {len(ms):7d}     ({len(ms) / load.elapsed_s:.0f} per second)")
    print(f"  {'latency':<22} p50 {percentile(ms, 50):.1f} ms, p99 {percentile(ms, 99):.1f} ms")
    print(f"  {'non-200':<22} {load.non_200:7d}     (transport errors {load.errors})")
    if read_cpu:
        print(f"  {read_cpu}")
    if ratio > RUN_GOAL:
        print(f"\nthe {args.runs}-run ratio {ratio:.2f} is over its goal of {RUN_GOAL}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per LLM call")
    parser.add_argument("--runs", type=int, default=20, help="runs submitted at once")
    parser.add_argument("--clients", type=int, default=50, help="concurrent readers")
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of read load")
    parser.add_argument("--poll", type=float, default=0.25, help="seconds between a run's status polls")
    # The child process: serve on this port, over this data directory.
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.runs < 1 or args.clients < 1 or args.duration <= 0 or args.poll <= 0:
        parser.error("--runs and --clients must be at least 1, --duration and --poll above 0")

    if args.serve is not None:
        if args.data_dir is None:
            parser.error("--serve needs --data-dir")
        serve_child(args.serve, args.data_dir, args.latency, max_active=args.runs + 1)
        return

    with tempfile.TemporaryDirectory(prefix="claimcourt-server-load-") as tmp:
        key = issue_bench_key(Path(tmp))
        port = free_port()
        command = [sys.executable, "-m", "claimcourt.bench.server_load", "--serve", str(port)]
        command += ["--data-dir", tmp, "--latency", str(args.latency), "--runs", str(args.runs)]
        env = child_environment(POWERTOOLS_LOG_LEVEL="WARNING")
        # Its own session: Ctrl-C reaches this process only, which then stops the server itself.
        child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, start_new_session=True)
        try:
            asyncio.run(bench(f"http://127.0.0.1:{port}", key, child, args))
        finally:
            child.terminate()  # uvicorn shuts down on SIGTERM, and the process ends
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


if __name__ == "__main__":
    main()
