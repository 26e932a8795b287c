"""Posts new progress events (the main table's stream) to the WebSocket connections following their runs."""

from claimcourt.api.socket import notifier as handler

__all__ = ["handler"]
