"""The shapes other tools give the parts of a task, each read as its author meant
(wfs.formats reads a whole task with them): the approach as one object (seed v1), steps
written as strings or missing the seed's fields, `files` by role, another tool's name for
an `on_error` strategy."""

from __future__ import annotations

import copy
from typing import Any, TypeGuard

from wfs.schemas import LEGACY_KEYS, ON_ERROR_ALIASES, SEED_STEP_FIELDS

Place = tuple[str, ...]  # a place in a task: object keys only
_TITLE_LENGTH = 80
# The roles of a `files` object whose paths the task reads, not changes.
_READ_ROLES = frozenset(
    {"read_only", "readonly", "read", "reads", "read_first", "reference", "references", "context"}
)


def is_legacy_approach(value: Any) -> bool:
    """The v1 object form: `{"task_description", "modification_points", "logic_flow"}`."""
    return isinstance(value, dict) and isinstance(value.get("task_description"), str)


def written_files(task: dict[str, Any]) -> list[tuple[Place, list[str], bool]]:
    """The files the task says it changes, each (the place, its paths, whether it stays
    there: an object or a role has more to say): `files` (paths, objects with a path, or
    an object of such lists by role, `{owned, read_only}`: every role but reading),
    `file`, `files_to_create` and `files_to_modify`."""
    files = task.get("files")
    single = task.get("file")
    found: list[tuple[Place, list[str], bool]] = []  # (place, paths, kept there)
    if isinstance(files, list) and files:
        named = [path_of(f) for f in files]
        if all(isinstance(f, str) for f in files):
            found.append((("files",), list(files), False))
        elif all(p is not None for p in named):
            found.append((("files",), [p for p in named if p is not None], True))
    elif isinstance(files, dict):
        written = [
            p
            for role, items in files.items()
            if role.lower().replace("-", "_") not in _READ_ROLES and isinstance(items, list)
            for p in (path_of(item) for item in items)
            if p is not None
        ]
        if written:
            found.append((("files",), written, True))
    elif isinstance(single, str) and single.strip():
        found.append((("file",), [single], False))
    for key in ("files_to_create", "files_to_modify"):
        value = task.get(key)
        if strings(value):
            found.append(((key,), list(value), True))
    return found


def object_step(approach: dict[str, Any], title: Any, flow: dict[str, Any]) -> dict[str, Any]:
    """The one step an object `implementation_approach` stands for: the v1 form's
    `task_description` is its description; every other key stays in the step."""
    legacy = is_legacy_approach(approach)
    described = next(
        (
            approach[key]
            for key in ("task_description", "description", "strategy", "summary")
            if isinstance(approach.get(key), str) and approach[key].strip()
        ),
        None,
    )
    named = title if isinstance(title, str) and title.strip() else "Implementation"
    step: dict[str, Any] = {
        "step": 1,
        "title": named,
        "description": described or named,
        "modification_points": copy.deepcopy(approach.get("modification_points", []))
        if legacy
        else [],
        "logic_flow": copy.deepcopy(approach.get("logic_flow", [])) if legacy else [],
        "depends_on": [],
        "output": _free_name({"task": {"flow_control": flow}}, "implementation"),
    }
    consumed = LEGACY_KEYS if legacy else ()
    step.update((k, copy.deepcopy(v)) for k, v in approach.items() if k not in consumed)
    return step


def _taken_names(task: dict[str, Any]) -> set[str]:
    flow = task.get("flow_control")
    taken: set[str] = set()
    for key, field in (("pre_analysis", "output_to"), ("implementation_approach", "output")):
        steps = flow.get(key) if isinstance(flow, dict) else None
        for step in steps if isinstance(steps, list) else []:
            if isinstance(step, dict) and isinstance(step.get(field), str):
                taken.add(step[field])
    return taken


def _free_name(holder: dict[str, Any], wanted: str) -> str:
    """`wanted`, or `wanted_2`, … when a pre_analysis step already binds that name."""
    flow = holder["task"].get("flow_control")
    steps = flow.get("pre_analysis") if isinstance(flow, dict) else None
    taken = (
        {
            s["output_to"]
            for s in steps
            if isinstance(s, dict) and isinstance(s.get("output_to"), str)
        }
        if isinstance(steps, list)
        else set()
    )
    name, n = wanted, 1
    while name in taken:
        n += 1
        name = f"{wanted}_{n}"
    return name


def complete_steps(steps: list[Any], task: dict[str, Any]) -> list[Any]:
    """The steps with what the seed asks of each filled in; the same list when nothing
    is missing. Steps that hold no work are left for validate to report."""
    if all(_complete(s) for s in steps):
        return steps
    taken = _taken_names(task)
    names = {
        s["step"]: i + 1
        for i, s in enumerate(steps)
        if isinstance(s, dict) and isinstance(s.get("step"), str)
    }
    numbered = all(isinstance(s, dict) and _is_int(s.get("step")) for s in steps) or not any(
        isinstance(s, dict) and "step" in s for s in steps
    )
    out: list[Any] = []
    for i, spec in enumerate(steps):
        if isinstance(spec, str) and spec.strip():
            spec = {"description": spec}
        if not isinstance(spec, dict) or _complete(spec) or not _has_work(spec):
            out.append(spec)
            continue
        step = dict(spec)
        number = step.get("step")
        if not _is_int(number):
            if isinstance(number, str) and number.strip() and not number.strip().isdigit():
                step.setdefault("name", number)
            if numbered or number is None or isinstance(number, str):
                step["step"] = i + 1
        if not isinstance(step.get("title"), str) or not step.get("title", "").strip():
            step["title"] = _title(step) or f"Step {i + 1}"
        if "description" not in step:
            step["description"] = step["title"]
        step.setdefault("modification_points", [])
        step.setdefault("logic_flow", [])
        deps = step.get("depends_on", [])
        if isinstance(deps, list):
            step["depends_on"] = [
                names.get(d, int(d) if isinstance(d, str) and d.strip().isdigit() else d)
                if isinstance(d, str)
                else d
                for d in deps
            ]
        if "output" not in step:
            name = f"step_{i + 1}_output"
            while name in taken:
                name += "_"
            taken.add(name)
            step["output"] = name
        ordered = {k: step[k] for k in SEED_STEP_FIELDS if k in step}
        ordered.update((k, v) for k, v in step.items() if k not in ordered)
        out.append(ordered)
    return out


def named_actions(steps: list[Any]) -> list[Any]:
    """Seed pre_analysis steps describe themselves in `action`; a step with none has its
    name stand in. The same list when every step has one."""
    fixed = []
    for step in steps:
        name = step.get("step") if isinstance(step, dict) else None
        if isinstance(step, dict) and "action" not in step and isinstance(name, str):
            step = {**step, "action": name} if name.strip() else step
        fixed.append(step)
    return fixed if fixed != steps else steps


def path_of(item: Any) -> str | None:
    """The path of an entry of `files`: a path, or an object with one."""
    if isinstance(item, str) and item.strip():
        return item
    path = item.get("path") if isinstance(item, dict) else None
    return path if isinstance(path, str) and path.strip() else None


def strings(value: Any) -> TypeGuard[list[str]]:
    """A non-empty array of strings."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def nearest_on_error(step: dict[str, Any]) -> tuple[dict[str, Any], str, str] | None:
    """(the step with the strategy nearest to its `on_error`, what was written, that
    strategy) when another tool's name is written there; None otherwise."""
    written = step.get("on_error")
    if not isinstance(written, str) or written not in ON_ERROR_ALIASES:
        return None
    new = ON_ERROR_ALIASES[written]
    return {**step, "on_error": new}, written, new


_SEED_FIELDS = frozenset(SEED_STEP_FIELDS)


def _complete(step: Any) -> bool:
    return isinstance(step, dict) and step.keys() >= _SEED_FIELDS and _is_int(step.get("step"))


def _has_work(step: dict[str, Any]) -> bool:
    return any(
        isinstance(step.get(key), (str, list)) and step.get(key)
        for key in (
            "title",
            "description",
            "action",
            "phase",
            "modification_points",
            "logic_flow",
            "command",
            "commands",
            "actions",
            "details",
        )
    )


def _title(step: dict[str, Any]) -> str:
    for key in ("name", "action", "phase", "description", "details"):
        value = step.get(key)
        if isinstance(value, str) and value.strip():
            line = " ".join(value.split())
            return line if len(line) <= _TITLE_LENGTH else line[: _TITLE_LENGTH - 1] + "…"
    return ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
