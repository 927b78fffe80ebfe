"""`wfs log`, and how `wfs execute` shows a run while it goes.

- On a terminal (stdout and stderr both one), the running step is one status line on
  stderr: its name, its elapsed time and the last line of its output, rewritten in
  place a few times a second; each step that ends leaves its line.
- Through a pipe, plain lines in order: each step as it starts and as it ends (with
  its elapsed time); nothing is rewritten.
- With `--json`, JSON Lines on stdout, one event each (step_started, output,
  step_finished, task_finished); `wfs execute` prints its result as the last line.

Each task's result is printed when the task ends, not when the run does.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from typing import Any

import click

from wfs import jsonio, platform
from wfs.cli import Env, json_flag, pass_env
from wfs.completion import complete_task_id
from wfs.query import one_line
from wfs.text import printable

Show = Callable[[Env, dict[str, Any]], None]
REDRAW_SECONDS = 0.2  # the status line is rewritten at most this often


def json_line(data: Any) -> None:
    """One JSON Lines record on stdout, written at once."""
    sys.stdout.buffer.write(jsonio.compact(data) + b"\n")
    sys.stdout.flush()


def elapsed_text(seconds: float) -> str:
    """7s, 1m05s, 2h03m: a clock that grows without jumping about."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"


class Plain:
    """Progress as plain lines on stderr, in order; each task's result on stdout."""

    def __init__(self, env: Env, show: Show) -> None:
        self.env = env
        self.show = show

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        env = self.env
        if event == "start":
            env.echo(f"  {data['task']} ▶ {data['name']} …", err=True)
        elif event == "fix":
            env.echo(
                f"  {data['task']} · {data['name']}: failed ({data['error']}); "
                f"fix {data['iteration']} of {data['of']} goes to the agent",
                err=True,
            )
        elif event == "check":
            env.echo(
                f"  {data['task']} · {data['name']}: check {data['outcome']}: "
                f"{one_line(data['command'])}",
                err=True,
            )
        elif event == "step":
            color = {"done": "green", "skipped": "yellow", "paused": "yellow"}.get(
                data["outcome"], "red"
            )
            outcome = env.style(data["outcome"], fg=color)
            env.echo(
                f"  {data['task']} · {data['name']}: {outcome} ({data['elapsed']:.2f}s)",
                err=True,
            )
        elif event == "finished":
            self.show(env, data)

    def close(self) -> None:
        """The run is over."""


class Live(Plain):
    """On a terminal: the running step as one status line, rewritten in place."""

    def __init__(self, env: Env, show: Show) -> None:
        super().__init__(env, show)
        self.step: dict[str, Any] | None = None  # task, name, started, last line
        self.drawn = 0.0  # when the status line was last written
        self.shown = False  # a status line is on the screen

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event == "start":
            self.step = {"task": data["task"], "name": data["name"], "last": ""}
            self.step["started"] = time.monotonic()
            self.draw(force=True)
        elif event == "output":
            if self.step is not None and data["text"].strip():
                self.step["last"] = data["text"]
                self.draw()
        elif event == "tick":
            self.draw()
        elif event in ("fix", "check", "step", "finished"):
            self.clear()
            super().__call__(event, data)
            if event == "step":
                self.step = None
            else:
                self.draw(force=True)

    def status_line(self, width: int) -> str:
        assert self.step is not None
        clock = elapsed_text(time.monotonic() - self.step["started"])
        line = f"  {self.step['task']} ▶ {self.step['name']} · {clock}"
        last = printable(self.step["last"].replace("\t", " ").strip())
        if last:
            line += f" · {last}"
        line = printable(line)
        return line if len(line) <= width else line[: max(width - 1, 0)] + "…"

    def width(self) -> int:
        """The columns of the terminal the line goes to, less one (a line that fills
        the last column wraps on some terminals). Asked of the terminal itself: a
        COLUMNS variable may be left from another one."""
        try:
            return os.get_terminal_size(sys.stderr.fileno()).columns - 1
        except (OSError, ValueError):
            return shutil.get_terminal_size((80, 24)).columns - 1

    def draw(self, force: bool = False) -> None:
        if self.step is None:
            return
        now = time.monotonic()
        if not force and now - self.drawn < REDRAW_SECONDS:
            return
        self.drawn = now
        width = self.width()
        line = self.status_line(width)
        clear = platform.CLEAR_TO_END or " " * (width - len(line))
        sys.stderr.write("\r" + line + clear)
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r" + (platform.CLEAR_TO_END or " " * self.width() + "\r"))
            sys.stderr.flush()
            self.shown = False

    def close(self) -> None:
        self.clear()


class Events(Plain):
    """--json: each event as a JSON line on stdout."""

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event == "start":
            json_line({"event": "step_started"} | _pick(data, "task", "step", "name"))
        elif event == "output":
            json_line({"event": "output"} | _pick(data, "task", "step", "stream", "text"))
        elif event == "step":
            shown = _pick(data, "task", "step", "name", "outcome", "elapsed")
            json_line({"event": "step_finished"} | shown)
        elif event == "finished":
            json_line({"event": "task_finished"} | _pick(data, "task", "status"))


def _pick(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: data[key] for key in keys if key in data}


def on_terminal() -> bool:
    """Whether a status line may be rewritten in place: stdout and stderr are both a
    terminal."""
    return sys.stdout.isatty() and sys.stderr.isatty()


def reporter(env: Env, show: Show, live: bool | None = None) -> Plain:
    """How a run's progress is shown (see the module's docstring)."""
    if env.json:
        return Events(env, show)
    if on_terminal() if live is None else live:
        return Live(env, show)
    return Plain(env, show)


# ---------------------------------------------------------------- wfs log


def human_log(env: Env, event: dict[str, Any], pending: list[str]) -> None:
    """One event of `wfs log`, for a person."""
    kind = event["event"]
    if kind == "task":
        now = " (running now)" if event["running"] else ""
        env.echo(f"{event['task']} · {event['title']}: {event['status']}{now}")
        pending.extend(s["name"] for s in event["steps"] if s["status"] == "not started")
    elif kind == "step_started":
        env.echo(f"  ▶ {event['name']} …")
    elif kind == "output":
        env.echo(f"    {event['text']}")
    elif kind == "step_running":
        env.echo(f"  · {event['name']}: running ({elapsed_text(event['elapsed'])} so far)")
    elif kind == "step_finished":
        outcome = str(event["outcome"])
        color = {"done": "green", "skipped": "yellow", "paused": "yellow"}.get(outcome, "red")
        elapsed = event.get("elapsed")
        took = f" ({elapsed:.2f}s)" if isinstance(elapsed, (int, float)) else ""
        env.echo(f"  · {event['name']}: {env.style(outcome, fg=color)}{took}")
    elif kind == "task_finished":
        env.echo(f"{event['task']}: the run stopped; the task is {event['status']}")


@click.command("log")
@click.argument("task_id", metavar="ID", shell_complete=complete_task_id)
@click.option(
    "--follow",
    "-f",
    is_flag=True,
    help="Keep printing new output until the task's run stops.",
)
@json_flag
@pass_env
def log(env: Env, task_id: str, follow: bool) -> None:
    """Show a task's run: each step with its status, elapsed time and output.

    The output is what the step's commands (and its agent) wrote, stdout and stderr
    as they came, kept in the run record while the step runs. With --follow, new
    output is printed as it comes, from another terminal while `wfs execute` runs,
    until no process runs the task any more. --json: one event per line.

    \b
    Example:
      wfs log IMPL-2 --follow
    """
    from wfs.flow import runlog, session_run  # deferred: only a log loads the engine

    runner = session_run.runner(env.layout, env.current_session())
    tid = runlog.known_task(runner, task_id)
    pending: list[str] = []

    def emit(event: dict[str, Any]) -> None:
        if env.json:
            json_line(event)
        else:
            human_log(env, event, pending)

    if follow:
        runlog.follow(runner, tid, emit)
    else:
        events, _, _, _ = runlog.snapshot(runner, tid)
        for event in events:
            emit(event)
        for name in pending:
            env.echo(f"  · {name}: not started")
