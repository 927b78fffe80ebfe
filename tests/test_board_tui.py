"""`wfs board --tui`: the board's columns and running tasks in a terminal, printed once
without one, redrawn in place on one (a real terminal: tmux)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import posix_only, read_json, wfs, wfs_process
from test_board_server import SID, edit_execution, plan
from test_watch import needs_tmux, pane, pane_until, tmux  # noqa: F401 (a fixture)

from wfs import leases
from wfs.layout import Layout

SCREEN = [
    f"{SID}: Board (active, IMPLEMENT), 1 of 6 completed",
    "pending      2  IMPL-1.2 Wire up · IMPL-2 Ship",
    "ready        2  IMPL-1.1 Lay out <b>it</b> · IMPL-5 Claimed",
    "active       0",
    "blocked      1  IMPL-3 Stuck",
    "completed    1  IMPL-4 Done",
    "running      0",
]


@pytest.mark.slow
def test_without_a_terminal_the_board_is_printed_once(project: Path) -> None:
    plan(project)
    result = wfs_process("board", "--tui", cwd=project)
    assert (result.code, result.err) == (0, "")
    assert result.out.splitlines() == SCREEN


@pytest.mark.slow
def test_a_running_task_shows_its_holder_step_and_clock_and_controls_as_text(
    project: Path,
) -> None:
    plan(project)
    path = project / ".workflow" / SID / ".task" / "IMPL-5.json"
    task = read_json(path)
    path.write_text(json.dumps({**task, "title": "Claimed\x1b[2J"}))
    lease = leases.claim_store(Layout(project)).acquire(SID, "IMPL-5", "desk")
    assert lease is not None
    assert wfs("task", "status", "IMPL-5", "active").code == 0
    edit_execution(
        project, "IMPL-5", {"claimed_by": lease.owner, "step": "implementation_approach/1"}
    )
    result = wfs_process("board", "--tui", cwd=project)
    lines = result.out.splitlines()
    assert lines[2] == "ready        1  IMPL-1.1 Lay out <b>it</b>"
    assert lines[3] == "active       1  IMPL-5 Claimed\\x1b[2J"
    assert lines[6] == "running      1"
    assert re.fullmatch(
        rf" {{16}}IMPL-5 Claimed\\x1b\[2J: {re.escape(lease.owner)}, "
        r"step implementation_approach/1, for \d+s",
        lines[7],
    ), lines
    assert len(lines) == 8


@pytest.mark.slow
@needs_tmux
@posix_only
def test_on_a_terminal_the_board_is_redrawn_in_place_when_a_status_changes(
    project: Path,
    tmux: list[str],  # noqa: F811
) -> None:
    plan(project)
    command = (
        f"cd {shlex.quote(str(project))} && env PATH={shlex.quote(os.environ['PATH'])} "
        f"NO_COLOR=1 TERM=xterm {shlex.quote(sys.executable)} -m wfs board --tui; "
        "touch exited; sleep 600"
    )
    subprocess.run(
        [*tmux, "new-session", "-d", "-x", "40", "-y", "20", "-s", "watch", command], check=True
    )
    first = [line for line in pane_until(tmux, "running", project) if line]
    assert first == [line[:39] for line in SCREEN]  # each cut to the width, never wrapped
    changed = wfs_process("task", "status", "IMPL-1.1", "completed", cwd=project)
    assert changed.code == 0
    lines = [line for line in pane_until(tmux, "completed    2", project) if line]
    assert lines[1:3] == [
        "pending      1  IMPL-2 Ship",
        "ready        2  IMPL-1.2 Wire up · IMPL",
    ]
    assert len(lines) == len(SCREEN)  # drawn over the first screen, not below it
    subprocess.run([*tmux, "send-keys", "-t", "watch", "q"], check=True)
    while not (project / "exited").exists():  # as long as it takes to notice the key
        time.sleep(0.05)
    assert [line for line in pane(tmux) if line] == lines  # the last screen stays
