"""The command line, `claimcourt` (commands.py): above the embedded runtime (`claimcourt.local`) and
the benchmarks (`claimcourt.bench`), which it imports and which never import it. The console script
(`claimcourt.local.console:main`, a launcher) runs `entry`; tests call `main`."""

from claimcourt.cli.commands import entry, main

__all__ = ["entry", "main"]
