"""How fast claimcourt starts: `claimcourt run` offline, end to end, and each handler's cold import.

    python -m claimcourt.bench.startup [--repeat 5] [--skip-run] [--skip-imports] [--cli COMMAND]

1. `claimcourt run CLAIM` with the offline reasoner and the bundled corpus, each in a fresh process
   (the console script, as a user runs it), into one scratch data directory: one unmeasured run
   first (it builds what a first run builds, such as the BM25 index), then --repeat measured runs.
   `claimcourt --help` is timed beside each, alternating, so the machine's noise shows: the
   difference is what a run costs over starting the CLI at all. Goal: median wall ≤ 1.5 s.
2. Each handler in template.yaml (functions/*/app.py), imported cold in a fresh process whose
   sys.path starts with the function's folder, as Lambda does: median of --repeat, with .pyc (after
   one import that writes them) and without any (PYTHONDONTWRITEBYTECODE, and PYTHONPYCACHEPREFIX
   set to an empty directory, so no cached bytecode is found, the standard library's included).
   The time is measured inside the process, from `import app` to having its handler, so interpreter
   start-up is not in it; its CPU time is printed beside it (what other load on a shared machine
   disturbs least). Goal: every median with .pyc ≤ 250 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from claimcourt.bench.processes import provider_setting
from claimcourt.local.template import load_template, project_root
from claimcourt.settings import child_environment

CLAIM = "Global warming is causing sea levels to rise and glaciers to retreat"
RUN_GOAL_S = 1.5
IMPORT_GOAL_MS = 250
IMPORT_PROBE = """
import sys, time
sys.path.insert(0, {function!r})
started, cpu = time.perf_counter(), time.process_time()
import {module}
{module}.{attribute}
print(round((time.perf_counter() - started) * 1000, 1), round((time.process_time() - cpu) * 1000, 1))
"""


def _offline_env(data_dir: Path) -> dict[str, str]:
    """The environment of an offline run: no provider keys, the offline reasoner, a scratch store."""
    return child_environment(
        provider_setting, CLAIMCOURT_PROVIDER="offline", CLAIMCOURT_DATA_DIR=str(data_dir), COLUMNS="100"
    )


def _cli() -> list[str]:
    """The console script beside this interpreter (what `pip install` made), else the same entry point."""
    script = Path(sys.executable).parent / "claimcourt"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from claimcourt.local.console import main; main()"]


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict[str, str], expect: int = 0) -> tuple[float, float]:
    """(wall s, CPU s) of one process: CPU time is what other load on the machine disturbs least."""
    cpu, started = _children_cpu_s(), time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=300)
    wall = time.perf_counter() - started
    if done.returncode != expect:
        raise RuntimeError(f"{' '.join(command[:3])} … exited {done.returncode}:\n{done.stderr[-2000:]}")
    return wall, _children_cpu_s() - cpu


def bench_run(repeat: int, claim: str, cli: list[str]) -> float:
    with tempfile.TemporaryDirectory(prefix="claimcourt-startup-") as tmp:
        env = _offline_env(Path(tmp))
        first, _ = _timed([*cli, "run", claim], env)
        runs: list[tuple[float, float]] = []
        helps: list[tuple[float, float]] = []
        for _ in range(repeat):
            helps.append(_timed([*cli, "--help"], env))
            runs.append(_timed([*cli, "run", claim], env))
    run_s, help_s = statistics.median(w for w, _ in runs), statistics.median(w for w, _ in helps)
    print(f"`claimcourt run` offline, {repeat} fresh processes after one first run ({first:.2f} s):")
    for name, times in (("run", runs), ("--help", helps)):
        walls = [w for w, _ in times]
        print(
            f"  {name:<7} wall median {statistics.median(walls):5.2f} s  (min {min(walls):.2f}, max"
            f" {max(walls):.2f})   CPU median {statistics.median(c for _, c in times):5.2f} s"
        )
    print(f"  run − help: wall {run_s - help_s:5.2f} s")
    met = "met" if run_s <= RUN_GOAL_S else "NOT met"
    print(f"  goal: run ≤ {RUN_GOAL_S} s wall on a warm machine: {met}")
    return run_s


def _cold_import_ms(function_dir: Path, handler: str, env: dict[str, str]) -> tuple[float, float]:
    """(wall ms, CPU ms) of importing the handler, measured inside a fresh process."""
    module, attribute = handler.rsplit(".", 1)
    probe = IMPORT_PROBE.format(function=str(function_dir), module=module, attribute=attribute)
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=False, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(f"{function_dir.name}: import failed:\n{done.stderr[-2000:]}")
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def _figures(times: list[tuple[float, float]]) -> str:
    walls, cpus = [w for w, _ in times], [c for _, c in times]
    return f"{statistics.median(walls):>6.0f} {max(walls):>6.0f} {statistics.median(cpus):>6.0f}"


def bench_imports(repeat: int) -> float:
    root = project_root()
    functions = load_template(root).functions
    bytecode = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    base = child_environment(lambda name: name in bytecode)
    slowest = 0.0
    with tempfile.TemporaryDirectory(prefix="claimcourt-nopyc-") as empty:
        without_pyc = {**base, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": empty}
        print(f"\nhandler cold import, median of {repeat} fresh processes (ms; goal ≤ {IMPORT_GOAL_MS} wall)")
        print(f"{'':<22} {'---- with .pyc ----':>21}   {'----- no .pyc -----':>21}")
        print(f"{'function':<22} {'wall':>6} {'worst':>6} {'CPU':>6}   {'wall':>6} {'worst':>6} {'CPU':>6}")
        for logical, spec in functions.items():
            folder = root / spec.code_uri
            _cold_import_ms(folder, spec.handler, base)  # writes the .pyc files the next ones read
            warm = [_cold_import_ms(folder, spec.handler, base) for _ in range(repeat)]
            cold = [_cold_import_ms(folder, spec.handler, without_pyc) for _ in range(repeat)]
            if any(Path(empty).iterdir()):  # a probe must never leave bytecode for the next one
                shutil.rmtree(empty)
                Path(empty).mkdir()
            median = statistics.median(w for w, _ in warm)
            slowest = max(slowest, median)
            flag = "" if median <= IMPORT_GOAL_MS else "  over the goal"
            print(f"{logical:<22} {_figures(warm)}   {_figures(cold)}{flag}")
    met = "met" if slowest <= IMPORT_GOAL_MS else "NOT met"
    print(f"slowest median with .pyc {slowest:.0f} ms (goal ≤ {IMPORT_GOAL_MS} ms): {met}")
    return slowest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="measured processes per figure")
    parser.add_argument("--claim", default=CLAIM)
    parser.add_argument("--cli", help="a command to time instead of the console script")
    parser.add_argument("--skip-run", action="store_true", help="only the handlers' imports")
    parser.add_argument("--skip-imports", action="store_true", help="only `claimcourt run`")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.skip_run:
        bench_run(args.repeat, args.claim, shlex.split(args.cli) if args.cli else _cli())
    if not args.skip_imports:
        bench_imports(args.repeat)


if __name__ == "__main__":
    main()
