"""Signals: which ones stop wfs, their names and numbers here, and the strongest one."""

from __future__ import annotations

import os
import signal


def stop_signals() -> tuple[int, ...]:
    """The signals that ask wfs to stop: SIGINT (Ctrl-C), SIGTERM, and SIGHUP (the
    terminal closed) where it exists (not on Windows)."""
    names = ("SIGINT", "SIGTERM", "SIGHUP")
    return tuple(int(getattr(signal, name)) for name in names if hasattr(signal, name))


def signal_number(name: str) -> int | None:
    """The number of the signal called `name` (`SIGTERM`) here, or None."""
    number = getattr(signal, name, None) if name.startswith("SIG") else None
    return int(number) if number is not None else None


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def raise_signal(signum: int) -> None:
    """Deliver `signum` to this process, as if it came from outside."""
    signal.raise_signal(signum)


def kill_signal() -> int:
    """SIGKILL where it exists; elsewhere the strongest signal there is."""
    return int(getattr(signal, "SIGKILL", signal.SIGTERM))


def kill_self() -> None:
    """End this process at once, as a SIGKILL from outside would: no `finally`, no
    `atexit`, no buffer flushed (Windows: TerminateProcess). The crash point of
    `store.write_point`."""
    os.kill(os.getpid(), kill_signal())
    os._exit(137)  # not reached where the signal kills
