"""Posts new progress events (the main table's stream) to the WebSocket connections following their runs."""

from claimcourt.api.notify import handler

__all__ = ["handler"]
