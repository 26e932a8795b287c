"""`claimcourt serve` killed outright (SIGKILL) with debates in flight at the concurrency cap, then
started again on the same data: the runs it was running end failed with the reason within seconds,
their slots come back, and a new run is admitted. Real processes, a real OpenAI-compatible server on
loopback that keeps every model call waiting."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from claimcourt.bench.processes import serving
from tests.e2e.console import CLAIMCOURT
from tests.fakes.provider_servers import FakeOpenAIServer, openai_json_completion
from tests.integration.served import free_port

pytestmark = pytest.mark.timeout(120)
CAP = 3


def test_a_killed_server_restarted_ends_its_runs_and_frees_their_slots_within_seconds(tmp_path: Path) -> None:
    with FakeOpenAIServer() as model:
        # Given a model that answers nothing while the test runs
        for _ in range(20):
            model.enqueue(200, openai_json_completion({}), held=True)
        env = {
            **os.environ,
            "CLAIMCOURT_DATA_DIR": str(tmp_path),
            "OPENAI_BASE_URL": model.url,
            "CLAIMCOURT_MAX_ACTIVE_RUNS": str(CAP),
        }
        env.pop("ANTHROPIC_API_KEY", None)
        key = subprocess.run(
            [CLAIMCOURT, "keys", "create", "--tenant", "acme"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        auth = {"Authorization": f"Bearer {key}"}
        port = free_port()
        # and a server running as many debates as the cap allows
        with serving([CLAIMCOURT, "serve", "--port", str(port)], env, port) as first:
            base = f"http://127.0.0.1:{port}"
            runs = []
            for i in range(CAP):
                reply = httpx.post(f"{base}/runs", json={"claim": f"Sea levels are rising {i}"}, headers=auth)
                assert reply.status_code == 202, reply.text
                runs.append(reply.json()["run_id"])
            assert httpx.post(f"{base}/runs", json={"claim": "one more"}, headers=auth).status_code == 429
            while len(model.requests) < CAP:  # every debate is waiting on the model
                time.sleep(0.05)
            # When the server is killed outright
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=10)
        # and started again on the same data
        restarted_at = time.monotonic()
        with serving([CLAIMCOURT, "serve", "--port", str(port)], env, port):
            # Then within 10 s its runs are failed with the reason, and a new run is admitted
            ended: dict[str, dict[str, object]] = {}
            while time.monotonic() - restarted_at < 10 and len(ended) < CAP:
                for run_id in runs:
                    view = httpx.get(f"{base}/runs/{run_id}", headers=auth).json()
                    if view["status"] != "running":
                        ended[run_id] = view
                time.sleep(0.1)
            assert {v["status"] for v in ended.values()} == {"failed"} and len(ended) == CAP
            assert {v["error"] for v in ended.values()} == {"the process running it stopped"}
            admitted = httpx.post(f"{base}/runs", json={"claim": "Glaciers are retreating"}, headers=auth)
            assert admitted.status_code == 202, admitted.text
            assert time.monotonic() - restarted_at < 10
