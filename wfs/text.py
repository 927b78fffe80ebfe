"""Text from files, made safe to show (in a terminal, in a generated view).

A title or a topic can hold escape sequences that clear the screen, set the window
title or write the clipboard when printed. Every control character except newline and
tab is shown as a `\\xNN` escape instead, and so are the Unicode bidirectional controls
that reorder what a reader sees.
"""

from __future__ import annotations

import re

# Every control character but newline and tab, and the bidirectional controls, as the
# escape that shows it (applied with str.translate, one pass in C).
_CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)]
_CONTROLS += [0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ESCAPES = {c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}" for c in _CONTROLS}
# wfs's own colors pass through the terminal filter: exactly the SGR sequences
# click.style writes for the styles wfs uses (bold; red, green, yellow; reset). Any
# other one, say "conceal" (8) or black on black, could hide text that came from a file.
_SGR = ("[0m", "[1m", "[31m", "[32m", "[33m")


def printable(text: str) -> str:
    """`text` with its control characters written as escapes (newlines and tabs kept)."""
    # Most text has nothing to escape, and isprintable is far faster than translate.
    return text if text.isprintable() else text.translate(_ESCAPES)


def for_terminal(text: str) -> str:
    """Like `printable`, but keeping color sequences (wfs's own styling)."""
    first, *rest = text.split("\x1b")
    parts = [printable(first)]
    for part in rest:
        sgr = next((s for s in _SGR if part.startswith(s)), None)
        if sgr is None:
            parts.append(printable("\x1b" + part))
        else:
            parts.append("\x1b" + sgr + printable(part[len(sgr) :]))
    return "".join(parts)


def json_kind(value: object) -> str:
    """The JSON name of a value's type, for messages ("array", not Python's "list")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")


def fences_closed(text: str) -> str:
    """Markdown `text` whose last code fence is closed (CommonMark: a line of three or
    more backticks or tildes, closed by a line of the same character, at least as
    many): text from a file put into a view must not turn the rest of it into code."""
    opened: str | None = None
    for line in text.splitlines():
        found = _FENCE.fullmatch(line)
        if found is None:
            continue
        fence, rest = found.groups()
        if opened is None:
            if not (fence[0] == "`" and "`" in rest):  # an info string has no backtick
                opened = fence
        elif fence[0] == opened[0] and len(fence) >= len(opened) and not rest.strip():
            opened = None
    return text if opened is None else f"{text}\n{opened}"


def elapsed_text(seconds: float) -> str:
    """7s, 1m05s, 2h03m: a clock that grows without jumping about."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
