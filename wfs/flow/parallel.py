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
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from wfs import git, jsonio, leases, platform
from wfs.claims import claim_alive
from wfs.errors import WfsError
from wfs.flow import signals, worktrees
from wfs.flow.engine import Runner
from wfs.flow.record import RUNS_DIR
from wfs.flow.schedule import Plan, leaf_graph
from wfs.flow.session_run import HOLDER_POLL_SECONDS, Execution, conclude, refuse_finished
from wfs.flow.worktrees import from_record, session_branch
from wfs.index import load_skeletons
from wfs.layout import task_sort_key
from wfs.tasks import TaskIndex, obj, read_task

TICK_SECONDS = 0.2  # how often the display hears that time went by
INTERRUPTED = "interrupted ("  # how a paused_reason of an interrupted run starts
# A task whose process was killed is taken over (one found held, waited for) this many
# times in one run at most.
RETRIES = 3
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
        """Its task: it runs it, then removes the task's folder only (`"tidy": false`):
        the fleet has git forget its tasks' worktrees and branches all at once."""
        self.tid = tid
        self.tell({"task": tid, "resume": resume, "base": base, "tidy": False})

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


def resumable(runner: Runner, index: TaskIndex) -> list[str]:
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
            record = runner.records.load(tid)
        except WfsError:
            continue  # `--resume ID` says what is wrong with it
        if from_record(record.get("worktree")) is not None:
            found.append(tid)
        elif owner and not record.get("steps") and "landing" not in record:
            found.append(tid)
    return found


def known_costs(runner: Runner, tids: Iterable[str]) -> dict[str, float] | None:
    """What each task is expected to take, in seconds, for the order of start: the
    time its steps took in its last run (its run record), and for a task never run,
    the mean of those known; None when no task's time is known (each task then
    counts 1)."""
    folder = runner.records.session_dir / RUNS_DIR
    try:
        present = {name[: -len(".json")] for name in os.listdir(folder) if name.endswith(".json")}
    except OSError:
        return None
    known: dict[str, float] = {}
    for tid in tids:
        if tid not in present:
            continue
        try:
            steps = runner.records.load(tid)["steps"]
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


def stopped_result(runner: Any, tid: str, why: str, code: int = 2) -> dict[str, Any]:
    """The result of a task whose process stopped before it said how the task went:
    blocked, when it blocked the task first (its worktree could not be made), with the
    task's reason and the way on; else not run, with `why`: refused when its process
    exited 2 (the task cannot run as written), else failed (`failed`: exit code 1)."""
    try:
        task = read_task(runner.layout, runner.sid, tid)
    except WfsError:
        task = {}
    if task.get("status") != "blocked":
        result: dict[str, Any] = {"task": tid, "status": "not run", "reason": why}
        if code != 2:
            result["failed"] = True
        return result
    reason = obj(task, "execution").get("blocked_reason")
    return {
        "task": tid,
        "status": "blocked",
        "reason": reason if isinstance(reason, str) and reason else why,
        "resume": runner.resume_argv(tid),
    }


def run_all(
    runner: Runner,
    jobs: int,
    child_command: ChildCommand,
    force: bool = False,
) -> Execution:
    """Run the session's ready tasks, up to `jobs` at once, until none is ready; each
    task's result goes to the runner's progress (`finished`) as it ends."""
    if not force:
        refuse_finished(runner.layout, runner.sid)
    fleet = Fleet(runner, jobs, child_command)
    try:
        with signals.handled(), platform.run_of_steps():
            signum = fleet.run()
    finally:
        fleet.close()
        fleet.forget()
    if signum is None:
        clear_stale_claims(runner)
        fleet.commit_state()
    return conclude(runner, fleet.results, signum)


class Fleet:
    """One run of `--all --jobs N`: the wfs processes it started (spares too), which
    task each runs, and the results of the tasks that ended."""

    def __init__(self, runner: Runner, jobs: int, child_command: ChildCommand) -> None:
        self.runner = runner
        self.jobs = jobs
        self.child_command = child_command
        self.layout, self.sid, self.progress = runner.layout, runner.sid, runner.progress
        # Refused before anything starts when there is no branch.
        self.base = session_branch(self.layout)
        self.results: list[dict[str, Any]] = []
        self.came: queue.Queue[Any] = queue.Queue()
        self.children: list[Child] = []  # every process started and not yet ended
        self.tried: set[str] = set()  # started once in this run: never started again
        # Held by a live run elsewhere when their process came to them: started again
        # once that run has ended (done there: passed over; gone: taken over).
        self.held: set[str] = set()
        self.killed: dict[str, int] = {}  # tasks whose process was killed: how often
        self.waits: dict[str, int] = {}  # tasks found held by another run: how often
        self.looked = 0.0  # when the holders of `held` were last looked up
        self.plan, self.again = self.scan()

    def scan(self) -> tuple[Plan, list[str]]:
        """The plan of the tasks left to start, and the stopped tasks to resume."""
        index = TaskIndex(load_skeletons(self.layout, self.sid))
        graph = leaf_graph(index)
        done = {tid for tid in graph if index.effective_status(tid) == "completed"}
        waiting = {
            tid
            for tid in graph
            if tid not in self.tried
            and index.by_id[tid].get("status") == "pending"
            and not index.by_id[tid].get("errors")
        }
        again = [tid for tid in resumable(self.runner, index) if tid not in self.tried]
        costs = known_costs(self.runner, sorted(waiting))
        return Plan(graph, done, waiting, costs), again

    # ------------------------------------------------------------ the loop

    def run(self) -> int | None:
        """Start tasks as they become ready and room allows, pass on what they report,
        until none is left to start and none runs; the signal that stopped the run, if
        any (each running task is then stopped in turn)."""
        while True:
            signum = signals.pending()
            if signum is None:
                self.start_ready()
            else:
                self.interrupt(signum)
            if not any(c.tid is not None for c in self.children):
                if signum is not None:
                    break
                self.plan, self.again = self.scan()  # tasks added while it ran, or made ready
                if not self.plan.ready() and not self.again:
                    if not self.held:
                        break
                    time.sleep(HOLDER_POLL_SECONDS)  # nothing else to do: wait for them
                    self.look_at_holders(force=True)
                continue
            self.hear()
            self.look_at_holders()
        return signals.pending()

    def look_at_holders(self, force: bool = False) -> None:
        """The tasks of `held` whose holder has ended may start again (at most every
        HOLDER_POLL_SECONDS, unless `force`)."""
        if not self.held or (not force and time.monotonic() - self.looked < HOLDER_POLL_SECONDS):
            return
        self.looked = time.monotonic()
        try:
            holders = self.runner.claimer.claims.holders(self.sid)
        except WfsError:
            return  # a remote out of reach: looked at again later
        live = {h.task for h in holders if not leases.free(h)}
        for tid in self.held - live:
            self.held.discard(tid)
            self.tried.discard(tid)

    def start_ready(self) -> None:
        """Start the tasks to resume, then the ready ones, while there is room; keep
        spares started for those that wait."""
        for tid in self.again:
            if self.room() and tid not in self.tried:
                self.start(tid, True)
        for tid in self.plan.ready():
            if not self.room():
                break
            self.plan.started(tid)
            self.start(tid, False)
        left = len(self.plan.waiting) + sum(1 for tid in self.again if tid not in self.tried)
        self.spares(min(SPARES, left, self.jobs))

    def interrupt(self, signum: int) -> None:
        """A stop signal: no task starts any more, and each running one is told."""
        self.spares(0)
        for child in self.children:
            if child.tid is not None and not child.signalled:
                child.signalled = True
                child.group.interrupt(signum)

    def hear(self) -> None:
        """Wait for the next thing a process reports (at most a tick), and act on it."""
        try:
            child, event = self.came.get(timeout=TICK_SECONDS)
        except queue.Empty:
            self.progress("tick", {})
            return
        if isinstance(event, dict):
            self.passed_on(child, event)
            return
        child.closed += 1
        if child.closed == 2:  # both pipes: the process is ending
            self.ended(child)

    def close(self) -> None:
        """Let the spares go (and, after an error here, any other process)."""
        for child in self.children:
            child.dismiss()
            if child.tid is None:
                child.group.wait()

    def commit_state(self) -> None:
        """Without a claims remote: once its tasks have ended, the session's folder as
        the run leaves it (each task's state and summary, the progress fields and the
        views) is committed on the session's branch, after the merges of their work, so
        the run ends with a clean tree. With a claims remote, each task's state went
        with its work already."""
        ended = [r["task"] for r in self.results if r.get("status") != "done elsewhere"]
        if not ended or self.runner.claimer.travels is not None:
            return
        if git.checked_out(self.layout.root) != self.base:
            return  # the main worktree moved to another branch meanwhile: left to the user
        names = ", ".join(sorted(ended, key=task_sort_key))
        worktrees.commit_session(self.layout, self.sid, f"wfs session {self.sid}: {names} ended")

    def forget(self) -> None:
        """The worktrees of the tasks it completed, whose folders their processes
        removed: git forgets them and deletes their branches, for all at once."""
        done = [r["task"] for r in self.results if r.get("status") == "completed"]
        worktrees.forget(self.layout, [worktrees.task_branch(self.sid, tid) for tid in done])

    # ------------------------------------------------------------ the processes

    def busy(self) -> int:
        return sum(1 for c in self.children if c.tid is not None and not c.freed)

    def starting(self) -> int:
        """How many tasks are being started (claimed, given their worktree)."""
        return sum(1 for c in self.children if c.tid is not None and not c.settled)

    def room(self) -> bool:
        return self.busy() < self.jobs and self.starting() < STARTING

    def start(self, tid: str, resume: bool) -> None:
        self.tried.add(tid)
        spare = next((c for c in self.children if c.tid is None and not c.freed), None)
        if spare is None:
            spare = Child(self.child_command(), self.layout.root, self.came)
            self.children.append(spare)
        spare.give(tid, resume, self.base)

    def spares(self, wanted: int) -> None:
        """Keep `wanted` spare processes started (no more), dismissing the rest. While
        a task is starting and a spare waits, the others start after it (not on the
        cores that the task's start needs)."""
        idle = [c for c in self.children if c.tid is None and not c.freed]
        for child in idle[wanted:]:
            child.dismiss()
        if idle and self.starting():
            return
        for _ in range(wanted - len(idle)):
            self.children.append(Child(self.child_command(), self.layout.root, self.came))

    def ended(self, child: Child) -> None:
        code = child.group.wait()
        self.children.remove(child)
        if child.tid is None:  # a spare that got no task
            return
        result = child.result
        if result is None and code < 0 and self.killed.get(child.tid, 0) < RETRIES:
            # Its process was killed: the task is taken over (resumed where it ran).
            self.killed[child.tid] = self.killed.get(child.tid, 0) + 1
            self.tried.discard(child.tid)
            self.plan.dropped(child.tid)
            return
        if result is None:  # it stopped before it could say how the task went
            why = child.errors[-1] if child.errors else f"exit code {code}"
            why = why.removeprefix("wfs: error: ")
            result = stopped_result(self.runner, child.tid, why, code)
        if result.get("wait") and self.waits.get(child.tid, 0) < RETRIES:
            # Another live run has it: waited for, then taken again (not a result).
            self.waits[child.tid] = self.waits.get(child.tid, 0) + 1
            self.held.add(child.tid)
            self.plan.dropped(child.tid)
            return
        self.results.append(result)
        self.progress("finished", result)
        if result["status"] == "completed":
            self.plan.completed(child.tid)
        else:
            self.plan.dropped(child.tid)

    def passed_on(self, child: Child, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind is None and isinstance(event.get("tasks"), list):
            if event["tasks"]:
                child.result = event["tasks"][-1]
        elif kind == "step_started":
            child.settled = True
            self.progress("start", event)
        elif kind == "output":
            self.progress("output", event)
        elif kind == "step_finished":
            self.progress("step", event)
        elif kind in ("check", "fix"):
            self.progress(kind, event)
        elif kind == "task_finished" and child.tid is not None and event.get("task") == child.tid:
            # Its task is over (merged, when completed): what waits on it may start
            # while its process tidies up (its worktree removed, its branch deleted).
            child.freed = child.settled = True
            if event.get("status") == "completed":
                self.plan.completed(child.tid)


def clear_stale_claims(runner: Runner) -> None:
    """Give back what killed runs left claimed on tasks completed since (here, or in
    another clone: a claims remote keeps their claims until then); a store out of
    reach is left for the next run."""
    index = TaskIndex(load_skeletons(runner.layout, runner.sid))
    done = {tid for tid in index.leaves() if index.effective_status(tid) == "completed"}
    try:
        leases.clear_stale(runner.claimer.claims, runner.sid, done)
    except WfsError:
        pass
