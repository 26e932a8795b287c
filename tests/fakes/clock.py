"""A clock a test holds: what a collaborator's `now()` reads, moved on only by the test."""

from __future__ import annotations

from datetime import datetime

from claimcourt.models import utcnow


class Clock:
    """The time `now()` reads (`at`, which the test moves on); the wall clock's at its making by default.
    A test that expects two admissions in one of the cost guard's hours holds the clock still: the
    wall clock may cross the top of an hour between them."""

    def __init__(self, at: datetime | None = None) -> None:
        self.at = at or utcnow()

    def __call__(self) -> datetime:
        return self.at
