"""Many runs of one plan: every checkout of a session agrees on what is done.

Two worktrees of one clone, clones of one remote, runs that hold a task while another
wants it, runs that end, are killed, or lose their lease. Real git, real worktrees,
real processes; each task's runs are counted through a file its step appends to, and
nothing here asserts on time.
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
from conftest import needs_bash, read_json
from git_helpers import git, git_env
from test_parallel import planned, run_wfs, status_of, task

pytestmark = [needs_bash, pytest.mark.skipif(os.name == "nt", reason="POSIX shells")]

__all__ = ["git_env"]  # the fixture, used by name


def counted(
    tid: str, counts: Path, deps: list[str] | None = None, then: str = ""
) -> dict[str, Any]:
    """A task whose one step appends its id to `counts` (how many times it ran)."""
    return task(tid, f"bash(echo {tid} >> {counts}; echo {tid} > {tid}.txt{then})", deps)


def runs(counts: Path) -> list[str]:
    return sorted(counts.read_text().split()) if counts.exists() else []


def tree(root: Path) -> list[str]:
    """What `git status` shows as changed or new (the tree a run leaves)."""
    return git(root, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()


def second_worktree(root: Path, branch: str) -> Path:
    other = root.parent / f"{branch}-worktree"
    git(root, "worktree", "add", "-q", "-b", branch, str(other))
    return other


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_two_worktrees_of_one_clone_run_each_task_once(
    project: Path, git_env: Path, tmp_path: Path, jobs: str
) -> None:
    """A task completed in one worktree is known as completed in the other, which passes
    over it (its work is not there), saying where it landed; what depends on it waits
    there. Exit 0 in both."""
    counts = tmp_path / "counts"
    sid = planned(
        project,
        [counted("IMPL-1", counts), counted("IMPL-2", counts, ["IMPL-1"])],
    )
    other = second_worktree(project, "other")
    first = run_wfs(project, "--session", sid, "execute", "--all", "--jobs", jobs)
    assert first.code == 0, first.err
    assert runs(counts) == ["IMPL-1", "IMPL-2"]

    second = run_wfs(other, "--session", sid, "--json", "execute", "--all", "--jobs", jobs)
    assert second.code == 0, second.err
    assert runs(counts) == ["IMPL-1", "IMPL-2"]  # nothing ran again
    result = json.loads(second.out.splitlines()[-1])
    (passed,) = result["tasks"]
    assert passed["task"] == "IMPL-1" and passed["status"] == "done elsewhere"
    assert passed["where"] == str(project) and passed["branch"] == "main"
    if jobs == "1":  # in place, nothing committed: its work is in that checkout
        assert passed["commit"] is None
        assert passed["note"] == (
            f"IMPL-1 was completed in {project}, not committed there: its work is in that checkout"
        )
    else:  # merged on main: the note's command takes it in, and then nothing is left to run
        merge = git(project, "log", "--format=%H", "--grep=^Merge IMPL-1 ").stdout.strip()
        assert passed["commit"] == merge  # the merge of its work into main
        assert passed["note"] == (
            f"IMPL-1 was completed in {project}, on main ({merge[:12]}); "
            "`git merge main` takes it in"
        )
        assert tree(project) == []  # the states and summaries committed after the work
        assert git(project, "log", "-1", "--format=%s").stdout == (
            f"wfs session {sid}: IMPL-1, IMPL-2 ended\n"
        )
        git(other, "merge", "-q", "main")
        again = run_wfs(other, "--session", sid, "execute", "--all", "--jobs", jobs)
        assert again.code == 0, again.err
        assert runs(counts) == ["IMPL-1", "IMPL-2"]
    assert [status_of(other, sid, t) for t in ("IMPL-1", "IMPL-2")] == (
        ["pending", "pending"] if jobs == "1" else ["completed", "completed"]
    )
    human = run_wfs(other, "--session", sid, "execute", "--all", "--jobs", jobs)
    if jobs == "1":
        assert human.code == 0 and human.out.startswith(
            f"IMPL-1: passed over: IMPL-1 was completed in {project}, "
        )


@pytest.mark.slow
def test_a_task_set_back_to_pending_where_it_completed_runs_again(
    project: Path, git_env: Path, tmp_path: Path
) -> None:
    """The store remembers completion elsewhere, not against this checkout's own word."""
    counts = tmp_path / "counts"
    sid = planned(project, [counted("IMPL-1", counts)])
    assert run_wfs(project, "execute", "--all").code == 0
    assert run_wfs(project, "task", "status", "IMPL-1", "pending").code == 0
    again = run_wfs(project, "execute", "--all")
    assert again.code == 0, again.err
    assert runs(counts) == ["IMPL-1", "IMPL-1"]
    assert status_of(project, sid, "IMPL-1") == "completed"
    landed = read_json(project / ".git" / "wfs" / "done" / sid / "IMPL-1.json")
    assert (landed["where"], landed["branch"], landed["commit"]) == (str(project), "main", None)


@pytest.fixture
def shared(tmp_path: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone of the bare remote tmp_path/remote.git (`origin`), set up by `wfs init`."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    git(work, "switch", "-q", "-c", "main")
    (work / "README.md").write_text("project\n")
    monkeypatch.chdir(work)
    return work


@pytest.mark.slow
def test_a_remote_outage_at_the_end_of_a_step_never_runs_it_again(
    shared: Path, tmp_path: Path
) -> None:
    """With a claims remote and one job, the remote goes away as the step ends: the task
    stops blocked with a resume line (exit 1), and that line, run once the remote is
    back, lands the task without running its step again."""
    counts = tmp_path / "counts"
    bare, away = tmp_path / "remote.git", tmp_path / "remote.away"
    sid = planned_in(shared, [counted("IMPL-1", counts, then=f"; mv {bare} {away}")])
    run = run_wfs(shared, "execute", "IMPL-1", "--remote", "origin")
    assert run.code == 1, run.err
    assert runs(counts) == ["IMPL-1"]
    resume = f"wfs --session {sid} execute --remote origin --resume IMPL-1"
    assert f"  Resume: {resume}\n" in run.out
    assert "(its steps are done: this lands it; no step runs again)" in run.out
    away.rename(bare)
    again = run_wfs(shared, *resume.split()[1:])
    assert again.code == 0, again.err
    assert runs(counts) == ["IMPL-1"]  # the finished step did not run again
    assert status_of(shared, sid, "IMPL-1") == "completed"
    shown = git(shared, "show", "origin/main:" + f".workflow/{sid}/.task/IMPL-1.json").stdout
    assert json.loads(shown)["status"] == "completed"
    assert tree(shared) == []


def planned_in(root: Path, tasks: list[dict[str, Any]]) -> str:
    """The plan made in the clone `root`, committed and pushed to origin's main."""
    from conftest import wfs

    assert wfs("init").code == 0
    made = wfs("plan", "Fleet", "--from", "-", input=json.dumps(tasks))
    assert made.code == 0, made.err
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    git(root, "push", "-q", "origin", "main")
    return made.out.strip()


@pytest.mark.slow
def test_after_a_merge_conflict_the_printed_resume_lands_it_and_runs_no_step(
    project: Path, git_env: Path, tmp_path: Path
) -> None:
    """Every claim of the message holds: the printed command merges the task again once
    the conflict is resolved on its branch, and none of its steps runs again."""
    flags, counts = tmp_path / "flags", tmp_path / "counts"
    flags.mkdir()
    meet = (
        "echo {me} >> {counts}; echo {me} > same.txt; touch {flags}/{me}; "
        "while [ ! -f {flags}/{other} ]; do sleep 0.05; done"
    )
    sid = planned(
        project,
        [
            task(
                "IMPL-1", f"bash({meet.format(me='one', other='two', flags=flags, counts=counts)})"
            ),
            task(
                "IMPL-2", f"bash({meet.format(me='two', other='one', flags=flags, counts=counts)})"
            ),
        ],
    )
    run = run_wfs(project, "execute", "--all", "--jobs", "2")
    assert run.code == 1, run.err
    lines = run.out.splitlines()
    (at,) = [n for n, line in enumerate(lines) if ": blocked: merge conflict: " in line]
    tid = lines[at].partition(":")[0]
    resume = f"wfs --session {sid} execute --resume {tid}"
    assert lines[at + 1 : at + 3] == [
        f"  Resume: {resume}",
        "  (its steps are done: this lands it; no step runs again)",
    ]
    place = project / ".workflow" / ".worktrees" / sid / tid
    assert git(place, "merge", "main", check=False).returncode != 0
    (place / "same.txt").write_text("one and two\n")
    git(place, "commit", "-q", "-am", "resolve same.txt")
    again = run_wfs(project, *resume.split()[1:])
    assert again.code == 0, again.err
    assert again.out == f"{tid}: completed → .workflow/{sid}/.summaries/{tid}-summary.md\n"
    assert (project / "same.txt").read_text() == "one and two\n"
    assert runs(counts) == ["one", "two"]  # each step ran once


def wait_for_file(path: Path, proc: subprocess.Popen[str], limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} never came"
        time.sleep(0.05)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("holder", ["ends", "is killed"])
def test_a_task_held_by_a_live_run_is_waited_for_never_refused(
    project: Path, git_env: Path, tmp_path: Path, jobs: str, holder: str
) -> None:
    """A `--all` run in another worktree meets a task that a live run holds: it runs
    the rest, waits for the holder, then passes the task over (done there) or takes it
    over (its holder was killed). Exit 0, never 2, and the task ran once to the end."""
    counts, started, go = tmp_path / "counts", tmp_path / "started", tmp_path / "go"
    waits = f"; touch {started}; while [ ! -f {go} ]; do sleep 0.05; done"
    sid = planned(project, [counted("IMPL-1", counts, then=waits), counted("IMPL-2", counts)])
    other = second_worktree(project, "other")
    first = subprocess.Popen(
        [sys.executable, "-m", "wfs", "--session", sid, "execute", "IMPL-1"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    wait_for_file(started, first)
    second = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wfs",
            "--session",
            sid,
            "--json",
            "execute",
            "--all",
            "--jobs",
            jobs,
        ],
        cwd=other,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while runs(counts) != ["IMPL-1", "IMPL-2"]:  # it ran what was free
        assert second.poll() is None, second.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert second.poll() is None  # and waits for the held one
    if holder == "ends":
        go.touch()
        assert first.wait(120) == 0
    else:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(120)
        go.touch()
    out, err = second.communicate(timeout=180)
    assert second.returncode == 0, err
    results = {t["task"]: t for t in json.loads(out.splitlines()[-1])["tasks"]}
    assert results["IMPL-2"]["status"] == "completed"
    if holder == "ends":
        assert results["IMPL-1"]["status"] == "done elsewhere"
        assert runs(counts) == ["IMPL-1", "IMPL-2"]
    else:  # taken over: run again from its start, to its end
        assert results["IMPL-1"]["status"] == "completed"
        assert runs(counts) == ["IMPL-1", "IMPL-1", "IMPL-2"]
        assert status_of(other, sid, "IMPL-1") == "completed"


@pytest.mark.slow
def test_a_clone_on_another_branch_passes_over_what_landed_on_the_remote(
    shared: Path, tmp_path: Path
) -> None:
    """With a claims remote, completion is remembered on the remote (its done ref), so a
    clone on another branch, which the remote's branch does not reach, passes the task
    over; the command the note prints takes its work in, and nothing runs twice."""
    counts = tmp_path / "counts"
    sid = planned_in(shared, [counted("IMPL-1", counts), counted("IMPL-2", counts, ["IMPL-1"])])
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    git(other, "switch", "-q", "-c", "feature")
    assert run_wfs(other, "init").code == 0  # the merge drivers, in this clone
    first = run_wfs(shared, "--session", sid, "execute", "IMPL-1", "--remote", "origin")
    assert first.code == 0, first.err
    landed = git(tmp_path / "remote.git", "rev-parse", f"refs/wfs/done/{sid}/IMPL-1").stdout
    assert landed.strip() == git(tmp_path / "remote.git", "rev-parse", "main").stdout.strip()

    second = run_wfs(other, "--session", sid, "execute", "--all", "--remote", "origin")
    assert second.code == 0, second.err
    assert runs(counts) == ["IMPL-1"]
    take_in = f"git fetch origin refs/wfs/done/{sid}/IMPL-1 && git merge FETCH_HEAD"
    assert second.out == (
        f"IMPL-1: passed over: IMPL-1 was completed in origin, in {landed[:12]}, which this "
        f"branch does not hold; `{take_in}` takes it in\n"
        "Run: 1 done elsewhere; 2 tasks still pending.\n"
    )
    taken = subprocess.run(take_in + " -q --no-edit", shell=True, cwd=other, capture_output=True)
    assert taken.returncode == 0, taken.stderr
    assert status_of(other, sid, "IMPL-1") == "completed"
    rest = run_wfs(other, "--session", sid, "execute", "--all", "--remote", "origin")
    assert rest.code == 0, rest.err
    assert runs(counts) == ["IMPL-1", "IMPL-2"]
    assert tree(other) == [] and tree(shared) == []


@pytest.mark.slow
@pytest.mark.parametrize("how", [["IMPL-1"], ["--all", "--jobs", "2"]], ids=["by id", "jobs 2"])
def test_a_worker_that_lost_its_lease_leaves_no_change_of_wfs_in_the_tree(
    project: Path, git_env: Path, tmp_path: Path, how: list[str]
) -> None:
    """Its claim is taken over while its step runs: asked for by id, it stops (exit 1)
    with the task file, the views and the session file as they were, only its step's own
    work left; with `--jobs 2`, the run waits for the new holder and takes the task over
    once that lease ran out (it never came back), ending with a clean tree."""
    from test_leases import TAKE_OVER

    script, stolen, counts = tmp_path / "take_over.py", tmp_path / "stolen", tmp_path / "counts"
    script.write_text(TAKE_OVER)
    steal = f"; test -f {stolen} || ({sys.executable} {script} {project} - WFS-parallel 2 && touch {stolen})"
    sid = planned(project, [counted("IMPL-1", counts, then=steal)])
    run = run_wfs(project, "--session", sid, "execute", *how)
    if how == ["IMPL-1"]:
        assert run.code == 1, run.err
        assert run.err.splitlines()[-1].startswith(
            f"wfs: error: {sid}/IMPL-1: lost the claim (epoch 1); elsewhere:1 at /other "
        )
        assert tree(project) == ["?? IMPL-1.txt"]  # the step's work only
        assert runs(counts) == ["IMPL-1"]
    else:
        assert run.code == 0, run.err
        assert runs(counts) == ["IMPL-1", "IMPL-1"]  # lost once, then taken over
        assert status_of(project, sid, "IMPL-1") == "completed"
        assert tree(project) == []
