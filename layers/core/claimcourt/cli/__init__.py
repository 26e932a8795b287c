"""The command line, `claimcourt` (commands.py; corpus.py adds `claimcourt corpus`): above the
embedded runtime (`claimcourt.local`) and the benchmarks (`claimcourt.bench`), which it imports and
which never import it. The console script (`claimcourt.local.console:main`, a launcher) runs `entry`;
tests call `main`."""

from claimcourt.cli import corpus  # registers `claimcourt corpus` on main
from claimcourt.cli.commands import entry, main

__all__ = ["corpus", "entry", "main"]
