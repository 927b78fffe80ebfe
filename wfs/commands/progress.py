"""How a run is shown while it goes (`wfs execute`, `wfs flow`, the tasks of
`--jobs N`):

- On a terminal (stdout and stderr both one), the running step is one status line on
  stderr: its name, its elapsed time and the last line of its output, rewritten in
  place a few times a second; each step that ends leaves its line.
- Through a pipe, plain lines in order: each step as it starts and as it ends (with
  its elapsed time); nothing is rewritten.
- With `--json`, JSON Lines on stdout, one event each (step_started, output,
  step_finished, task_finished; with --jobs N, check and fix too); `wfs execute`
  prints its result as the last line.

Each task's result is printed when the task ends, not when the run does.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from wfs import jsonio, platform
from wfs.cli import Env
from wfs.query import one_line
from wfs.text import elapsed_text, printable

Show = Callable[[Env, dict[str, Any]], None]
REDRAW_SECONDS = 0.2  # the status line is rewritten at most this often


def json_line(data: Any) -> None:
    """One JSON Lines record on stdout, written at once."""
    sys.stdout.buffer.write(jsonio.compact(data) + b"\n")
    sys.stdout.flush()


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
        the last column wraps on some terminals)."""
        return platform.terminal_columns(sys.stderr) - 1

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


class LiveTasks(Plain):
    """On a terminal, with --jobs N: each running task's step as a line of its own
    (task, step, elapsed, last line of output), the lines rewritten in place together;
    each step that ends, and each task's result, leaves its lines above them."""

    def __init__(self, env: Env, show: Show) -> None:
        super().__init__(env, show)
        self.steps: dict[str, dict[str, Any]] = {}  # task -> name, started, last line
        self.drawn = 0.0
        self.lines = 0  # status lines on the screen

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event == "start":
            self.steps[data["task"]] = {
                "name": data["name"],
                "started": time.monotonic(),
                "last": "",
            }
            self.draw(force=True)
        elif event == "output":
            step = self.steps.get(data.get("task", ""))
            if step is not None and data["text"].strip():
                step["last"] = data["text"]
                self.draw()
        elif event == "tick":
            self.draw()
        elif event in ("fix", "check", "step", "finished"):
            self.clear()
            super().__call__(event, data)
            if event in ("step", "finished"):
                self.steps.pop(data.get("task", ""), None)
            elif data.get("task") in self.steps:  # shown on its line until the next one
                self.steps[data["task"]]["last"] = (
                    f"fix {data['iteration']} of {data['of']} with the agent"
                    if event == "fix"
                    else f"check {data['outcome']}: {one_line(data['command'])}"
                )
            self.draw(force=True)

    def status_lines(self, width: int) -> list[str]:
        now = time.monotonic()
        lines = []
        for tid in sorted(self.steps):
            step = self.steps[tid]
            line = f"  {tid} ▶ {step['name']} · {elapsed_text(now - step['started'])}"
            last = printable(step["last"].replace("\t", " ").strip())
            if last:
                line += f" · {last}"
            line = printable(line)
            lines.append(line if len(line) <= width else line[: max(width - 1, 0)] + "…")
        if not platform.CLEAR_LINES_UP and lines:  # one line only: all tasks on it
            joined = " | ".join(line.strip() for line in lines)
            lines = [joined if len(joined) <= width else joined[: max(width - 1, 0)] + "…"]
        return lines

    def draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.drawn < REDRAW_SECONDS:
            return
        self.drawn = now
        self.clear()
        width = platform.terminal_columns(sys.stderr) - 1
        lines = self.status_lines(width)
        if not lines:
            return
        if platform.CLEAR_LINES_UP:
            sys.stderr.write("".join(line + "\n" for line in lines))
        else:
            sys.stderr.write("\r" + lines[0] + " " * (width - len(lines[0])))
        sys.stderr.flush()
        self.lines = len(lines)

    def clear(self) -> None:
        if not self.lines:
            return
        if platform.CLEAR_LINES_UP:
            sys.stderr.write(platform.CLEAR_LINES_UP.format(count=self.lines))
        else:
            width = platform.terminal_columns(sys.stderr) - 1
            sys.stderr.write("\r" + " " * width + "\r")
        sys.stderr.flush()
        self.lines = 0

    def close(self) -> None:
        self.clear()


class Events(Plain):
    """--json: each event as a JSON line on stdout; with `checks` (a task's own process
    under --jobs N, and --jobs N itself), each check that ran and each failure that goes
    back to the agent too."""

    def __init__(self, env: Env, show: Show, checks: bool = False) -> None:
        super().__init__(env, show)
        self.checks = checks

    def __call__(self, event: str, data: dict[str, Any]) -> None:
        if event == "check" and self.checks:
            shown = pick(data, "task", "step", "name", "check", "command", "outcome")
            json_line({"event": "check"} | shown)
        elif event == "fix" and self.checks:
            shown = pick(data, "task", "step", "name", "error", "iteration", "of")
            json_line({"event": "fix"} | shown)
        elif event == "start":
            json_line({"event": "step_started"} | pick(data, "task", "step", "name"))
        elif event == "output":
            json_line({"event": "output"} | pick(data, "task", "step", "stream", "text"))
        elif event == "step":
            shown = pick(data, "task", "step", "name", "outcome", "elapsed")
            json_line({"event": "step_finished"} | shown)
        elif event == "finished":
            json_line({"event": "task_finished"} | pick(data, "task", "status"))


def pick(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: data[key] for key in keys if key in data}


def on_terminal() -> bool:
    """Whether a status line may be rewritten in place: stdout and stderr are both a
    terminal."""
    return sys.stdout.isatty() and sys.stderr.isatty()


def reporter(env: Env, show: Show, live: bool | None = None, many: bool = False) -> Plain:
    """How a run's progress is shown (see the module's docstring); `many`: several
    tasks run at once, each with its line (and --json gives the checks and fixes)."""
    if env.json:
        return Events(env, show, checks=many)
    if on_terminal() if live is None else live:
        return LiveTasks(env, show) if many else Live(env, show)
    return Plain(env, show)
