"""The rules of one file: each problem a task or session file has on its own, named
precisely.

A problem reads `<file>#<JSON pointer>: <rule>: <message>`. What each file format is
(fields, types, allowed values, and how a problem with them is worded) is defined once,
by the JSON Schemas in schemas/ (one per task format, plus session and plan), run by
wfs.schemas. This module adds the rules of one file that a schema cannot express (one
value against another), and the warnings for files written in a format other than the
canonical one (each naming the `wfs migrate` that converts it). The rules across files,
and the caches of results, are wfs/validate.py's.

Bad content never raises: whatever a file holds (any JSON type anywhere) becomes
problems. Problems come out by file, then in document order.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from wfs import jsonio, schemas, store
from wfs.command_forms import builtin, named_path
from wfs.errors import WfsError
from wfs.formats import (
    TASK_VARIABLES,
    Canonical,
    canonical,
    is_gate,
    task_format,
    task_id,
)
from wfs.graph import find_cycles
from wfs.layout import (
    SESSION_FILE,
    SESSION_PREFIX,
    confined,
    file_task_id,
    is_absolute_path,
    parent_of,
    parse_task_id,
    project_path,
)
from wfs.schemas import quote
from wfs.task_shapes import is_legacy_approach, object_step

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Pointer = tuple[str | int, ...]


class Problem(NamedTuple):
    """One rule broken at one place; `where` is a path, optionally `#` + JSON pointer."""

    where: str
    rule: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        if self.severity == "warning":
            return f"{self.where}: {self.rule}: warning: {self.message}"
        return f"{self.where}: {self.rule}: {self.message}"


class TaskSource(NamedTuple):
    """A task to validate and how to name it.

    `where` names the file or location (a plan entry may already carry a pointer, such
    as `plan.json#/tasks/3`; problem pointers are appended to it). `file_stem` is the
    file name without `.json` when the task was read from `.task/`, else None.
    """

    where: str
    data: Any
    file_stem: str | None
    # The project root, against which paths written on another machine are judged
    # (wfs.layout.project_path); None outside a project: such a path is an error.
    root: Path | None = None


# ---------------------------------------------------------------- reporting


class Found(NamedTuple):
    pointer: Pointer
    rule: str
    message: str
    severity: str


class Report:
    """Problems of one file, held with their pointers until they are put in order."""

    def __init__(self, where: str, data: Any) -> None:
        self.where = where
        self.data = data
        self.found: list[Found] = []

    def error(self, pointer: Pointer, rule: str, message: str) -> None:
        self.found.append(Found(pointer, rule, message, "error"))

    def warning(self, pointer: Pointer, rule: str, message: str) -> None:
        self.found.append(Found(pointer, rule, message, "warning"))

    def problems(self) -> list[Problem]:
        ordered = self.found
        if len(ordered) > 1:  # numbering every pointer of a file is costly: only to sort
            order = _document_order(self.data)
            ordered = sorted(ordered, key=lambda f: _position(order, f.pointer))
        return [
            Problem(where_of(self.where, f.pointer), f.rule, f.message, f.severity) for f in ordered
        ]


def _document_order(data: Any) -> dict[Pointer, int]:
    """Every pointer of `data` numbered in the order it appears in the file."""
    order: dict[Pointer, int] = {}
    stack: list[tuple[Pointer, Any]] = [((), data)]
    while stack:
        pointer, value = stack.pop()
        order[pointer] = len(order)
        children: list[tuple[Pointer, Any]] = []
        if isinstance(value, dict):
            children = [((*pointer, key), item) for key, item in value.items()]
        elif isinstance(value, list):
            children = [((*pointer, i), item) for i, item in enumerate(value)]
        stack.extend(reversed(children))
    return order


def _position(order: dict[Pointer, int], pointer: Pointer) -> int:
    # A pointer to something missing sorts where its nearest existing ancestor is.
    while pointer not in order and pointer:
        pointer = pointer[:-1]
    return order.get(pointer, 0)


def where_of(where: str, pointer: Pointer) -> str:
    if not pointer:
        return where
    # A location that already has a pointer (a plan entry) is extended, not given a second '#'.
    return where + jsonio.pointer(pointer) if "#" in where else f"{where}#{jsonio.pointer(pointer)}"


def _is_int(value: Any) -> bool:
    """An integer as JSON Schema sees one: 2 and 2.0, never true."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


# ---------------------------------------------------------------- one task
#
# What a file format is (each field, its type, its allowed values, every message about
# them) is defined by the schemas in schemas/, run by wfs.schemas. The code here
# keeps what a schema cannot express: a value against another value of the same file
# (the id and the file name, the parent and the id, a dependency on oneself, step
# numbers against positions, step dependencies and their cycles, an output name bound
# twice, whether an embedded regular expression compiles), and then the rules across
# files (further below).

SCHEMA_OF_FORMAT = {"seed": "task", "seed-v1": "task-v1", "flat": "task-flat"}


def validate_task(source: TaskSource) -> list[Problem]:
    """The rules that need only this task (no other task is looked at)."""
    report = Report(source.where, source.data)
    check_task(source, report)
    return report.problems()


def task_error_count(data: Any, file_stem: str | None, root: Path | None = None) -> int:
    """How many errors `validate_task` reports for this task, counted without importing
    jsonschema unless it has one (wfs.schemas.error_count): what `status`, `next` and the
    engine's bookkeeping use to know whether a task is ready."""

    count = schemas.error_count(SCHEMA_OF_FORMAT[task_format(data)], data)
    report = Report("", data)
    _check_relations(data, file_stem, report, root)
    return count + sum(1 for f in report.found if f.severity == "error")


def refusal(source: TaskSource) -> list[str]:
    """The errors that keep `execute` from running a task, as lines: the one decision
    `validate` reports, readiness (`status`, `next`) counts and `execute` refuses by.
    jsonschema is imported only when there is an error to describe."""
    if task_error_count(source.data, source.file_stem, source.root) == 0:
        return []
    return [str(p) for p in validate_task(source) if p.severity == "error"]


def check_task(source: TaskSource, report: Report) -> None:

    data = source.data
    name = SCHEMA_OF_FORMAT[task_format(data)]
    for found in schemas.problems(name, data):
        (report.warning if found.severity == "warning" else report.error)(
            found.pointer, found.rule, found.message
        )
    _check_relations(data, source.file_stem, report, source.root)
    if isinstance(data, dict):
        for move in canonical(data).moves:
            rule = "legacy-approach" if "v1 object form" in move.message else "format"
            report.warning(move.source, rule, move.message)


def _check_relations(
    data: Any, file_stem: str | None, report: Report, root: Path | None = None
) -> None:
    """The rules of one task that relate two of its values (or a path to the project)."""
    if not isinstance(data, dict):
        return

    _check_id(data, file_stem, report)
    context = data.get("context")
    if isinstance(context, dict):
        _check_parent(data, context, report)
        _check_depends_on_entries(
            data, context.get("depends_on"), ("context", "depends_on"), report
        )
    for place in (("depends_on",), ("meta", "depends_on")):
        holder = data if len(place) == 1 else data.get(place[0])
        if isinstance(holder, dict):
            _check_depends_on_entries(data, holder.get(place[-1]), place, report)
    flat = task_format(data) == "flat"
    flow = data.get("flow_control")
    flow = flow if isinstance(flow, dict) else {}
    outputs: dict[str, Pointer] = {}
    for base in (("flow_control", "pre_analysis"), ("pre_analysis",)):
        steps = flow.get(base[-1]) if len(base) == 2 else data.get(base[0])
        if isinstance(steps, list):
            for i, step in enumerate(steps):
                if isinstance(step, dict):
                    _check_step_relations(
                        step, (*base, i), "pre-analysis", "output_to", report, outputs
                    )
    approach = flow.get("implementation_approach")
    if isinstance(approach, list) and not flat:
        base = ("flow_control", "implementation_approach")
        numbers: dict[int, int] = {}
        for i, step in enumerate(approach):
            if isinstance(step, dict):
                if "step" in step and _is_int(step["step"]) and step["step"] >= 1:
                    _check_step_number(step["step"], i, (*base, i), numbers, report)
                _check_step_relations(
                    step, (*base, i), "implementation-approach", "output", report, outputs
                )
        _check_step_dependencies(approach, numbers, report)
    for key in ("implementation",):
        steps = data.get(key)
        if isinstance(steps, list) and flat:
            for i, step in enumerate(steps):
                if isinstance(step, dict):
                    _check_step_relations(step, (key, i), "implementation", "output", report, {})
    read = canonical(data)
    _check_placeholders(read, report)
    _check_labels(read, report)
    _check_paths(read, root, report)


_UNFILLED = (
    r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}|\$\{(session|session_id|session_dir|context_package_path)\}"
)


def _check_placeholders(read: Canonical, report: Report) -> None:
    """A `{{name}}` (or `${context_package_path}`) in a command that nothing fills in:
    no step output, task field or session value has that name. It is left as written
    when the command runs (never replaced by an empty string)."""

    seed = read.task
    context = seed["context"] if isinstance(seed.get("context"), dict) else {}
    known = {"id", "title", "session", "session_id", "session_dir", "dependency_summaries"}
    known |= {name for name in TASK_VARIABLES if name in context}
    if "shared_context" in context:
        known.add("shared")
    if isinstance(seed.get("context_package_path"), str):
        known.add("context_package_path")
    flow = seed["flow_control"] if isinstance(seed.get("flow_control"), dict) else {}
    commands: list[tuple[Pointer, str]] = []
    for key, field in (("pre_analysis", "output_to"), ("implementation_approach", "output")):
        steps = flow.get(key)
        for i, step in enumerate(steps if isinstance(steps, list) else []):
            if not isinstance(step, dict):
                continue
            if isinstance(step.get(field), str):
                known.add(step[field])
            where = read.origins.get(("flow_control", key, i), ("flow_control", key, i))
            if isinstance(step.get("command"), str):
                commands.append(((*where, "command"), step["command"]))
            listed = step.get("commands")
            for j, command in enumerate(listed if isinstance(listed, list) else []):
                if isinstance(command, str):
                    commands.append(((*where, "commands", j), command))
    for where, command in commands:
        for match in re.finditer(_UNFILLED, command):
            name = match.group(1) or match.group(2)
            if name.split(".")[0] not in known:
                report.warning(
                    where,
                    "placeholder",
                    f"placeholder {match.group()} is filled in by nothing: no step output, "
                    "task field or session value has that name; the command gets it as "
                    "written",
                )


def _steps(read: Canonical) -> list[tuple[Pointer, Pointer, dict[str, Any], str]]:
    """Every step object of the task in the seed form, in the order they run: (its
    pointer there, its pointer in the file, the step, the field its output is in)."""
    flow = read.task.get("flow_control")
    found = []
    for key, field in (("pre_analysis", "output_to"), ("implementation_approach", "output")):
        steps = flow.get(key) if isinstance(flow, dict) else None
        for i, step in enumerate(steps if isinstance(steps, list) else []):
            if isinstance(step, dict):
                here: Pointer = ("flow_control", key, i)
                found.append((here, read.origins.get(here, here), step, field))
    return found


def _texts(value: Any) -> list[str]:
    """Every string in a value, at any depth."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


def _check_labels(read: Canonical, report: Report) -> None:
    """A step's `output` is a label for what it delivers ("5 failing test cases in
    test_config.py") unless a later step uses it as `[name]`: only then must it be a
    variable name."""
    steps = _steps(read)
    for n, (_, where, step, field) in enumerate(steps):
        name = step.get(field)
        if not isinstance(name, str) or not name or _IDENTIFIER.fullmatch(name):
            continue
        token = f"[{name}]"
        user = next((s for s in steps[n + 1 :] if token in " ".join(_texts(s[2]))), None)
        if user is not None:
            report.error(
                (*where, field),
                "pre-analysis" if field == "output_to" else "implementation-approach",
                f"{field} {quote(name)} is used as {token} at #{jsonio.pointer(user[1])}; a "
                "name that later steps use as [name] must be a variable name (letters, "
                "digits and _, not starting with a digit)",
            )


class PathPlace(NamedTuple):
    """A path a task names: where it is (in the seed form and in the file), what it
    is, and its text."""

    seed: Pointer
    where: Pointer
    what: str
    text: str
    pattern: bool  # a glob pattern


_PATH_PART = r"((?:[A-Za-z]:)?[^:]*)"  # of `path:function:lines`
_STEP_LISTS = ("pre_analysis", "implementation_approach")


def path_places(read: Canonical) -> list[PathPlace]:
    """Every path the task names for wfs or its agent: the literal paths of its
    built-ins (`Read(src/a.ts)`), its focus paths, target files and artifacts."""
    found = []
    for seed, where, step, _ in _steps(read):
        commands = step.get("commands")
        parts: list[tuple[Pointer, Any]] = (
            [(("commands", j), c) for j, c in enumerate(commands)]
            if isinstance(commands, list)
            else [(("command",), step.get("command"))]
        )
        for place, text in parts:
            command = builtin(text) if isinstance(text, str) else None
            named = named_path(command) if command is not None else None
            if named is not None and command is not None:
                what = f"{command.kind.capitalize()}() path" if command.kind != "glob" else "Glob()"
                found.append(
                    PathPlace((*seed, *place), (*where, *place), what, named.text, named.pattern)
                )
    seed_task = read.task
    lists = (
        (("context", "focus_paths"), "focus path"),
        (("flow_control", "target_files"), "target file"),
    )
    for (key, field), what in lists:
        holder = seed_task.get(key)
        items = holder.get(field) if isinstance(holder, dict) else None
        for k, item in enumerate(items if isinstance(items, list) else []):
            if isinstance(item, str):
                text = item
                if field == "target_files":  # `path:function:lines`: the path
                    found_path = re.match(_PATH_PART, item)
                    text = found_path.group(1) if found_path else item
                here: Pointer = (key, field, k)
                found.append(PathPlace(here, read.origins.get(here, here), what, text, False))
    context = seed_task.get("context")
    artifacts = context.get("artifacts") if isinstance(context, dict) else None
    for k, artifact in enumerate(artifacts if isinstance(artifacts, list) else []):
        path = artifact.get("path") if isinstance(artifact, dict) else artifact
        if isinstance(path, str):
            here = ("context", "artifacts", k, *(("path",) if isinstance(artifact, dict) else ()))
            found.append(PathPlace(here, read.origins.get(here, here), "artifact path", path, True))
    return found


def names_foreign_paths(data: Any) -> bool:
    """Whether a task names an absolute path: what it means depends on the project's
    files (wfs.layout.project_path), so what is known of it is never kept in a cache."""
    if not isinstance(data, dict):
        return False
    return any(is_absolute_path(place.text) for place in path_places(canonical(data)))


def judged_by_files(read: Canonical, root: Path | None) -> bool:
    """Whether what the rules say of a task depends on the project's files besides its
    own: it names a path from another machine (wfs.layout.project_path), or a built-in
    reads a path that passes through a symlink (which may lead out of the project, or
    change where it leads). What is derived from such a task is never kept in a cache."""
    for place in path_places(read):
        if is_absolute_path(place.text):
            return True
        if root is not None and place.seed[1] in _STEP_LISTS and not place.pattern:
            path = root
            for part in Path(place.text).parts:
                path = path / part
                if path.is_symlink():
                    return True
    return False


def localized(task: dict[str, Any], root: Path) -> dict[str, Any]:
    """`task` (in the seed form) with every path from another machine that is in this
    project written as the project's path (what `wfs migrate` writes); `task` itself
    is not changed. A path that is not in the project is left for a person."""
    read = Canonical(task, [], {})
    changes = []
    for place in path_places(read):
        if is_absolute_path(place.text):
            mapped = project_path(root, place.text, place.pattern)
            if mapped is not None:
                changes.append((place, mapped))
    if not changes:
        return task
    new = copy.deepcopy(task)
    for place, mapped in changes:
        holder: Any = new
        for key in place.seed[:-1]:
            holder = holder[key]
        value = holder[place.seed[-1]]
        holder[place.seed[-1]] = value.replace(place.text, mapped, 1)
    return new


_PATH_RULES = {
    "pre_analysis": "pre-analysis",
    "implementation_approach": "implementation-approach",
    "focus_paths": "focus-paths",
    "target_files": "target-files",
    "artifacts": "artifacts",
}


def _check_paths(read: Canonical, root: Path | None, report: Report) -> None:
    """Paths from the author's machine are read where they are in this project (a
    warning: `wfs migrate` writes them so); one that is not in it, and a built-in's path
    that leads out of the project, break the task."""
    for place in path_places(read):
        text, rule = place.text, _PATH_RULES[str(place.seed[1])]
        if is_absolute_path(text):
            mapped = project_path(root, text, place.pattern) if root is not None else None
            if mapped is not None:
                report.warning(
                    place.where,
                    rule,
                    f"{place.what} {quote(text)} is a path on another machine; it is read as "
                    f"{quote(mapped)} in this project, and `wfs migrate` writes that",
                )
            elif root is None:
                nouns = "focus paths" if place.what == "focus path" else "paths"
                report.error(
                    place.where,
                    rule,
                    f"{place.what} {quote(text)} is absolute; {nouns} are relative to the "
                    "project root",
                )
            else:
                report.error(
                    place.where,
                    rule,
                    f"{place.what} {quote(text)} is a path on another machine that is not in "
                    "this project: nothing here ends like it, and it does not name the "
                    f"project's folder {quote(root.name)}",
                )
        elif place.seed[1] in _STEP_LISTS and ".." in re.split(r"[/\\]", text):
            report.error(
                place.where, rule, f"{place.what} {quote(text)} leads outside the project root"
            )
        elif place.seed[1] in _STEP_LISTS and root is not None and not place.pattern:
            try:  # a symlink on the way that leads out (the one check, wfs.layout.confined)
                confined(root, text)
            except WfsError as err:
                why = err.message.removeprefix(f"path {text!r} ")
                report.error(place.where, rule, f"{place.what} {quote(text)} {why}")


def _check_step_relations(
    step: dict[str, Any],
    where: Pointer,
    rule: str,
    field: str,
    report: Report,
    outputs: dict[str, Pointer],
) -> None:
    criteria = step.get("success_criteria")
    if isinstance(criteria, str) and criteria.startswith("regex:"):
        try:
            re.compile(criteria[len("regex:") :])
        except re.error as err:
            report.error(
                (*where, "success_criteria"),
                rule,
                f"success_criteria {quote(criteria)}: the regular expression does not compile: "
                f"{err}",
            )
    name = step.get(field)
    if isinstance(name, str) and _IDENTIFIER.fullmatch(name):
        if name in outputs:
            report.error(
                (*where, field),
                "duplicate-output",
                f"output name {quote(name)} is already bound at #{jsonio.pointer(outputs[name])}",
            )
        else:
            outputs[name] = (*where, field)


def _check_id(data: dict[str, Any], file_stem: str | None, report: Report) -> None:
    key = "id" if "id" in data else "task_id"
    tid = data.get(key)
    if isinstance(tid, str) and file_stem is not None and file_task_id(file_stem) != tid:
        report.error(
            (key,), "id-filename", f"id {quote(tid)} does not match the file name {file_stem}.json"
        )


def own_parents(data: dict[str, Any]) -> list[str]:
    """The parent named by the id prefix (unless the task is a gate: wfs.formats.is_gate)
    and by context.parent (either may be absent)."""

    parents: list[str] = []
    tid = task_id(data)
    if isinstance(tid, str) and parse_task_id(tid) and not is_gate(data):
        prefix = parent_of(tid)
        if prefix:
            parents.append(prefix)
    context = data.get("context")
    declared = context.get("parent") if isinstance(context, dict) else None
    if isinstance(declared, str) and parse_task_id(declared) and declared not in parents:
        parents.append(declared)
    return parents


def _check_parent(data: dict[str, Any], context: dict[str, Any], report: Report) -> None:

    parent = context.get("parent")
    parsed = parse_task_id(parent) if isinstance(parent, str) else None
    if parsed is None or parsed.minor is not None:
        return  # absent, null, or malformed (the schema says so)
    where: Pointer = ("context", "parent")
    tid = task_id(data)
    own = parse_task_id(tid) if isinstance(tid, str) else None
    if own is None:
        return
    if own.minor is None:
        report.error(
            where,
            "parent",
            f"main task {tid} names context.parent {quote(parent)}; "
            f"a subtask of {parent} must have an id like {parent}.1",
        )
    elif own.major != parsed.major:
        report.error(
            where,
            "parent",
            f"context.parent {quote(parent)} does not match the id {tid}, "
            f"whose main task is {parent_of(str(tid))}",
        )


def _check_depends_on_entries(
    data: dict[str, Any], deps: Any, base: Pointer, report: Report
) -> None:

    if not isinstance(deps, list):
        return
    tid = task_id(data)
    tid = tid if isinstance(tid, str) else None
    parents = own_parents(data)
    for i, dep in enumerate(deps):
        if not isinstance(dep, str) or not parse_task_id(dep):
            continue  # the schema says what is wrong with it
        where: Pointer = (*base, i)
        if dep == tid:
            report.error(where, "depends-on", f"{tid} depends on itself")
        elif dep in parents:
            report.error(
                where,
                "depends-on",
                f"{tid} depends on its own parent {dep}, which completes only after its subtasks",
            )
        elif tid is not None and parent_of(dep) == tid:
            report.error(where, "depends-on", depends_on_child(tid, dep))


def depends_on_child(tid: str, child: str) -> str:
    return (
        f"{tid} depends on its own subtask {child}; subtasks inherit their parent's "
        f"dependencies, so {child} would wait for itself"
    )


def _check_step_number(
    number: Any, index: int, where: Pointer, numbers: dict[int, int], report: Report
) -> None:
    expected = index + 1
    if number in numbers:
        report.error(
            (*where, "step"),
            "duplicate-step",
            f"step number {number} is already used by the step at position {numbers[number] + 1}; "
            f"expected {expected}",
        )
    else:
        numbers[number] = index
        if number != expected:
            report.error(
                (*where, "step"),
                "step-sequence",
                f"step {number} is at position {expected}; steps are numbered 1..n in array "
                f"order, so {expected} was expected",
            )


def _check_step_dependencies(steps: list[Any], numbers: dict[int, int], report: Report) -> None:
    base: Pointer = ("flow_control", "implementation_approach")
    rule = "step-depends-on"
    graph: dict[int, list[int]] = {}  # step index -> indexes of the steps it waits for
    for i, step in enumerate(steps):
        deps = step.get("depends_on") if isinstance(step, dict) else None
        if not isinstance(deps, list):
            continue  # absent, or not an array (the schema says so)
        where: Pointer = (*base, i, "depends_on")
        number = step.get("step")
        own = _is_int(number) and number in numbers and numbers[number] == i
        name = f"step {number}" if own else f"the step at position {i + 1}"
        for j, dep in enumerate(deps):
            if not _is_int(dep):
                continue  # the schema says so
            elif dep in numbers and numbers[dep] == i:
                report.error((*where, j), rule, f"{name} depends on itself")
            elif dep not in numbers:
                report.error(
                    (*where, j), rule, f"{name} depends on step {dep}, which does not exist"
                )
            else:
                if numbers[dep] > i:
                    report.error(
                        (*where, j),
                        rule,
                        f"{name} depends on step {dep}, which comes later; "
                        "a step may depend only on earlier steps",
                    )
                graph.setdefault(i, []).append(numbers[dep])
    label = {index: number for number, index in numbers.items()}
    for cycle in find_cycles(sorted(graph), graph, lambda index: index):
        path = " -> ".join(str(label[index]) for index in cycle)
        report.error(base, "step-cycle", f"steps depend on each other in a cycle: {path}")


# ---------------------------------------------------------------- sessions


def validate_session_data(data: Any, where: str, folder: str | None = None) -> list[Problem]:
    """Rules of `workflow-session.json` (schemas/session.schema.json), and its
    session_id against its folder. `folder` is the session's folder name; by default it
    is taken from `where` when that ends in `WFS-x/workflow-session.json`."""

    report = Report(where, data)
    for found in schemas.problems("session", data):
        (report.warning if found.severity == "warning" else report.error)(
            found.pointer, found.rule, found.message
        )
    if folder is None:
        path = PurePosixPath(where.split("#", 1)[0].replace("\\", "/"))
        if path.name == SESSION_FILE and path.parent.name.startswith(SESSION_PREFIX):
            folder = path.parent.name
    sid = data.get("session_id") if isinstance(data, dict) else None
    if isinstance(sid, str) and sid.startswith(SESSION_PREFIX) and folder and sid != folder:
        report.error(
            ("session_id",),
            "session-id",
            f"session_id {quote(sid)} does not match its folder {folder}",
        )
    return report.problems()


def load_file(path: Path, where: str) -> tuple[Any, Problem | None, list[Found]]:
    """The parsed file, or the problem that stopped it from being read; then the
    warnings about how it is written (keys given twice)."""
    try:
        raw = store.read_file(path, where)
    except WfsError as err:
        return None, Problem(where, "file", err.message.removeprefix(f"{where}: ")), []
    try:
        data = jsonio.parse(raw, where)
    except jsonio.InvalidJSON as err:
        return None, Problem(err.location, "json", f"invalid JSON: {err.reason}"), []
    return data, None, duplicate_keys(raw)


def duplicate_keys(raw: bytes) -> list[Found]:
    """A warning for each key an object gives twice: wfs (like most readers) keeps the
    last one, but a person reading the file, or another tool, may take the first.
    `wfs migrate` writes such a file back with each key once."""
    return [
        Found(
            (*at, key),
            "duplicate-key",
            f"key {quote(key)} is given {times} times; the last one counts, and "
            "`wfs migrate` keeps only it",
            "warning",
        )
        for at, key, times in jsonio.duplicate_keys(raw)
    ]


# ---------------------------------------------------------------- migration


def migrate_task(task: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Convert a v1 object-form implementation_approach into the step array (only that;
    `wfs migrate` converts every format, see wfs.formats.canonical).

    Returns (new task, True) when converted, else (task, False). Key order and every
    other field are kept; unknown keys of the v1 object move into the step. The input is
    not modified.
    """

    flow = task.get("flow_control")
    if not isinstance(flow, dict) or not is_legacy_approach(flow.get("implementation_approach")):
        return task, False
    step = object_step(flow["implementation_approach"], task.get("title"), flow)
    new_flow = {
        key: [step] if key == "implementation_approach" else copy.deepcopy(value)
        for key, value in flow.items()
    }
    new_task = {
        key: new_flow if key == "flow_control" else copy.deepcopy(value)
        for key, value in task.items()
    }
    return new_task, True
