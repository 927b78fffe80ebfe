"""Session lifecycle: create, find, switch, pause, resume, complete.

Sessions live in `.workflow/WFS-*`, `.workflow/active/WFS-*` or
`.workflow/archives/WFS-*` (wfs/layout.py). Which ones are active:

- the sessions named by `.workflow/.active-<id>` markers, when there is any;
- else (the `active/` layout without markers) every session in `active/` whose
  status is not `paused` or `completed`.

Archived sessions are completed. wfs writes in the layout the project uses: completing
a session of `active/` moves it to `archives/`, resuming an archived one moves it back.

Changes to markers and folders happen under the root lock; changes to a session file
under its session lock (always taken in that order).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from wfs import store
from wfs.errors import WfsError
from wfs.layout import (
    ACTIVE_DIR,
    ACTIVE_LAYOUT,
    ARCHIVE_DIR,
    GITIGNORE,
    MARKER_PREFIX,
    MARKERS_LAYOUT,
    PLACES,
    SESSION_FILE,
    SESSION_PREFIX,
    Layout,
    check_session_id,
    check_topic,
    normalize_session_id,
    session_id_candidates,
)
from wfs.schemas import SESSION_STATUSES
from wfs.text import json_kind


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
        text = gitignore.read_text(encoding="utf-8", errors="replace")
        if text.startswith(GITIGNORE.splitlines()[0]):
            missing = [line for line in GITIGNORE.splitlines()[1:] if line not in text.split("\n")]
            if missing:
                store.write_text(gitignore, text.rstrip("\n") + "\n" + "\n".join(missing) + "\n")
                created = True
    return created


class Folder(NamedTuple):
    """A folder named like a session, in one of the places sessions live."""

    name: str
    path: Path
    place: str  # "" (.workflow/), ACTIVE_DIR or ARCHIVE_DIR


# A folder name with a template placeholder left in it (`WFS-[session-id]`,
# `WFS-{session}`): a tool wrote to a path it did not fill in; it is not a session.
_PLACEHOLDER_NAME = re.compile(r"[\[\]{}<>$]")


def is_placeholder_name(name: str) -> bool:
    return bool(_PLACEHOLDER_NAME.search(name))


def session_folders(layout: Layout) -> list[Folder]:
    """Every `WFS-*` folder in the three places, by name, in lookup order per name."""
    found: list[Folder] = []
    for place in PLACES:
        base = layout.place_dir(place)
        try:
            entries = list(os.scandir(base))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if entry.name.startswith(SESSION_PREFIX) and entry.is_dir():
                found.append(Folder(entry.name, Path(entry.path), place))
    order = {place: n for n, place in enumerate(PLACES)}
    return sorted(found, key=lambda f: (f.name, order[f.place]))


def _is_session_name(name: str) -> bool:
    if is_placeholder_name(name):
        return False
    try:
        check_session_id(name)
    except WfsError:
        return False
    return True


def session_ids(layout: Layout) -> list[str]:
    """Every session in the project (each once, wherever it is), sorted."""
    return sorted({f.name for f in session_folders(layout) if _is_session_name(f.name)})


def ids_in(layout: Layout, place: str) -> list[str]:
    return sorted(
        f.name for f in session_folders(layout) if f.place == place and _is_session_name(f.name)
    )


def marker_ids(layout: Layout) -> list[str]:
    """The session ids named by `.active-*` markers, sorted (they may point nowhere)."""
    try:
        entries = list(os.scandir(layout.workflow))
    except FileNotFoundError:
        return []
    return sorted(e.name[len(MARKER_PREFIX) :] for e in entries if e.name.startswith(MARKER_PREFIX))


def active_ids(layout: Layout) -> list[str]:
    """Active sessions: those named by markers (a marker for a missing or archived
    session counts for nothing); without markers, the sessions of `active/` that are
    not paused or completed."""
    marked = [sid for sid in marker_ids(layout) if _is_live_session(layout, sid)]
    if marked or marker_ids(layout):
        return marked
    return [sid for sid in ids_in(layout, ACTIVE_DIR) if _status(layout, sid) not in _STOPPED]


_STOPPED = ("paused", "completed")


def _status(layout: Layout, sid: str) -> Any:
    try:
        return load_session(layout, sid).get("status")
    except WfsError:
        return None  # a broken session file is reported where it is read


def _is_live_session(layout: Layout, sid: str) -> bool:
    """A session folder exists for `sid`, outside `archives/`."""
    if not _is_session_name(sid):
        return False
    folder = layout.session_dir(sid)
    return folder.is_dir() and layout.place_of(folder) != ARCHIVE_DIR


def _is_session_dir(layout: Layout, sid: str) -> bool:
    try:
        return layout.session_dir(sid).is_dir()
    except WfsError:
        return False


def session_warnings(layout: Layout, sid: str) -> list[str]:
    """What is odd about one session's folder: copies in other places, no session file."""
    from wfs.layout import SESSION_FILE as NAME

    folders = [f for f in session_folders(layout) if f.name == sid]
    notes = []
    if len(folders) > 1:
        notes.append(duplicate_message(layout, folders))
    if folders and not (folders[0].path / NAME).exists():
        notes.append(
            f"{layout.relative(folders[0].path / NAME)}: no session file; wfs reads the "
            "session from its tasks (`wfs doctor --fix` writes one)"
        )
    return notes


def duplicate_message(layout: Layout, folders: list[Folder]) -> str:
    places = ", ".join(layout.relative(f.path) + "/" for f in folders)
    return (
        f"session {folders[0].name} is in {len(folders)} places ({places}); wfs works on "
        f"{layout.relative(folders[0].path)}/ and leaves the others alone: keep one"
    )


def layout_problems(layout: Layout) -> list[tuple[str, str, str, str]]:
    """(where, rule, message, severity) for every folder wfs cannot take as one session:
    a session in several places, a folder named with an unfilled placeholder."""
    problems = []
    folders = session_folders(layout)
    by_name: dict[str, list[Folder]] = {}
    for folder in folders:
        by_name.setdefault(folder.name, []).append(folder)
    for name, group in sorted(by_name.items()):
        if not _is_session_name(name):
            for folder in group:
                problems.append(
                    (
                        layout.relative(folder.path),
                        "layout",
                        f"folder {name!r} is named with an unfilled placeholder, not a session "
                        "id; a tool wrote to a path it did not fill in (move its files into "
                        "the session they belong to, then remove it)",
                        "warning",
                    )
                )
        elif len(group) > 1:
            problems.append(
                (
                    layout.relative(group[1].path),
                    "layout",
                    duplicate_message(layout, group),
                    "warning",
                )
            )
    return problems


def require_session(layout: Layout, value: str) -> str:
    """The id of an existing session named `WFS-x` or `x`; exit 2 with close matches."""
    sid = normalize_session_id(value)
    folder = layout.session_dir(sid)
    if folder.is_dir():
        if folder.is_symlink():
            layout.check_inside(folder)
        return sid
    import difflib  # only on this error path

    known = session_ids(layout)
    close = difflib.get_close_matches(sid, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    if not known:
        hint = "; there are no sessions yet (create one with `wfs plan TOPIC`)"
    raise WfsError(f"unknown session {value!r}{hint}")


def current_session(layout: Layout, requested: str | None) -> str:
    """The session a command works on: `--session`, else the single active one."""
    if requested:
        return require_session(layout, requested)
    active = active_ids(layout)
    if len(active) == 1:
        return require_session(layout, active[0])
    if not active:
        dangling = marker_ids(layout)
        if dangling:
            archived = _is_session_dir(layout, dangling[0])
            raise WfsError(
                f"the active marker .active-{dangling[0]} names "
                + ("an archived session" if archived else "no session folder")
                + "; run `wfs doctor --fix`, or pick a session with `wfs switch ID`"
            )
        raise WfsError(
            "no active session; create one with `wfs plan TOPIC` or pick one with `wfs switch ID`"
        )
    listing = "\n".join(f"  - {sid}" for sid in active)
    raise WfsError(
        f"Multiple active sessions found:\n{listing}\n"
        "Please specify which session to work with: --session ID (or `wfs switch ID`)"
    )


def load_session(layout: Layout, sid: str) -> dict[str, Any]:
    """The session file of `sid`. A session folder without one reads as `{}` (what the
    seed asks of a session is derived from its tasks; `status` and `validate` say the
    file is missing); a file that is not a JSON object is an error (exit 2)."""
    path = layout.session_file(sid)
    if not path.exists() and path.parent.is_dir():
        return {}
    data = store.read_json(path, layout.relative(path))
    if not isinstance(data, dict):
        raise WfsError(f"{layout.relative(path)}: expected a JSON object, got {json_kind(data)}")
    return data


def lifecycle(layout: Layout, sid: str, data: dict[str, Any], folder: Path | None = None) -> str:
    """active, paused or completed: the session's status in wfs's terms. Another tool's
    status (planning, review_in_progress) reads as active or paused by where the
    session is; an archived session is completed."""
    folder = folder or layout.session_dir(sid)
    if layout.place_of(folder) == ARCHIVE_DIR:
        return "completed"
    status = data.get("status")
    if status in SESSION_STATUSES:
        return str(status)
    return "active" if sid in active_ids(layout) else "paused"


def canonical_session(
    layout: Layout, sid: str, data: dict[str, Any], index: Any, folder: Path | None = None
) -> dict[str, Any]:
    """The session file with what the seed asks of it that it lacks: session_id, type
    (the complexity), current_phase, status and progress, derived from the folder and
    the tasks. What it holds is kept as it is (another tool's `type: workflow` or
    `status: planning` included)."""
    from wfs.tasks import session_facts

    facts = session_facts(data, index.tally())
    new = dict(data)
    new.setdefault("session_id", sid)
    if "type" not in new:
        new["type"] = facts["complexity"]
    if "current_phase" not in new:
        new["current_phase"] = facts["phase"]
    if "status" not in new:
        new["status"] = lifecycle(layout, sid, data, folder)
    if "progress" not in new:
        new["progress"] = {
            "completed_phases": facts["completed_phases"],
            "current_tasks": facts["current_tasks"],
        }
    return new


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
) -> str:
    """Make `WFS-<slug>` with only its session file, two views and `.task/` (holding
    `tasks`, already validated), in the project's layout, and make it the single
    active session."""
    from wfs import render
    from wfs.edit import refresh_session
    from wfs.tasks import TaskIndex

    slug = check_topic(topic)
    init(layout)
    with store.locked(layout.root_lock, ".workflow"):
        sid = next(c for c in session_id_candidates(slug) if not _name_taken(layout, c))
        session_dir = layout.new_session_dir(sid)
        # Built aside and renamed into place, so a session folder is never half made.
        staging = layout.workflow / f".{sid}.new"
        if staging.exists():
            store.remove_tree(staging)
        store.make_dirs(staging / ".task")
        tasks = tasks or []
        data = new_session_data(sid, topic, session_type or "simple")
        if plan:
            data["plan"] = plan
        data = refresh_session(data, TaskIndex(tasks).tally())
        for task in tasks:
            store.write_json(staging / ".task" / f"{task['id']}.json", task)
        store.write_json(staging / SESSION_FILE, data)
        render.write_views(staging, data, tasks)
        store.move(staging, session_dir)
        _make_only_active(layout, sid)
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


def _make_only_active(layout: Layout, sid: str) -> None:
    previous = active_ids(layout)
    load_session(layout, sid)  # refuse a broken target before touching any marker
    folder = layout.session_dir(sid)
    if layout.place_of(folder) == ARCHIVE_DIR:
        _move(layout, sid, folder, layout.workflow / ACTIVE_DIR / sid)
    # The new marker is created first: a crash in between leaves several markers, and
    # recovery keeps the newest, which is this one.
    store.touch(layout.marker(sid))
    _set_status(layout, sid, "active", only_if=("paused", "completed", None))
    for other in sorted(set(marker_ids(layout)) | set(previous)):
        if other == sid:
            continue
        if _is_session_dir(layout, other):
            try:
                _set_status(layout, other, "paused", only_if=("active",))
            except WfsError:
                pass  # a broken session file is left for `wfs doctor` to report
        store.remove(layout.workflow / (MARKER_PREFIX + other))


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
    layout: Layout, sid: str, status: str, only_if: tuple[str | None, ...] | None = None
) -> None:
    """Set the session's status; with `only_if`, only when it is one of those (None: it
    has none), so that a status written by another tool (`planning`) is left alone."""
    with store.locked(layout.session_lock(sid), sid):
        data = load_session(layout, sid)
        if only_if is not None and data.get("status") not in only_if:
            return
        if data.get("status") != status:
            data["status"] = status
            save_session(layout, sid, data)
            # IMPL_PLAN.md shows the status; a stale view would fail `wfs render --check`.
            from wfs import render
            from wfs.index import load_skeletons

            render.write_views(layout.session_dir(sid), data, load_skeletons(layout, sid))


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
            if not _is_session_name(folder.name):
                continue
            if kind == MARKERS_LAYOUT:
                target = layout.workflow / folder.name
            elif folder.place == ARCHIVE_DIR:
                continue
            else:
                done = _status(layout, folder.name) == "completed" and folder.name not in active
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
        moves = []
        for folder, target in plan:
            _move(layout, folder.name, folder.path, target)
            moves.append((layout.relative(folder.path), layout.relative(target)))
            if kind == MARKERS_LAYOUT and folder.place == ARCHIVE_DIR:
                _set_status(layout, folder.name, "completed")
        if kind == MARKERS_LAYOUT:
            for sid in sorted(active):
                store.touch(layout.marker(sid))
            for place in (ACTIVE_DIR, ARCHIVE_DIR):
                store.guard(layout.workflow / place / "_")
                try:
                    (layout.workflow / place).rmdir()
                except OSError:
                    pass  # not empty (something else lives there) or absent
        else:
            store.make_dirs(layout.workflow / ACTIVE_DIR)
        return moves
