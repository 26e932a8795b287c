"""The one place errors become HTTP responses: RFC 9457 problem documents with a stable `code` and a
human `detail`. A client never sees a stack trace, an exception's repr or a key."""

from __future__ import annotations

import json
from typing import Any

from aws_lambda_powertools.event_handler import Response

from claimcourt.errors import (
    ConflictError,
    ForbiddenError,
    GoneError,
    InvalidRequestError,
    MalformedRequestError,
    NotFoundError,
    RateLimitedError,
    TooLargeError,
    UnauthorizedError,
    UnavailableError,
    UnreadableDocumentsError,
)

PROBLEM = "application/problem+json"
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    410: "Gone",
    413: "Payload too large",
    415: "Unsupported media type",
    422: "Unprocessable request",
    429: "Too many requests",
    500: "Internal error",
    503: "Unavailable",
}


def problem(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response[str]:
    # "about:blank": the status says what kind of problem it is; `code` is the stable, finer name.
    body = {"type": "about:blank", "title": TITLES[status], "status": status, "code": code, "detail": detail}
    body |= extra
    return Response(status_code=status, content_type=PROBLEM, body=json.dumps(body), headers=headers or {})


def problem_reply(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """The same problem, as the HTTP API's Lambda reply (for refusals made before the resolver)."""
    response = problem(status, code, detail, headers)
    return {
        "statusCode": status,
        "headers": {"Content-Type": PROBLEM, **(headers or {})},
        "body": response.body,
        "isBase64Encoded": False,
    }


def from_error(err: Exception) -> Response[str]:
    """Our named errors, mapped; anything else is a 500 that names nothing of the code."""
    if isinstance(err, InvalidRequestError):
        return problem(422, "invalid_request", err.message, field=err.field)
    if isinstance(err, UnauthorizedError):
        return problem(401, "unauthorized", str(err), headers={"WWW-Authenticate": "Bearer"})
    if isinstance(err, ForbiddenError):
        return problem(403, err.code, str(err))
    if isinstance(err, NotFoundError):
        return problem(404, "not_found", str(err))
    if isinstance(err, ConflictError):
        return problem(409, err.code, str(err))
    if isinstance(err, GoneError):
        return problem(410, err.code, str(err))
    if isinstance(err, MalformedRequestError):
        return problem(400, err.code, str(err))
    if isinstance(err, TooLargeError):
        return problem(413, err.code, str(err))
    if isinstance(err, UnreadableDocumentsError):
        return problem(422, "unreadable_document", str(err), documents=err.documents)
    if isinstance(err, UnavailableError):
        return problem(503, "unavailable", str(err))
    if isinstance(err, RateLimitedError):
        code = "too_many_runs" if err.limit == "concurrency" else "hourly_cap_reached"
        headers = {"Retry-After": str(err.retry_after_s)}
        return problem(429, code, err.message, headers=headers, retry_after_s=err.retry_after_s)
    return problem(500, "internal_error", "something went wrong on our side; the request was not completed")
