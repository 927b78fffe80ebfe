"""The processes of steps that outlived their runner (a step that left its process
group on purpose): found by the `WFS_STEP` token in their environment, and stopped."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from wfs.platform.groups import killpg
from wfs.platform.signals import kill_signal
from wfs.platform.windows import WINDOWS


def stop_orphans(token: str, how: str | None = None) -> list[int]:
    """Kill the process groups of steps that outlived their runner, and wait until they
    are gone; the groups stopped. They are found by `WFS_STEP=token` in their
    environment (the runner's session, task and process), so no other process is ever
    hit: through /proc on Linux, through `ps` elsewhere (`how`: "proc" or "ps" to
    choose). On Windows a step's job object ends with its runner: nothing outlives it.
    """
    if WINDOWS:
        return []

    found = step_processes(token, how)
    groups = sorted(set(found.values()))
    for group in groups:
        _kill_group_now(group, [pid for pid, g in found.items() if g == group])
    deadline = time.monotonic() + 30
    while found and time.monotonic() < deadline:
        time.sleep(0.02)
        found = step_processes(token, how)
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


def step_processes(token: str, how: str | None = None) -> dict[int, int]:
    """Live (not zombie) processes whose environment holds `WFS_STEP=token`:
    pid -> process group. Never this process or its group."""
    if how is None:
        how = "proc" if os.path.exists("/proc/self/environ") else "ps"
    found = _from_proc(token) if how == "proc" else _from_ps(token)
    mine = os.getpid()
    getpgid: Callable[[int], int] | None = getattr(os, "getpgid", None)
    own_group = getpgid(mine) if getpgid is not None else None
    return {pid: g for pid, g in found.items() if pid != mine and g != own_group}


def _from_proc(token: str) -> dict[int, int]:
    """Linux: each process's environment and state from /proc."""
    wanted = f"WFS_STEP={token}".encode()
    found: dict[int, int] = {}
    try:
        entries = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return found
    for name in entries:
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                if wanted not in handle.read().split(b"\0"):
                    continue
            with open(f"/proc/{name}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 2 and fields[0] != "Z":
            found[int(name)] = int(fields[2])
    return found


def _from_ps(token: str) -> dict[int, int]:
    """Other POSIX systems (macOS): `ps` shows each process's environment after its
    command line (`-E` on BSD and macOS, `e` for procps)."""
    import subprocess  # deferred: only a command that runs a process pays for it

    columns = ["-o", "pid=", "-o", "pgid=", "-o", "stat=", "-o", "command="]
    forms = (["ps", "-A", "-E", "-ww", *columns], ["ps", "-A", "-ww", *columns, "e"])
    for argv in forms:
        try:
            shown = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL)
        except OSError:
            return {}
        if shown.returncode == 0:
            return parse_ps(shown.stdout.decode("utf-8", "replace"), token)
    return {}


def parse_ps(text: str, token: str) -> dict[int, int]:
    """pid -> group of the live processes in `ps -o pid=,pgid=,stat=,command=` output
    (environment shown) whose environment holds WFS_STEP=token as a whole word."""
    wanted = f"WFS_STEP={token}"
    found: dict[int, int] = {}
    for line in text.splitlines():
        parts = line.split(None, 3)
        if len(parts) < 4 or not parts[0].isdigit() or not parts[1].isdigit():
            continue
        pid, group, state, rest = parts
        if wanted in rest.split() and not state.startswith("Z"):
            found[int(pid)] = int(group)
    return found
