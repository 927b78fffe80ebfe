"""wfs.jsonedit: a JSON file someone else owns comes back as it was written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wfs import jsonedit, jsonio
from wfs.errors import WfsError

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(),
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
documents = st.dictionaries(st.text(max_size=8), values, max_size=5)


def encoded(value: Any, indent: int | None) -> bytes:
    """As json.dumps writes it: what most tools write."""
    separators = None if indent is not None else (", ", ": ")
    text = json.dumps(value, indent=indent, ensure_ascii=False, separators=separators)
    return (text + "\n").encode("utf-8", "surrogatepass")


@pytest.mark.slow
@given(documents, st.sampled_from([2, 4, None]))
def test_a_file_written_the_usual_way_comes_back_byte_for_byte(
    value: dict[str, Any], indent: int | None
) -> None:
    raw = encoded(value, indent)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:  # a lone surrogate: not a file anyone can have
        return
    document = jsonedit.parse(raw, "f.json")
    assert jsonedit.dump(document.value, document) == raw


@pytest.mark.slow
@given(documents)
def test_what_is_written_reads_back_as_the_same_values(value: dict[str, Any]) -> None:
    document = jsonedit.parse(encoded(value, 2).decode("utf-8", "replace").encode(), "f.json")
    again = jsonedit.parse(jsonedit.dump(document.value, document), "f.json")
    assert again.value == document.value


def test_numbers_keep_their_spelling_and_are_never_strings() -> None:
    document = jsonedit.parse(b'{"a": 1.50, "b": 1e3, "c": -0, "d": "1.50"}', "f.json")
    assert jsonedit.dump(document.value, document) == b'{"a": 1.50, "b": 1e3, "c": -0, "d": "1.50"}'
    assert document.value["a"] != document.value["d"]
    assert document.value["a"] == jsonio.Number("1.50")


def test_tabs_a_bom_and_a_missing_final_newline_are_kept() -> None:
    raw = '\ufeff{\n\t"a": [\n\t\t1\n\t]\n}'.encode()
    document = jsonedit.parse(raw, "f.json")
    assert jsonedit.dump(document.value, document) == raw
    assert jsonedit.dump({**document.value, "b": True}, document) == (
        '\ufeff{\n\t"a": [\n\t\t1\n\t],\n\t"b": true\n}'.encode()
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": 1,}', "f.json:1:8: invalid JSON: trailing comma is not allowed"),
        (
            b'{\n  /* x */ "a": 1}',
            "f.json:2:3: invalid JSON: unexpected character, expected a string key "
            "(a comment: wfs cannot rewrite the file without losing it)",
        ),
        (
            b'{"a": // x\n 1}',
            "f.json:1:7: invalid JSON: unexpected character, expected a JSON value "
            "(a comment: wfs cannot rewrite the file without losing it)",
        ),
        (
            b'{"a": [{"b": 1, "b": 2}]}',
            'f.json: /a/0: the key "b" is given twice (editors read only one of them); keep one',
        ),
        (
            b'{"a/b": {"~": {}, "~": 1}}',
            'f.json: /a~1b: the key "~" is given twice (editors read only one of them); keep one',
        ),
        (
            b'{"b": 1, "b": 2}',
            'f.json: /: the key "b" is given twice (editors read only one of them); keep one',
        ),
        (
            b'{"a": -Infinity}',
            "f.json:1:8: invalid JSON: no digit after sign (-Infinity is not a JSON value)",
        ),
        (
            b'{"a": NaN}',
            "f.json:1:7: invalid JSON: unexpected character, expected a JSON value "
            "(NaN is not a JSON value)",
        ),
        (b'{"a": "\xff"}', "f.json:1:8: invalid JSON: not valid UTF-8 (byte 0xff)"),
        (b'"text"', "f.json: expected a JSON object, found a string"),
    ],
)
def test_what_wfs_cannot_write_back_unchanged_is_refused_with_its_place(
    raw: bytes, message: str
) -> None:
    with pytest.raises(WfsError) as caught:
        jsonedit.parse(raw, "f.json")
    assert caught.value.message == message


# ------------------------------------------------ a file of the plan, edited in place

AUTHORED = (
    b"{\r\n"
    b'    "id": "IMPL-1",\r\n'
    b'    "title": "Caf\\u00e9",\r\n'
    b'    "status": "pending",\r\n'
    b'    "tags": ["a", "b"],\r\n'
    b'    "meta": {"type": "feature", "agent": "@code-developer"},\r\n'
    b'    "context": {\r\n'
    b'        "depends_on": [],\r\n'
    b'        "budget": 1.50\r\n'
    b"    }\r\n"
    b"}\r\n"
)


def test_a_status_change_in_a_file_wfs_did_not_format_changes_that_line_only() -> None:
    old = jsonio.loads(AUTHORED)
    new = {**old, "status": "completed"}
    assert jsonedit.rewrite(AUTHORED, old, new) == AUTHORED.replace(
        b'"status": "pending"', b'"status": "completed"'
    )


def test_added_keys_and_arrays_are_written_as_the_file_writes_them() -> None:
    old = jsonio.loads(AUTHORED)
    new = {
        **old,
        "tags": ["a", "b", "c"],
        "context": {**old["context"], "depends_on": ["IMPL-0"]},
        "execution": {"note": "é", "steps": [1, 2]},
    }
    assert jsonedit.rewrite(AUTHORED, old, new) == (
        b"{\r\n"
        b'    "id": "IMPL-1",\r\n'
        b'    "title": "Caf\\u00e9",\r\n'
        b'    "status": "pending",\r\n'
        b'    "tags": ["a", "b", "c"],\r\n'
        b'    "meta": {"type": "feature", "agent": "@code-developer"},\r\n'
        b'    "context": {\r\n'
        b'        "depends_on": ["IMPL-0"],\r\n'
        b'        "budget": 1.50\r\n'
        b"    },\r\n"
        b'    "execution": {\r\n'
        b'        "note": "\\u00e9",\r\n'
        b'        "steps": [1, 2]\r\n'
        b"    }\r\n"
        b"}\r\n"
    )


def test_a_key_taken_out_takes_its_line_and_comma_with_it() -> None:
    old = jsonio.loads(AUTHORED)
    new = {k: v for k, v in old.items() if k not in ("tags", "context")}
    assert jsonedit.rewrite(AUTHORED, old, new) == (
        b"{\r\n"
        b'    "id": "IMPL-1",\r\n'
        b'    "title": "Caf\\u00e9",\r\n'
        b'    "status": "pending",\r\n'
        b'    "meta": {"type": "feature", "agent": "@code-developer"}\r\n'
        b"}\r\n"
    )


def test_a_file_on_one_line_stays_on_one_line() -> None:
    raw = b'{"id":"IMPL-1","status":"pending","deps":[]}'
    old = jsonio.loads(raw)
    assert jsonedit.rewrite(raw, old, {**old, "status": "active", "deps": ["IMPL-0"]}) == (
        b'{"id":"IMPL-1","status":"active","deps":["IMPL-0"]}'
    )


def test_a_file_wfs_wrote_or_a_new_one_is_written_in_wfs_s_form() -> None:
    old = {"id": "IMPL-1", "status": "pending", "tags": ["a"]}
    new = {**old, "status": "completed"}
    assert jsonedit.rewrite(jsonio.dumps(old), old, new) == jsonio.dumps(new)
    assert jsonedit.rewrite(None, {}, new) == jsonio.dumps(new)


def test_a_file_with_a_key_given_twice_is_written_anew_each_key_once() -> None:
    raw = b'{\r\n    "status": "pending",\r\n    "status": "active"\r\n}\r\n'
    new = {"status": "completed"}
    written = jsonedit.rewrite(raw, jsonio.loads(raw), new)
    assert written == b'{\r\n    "status": "completed"\r\n}\r\n'
