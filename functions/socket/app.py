"""The WebSocket API: $connect, $disconnect and subscribe (see claimcourt.api.socket)."""

from claimcourt.api.socket import handler

__all__ = ["handler"]
