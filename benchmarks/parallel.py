"""How well `wfs execute --all --jobs N` packs a plan's tasks (issue 30, point 4).

Plans of sleep steps with known durations and a known critical path run with
--jobs 1, 2, 4 and 8; each makespan (the whole command, wall clock) is set against

- the lower bound max(critical path, total work / N), which no schedule beats;
- the wave schedule: each level of the graph (tasks at the same depth) starts when
  the slowest task of the level before it has ended, N at a time within a level
  (computed from the durations, not run).

It also measures what wfs adds per task (worktree, branch, commit, merge, the task's
own wfs process) against the same task run in place: a plan of K no-op tasks run with
--jobs 1 in place and with --jobs 2 in worktrees, one at a time (a chain). Besides the
wall clock, which a busy machine inflates, it counts what does not depend on the load:
the git processes per task, and the CPU time per task (of wfs, git and the steps).

wfs runs with its bytecode cached (in a scratch folder), as an installed wfs does: a
process that compiles wfs's sources at each start (PYTHONDONTWRITEBYTECODE) pays about
90 ms more for each task's own process.

    . .venv/bin/activate
    python benchmarks/parallel.py                    # 40 tasks of 1-3 s; about 4 min
    python benchmarks/parallel.py --tasks 12 --scale 0.3 --jobs 1 2   # a quick look

Writes benchmarks/PARALLEL.md (or --out FILE) with the table of the run.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import platform as host
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def random_plan(
    count: int, seed: int, scale: float
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """A layered random DAG: each task depends on 0-2 tasks of earlier ids, durations
    1-3 s (times `scale`), in steps of 0.1 s."""
    rng = random.Random(seed)
    graph: dict[str, list[str]] = {}
    cost: dict[str, float] = {}
    for n in range(1, count + 1):
        tid = f"IMPL-{n}"
        earlier = [f"IMPL-{m}" for m in range(max(1, n - 12), n)]
        graph[tid] = sorted(rng.sample(earlier, min(len(earlier), rng.choice([0, 1, 1, 2]))))
        cost[tid] = round(rng.uniform(1.0, 3.0) * scale, 1)
    return graph, cost


def critical_path(graph: dict[str, list[str]], cost: dict[str, float]) -> float:
    finish: dict[str, float] = {}
    for tid in graph:  # ids are in dependency order
        finish[tid] = cost[tid] + max((finish[d] for d in graph[tid]), default=0.0)
    return max(finish.values())


def critical_chain(graph: dict[str, list[str]], cost: dict[str, float]) -> list[str]:
    """The tasks of the critical path, first to last."""
    finish: dict[str, float] = {}
    for tid in graph:
        finish[tid] = cost[tid] + max((finish[d] for d in graph[tid]), default=0.0)
    chain = [max(finish, key=lambda t: finish[t])]
    while graph[chain[-1]]:
        chain.append(max(graph[chain[-1]], key=lambda t: finish[t]))
    return chain[::-1]


def handover(
    events: list[tuple[float, dict[str, Any]]], graph: dict[str, list[str]], chain: list[str]
) -> float:
    """The mean time, along `chain`, from the step of a task's last dependency ending
    to its own step starting (the merge, the completion, the claim, the worktree), as
    the `--json` events came."""
    started: dict[str, float] = {}
    ended: dict[str, float] = {}
    for at, event in events:
        if event.get("event") == "step_started":
            started.setdefault(event["task"], at)
        elif event.get("event") == "step_finished":
            ended[event["task"]] = at
    gaps = [started[t] - max(ended[d] for d in graph[t]) for t in chain if graph[t]]
    return sum(gaps) / len(gaps) if gaps else 0.0


def levels(graph: dict[str, list[str]]) -> dict[str, int]:
    depth: dict[str, int] = {}
    for tid in graph:
        depth[tid] = 1 + max((depth[d] for d in graph[tid]), default=-1)
    return depth


def list_schedule(durations: list[float], jobs: int) -> float:
    """The makespan of independent tasks on `jobs` workers, longest first."""
    workers = [0.0] * jobs
    for d in sorted(durations, reverse=True):
        heapq.heappush(workers, heapq.heappop(workers) + d)
    return max(workers)


def wave_makespan(graph: dict[str, list[str]], cost: dict[str, float], jobs: int) -> float:
    depth = levels(graph)
    total = 0.0
    for level in sorted(set(depth.values())):
        total += list_schedule([cost[t] for t in graph if depth[t] == level], jobs)
    return total


def task_json(tid: str, deps: list[str], seconds: float) -> dict[str, Any]:
    command = f"bash(sleep {seconds}; echo {tid} > {tid}.txt)" if seconds else "bash(true)"
    return {
        "id": tid,
        "title": f"task {tid}",
        "depends_on": deps,
        "flow_control": {
            "pre_analysis": [],
            "implementation_approach": [
                {
                    "step": 1,
                    "title": "work",
                    "description": "sleep",
                    "modification_points": [],
                    "logic_flow": [],
                    "depends_on": [],
                    "output": "out",
                    "command": command,
                }
            ],
        },
    }


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def project(folder: Path, tasks: list[dict[str, Any]], env: dict[str, str]) -> Path:
    root = folder / "project"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("bench\n")
    wfs = [sys.executable, "-m", "wfs"]
    subprocess.run([*wfs, "init"], cwd=root, env=env, check=True, capture_output=True)
    subprocess.run(
        [*wfs, "plan", "Bench", "--from", "-"],
        cwd=root,
        env=env,
        input=json.dumps(tasks).encode(),
        check=True,
        capture_output=True,
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "plan")
    return root


def children_cpu() -> float:
    """CPU seconds (user and system) of the ended child processes of this one."""
    try:
        import resource
    except ImportError:  # Windows: not counted
        return 0.0
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed_run(
    root: Path, jobs: int, env: dict[str, str]
) -> tuple[float, list[tuple[float, dict[str, Any]]]]:
    """The run's wall clock, and its `--json` events with when each came."""
    argv = [sys.executable, "-m", "wfs", "execute", "--all", "--jobs", str(jobs), "--json"]
    events: list[tuple[float, dict[str, Any]]] = []
    began = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    for line in proc.stdout:
        events.append((time.monotonic() - began, json.loads(line)))
    errors = proc.stderr.read()
    code = proc.wait()
    took = time.monotonic() - began
    if code != 0:
        raise SystemExit(f"--jobs {jobs} failed ({code}):\n{errors}")
    return took, events


def measured_run(root: Path, jobs: int, env: dict[str, str]) -> tuple[float, float, int]:
    """The run's wall clock and CPU seconds, and how many git processes it started."""
    argv = [sys.executable, "-m", "wfs", "execute", "--all", "--jobs", str(jobs)]
    trace = root.parent / "git-trace.json"
    env = {**env, "GIT_TRACE2_EVENT": str(trace)}
    cpu = children_cpu()
    began = time.monotonic()
    proc = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
    took = time.monotonic() - began
    cpu = children_cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"--jobs {jobs} failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    gits = 0
    if trace.exists():
        for line in trace.read_text().splitlines():
            event = json.loads(line)
            if event.get("event") == "start" and "/" not in event.get("sid", ""):
                gits += 1  # a git process that wfs started (not one git started)
        trace.unlink()
    return took, cpu, gits


def environment(scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")
    subprocess.run(  # compiled once, before anything is timed
        [sys.executable, "-m", "compileall", "-q", str(HERE.parent / "wfs")], env=env, check=True
    )
    for role in ("AUTHOR", "COMMITTER"):
        env.setdefault(f"GIT_{role}_NAME", "bench")
        env.setdefault(f"GIT_{role}_EMAIL", "bench@example.com")
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=40)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--scale", type=float, default=1.0, help="durations times this")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--overhead-tasks", type=int, default=8)
    parser.add_argument("--out", type=Path, default=HERE / "PARALLEL.md")
    args = parser.parse_args()
    graph, cost = random_plan(args.tasks, args.seed, args.scale)
    tasks = [task_json(tid, graph[tid], cost[tid]) for tid in graph]
    total, path = sum(cost.values()), critical_path(graph, cost)
    critical = critical_chain(graph, cost)
    rows = []
    with tempfile.TemporaryDirectory(prefix="wfs-parallel-") as scratch:
        env = environment(Path(scratch))
        for jobs in args.jobs:
            root = project(Path(scratch) / f"jobs{jobs}", tasks, env)
            makespan, events = timed_run(root, jobs, env)
            bound = max(path, total / jobs)
            waves = wave_makespan(graph, cost, jobs)
            gap = handover(events, graph, critical)
            rows.append((jobs, makespan, bound, waves, gap))
            print(
                f"--jobs {jobs}: {makespan:.1f} s (bound {bound:.1f} s, waves {waves:.1f} s; "
                f"{gap * 1000:.0f} ms from step to step on the critical path)"
            )
            shutil.rmtree(root, ignore_errors=True)
        k = args.overhead_tasks
        chain = [
            task_json(f"IMPL-{n}", [f"IMPL-{n - 1}"] if n > 1 else [], 0) for n in range(1, k + 1)
        ]
        in_place = measured_run(project(Path(scratch) / "in-place", chain, env), 1, env)
        in_trees = measured_run(project(Path(scratch) / "worktrees", chain, env), 2, env)
    per_place, per_tree = in_place[0] / k * 1000, in_trees[0] / k * 1000
    cpu_place, cpu_tree = in_place[1] / k * 1000, in_trees[1] / k * 1000
    git_place, git_tree = in_place[2] / k, in_trees[2] / k
    print(f"per task: {per_place:.0f} ms in place, {per_tree:.0f} ms in a worktree")
    print(f"CPU per task: {cpu_place:.0f} ms in place, {cpu_tree:.0f} ms in a worktree")
    print(f"git processes per task: {git_place:.1f} in place, {git_tree:.1f} in a worktree")
    lines = [
        "# `wfs execute --all --jobs N`: makespan",
        "",
        f"Machine: {host.machine()}, {os.cpu_count()} cores, Python {host.python_version()}. "
        f"One run of `python benchmarks/parallel.py"
        f"{' --tasks ' + str(args.tasks) if args.tasks != 40 else ''}"
        f"{' --scale ' + str(args.scale) if args.scale != 1.0 else ''}`.",
        "",
        f"Plan: {args.tasks} tasks (seed {args.seed}), each one sleep step of "
        f"{min(cost.values()):.1f}-{max(cost.values()):.1f} s; total work {total:.1f} s, "
        f"critical path {path:.1f} s, {len(set(levels(graph).values()))} levels.",
        "",
        "| jobs | makespan | lower bound max(path, total/N) | vs bound | wave schedule "
        "| vs waves | step to step on the critical path |",
        "|---|---|---|---|---|---|---|",
    ]
    for jobs, makespan, bound, waves, gap in rows:
        lines.append(
            f"| {jobs} | {makespan:.1f} s | {bound:.1f} s | {makespan / bound:.2f} x | "
            f"{waves:.1f} s | {makespan / waves:.2f} x | {gap * 1000:.0f} ms |"
        )
    lines += [
        "",
        f"What wfs adds per task: a chain of {k} no-op tasks takes {per_place:.0f} ms a task "
        f"run in place (`--jobs 1`) and {per_tree:.0f} ms a task in worktrees (`--jobs 2`: "
        f"the task's own wfs process, worktree, branch, commit, merge, removal), so "
        f"{per_tree - per_place:.0f} ms more per task. What the load does not change: "
        f"CPU time {cpu_place:.0f} ms a task in place, {cpu_tree:.0f} ms in worktrees "
        f"(wfs, git and the steps together); git processes {git_place:.1f} a task in place, "
        f"{git_tree:.1f} in worktrees.",
        "",
        f"Step to step on the critical path: the mean time, over the {len(critical) - 1} tasks "
        f"of the critical path after its first, from the end of the step of a task's last "
        f"dependency to the start of its own step, as `--json` shows them (the dependency's "
        f"commit, merge and completion, then the task's claim and worktree; with fewer jobs, "
        f"also the wait for a free one).",
        "",
        "Goal (issue 30): with 8 jobs, makespan <= 1.1 x the lower bound and <= 0.8 x the "
        "wave schedule.",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
