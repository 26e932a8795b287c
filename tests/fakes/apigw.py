"""API Gateway-shaped events, as HTTP API (payload format 2.0) and WebSocket APIs deliver them."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode


def http_event(
    method: str,
    path: str,
    *,
    body: Any = None,
    headers: dict[str, str] | None = None,
    query: dict[str, str] | None = None,
    raw_body: str | None = None,
) -> dict[str, Any]:
    text = raw_body if raw_body is not None else (None if body is None else json.dumps(body))
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    if text is not None:
        lowered.setdefault("content-type", "application/json")
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": urlencode(query or {}),
        "headers": lowered,
        "queryStringParameters": query or None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": "127.0.0.1",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "test",
            },
            "requestId": uuid.uuid4().hex,
            "routeKey": "$default",
            "stage": "$default",
            "time": "22/Nov/2026:00:00:00 +0000",
            "timeEpoch": 0,
        },
        "body": text,
        "isBase64Encoded": False,
    }


@dataclass
class LambdaContext:
    function_name: str = "claimcourt-local"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:claimcourt-local"
    aws_request_id: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return 900_000
