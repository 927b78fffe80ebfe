"""Editing a JSON file that someone else owns: an editor's settings file, `.mcp.json`.

wfs adds or takes out one entry and keeps everything else: every key and its order,
numbers exactly as written (`1.50` stays `1.50`), the file's indentation (a file on one
line stays on one line) and its final newline. Whitespace elsewhere may change, since
the file is written anew. A file wfs
could not write back unchanged is refused with its place named: not JSON (a comment, a
trailing comma), a key given twice (a JSON parser keeps only one of them), NaN.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple

from wfs.errors import WfsError
from wfs.prime import json_string

BOM = "\ufeff"


class Number(str):
    """A JSON number, kept as it was written; never equal to a string."""

    def __eq__(self, other: object) -> bool:
        return type(other) is Number and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return str.__hash__(self)


class _Object(dict[str, Any]):
    """A JSON object as parsed, remembering a key that was given twice."""

    duplicate: str | None = None


class Document(NamedTuple):
    """A parsed file and how it is written."""

    value: Any
    indent: str | None  # one level of indentation; None: all on one line
    final_newline: bool
    bom: bool


class _Constant(Exception):
    pass


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    result = _Object()
    for key, value in pairs:
        if key in result and result.duplicate is None:
            result.duplicate = key
        result[key] = value
    return result


def _constant(name: str) -> Any:
    raise _Constant(name)


def _place(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"{line}:{column}"


def pointer(keys: list[str | int]) -> str:
    """A JSON pointer (RFC 6901) to the value at `keys`."""
    parts = [str(key).replace("~", "~0").replace("/", "~1") for key in keys]
    return "/" + "/".join(parts)


def _find_duplicate(value: Any, keys: list[str | int]) -> tuple[str, str] | None:
    if isinstance(value, _Object):
        if value.duplicate is not None:
            return pointer(keys), value.duplicate
        for key, item in value.items():
            found = _find_duplicate(item, [*keys, key])
            if found:
                return found
    elif isinstance(value, list):
        for number, item in enumerate(value):
            found = _find_duplicate(item, [*keys, number])
            if found:
                return found
    return None


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
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        place = _place(raw[: bad.start].decode("utf-8", "replace"), bad.start)
        raise WfsError(f"{where}:{place}: not valid UTF-8") from None
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    try:
        value = json.loads(
            body,
            object_pairs_hook=_object,
            parse_int=Number,
            parse_float=Number,
            parse_constant=_constant,
        )
    except json.JSONDecodeError as err:
        message = f"{where}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}"
        if body.startswith(("//", "/*"), err.pos):
            message += " (a comment: wfs cannot rewrite the file without losing it)"
        raise WfsError(message) from None
    except _Constant as err:
        found = re.search(rf"(?<![\w\"]){re.escape(str(err))}(?![\w\"])", body)
        place = f":{_place(body, found.start())}" if found else ""
        raise WfsError(f"{where}{place}: invalid JSON: {err} is not a JSON value") from None
    duplicate = _find_duplicate(value, [])
    if duplicate:
        at, key = duplicate
        raise WfsError(
            f"{where}: {at}: the key {json_string(key)} is given twice (editors read only "
            "one of them); keep one"
        )
    if not isinstance(value, dict):
        raise WfsError(f"{where}: expected a JSON object, found {kind(value)}")
    return Document(value, _indent(body), body.endswith("\n"), bom)


def kind(value: Any) -> str:
    """What a JSON value is, in words, for error messages: "an object", "a string"."""
    from wfs.text import json_kind

    # Numbers are read as Number (text kept as written), a str subclass.
    name = "number" if isinstance(value, Number) else json_kind(value)
    return name if name == "null" else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def dump(value: Any, document: Document | None = None) -> bytes:
    """`value` written as `document` was (default: as wfs writes a new file)."""
    indent = document.indent if document else "  "
    text = _dump(value, indent, 0) if indent is not None else _dump_line(value)
    if document is None or document.final_newline:
        text += "\n"
    if document is not None and document.bom:
        text = BOM + text
    return text.encode("utf-8")


def _dump_line(value: Any) -> str:
    if isinstance(value, dict):
        items = [f"{json_string(key)}: {_dump_line(item)}" for key, item in value.items()]
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dump_line(item) for item in value) + "]"
    return _dump(value, "", 0)


def _dump(value: Any, indent: str, level: int) -> str:
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = indent * (level + 1)
        items = [
            f"{inner}{json_string(key)}: {_dump(item, indent, level + 1)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + indent * level + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        inner = indent * (level + 1)
        items = [inner + _dump(item, indent, level + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + indent * level + "]"
    if isinstance(value, Number):
        return str(value)
    if isinstance(value, str):
        return json_string(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    raise TypeError(f"not a JSON value: {value!r}")
