"""The task formats in use, and the one reader that turns any of them into the seed form.

Three formats are written in the wild (SPEC §1):

- seed v2: `flow_control.implementation_approach` is an array of steps (canonical);
- seed v1: `implementation_approach` is one object (`task_description`,
  `modification_points`, `logic_flow`);
- flat: no `flow_control`; top-level `description`, `depends_on`, `focus_paths`,
  `convergence`, `files`, `implementation[]`, `pre_analysis[]`, `cli_execution`, …

Whatever the format, a file may say `task_id` for `id`, put its dependencies in
`context.depends_on`, `depends_on`, `meta.depends_on`, `dependencies` (and a few close
variants), and use the statuses `in_progress`, `failed` and `skipped`.

`canonical(task)` reads any of these into the canonical seed form, in memory, without
losing anything: values are moved to their seed place and every field it does not know
stays where it is. Every reader of tasks goes through it (readiness, the index, the
engine), `wfs migrate` writes its result, and `validate` reports each move as a
warning naming `wfs migrate`. Moves are recorded with the place they came from, so a
problem found in the canonical form can be shown at its place in the file.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wfs.command_forms import unquoted_bash
from wfs.layout import parent_of, parse_task_id
from wfs.schemas import (
    FLAT_KEYS,
    ON_ERROR_MEANINGS,
    STATUS_ALIASES,
    quote,
)
from wfs.task_shapes import (
    complete_steps,
    is_legacy_approach,
    named_actions,
    nearest_on_error,
    object_step,
    strings,
    written_files,
)

Pointer = tuple[str | int, ...]
Place = tuple[str, ...]  # a place in a task: object keys only

SEED = "seed"
SEED_V1 = "seed-v1"
FLAT = "flat"

# Where dependencies are found, the canonical place first. Every list found is merged,
# in this order, without repeats.
DEPENDENCY_PLACES: tuple[Place, ...] = (
    ("context", "depends_on"),
    ("depends_on",),
    ("meta", "depends_on"),
    ("dependencies",),
    ("meta", "dependencies"),
    ("context", "dependencies"),
    ("blocked_by",),
    ("meta", "blocked_by"),
    ("context", "blocked_by"),
)
# Loosely named places are read only when every entry looks like a task id: a project's
# `dependencies` may just as well list packages.
_LOOSE_DEPENDENCIES = frozenset(DEPENDENCY_PLACES[3:])

# (from, to): lists of strings merged into a seed list.
LIST_MOVES: tuple[tuple[Place, Place], ...] = (
    (("requirements",), ("context", "requirements")),
    (("focus_paths",), ("context", "focus_paths")),
    (("meta", "focus_paths"), ("context", "focus_paths")),
    (("acceptance",), ("context", "acceptance")),
    (("acceptance_criteria",), ("context", "acceptance")),
    (("context", "acceptance_criteria"), ("context", "acceptance")),
    (("convergence", "criteria"), ("context", "acceptance")),
    (("target_files",), ("flow_control", "target_files")),
)
# (from, to): objects (and the artifacts' array) that take the seed place when it is free.
OBJECT_MOVES: tuple[tuple[Place, Place], ...] = (
    (("inherited",), ("context", "inherited")),
    (("shared_context",), ("context", "shared_context")),
    (("artifacts",), ("context", "artifacts")),
)
STEP_PLACES: tuple[Place, ...] = (
    ("flow_control", "implementation_approach"),
    ("implementation",),
    ("implementation_steps",),
    ("flow_control", "implementation_steps"),
)
# The fields of a task's context that a step reads as `[name]` (wfs/flow/variables.py).
TASK_VARIABLES = (
    "focus_paths",
    "depends_on",
    "parent",
    "requirements",
    "acceptance",
    "inherited",
    "shared_context",
    "artifacts",
)


class Move(NamedTuple):
    """One value read from a non-canonical place: `source` in the file, `target` in
    the canonical form."""

    source: Pointer
    target: Pointer
    message: str


class Canonical(NamedTuple):
    task: dict[str, Any]
    moves: list[Move]
    # canonical pointer -> pointer in the file, for values that were moved
    origins: dict[Pointer, Pointer]


def task_format(data: Any) -> str:
    """SEED, SEED_V1 or FLAT: which format a task file is written in."""
    if not isinstance(data, dict):
        return SEED
    flow = data.get("flow_control")
    if isinstance(flow, dict):
        # The v1 form, or another object (strategy, phases, …): read as one step either way.
        return SEED_V1 if isinstance(flow.get("implementation_approach"), dict) else SEED
    if "flow_control" not in data and not FLAT_KEYS.isdisjoint(data):
        return FLAT
    return SEED


def task_id(data: Any) -> Any:
    """The id a task file gives itself: `id`, else its alias `task_id`."""
    if not isinstance(data, dict):
        return None
    return data["id"] if "id" in data else data.get("task_id")


def is_gate(data: Any) -> bool:
    """Whether a task is a gate: a task in its own right that runs after the main task
    its id names, not a subtask of it. The design's test sessions write them
    (`IMPL-001.3-validation.json`, `IMPL-001.5-review.json`: a chain
    IMPL-001 -> IMPL-001.3 -> IMPL-001.5 -> IMPL-002). A task `IMPL-N.M` is a gate when it
    names no `context.parent` and depends on `IMPL-N`: a subtask cannot wait for its
    parent, which completes only after its subtasks. (A labelled file that cannot be
    read, wfs.index.unreadable_skeleton, is taken for a gate too.)"""
    if isinstance(data, dict) and "unreadable" in data and data.get("labelled"):
        return True
    tid = task_id(data)
    parsed = parse_task_id(tid) if isinstance(tid, str) else None
    if parsed is None or parsed.minor is None:
        return False
    context = data.get("context")
    if isinstance(context, dict) and context.get("parent") not in (None, ""):
        return False
    return parent_of(tid) in dependencies(data)


def parent_task(data: Any) -> str | None:
    """The main task a task belongs to: its `context.parent`, else the one its id names
    (`IMPL-1` for `IMPL-1.2`), unless it is a gate; None for a main task."""
    context = data.get("context") if isinstance(data, dict) else None
    declared = context.get("parent") if isinstance(context, dict) else None
    if isinstance(declared, str) and declared:
        return declared
    tid = task_id(data)
    if not isinstance(tid, str) or not parse_task_id(tid) or is_gate(data):
        return None
    return parent_of(tid)


def status_of(data: Any) -> Any:
    """The canonical status of a task (aliases read); None when it has none."""
    status = data.get("status") if isinstance(data, dict) else None
    return STATUS_ALIASES.get(status, status) if isinstance(status, str) else status


def dependencies(data: Any) -> list[str]:
    """Every task this one depends on, from every place they are written, merged."""
    found: list[str] = []
    for place in DEPENDENCY_PLACES:
        entries = _readable_dependencies(data, place)
        for entry in entries or ():
            if isinstance(entry, str) and entry not in found:
                found.append(entry)
    return found


def _readable_dependencies(data: Any, place: Place) -> list[Any] | None:
    value = _get(data, place)
    if not isinstance(value, list):
        return None
    if place in _LOOSE_DEPENDENCIES and not all(_looks_like_id(v) for v in value):
        return None
    return value


def _looks_like_id(value: Any) -> bool:
    return isinstance(value, str) and parse_task_id(value) is not None


def _get(data: Any, place: Pointer) -> Any:
    for key in place:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _where(place: Pointer) -> str:
    return ".".join(str(p) for p in place)


# ---------------------------------------------------------------- the reader


def canonical(data: dict[str, Any]) -> Canonical:
    """`data` in the canonical seed form; `data` itself is not changed."""
    reader = _Reader(data)
    reader.read()
    return Canonical(reader.task, reader.moves, reader.origins)


def canonical_task(data: dict[str, Any]) -> dict[str, Any]:
    return canonical(data).task


class _Reader:
    def __init__(self, data: dict[str, Any]) -> None:
        self.original = data
        self.task: dict[str, Any] = dict(data)
        self.moves: list[Move] = []
        self.origins: dict[Pointer, Pointer] = {}
        self.format = task_format(data)
        # Places read_shapes rewrote, whose further move its own warning says already.
        self.reshaped: set[Place] = set()

    def moved(self, source: Pointer, target: Pointer, message: str) -> None:
        self.moves.append(Move(source, target, message))

    def writable(self, key: str) -> dict[str, Any] | None:
        """The object at `key` (copied once), created when absent; None when the file
        holds something else there (reported by validate, left alone)."""
        if key not in self.task:
            created: dict[str, Any] = {}
            self.task[key] = created
            return created
        value = self.task[key]
        if not isinstance(value, dict):
            return None
        if id(value) == id(self.original.get(key)):  # still the caller's object
            copied: dict[str, Any] = dict(value)
            self.task[key] = copied
            return copied
        return value

    def remove(self, place: Place) -> None:
        if len(place) == 1:
            self.task.pop(place[0], None)
            return
        parent = self.writable(place[0])
        if parent is not None:
            parent.pop(place[1], None)

    def read(self) -> None:
        self.read_id()
        self.read_status()
        self.read_type()
        self.read_dependencies()
        self.read_shapes()
        self.read_lists()
        self.read_objects()
        self.read_pre_analysis()
        self.read_files()
        self.read_steps()
        self.read_step_forms()
        self.order()

    # ------------------------------------------------------------ fields

    def read_id(self) -> None:
        if "id" not in self.task and "task_id" in self.task:
            self.task["id"] = self.task.pop("task_id")
            self.origins[("id",)] = ("task_id",)
            self.moved(("task_id",), ("id",), "task_id is read as id; `wfs migrate` renames it")

    def read_status(self) -> None:
        status = self.task.get("status")
        if "status" not in self.task:
            self.task["status"] = "pending"
            self.moved((), ("status",), 'no status: read as "pending"; `wfs migrate` writes it')
            return
        if not isinstance(status, str) or status not in STATUS_ALIASES:
            return
        new = STATUS_ALIASES[status]
        self.task["status"] = new
        execution = self.writable("execution")
        if execution is not None:
            execution.setdefault("previous_status", status)
            if status == "failed":
                result = self.task.get("result")
                error = result.get("error") if isinstance(result, dict) else None
                execution.setdefault(
                    "blocked_reason", error if isinstance(error, str) and error else "failed"
                )
        self.moved(
            ("status",),
            ("status",),
            f'status "{status}" is read as "{new}"; `wfs migrate` writes "{new}"',
        )

    def read_type(self) -> None:
        kind = self.task.get("type")
        if self.format != FLAT or not isinstance(kind, str):
            return
        meta = self.writable("meta")
        if meta is None or "type" in meta:
            return
        meta["type"] = self.task.pop("type")
        self.moved(("type",), ("meta", "type"), "type is read as meta.type; `wfs migrate` moves it")

    def read_dependencies(self) -> None:
        merged: list[Any] = []
        origins: list[Pointer] = []
        seen: set[str] = set()
        found = False
        for place in DEPENDENCY_PLACES:
            entries = (
                _readable_dependencies(self.task, place)
                if place != DEPENDENCY_PLACES[0]
                else (_get(self.task, place))
            )
            if not isinstance(entries, list):
                continue
            found = found or place != DEPENDENCY_PLACES[0]
            for j, entry in enumerate(entries):
                key = entry if isinstance(entry, str) else None
                if key is not None and key in seen:
                    continue
                if key is not None:
                    seen.add(key)
                merged.append(entry)
                origins.append((*place, j))
            if place != DEPENDENCY_PLACES[0]:
                self.remove(place)
                self.moved(
                    place,
                    ("context", "depends_on"),
                    f"{_where(place)} is read as context.depends_on; `wfs migrate` moves it",
                )
        if not found:
            return
        context = self.writable("context")
        if context is None:
            return
        context["depends_on"] = merged
        for k, origin in enumerate(origins):
            if origin != ("context", "depends_on", k):
                self.origins[("context", "depends_on", k)] = origin

    def read_shapes(self) -> None:
        """A string or an array where the format has an object, or a string where it has
        an array, read as what it says: `convergence` as its criteria, one criterion
        or one step as a list of one."""
        convergence = self.task.get("convergence")
        if isinstance(convergence, str) or strings(convergence):
            criteria = [convergence] if isinstance(convergence, str) else list(convergence)
            written = "a string" if isinstance(convergence, str) else "an array"
            self.task["convergence"] = {"criteria": criteria}
            self.reshaped.add(("convergence", "criteria"))
            self.moved(
                ("convergence",),
                ("context", "acceptance"),
                f"convergence written as {written} is read as its criteria "
                "(context.acceptance); `wfs migrate` moves it",
            )
        elif isinstance(convergence, dict) and isinstance(convergence.get("criteria"), str):
            self.task["convergence"] = {**convergence, "criteria": [convergence["criteria"]]}
            self.reshaped.add(("convergence", "criteria"))
            self.moved(
                ("convergence", "criteria"),
                ("context", "acceptance"),
                "convergence.criteria written as a string is read as one criterion "
                "(context.acceptance); `wfs migrate` moves it",
            )
        for key in ("implementation", "implementation_steps"):
            value = self.task.get(key)
            if isinstance(value, str) and value.strip() and "flow_control" not in self.original:
                self.task[key] = [value]
                self.reshaped.add((key,))
                self.moved(
                    (key,),
                    STEP_PLACES[0],
                    f"{key} written as a string is read as one step; `wfs migrate` writes the "
                    "step array",
                )

    def read_lists(self) -> None:
        for source, target in LIST_MOVES:
            value = _get(self.task, source)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                continue
            holder = self.writable(target[0])
            if holder is None:
                continue
            current = holder.get(target[1])
            if current is not None and not isinstance(current, list):
                continue
            combined = list(current or [])
            for j, item in enumerate(value):
                if item not in combined:
                    self.origins[(*target, len(combined))] = (*source, j)
                    combined.append(item)
            holder[target[1]] = combined
            self.remove(source)
            if source == ("convergence", "criteria") and self.task.get("convergence") == {}:
                self.task.pop("convergence")
            if source in self.reshaped:
                continue
            self.moved(
                source,
                target,
                f"{_where(source)} is read as {_where(target)}; `wfs migrate` moves it",
            )

    def read_objects(self) -> None:
        for source, target in OBJECT_MOVES:
            value = _get(self.task, source)
            if not isinstance(value, list if source == ("artifacts",) else dict) or not value:
                continue
            holder = self.writable(target[0])
            if holder is None or target[1] in holder:
                continue
            holder[target[1]] = value
            self.remove(source)
            self.moved(
                source,
                target,
                f"{_where(source)} is read as {_where(target)}; `wfs migrate` moves it",
            )

    def read_pre_analysis(self) -> None:
        for place in (("flow_control", "pre_analysis"), ("pre_analysis",)):
            value = _get(self.task, place)
            if not isinstance(value, dict):
                continue
            # Notes for the agent (objectives, key patterns, …) rather than steps to run.
            context = self.writable("context")
            if context is None or "analysis" in context:
                continue
            context["analysis"] = value
            self.remove(place)
            self.moved(
                place,
                ("context", "analysis"),
                f"{_where(place)} is an object, not a list of steps: it is read as notes for "
                "the agent (context.analysis); `wfs migrate` moves it",
            )
        steps = self.task.get("pre_analysis")
        flow = self.task.get("flow_control")
        if isinstance(steps, list) and not (isinstance(flow, dict) and "pre_analysis" in flow):
            writable = self.writable("flow_control")
            if writable is not None:
                writable["pre_analysis"] = steps
                del self.task["pre_analysis"]
                for i in range(len(steps)):
                    self.origins[("flow_control", "pre_analysis", i)] = ("pre_analysis", i)
                self.moved(
                    ("pre_analysis",),
                    ("flow_control", "pre_analysis"),
                    "pre_analysis is read as flow_control.pre_analysis; `wfs migrate` moves it",
                )
        self.fill_actions()

    def fill_actions(self) -> None:
        flow = self.task.get("flow_control")
        steps = flow.get("pre_analysis") if isinstance(flow, dict) else None
        fixed = named_actions(steps) if isinstance(steps, list) else steps
        if fixed is not steps:
            flow = self.writable("flow_control")
            assert flow is not None
            flow["pre_analysis"] = fixed

    def read_step_forms(self) -> None:
        """Another tool's `on_error` read as the strategy nearest to what it says (`abort`
        as `fail`, `continue` as `skip_optional`, …), and `bash('npm test')`, the whole
        command in quotes, as `npm test` (wfs.command_forms.quoted_command): each with a
        warning naming what `wfs migrate` writes."""
        flow = self.task.get("flow_control")
        if not isinstance(flow, dict):
            return
        for key in ("pre_analysis", "implementation_approach"):
            steps = flow.get(key)
            if not isinstance(steps, list):
                continue
            fixed = [self.step_form(step, ("flow_control", key, i)) for i, step in enumerate(steps)]
            if any(a is not b for a, b in zip(fixed, steps, strict=True)):
                writable = self.writable("flow_control")
                assert writable is not None
                writable[key] = fixed

    def step_form(self, step: Any, here: Pointer) -> Any:
        if not isinstance(step, dict):
            return step
        where = self.origins.get(here, here)
        found = nearest_on_error(step)
        if found is not None:
            step, written, new = found
            self.moved(
                (*where, "on_error"),
                (*here, "on_error"),
                f'on_error "{written}" is read as "{new}", the nearest strategy '
                f'({ON_ERROR_MEANINGS[new]}); `wfs migrate` writes "{new}"',
            )
        step, unquoted = unquoted_bash(step)
        for place, text, inner in unquoted:
            self.moved(
                (*where, *place),
                (*here, *place),
                f"{text.strip()} runs the command inside the quotes, "
                f"{quote(inner)}; `wfs migrate` writes bash({inner})",
            )
        return step

    def read_files(self) -> None:
        """The files the task changes (wfs.task_shapes.written_files), as
        flow_control.target_files. Plain paths move; anything with more to say (an
        object, a role) stays where it is for the agent, its paths copied."""
        found = written_files(self.task)
        flow = self.writable("flow_control") if found else None
        current = flow.get("target_files") if flow is not None else None
        if flow is None or (current is not None and not isinstance(current, list)):
            return
        combined = list(current or [])
        for source, paths, kept in found:
            added = [p for p in paths if p not in combined]
            if not added and kept:
                continue
            combined += added
            flow["target_files"] = combined
            if not kept:
                self.task.pop(source[0])
            self.moved(
                source,
                ("flow_control", "target_files"),
                f"the paths of {_where(source)} are read as flow_control.target_files; "
                "`wfs migrate` copies them there"
                if kept
                else f"{_where(source)} is read as flow_control.target_files; "
                "`wfs migrate` moves it",
            )

    # ------------------------------------------------------------ steps

    def read_steps(self) -> None:
        flow = self.task.get("flow_control")
        approach = flow.get("implementation_approach") if isinstance(flow, dict) else None
        if isinstance(approach, dict) and approach:
            assert isinstance(flow, dict)
            self.writable("flow_control")
            self.task["flow_control"]["implementation_approach"] = [
                object_step(approach, self.task.get("title"), flow)
            ]
            self.origins[(*STEP_PLACES[0], 0)] = STEP_PLACES[0]
            self.moved(
                STEP_PLACES[0],
                STEP_PLACES[0],
                "implementation_approach uses the v1 object form (task_description, "
                "modification_points, logic_flow); it is read as one step, and `wfs migrate` "
                "converts it to the step array"
                if is_legacy_approach(approach)
                else "implementation_approach is an object, not the step array of the task "
                "format; it is read as one step holding it, and `wfs migrate` converts it to "
                "the step array",
            )
            return
        place: Place = STEP_PLACES[0]
        steps: Any = approach
        if approach in (None, []):
            for other in STEP_PLACES[1:]:
                value = _get(self.task, other)
                if isinstance(value, list) and value:
                    place, steps = other, value
                    break
        if not isinstance(steps, list):
            if self.format == FLAT or "flow_control" not in self.original:
                self.writable("flow_control")
            return
        if place != STEP_PLACES[0]:
            flow_now = self.writable("flow_control")
            if flow_now is None:
                return
            self.remove(place)
            if place not in self.reshaped:
                self.moved(
                    place,
                    STEP_PLACES[0],
                    f"{_where(place)} is read as flow_control.implementation_approach; "
                    "`wfs migrate` moves it",
                )
        converted = complete_steps(steps, self.task)
        if converted is not steps or place != STEP_PLACES[0]:
            flow_now = self.writable("flow_control")
            assert flow_now is not None
            flow_now["implementation_approach"] = converted
            for i in range(len(steps)):
                self.origins[(*STEP_PLACES[0], i)] = (*place, i)

    def order(self) -> None:
        """Seed fields first, in seed order; everything else after, as it was."""
        for key in ("meta", "context", "flow_control"):
            if key not in self.task:
                self.task[key] = {}
        ordered: dict[str, Any] = {}
        for key in ("id", "title", "status", "meta", "context", "flow_control"):
            if key in self.task:
                ordered[key] = self.task[key]
        for key, value in self.task.items():
            if key not in ordered:
                ordered[key] = value
        self.task = ordered
