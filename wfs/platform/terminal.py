"""The terminal: its width, lines and screens redrawn in place, and keys read one at a
time (termios on POSIX, msvcrt on Windows)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from typing import Any

from wfs.platform.windows import WINDOWS

# Clears a terminal's line from the cursor to its end (a status line rewritten in
# place): the ANSI sequence every POSIX terminal reads. Windows' console reads it only
# once asked to (VT mode), so there the line is padded with spaces instead ("").
CLEAR_TO_END = "" if WINDOWS else "\x1b[K"
# Back up over lines drawn before and clear them (rewriting several status lines in
# place); empty where the console may not understand it: one line is drawn instead.
CLEAR_LINES_UP = "" if WINDOWS else "\x1b[{count}F\x1b[J"


def terminal_columns(stream: Any) -> int:
    """The width of the terminal `stream` writes to, asked of the terminal itself (a
    COLUMNS variable may be left from another one); 80 when it cannot say."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return shutil.get_terminal_size((80, 24)).columns


# Redraw a whole screen in place (a terminal board): cursor home, clear to the end.
# Windows' console reads it once VT mode is on (Windows 10 and later turn it on for
# Python's own console writes); elsewhere it is plain ANSI.
CLEAR_SCREEN = "\x1b[H\x1b[J"


class Keys:
    """The keys a person presses while a screen redraws itself, one at a time and
    without Enter: the terminal in cbreak mode (POSIX, termios) or the console's
    keyboard (Windows, msvcrt); given back as it was on leaving."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.saved: Any = None

    def __enter__(self) -> Keys:
        if sys.platform != "win32":  # (as mypy reads it for Windows too)
            import termios  # deferred: only a terminal board reads keys
            import tty  # deferred: only a terminal board reads keys

            fd = self.stream.fileno()
            self.saved = termios.tcgetattr(fd)
            tty.setcbreak(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        if sys.platform != "win32" and self.saved is not None:
            import termios  # deferred: only a terminal board reads keys

            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self.saved)

    def read(self, seconds: float) -> str | None:
        """A key pressed within `seconds`, else None."""
        if WINDOWS:
            import msvcrt  # deferred: Windows' console only

            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if msvcrt.kbhit():  # type: ignore[attr-defined,unused-ignore]
                    return str(msvcrt.getwch())  # type: ignore[attr-defined,unused-ignore]
                time.sleep(0.02)
            return None
        import select  # deferred: only a terminal board waits for keys

        ready, _, _ = select.select([self.stream], [], [], seconds)
        if not ready:
            return None
        return os.read(self.stream.fileno(), 1).decode("utf-8", "replace")
