"""Session lifecycle: create, switch, pause, resume, complete, and the layout of the
folders (wfs/sessions.py finds them).

wfs writes in the layout the project uses: completing a session of `active/` moves it
to `archives/`, resuming an archived one moves it back.

Changes to markers and folders happen under the root lock; changes to a session file
under its session lock (always taken in that order).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from wfs import jsonedit, render, store
from wfs.errors import WfsError
from wfs.index import load_skeletons
from wfs.layout import (
    ACTIVE_DIR,
    ACTIVE_LAYOUT,
    ARCHIVE_DIR,
    GITIGNORE,
    MARKER_PREFIX,
    MARKERS_LAYOUT,
    MARKERS_RULE,
    PLACES,
    SESSION_FILE,
    Layout,
    check_topic,
    session_id_candidates,
)
from wfs.sessions import (
    STOPPED,
    Folder,
    active_ids,
    file_status,
    ids_in,
    is_session_dir,
    is_session_name,
    load_session,
    load_session_document,
    marker_ids,
    require_session,
    session_folders,
)
from wfs.tasks import TaskIndex, refresh_session, skeleton


def init(layout: Layout) -> bool:
    """Create `.workflow/` and its `.gitignore`; True when anything was written.

    A `.gitignore` that wfs wrote earlier gets the lines it lacks (run records in the
    `active/` and `archives/` layouts); anyone else's is left alone."""
    created = False
    if not layout.workflow.is_dir():
        store.make_dirs(layout.workflow)
        created = True
    gitignore = layout.workflow / ".gitignore"
    if not gitignore.exists():
        store.write_text(gitignore, GITIGNORE)
        created = True
    else:
        text = store.read_text(gitignore, layout.relative(gitignore))
        if text.startswith(GITIGNORE.splitlines()[0]):
            missing = [line for line in GITIGNORE.splitlines()[1:] if line not in text.split("\n")]
            if missing:
                store.write_text(gitignore, text.rstrip("\n") + "\n" + "\n".join(missing) + "\n")
                created = True
    return created


def ignores_markers(layout: Layout) -> bool:
    """Whether `.workflow/.gitignore` keeps the `.active-*` markers out of commits."""
    try:
        text = store.read_text(layout.workflow / ".gitignore")
    except WfsError:
        return False
    return MARKERS_RULE in text.splitlines()


def save_session(layout: Layout, sid: str, data: dict[str, Any]) -> None:
    store.write_json(layout.session_file(sid), data)


def new_session_data(sid: str, topic: str, session_type: str = "simple") -> dict[str, Any]:
    return {
        "session_id": sid,
        "project": topic,
        "type": session_type,
        "current_phase": "PLAN",
        "status": "active",
        "progress": {"completed_phases": [], "current_tasks": []},
    }


def create_session(
    layout: Layout,
    topic: str,
    session_type: str | None = None,
    plan: dict[str, Any] | None = None,
    tasks: list[dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None,
    activate: bool = True,
) -> str:
    """Make `WFS-<slug>` with only its session file, two views and `.task/` (holding
    `tasks`, already validated, in any task format), in the project's layout, and make
    it the single active session. `extra`: more fields of the session file.
    `activate` false: the session is made paused, and no other session is touched."""
    slug = check_topic(topic)
    init(layout)
    with store.locked(layout.root_lock, ".workflow"):
        sid = next(c for c in session_id_candidates(slug) if not _name_taken(layout, c))
        session_dir = layout.new_session_dir(sid)
        # Built aside and renamed into place, so a session folder is never half made.
        staging = layout.workflow / f".{sid}.new"
        if staging.exists():
            store.remove_tree(staging)
        tasks = tasks or []
        data = new_session_data(sid, topic, session_type or "simple")
        if plan:
            data["plan"] = plan
        data.update(extra or {})
        if data.get("status") in STARTABLE:
            data["status"] = "active"
        if not activate:
            data["status"] = "paused"
        # Counted and shown in the seed form, as every later read sees them.
        seeds = [skeleton(task, 0) for task in tasks]
        data = refresh_session(data, TaskIndex(seeds).tally())
        try:
            store.make_dirs(staging / ".task")
            for task in tasks:
                store.write_json(staging / ".task" / f"{task['id']}.json", task)
            store.write_json(staging / SESSION_FILE, data)
            render.write_views(staging, data, seeds)
        except (OSError, WfsError):  # a full disk, a name too long: nothing is left behind
            with contextlib.suppress(OSError, WfsError):
                store.remove_tree(staging)
            raise
        # The others stop being active before the session appears, so that the rename
        # is the last step: a `wfs plan` killed at any point and run again ends as one
        # that ran through (after it, the same command updates the session it made).
        if activate:
            _stop_the_others(layout, sid)
        with store.locked(layout.session_lock(sid), sid):
            store.move(staging, session_dir)
    return sid


def _name_taken(layout: Layout, sid: str) -> bool:
    return any(os.path.lexists(layout.place_dir(place) / sid) for place in PLACES)


def switch(layout: Layout, value: str) -> str:
    """Make the session the single active one; previously active ones become paused.

    An archived session is reopened: it moves back to `active/`."""
    sid = require_session(layout, value)
    with store.locked(layout.root_lock, ".workflow"):
        _make_only_active(layout, sid)
    return sid


# The statuses a session that is made the active one leaves (another tool's own, such
# as `planning`, stays where a marker says what is active).
STARTABLE = ("paused", "completed", None)


def _make_only_active(layout: Layout, sid: str) -> None:
    """In the markers layout, the marker says which session is active and the others'
    markers go. In the `active/` layout, whose tools find a paused session by the status
    in its file (markers are optional there), the others' files say `paused`, and no
    marker is written: any marker left there goes."""
    load_session(layout, sid)  # refuse a broken target before touching any marker
    folder = layout.session_dir(sid)
    if layout.place_of(folder) == ARCHIVE_DIR:
        _move(layout, sid, folder, layout.workflow / ACTIVE_DIR / sid)
    _stop_the_others(layout, sid, start=True)


def _stop_the_others(layout: Layout, sid: str, start: bool = False) -> None:
    """Make `sid` the only session marked active (see _make_only_active): its marker
    first in the markers layout (a crash in between leaves several markers, and
    recovery keeps the newest, which is this one), with `start` its status, then every
    other active session paused. Without `start`, `sid` needs no folder yet."""
    previous = active_ids(layout)
    by_status = layout.kind() == ACTIVE_LAYOUT
    if not by_status:
        store.touch(layout.marker(sid))
    if start:
        _set_status(layout, sid, "active", only_if=STARTABLE)
    if by_status:
        # Every other session of active/ that its status does not stop would be active.
        previous += [s for s in ids_in(layout, ACTIVE_DIR) if file_status(layout, s) not in STOPPED]
    for other in sorted(set(marker_ids(layout)) | set(previous)):
        if other == sid:
            continue
        if is_session_dir(layout, other):
            try:
                # Another tool's status (`planning`) is left alone where a marker says
                # what is active; where the status says it, it must say paused.
                only_if = None if by_status else ("active",)
                _set_status(layout, other, "paused", only_if=only_if, unless=STOPPED)
            except WfsError:
                pass  # a broken session file is left for `wfs doctor` to report
        store.remove(layout.workflow / (MARKER_PREFIX + other))
    if by_status:
        store.remove(layout.marker(sid))


def _move(layout: Layout, sid: str, source: Path, target: Path) -> None:
    """Move a session folder (under the root lock), refusing to overwrite another copy."""
    if os.path.lexists(target):
        raise WfsError(
            f"cannot move {layout.relative(source)} to {layout.relative(target)}: "
            "that folder exists already (a second copy of the session); keep one, then retry"
        )
    with store.locked(layout.session_lock(sid), sid):
        store.move(source, target)


def _set_status(
    layout: Layout,
    sid: str,
    status: str,
    only_if: tuple[str | None, ...] | None = None,
    unless: tuple[str, ...] = (),
) -> None:
    """Set the session's status; with `only_if`, only when it is one of those (None: it
    has none), so that a status written by another tool (`planning`) is left alone; never
    when it is one of `unless`. The file keeps its layout: only the status changes in it
    (wfs/jsonedit.py). A change of the session cut short is finished first."""
    with store.locked(layout.session_lock(sid), sid):
        store.replay(layout.journal(sid))
        data, raw = load_session_document(layout, sid)
        if only_if is not None and data.get("status") not in only_if:
            return
        if data.get("status") in unless:
            return
        if data.get("status") != status:
            before = dict(data)
            data = {**data, "status": status}
            # IMPL_PLAN.md shows the status; a stale view would fail `wfs render --check`.
            # The views go with the file, so that a crash leaves both changed or neither.
            tasks = load_skeletons(layout, sid)
            views = render.view_files(layout.session_dir(sid), data, tasks, before=(before, tasks))
            session = (layout.session_file(sid), jsonedit.rewrite(raw, before, data))
            store.write_together([session, *views], layout.journal(sid))


def pause(layout: Layout, sid: str) -> None:
    with store.locked(layout.root_lock, ".workflow"):
        _set_status(layout, sid, "paused")
        store.remove(layout.marker(sid))


def complete(layout: Layout, sid: str) -> None:
    """Mark the session completed; in the `active/` layout it moves to `archives/`."""
    with store.locked(layout.root_lock, ".workflow"):
        folder = layout.session_dir(sid)
        target = layout.archive_dir(sid)
        moving = layout.place_of(folder) == ACTIVE_DIR
        if moving and os.path.lexists(target):
            _move(layout, sid, folder, target)  # refuses, naming both folders
        _set_status(layout, sid, "completed")
        store.remove(layout.marker(sid))
        if moving:
            _move(layout, sid, folder, target)


def convert_layout(layout: Layout, kind: str) -> list[tuple[str, str]]:
    """Move every session into the MARKERS_LAYOUT or ACTIVE_LAYOUT; (from, to) per move.

    Active sessions stay active (markers are written for them when going to the
    markers layout), completed ones are archived in the `active/` layout, and archived
    ones are marked completed in the markers layout. Nothing moves when any target is
    taken (a session in two places): that is refused first.
    """
    if kind not in (MARKERS_LAYOUT, ACTIVE_LAYOUT):
        raise WfsError(f"unknown layout {kind!r}: expected markers or active")
    with store.locked(layout.root_lock, ".workflow"):
        active = set(active_ids(layout))
        plan: list[tuple[Folder, Path]] = []
        for folder in session_folders(layout):
            if not is_session_name(folder.name):
                continue
            if kind == MARKERS_LAYOUT:
                target = layout.workflow / folder.name
            elif folder.place == ARCHIVE_DIR:
                continue
            else:
                done = file_status(layout, folder.name) == "completed" and folder.name not in active
                target = layout.workflow / (ARCHIVE_DIR if done else ACTIVE_DIR) / folder.name
            if target != folder.path:
                plan.append((folder, target))
        targets = [t for _, t in plan]
        for folder, target in plan:
            if os.path.lexists(target) or targets.count(target) > 1:
                raise WfsError(
                    f"cannot move {layout.relative(folder.path)} to {layout.relative(target)}: "
                    "the session is in more than one place; keep one copy, then retry "
                    "(nothing was moved)"
                )
        if kind == MARKERS_LAYOUT:
            # What only the place of a folder says is written down before any folder
            # moves: which sessions are active (their markers count in both layouts) and
            # which are archived. A conversion cut short and run again then finds the
            # same sessions active and completed, and ends as one that ran through.
            for sid in sorted(active):
                store.touch(layout.marker(sid))
            for folder, _ in plan:
                if folder.place == ARCHIVE_DIR:
                    _set_status(layout, folder.name, "completed")
        moves = []
        for folder, target in plan:
            _move(layout, folder.name, folder.path, target)
            moves.append((layout.relative(folder.path), layout.relative(target)))
        if kind == MARKERS_LAYOUT:
            for place in (ACTIVE_DIR, ARCHIVE_DIR):
                store.guard(layout.workflow / place / "_")
                try:
                    (layout.workflow / place).rmdir()
                except OSError:
                    pass  # not empty (something else lives there) or absent
        else:
            store.make_dirs(layout.workflow / ACTIVE_DIR)
        return moves
