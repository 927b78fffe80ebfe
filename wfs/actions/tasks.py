"""Changes to one task: its status, a task added, a task expanded by the planning agent."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wfs.errors import WfsError
from wfs.index import load_skeletons
from wfs.layout import Layout, check_task_id
from wfs.sessions import (
    current_session,
)
from wfs.tasks import read_task, unknown_task


def task_status(
    layout: Layout, requested: str | None, task_id: str, status: str
) -> tuple[dict[str, Any], str]:
    """`wfs task status ID STATUS`: (what --json prints, the line printed otherwise)."""
    from wfs.edit import set_status  # deferred: only a write loads the writers

    set_status(layout, current_session(layout, requested), check_task_id(task_id), status)
    return {"task": task_id, "status": status}, f"{task_id}: {status}"


def task_add(
    layout: Layout,
    requested: str | None,
    task_id: str | None = None,
    parent: str | None = None,
    data: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[dict[str, Any], str]:
    """`wfs task add`: (what --json prints, the line printed otherwise). `options`: the
    field options of wfs.edit.task_fields; `data`: the object of `--from`."""
    from wfs.edit import add_task, task_fields  # deferred: only a write loads the writers

    given = {
        "title": None,
        "task_type": None,
        "agent": None,
        "depends": (),
        "requirements": (),
        "acceptance": (),
        "focus": (),
        **options,
    }
    fields = task_fields(data, **given)
    if task_id is not None:
        fields["id"] = check_task_id(task_id)
    if not fields.get("title"):
        raise WfsError("a task needs --title (or a title in --from)")
    created = add_task(layout, current_session(layout, requested), fields, parent=parent)
    return {"task": created}, created["id"]


def expand_brief(layout: Layout, requested: str | None, task_id: str) -> tuple[str, str, str]:
    """(session, task, the brief `wfs task expand` hands the planning agent)."""
    from wfs import planning  # deferred: only planning with an agent loads it

    sid = current_session(layout, requested)
    tid = check_task_id(task_id)
    skeletons = load_skeletons(layout, sid)
    ids = [str(t.get("id")) for t in skeletons]
    if tid not in ids:
        raise unknown_task(tid, ids)
    if any(i.startswith(f"{tid}.") for i in ids):
        raise WfsError(f"{tid} is already split into subtasks")
    task = read_task(layout, sid, tid)
    if task.get("status") in ("active", "completed"):
        raise WfsError(
            f"{tid} is {task.get('status')}; only a pending or blocked task can be split"
        )
    siblings = [(t.get("id"), t.get("title", ""), t.get("status", "")) for t in skeletons]
    return sid, tid, planning.expand_brief(layout, sid, task, siblings)


def expand_task(
    layout: Layout,
    requested: str | None,
    task_id: str,
    command: str,
    rounds: int,
    progress: Callable[[str], None],
) -> dict[str, Any]:
    """`wfs task expand ID`: the planning agent's subtasks of the task, validated and
    written as `task split --from` writes them, or nothing."""
    from wfs import edit, planning  # deferred: only planning with an agent loads it

    sid, tid, brief = expand_brief(layout, requested, task_id)

    def accept(raw: bytes, where: str) -> list[Any]:
        return edit.split_task(layout, sid, tid, raw, where)

    created, used = planning.converse(
        layout,
        command,
        brief,
        accept,
        what="subtask array",
        name=f"{tid}-subtasks.json",
        rounds=rounds,
        progress=progress,
    )
    return {"session": sid, "task": tid, "subtasks": [t["id"] for t in created], "rounds": used}
