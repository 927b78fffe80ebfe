"""The files wfs opens itself: never through a symlink, never a FIFO left waiting, and
a folder's renames made durable where the system can sync a folder."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from wfs.platform.windows import WINDOWS

# Added to every open of a file wfs writes: never follow a symlink at the last
# component (the folder is checked by store.guard), never leak the descriptor into a
# step, never translate line ends.
OWN_FILE_FLAGS = (
    getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


NOT_REGULAR = "not a regular file (a FIFO, a device or a socket); refused"


def open_own(path: str | os.PathLike[str], flags: int, mode: int = 0o666) -> int:
    """`os.open` for a file wfs writes, which must not be a symlink: refused by the
    kernel where O_NOFOLLOW exists, and checked just before opening where it does not.
    Nor a FIFO (opening one to write waits for a reader, for ever), a device or a
    socket: refused, naming it."""
    if not hasattr(os, "O_NOFOLLOW") and os.path.islink(path):
        raise OSError(errno.ELOOP, "is a symlink; wfs does not write through one", str(path))
    set_blocking: Callable[[int, bool], None] | None = getattr(os, "set_blocking", None)
    nonblocking = getattr(os, "O_NONBLOCK", 0) if set_blocking is not None else 0
    try:
        fd = os.open(path, flags | OWN_FILE_FLAGS | nonblocking, mode)
    except OSError as err:
        if err.errno == errno.ENXIO:  # a FIFO nobody reads
            raise OSError(errno.ENXIO, NOT_REGULAR, str(path)) from None
        raise
    if not _is_regular(fd):
        os.close(fd)
        raise OSError(errno.EINVAL, NOT_REGULAR, str(path))
    if nonblocking and set_blocking is not None:
        set_blocking(fd, True)
    return fd


def _is_regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def open_to_read(path: str) -> int:
    """A descriptor to read the file `path` from, without waiting for ever on a FIFO
    that nobody writes to (it then reads as empty); Windows has no such FIFOs."""
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    set_blocking: Callable[[int, bool], None] | None = getattr(os, "set_blocking", None)
    if set_blocking is None:
        nonblocking = 0
    fd = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_BINARY", 0))
    if nonblocking and set_blocking is not None:
        set_blocking(fd, True)
    return fd


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """Make the renames in `folder` durable. POSIX systems sync a folder through a
    descriptor; Windows cannot open one (NTFS journals the rename itself)."""
    if WINDOWS:
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is done all the same
    finally:
        os.close(fd)
