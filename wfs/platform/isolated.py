"""Work run in a child process that can be stopped: a slow disk, a huge tree or a
catastrophic regular expression. multiprocessing (~11 ms) is imported when it is first
used, by runs with built-in steps."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from wfs.platform import windows
from wfs.platform.groups import POSIX_GROUPS, interruptible, left_until
from wfs.platform.signals import stop_signals
from wfs.platform.watcher import ready_watcher, watch_group
from wfs.platform.windows import WINDOWS

T = TypeVar("T")

_setpgid: Callable[[int, int], None] | None = getattr(os, "setpgid", None)


def run_isolated(
    function: Callable[..., T],
    args: tuple[Any, ...],
    timeout: float | None,
    waiting: Callable[[], AbstractContextManager[None]],
    start: str | None = None,
) -> T:
    """`function(*args)` run in a child process, so that a slow disk, a huge tree or a
    catastrophic regular expression can be stopped: TimeoutError after `timeout`
    seconds, and whatever `waiting()` raises while it waits (an interruption) stops it
    too. ChildProcessError when the child ends without an answer.

    The child is forked where the system can fork, else spawned (Windows), where
    `function` and `args` must be picklable (a function at a module's top level);
    `start` ("fork" or "spawn") chooses. Like a step, it never outlives this process:
    it is a process group of its own that the watcher knows (POSIX), or in a job
    object (Windows)."""
    import multiprocessing  # deferred on purpose: ~11 ms, paid by runs with built-ins

    start = start or ("fork" if hasattr(os, "fork") else "spawn")
    context: Any = multiprocessing.get_context(start)
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_isolated_child, args=(sender, function, args), daemon=True)
    watched, job = False, None
    if POSIX_GROUPS:
        ready_watcher()
    try:
        child.start()
        sender.close()
        if POSIX_GROUPS and _setpgid is not None:
            # Known to the watcher first, then out of this process's group: dead with
            # this process's group until then, killed by its pid the instant between.
            watched = watch_group(child.pid, True)
            with contextlib.suppress(OSError):
                _setpgid(child.pid, child.pid)
        elif WINDOWS:
            job = windows.job_for(child.pid)
        deadline = None if timeout is None else time.monotonic() + timeout
        with waiting():
            while not receiver.poll(interruptible(left_until(deadline))):
                if deadline is not None and time.monotonic() >= deadline:
                    raise TimeoutError(timeout)
            try:
                answer: T = receiver.recv()
            except EOFError:
                raise ChildProcessError("the child ended without an answer") from None
        child.join()
        return answer
    except BaseException:
        if child.pid is not None:
            child.kill()
            child.join()
        raise
    finally:
        receiver.close()
        if watched:
            watch_group(child.pid, False)
        if job is not None:
            windows.close(job)


def _isolated_child(sender: Any, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
    for signum in stop_signals():  # the parent decides; this child just ends
        signal.signal(signum, signal.SIG_DFL)
    try:
        answer = function(*args)
    except BaseException:
        sys.exit(70)  # no traceback: the parent reports a built-in without an answer
    sender.send(answer)
    sender.close()
