"""The few typed errors library code raises; the CLI turns them into exit codes."""

from __future__ import annotations

import os
from typing import Any

# Exit codes (SPEC section 4).
OK = 0
FAILED = 1
BAD_INPUT = 2
PAUSED = 3
BUSY = 4


class WfsError(Exception):
    """An error the user can act on: a one-line message and an exit code."""

    exit_code = BAD_INPUT

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code


class ProblemsError(WfsError):
    """Validation refused a change; `problems` are the rules it broke (wfs.validate.Problem)."""

    def __init__(self, message: str, problems: list[Any]) -> None:
        super().__init__(message)
        self.problems = problems


class NotAProjectError(WfsError):
    """A command that reads a plan ran where there is no `.workflow/` (exit 2)."""


class BusyError(WfsError):
    exit_code = BUSY


class WrittenInPart(OSError):
    """An I/O error in a write that follows a change already made (the views, after the
    task file they show): `written` says what was written, where the message of any
    other I/O error says that nothing was."""

    def __init__(self, err: OSError, written: str) -> None:
        super().__init__(err.errno, err.strerror, err.filename)
        self.written = written


def os_error_message(err: OSError, root: Any = None) -> str:
    """`path: reason; nothing was changed` for an I/O error (writes are atomic), the path
    relative to the project `root` when it is inside it; a WrittenInPart says what was
    written instead."""
    done = err.written if isinstance(err, WrittenInPart) else "nothing was changed"
    return f"{os_error_place(err, root)}; {done}"


def os_error_place(err: OSError, root: Any = None) -> str:
    """`path: reason` of an I/O error, the path relative to `root` when inside it."""
    reason = err.strerror or str(err)
    if not isinstance(err.filename, str | bytes | os.PathLike) or not err.filename:
        return reason  # no file named, or a descriptor
    path = os.fsdecode(err.filename)
    if root is not None and os.path.isabs(path):
        relative = os.path.relpath(path, root)
        if not relative.startswith(".."):
            path = relative
    return f"{path}: {reason}"
