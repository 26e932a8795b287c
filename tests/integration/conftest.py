from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import MakeDeps
from tests.integration.served import Served, serving


@pytest.fixture
def served(make_deps: MakeDeps) -> Iterator[Served]:
    """The local server (HTTP and WebSocket) over a fresh store, offline reasoner, golden evidence."""
    with serving(make_deps()) as s:
        yield s
