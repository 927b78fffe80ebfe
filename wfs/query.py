"""The answers of `status`, `next` and `task show`, and their text.

Shared by the click commands, the MCP server and the engine's stops, so each says a
thing the same way. Plain data in, plain data or lines out; nothing here imports click.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from wfs.claims import claim_alive
from wfs.platform import host_name, shell_join
from wfs.text import elapsed_text

MARKS = {"completed": "[x]", "active": "[>]", "blocked": "[!]", "pending": "[ ]"}


def status_lines(summary: dict[str, Any], bold: Callable[[str], str]) -> list[str]:
    counts = summary["counts"]
    progress = summary["progress"]
    return [
        f"Session:  {bold(summary['session'])} ({one_line(summary['status'])})",
        f"Topic:    {one_line(summary['project'])}",
        f"Phase:    {summary['phase']}    Type: {one_line(summary['type'])}",
        "Tasks:    " + ", ".join(f"{k} {v}" for k, v in counts.items()),
        f"Progress: {progress['completed']}/{progress['total']} tasks completed "
        f"({progress['percent']}%)",
        f"Ready:    {_some(summary['ready'])}",
        *([] if summary["blocked"] else ["Blocked:  -"]),
        *stopped_lines(summary.get("stopped", []), summary.get("claims", [])),
        *claims_lines(summary.get("claims", []), summary.get("stopped", [])),
        *stuck_lines(summary),
    ]


def claims_lines(
    claims: list[dict[str, Any]],
    stopped: Sequence[dict[str, Any]] = (),
    shown: int = 10,
    now: datetime | None = None,
) -> list[str]:
    """Each claim (wfs.leases) on a line, in a person's terms: who holds the task, in
    which worktree, for how long; but not the claim of a task shown as running here
    already (stopped_lines says it). `--json` has the owner, times and lease."""
    running = {(e["id"], e.get("owner")) for e in stopped if e["state"] == "running"}
    claims = [c for c in claims if (c["id"], c["owner"]) not in running]
    lines = []
    for entry in claims[:shown]:
        tid, where = one_line(entry["id"]), one_line(entry["where"])
        if not entry.get("since"):  # no holder's claim (wfs.leases.claim_of): why, naming it
            held = f"{tid}: {one_line(entry['owner'])}; free to take over"
        else:
            held = f"{tid}: held by {who(entry['owner'])} in {where}, for {held_for(entry, now)}"
            if entry["state"] == "stale":
                held += "; its lease ran out: free to take over"
        lines.append(f"{'Claimed:':<10}{held}")
    if len(claims) > shown:
        lines.append(f"{'':10}and {len(claims) - shown} more (`--json` lists them all)")
    return lines


def stuck_lines(facts: dict[str, Any], shown: int = 10) -> list[str]:
    """The tasks that wait on a task that does not exist or is invalid, and, when work
    remains that nothing can start, that it is so (`facts`: the summary, or what
    `next` prints)."""
    stuck = facts.get("stuck") or []
    lines = [
        f"{'Waiting:' if i == 0 else '':<10}{stuck_text(entry)}"
        for i, entry in enumerate(stuck[:shown])
    ]
    if len(stuck) > shown:
        lines.append(f"{'':10}and {len(stuck) - shown} more (`--json` lists them all)")
    if facts.get("stalled"):
        lines.append(STALLED + (FIX_STUCK if stuck else ""))
    return lines


STALLED = "Nothing can start: tasks remain, but none is ready and none is in progress."
FIX_STUCK = " `wfs validate` names the files and places to fix."


def stuck_text(entry: dict[str, Any]) -> str:
    tid, dep = one_line(entry["id"]), one_line(entry["on"])
    if entry["problem"] == "missing":
        return f"{tid} waits on {dep}, which does not exist"
    return f"{tid} waits on {dep}, which is invalid: {one_line(entry['reason'])}"


def command_prefix(sid: str, root: str | None = None) -> list[str]:
    """How to call wfs again for this session (`root`: a --root given on the command line)."""
    return ["wfs", *(["--root", root] if root else []), "--session", sid]


# The path of a task's file, relative to the project root, by its id.
TaskPath = Callable[[str], str]


def status_data(
    summary: dict[str, Any], prefix: list[str], task_path: TaskPath | None = None
) -> dict[str, Any]:
    """The cached summary, with the claims' state and the resume commands of now."""
    return {**summary, "stopped": stopped_view(summary.get("stopped", []), prefix, task_path)}


def stopped_view(
    stopped: list[dict[str, Any]], prefix: list[str], task_path: TaskPath | None = None
) -> list[dict[str, Any]]:
    """Each stopped task with what to do about it: a claim is `running` or `stale`
    (its process is gone), and paused, blocked and stale ones get their resume command.
    An invalid one's first error (`error`, as the index keeps it: `#/pointer: rule:
    message`) is shown after its file's path (`task_path`), or left out."""
    shown = []
    for entry in stopped:
        entry = dict(entry)
        error = entry.pop("error", None)
        if error and task_path is not None:
            entry["error"] = task_path(entry["id"]) + error
        if entry["state"] == "claimed":
            entry["state"] = "running" if claim_alive(entry["owner"]) else "stale"
        if entry["state"] in ("paused", "blocked", "stale"):
            entry["resume"] = [*prefix, "execute", "--resume", entry["id"]]
        shown.append(entry)
    return shown


STATE_LABELS = {
    "paused": "Paused:",
    "blocked": "Blocked:",
    "running": "Running:",
    "stale": "Stale:",
    "invalid": "Invalid:",
}


def stopped_lines(
    stopped: list[dict[str, Any]],
    claims: Sequence[dict[str, Any]] = (),
    shown: int = 10,
    now: datetime | None = None,
) -> list[str]:
    """Each stopped task on a line, with its resume command; `--json` has them all. A
    running task says its step (by name when `step_name` holds it), for how long, which
    process runs it and, when its lease (its claim by the same process) names it, in
    which worktree."""
    leased = {(c["id"], c["owner"]): c for c in claims}
    lines = []
    for entry in stopped[:shown]:
        state = entry["state"]
        # Every value here may come from a file: one line each, control characters escaped.
        tid, owner = one_line(entry.get("id")), one_line(entry.get("owner"))
        where = f" at {one_line(entry['step'])}" if entry.get("step") else ""
        if state in ("running", "claimed"):
            # In a person's terms: the step, for how long, who (`--json` has the rest).
            step = ""
            if entry.get("step"):
                name = entry.get("step_name")
                said = f'"{one_line(name, 80)}"' if name else one_line(entry["step"])
                step = f"step {said}, "
            text = f"{tid}: {step}for {held_for(entry, now)}, by {who(owner)}"
            lease = leased.get((entry.get("id"), entry.get("owner")))
            if lease is not None:
                text += f", in {one_line(lease['where'])}"
        elif state == "stale":
            text = f"{tid}{where}: claimed by {owner}, which is no longer running"
        else:
            text = f"{tid}{where}: {one_line(entry['reason'])}"
        lines.append(f"{STATE_LABELS.get(state, state):<10}{text}")
        if entry.get("resume"):
            lines.append(f"{'':10}resume: {shell_join(entry['resume'])}")
    if len(stopped) > shown:
        lines.append(f"{'':10}and {len(stopped) - shown} more (`--json` lists them all)")
    return lines


def who(owner: Any) -> str:
    """`process 21660 on this machine` for the claim owner `host:21660` of this host,
    `process 4242 on laptop` for another's."""
    host, _, pid = str(owner).rpartition(":")
    if not host or not pid.isdigit():
        return one_line(owner)
    here = "this machine" if host == host_name() else one_line(host, 80)
    return f"process {pid} on {here}"


def held_for(entry: dict[str, Any], now: datetime | None = None) -> str:
    """How long since the entry's `since` (`2m05s`), as `wfs execute` shows a clock;
    `?` when it has no time wfs can read."""
    try:
        since = datetime.fromisoformat(str(entry.get("since")))
    except ValueError:
        return "?"
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return elapsed_text(max(((now or datetime.now(UTC)) - since).total_seconds(), 0.0))


def one_line(text: Any, limit: int = 200) -> str:
    """Text from a file, fit for one terminal line: control characters escaped."""
    text = str(text)
    first, _, rest = text.strip().partition("\n")
    shown = (
        first
        if first.isprintable()
        else "".join(c if c.isprintable() else repr(c)[1:-1] for c in first)
    )
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    elif rest.strip():
        shown += " …"
    return shown


def _some(ids: list[str], shown: int = 10) -> str:
    """A few ids for a person to read; `--json` has them all."""
    if len(ids) <= shown:
        return ", ".join(map(one_line, ids)) or "-"
    return f"{', '.join(map(one_line, ids[:shown]))} and {len(ids) - shown} more"


def row_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines = []
    for row in rows:
        indent = "  " if row["parent"] else ""
        mark = "▸" if row["container"] else MARKS.get(row["status"], "[?]")
        after = ", ".join(map(one_line, row["depends_on"]))
        deps = f"  (after {after})" if after else ""
        # An id or a title from a file is shown on its row, never as lines of its own.
        title = one_line(row["title"])
        lines.append(f"{indent}{mark} {one_line(row['id'])}  {title}  {row['status']}{deps}")
    return lines


def list_lines(data: dict[str, Any]) -> list[str]:
    """What `wfs task list` prints for its data."""
    return row_lines(data["tasks"]) or ["No matching tasks."]


def next_data(
    sid: str,
    answers: dict[str, Any],
    all_ready: bool,
    prefix: list[str],
    task_path: TaskPath | None = None,
) -> dict[str, Any]:
    summary = answers["summary"]
    return {
        "session": sid,
        "tasks": answers["ready_rows" if all_ready else "next"],
        "stopped": stopped_view(summary.get("stopped", []), prefix, task_path),
        "stuck": summary.get("stuck", []),
        "stalled": summary.get("stalled", False),
    }


def next_lines(data: dict[str, Any]) -> list[str]:
    return (row_lines(data["tasks"]) or idle_lines(data["stopped"])) + stuck_lines(data)


def idle_lines(stopped: list[dict[str, Any]]) -> list[str]:
    """Nothing is ready: say so, and what holds the other tasks."""
    return ["No task is ready.", *stopped_lines(stopped)]


def show_data(sid: str, answers: dict[str, Any], tid: str, task: Any) -> dict[str, Any]:
    return {
        "session": sid,
        "task": task,
        "status": answers["status"][tid],
        "children": answers["children"].get(tid, []),
        "ready": tid in answers["summary"]["ready"],
        "waiting_on": answers["waiting"].get(tid, []),
    }


def show_lines(card: dict[str, Any]) -> list[str]:
    """What `wfs task show ID` prints for a person (wfs.actions.task_card's card: every
    value one line of text already); `--json` prints the task itself. Worded here, as
    `status` is, so that a read never loads jinja2."""
    label = "{:<13}".format
    status = card["status"]
    if card["children"]:
        status += " (derived from its subtasks)"
    elif card["ready"]:
        status += f", ready: `wfs execute {card['id']}` runs it"
    elif card["status"] == "pending":
        status += ", not ready"
    lines = [f"{card['id']}  {card['title']}", label("Status:") + status]
    lines += [label("") + why for why in card["why"]]
    lines += [label("Type:") + card["type"], label("Agent:") + card["agent"]]
    if card["parent"]:
        lines.append(label("Parent:") + card["parent"])
    if card["children"]:
        lines.append(label("Subtasks:") + _with_status(card["children"]))
    lines.append(label("Depends on:") + (_with_status(card["dependencies"]) or "-"))
    if card["focus_paths"]:
        lines.append(label("Focus paths:") + ", ".join(card["focus_paths"]))
    if card["steps_error"]:
        lines.append(label("Steps:") + f"cannot be run as written: {card['steps_error']}")
    elif card["steps"]:
        lines.append("Steps:")
        for number, step in enumerate(card["steps"], 1):
            lines.append(f"  {number}. {step['name']}  ({step['key']})")
            lines += [f"       {part['kind']}: {part['text']}" for part in step["parts"]]
            lines += [f"       check: {check}" for check in step["checks"]]
    if card["checks"]:
        lines.append("Checks:")
        for step in card["checks"]:
            lines += [f"  - {part['kind']}: {part['text']} (must pass)" for part in step["parts"]]
    if card["acceptance"]:
        lines += ["Acceptance:", *(f"  - {item}" for item in card["acceptance"])]
    return lines


def _with_status(rows: list[dict[str, str]]) -> str:
    return ", ".join(f"{row['id']} ({row['status']})" for row in rows)


def agent_setup_lines(resume: list[str]) -> list[str]:
    """How to have an agent answer a step that waits for one: `--agent CMD`, WFS_AGENT or
    .workflow/config.json; `resume` continues the stopped run. Said here whole: the
    docs are not where a user installed wfs."""
    return [
        "No agent is configured; an agent is a command CMD (the brief on its stdin, the "
        'answer on its stdout), such as "claude -p":',
        f"  {shell_join([*resume, '--agent', 'CMD'])}",
        '  or set WFS_AGENT=CMD, or put {"agents": {"default": "CMD"}} in .workflow/config.json',
        '  (one per agent of the plan: {"agents": {"@test-fix-agent": "CMD2", "default": "CMD"}})',
    ]
