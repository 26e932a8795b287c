"""The web console's browser tests' harness: `claimcourt serve` in its own process on a free loopback
port (the offline reasoner, paced so a debate can be watched), a key made with the CLI, and Debian's
Chromium driven by Playwright (browsers cannot be downloaded here: the system binary is used)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, BrowserContext

from claimcourt.bench import processes
from claimcourt.settings import child_environment
from tests.integration.served import free_port

CLAIMCOURT = str(Path(sys.executable).parent / "claimcourt")
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "build" / "screenshots"  # written by the tests; the best are copied to docs/console/


def chromium_path() -> str:
    found = processes.chromium_path()
    if not found:
        raise AssertionError(
            "no Chromium: install Debian's package (apt-get install -y chromium), as .ci/run does"
        )
    return found


@dataclass
class Served:
    url: str
    key: str  # tenant acme's: it runs debates and reads the settings
    data_dir: Path
    operator_key: str  # tenant local's, as the person running `serve` makes: it may change the settings

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.key}"}, timeout=10)

    def start(self, claim: str, **request: Any) -> dict[str, Any]:
        with self.client() as client:
            reply = client.post("/runs", json={"claim": claim, **request})
            assert reply.status_code == 202, reply.text
            return dict(reply.json())

    def wait(self, run_id: str, timeout_s: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        with self.client() as client:
            while time.monotonic() < deadline:
                run = dict(client.get(f"/runs/{run_id}").json())
                if run["status"] != "running":
                    return run
                time.sleep(0.2)
        raise AssertionError(f"run {run_id} still running after {timeout_s} s")

    def idle(self, timeout_s: float = 60) -> None:
        """Until none of this tenant's runs is running (the cost guard's slots are all free)."""
        deadline = time.monotonic() + timeout_s
        with self.client() as client:
            while time.monotonic() < deadline:
                if all(r["status"] != "running" for r in client.get("/runs?limit=100").json()["runs"]):
                    return
                time.sleep(0.2)
        raise AssertionError("runs still running")


@contextmanager
def serve(data_dir: Path, **env: str) -> Iterator[Served]:
    environment = child_environment(
        processes.provider_setting,
        CLAIMCOURT_DATA_DIR=str(data_dir),
        CLAIMCOURT_PROVIDER="offline",
        CLAIMCOURT_OFFLINE_PACE_MS="300",
        CLAIMCOURT_HOURLY_RUNS_PER_TENANT="1000",
        **env,
    )

    def key_of(tenant: str) -> str:
        made = subprocess.run(
            [CLAIMCOURT, "keys", "create", "--tenant", tenant, "--label", "console tests"],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
        return made.stdout.strip().splitlines()[-1]

    key, operator_key = key_of("acme"), key_of("local")
    port = free_port()
    with processes.serving([CLAIMCOURT, "serve", "--port", str(port)], environment, port):
        yield Served(f"http://127.0.0.1:{port}", key, data_dir, operator_key)


def new_context(
    browser: Browser, served: Served, theme: str = "light", key: bool = True, operator: bool = False
) -> BrowserContext:
    """A desktop-sized browser context on the served console, with the key already given (or not): the
    tenant's, or with `operator` the operator's."""
    context = browser.new_context(
        base_url=served.url, color_scheme=theme, viewport={"width": 1280, "height": 900}
    )  # type: ignore[arg-type]
    if key:
        context.add_init_script(
            f"localStorage.getItem('cc.key') || localStorage.setItem("
            f"'cc.key', '{served.operator_key if operator else served.key}')"
        )
    return context
