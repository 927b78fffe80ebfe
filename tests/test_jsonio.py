"""wfs.jsonio: the bytes wfs writes, what it refuses to read, and how it says so."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wfs import jsonio
from wfs.errors import WfsError


def nested(levels: int) -> Any:
    """An array `levels` deep: [[[]]] is 3."""
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def exact(value: Any) -> Any:
    """`value` with every type spelled out, so 1 != 1.0 != True and -0.0 != 0.0."""
    if isinstance(value, dict):
        return ("dict", [(k, exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [exact(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def refused(raw: bytes) -> str:
    with pytest.raises(jsonio.InvalidJSON) as caught:
        jsonio.parse(raw, "f.json")
    return caught.value.message


# ---------------------------------------------------------------- writing


def test_the_written_form_keeps_key_order_and_non_ascii_and_ends_with_a_newline() -> None:
    data = {"z": 1, "a": ["é", "日本", "😀", {}], "m": {"nested": [], "t": True, "n": None}}
    assert (
        jsonio.dumps(data)
        == (
            "{\n"
            '  "z": 1,\n'
            '  "a": [\n'
            '    "é",\n'
            '    "日本",\n'
            '    "😀",\n'
            "    {}\n"
            "  ],\n"
            '  "m": {\n'
            '    "nested": [],\n'
            '    "t": true,\n'
            '    "n": null\n'
            "  }\n"
            "}\n"
        ).encode()
    )


def test_control_characters_and_quotes_are_escaped_and_nothing_else() -> None:
    text = 'a"b\\c\n\t\x00\x1f\x7f\u2028/'
    assert jsonio.dumps(text) == b'"a\\"b\\\\c\\n\\t\\u0000\\u001f\x7f\xe2\x80\xa8/"\n'
    assert jsonio.compact({"k": text}) == b'{"k":"a\\"b\\\\c\\n\\t\\u0000\\u001f\x7f\xe2\x80\xa8/"}'


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (0.1, b"0.1"),
        (1.5, b"1.5"),
        (-0.0, b"-0.0"),
        (1e16, b"1e+16"),
        (1e-7, b"1e-7"),
        (123456789.123456789, b"123456789.12345679"),
        (1.7976931348623157e308, b"1.7976931348623157e+308"),
        (5e-324, b"5e-324"),
        (float("nan"), b"null"),
        (float("inf"), b"null"),
        (2**64 - 1, b"18446744073709551615"),
        (-(2**63), b"-9223372036854775808"),
        (True, b"true"),
        (None, b"null"),
    ],
)
def test_numbers_are_written_as_orjson_spells_them(value: Any, written: bytes) -> None:
    assert jsonio.compact(value) == written
    assert jsonio.dumps([value]) == b"[\n  " + written + b"\n]\n"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (2**64, "cannot write this JSON: Integer exceeds 64-bit range"),
        (-(2**63) - 1, "cannot write this JSON: Integer exceeds 64-bit range"),
        (
            {"id": "lone \ud800"},
            "cannot write this JSON: str is not valid UTF-8: surrogates not allowed",
        ),
        ({1: "x"}, "cannot write this JSON: Dict key must be str"),
        (nested(255), "cannot write this JSON: Recursion limit reached"),
        ({"a": {1, 2}}, "cannot write this JSON: Type is not JSON serializable: set"),
    ],
)
def test_what_json_cannot_hold_is_refused_with_one_line(value: Any, message: str) -> None:
    for write in (jsonio.dumps, jsonio.compact):
        with pytest.raises(WfsError) as caught:
            write(value)
        assert caught.value.message == message


def test_the_deepest_document_wfs_reads_can_be_written_inside_a_few_more_levels() -> None:
    deepest = nested(jsonio.MAX_DEPTH)
    wrapped = {"session": "WFS-x", "task": {"context": {"deep": deepest}}}
    assert jsonio.loads(jsonio.dumps(wrapped)) == wrapped
    assert jsonio.compact(nested(254)) == b"[" * 254 + b"]" * 254


plain = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(st.characters(codec="utf-8")),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(plain)
def test_without_floats_the_bytes_are_the_standard_librarys_indented_form(data: Any) -> None:
    expected = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert jsonio.dumps(data) == expected.encode("utf-8")
    compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert jsonio.compact(data) == compact.encode("utf-8")


values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8")),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=6), inner, max_size=4)
    ),
    max_leaves=25,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(values)
def test_what_is_written_reads_back_the_same_type_for_type(data: Any) -> None:
    assert exact(jsonio.parse(jsonio.dumps(data), "f.json")) == exact(data)
    assert exact(jsonio.loads(jsonio.compact(data))) == exact(data)


# ---------------------------------------------------------------- reading


def test_a_document_reads_as_orjson_reads_it() -> None:
    raw = (
        b'{"b": [1, 2.5, -0.0, 1E2, null], "a": "\\u00e9\\ud83d\\ude00\\/", '
        b'"b2": 18446744073709551615}'
    )
    assert exact(jsonio.parse(raw, "f.json")) == exact(
        {"b": [1, 2.5, -0.0, 100.0, None], "a": "é😀/", "b2": 2**64 - 1}
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            b'{\n  "a": 1,\n  x}',
            "f.json:3:3: invalid JSON: unexpected character, expected a string key",
        ),
        (b"[1,]", "f.json:1:3: invalid JSON: trailing comma is not allowed"),
        (b"", "f.json:1:1: invalid JSON: Input is a zero-length, empty document"),
        (
            b"\xef\xbb\xbf{}",
            "f.json:1:1: invalid JSON: UTF-8 byte order mark (BOM) is not supported",
        ),
        (b"[1, NaN]", "f.json:1:5: invalid JSON: unexpected character, expected a JSON value"),
        (b"[1e400]", "f.json:1:2: invalid JSON: number is infinity when parsed as double"),
        (b'"\\ud800"', "f.json:1:2: invalid JSON: no low surrogate in string"),
        (b'{\n"a": "\xff"}', "f.json:2:7: invalid JSON: not valid UTF-8 (byte 0xff)"),
        (b'["\xc3\xa9", "\xc3"]', "f.json:1:8: invalid JSON: not valid UTF-8 (byte 0xc3)"),
        (b"[" * 1025 + b"]" * 1025, "f.json:1:1026: invalid JSON: depth limit exceeded"),
        (
            b'{"n": 18446744073709551616}',
            "f.json:1:7: invalid JSON: integer 18446744073709551616 does not fit in 64 bits "
            "(writing the file back would change it)",
        ),
        (
            '["日本", 18446744073709551616]'.encode(),
            "f.json:1:8: invalid JSON: integer 18446744073709551616 does not fit in 64 bits "
            "(writing the file back would change it)",
        ),
        (
            b"[\n  1,\n  -9223372036854775809\n]",
            "f.json:3:3: invalid JSON: integer -9223372036854775809 does not fit in 64 bits "
            "(writing the file back would change it)",
        ),
        (
            b'{"long": "12345678901234567890123", "n": 1234567890123456789012345678901234}',
            "f.json:1:42: invalid JSON: integer 123456789012345678901234567... does not fit in "
            "64 bits (writing the file back would change it)",
        ),
    ],
)
def test_a_document_wfs_cannot_read_is_named_with_its_line_and_column(
    raw: bytes, message: str
) -> None:
    assert refused(raw) == message


def test_the_integer_guard_passes_64_bit_integers_and_long_digits_elsewhere() -> None:
    raw = (
        b'{"max": 18446744073709551615, "min": -9223372036854775808, '
        b'"text": "99999999999999999999999", "float": 0.12345678901234567890123}'
    )
    assert exact(jsonio.parse(raw, "f.json")) == exact(
        {
            "max": 2**64 - 1,
            "min": -(2**63),
            "text": "99999999999999999999999",
            "float": 0.12345678901234568,
        }
    )


def test_nesting_deeper_than_max_depth_is_refused_with_the_pointer_to_it() -> None:
    deepest = json.dumps({"a/b": [{"~": nested(jsonio.MAX_DEPTH - 3)}]}).encode()
    assert jsonio.parse(deepest, "f.json") == {"a/b": [{"~": nested(jsonio.MAX_DEPTH - 3)}]}
    too_deep = json.dumps({"ok": [1], "a/b": [{"~": nested(jsonio.MAX_DEPTH - 2)}]}).encode()
    with pytest.raises(jsonio.InvalidJSON) as caught:
        jsonio.parse(too_deep, "f.json")
    assert caught.value.message == (
        "f.json#/a~1b/0/~0: invalid JSON: nested more than 200 levels deep (wfs reads at most 200)"
    )
    assert (caught.value.location, caught.value.offset) == ("f.json#/a~1b/0/~0", None)
    assert refused(b"[" * 201 + b"]" * 201) == (
        "f.json#/0/0/0: invalid JSON: nested more than 200 levels deep (wfs reads at most 200)"
    )
    assert jsonio.parse(b'"' + b"[" * 300 + b'"', "f.json") == "[" * 300


def test_an_error_carries_its_place_and_reason_apart() -> None:
    with pytest.raises(jsonio.InvalidJSON) as caught:
        jsonio.parse(b'{"a": 1,}', "plan.json")
    error = caught.value
    assert (error.location, error.reason, error.offset) == (
        "plan.json:1:8",
        "trailing comma is not allowed",
        7,
    )
    assert error.exit_code == 2


def test_json_wfs_wrote_itself_is_read_without_guards_and_a_torn_one_raises() -> None:
    assert jsonio.loads(b'{"renames": [["a", "b"]]}') == {"renames": [["a", "b"]]}
    assert jsonio.loads('{"n": 18446744073709551616}') == {"n": 1.8446744073709552e19}
    with pytest.raises(ValueError):
        jsonio.loads(b'{"renames": [["a", "b"')


# ---------------------------------------------------------------- what orjson drops


def test_keys_given_twice_are_found_in_document_order_with_their_counts() -> None:
    raw = b'{"b": 1, "a": [{"x": 1, "x": 2, "x": 3}], "b": 2, "c": {"a/b": {"k": 1, "k": 2}}}'
    assert jsonio.duplicate_keys(raw) == [
        ((), "b", 2),
        (("a", 0), "x", 3),
        (("c", "a/b"), "k", 2),
    ]
    assert jsonio.parse(raw, "f.json")["b"] == 2  # the last one counts
    assert jsonio.duplicate_keys(b'{"a": {"b": 1}, "b": [1, 1]}') == []


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a": 1.50, "b": 1e3, "c": -0, "d": "1.50", "e": 123456789012345678901234567890}',
        b'[\n\t{\n\t\t"x": [\n\t\t\t1.0E+2\n\t\t]\n\t}\n]',
    ],
)
def test_numbers_read_as_written_are_written_back_as_written(raw: bytes) -> None:
    value = jsonio.parse_as_written(raw, "f.json")
    indent = "\t" if b"\t" in raw else None
    assert jsonio.dumps_as(value, indent) == raw


def test_a_number_as_written_is_never_equal_to_a_string() -> None:
    value = jsonio.parse_as_written(b'{"a": 1.50, "b": "1.50"}', "f.json")
    assert value == {"a": jsonio.Number("1.50"), "b": "1.50"}
    assert value["a"] != value["b"]


def test_reading_as_written_refuses_what_parse_refuses() -> None:
    with pytest.raises(jsonio.InvalidJSON) as caught:
        jsonio.parse_as_written(b"[1, NaN]", "f.json")
    assert caught.value.message == (
        "f.json:1:5: invalid JSON: unexpected character, expected a JSON value"
    )
    with pytest.raises(jsonio.InvalidJSON) as caught:
        jsonio.parse_as_written(b"[" * 201 + b"]" * 201, "f.json")
    assert caught.value.location == "f.json#/0/0/0"


@pytest.mark.parametrize(
    ("indent", "written"),
    [
        ("  ", b'{\n  "a": [\n    1,\n    {}\n  ],\n  "b": {\n    "c": "x, y"\n  }\n}'),
        (
            "    ",
            b'{\n    "a": [\n        1,\n        {}\n    ],\n    "b": {\n        "c": "x, y"\n    }\n}',
        ),
        ("\t", b'{\n\t"a": [\n\t\t1,\n\t\t{}\n\t],\n\t"b": {\n\t\t"c": "x, y"\n\t}\n}'),
        (None, b'{"a": [1, {}], "b": {"c": "x, y"}}'),
    ],
)
def test_a_layout_is_each_level_indented_or_all_on_one_line(
    indent: str | None, written: bytes
) -> None:
    assert jsonio.dumps_as({"a": [1, {}], "b": {"c": "x, y"}}, indent) == written


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(plain, st.sampled_from([2, 4, "\t", None]))
def test_a_layout_is_what_the_standard_library_writes_with_that_indent(
    data: Any, indent: int | str | None
) -> None:
    layout = " " * indent if isinstance(indent, int) else indent
    separators = None if indent is not None else (", ", ": ")
    expected = json.dumps(data, indent=indent, ensure_ascii=False, separators=separators)
    assert jsonio.dumps_as(data, layout) == expected.encode("utf-8")


# ---------------------------------------------------------------- strings and pointers


@pytest.mark.slow
@given(st.text(st.characters(codec="utf-8")))
def test_a_string_is_written_as_the_standard_library_writes_it(text: str) -> None:
    assert jsonio.string(text) == json.dumps(text, ensure_ascii=False)


@given(st.text())
def test_any_string_even_with_a_lone_surrogate_reads_back_as_itself(text: str) -> None:
    written = jsonio.string(text)
    assert json.loads(written) == text
    written.encode("utf-8")  # always encodable


def test_a_lone_surrogate_is_written_as_an_escape() -> None:
    assert jsonio.string("é \udcff") == '"\\u00e9 \\udcff"'


def test_a_pointer_escapes_tilde_and_slash() -> None:
    assert jsonio.pointer(("a/b", 0, "~x")) == "/a~1b/0/~0x"
    assert jsonio.pointer(()) == ""


@pytest.mark.slow
def test_no_module_but_jsonio_imports_a_json_library() -> None:
    package = Path(jsonio.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] in ("json", "orjson") for name in names):
                found.append(f"{path.relative_to(package).as_posix()}:{node.lineno}")
    assert [place for place in found if not place.startswith("jsonio.py:")] == []
    assert len(found) == 2  # json and orjson, in jsonio
