"""The web console: static files (claimcourt/console/, plain ES modules, no build step) served by the
HTTP API itself, at `/` and `/console/<file>`, with no key: the page asks for the key and sends it
with every API call, as any client does. The same routes serve it from `claimcourt serve` and from
the deployed API function, so the page and its API share an origin and the content security policy
lets the page talk to nothing but that origin, its WebSocket API and, on a stack, the bucket its
uploads go to."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from urllib.parse import urlsplit

INDEX = "index.html"
PREFIX = "/console/"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,80}\.(html|js|css|svg|txt)$")
TYPES = {
    "html": "text/html; charset=utf-8",
    "js": "text/javascript; charset=utf-8",
    "css": "text/css; charset=utf-8",
    "svg": "image/svg+xml",
    "txt": "text/plain; charset=utf-8",
}


def is_console_path(path: str) -> bool:
    """Whether a request path is the console's (public: the files hold no data)."""
    return path == "/" or (path.startswith(PREFIX) and "/" not in path[len(PREFIX) :])


@lru_cache(maxsize=64)
def asset(name: str) -> tuple[str, str] | None:
    """(content type, text) of one console file, or None if there is no such file."""
    if not _NAME.fullmatch(name):
        return None
    found = resources.files("claimcourt").joinpath("console", name)
    if not found.is_file():
        return None
    return TYPES[name.rsplit(".", 1)[1]], found.read_text(encoding="utf-8")


def websocket_origin(websocket_url: str | None) -> str:
    """The WebSocket API's origin (scheme, host, port) for the policy's connect-src, or '' if none."""
    if not websocket_url:
        return ""
    parts = urlsplit(websocket_url)
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        return ""
    return f"{parts.scheme}://{parts.netloc}"


def security_headers(websocket_url: str | None, upload_origin: str | None = None) -> dict[str, str]:
    """What every console file goes out with: a policy that allows the page's own files, its own
    HTTP API ('self'), its WebSocket API and, on a stack, the bucket its uploads are POSTed to
    (presigned), and nothing else: no inline script, no other origin, no framing."""
    connect = " ".join(filter(None, ["'self'", websocket_origin(websocket_url), upload_origin]))
    policy = "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            f"connect-src {connect}",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )
    return {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }
