"""Bus events (claim.check_requested, evidence.updated) from the monitor queue, in SQS batches."""

from claimcourt.triggers import handler

__all__ = ["handler"]
