"""`wfs log ID [--follow]`: a task's run as events, from its run record and output log.

The events are the ones `wfs execute --json` prints while it runs (wfs/flow/watch.py
writes them to the task's output log as they come):

    {"event": "task", "task", "title", "status", "running", "steps": [{"step", "name", "status"}]}
    {"event": "step_started", "task", "step", "name", "started_at"}
    {"event": "output", "task", "step", "stream", "text"}        (one line)
    {"event": "output_cut", "task", "step"}     (the log kept no more; the record has it all)
    {"event": "step_finished", "task", "step", "name", "outcome", "elapsed"}
    {"event": "step_running", "task", "step", "name", "elapsed"}  (without --follow: so far)
    {"event": "task_finished", "task", "status"}                  (--follow, when the run stops)

With no task id, `--follow` follows the session's run (`follow_run`): each task as it
runs, until no task runs and the process of the `--all` run (its run marker) is gone:

    {"event": "run_finished", "session"}           (the run ended; "idle": none was going on)

A step's output is what its latest run wrote, as it came (stdout and stderr); a step
without one in the log (a record older than the log, a step that shared an agent's
hand-off) shows the output its record keeps.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wfs import jsonio, store
from wfs.claims import claim_alive
from wfs.flow.context import RunContext
from wfs.flow.record import FINISHED, RUNS_DIR
from wfs.flow.watch import LOG_SUFFIX, STREAMS, Lines, read_events
from wfs.flow.work import Uninterpretable, task_steps
from wfs.formats import status_of
from wfs.index import answers
from wfs.layout import check_task_id, task_sort_key
from wfs.tasks import obj, read_task, unknown_task

Event = dict[str, Any]
POLL_SECONDS = 0.2  # how often --follow looks for new output


def known_task(context: RunContext, task_id: str) -> str:
    """`task_id` checked: a task of the session (exit 2 naming close ones if not)."""
    tid = check_task_id(task_id)
    known = answers(context.layout, context.sid)["status"]
    if tid not in known:
        raise unknown_task(task_id, known)
    return tid


def run_state(context: RunContext, tid: str) -> tuple[dict[str, Any], str, bool]:
    """The task, its status (paused: an active task that no process runs), and whether
    a live process runs it now."""
    task = read_task(context.layout, context.sid, tid)
    status = status_of(task)
    owner = obj(task, "execution").get("claimed_by")
    running = status == "active" and isinstance(owner, str) and bool(owner) and claim_alive(owner)
    if status == "active" and not running:
        status = "paused"
    return task, status, running


class Reader:
    """Turns the events of a task's output log into the events shown: output cut into
    lines per stream, each step's name and task id added."""

    def __init__(self, tid: str, names: dict[str, str]) -> None:
        self.tid = tid
        self.names = names
        self.lines: dict[tuple[str, str], Lines] = {}
        self.open: dict[str, Event] = {}  # steps started and not finished: their start

    def feed(self, event: Event) -> Iterator[Event]:
        kind, key = event.get("event"), str(event.get("step", ""))
        name = str(event.get("name") or self.names.get(key, key))
        if kind == "step_started":
            yield from self.end_lines(key)
            self.names[key] = name
            self.open[key] = event
            when = event.get("started_at")
            yield {"event": "step_started", "task": self.tid, "step": key, "name": name} | (
                {"started_at": when} if when else {}
            )
        elif kind == "output":
            stream = str(event.get("stream", "stdout"))
            lines = self.lines.setdefault((key, stream), Lines())
            for line in lines.feed(str(event.get("text", ""))):
                yield {"event": "output", "task": self.tid, "step": key, "stream": stream} | {
                    "text": line
                }
        elif kind == "output_cut":
            yield from self.end_lines(key)
            yield {"event": "output_cut", "task": self.tid, "step": key}
        elif kind == "step_finished":
            yield from self.end_lines(key)
            self.open.pop(key, None)
            yield {
                "event": "step_finished",
                "task": self.tid,
                "step": key,
                "name": name,
                "outcome": event.get("outcome"),
                "elapsed": event.get("elapsed"),
            }

    def end_lines(self, key: str) -> Iterator[Event]:
        for stream in STREAMS.values():
            lines = self.lines.pop((key, stream), None)
            for line in lines.end() if lines else []:
                yield {"event": "output", "task": self.tid, "step": key, "stream": stream} | {
                    "text": line
                }


def latest_runs(events: list[Event]) -> dict[str, list[Event]]:
    """The events of each step's latest run (from its last `step_started` on)."""
    runs: dict[str, list[Event]] = {}
    for event in events:
        key = str(event.get("step", ""))
        if event.get("event") == "step_started":
            runs[key] = [event]
        elif key in runs:
            runs[key].append(event)
    return runs


def snapshot(context: RunContext, tid: str) -> tuple[list[Event], int, Reader, bool]:
    """The task's run as it is now: (events, where the output log was read up to, the
    reader to go on with, whether it runs now)."""
    task, status, running = run_state(context, tid)
    try:
        plan = [(s.key, s.name) for s in task_steps(task)]
    except Uninterpretable:
        plan = []
    record = context.records.load(tid)
    recorded = record.get("steps", {})
    keys = [key for key, _ in plan]
    plan += [(key, key) for key in recorded if key not in keys]
    logged, offset = read_events(context.records.output_log_path(tid))
    runs = latest_runs(logged)
    reader = Reader(tid, dict(plan))
    starts = [e.get("step") for e in logged if e.get("event") == "step_started"]
    current = starts[-1] if running and starts else None  # the step running now, if any
    steps: list[Event] = []
    shown: list[Event] = []
    for key, name in plan:
        entry = recorded.get(key)
        if isinstance(entry, dict) and entry.get("status") == "running" and key != current:
            entry = {**entry, "status": "stopped"}  # a part was done when its run stopped
        run = runs.get(key)
        finished = run is not None and run[-1].get("event") == "step_finished"
        if run is not None:
            for event in run:
                shown.extend(reader.feed(event))
            if not finished and key == current:
                state = "running"
                started = run[0].get("started")
                if isinstance(started, (int, float)):
                    shown.append(
                        {"event": "step_running", "task": tid, "step": key}
                        | {"name": name, "elapsed": round(max(time.time() - started, 0), 3)}
                    )
            elif not finished:
                shown.extend(reader.end_lines(key))
                reader.open.pop(key, None)
                state = str(entry.get("status")) if entry else "stopped"
                shown.append(_finished(tid, key, name, state, entry))
            else:
                state = str(run[-1].get("outcome"))
        elif entry is not None:
            state = str(entry.get("status"))
            shown.append({"event": "step_started", "task": tid, "step": key, "name": name})
            output = context.records.entry_output(entry) if state in FINISHED else ""
            for line in output.splitlines():
                shown.append(
                    {"event": "output", "task": tid, "step": key, "stream": "stdout"}
                    | {"text": line}
                )
            shown.append(_finished(tid, key, name, state, entry))
        else:
            state = "not started"
        steps.append({"step": key, "name": name, "status": state})
    head: Event = {"event": "task", "task": tid, "title": str(task.get("title", ""))}
    head.update(status=status, running=running, steps=steps)
    return [head, *shown], offset, reader, running


def _finished(tid: str, key: str, name: str, state: str, entry: Any) -> Event:
    elapsed = entry.get("elapsed") if isinstance(entry, dict) else None
    return {"event": "step_finished", "task": tid, "step": key, "name": name} | {
        "outcome": state,
        "elapsed": elapsed,
    }


def follow(
    context: RunContext,
    tid: str,
    emit: Callable[[Event], None],
    poll: float = POLL_SECONDS,
) -> None:
    """Emit the task's run as it is, then its new output and steps as they come, until
    no process runs the task any more; then `task_finished`."""
    events, offset, reader, running = snapshot(context, tid)
    for event in events:
        if event["event"] != "step_running":  # its output follows as it comes
            emit(event)
    path = context.records.output_log_path(tid)
    while True:
        if running:
            time.sleep(poll)
            _, status, running = run_state(context, tid)
        new, offset = read_events(path, offset)
        for event in new:
            for shown in reader.feed(event):
                emit(shown)
        if not running:
            break
    for key in list(reader.open):
        for shown in reader.end_lines(key):
            emit(shown)
    _, status, _ = run_state(context, tid)
    emit({"event": "task_finished", "task": tid, "status": status})


# ---------------------------------------------------------------- the whole run


def log_stats(context: RunContext) -> dict[str, os.stat_result]:
    """Each task's output log in the session: task id -> its stat."""
    folder = context.records.session_dir / RUNS_DIR
    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    stats = {}
    for name in names:
        if name.endswith(LOG_SUFFIX):
            try:
                stats[name[: -len(LOG_SUFFIX)]] = os.stat(folder / name)
            except OSError:
                continue
    return stats


def mark(stat: os.stat_result) -> tuple[int, int]:
    """What tells a log that changed: its size and the time it was written."""
    return stat.st_size, stat.st_mtime_ns


def first_line(path: Path) -> bytes:
    """The first line of a log (a run that starts a task over starts its log over)."""
    found = store.open_regular(path, 64 * 1024)
    return found.split(b"\n", 1)[0] if isinstance(found, bytes) else b""


def run_going_on(context: RunContext) -> bool:
    """Whether the process of the session's `--all` run (its run marker) still runs."""
    found = store.open_regular(context.records.run_marker_path(), 4096)
    try:
        owner = jsonio.loads(found).get("owner") if isinstance(found, bytes) else None
    except (ValueError, AttributeError):
        return False  # torn or not wfs's: no run to wait for
    return isinstance(owner, str) and bool(owner) and claim_alive(owner)


def running_tasks(context: RunContext, tids: list[str]) -> list[str]:
    """Those of `tids` that a live process runs now."""
    return [tid for tid in sorted(tids, key=task_sort_key) if run_state(context, tid)[2]]


class RunFollower:
    """`wfs log --follow` with no ID: the session's run, task by task (follow_run)."""

    def __init__(self, context: RunContext, emit: Callable[[Event], None]) -> None:
        self.context = context
        self.emit = emit
        # What each log held before (not this run's): its size and time, its first line.
        self.seen = {tid: mark(stat) for tid, stat in log_stats(context).items()}
        self.heads = {tid: first_line(self.path(tid)) for tid in self.seen}
        self.followed: dict[str, tuple[int, Reader]] = {}  # task -> (offset, reader)

    def path(self, tid: str) -> Path:
        return self.context.records.output_log_path(tid)

    def start(self) -> bool:
        """The tasks running now, as `snapshot` shows them; False when no task runs
        and no run goes on."""
        for tid in running_tasks(self.context, list(self.seen)):  # each has a log
            events, offset, reader, _ = snapshot(self.context, tid)
            for event in events:
                if event["event"] != "step_running":  # its output follows as it comes
                    self.emit(event)
            self.followed[tid] = (offset, reader)
        return bool(self.followed) or run_going_on(self.context)

    def poll(self) -> bool:
        """Show what came since the last poll: the tasks whose logs grew (in the order
        they were written), and the output of each followed task, ending those that
        stopped. False once no task runs and the run's process is gone."""
        going_on = run_going_on(self.context)  # before the last look at the logs
        for tid in list(self.followed):
            self.advance(tid)
        grown = sorted(log_stats(self.context).items(), key=lambda item: item[1].st_mtime_ns)
        for tid, stat in grown:
            if tid not in self.followed and mark(stat) != self.seen.get(tid):
                self.discovered(tid, stat.st_size)
                self.advance(tid)
        return bool(self.followed) or going_on

    def discovered(self, tid: str, size: int) -> None:
        """A task whose log grew: shown from where it grew (all of it when its run
        started over)."""
        before = self.seen.get(tid, (0, 0))[0]
        again = size > before and first_line(self.path(tid)) == self.heads.get(tid)
        task, status, running = run_state(self.context, tid)
        head: Event = {"event": "task", "task": tid, "title": str(task.get("title", ""))}
        self.emit(head | {"status": status, "running": running, "steps": []})
        try:
            names = {s.key: s.name for s in task_steps(task)}
        except Uninterpretable:
            names = {}
        self.followed[tid] = (before if again else 0, Reader(tid, names))

    def advance(self, tid: str) -> None:
        """The task's new output; `task_finished` once no process runs it."""
        if tid not in self.followed:
            return
        offset, reader = self.followed[tid]
        running = run_state(self.context, tid)[2]  # before reading: nothing is missed
        new, offset = read_events(self.path(tid), offset)
        for event in new:
            for shown in reader.feed(event):
                self.emit(shown)
        self.followed[tid] = (offset, reader)
        if running:
            return
        for key in list(reader.open):
            for shown in reader.end_lines(key):
                self.emit(shown)
        self.emit(
            {"event": "task_finished", "task": tid, "status": run_state(self.context, tid)[1]}
        )
        try:
            self.seen[tid] = mark(os.stat(self.path(tid)))
        except OSError:
            self.seen.pop(tid, None)
        self.heads[tid] = first_line(self.path(tid))
        del self.followed[tid]


def follow_run(
    context: RunContext, emit: Callable[[Event], None], poll: float = POLL_SECONDS
) -> None:
    """Follow the session's run: each task that runs (those running now as `snapshot`
    shows them, then each task whose output log grows, from where it grew), its output
    as it comes and `task_finished` when it stops; until no task runs and the `--all`
    run's process is gone (`run_finished`; `idle` when none was going on)."""
    follower = RunFollower(context, emit)
    if not follower.start():
        emit({"event": "run_finished", "session": context.sid, "idle": True})
        return
    while follower.poll():
        time.sleep(poll)
    emit({"event": "run_finished", "session": context.sid, "idle": False})
