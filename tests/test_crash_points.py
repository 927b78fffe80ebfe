"""Crash tests at numbered write points: every change wfs makes to several files (`wfs
plan`, a large `task split`, `migrate` in each form, `doctor --fix`, `git merge` through
wfs's drivers and hooks) is run through once, counting its write points
(WFS_TEST_WRITE_LOG, wfs/store.py), then killed at each of them in turn
(WFS_TEST_CRASH_AT=k: the process ends as a SIGKILL would end it, right before its k-th
rename, removal or new file). Every kill point is tested, whatever the machine's speed.

After each kill:
- the killed run stopped exactly at the k-th write point of the uninterrupted run;
- no file is torn: each one is as it was before, as the uninterrupted run leaves it, or
  (a step in between) a JSON file that parses and passes its schema, or a whole view;
- the recovery (the command run again, or what the killed run printed), then
  `wfs doctor --fix` for the temporary files of the interrupted writes, ends with exactly
  the tree the uninterrupted run left;
- nothing was written outside the project: every write point is inside it, and the
  folders beside it and the input files are as they were.

The derived caches (`.workflow/.cache/`) and the lock files are left out of the trees
compared: caches are checked against the files before they are believed, and whether one
is written depends on the clock.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import VIEW_MARK, Run, read_json, wfs
from git_helpers import commit_all, git, git_env

from wfs import platform, schemas
from wfs.store import CRASH_AT, WRITE_LOG

__all__ = ["git_env"]  # the fixture, used by name

# How a process killed at a write point ends: SIGKILL, or TerminateProcess on Windows.
KILLED = -signal.SIGKILL if hasattr(signal, "SIGKILL") else int(signal.SIGTERM)
# Left out of the trees compared: the derived caches and the (empty) lock files.
UNCOMPARED = re.compile(r"^\.workflow/\.cache(/|$)|^\.workflow/\.locks/[^/]+\.lock$")
# The temporary file of a write cut short (store.stage), and a session being built.
LEFTOVER = re.compile(r"(^|/)\.[^/]+\.[0-9a-f]{8}\.tmp$")
STAGING = re.compile(r"^\.workflow/\.WFS-[^/]+\.new/")
LEFTOVER_FINDING = "leftover temporary file from an interrupted write"
# What differs from one run to the next in a write point: doctor's backup folder is named
# by the time, git names its merge files at random.
VOLATILE = [
    (re.compile(r"\.workflow/\.doctor/[0-9-]+\b"), ".workflow/.doctor/<run>"),
    (re.compile(r"\.merge_file_\w+"), ".merge_file_<git>"),
]


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `root` by its path relative to
    it; git's own folder, the caches and the lock files left out."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder).relative_to(root).as_posix()
        prefix = "" if here == "." else here + "/"
        dirs[:] = sorted(d for d in dirs if prefix + d != ".git")
        for name in dirs:
            if not UNCOMPARED.search(prefix + name):
                found[prefix + name + "/"] = None
        for name in files:
            if not UNCOMPARED.search(prefix + name):
                found[prefix + name] = (Path(folder) / name).read_bytes()
    return found


def age(root: Path) -> None:
    """Date every file an hour back, so that each stamp can be trusted at once (as in a
    project whose files were not all just written)."""
    past = os.stat(root).st_mtime - 3600
    for path in [root, *root.rglob("*")]:
        os.utime(path, (past, past), follow_symlinks=False)


def write_points(log: Path, root: Path) -> list[str]:
    """The write points the log lists, as `<kind> <path relative to root>`."""
    points = []
    for line in log.read_text(encoding="utf-8").splitlines():
        number, _pid, kind, path = line.split(" ", 3)
        assert number == str(len(points) + 1), line
        where = Path(path)
        assert where.resolve().is_relative_to(root.resolve()), f"written outside: {line}"
        point = f"{kind} {where.resolve().relative_to(root.resolve()).as_posix()}"
        for pattern, stands_for in VOLATILE:
            point = pattern.sub(stands_for, point)
        points.append(point)
    return points


def wfs_killable(root: Path, *argv: str, env: dict[str, str]) -> Run:
    """wfs in a process of its own, at `root`, with the crash hook's variables `env`."""
    proc = subprocess.run(
        [sys.executable, "-m", "wfs", "--root", str(root), *argv],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def assert_whole(root: Path, before: dict[str, Any], after: dict[str, Any], where: str) -> None:
    """No file of the project is torn after the kill `where` (see the module's doc)."""
    for rel, data in snapshot(root).items():
        if data is None or data == before.get(rel) or data == after.get(rel):
            continue
        if LEFTOVER.search(rel) or rel.startswith(".workflow/.doctor/"):
            continue  # a temporary file, never read; doctor's copies of files as they were
        if rel.endswith((".json", ".journal")):
            document = orjson.loads(data)  # raises on a torn file
            if "/.task/" in rel:
                assert schemas.has_no_error("task", document), f"{where}: {rel}"
            elif rel.endswith("/workflow-session.json"):
                assert schemas.has_no_error("session", document), f"{where}: {rel}"
        elif rel.endswith(".md"):
            assert data.startswith(VIEW_MARK.encode()), f"{where}: {rel} is not a whole view"
        else:
            raise AssertionError(f"{where}: {rel} is neither as before nor as after")


def doctor_removes_only_leftovers(root: Path) -> None:
    """`wfs doctor --fix` after the recovery finds nothing but the temporary files of
    the writes the kill cut short."""
    fixed = wfs("--root", str(root), "doctor", "--fix", "--json")
    assert fixed.code == 0, fixed.out
    problems = {f["problem"] for f in fixed.json()["findings"]}
    assert problems <= {LEFTOVER_FINDING}, fixed.out


Command = Callable[[Path, dict[str, str]], Run]
Recover = Callable[[Path, str, Run], None]
Compare = Callable[[Path, Path, str], None]


def same_tree(root: Path, reference: Path, point: str) -> None:
    assert snapshot(root) == snapshot(reference), point


def kill_at_every_write_point(
    tmp_path: Path,
    build: Callable[[Path, Path], None],
    command: Command,
    recover: Recover,
    compare: Compare = same_tree,
    killed_code: int | None = KILLED,
) -> list[str]:
    """Build the project (and its inputs), run `command` through once counting its
    write points, then for each k on a fresh copy kill it at the k-th, check what the
    kill left, `recover` (given the kill point and the killed run), and `compare` the
    tree with the uninterrupted run's (given the kill point, as `point`). Returns the
    write points. `killed_code`: the exit code of a killed run (None: the process killed
    is one the command started, and `recover` checks what the command made of it)."""
    inputs, seed, trees, logs = (tmp_path / n for n in ("inputs", "seed", "trees", "logs"))
    for folder in (inputs, seed, trees, logs):
        folder.mkdir()
    build(seed, inputs)
    age(seed)
    given = snapshot(inputs)
    before = snapshot(seed)

    def fresh(name: str) -> Path:
        root = trees / name
        shutil.copytree(seed, root, symlinks=True)
        return root

    reference = fresh("ref")
    done = command(reference, {WRITE_LOG: str(logs / "ref")})
    assert done.code == 0, done.err
    points = write_points(logs / "ref", reference)
    assert len(points) > 1
    after = snapshot(reference)
    for k, point in enumerate(points, start=1):
        root = fresh(f"k{k}")
        killed = command(root, {CRASH_AT: str(k), WRITE_LOG: str(logs / f"k{k}")})
        assert killed_code is None or killed.code == killed_code, (k, point, killed)
        # It stopped at the k-th write point (the other processes of a command that
        # starts several, as git merge does, go on).
        logged = write_points(logs / f"k{k}", root)
        assert logged[:k] == points[:k]
        assert killed_code is None or len(logged) == k
        assert_whole(root, before, after, f"kill point {k} ({point})")
        recover(root, point, killed)
        compare(root, reference, point)
    # Nothing beside the projects, and the inputs as they were.
    assert sorted(p.name for p in trees.iterdir()) == sorted(
        ["ref", *(f"k{k}" for k in range(1, len(points) + 1))]
    )
    assert snapshot(inputs) == given
    return points


def in_process(root: Path, *argv: str) -> Run:
    return wfs("--root", str(root), *argv)


def plan_file(inputs: Path, name: str, tasks: list[dict[str, Any]]) -> Path:
    path = inputs / name
    path.write_text(json.dumps({"overview": f"Plan {name}", "tasks": tasks}))
    return path


def chain(count: int, prefix: str = "Task") -> list[dict[str, Any]]:
    """IMPL-1 … IMPL-count, each depending on the one before."""
    return [
        {
            "id": f"IMPL-{n}",
            "title": f"{prefix} {n}",
            "context": {"depends_on": [f"IMPL-{n - 1}"] if n > 1 else []},
        }
        for n in range(1, count + 1)
    ]


# ---------------------------------------------------------------------------- wfs plan


def two_sessions(seed: Path, inputs: Path) -> None:
    """An initialised project with an active session (which a new plan pauses) and a
    paused one."""
    assert in_process(seed, "init", "--no-git").code == 0
    for topic in ("Earlier work", "Current work"):
        source = plan_file(inputs, f"{topic}.json", chain(3))
        assert in_process(seed, "plan", topic, "--from", str(source)).code == 0


@pytest.mark.slow
def test_plan_of_a_new_topic_killed_at_each_write_point(tmp_path: Path) -> None:
    def build(seed: Path, inputs: Path) -> None:
        two_sessions(seed, inputs)
        plan_file(inputs, "new.json", chain(5, "New"))

    argv = ["plan", "Crash topic", "--from", str(tmp_path / "inputs" / "new.json")]

    def recover(root: Path, point: str, killed: Run) -> None:
        again = in_process(root, *argv)
        assert again.code == 0, again.err
        # Killed after the session appeared (its rename is the last write point), the
        # same command updates it; before, it makes it.
        assert again.out == "WFS-crash-topic\n"
        doctor_removes_only_leftovers(root)

    points = kill_at_every_write_point(
        tmp_path, build, lambda root, env: wfs_killable(root, *argv, env=env), recover
    )
    assert points[-1] == "move .workflow/WFS-crash-topic"
    print(f"\nkill points: wfs plan (new topic): {len(points)}")


@pytest.mark.slow
def test_plan_of_a_topic_again_killed_at_each_write_point(tmp_path: Path) -> None:
    """A second plan of a topic replaces its tasks and adds new ones (statuses kept)."""

    def build(seed: Path, inputs: Path) -> None:
        two_sessions(seed, inputs)
        assert in_process(seed, "task", "status", "IMPL-1", "completed").code == 0
        plan_file(inputs, "again.json", chain(6, "Replanned"))

    argv = ["plan", "Current work", "--from", str(tmp_path / "inputs" / "again.json")]

    def recover(root: Path, point: str, killed: Run) -> None:
        again = in_process(root, *argv)
        assert again.code == 0, again.err
        doctor_removes_only_leftovers(root)

    points = kill_at_every_write_point(
        tmp_path, build, lambda root, env: wfs_killable(root, *argv, env=env), recover
    )
    print(f"\nkill points: wfs plan (a topic again): {len(points)}")


# ------------------------------------------------------------------------ task split


@pytest.mark.slow
def test_large_split_killed_at_each_write_point(tmp_path: Path) -> None:
    subtasks = [{"title": f"Part {n}", "description": f"Part {n} of the work"} for n in range(1, 9)]

    def build(seed: Path, inputs: Path) -> None:
        assert in_process(seed, "init", "--no-git").code == 0
        source = plan_file(inputs, "work.json", chain(6))
        assert in_process(seed, "plan", "Split work", "--from", str(source)).code == 0
        (inputs / "parts.json").write_text(json.dumps(subtasks))

    argv = ["task", "split", "IMPL-3", "--from", str(tmp_path / "inputs" / "parts.json")]
    parts = ", ".join(f"IMPL-3.{n}" for n in range(1, 9))

    def recover(root: Path, point: str, killed: Run) -> None:
        again = in_process(root, *argv)
        # Once its journal is written, the split has happened: the next command under
        # the session's lock finishes it, and the same split is refused as done.
        assert (again.code, again.err) in (
            (0, ""),
            (2, f"wfs: error: IMPL-3 is already split into {parts}\n"),
        ), again
        doctor_removes_only_leftovers(root)

    points = kill_at_every_write_point(
        tmp_path, build, lambda root, env: wfs_killable(root, *argv, env=env), recover
    )
    assert points[0] == "replace .workflow/.locks/WFS-split-work.journal"
    print(f"\nkill points: wfs task split (8 subtasks): {len(points)}")


# --------------------------------------------------------------------------- migrate


def three_sessions(seed: Path, inputs: Path) -> None:
    """Alpha completed, Beta active, Gamma paused; in the markers layout."""
    assert in_process(seed, "init", "--no-git").code == 0
    for topic in ("Alpha", "Gamma", "Beta"):
        source = plan_file(inputs, f"{topic}.json", chain(2, topic))
        assert in_process(seed, "plan", topic, "--from", str(source)).code == 0
    assert in_process(seed, "--session", "alpha", "session", "complete").code == 0


def migrate_test(tmp_path: Path, build: Callable[[Path, Path], None], *argv: str) -> list[str]:
    def recover(root: Path, point: str, killed: Run) -> None:
        again = in_process(root, "migrate", *argv)
        assert again.code == 0, again.err
        doctor_removes_only_leftovers(root)

    return kill_at_every_write_point(
        tmp_path,
        build,
        lambda root, env: wfs_killable(root, "migrate", *argv, env=env),
        recover,
    )


@pytest.mark.slow
def test_migrate_to_the_active_layout_killed_at_each_write_point(tmp_path: Path) -> None:
    points = migrate_test(tmp_path, three_sessions, "--layout", "active")
    assert [p for p in points if p.startswith("move")] == [
        "move .workflow/archives/WFS-alpha",
        "move .workflow/active/WFS-beta",
        "move .workflow/active/WFS-gamma",
    ]
    print(f"\nkill points: wfs migrate --layout active: {len(points)}")


@pytest.mark.slow
def test_migrate_to_the_markers_layout_killed_at_each_write_point(tmp_path: Path) -> None:
    """From the `active/` layout without markers (its tools' own), where only a folder's
    place says what is archived and only the status what is active; another tool's
    archived session says `archived`, which wfs writes as completed."""

    def build(seed: Path, inputs: Path) -> None:
        three_sessions(seed, inputs)
        assert in_process(seed, "migrate", "--layout", "active").code == 0
        for marker in (seed / ".workflow").glob(".active-*"):
            marker.unlink()
        session = seed / ".workflow/archives/WFS-alpha/workflow-session.json"
        session.write_text(session.read_text().replace('"completed"', '"archived"'))
        assert in_process(seed, "render", "--all").code == 0

    points = migrate_test(tmp_path, build, "--layout", "markers")
    assert points[0] == "touch .workflow/.active-WFS-beta"
    print(f"\nkill points: wfs migrate --layout markers: {len(points)}")


@pytest.mark.slow
def test_migrate_of_every_session_killed_at_each_write_point(tmp_path: Path) -> None:
    """Task files of other tools' forms (v1 statuses, the flat form) and session files
    without the fields wfs writes, in two sessions."""

    def build(seed: Path, inputs: Path) -> None:
        assert in_process(seed, "init", "--no-git").code == 0
        for topic in ("Alpha", "Beta"):
            source = plan_file(inputs, f"{topic}.json", chain(3, topic))
            sid = in_process(seed, "plan", topic, "--from", str(source)).out.strip()
            folder = seed / ".workflow" / sid
            legacy = {"id": "IMPL-1", "title": "Started", "status": "in_progress"}
            flat = {"task_id": "IMPL-2", "title": "Flat", "status": "pending"}
            flat["depends_on"] = ["IMPL-1"]
            (folder / ".task/IMPL-1.json").write_text(json.dumps(legacy))
            (folder / ".task/IMPL-2.json").write_text(json.dumps(flat))
            session = read_json(folder / "workflow-session.json")
            del session["progress"]
            (folder / "workflow-session.json").write_text(json.dumps(session))
        assert in_process(seed, "render", "--all").code == 0

    points = migrate_test(tmp_path, build, "--all")
    print(f"\nkill points: wfs migrate --all: {len(points)}")


# ----------------------------------------------------------------------- doctor --fix

STOPPED_AT = re.compile(rb'"stopped_at": "[^"]*"')


def without_backups(root: Path) -> dict[str, Any]:
    """The tree but doctor's backup copies, with the time a released claim stopped at
    left out (the time of the run)."""
    return {
        rel: None if data is None else STOPPED_AT.sub(b'"stopped_at": "<time>"', data)
        for rel, data in snapshot(root).items()
        if not rel.startswith(".workflow/.doctor/")
    }


def backups(root: Path) -> list[tuple[str, bytes]]:
    """Each (file, bytes) doctor kept a copy of, whichever run kept it."""
    found = []
    for rel, data in snapshot(root).items():
        parts = rel.split("/", 3)
        if data is not None and rel.startswith(".workflow/.doctor/") and len(parts) == 4:
            found.append((parts[3], data))
    return found


@pytest.mark.slow
def test_doctor_fix_killed_at_each_write_point(tmp_path: Path) -> None:
    def build(seed: Path, inputs: Path) -> None:
        assert in_process(seed, "init", "--no-git").code == 0
        for topic in ("Alpha", "Beta", "Gamma"):
            source = plan_file(inputs, f"{topic}.json", chain(4, topic))
            assert in_process(seed, "plan", topic, "--from", str(source)).code == 0
        workflow = seed / ".workflow"
        # Alpha: a split killed once its journal was written, and a view edited by hand.
        parts = inputs / "parts.json"
        parts.write_text(json.dumps([{"title": "One half"}, {"title": "Other half"}]))
        split = ["--session", "alpha", "task", "split", "IMPL-1", "--from", str(parts)]
        assert wfs_killable(seed, *split, env={CRASH_AT: "2"}).code == KILLED
        assert (workflow / ".locks/WFS-alpha.journal").exists()
        todo = workflow / "WFS-alpha/TODO_LIST.md"
        todo.write_text(todo.read_text() + "\nA note of mine\n")
        # Beta: a claim of a process that has ended, a subtask whose parent does not say
        # container, a temporary file of a write cut short; and a second marker, older.
        ended = subprocess.Popen([sys.executable, "-c", "pass"])
        ended.wait()
        claimed = read_json(workflow / "WFS-beta/.task/IMPL-2.json")
        claimed["status"] = "active"
        claimed["execution"] = {"claimed_by": f"{platform.host_name()}:{ended.pid}"}
        (workflow / "WFS-beta/.task/IMPL-2.json").write_text(json.dumps(claimed, indent=2))
        sub = {"id": "IMPL-3.1", "title": "Part", "context": {"parent": "IMPL-3"}}
        (workflow / "WFS-beta/.task/IMPL-3.1.json").write_text(json.dumps(sub))
        (workflow / "WFS-beta/.task/.IMPL-4.json.0a1b2c3d.tmp").write_text('{"id": "IMP')
        (workflow / ".active-WFS-beta").touch()
        os.utime(workflow / ".active-WFS-beta", (1_000_000, 1_000_000))
        # Gamma: a session file cut short by another tool; a session folder half made.
        (workflow / "WFS-gamma/workflow-session.json").write_text('{"session_id": "WFS-ga')
        (workflow / ".WFS-delta.new/.task").mkdir(parents=True)

    def recover(root: Path, point: str, killed: Run) -> None:
        again = in_process(root, "doctor", "--fix")
        assert again.code == 0, again.out

    def compare(root: Path, reference: Path, point: str) -> None:
        assert without_backups(root) == without_backups(reference), point
        # Every file the uninterrupted run kept a copy of before repairing it is kept,
        # as it was, by one of the runs.
        kept = set(backups(root))
        assert [b for b in backups(reference) if b not in kept] == [], point

    points = kill_at_every_write_point(
        tmp_path,
        build,
        lambda root, env: wfs_killable(root, "doctor", "--fix", env=env),
        recover,
        compare,
    )
    print(f"\nkill points: wfs doctor --fix: {len(points)}")


# ----------------------------------------------------------------------------- merge


@pytest.mark.slow
def test_git_merge_through_the_drivers_and_hooks_killed_at_each_write_point(
    tmp_path: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Branch a completes IMPL-1 and IMPL-2 and pauses the session, branch b completes
    IMPL-3 and renames it: the merge runs the drivers of the session file and the views,
    pre-merge-commit, and post-merge, which refreshes the session's phase and views and
    puts them into the merge commit. Commits are dated
    alike, so the merge commits of two runs are the same commit.

    The recovery is what the kill leaves git or the hook saying: a driver killed leaves
    a conflicted merge (aborted and made again); post-merge killed prints the command
    that finishes it; pre-merge-commit killed leaves a merge commit the hooks did not
    see start, as after `--no-verify`, which keeps the views git merged, and prints how
    to undo it and merge again."""
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_DATE", "2026-01-01T00:00:00Z")

    def build(seed: Path, inputs: Path) -> None:
        git(seed, "init", "-q", "-b", "main")
        assert in_process(seed, "init").code == 0
        source = plan_file(inputs, "merge.json", chain(3))
        assert in_process(seed, "plan", "Merge work", "--from", str(source)).code == 0
        commit_all(seed, "plan")
        git(seed, "checkout", "-q", "-b", "a")
        for tid in ("IMPL-1", "IMPL-2"):
            assert in_process(seed, "task", "status", tid, "completed").code == 0
        assert in_process(seed, "session", "pause").code == 0
        commit_all(seed, "a")
        git(seed, "checkout", "-q", "-b", "b", "main")
        b = ("--session", "WFS-merge-work", "task")  # paused on branch a (markers are local)
        assert in_process(seed, *b, "status", "IMPL-3", "completed").code == 0
        assert in_process(seed, *b, "update", "IMPL-3", "--title", "Docs").code == 0
        commit_all(seed, "b")

    def merge(root: Path, env: dict[str, str]) -> Run:
        proc = subprocess.run(
            ["git", "merge", "--no-edit", "a"],
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, **env},
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def recover(root: Path, point: str, killed: Run) -> None:
        if ".merge_file_" in point:
            assert "Automatic merge failed; fix conflicts" in killed.out, killed
            git(root, "merge", "--abort")
            assert merge(root, {}).code == 0
        elif point == "replace .git/wfs-merge-pending":
            assert killed.code == 0  # a hook of wfs never stops git
            said = (
                "wfs: the pre-merge-commit hook failed; the merge commit keeps the plan views "
                "git merged; to refresh them, undo it ('git reset --merge ORIG_HEAD') and "
                "merge again\n"
            )
            assert said in killed.err, killed
            assert in_process(root, "render", "--check", "--all").code == 1  # as git merged them
            git(root, "reset", "-q", "--merge", "ORIG_HEAD")
            assert merge(root, {}).code == 0
        else:
            assert killed.code == 0
            said = "wfs: the post-merge hook failed; run 'wfs hook post-merge 0' in the project"
            assert said in killed.err, killed
            finished = in_process(root, "hook", "post-merge", "0")
            assert finished.code == 0, finished.err
        doctor_removes_only_leftovers(root)
        assert git(root, "status", "--porcelain").stdout == ""

    def compare(root: Path, reference: Path, point: str) -> None:
        same_tree(root, reference, point)
        head = git(root, "rev-parse", "HEAD").stdout
        assert head == git(reference, "rev-parse", "HEAD").stdout, point

    points = kill_at_every_write_point(tmp_path, build, merge, recover, compare, None)
    print(f"\nkill points: git merge (drivers and hooks): {len(points)}")


# ------------------------------------------------------------------------ the hook


@pytest.mark.slow
@pytest.mark.parametrize("value", ["", "0", "-1", "+1", "1.0", "one", "\u0661", " 1"])
def test_the_crash_hook_ignores_anything_but_a_positive_integer(tmp_path: Path, value: str) -> None:
    """Only a positive integer (in ASCII digits: not the Arabic-Indic one) kills; the log
    counts the write points all the same."""
    assert in_process(tmp_path, "init", "--no-git").code == 0
    log = tmp_path.parent / f"{tmp_path.name}.log"
    run = wfs_killable(
        tmp_path, "plan", "Hook", "--empty", env={CRASH_AT: value, WRITE_LOG: str(log)}
    )
    assert (run.code, run.out) == (0, "WFS-hook\n"), run
    assert write_points(log, tmp_path)[-1] == "move .workflow/WFS-hook"
    killed = wfs_killable(tmp_path, "plan", "Other", "--empty", env={CRASH_AT: "2"})
    assert (killed.code, killed.out, killed.err) == (KILLED, "", "")
    # Killed right before its second write point: the new session's folder is made, empty.
    assert os.listdir(tmp_path / ".workflow/.WFS-other.new") == []
