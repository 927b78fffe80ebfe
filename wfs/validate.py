"""Validation of task and session files: every rule, each problem named precisely.

A problem reads `<file>#<JSON pointer>: <rule>: <message>`. What each file format is
(fields, types, allowed values, and how a problem with them is worded) is defined once,
by the JSON Schemas in schemas/ (one per task format, plus session and plan), run by
wfs.schemas. This module adds the rules a schema cannot express (one value against
another, one file against another), the warnings for files written in a format other
than the canonical one (each naming the `wfs migrate` that converts it), and the cache
of per-file results.

Bad content never raises: whatever a file holds (any JSON type anywhere) becomes
problems. Problems come out by file, then in document order.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Hashable
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple, TypeVar

from wfs import jsonio, schemas
from wfs.errors import WfsError
from wfs.layout import (
    SESSION_FILE,
    SESSION_PREFIX,
    Layout,
    check_session_id,
    parent_of,
    parse_task_id,
    task_sort_key,
)
from wfs.schemas import LEAF_STATUSES, TASK_STATUSES, quote

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Pointer = tuple[str | int, ...]
_Node = TypeVar("_Node", bound=Hashable)


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


# ---------------------------------------------------------------- reporting


class _Found(NamedTuple):
    pointer: Pointer
    rule: str
    message: str
    severity: str


class _Report:
    """Problems of one file, held with their pointers until they are put in order."""

    def __init__(self, where: str, data: Any) -> None:
        self.where = where
        self.data = data
        self.found: list[_Found] = []

    def error(self, pointer: Pointer, rule: str, message: str) -> None:
        self.found.append(_Found(pointer, rule, message, "error"))

    def warning(self, pointer: Pointer, rule: str, message: str) -> None:
        self.found.append(_Found(pointer, rule, message, "warning"))

    def problems(self) -> list[Problem]:
        ordered = self.found
        if len(ordered) > 1:  # numbering every pointer of a file is costly: only to sort
            order = _document_order(self.data)
            ordered = sorted(ordered, key=lambda f: _position(order, f.pointer))
        return [
            Problem(_where(self.where, f.pointer), f.rule, f.message, f.severity) for f in ordered
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


def json_pointer(pointer: Pointer) -> str:
    """RFC 6901: `("a/b", 0)` -> `/a~1b/0`."""
    return jsonio.pointer(pointer)


def _where(where: str, pointer: Pointer) -> str:
    if not pointer:
        return where
    # A location that already has a pointer (a plan entry) is extended, not given a second '#'.
    return where + json_pointer(pointer) if "#" in where else f"{where}#{json_pointer(pointer)}"


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
    report = _Report(source.where, source.data)
    _check_task(source, report)
    return report.problems()


def task_error_count(data: Any, file_stem: str | None) -> int:
    """How many errors `validate_task` reports for this task, counted without importing
    jsonschema unless it has one (wfs.schemas.error_count): what `status`, `next` and the
    engine's bookkeeping use to know whether a task is ready."""
    from wfs.formats import task_format

    count = schemas.error_count(SCHEMA_OF_FORMAT[task_format(data)], data)
    report = _Report("", data)
    _check_relations(data, file_stem, report)
    return count + sum(1 for f in report.found if f.severity == "error")


def refusal(source: TaskSource) -> list[str]:
    """The errors that keep `execute` from running a task, as lines; jsonschema is
    imported only when there is one to describe."""
    if task_error_count(source.data, source.file_stem) == 0:
        return []
    return [str(p) for p in validate_task(source) if p.severity == "error"]


def _check_task(source: TaskSource, report: _Report) -> None:
    from wfs.formats import canonical, task_format

    data = source.data
    name = SCHEMA_OF_FORMAT[task_format(data)]
    for found in schemas.problems(name, data):
        (report.warning if found.severity == "warning" else report.error)(
            found.pointer, found.rule, found.message
        )
    _check_relations(data, source.file_stem, report)
    if isinstance(data, dict):
        for move in canonical(data).moves:
            rule = "legacy-approach" if "v1 object form" in move.message else "format"
            report.warning(move.source, rule, move.message)


def _check_relations(data: Any, file_stem: str | None, report: _Report) -> None:
    """The rules of one task that relate two of its values."""
    if not isinstance(data, dict):
        return
    from wfs.formats import task_format

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
    _check_placeholders(data, report)


_UNFILLED = re.compile(
    r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}|\$\{(session|session_id|session_dir|context_package_path)\}"
)


def _check_placeholders(data: dict[str, Any], report: _Report) -> None:
    """A `{{name}}` (or `${context_package_path}`) in a command that nothing fills in:
    no step output, task field or session value has that name. It is left as written
    when the command runs (never replaced by an empty string)."""
    from wfs.flow.variables import TASK_VARIABLES
    from wfs.formats import canonical

    read = canonical(data)
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
            for j, command in enumerate(step.get("commands") or []):
                if isinstance(command, str):
                    commands.append(((*where, "commands", j), command))
    for where, command in commands:
        for match in _UNFILLED.finditer(command):
            name = match.group(1) or match.group(2)
            if name.split(".")[0] not in known:
                report.warning(
                    where,
                    "placeholder",
                    f"placeholder {match.group()} is filled in by nothing: no step output, "
                    "task field or session value has that name; the command gets it as "
                    "written",
                )


def _check_step_relations(
    step: dict[str, Any],
    where: Pointer,
    rule: str,
    field: str,
    report: _Report,
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
                f"output name {quote(name)} is already bound at #{json_pointer(outputs[name])}",
            )
        else:
            outputs[name] = (*where, field)


def _check_id(data: dict[str, Any], file_stem: str | None, report: _Report) -> None:
    key = "id" if "id" in data else "task_id"
    tid = data.get(key)
    if isinstance(tid, str) and file_stem is not None and tid != file_stem:
        report.error(
            (key,), "id-filename", f"id {quote(tid)} does not match the file name {file_stem}.json"
        )


def _own_parents(data: dict[str, Any]) -> list[str]:
    """The parent named by the id prefix and by context.parent (either may be absent)."""
    from wfs.formats import task_id

    parents: list[str] = []
    tid = task_id(data)
    if isinstance(tid, str) and parse_task_id(tid):
        prefix = parent_of(tid)
        if prefix:
            parents.append(prefix)
    context = data.get("context")
    declared = context.get("parent") if isinstance(context, dict) else None
    if isinstance(declared, str) and parse_task_id(declared) and declared not in parents:
        parents.append(declared)
    return parents


def _check_parent(data: dict[str, Any], context: dict[str, Any], report: _Report) -> None:
    from wfs.formats import task_id

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
    data: dict[str, Any], deps: Any, base: Pointer, report: _Report
) -> None:
    from wfs.formats import task_id

    if not isinstance(deps, list):
        return
    tid = task_id(data)
    tid = tid if isinstance(tid, str) else None
    parents = _own_parents(data)
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
            report.error(where, "depends-on", _depends_on_child(tid, dep))


def _depends_on_child(tid: str, child: str) -> str:
    return (
        f"{tid} depends on its own subtask {child}; subtasks inherit their parent's "
        f"dependencies, so {child} would wait for itself"
    )


def is_legacy_approach(value: Any) -> bool:
    """The v1 object form: `{"task_description", "modification_points", "logic_flow"}`."""
    from wfs.formats import is_legacy_approach as legacy

    return legacy(value)


def _check_step_number(
    number: Any, index: int, where: Pointer, numbers: dict[int, int], report: _Report
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


def _check_step_dependencies(steps: list[Any], numbers: dict[int, int], report: _Report) -> None:
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
    for cycle in _find_cycles(sorted(graph), graph, lambda index: index):
        path = " -> ".join(str(label[index]) for index in cycle)
        report.error(base, "step-cycle", f"steps depend on each other in a cycle: {path}")


# ---------------------------------------------------------------- the whole set


def validate_tasks(sources: list[TaskSource]) -> list[Problem]:
    """Every single-task rule for each source, plus the rules across the set."""
    return [p for problems in _task_problems(sources, frozenset()) for p in problems]


def change_problems(changed: list[TaskSource], seeds: list[TaskSource]) -> list[Problem]:
    """The errors a change to some tasks can make or mend: the single-task rules of the
    tasks it changed, and the rules across the set, run on every task's seed form
    (`seeds`, the index's skeletons). A change costs what it changed: the other tasks'
    files are not read, and jsonschema runs only on a changed task that has an error."""
    found = [p for source in changed for p in task_problems(source)]
    reports = [_Report(source.where, source.data) for source in seeds]
    _check_set(seeds, reports, frozenset())
    return found + [p for report in reports for p in report.problems() if p.severity == "error"]


def task_problems(source: TaskSource) -> list[Problem]:
    """The errors of one task on its own (jsonschema runs only when it has some)."""
    if not task_error_count(source.data, source.file_stem):
        return []
    return [p for p in validate_task(source) if p.severity == "error"]


def _task_problems(sources: list[TaskSource], unreadable: frozenset[str]) -> list[list[Problem]]:
    """Problems per source, in source order; `unreadable` ids exist but could not be read."""
    from wfs.tasks import skeleton

    reports = [_Report(source.where, source.data) for source in sources]
    for source, report in zip(sources, reports, strict=True):
        _check_task(source, report)
    # The rules across files read every task in the seed form (dependencies merged from
    # wherever the file writes them), as `validate_session` reads the index's skeletons.
    seeds = [
        source._replace(data=skeleton(source.data, 0, source.file_stem))
        if isinstance(source.data, dict)
        else source
        for source in sources
    ]
    _check_set(seeds, reports, unreadable)
    return [report.problems() for report in reports]


def _moved(task: dict[str, Any], key: str) -> Any:
    """Where the file holds `key` (id, depends_on) when it is not at its seed place."""
    moved = task.get("moved")
    return moved.get(key) if isinstance(moved, dict) else None


def _check_set(
    sources: list[TaskSource], reports: list[_Report], unreadable: frozenset[str]
) -> None:
    first: dict[str, int] = {}  # id -> index of the first source that has it
    for i, source in enumerate(sources):
        tid = source.data.get("id") if isinstance(source.data, dict) else None
        if not isinstance(tid, str):
            continue
        if tid in first:
            reports[i].error(
                tuple(_moved(source.data, "id") or ("id",)),
                "unique-id",
                f"duplicate id {tid}: also used by {sources[first[tid]].where}",
            )
        else:
            first[tid] = i
    tasks: dict[str, dict[str, Any]] = {tid: sources[i].data for tid, i in first.items()}
    known = set(tasks) | unreadable
    children: dict[str, list[str]] = {}
    for tid in sorted(set(tasks) | unreadable, key=task_sort_key):
        task = tasks.get(tid, {"id": tid})
        for parent in _own_parents(task):
            if parent != tid:
                children.setdefault(parent, []).append(tid)

    deps: dict[str, list[str]] = {}
    for tid, task in tasks.items():
        report = reports[first[tid]]
        _check_status_consistency(tid, task, children.get(tid, []), report)
        _check_parent_exists(tid, task, known, report)
        deps[tid] = _check_dependencies_exist(tid, task, known, children.get(tid, []), report)
    _check_dependency_cycles(tasks, deps, children, reports, first)


def _check_status_consistency(
    tid: str, task: dict[str, Any], kids: list[str], report: _Report
) -> None:
    status = task.get("status")
    if not isinstance(status, str) or status not in TASK_STATUSES:
        return  # reported by the status rule
    if kids and status != "container":
        report.error(
            ("status",),
            "status-consistency",
            f"{tid} has subtasks ({', '.join(kids)}), so its status must be "
            f'"container", not {quote(status)}',
        )
    elif not kids and status == "container":
        report.error(
            ("status",),
            "status-consistency",
            f'status is "container" but no task has {tid} as its parent; '
            f"a task without subtasks is {', '.join(LEAF_STATUSES[:-1])} or {LEAF_STATUSES[-1]}",
        )


def _check_parent_exists(tid: str, task: dict[str, Any], known: set[str], report: _Report) -> None:
    context = task.get("context")
    declared = context.get("parent") if isinstance(context, dict) else None
    if not (isinstance(declared, str) and parse_task_id(declared)):
        declared = None  # absent or malformed (reported by the single-task parent rule)
    if declared is not None and declared not in known:
        report.error(
            ("context", "parent"), "parent", f"context.parent {quote(declared)} does not exist"
        )
    parsed = parse_task_id(tid)
    prefix = parent_of(tid) if parsed else None
    if prefix is not None and prefix not in known and prefix != declared:
        report.error(
            ("id",), "parent", f"subtask {tid} needs its main task {prefix}, which does not exist"
        )


def _check_dependencies_exist(
    tid: str, task: dict[str, Any], known: set[str], kids: list[str], report: _Report
) -> list[str]:
    """Report dependencies on missing tasks; return the usable ones for cycle detection."""
    context = task.get("context")
    entries = context.get("depends_on") if isinstance(context, dict) else None
    if not isinstance(entries, list):
        return []
    parents = _own_parents(task)
    places = _moved(task, "depends_on")
    usable: list[str] = []
    for j, dep in enumerate(entries):
        if not isinstance(dep, str) or not parse_task_id(dep):
            continue  # reported by context-type / depends-on
        if dep == tid or dep in parents or parent_of(dep) == tid:
            continue  # reported by the single-task depends-on rule
        where: Pointer = tuple(places[j]) if places else ("context", "depends_on", j)
        if dep not in known:
            report.error(where, "depends-on", f"{tid} depends on {dep}, which does not exist")
        elif dep in kids:  # a subtask by its context.parent rather than by its id
            report.error(where, "depends-on", _depends_on_child(tid, dep))
        elif dep not in usable:
            usable.append(dep)
    return usable


def _check_dependency_cycles(
    tasks: dict[str, dict[str, Any]],
    deps: dict[str, list[str]],
    children: dict[str, list[str]],
    reports: list[_Report],
    first: dict[str, int],
) -> None:
    # A task waits for its dependencies; a container waits for its subtasks (so depending
    # on a container means depending on all its children); a subtask also waits for its
    # parent's dependencies (SPEC 3.1). A cycle in this graph means nothing can ever run.
    graph: dict[str, list[str]] = {tid: list(deps.get(tid, [])) for tid in tasks}
    why: dict[tuple[str, str], str] = {}
    for parent, kids in children.items():
        if parent not in tasks:
            continue
        for kid in kids:
            if kid not in tasks:
                continue
            graph[parent].append(kid)
            why[(parent, kid)] = f"{parent} is a container and waits for its subtasks"
            for dep in deps.get(parent, []):
                if dep != kid and dep not in graph[kid]:
                    graph[kid].append(dep)
                    why[(kid, dep)] = f"{kid} inherits the dependencies of its parent {parent}"
    for tid in graph:
        graph[tid] = sorted(set(graph[tid]), key=task_sort_key)
    for cycle in _find_cycles(sorted(graph, key=task_sort_key), graph, task_sort_key):
        notes = [why[edge] for edge in zip(cycle, cycle[1:], strict=False) if edge in why]
        note = f" ({'; '.join(notes)})" if notes else ""
        start = cycle[0]
        context = tasks[start].get("context")
        places = _moved(tasks[start], "depends_on")
        where: Pointer = (
            tuple(places[0][:-1])
            if places
            else ("context", "depends_on")
            if isinstance(context, dict) and "depends_on" in context
            else ()
        )
        reports[first[start]].error(
            where, "dependency-cycle", f"dependency cycle: {' -> '.join(cycle)}{note}"
        )


def _find_cycles(
    nodes: list[_Node], graph: dict[_Node, list[_Node]], key: Callable[[_Node], Any]
) -> list[list[_Node]]:
    """Cycles met by a depth-first search, each once, rotated to start at its smallest
    node and closed (`[a, b, a]`)."""
    done: set[_Node] = set()
    found: list[list[_Node]] = []
    seen: set[tuple[_Node, ...]] = set()
    for start in nodes:
        if start in done:
            continue
        path: list[_Node] = [start]
        on_path = {start}
        pending = [iter(graph.get(start, []))]
        while pending:
            nxt = next(pending[-1], None)
            if nxt is None:
                node = path.pop()
                on_path.discard(node)
                done.add(node)
                pending.pop()
            elif nxt in on_path:
                cycle = _rotate(path[path.index(nxt) :], key)
                if tuple(cycle) not in seen:
                    seen.add(tuple(cycle))
                    found.append([*cycle, cycle[0]])
            elif nxt not in done:
                path.append(nxt)
                on_path.add(nxt)
                pending.append(iter(graph.get(nxt, [])))
    return found


def _rotate(cycle: list[_Node], key: Callable[[_Node], Any]) -> list[_Node]:
    turn = min(range(len(cycle)), key=lambda j: key(cycle[j]))
    return cycle[turn:] + cycle[:turn]


# ---------------------------------------------------------------- sessions


def validate_session_data(data: Any, where: str, folder: str | None = None) -> list[Problem]:
    """Rules of `workflow-session.json` (schemas/session.schema.json), and its
    session_id against its folder. `folder` is the session's folder name; by default it
    is taken from `where` when that ends in `WFS-x/workflow-session.json`."""

    report = _Report(where, data)
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


def _load(path: Path, where: str) -> tuple[Any, Problem | None, list[_Found]]:
    """The parsed file, or the problem that stopped it from being read; then the
    warnings about how it is written (keys given twice)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, Problem(where, "file", "file not found"), []
    except IsADirectoryError:
        return None, Problem(where, "file", "is a directory, expected a JSON file"), []
    except OSError as err:
        return None, Problem(where, "file", f"cannot read: {err.strerror}"), []
    try:
        data = jsonio.parse(raw, where)
    except jsonio.InvalidJSON as err:
        return None, Problem(err.location, "json", f"invalid JSON: {err.reason}"), []
    return data, None, duplicate_keys(raw)


def duplicate_keys(raw: bytes) -> list[_Found]:
    """A warning for each key an object gives twice: wfs (like most readers) keeps the
    last one, but a person reading the file, or another tool, may take the first.
    `wfs migrate` writes such a file back with each key once."""
    return [
        _Found(
            (*at, key),
            "duplicate-key",
            f"key {quote(key)} is given {times} times; the last one counts, and "
            "`wfs migrate` keeps only it",
            "warning",
        )
        for at, key, times in jsonio.duplicate_keys(raw)
    ]


class _Checked(NamedTuple):
    """One task file after its single-file rules: cached by wfs.index between runs."""

    name: str
    problems: list[Problem]
    skeleton: dict[str, Any] | None  # None: not a JSON object
    readable: bool


def _check_file(layout: Layout, path: Path, name: str) -> _Checked:
    from wfs.tasks import skeleton

    where = layout.relative(path)
    data, problem, warnings = _load(path, where)
    if problem:
        return _Checked(name, [problem], None, False)
    report = _Report(where, data)
    _check_task(TaskSource(where, data, name[: -len(".json")]), report)
    report.found.extend(warnings)
    problems = report.problems()
    errors = sum(1 for p in problems if p.severity == "error")
    return _Checked(
        name, problems, skeleton(data, errors) if isinstance(data, dict) else None, True
    )


def _rules_stamp() -> tuple[Any, ...]:
    """Cached results are only as good as the rules that produced them: this module, the
    reader of formats, the schemas and what runs them."""
    from wfs import __version__, formats
    from wfs.index import FORMAT
    from wfs.resources import resource_dir

    sources = [Path(__file__), Path(formats.__file__), Path(schemas.__file__)]
    sources += sorted(Path(str(resource_dir("schemas"))).glob("*.schema.json"))
    stamps = []
    for source in sources:
        st = source.stat()
        stamps += [st.st_mtime_ns, st.st_size]
    return (__version__, FORMAT, *stamps)


def _checked_files(
    layout: Layout, key: str, entries: list[Any], stamps: list[Any], trusted: list[Any]
) -> list[_Checked]:
    """Every task file of the session checked alone, re-checking only changed files
    (`entries` of the .task folder, with their stamps, and those stamps when trusted)."""
    import marshal

    from wfs import index

    path = index.cache_path(str(layout.workflow), key, "valid")
    cached = index._load(path)
    rules = _rules_stamp()
    known: dict[str, tuple[Any, Any]] = {}
    if cached is not None and len(cached) == 5 and cached[1] == rules:
        known = dict(zip(cached[2], zip(cached[3], cached[4], strict=True), strict=True))
    checked: list[_Checked] = []
    for entry, stamp in zip(entries, stamps, strict=True):
        hit = known.get(entry.name)
        if hit is not None and hit[0] == stamp:
            problems, skel, readable = hit[1]
            checked.append(_Checked(entry.name, [Problem(*p) for p in problems], skel, readable))
        else:
            checked.append(_check_file(layout, Path(entry.path), entry.name))
    names = [c.name for c in checked]
    if cached is None or cached[1] != rules or cached[2] != names or cached[3] != trusted:
        results = [([tuple(p) for p in c.problems], c.skeleton, c.readable) for c in checked]
        payload = marshal.dumps((index.FORMAT, rules, names, trusted, results))
        index.write_cache(path, index._sealed(payload))
    return checked


def validate_session(layout: Layout, sid: str, folder: Path | None = None) -> list[Problem]:
    """Every rule for one session: its session file, then each task file by id.

    `folder`: one copy of the session (default: the one wfs works on; see
    `validate_project` for sessions found in several places). Single-file results are
    cached per file stamp (see wfs/index.py); the rules across files run on the tasks'
    skeletons whenever a task file changed, and their results are kept with the stamps
    of every file, so a plan that did not change is answered from the cache.
    """
    primary = layout.session_dir(sid)
    folder = folder or primary
    key = sid if folder == primary else f"{sid}@{layout.place_of(folder) or 'workflow'}"
    problems = _checked_session(layout, sid, folder, key)
    journal = layout.journal(sid)
    if journal.exists() and folder == primary:
        problems.insert(
            0,
            Problem(
                layout.relative(journal),
                "interrupted",
                "a change to several files of this session was interrupted, so they are "
                "half written; `wfs doctor --fix` finishes it",
            ),
        )
    return problems + _task_file_problems(layout, sid, folder, key)


def _task_file_problems(layout: Layout, sid: str, folder: Path, key: str) -> list[Problem]:
    """The problems of the task files, each alone and across files: from the cache when
    no file changed since they were found (the folder's stamp and every file's the same,
    all trusted when they were saved: see wfs/index.py)."""
    import marshal

    from wfs import index
    from wfs.tasks import task_entries

    task_dir = str(folder / ".task")
    path = index.cache_path(str(layout.workflow), key, "vall")
    rules = _rules_stamp()
    cached = index._load(path)
    if cached is not None and len(cached) == 6 and cached[:2] == (index.FORMAT, rules):
        try:
            if index.stamps_match(task_dir, *cached[2:5]):
                return [Problem(*p) for p in cached[5]]
        except OSError:
            pass
    stamper = index._Stamper()
    try:  # before the listing: a file added while it runs is seen next time
        dir_stamp = stamper.trusted(stamper.take(os.stat(task_dir)))
    except OSError:
        dir_stamp = None
    entries = list(task_entries(layout, sid, folder))
    stamps = [stamper.take(entry.stat()) for entry in entries]
    trusted = [stamper.trusted(stamp) for stamp in stamps]
    problems = _task_problems_now(
        layout, folder, _checked_files(layout, key, entries, stamps, trusted)
    )
    if dir_stamp is not None and None not in trusted:
        names = [e.name for e in entries]
        payload = marshal.dumps(
            (index.FORMAT, rules, dir_stamp, names, stamps, [tuple(p) for p in problems])
        )
        index.write_cache(path, index._sealed(payload))
    return problems


def _task_problems_now(layout: Layout, folder: Path, checked: list[_Checked]) -> list[Problem]:
    problems: list[Problem] = []
    task_dir = folder / ".task"
    readable = [c for c in checked if c.readable]
    unreadable = frozenset(
        c.name[: -len(".json")]
        for c in checked
        if not c.readable and parse_task_id(c.name[: -len(".json")])
    )
    shown = layout.relative(task_dir)
    sources = [
        TaskSource(f"{shown}/{c.name}", c.skeleton, c.name[: -len(".json")]) for c in readable
    ]
    reports = [_Report(source.where, source.data) for source in sources]
    _check_set(sources, reports, unreadable)
    across = {c.name: report.found for c, report in zip(readable, reports, strict=True)}
    for item in checked:
        found = across.get(item.name)
        if not found:
            problems.extend(item.problems)
        elif not item.problems and len(found) == 1:
            problems.extend(reports[readable.index(item)].problems())
        else:  # problems of both kinds are put in file order, which needs the whole file
            path = task_dir / item.name
            where = layout.relative(path)
            data, _, warnings = _load(path, where)
            report = _Report(where, data)
            _check_task(TaskSource(where, report.data, item.name[: -len(".json")]), report)
            report.found.extend(warnings + found)
            problems.extend(report.problems())
    return problems


def _checked_session(layout: Layout, sid: str, folder: Path, key: str) -> list[Problem]:
    """The problems of the session file, cached per file stamp like those of the task
    files: a plan that did not change is validated without running a schema again."""
    import marshal

    from wfs import index

    path = folder / SESSION_FILE
    where = layout.relative(path)
    cache = index.cache_path(str(layout.workflow), key, "svalid")
    rules = (*_rules_stamp(), where, sid)
    stamper = index._Stamper()
    try:
        stamp: index.Stamp | None = stamper.take(path.stat())
    except OSError:
        stamp = None
    cached = index._load(cache)
    if stamp is not None and cached is not None and len(cached) == 4:
        if cached[1] == rules and cached[2] == stamp:
            return [Problem(*p) for p in cached[3]]
    data, problem, warnings = _load(path, where)
    problems = [problem] if problem else validate_session_data(data, where, folder=sid)
    problems += [Problem(_where(where, w.pointer), w.rule, w.message, w.severity) for w in warnings]
    trusted = stamper.trusted(stamp)
    if trusted is not None:
        payload = marshal.dumps((index.FORMAT, rules, trusted, [tuple(p) for p in problems]))
        index.write_cache(cache, index._sealed(payload))
    return problems


def validate_project(layout: Layout, sids: list[str] | None = None) -> list[Problem]:
    """`validate --all`: the folders of the project that are not one session each, then
    every copy of every session (`sids`: only these)."""
    from wfs.sessions import layout_problems, session_folders

    problems = [Problem(*found) for found in layout_problems(layout)] if sids is None else []
    for folder in session_folders(layout):
        if (sids is None or folder.name in sids) and _is_session_folder(folder.name):
            problems.extend(validate_session(layout, folder.name, folder.path))
    return problems


def _is_session_folder(name: str) -> bool:
    from wfs.sessions import is_placeholder_name

    if is_placeholder_name(name):
        return False
    try:
        check_session_id(name)
    except WfsError:
        return False
    return True


# ---------------------------------------------------------------- migration


def migrate_task(task: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Convert a v1 object-form implementation_approach into the step array (only that;
    `wfs migrate` converts every format, see wfs.formats.canonical).

    Returns (new task, True) when converted, else (task, False). Key order and every
    other field are kept; unknown keys of the v1 object move into the step. The input is
    not modified.
    """
    import copy

    from wfs.formats import _object_step

    flow = task.get("flow_control")
    if not isinstance(flow, dict) or not is_legacy_approach(flow.get("implementation_approach")):
        return task, False
    step = _object_step(flow["implementation_approach"], task.get("title"), flow)
    new_flow = {
        key: [step] if key == "implementation_approach" else copy.deepcopy(value)
        for key, value in flow.items()
    }
    new_task = {
        key: new_flow if key == "flow_control" else copy.deepcopy(value)
        for key, value in task.items()
    }
    return new_task, True
