"""Validation of task and session files: every seed rule, each problem named precisely.

A problem reads `<file>#<JSON pointer>: <rule>: <message>`. The rules are plain Python
rather than a JSON Schema run, so that each message can say exactly what is wrong and
what was expected, and so that `wfs` starts fast (jsonschema is only used by the tests
that check the shipped schemas).

Bad content never raises: whatever a file holds (any JSON type anywhere) becomes
problems. Problems come out by file, then in document order.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple, TypeVar

import orjson

from wfs import store
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
from wfs.sessions import PHASES, SESSION_STATUSES
from wfs.sessions import TYPES as SESSION_TYPES
from wfs.tasks import TASK_STATUSES

REQUIRED_FIELDS = ("id", "title", "status", "meta", "context", "flow_control")
# "test" is the v1 spelling of what v2 splits into test-gen / test-fix; v1 files stay valid.
TASK_TYPES = ("feature", "bugfix", "refactor", "test-gen", "test-fix", "docs", "test")
# v1 named agents without '@' (seed v1: Task JSON Schema and Agent Assignment). Any
# `@name` is accepted: projects define their own agents (e.g. @doc-generator).
V1_AGENTS = ("code-developer", "planning-agent", "code-review-test-agent", "review-agent")
CONTEXT_ARRAYS = ("requirements", "focus_paths", "acceptance", "depends_on")
ARTIFACT_TYPES = ("role_analyses", "topic_framework", "individual_role_analysis")
ARTIFACT_PRIORITIES = ("highest", "high", "medium", "low")
ON_ERROR = ("skip_optional", "fail", "retry_once", "manual_intervention")
STEP_FIELDS = (
    "step",
    "title",
    "description",
    "modification_points",
    "logic_flow",
    "depends_on",
    "output",
)
# A step holding none of these gives an agent nothing to do, and wfs nothing to run.
STEP_WORK = (
    "title",
    "description",
    "action",
    "modification_points",
    "logic_flow",
    "command",
    "commands",
)
LEGACY_KEYS = ("task_description", "modification_points", "logic_flow")
SESSION_REQUIRED = ("session_id", "type", "current_phase", "status", "progress")

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_AGENT = re.compile(r"@[\w.:/-]+")
_DEEP_ID = re.compile(r"IMPL-\d+(?:\.\d+){2,}")
_ID_PREFIX = re.compile(r"IMPL-\d+(?:\.\d+)?")
_OTHER_PREFIX = re.compile(r"([A-Za-z][A-Za-z0-9_]*)-\d+(?:\.\d+)*")
_TEMPLATE_VAR = re.compile(r"\$\{[^}]*\}|\{\{[^}]*\}\}|\{[^},]*\}|<[^>]*>")
_LETTER_PLACEHOLDER = re.compile(r"(?<![A-Za-z])[NMX](?![A-Za-z])")
_WINDOWS_ABSOLUTE = re.compile(r"[A-Za-z]:[\\/]")
_WILDCARDS = "*?[]{"

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
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in pointer)


def _where(where: str, pointer: Pointer) -> str:
    if not pointer:
        return where
    # A location that already has a pointer (a plan entry) is extended, not given a second '#'.
    return where + json_pointer(pointer) if "#" in where else f"{where}#{json_pointer(pointer)}"


def _kind(value: Any) -> str:
    """The JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _q(value: Any, limit: int = 80) -> str:
    """`value` as JSON, shortened; how values are quoted in every message."""
    text = orjson.dumps(value, default=str).decode()
    if len(text) <= limit:
        return text
    return text[: limit - 4] + ('..."' if text.startswith('"') else "...")


def _got(value: Any) -> str:
    """`string "x"`, `array`, `null`: what was found instead."""
    if isinstance(value, (dict, list)) or value is None:
        return _kind(value)
    return f"{_kind(value)} {_q(value)}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_copied_choices(value: str) -> bool:
    """`"pending|active|completed"`: the list of choices pasted from a template."""
    parts = value.split("|")
    return len(parts) > 1 and all(part.strip() for part in parts)


def _enum_message(what: str, value: Any, allowed: Sequence[str]) -> str:
    choices = ", ".join(allowed)
    if not isinstance(value, str):
        return f"{what} must be one of {choices}; got {_got(value)}"
    if _is_copied_choices(value):
        return (
            f"{what} {_q(value)} is the list of allowed values copied from a template; "
            f"choose one of {choices}"
        )
    import difflib  # only on this error path; keeps `wfs` startup fast

    close = difflib.get_close_matches(value, list(allowed), n=1)
    hint = f"; did you mean {_q(close[0])}?" if close else ""
    return f"{what} {_q(value)} is not one of {choices}{hint}"


def _string_array(value: Any, pointer: Pointer, label: str, rule: str, report: _Report) -> bool:
    """Report `value` unless it is an array of strings; True when it is one."""
    if not isinstance(value, list):
        hint = "; wrap a single value in [ ]" if isinstance(value, str) else ""
        report.error(pointer, rule, f"{label} must be an array of strings, got {_got(value)}{hint}")
        return False
    ok = True
    for i, item in enumerate(value):
        if not isinstance(item, str):
            report.error((*pointer, i), rule, f"{label} entries must be strings, got {_got(item)}")
            ok = False
    return ok


# ---------------------------------------------------------------- ids and paths


def task_id_problem(value: str, what: str = "task id") -> str | None:
    """Why `value` is not an `IMPL-N` / `IMPL-N.M` id, or None when it is one."""
    if parse_task_id(value):
        return None
    shown = _q(value)
    if not value.strip():
        return f"{what} is empty; expected IMPL-N or IMPL-N.M"
    if value != value.strip() and parse_task_id(value.strip()):
        return f"{what} {shown} has leading or trailing spaces"
    if _DEEP_ID.fullmatch(value):
        depth = value.count(".") + 1
        return f"{what} {shown} has depth {depth}, which exceeds the 2-level maximum (IMPL-N.M)"
    variable = _TEMPLATE_VAR.search(value)
    if variable:
        return (
            f"{what} {shown} contains the unfilled template placeholder {_q(variable.group())}; "
            "expected IMPL-N or IMPL-N.M with numbers"
        )
    if value.startswith("IMPL-") and _LETTER_PLACEHOLDER.search(value[len("IMPL-") :]):
        return (
            f"{what} {shown} is a template placeholder, not an id; "
            "N and M stand for numbers, e.g. IMPL-1 or IMPL-1.2"
        )
    other = _OTHER_PREFIX.fullmatch(value)
    if other and other.group(1) != "IMPL":
        return (
            f"{what} {shown} has the prefix {_q(other.group(1) + '-')}; ids are IMPL-N or IMPL-N.M"
        )
    head = _ID_PREFIX.match(value)
    if head:
        rest = value[head.end() :]
        return (
            f"{what} {shown} has extra text {_q(rest)} after {head.group()}; "
            "ids are IMPL-N or IMPL-N.M"
        )
    return f"{what} {shown} does not match IMPL-N or IMPL-N.M (N and M are numbers)"


def focus_path_problem(path: str) -> str | None:
    """Why `path` is not a concrete project-relative path, or None when it is one."""
    shown = _q(path)
    if not path.strip():
        return "focus path is empty"
    if path.startswith("~"):
        return f"focus path {shown} starts with '~'; focus paths are relative to the project root"
    if path.startswith(("/", "\\")) or _WINDOWS_ABSOLUTE.match(path):
        return f"focus path {shown} is absolute; focus paths are relative to the project root"
    if path.startswith("./"):
        return f"focus path {shown} starts with './'; write {_q(path[2:] or '.')}"
    if ".." in re.split(r"[/\\]", path):
        return f"focus path {shown} contains '..'; focus paths stay inside the project"
    variable = _TEMPLATE_VAR.search(path)
    if variable:
        return (
            f"focus path {shown} contains the unfilled template placeholder {_q(variable.group())}"
        )
    for char in _WILDCARDS:
        if char in path:
            return (
                f"focus path {shown} contains the wildcard '{char}'; "
                "list concrete directories or files instead"
            )
    return None


def _success_criteria_problem(value: Any) -> str | None:
    """success_criteria: `exit_code:N`, `contains:TEXT`, `regex:PAT` or `not_empty`."""
    forms = "exit_code:N, contains:TEXT, regex:PAT or not_empty"
    if not isinstance(value, str):
        return f"success_criteria must be a string ({forms}), got {_got(value)}"
    kind, colon, arg = value.partition(":")
    if value == "not_empty":
        return None
    if kind == "exit_code" and colon:
        if re.fullmatch(r"\s*-?\d+\s*", arg):
            return None
        return f"success_criteria {_q(value)}: exit_code needs an integer, e.g. exit_code:0"
    if kind == "contains" and colon:
        return None if arg else f"success_criteria {_q(value)}: contains needs the text to look for"
    if kind == "regex" and colon:
        try:
            re.compile(arg)
        except re.error as err:
            return f"success_criteria {_q(value)}: the regular expression does not compile: {err}"
        return None
    return f"success_criteria {_q(value)} is not one of {forms}"


# ---------------------------------------------------------------- one task


def validate_task(source: TaskSource) -> list[Problem]:
    """The rules that need only this task (no other task is looked at)."""
    report = _Report(source.where, source.data)
    _check_task(source, report)
    return report.problems()


def _check_task(source: TaskSource, report: _Report) -> None:
    data = source.data
    if not isinstance(data, dict):
        report.error((), "type", f"a task must be a JSON object, got {_kind(data)}")
        return
    for field in REQUIRED_FIELDS:
        if field not in data:
            report.error((), "required", f'missing required field "{field}"')
    _check_id(data, source.file_stem, report)
    _check_title_and_status(data, report)
    _check_meta(data, report)
    _check_context(data, report)
    _check_flow_control(data, report)
    _check_flat_steps(data, report)
    if "depends_on" in data:
        # Seen in the wild; wfs only reads context.depends_on, so say so rather than ignore it.
        report.warning(
            ("depends_on",),
            "depends-on",
            "a top-level depends_on is ignored; task dependencies belong in context.depends_on",
        )


def _check_id(data: dict[str, Any], file_stem: str | None, report: _Report) -> None:
    if "id" not in data:
        return
    tid = data["id"]
    if not isinstance(tid, str):
        report.error(("id",), "type", f'id must be a string such as "IMPL-1", got {_got(tid)}')
        return
    problem = task_id_problem(tid)
    if problem:
        report.error(("id",), "id-format", problem)
    if file_stem is not None and tid != file_stem:
        report.error(
            ("id",), "id-filename", f"id {_q(tid)} does not match the file name {file_stem}.json"
        )


def _check_title_and_status(data: dict[str, Any], report: _Report) -> None:
    if "title" in data:
        title = data["title"]
        if not isinstance(title, str):
            report.error(("title",), "type", f"title must be a non-empty string, got {_got(title)}")
        elif not title.strip():
            report.error(("title",), "type", "title must be a non-empty string, got an empty one")
    if "status" in data:
        status = data["status"]
        if not isinstance(status, str):
            report.error(
                ("status",),
                "type",
                f"status must be a string, one of {', '.join(TASK_STATUSES)}; got {_got(status)}",
            )
        elif status not in TASK_STATUSES:
            report.error(("status",), "status", _enum_message("status", status, TASK_STATUSES))


def _object_field(data: dict[str, Any], key: str, report: _Report) -> dict[str, Any] | None:
    """`data[key]` when it is an object; reports any other type (rule "type")."""
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, dict):
        report.error((key,), "type", f"{key} must be an object, got {_got(value)}")
        return None
    return value


def _check_meta(data: dict[str, Any], report: _Report) -> None:
    meta = _object_field(data, "meta", report)
    if meta is None:
        return
    if "type" in meta:
        task_type = meta["type"]
        if not isinstance(task_type, str) or _is_copied_choices(task_type):
            report.error(
                ("meta", "type"), "meta", _enum_message("meta.type", task_type, TASK_TYPES)
            )
        elif task_type not in TASK_TYPES:
            # Real projects add their own kinds (docs-tree, code-validation, ...); wfs only uses
            # the type to pick a default agent, so an unknown one is worth a warning, not a stop.
            report.warning(
                ("meta", "type"),
                "meta",
                f"meta.type {_q(task_type)} is not a known task type ({', '.join(TASK_TYPES)})",
            )
    if "agent" in meta:
        agent = meta["agent"]
        if not isinstance(agent, str):
            report.error(
                ("meta", "agent"),
                "meta",
                f'meta.agent must be a string such as "@code-developer", got {_got(agent)}',
            )
        elif _is_copied_choices(agent):
            report.error(
                ("meta", "agent"),
                "meta",
                f"meta.agent {_q(agent)} is the list of choices copied from a template; "
                "choose one agent",
            )
        elif not (_AGENT.fullmatch(agent) or agent in V1_AGENTS):
            report.error(
                ("meta", "agent"),
                "meta",
                f"meta.agent {_q(agent)} must be an agent name starting with '@' "
                f'(e.g. "@code-developer") or a v1 agent name ({", ".join(V1_AGENTS)})',
            )


def _own_parents(data: dict[str, Any]) -> list[str]:
    """The parent named by the id prefix and by context.parent (either may be absent)."""
    parents: list[str] = []
    tid = data.get("id")
    if isinstance(tid, str) and parse_task_id(tid):
        prefix = parent_of(tid)
        if prefix:
            parents.append(prefix)
    context = data.get("context")
    declared = context.get("parent") if isinstance(context, dict) else None
    if isinstance(declared, str) and parse_task_id(declared) and declared not in parents:
        parents.append(declared)
    return parents


def _check_context(data: dict[str, Any], report: _Report) -> None:
    context = _object_field(data, "context", report)
    if context is None:
        return
    for key in CONTEXT_ARRAYS:
        if key in context:
            _string_array(context[key], ("context", key), f"context.{key}", "context-type", report)
    paths = context.get("focus_paths")
    if isinstance(paths, list):
        for i, path in enumerate(paths):
            problem = focus_path_problem(path) if isinstance(path, str) else None
            if problem:
                report.error(("context", "focus_paths", i), "focus-paths", problem)
    _check_parent(data, context, report)
    _check_depends_on_entries(data, context, report)
    if "artifacts" in context:
        _check_artifacts(context["artifacts"], report)


def _check_parent(data: dict[str, Any], context: dict[str, Any], report: _Report) -> None:
    parent = context.get("parent")
    if parent is None:  # absent, or explicitly null: a main task
        return
    where: Pointer = ("context", "parent")
    if not isinstance(parent, str):
        report.error(
            where, "parent", f"context.parent must be a task id string, got {_got(parent)}"
        )
        return
    problem = task_id_problem(parent, "context.parent")
    if problem:
        report.error(where, "parent", problem)
        return
    parsed = parse_task_id(parent)
    if parsed is not None and parsed.minor is not None:
        report.error(
            where,
            "parent",
            f"context.parent {_q(parent)} is a subtask; a parent must be a main task "
            "(IMPL-N), since tasks have at most 2 levels",
        )
        return
    tid = data.get("id")
    own = parse_task_id(tid) if isinstance(tid, str) else None
    if own is None or parsed is None:
        return
    if own.minor is None:
        report.error(
            where,
            "parent",
            f"main task {tid} names context.parent {_q(parent)}; "
            f"a subtask of {parent} must have an id like {parent}.1",
        )
    elif own.major != parsed.major:
        report.error(
            where,
            "parent",
            f"context.parent {_q(parent)} does not match the id {tid}, "
            f"whose main task is {parent_of(str(tid))}",
        )


def _check_depends_on_entries(
    data: dict[str, Any], context: dict[str, Any], report: _Report
) -> None:
    deps = context.get("depends_on")
    if not isinstance(deps, list):
        return
    tid = data.get("id")
    tid = tid if isinstance(tid, str) else None
    parents = _own_parents(data)
    for i, dep in enumerate(deps):
        if not isinstance(dep, str):
            continue  # reported by context-type
        where: Pointer = ("context", "depends_on", i)
        problem = task_id_problem(dep, "depends_on entry")
        if problem:
            report.error(where, "depends-on", problem)
        elif dep == tid:
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


def _check_artifacts(artifacts: Any, report: _Report) -> None:
    base: Pointer = ("context", "artifacts")
    if not isinstance(artifacts, list):
        report.error(
            base,
            "artifacts",
            f"context.artifacts must be an array of objects, got {_got(artifacts)}",
        )
        return
    for i, artifact in enumerate(artifacts):
        where: Pointer = (*base, i)
        if not isinstance(artifact, dict):
            report.error(
                where,
                "artifacts",
                f"an artifact must be an object with type and path, got {_got(artifact)}",
            )
            continue
        if "type" not in artifact:
            report.error(
                where, "artifacts", f'artifact has no "type" (one of {", ".join(ARTIFACT_TYPES)})'
            )
        elif artifact["type"] not in ARTIFACT_TYPES:
            report.error(
                (*where, "type"),
                "artifacts",
                _enum_message("artifact type", artifact["type"], ARTIFACT_TYPES),
            )
        if "priority" in artifact and artifact["priority"] not in ARTIFACT_PRIORITIES:
            report.error(
                (*where, "priority"),
                "artifacts",
                _enum_message("artifact priority", artifact["priority"], ARTIFACT_PRIORITIES),
            )
        if "path" not in artifact:
            report.error(where, "artifacts", 'artifact has no "path"')
            continue
        path = artifact["path"]
        if not isinstance(path, str) or not path.strip():
            report.error(
                (*where, "path"),
                "artifacts",
                f"artifact path must be a non-empty string, got {_got(path)}",
            )
        elif path.startswith(("/", "\\", "~")) or _WINDOWS_ABSOLUTE.match(path):
            report.error(
                (*where, "path"),
                "artifacts",
                f"artifact path {_q(path)} is absolute; paths are relative to the project root",
            )


# ---------------------------------------------------------------- flow control


def _check_flow_control(data: dict[str, Any], report: _Report) -> None:
    flow = _object_field(data, "flow_control", report)
    if flow is None:
        return
    # Output name -> the pointer of its first binding; names are shared by both phases.
    outputs: dict[str, Pointer] = {}
    if "pre_analysis" in flow:
        _check_pre_analysis(flow["pre_analysis"], report, outputs)
    if "implementation_approach" in flow:
        _check_implementation(flow["implementation_approach"], data.get("title"), report, outputs)
    if "target_files" in flow:
        _string_array(
            flow["target_files"],
            ("flow_control", "target_files"),
            "flow_control.target_files",
            "target-files",
            report,
        )


def _check_flat_steps(data: dict[str, Any], report: _Report) -> None:
    """The flat format's top-level `pre_analysis` and `implementation` arrays, which run
    when flow_control has no steps of that kind."""
    flow = data.get("flow_control")
    flow = flow if isinstance(flow, dict) else {}
    outputs: dict[str, Pointer] = {}
    if isinstance(data.get("pre_analysis"), list) and "pre_analysis" not in flow:
        _check_pre_analysis(data["pre_analysis"], report, outputs, ("pre_analysis",))
    steps = data.get("implementation")
    if not isinstance(steps, list) or flow.get("implementation_approach") not in (None, []):
        return
    for i, step in enumerate(steps):
        where: Pointer = ("implementation", i)
        if isinstance(step, str) and step.strip():
            continue  # an agent step with this text
        if not isinstance(step, dict) or not any(
            isinstance(step.get(key), (str, list)) and step.get(key) for key in STEP_WORK
        ):
            report.error(
                where,
                "implementation",
                "an implementation step must be a non-empty string or an object with one of "
                f"{', '.join(STEP_WORK)}; got {_got(step)}",
            )
            continue
        _check_commands(step, where, "implementation", report, required=False)
        _check_run_options(step, where, "implementation", report)


def _check_pre_analysis(
    steps: Any,
    report: _Report,
    outputs: dict[str, Pointer],
    base: Pointer = ("flow_control", "pre_analysis"),
) -> None:
    rule = "pre-analysis"
    if not isinstance(steps, list):
        report.error(
            base, rule, f"{'.'.join(map(str, base))} must be an array of steps, got {_got(steps)}"
        )
        return
    for i, step in enumerate(steps):
        where: Pointer = (*base, i)
        if not isinstance(step, dict):
            report.error(
                where,
                rule,
                "a pre_analysis step must be an object with step, action and command, "
                f"got {_got(step)}",
            )
            continue
        if "step" not in step:
            report.error(where, rule, 'pre_analysis step has no "step" name')
        elif not isinstance(step["step"], str) or not step["step"].strip():
            report.error(
                (*where, "step"), rule, f'"step" must be a non-empty name, got {_got(step["step"])}'
            )
        if "action" not in step:
            # Many real files omit it; the step still runs, it just lacks a description.
            report.warning(
                where, rule, 'pre_analysis step has no "action" (its human-readable description)'
            )
        elif not isinstance(step["action"], str):
            report.error(
                (*where, "action"), rule, f'"action" must be a string, got {_got(step["action"])}'
            )
        _check_commands(step, where, rule, report, required=True)
        _check_run_options(step, where, rule, report)
        if "output_to" in step:
            _check_output_name(
                step["output_to"], (*where, "output_to"), "output_to", rule, report, outputs
            )


def _check_commands(
    step: dict[str, Any], where: Pointer, rule: str, report: _Report, required: bool
) -> None:
    has_command, has_commands = "command" in step, "commands" in step
    if has_command:
        command = step["command"]
        if not isinstance(command, str) or not command.strip():
            report.error(
                (*where, "command"),
                rule,
                f'"command" must be a non-empty string, got {_got(command)}',
            )
    if has_commands:
        commands = step["commands"]
        if not isinstance(commands, list) or not commands:
            report.error(
                (*where, "commands"),
                rule,
                f'"commands" must be a non-empty array of command strings, got {_got(commands)}',
            )
        else:
            for j, command in enumerate(commands):
                if not isinstance(command, str) or not command.strip():
                    report.error(
                        (*where, "commands", j),
                        rule,
                        f"each command must be a non-empty string, got {_got(command)}",
                    )
    if has_command and has_commands:
        # The engine runs `commands` when both are present; say so instead of guessing silently.
        report.warning(
            where, rule, 'step has both "command" and "commands"; only "commands" is run'
        )
    if required and not (has_command or has_commands):
        report.error(where, rule, 'pre_analysis step has neither "command" nor "commands"')


def _check_run_options(step: dict[str, Any], where: Pointer, rule: str, report: _Report) -> None:
    if "on_error" in step and step["on_error"] not in ON_ERROR:
        report.error(
            (*where, "on_error"), rule, _enum_message("on_error", step["on_error"], ON_ERROR)
        )
    if "success_criteria" in step:
        problem = _success_criteria_problem(step["success_criteria"])
        if problem:
            report.error((*where, "success_criteria"), rule, problem)
    if "timeout" in step:
        timeout = step["timeout"]
        if not (
            isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0
        ):
            report.error(
                (*where, "timeout"),
                rule,
                f"timeout must be a positive number of seconds, got {_got(timeout)}",
            )


def _check_output_name(
    name: Any,
    where: Pointer,
    field: str,
    rule: str,
    report: _Report,
    outputs: dict[str, Pointer],
) -> None:
    if not isinstance(name, str) or not _IDENTIFIER.fullmatch(name):
        report.error(
            where,
            rule,
            f"{field} must be a variable name (letters, digits and _, not starting with a digit) "
            f"that later steps use as [name]; got {_got(name)}",
        )
        return
    if name in outputs:
        report.error(
            where,
            "duplicate-output",
            f"output name {_q(name)} is already bound at #{json_pointer(outputs[name])}",
        )
    else:
        outputs[name] = where


def is_legacy_approach(value: Any) -> bool:
    """The v1 object form: `{"task_description", "modification_points", "logic_flow"}`."""
    return isinstance(value, dict) and isinstance(value.get("task_description"), str)


def _check_implementation(
    steps: Any, title: Any, report: _Report, outputs: dict[str, Pointer]
) -> None:
    base: Pointer = ("flow_control", "implementation_approach")
    rule = "implementation-approach"
    if is_legacy_approach(steps):
        report.warning(
            base,
            "legacy-approach",
            "implementation_approach uses the v1 object form (task_description, "
            "modification_points, logic_flow); it is read as one step, and `wfs migrate` "
            "converts it to the step array",
        )
        for key in ("modification_points", "logic_flow"):
            if key in steps:
                _string_array(
                    steps[key], (*base, key), f"implementation_approach.{key}", rule, report
                )
        return
    if not isinstance(steps, list):
        hint = (
            " (the v1 object form needs a task_description string)"
            if isinstance(steps, dict)
            else ""
        )
        report.error(
            base,
            rule,
            "flow_control.implementation_approach must be an array of steps, "
            f"got {_got(steps)}{hint}",
        )
        return
    numbers: dict[int, int] = {}  # step number -> array index of the step that has it
    for i, step in enumerate(steps):
        where: Pointer = (*base, i)
        if isinstance(step, str) and step.strip():
            report.warning(
                where,
                rule,
                "step is a string, not a step object; it runs as an agent step with this text",
            )
            continue
        if not isinstance(step, dict):
            report.error(
                where,
                rule,
                f"an implementation step must be an object (or a string), got {_got(step)}",
            )
            continue
        missing = [field for field in STEP_FIELDS if field not in step]
        if not any(isinstance(step.get(key), (str, list)) and step.get(key) for key in STEP_WORK):
            report.error(
                where, rule, f"step has nothing to do: it has none of {', '.join(STEP_WORK)}"
            )
        elif missing:
            fields = "field" if len(missing) == 1 else "fields"
            how = " (an unnumbered step runs at its position)" if "step" in missing else ""
            report.warning(
                where,
                rule,
                f"step lacks the seed's {fields} {', '.join(missing)}; it runs as written{how}",
            )
        if "step" in step:
            _check_step_number(step["step"], i, where, numbers, report)
        for key in ("title", "description"):
            if key in step and not isinstance(step[key], str):
                report.error((*where, key), rule, f"{key} must be a string, got {_got(step[key])}")
        for key in ("modification_points", "logic_flow"):
            if key in step:
                _string_array(step[key], (*where, key), key, rule, report)
        _check_commands(step, where, rule, report, required=False)
        _check_run_options(step, where, rule, report)
        if "output" in step:
            _check_output_name(step["output"], (*where, "output"), "output", rule, report, outputs)
    _check_step_dependencies(steps, numbers, report)


def _check_step_number(
    number: Any, index: int, where: Pointer, numbers: dict[int, int], report: _Report
) -> None:
    expected = index + 1
    if not _is_int(number) or number < 1:
        report.error(
            (*where, "step"),
            "implementation-approach",
            f'"step" must be a step number (1, 2, 3, ...), got {_got(number)}; expected {expected}',
        )
    elif number in numbers:
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
        if not isinstance(step, dict) or "depends_on" not in step:
            continue
        deps = step["depends_on"]
        where: Pointer = (*base, i, "depends_on")
        if not isinstance(deps, list):
            report.error(
                where,
                rule,
                f"depends_on must be an array of earlier step numbers, got {_got(deps)}",
            )
            continue
        number = step.get("step")
        own = _is_int(number) and number in numbers and numbers[number] == i
        name = f"step {number}" if own else f"the step at position {i + 1}"
        for j, dep in enumerate(deps):
            if not _is_int(dep):
                report.error(
                    (*where, j), rule, f"depends_on entries must be step numbers, got {_got(dep)}"
                )
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


def _task_problems(sources: list[TaskSource], unreadable: frozenset[str]) -> list[list[Problem]]:
    """Problems per source, in source order; `unreadable` ids exist but could not be read."""
    reports = [_Report(source.where, source.data) for source in sources]
    for source, report in zip(sources, reports, strict=True):
        _check_task(source, report)
    _check_set(sources, reports, unreadable)
    return [report.problems() for report in reports]


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
                ("id",),
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
            f'"container", not {_q(status)}',
        )
    elif not kids and status == "container":
        report.error(
            ("status",),
            "status-consistency",
            f'status is "container" but no task has {tid} as its parent; '
            "a task without subtasks is pending, active, completed or blocked",
        )


def _check_parent_exists(tid: str, task: dict[str, Any], known: set[str], report: _Report) -> None:
    context = task.get("context")
    declared = context.get("parent") if isinstance(context, dict) else None
    if not (isinstance(declared, str) and parse_task_id(declared)):
        declared = None  # absent or malformed (reported by the single-task parent rule)
    if declared is not None and declared not in known:
        report.error(
            ("context", "parent"), "parent", f"context.parent {_q(declared)} does not exist"
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
    usable: list[str] = []
    for j, dep in enumerate(entries):
        if not isinstance(dep, str) or not parse_task_id(dep):
            continue  # reported by context-type / depends-on
        if dep == tid or dep in parents or parent_of(dep) == tid:
            continue  # reported by the single-task depends-on rule
        where: Pointer = ("context", "depends_on", j)
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
        where: Pointer = (
            ("context", "depends_on")
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
    """Rules of `workflow-session.json`. `folder` is the session's folder name; by default
    it is taken from `where` when that ends in `WFS-x/workflow-session.json`."""
    report = _Report(where, data)
    if not isinstance(data, dict):
        report.error((), "type", f"a session file must be a JSON object, got {_kind(data)}")
        return report.problems()
    for field in SESSION_REQUIRED:
        if field not in data:
            report.error((), "required", f'missing required field "{field}"')
    if folder is None:
        path = PurePosixPath(where.split("#", 1)[0].replace("\\", "/"))
        if path.name == SESSION_FILE and path.parent.name.startswith(SESSION_PREFIX):
            folder = path.parent.name
    if "session_id" in data:
        _check_session_id(data["session_id"], folder, report)
    for key, rule, allowed in (
        ("type", "session-type", SESSION_TYPES),
        ("current_phase", "current-phase", PHASES),
        ("status", "session-status", SESSION_STATUSES),
    ):
        if key in data and data[key] not in allowed:
            report.error((key,), rule, _enum_message(key, data[key], allowed))
    if "progress" in data:
        _check_progress(data["progress"], report)
    return report.problems()


def _check_session_id(sid: Any, folder: str | None, report: _Report) -> None:
    if not isinstance(sid, str):
        report.error(
            ("session_id",),
            "session-id",
            f'session_id must be a string like "WFS-topic", got {_got(sid)}',
        )
    elif not sid.startswith(SESSION_PREFIX) or len(sid) == len(SESSION_PREFIX):
        report.error(
            ("session_id",), "session-id", f"session_id {_q(sid)} must look like WFS-<slug>"
        )
    elif folder is not None and sid != folder:
        report.error(
            ("session_id",),
            "session-id",
            f"session_id {_q(sid)} does not match its folder {folder}",
        )


def _check_progress(progress: Any, report: _Report) -> None:
    if not isinstance(progress, dict):
        report.error(
            ("progress",),
            "progress",
            "progress must be an object with completed_phases and current_tasks, "
            f"got {_got(progress)}",
        )
        return
    for key in ("completed_phases", "current_tasks"):
        if key not in progress:
            report.error(("progress",), "progress", f'progress has no "{key}"')
    phases = progress.get("completed_phases")
    if "completed_phases" in progress and not isinstance(phases, list):
        report.error(
            ("progress", "completed_phases"),
            "progress",
            f"progress.completed_phases must be an array of phase names, got {_got(phases)}",
        )
    elif isinstance(phases, list):
        for i, phase in enumerate(phases):
            if phase not in PHASES:
                report.error(
                    ("progress", "completed_phases", i),
                    "progress",
                    _enum_message("completed phase", phase, PHASES),
                )
    if "current_tasks" in progress:
        _string_array(
            progress["current_tasks"],
            ("progress", "current_tasks"),
            "progress.current_tasks",
            "progress",
            report,
        )


def _load(path: Path, where: str) -> tuple[Any, Problem | None]:
    """The parsed file, or the problem that stopped it from being read."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, Problem(where, "file", "file not found")
    except IsADirectoryError:
        return None, Problem(where, "file", "is a directory, expected a JSON file")
    except OSError as err:
        return None, Problem(where, "file", f"cannot read: {err.strerror}")
    try:
        return store.parse_json(raw, where), None
    except WfsError as err:
        # The store says `where:line:col: invalid JSON: reason`; the place goes in `where`.
        location, _, reason = err.message.partition(": invalid JSON: ")
        return None, Problem(location, "json", f"invalid JSON: {reason}")


class _Checked(NamedTuple):
    """One task file after its single-file rules: cached by wfs.index between runs."""

    name: str
    problems: list[Problem]
    skeleton: dict[str, Any] | None  # None: not a JSON object
    readable: bool


def _check_file(layout: Layout, path: Path, name: str) -> _Checked:
    from wfs.tasks import skeleton

    where = layout.relative(path)
    data, problem = _load(path, where)
    if problem:
        return _Checked(name, [problem], None, False)
    report = _Report(where, data)
    _check_task(TaskSource(where, data, name[: -len(".json")]), report)
    problems = report.problems()
    errors = sum(1 for p in problems if p.severity == "error")
    return _Checked(
        name, problems, skeleton(data, errors) if isinstance(data, dict) else None, True
    )


def _rules_stamp() -> tuple[Any, ...]:
    """Cached results are only as good as the rules that produced them."""
    from wfs import __version__
    from wfs.index import FORMAT

    st = Path(__file__).stat()
    return (__version__, FORMAT, st.st_mtime_ns, st.st_size)


def _checked_files(layout: Layout, sid: str, folder: Path, key: str) -> list[_Checked]:
    """Every task file of the session checked alone, re-checking only changed files."""
    import marshal

    from wfs import index
    from wfs.tasks import task_entries

    path = index.cache_path(str(layout.workflow), key, "valid")
    cached = index._load(path)
    rules = _rules_stamp()
    known: dict[str, tuple[Any, Any]] = {}
    if cached is not None and len(cached) == 5 and cached[1] == rules:
        known = dict(zip(cached[2], zip(cached[3], cached[4], strict=True), strict=True))
    stamper = index._Stamper()
    checked: list[_Checked] = []
    stamps: list[index.Stamp] = []
    for entry in task_entries(layout, sid, folder):
        stamp = stamper.take(entry.stat())
        hit = known.get(entry.name)
        if hit is not None and hit[0] == stamp:
            problems, skel, readable = hit[1]
            checked.append(_Checked(entry.name, [Problem(*p) for p in problems], skel, readable))
        else:
            checked.append(_check_file(layout, Path(entry.path), entry.name))
        stamps.append(stamp)
    names = [c.name for c in checked]
    trusted = [stamper.trusted(s) for s in stamps]
    if cached is None or cached[1] != rules or cached[2] != names or cached[3] != trusted:
        results = [([tuple(p) for p in c.problems], c.skeleton, c.readable) for c in checked]
        payload = marshal.dumps((index.FORMAT, rules, names, trusted, results))
        index.write_cache(path, payload)
    return checked


def validate_session(layout: Layout, sid: str, folder: Path | None = None) -> list[Problem]:
    """Every rule for one session: its session file, then each task file by id.

    `folder`: one copy of the session (default: the one wfs works on; see
    `validate_project` for sessions found in several places). Single-file results are
    cached per file stamp (see wfs/index.py); the rules across files run every time, on
    the tasks' skeletons.
    """
    primary = layout.session_dir(sid)
    folder = folder or primary
    key = sid if folder == primary else f"{sid}@{layout.place_of(folder) or 'workflow'}"
    session_path = folder / SESSION_FILE
    session_where = layout.relative(session_path)
    data, problem = _load(session_path, session_where)
    problems = [problem] if problem else validate_session_data(data, session_where, folder=sid)

    task_dir = folder / ".task"
    checked = _checked_files(layout, sid, folder, key)
    readable = [c for c in checked if c.readable]
    unreadable = frozenset(
        c.name[: -len(".json")]
        for c in checked
        if not c.readable and parse_task_id(c.name[: -len(".json")])
    )
    folder = layout.relative(task_dir)
    sources = [
        TaskSource(f"{folder}/{c.name}", c.skeleton, c.name[: -len(".json")]) for c in readable
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
            report = _Report(where, _load(path, where)[0])
            _check_task(TaskSource(where, report.data, item.name[: -len(".json")]), report)
            report.found.extend(found)
            problems.extend(report.problems())
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
    """Convert a v1 object-form implementation_approach into the step array.

    Returns (new task, True) when converted, else (task, False). Key order and every
    other field are kept; unknown keys of the v1 object move into the step. The input is
    not modified.
    """
    flow = task.get("flow_control")
    if not isinstance(flow, dict) or not is_legacy_approach(flow.get("implementation_approach")):
        return task, False
    legacy: dict[str, Any] = flow["implementation_approach"]
    title = task.get("title")
    step: dict[str, Any] = {
        "step": 1,
        "title": title if isinstance(title, str) and title.strip() else "Implementation",
        "description": legacy["task_description"],
        "modification_points": copy.deepcopy(legacy.get("modification_points", [])),
        "logic_flow": copy.deepcopy(legacy.get("logic_flow", [])),
        "depends_on": [],
        "output": _free_output_name(flow, "implementation"),
    }
    step.update((k, copy.deepcopy(v)) for k, v in legacy.items() if k not in LEGACY_KEYS)
    new_flow = {
        key: [step] if key == "implementation_approach" else copy.deepcopy(value)
        for key, value in flow.items()
    }
    new_task = {
        key: new_flow if key == "flow_control" else copy.deepcopy(value)
        for key, value in task.items()
    }
    return new_task, True


def _free_output_name(flow: dict[str, Any], wanted: str) -> str:
    """`wanted`, or `wanted_2`, ... if a pre_analysis step already binds that name."""
    steps = flow.get("pre_analysis")
    taken = (
        {s.get("output_to") for s in steps if isinstance(s, dict)}
        if isinstance(steps, list)
        else set()
    )
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted}_{n}"
    return name
