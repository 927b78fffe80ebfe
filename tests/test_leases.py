"""Claims as leases (wfs/leases.py): the local store in the common git directory, the
remote store as refs pushed by compare-and-swap, and races between real processes.

Every test counts outcomes; none measures time. The lease lengths are short so that a
test waits little for a lease to run out, never to assert how long anything took.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import posix_only, wfs, wfs_process
from git_helpers import commit_all, git, git_daemon, git_env

from wfs import gitremote, leases
from wfs.errors import WfsError
from wfs.layout import Layout

__all__ = ["git_env"]  # the fixture, used by name

WORKER = str(Path(__file__).with_name("lease_worker.py"))
SID = "WFS-race"


@pytest.fixture
def clone(tmp_path: Path, git_env: Path) -> Path:
    """A clone with one commit, its bare remote `origin` at tmp_path/remote.git."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(bare), str(work))
    (work / "README").write_text("one\n")
    commit_all(work, "first")
    git(work, "push", "-q", "origin", "HEAD")
    (work / ".workflow").mkdir()
    return work


@pytest.fixture
def daemon(tmp_path: Path, clone: Path) -> Iterator[str]:
    """A real `git daemon` on 127.0.0.1 serving tmp_path (with push); its URL of the
    clone's remote."""
    with git_daemon(tmp_path, clone, "remote.git") as url:
        yield url


def store_for(root: Path, remote: str | None, seconds: float = 60) -> leases.ClaimStore:
    return leases.claim_store(Layout(root), remote, seconds)


def wait_until_expired(lease: leases.Lease) -> None:
    while not leases.expired(lease):
        time.sleep(0.02)


# ------------------------------------------------------------------ the local store


def test_local_claims_live_in_the_common_git_directory_shared_by_worktrees(clone: Path) -> None:
    git(clone, "worktree", "add", "-q", str(clone.parent / "second"))
    second = clone.parent / "second"
    (second / ".workflow").mkdir()
    first_store, second_store = store_for(clone, None), store_for(second, None)

    lease = first_store.acquire(SID, "IMPL-1", str(clone))
    assert lease is not None and lease.epoch == 1 and lease.where == str(clone)
    path = clone / ".git" / "wfs" / "claims" / SID / "IMPL-1.json"
    assert leases.from_json(path.read_bytes(), "claim") == lease
    assert second_store.acquire(SID, "IMPL-1", str(second)) is None
    assert second_store.holders(SID) == [lease]

    renewed = first_store.renew(lease)
    assert renewed.expires >= lease.expires and leases.same_holder(renewed, lease)
    first_store.check(renewed)
    first_store.release(renewed)
    assert not path.exists() and second_store.holders(SID) == []
    again = second_store.acquire(SID, "IMPL-1", str(second))
    assert again is not None and again.epoch == 1 and again.where == str(second)


def test_outside_a_git_work_tree_claims_live_under_workflow(project: Path) -> None:
    (project / ".workflow").mkdir()
    claims = store_for(project, None)
    lease = claims.acquire(SID, "IMPL-1", str(project))
    assert lease is not None
    folder = project / ".workflow" / ".locks"
    assert (folder / "claims" / SID / "IMPL-1.json").is_file()
    assert (folder / ".gitignore").read_text().endswith("*\n")


@pytest.mark.parametrize("stray", ["a folder", "a file naming no repository"])
def test_a_git_above_the_project_that_is_no_repository_is_passed_over(
    tmp_path: Path, stray: str
) -> None:
    """As git does: a `.git` folder without a HEAD, or a `.git` file naming a folder that
    is no git directory, holds no repository, and the claims stay under .workflow/."""
    if stray == "a folder":
        (tmp_path / ".git").mkdir()
    else:
        (tmp_path / ".git").write_text("gitdir: gone/worktrees/x\n")
    project = tmp_path / "project"
    (project / ".workflow").mkdir(parents=True)
    lease = store_for(project, None).acquire(SID, "IMPL-1", str(project))
    assert lease is not None
    assert (project / ".workflow" / ".locks" / "claims" / SID / "IMPL-1.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", "project"]
    assert not (tmp_path / ".git").is_dir() or list((tmp_path / ".git").iterdir()) == []


@pytest.mark.slow
def test_a_dead_local_holder_is_taken_over_at_once(clone: Path) -> None:
    go = clone.parent / "go"
    go.touch()
    go.with_name("stop").touch()
    out = subprocess.run(
        [sys.executable, WORKER, "race", str(clone), "-", "600", str(go)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert out == "won 1\n"  # and the process that holds it has exited
    lease = store_for(clone, None).acquire(SID, "IMPL-1", str(clone))
    assert lease is not None and lease.epoch == 2


def test_claims_config_names_the_remote_and_the_lease(clone: Path) -> None:
    config = clone / ".workflow" / "config.json"
    config.write_text('{"claims": {"remote": "origin", "lease_seconds": 7}}')
    assert leases.settings(Layout(clone)) == leases.Settings("origin", 7.0)
    assert leases.settings(Layout(clone), "other") == leases.Settings("other", 7.0)
    assert isinstance(leases.claim_store(Layout(clone)), leases.RemoteStore)
    config.write_text('{"claims": {"lease_seconds": 0}}')
    with pytest.raises(WfsError) as err:
        leases.settings(Layout(clone))
    assert err.value.message == (
        ".workflow/config.json#/claims/lease_seconds: expected a number of seconds > 0"
    )
    config.write_text('{"claims": {"remote": 3}}')
    with pytest.raises(WfsError) as err:
        leases.settings(Layout(clone))
    assert (
        err.value.message
        == ".workflow/config.json#/claims/remote: expected the name of a git remote"
    )


def test_an_unreachable_claims_remote_is_one_line(clone: Path) -> None:
    claims = store_for(clone, "nowhere")
    with pytest.raises(WfsError) as err:
        claims.acquire(SID, "IMPL-1", str(clone))
    assert err.value.message.startswith("git push nowhere: 'nowhere' does not appear to be a git")


# ------------------------------------------------------------------ the remote store


def remote_refs(clone: Path) -> dict[str, str]:
    out = git(clone, "ls-remote", "origin", "refs/wfs/*").stdout
    return {name: oid for oid, name in (line.split("\t") for line in out.splitlines())}


@pytest.mark.slow
def test_a_remote_claim_is_a_ref_created_only_if_absent(clone: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    (other / ".workflow").mkdir()
    mine, theirs = store_for(clone, "origin"), store_for(other, "origin")

    lease = mine.acquire(SID, "IMPL-1", str(clone))
    assert lease is not None and lease.epoch == 1
    ref = f"refs/wfs/claims/{SID}/IMPL-1"
    oid = remote_refs(clone)[ref]
    message = git(clone, "cat-file", "commit", oid).stdout.partition("\n\n")[2]
    assert leases.from_json(message.encode(), "ref") == lease

    assert theirs.acquire(SID, "IMPL-1", str(other)) is None
    assert theirs.holders(SID) == [lease]  # read from the other clone: fetched
    renewed = mine.renew(lease)
    assert remote_refs(clone)[ref] != oid
    theirs.check(renewed)  # any clone may check a lease it did not write
    mine.release(renewed)
    assert ref not in remote_refs(clone) and theirs.holders(SID) == []


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", "remote"])
def test_an_expired_lease_is_taken_over_and_its_old_holder_refused(clone: Path, where: str) -> None:
    remote = "origin" if where == "remote" else None
    old_store, new_store = store_for(clone, remote, 0.05), store_for(clone, remote, 60)
    old = old_store.acquire(SID, "IMPL-1", "old place")
    assert old is not None
    wait_until_expired(old)
    new = new_store.acquire(SID, "IMPL-1", "new place")
    assert new is not None and new.epoch == 2

    expected = (
        f"{SID}/IMPL-1: lost the claim (epoch 1); {new.owner} at new place holds it now "
        f"(epoch 2, since {new.since})"
    )
    for refused in (old_store.check, old_store.renew, old_store.release):
        with pytest.raises(leases.LostLease) as err:
            refused(old)
        assert err.value.message == expected and err.value.exit_code == 1
    assert new_store.holders(SID) == [new]  # the old holder changed nothing
    new_store.release(new)
    with pytest.raises(leases.LostLease) as err:
        old_store.release(old)
    assert err.value.message == f"{SID}/IMPL-1: lost the claim (epoch 1); nobody holds it now"


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", "remote"])
def test_a_holding_renews_its_lease_until_it_is_released(clone: Path, where: str) -> None:
    claims = store_for(clone, "origin" if where == "remote" else None, 0.6)
    lease = claims.acquire(SID, "IMPL-1", str(clone))
    assert lease is not None
    with leases.holding(claims, lease, every=0.05) as held:
        while held.lease.expires == lease.expires:  # until one renewal is done
            time.sleep(0.02)
        wait_until_expired(lease)  # the first lease ran out; the renewed one holds
        held.check()
        assert claims.acquire(SID, "IMPL-1", "elsewhere") is None or leases.expired(held.lease)
        held.release()
    assert claims.holders(SID) == []


# ------------------------------------------------------------------ races


def race(roots: list[Path], remote: str, go: Path) -> list[str]:
    procs = [
        subprocess.Popen(
            [sys.executable, WORKER, "race", str(root), remote, "600", str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for root in roots
    ]
    time.sleep(0.5)  # most of them are waiting for the go (a late one only loses later)
    go.touch()
    outs = []
    for proc in procs:
        assert proc.stdout is not None
        outs.append(proc.stdout.readline().strip())
    go.with_name("stop").touch()
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    return outs


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", "bare folder", "git daemon"])
def test_eight_processes_racing_for_one_task_one_wins(
    clone: Path, tmp_path: Path, where: str, request: pytest.FixtureRequest
) -> None:
    remote = {"local": "-", "bare folder": "origin"}.get(where) or request.getfixturevalue("daemon")
    outs = race([clone] * 8, remote, tmp_path / "go")
    assert sorted(outs) == ["lost"] * 7 + ["won 1"]


@pytest.mark.slow
@pytest.mark.parametrize("remote", ["-", "origin"])
def test_two_worktrees_racing_for_one_task_one_wins(
    clone: Path, tmp_path: Path, remote: str
) -> None:
    second = tmp_path / "second"
    git(clone, "worktree", "add", "-q", str(second))
    (second / ".workflow").mkdir()
    outs = race([clone, second] * 4, remote, tmp_path / "go")
    assert sorted(outs) == ["lost"] * 7 + ["won 1"]


# ------------------------------------------------------------------ SIGKILL at random


def read_log(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text().splitlines()] if path.exists() else []


def kill_workers(
    roots: list[Path], remote: str, kills: int, tasks: int, seconds: float, log: Path
) -> None:
    """Workers (half of them "other machines") take tasks until all are done, while
    `kills` of them are SIGKILLed at random moments and replaced."""
    rng = random.Random(30)
    spawned = 0

    def spawn() -> subprocess.Popen[bytes]:
        nonlocal spawned
        spawned += 1
        host = f"machine{spawned}" if spawned % 2 else "-"
        root = roots[spawned % len(roots)]
        argv = [WORKER, "work", str(root), remote, str(seconds), str(log), str(tasks), host]
        return subprocess.Popen([sys.executable, *argv], stderr=subprocess.PIPE)

    workers = [spawn() for _ in range(4)]
    killed = rounds = 0
    try:
        while killed < kills:
            time.sleep(rng.uniform(0.05, 0.4))
            victim = rng.randrange(len(workers))
            if workers[victim].poll() is None:
                workers[victim].kill()  # SIGKILL (TerminateProcess on Windows)
                workers[victim].wait()
                killed += 1
            else:
                assert workers[victim].returncode == 0, workers[victim].stderr
            workers[victim] = spawn()
            if len({e[1] for e in read_log(log) if e[0] == "done"}) == tasks:
                rounds += 1  # every task done: keep the log of the round, start over
                log.rename(log.with_name(f"{log.name}.{rounds}"))
        for worker in workers:
            _, err = worker.communicate(timeout=300)
            assert worker.returncode == 0, err
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.kill()
                worker.wait()


def check_log(log: Path, tasks: int, seconds: float) -> None:
    entries = read_log(log)
    done = [e[1] for e in entries if e[0] == "done"]
    assert sorted(done) == sorted(f"IMPL-{n}" for n in range(1, tasks + 1))  # each once
    assert [e for e in entries if e[0] in ("late", "lost")] == []
    for tid in set(done):
        held = [e for e in entries if e[0] == "acquired" and e[1] == tid]
        epochs = [int(e[2]) for e in held]
        assert epochs == sorted(set(epochs)), (tid, epochs)  # never two holders at once
        finisher = next(e for e in entries if e[0] == "done" and e[1] == tid)
        assert finisher[2] == held[-1][2]  # the last holder finished it
        for before, after in zip(held, held[1:], strict=False):
            if not before[4].startswith("machine"):
                continue  # a dead process of this machine is taken over at once
            start = leases.datetime.fromisoformat(before[5])
            taken = leases.datetime.fromisoformat(after[5])
            assert (taken - start).total_seconds() >= seconds, (tid, before, after)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "kills"), [("local", 20), ("bare folder", 20), ("git daemon", 12)]
)
def test_killed_holders_are_taken_over_after_their_lease(
    clone: Path, tmp_path: Path, where: str, kills: int, request: pytest.FixtureRequest
) -> None:
    second = tmp_path / "second"
    git(clone, "worktree", "add", "-q", str(second))
    (second / ".workflow").mkdir()
    remote = {"local": "-", "bare folder": "origin"}.get(where) or request.getfixturevalue("daemon")
    log, tasks, seconds = tmp_path / "log", 12, 2.0
    kill_workers([clone, second], remote, kills, tasks, seconds, log)
    logs = sorted(tmp_path.glob("log*"))
    for each in logs:
        check_log(each, tasks, seconds)
    taken_over = [e for each in logs for e in read_log(each) if e[0] == "acquired" and e[2] != "1"]
    assert taken_over  # killed holders' tasks were taken over, not only untouched ones


# ------------------------------------------------------------------ the engine and status


def bash_task(tid: str, command: str) -> dict[str, Any]:
    steps = [{"step": 1, "title": "Run", "description": "Run it", "command": command,
              "modification_points": [], "logic_flow": [], "depends_on": [], "output": "o"}]  # fmt: skip
    return {"id": tid, "title": tid, "flow_control": {"implementation_approach": steps}}


def plan_in(root: Path, tasks: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(root)
    assert wfs("init", "--no-git").code == 0
    run = wfs("plan", "Race", "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    return run.out.strip()


@pytest.mark.slow
def test_execute_leases_the_task_and_gives_it_back(
    clone: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = "bash(cp .git/wfs/claims/WFS-race/IMPL-1.json held.json)"  # while it runs
    assert plan_in(clone, [bash_task("IMPL-1", copy)], monkeypatch) == "WFS-race"
    run = wfs("execute", "IMPL-1")
    assert run.code == 0, run.err
    held = leases.from_json((clone / "held.json").read_bytes(), "held.json")
    assert (held.task, held.where, held.epoch, held.owner) == (
        "IMPL-1",
        str(clone),
        1,
        f"{socket.gethostname()}:{os.getpid()}",
    )
    assert not (clone / ".git" / "wfs" / "claims").exists()  # given back


@pytest.mark.slow
def test_a_task_another_worktree_holds_is_refused_and_passed_over(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = [bash_task("IMPL-1", "bash(echo one)"), bash_task("IMPL-2", "bash(echo two)")]
    sid = plan_in(clone, tasks, monkeypatch)
    commit_all(clone, "plan")
    second = tmp_path / "second"
    git(clone, "worktree", "add", "-q", str(second))
    held = store_for(clone, None).acquire(sid, "IMPL-1", str(clone))  # this live process
    assert held is not None

    refused = wfs_process("--session", sid, "execute", "IMPL-1", cwd=second)
    assert refused.code == 4  # busy: asked for by name, held by a live run
    assert refused.err == (
        f"wfs: error: IMPL-1 is being executed by {held.owner} at {clone} (since {held.since}, "
        f"lease until {held.expires}); wait for it to stop, or stop that process first\n"
    )
    ran = wfs_process("--session", sid, "execute", "--json", cwd=second)
    assert ran.code == 0, ran.err
    assert [t["task"] for t in ran.result()["tasks"]] == ["IMPL-2"]

    shown = wfs_process("--session", sid, "status", cwd=second)
    pid = held.owner.rpartition(":")[2]
    assert re.search(
        rf"^Claimed:  IMPL-1: held by process {pid} on this machine in {re.escape(str(clone))}, "
        r"for \d+s\n",
        shown.out,
        re.M,
    )
    data = wfs_process("status", "--json", cwd=clone).json()
    assert data["claims"] == [
        {"id": "IMPL-1", "state": "running", "owner": held.owner, "where": str(clone),
         "since": held.since, "expires": held.expires, "epoch": 1}
    ]  # fmt: skip


TAKE_OVER = """
import sys
from pathlib import Path
from wfs import git as git_mod
from wfs import leases
from wfs.layout import Layout
remote = None if sys.argv[2] == "-" else sys.argv[2]
claims = leases.claim_store(Layout(Path(sys.argv[1])), remote)
(held,) = claims.holders(sys.argv[3])
# A lease for ever (a run waits for none), or one of argv[4] seconds from now.
until = "2999-01-01T00:00:00.000000Z"
if len(sys.argv) > 4:
    until = leases.stamp(leases.now() + leases.timedelta(seconds=float(sys.argv[4])))
forged = held._replace(owner="elsewhere:1", where="/other", epoch=held.epoch + 1,
                       since=leases.stamp(leases.now()), expires=until)
if remote is None:
    with claims.locked():
        claims.path(held.session, held.task).write_bytes(leases.as_json(forged))
else:
    assert claims.swap(claims.ref(held.session, held.task), forged, claims.oid(held))
"""


@pytest.mark.slow
@pytest.mark.parametrize("remote", ["-", "origin"])
def test_a_worker_that_lost_its_lease_writes_nothing_and_says_so(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, remote: str
) -> None:
    script = tmp_path / "take_over.py"
    script.write_text(TAKE_OVER)
    steal = f"bash({sys.executable} {script} {clone} {remote} WFS-race)"
    sid = plan_in(clone, [bash_task("IMPL-1", steal)], monkeypatch)
    assert sid == "WFS-race"
    before = (clone / ".workflow" / sid / ".task" / "IMPL-1.json").read_bytes()
    options = ["--remote", "origin"] if remote == "origin" else []
    run = wfs_process("execute", "IMPL-1", *options, cwd=clone)
    assert run.code == 1
    lines = run.err.splitlines()
    assert lines[-1].startswith(
        f"wfs: error: {sid}/IMPL-1: lost the claim (epoch 1); elsewhere:1 at /other holds it now "
        "(epoch 2, since "
    )
    # Its own claim mark taken back: the task file as it was before (no change left).
    assert (clone / ".workflow" / sid / ".task" / "IMPL-1.json").read_bytes() == before
    assert not (clone / ".workflow" / sid / ".summaries").exists()  # no summary written
    holders = store_for(clone, None if remote == "-" else "origin").holders(sid)
    assert [(h.owner, h.epoch) for h in holders] == [("elsewhere:1", 2)]  # still theirs


def fake_git(bin_dir: Path, marker: Path) -> None:
    """A `git` first on PATH that notes each call, then runs the real one."""
    real = shutil.which("git")
    shim = bin_dir / "git"
    shim.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\nexec "{real}" "$@"\n')
    shim.chmod(0o755)


@pytest.mark.slow
@posix_only
def test_status_runs_git_only_for_a_claims_remote(
    clone: Path, git_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = plan_in(clone, [bash_task("IMPL-1", "bash(echo one)")], monkeypatch)
    marker = tmp_path / "git-calls"
    fake_git(git_env, marker)
    plain = wfs_process("status", "--json", cwd=clone)
    assert plain.code == 0 and "claims" not in plain.json()
    held = store_for(clone, None).acquire(sid, "IMPL-1", str(clone))
    assert held is not None
    marker.unlink(missing_ok=True)  # the calls of this test's own acquire, if any
    local = wfs_process("status", "--json", cwd=clone)
    assert [c["owner"] for c in local.json()["claims"]] == [held.owner]
    assert not marker.exists()  # the local store's files were read without git

    (clone / ".workflow" / "config.json").write_text('{"claims": {"remote": "origin"}}')
    remote_held = store_for(clone, "origin").acquire(sid, "IMPL-1", "host:/there")
    assert remote_held is not None
    marker.unlink()
    remote = wfs_process("status", "--json", cwd=clone)
    assert [c["where"] for c in remote.json()["claims"]] == ["host:/there"]
    calls = marker.read_text().splitlines()
    assert calls[:2] == [
        f"-C {clone} remote",  # the file names a remote configured in the clone
        f"-C {clone} ls-remote --refs origin refs/wfs/claims/{sid}/*",
    ]


@pytest.mark.slow
def test_a_publish_lands_with_the_claim_given_back_or_not_at_all(
    clone: Path, tmp_path: Path
) -> None:
    """Holding.hand_over with gitremote.push_fenced: the branch and the claim's deletion land
    in one atomic push, only while the claim is the holder's."""
    claims = store_for(clone, "origin")
    assert isinstance(claims, leases.RemoteStore)
    ref = claims.ref(SID, "IMPL-1")

    def remote_main() -> str:
        return git(clone, "ls-remote", "origin", "refs/heads/main").stdout.split()[0]

    def push_head(claim: str, expected: str) -> bool:
        head = git(clone, "rev-parse", "HEAD").stdout.strip()
        return gitremote.push_fenced(clone, "origin", head, "main", claim, expected)

    # Another clone moved the branch on: neither lands, and the claim is still held.
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(other))
    (other / "theirs.txt").write_text("theirs\n")
    theirs = commit_all(other, "theirs")
    git(other, "push", "-q", "origin", "HEAD:main")
    lease = claims.acquire(SID, "IMPL-1", str(clone))
    assert lease is not None
    (clone / "ours.txt").write_text("ours\n")
    ours = commit_all(clone, "ours")
    holding = leases.Holding(claims, lease, every=3600)
    assert holding.hand_over(push_head) is False
    assert remote_main() == theirs and claims.holders(SID) == [lease]
    # Merged with it, the push lands, and takes the claim with it.
    git(clone, "pull", "-q", "--no-rebase", "origin", "main")
    assert holding.hand_over(push_head) is True
    assert remote_main() == git(clone, "rev-parse", "HEAD").stdout.strip() != ours
    assert git(clone, "ls-remote", "origin", ref).stdout == "" and claims.holders(SID) == []
    # A claim taken over meanwhile: nothing lands, and the holder is told who has it.
    lease = claims.acquire(SID, "IMPL-1", str(clone))
    assert lease is not None
    forged = lease._replace(owner="elsewhere:1", where="/other", epoch=2)
    assert claims.swap(ref, forged, claims.oid(lease))
    (clone / "late.txt").write_text("late\n")
    commit_all(clone, "late")
    before = remote_main()
    with pytest.raises(leases.LostLease) as lost:
        leases.Holding(claims, lease, every=3600).hand_over(push_head)
    assert lost.value.message == (
        f"{SID}/IMPL-1: lost the claim (epoch 1); elsewhere:1 at /other holds it now "
        f"(epoch 2, since {lease.since})"
    )
    assert remote_main() == before and claims.holders(SID) == [forged]


@pytest.mark.slow
def test_a_worker_in_a_worktree_that_lost_its_lease_lands_nothing(
    clone: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--jobs 2` with a claims remote: a task whose claim was taken over while its step
    ran publishes nothing; the run waits for the new holder, and takes the task over
    once that one's lease ran out (it never came back): the task lands once, exit 0."""
    script = tmp_path / "take_over.py"
    script.write_text(TAKE_OVER)
    stolen, ran = tmp_path / "stolen", tmp_path / "ran"
    steal = (
        f"bash(echo IMPL-1 >> {ran}; echo work > work.txt && (test -f {stolen} || "
        f"({sys.executable} {script} {clone} origin WFS-race 2 && touch {stolen})))"
    )
    sid = plan_in(clone, [bash_task("IMPL-1", steal)], monkeypatch)
    commit_all(clone, "plan")
    git(clone, "push", "-q", "origin", "HEAD:main")
    assert wfs("init").code == 0  # the merge drivers
    run = wfs_process("execute", "--all", "--jobs", "2", "--remote", "origin", cwd=clone)
    assert run.code == 0, run.out + run.err
    assert run.out == (
        f"IMPL-1: completed → .workflow/{sid}/.summaries/IMPL-1-summary.md\nRun: 1 completed.\n"
    )
    assert ran.read_text() == "IMPL-1\nIMPL-1\n"  # lost once, then taken over
    final = tmp_path / "final"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(final))
    subjects = git(final, "log", "--format=%s", "--no-merges").stdout.splitlines()
    assert subjects.count("IMPL-1: IMPL-1") == 1  # the lost run published nothing
    assert (final / "work.txt").read_text() == "work\n"
    assert store_for(clone, "origin").holders(sid) == []
