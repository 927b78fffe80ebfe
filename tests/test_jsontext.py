"""wfs.jsontext reads and writes exactly what orjson does, by whichever library it uses.

The standard library's path is forced on (in a test process orjson is already
imported, which would otherwise send everything to orjson), and every answer is
compared with orjson's: the same value, type for type, or the same bytes, or the same
error with the same message.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wfs import jsontext


@pytest.fixture(autouse=True)
def standard_library_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsontext, "_left", lambda: 10**15)
    monkeypatch.setattr(jsontext, "_afford", lambda cost: True)


def exact(value: Any) -> Any:
    """`value` with every type spelled out, so 1 != 1.0 != True and -0.0 != 0.0."""
    if isinstance(value, dict):
        return ("dict", [(k, exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [exact(v) for v in value])
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else repr(value))
    return (type(value).__name__, value)


def outcome(function: Any, *args: Any) -> Any:
    try:
        return ("value", exact(function(*args)))
    except (ValueError, TypeError) as err:
        return ("error", type(err).__name__, str(err))


def orjson_read(raw: bytes) -> Any:
    return orjson.loads(raw)


def orjson_write(data: Any) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_INDENT_2)


characters = st.characters(codec="utf-8") | st.sampled_from(
    ["\x00", "\x1f", "\x7f", "\u2028", "\ufeff", "\U0001f600", '"', "\\", "/", "\ud800"]
)
texts = st.text(characters, max_size=12)
numbers = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([1e-7, 1e16, 1e22, 5e-324, -0.0, 1.7976931348623157e308, 1e15, 0.1])
)
scalars = st.none() | st.booleans() | numbers | texts
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=25,
)


@settings(max_examples=600, deadline=None)
@given(values)
def test_writing_gives_orjsons_bytes_or_its_error(data: Any) -> None:
    assert outcome(jsontext.dumps, data) == outcome(orjson_write, data)
    assert outcome(jsontext.dumps, data, False) == outcome(orjson.dumps, data)


def spellings(data: Any) -> list[bytes]:
    """`data` as JSON text in the ways people and tools write it."""
    found = []
    for indent in (None, 2, "\t"):
        for ascii_only in (True, False):
            try:
                text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
            except ValueError:
                continue
            found.append(text.encode("utf-8", "surrogatepass"))
    return found


@settings(max_examples=400, deadline=None)
@given(values)
def test_reading_gives_orjsons_value_or_its_error(data: Any) -> None:
    for raw in spellings(data):
        assert outcome(jsontext.loads, raw) == outcome(orjson_read, raw)


@settings(max_examples=600, deadline=None)
@given(values, st.integers(min_value=0), st.binary(min_size=1, max_size=3))
def test_damaged_documents_give_orjsons_answer(data: Any, where: int, junk: bytes) -> None:
    raw = json.dumps(data, ensure_ascii=False).encode("utf-8", "surrogatepass")
    at = where % (len(raw) + 1)
    for damaged in (raw[:at] + junk + raw[at:], raw[:at] + raw[at + 1 :], raw[:at]):
        assert outcome(jsontext.loads, damaged) == outcome(orjson_read, damaged)


@pytest.mark.parametrize(
    "raw",
    [
        b"NaN",
        b"[Infinity]",
        b"-Infinity",
        b"1e400",
        b"[-1e400]",
        b'"\\ud800"',
        b'"\\ud83d\\ude00"',
        b"\xef\xbb\xbf{}",
        b"[01]",
        b"[1,]",
        b'{"a":1,"a":2,"b":3,"a":4}',
        b"18446744073709551615",
        b"18446744073709551616",
        b"-9223372036854775809",
        b"123456789012345678901234567890",
        b"[" * 300 + b"]" * 300,
        b'"tab\there"',
        b"\xff",
        b"",
        b" \t\r\n[ 1 , 2 ]\n",
        b"1.5E+3",
        b"-0",
        b"-0.0",
        b"1.e5",
        b'"\\/"',
    ],
)
def test_documents_the_two_libraries_read_differently(raw: bytes) -> None:
    assert outcome(jsontext.loads, raw) == outcome(orjson_read, raw)


@pytest.mark.parametrize(
    "data",
    [
        2**64,
        2**64 - 1,
        -(2**63) - 1,
        -(2**63),
        {1: "key not a string"},
        ("a", "tuple"),
        "lone \ud800 surrogate",
        [[[]]] * 3,
        {"a": {}, "b": [], "c": ""},
        float("nan"),
        1e-5,
        123456789.123456789,
        {"deep": json.loads("[" * 260 + "]" * 260)},
        list(range(5000)),
        True,
        None,
    ],
)
def test_values_the_two_libraries_write_differently(data: Any) -> None:
    assert outcome(jsontext.dumps, data) == outcome(orjson_write, data)


def test_a_small_read_and_write_never_import_orjson() -> None:
    script = (
        "import sys; from wfs import jsontext;"
        'data = jsontext.loads(b\'{"id": "IMPL-1", "n": [1, 2.5, null, true]}\');'
        "sys.stdout.buffer.write(jsontext.dumps(data));"
        "print(); print('orjson' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout == (
        '{\n  "id": "IMPL-1",\n  "n": [\n    1,\n    2.5,\n    null,\n    true\n  ]\n}\nFalse\n'
    )


def test_more_than_the_budget_switches_to_orjson_for_good() -> None:
    big = jsontext.BUDGET_NS // jsontext.READ_NS + 10
    script = (
        "import sys; from wfs import jsontext;"
        "[jsontext.loads(b'[1, 2]') for _ in range(100)];"
        "print('orjson' in sys.modules);"
        f"assert jsontext.loads(b'\"' + b'x' * {big} + b'\"') == 'x' * {big};"
        "print('orjson' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout == "False\nTrue\n"


def test_a_long_record_written_again_and_again_switches_to_orjson() -> None:
    script = (
        "import sys; from wfs import jsontext;"
        "record = {'steps': {f's{n}': {'status': 'completed', 'output': ''} for n in range(200)}};"
        "[jsontext.dumps(record) for _ in range(20)];"
        "print('orjson' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout == "True\n"
