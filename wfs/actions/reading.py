"""What the commands that read answer: status, prime, next, task show and list, the
sessions and a session."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wfs import jsonio, leases
from wfs import prime as digests
from wfs.command_forms import classify
from wfs.errors import WfsError
from wfs.formats import canonical, dependencies, parent_task
from wfs.index import MAPS, answers, load_skeletons
from wfs.layout import Layout, check_task_id, task_sort_key
from wfs.plans import plan_rows
from wfs.query import command_prefix, next_data, one_line, show_data, status_data
from wfs.sessions import (
    active_ids,
    current_session,
    load_session,
    marker_ids,
    session_ids,
    session_warnings,
    shown_status,
    unfinished_ids,
)
from wfs.tasks import TaskIndex, obj, read_task, task_row, unknown_task


def status(layout: Layout, requested: str | None, root_option: str | None) -> dict[str, Any]:
    """`wfs status`: the session's summary, or `{"session": None}` when none is chosen
    (with the `unfinished` ones to choose from, when there are several)."""
    if requested is None and not active_ids(layout) and not marker_ids(layout):
        unfinished = unfinished_ids(layout)
        if len(unfinished) != 1:  # the only unfinished one is chosen by current_session
            found = plan_rows(layout)
            return {
                "session": None,
                **({"unfinished": unfinished} if unfinished else {}),
                **({"maestro": found} if found else {}),
            }

    sid = current_session(layout, requested)
    prefix = command_prefix(sid, root_option)
    summary = status_data(_summary(layout, sid), prefix, task_path(layout, sid))
    name_running_steps(layout, sid, summary["stopped"])
    holders = leases.status_holders(layout, sid)  # no git runs without a claims remote
    if holders:
        summary["claims"] = [leases.shown(lease) for lease in holders]
    if summary.get("stuck"):
        summary["stuck"] = explain_stuck(layout, sid, summary["stuck"])
    warnings = session_warnings(layout, sid)  # a copy in another place, no session file
    if warnings:
        summary["warnings"] = warnings
    found = plan_rows(layout)
    if found:
        summary["maestro"] = found
    return summary


def name_running_steps(layout: Layout, sid: str, stopped: list[dict[str, Any]]) -> None:
    """Give each running task's entry the step it is at (`step`, its key, and
    `step_name`), for a person to read."""
    for entry in stopped:
        if entry["state"] == "running":
            found = running_step(layout, sid, entry["id"])
            if found is not None:
                entry["step"], entry["step_name"] = found


def running_step(layout: Layout, sid: str, tid: str) -> tuple[str, str] | None:
    """(key, name) of the step a running task is at, from its run record and output log
    (as `wfs log` reads them); None when none runs (it is starting, or tidying up)."""
    from wfs.flow import runlog, session_run  # deferred: only a running task is looked into

    try:
        events = runlog.snapshot(session_run.runner(layout, sid).context, tid)[0]
    except WfsError:
        return None
    steps = events[0]["steps"]
    return next(((s["step"], s["name"]) for s in steps if s["status"] == "running"), None)


def prime(layout: Layout, requested: str | None) -> tuple[str | None, str]:
    """`wfs prime`: (the session, its digest), or (None, how to start) when there is none."""
    if requested is None:
        active = active_ids(layout)
        if len(active) > 1:
            return None, digests.no_session_text(active)
        if not active and not marker_ids(layout) and len(unfinished_ids(layout)) != 1:
            return None, digests.no_session_text()
    sid = current_session(layout, requested)
    found = answers(layout, sid)
    prefix = command_prefix(sid)  # no --root: the editor runs the commands in the project
    summary = _summary(layout, sid, found)
    return sid, digests.digest(status_data(summary, prefix), found["next"], prefix)


def _summary(layout: Layout, sid: str, found: dict[str, Any] | None = None) -> dict[str, Any]:
    """The session's summary as the index holds it (`found`: its answers, when read
    already), with the status derived when the session file has none (it depends on
    the markers, which the index does not read)."""
    summary: dict[str, Any] = (found or answers(layout, sid))["summary"]
    if not isinstance(summary.get("status"), str) or not summary["status"].strip():
        summary = {**summary, "status": shown_status(layout, sid, load_session(layout, sid))}
    return summary


def next_tasks(
    layout: Layout, requested: str | None, all_ready: bool, root_option: str | None
) -> tuple[dict[str, Any], list[str]]:
    """`wfs next [--all]`: the next ready task (or all of them), and what holds the rest;
    then the task files that cannot be read (file:line:column: reason), which the
    command names after answering from every other task (exit 2). With no session
    active and Maestro-Flow plans in the project: each plan, with its ready tasks."""
    if requested is None and not active_ids(layout) and not marker_ids(layout):
        plans = plan_rows(layout)
        if plans:
            return {"session": None, "maestro": plans}, []
    sid = current_session(layout, requested)
    found = answers(layout, sid)
    prefix = command_prefix(sid, root_option)
    data = next_data(sid, found, all_ready, prefix, task_path(layout, sid))
    if data["stuck"]:
        data["stuck"] = explain_stuck(layout, sid, data["stuck"])
    return data, list(found["summary"].get("unreadable") or [])


def explain_stuck(layout: Layout, sid: str, stuck: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`stuck` (wfs.index.stuck_tasks) with each invalid task waited on explained by
    the first error `validate` reports in it, as the index keeps it."""
    return [
        {k: v for k, v in entry.items() if k != "error"}
        | {"reason": validate_line(layout, sid, entry["on"], entry["error"])}
        if entry.get("error")
        else entry
        for entry in stuck
    ]


def task_path(layout: Layout, sid: str) -> Callable[[str], str]:
    """The path of a task's file in session `sid`, relative to the project root."""
    return lambda tid: layout.relative(layout.task_file(sid, tid))


def validate_line(layout: Layout, sid: str, tid: str, error: str) -> str:
    """An error the index keeps for task `tid` (`#/pointer: rule: message`), as
    `validate` prints it: after the task file's path."""
    return task_path(layout, sid)(tid) + error


def show_task(
    layout: Layout, requested: str | None, task_id: str
) -> tuple[dict[str, Any], list[str]]:
    """`wfs task show ID --json`: the task JSON, its derived status, readiness and
    waits; then the task files that cannot be read (as `next_tasks`)."""
    _, _, data, unreadable = _shown(layout, requested, task_id)
    return data, unreadable


def _shown(
    layout: Layout, requested: str | None, task_id: str
) -> tuple[str, dict[str, Any], dict[str, Any], list[str]]:
    sid = current_session(layout, requested)
    found = answers(layout, sid, MAPS)  # no ready rows: one task is shown
    if check_task_id(task_id) not in found["status"]:
        raise unknown_task(task_id, found["status"])
    unreadable = list(found["summary"].get("unreadable") or [])
    # A task whose file cannot be read is shown as every read shows it: what its name
    # says (the index's skeleton), the file named after it.
    broken = [t for t in load_skeletons(layout, sid) if t["id"] == task_id and t.get("unreadable")]
    task = broken[0] if unreadable and broken else read_task(layout, sid, task_id)
    return sid, found, show_data(sid, found, task_id, task), unreadable


def task_card(
    layout: Layout, requested: str | None, task_id: str
) -> tuple[dict[str, Any], list[str]]:
    """`wfs task show ID` for a person: what wfs.query.show_lines shows (every
    value one line of text from the file, or a list of them); then the task files that
    cannot be read (as `next_tasks`)."""
    from wfs.flow.work import Uninterpretable, task_steps  # deferred: only this text reads steps

    sid, found, data, unreadable = _shown(layout, requested, task_id)
    task, statuses = data["task"], found["status"]
    seed = canonical(task).task
    meta, context, execution = obj(seed, "meta"), obj(seed, "context"), obj(seed, "execution")
    invalid = {s["id"]: s for s in found["summary"]["stopped"] if s["state"] == "invalid"}

    def invalid_reason(tid: str) -> str:
        """Why `execute` refuses task `tid`: the first error, as the index keeps it."""
        entry = invalid[tid]
        error = entry.get("error")
        return validate_line(layout, sid, tid, error) if error else entry["reason"]

    def dependency(tid: str) -> dict[str, str]:
        if tid not in statuses:
            return {"id": tid, "status": "does not exist"}
        return {"id": tid, "status": statuses[tid] + (", invalid" if tid in invalid else "")}

    def waits_on(tid: str) -> str:
        if tid not in statuses:
            return f"waits on {one_line(tid)}, which does not exist"
        if tid in invalid:
            return f"waits on {tid}, which is invalid: {one_line(invalid_reason(tid), 300)}"
        return f"waits on {tid} ({statuses[tid]})"

    status = data["status"]
    path = layout.task_file(sid, task_id)
    why: list[str] = []
    if status == "pending" and not data["children"]:
        if task_id in invalid:
            why.append(f"invalid: {one_line(invalid[task_id]['reason'], 300)}")
            if invalid[task_id].get("error"):
                why.append(f"first: {one_line(invalid_reason(task_id), 300)}")
        why += [waits_on(tid) for tid in data["waiting_on"]]
    elif status == "blocked" and not data["children"]:
        why.append(f"blocked: {one_line(execution.get('blocked_reason') or 'no reason recorded')}")
    elif status == "active" and execution.get("claimed_by"):
        why.append(f"claimed by {one_line(execution['claimed_by'])}")
    elif status == "active" and not data["children"]:
        why.append(f"paused: {one_line(execution.get('paused_reason') or 'paused')}")
    steps: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    steps_error = None
    plan = []
    if task.get("unreadable"):  # the index's skeleton: the file says nothing of its steps
        steps_error = "its file cannot be read"
    else:
        try:
            plan = task_steps(task)
        except Uninterpretable as err:
            steps_error = one_line(f"{layout.relative(path)}{err.message}", 300)
    for step in plan:
        row = {
            "key": step.key,
            "name": one_line(step.name),
            "parts": [
                {"kind": KIND_NAMES.get(c.kind, c.kind), "text": one_line(c.text, 300)}
                for c in map(classify, step.parts)
            ]
            or [{"kind": "agent", "text": one_line(_step_words(step.spec), 300)}],
            "checks": [
                f"{one_line(c.command, 300)} (must {'fail' if c.must_fail else 'pass'})"
                for c in step.checks
            ],
        }
        (checks if step.key.startswith("acceptance/") else steps).append(row)
    card = {
        "id": one_line(task_id),
        "title": one_line(seed.get("title") or "(no title)"),
        "status": status,
        "ready": data["ready"],
        "why": why,
        "type": one_line(meta.get("type") or "-"),
        "agent": one_line(meta.get("agent") or "-"),
        "parent": one_line(parent_task(task) or ""),
        "children": [{"id": c, "status": statuses.get(c, "?")} for c in data["children"]],
        "dependencies": [dependency(one_line(d)) for d in dependencies(task)],
        "focus_paths": _lines(context.get("focus_paths")),
        "acceptance": _lines(context.get("acceptance")),
        "steps": steps,
        "checks": checks,
        "steps_error": steps_error,
    }
    return card, unreadable


# How `task show` names the kinds of steps (wfs.command_forms.Command.kind).
KIND_NAMES = {"read": "Read", "glob": "Glob", "grep": "Grep"}


def _step_words(spec: dict[str, Any]) -> str:
    """What an agent step asks, in its author's words."""
    for field in ("description", "action", "task_description", "title", "step"):
        value = spec.get(field)
        if isinstance(value, str) and value.strip():
            return value
    return "(no description)"


def _lines(value: Any) -> list[str]:
    """A list of texts from a file (a single text counts as one), each on one line."""
    items = value if isinstance(value, list) else [value] if value else []
    return [
        one_line(item if isinstance(item, str) else jsonio.dumps(item).decode().strip(), 300)
        for item in items
    ]


def task_list(
    layout: Layout, requested: str | None, status: str | None, ready: bool
) -> tuple[dict[str, Any], list[str]]:
    """`wfs task list`: (what --json prints, the task files that cannot be read)."""
    sid = current_session(layout, requested)
    index = TaskIndex(load_skeletons(layout, sid))
    ids = index.ready() if ready else sorted(index.by_id, key=task_sort_key)
    rows = [task_row(index, tid) for tid in ids]
    if status:
        rows = [r for r in rows if ("container" if r["container"] else r["status"]) == status]
    return {"session": sid, "tasks": rows}, [
        t["unreadable"] for t in index.tasks if t.get("unreadable")
    ]


def session_list(
    layout: Layout,
) -> tuple[list[dict[str, Any]], list[str], list[dict[str, Any]]]:
    """`wfs session list`: a row per session, why the unreadable ones are, and the
    project's Maestro-Flow plans (wfs.plans.plan_rows)."""
    active = set(active_ids(layout))
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for sid in session_ids(layout):
        try:
            data = load_session(layout, sid)
        except WfsError as err:
            errors.append(err.message)
            rows.append({"id": sid, "active": sid in active, "error": err.message})
            continue
        # phase and type as the session file says them, else derived (docs/formats.md)
        summary = answers(layout, sid)["summary"]
        rows.append(
            {
                "id": sid,
                "active": sid in active,
                "status": shown_status(layout, sid, data),
                "phase": summary["phase"],
                "type": summary["type"],
                "project": summary["project"],
            }
        )
    return rows, errors, plan_rows(layout)


def session_show(layout: Layout, requested: str | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """`wfs session show`: (what --json prints, the summary its text shows)."""
    sid = current_session(layout, requested)
    summary = _summary(layout, sid)
    data = {
        "session": load_session(layout, sid),
        "active": sid in active_ids(layout),
        "path": layout.relative(layout.session_dir(sid)),
        "counts": summary["counts"],
        "progress": summary["progress"],
    }
    return data, summary
