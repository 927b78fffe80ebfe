"""Session lifecycle: create, find, switch, pause, resume, complete.

A session is active when its marker `.workflow/.active-<id>` exists. Changes to
markers happen under the root lock; changes to a session file under its session lock
(always taken in that order).
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any

from wfs import store
from wfs.errors import WfsError
from wfs.layout import (
    GITIGNORE,
    MARKER_PREFIX,
    SESSION_FILE,
    SESSION_PREFIX,
    Layout,
    check_topic,
    normalize_session_id,
    session_id_candidates,
)

SESSION_STATUSES = ("active", "paused", "completed")
PHASES = ("PLAN", "IMPLEMENT", "REVIEW")
TYPES = ("simple", "medium", "complex")


def init(layout: Layout) -> bool:
    """Create `.workflow/` and its `.gitignore`; True when anything was written."""
    created = False
    if not layout.workflow.is_dir():
        layout.workflow.mkdir(parents=True)
        created = True
    gitignore = layout.workflow / ".gitignore"
    if not gitignore.exists():
        store.write_text(gitignore, GITIGNORE)
        created = True
    return created


def session_ids(layout: Layout) -> list[str]:
    """Every session folder in `.workflow/`, sorted."""
    try:
        entries = list(os.scandir(layout.workflow))
    except FileNotFoundError:
        return []
    return sorted(e.name for e in entries if e.name.startswith(SESSION_PREFIX) and e.is_dir())


def marker_ids(layout: Layout) -> list[str]:
    """The session ids named by `.active-*` markers, sorted (they may point nowhere)."""
    try:
        entries = list(os.scandir(layout.workflow))
    except FileNotFoundError:
        return []
    return sorted(e.name[len(MARKER_PREFIX) :] for e in entries if e.name.startswith(MARKER_PREFIX))


def active_ids(layout: Layout) -> list[str]:
    """Active sessions: markers that name an existing session folder."""
    return [sid for sid in marker_ids(layout) if _is_session_dir(layout, sid)]


def _is_session_dir(layout: Layout, sid: str) -> bool:
    try:
        return layout.session_dir(sid).is_dir()
    except WfsError:
        return False


def require_session(layout: Layout, value: str) -> str:
    """The id of an existing session named `WFS-x` or `x`; exit 2 with close matches."""
    sid = normalize_session_id(value)
    folder = layout.session_dir(sid)
    if folder.is_dir():
        if folder.is_symlink():
            layout.check_inside(folder)
        return sid
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
            raise WfsError(
                f"the active marker .active-{dangling[0]} names no session folder; "
                "run `wfs doctor --fix`, or pick a session with `wfs switch ID`"
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
    path = layout.session_file(sid)
    data = store.read_json(path, layout.relative(path))
    if not isinstance(data, dict):
        raise WfsError(
            f"{layout.relative(path)}: expected a JSON object, got {type(data).__name__}"
        )
    return data


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
    `tasks`, already validated), and make it the single active session."""
    from wfs import render
    from wfs.edit import refresh_session
    from wfs.tasks import TaskIndex

    slug = check_topic(topic)
    init(layout)
    with store.locked(layout.root_lock, ".workflow"):
        sid = next(
            c for c in session_id_candidates(slug) if not os.path.lexists(layout.workflow / c)
        )
        session_dir = layout.session_dir(sid)
        # Built aside and renamed into place, so a session folder is never half made.
        staging = layout.workflow / f".{sid}.new"
        if staging.exists():
            _remove_tree(staging)
        (staging / ".task").mkdir(parents=True)
        tasks = tasks or []
        data = new_session_data(sid, topic, session_type or "simple")
        if plan:
            data["plan"] = plan
        data = refresh_session(data, TaskIndex(tasks))
        for task in tasks:
            store.write_json(staging / ".task" / f"{task['id']}.json", task)
        store.write_json(staging / SESSION_FILE, data)
        render.write_views(staging, data, tasks)
        os.replace(staging, session_dir)
        _make_only_active(layout, sid)
    return sid


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path)


def switch(layout: Layout, value: str) -> str:
    """Make the session the single active one; previously active ones become paused."""
    sid = require_session(layout, value)
    with store.locked(layout.root_lock, ".workflow"):
        _make_only_active(layout, sid)
    return sid


def _make_only_active(layout: Layout, sid: str) -> None:
    load_session(layout, sid)  # refuse a broken target before touching any marker
    # The new marker is created first: a crash in between leaves several markers, and
    # recovery keeps the newest, which is this one.
    marker = layout.marker(sid)
    marker.touch()
    os.utime(marker)
    _set_status(layout, sid, "active")
    for other in marker_ids(layout):
        if other == sid:
            continue
        if _is_session_dir(layout, other):
            try:
                _set_status(layout, other, "paused", only_if="active")
            except WfsError:
                pass  # a broken session file is left for `wfs doctor` to report
        (layout.workflow / (MARKER_PREFIX + other)).unlink(missing_ok=True)


def _set_status(layout: Layout, sid: str, status: str, only_if: str | None = None) -> None:
    with store.locked(layout.session_lock(sid), sid):
        data = load_session(layout, sid)
        if only_if is not None and data.get("status") != only_if:
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
        layout.marker(sid).unlink(missing_ok=True)


def complete(layout: Layout, sid: str) -> None:
    with store.locked(layout.root_lock, ".workflow"):
        _set_status(layout, sid, "completed")
        layout.marker(sid).unlink(missing_ok=True)
