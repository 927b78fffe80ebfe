"""Finding sessions: where each one is, which are active, which one a command works on,
and what its session file says. Nothing here writes (wfs/lifecycle.py does).

Sessions live in `.workflow/WFS-*`, `.workflow/active/WFS-*` or
`.workflow/archives/WFS-*` (wfs/layout.py). Which ones are active:

- the sessions named by `.workflow/.active-<id>` markers, when there is any;
- else (the `active/` layout without markers) every session in `active/` whose
  status is not `paused` or `completed`.

Archived sessions are completed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, NamedTuple

from wfs import maestro, store
from wfs.errors import WfsError
from wfs.layout import (
    ACTIVE_DIR,
    ARCHIVE_DIR,
    MARKER_PREFIX,
    PLACES,
    SESSION_PREFIX,
    Layout,
    check_session_id,
    check_topic,
    normalize_session_id,
    session_id_candidates,
)
from wfs.layout import SESSION_FILE as NAME
from wfs.schemas import SESSION_STATUSES
from wfs.tasks import session_facts, session_topic
from wfs.text import json_kind


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


def is_session_name(name: str) -> bool:
    if is_placeholder_name(name):
        return False
    try:
        check_session_id(name)
    except WfsError:
        return False
    return True


def session_ids(layout: Layout) -> list[str]:
    """Every session in the project (each once, wherever it is), sorted."""
    return sorted({f.name for f in session_folders(layout) if is_session_name(f.name)})


def topic_session(layout: Layout, topic: str) -> str | None:
    """The session `wfs plan TOPIC` made for this topic before (`WFS-<slug>`), if any."""
    base = session_id_candidates(check_topic(topic))[0]
    return base if base in session_ids(layout) else None


def ids_in(layout: Layout, place: str) -> list[str]:
    return sorted(
        f.name for f in session_folders(layout) if f.place == place and is_session_name(f.name)
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
    return [sid for sid in ids_in(layout, ACTIVE_DIR) if file_status(layout, sid) not in STOPPED]


STOPPED = ("paused", "completed")


def file_status(layout: Layout, sid: str) -> Any:
    try:
        return load_session(layout, sid).get("status")
    except WfsError:
        return None  # a broken session file is reported where it is read


def _is_live_session(layout: Layout, sid: str) -> bool:
    """A session folder exists for `sid`, outside `archives/`."""
    if not is_session_name(sid):
        return False
    folder = layout.session_dir(sid)
    return folder.is_dir() and layout.place_of(folder) != ARCHIVE_DIR


def is_session_dir(layout: Layout, sid: str) -> bool:
    try:
        return layout.session_dir(sid).is_dir()
    except WfsError:
        return False


def session_warnings(layout: Layout, sid: str) -> list[str]:
    """What is odd about one session's folder: copies in other places, no session file."""
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
        if not is_session_name(name):
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
    import difflib  # deferred: only on this error path

    known = session_ids(layout)
    close = difflib.get_close_matches(sid, known, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    if not known:
        hint = "; there are no sessions yet (`wfs plan TOPIC --empty` starts one)"
    raise WfsError(f"unknown session {value!r}{hint}")


def unfinished_ids(layout: Layout) -> list[str]:
    """The sessions a person may go on with: every session the project lists
    (session_ids) that is neither archived nor completed, sorted, but those imported
    from a Maestro-Flow plan, which are run through their plan (`wfs execute --all`
    with no session chosen). A session whose file cannot be read counts as unfinished
    (it is reported where it is read)."""
    imported = set(imported_sessions(layout).values())
    return [
        sid
        for sid in session_ids(layout)
        if layout.place_of(layout.session_dir(sid)) != ARCHIVE_DIR
        and sid not in imported
        and file_status(layout, sid) != "completed"
    ]


# Who hears which session a command chose by itself (current_session): the CLI prints
# it on stderr (`telling`); elsewhere (the MCP server, the board's requests) nobody does.
_TELL: ContextVar[Callable[[str], None] | None] = ContextVar("wfs_session_tell", default=None)


@contextmanager
def telling(tell: Callable[[str], None]) -> Iterator[None]:
    """Within it, `tell` hears each session that current_session chose by itself."""
    token = _TELL.set(tell)
    try:
        yield
    finally:
        _TELL.reset(token)


def current_session(layout: Layout, requested: str | None) -> str:
    """The session a command works on: `--session`, else the single active one, else,
    when no session is active (a fresh clone: the markers are each person's own), the
    only unfinished one, which it tells (`telling`) and leaves unmarked. An empty
    `--session ''` is refused, not read as none."""
    if requested is not None:
        return require_session(layout, requested)
    active = active_ids(layout)
    if len(active) == 1:
        return require_session(layout, active[0])
    if active:
        listing = "\n".join(f"  - {sid}" for sid in active)
        raise WfsError(
            f"Multiple active sessions found:\n{listing}\n"
            "Please specify which session to work with: --session ID (or `wfs switch ID`)"
        )
    dangling = marker_ids(layout)
    if dangling:
        archived = is_session_dir(layout, dangling[0])
        raise WfsError(
            f"the active marker .active-{dangling[0]} names "
            + ("an archived session" if archived else "no session folder")
            + "; run `wfs doctor --fix`, or pick a session with `wfs switch ID`"
        )
    unfinished = unfinished_ids(layout)
    if len(unfinished) == 1:
        sid = require_session(layout, unfinished[0])
        tell = _TELL.get()
        if tell is not None:
            tell(
                f"no session is active here; using {sid}, the only unfinished one "
                f"(`wfs switch {sid}` makes it your active session)"
            )
        return sid
    raise WfsError(no_session_message(layout, unfinished) + maestro_hint(layout))


def no_session_message(layout: Layout, unfinished: list[str]) -> str:
    """Why no session was chosen, and the ways on: the unfinished sessions to switch to,
    else how to start one."""
    if unfinished:
        rows = []
        for sid in unfinished:
            try:
                data = load_session(layout, sid)
            except WfsError:
                data = {}
            # On this line only (the CLI escapes control characters); "active" in the
            # file says nothing here, where no marker is.
            topic = " ".join((session_topic(data) or "").split())[:80]
            status = " ".join(shown_status(layout, sid, data).split())[:40]
            shown = "" if status == "active" else f" ({status})"
            rows.append(f"  - {sid}{shown}" + (f": {topic}" if topic else ""))
        return (
            f"no session is active here, and {len(unfinished)} are unfinished:\n"
            + "\n".join(rows)
            + "\npick yours with `wfs switch ID`, or name one with --session ID"
        )
    start = "`wfs plan TOPIC --empty` starts one with no tasks (then `wfs task add`)"
    if session_ids(layout):
        return (
            f"no session is active here, and every session is completed: {start}, or "
            "`wfs switch ID` goes back to one"
        )
    return f"no session yet: {start}; `wfs plan --help` shows the other ways to plan"


def load_session(layout: Layout, sid: str) -> dict[str, Any]:
    """The session file of `sid`. A session folder without one reads as `{}` (what the
    seed asks of a session is derived from its tasks; `status` and `validate` say the
    file is missing); a file that is not a JSON object is an error (exit 2)."""
    return load_session_document(layout, sid)[0]


def load_session_document(layout: Layout, sid: str) -> tuple[dict[str, Any], bytes | None]:
    """The session file of `sid` as `load_session` reads it, and its bytes (None when
    there is no file), to write it back as it is laid out (wfs.jsonedit.rewrite)."""
    path = layout.session_file(sid)
    if not path.exists() and path.parent.is_dir():
        return {}, None
    data, raw = store.read_document(path, layout.relative(path))
    if not isinstance(data, dict):
        raise WfsError(f"{layout.relative(path)}: expected a JSON object, got {json_kind(data)}")
    return data, raw


def session_status(
    layout: Layout, sid: str, data: dict[str, Any], folder: Path | None = None
) -> str:
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


def shown_status(layout: Layout, sid: str, data: dict[str, Any]) -> str:
    """The status to show: the file's, as it says it (`planning`, another tool's, too);
    derived as `session_status` does when the file has none."""
    status = data.get("status")
    if isinstance(status, str) and status.strip():
        return status
    return session_status(layout, sid, data)


def canonical_session(
    layout: Layout, sid: str, data: dict[str, Any], index: Any, folder: Path | None = None
) -> dict[str, Any]:
    """The session file with what the seed asks of it that it lacks: session_id, type
    (the complexity), current_phase, status and progress, derived from the folder and
    the tasks. What it holds is kept as it is (another tool's `type: workflow` or
    `status: planning` included)."""
    facts = session_facts(data, index.tally())
    new = dict(data)
    new.setdefault("session_id", sid)
    if "type" not in new:
        new["type"] = facts["complexity"]
    if "current_phase" not in new:
        new["current_phase"] = facts["phase"]
    if "status" not in new:
        new["status"] = session_status(layout, sid, data, folder)
    if "progress" not in new:
        new["progress"] = {
            "completed_phases": facts["completed_phases"],
            "current_tasks": facts["current_tasks"],
        }
    return new


# ---------------------------------------------------------------- Maestro-Flow sessions


def imported_sessions(layout: Layout) -> dict[str, str]:
    """Maestro-Flow plan (its path, as the session file records it) -> the wfs session
    imported from it (the first, by id)."""
    found: dict[str, str] = {}
    for sid in session_ids(layout):
        try:
            record = load_session(layout, sid).get(maestro.RECORD)
        except WfsError:
            continue  # a broken session file is reported where it is read
        source = record.get("session") if isinstance(record, dict) else None
        if isinstance(source, str):
            found.setdefault(source, sid)
    return found


def maestro_hint(layout: Layout) -> str:
    """What a message that finds no session adds when the project has Maestro-Flow
    plans (nothing otherwise): their names, and how to run them."""
    found = maestro.find_plans(layout)
    if not found:
        return ""
    names = ", ".join(f.name for f in found[:5]) + (
        f" and {len(found) - 5} more" if len(found) > 5 else ""
    )
    return (
        f"; this project has {maestro.MAESTRO} plans: {names} "
        "(`wfs execute --all` runs them; `wfs status` lists them)"
    )
