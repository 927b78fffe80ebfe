"""Writes that cost what they change.

A change to a few tasks (a status set by hand or by the engine, a task added at the end,
fields updated) does not load the whole session: it starts from the `.idx` answers
(wfs/index.py), when every stamp in it still matches, and from the views as they were
last written, when their CRC still matches. It derives the new answers for the tasks
the change reaches (the changed tasks, their parents, and the tasks that wait for a
task whose status changed) and replaces only the parts of the views that show them
(the macros of wfs/templates/views.md.j2 render every part, for a full render and
here alike).

Anything else goes the full way (wfs/edit.py): a change of ids, parents or
dependencies, a task inserted in the middle, a task becoming a container, a session
whose ids or parents are irregular, a stale index, or a view that is not exactly what
wfs last wrote. The result is the same bytes either way; tests compare the two after
random sequences of edits.
"""

from __future__ import annotations

import bisect
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from wfs import render, store
from wfs.index import (
    RECHECK_MAX,
    WRITERS,
    Stamper,
    compute_summary,
    current,
    save_answers,
    stamp_of,
    stopped_entry,
    stuck_tasks,
)
from wfs.layout import Layout, parent_of, parse_task_id, task_sort_key
from wfs.schemas import TASK_STATUSES
from wfs.tasks import (
    Tally,
    Task,
    depends_on,
    obj,
    parent_id,
    read_object,
    row_of,
    session_facts,
    skeleton,
)

# ------------------------------------------------------------ what a writer keeps


def writer_facts(index: Any) -> dict[str, Any]:
    """The writers' part of the `.idx`, derived from a whole TaskIndex."""
    wants: dict[str, list[str]] = {}
    dependents: dict[str, list[str]] = {}
    regular = True
    for tid, task in index.by_id.items():
        wanted = list(depends_on(task))
        parent = parent_id(task)
        if parse_task_id(tid) is None or parent != parent_of(tid) or task.get("unreadable"):
            regular = False
        if parent in index.by_id:
            wanted += depends_on(index.by_id[parent])
        if wanted:
            wants[tid] = wanted
            for dep in set(wanted):
                dependents.setdefault(dep, []).append(tid)
    eligible = [
        tid
        for tid in index.by_id
        if not index.is_container(tid)
        and index.by_id[tid].get("status") == "pending"
        and not index.by_id[tid].get("errors")
    ]
    return {
        "wants": wants,
        "dependents": dependents,
        "eligible": eligible,
        "regular": regular and len(index.by_id) == len(index.tasks),
    }


def views_mark(views: dict[str, bytes], kept: dict[str, list[str]]) -> dict[str, Any]:
    """What says the views on disk are the render of the state they are saved with."""
    return {"crc": {name: zlib.crc32(data) for name, data in views.items()}, "kept": kept}


# ------------------------------------------------------------------ the state


class Stamps(NamedTuple):
    """The stamps a `.idx` was saved with (see wfs/index.py)."""

    names: list[bytes]  # the task files, in id order
    stamps: list[Any]  # theirs, None when not trusted
    session: Any  # the session file's
    # index (-1: the session file) -> CRC-32 of its content; -2 (the folder) -> entries
    recheck: dict[int, int]


class State:
    """The derived state of a session, from a current `.idx`, for one change."""

    def __init__(
        self,
        layout: Layout,
        sid: str,
        answers: dict[str, Any],
        extra: Any,
        stamps: Stamps,
    ) -> None:
        self.layout = layout
        self.stamps = stamps
        self.sid = sid
        self.answers = answers
        self.status: dict[str, str] = answers["status"]
        self.children: dict[str, list[str]] = answers["children"]
        self.extra = extra

    @classmethod
    def load(cls, layout: Layout, sid: str) -> State | None:
        found = current(str(layout.workflow), sid, str(layout.session_dir(sid)), WRITERS)
        if found is None:
            return None
        answers, head, extra = found
        if not isinstance(extra, dict) or not extra.get("regular") or not extra.get("views"):
            return None
        if answers["summary"].get("unreadable") or not answers["status"]:
            return None
        stamps = Stamps(list(head[3]), list(head[4]), head[1], dict(head[6]))
        return cls(layout, sid, answers, extra, stamps)

    # What the commands ask of the tasks before they change them.

    def has(self, tid: str) -> bool:
        return tid in self.status

    def is_container(self, tid: str) -> bool:
        return bool(self.children.get(tid))

    def ready(self) -> list[str]:
        return list(self.answers["summary"]["ready"])

    def unmet(self, tid: str) -> list[str]:
        return list(self.answers["waiting"].get(tid, []))

    def ids(self) -> list[str]:
        return list(self.status)


def tally(status: dict[str, str], children: dict[str, list[str]], counts: dict[str, int]) -> Tally:
    """The Tally of a session from its `counts` by status (containers apart)."""
    active = [t for t, value in status.items() if value == "active" and not children.get(t)]
    leaves = {key: n for key, n in counts.items() if key != "container" and n}
    return Tally(len(status), leaves, sorted(active, key=task_sort_key))


def _recount(
    counts: dict[str, int], status: dict[str, str], before: dict[str, Any], added: list[str]
) -> dict[str, int]:
    """`counts` (by status, containers as "container") after the leaves in `before`
    (id -> old status) moved to their `status`, and the leaves `added` came."""
    counts = dict(counts)
    moves: list[tuple[str | None, str]] = [(old, status[tid]) for tid, old in before.items()]
    moves += [(None, status[tid]) for tid in added]
    for old, new in moves:
        if new not in TASK_STATUSES or (old is not None and old not in TASK_STATUSES):
            raise Refused("a status wfs does not count by parts")
        if old is not None:
            counts[old] -= 1
        counts[new] += 1
    return counts


def _derived(status: dict[str, str], kids: list[str], parent: str) -> str:
    statuses = [status[k] for k in kids if k != parent and k in status]
    if statuses and all(s == "completed" for s in statuses):
        return "completed"
    for value in ("active", "blocked"):
        if value in statuses:
            return value
    return "pending"


def _leaf_status(task: Task) -> str:
    value = task.get("status")
    return value if isinstance(value, str) else "pending"


class Refused(Exception):
    """The change is not one this module updates by parts: do it the full way."""


def _structure(task: Task) -> tuple[Any, ...]:
    context = obj(task, "context")
    return (task.get("id"), context.get("parent"), context.get("depends_on"), task.get("moved"))


class Update(NamedTuple):
    answers: dict[str, Any]
    extra: dict[str, Any]  # the writers' part of the `.idx`
    session: dict[str, Any]
    session_changed: bool
    views: dict[str, bytes]  # both, as they are after the change
    rewritten: list[str]  # the views the change changed
    added: list[str]


def apply(
    state: State,
    changes: dict[str, tuple[Task | None, Task]],
    session: dict[str, Any],
    refresh: Any,
) -> Update:
    """The new answers, session data and views after `changes` (id -> (old
    skeleton or None when added, new skeleton)); raises Refused when it cannot.

    `refresh(session, tally)`: the session fields wfs owns, brought up to date."""
    graph = _graph(state, changes)
    status, children, old_status, added = graph.status, graph.children, graph.old, graph.added
    moved = {t for t in old_status if old_status[t] != status[t]} | set(added)
    eligible, waiting, ready, rows = _readiness(state, changes, graph, moved)
    # The views and the session, by parts.
    summary = state.answers["summary"]
    leaves_moved = {t: old_status[t] for t in moved - set(added) if not children.get(t)}
    counts = _recount(summary["counts"], status, leaves_moved, added)
    new_tally = tally(status, children, counts)
    new_session = refresh(session, new_tally)
    stopped, blocked = _stopped_and_blocked(summary, changes, moved, status, children)
    stuck = stuck_tasks(waiting, status, children, stopped)
    new_summary = compute_summary(
        state.sid, new_session, new_tally, counts, ready, blocked, stopped, stuck
    )
    answers = {
        "summary": new_summary,
        "next": [rows[t] for t in ready[:1]],
        "ready_rows": [rows[t] for t in ready],
        "status": status,
        "children": children,
        "waiting": waiting,
    }
    views, rewritten = _patch_views(
        state, changes, moved, status, children, new_session, new_tally, added
    )
    new_extra = {
        "wants": graph.wants,
        "dependents": graph.dependents,
        "eligible": [t for t in status if t in eligible],
        "regular": True,
    }
    return Update(answers, new_extra, new_session, new_session != session, views, rewritten, added)


class _Graph(NamedTuple):
    """The tasks' statuses and links after a change (apply)."""

    status: dict[str, str]
    children: dict[str, list[str]]
    wants: dict[str, list[str]]
    dependents: dict[str, list[str]]
    old: dict[str, Any]  # the status before, of each task whose status may have moved
    added: list[str]


def _graph(state: State, changes: dict[str, tuple[Task | None, Task]]) -> _Graph:
    """The statuses and links after `changes`: each changed task's status, a task
    appended at the end with its links, and the parents' statuses derived again;
    Refused when the change is not one of those."""
    status = dict(state.status)
    children = {k: list(v) for k, v in state.children.items()}
    wants: dict[str, list[str]] = state.extra["wants"]
    dependents: dict[str, list[str]] = state.extra["dependents"]
    last = next(reversed(state.status))
    added = [tid for tid, (old, _) in changes.items() if old is None]
    if len(added) > 1:
        raise Refused("several tasks added")
    old_status = dict.fromkeys(changes)
    for tid, (old, new) in changes.items():
        was = old.get("status") == "container" if old is not None else False
        if (new.get("status") == "container") != was:
            raise Refused("a task becomes or stops being a container")
        if old is not None:
            if _structure(old) != _structure(new):
                raise Refused("ids, parents or dependencies changed")
            old_status[tid] = status[tid]
            if not children.get(tid):
                status[tid] = _leaf_status(new)
            continue
        parent = parent_of(tid)
        if (
            parse_task_id(tid) is None
            or parent_id(new) != parent
            or task_sort_key(tid) <= task_sort_key(last)
            or dependents.get(tid)
            or children.get(tid)
            or (parent is not None and not children.get(parent))
        ):
            raise Refused("not a task appended at the end")
        status[tid] = _leaf_status(new)
        wanted = list(depends_on(new))
        if parent is not None:
            children[parent].append(tid)
            wanted += depends_on(_skeleton(state, parent))
        if wanted:
            wants = {**wants, tid: wanted}
            dependents = {k: list(v) for k, v in dependents.items()}
            for dep in set(wanted):
                dependents.setdefault(dep, []).append(tid)
    # Parents take their status from their children.
    parents = {parent_id(new) for _, new in changes.values()} - {None}
    for parent in parents:
        if parent in status and children.get(parent):
            old_status.setdefault(parent, status[parent])
            status[parent] = _derived(status, children[parent], parent)
    return _Graph(status, children, wants, dependents, old_status, added)


def _readiness(
    state: State,
    changes: dict[str, tuple[Task | None, Task]],
    graph: _Graph,
    moved: set[str],
) -> tuple[set[str], dict[str, Any], list[str], dict[str, Any]]:
    """(eligible, waiting, ready, ready rows) after the change: the changed tasks and
    whoever waits for a task whose status moved are looked at again."""
    status, children = graph.status, graph.children
    eligible = set(state.extra["eligible"])
    reach = set(changes)
    for tid in moved:
        reach.update(graph.dependents.get(tid, ()))
    waiting = dict(state.answers["waiting"])
    for tid, (_, new) in changes.items():
        if new.get("status") == "pending" and not new.get("errors") and not children.get(tid):
            eligible.add(tid)
        else:
            eligible.discard(tid)
    ready = list(state.answers["summary"]["ready"])
    rows = {row["id"]: row for row in state.answers["ready_rows"]}
    skeletons = {tid: new for tid, (_, new) in changes.items()}
    for tid in sorted(reach, key=task_sort_key):
        unmet = [d for d in graph.wants.get(tid, ()) if status.get(d) != "completed"]
        if unmet:
            waiting[tid] = unmet
        else:
            waiting.pop(tid, None)
        is_ready = tid in eligible and not unmet
        at = bisect.bisect_left(ready, task_sort_key(tid), key=task_sort_key)
        present = at < len(ready) and ready[at] == tid
        if is_ready and (not present or tid in changes):
            task = skeletons.get(tid) or _skeleton(state, tid)
            rows[tid] = row_of(task, status[tid], False)
            if not present:
                ready.insert(at, tid)
        elif not is_ready and present:
            del ready[at]
            rows.pop(tid, None)
    return eligible, waiting, ready, rows


def _stopped_and_blocked(
    summary: dict[str, Any],
    changes: dict[str, tuple[Task | None, Task]],
    moved: set[str],
    status: dict[str, str],
    children: dict[str, list[str]],
) -> tuple[list[dict[str, Any]], list[str]]:
    """The summary's stopped entries and blocked tasks, with the changed ones redone."""
    stopped = [s for s in summary["stopped"] if s["id"] not in changes]
    for tid, (_, new) in changes.items():
        if not children.get(tid):
            entry = stopped_entry(tid, new)
            if entry is not None:
                stopped.append(entry)
    stopped.sort(key=lambda s: task_sort_key(s["id"]))
    blocked = [t for t in summary["blocked"] if t not in moved]
    blocked += [t for t in moved if status[t] == "blocked" and not children.get(t)]
    blocked.sort(key=task_sort_key)
    return stopped, blocked


def _skeleton(state: State, tid: str) -> Task:
    return skeleton(read_object(state.layout, state.layout.task_file(state.sid, tid)), 0)


# ------------------------------------------------------------------ the views


class _Edits:
    """Replacements in the bytes of one view, made together in one pass."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.edits: list[tuple[int, int, bytes]] = []  # (start, end, new bytes)

    def swap(self, old: str, new: str, whole: bool = False) -> None:
        """Replace the one place `old` stands as whole lines (with `whole`, also ending
        at a line's end) by `new`."""
        if old == new:
            return
        was = old.encode("utf-8")
        data, found = self.data, []
        at = data.find(was)
        while at != -1:
            end = at + len(was)
            if (at == 0 or data[at - 1] == 10) and (
                not whole or end == len(data) or data[end] == 10
            ):
                found.append(at)
            at = data.find(was, at + 1)
        if len(found) != 1:
            raise Refused("a part of a view is not where it should be")
        self.edits.append((found[0], found[0] + len(was), new.encode("utf-8")))

    def put(self, start: int, end: int, new: str) -> None:
        self.edits.append((start, end, new.encode("utf-8")))

    def result(self) -> bytes:
        parts, done = [], 0
        for start, end, new in sorted(self.edits, key=lambda e: (e[0], e[1])):
            if start < done:
                raise Refused("two changes to one part of a view")
            parts += [self.data[done:start], new]
            done = end
        parts.append(self.data[done:])
        return b"".join(parts)


# The parts that show one task: (view, macro, whether the part ends where a line ends
# rather than where the next part starts).
_TASK_PARTS = (
    ("TODO_LIST.md", "todo_tasks", False),
    ("IMPL_PLAN.md", "plan_rows", False),
    ("IMPL_PLAN.md", "plan_nodes", False),
    ("IMPL_PLAN.md", "plan_criteria", True),
)


def _entry(tid: str, task: Task, status: dict[str, str], children: dict[str, list[str]]) -> Any:
    parent = parent_id(task)
    nested = parent is not None and parent in status and parent != tid
    return render.entry(
        tid,
        task,
        status[tid],
        bool(children.get(tid)),
        parent if nested else None,
        gap=not nested and tid != next(iter(status)),
    )


def _patch_views(
    state: State,
    changes: dict[str, tuple[Task | None, Task]],
    moved: set[str],
    status: dict[str, str],
    children: dict[str, list[str]],
    new_session: dict[str, Any],
    new_tally: Tally,
    added: list[str],
) -> tuple[dict[str, bytes], list[str]]:
    """Both views after the change, and which of them it changed."""
    folder = state.layout.session_dir(state.sid)
    mark = state.extra["views"]
    if render.kept_views(folder) != mark["kept"]:
        raise Refused("authored views changed")
    texts = {}
    for name in render.VIEWS:
        raw = store.read_cache_file(folder / name)
        if raw is None:
            raise Refused("a view is missing, or no regular file")
        if zlib.crc32(raw) != mark["crc"].get(name):
            raise Refused("a view is not what wfs wrote")
        texts[name] = _Edits(raw)
    todo, plan = texts["TODO_LIST.md"], texts["IMPL_PLAN.md"]
    old_status, old_children = state.status, state.children
    # The tasks shown differently: the changed ones, and the parents whose status moved.
    shown: dict[str, tuple[Task | None, Task]] = dict(changes)
    for tid in moved - set(changes):
        task = _skeleton(state, tid)
        shown[tid] = (task, task)
    for tid in sorted(shown, key=task_sort_key):
        old, new = shown[tid]
        if old is None:
            continue
        before = _entry(tid, old, old_status, old_children)
        after = _entry(tid, new, status, children)
        for view, part, whole in _TASK_PARTS:
            texts[view].swap(render.piece(part, [before]), render.piece(part, [after]), whole)
    for tid in added:
        _append(todo, plan, _entry(tid, changes[tid][1], status, children), status)
    # The parts that show counts: TODO_LIST.md's legend, IMPL_PLAN.md's head. The CRC
    # says the views are what wfs wrote, where no title can hold a line break, so each
    # one's bounds are the first or last line that opens it.
    legend, head = _ends(new_session, new_tally, mark["kept"].get("IMPL_PLAN.md", []))
    marks = render.marks()
    at = todo.data.rfind(marks.legend.encode())
    overview = plan.data.find(marks.overview.encode())
    if at == -1 or overview == -1:
        raise Refused("the views' heads or legends are not what wfs wrote")
    todo.put(at, len(todo.data), legend)
    plan.put(0, overview, head)
    views = {name: texts[name].result() for name in render.VIEWS}
    return views, [name for name in render.VIEWS if views[name] != texts[name].data]


def _ends(session: dict[str, Any], counted: Tally, kept: Any) -> tuple[str, str]:
    """(TODO_LIST.md's legend, IMPL_PLAN.md's head): the parts that show counts."""
    facts = render.view_facts(session, session_facts(session, counted))
    leaves = counted.leaf_counts
    legend = render.piece(
        "todo_tail",
        facts["session_id"],
        False,
        bool(leaves.get("active")),
        bool(leaves.get("blocked")),
    )
    done, total = leaves.get("completed", 0), sum(leaves.values())
    return legend, render.piece("plan_head", facts, done, total, kept)


def _append(todo: _Edits, plan: _Edits, entry: Any, status: dict[str, str]) -> None:
    """A task added after every other, in each part of both views."""
    marks = render.marks()
    legend = todo.data.rfind(marks.legend.encode())
    todo.put(legend, legend, render.piece("todo_tasks", [entry]))
    data = plan.data
    graph = data.rfind(marks.graph.encode())
    criteria = data.rfind(marks.criteria.encode())
    if graph == -1 or criteria < graph:
        raise Refused("the plan has no task table")
    # The graph's node lines and subgraph ends come before its edges, which end in
    # neither; each ends a line.
    ends = [marks.node_end.encode(), b"\n" + marks.subgraph_end.encode()]
    found = [(data.rfind(end, graph, criteria), len(end)) for end in ends]
    if all(at == -1 for at, _ in found):
        raise Refused("the plan's graph has no nodes")
    nodes_end = max(at + length for at, length in found if at != -1)
    if entry.nested:  # inside the last subgraph, before its end
        nodes_end -= len(marks.subgraph_end.encode())
        if not data.startswith(marks.subgraph_end.encode(), nodes_end):
            raise Refused("the subtask's container is not the last in the graph")
    plan.put(nodes_end, nodes_end, render.piece("plan_nodes", [entry]))
    plan.put(criteria, criteria, render.piece("plan_edges", [entry], status))
    plan.put(graph, graph, render.piece("plan_rows", [entry]))
    plan.put(len(data), len(data), render.piece("plan_criteria", [entry]))


# ------------------------------------------------------------------ writing


def write(
    state: State,
    update: Update,
    files: list[tuple[Path, bytes]],
    session_bytes: Callable[[dict[str, Any]], bytes],
) -> dict[str, Any]:
    """Write the changed task files (`files`), the session file (as `session_bytes`
    writes its data) and the views, then the `.idx` that describes them; return the
    session data as written."""
    layout, sid = state.layout, state.sid
    if update.session_changed:
        files = [*files, (layout.session_file(sid), session_bytes(update.session))]
    folder = layout.session_dir(sid)
    views = [(folder / name, update.views[name]) for name in update.rewritten]
    store.write_together(files, layout.journal(sid), views)
    extra = {**update.extra, "views": views_mark(update.views, state.extra["views"]["kept"])}
    old = state.stamps
    added = [os.fsencode(f"{tid}.json") for tid in update.added]
    stamps = old._replace(names=old.names + added, stamps=old.stamps + [None] * len(added))
    save(layout, sid, update.answers, extra, stamps, written_names(layout, sid, files))
    return update.session


def save(
    layout: Layout,
    sid: str,
    answers: dict[str, Any],
    extra: dict[str, Any],
    stamps: Stamps,
    written: dict[bytes, bytes],
) -> None:
    """Save the `.idx` after a write. `stamps`: those of the files before the write
    (None for a file not trusted, or new). The files just written (`written`: name, or
    b"" for the session file -> bytes) are stamped now and checked by content until
    their stamps can be trusted. Nothing is saved when a stamp is missing: the next
    reader derives the answers again."""
    try:
        _save(layout, sid, answers, extra, stamps, written)
    except OSError:
        pass  # a cache only (no .task folder yet, a read-only checkout): slower, not wrong


def _save(
    layout: Layout,
    sid: str,
    answers: dict[str, Any],
    extra: dict[str, Any],
    stamps: Stamps,
    written: dict[bytes, bytes],
) -> None:
    task_dir = layout.task_dir(sid)
    stamper = Stamper()
    task_stamps = list(stamps.stamps)
    session_stamp = stamps.session
    recheck = {i: crc for i, crc in stamps.recheck.items() if i != -2}
    position = {name: i for i, name in enumerate(stamps.names) if name in written}
    for name, data in written.items():
        if name == b"":
            i, path = -1, layout.session_file(sid)
        else:
            i, path = position[name], task_dir / os.fsdecode(name)
        stamp = stamper.take(os.stat(path))
        recheck[i] = zlib.crc32(data)
        if i == -1:
            session_stamp = stamp
        else:
            task_stamps[i] = stamp
    dir_stamp = stamper.take(os.stat(task_dir))
    if stamper.trusted(dir_stamp) is None:
        # Checked by its number of entries (every task file listed is stat-ed anyway).
        recheck[-2] = len(os.listdir(task_dir))
        if stamp_of(os.stat(task_dir)) != dir_stamp:
            return  # changed while it was counted
    for i in [i for i in recheck if i != -2]:
        stamp = session_stamp if i == -1 else task_stamps[i]
        if stamper.trusted(stamp) is not None:
            del recheck[i]  # old enough now, and its content was checked
    if session_stamp is None or None in task_stamps or len(recheck) > RECHECK_MAX:
        return
    save_answers(
        str(layout.workflow),
        sid,
        (session_stamp, dir_stamp, stamps.names, task_stamps, sorted(recheck.items())),
        answers,
        extra,
    )


def written_names(layout: Layout, sid: str, files: list[tuple[Path, bytes]]) -> dict[bytes, bytes]:
    """The files of a write by the names `save` knows them by."""
    session_file = layout.session_file(sid)
    return {b"" if path == session_file else os.fsencode(path.name): data for path, data in files}
