"""JSON text in and out, as orjson reads and writes it, at the lowest import cost.

orjson is fast, but importing it imports dataclasses, inspect, uuid and decimal: about
20 ms, more than a whole `wfs task show` otherwise spends above interpreter start-up.
A command that reads or writes a few small files (the commands agents call in a loop)
does that with the standard library's json, only where the result is provably the one
orjson gives: the same value read, the same bytes written. Anything the two could treat
differently (a non-ASCII escape, a float written with an exponent, nesting beyond
orjson's limit, a long run of digits, a value that is not plain JSON), and any error,
goes to orjson, whose answer and messages are the reference. A process that has more
to read or write than the standard library does quickly (a whole session's files, a
long run record written after every step) imports orjson once and uses it from then on.

tests/test_jsontext.py checks the two agree on generated and hostile documents.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing itself costs more to import than a small write
if TYPE_CHECKING:
    from typing import Any

# What the standard library may cost above orjson in one process, in nanoseconds: half
# of orjson's import. Past it, orjson is imported and used for everything after.
BUDGET_NS = 10_000_000
# Above orjson, what the standard library costs: per byte read, and per value written
# (its indenting encoder is Python), checking included.
READ_NS = 3
WRITE_NS = 2_000
# orjson refuses to write deeper nesting than this.
ORJSON_DEPTH = 254

_spent = 0


def loads(raw: bytes) -> Any:
    """The value of the JSON document `raw`; raises json.JSONDecodeError (orjson's
    subclass of it, with orjson's message) when it is not valid JSON."""
    if _afford(READ_NS * len(raw)) and b"\\u" not in raw and not long_digits(raw):
        import json

        try:
            text = raw.decode("utf-8")
            return json.loads(text, parse_constant=_refuse, parse_float=_finite)
        except (ValueError, RecursionError):
            pass  # orjson names the error, or reads what the standard library refuses
    import orjson

    return orjson.loads(raw)


def dumps(data: Any, indent: bool = True) -> bytes:
    """`data` as JSON (with `indent`: two spaces a level); raises TypeError (orjson's
    JSONEncodeError) for what JSON cannot hold."""
    nodes = _plain(data, _left() // WRITE_NS)
    if nodes is not None and _afford(WRITE_NS * nodes):
        import json

        try:
            if indent:
                text = json.dumps(data, indent=2, ensure_ascii=False)
            else:
                text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            return text.encode("utf-8")
        except (ValueError, RecursionError):
            pass  # a lone surrogate: orjson says so
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2 if indent else 0)


def _left() -> int:
    return 0 if "orjson" in sys.modules else BUDGET_NS - _spent


def _afford(cost_ns: int) -> bool:
    """Whether the standard library may do work costing `cost_ns` more than orjson."""
    global _spent
    if cost_ns > _left():
        return False
    _spent += cost_ns
    return True


def long_digits(raw: bytes) -> bool:
    """An integer that may be outside [-2**63, 2**64), which orjson reads as a float (so
    writing the file back would change it): 19 digits in a row or more."""
    return b"0" * 19 in raw.translate(_DIGITS)


# Every digit as "0", every other byte as a space: runs of digits, found at C speed.
_DIGITS = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))


class _Differs(ValueError):
    """The standard library would read this differently from orjson."""


def _refuse(literal: str) -> Any:
    raise _Differs(literal)  # NaN, Infinity: orjson refuses them


def _finite(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _Differs(literal)  # 1e400: orjson refuses it
    return value


def _plain(data: Any, most: int) -> int | None:
    """How many values `data` holds when the standard library writes it with orjson's
    bytes (only dicts with string keys, lists, strings, 64-bit integers, booleans, None
    and floats that print without an exponent, nested not too deep), at most `most`;
    None otherwise."""
    stack = [(data, 1)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > most:
            return None
        kind = type(value)
        if kind is str or kind is bool or value is None:
            continue
        if kind is dict:
            if depth > ORJSON_DEPTH:
                return None
            for key, item in value.items():
                if type(key) is not str:
                    return None
                stack.append((item, depth + 1))
        elif kind is list:
            if depth > ORJSON_DEPTH:
                return None
            stack.extend((item, depth + 1) for item in value)
        elif kind is int:
            if not -(2**63) <= value < 2**64:
                return None
        elif kind is float:
            if "e" in repr(value) or value != value or value in (float("inf"), float("-inf")):
                return None
        else:
            return None
    return seen
