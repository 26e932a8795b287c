"""Which process owns a lease, and whether it is gone: a CLI run killed with `kill -9` while no
`serve` runs cannot end its run nor give its slot back, so the next CLI run does (runs.reclaim_abandoned).

A process is named by its host, its pid and when it started. The start (Linux: the boot's id and
the process's start in clock ticks since boot, from /proc) tells a pid the system has given to
another process since from the owner itself; where /proc is missing it is None, and a live pid is
taken for the owner (the safe side: that run's slot is waited for, never taken from it)."""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from claimcourt.models import LeaseOwner

PROC = Path("/proc")


@cache
def _boot_id() -> str | None:
    try:
        return (PROC / "sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def _stat(pid: int) -> tuple[str, str] | None:
    """(state, start in clock ticks since boot) of a process, from /proc/<pid>/stat; None if unknown."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after its end.
    fields = stat[stat.rindex(")") + 2 :].split()
    return fields[0], fields[19]  # state (field 3), starttime (field 22)


def _started(pid: int) -> str | None:
    stat, boot = _stat(pid), _boot_id()
    return None if stat is None or boot is None else f"{boot}/{stat[1]}"


@cache
def _pid_namespace() -> str | None:
    try:
        return str((PROC / "self/ns/pid").stat().st_ino)
    except OSError:
        return None


def this_process() -> LeaseOwner:
    return LeaseOwner(
        host=socket.gethostname(),
        pid=os.getpid(),
        started=_started(os.getpid()),
        pid_namespace=_pid_namespace(),
    )


def recorded_owner_gone(recorded: dict[str, Any]) -> bool:
    """`owner_gone` for a run's owner as the local runtime recorded it (artifacts.OWNER). A record from
    before owners named their pid namespace was made in this one, as only a process here could."""
    try:
        owner = LeaseOwner.model_validate({"pid_namespace": _pid_namespace(), **recorded})
    except ValidationError:
        return False
    return owner_gone(owner)


def owner_gone(owner: LeaseOwner) -> bool:
    """True when the owner is known to have stopped: it ran on this host, and no process has its pid,
    or the one that has it now started at another time (or is a zombie: killed, not yet reaped).
    A process on another host, or in another pid namespace (a container beside this one, sharing its
    hostname), or in one unknown, is never known gone from here."""
    if owner.host != socket.gethostname():
        return False
    if owner.pid_namespace is None or owner.pid_namespace != _pid_namespace():
        return False
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's: its start still tells whether it is the owner
        pass
    stat = _stat(owner.pid)
    if stat is not None and stat[0] in ("Z", "X"):  # dead, its exit status not yet collected
        return True
    now = _started(owner.pid)
    return owner.started is not None and now is not None and now != owner.started
