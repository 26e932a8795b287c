"""The web console's verdict page: how soon it paints, on `claimcourt serve` with the offline reasoner.

Starts `claimcourt serve` in its own process on a free loopback port (a temporary data directory, a
key made with the CLI), scores one claim, then opens the run's verdict page `--loads` times in
Debian's Chromium (Playwright pointed at the system binary), each time in a fresh browser context,
so nothing is cached: the page, its modules and the run are all fetched again. For each load it
reads the browser's own paint timings (first paint, first contentful paint, from navigation start)
and the console's mark `cc:verdict-rendered` (the score, sub-claims and sources in the page). Then
the same with a warm cache (reloads in one context). Prints the median, p90 and worst of each, and
whether the median first paint meets the goal (< 300 ms); exit status 1 if it does not.

    python -m claimcourt.bench.console_paint --loads 20
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from claimcourt.bench.processes import chromium_path, free_port, serving
from claimcourt.settings import child_environment

GOAL_MS = 300.0
CLAIM = "Arctic sea ice has declined since 1979"
TIMINGS = """() => ({
  first_paint: performance.getEntriesByName('first-paint')[0]?.startTime ?? null,
  first_contentful_paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
  verdict_rendered: performance.getEntriesByName('cc:verdict-rendered')[0]?.startTime ?? null,
})"""


def _chromium() -> str:
    found = chromium_path()
    if not found:
        raise SystemExit("no Chromium: apt-get install -y chromium (Debian's package)")
    return found


def _summary(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return (
        f"  {name:<26} median {statistics.median(ordered):6.0f} ms   p90 {p90:6.0f} ms"
        f"   worst {ordered[-1]:6.0f} ms"
    )


def _loads(browser: Any, url: str, key: str, loads: int, warm: bool) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {"first_paint": [], "first_contentful_paint": [], "verdict_rendered": []}
    context = None
    for i in range(loads + (1 if warm else 0)):
        if context is None or not warm:
            if context is not None:
                context.close()
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(f"localStorage.setItem('cc.key', '{key}')")
            page = context.new_page()
        if warm and i > 0:
            page.reload()  # the same document again: its files from the cache
        else:
            page.goto(url)
        page.wait_for_selector("#sources")
        timings = page.evaluate(TIMINGS)
        if warm and i == 0:
            continue  # the first load fills the cache
        for name, value in timings.items():
            if value is not None:
                found[name].append(float(value))
    if context is not None:
        context.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, default=20, help="page loads per cache state")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    claimcourt = str(Path(sys.executable).parent / "claimcourt")
    with tempfile.TemporaryDirectory() as data_dir:
        env = child_environment(CLAIMCOURT_DATA_DIR=data_dir, CLAIMCOURT_PROVIDER="offline")
        key = subprocess.run(
            [claimcourt, "keys", "create", "--tenant", "bench"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        with serving([claimcourt, "serve", "--port", str(port)], env, port):
            with httpx.Client(
                base_url=base, headers={"Authorization": f"Bearer {key}"}, timeout=10
            ) as client:
                run_id = client.post("/runs", json={"claim": CLAIM}).json()["run_id"]
                while client.get(f"/runs/{run_id}").json()["status"] == "running":
                    time.sleep(0.1)
            url = f"{base}/#/runs/{run_id}"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
                _loads(browser, url, key, 3, warm=False)  # the server's first requests: imports, caches
                cold = _loads(browser, url, key, args.loads, warm=False)
                warm = _loads(browser, url, key, args.loads, warm=True)
                browser.close()
    print(f"the verdict page on claimcourt serve (offline reasoner), {args.loads} loads each")
    for label, found in (
        ("cold cache (a new browser context each load)", cold),
        ("warm cache (reloads)", warm),
    ):
        print(label)
        for name, values in found.items():
            print(_summary(name.replace("_", " "), values))
    median = statistics.median(cold["first_paint"])
    verdict = "met" if median < GOAL_MS else "NOT met"
    print(f"first paint, cold: median {median:.0f} ms (goal < {GOAL_MS:.0f} ms): {verdict}")
    if median >= GOAL_MS:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
