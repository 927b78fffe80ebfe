"""`wfs execute --all --jobs N`: tasks at once, each in a git worktree, merged back.

Real git, real processes, a fake agent on PATH. Nothing here asserts on time: that
two tasks ran at once is shown by tasks that can only finish together (each waits for a
file the other writes), with a timeout on the run as a guard.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, needs_bash, read_json, result_line, wfs
from git_helpers import commit_all, git, git_env

from wfs.flow import parallel, session_run
from wfs.flow.schedule import Plan
from wfs.layout import Layout

pytestmark = [needs_bash, pytest.mark.skipif(os.name == "nt", reason="POSIX signals")]

__all__ = ["git_env"]  # the fixture, used by name


def step(command: str, n: int = 1) -> dict[str, Any]:
    return {
        "step": n,
        "title": f"work {n}",
        "description": "do it",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": f"out{n}",
        "command": command,
    }


def task(tid: str, command: str, deps: list[str] | None = None) -> dict[str, Any]:
    return {
        "id": tid,
        "title": f"task {tid}",
        "depends_on": deps or [],
        "flow_control": {"pre_analysis": [], "implementation_approach": [step(command)]},
    }


def planned(root: Path, tasks: list[dict[str, Any]]) -> str:
    """A git repository with wfs set up and the plan committed on `main`."""
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("project\n")
    assert wfs("init").code == 0
    run = wfs("plan", "Parallel", "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    commit_all(root, "plan")
    return run.out.strip()


def run_wfs(root: Path, *args: str, timeout: float = 180) -> Run:
    proc = subprocess.run(
        [sys.executable, "-m", "wfs", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def status_of(root: Path, sid: str, tid: str) -> str:
    return str(read_json(root / ".workflow" / sid / ".task" / f"{tid}.json")["status"])


def merges(root: Path) -> list[str]:
    return git(root, "log", "--merges", "--format=%s").stdout.split("\n")[:-1]


def worktrees(root: Path) -> list[str]:
    out = git(root, "worktree", "list", "--porcelain").stdout
    return [line for line in out.splitlines() if line.startswith("worktree ")]


@pytest.mark.slow
def test_a_diamond_runs_its_two_middle_tasks_at_once_and_merges_each_once(
    project: Path, git_env: Path, tmp_path: Path
) -> None:
    meet = tmp_path / "meet"
    meet.mkdir()
    both = "touch {meet}/{me}; while [ ! -f {meet}/{other} ]; do sleep 0.05; done; echo {me} > {me}.txt"
    sid = planned(
        project,
        [
            task("IMPL-1", "bash(echo base > base.txt)"),
            task("IMPL-2", f"bash({both.format(meet=meet, me='b', other='c')})", ["IMPL-1"]),
            task("IMPL-3", f"bash({both.format(meet=meet, me='c', other='b')})", ["IMPL-1"]),
            task("IMPL-4", "bash(cat base.txt b.txt c.txt > all.txt)", ["IMPL-2", "IMPL-3"]),
        ],
    )
    run = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert run.code == 0, run.err
    assert (project / "all.txt").read_text() == "base\nb\nc\n"
    assert [status_of(project, sid, f"IMPL-{n}") for n in range(1, 5)] == ["completed"] * 4
    expected = [f"Merge IMPL-{n} of wfs session {sid} (wfs/{sid}/IMPL-{n})" for n in range(1, 5)]
    assert sorted(merges(project)) == expected  # each task's work merged exactly once
    subjects = git(project, "log", "--no-merges", "--format=%s", "main").stdout.split("\n")
    assert sorted(s for s in subjects if s.startswith("IMPL-")) == [
        f"IMPL-{n}: task IMPL-{n}" for n in range(1, 5)
    ]
    assert len(worktrees(project)) == 1  # each task's worktree removed after its merge
    assert git(project, "branch", "--list", "wfs/*").stdout == ""  # merged branches deleted
    assert git(project, "status", "--porcelain", "--", ".", ":!.workflow").stdout == ""
    *lines, last = run.out.splitlines()
    for line in lines:
        assert line.startswith(("IMPL-1: completed", "IMPL-2: completed", "IMPL-3: completed",
                                "IMPL-4: completed"))  # fmt: skip
    assert last == "Run: 4 completed."


@pytest.mark.slow
def test_status_shows_a_running_task_once_with_the_worktree_its_lease_names(
    project: Path, git_env: Path
) -> None:
    look = f"bash(wfs --root {project} status > status.txt)"  # wfs on PATH: this checkout
    sid = planned(project, [task("IMPL-1", look)])
    run = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert run.code == 0, run.err
    lines = (project / "status.txt").read_text().splitlines()  # merged with its work
    (running,) = [line for line in lines if line.startswith("Running:")]
    place = project.resolve() / ".workflow" / ".worktrees" / sid / "IMPL-1"
    assert running.startswith("Running:  IMPL-1: step ")
    assert f" on this machine, in {place}" in running and running.endswith(str(place))
    assert not [line for line in lines if line.startswith("Claimed:")]  # said once


@pytest.mark.slow
def test_json_gives_each_event_with_its_task_and_the_result_last(
    project: Path, git_env: Path
) -> None:
    sid = planned(
        project,
        [task("IMPL-1", "bash(echo one > one.txt)"), task("IMPL-2", "bash(echo two > two.txt)")],
    )
    run = run_wfs(project, "--json", "execute", "--all", "--jobs", "2")
    assert run.code == 0, run.err
    lines = [json.loads(line) for line in run.out.splitlines()]
    events = lines[:-1]
    assert {e["event"] for e in events} == {"step_started", "step_finished", "task_finished"}
    assert all(e["task"] in ("IMPL-1", "IMPL-2") for e in events)
    for tid in ("IMPL-1", "IMPL-2"):
        mine = [e["event"] for e in events if e["task"] == tid]
        assert mine == ["step_started", "step_finished", "task_finished"]
    result = lines[-1]
    assert result["session"] == sid and result["status"] == "completed"
    assert sorted(t["task"] for t in result["tasks"]) == ["IMPL-1", "IMPL-2"]


@pytest.mark.slow
def test_a_code_conflict_blocks_the_second_task_until_it_is_resolved(
    project: Path, git_env: Path, tmp_path: Path
) -> None:
    # Each task waits until the other has started, so both branches start from the same
    # main whatever the machine's speed (a task started after the other merged would
    # simply build on it).
    flags = tmp_path / "flags"
    flags.mkdir()
    meet = "echo {me} > same.txt; touch {flags}/{me}; while [ ! -f {flags}/{other} ]; do sleep 0.05; done"
    sid = planned(
        project,
        [
            task("IMPL-1", f"bash({meet.format(me='one', other='two', flags=flags)})"),
            task("IMPL-2", f"bash({meet.format(me='two', other='one', flags=flags)})"),
            task("IMPL-3", "bash(cat same.txt > after.txt)", ["IMPL-1", "IMPL-2"]),
        ],
    )
    run = run_wfs(project, "--json", "execute", "--all", "--jobs", "2")
    assert run.code == 1, run.err
    results = {t["task"]: t for t in result_line(run.out)["tasks"]}
    assert sorted(results) == ["IMPL-1", "IMPL-2"]  # IMPL-3 waits on the blocked one
    (blocked,) = [r for r in results.values() if r["status"] == "blocked"]
    (merged,) = [r for r in results.values() if r["status"] == "completed"]
    tid = blocked["task"]
    branch = f"wfs/{sid}/{tid}"
    assert blocked["conflicts"] == ["same.txt"]
    assert blocked["branch"] == branch
    resume = f"wfs --session {sid} execute --resume {tid}"
    assert blocked["resume"] == resume.split()
    assert blocked["reason"] == (
        f"merge conflict: {branch} conflicts with main in same.txt; resolve it on {branch} "
        f"in {blocked['worktree']} (`git merge main`, fix, commit), then `{resume}` merges "
        "it again"
    )
    assert status_of(project, sid, tid) == "blocked"
    # Nothing of the blocked task reached main, and main is not left mid-merge.
    kept = "one\n" if merged["task"] == "IMPL-1" else "two\n"
    assert (project / "same.txt").read_text() == kept
    assert merges(project) == [
        f"Merge {merged['task']} of wfs session {sid} (wfs/{sid}/{merged['task']})"
    ]
    assert not (project / ".git" / "MERGE_HEAD").exists()

    # The user resolves it on the task's branch, in its worktree, and continues.
    place = Path(blocked["worktree"])
    assert git(place, "merge", "main", check=False).returncode != 0
    (place / "same.txt").write_text("one and two\n")
    commit_all(place, "resolve same.txt")
    again = run_wfs(project, "--session", sid, "execute", "--resume", tid)
    assert again.code == 0, again.err
    assert again.out == f"{tid}: completed → .workflow/{sid}/.summaries/{tid}-summary.md\n"
    assert (project / "same.txt").read_text() == "one and two\n"
    assert sorted(m for m in merges(project) if m.startswith("Merge IMPL-")) == [
        f"Merge IMPL-{n} of wfs session {sid} (wfs/{sid}/IMPL-{n})" for n in (1, 2)
    ]
    rest = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert rest.code == 0, rest.err
    assert (project / "after.txt").read_text() == "one and two\n"
    assert [status_of(project, sid, f"IMPL-{n}") for n in range(1, 4)] == ["completed"] * 3


def wait_for(paths: list[Path], proc: subprocess.Popen[str], limit: float = 120) -> None:
    """Until every path exists (a guard against a hang, not a measure of speed)."""
    deadline = time.monotonic() + limit
    while not all(p.exists() for p in paths):
        if proc.poll() is not None:
            raise AssertionError(f"wfs ended early: {proc.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError("the tasks never started")
        time.sleep(0.05)


@pytest.mark.slow
def test_ctrl_c_leaves_every_running_task_resumable(
    project: Path, git_env: Path, tmp_path: Path
) -> None:
    flags = tmp_path / "flags"
    flags.mkdir()
    waits = "touch {flags}/{me}.started; while [ ! -f {flags}/go ]; do sleep 0.05; done; echo {me} > {me}.txt"
    sid = planned(
        project,
        [
            task("IMPL-1", f"bash({waits.format(flags=flags, me='one')})"),
            task("IMPL-2", f"bash({waits.format(flags=flags, me='two')})"),
            task("IMPL-3", "bash(cat one.txt two.txt > both.txt)", ["IMPL-1", "IMPL-2"]),
        ],
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "execute", "--all", "--jobs", "2"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_for([flags / "one.started", flags / "two.started"], proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (out, err)
    for tid in ("IMPL-1", "IMPL-2"):
        assert status_of(project, sid, tid) == "active"  # paused, not claimed
        data = read_json(project / ".workflow" / sid / ".task" / f"{tid}.json")
        assert data["execution"]["paused_reason"] == "interrupted (SIGINT)"
        assert "claimed_by" not in data["execution"]
        assert (
            f"{tid}: interrupted by SIGINT at implementation_approach/1; the task is paused." in out
        )
    assert status_of(project, sid, "IMPL-3") == "pending"
    assert merges(project) == []

    (flags / "go").touch()
    one = run_wfs(project, "--session", sid, "execute", "--resume", "IMPL-1")
    assert one.code == 0, one.err
    rest = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert rest.code == 0, rest.err
    assert rest.out.splitlines()[0] == (
        f"IMPL-2: completed → .workflow/{sid}/.summaries/IMPL-2-summary.md"
    )
    assert (project / "both.txt").read_text() == "one\ntwo\n"
    assert sorted(merges(project)) == [
        f"Merge IMPL-{n} of wfs session {sid} (wfs/{sid}/IMPL-{n})" for n in range(1, 4)
    ]
    assert len(worktrees(project)) == 1


AGENT = """#!/bin/sh
# A fake agent: keeps the brief it got, works in its working directory, answers.
cat > "$BRIEFS/$(basename "$PWD").md"
echo "made by the agent" > agent.txt
echo "done"
"""


@pytest.mark.slow
def test_an_agent_step_works_in_the_task_worktree_which_its_brief_names(
    project: Path, git_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    briefs = tmp_path / "briefs"
    briefs.mkdir()
    monkeypatch.setenv("BRIEFS", str(briefs))
    agent = git_env / "fake-agent"
    agent.write_text(AGENT)
    agent.chmod(0o755)
    agent_step = {k: v for k, v in step("").items() if k != "command"}
    sid = planned(
        project,
        [
            {
                "id": "IMPL-1",
                "title": "task IMPL-1",
                "flow_control": {"pre_analysis": [], "implementation_approach": [agent_step]},
            },
            task("IMPL-2", "bash(echo two > two.txt)"),
        ],
    )
    run = run_wfs(project, "execute", "--all", "--jobs", "2", "--agent", "fake-agent")
    assert run.code == 0, run.err
    assert (project / "agent.txt").read_text() == "made by the agent\n"
    assert (project / "two.txt").read_text() == "two\n"
    brief = (briefs / "IMPL-1.md").read_text()
    place = (project / ".workflow" / ".worktrees" / sid / "IMPL-1").resolve()
    assert f"- worktree: {place}\n" in brief
    assert f"- branch: wfs/{sid}/IMPL-1\n" in brief
    assert status_of(project, sid, "IMPL-1") == "completed"


@pytest.mark.slow
def test_jobs_goes_with_all(project: Path, git_env: Path) -> None:
    planned(project, [task("IMPL-1", "bash(true)")])
    run = wfs("execute", "--jobs", "2")
    assert run.code == 2
    assert "--jobs N goes with --all (and no ID, --resume or --dry-run)" in run.err


@pytest.mark.slow
def test_jobs_needs_a_branch_with_a_commit(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    assert wfs("init").code == 0
    assert (
        wfs("plan", "P", "--from", "-", input=json.dumps([task("IMPL-1", "bash(true)")])).code == 0
    )
    run = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert run.code == 2
    assert run.err == (
        "wfs: error: --jobs N needs a branch with a commit checked out (each task's branch is "
        "made from it); check one out, or use --jobs 1\n"
    )


@pytest.mark.slow
def test_a_merge_that_would_overwrite_an_uncommitted_change_blocks_the_task(
    project: Path, git_env: Path
) -> None:
    sid = planned(project, [task("IMPL-1", "bash(echo task > notes.txt)")])
    (project / "notes.txt").write_text("mine\n")
    git(project, "add", "notes.txt")
    commit_all(project, "notes")
    git(project, "rm", "-q", "--cached", "notes.txt")  # staged: git merges nothing now
    run = run_wfs(project, "--json", "execute", "--all", "--jobs", "2")
    assert run.code == 1, run.err
    (blocked,) = result_line(run.out)["tasks"]
    assert blocked["status"] == "blocked"
    assert "conflicts" not in blocked
    assert blocked["reason"].startswith(f"cannot merge wfs/{sid}/IMPL-1 into main: ")
    assert blocked["reason"].endswith(
        f"; fix that, then `wfs --session {sid} execute --resume IMPL-1` merges it again"
    )
    assert (project / "notes.txt").read_text() == "mine\n"  # nothing of the task merged
    git(project, "reset", "-q")  # the user puts the index back
    again = run_wfs(project, "--session", sid, "execute", "--resume", "IMPL-1")
    assert again.code == 0, again.err
    assert (project / "notes.txt").read_text() == "task\n"


@pytest.mark.slow
def test_a_process_started_ahead_runs_the_task_it_reads_or_nothing(
    project: Path, git_env: Path
) -> None:
    sid = planned(project, [task("IMPL-1", "bash(echo one > one.txt)")])
    argv = [sys.executable, "-m", "wfs", "--session", sid, "execute", "--task-from-stdin"]

    def ahead(stdin: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*argv, "--json"], cwd=project, input=stdin, capture_output=True, text=True
        )

    none = ahead("")  # no task came (a spare --jobs N did not need): nothing done
    assert (none.returncode, none.stdout, none.stderr) == (0, "", "")
    bad = ahead("IMPL-1\n")
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.splitlines()[-1] == (
        'Error: --task-from-stdin: expected {"task", "resume", "base"} on stdin'
    )
    run = ahead(json.dumps({"task": "IMPL-1", "resume": False, "base": "main"}) + "\n")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [e.get("event") for e in lines] == [
        "step_started",
        "step_finished",
        "task_finished",
        None,
    ]
    assert status_of(project, sid, "IMPL-1") == "completed"
    assert merges(project) == [f"Merge IMPL-1 of wfs session {sid} (wfs/{sid}/IMPL-1)"]
    assert (project / "one.txt").read_text() == "one\n"
    assert len(worktrees(project)) == 1 and git(project, "branch", "--list", "wfs/*").stdout == ""


@pytest.mark.slow
def test_the_time_a_task_took_before_orders_what_starts_first(project: Path, git_env: Path) -> None:
    sid = planned(
        project,
        [
            task("IMPL-1", "bash(sleep 0.3)"),
            task("IMPL-2", "bash(true)"),
            task("IMPL-3", "bash(true)"),
        ],
    )
    layout = Layout(project)
    runner = session_run.runner(layout, sid)
    assert parallel.known_costs(runner, ["IMPL-1", "IMPL-2", "IMPL-3"]) is None  # none ran
    for tid in ("IMPL-1", "IMPL-2"):
        assert run_wfs(project, "execute", tid).code == 0
    costs = parallel.known_costs(runner, ["IMPL-1", "IMPL-2", "IMPL-3"])
    assert costs is not None
    assert costs["IMPL-1"] >= 0.3 > costs["IMPL-2"]
    assert costs["IMPL-3"] == (costs["IMPL-1"] + costs["IMPL-2"]) / 2  # never ran: the mean
    graph = {"IMPL-1": [], "IMPL-2": [], "IMPL-3": []}
    plan = Plan(graph, [], graph, costs)
    assert plan.ready() == ["IMPL-1", "IMPL-3", "IMPL-2"]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return open(f"/proc/{pid}/stat").read().split()[2] == "Z" if sys.platform == "linux" else False


@pytest.mark.slow
@pytest.mark.parametrize("when", ["running", "before its worktree"])
def test_a_killed_run_is_taken_over_by_the_next_jobs_run(
    project: Path, git_env: Path, tmp_path: Path, when: str
) -> None:
    """SIGKILL of wfs and of each task's process and steps: the tasks stay active,
    claimed by processes that are gone; `--all --jobs 2` again takes each over where it
    ran and finishes the plan, each task's work merged once."""
    flags = tmp_path / "flags"
    flags.mkdir()
    counts = tmp_path / "counts"
    waits = (
        "echo {me} >> {counts}; echo $$ $PPID > {flags}/{me}.pids; "
        "while [ ! -f {flags}/go ]; do sleep 0.05; done; echo {me} > {me}.txt"
    )
    sid = planned(
        project,
        [
            task("IMPL-1", f"bash({waits.format(flags=flags, me='one', counts=counts)})"),
            task("IMPL-2", f"bash({waits.format(flags=flags, me='two', counts=counts)})"),
            task("IMPL-3", "bash(cat one.txt two.txt > both.txt)", ["IMPL-1", "IMPL-2"]),
        ],
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "execute", "--all", "--jobs", "2"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_for([flags / "one.pids", flags / "two.pids"], proc)
    killed = [proc.pid]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    for me in ("one", "two"):
        step, child = (int(n) for n in (flags / f"{me}.pids").read_text().split())
        os.killpg(step, signal.SIGKILL)  # the step's group: its bash and its sleep
        os.kill(child, signal.SIGKILL)  # the task's own wfs process
        killed += [step, child]
    deadline = time.monotonic() + 60
    while not all(gone(pid) for pid in killed):  # until the system has reaped them
        assert time.monotonic() < deadline, "the killed processes never went away"
        time.sleep(0.05)
    for tid in ("IMPL-1", "IMPL-2"):
        data = read_json(project / ".workflow" / sid / ".task" / f"{tid}.json")
        assert data["status"] == "active" and data["execution"]["claimed_by"]
    if when == "before its worktree":  # as if killed between its claim and its worktree
        record = project / ".workflow" / sid / ".runs" / "IMPL-2.json"
        git(project, "worktree", "remove", "--force", f".workflow/.worktrees/{sid}/IMPL-2")
        record.write_text(json.dumps({"task": "IMPL-2", "steps": {}, "paused": None}))
    assert merges(project) == []

    (flags / "go").touch()
    rest = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert rest.code == 0, rest.err
    assert [status_of(project, sid, f"IMPL-{n}") for n in (1, 2, 3)] == ["completed"] * 3
    assert (project / "both.txt").read_text() == "one\ntwo\n"
    assert sorted(merges(project)) == [
        f"Merge IMPL-{n} of wfs session {sid} (wfs/{sid}/IMPL-{n})" for n in range(1, 4)
    ]
    # Each waiting step ran twice (killed, then again), and no more.
    assert sorted(counts.read_text().split()) == ["one", "one", "two", "two"]
    assert len(worktrees(project)) == 1
    assert git(project, "branch", "--list", "wfs/*").stdout == ""


@pytest.mark.slow
def test_checks_and_fixes_of_each_task_are_shown_with_jobs_and_not_with_one(
    project: Path, git_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_checks import agent_calls, fake_agent

    monkeypatch.setenv("WFS_AGENT_INPUT", "json")  # the fake agent reads the brief as JSON
    check = "bash(grep -qx 4 answer.txt)"
    green = {
        **step(check),
        "command": None,
        "title": "Make it pass",
        "tdd_phase": "green",
        "verification": check,
        "test_fix_cycle": {"max_iterations": 3, "auto_revert": False},
    }
    del green["command"]
    planned(
        project,
        [
            {
                "id": "IMPL-1",
                "title": "task IMPL-1",
                "depends_on": [],
                "flow_control": {"pre_analysis": [], "implementation_approach": [green]},
            }
        ],
    )
    agent = fake_agent(
        tmp_path,
        {
            "implementation_approach/1": {"answer.txt": "5\n"},
            "implementation_approach/1#fix1": {"answer.txt": "4\n"},
        },
    )
    run = run_wfs(project, "--json", "execute", "--all", "--jobs", "2", "--agent", str(agent))
    assert run.code == 0, run.err
    assert agent_calls(agent) == ["implementation_approach/1", "implementation_approach/1#fix1"]
    events = [json.loads(line) for line in run.out.splitlines()][:-1]
    seen = [e for e in events if e["event"] in ("check", "fix")]
    where = {"task": "IMPL-1", "step": "implementation_approach/1", "name": "Make it pass"}
    assert seen == [
        {"event": "check", **where, "check": 1, "command": check, "outcome": "failed"},
        {
            "event": "fix",
            **where,
            "error": f"the check `{check}` failed: exit code 1",
            "iteration": 1,
            "of": 3,
        },
        {"event": "check", **where, "check": 1, "command": check, "outcome": "passed"},
    ]
    assert (project / "answer.txt").read_text() == "4\n"

    # As plain lines, with --jobs N; --jobs 1 --json gives no such events (as before).
    (agent.parent / "calls.log").unlink()
    assert run_wfs(project, "task", "status", "IMPL-1", "pending").code == 0
    plain = run_wfs(project, "execute", "--all", "--jobs", "2", "--agent", str(agent), "--force")
    assert plain.code == 0, plain.err
    assert (
        f"  IMPL-1 · Make it pass: check failed: {check}\n"
        f"  IMPL-1 · Make it pass: failed (the check `{check}` failed: exit code 1); "
        "fix 1 of 3 goes to the agent\n"
        f"  IMPL-1 · Make it pass: check passed: {check}\n"
    ) in plain.err
    assert run_wfs(project, "task", "status", "IMPL-1", "pending").code == 0
    git(project, "rm", "-q", "answer.txt")
    git(project, "commit", "-q", "-m", "again")
    one = run_wfs(project, "--json", "execute", "--all", "--agent", str(agent), "--force")
    assert one.code == 0, one.err
    kinds = {json.loads(line).get("event") for line in one.out.splitlines()}
    assert kinds == {"step_started", "output", "step_finished", "task_finished", None}


def test_each_task_line_shows_its_last_check_or_fix(capsys: pytest.CaptureFixture[str]) -> None:
    from wfs.cli import Env
    from wfs.commands.progress import LiveTasks

    shown = LiveTasks(Env(None, None, json=False, color=False), lambda env, data: None)
    where = {"step": "implementation_approach/1", "name": "Make it pass"}
    shown("start", {"task": "IMPL-1", **where})
    shown("start", {"task": "IMPL-2", **where})
    shown("check", {"task": "IMPL-1", **where, "command": "bash(make test)", "outcome": "failed"})
    fix = {"error": "the check failed", "iteration": 1, "of": 3}
    shown("fix", {"task": "IMPL-2", **where, **fix})
    lines = shown.status_lines(200)
    assert [line.split(" · ")[0] for line in lines] == [
        "  IMPL-1 ▶ Make it pass",
        "  IMPL-2 ▶ Make it pass",
    ]
    assert lines[0].endswith(" · check failed: bash(make test)")
    assert lines[1].endswith(" · fix 1 of 3 with the agent")
    shown("output", {"task": "IMPL-2", **where, "text": "working on it"})
    assert shown.status_lines(200)[1].endswith(" · working on it")
    shown.close()
    err = capsys.readouterr().err
    assert "  IMPL-1 · Make it pass: check failed: bash(make test)\n" in err
    assert (
        "  IMPL-2 · Make it pass: failed (the check failed); fix 1 of 3 goes to the agent\n" in err
    )


GIT_LOGGER = '#!/bin/sh\necho "$*" | head -n 1 >> "$LOGGED_GIT_CALLS"\nexec "$REAL_GIT" "$@"\n'


@pytest.mark.slow
def test_a_task_in_a_worktree_runs_git_at_most_six_times(
    project: Path, git_env: Path, tmp_path: Path
) -> None:
    """Each task of `--jobs N` (its worktree made, what it changed found and committed,
    its branch merged), with its share of what the run does once (the session's branch,
    the worktrees and branches forgotten at the end), starts at most six git processes,
    and the run three more to commit the session's state once its tasks ended: counted
    by a `git` first on PATH that logs each call, then runs the real one."""
    count = 4
    tasks = [
        task(
            f"IMPL-{n}",
            f"bash(echo {n} >> README.md; echo {n} > new-{n}.txt)",
            [f"IMPL-{n - 1}"] if n > 1 else None,
        )
        for n in range(1, count + 1)
    ]
    sid = planned(project, tasks)
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True)
    logger = tmp_path / "logging-git"
    logger.mkdir()
    (logger / "git").write_text(GIT_LOGGER)
    (logger / "git").chmod(0o755)
    log = tmp_path / "git-calls.log"
    env = {
        **os.environ,
        "PATH": f"{logger}{os.pathsep}{os.environ['PATH']}",
        "REAL_GIT": real.stdout.strip(),
        "LOGGED_GIT_CALLS": str(log),
    }
    run = subprocess.run(
        [sys.executable, "-m", "wfs", "execute", "--all", "--jobs", "2"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    calls = log.read_text().splitlines()
    assert len(calls) <= 6 * count + 3, "\n".join(calls)
    assert calls[-1].endswith(f"commit --quiet --no-verify -m wfs session {sid}: "
                              f"IMPL-1, IMPL-2, IMPL-3, IMPL-4 ended -- .workflow/{sid}")  # fmt: skip
    assert git(project, "status", "--porcelain").stdout == ""  # a clean tree
    assert (project / "README.md").read_text() == "project\n1\n2\n3\n4\n"
    assert [(project / f"new-{n}.txt").read_text() for n in range(1, count + 1)] == [
        f"{n}\n" for n in range(1, count + 1)
    ]
    assert sorted(merges(project)) == [
        f"Merge IMPL-{n} of wfs session {sid} (wfs/{sid}/IMPL-{n})" for n in range(1, count + 1)
    ]
    assert len(worktrees(project)) == 1
    assert git(project, "branch", "--list", "wfs/*").stdout == ""
