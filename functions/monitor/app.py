"""Bus events (claim.check_requested, evidence.updated) from the monitor queue, in SQS batches."""

from claimcourt.watching.events import handler

__all__ = ["handler"]
