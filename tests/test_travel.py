"""With a claims remote, the work travels with the claims: a task starts from the session's
branch as the remote has it, and a completed task lands there whole (its work, its
completion, its claim given back) by one atomic push, or not at all.

Real git, a bare remote (and a real `git daemon`), clones running at once as real
processes, and workers killed with SIGKILL; count-based only, nothing is timed.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_bash, read_json
from git_helpers import commit_all, git, git_daemon, git_env

pytestmark = [needs_bash, pytest.mark.skipif(os.name == "nt", reason="bash steps, SIGKILL")]

__all__ = ["git_env"]  # the fixture, used by name

TASKS = 30
CHAIN = 4  # IMPL-k waits for IMPL-(k-4): its step needs that task's work in its tree


def task(n: int, ran: Path, pause: float = 0, gate: Path | None = None) -> dict[str, Any]:
    """IMPL-n: one step that logs its start to `ran`, waits `pause` seconds (and, with a
    `gate`, until the number in that file reaches the share of KILLS that task n is
    held for), checks that the work of the task it waits on is in its tree, and writes
    its own work."""
    tid = f"IMPL-{n}"
    before = f"IMPL-{n - CHAIN}"
    needs = f"test -f done/{before}.txt && " if n > CHAIN else ""
    wait = f"sleep {pause} && " if pause else ""
    if gate is not None:
        held = (n - 1) * KILLS // TASKS
        wait += f'until test "$(cat {gate})" -ge {held}; do sleep 0.05; done && '
    command = (
        f"bash(echo {tid} >> {ran} && {wait}{needs}mkdir -p done && echo {tid} > done/{tid}.txt)"
    )
    return {
        "id": tid,
        "title": f"task {tid}",
        "depends_on": [before] if n > CHAIN else [],
        "flow_control": {
            "pre_analysis": [],
            "implementation_approach": [
                {
                    "step": 1,
                    "title": "work",
                    "description": "do it",
                    "modification_points": [],
                    "logic_flow": [],
                    "depends_on": [],
                    "output": "out1",
                    "command": command,
                }
            ],
        },
    }


def wfs_in(root: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wfs", *args],
        cwd=root,
        input=input,
        capture_output=True,
        text=True,
        timeout=300,
    )


def published(
    tmp_path: Path,
    ran: Path,
    pause: float = 0,
    claims: dict[str, Any] | None = None,
    tasks: list[dict[str, Any]] | None = None,
    gate: Path | None = None,
) -> tuple[Path, str]:
    """A bare remote holding a repository with wfs set up and the plan (`tasks`, else
    TASKS of `task`) on `main`, and `claims` as the claims settings of
    .workflow/config.json."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    first = tmp_path / "first"
    first.mkdir()
    git(first, "init", "-q", "-b", "main")
    (first / "README.md").write_text("project\n")
    assert wfs_in(first, "init").returncode == 0
    if claims is not None:
        (first / ".workflow" / "config.json").write_text(json.dumps({"claims": claims}))
    plan = tasks or [task(n, ran, pause, gate) for n in range(1, TASKS + 1)]
    made = wfs_in(first, "plan", "Travel", "--from", "-", input=json.dumps(plan))
    assert made.returncode == 0, made.stderr
    commit_all(first, "plan")
    git(first, "remote", "add", "origin", str(bare))
    git(first, "push", "-q", "origin", "main")
    return bare, made.stdout.strip()


def cloned(tmp_path: Path, url: str, name: str) -> Path:
    root = tmp_path / name
    git(tmp_path, "clone", "-q", url, str(root))
    assert wfs_in(root, "init").returncode == 0  # the merge drivers, in this clone's config
    return root


def status_of(root: Path, sid: str, tid: str) -> str:
    return str(read_json(root / ".workflow" / sid / ".task" / f"{tid}.json")["status"])


def expected_ids() -> list[str]:
    return [f"IMPL-{n}" for n in range(1, TASKS + 1)]


def check_landed_once(tmp_path: Path, bare: Path, sid: str) -> None:
    """The remote's session branch holds every task completed, its work once (one work
    commit, one completion), and no claim is left."""
    final = tmp_path / "final"
    git(tmp_path, "clone", "-q", str(bare), str(final))
    for tid in expected_ids():
        assert (final / "done" / f"{tid}.txt").read_text() == f"{tid}\n"  # its work, once
        assert status_of(final, sid, tid) == "completed"
        assert (final / ".workflow" / sid / ".summaries" / f"{tid}-summary.md").is_file()
    subjects = git(final, "log", "--format=%s", "--no-merges", "main").stdout.splitlines()
    work = sorted(s for s in subjects if s.startswith("IMPL-"))
    assert work == sorted(f"{tid}: task {tid}" for tid in expected_ids())  # committed once each
    completions = sorted(s for s in subjects if s.startswith(f"wfs session {sid}: "))
    assert completions == sorted(f"wfs session {sid}: {tid} completed" for tid in expected_ids())
    checked = wfs_in(final, "--session", sid, "validate")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    rendered = wfs_in(final, "--session", sid, "render", "--check")  # views agree with tasks
    assert rendered.returncode == 0, rendered.stdout + rendered.stderr


@contextlib.contextmanager
def serving(where: str, tmp_path: Path, bare: Path) -> Iterator[str]:
    """The URL the clones use for the remote: the bare folder, or a git daemon's."""
    if where == "bare folder":
        yield str(bare)
        return
    with git_daemon(tmp_path, bare, bare.name) as url:
        yield url


@pytest.mark.slow
@pytest.mark.parametrize("where", ["bare folder", "git daemon"])
def test_three_clones_run_each_task_once_and_the_remote_ends_with_all_the_work(
    tmp_path: Path, git_env: Path, where: str
) -> None:
    ran = tmp_path / "ran.log"  # every step appends its task here, whichever clone runs it
    bare, sid = published(tmp_path, ran)
    with serving(where, tmp_path, bare) as url:
        clones = [cloned(tmp_path, url, f"clone{k}") for k in range(3)]
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "wfs", "--session", sid, "execute", "--all", "--jobs", "2"]
                + ["--remote", "origin"],
                cwd=root,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for root in clones
        ]
        outputs = [proc.communicate(timeout=900) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, out + err
        assert sorted(ran.read_text().split()) == sorted(expected_ids())  # each ran once
        check_landed_once(tmp_path, bare, sid)
        assert git(tmp_path, "ls-remote", str(bare), "refs/wfs/claims/*").stdout == ""
        # No clone keeps work of its own that the remote lacks, and each run ended with
        # a clean tree: no stale `current_tasks`, nothing that blocks `git pull`.
        for root in clones:
            git(root, "fetch", "-q", "origin")
            assert git(root, "diff", "origin/main...main", "--", ".", ":!.workflow").stdout == ""
            assert git(root, "status", "--porcelain").stdout == ""
            git(root, "pull", "-q", "--no-rebase", "origin", "main")


@pytest.mark.slow
def test_a_task_completed_in_another_clone_is_not_run_again(tmp_path: Path, git_env: Path) -> None:
    ran = tmp_path / "ran.log"
    bare, sid = published(tmp_path, ran)
    one, two = cloned(tmp_path, str(bare), "one"), cloned(tmp_path, str(bare), "two")
    first = wfs_in(one, "--session", sid, "execute", "IMPL-1", "--remote", "origin")
    assert first.returncode == 0, first.stderr
    # `two` has not pulled: it still sees IMPL-1 pending, and asks for it by id.
    assert status_of(two, sid, "IMPL-1") == "pending"
    again = wfs_in(two, "--session", sid, "execute", "IMPL-1", "--remote", "origin")
    assert again.returncode == 0, again.stderr
    assert again.stdout == f"IMPL-1: completed → .workflow/{sid}/.summaries/IMPL-1-summary.md\n"
    assert ran.read_text() == "IMPL-1\n"
    assert status_of(two, sid, "IMPL-1") == "completed"
    assert (two / "done" / "IMPL-1.txt").read_text() == "IMPL-1\n"  # the work came in
    # Run in place (--jobs 1), the task's work and files were committed and pushed.
    final = tmp_path / "final"
    git(tmp_path, "clone", "-q", str(bare), str(final))
    assert status_of(final, sid, "IMPL-1") == "completed"
    log = git(final, "log", "--format=%s", "main").stdout.splitlines()
    assert log[0] == "IMPL-1: task IMPL-1"


@pytest.mark.slow
def test_without_a_remote_nothing_is_committed_or_pushed(tmp_path: Path, git_env: Path) -> None:
    ran = tmp_path / "ran.log"
    bare, sid = published(tmp_path, ran)
    one = cloned(tmp_path, str(bare), "one")
    head = git(one, "rev-parse", "HEAD").stdout
    run = wfs_in(one, "--session", sid, "execute", "IMPL-1")
    assert run.returncode == 0, run.stderr
    assert git(one, "rev-parse", "HEAD").stdout == head  # no commit
    assert git(one, "ls-remote", "origin", "refs/heads/main").stdout.split()[0] == head.strip()
    assert git(one, "status", "--porcelain", "done").stdout == "?? done/\n"


# ------------------------------------------------------------------ killed workers

# In the suite; `WFS_TRAVEL_KILLS` changes it (50 and more ran clean too).
KILLS = int(os.environ.get("WFS_TRAVEL_KILLS", "30"))
LEASE_SECONDS = 4  # short, so that a killed worker's claims run out soon


def other_machines() -> bool:
    """Whether this system lets a process take a host name of its own (a user
    namespace): each clone then runs as another machine, whose claims nobody can see
    die and whose leases must run out before another clone takes them over."""
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-Uru", "hostname", "probe"], capture_output=True)
    return probe.returncode == 0


def machine(k: int, separate: bool) -> list[str]:
    """The argv prefix that runs a command as machine k."""
    if not separate:
        return []
    return ["unshare", "-Uru", "sh", "-c", 'hostname "$0" && exec "$@"', f"machine-{k}"]


def processes() -> dict[int, tuple[int, str]]:
    """Every process of the system: pid to (parent pid, command name)."""
    out = subprocess.run(["ps", "-A", "-o", "pid=,ppid=,comm="], capture_output=True, text=True)
    found = {}
    for line in out.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            found[int(parts[0])] = (int(parts[1]), os.path.basename(parts[2]))
    return found


def descendants(pid: int, table: dict[int, tuple[int, str]]) -> set[int]:
    """`pid` and the processes it started, and theirs, but no git command and nothing
    that one started (its merge drivers and hooks)."""
    found, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, name) in table.items():
            if ppid == parent and child not in found and not name.startswith("git"):
                found.add(child)
                frontier.append(child)
    return found


def kill_worker(pid: int) -> None:
    """SIGKILL the wfs process `pid` and all it started (its task processes, their
    steps), frozen first so that none starts another meanwhile. A git command already
    running is let finish, with what it runs, as when only wfs dies: a killed git can
    leave its own lock files and half-done merges, which git asks a person to clear."""
    frozen: set[int] = set()
    while True:
        fresh = descendants(pid, processes()) - frozen
        if not fresh:
            break
        for victim in fresh:
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim, signal.SIGSTOP)
        frozen |= fresh
    for victim in frozen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim, signal.SIGKILL)


def remote_done(bare: Path, sid: str) -> bool:
    """Whether the remote's session branch has every task completed."""
    paths = "".join(f"main:.workflow/{sid}/.task/{tid}.json\n" for tid in expected_ids())
    out = subprocess.run(
        ["git", "--git-dir", str(bare), "cat-file", "--batch"],
        input=paths.encode(), capture_output=True, check=True,
    ).stdout  # fmt: skip
    return out.count(b'"status": "completed"') + out.count(b'"status":"completed"') == TASKS


@pytest.mark.slow
@pytest.mark.parametrize("hosts", ["one host name", "a host name each"])
def test_killed_workers_are_taken_over_and_every_task_lands_once(
    tmp_path: Path, git_env: Path, hosts: str
) -> None:
    """Three clones (on one machine with one host name, or as three machines where the
    system allows) run the plan with `--jobs 2`; KILLS times, a random worker is killed at
    a random moment after a step or a run started (the whole run of a clone, or one
    task's process), and each clone's run is started again whenever it ends, until the
    remote has every task completed. No run exits 2: a task another live run holds is
    waited for, never refused."""
    separate = hosts == "a host name each"
    if separate and not other_machines():
        pytest.skip("this system gives no process a host name of its own (unshare)")
    ran = tmp_path / "ran.log"
    settings = {"remote": "origin", "lease_seconds": LEASE_SECONDS}
    # The kills set the pace, not the machine: task n lands only after its share of the
    # kills was made, so that all of them are made before the plan is done.
    gate = tmp_path / "kills"
    gate.write_text("0")
    bare, sid = published(tmp_path, ran, pause=0.3, claims=settings, gate=gate)
    clones = [cloned(tmp_path, str(bare), f"clone{k}") for k in range(3)]
    rng = random.Random(30)
    argv = [sys.executable, "-m", "wfs", "--session", sid, "execute", "--all", "--jobs", "2"]
    runs: list[subprocess.Popen[bytes] | None] = [None, None, None]
    ended: list[int] = []
    refused: list[str] = []  # what the runs that exited 2 said
    logs = tmp_path / "logs"
    logs.mkdir()
    kills = started = idle = 0
    seen = 0  # steps and runs started when the last kill was made
    rounds = 0
    while True:
        rounds += 1
        assert rounds < 20000, f"no end after {kills} kills: {ended}"
        done = remote_done(bare, sid)
        for k, root in enumerate(clones):
            run = runs[k]
            if run is not None and run.poll() is not None:
                ended.append(run.returncode)
                if run.returncode == 2:  # what it said goes in the failure below
                    said = (logs / f"{run.pid}.out").read_text().splitlines()
                    refused += [line for line in said if not line.startswith("  IMPL-")]
                runs[k] = run = None
            if run is None and not done:
                with open(logs / "next.out", "wb") as out:
                    run = subprocess.Popen(
                        machine(k, separate) + argv, cwd=root,
                        stdout=out, stderr=subprocess.STDOUT,
                    )  # fmt: skip
                (logs / "next.out").rename(logs / f"{run.pid}.out")
                runs[k] = run
                started += 1
        if done and all(run is None for run in runs):
            break
        steps = len(ran.read_text().split()) if ran.exists() else 0
        live = [run for run in runs if run is not None]
        idle += 1
        # After a step or a run started; or, all of them held at the gate, after a
        # while (a killed task's lease must run out before it starts again).
        if kills < KILLS and live and (steps + started > seen or idle > 40):
            time.sleep(rng.uniform(0, 0.8))  # a random moment of the step or the run
            victim = rng.choice(live)
            tasks = [
                p for p, (ppid, name) in processes().items()
                if ppid == victim.pid and name.startswith("python")
            ]  # fmt: skip
            kill_worker(rng.choice(tasks) if tasks and rng.random() < 0.3 else victim.pid)
            kills += 1
            gate.write_text(str(kills))
            seen, idle = steps + started, 0
        time.sleep(0.05)
    assert kills == KILLS
    assert ended.count(-signal.SIGKILL) >= 1  # whole runs were killed, not only tasks
    assert refused == [] and 2 not in ended, refused  # never "bad usage"
    check_landed_once(tmp_path, bare, sid)
    # Each clone runs the command again: nothing is left to do, and nothing runs again.
    before = ran.read_text()
    for k, root in enumerate(clones):
        again = subprocess.run(
            machine(k, separate) + argv, cwd=root, capture_output=True, text=True, timeout=300
        )
        assert again.returncode == 0, again.stdout + again.stderr
    assert ran.read_text() == before
    # What the killed runs left claimed was given back by the runs after them.
    assert git(tmp_path, "ls-remote", str(bare), "refs/wfs/claims/*").stdout == ""


@pytest.mark.slow
@pytest.mark.parametrize("how", [[], ["--all", "--jobs", "2"]], ids=["in place", "jobs 2"])
def test_a_task_blocked_in_one_clone_is_left_to_a_person_by_the_others(
    tmp_path: Path, git_env: Path, how: list[str]
) -> None:
    ran, flag = tmp_path / "ran.log", tmp_path / "ok.flag"
    needs_flag = task(1, ran)
    needs_flag["flow_control"]["implementation_approach"][0]["command"] = (
        f"bash(echo IMPL-1 >> {ran} && test -f {flag} && echo IMPL-1 > one.txt)"
    )
    bare, sid = published(tmp_path, ran, tasks=[needs_flag])
    one, two = cloned(tmp_path, str(bare), "one"), cloned(tmp_path, str(bare), "two")
    first = wfs_in(one, "--session", sid, "execute", *(how or ["IMPL-1"]), "--remote", "origin")
    assert first.returncode == 1, first.stdout + first.stderr
    assert status_of(one, sid, "IMPL-1") == "blocked"
    # The command it prints carries the claims remote it was given on the command line.
    resume = f"wfs --session {sid} execute --remote origin --resume IMPL-1"
    assert f"  Resume: {resume}\n" in first.stdout
    # The remote has it blocked (none of its work), and its claim was given back.
    final = tmp_path / "final"
    git(tmp_path, "clone", "-q", str(bare), str(final))
    assert status_of(final, sid, "IMPL-1") == "blocked"
    assert git(final, "log", "-1", "--format=%s").stdout == f"wfs session {sid}: IMPL-1 blocked\n"
    assert wfs_in(final, "--session", sid, "render", "--check").returncode == 0
    assert git(tmp_path, "ls-remote", str(bare), "refs/wfs/claims/*").stdout == ""
    # Another clone, which has not pulled, leaves it to a person.
    others = wfs_in(two, "--session", sid, "execute", "--all", "--jobs", "2", "--remote", "origin")
    assert ran.read_text() == "IMPL-1\n"  # not run again
    reason = read_json(final / ".workflow" / sid / ".task" / "IMPL-1.json")["execution"][
        "blocked_reason"
    ]
    assert (
        others.stdout.splitlines()[0] == f"IMPL-1: not run: IMPL-1 is blocked on origin: {reason}"
    )
    assert others.returncode == 0, others.stdout + others.stderr
    assert status_of(two, sid, "IMPL-1") == "blocked"
    # Once the cause is fixed, the command it printed completes it.
    flag.touch()
    again = wfs_in(one, *shlex.split(resume)[1:])
    assert again.returncode == 0, again.stdout + again.stderr
    git(final, "pull", "-q")
    assert status_of(final, sid, "IMPL-1") == "completed"
    assert (final / "one.txt").read_text() == "IMPL-1\n"
