"""What the board shows, as plain data: the board of a session, a task's detail, and
the session's stamp (what changes when any file the board reads changes).

Everything is read through the functions the CLI reads (wfs.actions for the summary,
the index and TaskIndex for statuses, readiness and unmet dependencies, wfs.leases for
the claims, the run record and output log through wfs.flow.runlog for the steps); the
Markdown views are never parsed. Text from files is passed on as it is: the page shows
it as text. The one exception is a task's summary, rendered to HTML here by
markdown-it-py with raw HTML off (shown as text), images off (no request leaves the
page) and its link check on (no `javascript:` link).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from functools import cache
from typing import Any

from wfs import actions, gitfiles, jsonio, leases, platform, store
from wfs.errors import WfsError
from wfs.flow import runlog, schedule, session_run
from wfs.flow.record import RUNS_DIR
from wfs.index import (
    MAPS,
    answers,
    compute_answers,
    load_skeletons,
    named_by_file,
    unreadable_skeleton,
)
from wfs.layout import SUMMARY_DIR, Layout, check_task_id, task_sort_key
from wfs.plans import plan_rows
from wfs.query import command_prefix, stopped_view, stuck_text
from wfs.sessions import current_session
from wfs.tasks import (
    TaskIndex,
    depends_on,
    obj,
    parent_id,
    read_task,
    skeleton,
    unknown_task,
)

COLUMNS = ("pending", "ready", "active", "blocked", "completed")
OUTPUT_LINES = 200  # of the running step's output, the last ones
# What wfs writes while it only reads (its caches) or guards a write (its locks): a
# change there is no change of the plan.
UNWATCHED = frozenset({".cache", ".locks"})


class UnknownTask(WfsError):
    """A task the session does not have (the server answers 404)."""


# ------------------------------------------------------------------ the board


def board_data(
    layout: Layout, requested: str | None, root_option: str | None = None
) -> dict[str, Any]:
    """The board of session `requested` (default: the active one), as /api/board
    answers it (docs/board.md)."""
    sid = current_session(layout, requested)
    stamp = session_stamp(layout, sid)  # before reading: a change while reading shows next
    summary = actions.status(layout, sid, root_option)
    index = TaskIndex(load_skeletons(layout, sid))
    board = board_of(
        sid,
        summary,
        index,
        command_prefix(sid, root_option),
        lambda tid: running_step(layout, sid, tid),
    )
    board.update(sessions=session_rows(layout), stamp=stamp)
    if summary.get("unreadable"):
        board["unreadable"] = summary["unreadable"]
    plans = plan_rows(layout)
    if plans:  # the project's Maestro-Flow plans, each with its tasks counted
        board["maestro"] = [
            {
                k: row[k]
                for k in ("name", "kind", "imported_as", "tasks", "completed", "error")
                if k in row
            }
            for row in plans
        ]
    return board


def revision_board(sid: str, session: bytes | None, tasks: dict[str, bytes]) -> dict[str, Any]:
    """The board of a session as a git revision holds it (`wfs diff --html`): its task
    files' contents by name; what only a running checkout has (claims, run records)
    is not there."""
    skeletons = []
    for name in sorted(tasks):
        try:
            data = jsonio.parse(tasks[name], f"{name}.json")
            if not isinstance(data, dict):
                raise WfsError(f"{name}.json: expected a JSON object")
            found = named_by_file(name, skeleton(data, file_stem=name))
        except WfsError as err:
            found = unreadable_skeleton(name, err.message)
        skeletons.append(found)
    try:
        meta = jsonio.parse(session, "workflow-session.json") if session is not None else {}
    except WfsError:
        meta = {}
    summary = compute_answers(sid, meta if isinstance(meta, dict) else {}, skeletons)["summary"]
    prefix = command_prefix(sid)
    summary["stopped"] = stopped_view(summary.get("stopped", []), prefix)
    board = board_of(sid, summary, TaskIndex(skeletons), prefix)
    board.update(sessions=[], stamp="")
    return board


def board_of(
    sid: str,
    summary: dict[str, Any],
    index: TaskIndex,
    prefix: list[str],
    step_of: Callable[[str], str | None] | None = None,
) -> dict[str, Any]:
    """The board (without its stamp and its session picker) from the session's summary
    (as `wfs status --json` has it) and its tasks; `step_of` names the step a running
    task is at. A row's `state` says why it stands where it is: `running` or `stale`
    (its claim), `paused` (waiting for an agent or a person: its `reason` says which),
    `blocked`, `invalid`, or None."""
    ready = set(index.ready())
    stopped = {entry["id"]: entry for entry in summary.get("stopped", [])}
    stuck: dict[str, list[str]] = {}
    for entry in summary.get("stuck", []):
        stuck.setdefault(entry["id"], []).append(stuck_text(entry))
    holders = {claim["id"]: claim for claim in summary.get("claims", [])}
    path = critical_path(index)
    on_path = set(path)
    here = platform.host_name()

    rows: list[dict[str, Any]] = []
    edges: list[list[str]] = []
    counts = dict.fromkeys(COLUMNS, 0)
    for tid in sorted(index.by_id, key=task_sort_key):
        task = index.by_id[tid]
        container = index.is_container(tid)
        column = column_of(index, tid, tid in ready)
        counts[column] += 1  # every card its column shows, a container's too
        entry = stopped.get(tid, {})
        claim = claim_of(entry, holders.get(tid), here)
        if claim is not None and claim["step"] is None and column == "active" and step_of:
            claim["step"] = step_of(tid)
        parent = parent_id(task)
        deps = list(depends_on(task))
        edges += [[dep, tid] for dep in deps if dep in index.by_id]
        rows.append(
            {
                "id": tid,
                "title": task.get("title") if isinstance(task.get("title"), str) else "",
                "column": column,
                "status": task.get("status") if isinstance(task.get("status"), str) else None,
                "parent": parent if parent in index.by_id else None,
                "container": container,
                "depends_on": deps,
                "waiting_on": [] if column == "completed" else index.unmet_dependencies(tid),
                "reason": reason_of(entry, stuck.get(tid)),
                "continue": continue_command(prefix, tid, entry, tid in ready),
                "critical": tid in on_path,
                "claim": claim,
                "state": claim["state"] if claim is not None else entry.get("state"),
            }
        )
    return {
        "session": {
            "id": sid,
            "topic": summary.get("project") or "",
            "status": summary.get("status"),
            "phase": summary.get("phase"),
        },
        "counts": counts,
        "tasks": rows,
        "edges": edges,
        "critical_path": path,
    }


def column_of(index: TaskIndex, tid: str, ready: bool) -> str:
    """The board's column of a task: its derived status, `ready` for a pending leaf
    that can start now."""
    status = index.effective_status(tid)
    if status == "pending" and ready:
        return "ready"
    return status if status in COLUMNS else "pending"


def reason_of(entry: dict[str, Any], stuck: list[str] | None) -> str | None:
    """Why a task stands still: blocked, paused, its claim's process gone, invalid, or
    waiting on a task that does not exist or is invalid."""
    state = entry.get("state")
    if state == "stale":
        return f"claimed by {entry.get('owner')}, whose process is gone"
    if state in ("paused", "blocked", "invalid"):
        reason = str(entry.get("reason") or state)
        return f"{reason}\n{entry['error']}" if entry.get("error") else reason
    return "\n".join(stuck) if stuck else None


def continue_command(prefix: list[str], tid: str, entry: dict[str, Any], ready: bool) -> str | None:
    """The command that continues a task: its resume command when stopped, `execute
    ID` when ready, else None."""
    if entry.get("resume"):
        return platform.shell_join(entry["resume"])
    if ready:
        return platform.shell_join([*prefix, "execute", tid])
    return None


def claim_of(
    entry: dict[str, Any], lease: dict[str, Any] | None, here: str
) -> dict[str, Any] | None:
    """Who holds the task: its lease (wfs.leases, local or on the claims remote), else
    the `claimed_by` of its file; None when nobody does."""
    claimed = entry.get("state") in ("running", "stale")
    if lease is None and not claimed:
        return None
    owner = str(lease["owner"] if lease is not None else entry.get("owner"))
    return {
        "owner": owner,
        "where": lease["where"] if lease is not None else None,
        "since": lease["since"] if lease is not None else entry.get("since"),
        "expires": lease["expires"] if lease is not None else None,
        "state": lease["state"] if lease is not None else entry["state"],
        "step": entry.get("step"),
        "remote": owner.rpartition(":")[0] != here,
    }


def running_step(layout: Layout, sid: str, tid: str) -> str | None:
    """The name of the step a running task is at (wfs.actions.running_step)."""
    found = actions.running_step(layout, sid, tid)
    return found[1] if found is not None else None


def critical_path(index: TaskIndex) -> list[str]:
    """The longest chain of the remaining (not completed) leaves, first task first:
    the remaining-path lengths of wfs.flow.schedule, followed from the longest."""
    remaining = {tid for tid in index.leaves() if index.effective_status(tid) != "completed"}
    graph = {
        tid: [dep for dep in deps if dep in remaining]
        for tid, deps in schedule.leaf_graph(index).items()
        if tid in remaining
    }
    if not graph:
        return []
    lengths = schedule.remaining_paths(graph)
    after = schedule.dependents(graph)
    tid = schedule.start_order(graph, lengths)[0]
    path = [tid]
    while True:
        nexts = [n for n in after.get(tid, []) if lengths.get(n) == lengths[tid] - 1]
        if not nexts or len(path) > len(graph):
            return path
        tid = schedule.start_order(nexts, lengths)[0]
        path.append(tid)


def session_rows(layout: Layout) -> list[dict[str, Any]]:
    """The session picker: each session's id, topic, status and progress."""
    rows, _, _ = actions.session_list(layout)
    found = []
    for row in rows:
        if "error" in row:
            continue
        progress = answers(layout, row["id"])["summary"]["progress"]
        found.append(
            {
                "id": row["id"],
                "topic": row.get("project") or "",
                "status": row["status"],
                "completed": progress["completed"],
                "total": progress["total"],
            }
        )
    return found


# ------------------------------------------------------------------ a task's detail


def task_detail(layout: Layout, requested: str | None, task_id: str) -> dict[str, Any]:
    """A task's detail, as /api/task answers it: its board row's facts, its steps and
    checks with the result of each (run record, output log), acceptance, the summary
    (safe HTML) and the running step's last lines of output."""
    board = board_data(layout, requested)
    sid = board["session"]["id"]
    tid = check_task_id(task_id)
    row = next((r for r in board["tasks"] if r["id"] == tid), None)
    if row is None:
        known = answers(layout, sid, MAPS)["status"]
        raise UnknownTask(unknown_task(task_id, known).message)
    return row_detail(layout, sid, row, unreadable_ids(layout, sid))


def unreadable_ids(layout: Layout, sid: str) -> frozenset[str]:
    """The tasks of the session whose file cannot be read (their rows say why)."""
    return frozenset(t["id"] for t in load_skeletons(layout, sid) if t.get("unreadable"))


def row_detail(
    layout: Layout, sid: str, row: dict[str, Any], unreadable: frozenset[str]
) -> dict[str, Any]:
    """The detail of the task of a board row (`board_data`): what `task_detail` answers,
    with the board already made (an export makes it once for all its tasks), and the
    `unreadable` tasks known (unreadable_ids: only their row is shown)."""
    tid = row["id"]
    task: dict[str, Any] = {}
    steps: list[dict[str, Any]] = []
    output: str | None = None
    if tid not in unreadable:
        task = read_task(layout, sid, tid)
        steps, output = run_steps(layout, sid, tid)
    context = obj(task, "context")
    acceptance = context.get("acceptance")
    items = acceptance if isinstance(acceptance, list) else [acceptance] if acceptance else []
    return {
        "id": tid,
        "title": row["title"],
        "column": row["column"],
        "status": row["status"],
        "waiting_on": row["waiting_on"],
        "reason": row["reason"],
        "continue": row["continue"],
        "steps": steps,
        "acceptance": [item if isinstance(item, str) else str(item) for item in items],
        "summary_html": summary_html(layout, sid, tid),
        "output": output,
    }


def run_steps(layout: Layout, sid: str, tid: str) -> tuple[list[dict[str, Any]], str | None]:
    """The task's steps and checks with their status and elapsed time (as `wfs log`
    shows them), and the last lines of the running step's output (None when none
    runs)."""
    runner = session_run.runner(layout, sid)
    events, _, _, running = runlog.snapshot(runner.context, tid)
    elapsed: dict[str, Any] = {}
    lines: dict[str, list[str]] = {}
    for event in events[1:]:
        key = event.get("step", "")
        if event["event"] in ("step_finished", "step_running"):
            elapsed[key] = event.get("elapsed")
        elif event["event"] == "step_started":
            lines[key] = []
        elif event["event"] == "output":
            lines.setdefault(key, []).append(str(event.get("text", "")))
    steps = []
    current = None
    for step in events[0]["steps"]:
        key, status = step["step"], step["status"]
        if status == "running":
            current = key
        steps.append(
            {
                "key": key,
                "name": step["name"],
                "kind": "check" if key.startswith("acceptance/") else "step",
                "status": None if status == "not started" else status,
                "elapsed": elapsed.get(key),
            }
        )
    output = None
    if running and current is not None:
        output = "\n".join(lines.get(current, [])[-OUTPUT_LINES:])
    return steps, output


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt  # deferred: only a task's detail renders Markdown

    return MarkdownIt("commonmark", {"html": False}).disable("image")


def render_markdown(text: str) -> str:
    """Markdown as HTML that is safe to insert: raw HTML is shown as text, a link to
    `javascript:` (or `vbscript:`, `data:` other than images) stays text, no image."""
    return str(_markdown().render(text))


def summary_html(layout: Layout, sid: str, tid: str) -> str | None:
    path = layout.session_dir(sid) / SUMMARY_DIR / f"{tid}-summary.md"
    try:  # a summary symlinked out of the project, a FIFO, a device: none is shown
        layout.check_inside(path)
        raw = store.read_optional(path, layout.relative(path))
    except WfsError:
        return None
    return None if raw is None else render_markdown(raw.decode("utf-8", "replace"))


# ------------------------------------------------------------------ the stamp


def watched_folders(layout: Layout, sid: str) -> list[str]:
    """The folders whose files the board reads: the project's `.workflow/` (the
    sessions and their markers), the session's folder, its tasks, run records and
    summaries, and the local claims of the session."""
    session = layout.session_dir(sid)
    folders = [layout.workflow, session, layout.task_dir(sid), session / RUNS_DIR]
    folders.append(session / SUMMARY_DIR)
    common = gitfiles.common_dir_on_disk(layout.root)
    if common is not None:
        folders.append(common.joinpath(*leases.LOCAL_FOLDER, sid))
    folders.append(layout.locks.joinpath(*leases.FALLBACK_FOLDER, sid))
    return [str(folder) for folder in folders]


def session_stamp(layout: Layout, sid: str, folders: list[str] | None = None) -> str:
    """An opaque text that changes whenever a file the board reads changes: the stamps
    (mtime, size, inode, as the index keeps them) of every file in the watched folders
    (a file added or removed changes the names). A claim on a claims remote changes
    no file here: it shows with the next change of the session."""
    digest = hashlib.blake2b(digest_size=12)
    for folder in folders if folders is not None else watched_folders(layout, sid):
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            digest.update(b"-\0")
            continue
        digest.update(f"{folder}\0".encode())
        for entry in entries:
            if entry.name in UNWATCHED:
                continue
            try:
                est = entry.stat()
            except FileNotFoundError:
                continue
            digest.update(
                f"{entry.name}\0{est.st_mtime_ns}\0{est.st_size}\0{est.st_ino}\0".encode()
            )
    return digest.hexdigest()
