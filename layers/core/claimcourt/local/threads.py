"""Threads that moto starts for the local runtime, run on a pool of parked ones.

moto's interpreter starts a thread for every execution, every Parallel branch and every Map worker:
fourteen in a debate, most of them on its critical path (a Parallel's branches are started one after
the other, and the state waits for the last). Starting a thread after the run has sat idle in a model
call costs about 0.3 ms here (57 µs when the CPU is busy), against waking a parked one, so a
`PooledThread` hands its work to an idle worker of the pool, and a worker that finishes parks again.

A `PooledThread` is a `threading.Thread` that is started, is alive and is joined as one; its work runs
in a fresh context, as on a new thread (a logger's per-thread keys do not carry over from the work
a worker did before). What it is not: `native_id` and `ident` stay unset, as for a thread never started.
"""

from __future__ import annotations

import contextvars
import functools
import queue
import sys
import threading
import time
from collections.abc import Callable

MAX_PARKED = 64  # workers kept parked beyond this many end instead: a burst does not stay resident


class WorkerPool:
    def __init__(self, max_parked: int = MAX_PARKED) -> None:
        self._parked: queue.SimpleQueue[queue.SimpleQueue[Callable[[], None]]] = queue.SimpleQueue()
        self._max_parked = max_parked
        self._lock = threading.Lock()
        self.started = 0  # workers started, for the tests

    @property
    def parked(self) -> int:
        return self._parked.qsize()

    def run(self, work: Callable[[], None]) -> None:
        """Run `work` on a parked worker, or on a new one if none is parked."""
        try:
            inbox = self._parked.get_nowait()
        except queue.Empty:
            inbox = queue.SimpleQueue()
            with self._lock:
                self.started += 1
            threading.Thread(target=self._serve, args=(inbox,), name="claimcourt-pooled", daemon=True).start()
        inbox.put(work)

    def _serve(self, inbox: queue.SimpleQueue[Callable[[], None]]) -> None:
        while True:
            contextvars.Context().run(inbox.get())
            if self.parked >= self._max_parked:  # two ending at once may both park: the cap is loose by one
                return
            self._parked.put(inbox)


POOL = WorkerPool()
_live: set[PooledThread] = set()  # started and not yet done
_live_lock = threading.Lock()
# settle()'s one bound: a branch that starts after its execution ended runs a few lines; a branch still
# in a model call when a sibling failed would hold the process's exit as long as the call: not waited for.
STRAGGLER_GRACE_S = 5.0


def settle(timeout_s: float = STRAGGLER_GRACE_S) -> bool:
    """Wait for every pooled thread to finish its work (joined, not polled); False if some did not
    within `timeout_s`. The local runtime settles before it restores moto's own code: a Parallel
    branch whose sibling failed before it began still starts after the execution has ended, and it
    must run with the runtime's code, not moto's (which raises on a thread for a stopped program)."""
    with _live_lock:
        waiting = list(_live)
    deadline = time.monotonic() + timeout_s  # one bound for all: a thread still in a model call is left
    for thread in waiting:
        thread._pooled_done.wait(max(0.0, deadline - time.monotonic()))  # type: ignore[union-attr]
    with _live_lock:
        return not (_live & set(waiting))


class PooledThread(threading.Thread):
    """Stands in for `threading.Thread` where moto starts its workers."""

    _pooled_done: threading.Event | None = None

    def start(self) -> None:
        if self._pooled_done is not None:
            raise RuntimeError("threads can only be started once")
        done = self._pooled_done = threading.Event()
        with _live_lock:
            _live.add(self)
        POOL.run(functools.partial(self._pooled_run, done))

    def _pooled_run(self, done: threading.Event) -> None:
        try:
            self.run()
        except BaseException:  # as a thread would: reported through threading.excepthook
            exc_type, exc_value, exc_traceback = sys.exc_info()
            threading.excepthook(threading.ExceptHookArgs((exc_type, exc_value, exc_traceback, self)))
        finally:
            with _live_lock:
                _live.discard(self)
            done.set()

    def is_alive(self) -> bool:
        return self._pooled_done is not None and not self._pooled_done.is_set()

    def join(self, timeout: float | None = None) -> None:
        if self._pooled_done is None:
            raise RuntimeError("cannot join thread before it is started")
        self._pooled_done.wait(timeout)


class PooledThreading:
    """Stands in for the `threading` module in a moto module that starts its workers through it:
    `Thread` is a PooledThread, anything else is threading's own."""

    Thread = PooledThread

    def __getattr__(self, name: str) -> object:
        return getattr(threading, name)
