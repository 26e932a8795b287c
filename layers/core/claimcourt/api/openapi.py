"""Write the HTTP API's OpenAPI document: `python -m claimcourt.api.openapi [PATH]`
(default docs/openapi.json; a test checks the committed copy is current)."""

from __future__ import annotations

import sys
from pathlib import Path

from claimcourt.api.http import openapi_json

if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/openapi.json")
    target.write_text(openapi_json() + "\n")
    sys.stdout.write(f"wrote {target}\n")
