"""The task model: loading, hierarchy, derived container status, readiness, complexity."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from wfs import store
from wfs.errors import WfsError
from wfs.formats import canonical, dependencies, parent_task
from wfs.layout import Layout, parse_task_id, task_sort_key, typed_task_id
from wfs.rules import TaskSource, judged_by_files, refusal, task_error_count
from wfs.schemas import COMPLEXITIES, PHASES, TASK_STATUSES, TOPIC_FIELDS
from wfs.text import json_kind

Task = dict[str, Any]


def task_files(layout: Layout, sid: str) -> list[str]:
    """Names of the task JSON files of a session, sorted by task id."""
    return [entry.name for entry in task_entries(layout, sid)]


def task_entries(layout: Layout, sid: str, folder: Path | None = None) -> list[os.DirEntry[str]]:
    """The task files of a session (`folder`: one of its copies, when not the one wfs
    works on)."""
    task_dir = folder / ".task" if folder is not None else layout.task_dir(sid)
    try:
        entries = list(os.scandir(task_dir))
    except FileNotFoundError:
        return []
    found = []
    for entry in entries:
        if entry.name.endswith(".json") and not entry.name.startswith("."):
            if entry.is_symlink():
                layout.check_inside(Path(entry.path))
            try:
                entry.stat()  # kept by the entry: the stamp every reader takes
            except FileNotFoundError:
                if not os.path.lexists(entry.path):
                    continue  # deleted since the listing: gone, as if a moment earlier
            found.append(entry)
    return sorted(found, key=lambda e: task_sort_key(e.name[: -len(".json")]))


def load_tasks(layout: Layout, sid: str) -> list[Task]:
    """Every task of the session, sorted by id; a malformed file is an error (exit 2)."""
    folder = layout.task_dir(sid)
    return [read_object(layout, folder / name) for name in task_files(layout, sid)]


def read_task(layout: Layout, sid: str, tid: str) -> Task:
    """The task file of `tid` as written, with `id` set when the file names it `task_id`
    (in memory only: see `with_id`)."""
    return with_id(read_object(layout, layout.task_file(sid, tid)), tid)[0]


def with_id(task: Task, tid: str) -> tuple[Task, bool]:
    """(task, True) with `"id": tid` first when the file says `task_id` instead; the
    writer drops it again (edit.Draft), so the file keeps its own spelling."""
    if "id" not in task and task.get("task_id") == tid:
        return {"id": tid, **task}, True
    return task, False


def read_object(layout: Layout, path: Path | str) -> Task:
    return read_document(layout, path)[0]


def read_document(layout: Layout, path: Path | str) -> tuple[Task, bytes]:
    """The JSON object in `path` and the file's bytes (see store.read_document)."""
    path = Path(path)
    data, raw = store.read_document(path, layout.relative(path))
    if not isinstance(data, dict):
        raise WfsError(f"{layout.relative(path)}: expected a JSON object, got {json_kind(data)}")
    return data, raw


SKELETON_CONTEXT = ("parent", "depends_on", "acceptance")
# What `status` and `next` say about a stopped or running task.
SKELETON_EXECUTION = (
    "claimed_by",
    "started_at",
    "resumed_at",
    "step",
    "paused_reason",
    "blocked_reason",
)


def skeleton(
    task: Task, errors: int | None = None, file_stem: str | None = None, root: Path | None = None
) -> Task:
    """The part of a task that status, readiness and the views need, in the canonical
    seed form whatever the format of the file (wfs/formats.py).

    `errors`: how many errors `validate` finds in the task alone (counted here when not
    given); a pending task with any is never ready, since `execute` refuses it. For any
    other status the count decides nothing, and it is not taken (which keeps the
    schemas out of status changes and the engine's bookkeeping). `error`: the first of
    them as `validate` words it, after the file's name (`#/pointer: rule: message`),
    when counted here. `moved`: where
    the file holds the id and the dependencies, when not at their seed place (so that
    problems found across files point into the file as written). `volatile`: the task
    is judged by other files of the project (wfs.rules.judged_by_files; `root`: where
    it is judged), so no cache keeps what is derived from it.
    """
    read = canonical(task)
    seed = read.task
    kept: Task = {key: seed[key] for key in ("id", "title", "status") if key in seed}
    agent = obj(seed, "meta").get("agent")
    if agent is not None:
        kept["meta"] = {"agent": agent}
    context = obj(seed, "context")
    picked = {key: context[key] for key in SKELETON_CONTEXT if key in context}
    if picked:
        kept["context"] = picked
    execution = obj(seed, "execution")
    stopped = {key: execution[key] for key in SKELETON_EXECUTION if key in execution}
    if stopped:
        kept["execution"] = stopped
    moved: dict[str, Any] = {}
    if ("id",) in read.origins:
        moved["id"] = list(read.origins[("id",)])
    deps = context.get("depends_on")
    if isinstance(deps, list) and any(
        ("context", "depends_on", k) in read.origins for k in range(len(deps))
    ):
        moved["depends_on"] = [
            list(read.origins.get(("context", "depends_on", k), ("context", "depends_on", k)))
            for k in range(len(deps))
        ]
    if moved:
        kept["moved"] = moved
    error = None
    if errors is None and seed.get("status") == "pending":
        stem = file_stem if file_stem is not None else seed.get("id")
        errors = task_errors(task, stem, root)
        if errors:  # jsonschema is loaded already to count them: the first one, named
            name = stem if isinstance(stem, str) else None
            error = next(iter(refusal(TaskSource("", task, name, root))), None)
    if errors:
        kept["errors"] = errors
        if error:
            kept["error"] = error
    if judged_by_files(read, root):
        kept["volatile"] = True
    return kept


def task_errors(task: Task, file_stem: Any, root: Path | None = None) -> int:
    """How many errors `wfs validate` reports in this task file on its own (counted
    without jsonschema, which `status` and `next` cannot afford to import)."""
    return task_error_count(task, file_stem if isinstance(file_stem, str) else None, root)


def obj(data: Any, key: str) -> dict[str, Any]:
    """`data[key]` when it is a JSON object, else an empty one (files may be malformed)."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def children_map(tasks: Iterable[Task]) -> dict[str, list[str]]:
    """Parent id -> ids of its subtasks, from each subtask's id (and context.parent)."""
    kids: dict[str, list[str]] = {}
    for task in tasks:
        tid = task.get("id")
        if not isinstance(tid, str):
            continue
        parent = parent_id(task)
        if parent:
            kids.setdefault(parent, []).append(tid)
    return kids


def parent_id(task: Task) -> str | None:
    """The main task of a subtask (wfs.formats.parent_task: a gate has none)."""
    return parent_task(task)


def depends_on(task: Task) -> list[str]:
    """The tasks this one depends on, wherever its file writes them (merged)."""
    return dependencies(task)


class TaskIndex:
    """Tasks by id with derived status; built once per command."""

    def __init__(self, tasks: list[Task]) -> None:
        self.tasks = tasks
        self.by_id: dict[str, Task] = {t["id"]: t for t in tasks if isinstance(t.get("id"), str)}
        self.children = children_map(tasks)
        self._effective: dict[str, str] = {}

    def is_container(self, tid: str) -> bool:
        return bool(self.children.get(tid))

    def effective_status(self, tid: str) -> str:
        """A leaf's own status; a container's status derived from its children."""
        if tid in self._effective:
            return self._effective[tid]
        kids = self.children.get(tid)
        if not kids:
            status = self.by_id.get(tid, {}).get("status")
            result = status if isinstance(status, str) else "pending"
        else:
            statuses = [self.effective_status(k) for k in kids if k != tid]
            if statuses and all(s == "completed" for s in statuses):
                result = "completed"
            elif "active" in statuses:
                result = "active"
            elif "blocked" in statuses:
                result = "blocked"
            else:
                result = "pending"
        self._effective[tid] = result
        return result

    def is_done(self, tid: str) -> bool:
        """A dependency is satisfied when it (or, for a container, every child) is completed."""
        return tid in self.by_id and self.effective_status(tid) == "completed"

    def unmet_dependencies(self, tid: str) -> list[str]:
        task = self.by_id[tid]
        wanted = list(depends_on(task))
        parent = parent_id(task)
        if parent in self.by_id:
            wanted += depends_on(self.by_id[parent])
        return [d for d in wanted if not self.is_done(d)]

    def leaves(self) -> list[str]:
        return [tid for tid in self.by_id if not self.is_container(tid)]

    def ready(self) -> list[str]:
        """Pending leaves whose dependencies (and their parent's) are completed, by id.

        A task with validation errors is never ready: `execute` would refuse it.
        """
        ready = [
            tid
            for tid in self.leaves()
            if self.by_id[tid].get("status") == "pending"
            and not self.by_id[tid].get("errors")
            and not self.unmet_dependencies(tid)
        ]
        return sorted(ready, key=task_sort_key)

    def tally(self) -> Tally:
        counts: dict[str, int] = {}
        active = []
        for tid in self.leaves():
            status = self.effective_status(tid)
            counts[status] = counts.get(status, 0) + 1
            if status == "active":
                active.append(tid)
        return Tally(len(self.by_id), counts, sorted(active, key=task_sort_key))

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(TASK_STATUSES, 0)
        for tid in self.by_id:
            status = "container" if self.is_container(tid) else self.effective_status(tid)
            counts[status] = counts.get(status, 0) + 1
        return counts


class Tally(NamedTuple):
    """What the session's facts are derived from: how many tasks, the leaves by
    status, and the active leaves by id."""

    tasks: int
    leaf_counts: dict[str, int]
    active: list[str]


def task_row(index: TaskIndex, tid: str) -> dict[str, Any]:
    """One line of `task list` / `next`."""
    return row_of(index.by_id[tid], index.effective_status(tid), index.is_container(tid))


def row_of(task: Task, status: str, container: bool) -> dict[str, Any]:
    return {
        "id": task["id"],
        "title": task.get("title"),
        "status": status,
        "container": container,
        "parent": parent_id(task),
        "depends_on": depends_on(task),
        "agent": obj(task, "meta").get("agent"),
    }


def derived_phase(tally: Tally) -> str:
    """PLAN until a task starts, IMPLEMENT while work goes on, REVIEW when all is done."""
    counts = tally.leaf_counts
    leaves = sum(counts.values())
    if leaves and counts.get("completed", 0) == leaves:
        return "REVIEW"
    return "IMPLEMENT" if leaves - counts.get("pending", 0) else "PLAN"


def session_topic(session: dict[str, Any]) -> str | None:
    """The session's topic, from the first field of TOPIC_FIELDS that holds some text;
    None when none does."""
    for field in TOPIC_FIELDS:
        value = session.get(field)
        if isinstance(value, str) and value.strip():
            return value
    return None


def session_facts(session: dict[str, Any], tally: Tally) -> dict[str, Any]:
    """What the seed says a session holds (phase, complexity, progress): from its file
    when the file has it, else derived from the tasks (session files written by other
    tools have no `current_phase` or `progress`; their `type` is a kind of session,
    such as `workflow`, rather than a complexity)."""
    phase = session.get("current_phase")
    if phase not in PHASES:
        phase = derived_phase(tally)
    kind = session.get("type")
    progress = obj(session, "progress")
    done = progress.get("completed_phases")
    current = progress.get("current_tasks")
    if not isinstance(current, list):
        current = list(tally.active)
    return {
        "phase": phase,
        "type": kind if isinstance(kind, str) and kind else complexity(tally.tasks),
        "complexity": kind if kind in COMPLEXITIES else complexity(tally.tasks),
        "completed_phases": done if isinstance(done, list) else list(PHASES[: PHASES.index(phase)]),
        "current_tasks": current,
    }


def complexity(task_count: int) -> str:
    """Seed rule: fewer than 5 tasks simple, 5-15 medium, more than 15 complex."""
    if task_count < 5:
        return "simple"
    return "medium" if task_count <= 15 else "complex"


def refresh_session(session: dict[str, Any], tally: Tally) -> dict[str, Any]:
    """The fields of the session file that wfs owns, brought up to date with the tasks:
    complexity (only ever raised), progress and phase.

    Only what the file already holds in wfs's own terms is touched: a `type` that is not
    a complexity (`workflow`, `brainstorming`) is another tool's and stays, and a file
    without `current_phase` or `progress` keeps without them (wfs derives them when it
    shows the session; `wfs migrate` writes them)."""
    data = dict(session)
    computed = complexity(tally.tasks)
    current = data.get("type")
    if (
        isinstance(current, str)
        and current in COMPLEXITIES
        and COMPLEXITIES.index(computed) > COMPLEXITIES.index(current)
    ):
        data["type"] = computed
    if "progress" in data and isinstance(data["progress"], dict):
        progress = dict(data["progress"])
        progress["current_tasks"] = list(tally.active)
        data["progress"] = progress
    phase = data.get("current_phase")
    if phase in PHASES:
        derived = derived_phase(tally)
        if derived == "PLAN":  # nothing started: the phase stays, but review needs work done
            derived = "IMPLEMENT" if phase == "REVIEW" else phase
        if isinstance(data.get("progress"), dict):
            completed = list(data["progress"].get("completed_phases") or [])
            for earlier in PHASES[: PHASES.index(derived)]:
                if earlier not in completed:
                    completed.append(earlier)
            data["progress"]["completed_phases"] = completed
        data["current_phase"] = derived
    return data


def chosen_task_id(value: str, known: Iterable[str]) -> str:
    """The id of the task `value` names among `known` (a session's ids), however loosely
    it is typed (wfs.layout.typed_task_id): `value` itself when it is one of them, else
    the only one with its number; when none has, its number as an id (`IMPL-7`, which
    the command says is unknown, with the close ones). Two with its number (`IMPL-1`
    and `IMPL-001`) are refused, naming both (exit 2)."""
    ids = list(known)
    wanted = typed_task_id(value)
    if value in ids or wanted is None:
        return value
    same = [tid for tid in ids if parse_task_id(tid) == wanted]
    if len(same) > 1:
        raise WfsError(f"task {value!r} could be {' or '.join(same)}: give the one you mean")
    if same:
        return same[0]
    return f"IMPL-{wanted.major}" + ("" if wanted.minor is None else f".{wanted.minor}")


def unknown_task(tid: str, known: Iterable[str]) -> WfsError:
    """The error for a task id that is not in `known`, naming the closest ones."""
    import difflib  # deferred: only on this error path

    close = difflib.get_close_matches(tid, list(known), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return WfsError(f"unknown task {tid!r}{hint}")
