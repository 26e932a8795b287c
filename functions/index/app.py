"""Uploads that reached the stack's bucket (S3 → EventBridge → the index queue), into their collections."""

from claimcourt.indexing import handler

__all__ = ["handler"]
