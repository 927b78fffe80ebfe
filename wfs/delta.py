"""Writes that cost what they change.

A change to a few tasks (a status set by hand or by the engine, a task added at the end,
fields updated) does not load the whole session: it starts from the `.idx` answers
(wfs/index.py), when every stamp in it still matches, and from the views as they were
last written, when their CRC still matches. It derives the new answers for the tasks
the change reaches (the changed tasks, their parents, and the tasks that wait for a
task whose status changed) and replaces only the parts of the views that show them
(wfs/render.py builds every part, for a full render and here alike).

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
from pathlib import Path
from typing import Any, NamedTuple

from wfs import render, store
from wfs.layout import Layout, parent_of, parse_task_id, task_sort_key
from wfs.tasks import Tally, Task, depends_on, obj, parent_id, row_of

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
        from wfs import index

        found = index._current(str(layout.workflow), sid, str(layout.session_dir(sid)), parts=3)
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


def tally(status: dict[str, str], children: dict[str, list[str]]) -> Tally:
    counts: dict[str, int] = {}
    active = []
    for tid, value in status.items():
        if tid in children and children[tid]:
            continue
        counts[value] = counts.get(value, 0) + 1
        if value == "active":
            active.append(tid)
    return Tally(len(status), counts, sorted(active, key=task_sort_key))


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
    views: dict[str, bytes]
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
    from wfs.index import compute_summary, stopped_entry

    status = dict(state.status)
    children = {k: list(v) for k, v in state.children.items()}
    extra = state.extra
    wants: dict[str, list[str]] = extra["wants"]
    dependents: dict[str, list[str]] = extra["dependents"]
    eligible = set(extra["eligible"])
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
    moved = {t for t in old_status if old_status[t] != status[t]} | set(added)
    # Readiness: the changed tasks and whoever waits for a task whose status moved.
    reach = set(changes)
    for tid in moved:
        reach.update(dependents.get(tid, ()))
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
        unmet = [d for d in wants.get(tid, ()) if status.get(d) != "completed"]
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
    # The views and the session, by parts.
    new_tally = tally(status, children)
    new_session = refresh(session, new_tally)
    summary = state.answers["summary"]
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
    new_summary = compute_summary(
        state.sid, new_session, new_tally, _counts(status, children), ready, blocked, stopped
    )
    answers = {
        "summary": new_summary,
        "next": [rows[t] for t in ready[:1]],
        "ready_rows": [rows[t] for t in ready],
        "status": status,
        "children": children,
        "waiting": waiting,
    }
    views = _patch_views(state, changes, moved, status, children, session, new_session, added)
    new_extra = {
        "wants": wants,
        "dependents": dependents,
        "eligible": [t for t in status if t in eligible],
        "regular": True,
    }
    return Update(answers, new_extra, new_session, new_session != session, views, added)


def _counts(status: dict[str, str], children: dict[str, list[str]]) -> dict[str, int]:
    from wfs.tasks import TASK_STATUSES

    counts = dict.fromkeys(TASK_STATUSES, 0)
    for tid, value in status.items():
        key = "container" if children.get(tid) else value
        counts[key] = counts.get(key, 0) + 1
    return counts


def _skeleton(state: State, tid: str) -> Task:
    from wfs.tasks import read_object, skeleton

    return skeleton(read_object(state.layout, state.layout.task_file(state.sid, tid)), 0)


# ------------------------------------------------------------------ the views


def _swap(text: str, old: str, new: str, whole: bool = False) -> str:
    """`text` with the one place `old` stands as whole lines replaced by `new`."""
    if old == new:
        return text
    found = []
    at = text.find(old)
    while at != -1:
        starts = at == 0 or text[at - 1] == "\n"
        end = at + len(old)
        if starts and (not whole or end == len(text) or text[end] == "\n"):
            found.append(at)
        at = text.find(old, at + 1)
    if len(found) != 1:
        raise Refused("a part of a view is not where it should be")
    return text[: found[0]] + new + text[found[0] + len(old) :]


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
    session: dict[str, Any],
    new_session: dict[str, Any],
    added: list[str],
) -> dict[str, bytes]:
    folder = state.layout.session_dir(state.sid)
    mark = state.extra["views"]
    if render.kept_views(folder) != mark["kept"]:
        raise Refused("authored views changed")
    texts = {}
    for name in render.VIEWS:
        try:
            raw = (folder / name).read_bytes()
        except OSError:
            raise Refused("a view is missing") from None
        if zlib.crc32(raw) != mark["crc"].get(name):
            raise Refused("a view is not what wfs wrote")
        texts[name] = raw.decode("utf-8")
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
        todo = _swap(todo, render.todo_piece(before), render.todo_piece(after))
        plan = _swap(plan, render.plan_row(before), render.plan_row(after))
        plan = _swap(plan, render.plan_node_line(before), render.plan_node_line(after))
        plan = _swap(plan, render.plan_criteria(before), render.plan_criteria(after), True)
    for tid in added:
        todo, plan = _append(todo, plan, _entry(tid, changes[tid][1], status, children), status)
    kept = mark["kept"].get("IMPL_PLAN.md", [])
    before, after = (
        _ends(session, old_status, old_children, kept),
        _ends(new_session, status, children, kept),
    )
    if not (todo.endswith(before[0]) and plan.startswith(before[1])):
        raise Refused("the views' heads or legends are not what wfs wrote")
    todo = todo[: len(todo) - len(before[0])] + after[0]
    plan = after[1] + plan[len(before[1]) :]
    return {"TODO_LIST.md": todo.encode("utf-8"), "IMPL_PLAN.md": plan.encode("utf-8")}


def _ends(
    session: dict[str, Any], status: dict[str, str], children: dict[str, list[str]], kept: Any
) -> tuple[str, str]:
    """(TODO_LIST.md's legend, IMPL_PLAN.md's head): the parts that show counts."""
    from wfs.tasks import session_facts

    counted = tally(status, children)
    facts = render.view_facts(session, session_facts(session, counted))
    leaves = counted.leaf_counts
    legend = render.todo_tail(
        facts["session_id"], False, bool(leaves.get("active")), bool(leaves.get("blocked"))
    )
    done, total = leaves.get("completed", 0), sum(leaves.values())
    return legend, render.plan_head(facts, done, total, kept)


def _append(todo: str, plan: str, entry: Any, status: dict[str, str]) -> tuple[str, str]:
    """A task added after every other, in each part of both views."""
    legend = todo.rfind(render.TODO_LEGEND)
    todo = todo[:legend] + render.todo_piece(entry) + todo[legend:]
    graph = plan.rfind(render.PLAN_GRAPH)
    criteria = plan.rfind(render.PLAN_CRITERIA)
    if graph == -1 or criteria < graph:
        raise Refused("the plan has no task table")
    lines = plan[graph + len(render.PLAN_GRAPH) : criteria].splitlines(keepends=True)
    edges = len(lines)
    while edges and _is_edge(lines[edges - 1]):
        edges -= 1
    if entry.nested:
        if not edges or lines[edges - 1] != "  end\n":
            raise Refused("the subtask's container is not the last in the graph")
        lines.insert(edges - 1, render.plan_node_line(entry))
    else:
        lines.insert(edges, render.plan_node(entry))
    lines.append(render.plan_edges(entry, status))
    plan = (
        plan[:graph]
        + render.plan_row(entry)
        + render.PLAN_GRAPH
        + "".join(lines)
        + plan[criteria:]
        + render.plan_criteria(entry)
    )
    return todo, plan


def _is_edge(line: str) -> bool:
    left, arrow, right = line.strip().partition(" --> ")
    return bool(arrow) and line.startswith("  ") and (left + right).replace("_", "").isalnum()


# ------------------------------------------------------------------ writing


def write(state: State, update: Update, files: list[tuple[Path, bytes]]) -> dict[str, Any]:
    """Write the changed task files (`files`), the session file and the views, then the
    `.idx` that describes them; return the session data as written."""
    layout, sid = state.layout, state.sid
    if update.session_changed:
        files = [*files, (layout.session_file(sid), store.dumps(update.session))]
    store.write_together(files, layout.journal(sid))
    folder = layout.session_dir(sid)
    for name, data in update.views.items():
        store.write_if_changed(folder / name, data)
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
    from wfs import index

    task_dir = layout.task_dir(sid)
    stamper = index._Stamper()
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
        if _stamp_now(task_dir) != dir_stamp:
            return  # changed while it was counted
    for i in [i for i in recheck if i != -2]:
        stamp = session_stamp if i == -1 else task_stamps[i]
        if stamper.trusted(stamp) is not None:
            del recheck[i]  # old enough now, and its content was checked
    if session_stamp is None or None in task_stamps or len(recheck) > index.RECHECK_MAX:
        return
    index.save_answers(
        str(layout.workflow),
        sid,
        (session_stamp, dir_stamp, stamps.names, task_stamps, sorted(recheck.items())),
        answers,
        extra,
    )


def _stamp_now(path: Path) -> Any:
    from wfs.index import _stamp

    return _stamp(os.stat(path))


def written_names(layout: Layout, sid: str, files: list[tuple[Path, bytes]]) -> dict[bytes, bytes]:
    """The files of a write by the names `save` knows them by."""
    session_file = layout.session_file(sid)
    return {b"" if path == session_file else os.fsencode(path.name): data for path, data in files}
