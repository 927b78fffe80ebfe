"""The Maestro-Flow plans of a project as the commands show them.

`session list`, `status`, `next`, `validate`, `doctor` and the board name every plan
wfs.maestro finds, each with its tasks counted: as the wfs session imported from it
counts them once there is one, else as Maestro's own files say (a task is done when
its status says so, or Maestro wrote its summary, or a later run completed it). A plan
that cannot be read is listed with the reason; `wfs validate --all` names the file.

Nothing here writes. `wfs execute --all` runs the plans that have tasks to do when no
wfs session is active (wfs/commands/execute.py), each in a wfs session of its own.
"""

from __future__ import annotations

from typing import Any

from wfs import maestro
from wfs.errors import WfsError
from wfs.index import answers
from wfs.layout import Layout
from wfs.sessions import imported_sessions
from wfs.tasks import TaskIndex, skeleton

KIND_NAMES = {
    "session": f"{maestro.MAESTRO} session",
    "scratch": f"{maestro.MAESTRO} scratch plan",
    "milestone": f"{maestro.MAESTRO} milestone plan",
    "phase": f"{maestro.MAESTRO} phase plan",
    "lite-plan": "lite-plan",
    "quick": f"{maestro.MAESTRO} quick task",
    "plan": "plan folder",
}
READY_SHOWN = 5  # ready tasks named per plan


def plan_rows(layout: Layout, found: list[maestro.Found] | None = None) -> list[dict[str, Any]]:
    """Each Maestro-Flow plan: `name` (under .workflow/), `kind`, `path`, `tasks` and
    `completed` (counted), `ready` (the Maestro ids of its ready tasks, when not yet
    imported), `imported_as` (the wfs session, or None), `import` (the command that
    makes one), and `error` instead of the counts when it cannot be read."""
    found = maestro.find_plans(layout) if found is None else found
    imported = imported_sessions(layout) if found else {}
    rows = []
    for plan in found:
        path = layout.relative(plan.path)
        row: dict[str, Any] = {
            "name": plan.name,
            "kind": plan.kind,
            "path": path,
            "import": maestro.import_command(layout, plan),
            "imported_as": imported.get(path),
        }
        try:
            row.update(_counts(layout, row["imported_as"], path))
        except WfsError as err:
            row["error"] = err.message
        rows.append(row)
    return rows


def _counts(layout: Layout, sid: str | None, path: str) -> dict[str, Any]:
    if sid is not None:
        progress = answers(layout, sid)["summary"]["progress"]
        return {"tasks": progress["total"], "completed": progress["completed"]}
    imported = maestro.read_plan(layout, path)
    source = {new: old for old, new in imported.fields[maestro.RECORD]["ids"].items()}
    index = TaskIndex([skeleton(task, 0) for _, task in imported.tasks])
    leaves = index.leaves()
    done = sum(1 for tid in leaves if index.effective_status(tid) == "completed")
    return {
        "tasks": len(leaves),
        "completed": done,
        "ready": [source.get(tid, tid) for tid in index.ready()],
    }


def to_do(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plans with tasks left to do (and those that cannot be read, which a run names)."""
    return [r for r in rows if "error" in r or r["completed"] < r["tasks"]]


def label(row: dict[str, Any]) -> str:
    """`scratch/x (Maestro-Flow scratch plan): 2 of 4 tasks completed, in WFS-x`."""
    what = f"{row['name']} ({KIND_NAMES.get(row['kind'], row['kind'])})"
    if "error" in row:
        return f"{what}: cannot be read: {row['error'].splitlines()[0]}"
    text = f"{what}: {row['completed']} of {row['tasks']} tasks completed"
    if row["imported_as"]:
        return f"{text}, in {row['imported_as']}"
    ready = row.get("ready") or []
    if ready:
        more = f" and {len(ready) - READY_SHOWN} more" if len(ready) > READY_SHOWN else ""
        text += f"; ready: {', '.join(ready[:READY_SHOWN])}{more}"
    return text


def plan_lines(rows: list[dict[str, Any]], session_active: bool) -> list[str]:
    """The plans, one line each, then how to run them (`session_active`: a wfs session
    is active, which `wfs execute --all` runs instead)."""
    if not rows:
        return []
    lines = [f"{maestro.MAESTRO} plans:"] + [f"  {label(row)}" for row in rows]
    waiting = to_do(rows)
    if session_active and any(not row["imported_as"] for row in waiting):
        lines.append("  (`wfs import PATH` makes a wfs session of one)")
    elif waiting and not session_active:
        lines.append(
            "  (`wfs execute --all` runs each plan with tasks to do, in a wfs session of its own)"
        )
    return lines
