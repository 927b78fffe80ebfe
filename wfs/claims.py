"""Who is executing a task: claim owners (`host:pid`) and whether they still run.

Stdlib only: the fast read path (wfs/fastpath.py) shows claims with their state.
"""

from __future__ import annotations

import os


def owner_id() -> str:
    """This process, as it is recorded in `execution.claimed_by`."""
    return f"{_host()}:{os.getpid()}"


def claim_alive(owner: str) -> bool:
    """Whether the `host:pid` owner of a claim may still be running.

    A process of another machine is never assumed dead.
    """
    host, _, pid = owner.rpartition(":")
    if host != _host() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _host() -> str:
    return os.uname().nodename  # what gethostname() gives, without importing socket
