"""Editing a JSON file that someone else owns: an editor's settings file, `.mcp.json`.

wfs adds or takes out one entry and keeps everything else: every key and its order,
numbers exactly as written (`1.50` stays `1.50`), the file's indentation (a file on one
line stays on one line), its byte order mark and its final newline. Whitespace elsewhere
may change, since the file is written anew. A file wfs could not write back unchanged is
refused with its place named: not JSON (a comment, a trailing comma, NaN), a key given
twice (a JSON parser keeps only one of them).

Reading and writing the values is wfs.jsonio's (`parse_as_written`, `dumps_as`); this
module finds how the file is laid out and says what it cannot keep.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from wfs import jsonio
from wfs.errors import WfsError
from wfs.jsonio import Number
from wfs.text import json_kind

BOM = "\ufeff".encode()


class Document(NamedTuple):
    """A parsed file and how it is written."""

    value: Any
    indent: str | None  # one level of indentation; None: all on one line
    final_newline: bool
    bom: bool


def pointer(keys: list[str | int]) -> str:
    """A JSON pointer (RFC 6901) to the value at `keys`, "/" for the whole file."""
    return jsonio.pointer(keys) or "/"


def _indent(text: str) -> str | None:
    """One level of the file's indentation: None for a file on one line, two spaces when
    it has lines but no indentation."""
    if "\n" not in text.strip():
        return None
    match = re.search(r"\n([ \t]+)\S", text)
    if not match:
        return "  "
    found = match.group(1)
    return "\t" if found.startswith("\t") else found


def parse(raw: bytes, where: str) -> Document:
    """Parse `raw`, or raise naming `where` and the place of the problem."""
    bom = raw.startswith(BOM)
    body = raw[len(BOM) :] if bom else raw
    try:
        value = jsonio.parse_as_written(body, where)
    except jsonio.InvalidJSON as err:
        raise WfsError(err.message + _hint(body, err.offset)) from None
    duplicates = jsonio.duplicate_keys(body)
    if duplicates:
        at, key, _ = duplicates[0]
        raise WfsError(
            f"{where}: {pointer(list(at))}: the key {jsonio.string(key)} is given twice "
            "(editors read only one of them); keep one"
        )
    if not isinstance(value, dict):
        raise WfsError(f"{where}: expected a JSON object, found {kind(value)}")
    text = body.decode("utf-8")
    return Document(value, _indent(text), text.endswith("\n"), bom)


def _hint(body: bytes, offset: int | None) -> str:
    """What a person may have meant where orjson stopped: a comment, NaN or Infinity
    (which some editors' settings files hold, and JSON does not)."""
    if offset is None:
        return ""
    text = body.decode("utf-8", "replace")
    if text.startswith(("//", "/*"), offset):
        return " (a comment: wfs cannot rewrite the file without losing it)"
    for word in ("-Infinity", "Infinity", "NaN"):
        # orjson stops at the word, or just after its sign
        if text.startswith(word, offset) or text.startswith(word, max(offset - 1, 0)):
            return f" ({word} is not a JSON value)"
    return ""


def kind(value: Any) -> str:
    """What a JSON value is, in words, for error messages: "an object", "a string"."""
    # Numbers are read as Number (text kept as written), a str subclass.
    name = "number" if isinstance(value, Number) else json_kind(value)
    return name if name == "null" else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def dump(value: Any, document: Document | None = None) -> bytes:
    """`value` written as `document` was (default: as wfs writes a new file)."""
    data = jsonio.dumps_as(value, document.indent if document else "  ")
    if document is None or document.final_newline:
        data += b"\n"
    if document is not None and document.bom:
        data = BOM + data
    return data
