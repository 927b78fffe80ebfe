"""The answers of `status`, `next` and `task show`, and their text.

Shared by the click commands and the fast path (wfs/fastpath.py), so both print the
same bytes. Plain data in, plain data or lines out; nothing here imports click.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs more to import than a fast answer
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MARKS = {"completed": "[x]", "active": "[>]", "blocked": "[!]", "pending": "[ ]"}


def status_lines(summary: dict[str, Any], bold: Callable[[str], str]) -> list[str]:
    counts = summary["counts"]
    progress = summary["progress"]
    return [
        f"Session:  {bold(summary['session'])} ({summary['status']})",
        f"Topic:    {summary['project']}",
        f"Phase:    {summary['phase']}    Type: {summary['type']}",
        "Tasks:    " + ", ".join(f"{k} {v}" for k, v in counts.items()),
        f"Progress: {progress['completed']}/{progress['total']} tasks completed "
        f"({progress['percent']}%)",
        f"Ready:    {_some(summary['ready'])}",
        f"Blocked:  {_some(summary['blocked'])}",
    ]


def _some(ids: list[str], shown: int = 10) -> str:
    """A few ids for a person to read; `--json` has them all."""
    if len(ids) <= shown:
        return ", ".join(ids) or "-"
    return f"{', '.join(ids[:shown])} and {len(ids) - shown} more"


def row_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines = []
    for row in rows:
        indent = "  " if row["parent"] else ""
        mark = "▸" if row["container"] else MARKS.get(row["status"], "[?]")
        deps = f"  (after {', '.join(row['depends_on'])})" if row["depends_on"] else ""
        lines.append(f"{indent}{mark} {row['id']}  {row['title']}  {row['status']}{deps}")
    return lines


def next_data(sid: str, answers: dict[str, Any], all_ready: bool) -> dict[str, Any]:
    return {"session": sid, "tasks": answers["ready_rows" if all_ready else "next"]}


def next_lines(data: dict[str, Any]) -> list[str]:
    return row_lines(data["tasks"]) or ["No task is ready."]


def show_data(sid: str, answers: dict[str, Any], tid: str, task: Any) -> dict[str, Any]:
    return {
        "session": sid,
        "task": task,
        "status": answers["status"][tid],
        "children": answers["children"].get(tid, []),
        "ready": tid in answers["summary"]["ready"],
        "waiting_on": answers["waiting"].get(tid, []),
    }


def show_lines(data: dict[str, Any]) -> list[str]:
    import orjson

    lines = [
        orjson.dumps(data["task"], option=orjson.OPT_INDENT_2).decode(),
        f"status: {data['status']}" + ("  (ready)" if data["ready"] else ""),
    ]
    if data["waiting_on"]:
        lines.append(f"waiting on: {', '.join(data['waiting_on'])}")
    return lines


def json_bytes(data: Any) -> bytes:
    import orjson

    return orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n"
