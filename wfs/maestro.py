"""Maestro-Flow plans: where they are, and what wfs session each one makes.

Maestro-Flow (the successor of the tool this design comes from) and the lite-plan
command of that tool write a plan as `plan.json` (`task_ids`, `waves`) with one
`TASK-NNN.json` per task in the flat task format that wfs reads natively. Over their
releases the plan has lived in several places (docs/formats.md, "Maestro-Flow plans"):

- `.workflow/sessions/<YYYYMMDD>-<slug>/runs/<run>/outputs/` (`tasks/`), one run folder
  per command, the current plan named by `artifacts.json` or the latest plan run;
- `.workflow/scratch/<YYYYMMDD>-<kind>-<slug>/` (`.task/`), and before that
  `scratch/plan-<slug>-<date>/` and `scratch/quick-<slug>-<date>/`;
- `.workflow/milestones/<M>/artifacts/<slug>/`, where a completed milestone keeps them;
- `.workflow/phases/<NN>-<slug>/`, the phase folders of the first releases;
- `.workflow/.lite-plan/<slug>/`, the lite-plan command's;
- a quick task: `index.json` (its `plan.task_ids`) and `.task/`, with no `plan.json`.

One rule finds them all (`find_plans`): a folder under `.workflow/` that holds a task
folder (`.task/` or `tasks/` with JSON files) next to `plan.json` or `index.json`, and
each session of `.workflow/sessions/` with a plan run. wfs's own session folders and
runtime folders are never looked into, and symlinked folders are not followed.

Nothing here writes, and every file is read through the one guarded reader
(store.read_file: regular files inside the project, at most 64 MiB). `read_plan`
reads one plan and converts it, in memory, into the tasks and session fields of a wfs
session, which `wfs import` writes (wfs/edit.py). The conversion loses nothing: each
TASK id is kept (`meta.source_id`, and the session's id map), a status wfs does not use
is kept (`meta.source_status`), and every other field stays where the author put it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from wfs import jsonio, store
from wfs.errors import WfsError
from wfs.layout import SESSION_PREFIX, Layout, slugify
from wfs.text import json_kind

MAESTRO = "Maestro-Flow"
SESSIONS_DIR = "sessions"
RUNS_DIR = "runs"
OUTPUTS_DIR = "outputs"
PLAN_FILE = "plan.json"
INDEX_FILE = "index.json"  # a quick task's (or a phase's) record: its `plan.task_ids`
WAVES_FILE = "waves.json"
EXECUTION_FILE = "execution.json"
SESSION_FILE = "session.json"
ARTIFACTS_FILE = "artifacts.json"
SUMMARIES_DIR = ".summaries"  # TASK-NNN-summary.md: written when Maestro completes a task
TASK_DIRS = ("tasks", ".task")  # outputs/tasks/ in a run; .task/ in the other layouts
LITE_PLAN_DIR = ".lite-plan"  # whose first plans held their tasks in plan.json itself
# The key of a wfs session file that says which Maestro plan it was imported from.
RECORD = "imported_from"
# The statuses Maestro writes for a task that is done; any other leaves it to be done.
DONE = ("completed", "completed_with_deviations", "done")
# How deep under .workflow/ a plan folder may be: milestones/<M>/artifacts/<slug> is 4.
MAX_DEPTH = 5
# What kind of plan a folder is, by the first folder under .workflow/ it is in.
KINDS = {
    SESSIONS_DIR: "session",
    "scratch": "scratch",
    "milestones": "milestone",
    "phases": "phase",
    LITE_PLAN_DIR: "lite-plan",
}
QUICK = "quick"  # index.json and a task folder, no plan.json
# Folders of .workflow/ that hold wfs's sessions and runtime files, never a plan.
_WFS_FOLDERS = frozenset(
    {"active", "archives", ".cache", ".locks", ".runs", ".doctor", ".scratchpad", ".worktrees"}
)
# Folders that are part of a project or of a plan, never a plan of their own.
_NEVER = frozenset({".git", "node_modules", SUMMARIES_DIR, *TASK_DIRS})

_DATED = r"\d{8}-(.+)"
_DATE_AFTER = r"(.+?)-(?:\d{4}-\d{2}-\d{2}|\d{8})"
_ID_NUMBER = r"(\d+)"


class Found(NamedTuple):
    """A Maestro-Flow plan of the project."""

    name: str  # where it is under .workflow/: "scratch/20260531-plan-P1-source-registry"
    path: Path  # its folder; for a session of sessions/, the session folder
    kind: str  # session, scratch, milestone, phase, lite-plan, quick or plan


class Imported(NamedTuple):
    """A Maestro-Flow plan read as a wfs session."""

    topic: str  # what the wfs session is named after (its slug)
    fields: dict[str, Any]  # session file fields: project, plan, imported_from
    tasks: list[tuple[str, dict[str, Any]]]  # (the Maestro file it comes from, the wfs task)


# ---------------------------------------------------------------- finding plans


def find_plans(layout: Layout) -> list[Found]:
    """Every Maestro-Flow plan of the project, by name (see the module's docstring)."""
    found: list[Found] = []
    _visit(layout.workflow, (), found)
    return sorted(found, key=lambda f: f.name)


def _visit(folder: Path, parts: tuple[str, ...], found: list[Found]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    folders: dict[str, str] = {}
    files: set[str] = set()
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                folders[entry.name] = entry.path
            elif entry.is_file():  # a symlink to a device or a FIFO is no plan file
                files.add(entry.name)
        except OSError:
            continue
    if parts and _holds_plan(folders, files, parts):
        kind = KINDS.get(parts[0], "plan") if PLAN_FILE in files else QUICK
        found.append(Found("/".join(parts), folder, kind))
        return
    if len(parts) >= MAX_DEPTH:
        return
    for name in sorted(folders):
        if name in _NEVER or name.startswith(SESSION_PREFIX):
            continue
        if not parts and name in _WFS_FOLDERS:
            continue
        path = Path(folders[name])
        if parts == (SESSIONS_DIR,):  # a session of Maestro's runs: its current plan run
            if current_plan(path) is not None:
                found.append(Found(f"{SESSIONS_DIR}/{name}", path, KINDS[SESSIONS_DIR]))
            continue
        _visit(path, (*parts, name), found)


def _holds_plan(folders: dict[str, str], files: set[str], parts: tuple[str, ...]) -> bool:
    """plan.json or index.json beside a task folder that holds JSON files; or, in
    .lite-plan/, a plan.json alone (its tasks inside it)."""
    if PLAN_FILE not in files and INDEX_FILE not in files:
        return False
    for name in TASK_DIRS:
        if name in folders and _has_json(folders[name]):
            return True
    return PLAN_FILE in files and parts[0] == LITE_PLAN_DIR and len(parts) == 2


def _has_json(folder: str) -> bool:
    try:
        return any(name.endswith(".json") for name in os.listdir(folder))
    except OSError:
        return False


def import_command(layout: Layout, found: Found) -> str:
    return f"wfs import {layout.relative(found.path)}"


def current_plan(session_dir: Path) -> Path | None:
    """The plan.json of a session's current plan: the run that its `current-plan` alias
    names (artifacts.json), else its latest plan run. Run folders are named
    <YYYYMMDD>-<NNN>-<command>, so their names sort in the order the runs were made."""
    runs_dir = session_dir / RUNS_DIR
    try:
        runs = sorted(e.name for e in os.scandir(runs_dir) if e.is_dir(follow_symlinks=False))
    except OSError:
        return None
    aliased = _aliased_run(session_dir)
    for run in ([aliased] if aliased in runs else []) + runs[::-1]:
        plan = runs_dir / run / OUTPUTS_DIR / PLAN_FILE
        if plan.is_file():
            return plan
    return None


def _aliased_run(session_dir: Path) -> str | None:
    """The run that produced the artifact `current-plan` names, when artifacts.json says."""
    registry = _optional(session_dir / ARTIFACTS_FILE, ARTIFACTS_FILE)
    if not isinstance(registry, dict):
        return None  # no registry (or one wfs cannot read): the latest plan run is current
    aliases, artifacts = registry.get("aliases"), registry.get("artifacts")
    if not isinstance(aliases, dict) or not isinstance(artifacts, dict):
        return None
    artifact = artifacts.get(str(aliases.get("current-plan")))
    if not isinstance(artifact, dict):
        return None
    run = artifact.get("producer_run_id", artifact.get("run_id"))
    return run if isinstance(run, str) else None


def _optional(path: Path, where: str) -> Any:
    """A file of Maestro's that only adds to what the plan says (its registry, its
    session's intent): its JSON, or None when it is missing or cannot be read (through
    the guarded reader: a FIFO or a device is never waited on or read)."""
    try:
        return jsonio.parse(store.read_file(path, where), where)
    except WfsError:
        return None


# ---------------------------------------------------------------- where one plan is


class Source(NamedTuple):
    """The files of one plan."""

    folder: Path  # where plan.json, index.json and the task folder are
    plan_file: Path | None  # plan.json
    index_file: Path | None  # index.json (a quick task's only plan file)
    home: Path  # what the plan is listed as: its folder, or the session of a run
    run: str | None  # the run folder, in a session of sessions/


def locate(layout: Layout, given: str) -> Source:
    """The plan that `given` names: a plan folder, a session of sessions/ (its current
    plan), one of its runs, or plan.json or index.json itself; `given` is a path (from
    the current directory or the project root), a name `wfs session list` shows, or the
    name of a session in `.workflow/sessions/`."""
    candidates = [Path(given), layout.root / given, layout.workflow / given]
    if given and os.sep not in given and "/" not in given:
        candidates.append(layout.workflow / SESSIONS_DIR / given)
    path = next((c for c in candidates if given and os.path.lexists(c)), None)
    if path is None:
        raise WfsError(f"{given}: no such file or folder (nor a Maestro-Flow plan of that name)")
    path = Path(os.path.abspath(path))
    shown = layout.relative(path)
    if not path.is_dir():
        if path.name not in (PLAN_FILE, INDEX_FILE):
            raise WfsError(f"{shown}: expected a Maestro-Flow plan folder or its {PLAN_FILE}")
        path = path.parent
    for folder in (path, path / OUTPUTS_DIR):
        source = _source_in(folder)
        if source is not None:
            return source
    plan = current_plan(path)
    if plan is not None:
        found = _source_in(plan.parent)
        assert found is not None  # the plan.json found is there
        return found
    if (path / RUNS_DIR).is_dir():
        raise WfsError(
            f"{shown}: this Maestro-Flow session has no plan yet "
            f"(no {RUNS_DIR}/<run>/{OUTPUTS_DIR}/{PLAN_FILE}); make one with Maestro's plan "
            "command first"
        )
    raise WfsError(
        f"{shown}: not a Maestro-Flow plan (expected {PLAN_FILE} or {INDEX_FILE} with "
        f".task/TASK-NNN.json, or a session's {RUNS_DIR}/<run>/{OUTPUTS_DIR}/{PLAN_FILE})"
    )


def _source_in(folder: Path) -> Source | None:
    plan = folder / PLAN_FILE
    index = folder / INDEX_FILE
    has_plan, has_index = os.path.lexists(plan), os.path.lexists(index)
    tasks = _task_folder(folder)
    if not (has_plan or (has_index and tasks is not None)):
        return None
    run_dir = folder.parent
    if folder.name == OUTPUTS_DIR and run_dir.parent.name == RUNS_DIR:
        home, run = run_dir.parent.parent, run_dir.name
    elif folder.name == OUTPUTS_DIR:
        home, run = run_dir, None
    else:
        home, run = folder, None
    return Source(folder, plan if has_plan else None, index if has_index else None, home, run)


def _task_folder(folder: Path) -> Path | None:
    return next((folder / d for d in TASK_DIRS if (folder / d).is_dir()), None)


# ---------------------------------------------------------------- reading one plan


class _Reader:
    """What one read of a Maestro plan found, and the bytes it was read from."""

    def __init__(self, layout: Layout) -> None:
        import hashlib  # deferred: only an import or validate reads a plan; status lists it

        self.layout = layout
        self.digest = hashlib.sha256()

    def read(self, path: Path) -> Any:
        """The JSON of one file of the plan (through the guarded reader), counted in the
        fingerprint of what was imported."""
        shown = self.shown(path)
        raw = store.read_file(path, shown)
        self.note(shown, raw)
        return jsonio.parse(raw, shown)

    def note(self, name: str, data: bytes) -> None:
        self.digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        self.digest.update(len(data).to_bytes(8, "big") + data)

    def shown(self, path: Path) -> str:
        return self.layout.relative(path)


def read_plan(layout: Layout, given: str) -> Imported:
    """The wfs session that the Maestro-Flow plan `given` makes; raises WfsError naming
    the file and the place of anything that keeps it from being one."""
    source = locate(layout, given)
    reader = _Reader(layout)
    plan_file = source.plan_file or source.index_file
    assert plan_file is not None
    where = reader.shown(plan_file)
    index = None
    if source.plan_file is not None:
        plan = reader.read(source.plan_file)
        if source.index_file is not None:
            index = _optional(source.index_file, reader.shown(source.index_file))
    else:
        index = reader.read(plan_file)
        if not isinstance(index, dict):
            raise WfsError(f"{where}: expected a JSON object, got {json_kind(index)}")
        plan = index.get("plan") if isinstance(index.get("plan"), dict) else {}
        where += "#/plan"
    if not isinstance(plan, dict):
        raise WfsError(f"{where}: expected a JSON object, got {json_kind(plan)}")
    if plan.get("source_format") == "pi-markdown":
        raise WfsError(
            f"{where}: a Markdown plan (source_format pi-markdown), with no tasks of its own; "
            "wfs imports plans made of tasks (task_ids, waves, tasks/TASK-NNN.json)"
        )
    tasks = _read_tasks(reader, source, plan)
    waves = _waves(reader, plan, where, source.folder, tasks)
    order, wave_of = _order(plan, where, waves, tasks)
    outside = [t for t in order if t not in wave_of]
    if waves and outside:
        # Maestro runs the waves only: the tasks outside them come after the last one.
        wave_of.update((t, len(waves)) for t in outside)
        waves = [*waves, outside]
    ids = {source_id: f"IMPL-{n}" for n, source_id in enumerate(order, 1)}
    wave_lists = [[ids[t] for t in wave] for wave in waves]
    if source.run:
        completed = _completed_in_runs(reader, source.home, source.run)
    else:
        completed = _summarized(reader, source.folder, list(tasks))
    converted = []
    for source_id in order:
        task = tasks[source_id]
        done = completed.get(source_id)
        converted.append((task.shown, _convert(task, ids, wave_of, wave_lists, done)))
    record: dict[str, Any] = {
        "format": MAESTRO,
        "kind": _kind_of(layout, source),
        "session": reader.shown(source.home),
        "run": source.run,
        "plan_file": reader.shown(plan_file),
        "ids": ids,
        "waves": wave_lists,
    }
    if completed:
        record["completed"] = {ids[t]: completed[t] for t in order if t in completed}
    record["fingerprint"] = "sha256:" + reader.digest.hexdigest()
    record["plan"] = plan
    fields: dict[str, Any] = {"project": _project(source, plan, index)}
    overview = _first_text(plan, ("summary", "objective", "approach"))
    if overview is not None:
        fields["plan"] = {"overview": overview}
    fields[RECORD] = record
    return Imported(plan_topic(source.home.name), fields, converted)


def plan_topic(name: str) -> str:
    """What a plan's wfs session is named after: its folder's name without the date
    Maestro writes before or after it (`20260531-plan-P1-source-registry`,
    `quick-login-2026-05-02`)."""
    topic = name
    dated = re.fullmatch(_DATED, topic)
    if dated and slugify(dated.group(1)):
        topic = dated.group(1)
    dated = re.fullmatch(_DATE_AFTER, topic)
    if dated and slugify(dated.group(1)):
        topic = dated.group(1)
    return topic if slugify(topic) else f"maestro {name}"


def _kind_of(layout: Layout, source: Source) -> str:
    try:
        parts = source.home.relative_to(layout.workflow).parts
    except ValueError:
        parts = ()
    if source.plan_file is None:
        return QUICK
    return KINDS.get(parts[0], "plan") if parts else "plan"


class _Task(NamedTuple):
    source: str  # its Maestro id
    shown: str  # where it is: its file, or its place in plan.json
    data: dict[str, Any]


def _read_tasks(reader: _Reader, source: Source, plan: dict[str, Any]) -> dict[str, _Task]:
    folder = _task_folder(source.folder)
    if folder is None:
        return _inline_tasks(reader, source, plan)
    try:
        names = sorted((n for n in os.listdir(folder) if n.endswith(".json")), key=_natural)
    except OSError as err:
        raise WfsError(f"{reader.shown(folder)}: cannot be read: {err.strerror}") from None
    tasks: dict[str, _Task] = {}
    for name in names:
        path = folder / name
        data = reader.read(path)
        shown = reader.shown(path)
        if not isinstance(data, dict):
            raise WfsError(f"{shown}: expected a task (a JSON object), got {json_kind(data)}")
        _add_task(tasks, data, shown, name[: -len(".json")])
    if not tasks:
        raise WfsError(f"{reader.shown(folder)}: holds no task (TASK-NNN.json)")
    return tasks


def _inline_tasks(reader: _Reader, source: Source, plan: dict[str, Any]) -> dict[str, _Task]:
    """The tasks of a plan.json that holds them itself (lite-plan before 2026-02)."""
    written = plan.get("tasks")
    where = reader.shown(source.plan_file or source.folder)
    if not isinstance(written, list) or not written:
        raise WfsError(
            f"{reader.shown(source.folder)}: no tasks next to {PLAN_FILE} "
            f"(expected .task/TASK-NNN.json)"
        )
    tasks: dict[str, _Task] = {}
    for i, data in enumerate(written):
        shown = f"{where}#/tasks/{i}"
        if not isinstance(data, dict):
            raise WfsError(f"{shown}: expected a task (a JSON object), got {json_kind(data)}")
        _add_task(tasks, data, shown, f"T{i + 1}")
    return tasks


def _add_task(tasks: dict[str, _Task], data: dict[str, Any], shown: str, fallback: str) -> None:
    source = data.get("id", data.get("task_id", fallback))
    if not isinstance(source, str) or not source.strip():
        raise WfsError(f"{shown}#/id: a task id must be a non-empty string, got {source!r}")
    if source in tasks:
        raise WfsError(
            f"{shown}: task {source} is also {tasks[source].shown}; two tasks cannot have one id"
        )
    tasks[source] = _Task(source, shown, data)


def _natural(name: str) -> tuple[Any, ...]:
    """TASK-2 before TASK-10; TASK-001a after TASK-001."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(_ID_NUMBER, name))


def _waves(
    reader: _Reader, plan: dict[str, Any], where: str, folder: Path, tasks: dict[str, _Task]
) -> list[list[str]]:
    """The waves of the plan, in the order they run: plan.json's `waves`, else
    outputs/waves.json's, else the `wave` (or `meta.wave`) each task gives itself.
    Waves written as labels only (`["wave-1", "wave-2"]`) say no order of their own."""
    raw: Any = plan.get("waves")
    if not _listed_waves(raw) and (folder / WAVES_FILE).is_file():
        waves_path = folder / WAVES_FILE
        raw = reader.read(waves_path)
        where = reader.shown(waves_path)
        if isinstance(raw, dict):
            raw = raw.get("waves")
            where += "#/waves"
    else:
        where += "#/waves"
    if _listed_waves(raw):
        return _wave_lists(raw, where)
    numbers = {t.source: _wave_number(t.data) for t in tasks.values()}
    if not all(isinstance(n, int) for n in numbers.values()):
        return []
    return [
        [t for t, n in numbers.items() if n == number] for number in sorted(set(numbers.values()))
    ]


def _listed_waves(raw: Any) -> bool:
    """Whether `waves` lists tasks (rather than being absent, empty or labels only)."""
    return isinstance(raw, list) and any(
        isinstance(item, (dict, list)) and _wave_ids(item) is not None for item in raw
    )


def _wave_ids(item: Any) -> Any:
    return item.get("tasks", item.get("task_ids")) if isinstance(item, dict) else item


def _wave_number(data: dict[str, Any]) -> Any:
    meta = data.get("meta")
    number = data.get("wave", meta.get("wave") if isinstance(meta, dict) else None)
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _wave_lists(raw: list[Any], where: str) -> list[list[str]]:
    waves: list[tuple[Any, list[str]]] = []
    for i, item in enumerate(raw):
        ids = _wave_ids(item)
        if not isinstance(ids, list) or not all(isinstance(t, str) for t in ids):
            raise WfsError(
                f'{where}/{i}: a wave must be {{"wave": N, "tasks": [task ids]}}, '
                f"got {json_kind(item)}"
            )
        number = item.get("wave") if isinstance(item, dict) else None
        waves.append((number, ids))
    numbered = all(isinstance(n, int) and not isinstance(n, bool) for n, _ in waves)
    if numbered:
        waves.sort(key=lambda w: w[0])  # stable: waves with one number keep their order
    return [ids for _, ids in waves if ids]


def _order(
    plan: dict[str, Any], where: str, waves: list[list[str]], tasks: dict[str, _Task]
) -> tuple[list[str], dict[str, int]]:
    """The tasks in the order they run (wave by wave, then the others of `task_ids`,
    then the other task files), and the wave of each task in a wave."""
    where = where.split("#")[0] + ("#/plan" if where.endswith("#/plan") else "")
    order: list[str] = []
    wave_of: dict[str, int] = {}
    for n, wave in enumerate(waves):
        for source in wave:
            if source not in tasks:
                raise WfsError(f"{where}: wave {n + 1} names {source}, which has no task file")
            if source in wave_of:
                raise WfsError(
                    f"{where}: {source} is in wave {wave_of[source] + 1} and in wave {n + 1}"
                )
            wave_of[source] = n
            order.append(source)
    listed = plan.get("task_ids")
    for source in listed if isinstance(listed, list) else []:
        if not isinstance(source, str) or source not in tasks:
            raise WfsError(f"{where}#/task_ids: {source!r} has no task file")
        if source not in order:
            order.append(source)
    order += [source for source in tasks if source not in order]
    return order, wave_of


def _completed_in_runs(reader: _Reader, session_dir: Path, plan_run: str) -> dict[str, str]:
    """Task -> the execution.json of a later run that says it completed it. Maestro keeps
    a sealed plan as it was, so its tasks still say `pending` after they ran."""
    runs_dir = session_dir / RUNS_DIR
    try:
        runs = sorted(
            e.name
            for e in os.scandir(runs_dir)
            if e.is_dir(follow_symlinks=False) and e.name > plan_run
        )
    except OSError:
        return {}
    completed: dict[str, str] = {}
    for run in runs:
        path = runs_dir / run / OUTPUTS_DIR / EXECUTION_FILE
        if not os.path.lexists(path):
            continue
        data = reader.read(path)
        entries = data.get("completed_tasks") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                entry = entry.get("id", entry.get("task_id"))
            if isinstance(entry, str):
                completed[entry] = reader.shown(path)
    return completed


def _summarized(reader: _Reader, folder: Path, sources: list[str]) -> dict[str, str]:
    """Task -> its summary, `.summaries/<id>-summary.md` (or `.json`): Maestro writes one
    when a task succeeds, and may leave the status in the task file as planned."""
    found: dict[str, str] = {}
    for source in sources:
        for ext in (".md", ".json"):
            path = folder / SUMMARIES_DIR / f"{source}-summary{ext}"
            if path.is_file():
                found[source] = reader.shown(path)
                reader.note(found[source], b"")  # a summary added later changes the import
                break
    return found


def _project(source: Source, plan: dict[str, Any], index: Any) -> str:
    """The topic: the session's `intent` (session.json), else the quick task's title
    (index.json), else the plan's summary."""
    session = _optional(source.home / SESSION_FILE, SESSION_FILE) if source.run else None
    for holder, keys in (
        (session, ("intent", "goal", "title")),
        (index, ("title", "goal")),
        (plan, ("summary", "objective", "title")),
    ):
        found = _first_text(holder, keys) if isinstance(holder, dict) else None
        if found:
            return found
    return source.home.name


def _first_text(data: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


# ---------------------------------------------------------------- one task


# Dependency lists that hold task ids. `deps` is the short name of plan-task/1.0.
_DEPENDENCY_PLACES = (("depends_on",), ("deps",), ("meta", "depends_on"), ("context", "depends_on"))
# Loosely named lists, read as dependencies only when every entry is a task of the plan
# (a project's `dependencies` may just as well list packages), as wfs.formats reads them.
_LOOSE_PLACES = (
    ("dependencies",),
    ("blocked_by",),
    ("meta", "dependencies"),
    ("meta", "blocked_by"),
    ("context", "dependencies"),
    ("context", "blocked_by"),
)


def _convert(
    task: _Task,
    ids: dict[str, str],
    wave_of: dict[str, int],
    waves: list[list[str]],
    completed_in: str | None,
) -> dict[str, Any]:
    """The wfs task for one Maestro task: its id and the ids it names become IMPL-N, the
    short names of plan-task/1.0 become the template's (deps, convergence_criteria,
    verify), its status is one wfs uses, and the order of the waves is added to
    `context.depends_on`; everything else is kept where it is."""
    source, where = task.source, task.shown
    out = dict(task.data)
    if "id" in out:
        out["id"] = ids[source]
        if out.get("task_id") == source:
            del out["task_id"]
    elif "task_id" in out:
        out = _renamed(out, "task_id", "id", ids[source])
    else:
        out = {"id": ids[source], **out}
    own = _map_dependencies(out, source, where, ids, wave_of)
    if "deps" in out and "depends_on" not in out:
        out = _renamed(out, "deps", "depends_on", out["deps"])
    out = _convergence(out)
    out = _status(out, completed_in)
    meta = out.get("meta")
    if isinstance(meta, dict):
        out["meta"] = {**meta, "source_id": source}
    elif "meta" not in out:
        out["meta"] = {"source_id": source}
    # What wfs would not see otherwise: `deps` that `depends_on` does not list (wfs reads
    # the template's name only), and the order of the waves (the tasks of the one before).
    written = out.get("depends_on")
    written = written if isinstance(written, list) else []
    added = [d for d in own if d not in written]
    wave = wave_of.get(source)
    if wave:
        added += [d for d in waves[wave - 1] if d not in written and d not in added]
    if added:
        out = _add_context_dependencies(out, added, ids)
    return out


def _map_dependencies(
    out: dict[str, Any], source: str, where: str, ids: dict[str, str], wave_of: dict[str, int]
) -> list[str]:
    """Rename the task ids of every dependency list in place; the IMPL ids it depends on."""
    own: list[str] = []
    for place in _DEPENDENCY_PLACES + _LOOSE_PLACES:
        holder = out if len(place) == 1 else out.get(place[0])
        value = holder.get(place[-1]) if isinstance(holder, dict) else None
        if not isinstance(value, list):
            continue
        if place in _LOOSE_PLACES and not all(isinstance(e, str) and e in ids for e in value):
            continue
        mapped = []
        for entry in value:
            if isinstance(entry, str):
                if entry not in ids or entry == source:
                    raise WfsError(
                        f"{where}#/{'/'.join(place)}: {source} depends on "
                        + (
                            "itself"
                            if entry == source
                            else f"{entry}, which is not a task of this plan"
                        )
                    )
                _check_wave(source, entry, wave_of, where)
                entry = ids[entry]
                if entry not in own:
                    own.append(entry)
            mapped.append(entry)
        if len(place) == 1:
            out[place[0]] = mapped
        else:
            out[place[0]] = {**out[place[0]], place[1]: mapped}
    return own


def _add_context_dependencies(
    out: dict[str, Any], added: list[str], ids: dict[str, str]
) -> dict[str, Any]:
    context = out.get("context")
    if context is None:
        return {**out, "context": {"depends_on": added}}
    if not isinstance(context, dict):
        return out  # not a task wfs can read anyway: validate names the problem
    current = context.get("depends_on")
    if current is not None and not isinstance(current, list):
        return out
    kept = [ids.get(d, d) if isinstance(d, str) else d for d in current or []]
    return {**out, "context": {**context, "depends_on": kept + [d for d in added if d not in kept]}}


def _check_wave(source: str, dependency: str, wave_of: dict[str, int], where: str) -> None:
    mine, theirs = wave_of.get(source), wave_of.get(dependency)
    if mine is not None and theirs is not None and theirs > mine:
        raise WfsError(
            f"{where}: {source} (wave {mine + 1}) depends on {dependency}, which is in a later "
            f"wave ({theirs + 1}); the waves and the dependencies of the plan disagree"
        )


def _renamed(data: dict[str, Any], old: str, new: str, value: Any) -> dict[str, Any]:
    """`data` with key `old` replaced by `new` (holding `value`) at its place."""
    return {(new if k == old else k): (value if k == old else v) for k, v in data.items()}


def _convergence(out: dict[str, Any]) -> dict[str, Any]:
    """plan-task/1.0's `convergence_criteria` as the template's `convergence.criteria`,
    and its `verify` as `convergence.verification` (one command) or `test.commands` (a
    list of them), where those places are free: wfs runs the commands of both as checks."""
    criteria = out.get("convergence_criteria")
    current = out.get("convergence")
    if "convergence_criteria" in out and current is None:
        out = _renamed(out, "convergence_criteria", "convergence", {"criteria": criteria})
    elif "convergence_criteria" in out and isinstance(current, dict) and "criteria" not in current:
        del out["convergence_criteria"]
        out["convergence"] = {**current, "criteria": criteria}
    verify = out.get("verify")
    current = out.get("convergence")
    if isinstance(verify, str):
        if current is None:
            out = _renamed(out, "verify", "convergence", {"verification": verify})
        elif isinstance(current, dict) and "verification" not in current:
            del out["verify"]
            out["convergence"] = {**current, "verification": verify}
    elif isinstance(verify, list) and all(isinstance(v, str) for v in verify):
        test = out.get("test")
        if test is None:
            out = _renamed(out, "verify", "test", {"commands": verify})
        elif isinstance(test, dict) and isinstance(test.get("commands", []), list):
            commands = list(test.get("commands", []))
            del out["verify"]
            out["test"] = {**test, "commands": commands + [v for v in verify if v not in commands]}
    return out


def _status(out: dict[str, Any], completed_in: str | None) -> dict[str, Any]:
    """`completed` when Maestro says the task is done, else `pending`: a task it left
    in progress, blocked or failed is for wfs to do. The status the file wrote (at the
    top, in `meta` as its planner writes it, or in its `execution` record) is kept as
    `meta.source_status` when it is not the one wfs uses."""
    meta, execution = out.get("meta"), out.get("execution")
    if "status" in out:
        written = out.get("status")
    elif isinstance(meta, dict) and "status" in meta:
        written = meta.get("status")
    else:  # the executor's record of the task (a file of the planner's form)
        written = execution.get("status") if isinstance(execution, dict) else None
    status = "completed" if completed_in or written in DONE else "pending"
    if "status" in out:
        out["status"] = status
    else:
        items = list(out.items())
        items.insert(list(out).index("title") + 1 if "title" in out else 1, ("status", status))
        out = dict(items)
    if written is not None and written != status and isinstance(meta, dict | None):
        out["meta"] = {**(meta or {}), "source_status": written}
    return out
