"""The cyclic garbage collector, paused for the console script's start-up and resumed by the local
runtime once it has started (see console.py, the console script's launcher).

Start-up builds about a million objects that live as long as the process (modules, moto's and
pydantic's tables, the handlers): the collector walked all of them three times while they were
being built (about 100 ms of a `claimcourt run`) and found nothing to free. So it is paused while
they are built, and resumed by the local runtime once it has started, with that heap frozen out of
its reach (`gc.freeze`): a long `serve` still collects what its runs leave behind, and its full
collections no longer walk the start-up heap (a 50 ms pause every few runs otherwise). A command
that never starts the runtime (`runs`, `show`, `keys` …) is over before it would matter.

This module imports nothing else, so the launcher can pause before the CLI's imports start.
"""

from __future__ import annotations

import gc

_paused = False


def pause_collector() -> None:
    """For start-up: no cyclic collection until `resume_collector`."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """Start-up is over: freeze what it built, and collect again (only if `pause_collector` paused)."""
    global _paused
    if _paused:
        gc.freeze()
        gc.enable()
        _paused = False
