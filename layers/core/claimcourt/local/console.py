"""The `claimcourt` console script (pyproject: `claimcourt = "claimcourt.local.console:main"`): a
launcher that pauses the cyclic garbage collector (local/collector.py says why), then starts the
command line (`claimcourt.cli.entry`), which ends with os._exit.

The launcher is the root of the import graph: it starts the command line, which sits above `local`
and `bench`, and nothing imports the launcher (tests/integration/test_layout.py), so no import
circle runs through it. It stays at this path so that installed console scripts keep working.
Before the CLI's imports it imports only the collector, which imports nothing else.
"""

from __future__ import annotations

from claimcourt.local.collector import pause_collector


def main() -> None:
    pause_collector()
    from claimcourt.cli import entry

    entry()
