"""Validation of whole sessions: the rules across files, and the caches of results.

Each file's own rules are wfs/rules.py's. This module adds the rules across the files of
a session (unique ids, parents, dependencies and their cycles, statuses against the
hierarchy), runs every rule over a session or a project, and keeps the results of each
file by its stamp in `.workflow/.cache` (wfs/index.py), so that a plan that did not
change is answered without running a rule again.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from pathlib import Path
from typing import Any, NamedTuple

from wfs import __version__, formats, index, rules, schemas, task_shapes
from wfs.errors import WfsError
from wfs.graph import find_cycles
from wfs.layout import (
    SESSION_FILE,
    Layout,
    check_session_id,
    file_task_id,
    parent_of,
    parse_task_id,
    task_sort_key,
)
from wfs.resources import resource_dir
from wfs.rules import (
    Pointer,
    Problem,
    Report,
    TaskSource,
    check_task,
    depends_on_child,
    load_file,
    own_parents,
    task_error_count,
    validate_session_data,
    validate_task,
    where_of,
)
from wfs.schemas import LEAF_STATUSES, TASK_STATUSES, quote
from wfs.sessions import is_placeholder_name, layout_problems, session_folders
from wfs.tasks import skeleton, task_entries

# ---------------------------------------------------------------- the whole set


def validate_tasks(sources: list[TaskSource]) -> list[Problem]:
    """Every single-task rule for each source, plus the rules across the set."""
    return [p for problems in _task_problems(sources, {}) for p in problems]


def change_problems(changed: list[TaskSource], seeds: list[TaskSource]) -> list[Problem]:
    """The errors a change to some tasks can make or mend: the single-task rules of the
    tasks it changed, and the rules across the set, run on every task's seed form
    (`seeds`, the index's skeletons). A change costs what it changed: the other tasks'
    files are not read, and jsonschema runs only on a changed task that has an error."""
    found = [p for source in changed for p in task_problems(source)]
    reports = [Report(source.where, source.data) for source in seeds]
    _check_set(seeds, reports, {})
    return found + [p for report in reports for p in report.problems() if p.severity == "error"]


def task_problems(source: TaskSource) -> list[Problem]:
    """The errors of one task on its own (jsonschema runs only when it has some)."""
    if not task_error_count(source.data, source.file_stem, source.root):
        return []
    return [p for p in validate_task(source) if p.severity == "error"]


def _task_problems(
    sources: list[TaskSource], unreadable: dict[str, dict[str, Any]]
) -> list[list[Problem]]:
    """Problems per source, in source order; `unreadable`: the tasks whose files exist
    but could not be read, by id (what their file names say of them)."""

    reports = [Report(source.where, source.data) for source in sources]
    for source, report in zip(sources, reports, strict=True):
        check_task(source, report)
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
    sources: list[TaskSource], reports: list[Report], unreadable: dict[str, dict[str, Any]]
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
    known = set(tasks) | set(unreadable)
    children: dict[str, list[str]] = {}
    for tid in sorted(known, key=task_sort_key):
        task = tasks.get(tid) or unreadable[tid]
        for parent in own_parents(task):
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
    tid: str, task: dict[str, Any], kids: list[str], report: Report
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


def _check_parent_exists(tid: str, task: dict[str, Any], known: set[str], report: Report) -> None:
    context = task.get("context")
    declared = context.get("parent") if isinstance(context, dict) else None
    if not (isinstance(declared, str) and parse_task_id(declared)):
        declared = None  # absent or malformed (reported by the single-task parent rule)
    if declared is not None and declared not in known:
        report.error(
            ("context", "parent"), "parent", f"context.parent {quote(declared)} does not exist"
        )
    parsed = parse_task_id(tid)
    prefix = parent_of(tid) if parsed and not formats.is_gate(task) else None
    if prefix is not None and prefix not in known and prefix != declared:
        report.error(
            ("id",), "parent", f"subtask {tid} needs its main task {prefix}, which does not exist"
        )


def _check_dependencies_exist(
    tid: str, task: dict[str, Any], known: set[str], kids: list[str], report: Report
) -> list[str]:
    """Report dependencies on missing tasks; return the usable ones for cycle detection."""
    context = task.get("context")
    entries = context.get("depends_on") if isinstance(context, dict) else None
    if not isinstance(entries, list):
        return []
    parents = own_parents(task)
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
            report.error(where, "depends-on", depends_on_child(tid, dep))
        elif dep not in usable:
            usable.append(dep)
    return usable


def _check_dependency_cycles(
    tasks: dict[str, dict[str, Any]],
    deps: dict[str, list[str]],
    children: dict[str, list[str]],
    reports: list[Report],
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
    for cycle in find_cycles(sorted(graph, key=task_sort_key), graph, task_sort_key):
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


class _Checked(NamedTuple):
    """One task file after its single-file rules: cached by wfs.index between runs."""

    name: str
    problems: list[Problem]
    skeleton: dict[str, Any] | None  # None: not a JSON object
    readable: bool


def _check_file(layout: Layout, path: Path, name: str) -> _Checked:

    where = layout.relative(path)
    data, problem, warnings = load_file(path, where)
    if problem:
        return _Checked(name, [problem], None, False)
    report = Report(where, data)
    check_task(TaskSource(where, data, name[: -len(".json")], layout.root), report)
    report.found.extend(warnings)
    problems = report.problems()
    errors = sum(1 for p in problems if p.severity == "error")
    return _Checked(
        name, problems, skeleton(data, errors) if isinstance(data, dict) else None, True
    )


def _rules_stamp(folder: Path) -> tuple[Any, ...]:
    """Cached results are only as good as the rules that produced them: this module, the
    rules of one file, the reader of formats, the schemas and what runs them; and they
    name the files where the session's `folder` is (`migrate --layout`, `session
    complete` and `switch` move it, its files' stamps unchanged)."""
    modules = (rules, formats, task_shapes, schemas)
    sources = [Path(__file__), *(Path(str(module.__file__)) for module in modules)]
    sources += sorted(Path(str(resource_dir("schemas"))).glob("*.schema.json"))
    stamps = []
    for source in sources:
        st = source.stat()
        stamps += [st.st_mtime_ns, st.st_size]
    return (__version__, index.FORMAT, *stamps, str(folder))


def _checked_files(
    layout: Layout,
    key: str,
    folder: Path,
    entries: list[Any],
    stamps: list[Any],
    trusted: list[Any],
) -> list[_Checked]:
    """Every task file of the session checked alone, re-checking only changed files
    (`entries` of the .task folder, with their stamps, and those stamps when trusted)."""

    path = index.cache_path(str(layout.workflow), key, "valid")
    cached = index.load_cache(path)
    rules_stamp = _rules_stamp(folder)
    known: dict[str, tuple[Any, Any]] = {}
    if cached is not None and len(cached) != 5:
        cached = None  # not what this writes: ignored, and written again
    if cached is not None and cached[1] == rules_stamp:
        try:
            known = dict(zip(cached[2], zip(cached[3], cached[4], strict=True), strict=True))
        except (TypeError, ValueError):
            cached = None  # not the lists this writes: ignored, and written again
    checked: list[_Checked] = []
    for entry, stamp in zip(entries, stamps, strict=True):
        hit = known.get(entry.name)
        found = _cached_check(entry.name, hit[1]) if hit is not None and hit[0] == stamp else None
        checked.append(found or _check_file(layout, Path(entry.path), entry.name))
    names = [c.name for c in checked]
    if cached is None or cached[1] != rules_stamp or cached[2] != names or cached[3] != trusted:
        results = [([tuple(p) for p in c.problems], c.skeleton, c.readable) for c in checked]
        payload = marshal.dumps((index.FORMAT, rules_stamp, names, trusted, results))
        index.write_cache(path, index.seal(payload))
    return checked


def _cached_check(name: str, saved: Any) -> _Checked | None:
    """A file's check as the cache saved it (problems, skeleton, readable); None when it
    is not that shape, or when the task names a path from another machine (judged
    against the project's files as they are now: checked again every time)."""
    try:
        problems, skel, readable = saved
        if skel is not None and (not isinstance(skel, dict) or skel.get("volatile")):
            return None
        return _Checked(name, _cached_problems(problems), skel, readable)
    except (TypeError, ValueError):
        return None


def _cached_problems(saved: Any) -> list[Problem]:
    """Problems as a cache saved them; TypeError or ValueError when they are not."""
    problems = [Problem(*p) for p in saved]
    if not all(isinstance(field, str) for p in problems for field in p):
        raise TypeError("not a problem")
    return problems


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

    task_dir = str(folder / ".task")
    path = index.cache_path(str(layout.workflow), key, "vall")
    rules_stamp = _rules_stamp(folder)
    cached = index.load_cache(path)
    if cached is not None and len(cached) == 6 and cached[:2] == (index.FORMAT, rules_stamp):
        try:
            if index.stamps_match(task_dir, *cached[2:5]):
                return _cached_problems(cached[5])
        except (OSError, TypeError, ValueError):
            pass  # changed, gone, or not what this writes: checked again
    stamper = index.Stamper()
    try:  # before the listing: a file added while it runs is seen next time
        dir_stamp = stamper.trusted(stamper.take(os.stat(task_dir)))
    except OSError:
        dir_stamp = None
    entries = list(task_entries(layout, sid, folder))
    stamps = [stamper.take(entry.stat()) for entry in entries]
    trusted = [stamper.trusted(stamp) for stamp in stamps]
    checked = _checked_files(layout, key, folder, entries, stamps, trusted)
    problems = _task_problems_now(layout, folder, checked)
    volatile = any(c.skeleton and c.skeleton.get("volatile") for c in checked)
    if dir_stamp is not None and None not in trusted and not volatile:
        names = [e.name for e in entries]
        payload = marshal.dumps(
            (index.FORMAT, rules_stamp, dir_stamp, names, stamps, [tuple(p) for p in problems])
        )
        index.write_cache(path, index.seal(payload))
    return problems


def _task_problems_now(layout: Layout, folder: Path, checked: list[_Checked]) -> list[Problem]:
    problems: list[Problem] = []
    task_dir = folder / ".task"
    readable = [c for c in checked if c.readable]
    unreadable = {
        file_task_id(c.name[: -len(".json")]): index.unreadable_skeleton(
            c.name[: -len(".json")], ""
        )
        for c in checked
        if not c.readable and parse_task_id(file_task_id(c.name[: -len(".json")]))
    }
    shown = layout.relative(task_dir)
    sources = [
        TaskSource(f"{shown}/{c.name}", c.skeleton, c.name[: -len(".json")]) for c in readable
    ]
    reports = [Report(source.where, source.data) for source in sources]
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
            data, _, warnings = load_file(path, where)
            report = Report(where, data)
            check_task(
                TaskSource(where, report.data, item.name[: -len(".json")], layout.root), report
            )
            report.found.extend(warnings + found)
            problems.extend(report.problems())
    return problems


def _checked_session(layout: Layout, sid: str, folder: Path, key: str) -> list[Problem]:
    """The problems of the session file, cached per file stamp like those of the task
    files: a plan that did not change is validated without running a schema again."""

    path = folder / SESSION_FILE
    where = layout.relative(path)
    cache = index.cache_path(str(layout.workflow), key, "svalid")
    rules_stamp = (*_rules_stamp(folder), where, sid)
    stamper = index.Stamper()
    try:
        stamp: index.Stamp | None = stamper.take(path.stat())
    except OSError:
        stamp = None
    cached = index.load_cache(cache)
    if stamp is not None and cached is not None and len(cached) == 4:
        if cached[1] == rules_stamp and cached[2] == stamp:
            with contextlib.suppress(TypeError, ValueError):  # else: not what this writes
                return _cached_problems(cached[3])
    data, problem, warnings = load_file(path, where)
    problems = [problem] if problem else validate_session_data(data, where, folder=sid)
    problems += [
        Problem(where_of(where, w.pointer), w.rule, w.message, w.severity) for w in warnings
    ]
    trusted = stamper.trusted(stamp)
    if trusted is not None:
        payload = marshal.dumps((index.FORMAT, rules_stamp, trusted, [tuple(p) for p in problems]))
        index.write_cache(cache, index.seal(payload))
    return problems


def validate_project(layout: Layout, sids: list[str] | None = None) -> list[Problem]:
    """`validate --all`: the folders of the project that are not one session each, then
    every copy of every session (`sids`: only these)."""

    problems = [Problem(*found) for found in layout_problems(layout)] if sids is None else []
    for folder in session_folders(layout):
        if (sids is None or folder.name in sids) and _is_session_folder(folder.name):
            problems.extend(validate_session(layout, folder.name, folder.path))
    return problems


def _is_session_folder(name: str) -> bool:
    if is_placeholder_name(name):
        return False
    try:
        check_session_id(name)
    except WfsError:
        return False
    return True
