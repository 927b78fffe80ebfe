"""The runner's watcher (POSIX): the process groups of steps never outlive the wfs
process that started them, however it ends. On Windows a job object does it
(groups.Group)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import Any

# The watcher (POSIX): a shell in a session of its own, one per wfs process that starts
# groups, so that a SIGKILL of wfs or of its process group does not reach it. It waits
# on a pipe whose other end only wfs holds, and nothing is ever written to it: its end
# of file says that wfs has ended, however. It then reads the groups still running from
# a file without a name that wfs keeps (`+G` a group started, `-G` it ended; emptied
# whenever no group runs: every step, agent and built-in goes through here), kills them
# (a process G that has no group of its own yet, by its pid), and ends.
#
# An end of file is a parent-death signal that holds for the whole group, whichever
# thread started it, for the price of a write to a file a group, which wakes no
# process (a watcher started with each step, or a prctl(PR_SET_PDEATHSIG) in a
# preexec_fn, would cost a process or the fast start of each, and the latter reaches
# the step's bash alone). The watcher is started before the first group, so that a
# group is known to it an instant after it exists; its starter shell ends at once, the
# watcher being its child in the background: nothing here waits for it or leaves a
# zombie of it. wfs only writes the file at given offsets, so the watcher, which shares
# its offset (its stdout), reads it from the start.
_WATCHER = """exec 3<&0 4<&1; (
read -r _
groups=' '
while IFS= read -r line; do
  case $line in
    +*) groups="$groups${line#+} " ;;
    -*) g=${line#-}
        case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
  esac
done <&4
for g in $groups; do kill -s KILL -- "-$g" || kill -s KILL "$g"; done
) <&3 3<&- >/dev/null &"""
# "lock"; "pipe" (wfs's end of the watcher's pipe), "file" (the file of groups), "size"
# (what it holds), "groups" (the groups running); "off" (no watcher could be started).
_watcher: dict[str, Any] = {}


def watch_group(group: int, started: bool) -> bool:
    """Tell this process's watcher that process group `group` started (`started`) or
    ended. Whether the watcher knows the group."""
    if sys.platform == "win32":  # a job object does it there (groups.Group)
        return False
    with _watcher_lock():
        groups: set[int] = _watcher.setdefault("groups", set())
        if started:
            groups.add(group)
        else:
            groups.discard(group)
        if not _ready_watcher():
            return False
        fd = _watcher["file"].fileno()
        try:
            if groups:
                line = f"{'+' if started else '-'}{group}\n".encode()
                _watcher["size"] += os.pwrite(fd, line, _watcher["size"])
            else:  # none runs: the file starts again, and stays small
                os.ftruncate(fd, 0)
                _watcher["size"] = 0
        except OSError:  # a full disk: what outlives wfs, --resume stops
            _watcher["off"] = True
            return False
        return started


def ready_watcher() -> bool:
    """Start this process's watcher, if none runs: before a group is started, so that
    the watcher knows the group an instant after it exists. Whether one runs."""
    with _watcher_lock():
        return _ready_watcher()


def _watcher_lock() -> Any:
    import threading  # deferred: already loaded with subprocess, by Group

    return _watcher.setdefault("lock", threading.Lock())


def _ready_watcher() -> bool:
    """(With the lock held.) Whether a watcher runs; one is started if none was."""
    if _watcher.get("off"):
        return False
    if "pipe" not in _watcher:
        started = _start_watcher()
        if started is None:
            _watcher["off"] = True  # steps still run; what outlives wfs, --resume stops
            return False
        _watcher["pipe"], _watcher["file"] = started
        _watcher["size"] = 0
    return True


def _start_watcher() -> tuple[int, Any] | None:
    """Start the watcher: wfs's end of its pipe and the file of groups (neither
    inherited by any other process), or None."""
    import subprocess  # deferred: only a command that runs a process pays for it
    import tempfile  # deferred: with the first group

    shell = "/bin/sh" if os.path.exists("/bin/sh") else shutil.which("sh")
    if shell is None:
        return None
    reading, writing = os.pipe()
    try:
        groups = tempfile.TemporaryFile(prefix="wfs-groups-")
        subprocess.run(
            [shell, "-c", _WATCHER],
            stdin=reading,
            stdout=groups,
            stderr=subprocess.DEVNULL,
            cwd=os.sep,
            env={},
            start_new_session=True,
        )
    except OSError:
        os.close(writing)
        return None
    finally:
        os.close(reading)
    return writing, groups


def _forget_watcher() -> None:
    """In a child forked from wfs (multiprocessing): the watcher is not its own, and
    its end of the pipe would keep the watcher from seeing wfs end."""
    pipe = _watcher.pop("pipe", None)
    groups = _watcher.pop("file", None)
    for key in ("lock", "groups", "size"):  # another thread may have held the lock
        _watcher.pop(key, None)
    if pipe is not None:
        with contextlib.suppress(OSError):
            os.close(pipe)
    if groups is not None:
        with contextlib.suppress(OSError):
            groups.close()  # this process's descriptor: the watcher has its own


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_watcher)
