"""Progress you can watch: a running step's output as it comes, in the run record (`wfs
log ID --follow`), live on a terminal, plain lines through a pipe, JSON Lines with --json.

The runs wait on files the test creates once it has seen what it waits for: nothing
here depends on how fast the machine is."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import posix_only, read_json, result_line, wfs, wfs_process

from wfs.flow import watch

SID = "WFS-watch"


def step(n: int, command: str, title: str | None = None) -> dict[str, Any]:
    return {
        "step": n,
        "title": title or f"Step {n}",
        "description": f"Do step {n}",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": f"out{n}",
        "command": command,
    }


def task(tid: str, steps: list[dict[str, Any]], title: str = "Work") -> dict[str, Any]:
    return {
        "id": tid,
        "title": title,
        "flow_control": {"pre_analysis": [], "implementation_approach": steps},
    }


def plan(tasks: list[dict[str, Any]]) -> None:
    assert wfs("init").code == 0
    run = wfs("plan", "Watch", "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    assert run.out.strip() == SID


# A step that prints, then waits until the test creates `go` (never for a set time).
WAITING = (
    "bash(echo first; echo 'second line' >&2; while [ ! -f go ]; do sleep 0.05; done; echo after)"
)
ELAPSED = re.compile(r"\(\d+\.\d\ds\)")


def start(project: Path, *args: str, **options: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "wfs", *args],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=options.pop("stderr", subprocess.PIPE),
        text=True,
        **options,
    )


def lines_until(stream: Any, wanted: str, seen: list[str]) -> None:
    """Read lines of `stream` into `seen` until one is `wanted` (or the stream ends)."""
    for line in stream:
        seen.append(line)
        if line.rstrip("\n") == wanted:
            return
    raise AssertionError(f"{wanted!r} never came; got {seen!r}")


# ---------------------------------------------------------------- the output log


@pytest.mark.slow
def test_a_running_steps_output_is_in_its_log_before_the_step_ends(project: Path) -> None:
    plan([task("IMPL-1", [step(1, WAITING, "Wait")])])
    proc = start(project, "execute", "IMPL-1")
    log = project / ".workflow" / SID / ".runs" / "IMPL-1.output.jsonl"
    try:
        while "second line" not in (log.read_text() if log.exists() else ""):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        events, _ = watch.read_events(log)
        assert [e["event"] for e in events] == ["step_started", "output", "output"]
        assert events[0]["step"] == "implementation_approach/1"
        assert {(e["stream"], e["text"]) for e in events[1:]} == {
            ("stdout", "first\n"),
            ("stderr", "second line\n"),
        }
    finally:
        (project / "go").touch()
        proc.communicate(timeout=120)
    assert proc.returncode == 0
    events, _ = watch.read_events(log)
    assert events[-2:] == [
        {"event": "output", "step": "implementation_approach/1", "stream": "stdout"}
        | {"text": "after\n"},
        {"event": "step_finished", "step": "implementation_approach/1", "outcome": "done"}
        | {"elapsed": events[-1]["elapsed"]},
    ]
    # The step's value is its stdout, as before.
    summary = (project / ".workflow" / SID / ".summaries" / "IMPL-1-summary.md").read_text()
    assert "first\nafter" in summary


def test_lines_are_cut_at_every_line_end_and_a_held_carriage_return() -> None:
    lines = watch.Lines()
    assert lines.feed("a\nb\r\nc\r") == ["a", "b"]
    assert lines.feed("\nd\re") == ["c", "d"]
    assert lines.end() == ["e"]
    assert lines.end() == []


# ---------------------------------------------------------------- through a pipe


@pytest.mark.slow
def test_through_a_pipe_each_step_and_each_task_come_as_plain_lines_in_order(
    project: Path,
) -> None:
    plan(
        [
            task("IMPL-1", [step(1, "bash(for i in 1 2 3; do echo line $i; sleep 0.05; done)")]),
            task("IMPL-2", [step(1, "bash(echo two)", "Second"), step(2, "bash(true)", "Third")]),
        ]
    )
    proc = start(project, "execute", "--all", stderr=subprocess.STDOUT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0, out
    assert "\r" not in out and "\x1b" not in out
    summaries = f".workflow/{SID}/.summaries"
    assert ELAPSED.sub("(…)", out).splitlines() == [
        "  IMPL-1 ▶ Step 1 …",
        "  IMPL-1 · Step 1: done (…)",
        f"IMPL-1: completed → {summaries}/IMPL-1-summary.md",
        "  IMPL-2 ▶ Second …",
        "  IMPL-2 · Second: done (…)",
        "  IMPL-2 ▶ Third …",
        "  IMPL-2 · Third: done (…)",
        f"IMPL-2: completed → {summaries}/IMPL-2-summary.md",
        "Run: 2 completed.",
    ]


@pytest.mark.slow
def test_json_gives_one_event_per_line_and_the_result_last(project: Path) -> None:
    plan(
        [
            task("IMPL-1", [step(1, "bash(echo one; echo oops >&2; printf 'no end')", "Say")]),
            task("IMPL-2", [step(1, "bash(exit 3)", "Fail")]),
        ]
    )
    run = wfs("execute", "--all", "--json")
    assert run.code == 1, run.err
    assert run.err == ""
    lines = run.out.splitlines()
    events = [json.loads(line) for line in lines[:-1]]
    for event in events:
        if "elapsed" in event:
            assert isinstance(event["elapsed"], float)
            event["elapsed"] = "…"
    key = "implementation_approach/1"
    said = {"event": "output", "task": "IMPL-1", "step": key}
    assert events[0] == {"event": "step_started", "task": "IMPL-1", "step": key, "name": "Say"}
    # stdout and stderr are read apart: their order between them is the system's.
    assert sorted(map(json.dumps, events[1:4])) == sorted(
        json.dumps(said | {"stream": stream, "text": text})
        for stream, text in (("stdout", "one"), ("stderr", "oops"), ("stdout", "no end"))
    )
    assert [e for e in events[1:4] if e["stream"] == "stdout"] == [
        said | {"stream": "stdout", "text": "one"},
        said | {"stream": "stdout", "text": "no end"},
    ]
    assert events[4:] == [
        {"event": "step_finished", "task": "IMPL-1", "step": key, "name": "Say"}
        | {"outcome": "done", "elapsed": "…"},
        {"event": "task_finished", "task": "IMPL-1", "status": "completed"},
        {"event": "step_started", "task": "IMPL-2", "step": key, "name": "Fail"},
        {"event": "step_finished", "task": "IMPL-2", "step": key, "name": "Fail"}
        | {"outcome": "failed", "elapsed": "…"},
        {"event": "task_finished", "task": "IMPL-2", "status": "blocked"},
    ]
    result = result_line(run.out)
    assert result == json.loads(lines[-1])
    assert (result["session"], result["status"]) == (SID, "failed")
    assert [(t["task"], t["status"]) for t in result["tasks"]] == [
        ("IMPL-1", "completed"),
        ("IMPL-2", "blocked"),
    ]


def test_each_step_starts_once_before_its_output_however_it_runs(project: Path) -> None:
    """A step's start is told once its first command is on its way (while the resident
    bash forks it): before its output, once for a step tried twice, and for a built-in
    that starts no process."""
    (project / "notes.txt").write_text("hello\n")
    retried = "bash(echo again; test -e retried || { touch retried; exit 1; })"
    plan(
        [
            task(
                "IMPL-1",
                [
                    step(1, "Read(notes.txt)", "Read"),
                    {**step(2, "bash(echo try; exit 1)", "Try"), "on_error": "skip_optional"},
                    {**step(3, retried, "Again"), "on_error": "retry_once"},
                ],
            )
        ]
    )
    run = wfs("execute", "IMPL-1", "--json")
    assert run.code == 0, run.err
    events = [json.loads(line) for line in run.out.splitlines()[:-1]]
    said = [
        (e["event"], e["step"][-1], e.get("text", e.get("outcome")))
        for e in events
        if e["event"] != "task_finished"
    ]
    assert said == [
        ("step_started", "1", None),
        ("output", "1", "hello"),
        ("step_finished", "1", "done"),
        ("step_started", "2", None),
        ("output", "2", "try"),
        ("step_finished", "2", "skipped"),
        ("step_started", "3", None),
        ("output", "3", "again"),
        ("output", "3", "again"),
        ("step_finished", "3", "done"),
    ]
    logged = [json.loads(line) for line in wfs("log", "IMPL-1", "--json").out.splitlines()]
    assert [(e["event"], e["step"][-1]) for e in logged[1:] if e["event"] != "output"] == [
        ("step_started", "1"),
        ("step_finished", "1"),
        ("step_started", "2"),
        ("step_finished", "2"),
        ("step_started", "3"),
        ("step_finished", "3"),
    ]


# ---------------------------------------------------------------- wfs log


def test_log_shows_each_step_with_its_status_elapsed_and_output(project: Path) -> None:
    plan(
        [
            task(
                "IMPL-1",
                [
                    step(1, "bash(echo built; echo warned >&2)", "Build"),
                    step(2, "bash(echo tested; exit 1)", "Test"),
                    step(3, "bash(true)", "Ship"),
                ],
                "Release",
            )
        ]
    )
    assert wfs("execute").code == 1
    run = wfs("log", "IMPL-1")
    assert run.code == 0, run.err
    assert ELAPSED.sub("(…)", run.out).splitlines() == [
        "IMPL-1 · Release: blocked",
        "  ▶ Build …",
        "    built",
        "    warned",
        "  · Build: done (…)",
        "  ▶ Test …",
        "    tested",
        "  · Test: failed (…)",
        "  · Ship: not started",
    ]
    events = [json.loads(line) for line in wfs("log", "IMPL-1", "--json").out.splitlines()]
    assert events[0] == {
        "event": "task",
        "task": "IMPL-1",
        "title": "Release",
        "status": "blocked",
        "running": False,
        "steps": [
            {"step": "implementation_approach/1", "name": "Build", "status": "done"},
            {"step": "implementation_approach/2", "name": "Test", "status": "failed"},
            {"step": "implementation_approach/3", "name": "Ship", "status": "not started"},
        ],
    }
    assert [e["event"] for e in events[1:]] == [
        "step_started",
        "output",
        "output",
        "step_finished",
        "step_started",
        "output",
        "step_finished",
    ]


@pytest.mark.slow
@posix_only
def test_log_of_a_run_killed_from_its_next_step_shows_the_step_before_as_recorded(
    project: Path,
) -> None:
    """A step's `step_finished` is logged as the next step is handed over: whether the
    runner, killed from that next step, wrote it or not, `wfs log` shows the step as its
    run record has it."""
    steps = [step(1, "bash(echo one)", "One"), step(2, "bash(kill -9 $PPID; sleep 5)", "Kill")]
    plan([task("IMPL-1", steps)])
    killed = wfs_process("execute", cwd=project)  # a real process, which its step kills
    assert killed.code == -signal.SIGKILL, killed.err
    run = wfs("log", "IMPL-1")
    assert run.code == 0, run.err
    assert ELAPSED.sub("(…)", run.out).splitlines() == [
        "IMPL-1 · Work: paused",
        "  ▶ One …",
        "    one",
        "  · One: done (…)",
        "  ▶ Kill …",
        "  · Kill: stopped",
    ]


def test_log_of_an_unknown_task_exits_2_naming_close_ones(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    run = wfs("log", "IMPL-11")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        "wfs: error: unknown task 'IMPL-11'; did you mean IMPL-1?\n",
    )


@pytest.mark.slow
def test_log_follow_from_another_process_shows_the_output_as_it_comes(project: Path) -> None:
    plan([task("IMPL-1", [step(1, WAITING, "Wait"), step(2, "bash(echo last)", "Last")])])
    runner = start(project, "execute", "IMPL-1")
    try:
        assert runner.stderr is not None
        lines_until(runner.stderr, "  IMPL-1 ▶ Wait …", [])  # claimed, and the step runs
        follower = start(project, "log", "IMPL-1", "--follow")
        assert follower.stdout is not None
        seen: list[str] = []
        lines_until(follower.stdout, "    second line", seen)
        (project / "go").touch()  # only once the output was seen from the other process
        rest, _ = follower.communicate(timeout=120)
    finally:
        (project / "go").touch()
        runner.communicate(timeout=120)
    assert runner.returncode == 0
    assert follower.returncode == 0
    shown = ELAPSED.sub("(…)", "".join(seen) + rest).splitlines()
    assert shown[0] == "IMPL-1 · Work: active (running now)"
    assert shown[1] == "  ▶ Wait …"
    assert sorted(shown[2:4]) == ["    first", "    second line"]
    assert shown[4:] == [
        "    after",
        "  · Wait: done (…)",
        "  ▶ Last …",
        "    last",
        "  · Last: done (…)",
        "IMPL-1: the run stopped; the task is completed",
    ]


def test_log_follow_of_a_task_that_does_not_run_prints_it_and_stops(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(echo hi)", "Hi")])])
    assert wfs("execute").code == 0
    run = wfs("log", "IMPL-1", "--follow")
    assert ELAPSED.sub("(…)", run.out).splitlines() == [
        "IMPL-1 · Work: completed",
        "  ▶ Hi …",
        "    hi",
        "  · Hi: done (…)",
        "IMPL-1: the run stopped; the task is completed",
    ]


def test_log_shows_what_a_record_keeps_for_a_step_without_logged_output(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(echo kept)", "Keep")])])
    assert wfs("execute").code == 0
    (project / ".workflow" / SID / ".runs" / "IMPL-1.output.jsonl").unlink()
    record = read_json(project / ".workflow" / SID / ".runs" / "IMPL-1.json")
    assert record["steps"]["implementation_approach/1"]["output"] == "kept"
    assert ELAPSED.sub("(…)", wfs("log", "IMPL-1").out).splitlines() == [
        "IMPL-1 · Work: completed",
        "  ▶ Keep …",
        "    kept",
        "  · Keep: done (…)",
    ]


# ---------------------------------------------------------------- Ctrl-C


@pytest.mark.slow
@posix_only
def test_ctrl_c_each_finished_task_is_shown_before_the_interruption_and_none_after(
    project: Path,
) -> None:
    plan(
        [
            task("IMPL-1", [step(1, "bash(echo one)", "One")]),
            task("IMPL-2", [step(1, "bash(echo two)", "Two")]),
            task("IMPL-3", [step(1, WAITING, "Wait")]),
            task("IMPL-4", [step(1, "bash(touch fourth)", "Four")]),
        ]
    )
    proc = start(project, "execute", "--all", stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    seen: list[str] = []
    lines_until(proc.stdout, "  IMPL-3 ▶ Wait …", seen)
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130
    shown = ELAPSED.sub("(…)", "".join(seen) + rest).splitlines()
    summaries = f".workflow/{SID}/.summaries"
    assert shown == [
        "  IMPL-1 ▶ One …",
        "  IMPL-1 · One: done (…)",
        f"IMPL-1: completed → {summaries}/IMPL-1-summary.md",
        "  IMPL-2 ▶ Two …",
        "  IMPL-2 · Two: done (…)",
        f"IMPL-2: completed → {summaries}/IMPL-2-summary.md",
        "  IMPL-3 ▶ Wait …",
        "  IMPL-3 · Wait: interrupted (…)",
        "IMPL-3: interrupted by SIGINT at implementation_approach/1; the task is paused.",
        f"  Resume: wfs --session {SID} execute --resume IMPL-3",
        f"  (or the whole run, this task first: wfs --session {SID} execute --all)",
        "Run: 2 completed, 1 interrupted; 1 task still pending.",
    ]
    assert not (project / "fourth").exists()
    # The interrupted step went with its run, however soon after its start the signal
    # came (its start is shown while the resident bash forks it).
    deadline = time.monotonic() + 60
    while processes_in(project) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_in(project) == []


def processes_in(folder: Path) -> list[int]:
    """The processes whose working folder is `folder` (this one aside): a step that
    outlived its run."""
    import psutil

    found = []
    for process in psutil.process_iter(["cwd"]):
        cwd = process.info["cwd"]
        if process.pid == os.getpid():
            continue
        if cwd and os.path.realpath(cwd) == os.path.realpath(folder):
            found.append(process.pid)
    return found


# ---------------------------------------------------------------- a real terminal

needs_tmux = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux) for a real terminal"
)


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    """A tmux server of this test's own (its own socket), 120 x 30, ended after it."""
    server = ["tmux", "-L", f"wfs-test-{uuid.uuid4().hex[:12]}", "-f", os.devnull]
    try:
        yield server
    finally:
        subprocess.run([*server, "kill-server"], capture_output=True)


def pane(server: list[str]) -> list[str]:
    shown = subprocess.run(
        [*server, "capture-pane", "-p", "-t", "watch"], capture_output=True, text=True, check=True
    )
    return shown.stdout.rstrip("\n").splitlines()


def pane_until(server: list[str], wanted: str, proc_dir: Path) -> list[str]:
    """The pane's lines once one of them holds `wanted` (as long as it takes)."""
    while True:
        lines = pane(server)
        if any(wanted in line for line in lines):
            return lines
        assert not (proc_dir / "exited").exists(), lines
        time.sleep(0.05)


@pytest.mark.slow
@needs_tmux
@posix_only
def test_on_a_terminal_the_running_step_shows_its_elapsed_time_and_last_line(
    project: Path, tmux: list[str]
) -> None:
    plan([task("IMPL-1", [step(1, WAITING, "Wait")])])
    command = (
        f"cd {shlex.quote(str(project))} && env PATH={shlex.quote(os.environ['PATH'])} "
        f"TERM=xterm {shlex.quote(sys.executable)} -m wfs execute IMPL-1; touch exited; sleep 600"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "120", "-y", "30", "-s", "watch", command], check=True
    )
    lines = pane_until(tmux, "second line", project)
    status = [line for line in lines if line.strip()]
    assert len(status) == 1, lines
    assert re.fullmatch(r"  IMPL-1 ▶ Wait · \d+s · second line", status[0]), status
    # The clock goes on while nothing new is written.
    first = int(re.findall(r"· (\d+)s ·", status[0])[0])
    pane_until(tmux, f"· {first + 1}s ·", project)
    (project / "go").touch()
    lines = pane_until(tmux, "IMPL-1: completed", project)
    shown = [ELAPSED.sub("(…)", line) for line in lines if line.strip()]
    assert shown == [
        "  IMPL-1 · Wait: done (…)",
        f"IMPL-1: completed → .workflow/{SID}/.summaries/IMPL-1-summary.md",
    ]


@pytest.mark.slow
@needs_tmux
@posix_only
def test_on_a_terminal_the_status_line_is_cut_to_the_width_and_shows_controls_as_text(
    project: Path, tmux: list[str]
) -> None:
    """A step's output cannot clear the screen or color it through the status line, and
    NO_COLOR leaves wfs's own lines without color."""
    waits = "while [ ! -f go ]; do sleep 0.05; done"
    plan([task("IMPL-1", [step(1, f"bash(printf 'a\\033[2Jb%080d\\n' 0; {waits})", "Wait")])])
    command = (
        f"cd {shlex.quote(str(project))} && env PATH={shlex.quote(os.environ['PATH'])} "
        f"NO_COLOR=1 TERM=xterm {shlex.quote(sys.executable)} -m wfs execute IMPL-1; "
        "touch exited; sleep 600"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "60", "-y", "10", "-s", "watch", command], check=True
    )
    lines = pane_until(tmux, "a\\x1b[2Jb", project)
    status = [line for line in lines if line.strip()]
    assert len(status) == 1, lines  # cut, never wrapped onto a second line
    assert re.fullmatch(r"  IMPL-1 ▶ Wait · \d+s · a\\x1b\[2Jb0+…", status[0]), status
    assert len(status[0]) == 59
    (project / "go").touch()
    pane_until(tmux, "IMPL-1: completed", project)
    colored = subprocess.run(
        [*tmux, "capture-pane", "-p", "-e", "-t", "watch"], capture_output=True, text=True
    ).stdout
    assert "  IMPL-1 · Wait: done (" in colored
    assert "\x1b[3" not in colored  # no color at all


def test_the_log_keeps_a_bounded_part_of_a_huge_output_and_says_so(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch, "LOG_LIMIT", 10)
    plan([task("IMPL-1", [step(1, "bash(echo 0123456789abcdef; echo more)", "Big")])])
    assert wfs("execute").code == 0
    assert ELAPSED.sub("(…)", wfs("log", "IMPL-1").out).splitlines() == [
        "IMPL-1 · Work: completed",
        "  ▶ Big …",
        "    0123456789",
        "    … (the log keeps no more of this output; it is kept whole beside the run record)",
        "  · Big: done (…)",
    ]
    record = read_json(project / ".workflow" / SID / ".runs" / "IMPL-1.json")
    assert record["steps"]["implementation_approach/1"]["output"] == "0123456789abcdef\nmore"
