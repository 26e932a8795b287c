"""What the benches (and the browser tests) give the processes they start: a free loopback port,
this process's environment adjusted, and Debian's Chromium. The one place a bench reads os.environ,
and only to hand it on whole: a child process inherits the caller's environment (less its provider
keys); no setting is read here, the product's own are read by claimcourt.settings only."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def provider_setting(name: str) -> bool:
    """A variable that would send a child's calls to a model: a provider key or base URL."""
    return name.endswith("_API_KEY") or name == "OPENAI_BASE_URL"


def child_env(drop: Callable[[str], bool] = lambda name: False, **overrides: str) -> dict[str, str]:
    """This process's environment, without the variables `drop` names, with `overrides`."""
    return {k: v for k, v in os.environ.items() if not drop(k)} | overrides


def chromium_path() -> str | None:
    """Debian's Chromium (`apt-get install chromium`, as .ci/run does), found on the PATH."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextmanager
def serving(command: list[str], env: dict[str, str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    """A server process (`claimcourt serve --port PORT`, say), once its /health answers on loopback;
    stopped at the end unless the caller already stopped it (killed it, say). Its stderr goes to a
    file, read if it does not start: a pipe nobody reads would stop the server once it filled."""
    with tempfile.TemporaryFile() as stderr:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            process.kill()
            process.wait(timeout=10)
            stderr.seek(0)
            raise RuntimeError(f"the server did not start: {stderr.read().decode(errors='replace')!r}")
        try:
            yield process
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
