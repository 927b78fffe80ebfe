"""Consistency checks and the seed's recovery strategies.

Each check yields findings; with `fix`, each finding's repair runs as it is found.
Repairs never delete plan data: every file a repair replaces is copied first, byte for
byte, to `.workflow/.doctor/<time of the run>/` (a corrupt session file is also kept
aside beside it, an authored view is kept as `*.authored.md` and linked from the
generated one), and only wfs's own leftovers (temporary files, orphaned markers) are
removed. Folders that are not one session each (a session in two places, a folder named
with a placeholder) are reported; which copy to keep is for a person to decide.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from wfs import jsonedit, jsonio, lifecycle, render, sessions, store
from wfs.claims import claim_alive
from wfs.edit import normalize_task
from wfs.errors import WfsError
from wfs.flow.claiming import next_step, stop_orphans
from wfs.flow.record import Records, now
from wfs.formats import canonical_task, is_gate
from wfs.index import load_skeletons
from wfs.layout import (
    ARCHIVE_DIR,
    MARKER_PREFIX,
    SCRATCHPAD_DIR,
    SESSION_FILE,
    Layout,
    parent_of,
    parse_task_id,
)
from wfs.platform import shell_join
from wfs.query import command_prefix
from wfs.tasks import TaskIndex, load_tasks, obj, read_document, refresh_session, task_files

Repair = Callable[[], object]


class Finding(NamedTuple):
    where: str
    problem: str
    action: str  # what the repair does
    repair: Repair | None  # None: nothing wfs can safely do


BACKUP_DIR = ".doctor"
# A session's folders whose files wfs writes atomically (through `.NAME.XXXXXXXX.tmp`).
LEFTOVER_FOLDERS = (".task", ".summaries", ".chat", ".scratchpad")


class _Backup:
    """Where the files replaced by one run of `doctor --fix` are kept."""

    folder: Path | None = None


_BACKUP = _Backup()


def _keep(layout: Layout, path: Path) -> None:
    """Copy `path` (when it exists) into this run's backup folder, keeping its place."""
    if not path.is_file():
        return
    if _BACKUP.folder is None:
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        folder = layout.workflow / BACKUP_DIR / stamp
        n = 1
        while folder.exists():
            n += 1
            folder = layout.workflow / BACKUP_DIR / f"{stamp}-{n}"
        _BACKUP.folder = folder
    target = _BACKUP.folder / path.relative_to(layout.workflow)
    if not target.exists():  # the first version a run replaced is the one to keep
        store.write_bytes(target, store.read_file(path, layout.relative(path)))


def _replace(layout: Layout, path: Path, data: bytes) -> None:
    _keep(layout, path)
    store.write_bytes(path, data)


def doctor(layout: Layout, fix: bool) -> list[tuple[Finding, bool]]:
    """Every finding, and whether it was repaired.

    With `fix`, passes repeat until one finds nothing to repair, since one repair can
    reveal the next (a recreated parent, then its stale view). What the dry run finds
    is reported first, as the dry run words it, each repaired when its problem is gone
    afterwards (one repair may settle another finding: a pause renders the views); then
    whatever the repairs revealed.
    """
    _BACKUP.folder = None
    # A fix looks under the lock it repairs under: it refuses a .workflow it may not
    # write even when there is nothing to repair.
    writing = fix and layout.workflow.is_dir()
    with store.locked(layout.root_lock, ".workflow") if writing else contextlib.nullcontext():
        planned = _one_pass(layout, False)
    if not fix or all(f.repair is None for f in planned):
        return [(f, False) for f in planned]  # nothing to repair: a fix would change nothing
    revealed: dict[tuple[str, str], tuple[Finding, bool]] = {}
    for _ in range(5):
        found = _one_pass(layout, True)
        for f in found:
            revealed.setdefault((f.where, f.problem), (f, f.repair is not None))
        if all(f.repair is None for f in found):
            break  # a pass that repaired nothing changed nothing: what it found is left
    else:
        found = _one_pass(layout, False)
    left = {(f.where, f.problem) for f in found}
    report = [(f, f.repair is not None and (f.where, f.problem) not in left) for f in planned]
    seen = {(f.where, f.problem) for f in planned}
    return report + [row for key, row in revealed.items() if key not in seen]


def _one_pass(layout: Layout, fix: bool) -> list[Finding]:
    found: list[Finding] = []

    def run(findings: Iterator[Finding]) -> None:
        for finding in findings:
            if fix and finding.repair is not None:
                finding.repair()
            found.append(finding)

    if not layout.workflow.is_dir():
        return found
    with store.locked(layout.root_lock, ".workflow") if fix else contextlib.nullcontext():
        run(_leftovers(layout, layout.workflow))
        run(_markers(layout))
        run(_folders(layout))
        for sid in sessions.session_ids(layout):
            lock = store.locked(layout.session_lock(sid), sid) if fix else contextlib.nullcontext()
            with lock:
                # The journal first: the files it still has to rename look like leftovers.
                run(_journal(layout, sid))
                run(_leftovers(layout, layout.session_dir(sid), sid))
                run(_session_file(layout, sid))
                run(_hierarchy(layout, sid))
                run(_stale_claims(layout, sid))
                run(_views(layout, sid))
    return found


def _folders(layout: Layout) -> Iterator[Finding]:
    """Sessions in several places, folders named with an unfilled placeholder."""
    for where, _rule, message, _severity in sessions.layout_problems(layout):
        yield Finding(where, message, "none: wfs does not choose for you", None)


def _leftovers(layout: Layout, folder: Path, sid: str | None = None) -> Iterator[Finding]:
    """Temporary files and staging folders left by a process killed mid-write: in
    `.workflow/` itself, or in the folder of the session `sid` (and its journal's, which
    is staged in `.locks/` under the session's lock)."""
    candidates = list(folder.glob(".*.tmp"))
    if sid is None:
        candidates += folder.glob(".WFS-*.new")
        candidates += folder.glob(f"{BACKUP_DIR}/**/.*.tmp")  # its own copies, cut short
        candidates += folder.glob(f"{SCRATCHPAD_DIR}/.*.tmp")  # `wfs capture` with no session
        # The `.gitignore` a runtime folder gets first (store.make_folder).
        candidates += (
            p for d in sorted(store.RUNTIME_DIRS) for p in folder.glob(f"{d}/..gitignore.*.tmp")
        )
    else:  # the session's folders that wfs writes whole files into
        for sub in LEFTOVER_FOLDERS:
            candidates += folder.glob(f"{sub}/.*.tmp")
        journal = layout.journal(sid)
        candidates += journal.parent.glob(f".{journal.name}.*.tmp")
    for path in sorted(candidates):
        yield Finding(
            layout.relative(path),
            "leftover temporary file from an interrupted write",
            "removed it",
            partial(_remove, path),
        )


def _journal(layout: Layout, sid: str) -> Iterator[Finding]:
    journal = layout.journal(sid)
    if journal.exists():
        yield Finding(
            layout.relative(journal),
            "a multi-file write was interrupted",
            "finished it from the journal",
            partial(store.replay, journal),
        )


def _remove(path: Path) -> None:
    store.remove_tree(path)


def _markers(layout: Layout) -> Iterator[Finding]:
    valid = []
    active = set(sessions.active_ids(layout))
    for sid in sessions.marker_ids(layout):
        marker = layout.workflow / (MARKER_PREFIX + sid)
        if sid in active:
            valid.append(sid)
            continue
        archived = sessions.is_session_dir(layout, sid)
        yield Finding(
            layout.relative(marker),
            "orphaned active marker: "
            + ("its session is archived (completed)" if archived else "no session folder"),
            "removed the marker",
            partial(store.remove, marker),
        )
    if len(valid) > 1:
        newest = max(valid, key=lambda s: (_mtime(layout.workflow / (MARKER_PREFIX + s)), s))
        for sid in valid:
            if sid == newest:
                continue
            yield Finding(
                layout.relative(layout.workflow / (MARKER_PREFIX + sid)),
                f"several active markers; the newest is {newest}",
                f"removed it and paused {sid}",
                partial(_unmark, layout, sid),
            )


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _unmark(layout: Layout, sid: str) -> None:
    folder = layout.session_dir(sid)
    for name in (SESSION_FILE, *render.VIEWS):
        _keep(layout, folder / name)
    try:
        lifecycle.pause(layout, sid)
    except WfsError:
        store.remove(layout.marker(sid))


def _session_file(layout: Layout, sid: str) -> Iterator[Finding]:
    path = layout.session_file(sid)
    if not path.exists():
        yield Finding(
            layout.relative(path),
            "no session file",
            "wrote one from the template and the tasks",
            lambda: _recreate_session(layout, sid),
        )
        return
    try:
        data = sessions.load_session(layout, sid)
    except WfsError as err:
        yield Finding(
            layout.relative(path),
            f"corrupted session file ({err.message})",
            "kept it aside and recreated it from the template",
            lambda: _recreate_session(layout, sid),
        )
        return
    if data.get("session_id") != sid:
        yield Finding(
            layout.relative(path),
            f"session_id {data.get('session_id')!r} does not match its folder {sid}",
            f"set session_id to {sid}",
            lambda: _write_in_place(layout, path, {**data, "session_id": sid}),
        )


def _recreate_session(layout: Layout, sid: str) -> None:
    path = layout.session_file(sid)
    _keep(layout, path)
    if path.exists():
        aside = path.with_name(SESSION_FILE + ".corrupt")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{SESSION_FILE}.corrupt-{n}")
        store.move(path, aside)
    topic = sid.removeprefix("WFS-").replace("-", " ")
    data = lifecycle.new_session_data(sid, topic)
    data["status"] = "active" if sid in sessions.active_ids(layout) else "paused"
    if layout.place_of(layout.session_dir(sid)) == ARCHIVE_DIR:
        data["status"] = "completed"
    try:
        tasks = [canonical_task(t) for t in load_tasks(layout, sid)]
    except WfsError:
        tasks = []
    lifecycle.save_session(layout, sid, refresh_session(data, TaskIndex(tasks).tally()))


def _hierarchy(layout: Layout, sid: str) -> Iterator[Finding]:
    """Subtasks without a parent file, parents not marked container, and the reverse.

    A repair writes what the author's files already say, into the file that holds the
    task; it never writes down what wfs only infers. A subtask whose context has no
    parent is left so (its id says it), and a task with steps of its own is never made
    a container (its steps would never run): a gate such as IMPL-001.3 may be a task in
    its own right. No second file is ever written for an id that has one."""
    folder = layout.task_dir(sid)
    try:
        names = task_files(layout, sid)
        loaded = load_tasks(layout, sid)
    except WfsError as err:
        yield Finding(
            err.message.split(":")[0],
            f"unreadable task file ({err.message})",
            "none: fix the file by hand (wfs doctor never discards task data)",
            None,
        )
        return
    raw: dict[Any, dict[str, Any]] = {}
    path: dict[Any, Path] = {}
    read: dict[Any, dict[str, Any]] = {}  # each task in the canonical form
    for name, task in zip(names, loaded, strict=True):
        canonical = canonical_task(task)
        tid = canonical.get("id")
        raw[tid], path[tid], read[tid] = task, folder / name, canonical
    index = TaskIndex(list(read.values()))
    for tid, task in index.by_id.items():
        if parse_task_id(tid) is None:
            continue
        where = layout.relative(path[tid])
        # A gate (IMPL-001.3 after IMPL-001) is a task of its own, not a subtask.
        parent = None if is_gate(task) else parent_of(tid)
        if parent and parent not in index.by_id:
            target = layout.task_file(sid, parent)
            stub = normalize_task({"id": parent, "title": f"{parent} (reconstructed)"}, True)
            yield Finding(
                layout.relative(target),
                f"missing parent of {tid}",
                "recreated it as a container",
                None if target.exists() else partial(_write_new, layout, target, stub),
            )
        original = raw[tid]
        context = original.get("context")
        if parent and isinstance(context, dict) and context.get("parent", parent) != parent:
            yield Finding(
                where,
                f"context.parent is {context.get('parent')!r}, expected {parent}",
                f"set context.parent to {parent}",
                partial(
                    _write_in_place,
                    layout,
                    path[tid],
                    {**original, "context": {**context, "parent": parent}},
                ),
            )
        status = task.get("status")
        if index.is_container(tid) and status != "container" and has_steps(task):
            kids = ", ".join(index.children.get(tid, []))
            yield Finding(
                where,
                f"has steps of its own and tasks numbered as its subtasks ({kids})",
                "none: a container's own steps never run; make the others tasks of their "
                "own (context.depends_on) or move the steps into a subtask",
                None,
            )
        elif index.is_container(tid) and status != "container":
            yield Finding(
                where,
                f"has subtasks but status is {status!r}",
                "set status to container",
                partial(_write_in_place, layout, path[tid], {**original, "status": "container"}),
            )
        if not index.is_container(tid) and status == "container":
            yield Finding(
                where,
                "status is container but it has no subtasks",
                "set status to pending",
                partial(_write_in_place, layout, path[tid], {**original, "status": "pending"}),
            )


def has_steps(task: dict[str, Any]) -> bool:
    """The task (in the canonical form) has steps of its own to run."""
    return bool(obj(task, "flow_control").get("implementation_approach"))


def _stale_claims(layout: Layout, sid: str) -> Iterator[Finding]:
    """Active tasks claimed by a process of this host that no longer exists."""
    try:
        names = task_files(layout, sid)
        tasks = load_tasks(layout, sid)
    except WfsError:
        return
    for name, task in zip(names, tasks, strict=True):
        path = layout.task_dir(sid) / name
        execution = obj(task, "execution")
        owner = execution.get("claimed_by")
        if task.get("status") != "active" or not isinstance(owner, str) or claim_alive(owner):
            continue
        tid = str(task["id"])
        resume = shell_join([*command_prefix(sid), "execute", "--resume", tid])
        yield Finding(
            layout.relative(path),
            f"stale claim: {owner} is no longer running",
            f"released it: {tid} is paused where its run stopped, with its finished steps "
            f"kept; `{resume}` continues it",
            partial(_release_claim, layout, sid, path, task, owner),
        )


def _release_claim(layout: Layout, sid: str, path: Path, task: dict[str, Any], owner: str) -> None:
    """Pause a task whose runner died: its orphaned step is stopped, its record kept."""
    tid = str(task["id"])
    stop_orphans(sid, tid, owner)
    where = next_step(Records(layout, sid), task)
    execution = {k: v for k, v in obj(task, "execution").items() if k != "claimed_by"}
    execution.update(paused_reason=f"its runner {owner} stopped before the task was done")
    execution["stopped_at"] = now()
    if where:
        execution["step"] = where
    _write_in_place(layout, path, {**task, "execution": execution})


def _write_in_place(layout: Layout, path: Path, task: dict[str, Any]) -> None:
    """Write `task` into `path`, the file that holds it, as the file is laid out (only
    the values that changed change: wfs/jsonedit.py)."""
    before, raw = read_document(layout, path)
    _replace(layout, path, jsonedit.rewrite(raw, before, task))


def _write_new(layout: Layout, path: Path, task: dict[str, Any]) -> None:
    if path.exists():  # written since it was found missing: left as it is
        return
    store.write_bytes(path, jsonio.dumps(task))


def _views(layout: Layout, sid: str) -> Iterator[Finding]:
    try:
        session = sessions.load_session(layout, sid)
        tasks = load_skeletons(layout, sid)
    except WfsError:
        return  # reported above; views are re-rendered once the JSON is readable
    folder = layout.session_dir(sid)
    authored = render.authored_views(folder, session, tasks)
    # Every view's finding is made before any repair runs (one repair renders both
    # views): each says what the dry run says.
    yield from [
        Finding(
            layout.relative(folder / name),
            "stale or hand-edited view" if (folder / name).exists() else "missing view",
            f"keep it as {render.free_authored_name(folder, name)} and render the view, "
            "linking to it"
            if name in authored
            else "render the view again",
            partial(_render_views, layout, folder, session, tasks),
        )
        for name in render.stale_views(folder, session, tasks)
    ]


def _render_views(
    layout: Layout, folder: Path, session: dict[str, Any], tasks: list[dict[str, Any]]
) -> None:
    authored = render.authored_views(folder, session, tasks)
    for name in render.VIEWS:
        if name not in authored:
            _keep(layout, folder / name)  # an authored one is kept beside it instead
    render.write_views(folder, session, tasks, take_over=True)
