"""Editing a JSON file that someone else owns: an editor's settings file, `.mcp.json`,
a task or session file of the plan that another tool wrote.

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


# ---------------------------------------------------------------- edits in place
# A file of the plan that wfs did not format (CRLF line ends, four spaces or tabs, arrays
# on one line, non-ASCII escaped) is changed where its values changed and nowhere else:
# a status change is a one-line diff in any file. Only a file wfs wrote itself (its
# bytes are what jsonio.dumps writes) is written anew, in that form.


class _Whole(Exception):
    """This part of the file cannot be edited in place: write the value around it anew."""


class Style(NamedTuple):
    """How a file is laid out, for the values wfs writes into it."""

    newline: str
    indent: str | None  # one level; None: the file is on one line
    items: str  # between the items of a container on one line: ", " or ","
    key: str  # between a key and its value: ": " or ":"
    ascii: bool  # non-ASCII characters written as \\u escapes
    inline_arrays: bool  # arrays of plain values on one line inside multi-line objects


def rewrite(raw: bytes | None, old: Any, new: Any) -> bytes:
    """The bytes of a JSON file that held `raw` (read as `old`) once its value is `new`:
    in wfs's form (jsonio.dumps) when wfs wrote it in that form, or it is new (`raw`
    None); else the file as it was, with only the values that changed replaced, each
    written as the file writes its values."""
    if raw is None or raw == jsonio.dumps(old):
        return jsonio.dumps(new)
    bom = raw.startswith(BOM)
    try:
        text = raw[len(BOM) if bom else 0 :].decode("utf-8")
        root = jsonio.spans(text)
    except ValueError:
        return jsonio.dumps(new)  # not what it was read as: written as wfs writes
    style = _style(text, root)
    edits: list[tuple[int, int, str]] = []
    try:
        _diff(text, style, root, old, new, edits, inline=style.indent is None)
    except _Whole:
        edits = [(root.start, root.end, _render(text, style, root.start, new, None))]
    parts, done = [], 0
    for start, end, replacement in sorted(edits, key=lambda edit: (edit[0], edit[1])):
        parts += [text[done:start], replacement]
        done = end
    parts.append(text[done:])
    data = (BOM if bom else b"") + "".join(parts).encode("utf-8")
    if not _same(jsonio.loads(data[len(BOM) if bom else 0 :]), new):
        return jsonio.dumps(new)  # never written wrong: wfs's form, whole
    return data


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, kinds included (1, 1.0 and true are three values); the order
    of an object's keys means nothing."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _style(text: str, root: jsonio.Span) -> Style:
    items, key, inline_arrays, multiline_arrays = None, None, False, False
    stack = [root]
    while stack:
        span = stack.pop()
        one_line = "\n" not in text[span.start : span.end]
        children = [m[3] for m in span.members or []] + list(span.items or [])
        if one_line and len(children) > 1 and items is None:
            between = text[children[0].end : children[1].start]
            if span.members:
                between = text[children[0].end : span.members[1][1]]
            items = ", " if between.strip() == "," and between.endswith(" ") else ","
        if span.members and key is None:
            _, _, key_end, value = span.members[0]
            between = text[key_end : value.start]
            key = between if "\n" not in between else ": "
        if span.items and all(item.members is None and item.items is None for item in span.items):
            if one_line:
                inline_arrays = True
            else:
                multiline_arrays = True
        stack.extend(children)
    return Style(
        newline="\r\n" if "\r\n" in text else "\n",
        indent=_indent(text),
        items=items or ", ",
        key=key or ": ",
        ascii=text.isascii() and "\\u" in text,
        inline_arrays=inline_arrays and not multiline_arrays,
    )


def _line_indent(text: str, at: int) -> str:
    """The whitespace that opens the line `at` is on."""
    start = text.rfind("\n", 0, at) + 1
    line = text[start:at]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _render(text: str, style: Style, at: int, value: Any, inline: bool | None) -> str:
    """`value` written at `at` as the file writes its values: on one line when `inline`
    (None: as the file writes a value of its kind there)."""
    if inline is None:
        inline = style.indent is None or (
            style.inline_arrays
            and isinstance(value, list)
            and all(not isinstance(v, dict | list) for v in value)
        )
    if inline or not isinstance(value, dict | list):
        return jsonio.dumps_styled(value, None, (style.items, style.key), style.ascii)
    return _block(style, value, 0).replace("\n", style.newline + _line_indent(text, at))


def _block(style: Style, value: Any, level: int) -> str:
    """`value` on lines ended by "\n", each level indented as the file indents, arrays of
    plain values on one line where the file writes them so."""
    one_line = not isinstance(value, dict | list) or not value
    if isinstance(value, list) and style.inline_arrays:
        one_line = one_line or all(not isinstance(v, dict | list) for v in value)
    if one_line or style.indent is None:
        return jsonio.dumps_styled(value, None, (style.items, style.key), style.ascii)
    inner = "\n" + style.indent * (level + 1)
    if isinstance(value, dict):
        items = [
            jsonio.dumps_styled(key, None, ascii=style.ascii)
            + style.key
            + _block(style, v, level + 1)
            for key, v in value.items()
        ]
        brackets = "{}"
    else:
        items = [_block(style, v, level + 1) for v in value]
        brackets = "[]"
    body = ("," + inner).join(items)
    return brackets[0] + inner + body + "\n" + style.indent * level + brackets[1]


def _member(text: str, style: Style, at: int, key: str, value: Any, inline: bool) -> str:
    name = jsonio.dumps_styled(key, None, ascii=style.ascii)
    return name + style.key + _render(text, style, at, value, True if inline else None)


def _diff(
    text: str,
    style: Style,
    span: jsonio.Span,
    old: Any,
    new: Any,
    edits: list[tuple[int, int, str]],
    inline: bool,
) -> None:
    """The edits that make the value at `span` (read as `old`) `new`."""
    if _same(old, new):
        return
    one_line = inline or "\n" not in text[span.start : span.end]
    if isinstance(old, dict) and isinstance(new, dict) and span.members is not None:
        if len(span.members) != len(old):
            raise _Whole  # a key given twice: written anew, each key once
        try:
            _diff_object(text, style, span, old, new, edits, one_line)
            return
        except _Whole:
            pass
    elif isinstance(old, list) and isinstance(new, list) and span.items is not None:
        if _diff_array(text, style, span, old, new, edits, one_line):
            return
    # A container keeps its layout; a plain value, or an empty container, takes the
    # layout the file gives a value of the new kind.
    kind_kept = one_line if span.members or span.items else None
    edits.append((span.start, span.end, _render(text, style, span.start, new, kind_kept)))


def _diff_object(
    text: str,
    style: Style,
    span: jsonio.Span,
    old: dict[str, Any],
    new: dict[str, Any],
    edits: list[tuple[int, int, str]],
    one_line: bool,
) -> None:
    members = span.members or []
    kept = [i for i, (key, *_) in enumerate(members) if key in new]
    if not kept:
        raise _Whole  # every key taken out: the object is written anew
    # The keys stay in the file's order (which means nothing to JSON, and is the author's).
    first = members[kept[0]]
    between = style.items if one_line else "," + style.newline + _line_indent(text, first[1])
    for i in kept:
        key, _, _, value = members[i]
        _diff(text, style, value, old[key], new[key], edits, one_line)
    # Keys taken out: up to the next key kept, or the trailing ones after the last kept.
    last = kept[-1]
    for i, (key, key_start, _, _) in enumerate(members):
        if key not in new and i < last:
            edits.append((key_start, members[i + 1][1], ""))
    if last < len(members) - 1:
        edits.append((members[last][3].end, members[-1][3].end, ""))
    # Keys added: each after the key before it in `new` (or before the first one).
    place = {key: value.end for key, _, _, value in members}
    previous = None
    for key in new:
        if key in old:
            previous = key
            continue
        member = _member(text, style, first[1], key, new[key], one_line)
        if previous is None:
            edits.append((first[1], first[1], member + between))
        else:
            edits.append((place[previous], place[previous], between + member))


def _diff_array(
    text: str,
    style: Style,
    span: jsonio.Span,
    old: list[Any],
    new: list[Any],
    edits: list[tuple[int, int, str]],
    one_line: bool,
) -> bool:
    """Edit the array in place when its items changed, or were added or taken out at its
    end; False when it is better written anew."""
    items = span.items or []
    if len(old) != len(items):
        return False
    if len(new) == len(old):
        for item, before, after in zip(items, old, new, strict=True):
            _diff(text, style, item, before, after, edits, one_line)
        return True
    shared = min(len(old), len(new))
    if shared == 0 or not all(_same(a, b) for a, b in zip(old[:shared], new[:shared], strict=True)):
        return False
    if len(new) < len(old):
        edits.append((items[shared - 1].end, items[-1].end, ""))
        return True
    between = style.items if one_line else "," + style.newline + _line_indent(text, items[0].start)
    added = "".join(
        between + _render(text, style, items[0].start, value, True if one_line else None)
        for value in new[shared:]
    )
    edits.append((items[-1].end, items[-1].end, added))
    return True
