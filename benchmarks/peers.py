"""Time wfs beside two peers on the same tasks and write benchmarks/PEERS.md.

The peers are task-master-ai and Backlog.md, installed from npm at pinned versions into a
cache folder outside the repository. Only their non-AI commands run (the machine needs to
reach the npm registry for the install, nothing else). For every size the same tasks
(`make_sessions.session_tasks`) are written in each tool's own on-disk format; each command
is checked once (exit status, output, effect on the files) before it is timed.

Every figure is a median of whole processes measured in the same run, the tools taking
turns; the table gives wfs as a fraction of the best (lowest) peer figure.

    python benchmarks/peers.py [--runs N] [--large-runs N] [--sizes 100,1000,10000]
                               [--cache DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_sessions import make_session, session_tasks  # noqa: E402

# Exact versions, so that every run compares the same programs.
TASKMASTER_VERSION = "0.43.1"
BACKLOG_VERSION = "1.52.0"
# wfs at least 10 x faster than the best peer on every operation on tasks, at 1,000 and
# 10,000 tasks (--version and the memory of list are shown, not judged).
GOAL = 0.1
JUDGED_SIZES = (1000, 10000)
NOT_JUDGED = ("--version", "peak RSS of list")
TIMEOUT = 600.0
TOOLS = ("wfs", "task-master", "Backlog.md")
PEERS = TOOLS[1:]
ADD_TITLE = "Benchmark task"
ADD_TEXT = "Added by the benchmark"
CREATED = "2025-01-01T00:00:00.000Z"
WFS_TO_TM = {"completed": "done", "pending": "pending"}
WFS_TO_BACKLOG = {"completed": "Done", "pending": "To Do"}


# --- the same tasks in each peer's format -------------------------------------------------


def main_number(tid: str) -> int:
    """IMPL-12 -> 12, IMPL-12.3 -> 12."""
    return int(tid.removeprefix("IMPL-").split(".")[0])


def sub_number(tid: str) -> int:
    """IMPL-12.3 -> 3."""
    return int(tid.rsplit(".", 1)[1])


def peer_id(tid: str) -> str:
    """The id a peer gives the same task: IMPL-12 -> 12, IMPL-12.3 -> 12.3."""
    return tid.removeprefix("IMPL-")


def leaf_statuses(tasks: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Every task's status, a container's being completed once all its subtasks are."""
    status = {t["id"]: t["status"] for t in tasks}
    subs: dict[str, list[str]] = {}
    for t in tasks:
        if "parent" in t["context"]:
            subs.setdefault(t["context"]["parent"], []).append(t["status"])
    for tid, found in subs.items():
        status[tid] = "completed" if all(s == "completed" for s in found) else "pending"
    return status


def steps_text(task: dict[str, Any]) -> list[str]:
    return [
        f"{s['step']}. {s['title']}: {s['description']}"
        for s in task["flow_control"]["implementation_approach"]
    ]


def taskmaster_tasks(tasks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """`.taskmaster/tasks/tasks.json`: the tagged format, subtasks inside their parent."""
    status = leaf_statuses(tasks)
    mains: list[dict[str, Any]] = []
    for t in tasks:
        entry: dict[str, Any] = {
            "id": main_number(t["id"]),
            "title": t["title"],
            "description": "; ".join(t["context"]["requirements"]),
            "details": "\n".join(steps_text(t)),
            "testStrategy": "; ".join(t["context"]["acceptance"]),
            "status": WFS_TO_TM[status[t["id"]]],
            "dependencies": [main_number(d) for d in t["context"]["depends_on"]],
            "priority": "medium",
        }
        if "." in t["id"]:
            entry["id"] = sub_number(t["id"])
            del entry["priority"], entry["testStrategy"]
            entry["parentTaskId"] = main_number(t["id"])
            mains[-1]["subtasks"].append(entry)
        else:
            entry["subtasks"] = []
            mains.append(entry)
    return {
        "master": {
            "tasks": mains,
            "metadata": {
                "created": CREATED,
                "updated": CREATED,
                "description": "Tasks for master context",
            },
        }
    }


TASKMASTER_CONFIG: dict[str, Any] = {
    # What `task-master init -y` writes, with anonymous telemetry off.
    "models": {
        "main": {
            "provider": "anthropic",
            "modelId": "claude-sonnet-4-20250514",
            "maxTokens": 64000,
            "temperature": 0.2,
        },
        "research": {
            "provider": "perplexity",
            "modelId": "sonar",
            "maxTokens": 8700,
            "temperature": 0.1,
        },
        "fallback": {
            "provider": "anthropic",
            "modelId": "claude-3-7-sonnet-20250219",
            "maxTokens": 120000,
            "temperature": 0.2,
        },
    },
    "global": {
        "logLevel": "info",
        "debug": False,
        "defaultNumTasks": 10,
        "defaultSubtasks": 5,
        "defaultPriority": "medium",
        "projectName": "Task Master",
        "responseLanguage": "English",
        "enableCodebaseAnalysis": False,
        "enableProxy": False,
        "anonymousTelemetry": False,
    },
}


def write_taskmaster(root: Path, tasks: Sequence[dict[str, Any]]) -> None:
    tm = root / ".taskmaster"
    (tm / "tasks").mkdir(parents=True, exist_ok=True)
    (tm / "config.json").write_text(json.dumps(TASKMASTER_CONFIG, indent=2) + "\n")
    (tm / "state.json").write_text(
        json.dumps(
            {
                "currentTag": "master",
                "lastSwitched": CREATED,
                "branchTagMapping": {},
                "migrationNoticeShown": True,
            },
            indent=2,
        )
        + "\n"
    )
    (tm / "tasks" / "tasks.json").write_text(json.dumps(taskmaster_tasks(tasks), indent=2) + "\n")


BACKLOG_CONFIG = """\
project_name: "Bench"
default_status: "To Do"
statuses: ["To Do", "In Progress", "Done"]
labels: []
date_format: yyyy-mm-dd
max_column_width: 20
auto_open_browser: false
default_port: 6420
remote_operations: false
auto_commit: false
filesystem_only: false
bypass_git_hooks: false
check_active_branches: false
active_branch_days: 30
task_prefix: "task"
"""


def yaml_str(text: str) -> str:
    """A YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


def backlog_filename(task_id: str, title: str) -> str:
    """`task-12 - Feature-12-user-facing-change.md`, as Backlog.md names its files."""
    name = re.sub(r'[<>:"/\\|?*]', "-", title)
    name = re.sub(r"['(),!@#$%^&+=\[\]{};]", "", name)
    name = re.sub(r"-+", "-", re.sub(r"\s+", "-", name)).strip("-") or "untitled"
    return f"{task_id.lower()} - {name}.md"


def backlog_task(task: dict[str, Any], status: str, ordinal: int) -> tuple[str, str]:
    """File name and Markdown (YAML front matter, then sections) of one Backlog.md task."""
    tid = f"TASK-{peer_id(task['id'])}"
    deps = [f"TASK-{peer_id(d)}" for d in task["context"]["depends_on"]]
    front = [
        "---",
        f"id: {tid}",
        f"title: {yaml_str(task['title'])}",
        f"status: {WFS_TO_BACKLOG[status]}",
        "assignee: []",
        "created_date: '2025-01-01 00:00'",
        "labels: []",
        "dependencies:" + ("".join(f"\n  - {d}" for d in deps) if deps else " []"),
    ]
    if "." in task["id"]:
        front.append(f"parent_task_id: TASK-{main_number(task['id'])}")
    front += [f"ordinal: {ordinal}", "---"]
    criteria = "\n".join(f"- [ ] #{n} {a}" for n, a in enumerate(task["context"]["acceptance"], 1))
    body = [
        "",
        "## Description",
        "",
        "<!-- SECTION:DESCRIPTION:BEGIN -->",
        "; ".join(task["context"]["requirements"]),
        "<!-- SECTION:DESCRIPTION:END -->",
        "",
        "## Acceptance Criteria",
        "<!-- AC:BEGIN -->",
        criteria,
        "<!-- AC:END -->",
        "",
        "## Implementation Plan",
        "",
        "<!-- SECTION:PLAN:BEGIN -->",
        *steps_text(task),
        "<!-- SECTION:PLAN:END -->",
    ]
    return backlog_filename(tid, task["title"]), "\n".join(front + body) + "\n"


def write_backlog(root: Path, tasks: Sequence[dict[str, Any]]) -> None:
    folder = root / "backlog" / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    (root / "backlog" / "config.yml").write_text(BACKLOG_CONFIG)
    status = leaf_statuses(tasks)
    for n, task in enumerate(tasks, 1):
        name, text = backlog_task(task, status[task["id"]], n * 1000)
        (folder / name).write_text(text)


# --- installing the peers -----------------------------------------------------------------


def install_peers(cache: Path) -> dict[str, list[str]]:
    """Install the pinned packages into `cache` (once); the argv prefix of each peer."""
    prefix = cache / f"task-master-ai-{TASKMASTER_VERSION}_backlog.md-{BACKLOG_VERSION}"
    modules = prefix / "node_modules"
    taskmaster = modules / ".bin" / "task-master"
    # The npm package `backlog.md` is a Node launcher for a native binary in a package per
    # platform; run that binary directly, as the launcher would, without Node's start-up.
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower()
    )
    system = {"win32": "windows"}.get(sys.platform, sys.platform)
    backlog = modules / f"backlog.md-{system}-{machine}" / "backlog"
    if not (taskmaster.exists() and backlog.exists()):
        if shutil.which("npm") is None:
            raise SystemExit("npm is not on PATH: install Node.js 20 or later")
        prefix.mkdir(parents=True, exist_ok=True)
        print(f"installing the peers into {prefix} ...", file=sys.stderr)
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(prefix),
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                f"task-master-ai@{TASKMASTER_VERSION}",
                f"backlog.md@{BACKLOG_VERSION}",
            ],
            check=True,
            stdout=sys.stderr,
        )
    if not backlog.exists():
        raise SystemExit(f"no Backlog.md binary for this platform at {backlog}")
    return {"task-master": [str(taskmaster)], "Backlog.md": [str(backlog)]}


def tool_env(home: Path) -> dict[str, str]:
    """No colour, no update checks, no banners, and a HOME of our own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORCE_COLOR", "WFS_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        NO_COLOR="1",
        TERM="dumb",
        TASKMASTER_SKIP_AUTO_UPDATE="1",
        TM_HIDE_BANNER="true",
        TASK_MASTER_NO_COLOR="true",
        TASKMASTER_LOG_LEVEL="error",
    )
    return env


# --- running and timing -------------------------------------------------------------------


@dataclass
class Outcome:
    seconds: float
    code: int
    out: str = ""
    timed_out: bool = False


def run(argv: Sequence[str], cwd: Path, env: dict[str, str], capture: bool = False) -> Outcome:
    """One whole process: wall time, exit status, and its output when `capture`."""
    sink = tempfile.TemporaryFile() if capture else None
    started = time.perf_counter()
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=sink if sink is not None else subprocess.DEVNULL,
        stderr=subprocess.STDOUT if capture else subprocess.DEVNULL,
    )
    killer = threading.Timer(TIMEOUT, proc.kill)
    killer.start()
    _, status, _ = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    timed_out = not killer.is_alive()
    killer.cancel()
    out = ""
    if sink is not None:
        sink.seek(0)
        out = sink.read().decode("utf-8", "replace")
        sink.close()
    return Outcome(elapsed, proc.returncode, out, timed_out)


RSS_WRAPPER = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
    " stderr=subprocess.DEVNULL)\n"
    "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
)


def peak_rss(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> int:
    """Peak resident set of one process and its children, in KiB."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "rss"
        if Path("/usr/bin/time").exists():
            wrapped = ["/usr/bin/time", "-f", "%M", "-o", str(report), *argv]
        else:
            # A fresh process per measurement, so that RUSAGE_CHILDREN sees only this one.
            wrapped = [sys.executable, "-c", RSS_WRAPPER, str(report), *argv]
        subprocess.run(
            wrapped,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        return int(report.read_text().split()[-1])


Check = Callable[[Outcome, Path], str | None]
"""Why an outcome is wrong (None: it is right), given the project folder it ran in."""


@dataclass
class Op:
    """One tool's form of an operation."""

    argv: list[str]
    check: Check
    writes: bool = False


@dataclass
class Cell:
    """A median, or why there is none."""

    value: float | None = None
    note: str = ""

    def text(self, unit: str) -> str:
        if self.value is None:
            return self.note
        if unit == "MiB":
            return f"{self.value / 1024:.1f} MiB"
        return f"{self.value * 1000:.1f} ms"


@dataclass
class Row:
    name: str
    unit: str
    cells: dict[str, Cell] = field(default_factory=dict)


def first_problem(outcome: Outcome, expect: Iterable[str]) -> str | None:
    if outcome.timed_out:
        return f"timed out after {TIMEOUT:.0f} s"
    if outcome.code != 0:
        tail = " ".join(outcome.out.split())[-160:]
        return f"exit status {outcome.code}: {tail}"
    for text in expect:
        if text not in outcome.out:
            return f"output lacks {text!r}"
    return None


def expect(*texts: str) -> Check:
    return lambda outcome, _root: first_problem(outcome, texts)


def verdict(op: Op, outcome: Outcome, root: Path) -> str | None:
    """The op's check, a crash of the check (a file gone missing, say) being a failure too."""
    try:
        return op.check(outcome, root)
    except Exception as error:
        return first_problem(outcome, ()) or f"{type(error).__name__}: {error}"


def failure_note(reason: str) -> str:
    return "failed: " + reason.replace("|", "/").replace("\n", " ")


def measure_reads(
    ops: dict[str, Op | None], roots: dict[str, Path], env: dict[str, str], runs: int
) -> dict[str, Cell]:
    """Check each tool's command once, then time the ones that work, tools taking turns."""
    cells: dict[str, Cell] = {}
    live: list[str] = []
    for tool, op in ops.items():
        if op is None:
            cells[tool] = Cell(note="n/a")
            continue
        problem = verdict(op, run(op.argv, roots[tool], env, capture=True), roots[tool])
        if problem:
            cells[tool] = Cell(note=failure_note(problem))
        else:
            live.append(tool)
    samples: dict[str, list[float]] = {tool: [] for tool in live}
    for _ in range(runs):
        for tool in live:
            op = ops[tool]
            assert op is not None
            samples[tool].append(run(op.argv, roots[tool], env).seconds)
    for tool in live:
        cells[tool] = Cell(statistics.median(samples[tool]))
    return cells


def measure_writes(
    first: dict[str, Op | None],
    then: dict[str, Op | None],
    warm: dict[str, list[str]],
    roots: dict[str, Path],
    scratch: Path,
    env: dict[str, str],
    runs: int,
) -> tuple[dict[str, Cell], dict[str, Cell]]:
    """Time two writes on a fresh copy of the project each run, after a read to warm the
    page cache and any index of the tool: the `first` one after the copy, then another
    (`then`, what a tool called in a loop pays). Each one's effect on the files is
    checked every time."""
    cells: tuple[dict[str, Cell], dict[str, Cell]] = ({}, {})
    samples: dict[str, tuple[list[float], list[float]]] = {}
    for tool in first:
        if first[tool] is None or then[tool] is None:
            cells[0][tool] = cells[1][tool] = Cell(note="n/a")
        else:
            samples[tool] = ([], [])
    for _ in range(runs):
        for tool in list(samples):
            copy = scratch / tool
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(roots[tool], copy, symlinks=True)
            run(warm[tool], copy, env)
            for i, op in enumerate((first[tool], then[tool])):
                assert op is not None
                outcome = run(op.argv, copy, env, capture=True)
                problem = verdict(op, outcome, copy)
                if problem:
                    cells[0][tool] = cells[1][tool] = Cell(note=failure_note(problem))
                    del samples[tool]
                    break
                samples[tool][i].append(outcome.seconds)
    for tool, values in samples.items():
        for i in (0, 1):
            cells[i][tool] = Cell(statistics.median(values[i]))
    shutil.rmtree(scratch, ignore_errors=True)
    return cells


def measure_rss(
    ops: dict[str, Op | None],
    roots: dict[str, Path],
    env: dict[str, str],
    runs: int,
    failed: dict[str, Cell],
) -> dict[str, Cell]:
    cells: dict[str, Cell] = {}
    for tool, op in ops.items():
        if op is None or failed[tool].value is None:
            cells[tool] = Cell(note=failed[tool].note or "n/a")
            continue
        values = [peak_rss(op.argv, roots[tool], env) for _ in range(runs)]
        cells[tool] = Cell(float(statistics.median(values)))
    return cells


# --- the checks of what each command did --------------------------------------------------


def wfs_task_file(root: Path, tid: str) -> Path:
    return next(root.glob(f".workflow/WFS-*/.task/{tid}.json"))


def wfs_status_is(tid: str, status: str) -> Check:
    def check(outcome: Outcome, root: Path) -> str | None:
        problem = first_problem(outcome, ())
        if problem:
            return problem
        got = json.loads(wfs_task_file(root, tid).read_text())["status"]
        return None if got == status else f"{tid} is {got!r} afterwards"

    return check


def wfs_added(count: int) -> Check:
    def check(outcome: Outcome, root: Path) -> str | None:
        problem = first_problem(outcome, ())
        if problem:
            return problem
        found = len(list(root.glob(".workflow/WFS-*/.task/*.json")))
        return None if found == count + 1 else f"{found} task files afterwards"

    return check


def tm_tasks(root: Path) -> list[dict[str, Any]]:
    tasks: list[dict[str, Any]] = json.loads(
        (root / ".taskmaster" / "tasks" / "tasks.json").read_text()
    )["master"]["tasks"]
    return tasks


def tm_status_is(number: int, status: str) -> Check:
    def check(outcome: Outcome, root: Path) -> str | None:
        problem = first_problem(outcome, ())
        if problem:
            return problem
        # task-master writes every id back as a string.
        got = next(t["status"] for t in tm_tasks(root) if str(t["id"]) == str(number))
        return None if got == status else f"task {number} is {got!r} afterwards"

    return check


def tm_added(mains: int) -> Check:
    def check(outcome: Outcome, root: Path) -> str | None:
        problem = first_problem(outcome, ())
        if problem:
            return problem
        tasks = tm_tasks(root)
        if len(tasks) != mains + 1 or tasks[-1]["title"] != ADD_TITLE:
            return f"{len(tasks)} tasks afterwards, the last {tasks[-1]['title']!r}"
        return None

    return check


def backlog_front(root: Path, number: str) -> str:
    path = next((root / "backlog" / "tasks").glob(f"task-{number} - *.md"))
    return path.read_text().split("---", 2)[1]


def backlog_status_is(number: str, status: str) -> Check:
    def check(outcome: Outcome, root: Path) -> str | None:
        problem = first_problem(outcome, ())
        if problem:
            return problem
        front = backlog_front(root, number)
        return None if f"\nstatus: {status}\n" in front else f"task-{number} front: {front!r}"

    return check


def backlog_added(count: int) -> Check:
    def check(outcome: Outcome, root: Path) -> str | None:
        problem = first_problem(outcome, ())
        if problem:
            return problem
        found = list((root / "backlog" / "tasks").glob("task-*.md"))
        new = [p for p in found if ADD_TITLE.replace(" ", "-") in p.name]
        return None if len(found) == count + 1 and new else f"{len(found)} task files afterwards"

    return check


# --- one size -----------------------------------------------------------------------------


def measure_size(
    size: int,
    base: Path,
    peers: dict[str, list[str]],
    wfs_exe: str,
    versions: dict[str, str],
    env: dict[str, str],
    runs: int,
) -> list[Row]:
    tasks = session_tasks(size)
    roots = {tool: base / f"s{size}" / tool for tool in TOOLS}
    make_session(roots["wfs"], size)
    write_taskmaster(roots["task-master"], tasks)
    write_backlog(roots["Backlog.md"], tasks)
    mains = sum("." not in t["id"] for t in tasks)

    shown = next(t for t in tasks if t["id"] == "IMPL-7")
    # Pending main tasks without subtasks: their status really changes.
    parents = {t["id"].split(".")[0] for t in tasks if "." in t["id"]}
    first_target, target = [
        t["id"]
        for t in tasks
        if t["status"] == "pending" and "." not in t["id"] and t["id"] not in parents
    ][:2]
    wfs = [wfs_exe]
    tm = peers["task-master"]
    bl = peers["Backlog.md"]
    title = shown["title"]
    rows: list[Row] = []

    reads: dict[str, dict[str, Op | None]] = {
        "list": {
            "wfs": Op([*wfs, "task", "list"], expect(title, tasks[-1]["title"])),
            "task-master": Op([*tm, "list"], expect("Feature 7")),
            "Backlog.md": Op([*bl, "task", "list", "--plain"], expect(title, "TASK-7 ")),
        },
        "show": {
            "wfs": Op([*wfs, "task", "show", "IMPL-7"], expect(title)),
            "task-master": Op([*tm, "show", "7"], expect(title)),
            "Backlog.md": Op([*bl, "task", "7", "--plain"], expect(title)),
        },
        "next": {
            "wfs": Op([*wfs, "next"], expect("IMPL-", "Feature ")),
            "task-master": Op([*tm, "next"], expect("Feature ")),
            "Backlog.md": None,
        },
        "--version": {
            "wfs": Op([*wfs, "--version"], expect(versions["wfs"])),
            "task-master": Op([*tm, "--version"], expect(TASKMASTER_VERSION)),
            "Backlog.md": Op([*bl, "--version"], expect(BACKLOG_VERSION)),
        },
    }
    for name, ops in reads.items():
        print(f"  {size}: {name}", file=sys.stderr)
        rows.append(Row(name, "ms", measure_reads(ops, roots, env, runs)))

    warm = {tool: reads["show"][tool].argv for tool in TOOLS}  # type: ignore[union-attr]

    def set_status(tid: str) -> dict[str, Op | None]:
        n = peer_id(tid)
        return {
            "wfs": Op(
                [*wfs, "task", "status", tid, "completed"],
                wfs_status_is(tid, "completed"),
                writes=True,
            ),
            "task-master": Op(
                [*tm, "set-status", f"--id={n}", "--status=done"],
                tm_status_is(int(n), "done"),
                writes=True,
            ),
            "Backlog.md": Op(
                [*bl, "task", "edit", n, "-s", "Done"],
                backlog_status_is(n, "Done"),
                writes=True,
            ),
        }

    def add(before: int) -> dict[str, Op | None]:
        """`before`: how many tasks the copy holds (main tasks for task-master)."""
        return {
            "wfs": Op(
                [*wfs, "task", "add", "--title", ADD_TITLE, "--requirement", ADD_TEXT],
                wfs_added(len(tasks) + before),
                writes=True,
            ),
            "task-master": Op(
                [*tm, "add-task", "--title", ADD_TITLE, "--description", ADD_TEXT],
                tm_added(mains + before),
                writes=True,
            ),
            "Backlog.md": Op(
                [*bl, "task", "create", ADD_TITLE, "-d", ADD_TEXT, "--plain"],
                backlog_added(len(tasks) + before),
                writes=True,
            ),
        }

    writes = {
        "set status": (set_status(first_target), set_status(target)),
        "add": (add(0), add(1)),
    }
    for name, (first, then) in writes.items():
        print(f"  {size}: {name}", file=sys.stderr)
        cells = measure_writes(first, then, warm, roots, base / "scratch", env, runs)
        rows.append(Row(name, "ms", cells[1]))
        rows.append(Row(f"{name}, first after a copy", "ms", cells[0]))

    print(f"  {size}: peak RSS", file=sys.stderr)
    rss = measure_rss(reads["list"], roots, env, runs, rows[0].cells)
    rows.append(Row("peak RSS of list", "MiB", rss))
    shutil.rmtree(base / f"s{size}", ignore_errors=True)
    return rows


# --- the table ----------------------------------------------------------------------------


def ratio(row: Row) -> float | None:
    """wfs over the best (lowest) peer figure of the row; None without both."""
    mine = row.cells["wfs"].value
    theirs = [row.cells[p].value for p in PEERS if row.cells[p].value is not None]
    if mine is None or not theirs:
        return None
    best = min(v for v in theirs if v is not None)
    return mine / best if best > 0 else None


def judged(size: int, row: Row) -> bool:
    return size in JUDGED_SIZES and row.name not in NOT_JUDGED and ratio(row) is not None


def table(size: int, rows: Sequence[Row]) -> list[str]:
    lines = [
        "| operation | wfs | task-master | Backlog.md | wfs ÷ best peer | goal | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        r = ratio(row)
        cells = " | ".join(row.cells[t].text(row.unit) for t in TOOLS)
        shown = f"{r:.3f}" if r is not None else "-"
        goal, met = "-", "-"
        if judged(size, row) and r is not None:
            goal, met = f"≤ {GOAL}", "yes" if r <= GOAL else "no"
        lines.append(f"| {row.name} | {cells} | {shown} | {goal} | {met} |")
    return lines


def rss_method() -> str:
    if Path("/usr/bin/time").exists():
        return "`/usr/bin/time -f %M`"
    return "`getrusage(RUSAGE_CHILDREN)` in a fresh wrapper process"


def report(
    results: dict[int, tuple[int, list[Row]]],
    versions: dict[str, str],
    baselines: dict[str, float],
    minutes: float,
) -> str:
    """The whole of PEERS.md; `results` maps each size to its runs and rows."""
    runs = sorted({n for n, _ in results.values()}, reverse=True)
    lines = [
        "# wfs beside task-master-ai and Backlog.md",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, Node {versions['node']}. Medians of "
        + " or ".join(str(n) for n in runs)
        + f" runs (per size below); the whole run took {minutes:.0f} min. Written by "
        "`python benchmarks/peers.py`.",
        "",
        f"Versions: wfs {versions['wfs']}, task-master-ai {TASKMASTER_VERSION}, "
        f"Backlog.md {BACKLOG_VERSION}.",
        "",
        "Baselines from the same run: "
        + ", ".join(f"{name} {value * 1000:.1f} ms" for name, value in baselines.items())
        + ".",
        "",
        "Each size holds the same tasks in each tool's own format (every fifth main task "
        "has three subtasks; each task depends on up to two earlier ones; about a third are "
        "done). The operations:",
        "",
        "| operation | wfs | task-master | Backlog.md |",
        "|---|---|---|---|",
        "| list | `wfs task list` | `task-master list` | `backlog task list --plain` |",
        "| show | `wfs task show IMPL-7` | `task-master show 7` | `backlog task 7 --plain` |",
        "| next | `wfs next` | `task-master next` | n/a (no such command) |",
        "| --version | `wfs --version` | `task-master --version` | `backlog --version` |",
        "| set status | `wfs task status IMPL-N completed` | "
        "`task-master set-status --id=N --status=done` | `backlog task edit N -s Done` |",
        f'| add | `wfs task add --title "{ADD_TITLE}" --requirement "…"` | '
        f'`task-master add-task --title "{ADD_TITLE}" --description "…"` | '
        f'`backlog task create "{ADD_TITLE}" -d "…" --plain` |',
        f"| peak RSS of list | each list command under {rss_method()} | | |",
        "",
        *NOTES,
    ]
    for size, (n, rows) in results.items():
        lines += ["", f"## {size:,} tasks (medians of {n} runs)", "", *table(size, rows)]
    lines += [
        "",
        "## Summary",
        "",
        f"The goal: wfs at least {1 / GOAL:.0f} x faster than the best peer on every "
        "operation on tasks at "
        + " and ".join(f"{n:,}" for n in JUDGED_SIZES)
        + " tasks (`--version` and the memory of list are shown, not judged).",
        "",
    ]
    for size, (_, rows) in results.items():
        if size not in JUDGED_SIZES:
            continue
        rated = [row for row in rows if judged(size, row)]
        missed = [row.name for row in rated if (ratio(row) or 0) > GOAL]
        lines.append(
            f"- {size:,} tasks: {len(rated) - len(missed)} of {len(rated)} operations meet"
            " the goal" + (f"; missed: {', '.join(missed)}." if missed else ".")
        )
    return "\n".join(lines) + "\n"


NOTES = [
    "Notes:",
    "",
    "- Whole processes, stdout to /dev/null; each command runs once first, unmeasured, and "
    "its exit status and output are checked (a failure is written in its cell, never "
    "timed). The tools take turns within every run.",
    "- Writes run on a fresh copy of the project each time (the copy is not timed), after "
    "one `show` to warm the page cache and any index: two writes of the same kind, each "
    "timed (another task's status, or a first task added). The row `set status` or `add` "
    "is the second, what a tool called in a loop pays; `…, first after a copy` is the "
    "first, which for wfs is the first write since its index was last saved by a write "
    "(a copy or a clone changes every file's stamp, so that write renders and indexes the "
    "whole session once). Every run's effect on the files is checked (the new status, one "
    "more task).",
    "- HOME is a temporary folder; colour, banners and task-master's update check "
    "(`TASKMASTER_SKIP_AUTO_UPDATE=1`) are off, and so is its anonymous telemetry "
    "(`anonymousTelemetry: false` in `.taskmaster/config.json`). No command uses a model.",
    "- `task-master list` leaves subtasks out (less work than the others); "
    "`task-master add-task` runs in its manual mode (`--title` and `--description`).",
    "- Backlog.md runs as its native binary: the npm package's `backlog` command is a Node "
    "launcher that starts that same binary (the launcher adds Node's start-up). Its "
    "`backlog/config.yml` is what `backlog init --defaults` writes, with the branch checks "
    "off (the project is not a git repository).",
    "- At 10,000 tasks one task-master or Backlog.md call takes several seconds, hence "
    "fewer runs there (`--large-runs`).",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--large-runs",
        type=int,
        default=3,
        help="Runs for sizes of 10,000 tasks and more (default 3: the peers take seconds).",
    )
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "wfs-bench-peers",
        help="Where the peers are installed (default: ~/.cache/wfs-bench-peers).",
    )
    parser.add_argument("--out", type=Path, default=HERE / "PEERS.md")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    wfs_exe = shutil.which("wfs")
    if wfs_exe is None:
        raise SystemExit("wfs is not on PATH: activate the project's venv first")
    peers = install_peers(args.cache.expanduser().resolve())

    started = time.perf_counter()
    base = Path(tempfile.mkdtemp(prefix="wfs-peers-"))
    try:
        home = base / "home"
        home.mkdir()
        env = tool_env(home)
        versions = {
            "wfs": subprocess.run(
                [wfs_exe, "--version"], capture_output=True, text=True, env=env, check=True
            ).stdout.split()[-1],
            "node": subprocess.run(
                ["node", "--version"], capture_output=True, text=True, check=True
            ).stdout.strip(),
        }
        baselines = {
            name: measure_reads({"x": Op(argv, expect())}, {"x": base}, env, args.runs)["x"].value
            or 0.0
            for name, argv in (
                ("`python -c pass`", [sys.executable, "-c", "pass"]),
                ("`node -e 0`", ["node", "-e", "0"]),
            )
        }
        results: dict[int, tuple[int, list[Row]]] = {}
        for size in sizes:
            runs = args.large_runs if size >= 10_000 else args.runs
            results[size] = (
                runs,
                measure_size(size, base, peers, wfs_exe, versions, env, runs),
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    text = report(results, versions, baselines, (time.perf_counter() - started) / 60)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
