"""Maestro-Flow sessions: where they are, and what wfs session one of them makes.

Maestro-Flow, the successor of the tool this design comes from, keeps its work in
`.workflow/sessions/<YYYYMMDD>-<slug>/`. Each command it runs is a run folder
`runs/<YYYYMMDD>-<NNN>-<command>/`; a plan run leaves `outputs/plan.json` (`task_ids`,
`waves`) and one `outputs/tasks/TASK-NNN.json` per task, in the flat task format that
wfs reads natively; an execute run leaves `outputs/execution.json`, which names the
tasks it completed (docs/formats.md, "Maestro-Flow sessions").

Nothing here writes. `find_sessions` names the sessions that hold a plan (for `session
list`, `status` and `validate`); `read_session` reads one and converts it, in memory,
into the tasks and session fields of a wfs session, which `wfs import` writes
(wfs/edit.py). The conversion loses nothing: each TASK id is kept (`meta.source_id`,
and the session's id map), a status wfs does not use is kept (`meta.source_status`),
and every other field stays where the author put it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from wfs import jsonio
from wfs.errors import WfsError
from wfs.layout import Layout, slugify
from wfs.text import json_kind

MAESTRO = "Maestro-Flow"
SESSIONS_DIR = "sessions"
RUNS_DIR = "runs"
OUTPUTS_DIR = "outputs"
PLAN_FILE = "plan.json"
WAVES_FILE = "waves.json"
EXECUTION_FILE = "execution.json"
SESSION_FILE = "session.json"
ARTIFACTS_FILE = "artifacts.json"
TASK_DIRS = ("tasks", ".task")  # outputs/tasks/ in a run; .task/ in a plan made outside one
# The key of a wfs session file that says which Maestro session it was imported from.
RECORD = "imported_from"
# The statuses Maestro writes for a task that is done; any other leaves it to be done.
DONE = ("completed", "completed_with_deviations", "done")

_DATED = re.compile(r"\d{8}-(.+)")
_ID_NUMBER = re.compile(r"(\d+)")


class Found(NamedTuple):
    """A Maestro-Flow session that holds a plan."""

    name: str  # its folder: <YYYYMMDD>-<slug>
    path: Path
    plan: Path  # the plan.json of its current plan run


class Imported(NamedTuple):
    """A Maestro-Flow session read as a wfs session."""

    topic: str  # what the wfs session is named after (its slug)
    fields: dict[str, Any]  # session file fields: project, plan, imported_from
    tasks: list[tuple[str, dict[str, Any]]]  # (the Maestro file it comes from, the wfs task)


def find_sessions(layout: Layout) -> list[Found]:
    """The Maestro-Flow sessions of the project that hold a plan, by name."""
    base = layout.workflow / SESSIONS_DIR
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        plan = current_plan(Path(entry.path))
        if plan is not None:
            found.append(Found(entry.name, Path(entry.path), plan))
    return found


def import_command(layout: Layout, found: Found) -> str:
    return f"wfs import {layout.relative(found.path)}"


def current_plan(session_dir: Path) -> Path | None:
    """The plan.json of the session's current plan: the run that its `current-plan`
    alias names (artifacts.json), else its latest plan run. Run folders are named
    <YYYYMMDD>-<NNN>-<command>, so their names sort in the order the runs were made."""
    runs_dir = session_dir / RUNS_DIR
    try:
        runs = sorted(e.name for e in os.scandir(runs_dir) if e.is_dir())
    except (FileNotFoundError, NotADirectoryError):
        return None
    aliased = _aliased_run(session_dir)
    if aliased in runs:
        plan = runs_dir / aliased / OUTPUTS_DIR / PLAN_FILE
        if plan.is_file():
            return plan
    for run in reversed(runs):
        plan = runs_dir / run / OUTPUTS_DIR / PLAN_FILE
        if plan.is_file():
            return plan
    return None


def _aliased_run(session_dir: Path) -> str | None:
    """The run that produced the artifact `current-plan` names, when artifacts.json says."""
    try:
        registry = jsonio.parse((session_dir / ARTIFACTS_FILE).read_bytes(), ARTIFACTS_FILE)
    except (OSError, WfsError):
        return None  # no registry (or one wfs cannot read): the latest plan run is current
    if not isinstance(registry, dict):
        return None
    aliases, artifacts = registry.get("aliases"), registry.get("artifacts")
    if not isinstance(aliases, dict) or not isinstance(artifacts, dict):
        return None
    artifact = artifacts.get(str(aliases.get("current-plan")))
    if not isinstance(artifact, dict):
        return None
    run = artifact.get("producer_run_id", artifact.get("run_id"))
    return run if isinstance(run, str) else None


# ---------------------------------------------------------------- reading one session


def locate(layout: Layout, given: str) -> Path:
    """The plan.json that `given` names: a Maestro session folder (its current plan), a
    run folder, a folder holding plan.json, or plan.json itself; `given` is a path (from
    the current directory or the project root) or the name of a session in
    `.workflow/sessions/`."""
    candidates = [Path(given), layout.root / given]
    if given and os.sep not in given and "/" not in given:
        candidates.append(layout.workflow / SESSIONS_DIR / given)
    path = next((c for c in candidates if c.exists()), None)
    if path is None:
        raise WfsError(f"{given}: no such file or folder (nor a Maestro-Flow session of that name)")
    shown = layout.relative(Path(os.path.abspath(path)))
    if path.is_file():
        if path.name != PLAN_FILE:
            raise WfsError(f"{shown}: expected a Maestro-Flow session folder or its {PLAN_FILE}")
        return path
    for plan in (path / PLAN_FILE, path / OUTPUTS_DIR / PLAN_FILE):
        if plan.is_file():
            return plan
    plan_found = current_plan(path)
    if plan_found is not None:
        return plan_found
    if (path / RUNS_DIR).is_dir():
        raise WfsError(
            f"{shown}: this Maestro-Flow session has no plan yet "
            f"(no {RUNS_DIR}/<run>/{OUTPUTS_DIR}/{PLAN_FILE}); make one with Maestro's plan "
            "command first"
        )
    raise WfsError(
        f"{shown}: not a Maestro-Flow session (expected {RUNS_DIR}/<run>/{OUTPUTS_DIR}/"
        f"{PLAN_FILE}, or {PLAN_FILE} with tasks/TASK-NNN.json)"
    )


def session_of(plan: Path) -> tuple[Path, str | None]:
    """(the session folder, the run) a plan.json belongs to; a plan made outside a run
    (`.workflow/scratch/<slug>/plan.json`) is its own session and has no run."""
    outputs = plan.parent
    run = outputs.parent
    if outputs.name == OUTPUTS_DIR and run.parent.name == RUNS_DIR:
        return run.parent.parent, run.name
    if outputs.name == OUTPUTS_DIR:
        return run, None
    return outputs, None


class _Reader:
    """What one read of a Maestro session found, and the bytes it was read from."""

    def __init__(self, layout: Layout) -> None:
        import hashlib  # deferred: only an import or validate reads a session; status lists it

        self.layout = layout
        self.digest = hashlib.sha256()

    def read(self, path: Path) -> Any:
        shown = self.layout.relative(path)
        try:
            raw = path.read_bytes()
        except OSError as err:
            raise WfsError(f"{shown}: cannot read: {err.strerror}") from None
        self.digest.update(shown.encode("utf-8", "surrogateescape") + b"\0")
        self.digest.update(len(raw).to_bytes(8, "big") + raw)
        return jsonio.parse(raw, shown)

    def shown(self, path: Path) -> str:
        return self.layout.relative(path)


def read_session(layout: Layout, given: str) -> Imported:
    """The wfs session that the Maestro-Flow session (or plan) `given` makes; raises
    WfsError naming the file and the place of anything that keeps it from being one."""
    plan_path = Path(os.path.abspath(locate(layout, given)))
    session_dir, run = session_of(plan_path)
    reader = _Reader(layout)
    plan = reader.read(plan_path)
    where = reader.shown(plan_path)
    if not isinstance(plan, dict):
        raise WfsError(f"{where}: expected a JSON object, got {json_kind(plan)}")
    if plan.get("source_format") == "pi-markdown":
        raise WfsError(
            f"{where}: a Markdown plan (source_format pi-markdown), with no tasks of its own; "
            "wfs imports plans made of tasks (task_ids, waves, tasks/TASK-NNN.json)"
        )
    tasks = _read_tasks(reader, plan_path.parent)
    waves = _waves(reader, plan, plan_path, tasks)
    order, wave_of = _order(plan, where, waves, tasks)
    outside = [t for t in order if t not in wave_of]
    if waves and outside:
        # Maestro runs the waves only: the tasks outside them come after the last one.
        wave_of.update((t, len(waves)) for t in outside)
        waves = [*waves, outside]
    ids = {source: f"IMPL-{n}" for n, source in enumerate(order, 1)}
    wave_lists = [[ids[t] for t in wave] for wave in waves]
    completed = _completed_in_runs(reader, session_dir, run) if run else {}
    converted = []
    for source in order:
        shown = reader.shown(tasks[source].path)
        task = _convert(tasks[source], shown, ids, wave_of, wave_lists, completed.get(source))
        converted.append((shown, task))
    name = session_dir.name
    dated = _DATED.fullmatch(name)
    topic = dated.group(1) if dated and slugify(dated.group(1)) else name
    if not slugify(topic):
        topic = "maestro " + name
    record: dict[str, Any] = {
        "format": MAESTRO,
        "session": reader.shown(session_dir),
        "run": run,
        "plan_file": where,
        "ids": ids,
        "waves": wave_lists,
    }
    if completed:
        record["completed"] = {ids[t]: completed[t] for t in order if t in completed}
    record["fingerprint"] = "sha256:" + reader.digest.hexdigest()
    record["plan"] = plan
    fields: dict[str, Any] = {"project": _project(session_dir, plan, name)}
    overview = _first_text(plan, ("summary", "objective", "approach"))
    if overview is not None:
        fields["plan"] = {"overview": overview}
    fields[RECORD] = record
    return Imported(topic, fields, converted)


class _Task(NamedTuple):
    source: str  # its Maestro id
    path: Path
    data: dict[str, Any]


def _read_tasks(reader: _Reader, plan_dir: Path) -> dict[str, _Task]:
    folder = next((plan_dir / d for d in TASK_DIRS if (plan_dir / d).is_dir()), None)
    if folder is None:
        raise WfsError(
            f"{reader.shown(plan_dir)}: no tasks next to {PLAN_FILE} "
            f"(expected {TASK_DIRS[0]}/TASK-NNN.json)"
        )
    names = sorted((n for n in os.listdir(folder) if n.endswith(".json")), key=_natural)
    tasks: dict[str, _Task] = {}
    for name in names:
        path = folder / name
        data = reader.read(path)
        shown = reader.shown(path)
        if not isinstance(data, dict):
            raise WfsError(f"{shown}: expected a task (a JSON object), got {json_kind(data)}")
        source = data.get("id", data.get("task_id", name[: -len(".json")]))
        if not isinstance(source, str) or not source.strip():
            raise WfsError(f"{shown}#/id: a task id must be a non-empty string, got {source!r}")
        if source in tasks:
            raise WfsError(
                f"{shown}: task {source} is also {reader.shown(tasks[source].path)}; "
                "two tasks cannot have one id"
            )
        tasks[source] = _Task(source, path, data)
    if not tasks:
        raise WfsError(f"{reader.shown(folder)}: holds no task (TASK-NNN.json)")
    return tasks


def _natural(name: str) -> tuple[Any, ...]:
    """TASK-2 before TASK-10; TASK-001a after TASK-001."""
    return tuple(int(p) if p.isdigit() else p for p in _ID_NUMBER.split(name))


def _waves(
    reader: _Reader, plan: dict[str, Any], plan_path: Path, tasks: dict[str, _Task]
) -> list[list[str]]:
    """The waves of the plan, in the order they run: plan.json's `waves`, else
    outputs/waves.json's, else the `wave` (or `meta.wave`) each task gives itself."""
    where = reader.shown(plan_path)
    raw: Any = plan.get("waves")
    if not raw and (plan_path.parent / WAVES_FILE).is_file():
        waves_path = plan_path.parent / WAVES_FILE
        raw = reader.read(waves_path)
        where = reader.shown(waves_path)
        if isinstance(raw, dict):
            raw = raw.get("waves")
            where += "#/waves"
    if raw:
        return _wave_lists(raw, where)
    numbers = {t.source: _wave_number(t.data) for t in tasks.values()}
    if not all(isinstance(n, int) for n in numbers.values()):
        return []
    return [
        [t for t, n in numbers.items() if n == number] for number in sorted(set(numbers.values()))
    ]


def _wave_number(data: dict[str, Any]) -> Any:
    meta = data.get("meta")
    number = data.get("wave", meta.get("wave") if isinstance(meta, dict) else None)
    return number if isinstance(number, int) and not isinstance(number, bool) else None


def _wave_lists(raw: Any, where: str) -> list[list[str]]:
    if not isinstance(raw, list):
        raise WfsError(f"{where}: waves must be an array of {{wave, tasks}}, got {json_kind(raw)}")
    waves: list[tuple[Any, list[str]]] = []
    for i, item in enumerate(raw):
        ids = item.get("tasks", item.get("task_ids")) if isinstance(item, dict) else item
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
    runs = sorted(e.name for e in os.scandir(runs_dir) if e.is_dir() and e.name > plan_run)
    completed: dict[str, str] = {}
    for run in runs:
        path = runs_dir / run / OUTPUTS_DIR / EXECUTION_FILE
        if not path.is_file():
            continue
        data = reader.read(path)
        entries = data.get("completed_tasks") if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                entry = entry.get("id", entry.get("task_id"))
            if isinstance(entry, str):
                completed[entry] = reader.shown(path)
    return completed


def _project(session_dir: Path, plan: dict[str, Any], name: str) -> str:
    """The topic: the session's `intent` (session.json), else the plan's summary."""
    try:
        session = jsonio.parse((session_dir / SESSION_FILE).read_bytes(), SESSION_FILE)
    except (OSError, WfsError):
        session = None  # the topic is also in the plan; Maestro's own file is its business
    found = _first_text(session, ("intent", "goal", "title")) if isinstance(session, dict) else None
    return found or _first_text(plan, ("summary", "objective")) or name


def _first_text(data: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


# ---------------------------------------------------------------- one task


# Dependency lists that hold task ids. `deps` is the short name of plan-task/1.0.
_DEPENDENCY_PLACES = (("depends_on",), ("deps",), ("meta", "depends_on"))


def _convert(
    task: _Task,
    where: str,
    ids: dict[str, str],
    wave_of: dict[str, int],
    waves: list[list[str]],
    completed_in: str | None,
) -> dict[str, Any]:
    """The wfs task for one Maestro task: its id and the ids it names become IMPL-N, the
    short names of plan-task/1.0 become the template's (deps, convergence_criteria,
    verify), its status is one wfs uses, and the order of the waves is added to
    `context.depends_on`; everything else is kept where it is."""
    source = task.source
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
    for place in _DEPENDENCY_PLACES:
        holder = out if len(place) == 1 else out.get(place[0])
        value = holder.get(place[-1]) if isinstance(holder, dict) else None
        if not isinstance(value, list):
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
    top, or in `meta` as its planner writes it) is kept as `meta.source_status` when it
    is not the one wfs uses."""
    meta = out.get("meta")
    if "status" in out or not isinstance(meta, dict):
        written = out.get("status")
    else:
        written = meta.get("status")
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
