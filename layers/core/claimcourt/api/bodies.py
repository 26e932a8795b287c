"""Reading JSON a client sent: the one parser behind the HTTP API's bodies and the WebSocket's messages."""

from __future__ import annotations

import json
from typing import Any


def read_json(text: str) -> Any:
    """json.loads, with what it cannot read safely refused as malformed like any other bad JSON
    (json.JSONDecodeError, which Powertools turns into our 400 `malformed_json`): nesting past the
    interpreter's recursion limit (RecursionError) and an integer past Python's 4,300 digits
    (ValueError). Both fit well under the body limit, and either would otherwise escape as a 500."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except (RecursionError, ValueError) as err:
        reason = "nested too deep" if isinstance(err, RecursionError) else "a number too long to read"
        raise json.JSONDecodeError(reason, text, 0) from None
