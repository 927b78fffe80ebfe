"""A stopped `--all` run goes on (issue 45, points 1, 3, 4 and 10): typed as a user types
it, and every command a message names run as printed."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from runnable_docs import BIN
from test_first_hour import typed

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="signals and bash as on POSIX")
SID = "WFS-demo"


def bash_task(tid: str, command: str, **more: Any) -> dict[str, Any]:
    steps = [{"title": f"{tid} step", "command": f"bash({command})"}]
    return {
        "id": tid,
        "title": f"Task {tid}",
        **more,
        "flow_control": {"implementation_approach": steps},
    }


def planned(tmp_path: Path, tasks: list[dict[str, Any]]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "plan.json").write_text(json.dumps({"tasks": tasks}))
    made = typed("wfs init --no-git && wfs plan Demo --from plan.json", project)
    assert made.code == 0, made.err
    return project


def status_of(project: Path, tid: str) -> str:
    task = json.loads((project / ".workflow" / SID / ".task" / f"{tid}.json").read_text())
    return str(task["status"])


def printed(text: str, lead: str) -> str:
    """The command printed after `lead` on its line."""
    line = next(line for line in text.splitlines() if lead in line)
    return line.split(lead, 1)[1].rstrip(")")


# ------------------------------------------------ 3: bash-only tasks run while agents wait


def test_bash_only_tasks_run_while_an_agent_task_waits_and_the_run_exits_3(
    tmp_path: Path,
) -> None:
    project = planned(
        tmp_path,
        [
            bash_task("IMPL-1", "echo one > one.txt"),
            {"id": "IMPL-2", "title": "Think it over"},
            bash_task("IMPL-3", "echo three > three.txt"),
            bash_task("IMPL-4", "echo four > four.txt", context={"depends_on": ["IMPL-2"]}),
        ],
    )
    run = typed("wfs execute --all", project)
    assert run.code == 3, run.out + run.err
    assert (project / "one.txt").read_text() == "one\n"
    assert (project / "three.txt").read_text() == "three\n"
    assert not (project / "four.txt").exists()  # it waits on the agent's task
    assert [status_of(project, f"IMPL-{n}") for n in range(1, 5)] == [
        "completed",
        "active",
        "completed",
        "pending",
    ]
    lines = run.out.splitlines()
    assert lines[0] == f"IMPL-1: completed → .workflow/{SID}/.summaries/IMPL-1-summary.md"
    assert "Paused: IMPL-2 · Think it over (task): waiting for an agent" in lines
    assert f"IMPL-3: completed → .workflow/{SID}/.summaries/IMPL-3-summary.md" in lines
    assert lines[-1] == "Run: 2 completed, 1 paused; 1 task still pending."
    # The printed way on, with an agent, as printed: the rest of the run follows.
    agent = tmp_path / "agent.sh"
    agent.write_text("#!/usr/bin/env bash\ncat > /dev/null\necho 'Thought it over.'\n")
    agent.chmod(0o755)
    way_on = next(line.strip() for line in lines if line.endswith("--agent CMD"))
    assert way_on == f"wfs --session {SID} execute --resume IMPL-2 --agent CMD"
    answered = typed(way_on.replace("CMD", shlex.quote(str(agent))), project)
    assert answered.code == 0, answered.out + answered.err
    rest = typed("wfs execute --all", project)
    assert rest.code == 0, rest.out + rest.err
    assert rest.out.splitlines()[-1] == "Run: 1 completed."
    assert (project / "four.txt").read_text() == "four\n"


def test_a_json_all_run_counts_its_tasks_by_status(tmp_path: Path) -> None:
    project = planned(
        tmp_path,
        [
            bash_task("IMPL-1", "exit 4"),
            {"id": "IMPL-2", "title": "Think"},
            bash_task("IMPL-3", "true", context={"depends_on": ["IMPL-1"]}),
        ],
    )
    run = typed("wfs execute --all --json", project)
    assert run.code == 3  # a pause ranks before a failure: both wait for someone
    result = json.loads(run.out.splitlines()[-1])
    assert result["tally"] == {"blocked": 1, "paused": 1, "pending": 1}
    assert [t["status"] for t in result["tasks"]] == ["blocked", "paused"]
    # Again: the task waiting for an agent is asked again (the blocked one waits for a
    # person), and with an agent configured since, answered.
    again = typed("wfs execute --all --json", project)
    assert again.code == 3
    assert json.loads(again.out.splitlines()[-1])["tally"] == {"paused": 1, "pending": 1}
    agent = tmp_path / "agent.sh"
    agent.write_text("#!/usr/bin/env bash\ncat > /dev/null\necho 'Thought it over.'\n")
    agent.chmod(0o755)
    answered = typed(f"wfs execute --all --agent {shlex.quote(str(agent))}", project)
    assert answered.code == 0, answered.out + answered.err
    assert answered.out.splitlines()[-1] == "Run: 1 completed; 1 task still pending."
    assert status_of(project, "IMPL-2") == "completed"


# ------------------------------------------------ 10: --all --dry-run shows the whole run


def test_all_dry_run_previews_every_task_in_the_order_the_run_takes(tmp_path: Path) -> None:
    project = planned(
        tmp_path,
        [
            bash_task("IMPL-1", "echo one"),
            bash_task("IMPL-2", "echo two", context={"depends_on": ["IMPL-3"]}),
            bash_task("IMPL-3", "echo three", context={"depends_on": ["IMPL-1"]}),
            bash_task("IMPL-4", "echo four"),
        ],
    )
    shown = typed("wfs execute --all --dry-run", project)
    assert shown.code == 0, shown.err
    heads = [line for line in shown.out.splitlines() if "(dry run" in line]
    # The run takes the lowest ready id each time: IMPL-3, ready once IMPL-1 completes,
    # comes before IMPL-4, and IMPL-2 once IMPL-3 completes.
    assert heads == [
        "IMPL-1: Task IMPL-1 (dry run, nothing is executed)",
        "IMPL-3: Task IMPL-3 (dry run, nothing is executed)",
        "IMPL-2: Task IMPL-2 (dry run, nothing is executed)",
        "IMPL-4: Task IMPL-4 (dry run, nothing is executed)",
    ]
    assert (
        shown.out.splitlines()[0] == "`--all` would run 4 tasks, in this order, as each completes:"
    )
    assert "      bash: echo three" in shown.out.splitlines()
    listed = json.loads(typed("wfs execute --all --dry-run --json", project).out)
    assert [plan["task"] for plan in listed["tasks"]] == ["IMPL-1", "IMPL-3", "IMPL-2", "IMPL-4"]
    assert [status_of(project, f"IMPL-{n}") for n in range(1, 5)] == ["pending"] * 4
    # The run itself takes that order.
    ran = typed("wfs execute --all --json", project)
    assert ran.code == 0, ran.err
    assert [t["task"] for t in json.loads(ran.out.splitlines()[-1])["tasks"]] == [
        "IMPL-1",
        "IMPL-3",
        "IMPL-2",
        "IMPL-4",
    ]
    assert typed("wfs execute --all --dry-run", project).out == "No task is ready.\n"


# ------------------------------------------------ 1: Ctrl-C, then --all goes on


def start(project: Path, line: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFS_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.Popen(
        ["bash", "--norc", "--noprofile", "-c", f"exec {line}"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Until `path` exists (a guard against a hang, not a measure of speed)."""
    deadline = time.monotonic() + 120
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the step never started"
        time.sleep(0.02)


SLOW = (
    "echo ran >> slow.txt; if [ ! -f go ]; then touch started; "
    "while [ ! -f go ]; do sleep 0.05; done; fi; echo done >> slow.txt"
)


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("again", ["printed", "same"])
def test_after_ctrl_c_the_same_all_goes_on_with_the_interrupted_task_first(
    tmp_path: Path, again: str
) -> None:
    project = planned(
        tmp_path,
        [
            bash_task("IMPL-1", "echo first >> first.txt"),
            bash_task("IMPL-2", SLOW, context={"depends_on": ["IMPL-1"]}),
            bash_task("IMPL-3", "echo third >> third.txt"),
        ],
    )
    proc = start(project, "wfs execute --all --agent-scope step")
    wait_for(project / "started", proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out + err
    assert (
        f"IMPL-2: interrupted by SIGINT at implementation_approach/1; the task is paused.\n"
        f"  Resume: wfs --session {SID} execute --agent-scope step --resume IMPL-2\n"
        f"  (or the whole run, this task first: wfs --session {SID} execute --agent-scope step "
        "--all)\n"
    ) in out
    assert out.splitlines()[-1] == "Run: 1 completed, 1 interrupted; 1 task still pending."
    assert status_of(project, "IMPL-2") == "active"
    preview = typed("wfs execute --all --dry-run", project).out.splitlines()
    assert [line.split(":")[0] for line in preview if "(dry run" in line] == ["IMPL-2", "IMPL-3"]
    (project / "go").touch()
    line = printed(out, "this task first: ") if again == "printed" else "wfs execute --all"
    rest = typed(line, project)
    assert rest.code == 0, rest.out + rest.err
    assert rest.out.splitlines() == [
        f"IMPL-2: completed → .workflow/{SID}/.summaries/IMPL-2-summary.md",
        f"IMPL-3: completed → .workflow/{SID}/.summaries/IMPL-3-summary.md",
        "Run: 2 completed.",
    ]
    assert (project / "first.txt").read_text() == "first\n"  # never run again
    assert (project / "slow.txt").read_text() == "ran\nran\ndone\n"


# ------------------------------------------------ 4: wfs log --follow follows the whole run


@pytest.mark.slow
@posix_only
def test_log_follow_with_no_id_follows_the_whole_run_until_it_ends(tmp_path: Path) -> None:
    project = planned(
        tmp_path,
        [
            bash_task("IMPL-1", "echo one; touch started; while [ ! -f go ]; do sleep 0.05; done"),
            bash_task("IMPL-2", "echo two", context={"depends_on": ["IMPL-1"]}),
            bash_task("IMPL-3", "echo three >&2", context={"depends_on": ["IMPL-2"]}),
        ],
    )
    idle = typed("wfs log --follow", project)
    assert (idle.code, idle.out) == (
        0,
        f"No run of {SID} is going on; `wfs log ID` shows a task's last run.\n",
    )
    run = start(project, "wfs execute --all")
    wait_for(project / "started", run)
    follower = start(project, "wfs log --follow")
    assert follower.stdout is not None
    first = follower.stdout.readline()  # it follows the run now
    (project / "go").touch()
    guard = threading.Timer(120, follower.kill)  # against a hang, not a measure of speed
    guard.start()
    rest = follower.stdout.read()  # what readline buffered included: it ends with the run
    guard.cancel()
    err = follower.stderr.read() if follower.stderr else ""
    follower.wait(timeout=120)
    run.communicate(timeout=120)
    assert (run.returncode, follower.returncode) == (0, 0), err
    shown = [line.split(" (")[0] for line in (first + rest).splitlines()]  # times cut
    assert shown[-1] == f"The run of {SID} ended."
    # Each task's lines, in order (a task found once it ran shows its status then).
    for n, text, status in ((1, "one", "active"), (2, "two", ""), (3, "three", "")):
        head = f"IMPL-{n} · Task IMPL-{n}: "
        mine = [line for line in shown if f"IMPL-{n} " in line or f"IMPL-{n}:" in line]
        assert mine[0] in ([head + status] if status else [head + "active", head + "completed"])
        assert mine[1:] == [
            f"  IMPL-{n} ▶ IMPL-{n} step …",
            f"    IMPL-{n} | {text}",
            f"  IMPL-{n} · IMPL-{n} step: done",
            f"IMPL-{n}: the run stopped; the task is completed",
        ], shown
    assert len(shown) == 16
    # The command the idle message names, as printed.
    shown_log = typed("wfs log IMPL-3", project)
    assert shown_log.code == 0 and "    three" in shown_log.out.splitlines()
    asked = typed("wfs log", project)
    assert (asked.code, asked.err.splitlines()[-1]) == (
        2,
        "Error: give a task ID (`wfs log ID`), or --follow to follow the session's run",
    )


@pytest.mark.slow
@posix_only
def test_all_takes_over_a_task_whose_runner_was_killed_and_goes_on(tmp_path: Path) -> None:
    project = planned(
        tmp_path,
        [
            bash_task("IMPL-1", "echo first >> first.txt"),
            bash_task("IMPL-2", SLOW, context={"depends_on": ["IMPL-1"]}),
            bash_task("IMPL-3", "echo third >> third.txt", context={"depends_on": ["IMPL-2"]}),
        ],
    )
    proc = start(project, "wfs execute --all")
    wait_for(project / "started", proc)
    owner = json.loads((project / ".workflow" / SID / ".task" / "IMPL-2.json").read_text())
    owner = owner["execution"]["claimed_by"]
    proc.kill()  # SIGKILL: no chance to leave the task paused; its step dies with it
    proc.communicate(timeout=120)
    assert status_of(project, "IMPL-2") == "active"
    (project / "go").touch()
    rest = typed("wfs execute --all", project)
    assert rest.code == 0, rest.out + rest.err
    assert rest.err.startswith(
        f"IMPL-2: took over the claim of {owner}, which is no longer running\n"
    )
    assert rest.out.splitlines()[-1] == "Run: 2 completed."
    assert (project / "first.txt").read_text() == "first\n"
    assert (project / "third.txt").read_text() == "third\n"
