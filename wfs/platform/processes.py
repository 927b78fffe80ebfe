"""This machine's name and its processes: whether one still runs."""

from __future__ import annotations

import os

from wfs.platform.windows import WINDOWS


def host_name() -> str:
    """This machine's name, as claims record it (`host:pid`).

    On POSIX the node name of uname(2), which is what gethostname(2) returns (glibc and
    the BSDs read it there) without importing socket (2 to 3 ms, which every claim
    paid); elsewhere (Windows) socket's gethostname."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return str(uname().nodename)
    import socket  # deferred: only a claim names its host

    return socket.gethostname()


def process_alive(pid: int) -> bool:
    """Whether the process `pid` of this machine may still run: it exists and has not
    ended waiting to be reaped (a zombie, whose parent was killed, may stay so for a
    while). One that cannot be inspected, such as another user's, is assumed to run.

    On POSIX: kill(pid, 0), the existence test POSIX defines, and where /proc tells
    it, whether the process is a zombie; some 20 µs and no import. psutil answers the
    same, but its import adds about a sixth to wfs's own start-up (against `import
    wfs.cli` in the same run), which every `wfs status` that shows a running claim
    would pay. Windows has no such call: there psutil opens the process (kernel32, as
    wfs did by hand)."""
    if pid <= 0:
        return False
    if WINDOWS:
        import psutil  # deferred: ~10 ms, only a claim's liveness asks

        try:
            return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
        except psutil.NoSuchProcess:
            return False
        except psutil.AccessDenied:
            return True
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
    """Whether `pid` has ended and waits to be reaped: known where /proc tells it,
    else assumed not."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return False
    return bool(fields) and fields[0] == b"Z"
