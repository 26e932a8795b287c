"""Documents made in the test (claimcourt.bench.documents makes them: the collections bench uses them
too); urls are served by tests/fakes/web.py's LoopbackWeb."""

from __future__ import annotations

from claimcourt.bench.documents import make_docx, make_pdf, zip_bomb

__all__ = ["make_docx", "make_pdf", "zip_bomb"]
