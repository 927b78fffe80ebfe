"""Who is executing a task: claim owners (`host:pid`) and whether they still run.

Light to import: `wfs status` shows claims with their state.
"""

from __future__ import annotations

import os

from wfs import platform


def owner_id() -> str:
    """This process, as it is recorded in `execution.claimed_by`."""
    return f"{platform.host_name()}:{os.getpid()}"


def claim_alive(owner: str) -> bool:
    """Whether the `host:pid` owner of a claim may still be running.

    A process of another machine is never assumed dead.
    """
    host, _, pid = owner.rpartition(":")
    if host != platform.host_name() or not pid.isdigit():
        return True
    return platform.process_alive(int(pid))
