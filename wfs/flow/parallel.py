"""`wfs execute --all --jobs N`: up to N of a session's tasks at once, each in its worktree.

Each task runs in a wfs process of its own (`wfs execute ID --json` with its worktree,
wfs.flow.worktrees), so that each has its own claim, its own signal handling and its
own step processes, exactly as one task run alone; this process only schedules them
(wfs.flow.schedule: a task starts as soon as its last dependency completes, the one on
the longest remaining path first) and passes on what they report, each event with its
task's id. A task whose run was interrupted (Ctrl-C) in its worktree is resumed first.

On a stop signal, no task starts any more, and the signal is passed on to each running
task's process, which stops its step and leaves the task resumable.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wfs import jsonio, platform
from wfs.flow import signals
from wfs.flow.schedule import Plan, leaf_graph
from wfs.flow.session_run import Execution, conclude, refuse_finished
from wfs.flow.worktrees import from_record, session_branch
from wfs.index import load_skeletons
from wfs.tasks import TaskIndex, obj, read_task

TICK_SECONDS = 0.2  # how often the display hears that time went by
INTERRUPTED = "interrupted ("  # how a paused_reason of an interrupted run starts

# How this process starts the run of one task: (task id, resume it?) -> argv.
ChildCommand = Callable[[str, bool], list[str]]


class Child:
    """The wfs process running one task, and what it reported."""

    def __init__(self, tid: str, argv: list[str], cwd: Path, came: queue.Queue[Any]) -> None:
        self.tid = tid
        self.group = platform.Group(argv, cwd, dict(os.environ), stdin=False)
        self.group.pumped = True  # its pipes are read (and closed) by the threads below
        self.result: dict[str, Any] | None = None
        self.errors: list[str] = []
        self.signalled = False
        out, err = self.group.process.stdout, self.group.process.stderr
        threading.Thread(target=self.read_events, args=(out, came), daemon=True).start()
        threading.Thread(target=self.read_errors, args=(err, came), daemon=True).start()

    def read_events(self, pipe: Any, came: queue.Queue[Any]) -> None:
        try:
            for line in pipe:
                try:
                    came.put((self, jsonio.loads(line)))
                except ValueError:
                    continue  # not a JSON line: not ours to pass on
        finally:
            pipe.close()
            came.put((self, "stdout closed"))

    def read_errors(self, pipe: Any, came: queue.Queue[Any]) -> None:
        try:
            for line in pipe:
                text = line.decode("utf-8", "replace").rstrip()
                if text:
                    self.errors.append(text)
        finally:
            pipe.close()
            came.put((self, "stderr closed"))


def resumable(layout: Any, sid: str, index: TaskIndex) -> list[str]:
    """The tasks a Ctrl-C stopped in their worktree, which a new `--all --jobs N`
    continues: active, not claimed, paused by an interruption, with a worktree."""
    found = []
    for tid in index.leaves():
        if index.by_id[tid].get("status") != "active":
            continue
        execution = obj(read_task(layout, sid, tid), "execution")
        reason = execution.get("paused_reason")
        if execution.get("claimed_by") or not str(reason or "").startswith(INTERRUPTED):
            continue
        record_path = layout.session_dir(sid) / ".runs" / f"{tid}.json"
        try:
            record = jsonio.loads(record_path.read_bytes())
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and from_record(record.get("worktree")) is not None:
            found.append(tid)
    return found


def run_all(
    runner: Any,
    jobs: int,
    child_command: ChildCommand,
    force: bool = False,
) -> Execution:
    """Run the session's ready tasks, up to `jobs` at once, until none is ready; each
    task's result goes to the runner's progress (`finished`) as it ends."""
    if not force:
        refuse_finished(runner.layout, runner.sid)
    layout, sid, progress = runner.layout, runner.sid, runner.progress
    session_branch(layout)  # refused before anything starts when there is no branch
    results: list[dict[str, Any]] = []
    came: queue.Queue[Any] = queue.Queue()
    running: dict[str, Child] = {}
    tried: set[str] = set()  # started once in this run: never started again

    def scan() -> tuple[Plan, list[str]]:
        index = TaskIndex(load_skeletons(layout, sid))
        graph = leaf_graph(index)
        done = {tid for tid in graph if index.effective_status(tid) == "completed"}
        waiting = {
            tid
            for tid in graph
            if tid not in tried
            and index.by_id[tid].get("status") == "pending"
            and not index.by_id[tid].get("errors")
        }
        again = [tid for tid in resumable(layout, sid, index) if tid not in tried]
        return Plan(graph, done, waiting), again

    def start(tid: str, resume: bool) -> None:
        tried.add(tid)
        running[tid] = Child(tid, child_command(tid, resume), layout.root, came)

    def ended(child: Child) -> None:
        code = child.group.wait()
        del running[child.tid]
        result = child.result
        if result is None:  # it stopped before it could say how the task went
            why = child.errors[-1] if child.errors else f"exit code {code}"
            result = {
                "task": child.tid,
                "status": "not run",
                "reason": why.removeprefix("wfs: error: "),
            }
        results.append(result)
        progress("finished", result)
        if result["status"] == "completed":
            plan.completed(child.tid)
        else:
            plan.dropped(child.tid)

    def passed_on(child: Child, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind is None and isinstance(event.get("tasks"), list):
            if event["tasks"]:
                child.result = event["tasks"][-1]
        elif kind == "step_started":
            progress("start", event)
        elif kind == "output":
            progress("output", event)
        elif kind == "step_finished":
            progress("step", event)

    plan, again = scan()
    closed: dict[str, int] = {}
    with signals.handled(), platform.steady_environment():
        while True:
            signum = signals.pending()
            if signum is None:
                for tid in again:
                    if len(running) < jobs and tid not in tried:
                        start(tid, True)
                for tid in plan.ready():
                    if len(running) >= jobs:
                        break
                    plan.started(tid)
                    start(tid, False)
            else:
                for child in running.values():
                    if not child.signalled:
                        child.signalled = True
                        child.group.interrupt(signum)
            if not running:
                if signum is not None:
                    break
                plan, again = scan()  # tasks added while it ran, or made ready
                if not plan.ready() and not again:
                    break
                continue
            try:
                child, event = came.get(timeout=TICK_SECONDS)
            except queue.Empty:
                progress("tick", {})
                continue
            if isinstance(event, dict):
                passed_on(child, event)
                continue
            closed[child.tid] = closed.get(child.tid, 0) + 1
            if closed[child.tid] == 2:  # both pipes: the process is ending
                del closed[child.tid]
                ended(child)
        signum = signals.pending()
    return conclude(runner, results, signum)
