"""A boto3 client made at its first use: a handler's cold start does not pay (~50-100 ms) for a
client its invocation may never need, and threads share the one made."""

from __future__ import annotations

import threading
from typing import Any


class LazyClient:
    def __init__(self, service: str, **kwargs: Any) -> None:
        self.service = service
        self._kwargs = kwargs
        self._client: Any = None
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._client is None:
                import boto3

                self._client = boto3.client(self.service, **self._kwargs)
            return self._client
