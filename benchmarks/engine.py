"""Steps at bash's speed, and the git processes of a task in a worktree (issue 43), for
this tree and for the code of another revision (default 88ae31e), in the same run.

- B: 200 `bash -c true` run one after the other by bash (`for i in $(seq 200)`);
- E: `wfs execute IMPL-1` of a task of 200 one-command `bash(true)` steps;
- E1: the same with one step: what a run costs besides its steps;
- F: the floor of a step: 200 `true` through wfs's resident bash (as a run's bash steps
  go) by a Python process that does nothing else, timed inside it. E1 + 199 F is what E
  would be if the engine did no work of its own for a step.

Each takes turns with the others in every round (a busy moment of the machine touches
them alike); the figures are medians, E as a ratio to B. Besides the wall clock, the
CPU time of each (the process and the children it waited for), which the load of the
machine changes less.

Then the git processes of `wfs execute --all --jobs 2` on a chain of K tasks (one
task at a time, each in its worktree): a `git` first on PATH logs each call and runs
the real one. Two plans: steps that change nothing (`bash(true)`), and steps that
change a tracked file and add a new one.

Both trees run as their installed `wfs` command does (the entry point their
pyproject.toml names, imported and called), with their bytecode compiled (in a scratch
folder). With `--instructions` (valgrind on PATH), the instructions that the wfs process
of E and of E1 executes (its steps' processes not counted), which no load of the machine
changes: the figure to compare two versions by.

    . .venv/bin/activate
    python benchmarks/engine.py                     # a minute or two
    python benchmarks/engine.py --runs 15 --against main --instructions

Writes benchmarks/ENGINE.md (or --out FILE).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
STEPS = 200
TARGET = 1.2  # E at most this many times B
GIT_TARGET = 6  # git processes per task in a worktree, at most
BASELINE = "88ae31e"
EXPORTED = ("wfs", "schemas", "agents", "pyproject.toml")  # what a tree to run needs

LOOP = f"for i in $(seq {STEPS}); do bash -c true; done"
FLOOR = f"""
import time
from pathlib import Path
from wfs import platform
from wfs.flow import steps
with platform.run_of_steps():
    steps.run_shell("true", {{}}, Path("."), None)  # the resident bash started
    began = time.perf_counter()
    for _ in range({STEPS}):
        steps.run_shell("true", {{"WFS_STEP": "x"}}, Path("."), None)
    print(time.perf_counter() - began)
"""
GIT_LOGGER = """#!/bin/sh
echo "$*" | head -n 1 >> "$WFS_BENCH_GIT_LOG"
exec "$WFS_BENCH_GIT" "$@"
"""


class Tree:
    """A wfs to run: its sources (a folder holding `wfs/`) and its bytecode."""

    def __init__(self, name: str, source: Path, scratch: Path) -> None:
        self.name = name
        self.source = source
        # What the `wfs` script that pip installs runs (`python -m wfs` adds runpy's
        # imports, which no user's command pays).
        with open(source / "pyproject.toml", "rb") as handle:
            entry = tomllib.load(handle)["project"]["scripts"]["wfs"]
        module, _, function = entry.partition(":")
        self.script = f"import sys; sys.argv[0] = 'wfs'; from {module} import {function}; "
        self.script += f"sys.exit({function}())"
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPATH"] = str(source)
        self.env["PYTHONPYCACHEPREFIX"] = str(scratch / f"bytecode-{name}")
        for role in ("AUTHOR", "COMMITTER"):
            self.env.setdefault(f"GIT_{role}_NAME", "bench")
            self.env.setdefault(f"GIT_{role}_EMAIL", "bench@example.com")
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(source / "wfs")],
            env=self.env,
            check=True,
        )

    def wfs(self, *args: str) -> list[str]:
        return [sys.executable, "-c", self.script, *args]

    def run(self, root: Path, *args: str, **extra: Any) -> subprocess.CompletedProcess[bytes]:
        env = {**self.env, **extra.pop("env", {})}
        return subprocess.run(self.wfs(*args), cwd=root, env=env, capture_output=True, **extra)


def exported(revision: str, into: Path) -> Path:
    """The sources of `revision` of this repository, written out in `into`."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", revision, *EXPORTED],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user and system, with the children it waited for)
    of one process, its output thrown away."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"benchmark command failed: {argv}")
    return elapsed, usage.ru_utime + usage.ru_stime


def floor(tree: Tree, cwd: Path) -> float:
    """Seconds of F (FLOOR) for the steps alone."""
    run = subprocess.run(
        [sys.executable, "-c", FLOOR], cwd=cwd, env=tree.env, capture_output=True, check=True
    )
    return float(run.stdout)


def step(n: int) -> dict[str, Any]:
    return {
        "step": n,
        "title": f"s{n}",
        "description": "d",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": f"o{n}",
        "command": "bash(true)",
    }


def engine_project(tree: Tree, root: Path, steps: int) -> Path:
    """A project (no git) with one task of `steps` `bash(true)` steps."""
    root.mkdir(parents=True)
    flow = {"pre_analysis": [], "implementation_approach": [step(n) for n in range(1, steps + 1)]}
    plan = [{"id": "IMPL-1", "title": "Engine", "flow_control": flow}]
    (root / "plan.json").write_text(json.dumps(plan))
    for args in (["init", "--no-git"], ["plan", "Engine", "--from", "plan.json"]):
        run = tree.run(root, *args)
        if run.returncode != 0:
            raise SystemExit(f"{tree.name}: wfs {' '.join(args)} failed:\n{run.stderr.decode()}")
    return root


def reset(tree: Tree, root: Path) -> None:
    """The task pending again, its run record gone: the next run starts it afresh."""
    tree.run(root, "task", "status", "IMPL-1", "pending", check=True)
    shutil.rmtree(root / ".workflow" / "WFS-engine" / ".runs", ignore_errors=True)


def engine_times(trees: list[Tree], scratch: Path, runs: int) -> dict[str, dict[str, float]]:
    """Medians of B, and of E and E1 for each tree (wall and CPU seconds)."""
    projects = {
        (tree.name, steps): engine_project(tree, scratch / f"engine-{tree.name}-{steps}", steps)
        for tree in trees
        for steps in (STEPS, 1)
    }
    samples: dict[str, list[tuple[float, float]]] = {}
    bash_env = dict(os.environ)
    for round_ in range(runs + 1):  # the first round warms the page cache, not counted
        order = [("B", None, 0), *((t.name, t, s) for t in trees for s in (STEPS, 1))]
        order.append(("F", trees[0], 0))
        for name, tree, steps in order:
            if tree is None:
                took = timed(["bash", "-c", LOOP], scratch, bash_env)
                key = "B"
            elif name == "F":
                took = (floor(tree, scratch), 0.0)
                key = "F"
            else:
                root = projects[(tree.name, steps)]
                reset(tree, root)
                took = timed(tree.wfs("execute", "IMPL-1"), root, tree.env)
                key = f"{name}:E" if steps == STEPS else f"{name}:E1"
            if round_:
                samples.setdefault(key, []).append(took)
    return {
        key: {
            "wall": statistics.median(t[0] for t in values),
            "cpu": statistics.median(t[1] for t in values),
        }
        for key, values in samples.items()
    }


def instructions(trees: list[Tree], scratch: Path) -> dict[str, int]:
    """The instructions of the wfs process of E and of E1, for each tree (valgrind's
    callgrind counts them; the processes of the steps are not counted)."""
    found = {}
    for tree in trees:
        for steps in (STEPS, 1):
            root = scratch / f"engine-{tree.name}-{steps}"
            reset(tree, root)
            run = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
                + tree.wfs("execute", "IMPL-1"),
                cwd=root,
                env=tree.env,
                capture_output=True,
                text=True,
            )
            said = [line for line in run.stderr.splitlines() if "Collected :" in line]
            if run.returncode != 0 or not said:
                raise SystemExit(f"valgrind failed:\n{run.stderr[-2000:]}")
            found[f"{tree.name}:{'E' if steps == STEPS else 'E1'}"] = int(said[-1].split()[-1])
    return found


def chain_task(tid: str, after: str | None, changes: bool) -> dict[str, Any]:
    command = f"bash(echo {tid} >> README.md; echo {tid} > {tid}.txt)" if changes else "bash(true)"
    work = {**step(1), "command": command, "output": "out"}
    return {
        "id": tid,
        "title": f"task {tid}",
        "depends_on": [after] if after else [],
        "flow_control": {"pre_analysis": [], "implementation_approach": [work]},
    }


def git_project(tree: Tree, root: Path, tasks: int, changes: bool) -> Path:
    root.mkdir(parents=True)
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True, env=tree.env)
    (root / "README.md").write_text("bench\n")
    plan = [
        chain_task(f"IMPL-{n}", f"IMPL-{n - 1}" if n > 1 else None, changes)
        for n in range(1, tasks + 1)
    ]
    tree.run(root, "init", check=True)
    tree.run(root, "plan", "Bench", "--from", "-", input=json.dumps(plan).encode(), check=True)
    subprocess.run([*git, "add", "-A"], check=True, env=tree.env)
    subprocess.run([*git, "commit", "-q", "-m", "plan"], check=True, env=tree.env)
    return root


def git_counts(
    trees: list[Tree], scratch: Path, tasks: int
) -> dict[tuple[str, bool], tuple[float, float, dict[str, int]]]:
    """For each tree and plan (steps that change files or not): git processes per task,
    wall milliseconds per task, and the calls by git command."""
    real = shutil.which("git")
    assert real is not None, "git is not on PATH"
    logger = scratch / "logging-git"
    logger.mkdir()
    (logger / "git").write_text(GIT_LOGGER)
    (logger / "git").chmod(0o755)
    found = {}
    for changes in (False, True):
        for tree in trees:
            kind = "changes" if changes else "no-op"
            root = git_project(tree, scratch / f"fleet-{tree.name}-{kind}", tasks, changes)
            log = scratch / f"git-{tree.name}-{kind}.log"
            env = {
                "PATH": f"{logger}{os.pathsep}{os.environ['PATH']}",
                "WFS_BENCH_GIT": real,
                "WFS_BENCH_GIT_LOG": str(log),
            }
            began = time.perf_counter()
            run = tree.run(root, "execute", "--all", "--jobs", "2", env=env)
            took = time.perf_counter() - began
            if run.returncode != 0:
                raise SystemExit(f"{tree.name}: --jobs 2 failed:\n{run.stderr.decode()}")
            calls = log.read_text().splitlines()
            by_command: dict[str, int] = {}
            for call in calls:
                words = call.split()
                while words and words[0] == "-C":
                    words = words[2:]
                name = words[0] if words else "?"
                by_command[name] = by_command.get(name, 0) + 1
            found[(tree.name, changes)] = (len(calls) / tasks, took / tasks * 1000, by_command)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--against", default=BASELINE, help="the revision to compare with")
    parser.add_argument("--tasks", type=int, default=8, help="tasks in each chain")
    parser.add_argument("--out", type=Path, default=HERE / "ENGINE.md")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions too (valgrind)"
    )
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="wfs-engine-") as folder:
        scratch = Path(folder)
        new = Tree("this", REPO, scratch)
        old = Tree(args.against, exported(args.against, scratch / "old"), scratch)
        trees = [new, old]
        times = engine_times(trees, scratch, args.runs)
        counted = instructions(trees, scratch) if args.instructions else {}
        gits = git_counts(trees, scratch, args.tasks)
    loads.append(os.getloadavg()[0])
    lines = report(args, trees, times, gits, counted, loads)
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def report(
    args: argparse.Namespace,
    trees: list[Tree],
    times: dict[str, dict[str, float]],
    gits: dict[tuple[str, bool], tuple[float, float, dict[str, int]]],
    counted: dict[str, int],
    loads: list[float],
) -> list[str]:
    bash = times["B"]
    lines = [
        "# The engine: steps at bash's speed, git processes per task",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. Medians of {args.runs} rounds of "
        f"`python benchmarks/engine.py`, this tree and {args.against} taking turns; the "
        f"machine's load average {loads[0]:.1f} at the start, {loads[1]:.1f} at the end.",
        "",
        f"B = {STEPS} `bash -c true` in a bash loop: {bash['wall'] * 1000:.0f} ms "
        f"({bash['cpu'] * 1000:.0f} ms CPU).",
        "",
        f"| tree | E: {STEPS} `bash(true)` steps | E / B | CPU, E / B "
        "| E1: one step | (E - E1) / B | target | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tree in trees:
        e, e1 = times[f"{tree.name}:E"], times[f"{tree.name}:E1"]
        ratio = e["wall"] / bash["wall"]
        lines.append(
            f"| {tree.name} | {e['wall'] * 1000:.0f} ms | {ratio:.2f} x "
            f"| {e['cpu'] / bash['cpu']:.2f} x | {e1['wall'] * 1000:.0f} ms "
            f"| {(e['wall'] - e1['wall']) / bash['wall']:.2f} x | <= {TARGET} x "
            f"| {'yes' if ratio <= TARGET else 'no'} |"
        )
    floor_ms = times["F"]["wall"] * 1000
    this = times[f"{trees[0].name}:E1"]["wall"] * 1000
    bound = this + floor_ms * (STEPS - 1) / STEPS
    lines += [
        "",
        f"(E - E1) / B: the {STEPS - 1} steps more alone, against the loop: what a step "
        "costs the engine beyond its bash.",
        "",
        f"F = {STEPS} `true` through the resident bash, by a process doing nothing else: "
        f"{floor_ms:.0f} ms ({floor_ms / STEPS:.2f} ms a step). With no work of the "
        f"engine's own for a step, E of {trees[0].name} would be E1 + {STEPS - 1} F / "
        f"{STEPS} = {bound:.0f} ms = {bound / (bash['wall'] * 1000):.2f} x B.",
        "",
    ]
    if counted:
        lines += [
            "Instructions of the wfs process (valgrind's callgrind; the steps' processes "
            "not counted):",
            "",
            "| tree | E | E1 | a step, (E - E1) / 199 |",
            "|---|---|---|---|",
            *[
                f"| {t.name} | {counted[t.name + ':E'] / 1e6:.0f} M | "
                f"{counted[t.name + ':E1'] / 1e6:.0f} M | "
                f"{(counted[t.name + ':E'] - counted[t.name + ':E1']) / (STEPS - 1) / 1e6:.2f} M |"
                for t in trees
            ],
            "",
        ]
    lines += [
        f"Git processes per task of `wfs execute --all --jobs 2`, a chain of {args.tasks} "
        "tasks, each in its worktree (the calls of the whole run, by a `git` on PATH that "
        "logs each, divided by the tasks):",
        "",
        "| tree | steps | git processes per task | target | met | ms per task | calls by command |",
        "|---|---|---|---|---|---|---|",
    ]
    for changes in (False, True):
        for tree in trees:
            count, ms, by = gits[(tree.name, changes)]
            what = "change a tracked file, add one" if changes else "change nothing"
            shown = ", ".join(f"{k} {v}" for k, v in sorted(by.items(), key=lambda kv: -kv[1]))
            lines.append(
                f"| {tree.name} | {what} | {count:.2f} | <= {GIT_TARGET} "
                f"| {'yes' if count <= GIT_TARGET else 'no'} | {ms:.0f} | {shown} |"
            )
    return lines


if __name__ == "__main__":
    main()
