"""Text from files, made safe to show (in a terminal, in a generated view).

A title or a topic can hold escape sequences that clear the screen, set the window
title or write the clipboard when printed. Every control character except newline and
tab is shown as a `\\xNN` escape instead, and so are the Unicode bidirectional controls
that reorder what a reader sees.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# wfs's own colors pass through the terminal filter: exactly the SGR sequences
# click.style writes for the styles wfs uses (bold; red, green, yellow; reset). Any
# other one, say "conceal" (8) or black on black, could hide text that came from a file.
_SGR = re.compile("(\x1b\\[(?:0|1|3[123])m)")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with its control characters written as escapes (newlines and tabs kept)."""
    return _CONTROL.sub(_escape, text)


def for_terminal(text: str) -> str:
    """Like `printable`, but keeping color sequences (wfs's own styling)."""
    parts = _SGR.split(text)
    return "".join(part if n % 2 else printable(part) for n, part in enumerate(parts))


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
