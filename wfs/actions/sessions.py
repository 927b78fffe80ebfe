"""Sessions: the active one switched, one paused, completed or archived, and their
files migrated to the current format and layout."""

from __future__ import annotations

from typing import Any

from wfs.layout import Layout
from wfs.sessions import (
    active_ids,
    current_session,
    session_folders,
    session_ids,
)


def switch(layout: Layout, value: str) -> dict[str, Any]:
    """`wfs switch ID`: make it the single active session; say which ones were paused."""
    from wfs.lifecycle import switch as make_active  # deferred: only a change of session loads it

    before = active_ids(layout)
    sid = make_active(layout, value)
    return {"session": sid, "status": "active", "paused": [s for s in before if s != sid]}


def change_session(layout: Layout, action: str, requested: str | None) -> dict[str, Any]:
    """`wfs session pause|resume|complete`."""
    from wfs import lifecycle  # deferred: only a change of session loads it

    sid = current_session(layout, requested)
    if action == "resume":
        lifecycle.switch(layout, sid)
        status = "active"
    elif action == "pause":
        lifecycle.pause(layout, sid)
        status = "paused"
    else:
        lifecycle.complete(layout, sid)
        status = "completed"
    return {"session": sid, "status": status}


def migrate(layout: Layout, requested: str | None, every: bool) -> dict[str, list[str]]:
    """`wfs migrate [--all]`: session (or copy of one) -> the files rewritten."""
    from wfs.edit import migrate as rewrite  # deferred: only a write loads the writers

    if not every:
        sid = current_session(layout, requested)
        return {sid: rewrite(layout, sid)}
    # every copy of every session (validate --all reads them all)
    names = session_ids(layout)
    return {
        (f.name if f.path == layout.session_dir(f.name) else layout.relative(f.path)): (
            rewrite(layout, f.name, f.path)
        )
        for f in session_folders(layout)
        if f.name in names
    }


def migrate_layout(layout: Layout, target: str) -> dict[str, Any]:
    """`wfs migrate --layout markers|active`: every session moved into that layout."""
    from wfs.lifecycle import convert_layout  # deferred: only a change of session loads it

    moves = convert_layout(layout, target)
    return {"layout": target, "moved": [{"from": a, "to": b} for a, b in moves]}
