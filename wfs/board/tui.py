"""`wfs board --tui`: the board's columns and running tasks in a terminal, for people
over ssh.

One line per column (pending, ready, active, blocked, completed: how many, then their
ids and titles), then a line per running task (who holds it, which step, for how
long), each cut to the terminal's width. On a terminal the screen is redrawn in place
when the session's stamp changes (looked at every half second, and each second while
a task runs, for its clock); `q` or Ctrl-C ends it. Elsewhere (a pipe, a file) it is
printed once.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from typing import IO, Any

import click

from wfs import platform
from wfs.board import data
from wfs.layout import Layout
from wfs.query import one_line
from wfs.sessions import current_session
from wfs.text import elapsed_text, for_terminal

POLL_SECONDS = 0.5
LABEL = 11  # the width of a column's name


def screen_lines(board: dict[str, Any], now: datetime, color: bool = False) -> list[str]:
    """The board as lines of text (not cut; styled when `color`)."""

    def bold(text: str) -> str:
        return click.style(text, bold=True) if color else text

    def label(name: str) -> str:
        return bold(name.ljust(LABEL))

    session = board["session"]
    tasks = [task for task in board["tasks"] if not task["container"]]  # the leaves
    done = sum(task["column"] == "completed" for task in tasks)
    head = f"{session['id']}: {one_line(session['topic'])} ({session['status']}, "
    lines = [bold(head + f"{session['phase']}), {done} of {len(tasks)} completed")]
    for column in data.COLUMNS:
        shown = [f"{t['id']} {one_line(t['title'])}" for t in tasks if t["column"] == column]
        count = f"{len(shown):>3}"
        lines.append(f"{label(column)}{count}  {' · '.join(shown)}".rstrip())
    running = [t for t in tasks if t["claim"] is not None]
    lines.append(f"{label('running')}{len(running):>3}")
    for task in running:
        claim = task["claim"]
        step = f", step {one_line(claim['step'])}" if claim["step"] else ""
        stale = ", its process is gone" if claim["state"] == "stale" else ""
        where = " (remote)" if claim["remote"] else ""
        lines.append(
            f"{'':<{LABEL + 5}}{task['id']} {one_line(task['title'])}: {one_line(claim['owner'])}"
            f"{where}{step}, for {held_for(claim['since'], now)}{stale}"
        )
    return lines


def held_for(since: Any, now: datetime) -> str:
    """How long a claim has been held, as `wfs execute` shows a clock."""
    try:
        start = datetime.fromisoformat(str(since))
    except ValueError:
        return "?"
    if start.tzinfo is None:
        start = start.replace(tzinfo=UTC)
    return elapsed_text(max((now - start).total_seconds(), 0.0))


def cut(line: str, width: int) -> str:
    """`line` cut to `width` characters shown (its color sequences do not count)."""
    shown, out, i = 0, [], 0
    while i < len(line) and shown < width:
        if line[i] == "\x1b":
            end = line.find("m", i)
            out.append(line[i : end + 1])
            i = end + 1
            continue
        out.append(line[i])
        shown += 1
        i += 1
    text = "".join(out)
    return text + ("\x1b[0m" if "\x1b[" in text and not text.endswith("\x1b[0m") else "")


def run(
    layout: Layout,
    requested: str | None,
    color: bool,
    out: IO[str] | None = None,
    keyboard: IO[str] | None = None,
) -> None:
    """Show the board until `q` or Ctrl-C; print it once where there is no terminal."""
    out = out or sys.stdout
    keyboard = keyboard or sys.stdin
    sid = current_session(layout, requested)
    if not (out.isatty() and keyboard.isatty()):
        board = data.board_data(layout, sid)
        out.write("\n".join(map(for_terminal, screen_lines(board, now(), False))) + "\n")
        return
    folders = data.watched_folders(layout, sid)
    shown: Any = None
    try:
        with platform.Keys(keyboard) as keys:
            while True:
                stamp = data.session_stamp(layout, sid, folders)
                width = platform.terminal_columns(out)
                if shown is None or shown[:2] != (stamp, width) or shown[2] != clock(shown):
                    board = data.board_data(layout, sid)
                    running = any(t["claim"] for t in board["tasks"])
                    lines = screen_lines(board, now(), color)
                    text = "\n".join(cut(for_terminal(line), width - 1) for line in lines)
                    out.write(platform.CLEAR_SCREEN + text + "\n")
                    out.flush()
                    shown = (stamp, width, int(time.time()) if running else None)
                if keys.read(POLL_SECONDS) in ("q", "Q"):
                    return
    except KeyboardInterrupt:
        return


def clock(shown: tuple[Any, ...]) -> int | None:
    """The second shown, while a task runs (its clock moves); else None."""
    return int(time.time()) if shown[2] is not None else None


def now() -> datetime:
    return datetime.now(UTC)
