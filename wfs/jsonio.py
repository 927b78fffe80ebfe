"""JSON in and out of wfs: orjson reads and writes it, and this module alone calls it.

Reading a document (`parse`) adds the guards orjson leaves to its caller: nesting at
most MAX_DEPTH deep, integers that fit in 64 bits (orjson reads a larger one as a
float, so writing the file back would change it) and errors named by line and column
(invalid UTF-8 included, with its byte). Writing (`dumps`) gives one deterministic form:
two spaces a level, non-ASCII characters kept, keys in their order, a final newline.

orjson drops two things a reader of someone else's file sometimes needs: which keys an
object gives twice (it keeps the last) and how each number was spelled (`1.50`). For
those, and only after orjson has accepted the document, the standard library's json
parses it again with its hooks (`duplicate_keys`, `parse_as_written`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import orjson

from wfs.errors import WfsError

# The deepest nesting wfs reads. orjson writes at most 254 levels and wfs puts a task
# inside a few more (a brief, a `--json` answer), so a file deeper than this could be
# read but never written back, shown or handed to an agent.
MAX_DEPTH = 200

Pointer = tuple[str | int, ...]


class InvalidJSON(WfsError):
    """A document that is not JSON wfs reads: `location` is `where:line:column` (or
    `where#pointer`), `reason` says what is wrong, `offset` is the character where
    orjson stopped (None when the place is not a character of the text)."""

    def __init__(self, location: str, reason: str, offset: int | None = None) -> None:
        super().__init__(f"{location}: invalid JSON: {reason}")
        self.location = location
        self.reason = reason
        self.offset = offset


def parse(raw: bytes, where: str) -> Any:
    """The value of the JSON document `raw`; raises InvalidJSON naming `where` and the
    line and column of the problem."""
    data = _decode(raw, where)
    _check_depth(raw, data, where)
    if _long_digits(raw):
        _check_integers(raw, where)
    return data


def loads(raw: bytes | str) -> Any:
    """The value of JSON that wfs wrote itself (a journal, a log line, a pipe from its
    own child, a schema it ships); raises ValueError when it is not JSON (torn)."""
    return orjson.loads(raw)


def dumps(data: Any) -> bytes:
    """`data` as wfs writes every file: 2-space indent, UTF-8 with non-ASCII kept, key
    order kept, a final newline. Raises WfsError for what JSON cannot hold: a lone
    surrogate, an integer outside 64 bits, a key that is not a string, nesting deeper
    than orjson writes (254 levels). A float NaN or infinity is written as null."""
    try:
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError as err:
        raise WfsError(f"cannot write this JSON: {err}") from None


def compact(data: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """`data` on one line, without spaces (a log line, a brief on stdin, a value in a
    message); `default` converts what JSON cannot hold. Errors as for `dumps`."""
    try:
        return orjson.dumps(data, default=default)
    except orjson.JSONEncodeError as err:
        raise WfsError(f"cannot write this JSON: {err}") from None


def string(text: str) -> str:
    """`text` as a JSON string, non-ASCII kept. A lone surrogate (from a file name or
    output that is not UTF-8) is no Unicode character and orjson refuses it; the
    standard library then writes the same value with every non-ASCII character escaped,
    so the answer always encodes to UTF-8 and reads back as `text`."""
    try:
        return orjson.dumps(text).decode()
    except orjson.JSONEncodeError:
        return json.dumps(text)


def pointer(keys: Pointer | list[str | int]) -> str:
    """The JSON pointer (RFC 6901) to the value at `keys`; "" for the whole document."""
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in keys)


# ---------------------------------------------------------------- errors and guards


def _decode(raw: bytes, where: str) -> Any:
    """orjson's value of `raw`, its errors named by line and column."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            line, column = _place(raw, bad.start)
            raise InvalidJSON(
                f"{where}:{line}:{column}", f"not valid UTF-8 (byte 0x{raw[bad.start]:02x})"
            ) from None
        raise InvalidJSON(f"{where}:{err.lineno}:{err.colno}", err.msg, err.pos) from None


def _place(raw: bytes, start: int) -> tuple[int, int]:
    """The line and column of the byte at `start`, counted in characters as orjson
    counts them (what comes before it is valid UTF-8)."""
    line_start = raw.rfind(b"\n", 0, start) + 1
    column = len(raw[line_start:start].decode("utf-8", "replace")) + 1
    return raw.count(b"\n", 0, start) + 1, column


def _check_depth(raw: bytes, data: Any, where: str) -> None:
    # Cheap check first: only that many brackets can nest that deep.
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        check_depth(data, where)


def check_depth(data: Any, where: str) -> None:
    """Refuse a value nested deeper than MAX_DEPTH, as `parse` refuses a document (for a
    value that was never text wfs read: an argument of an MCP call)."""
    found = _too_deep(data)
    if found is not None:
        raise InvalidJSON(
            f"{where}#{found}",
            f"nested more than {MAX_DEPTH} levels deep (wfs reads at most {MAX_DEPTH})",
        )


def _too_deep(data: Any) -> str | None:
    """The JSON pointer (its first three parts) to a value nested deeper than MAX_DEPTH,
    or None."""
    if not isinstance(data, dict | list):
        return None  # a string full of brackets
    for key, value in data.items() if isinstance(data, dict) else enumerate(data):
        if isinstance(value, dict | list) and not _within(value, 2):
            return pointer([key, *_deep_path(value, 2)])
    return None


def _within(value: dict[str, Any] | list[Any], depth: int) -> bool:
    """Whether no container in `value` (at `depth`) is deeper than MAX_DEPTH."""
    if depth > MAX_DEPTH:
        return False
    for item in value.values() if isinstance(value, dict) else value:
        if isinstance(item, dict | list) and not _within(item, depth + 1):
            return False
    return True


def _deep_path(value: dict[str, Any] | list[Any], depth: int) -> list[str | int]:
    """The next two keys on the way to a value too deep (for the pointer)."""
    if depth > 3:
        return []
    for key, item in value.items() if isinstance(value, dict) else enumerate(value):
        if isinstance(item, dict | list) and not _within(item, depth + 1):
            return [key, *_deep_path(item, depth + 1)]
    return []


# Every digit as "0", every other byte as a space: runs of digits, found at C speed.
_DIGITS = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))


def _long_digits(raw: bytes) -> bool:
    """Whether `raw` may hold an integer outside [-2**63, 2**64): 19 digits in a row."""
    return b"0" * 19 in raw.translate(_DIGITS)


class _OutOfRange(Exception):
    pass


def _check_integers(raw: bytes, where: str) -> None:
    """Refuse an integer orjson read as a float (its value would change)."""

    def check(literal: str) -> int:
        digits = literal.lstrip("-")
        if len(digits) > 20 or not -(2**63) <= int(literal) < 2**64:
            raise _OutOfRange(literal)
        return 0

    try:
        json.loads(raw, parse_int=check)
    except _OutOfRange as bad:
        literal = bad.args[0]
        found = re.search(rb"(?<![\d.eE+-])" + re.escape(literal.encode()) + rb"(?![\d.eE])", raw)
        line, column = _place(raw, found.start() if found else 0)
        shown = literal if len(literal) <= 30 else literal[:27] + "..."
        raise InvalidJSON(
            f"{where}:{line}:{column}",
            f"integer {shown} does not fit in 64 bits (writing the file back would change it)",
        ) from None
    except ValueError:
        pass  # orjson read it; anything else the standard library dislikes is no concern


# ---------------------------------------------------------------- what orjson drops


class _Counted(dict[str, object]):
    """An object as the standard library parsed it, with the keys it gave twice."""

    twice: dict[str, int] = {}


def duplicate_keys(raw: bytes) -> list[tuple[Pointer, str, int]]:
    """Every key an object of `raw` gives more than once, in document order: the pointer
    to the object, the key, how many times. orjson (like most readers) keeps the last
    one, but a person, or another tool, may read the first. A document orjson reads and
    the standard library refuses (too deep) has none."""
    found = False

    def hook(pairs: list[tuple[str, Any]]) -> _Counted:
        nonlocal found
        obj = _Counted(pairs)
        if len(obj) != len(pairs):
            counts: dict[str, int] = {}
            for key, _ in pairs:
                counts[key] = counts.get(key, 0) + 1
            obj.twice = {k: n for k, n in counts.items() if n > 1}
            found = True
        return obj

    try:
        data = json.loads(raw, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return []
    duplicates: list[tuple[Pointer, str, int]] = []
    stack: list[tuple[Pointer, Any]] = [((), data)] if found else []
    while stack:
        at, value = stack.pop()
        if isinstance(value, _Counted):
            duplicates.extend((at, k, n) for k, n in value.twice.items())
            stack.extend(((*at, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*at, i), v) for i, v in reversed(list(enumerate(value))))
    return duplicates


class Number(str):
    """A JSON number as its document spells it (`1.50`, `1e3`, `-0`); never equal to a
    string."""

    def __eq__(self, other: object) -> bool:
        return type(other) is Number and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return str.__hash__(self)


def parse_as_written(raw: bytes, where: str) -> Any:
    """The value of a document another tool wrote, to be written back as it was: what
    `parse` reads, but every number a Number, as spelled (so no integer is out of
    range). Errors as `parse` names them."""
    _check_depth(raw, _decode(raw, where), where)
    # orjson accepted it: UTF-8, no NaN, not deeper than the standard library reads.
    return json.loads(raw.decode("utf-8"), parse_int=Number, parse_float=Number)


def dumps_as(data: Any, indent: str | None) -> bytes:
    """`data` laid out as another tool wrote its file: each level indented by `indent`,
    or all on one line (None) with ", " and ": " between items, as json.dumps writes
    them by default; a Number as spelled. No final newline. Errors as for `dumps`."""
    try:
        text = orjson.dumps(
            data,
            default=_as_written,
            option=orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_SUBCLASS,
        )
    except orjson.JSONEncodeError as err:
        raise WfsError(f"cannot write this JSON: {err}") from None
    if indent == "  ":
        return text
    # orjson puts every value on its own line, indented two spaces a level; no string
    # holds a raw newline, so each line's leading spaces are its level, and a line that
    # ends with a comma ends with the separator between two items.
    lines = text.split(b"\n")
    if indent is None:
        return b"".join(
            line.lstrip(b" ") + (b" " if line.endswith(b",") else b"") for line in lines
        )
    unit = indent.encode()
    levelled = []
    for line in lines:
        item = line.lstrip(b" ")
        levelled.append(unit * ((len(line) - len(item)) // 2) + item)
    return b"\n".join(levelled)


def dumps_styled(
    data: Any, indent: str | None, separators: tuple[str, str] = (", ", ": "), ascii: bool = False
) -> str:
    """`data` as another tool lays out its file: each level indented by `indent` (lines
    ended by "\n"), or all on one line with `separators` (between items, between a key
    and its value); with `ascii`, every non-ASCII character escaped, as Python's json
    module writes by default. No final newline. Errors as for `dumps`."""
    if not ascii and (indent is not None or separators == (", ", ": ")):
        return dumps_as(data, indent).decode("utf-8")
    if not ascii and separators == (",", ":"):
        return compact(data).decode("utf-8")
    if indent is not None:
        separators = (",", separators[1])
    try:
        return json.dumps(data, indent=indent, separators=separators, ensure_ascii=ascii)
    except (TypeError, ValueError, RecursionError) as err:
        raise WfsError(f"cannot write this JSON: {err}") from None


def _as_written(value: Any) -> Any:
    """What orjson writes for a subclass of a JSON type: a Number as spelled; any other
    as its base type."""
    if isinstance(value, Number):
        return orjson.Fragment(str(value))
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, list):
        return list(value)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


# ---------------------------------------------------------------- where values are


class Span(NamedTuple):
    """Where a value is in a document's text: `start` to `end` (as for slicing); an
    object's members as (key, where the key starts, where it ends, the value's Span), an
    array's items as Spans."""

    start: int
    end: int
    members: list[tuple[str, int, int, Span]] | None = None
    items: list[Span] | None = None


class _Pairs(list[tuple[str, Any]]):
    """An object as the standard library parsed it: its members in order, each key as
    many times as given."""


def spans(text: str) -> Span:
    """Where each value of the JSON document `text` is, to edit the text in place (a
    value orjson has read already: the standard library's own scanner, hooked where it
    starts each value, parses it again). Raises ValueError for text that is not JSON."""
    found: list[tuple[int, int] | None] = []
    decoder = json.JSONDecoder(object_pairs_hook=_Pairs)

    def each_value(string: str, at: int) -> tuple[Any, int]:
        slot = len(found)
        found.append(None)
        value, end = scan(string, at)
        found[slot] = (at, end)
        return value, end

    def parse_object(
        s_and_end: tuple[str, int], strict: bool, _scan: Any, hook: Any, pairs: Any, memo: Any
    ) -> tuple[Any, int]:
        return json.decoder.JSONObject(s_and_end, strict, each_value, hook, pairs, memo)  # type: ignore[attr-defined, no-any-return]

    def parse_array(s_and_end: tuple[str, int], _scan: Any) -> tuple[Any, int]:
        return json.decoder.JSONArray(s_and_end, each_value)  # type: ignore[attr-defined, no-any-return]

    decoder.parse_object = parse_object  # type: ignore[attr-defined]
    decoder.parse_array = parse_array  # type: ignore[attr-defined]
    scan = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    start = _WHITESPACE.match(text, 0).end()  # type: ignore[union-attr]
    try:
        value, end = each_value(text, start)
    except StopIteration:
        raise ValueError("not a JSON document") from None
    if text[end:].strip():
        raise ValueError("text after the JSON document")
    order = iter(found)
    return _span(text, value, order)


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _span(text: str, value: Any, order: Iterator[tuple[int, int] | None]) -> Span:
    """The Span of `value`, whose place is next in `order` (the values in the order the
    scanner started them), and of every value inside it."""
    place = next(order)
    assert place is not None
    start, end = place
    if isinstance(value, _Pairs):
        members = []
        at = start + 1
        for key, item in value:
            at = _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]
            if text[at] == ",":
                at = _WHITESPACE.match(text, at + 1).end()  # type: ignore[union-attr]
            _, key_end = json.decoder.scanstring(text, at + 1)  # type: ignore[attr-defined]
            inner = _span(text, item, order)
            members.append((key, at, key_end, inner))
            at = inner.end
        return Span(start, end, members=members)
    if isinstance(value, list):
        return Span(start, end, items=[_span(text, item, order) for item in value])
    return Span(start, end)
