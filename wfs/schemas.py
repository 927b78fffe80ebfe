"""The JSON Schemas of `schemas/`: what each file format is, and the problems they find.

The schema files are the single definition of each format. jsonschema decides whether
a document is valid and describes each failure. Besides the standard keywords, each
schema node may carry annotations that say how a failure reads (editors ignore them):

- `x-rule`: the rule name of problems found at or below this node;
- `x-what`: how the value is named in messages (`context.parent`, `depends_on entry`);
- `x-message`, `x-messages` (by keyword): the message, a template (see `_render`);
- `x-severity: warning`: a failure of a keyword of this node is a warning, not an
  error (not inherited: the nodes below say their own);
- `x-first` (on a node with `allOf`): only the first failing branch is reported, so
  that a value gets the one message that says best what is wrong with it;
- `x-match`: a regular expression whose first match in the value is `{match}`;
- `x-choices`: the values `{choices}` offers.

Most documents have nothing wrong with them, and the commands agents call all the time
only need to know whether a task has errors (readiness). Those questions are answered by
fastjsonschema, which compiles the same schema files into Python, once per process and
only for the schema a command asks about: `is_clean` (the schema finds nothing at all)
and `has_no_error` (the same schema without the assertions of its `x-severity: warning`
nodes). jsonschema, whose import costs more than a whole `wfs status`, runs only on a
document the compiled check rejects, to say what is wrong with it.
tests/test_schema_checks.py holds the compiled checks equal to jsonschema, on the corpus
and on generated documents.

The enumerations of the formats (statuses, phases, …) are defined here once, and
tests/test_schemas.py holds each equal to the schema that lists it.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from wfs import jsonio
from wfs.resources import read_text
from wfs.text import json_kind

# ---------------------------------------------------------------- enumerations
#
# Python copies of lists the schemas hold (reading them from the files at import would
# cost every command a JSON parse); tests/test_schemas.py holds each equal to its schema.

# task.schema.json, $defs/status: what wfs writes (x-choices) ...
TASK_STATUSES = ("pending", "active", "completed", "blocked", "container")
# ... the statuses a task without subtasks can be set to ...
LEAF_STATUSES = tuple(status for status in TASK_STATUSES if status != "container")
# ... and those other tools write, with what they mean here (docs/formats.md; the rest
# of the status enum):
# - in_progress: started and not finished, which is `active` (a paused task:
#   `wfs execute --resume ID` continues it);
# - failed: a step failed, which is `blocked` (its dependents wait; --resume retries);
# - skipped: not run because a dependency failed, which is `pending` (ready again once
#   every dependency is completed).
STATUS_ALIASES = {"in_progress": "active", "failed": "blocked", "skipped": "pending"}

# task.schema.json, $defs/on_error: the strategies, and other tools' values, each read
# as the strategy nearest to what it says (wfs.formats warns, naming it).
ON_ERROR_VALUES = ("skip_optional", "fail", "retry_once", "manual_intervention")
ON_ERROR_ALIASES = {
    "continue": "skip_optional",
    "skip": "skip_optional",
    "warn": "skip_optional",
    "ignore": "skip_optional",
    "abort": "fail",
    "stop": "fail",
    "halt": "fail",
    "retry": "retry_once",
    "manual": "manual_intervention",
    "ask": "manual_intervention",
    "pause": "manual_intervention",
}
# What each strategy does to the task, as a warning about an alias says it.
ON_ERROR_MEANINGS = {
    "skip_optional": "a failure does not stop the task",
    "fail": "a failure stops the task: it is blocked",
    "retry_once": "a failure runs the step once more",
    "manual_intervention": "a failure pauses the task for a person",
}

# task.schema.json, $defs/meta: the kinds of work (meta.type) that pick an agent.
TASK_TYPES = ("feature", "bugfix", "refactor", "test-gen", "test-fix", "docs", "test")

# task.schema.json, $defs/flat_places: the top-level keys that, without flow_control,
# mark a file written in the flat format.
FLAT_KEYS = frozenset(
    (
        "description",
        "depends_on",
        "focus_paths",
        "convergence",
        "files",
        "implementation",
        "implementation_steps",
        "pre_analysis",
        "cli_execution",
        "acceptance_criteria",
        "dependencies",
        "requirements",
        "files_to_create",
        "files_to_modify",
    )
)
# task.schema.json, $defs/implementation_step: the fields of a seed step, in order.
SEED_STEP_FIELDS = (
    "step",
    "title",
    "description",
    "modification_points",
    "logic_flow",
    "depends_on",
    "output",
)
# task-v1.schema.json: the fields of the v1 object form of implementation_approach.
LEGACY_KEYS = ("task_description", "modification_points", "logic_flow")

# session.schema.json: phases (in order), complexities (lowest first), session statuses.
# What an agent command gets on stdin (`.workflow/config.json` "agent_input", env
# WFS_AGENT_INPUT): the Markdown brief (the default), or the brief as JSON.
AGENT_INPUTS = ("markdown", "json")
PHASES = ("PLAN", "IMPLEMENT", "REVIEW")
COMPLEXITIES = ("simple", "medium", "complex")
SESSION_STATUSES = ("active", "paused", "completed")
# Where session files keep their topic, first found first: wfs's own field (the one the
# session id was made from), then the fields other tools write it in.
TOPIC_FIELDS = ("project", "topic", "task_description", "description", "goal", "title")

# ---------------------------------------------------------------- the schema files

SCHEMA_FILES = {
    "task": "task.schema.json",
    "task-v1": "task-v1.schema.json",
    "task-flat": "task-flat.schema.json",
    "session": "session.schema.json",
    "plan": "plan.schema.json",
}
SCHEMA_NAMES = tuple(SCHEMA_FILES)
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
    """One problem a schema finds, worded."""

    pointer: Pointer
    rule: str
    message: str
    severity: str


@functools.cache
def documents() -> dict[str, Node]:
    """Every schema by its `$id`."""
    loaded = {}
    for name in SCHEMA_FILES.values():
        document = jsonio.loads(read_text("schemas", name).encode())
        loaded[document["$id"]] = document
    return loaded


def uri(name: str) -> str:
    return BASE_URI + SCHEMA_FILES[name]


def schema(name: str) -> Node:
    return documents()[uri(name)]


def resolve(base: str, ref: str) -> tuple[str, Node]:
    """The node a `$ref` names, and the `$id` of the document it is in."""
    target, _, fragment = ref.partition("#")
    where = base if not target else (target if "://" in target else BASE_URI + target)
    node: Any = documents()[where]
    for part in fragment.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return where, node


# ---------------------------------------------------------------- the compiled checks


def is_clean(name: str, data: Any) -> bool:
    """Whether the schema `name` finds nothing at all (not even a warning) in `data`."""
    return _compiled(name, False)(data)


def has_no_error(name: str, data: Any) -> bool:
    """Whether the schema `name` finds no error in `data` (warnings aside)."""
    return _compiled(name, True)(data)


def error_count(name: str, data: Any) -> int:
    """How many errors `problems(name, data)` reports; jsonschema runs only when the
    compiled check finds one."""
    if has_no_error(name, data):
        return 0
    return sum(1 for found in describe(name, data) if found.severity == "error")


Check = Callable[[Any], bool]

# Keywords through which a failure below is the failure of another node (whose own
# x-severity says what it is): kept in a warning node by the check that looks for
# errors only. Every other keyword of a warning node fails as a warning.
APPLICATORS = frozenset(
    ("properties", "patternProperties", "items", "prefixItems", "allOf", "$ref")
    + ("if", "then", "else", "dependentSchemas")
)
# Keywords that describe a node without checking anything.
ANNOTATIONS = frozenset(
    ("$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples")
)


# The checks the commands agents call most need (whether a task has an error: readiness,
# `task add`), compiled by fastjsonschema into the package, with a MANIFEST naming the
# fastjsonschema version and the sources they were made from
# (`python scripts/compile.py`; a test holds them equal to a fresh compile).
PRECOMPILED = (("task", True),)
COMPILED = Path(__file__).resolve().parent / "checks"
MANIFEST = "MANIFEST"


@functools.cache
def _compiled(name: str, errors_only: bool) -> Check:
    import fastjsonschema  # deferred: only a command that checks a document pays for it

    validate = precompiled(name, errors_only) or fastjsonschema.compile(
        **_compile_arguments(schema(name), errors_only)
    )
    return _as_check(validate, fastjsonschema.JsonSchemaValueException)


def compiled_check(root: Node, errors_only: bool = False) -> Check:
    """`root`, a schema that may refer to the schemas of wfs (and to nothing else),
    compiled by fastjsonschema (with `errors_only`, without the checks of its warning
    nodes), as a function that says whether a document passes. Compiling the task schema
    costs about 20 ms, paid once by a process that checks a document, never by one that
    only reads answers from the index (and, for the checks of PRECOMPILED, never)."""
    import fastjsonschema  # deferred: only a command that checks a document pays for it

    validate = fastjsonschema.compile(**_compile_arguments(root, errors_only))
    return _as_check(validate, fastjsonschema.JsonSchemaValueException)


def _as_check(validate: Callable[[Any], Any], invalid: type[Exception]) -> Check:
    def check(data: Any) -> bool:
        try:
            validate(data)
        except invalid:
            return False
        return True

    return check


def _compile_arguments(root: Node, errors_only: bool) -> dict[str, Any]:
    """What fastjsonschema compiles `root` with."""
    prepared = _prepared_documents(errors_only)

    def local(where: str) -> Any:
        """Our schemas refer only to each other: never a request to the network."""
        if where not in prepared:
            raise ValueError(f"{where} is not one of the schemas of wfs")
        return prepared[where]

    # Defaults are never filled in (the document is checked, not changed), formats are
    # not checked, and a failure needs no message (jsonschema writes those).
    return {
        "definition": _prepared(root, errors_only),
        "handlers": dict.fromkeys(("http", "https", "file", "ftp", "data"), local),
        "use_default": False,
        "use_formats": False,
        "detailed_exceptions": False,
    }


def check_source(name: str, errors_only: bool) -> str:
    """The Python source fastjsonschema generates for a check, as kept in COMPILED."""
    import fastjsonschema  # deferred: only the script that compiles the checks needs it
    from fastjsonschema.ref_resolver import RefResolver

    arguments = _compile_arguments(schema(name), errors_only)
    source = fastjsonschema.compile_to_code(**arguments)
    definition, handlers = arguments["definition"], arguments["handlers"]
    entry = RefResolver.from_schema(definition, handlers=handlers).get_scope_name()
    return f"{source}\n\nwfs_check = {entry}\n"


def check_module(name: str, errors_only: bool) -> str:
    return f"{name.replace('-', '_')}_{'errors' if errors_only else 'all'}"


def manifest(version: str) -> str:
    """What the compiled checks must have been made from: fastjsonschema `version`, the
    schema files and this module (which prepares them), each by its CRC-32."""
    sources = [(name, read_text("schemas", name).encode()) for name in SCHEMA_FILES.values()]
    sources.append(("schemas.py", Path(__file__).read_bytes()))
    lines = [f"fastjsonschema {version}"]
    lines += [f"{zlib.crc32(data):08x} {name}" for name, data in sources]
    return "\n".join(lines) + "\n"


def precompiled(
    name: str, errors_only: bool, folder: Path = COMPILED
) -> Callable[[Any], Any] | None:
    """The check kept in `folder`, when it is one of PRECOMPILED and the folder's
    MANIFEST is current; else None (it is then compiled from the schemas as they are)."""
    if (name, errors_only) not in PRECOMPILED:
        return None
    from fastjsonschema import VERSION  # deferred with the compiled checks

    try:
        if (folder / MANIFEST).read_text(encoding="utf-8") != manifest(VERSION):
            return None
    except OSError:
        return None
    import importlib.util  # deferred with the compiled checks

    module = check_module(name, errors_only)
    spec = importlib.util.spec_from_file_location(f"wfs.checks.{module}", folder / f"{module}.py")
    if spec is None or spec.loader is None:
        return None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    found: Callable[[Any], Any] = loaded.wfs_check
    return found


def compile_all(folder: Path = COMPILED) -> None:
    """Write every check of PRECOMPILED and the MANIFEST into `folder`."""
    from fastjsonschema import VERSION  # deferred: only the script that compiles them

    folder.mkdir(parents=True, exist_ok=True)
    for name, errors_only in PRECOMPILED:
        source = check_source(name, errors_only)
        (folder / f"{check_module(name, errors_only)}.py").write_text(source, encoding="utf-8")
    (folder / MANIFEST).write_text(manifest(VERSION), encoding="utf-8")


@functools.cache
def _prepared_documents(errors_only: bool) -> dict[str, Any]:
    return {where: _prepared(doc, errors_only) for where, doc in documents().items()}


def _prepared(node: Any, errors_only: bool) -> Any:
    """A copy of a schema node as fastjsonschema compiles it. `const: x` is written as
    `enum: [x]` (the same, by definition): fastjsonschema 2.22 cannot generate the
    message of a failed `const` without detailed exceptions. With `errors_only`, a
    warning node keeps only the keywords that lead to other nodes."""
    if isinstance(node, list):
        return [_prepared(item, errors_only) for item in node]
    if not isinstance(node, dict):
        return node
    warning = errors_only and node.get("x-severity") == "warning"
    copy: Node = {}
    for key, value in node.items():
        if key.startswith("x-"):
            continue
        if warning and key not in APPLICATORS and key not in ANNOTATIONS:
            continue
        if key in ("properties", "patternProperties", "$defs", "dependentSchemas"):
            copy[key] = {k: _prepared(sub, errors_only) for k, sub in value.items()}
        elif key == "const":
            copy["enum"] = [value]
        elif key in ("enum", "required", "type", "examples", "default"):
            copy[key] = value
        else:
            copy[key] = _prepared(value, errors_only)
    return copy


# ---------------------------------------------------------------- jsonschema


@functools.cache
def _validator(name: str) -> Any:
    # deferred: jsonschema runs only for a document with a problem (~40 ms to import)
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]
    from referencing import Registry, Resource  # deferred with jsonschema

    registry: Any = Registry().with_resources(
        (where, Resource.from_contents(document)) for where, document in documents().items()
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
    found = _search(uri(name), schema(name), path, 0, target, 0)
    if found is None:  # cannot happen with schemas jsonschema resolved; be plain about it
        return (schema(name),), ()
    nodes, firsts = found
    return (schema(name), *nodes), firsts


def _search(
    base: str, node: Any, path: list[Any], i: int, target: Any, refs: int
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
        deeper = _search(base, step, path, i + used, target, refs)
        if deeper is not None:
            return (step, *deeper[0]), first + deeper[1]
    if "$ref" in node:
        ref_base, resolved = resolve(base, node["$ref"])
        deeper = _search(ref_base, resolved, path, i, target, refs + 1)
        if deeper is not None:
            return (resolved, *deeper[0]), deeper[1]
    return None


# ---------------------------------------------------------------- to problems


def problems(name: str, data: Any) -> list[Found]:
    """Every problem the schema `name` finds in `data`, with its message: none when the
    compiled check finds nothing, else what jsonschema finds."""
    if is_clean(name, data):
        return []
    return describe(name, data)


def describe(name: str, data: Any) -> list[Found]:
    """Every problem jsonschema finds in `data` with the schema `name`, worded."""
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
    value = failure.value

    def fill(match: re.Match[str]) -> str:
        token = match.group(1)
        if token == "what":
            return what
        if token == "value":
            return quote(value)
        if token == "got":
            return got(value)
        if token == "kind":
            return json_kind(value)
        if token == "choices":
            allowed = _annotation(failure, "x-choices") or failure.detail or []
            return enum_message(what, value, [str(a) for a in allowed])
        if token in ("match", "after", "head"):
            found = _first_match(failure)
            if found is None:
                return ""
            if token == "head":
                return found.group()
            return quote(found.group()) if token == "match" else quote(value[found.end() :] or ".")
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


@functools.cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# ---------------------------------------------------------------- how values read


def quote(value: Any, limit: int = 80) -> str:
    """`value` as JSON, shortened; how values are quoted in every message."""
    text = jsonio.compact(value, default=str).decode()
    if len(text) <= limit:
        return text
    return text[: limit - 4] + ('..."' if text.startswith('"') else "...")


def got(value: Any) -> str:
    """`string "x"`, `array`, `null`: what was found instead."""
    if isinstance(value, (dict, list)) or value is None:
        return json_kind(value)
    return f"{json_kind(value)} {quote(value)}"


def is_copied_choices(value: str) -> bool:
    """`"pending|active|completed"`: the list of choices pasted from a template."""
    parts = value.split("|")
    return len(parts) > 1 and all(part.strip() for part in parts)


def enum_message(what: str, value: Any, allowed: Sequence[str]) -> str:
    """What is wrong with `value`, which should be one of `allowed`."""
    choices = ", ".join(allowed)
    if not isinstance(value, str):
        return f"{what} must be one of {choices}; got {got(value)}"
    if is_copied_choices(value):
        return (
            f"{what} {quote(value)} is the list of allowed values copied from a template; "
            f"choose one of {choices}"
        )
    import difflib  # deferred: only on this error path

    close = difflib.get_close_matches(value, list(allowed), n=1)
    hint = f"; did you mean {quote(close[0])}?" if close else ""
    return f"{what} {quote(value)} is not one of {choices}{hint}"
