"""Every change to a session's tasks goes through `editing()`.

Under the session lock it loads the session, lets the caller change tasks, validates the
result, and only then writes the changed task files (atomically), the session file
(complexity, progress, phase) and the views. A change that would add a validation error
writes nothing.
"""

from __future__ import annotations

import bisect
import contextlib
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from wfs import delta, jsonedit, jsonio, lifecycle, render, schemas, sessions, store
from wfs.errors import ProblemsError, WfsError
from wfs.formats import canonical, parent_task
from wfs.index import (
    Snapshot,
    Stamper,
    compute_answers,
    named_by_file,
    note_written,
    unreadable_skeleton,
)
from wfs.layout import (
    SESSION_FILE,
    Layout,
    file_task_id,
    parent_of,
    parse_task_id,
    task_sort_key,
)
from wfs.rules import TaskSource, localized
from wfs.schemas import LEAF_STATUSES
from wfs.sessions import canonical_session
from wfs.tasks import (
    Task,
    TaskIndex,
    obj,
    read_document,
    refresh_session,
    skeleton,
    task_entries,
    unknown_task,
    with_id,
)
from wfs.validate import change_problems, task_problems, validate_tasks

TASK_KEY_ORDER = ("id", "title", "status", "meta", "context", "flow_control")
CONTEXT_ARRAYS = ("requirements", "focus_paths", "acceptance", "depends_on")

_PLANNING = (
    r"(?i)\b(plan|planning|design|architecture|research|analy[sz]e|analysis|investigate|spec)\b"
)
_TESTING = r"(?i)\b(test|tests|testing|qa)\b"
_REVIEW = r"(?i)\b(review|audit)\b"


def assign_agent(task: Task) -> str:
    """Seed "Agent Assignment": by task type, then title keywords."""
    meta = obj(task, "meta")
    task_type = meta.get("type", "feature")
    title = str(task.get("title", ""))
    if task_type in ("test-fix", "test"):
        return "@test-fix-agent"
    if task_type == "test-gen":
        return "@code-developer"  # writing tests is implementation work
    if re.search(_REVIEW, title):
        return "@universal-executor"
    if re.search(_TESTING, title):
        return "@test-fix-agent"
    if re.search(_PLANNING, title):
        return "@action-planning-agent"
    return "@code-developer"


def normalize_task(raw: Task, has_children: bool) -> Task:
    """Fill the defaults of a task from a plan document, in canonical key order."""
    task = dict(raw)
    task.setdefault("status", "container" if has_children else "pending")
    meta = task.get("meta")
    if meta is None:
        meta = task["meta"] = {}
    if isinstance(meta, dict):
        meta.setdefault("type", "feature")
        meta.setdefault("agent", assign_agent(task))
    context = task.get("context")
    if context is None:
        context = task["context"] = {}
    if isinstance(context, dict):
        parent = parent_task(task)  # a gate has none (wfs.formats.is_gate)
        if parent:
            context.setdefault("parent", parent)
        for key in CONTEXT_ARRAYS:
            context.setdefault(key, [])
    if task.get("flow_control") is None:
        task["flow_control"] = {"pre_analysis": [], "implementation_approach": []}
    ordered = {key: task[key] for key in TASK_KEY_ORDER if key in task}
    ordered.update((k, v) for k, v in task.items() if k not in ordered)
    return ordered


def parse_plan(raw: bytes, where: str) -> tuple[dict[str, Any], list[Any], str]:
    """(plan metadata, raw task list, JSON pointer of that list) from a plan document
    or a bare task array."""

    data = jsonio.parse(raw, where)
    # The document around the tasks, as schemas/plan.schema.json defines it; the tasks
    # themselves are checked with the task rules once their defaults are filled in.
    around = [
        found
        for found in schemas.problems("plan", data)
        if not (found.pointer[:1] == ("tasks",) and len(found.pointer) > 1)
        and not (isinstance(data, list) and found.pointer)
    ]
    if around:
        raise WfsError(
            "\n".join(
                f"{where}{'#' + jsonio.pointer(f.pointer) if f.pointer else ''}: {f.message}"
                for f in around[:1]
            )
        )
    if isinstance(data, list):
        return {}, data, ""
    meta = {key: data[key] for key in ("overview", "requirements") if data.get(key) is not None}
    return meta, data["tasks"], "/tasks"


def normalize_plan_tasks(
    raw_tasks: list[Any], existing: dict[str, Task], root: Path | None = None
) -> list[Any]:
    """The tasks of a plan with their defaults (`existing`: the session's tasks by id),
    in the canonical form `wfs migrate` writes, so that a plan wfs accepts validates
    clean. `root`: the project, whose paths written from another machine are made its
    own (as `wfs migrate` does)."""
    given = {t.get("id"): t for t in raw_tasks if isinstance(t, dict)}
    tasks = [*given.values(), *(t for tid, t in existing.items() if tid not in given)]
    parents = {parent_task(t) for t in tasks} - {None}
    return [
        canonical_plan_task(t, t.get("id") in parents, root) if isinstance(t, dict) else t
        for t in raw_tasks
    ]


def canonical_plan_task(raw: Task, has_children: bool, root: Path | None = None) -> Task:
    """A task of a plan document with its defaults, in the canonical form (the one
    reader of wfs.formats: steps get step, title, description, modification_points,
    logic_flow, depends_on and output; a top-level depends_on moves to the context...)."""
    task = dict(raw)
    # The reader reads a missing status as pending: a container says so first.
    task.setdefault("status", "container" if has_children else "pending")
    task = canonical(task).task
    if task.get("flow_control") == {}:  # made by the reader: the defaults fill it
        del task["flow_control"]
    if root is not None:
        task = localized(task, root)
    return normalize_task(task, has_children)


def problems_of(items: list[tuple[str, Any, str | None]], root: Path | None) -> list[Any]:
    return list(validate_tasks([TaskSource(w, d, s, root) for w, d, s in items]))


def refuse_problems(problems: list[Any], what: str) -> None:
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        listing = "\n".join(str(p) for p in errors)
        count = f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
        raise ProblemsError(f"{what}: {count}; nothing was written:\n{listing}", errors)


class Draft:
    """The tasks of one session while they are being changed.

    It starts from the `.idx` (wfs/delta.py) when that is current, else from the
    skeletons of the index, and reads a task's whole file only when it is asked for
    (`get`). A change that wfs/delta.py can make by parts is written that way;
    anything else loads every skeleton and is validated and rendered in full.
    """

    def __init__(self, layout: Layout, sid: str) -> None:
        self.layout = layout
        self.sid = sid
        stamper = Stamper()  # started before the stat: see wfs/index.py
        try:
            stamp = stamper.take(os.stat(layout.session_file(sid)))
        except OSError:
            stamp = None
        self._session_stamp = stamper.trusted(stamp)
        self.session, self._session_raw = sessions.load_session_document(layout, sid)
        self.loaded_session = self.session  # as its file holds it (self.session may change)
        self.state = delta.State.load(layout, sid)
        self._skeletons: dict[str, Task] | None = None
        self._before: dict[str, Task] = {}
        self._stamps: dict[bytes, Any] = {}
        self.full: dict[str, Task] = {}
        self.original: dict[str, Task] = {}  # each changed task as its file held it
        self._raw: dict[str, bytes] = {}  # and the file's bytes
        self.new: dict[str, Task] = {}  # the skeletons of the changed tasks
        self.aliased: set[str] = set()  # files that say task_id rather than id
        self.changed: set[str] = set()
        self.session_changed = False
        self.rederive = False  # write the session file and views anew, even with no change
        self._ids: list[str] | None = None
        self._index: TaskIndex | None = None
        self._files: dict[str, str] = {}  # id -> file name, where it is not `<id>.json`

    @property
    def skeletons(self) -> dict[str, Task]:
        """Every task's skeleton, as changed so far (this loads the whole session)."""
        if self._skeletons is None:
            snapshot = Snapshot(self.layout, self.sid)
            disk: dict[str, Task] = {}
            for name, task in zip(snapshot.names, snapshot.skeletons, strict=True):
                tid = str(task.get("id"))
                disk.setdefault(tid, task)
                if name != f"{tid}.json":
                    self._files.setdefault(tid, name)
            trusted = [snapshot.stamper.trusted(s) for s in snapshot.stamps]
            self._stamps = {os.fsencode(n): s for n, s in zip(snapshot.names, trusted, strict=True)}
            self._before = dict(disk)
            disk.update(self.new)
            self._skeletons = disk
        return self._skeletons

    def has(self, tid: str) -> bool:
        if self._skeletons is None and self.state is not None:
            return tid in self.new or self.state.has(tid)
        return tid in self.skeletons

    @property
    def ids(self) -> list[str]:
        if self._ids is None:
            if self._skeletons is None and self.state is not None:
                ids = self.state.ids()  # in id order already
                for tid in sorted(set(self.new) - set(self.state.status), key=task_sort_key):
                    bisect.insort(ids, tid, key=task_sort_key)
                self._ids = ids
            else:
                self._ids = sorted(self.skeletons, key=task_sort_key)
        return self._ids

    def index(self) -> TaskIndex:
        if self._index is None:
            self._index = TaskIndex([self.skeletons[k] for k in self.ids])
        return self._index

    def children(self, tid: str) -> list[str]:
        if self._skeletons is None and self.state is not None:
            return list(self.state.children.get(tid, []))
        return list(self.index().children.get(tid, []))

    def is_container(self, tid: str) -> bool:
        return bool(self.children(tid))

    def ready(self) -> list[str]:
        """The ready tasks, by id, before this change."""
        if self._skeletons is None and self.state is not None:
            return self.state.ready()
        return self.index().ready()

    def unmet(self, tid: str) -> list[str]:
        if self._skeletons is None and self.state is not None:
            return self.state.unmet(tid)
        return self.index().unmet_dependencies(tid)

    def get(self, tid: str) -> Task:
        if not self.has(tid):
            raise unknown_task(tid, self.ids)
        if tid not in self.full:
            path = self.layout.task_file(self.sid, tid)
            if path.name != f"{tid}.json":
                self._files[tid] = path.name
            raw, self._raw[tid] = read_document(self.layout, path)
            written = raw.get("id", raw.get("task_id"))
            if not isinstance(written, str):
                raise WfsError(
                    f'{self.layout.relative(path)}#/id: required: missing required field "id"; '
                    f'add `"id": "{tid}"` to the file first'
                )
            if written != file_task_id(path.name[: -len(".json")]):
                raise WfsError(
                    f'{self.layout.relative(path)}#/id: id-filename: id "{written}" does not '
                    f"match the file name {path.name}; make them the same first"
                )
            self.full[tid], aliased = with_id(raw, tid)
            self.original[tid] = self.full[tid]
            if aliased:
                self.aliased.add(tid)
        return self.full[tid]

    def _written(self, tid: str) -> bytes:
        """A task as its file is written: as the file was laid out, changed only where
        its values changed (wfs/jsonedit.py); a file that says `task_id` keeps saying it."""
        task = self._as_filed(tid, self.full[tid])
        if tid not in self._raw:
            return jsonio.dumps(task)
        return jsonedit.rewrite(self._raw[tid], self._as_filed(tid, self.original[tid]), task)

    def _as_filed(self, tid: str, task: Task) -> Task:
        if tid in self.aliased and task.get("task_id") == tid:
            return {k: v for k, v in task.items() if k != "id"}
        return task

    def session_bytes(self, session: dict[str, Any]) -> bytes:
        """The session file once its data is `session`, laid out as it was."""
        return jsonedit.rewrite(self._session_raw, self.loaded_session, session)

    def ordered(self) -> list[Task]:
        """Every task in full, by id."""
        return [self.get(tid) for tid in self.ids]

    def put(self, task: Task) -> None:
        tid = task["id"]
        if not self.has(tid):
            self._ids = None
        self.full[tid] = task
        # errors counted only when it is pending
        self.new[tid] = skeleton(task, root=self.layout.root)
        if self._skeletons is not None:
            self._skeletons[tid] = self.new[tid]
        self.changed.add(tid)
        self._index = None

    def problems(self, skeletons: dict[str, Task], tasks: dict[str, Task]) -> list[Any]:
        """The errors of `tasks` (a changed task by id, as it is or was) and of the rules
        across the set of `skeletons` (every task, as it is or was)."""
        return change_problems(
            [self._source(tid, data) for tid, data in tasks.items()],
            [
                self._source(tid, skeletons[tid])
                for tid in sorted(skeletons, key=task_sort_key)
                if parse_task_id(tid)
            ],
        )

    def _source(self, tid: str, data: Any) -> Any:
        name = self._files.get(tid, f"{tid}.json")
        return TaskSource(
            f"{self._shown_task_dir}/{name}", data, name[: -len(".json")], self.layout.root
        )

    def _path(self, tid: str) -> Path:
        """The file of a task: the one it was read from, else `<id>.json`."""
        return self._task_dir / self._files.get(tid, f"{tid}.json")

    @functools.cached_property
    def _task_dir(self) -> Path:
        return self.layout.task_dir(self.sid)

    @functools.cached_property
    def _shown_task_dir(self) -> str:
        """The .task folder as messages show it (found once: a check of the whole set
        names 10,000 sources)."""
        return self.layout.relative(self._task_dir)

    def commit(self, check: bool, what: str) -> None:
        """Write the changed tasks, the session file and the views; with `check`, only
        if the change brings no new error. A change that changes nothing writes nothing
        (and leaves the views, authored or not, as they are)."""
        changed = sorted(
            (t for t in self.changed if self.full[t] != self.original.get(t)), key=task_sort_key
        )
        if self.session == self.loaded_session:
            self.session_changed = False
        if not changed and not self.session_changed and not self.rederive:
            return
        if (
            self.state is not None
            and self._skeletons is None
            and not self.session_changed
            and not self.rederive
        ):
            try:
                self._commit_by_parts(changed, check, what)
                return
            except delta.Refused:
                pass
        skeletons = self.skeletons
        if check:
            old = {tid: self.original[tid] for tid in changed if tid in self.original}
            was = {str(p) for p in self.problems(self._before, old)}
            now = self.problems(skeletons, {t: self.full[t] for t in changed if parse_task_id(t)})
            refuse_problems([p for p in now if str(p) not in was], what)
        files = [(self._path(tid), self._written(tid)) for tid in changed]
        index = self.index()
        before = (self.loaded_session, sorted(self._before.values(), key=_by_id))
        session = refresh_session(self.session, index.tally())
        if session != self.session or self.session_changed or self.rederive:
            files.append((self.layout.session_file(self.sid), self.session_bytes(session)))
            self.session = session
        rendered: dict[str, Any] = {}
        folder = self.layout.session_dir(self.sid)
        views = render.view_files(folder, self.session, index.tasks, index, rendered, before)
        store.write_together(files, self.layout.journal(self.sid), views)
        self._record(index, dict(files), rendered)
        self._note_written(files)

    def _commit_by_parts(self, changed: list[str], check: bool, what: str) -> None:
        assert self.state is not None
        if any(self.new[tid].get("volatile") for tid in changed):
            raise delta.Refused("a task names a path from another machine")
        changes = {tid: (self._old_skeleton(tid), self.new[tid]) for tid in changed}
        files = [(self._path(tid), self._written(tid)) for tid in changed]
        update = delta.apply(self.state, changes, self.session, refresh_session)
        if check:
            refuse_problems(self._new_problems(changed), what)
        self.session = delta.write(self.state, update, files, self.session_bytes)
        self._note_written(files)

    def _note_written(self, files: list[tuple[Path, bytes]]) -> None:
        """The skeletons of the task files just written, as the index would derive them
        from the bytes (a file named by its id, with no alias), for the next reader."""
        data = dict(files)
        written = {}
        for tid in self.changed:
            task, path = self.new.get(tid), self._path(tid)
            if (
                task is None
                or path not in data
                or tid in self.aliased
                or path.name != f"{tid}.json"
                or task.get("volatile")
                or named_by_file(tid, task) is not task
            ):
                continue
            written[path.name] = (data[path], task)
        note_written(self.layout, self.sid, written)

    def _old_skeleton(self, tid: str) -> Task | None:
        # What the views showed and the structure it had; its error count plays no part.
        return skeleton(self.original[tid], 0) if tid in self.original else None

    def _new_problems(self, changed: list[str]) -> list[Any]:
        """The errors a change by parts brings: its tasks' own, and, for a task added
        (which nothing refers to yet), the rules across files about that task."""
        assert self.state is not None
        found = []
        for tid in changed:
            if tid in self.original:
                was = {str(p) for p in task_problems(self._source(tid, self.original[tid]))}
                now = task_problems(self._source(tid, self.full[tid]))
                found += [p for p in now if str(p) not in was]
                continue
            new = self.new[tid]
            parent = obj(new, "context").get("parent") or parent_of(tid)
            named = [d for d in [*obj(new, "context").get("depends_on", []), parent] if d]
            stubs = [
                self._source(k, {"id": k, "status": "pending"})
                for k in dict.fromkeys(named)
                if isinstance(k, str) and k != tid and self.state.has(k)
            ]
            where = self._source(tid, new).where
            found += [
                p
                for p in change_problems(
                    [self._source(tid, self.full[tid])], [self._source(tid, new), *stubs]
                )
                if p.where.split("#")[0] == where
            ]
        return found

    def _record(self, index: TaskIndex, files: dict[Any, bytes], rendered: dict[str, Any]) -> None:
        """Save the `.idx` of the session as written, so the next change goes by parts
        (none when a task names a path from another machine: see wfs/index.py)."""
        if any(task.get("volatile") for task in index.tasks):
            return
        answers = compute_answers(self.sid, self.session, index.tasks)
        extra = delta.writer_facts(index)
        extra["views"] = delta.views_mark(rendered["views"], rendered["kept"])
        names = sorted(
            set(self._stamps) | {os.fsencode(self._path(tid).name) for tid in self.changed},
            key=lambda n: task_sort_key(os.fsdecode(n)[: -len(".json")]),
        )
        stamps = delta.Stamps(names, [self._stamps.get(n) for n in names], self._session_stamp, {})
        written = delta.written_names(self.layout, self.sid, list(files.items()))
        delta.save(self.layout, self.sid, answers, extra, stamps, written)


def _by_id(task: Task) -> Any:
    return task_sort_key(str(task.get("id")))


@contextlib.contextmanager
def editing(
    layout: Layout, sid: str, what: str = "the change", check: bool = True
) -> Iterator[Draft]:
    """Change a session's tasks under its lock; commit only if no new problem appears.

    `check=False` is for the engine's status bookkeeping, which cannot break a rule.
    """
    with store.locked(layout.session_lock(sid), sid):
        store.replay(layout.journal(sid))
        draft = Draft(layout, sid)
        yield draft
        draft.commit(check, what)


def _join_pointer(problem: Any) -> Any:
    """`plan.json#/tasks/3` + `#/context/x` -> `plan.json#/tasks/3/context/x`."""
    head, sep, rest = problem.where.rpartition("#")
    if sep and "#" in head:
        return problem._replace(where=head + rest)
    return problem


def new_session_from_plan(
    layout: Layout, topic: str, raw: bytes, where: str, session_type: str | None
) -> tuple[str, int]:
    """Validate the whole plan, then create the session holding it; all or nothing."""
    meta, raw_tasks, pointer = parse_plan(raw, where)
    tasks = normalize_plan_tasks(raw_tasks, {}, layout.root)
    items: list[tuple[str, Any, str | None]] = [
        (f"{where}#{pointer}/{i}", task, None) for i, task in enumerate(tasks)
    ]
    refuse_problems([_join_pointer(p) for p in problems_of(items, layout.root)], where)
    sid = lifecycle.create_session(layout, topic, session_type, plan=meta, tasks=tasks)
    return sid, len(tasks)


def replan(layout: Layout, sid: str, raw: bytes, where: str) -> tuple[int, int]:
    """Add or replace the plan's tasks in a session, keeping existing tasks' status.

    Returns (added, replaced)."""
    meta, raw_tasks, _ = parse_plan(raw, where)
    added = replaced = 0
    with editing(layout, sid, where) as draft:
        for task in normalize_plan_tasks(raw_tasks, draft.skeletons, layout.root):
            if not isinstance(task, dict) or not isinstance(task.get("id"), str):
                raise WfsError(f"{where}: every task needs a string id")
            old = draft.get(task["id"]) if task["id"] in draft.skeletons else None
            if old is not None:
                replaced += 1
                if "container" not in (task["status"], old.get("status")):
                    task["status"] = old.get("status", task["status"])
                if "execution" in old:
                    task["execution"] = old["execution"]
            else:
                added += 1
            draft.put(task)
        if meta:
            draft.session = {**draft.session, "plan": {**draft.session.get("plan", {}), **meta}}
            draft.session_changed = True
    return added, replaced


def fields_from(source: str) -> dict[str, Any]:
    """The JSON object of task fields in FILE, or stdin for "-" (`--from`)."""
    data = jsonio.parse(*store.read_input(source))
    if not isinstance(data, dict):
        raise WfsError(f"{source}: expected a JSON object with task fields")
    return data


def task_fields(
    data: dict[str, Any] | None,
    title: str | None,
    task_type: str | None,
    agent: str | None,
    depends: tuple[str, ...],
    requirements: tuple[str, ...],
    acceptance: tuple[str, ...],
    focus: tuple[str, ...],
) -> dict[str, Any]:
    """Task fields from the options of `task add` and `task update`, over `data` (the
    JSON object of `--from`)."""
    fields: dict[str, Any] = dict(data or {})
    if title is not None:
        fields["title"] = title
    meta = {k: v for k, v in (("type", task_type), ("agent", agent)) if v is not None}
    if meta:
        fields["meta"] = {**fields.get("meta", {}), **meta}
    context = {
        k: list(v)
        for k, v in (
            ("depends_on", depends),
            ("requirements", requirements),
            ("acceptance", acceptance),
            ("focus_paths", focus),
        )
        if v
    }
    if context:
        fields["context"] = {**fields.get("context", {}), **context}
    return fields


def _next_id(draft: Draft, parent: str | None) -> str:
    if parent is None:
        # In id order the highest number is last, before the ids that are not IMPL-N.
        found = (parse_task_id(tid) for tid in reversed(draft.ids))
        last = next((p for p in found if p is not None), None)
        return f"IMPL-{last.major + 1 if last else 1}"
    minors = [
        p.minor
        for tid, p in ((t, parse_task_id(t)) for t in draft.ids if t.startswith(f"{parent}."))
        if p is not None and p.minor is not None and parent_of(tid) == parent
    ]
    return f"{parent}.{max(minors, default=0) + 1}"


def add_task(layout: Layout, sid: str, fields: Task, parent: str | None = None) -> Task:
    """Add one task; with `parent`, as its next subtask (the parent becomes a container)."""
    with editing(layout, sid) as draft:
        if parent is not None:
            _check_can_have_subtasks(draft, parent)
        tid = fields.get("id") or _next_id(draft, parent)
        if draft.has(tid):
            raise WfsError(f"task {tid} already exists; use `wfs task update {tid}`")
        task = normalize_task({**fields, "id": tid}, has_children=False)
        draft.put(task)
        if parent is not None:
            _make_container(draft, parent)
    return task


def _check_can_have_subtasks(draft: Draft, parent: str) -> None:
    task = draft.get(parent)
    parsed = parse_task_id(parent)
    if parsed is None or parsed.minor is not None:
        raise WfsError(f"{parent} is a subtask; tasks have at most 2 levels (IMPL-N.M)")
    if draft.is_container(parent):
        return
    if task.get("status") in ("active", "completed"):
        raise WfsError(
            f"{parent} is {task.get('status')}; only a pending or blocked task can be split"
        )


def _make_container(draft: Draft, tid: str) -> None:
    task = draft.get(tid)
    if task.get("status") != "container":
        draft.put({**task, "status": "container"})


def split_task(layout: Layout, sid: str, tid: str, raw: bytes, where: str) -> list[Task]:
    """Split a main task into subtasks `IMPL-N.1…`; it becomes their container."""
    _, raw_tasks, _ = parse_plan(raw, where)
    created = []
    seen: dict[str, int] = {}
    with editing(layout, sid, where) as draft:
        _check_can_have_subtasks(draft, tid)
        if draft.index().is_container(tid):
            raise WfsError(f"{tid} is already split into {', '.join(draft.index().children[tid])}")
        parent = draft.get(tid)
        pcontext = obj(parent, "context")
        for number, item in enumerate(raw_tasks, start=1):
            if not isinstance(item, dict):
                raise WfsError(f"{where}#/{number - 1}: expected a task object")
            sub_id = item.get("id") or f"{tid}.{number}"
            if parent_of(sub_id) != tid:
                raise WfsError(f"{where}#/{number - 1}/id: {sub_id!r} is not a subtask of {tid}")
            if sub_id in seen:  # the second would replace the first, silently
                raise WfsError(
                    f"{where}#/{number - 1}/id: {sub_id!r} is given twice (also #/{seen[sub_id]}); "
                    "each subtask needs an id of its own"
                )
            seen[sub_id] = number - 1
            context = dict(item.get("context") or {})
            context.setdefault("parent", tid)
            context.setdefault(
                "inherited",
                {
                    "from": tid,
                    "context": list(pcontext.get("requirements") or []),
                },
            )
            if "shared_context" in pcontext:
                context.setdefault("shared_context", pcontext["shared_context"])
            task = canonical_plan_task(
                {**item, "id": sub_id, "context": context}, False, layout.root
            )
            draft.put(task)
            created.append(task)
        if not created:
            raise WfsError(f"{where}: no subtasks given")
        _make_container(draft, tid)
    return created


def update_task(layout: Layout, sid: str, tid: str, changes: Task) -> Task:
    """Merge `changes` into a task: top-level fields replace, `meta`/`context` merge."""
    with editing(layout, sid) as draft:
        task = dict(draft.get(tid))
        for key, value in changes.items():
            if key in ("id", "status"):
                raise WfsError(
                    f"cannot change {key!r} with `task update`"
                    + ("; use `wfs task status`" if key == "status" else "")
                )
            if (
                key in ("meta", "context")
                and isinstance(value, dict)
                and isinstance(task.get(key), dict)
            ):
                task[key] = {**task[key], **value}
            else:
                task[key] = value
        draft.put(task)
    return task


def set_status(layout: Layout, sid: str, tid: str, status: str) -> Task:
    """Set a leaf's status; a container's status is derived and cannot be set."""
    if status not in LEAF_STATUSES:
        raise WfsError(f"invalid status {status!r}: expected one of {', '.join(LEAF_STATUSES)}")
    # A leaf's status change cannot break a validation rule, so the full check is skipped.
    with editing(layout, sid, check=False) as draft:
        task = draft.get(tid)
        refuse_container(draft, tid, f"set its status to {status}")
        if task.get("status") != status:
            draft.put({**task, "status": status})
    return draft.full[tid]


def refuse_container(draft: Draft, tid: str, action: str) -> None:
    kids = draft.children(tid)
    if kids:
        raise WfsError(
            f"{tid} is a container; cannot {action}: its status is derived "
            f"from its subtasks {', '.join(sorted(kids, key=task_sort_key))}"
        )


def migrate(layout: Layout, sid: str, folder: Any = None) -> list[str]:
    """Write every task file of the session in the canonical seed form, and complete the
    session file with what the seed asks of it (wfs/formats.py; nothing is lost: every
    field wfs does not know stays). `folder`: one copy of the session, when it is in
    several places (default: the one wfs works on). Returns what changed: task file
    names without `.json`, then SESSION_FILE. A file that is not a JSON object is left
    for the person who can repair it (`wfs validate` names it)."""
    folder = Path(folder) if folder is not None else layout.session_dir(sid)
    with store.locked(layout.session_lock(sid), sid):
        store.replay(layout.journal(sid))
        files: list[tuple[Path, bytes]] = []
        changed: list[str] = []
        seeds: list[Task] = []
        for entry in task_entries(layout, sid, folder):
            raw = _read_bytes(entry.path)  # a file wfs refuses to read stops the migration
            try:
                data = jsonio.parse(raw, entry.name)
            except WfsError as err:
                data = err.message
            if not isinstance(data, dict):  # counted as it is counted everywhere: unreadable
                seeds.append(unreadable_skeleton(entry.name[: -len(".json")], str(data)))
                continue
            new = localized(canonical(data).task, layout.root)
            seeds.append(skeleton(new, 0))
            if new != data or jsonio.duplicate_keys(raw):  # written back, each key once
                files.append((Path(entry.path), jsonio.dumps(new)))
                changed.append(entry.name[: -len(".json")])
        session_path = folder / SESSION_FILE
        try:
            raw = _read_bytes(session_path)
            session = jsonio.parse(raw, layout.relative(session_path))
        except (WfsError, OSError):
            session = None  # missing or broken: `wfs doctor --fix` writes one
        if isinstance(session, dict):
            completed = canonical_session(layout, sid, session, TaskIndex(seeds), folder)
            if completed != session or jsonio.duplicate_keys(raw):
                files.append((session_path, jsonio.dumps(completed)))
                changed.append(SESSION_FILE)
        if files:
            views = render.view_files(folder, completed, seeds) if isinstance(session, dict) else []
            store.write_together(files, layout.journal(sid), views)
        return changed


def _read_bytes(path: Any) -> bytes:
    return store.read_file(path)
