"""Crash safety and contention: real processes, real SIGKILLs, real lock contention.

The crash harness kills mutating commands (plan, task status, split, execute, switch)
at a write point chosen at random (WFS_TEST_CRASH_AT, wfs/store.py): where it lands
depends on the seed, never on the machine's speed. After every kill: every JSON file
parses, every update acknowledged before it is still there, `wfs doctor` finds only
repairable states, and after `wfs doctor --fix`, `wfs validate` and `wfs render --check`
are clean. (tests/test_crash_points.py kills the multi-file writes at every write point.)
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import read_json, wfs

from wfs.store import CRASH_AT, WRITE_LOG

KILLS = int(os.environ.get("WFS_CRASH_KILLS", "60"))
SEED = int(os.environ.get("WFS_CRASH_SEED", "20261122"))
# A killed operation stops at its k-th write point, k from 1 to the most write points
# an operation of its kind has had so far (this many before one has run through).
FIRST_GUESS = 8
WORK = "WFS-work"  # status updates and splits
RUNS = "WFS-runs"  # executions


def start(project: Path, env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "wfs", "--root", str(project), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "WFS_LOCK_TIMEOUT": "30", **env},
    )


def every_json_parses(project: Path) -> int:
    count = 0
    for path in (project / ".workflow").rglob("*.json"):
        if not path.name.startswith("."):  # temporary files of interrupted writes
            orjson.loads(path.read_bytes())
            count += 1
    return count


def run_task(n: int) -> dict[str, Any]:
    steps = [
        {
            "step": i,
            "title": f"s{i}",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [i - 1] if i > 1 else [],
            "output": f"o{i}",
            "command": f"bash(sleep 0.0{i}; echo {n}-{i} >> ran.log; printf {i})",
        }
        for i in range(1, 4)
    ]
    return {
        "id": f"IMPL-{n}",
        "title": f"Run {n}",
        "flow_control": {"pre_analysis": [], "implementation_approach": steps},
    }


class Harness:
    def __init__(self, project: Path, rng: random.Random) -> None:
        self.project = project
        self.rng = rng
        # WORK task -> the values it may hold: its last acknowledged status, plus those of
        # later updates that were killed (they may or may not have landed).
        self.allowed: dict[str, set[str]] = {}
        self.sessions: dict[str, int] = {}  # acknowledged plans: id -> task count
        self.split: set[str] = set()  # acknowledged splits in WORK
        self.completed: set[str] = set()  # acknowledged executions in RUNS
        self.active: str | None = None  # acknowledged switch/plan
        self.kills = 0
        self.spared = 0  # operations left to finish
        self.acknowledged = 0
        self.plans = 0
        self.files_checked = 0
        self.repairs = 0
        self.points: dict[str, int] = {}  # kind -> the most write points one had
        self.log = project.parent / "writes.log"  # outside the project

    def tasks(self, sid: str) -> dict[str, dict[str, Any]]:
        folder = self.project / ".workflow" / sid / ".task"
        return {p.stem: read_json(p) for p in sorted(folder.glob("IMPL-*.json"))}

    def pick(self) -> tuple[str, list[str], Any]:
        """An operation: (kind, argv, what to record when it is acknowledged)."""
        kind = self.rng.choice(["plan", "status", "split", "execute", "switch"])
        work = self.tasks(WORK)
        if kind == "status":
            return self.pick_status(work)
        if kind == "split":
            candidates = [
                t
                for t, d in work.items()
                if "." not in t
                and d["status"] == "pending"
                and not any(k.startswith(t + ".") for k in work)
            ]
            if not candidates:  # every main task was split or has left pending
                return self.pick_status(work)
            tid = self.rng.choice(candidates)
            subs = json.dumps([{"title": f"{tid} part {i}"} for i in range(1, 4)])
            path = self.project / "subs.json"
            path.write_text(subs)
            return kind, ["--session", WORK, "task", "split", tid, "--from", str(path)], tid
        if kind == "execute":
            return kind, ["--session", RUNS, "execute"], None
        if kind == "switch":
            sid = self.rng.choice(
                sorted(p.name for p in (self.project / ".workflow").glob("WFS-*"))
            )
            return kind, ["switch", sid], sid
        self.plans += 1
        plan = self.project / "plan.json"
        count = self.rng.randint(1, 6)
        plan.write_text(
            json.dumps([{"id": f"IMPL-{n}", "title": f"Task {n}"} for n in range(1, count + 1)])
        )
        return kind, ["plan", f"Crash topic {self.plans}", "--from", str(plan)], count

    def pick_status(self, work: dict[str, dict[str, Any]]) -> tuple[str, list[str], Any]:
        leaves = sorted(t for t, d in work.items() if d["status"] != "container")
        tid = self.rng.choice(leaves)
        status = self.rng.choice(["pending", "active", "completed", "blocked"])
        return "status", ["--session", WORK, "task", "status", tid, status], (tid, status)

    def step(self) -> None:
        """One operation: one in four runs to its end (it must then be acknowledged),
        the others are killed at a random write point, unless they have fewer. What
        counts is write points, never how fast they ran."""
        kind, argv, what = self.pick()
        spared = self.rng.random() < 0.25
        self.log.write_bytes(b"")
        crash = {WRITE_LOG: str(self.log)}
        if not spared:
            crash[CRASH_AT] = str(self.rng.randint(1, self.points.get(kind, FIRST_GUESS)))
        proc = start(self.project, crash, *argv)
        proc.wait()
        if proc.returncode == -signal.SIGKILL:
            self.kills += 1
        else:
            points = len(self.log.read_bytes().splitlines())
            self.points[kind] = max(self.points.get(kind, 1), points)
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        assert "Traceback" not in err, err
        if spared:
            self.spared += 1
            assert proc.returncode in (0, 1), (argv, proc.returncode, err)
        if proc.returncode in (0, 1):
            self.acknowledge(kind, what, argv)
        elif kind == "status" and what[0] in self.allowed:
            self.allowed[what[0]].add(what[1])
        elif kind == "split" and what in self.allowed:
            self.allowed[what].add("container")
        self.check()

    def acknowledge(self, kind: str, what: Any, argv: list[str]) -> None:
        self.acknowledged += 1
        if kind == "status":
            self.allowed[what[0]] = {what[1]}
        elif kind == "split":
            self.split.add(what)
            self.allowed[what] = {"container"}
        elif kind == "switch":
            self.active = what
        elif kind == "plan":
            sid = f"WFS-crash-topic-{self.plans}"
            self.sessions[sid] = what
            self.active = sid
        elif kind == "execute":
            done = {t for t, d in self.tasks(RUNS).items() if d["status"] == "completed"}
            assert self.completed <= done
            self.completed = done

    def check(self) -> None:
        self.files_checked += every_json_parses(self.project)
        # Every finding is repairable: --fix repairs them all and exits 0.
        repaired = wfs("--root", str(self.project), "doctor", "--fix", "--json")
        assert repaired.code == 0, repaired.out
        self.repairs += len(repaired.json()["findings"])
        self.verify_acknowledged()
        check = wfs("--root", str(self.project), "validate", "--all")
        assert check.code == 0, check.out
        views = wfs("--root", str(self.project), "render", "--check", "--all")
        assert views.code == 0, views.out
        markers = list((self.project / ".workflow").glob(".active-*"))
        assert len(markers) <= 1

    def verify_acknowledged(self) -> None:
        work = self.tasks(WORK)
        for tid, allowed in self.allowed.items():
            assert work[tid]["status"] in allowed, (tid, work[tid]["status"], allowed)
        for tid in self.split:
            assert work[tid]["status"] == "container"
            assert {f"{tid}.1", f"{tid}.2", f"{tid}.3"} <= set(work)
        for sid, count in self.sessions.items():
            assert len(self.tasks(sid)) == count
        runs = self.tasks(RUNS)
        for tid in self.completed:
            assert runs[tid]["status"] == "completed"
            assert (self.project / ".workflow" / RUNS / ".summaries" / f"{tid}-summary.md").exists()


@pytest.mark.slow
def test_random_kills_never_corrupt_the_plan(tmp_path: Path) -> None:
    project = tmp_path / "crash"
    project.mkdir()
    work = [{"id": f"IMPL-{n}", "title": f"Work {n}"} for n in range(1, 121)]
    runs = [run_task(n) for n in range(1, 121)]
    assert wfs("--root", str(project), "init", "--no-git").code == 0
    for topic, tasks in (("Work", work), ("Runs", runs)):
        plan = tmp_path / f"{topic}.json"
        plan.write_text(json.dumps(tasks))
        assert wfs("--root", str(project), "plan", topic, "--from", str(plan)).code == 0
    harness = Harness(project, random.Random(SEED))
    attempts = 0
    while harness.kills < KILLS:
        attempts += 1
        assert attempts < KILLS * 20, "operations with too few write points to be killed"
        harness.step()
    assert harness.acknowledged >= harness.spared > 0
    print(
        f"\ncrash harness: {harness.kills} kills in {attempts} operations, "
        f"{harness.acknowledged} acknowledged, {harness.repairs} repairs, "
        f"{harness.files_checked} JSON files parsed; write points by kind: {harness.points}"
    )


UPDATER = """
import sys
from pathlib import Path
from wfs.layout import Layout
from wfs.edit import set_status
layout, first, count = Layout(Path(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
for n in range(first, first + count):
    set_status(layout, "WFS-contention", f"IMPL-{n}", "completed")
"""


@pytest.mark.slow
def test_eight_processes_make_800_updates_and_none_is_lost(project: Path) -> None:
    tasks = [{"id": f"IMPL-{n}", "title": f"T{n}"} for n in range(1, 801)]
    wfs("init", "--no-git")
    assert wfs("plan", "Contention", "--from", "-", input=json.dumps(tasks)).code == 0
    env = {**os.environ, "WFS_LOCK_TIMEOUT": "300"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", UPDATER, str(project), str(1 + 100 * i), "100"],
            env=env,
            stderr=subprocess.PIPE,
        )
        for i in range(8)
    ]
    errors = [p.communicate(timeout=600)[1] for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, errors
    folder = project / ".workflow/WFS-contention/.task"
    statuses = [read_json(folder / f"IMPL-{n}.json")["status"] for n in range(1, 801)]
    assert statuses == ["completed"] * 800
    assert wfs("render", "--check").code == 0
    assert wfs("status", "--json").json()["progress"]["completed"] == 800


HAMMER = """
import sys
from pathlib import Path
from wfs.layout import Layout
from wfs.edit import update_task
layout, me = Layout(Path(sys.argv[1])), sys.argv[2]
for n in range(40):
    update_task(layout, "WFS-hammer", "IMPL-1", {"title": f"{me}-{n}"})
"""


@pytest.mark.slow
def test_processes_hammering_one_task_leave_one_written_value(project: Path) -> None:
    wfs("init", "--no-git")
    assert (
        wfs(
            "plan", "Hammer", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "start"}])
        ).code
        == 0
    )
    env = {**os.environ, "WFS_LOCK_TIMEOUT": "300"}
    procs = [
        subprocess.Popen([sys.executable, "-c", HAMMER, str(project), f"p{i}"], env=env)
        for i in range(6)
    ]
    assert [p.wait(timeout=600) for p in procs] == [0] * 6
    title = read_json(project / ".workflow/WFS-hammer/.task/IMPL-1.json")["title"]
    written = {f"p{i}-{n}" for i in range(6) for n in range(40)}
    assert title in written
    assert title.endswith("-39")  # the last write of whichever process finished last
    assert wfs("validate").code == 0


@pytest.mark.slow
@pytest.mark.parametrize("timeout", ["0.2", "1"])
def test_held_session_lock_gives_exit_4_after_the_timeout(project: Path, timeout: str) -> None:
    wfs("init", "--no-git")
    assert (
        wfs("plan", "Held", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "x"}])).code
        == 0
    )
    lock = project / ".workflow/.locks/WFS-held.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from wfs import platform;"
            "lock = platform.FileLock(sys.argv[1], 10); lock.acquire(); print('held', flush=True);"
            "time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        run = subprocess.run(
            [sys.executable, "-m", "wfs", "task", "status", "IMPL-1", "completed"],
            cwd=project,
            capture_output=True,
            text=True,
            env={**os.environ, "WFS_LOCK_TIMEOUT": timeout},
        )
        waited = time.monotonic() - started
    finally:
        holder.kill()
        holder.wait()
    assert run.returncode == 4
    assert run.stderr == (
        f"wfs: error: WFS-held is locked by another wfs process (waited "
        f"{float(timeout):g}s); try again, or set WFS_LOCK_TIMEOUT to wait "
        "longer\n"
    )
    assert waited >= float(timeout)
    assert read_json(project / ".workflow/WFS-held/.task/IMPL-1.json")["status"] == "pending"


@pytest.mark.slow
def test_a_half_applied_change_fails_validate_and_render_check_until_finished(
    project: Path,
) -> None:
    """A change to several files cut short (its journal left behind) is never reported
    clean: the pre-commit hooks fail until `wfs doctor --fix` finishes it."""
    from wfs import jsonio, store
    from wfs.layout import Layout

    tasks = [{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two"}]
    wfs("init", "--no-git")
    assert wfs("plan", "Cut", "--from", "-", input=json.dumps(tasks)).code == 0
    layout = Layout(project)
    folder = layout.task_dir("WFS-cut")
    one, two = (read_json(folder / f"IMPL-{n}.json") for n in (1, 2))
    journal = layout.journal("WFS-cut")
    # Stage both new files and write the journal, as write_together does, then stop
    # before the renames: a process killed at that moment.
    staged = [
        (
            folder / "IMPL-1.json",
            store.stage(folder / "IMPL-1.json", jsonio.dumps({**one, "title": "A"})),
        ),
        (
            folder / "IMPL-2.json",
            store.stage(folder / "IMPL-2.json", jsonio.dumps({**two, "title": "B"})),
        ),
    ]
    renames = [
        [os.path.relpath(t, journal.parent), os.path.relpath(s, journal.parent)] for t, s in staged
    ]
    store.write_bytes(journal, jsonio.dumps({"renames": renames}))
    where = ".workflow/.locks/WFS-cut.journal"
    check = wfs("validate")
    assert check.code == 1
    assert check.out.splitlines()[0] == (
        f"{where}: interrupted: a change to several files of this session was interrupted, "
        "so they are half written; `wfs doctor --fix` finishes it"
    )
    views = wfs("render", "--check")
    assert views.code == 1
    assert views.out.splitlines()[0] == (
        f"{where}: a change to several files was interrupted, so they are half written; "
        "`wfs doctor --fix` finishes it"
    )
    fixed = wfs("doctor", "--fix")
    assert fixed.code == 0, fixed.out
    assert [read_json(folder / f"IMPL-{n}.json")["title"] for n in (1, 2)] == ["A", "B"]
    assert wfs("validate").code == 0
    assert wfs("render", "--check").code == 0  # doctor re-rendered the views too
    assert "**IMPL-1**: A" in (project / ".workflow/WFS-cut/TODO_LIST.md").read_text()
