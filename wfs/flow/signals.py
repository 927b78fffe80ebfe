"""Ctrl-C, SIGTERM and SIGHUP (where it exists) during `wfs execute`: stop the step, keep
the task resumable.

The handlers never interrupt wfs's own bookkeeping (claims, run records, views): a
signal only raises `Interrupted` while the engine waits for a step's process (`armed`).
At any other moment it is remembered, and the engine raises it at its next safe point
(`check`), so files are never left half-updated by a signal. Which signals exist is
wfs.platform's to say.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from types import FrameType

from wfs import platform

HANDLED = platform.stop_signals()


class Interrupted(BaseException):
    """A signal asked wfs to stop. BaseException: no `except Exception` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(platform.signal_name(signum))
        self.signum = signum
        self.exit_code = 128 + signum  # 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP
        self.name = platform.signal_name(signum)
        self.step_key: str | None = None  # the step it stopped, when one was running


_pending: int | None = None
_armed = False


def _handle(signum: int, _frame: FrameType | None) -> None:
    global _pending
    _pending = signum
    if _armed:
        raise Interrupted(signum)


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Install the handlers for the duration of an execution."""
    global _pending
    _pending = None
    previous = {signum: signal.signal(signum, _handle) for signum in HANDLED}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def armed() -> Iterator[None]:
    """While a step's process runs: a signal raises `Interrupted` at once."""
    global _armed
    _armed = True
    try:
        check()  # a signal that came just before
        yield
    finally:
        _armed = False


def check() -> None:
    """Raise `Interrupted` if a signal arrived since the handlers were installed."""
    if _pending is not None:
        raise Interrupted(_pending)


def pending() -> int | None:
    return _pending
