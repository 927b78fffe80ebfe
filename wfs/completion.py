"""Shell completion of session and task ids: click `shell_complete=` callbacks.

They run on every TAB press, so they only list session folders and read the cached
task index, and they never fail: in a broken project they complete nothing rather
than print a traceback into the user's shell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from wfs.errors import WfsError
from wfs.index import load_skeletons
from wfs.layout import SESSION_PREFIX, Layout, find_root, task_sort_key
from wfs.sessions import active_ids, current_session, load_session, session_ids, shown_status
from wfs.tasks import TaskIndex, session_topic

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

    from wfs.layout import Layout


def _layout(ctx: click.Context) -> Layout:
    return Layout(find_root(ctx.find_root().params.get("root")))


def session_candidates(layout: Layout, incomplete: str) -> list[tuple[str, str]]:
    """(value, help) for each session whose id, or id without `WFS-`, starts with
    `incomplete` (ignoring case); the help is its status and topic."""
    active = set(active_ids(layout))
    prefix = incomplete.lower()
    rows = []
    for sid in session_ids(layout):
        short = sid[len(SESSION_PREFIX) :]
        if sid.lower().startswith(prefix):
            value = sid
        elif short.startswith(prefix):
            value = short
        else:
            continue
        try:
            data = load_session(layout, sid)
        except WfsError:
            rows.append((value, "unreadable"))
            continue
        mark = "active" if sid in active else shown_status(layout, sid, data)
        topic = session_topic(data)
        rows.append((value, f"{mark}: {topic}" if topic else mark))
    return rows


def task_candidates(layout: Layout, sid: str, incomplete: str) -> list[tuple[str, str]]:
    """(value, help) for each task of session `sid` whose id starts with `incomplete`
    (ignoring case), in id order; the help is its status and title."""
    index = TaskIndex(load_skeletons(layout, sid))
    prefix = incomplete.lower()
    return [
        (tid, f"{index.effective_status(tid)}: {index.by_id[tid].get('title')}")
        for tid in sorted(index.by_id, key=task_sort_key)
        if tid.lower().startswith(prefix)
    ]


def _items(rows: list[tuple[str, str]]) -> list[CompletionItem]:
    from click.shell_completion import CompletionItem  # deferred: only shell completion needs it

    return [CompletionItem(value, help=help_text) for value, help_text in rows]


def complete_session_id(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    try:
        return _items(session_candidates(_layout(ctx), incomplete))
    except Exception:  # completion is best effort; see the module docstring
        return []


def complete_task_id(
    ctx: click.Context, _param: click.Parameter, incomplete: str
) -> list[CompletionItem]:
    """Tasks of the session named by the global --session, else of the active one."""
    try:
        layout = _layout(ctx)
        sid = current_session(layout, ctx.find_root().params.get("session"))
        return _items(task_candidates(layout, sid, incomplete))
    except Exception:  # completion is best effort; see the module docstring
        return []
