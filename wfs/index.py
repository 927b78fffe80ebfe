"""The derived task index in `.workflow/.cache/`: fast reads without a second truth.

Two files per session, written with marshal (the interpreter's own format, read fast):

- `<sid>.skel`: every task's skeleton (id, title, status, parent, dependencies, agent,
  acceptance). Commands that need all tasks re-read only the files whose stamp changed
  (and the few that name paths from another machine, whose meaning depends on the
  project's files: wfs.layout.project_path). A task file wfs has just written comes
  with the skeleton its writer made, checked by the CRC-32 of the bytes written until
  its stamp can be trusted (`note_written`): the next command does not derive it again.
- `<sid>.idx`: the answers of `status`, `next` and `task show` (counts, readiness,
  derived statuses), with the stamps they were derived from. When every stamp still
  matches, those commands read nothing else. A session with a task that names a path
  from another machine has none: its answers are derived each time.

A stamp is (mtime_ns, size, inode) of a task file, of the `.task` folder (adding,
removing or renaming a file changes its mtime) and of the session file. Each is taken
before its file is read, so a later change always shows. A stamp is trusted only when
its mtime is older than the stat by more than the file system's timestamp
granularity, so an edit in the same clock tick is never missed: an untrusted one is
stored as None (the answers are derived again next time), or, for the few files wfs
has just written itself, kept with the CRC-32 of the bytes written, and those files
are read again and compared (`recheck`). The task files stay the only source of
truth: deleting the cache changes nothing but speed, and a damaged cache is ignored.

The `.idx` also carries what a write needs to update the answers and the views by
the tasks it changes (wfs/delta.py), in a third part that readers never load.
"""

from __future__ import annotations

import marshal
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

from wfs import store
from wfs.errors import WfsError
from wfs.layout import SESSION_FILE, TASK_DIR, Layout, file_task_id, task_sort_key
from wfs.sessions import load_session
from wfs.tasks import (
    Task,
    TaskIndex,
    obj,
    read_object,
    session_facts,
    session_topic,
    skeleton,
    task_entries,
    task_row,
)

# marshal's format belongs to the interpreter that wrote it; the number changes with what
# the cache holds (10: gates marked in unreadable skeletons, and the topic from any field
# that holds it, TOPIC_FIELDS; 11: `stuck` and `stalled` in the summary; 16: the
# CRC-32 of a file just written in place of its `.skel` stamp).
FORMAT = ("wfs-index", 16, sys.hexversion)

Stamp = tuple[int, int, int, int]

# How much older than the stat an mtime must be to be trusted: file systems with
# nanosecond timestamps still tick with a coarse kernel clock (a few ms); others
# (FAT, some network file systems) keep whole seconds or worse.
FINE_MARGIN_NS = 50_000_000
COARSE_MARGIN_NS = 2_000_000_000

# The answers are kept in parts, each loaded only by the commands that need it: what
# `status` and `next` print; the per-task maps of `task show`; every ready row, for
# `next --all`. (A fourth part is the writers', wfs/delta.py.)
HEAD, MAPS, ROWS, WRITERS = 1, 2, 3, 4
PART_KEYS = {MAPS: ("status", "children", "waiting"), ROWS: ("ready_rows",)}
HEAD_KEYS = ("summary", "next")


def stamp_of(st: os.stat_result) -> Stamp:
    """What tells that a file changed: its mtime, size and inode, and its ctime, which a
    tool that puts the mtime back after an edit in place (`cp -p`, `rsync -t`,
    `touch -r`) cannot set (git keeps it in its index for the same reason)."""
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def seal(payload: bytes) -> bytes:
    """`payload` behind its CRC-32: a damaged cache file is detected, then ignored."""
    return zlib.crc32(payload).to_bytes(4, "little") + payload


def _unsealed(raw: bytes | memoryview) -> memoryview | None:
    view = memoryview(raw)
    if len(view) < 4 or int.from_bytes(view[:4], "little") != zlib.crc32(view[4:]):
        return None
    return view[4:]


def load_cache(path: str) -> tuple[Any, ...] | None:
    """The tuple a cache file holds, when it is whole and of this FORMAT. Its parts are
    the caller's to check: a file sealed with the right CRC can still hold anything."""
    try:
        raw = store.read_cache_file(path)
        payload = _unsealed(raw) if raw is not None else None
        data = marshal.loads(payload) if payload is not None else None
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if isinstance(data, tuple) and data and data[0] == FORMAT else None


def cache_path(workflow: str, sid: str, kind: str) -> str:
    return os.path.join(workflow, ".cache", f"{sid}.{kind}")


def cached_answers(
    workflow: str, sid: str, parts: int = ROWS, folder: str | None = None
) -> dict[str, Any] | None:
    """The `.idx` answers when every stamp still matches, else None.

    `parts`: HEAD loads what `status` and `next` print, MAPS adds the per-task maps,
    ROWS every ready row. `folder`: the session's folder (default `.workflow/<sid>`;
    see wfs/layout.py for the other places).
    """
    found = current(workflow, sid, folder, parts)
    return found[0] if found is not None else None


def current(
    workflow: str, sid: str, folder: str | None, parts: int
) -> tuple[dict[str, Any], tuple[Any, ...], Any] | None:
    """(answers, head, the writers' part) of the `.idx` when every stamp still matches,
    with `parts` of it loaded (HEAD, MAPS, ROWS, WRITERS: each includes those before)."""
    try:
        raw = store.read_cache_file(cache_path(workflow, sid, "idx"))
        if raw is None:
            return None
        sections = _sections(raw)
        head_bytes = _unsealed(sections[0])
        if head_bytes is None:
            return None
        head = marshal.loads(head_bytes)
        if not isinstance(head, tuple) or len(head) != 7 or head[0] != FORMAT:
            return None
        _, session_stamp, dir_stamp, names, stamps, answers, recheck = head
        session_dir = folder or os.path.join(workflow, sid)
        session_file = os.path.join(session_dir, SESSION_FILE)
        if stamp_of(os.stat(session_file)) != session_stamp:
            return None
        task_dir = os.path.join(session_dir, TASK_DIR)
        if not stamps_match(task_dir, dir_stamp, names, stamps):
            return None
        for i, crc in recheck:
            if i == -2:  # the folder: as many entries as when it was stamped
                if len(os.listdir(task_dir)) != crc:
                    return None
                continue
            path = session_file if i == -1 else os.path.join(task_dir, os.fsdecode(names[i]))
            content = store.read_cache_file(path)
            if content is None or zlib.crc32(content) != crc:
                return None
        for part in range(MAPS, min(parts, ROWS) + 1):
            payload = _unsealed(sections[part - 1])
            if payload is None:
                return None
            answers.update(marshal.loads(payload))
        if not _answers_shape(answers, min(parts, ROWS)):
            return None
        extra = None
        if parts >= WRITERS:
            extra_bytes = _unsealed(sections[3])
            if extra_bytes is None:
                return None
            extra = marshal.loads(extra_bytes)
    except (OSError, EOFError, ValueError, TypeError, AttributeError, IndexError):
        return None
    return answers, head, extra


def stamps_match(task_dir: str, dir_stamp: Stamp, names: list[Any], stamps: list[Stamp]) -> bool:
    """Whether the .task folder and each of `names` in it still have these stamps (a file
    added, removed or renamed changes the folder's); raises OSError."""
    fd = os.open(task_dir, os.O_RDONLY)
    try:
        if stamp_of(os.fstat(fd)) != dir_stamp:
            return False
        stat = os.stat
        return [
            (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)  # stamp_of, inlined
            for st in [stat(name, dir_fd=fd) for name in names]
        ] == stamps
    finally:
        os.close(fd)


def _sections(raw: bytes) -> list[memoryview]:
    """The parts of an `.idx`: each after its 4-byte length, the writers' part last (it
    may be empty)."""
    view = memoryview(raw)
    found, at = [], 0
    for _ in range(3):
        size = int.from_bytes(view[at : at + 4], "little")
        found.append(view[at + 4 : at + 4 + size])
        at += 4 + size
    found.append(view[at:])
    return found


def _answers_shape(answers: Any, parts: int) -> bool:
    """The cached answers have every key the commands read (a last guard after the CRC:
    an index written by a different wfs is not believed either)."""
    keys = HEAD_KEYS + tuple(k for part, ks in PART_KEYS.items() if part <= parts for k in ks)
    return isinstance(answers, dict) and all(key in answers for key in keys)


# --------------------------------------------------------------------------- building
# Everything below runs only when something changed.


class Stamper:
    """Takes stamps and decides which ones can be trusted."""

    def __init__(self) -> None:
        self.started = time.time_ns()
        self.mtimes: list[int] = []

    def take(self, st: os.stat_result) -> Stamp:
        self.mtimes.append(st.st_mtime_ns)
        return stamp_of(st)

    def trusted(self, stamp: Stamp | None) -> Stamp | None:
        if stamp is None:
            return None
        # Whole-millisecond mtimes everywhere: a coarse file system.
        coarse = all(m % 1_000_000 == 0 for m in self.mtimes)
        margin = COARSE_MARGIN_NS if coarse else FINE_MARGIN_NS
        return stamp if stamp[0] < self.started - margin else None


def write_cache(path: str, payload: bytes) -> None:
    """Write a derived cache file; never with WFS_NO_CACHE set (a shared or read-only
    checkout: every answer is then derived from the files, only slower)."""
    if os.environ.get("WFS_NO_CACHE"):
        return
    target = Path(path)
    store.confine(target.parent.parent.parent)  # the project root: <root>/.workflow/.cache/
    try:
        store.write_bytes(target, payload, durable=False)
    except (OSError, WfsError):
        pass  # a read-only checkout, or a symlinked .cache: it works, only slower


class Snapshot:
    """Every task skeleton of a session with the stamps of the files they came from."""

    def __init__(self, layout: Layout, sid: str) -> None:
        workflow = str(layout.workflow)
        self.stamper = Stamper()
        try:
            self.dir_stamp: Stamp | None = self.stamper.take(os.stat(layout.task_dir(sid)))
        except FileNotFoundError:
            self.dir_stamp = None
        path = cache_path(workflow, sid, "skel")
        cached = load_cache(path)
        known: dict[str, tuple[Any, Task]] = {}
        if cached is not None and len(cached) != 4:
            cached = None  # not what this writes: ignored, and written again
        if cached is not None:
            try:
                known = dict(zip(cached[1], zip(cached[2], cached[3], strict=True), strict=True))
            except (TypeError, ValueError):
                cached = None  # not the lists this writes: ignored, and written again
        self.names: list[str] = []
        self.stamps: list[Stamp | None] = []
        self.skeletons: list[Task] = []
        written: dict[int, int] = {}  # entry -> the CRC-32 its skeleton was checked by
        for entry in task_entries(layout, sid):
            stamp = self.stamper.take(entry.stat())
            previous = known.get(entry.name)
            if (
                previous is not None
                and isinstance(previous[1], dict)
                and not previous[1].get("volatile")
                and (previous[0] == stamp or _holds(entry.path, previous[0]))
            ):
                task = previous[1]
                if previous[0] != stamp:
                    written[len(self.names)] = previous[0]
            else:
                try:
                    task = skeleton(
                        read_object(layout, entry.path), file_stem=entry.name[:-5], root=layout.root
                    )
                    task = named_by_file(entry.name[:-5], task)
                except WfsError as err:
                    # One broken file must not hide the others: it is a task that never
                    # runs (and holds up its dependents) until someone repairs it.
                    task = unreadable_skeleton(entry.name[:-5], err.message)
            self.names.append(entry.name)
            self.stamps.append(stamp)
            self.skeletons.append(task)
        trusted: list[Stamp | int | None] = [self.stamper.trusted(s) for s in self.stamps]
        for i, crc in written.items():
            trusted[i] = trusted[i] or crc  # checked by content until its stamp is trusted
        if cached is None or cached[1] != self.names or cached[2] != trusted:
            payload = marshal.dumps((FORMAT, self.names, trusted, self.skeletons))
            write_cache(path, seal(payload))


def _holds(path: str, crc: Any) -> bool:
    """Whether the file at `path` holds the bytes whose CRC-32 is `crc` (a file wfs
    wrote, whose stamp was too new to trust: see `note_written`)."""
    if not isinstance(crc, int) or isinstance(crc, bool):
        return False
    content = store.read_cache_file(path)
    return content is not None and zlib.crc32(content) == crc


def note_written(layout: Layout, sid: str, written: dict[str, tuple[bytes, Task]]) -> None:
    """Task files wfs has just written (file name -> the bytes written and their
    skeleton, as Snapshot would derive it from them) go into the `.skel`, each checked
    by the CRC-32 of those bytes: the next reader takes the skeleton while the file
    still holds them, instead of reading, validating and deriving it again. Nothing is
    noted without a `.skel` to note it in (the next reader derives every task)."""
    path = cache_path(str(layout.workflow), sid, "skel")
    cached = load_cache(path)
    if cached is None or len(cached) != 4 or not written:
        return
    names, stamps, skeletons = cached[1], cached[2], cached[3]
    if not (isinstance(names, list) and len(names) == len(stamps) == len(skeletons)):
        return
    entries = dict(zip(names, zip(stamps, skeletons, strict=True), strict=True))
    for name, (data, task) in written.items():
        entries[name] = (zlib.crc32(data), task)
    payload = (
        FORMAT,
        list(entries),
        [stamp for stamp, _ in entries.values()],
        [task for _, task in entries.values()],
    )
    write_cache(path, seal(marshal.dumps(payload)))


def named_by_file(stem: str, task: Task) -> Task:
    """The task as the index keeps it: under the id its file's name gives. A file
    without an id (or not a string), or whose id is not its name's, is that task,
    invalid (`validate` names the file): counted, never run, holding up its
    dependents, and found by the name a person sees, rather than dropping out of the
    plan or answering to an id no file has."""
    tid = task.get("id")
    named = file_task_id(stem)
    if isinstance(tid, str) and tid == named:
        return task
    if isinstance(tid, str):
        error = f'#/id: id-filename: id "{tid}" does not match the file name {stem}.json'
    else:
        error = '#/id: required: missing required field "id"'
    rest = {key: value for key, value in task.items() if key not in ("id", "error", "errors")}
    return {
        "id": named,
        **rest,
        "status": task.get("status", "pending"),
        "errors": max(1, int(task.get("errors") or 0)),
        "error": error,
    }


UNREADABLE_TITLE = "(unreadable file)"  # how a task whose file cannot be read is listed


def unreadable_skeleton(stem: str, reason: str) -> Task:
    """What is known of a task whose file cannot be read: the id its name gives. A
    file named with a label (`IMPL-001.5-review.json`) is the design's gate, not a
    subtask (wfs.formats.is_gate): only its content could say otherwise."""
    tid = file_task_id(stem)
    return {
        "id": tid,
        "title": UNREADABLE_TITLE,
        "status": "pending",
        "errors": 1,
        "unreadable": reason,
        **({"labelled": True} if tid != stem else {}),
    }


def load_skeletons(layout: Layout, sid: str) -> list[Task]:
    """Every task's skeleton, sorted by id, re-reading only files that changed."""
    return Snapshot(layout, sid).skeletons


def answers(layout: Layout, sid: str, parts: int = ROWS) -> dict[str, Any]:
    """What `status`, `next` and `task show` need, from the cache or rebuilt (`parts`:
    what is loaded from the cache, as in cached_answers)."""
    workflow = str(layout.workflow)
    found = cached_answers(workflow, sid, parts, folder=str(layout.session_dir(sid)))
    if found is not None:
        return found

    session_file = layout.session_file(sid)
    try:
        session_stamp: Stamp | None = stamp_of(os.stat(session_file))
    except FileNotFoundError:
        session_stamp = None
    data = load_session(layout, sid)
    snapshot = Snapshot(layout, sid)
    stamper = snapshot.stamper
    if session_stamp is not None:
        stamper.mtimes.append(session_stamp[0])
    result = compute_answers(sid, data, snapshot.skeletons)
    if any(task.get("volatile") for task in snapshot.skeletons):
        return result  # they depend on the project's files too: derived each time
    save_answers(
        workflow,
        sid,
        (
            stamper.trusted(session_stamp),
            stamper.trusted(snapshot.dir_stamp),
            [os.fsencode(name) for name in snapshot.names],
            [stamper.trusted(s) for s in snapshot.stamps],
            [],
        ),
        result,
    )
    return result


# Files wfs has just written that a reader checks by content (see the module's doc);
# with more, the answers are left to be derived again.
RECHECK_MAX = 64


def save_answers(
    workflow: str,
    sid: str,
    stamps: tuple[Any, Any, list[bytes], list[Any], list[tuple[int, int]]],
    result: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> None:
    """Write the `.idx`: `stamps` is (session file, task folder, task file names,
    their stamps, recheck) and `extra` the writers' part (wfs/delta.py)."""
    session_stamp, dir_stamp, names, task_stamps, recheck = stamps
    head = seal(
        marshal.dumps(
            (
                FORMAT,
                session_stamp,
                dir_stamp,
                names,  # bytes: a faster stat
                task_stamps,
                {key: result[key] for key in HEAD_KEYS},
                recheck,
            )
        )
    )
    parts = [head] + [
        seal(marshal.dumps({key: result[key] for key in PART_KEYS[part]})) for part in (MAPS, ROWS)
    ]
    tail = seal(marshal.dumps(extra)) if extra is not None else b""
    write_cache(
        cache_path(workflow, sid, "idx"),
        b"".join(len(part).to_bytes(4, "little") + part for part in parts) + tail,
    )


def compute_answers(sid: str, data: dict[str, Any], skeletons: list[Task]) -> dict[str, Any]:
    index = TaskIndex(skeletons)
    leaves = index.leaves()
    status = {tid: index.effective_status(tid) for tid in index.by_id}
    ready = index.ready()
    waiting = {tid: index.unmet_dependencies(tid) for tid in index.by_id}
    stopped = stopped_tasks(index, leaves)
    waiting = {tid: w for tid, w in waiting.items() if w}
    summary = compute_summary(
        sid,
        data,
        index.tally(),
        index.counts(),
        ready,
        [t for t in leaves if status[t] == "blocked"],
        stopped,
        stuck_tasks(waiting, status, index.children, stopped),
    )
    summary.update(unreadable_files(skeletons))
    return {
        "summary": summary,
        "next": [task_row(index, tid) for tid in ready[:1]],
        "ready_rows": [task_row(index, tid) for tid in ready],
        "status": status,
        "children": index.children,
        "waiting": waiting,
    }


def stuck_tasks(
    waiting: dict[str, list[str]],
    status: dict[str, str],
    children: dict[str, list[str]],
    stopped: list[dict[str, Any]],
) -> list[dict[str, Any]]:
    """The pending leaves that wait on a task that does not exist or that `execute`
    refuses (invalid): they never become ready until the plan is repaired. Each as
    {"id", "on", "problem": "missing"|"invalid", "reason" and "error" (invalid only:
    as in `stopped`)}, by id."""
    invalid = {s["id"]: s for s in stopped if s.get("state") == "invalid"}
    found: list[dict[str, Any]] = []
    for tid, unmet in waiting.items():
        if status.get(tid) != "pending" or children.get(tid):
            continue
        for dep in unmet:
            if dep not in status:
                found.append({"id": tid, "on": dep, "problem": "missing"})
            elif dep in invalid:
                entry = {"id": tid, "on": dep, "problem": "invalid"}
                entry["reason"] = invalid[dep]["reason"]
                if invalid[dep].get("error"):
                    entry["error"] = invalid[dep]["error"]
                found.append(entry)
    found.sort(key=lambda entry: task_sort_key(entry["id"]))
    return found


def compute_summary(
    sid: str,
    data: dict[str, Any],
    tally: Any,
    counts: dict[str, int],
    ready: list[str],
    blocked: list[str],
    stopped: list[dict[str, Any]],
    stuck: list[dict[str, Any]],
) -> dict[str, Any]:
    """What `status` shows (wfs/delta.py derives the same from a change). `stalled`:
    work remains but none can start (nothing ready, nothing active)."""
    facts = session_facts(data, tally)
    done = tally.leaf_counts.get("completed", 0)
    total = sum(tally.leaf_counts.values())
    return {
        "session": sid,
        "project": session_topic(data),
        "status": data.get("status"),
        "phase": facts["phase"],
        "type": facts["type"],
        "counts": counts,
        "progress": {
            "completed": done,
            "total": total,
            "percent": round(100 * done / total) if total else 0,
            "completed_phases": facts["completed_phases"],
            "current_tasks": facts["current_tasks"],
        },
        "ready": ready,
        "blocked": blocked,
        "stopped": stopped,
        "stuck": stuck,
        "stalled": done < total and not ready and not tally.leaf_counts.get("active"),
    }


def unreadable_files(skeletons: list[Task]) -> dict[str, list[str]]:
    """{"unreadable": [why, ...]} when some task files cannot be read, else {}."""
    found = [t["unreadable"] for t in skeletons if t.get("unreadable")]
    return {"unreadable": found} if found else {}


def stopped_tasks(index: Any, leaves: list[str]) -> list[dict[str, Any]]:
    """Leaves that are not simply pending or completed, and why (see stopped_entry)."""
    found = (stopped_entry(tid, index.by_id[tid]) for tid in sorted(leaves, key=task_sort_key))
    return [entry for entry in found if entry is not None]


def stopped_entry(tid: str, task: Task) -> dict[str, Any] | None:
    """Why a leaf is stopped: paused, blocked, claimed by a process (alive or not,
    decided when shown), or refused as invalid; None when it is simply pending or
    completed."""
    status = task.get("status")
    execution = obj(task, "execution")
    entry: dict[str, Any] = {"id": tid}
    if execution.get("step"):
        entry["step"] = execution["step"]
    if status == "active" and execution.get("claimed_by"):
        entry.update(
            state="claimed",
            owner=execution["claimed_by"],
            since=execution.get("resumed_at") or execution.get("started_at"),
        )
    elif status == "active":
        entry.update(state="paused", reason=execution.get("paused_reason") or "paused")
    elif status == "blocked":
        entry.update(
            state="blocked",
            reason=execution.get("blocked_reason") or "marked blocked (no reason recorded)",
        )
    elif status == "pending" and task.get("unreadable"):
        entry.update(state="invalid", reason=task["unreadable"])
    elif status == "pending" and task.get("errors"):
        count = task["errors"]
        entry.update(
            state="invalid",
            reason=f"{count} validation error{'s' if count != 1 else ''}; "
            "`wfs validate` names them",
        )
        if task.get("error"):
            entry["error"] = task["error"]
    else:
        return None
    return entry
