"""The lock of a session, through filelock: LockFileEx on Windows, flock(2) where it
exists, else filelock's marker file. filelock is imported when a lock is first taken
(about 20 ms, paid by writes only)."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported when first used (see the module's docstring)
    from filelock import BaseFileLock


# How often a waiting writer tries the lock again.
LOCK_POLL_SECONDS = 0.01


def lock_class(system: str = sys.platform, flock: bool | None = None) -> type[BaseFileLock]:
    """The filelock class that locks a session here: LockFileEx on Windows; flock(2)
    where it exists (the lock earlier wfs versions take, so they exclude each other);
    else filelock's marker file, which a crashed holder's peers on this machine reclaim.

    `system` and `flock` are what this Python has unless given (the tests choose)."""
    import filelock  # deferred on purpose: ~20 ms, paid by writes only

    if system == "win32":
        return filelock.WindowsFileLock
    if filelock.has_fcntl if flock is None else flock:
        return filelock.UnixFileLock
    soft: type[BaseFileLock] = filelock.SoftFileLock
    return soft


class FileLock:
    """Holds the lock file at `path` for a `with` block (or from acquire() to
    release()), waiting at most `timeout` seconds (then TimeoutError). Re-entrant within
    a thread: a nested hold of the same path is counted, and the lock is released when
    the outermost one ends, or when this object is collected (keep a reference while
    holding). The system releases a native lock when its process dies, whatever its
    state; the fallback's marker file is reclaimed by the next waiter on this machine."""

    def __init__(self, path: str, timeout: float, kind: type[BaseFileLock] | None = None) -> None:
        import filelock  # deferred: ~20 ms, paid by writes only

        kind = lock_class() if kind is None else kind
        # (Not issubclass(kind, SoftFileLock): naming that class imports its modules.)
        soft = not issubclass(kind, (filelock.UnixFileLock, filelock.WindowsFileLock))
        # One instance per path (is_singleton) is what makes a nested hold re-entrant.
        # No soft fallback for the native locks: a marker file would outlive a crash.
        self.lock = kind(
            path,
            is_singleton=True,
            poll_interval=LOCK_POLL_SECONDS,
            fallback_to_soft=False,
            preserve_lock_file=not soft,
        )
        self.timeout = timeout

    def acquire(self) -> None:
        """Take the lock (or count one more hold of it); TimeoutError when another
        process keeps it past the timeout."""
        import filelock  # deferred: ~20 ms, paid by writes only

        try:
            self.lock.acquire(timeout=self.timeout)
        except filelock.Timeout:
            raise TimeoutError(f"{self.lock.lock_file}: held by another process") from None

    def release(self) -> None:
        self.lock.release()

    def __enter__(self) -> None:
        self.acquire()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.release()

    @property
    def is_held(self) -> bool:
        return bool(self.lock.is_locked)
