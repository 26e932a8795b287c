"""The pool of parked workers that moto's threads run on locally (claimcourt.local.threads)."""

from __future__ import annotations

import contextvars
import threading
from typing import Any

import pytest

from claimcourt.local.threads import PooledThread, PooledThreading, WorkerPool

SEEN: contextvars.ContextVar[str | None] = contextvars.ContextVar("seen", default=None)


def test_a_pooled_thread_is_started_alive_and_joined_like_a_thread() -> None:
    release, ran = threading.Event(), []
    thread = PooledThread(target=lambda: (release.wait(5), ran.append(threading.current_thread().name)))
    assert not thread.is_alive()
    thread.start()
    assert thread.is_alive()
    release.set()
    thread.join(5)
    assert not thread.is_alive()
    assert ran == ["claimcourt-pooled"]
    with pytest.raises(RuntimeError):
        thread.start()


def test_joining_a_pooled_thread_never_started_is_refused_as_for_a_thread() -> None:
    with pytest.raises(RuntimeError):
        PooledThread(target=lambda: None).join()


def test_a_finished_worker_parks_and_takes_the_next_work() -> None:
    pool = WorkerPool()
    done = [threading.Event() for _ in range(3)]
    names: list[int] = []
    for event in done:
        pool.run(lambda event=event: (names.append(threading.get_ident()), event.set()))
        assert event.wait(5)
        _wait_parked(pool, 1)
    assert pool.started == 1 and len(set(names)) == 1


def test_work_that_overlaps_gets_workers_of_its_own_and_no_more_stay_parked_than_allowed() -> None:
    pool = WorkerPool(max_parked=1)
    release = threading.Event()
    started = [threading.Event() for _ in range(3)]
    for event in started:
        pool.run(lambda event=event: (event.set(), release.wait(5)))
    assert all(event.wait(5) for event in started)  # all three at once
    release.set()
    _wait_parked(pool, 1)
    assert pool.started == 3 and pool.parked == 1


def test_each_work_runs_in_a_fresh_context_as_on_a_new_thread() -> None:
    pool, seen, done = WorkerPool(), [], threading.Event()

    def first() -> None:
        SEEN.set("first")

    def second() -> None:
        seen.append(SEEN.get())
        done.set()

    pool.run(first)
    _wait_parked(pool, 1)
    pool.run(second)
    assert done.wait(5)
    assert seen == [None]


def test_an_exception_is_reported_as_a_threads_would_be_and_the_worker_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reported: list[Any] = []
    monkeypatch.setattr(threading, "excepthook", reported.append)
    failing = PooledThread(target=lambda: 1 / 0)
    failing.start()
    failing.join(5)
    assert not failing.is_alive()
    assert [(r.exc_type, r.thread) for r in reported] == [(ZeroDivisionError, failing)]
    after = PooledThread(target=lambda: None)
    after.start()
    after.join(5)
    assert not after.is_alive()


def test_the_threading_stand_in_gives_pooled_threads_and_threadings_own_rest() -> None:
    stand_in = PooledThreading()
    assert stand_in.Thread is PooledThread
    assert stand_in.Lock is threading.Lock and stand_in.Event is threading.Event


def _wait_parked(pool: WorkerPool, count: int) -> None:
    for _ in range(500):
        if pool.parked >= count:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{pool.parked} parked, wanted {count}")


def test_settle_waits_for_every_pooled_thread_that_is_still_at_work() -> None:
    from claimcourt.local.threads import settle

    # Given a pooled thread that finishes only after settle() has begun waiting for it
    began, release, finished = threading.Event(), threading.Event(), []
    thread = PooledThread(target=lambda: (release.wait(30), finished.append(True)))
    thread.start()

    def settle_then_note() -> None:
        began.set()
        finished.append(settle())
        finished.append(thread.is_alive())  # as settle() returned

    waiter = threading.Thread(target=settle_then_note)
    waiter.start()
    assert began.wait(5)
    release.set()  # the work ends after settle() was asked
    waiter.join(30)
    # Then settle() returned only once the work was done, and said all had finished
    assert finished == [True, True, False]


def test_settle_says_so_when_a_thread_outlasts_its_bound() -> None:
    from claimcourt.local.threads import settle

    release = threading.Event()
    thread = PooledThread(target=lambda: release.wait(30))
    thread.start()
    try:
        assert settle(timeout_s=0.01) is False
    finally:
        release.set()
        thread.join(30)
