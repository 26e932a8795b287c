"""The HTTP API: runs, their events, claims and their drift series (see claimcourt.api.http)."""

from claimcourt.api.http import handler

__all__ = ["handler"]
