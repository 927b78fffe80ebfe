"""Run the JSON Schemas of `schemas/` and turn what they find into precise problems.

The schemas are the single definition of each file format. `validate` runs them with
`jsonschema`. Each schema carries, besides the standard keywords, annotations that say
how a failure reads (editors ignore them):

- `x-rule`: the rule name of problems found at or below this node;
- `x-what`: how the value is named in messages (`context.parent`, `depends_on entry`);
- `x-message`, `x-messages` (by keyword): the message, a template (see `_render`);
- `x-severity: warning`: a failure here is a warning, not an error;
- `x-first` (on a node with `allOf`): only the first failing branch is reported, so
  that a value gets the one message that says best what is wrong with it;
- `x-match`: a regular expression whose first match in the value is `{match}`;
- `x-choices`: the values `{choices}` offers.

Importing `jsonschema` takes longer than a whole `wfs status`, so the commands that
only need to know how many errors a task has (readiness: `status`, `next`, the
engine's bookkeeping) count them with `error_count`, a small evaluator of the same
schemas (only the keywords they use; the tests check that both agree).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from wfs import jsonio
from wfs.resources import read_text

SCHEMA_FILES = {
    "task": "task.schema.json",
    "task-v1": "task-v1.schema.json",
    "task-flat": "task-flat.schema.json",
    "session": "session.schema.json",
    "plan": "plan.schema.json",
}
BASE_URI = "https://wfs.dev/schemas/"

Pointer = tuple[str | int, ...]
Node = dict[str, Any]


class Failure(NamedTuple):
    """One schema keyword that failed on one value."""

    pointer: Pointer  # where the value is in the document
    keyword: str  # the failing keyword (`required`: one failure per missing property)
    nodes: tuple[Node, ...]  # the schema nodes from the root to the one holding it
    firsts: tuple[tuple[int, int], ...]  # (id of an x-first allOf node, branch taken)
    value: Any
    detail: Any = None  # `required`: the missing property; `enum`: the allowed values


class Found(NamedTuple):
    pointer: Pointer
    rule: str
    message: str
    severity: str


# ---------------------------------------------------------------- loading


@functools.cache
def schemas() -> dict[str, Node]:
    """Every schema by its `$id`."""
    loaded = {}
    for name in SCHEMA_FILES.values():
        schema = jsonio.loads(read_text("schemas", name))
        loaded[schema["$id"]] = schema
    return loaded


def schema(name: str) -> Node:
    return schemas()[BASE_URI + SCHEMA_FILES[name]]


def _resolve(base: str, ref: str) -> tuple[str, Node]:
    """The node a `$ref` names, and the `$id` of the document it is in."""
    target, _, fragment = ref.partition("#")
    uri = base if not target else (target if "://" in target else BASE_URI + target)
    node: Any = schemas()[uri]
    for part in fragment.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return uri, node


# ---------------------------------------------------------------- jsonschema


@functools.cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]
    from referencing import Registry, Resource

    registry: Any = Registry().with_resources(
        (uri, Resource.from_contents(document)) for uri, document in schemas().items()
    )
    return Draft202012Validator(schema(name), registry=registry)


def failures(name: str, data: Any) -> list[Failure]:
    """What jsonschema finds wrong with `data`, as failures with their schema nodes."""
    found: list[Failure] = []
    done: set[tuple[Pointer, int]] = set()
    for error in _validator(name).iter_errors(data):
        pointer = tuple(error.absolute_path)
        nodes, firsts = _walk(name, list(error.absolute_schema_path), error.schema)
        keyword = str(error.validator)
        if keyword == "required":
            # jsonschema reports one error per missing property; all of them at once here
            key = (pointer, id(nodes[-1]))
            if key in done:
                continue
            done.add(key)
            for prop in error.validator_value:
                if isinstance(error.instance, dict) and prop not in error.instance:
                    found.append(Failure(pointer, keyword, nodes, firsts, error.instance, prop))
            continue
        detail = error.validator_value if keyword == "enum" else None
        found.append(Failure(pointer, keyword, nodes, firsts, error.instance, detail))
    return found


def _walk(
    name: str, path: list[Any], target: Any
) -> tuple[tuple[Node, ...], tuple[tuple[int, int], ...]]:
    """The schema nodes an error's schema path goes through. jsonschema leaves `$ref`
    out of the path, so a `$ref` may be followed at any step: the walk that ends at the
    error's own schema node (`target`) is the one taken."""
    uri = BASE_URI + SCHEMA_FILES[name]
    found = _search(uri, schema(name), path, 0, target, 0)
    if found is None:  # cannot happen with schemas jsonschema resolved; be plain about it
        return (schema(name),), ()
    nodes, firsts = found
    return (schema(name), *nodes), firsts


def _search(
    uri: str, node: Any, path: list[Any], i: int, target: Any, refs: int
) -> tuple[tuple[Node, ...], tuple[tuple[int, int], ...]] | None:
    if i == len(path) - 1 and node is target:
        return ((), ())
    if not isinstance(node, dict) or refs > 20:
        return None
    key = path[i]
    step: Any = None
    used = 1
    first: tuple[tuple[int, int], ...] = ()
    if i == len(path) - 1:
        pass  # only a `$ref` can lead on from here
    elif key in ("properties", "$defs", "patternProperties") and key in node:
        step, used = node[key].get(path[i + 1]), 2
    elif key in ("allOf", "anyOf", "oneOf", "prefixItems") and key in node:
        branch = path[i + 1]
        step, used = node[key][branch], 2
        if key == "allOf" and node.get("x-first"):
            first = ((id(node), branch),)
    elif key in node and key not in ("$ref",):
        step = node[key]
    if step is not None:
        deeper = _search(uri, step, path, i + used, target, refs)
        if deeper is not None:
            return (step, *deeper[0]), first + deeper[1]
    if "$ref" in node:
        ref_uri, resolved = _resolve(uri, node["$ref"])
        deeper = _search(ref_uri, resolved, path, i, target, refs + 1)
        if deeper is not None:
            return (resolved, *deeper[0]), deeper[1]
    return None


# ---------------------------------------------------------------- the fast evaluator

SUPPORTED = frozenset(
    (
        "type",
        "enum",
        "const",
        "pattern",
        "minLength",
        "minItems",
        "minimum",
        "exclusiveMinimum",
        "required",
        "properties",
        "items",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
    )
)
IGNORED = frozenset(
    ("$schema", "$id", "$defs", "title", "description", "default", "examples", "$comment")
)


def error_count(name: str, data: Any) -> int:
    """How many errors `problems(name, data, …)` reports, without importing jsonschema."""
    if is_valid(name, data):
        return 0  # the common case, decided without collecting failures
    found = list(_fast(name, data))
    return sum(1 for f in _reported(found) if _severity(f) == "error")


def is_valid(name: str, data: Any) -> bool:
    """Whether the schema `name` finds nothing at all (not even a warning) in `data`."""
    return _compiled(name)(data)


Check = Callable[[Any], bool]


@functools.cache
def _compiled(name: str) -> Check:
    return _compile(BASE_URI + SCHEMA_FILES[name], schema(name), {})


def _compile(uri: str, node: Any, done: dict[int, Check]) -> Check:
    """`node` as a function that says whether a value passes it: what `_check` decides,
    as closures built once, without the pointers and nodes a failure carries."""
    if node is True or not isinstance(node, dict):
        return _passes
    if id(node) in done:
        return done[id(node)]
    checks: list[Check] = []

    def check(value: Any) -> bool:
        for part in checks:
            if not part(value):
                return False
        return True

    done[id(node)] = check  # before its parts: a `$ref` may lead back here
    _BUILDING.add(id(node))
    for key, arg in node.items():
        if key in IGNORED or key.startswith("x-") or key in ("then", "else"):
            continue
        checks.append(_compile_keyword(uri, node, key, arg, done))
    _BUILDING.discard(id(node))
    if len(checks) == 1:
        only = checks[0]
        done[id(node)] = only
        return only
    return check


def _compile_keyword(uri: str, node: Node, key: str, arg: Any, done: dict[int, Check]) -> Check:
    if key == "$ref":
        target_uri, target = _resolve(uri, arg)
        inner = _compile(target_uri, target, done)
        if id(target) in _BUILDING:  # a schema that refers back to itself
            return lambda value: done[id(target)](value)
        return inner
    if key == "properties":
        subs = [(prop, _compile(uri, sub, done)) for prop, sub in arg.items()]

        def properties(value: Any) -> bool:
            if isinstance(value, dict):
                for prop, sub in subs:
                    if prop in value and not sub(value[prop]):
                        return False
            return True

        return properties
    if key == "items":
        item = _compile(uri, arg, done)

        def items(value: Any) -> bool:
            if isinstance(value, list):
                for entry in value:
                    if not item(entry):
                        return False
            return True

        return items
    branches = [_compile(uri, sub, done) for sub in arg] if key in _BRANCHING else []
    if key == "allOf":
        return lambda value: all(f(value) for f in branches)
    if key == "anyOf":
        return lambda value: any(f(value) for f in branches)
    if key == "oneOf":
        return lambda value: sum(1 for f in branches if f(value)) == 1
    if key == "not":
        negated = _compile(uri, arg, done)
        return lambda value: not negated(value)
    if key == "if":
        condition = _compile(uri, arg, done)
        then = _compile(uri, node["then"], done) if "then" in node else _passes
        otherwise = _compile(uri, node["else"], done) if "else" in node else _passes
        return lambda value: then(value) if condition(value) else otherwise(value)
    if key == "required":
        return lambda value: not isinstance(value, dict) or all(p in value for p in arg)
    if key == "type":
        kinds = arg if isinstance(arg, list) else [arg]
        if all(kind in _PLAIN_TYPES for kind in kinds):
            types = tuple(_PLAIN_TYPES[kind] for kind in kinds)
            return lambda value: isinstance(value, types)
        return lambda value: any(_is_type(value, kind) for kind in kinds)
    if key == "pattern":  # compiled when first used: most patterns are never reached
        return lambda value: not isinstance(value, str) or _regex(arg).search(value) is not None
    if key in SUPPORTED:
        return lambda value: _keyword_holds(key, arg, value)
    raise ValueError(f"schema keyword {key!r} is not supported by wfs.schemacheck")


_BRANCHING = ("allOf", "anyOf", "oneOf")
_BUILDING: set[int] = set()  # the nodes being compiled
# The JSON types that are one Python type each (numbers are not: a bool is an int).
_PLAIN_TYPES: dict[str, type] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _passes(value: Any) -> bool:
    return True


def fast_failures(name: str, data: Any) -> list[Failure]:
    return list(_fast(name, data))


def _fast(name: str, data: Any) -> Iterator[Failure]:
    root = schema(name)
    yield from _check(BASE_URI + SCHEMA_FILES[name], root, data, (), (root,), ())


def _check(
    uri: str,
    node: Any,
    value: Any,
    pointer: Pointer,
    nodes: tuple[Node, ...],
    firsts: tuple[tuple[int, int], ...],
) -> Iterator[Failure]:
    if node is True or not isinstance(node, dict):
        return
    for key, arg in node.items():
        if key in IGNORED or key.startswith("x-") or key in ("then", "else"):
            continue
        if key == "$ref":
            target_uri, target = _resolve(uri, arg)
            yield from _check(target_uri, target, value, pointer, (*nodes, target), firsts)
        elif key == "properties":
            if isinstance(value, dict):
                for prop, sub in arg.items():
                    if prop in value:
                        yield from _check(
                            uri, sub, value[prop], (*pointer, prop), (*nodes, sub), firsts
                        )
        elif key == "items":
            if isinstance(value, list):
                for i, item in enumerate(value):
                    yield from _check(uri, arg, item, (*pointer, i), (*nodes, arg), firsts)
        elif key == "allOf":
            first = node.get("x-first")
            for i, sub in enumerate(arg):
                more = ((id(node), i),) if first else ()
                yield from _check(uri, sub, value, pointer, (*nodes, sub), firsts + more)
        elif key in ("anyOf", "oneOf"):
            matches = sum(1 for sub in arg if _valid(uri, sub, value))
            if matches == 0 or (key == "oneOf" and matches > 1):
                yield Failure(pointer, key, nodes, firsts, value)
        elif key == "not":
            if _valid(uri, arg, value):
                yield Failure(pointer, key, nodes, firsts, value)
        elif key == "if":
            branch = "then" if _valid(uri, arg, value) else "else"
            if branch in node:
                sub = node[branch]
                yield from _check(uri, sub, value, pointer, (*nodes, sub), firsts)
        elif key == "required":
            if isinstance(value, dict):
                for prop in arg:
                    if prop not in value:
                        yield Failure(pointer, key, nodes, firsts, value, prop)
        elif not _keyword_holds(key, arg, value):
            yield Failure(pointer, key, nodes, firsts, value, arg if key == "enum" else None)


def _valid(uri: str, node: Any, value: Any) -> bool:
    return next(_check(uri, node, value, (), (node,), ()), None) is None


def _keyword_holds(key: str, arg: Any, value: Any) -> bool:
    if key == "type":
        return any(_is_type(value, kind) for kind in (arg if isinstance(arg, list) else [arg]))
    if key == "enum":
        return any(_equal(value, option) for option in arg)
    if key == "const":
        return _equal(value, arg)
    if key == "pattern":
        return not isinstance(value, str) or _regex(arg).search(value) is not None
    if key == "minLength":
        return not isinstance(value, str) or len(value) >= arg
    if key == "minItems":
        return not isinstance(value, list) or len(value) >= arg
    if key == "minimum":
        return not _is_number(value) or value >= arg
    if key == "exclusiveMinimum":
        return not _is_number(value) or value > arg
    raise ValueError(f"schema keyword {key!r} is not supported by wfs.schemacheck")


@functools.cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_type(value: Any, kind: str) -> bool:
    if kind == "object":
        return isinstance(value, dict)
    if kind == "array":
        return isinstance(value, list)
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "null":
        return value is None
    if kind == "number":
        return _is_number(value)
    if kind == "integer":
        return _is_number(value) and (isinstance(value, int) or float(value).is_integer())
    raise ValueError(f"schema type {kind!r} is not supported by wfs.schemacheck")


def _equal(a: Any, b: Any) -> bool:
    # JSON equality: true is not 1, 1.0 is 1
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    return bool(a == b)


# ---------------------------------------------------------------- to problems


def problems(name: str, data: Any) -> list[Found]:
    """Every problem the schema `name` finds in `data` (jsonschema), with its message."""
    return [_found(f) for f in _reported(failures(name, data))]


def _reported(found: list[Failure]) -> list[Failure]:
    """The failures that become problems: in an `x-first` group, only the first failing
    branch at each place (its branches check the value itself, never go deeper); and
    one problem for all the properties a `required` with a `{missing}` message misses."""
    best: dict[tuple[Pointer, int], int] = {}
    for failure in found:
        for group, branch in failure.firsts:
            key = (failure.pointer, group)
            best[key] = min(branch, best.get(key, branch))
    kept = []
    merged: set[tuple[Pointer, int]] = set()
    for f in found:
        if not all(best[(f.pointer, group)] == branch for group, branch in f.firsts):
            continue
        if f.keyword == "required" and "{missing}" in _template(f):
            key = (f.pointer, id(f.nodes[-1]))
            if key in merged:
                continue
            merged.add(key)
        kept.append(f)
    return kept


def _template(failure: Failure) -> str:
    leaf = failure.nodes[-1]
    found = leaf.get("x-messages", {}).get(failure.keyword) or leaf.get("x-message")
    return found if isinstance(found, str) else "{what} is not valid here ({keyword} failed)"


def _annotation(failure: Failure, key: str) -> Any:
    for node in reversed(failure.nodes):
        if key in node:
            return node[key]
    return None


def _severity(failure: Failure) -> str:
    """The node holding the failing keyword says (x-severity is not inherited)."""
    return "warning" if failure.nodes[-1].get("x-severity") == "warning" else "error"


def _found(failure: Failure) -> Found:
    rule = _annotation(failure, "x-rule") or "schema"
    what = _annotation(failure, "x-what") or "value"
    message = _render(_template(failure), failure, what)
    return Found(failure.pointer, rule, message, _severity(failure))


_TOKEN = re.compile(r"\{([a-z]+)\}")


def _render(template: str, failure: Failure, what: str) -> str:
    """Fill a message template. Tokens: {what}, {value} (the value as JSON, shortened),
    {got} (its type, and the value when it is not a container), {kind} (its type),
    {choices} (a whole message about an enumerated value), {match}, {head} and {after}
    (the first match of x-match, or of the failing pattern, quoted and as is, and the
    text after it), {depth} (how many levels a dotted id has),
    {field} and {missing} (the missing property, or all of them), {fields} ("field" or
    "fields"), {position} (the 1-based position of the step the value is in),
    {wrap} (a hint to wrap a single string in [ ]), {keyword}."""
    from wfs.validate import _enum_message, _got, _kind, _q

    value = failure.value

    def fill(match: re.Match[str]) -> str:
        token = match.group(1)
        if token == "what":
            return what
        if token == "value":
            return _q(value)
        if token == "got":
            return _got(value)
        if token == "kind":
            return _kind(value)
        if token == "choices":
            allowed = _annotation(failure, "x-choices") or failure.detail or []
            return _enum_message(what, value, [str(a) for a in allowed])
        if token in ("match", "after", "head"):
            found = _first_match(failure)
            if found is None:
                return ""
            if token == "head":
                return found.group()
            return _q(found.group()) if token == "match" else _q(value[found.end() :] or ".")
        if token == "depth":
            return str(value.count(".") + 1) if isinstance(value, str) else "?"
        if token == "field":
            return str(failure.detail)
        if token == "missing":
            return ", ".join(_missing(failure))
        if token == "fields":
            return "field" if len(_missing(failure)) == 1 else "fields"
        if token == "position":
            ints = [p for p in failure.pointer[:-1] if isinstance(p, int)]
            return str(ints[-1] + 1) if ints else "1"
        if token == "wrap":
            return "; wrap a single value in [ ]" if isinstance(value, str) else ""
        if token == "keyword":
            return failure.keyword
        return match.group(0)

    return _TOKEN.sub(fill, template)


def _missing(failure: Failure) -> list[str]:
    leaf = failure.nodes[-1]
    value = failure.value
    return [p for p in leaf.get("required", []) if isinstance(value, dict) and p not in value]


def _first_match(failure: Failure) -> re.Match[str] | None:
    if not isinstance(failure.value, str):
        return None
    leaf = failure.nodes[-1]
    pattern = leaf.get("x-match")
    if pattern is None:
        inner = leaf.get("not") if failure.keyword == "not" else leaf
        pattern = inner.get("pattern") if isinstance(inner, dict) else None
    return _regex(pattern).search(failure.value) if pattern else None
