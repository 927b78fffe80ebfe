"""Time whole `wfs` processes on synthetic sessions and write benchmarks/RESULTS.md.

Every figure is a median of several runs, reported as a ratio to baselines measured
in the same run:
  S  interpreter start-up, `python -c pass`
  R  reading every task file once, `cat .task/*.json > /dev/null`
  C  `python -c "import click"` (for --version and --help)
  F  the floor of a command that must see every change: `python` listing the .task
     folder and stat-ing every task file (a hand edit in place changes nothing else)

    python benchmarks/run.py [--runs N] [--sizes 100,1000,10000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_sessions import make_session  # noqa: E402

WRITES = ("wfs task status ID completed", "wfs task add --title T")

# Budgets on the largest session, as multiples of S (issue "One house, on the named
# stack, on every OS").
TARGETS = {
    "wfs next": 10,
    "wfs status": 10,
    "wfs task show": 10,
    "wfs validate": 25,
    "wfs task status ID completed": 20,
    "wfs task add --title T": 20,
}
COLD_VALIDATE_SECONDS = 5.0
ENGINE_TARGET = 1.5  # x the same commands run by bash in sequence
ARCHIVE_TARGET = 1.5  # x the same command with no archive
ARCHIVED_SESSIONS = 300
ARCHIVED_TASKS = 10

# What users run: bytecode cached. (With PYTHONDONTWRITEBYTECODE set, every wfs process
# would compile its modules again, which `python -c pass` never pays.)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


# F: what any command pays to notice a hand edit of any task file.
FLOOR = (
    "import os, sys; fd = os.open(sys.argv[1], os.O_RDONLY); "
    "[os.stat(n, dir_fd=fd) for n in os.listdir(fd)]"
)


# Peak RSS is read by a small Python process that starts the command: a child forked from
# this one (which holds whole sessions) would count this process's pages before its exec.
RSS_PROBE = (
    "import os, sys; quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) "
    "for fd in (1, 2)]; "
    "pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=quiet); "
    "print(os.wait4(pid, 0)[2].ru_maxrss)"
)


def peak_rss(argv: list[str], cwd: Path, runs: int) -> int:
    """The median peak RSS of `argv`, in KiB."""
    samples = [
        int(
            subprocess.run(
                [sys.executable, "-c", RSS_PROBE, *argv],
                cwd=cwd,
                env=ENV,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for _ in range(runs)
    ]
    return int(statistics.median(samples))


def timed(argv: list[str], cwd: Path, shell: bool = False) -> tuple[float, int]:
    """Wall time in seconds and peak RSS in KiB of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv if not shell else ["bash", "-c", argv[0]],
        cwd=cwd,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"benchmark command failed: {argv}")
    return elapsed, usage.ru_maxrss


def median(argv: list[str], cwd: Path, runs: int, shell: bool = False) -> tuple[float, int]:
    timed(argv, cwd, shell)  # warm the page cache
    samples = [timed(argv, cwd, shell) for _ in range(runs)]
    return (statistics.median(s[0] for s in samples), int(statistics.median(s[1] for s in samples)))


def wfs(*args: str) -> list[str]:
    exe = shutil.which("wfs")
    if exe is None:
        raise SystemExit("wfs is not on PATH: activate the project's venv first")
    return [exe, *args]


def engine_task(root: Path) -> None:
    """A session with one task of 200 `bash(true)` steps (engine overhead)."""
    import orjson

    steps = [
        {
            "step": n,
            "title": f"s{n}",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": f"o{n}",
            "command": "bash(true)",
        }
        for n in range(1, 201)
    ]
    plan = root / "engine.json"
    plan.write_bytes(
        orjson.dumps(
            [
                {
                    "id": "IMPL-1",
                    "title": "Engine",
                    "flow_control": {"pre_analysis": [], "implementation_approach": steps},
                }
            ]
        )
    )
    subprocess.run(wfs("--root", str(root), "init", "--no-git"), check=True, capture_output=True)
    subprocess.run(
        wfs("--root", str(root), "plan", "Engine", "--from", str(plan)),
        check=True,
        capture_output=True,
    )


def archive_pair(base: Path) -> tuple[Path, Path]:
    """Two projects in the `active/` layout with the same active session of 100 tasks:
    one alone, one beside ARCHIVED_SESSIONS completed sessions of ARCHIVED_TASKS tasks
    each in `.workflow/archives/` (made by wfs, then copied)."""
    import json

    from make_sessions import session_tasks

    alone, archived = base / "archive-none", base / "archive-300"
    if (archived / ".workflow").exists():
        return alone, archived
    plan = base / "archive-plan.json"
    plan.write_text(json.dumps({"tasks": session_tasks(100)}))
    small = base / "archive-small.json"
    small.write_text(json.dumps({"tasks": session_tasks(ARCHIVED_TASKS)}))
    for root in (alone, archived):
        (root / ".workflow" / "active").mkdir(parents=True)
    run = {"capture_output": True, "check": True}
    subprocess.run(wfs("--root", str(archived), "plan", "Old 1", "--from", str(small)), **run)
    subprocess.run(wfs("--root", str(archived), "session", "complete"), **run)
    archives = archived / ".workflow" / "archives"
    first = archives / "WFS-old-1"
    for n in range(2, ARCHIVED_SESSIONS + 1):
        copy = archives / f"WFS-old-{n}"
        shutil.copytree(first, copy)
        session_file = copy / "workflow-session.json"
        data = json.loads(session_file.read_text())
        data["session_id"] = copy.name
        session_file.write_text(json.dumps(data, indent=2) + "\n")
    for root in (alone, archived):
        subprocess.run(wfs("--root", str(root), "plan", "Bench 100", "--from", str(plan)), **run)
    return alone, archived


def archive_costs(base: Path, runs: int) -> dict[str, tuple[float, float]]:
    """Command -> (median time with no archive, with the archive), taking turns."""
    alone, archived = archive_pair(base)
    commands = {
        "wfs status": wfs("status"),
        "wfs next": wfs("next"),
        "wfs task show": wfs("task", "show", "IMPL-7"),
        "wfs validate": wfs("validate"),
    }
    times: dict[str, tuple[list[float], list[float]]] = {
        name: ([], []) for name in [*commands, *WRITES]
    }
    for root in (alone, archived):
        for argv in commands.values():
            timed(argv, root)
    for n in range(runs + 1):
        for i, root in enumerate((alone, archived)):
            for name, argv in commands.items():
                times[name][i].append(timed(argv, root)[0])
            status = "completed" if n % 2 else "pending"
            flip = timed(wfs("task", "status", "IMPL-1", status), root)[0]
            add = timed(wfs("task", "add", "--title", f"Added {n}"), root)[0]
            if n:
                times["wfs task status ID completed"][i].append(flip)
                times["wfs task add --title T"][i].append(add)
    return {
        name: (statistics.median(a[-runs:]), statistics.median(b[-runs:]))
        for name, (a, b) in times.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--keep", type=Path, help="Reuse/keep the sessions in this folder.")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    base = args.keep or Path(tempfile.mkdtemp(prefix="wfs-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    runs = args.runs
    import compileall

    compileall.compile_dir(str(HERE.parent / "wfs"), quiet=1)

    C, _ = median([sys.executable, "-c", "import click"], base, runs)
    version, _ = median(wfs("--version"), base, runs)
    help_time, _ = median(wfs("--help"), base, runs)

    # Every command takes turns with S and F in each round, so a busy moment of the
    # machine touches a command and its baselines alike.
    baseline = [sys.executable, "-c", "pass"]
    starts: list[float] = []
    rows: dict[int, dict[str, float]] = {}
    readall: dict[int, float] = {}
    floor: dict[int, float] = {}
    cold: dict[int, float] = {}
    for size in sizes:
        root = base / f"s{size}"
        if not (root / ".workflow").exists():
            make_session(root, size)
        sid = f"WFS-bench-{size}"
        task_dir = root / ".workflow" / sid / ".task"
        readall[size] = median([f"cat {task_dir}/*.json > /dev/null"], root, runs, shell=True)[0]
        leaf = "IMPL-1"
        reads = {
            "wfs next": wfs("next"),
            "wfs status": wfs("status"),
            "wfs task show": wfs("task", "show", "IMPL-7"),
            "wfs validate": wfs("validate"),
        }
        for argv in reads.values():
            timed(argv, root)  # warm the page cache and the index
        samples: dict[str, list[float]] = {name: [] for name in [*reads, "F", *WRITES]}
        floor_argv = [sys.executable, "-c", FLOOR, str(task_dir)]
        for _ in range(runs):  # reads first: no write between them (validate is warm)
            starts.append(timed(baseline, root)[0])
            samples["F"].append(timed(floor_argv, root)[0])
            for name, argv in reads.items():
                samples[name].append(timed(argv, root)[0])
        for n in range(runs + 1):
            starts.append(timed(baseline, root)[0])
            samples["F"].append(timed(floor_argv, root)[0])
            # Alternate the status so every run really changes the file and the views.
            status = "completed" if n % 2 else "pending"
            flip = timed(wfs("task", "status", leaf, status), root)[0]
            add = timed(wfs("task", "add", "--title", f"Added {n}"), root)[0]
            if n:  # the first write of each kind records the state writes go from
                samples["wfs task status ID completed"].append(flip)
                samples["wfs task add --title T"].append(add)
        floor[size] = statistics.median(samples.pop("F"))
        rows[size] = {name: statistics.median(times) for name, times in samples.items()}
        # Cold: every derived cache of the project deleted.
        colds = []
        for _ in range(max(3, runs // 2)):
            shutil.rmtree(root / ".workflow" / ".cache", ignore_errors=True)
            colds.append(timed(reads["wfs validate"], root)[0])
        cold[size] = statistics.median(colds)
        for argv in reads.values():
            timed(argv, root)  # the caches again, for the next size's turn
    S = statistics.median(starts)

    engine_root = base / "engine"
    if not (engine_root / ".workflow").exists():
        engine_root.mkdir(parents=True, exist_ok=True)
        engine_task(engine_root)
    # The engine and its baseline take turns, so both see the same machine.
    loop = ["for i in $(seq 200); do bash -c true; done"]
    timed(loop, engine_root, shell=True)
    loops, engine_runs = [], []
    for _ in range(7):
        loops.append(timed(loop, engine_root, shell=True)[0])
        subprocess.run(
            wfs("task", "status", "IMPL-1", "pending"),
            cwd=engine_root,
            capture_output=True,
            check=True,
        )
        shutil.rmtree(engine_root / ".workflow/WFS-engine/.runs", ignore_errors=True)
        engine_runs.append(timed(wfs("execute", "IMPL-1"), engine_root)[0])
    bash_loop = statistics.median(loops)
    engine = statistics.median(engine_runs)

    archive = archive_costs(base, runs)
    biggest = max(sizes)
    status_rss = peak_rss(wfs("status"), base / f"s{biggest}", runs)
    version_rss = peak_rss(wfs("--version"), base, runs)
    lines = [
        "# Benchmark results",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}. Medians of {runs} runs, each command "
        "taking turns with the baselines S and F, measured by `python benchmarks/run.py`.",
        "",
        "Baselines from the same run:",
        "",
        f"- S = `python -c pass`: {S * 1000:.1f} ms",
        f'- C = `python -c "import click"`: {C * 1000:.1f} ms',
        *[
            f"- R({n}) = `cat .task/*.json > /dev/null` over {n} tasks: {readall[n] * 1000:.1f} ms"
            for n in sizes
        ],
        *[
            f"- F({n}) = `python` listing `.task/` and stat-ing each of {n} task files: "
            f"{floor[n] * 1000:.1f} ms ({floor[n] / S:.1f} x S)"
            for n in sizes
        ],
        "",
        f"At {biggest} tasks, F alone is {floor[biggest] / S:.1f} x S: every command that must"
        " notice a hand edit of any task file pays it (wfs checks each file's stamp).",
        "",
        "| command | "
        + " | ".join(f"{n} tasks" for n in sizes)
        + f" | {biggest} tasks vs S | above F, in S | target | met |",
        "|---|" + "---|" * len(sizes) + "---|---|---|---|",
    ]
    for name in rows[sizes[0]]:
        cells = " | ".join(f"{rows[n][name] * 1000:.1f} ms" for n in sizes)
        t = rows[biggest][name]
        target = TARGETS[name]
        lines.append(
            f"| `{name}` | {cells} | {t / S:.1f} x S | {(t - floor[biggest]) / S:.1f} "
            f"| <= {target} x S | {'yes' if t / S <= target else 'no'} |"
        )
    lines += [
        "",
        "| other | time | ratio | target | met |",
        "|---|---|---|---|---|",
        *[
            f"| `wfs validate`, cold (no `.workflow/.cache`), {n} tasks | {cold[n]:.2f} s | "
            f"{cold[n] / S:.0f} x S | <= {COLD_VALIDATE_SECONDS:g} s | "
            f"{'yes' if cold[n] <= COLD_VALIDATE_SECONDS else 'no'} |"
            for n in sizes
        ],
        f"| `wfs --version` | {version * 1000:.1f} ms | {version / C:.2f} x C | - | - |",
        f"| `wfs --help` | {help_time * 1000:.1f} ms | {help_time / C:.2f} x C | - | - |",
        f"| engine: 1 task of 200 `bash(true)` steps | {engine * 1000:.0f} ms | "
        f"{engine / bash_loop:.2f} x 200 sequential `bash -c true` ({bash_loop * 1000:.0f} ms)"
        f" | <= {ENGINE_TARGET:g} x | {'yes' if engine / bash_loop <= ENGINE_TARGET else 'no'} |",
        f"| peak RSS of `wfs status`, {biggest} tasks | {status_rss / 1024:.1f} MiB | "
        f"{status_rss / version_rss:.2f} x `wfs --version` ({version_rss / 1024:.1f} MiB)"
        " | - | - |",
        "",
        f"Archived sessions cost nothing: an active session of 100 tasks in the `active/`"
        f" layout, alone and beside {ARCHIVED_SESSIONS} archived sessions of"
        f" {ARCHIVED_TASKS} tasks each (medians of {runs} runs, taking turns):",
        "",
        "| command | no archive | with the archive | ratio | target | met |",
        "|---|---|---|---|---|---|",
        *[
            f"| `{name}` | {a * 1000:.1f} ms | {b * 1000:.1f} ms | {b / a:.2f} x | "
            f"<= {ARCHIVE_TARGET:g} x | {'yes' if b / a <= ARCHIVE_TARGET else 'no'} |"
            for name, (a, b) in archive.items()
        ],
    ]
    if 1000 in rows and 10000 in rows:
        lines += ["", "Scaling from 1,000 to 10,000 tasks (10 x the tasks):", ""]
        for name in rows[1000]:
            a, b = rows[1000][name], rows[10000][name]
            lines.append(
                f"- `{name}`: {b / a:.2f} x the time "
                f"({(b - S) / max(a - S, 1e-9):.2f} x above start-up)"
            )
    lines += [
        "",
        "Where a target is marked no, [README.md](README.md#budgets-missed-and-why) says by"
        " how much and why.",
    ]
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
