"""This machine's name and its processes: whether one still runs."""

from __future__ import annotations

import os

from wfs.platform import windows


def host_name() -> str:
    """This machine's name, as claims record it (`host:pid`)."""
    import socket  # deferred: only a claim names its host

    return socket.gethostname()


def process_alive(pid: int) -> bool:
    """Whether the process `pid` of this machine may still run (one that cannot be
    inspected, such as another user's, is assumed to)."""
    if pid <= 0:
        return False
    if windows.WINDOWS:
        return windows.process_alive(pid)
    try:
        os.kill(pid, 0)  # signal 0: the existence test POSIX defines
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether `pid` has ended and waits to be reaped (a process whose parent was
    killed may stay so for a while): known where /proc tells it, else assumed not."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return False
    return bool(fields) and fields[0] == b"Z"
