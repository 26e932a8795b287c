"""What the benches (and the browser tests) give the processes they start: a free loopback port, a
filter for the provider keys a child must not inherit, a server started and waited for, and Debian's
Chromium. The environment itself is handed on by claimcourt.settings.child_environment."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def provider_setting(name: str) -> bool:
    """A variable that would send a child's calls to a model: a provider key or base URL."""
    return name.endswith("_API_KEY") or name in ("OPENAI_BASE_URL", "GEMINI_BASE_URL", "XAI_BASE_URL")


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
