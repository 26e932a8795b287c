"""A provider that answers as another does, after a pause: `CLAIMCOURT_OFFLINE_PACE_MS` slows the
offline reasoner (which answers in about a millisecond) so a debate can be watched as it unfolds,
in a demo or in the web console's browser tests."""

from __future__ import annotations

import time
from typing import Any

from claimcourt.reasoning.base import Provider, ProviderReply, Task


class Paced:
    def __init__(self, inner: Provider, pace_ms: int) -> None:
        self.inner = inner
        self.pace_s = pace_ms / 1000
        self.name = inner.name
        self.sends_temperature = inner.sends_temperature

    def complete(self, task: Task[Any], model: str, feedback: str | None = None) -> ProviderReply:
        time.sleep(self.pace_s)
        return self.inner.complete(task, model, feedback)
