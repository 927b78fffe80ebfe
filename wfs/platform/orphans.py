"""The processes of steps that outlived their runner (a step that left its process
group on purpose): found by the `WFS_STEP` token in their environment, and stopped."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from wfs.platform.groups import killpg
from wfs.platform.signals import kill_signal
from wfs.platform.windows import WINDOWS


def stop_orphans(token: str) -> list[int]:
    """Kill the process groups of steps that outlived their runner, and wait until they
    are gone; the groups stopped. They are found by `WFS_STEP=token` in their
    environment (the runner's session, task and process), so no other process is ever
    hit. On Windows a step's job object ends with its runner: nothing outlives it.
    """
    if WINDOWS:
        return []

    found = step_processes(token)
    groups = sorted(set(found.values()))
    for group in groups:
        _kill_group_now(group, [pid for pid, g in found.items() if g == group])
    deadline = time.monotonic() + 30
    while found and time.monotonic() < deadline:
        time.sleep(0.02)
        found = step_processes(token)
    return groups


def _kill_group_now(group: int, pids: list[int]) -> None:
    if killpg is not None:
        targets = [(killpg, group)]
    else:
        targets = [(os.kill, pid) for pid in pids]
    for kill, target in targets:
        try:
            kill(target, kill_signal())
        except (ProcessLookupError, PermissionError):
            pass


def step_processes(token: str) -> dict[int, int]:
    """Live (not zombie) processes whose environment holds `WFS_STEP=token`:
    pid -> process group. Never this process or its group.

    psutil reads each process's environment where the system shows it (/proc on
    Linux, sysctl on macOS and the BSDs; a process of another user is passed over).
    It takes some 40 ms for 120 processes where reading /proc by hand took 2 to 15, and
    `ps` on macOS 150: a price paid only when a stopped task resumes after its runner
    died, or by `doctor --fix`."""
    import psutil  # deferred: ~10 ms, only finding a dead runner's steps reads processes

    getpgid: Callable[[int], int] | None = getattr(os, "getpgid", None)
    mine = os.getpid()
    own_group = getpgid(mine) if getpgid is not None else None
    found: dict[int, int] = {}
    for process in psutil.process_iter():
        try:
            if process.environ().get("WFS_STEP") != token:
                continue
            if process.status() == psutil.STATUS_ZOMBIE:
                continue
            group = getpgid(process.pid) if getpgid is not None else process.pid
        except (psutil.Error, OSError):  # gone, a zombie, or not ours to read
            continue
        if process.pid != mine and group != own_group:
            found[process.pid] = group
    return found
