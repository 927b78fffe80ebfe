"""`wfs execute --all --jobs N`: up to N of a session's tasks at once, each in its worktree.

Each task runs in a wfs process of its own (`wfs execute ID --json` with its worktree,
wfs.flow.worktrees), so that each has its own claim, its own signal handling and its
own step processes, exactly as one task run alone; this process only schedules them
(wfs.flow.schedule: a task starts as soon as its last dependency completes, the one on
the longest remaining path first) and passes on what they report, each event with its
task's id. A task whose run was interrupted (Ctrl-C) in its worktree, or left active
by a run that was killed, is resumed first, in its worktree.

On a stop signal, no task starts any more, and the signal is passed on to each running
task's process, which stops its step and leaves the task resumable.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from wfs import jsonio, leases, platform
from wfs.claims import claim_alive
from wfs.errors import WfsError
from wfs.flow import signals
from wfs.flow.engine import RUNS_DIR
from wfs.flow.schedule import Plan, leaf_graph
from wfs.flow.session_run import Execution, conclude, refuse_finished
from wfs.flow.worktrees import from_record, session_branch
from wfs.index import load_skeletons
from wfs.tasks import TaskIndex, obj, read_task

TICK_SECONDS = 0.2  # how often the display hears that time went by
INTERRUPTED = "interrupted ("  # how a paused_reason of an interrupted run starts
SPARES = 4  # wfs processes started ahead, waiting for a task to become ready
# Tasks being started at once (claimed, given a worktree: work for the processor, not
# waiting): starting more than the machine has cores makes none of them start sooner,
# and the first of them, the one on the longest path, later.
STARTING = max(2, os.cpu_count() or 1)

# How this process starts a wfs process that runs one task: its argv. The process
# loads wfs, then reads its task from stdin (one JSON line: task, resume, base), so
# that it can be started before the task is ready (see Child).
ChildCommand = Callable[[], list[str]]


class Child:
    """The wfs process running one task, and what it reported.

    It is started before its task is known (a spare): loading wfs is most of what a
    task's own process costs, and a spare has done it by the time a task becomes ready.
    `give` hands it its task; `dismiss` lets a spare that got none end without
    running anything."""

    def __init__(self, argv: list[str], cwd: Path, came: queue.Queue[Any]) -> None:
        self.tid: str | None = None
        # It runs its task as `wfs execute ID` would, claim and steps included: if this
        # process dies, it finishes its task (or is stopped like any run), and its git
        # commands are never cut short.
        self.group = platform.Group(argv, cwd, dict(os.environ), stdin=True, watched=False)
        self.group.pumped = True  # its pipes are read (and closed) by the threads below
        self.result: dict[str, Any] | None = None
        self.errors: list[str] = []
        self.signalled = False
        self.freed = False  # its task ended (it may still be tidying up)
        self.settled = False  # its task's first step started (or its task ended)
        self.closed = 0  # how many of its two output pipes have closed
        out, err = self.group.process.stdout, self.group.process.stderr
        threading.Thread(target=self.read_events, args=(out, came), daemon=True).start()
        threading.Thread(target=self.read_errors, args=(err, came), daemon=True).start()

    def give(self, tid: str, resume: bool, base: str) -> None:
        self.tid = tid
        self.tell({"task": tid, "resume": resume, "base": base})

    def dismiss(self) -> None:
        if self.tid is None:
            self.freed = True
            self.tell(None)

    def tell(self, order: dict[str, Any] | None) -> None:
        pipe = self.group.process.stdin
        if pipe is None or pipe.closed:
            return
        try:
            if order is not None:
                pipe.write(jsonio.compact(order) + b"\n")
            pipe.close()
        except OSError:  # it ended already: what it said on stderr tells why
            pass

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


def resumable(runner: Any, index: TaskIndex) -> list[str]:
    """The stopped tasks a new `--all --jobs N` continues, each where it ran:

    - a task a Ctrl-C stopped in its worktree (active, not claimed, paused by an
      interruption, with a worktree);
    - a task left active by a run that was killed (claimed by a process of this machine
      that no longer runs), with a worktree, or with no step done yet (it was killed
      before it had one: it starts in a new worktree).

    A task stopped in the main worktree with steps done is left to `--resume ID`."""
    found = []
    for tid in index.leaves():
        if index.by_id[tid].get("status") != "active":
            continue
        execution = obj(read_task(runner.layout, runner.sid, tid), "execution")
        owner = execution.get("claimed_by")
        if owner:
            if not isinstance(owner, str) or claim_alive(owner):
                continue
        elif not str(execution.get("paused_reason") or "").startswith(INTERRUPTED):
            continue
        try:
            record = runner.load_record(tid)
        except WfsError:
            continue  # `--resume ID` says what is wrong with it
        if from_record(record.get("worktree")) is not None:
            found.append(tid)
        elif owner and not record.get("steps") and "landing" not in record:
            found.append(tid)
    return found


def known_costs(runner: Any, tids: Iterable[str]) -> dict[str, float] | None:
    """What each task is expected to take, in seconds, for the order of start: the
    time its steps took in its last run (its run record), and for a task never run,
    the mean of those known; None when no task's time is known (each task then
    counts 1)."""
    folder = runner.session_dir / RUNS_DIR
    try:
        present = {name[: -len(".json")] for name in os.listdir(folder) if name.endswith(".json")}
    except OSError:
        return None
    known: dict[str, float] = {}
    for tid in tids:
        if tid not in present:
            continue
        try:
            steps = runner.load_record(tid).get("steps")
        except WfsError:
            continue
        took = [
            float(s["elapsed"])
            for s in steps.values()
            if isinstance(s, dict) and isinstance(s.get("elapsed"), (int, float))
        ]
        if took:
            known[tid] = sum(took)
    if not known:
        return None
    mean = sum(known.values()) / len(known)
    return {tid: known.get(tid, mean) for tid in tids}


def stopped_result(runner: Any, tid: str, why: str) -> dict[str, Any]:
    """The result of a task whose process stopped before it said how the task went:
    blocked, when it blocked the task first (its worktree could not be made), with the
    task's reason and the way on; else not run, with `why`."""
    try:
        task = read_task(runner.layout, runner.sid, tid)
    except WfsError:
        task = {}
    if task.get("status") != "blocked":
        return {"task": tid, "status": "not run", "reason": why}
    reason = obj(task, "execution").get("blocked_reason")
    return {
        "task": tid,
        "status": "blocked",
        "reason": reason if isinstance(reason, str) and reason else why,
        "resume": runner.resume_argv(tid),
    }


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
    base = session_branch(layout)  # refused before anything starts when there is no branch
    results: list[dict[str, Any]] = []
    came: queue.Queue[Any] = queue.Queue()
    children: list[Child] = []  # every process started and not yet ended, spares too
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
        again = [tid for tid in resumable(runner, index) if tid not in tried]
        return Plan(graph, done, waiting, known_costs(runner, sorted(waiting))), again

    def busy() -> int:
        return sum(1 for c in children if c.tid is not None and not c.freed)

    def starting() -> int:
        """How many tasks are being started (claimed, given their worktree)."""
        return sum(1 for c in children if c.tid is not None and not c.settled)

    def room() -> bool:
        return busy() < jobs and starting() < STARTING

    def start(tid: str, resume: bool) -> None:
        tried.add(tid)
        spare = next((c for c in children if c.tid is None and not c.freed), None)
        if spare is None:
            spare = Child(child_command(), layout.root, came)
            children.append(spare)
        spare.give(tid, resume, base)

    def spares(wanted: int) -> None:
        """Keep `wanted` spare processes started (no more), dismissing the rest. While
        a task is starting and a spare waits, the others start after it (not on the
        cores that the task's start needs)."""
        idle = [c for c in children if c.tid is None and not c.freed]
        for child in idle[wanted:]:
            child.dismiss()
        if idle and starting():
            return
        for _ in range(wanted - len(idle)):
            children.append(Child(child_command(), layout.root, came))

    def ended(child: Child) -> None:
        code = child.group.wait()
        children.remove(child)
        if child.tid is None:  # a spare that got no task
            return
        result = child.result
        if result is None:  # it stopped before it could say how the task went
            why = child.errors[-1] if child.errors else f"exit code {code}"
            result = stopped_result(runner, child.tid, why.removeprefix("wfs: error: "))
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
            child.settled = True
            progress("start", event)
        elif kind == "output":
            progress("output", event)
        elif kind == "step_finished":
            progress("step", event)
        elif kind in ("check", "fix"):
            progress(kind, event)
        elif kind == "task_finished" and child.tid is not None and event.get("task") == child.tid:
            # Its task is over (merged, when completed): what waits on it may start
            # while its process tidies up (its worktree removed, its branch deleted).
            child.freed = child.settled = True
            if event.get("status") == "completed":
                plan.completed(child.tid)

    plan, again = scan()
    try:
        with signals.handled(), platform.steady_environment():
            while True:
                signum = signals.pending()
                if signum is None:
                    for tid in again:
                        if room() and tid not in tried:
                            start(tid, True)
                    for tid in plan.ready():
                        if not room():
                            break
                        plan.started(tid)
                        start(tid, False)
                    left = len(plan.waiting) + sum(1 for tid in again if tid not in tried)
                    spares(min(SPARES, left, jobs))
                else:
                    spares(0)
                    for child in children:
                        if child.tid is not None and not child.signalled:
                            child.signalled = True
                            child.group.interrupt(signum)
                if not any(c.tid is not None for c in children):
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
                child.closed += 1
                if child.closed == 2:  # both pipes: the process is ending
                    ended(child)
            signum = signals.pending()
    finally:
        for child in children:  # spares (and, after an error here, any other)
            child.dismiss()
            if child.tid is None:
                child.group.wait()
    if signum is None:
        clear_stale_claims(runner)
    return conclude(runner, results, signum)


def clear_stale_claims(runner: Any) -> None:
    """Give back what killed runs left claimed on tasks completed since (here, or in
    another clone: a claims remote keeps their claims until then); a store out of
    reach is left for the next run."""
    index = TaskIndex(load_skeletons(runner.layout, runner.sid))
    done = {tid for tid in index.leaves() if index.effective_status(tid) == "completed"}
    try:
        leases.clear_stale(runner.claims, runner.sid, done)
    except WfsError:
        pass
