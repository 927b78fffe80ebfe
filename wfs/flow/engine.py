"""The flow-control engine: claim a task, run its steps, record, stop, resume, complete.

`Runner` is who runs a session's tasks and how it was asked to (its identity and
configuration), and the order of a task's run: claim it (wfs.flow.claiming), run its
unfinished steps in order (`execute`; each step by wfs.flow.stepping), record every
outcome (wfs.flow.record), and end the run (wfs.flow.landing). What a step does is the
stepper's; what the parts that read about a run (the brief, the dry run, `wfs log`)
need is its small context (wfs.flow.context), never the runner.

A task is claimed under the session lock (status `active`, owner recorded), so several
`wfs execute` processes never run the same task. Steps run outside the lock. Every
step's outcome and output go to a run record (`.runs/<ID>.json`, ignored by git), so a
resumed run never repeats a finished step, nor a finished command of a step.

Every stop leaves the task where `wfs execute --resume ID` continues it:

- paused (status `active`, no claim, `execution.paused_reason`): waiting for an agent,
  a checkpoint, an empty answer, or an interruption (Ctrl-C, SIGTERM, SIGHUP);
- blocked (`execution.blocked_reason`): a step failed, an agent answered
  `## TASK BLOCKED`, or a step asks for manual intervention;
- a claim whose process died (SIGKILL, a crash): `--resume` takes it over.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from wfs import git, store
from wfs.claims import owner_id
from wfs.errors import WfsError
from wfs.flow import signals, watch, worktrees
from wfs.flow.brief import base_values
from wfs.flow.claiming import Claimer, step_token
from wfs.flow.context import NO_ROUTES, RunContext, resume_command
from wfs.flow.landing import Lander, file_states
from wfs.flow.record import FINISHED, Records, now
from wfs.flow.routing import AgentRoutes
from wfs.flow.stepping import (
    Pause,
    Refused,
    StepFailed,
    Stepper,
    Stop,
    TaskRun,
    groupable,
    tail_lines,
)
from wfs.flow.work import Step, task_steps
from wfs.layout import Layout
from wfs.tasks import Task

Progress = watch.Progress


class Runner:
    """Runs the tasks of one session: who runs them (`owner`), how it was asked to
    (the agent routes, the agent scope, the claims remote, the options a resumed run
    needs too), and the order of each task's run."""

    def __init__(
        self,
        layout: Layout,
        sid: str,
        routes: AgentRoutes | None = None,
        progress: Progress | None = None,
        command_prefix: list[str] | None = None,
        scope: str = "task",
        remote: str | None = None,
        resume_options: list[str] | None = None,
        records: Records | None = None,
    ) -> None:
        self.layout = layout
        self.sid = sid
        self.owner = owner_id()
        self.progress = progress or (lambda event, data: None)
        self.listening = progress is not None  # someone wants the output line by line
        # How people and agents call wfs again: the resume commands start with it, with
        # the options of this run that a resumed run needs too (--agent, --remote...).
        self.command_prefix = command_prefix or ["wfs", "--session", sid]
        self.resume_options = resume_options or []
        self.records = records or Records(layout, sid)
        self.context = RunContext(
            layout, sid, self.records, self.resume_argv, routes or NO_ROUTES, scope
        )
        self.claimer = Claimer(
            self.records, self.owner, self.command_prefix, self.resume_argv, remote
        )
        self.output_log = store.Appender()  # the running task's output log (wfs.flow.watch)

    def resume_argv(self, tid: str) -> list[str]:
        return resume_command(self.command_prefix, self.resume_options)(tid)

    def all_argv(self) -> list[str]:
        """The command that goes on with the whole run (`execute --all`), with the
        options a resumed run needs too."""
        return [*self.command_prefix, "execute", *self.resume_options, "--all"]

    @property
    def scope(self) -> str:
        return self.context.scope

    @property
    def routes(self) -> AgentRoutes:
        return self.context.routes

    @property
    def worktree(self) -> worktrees.Place | None:
        """With --jobs N: the task's own git worktree, where its steps run (else the
        project root), and whose branch is merged back when the task completes."""
        return self.context.worktree

    @worktree.setter
    def worktree(self, place: worktrees.Place | None) -> None:
        self.context = self.context.moved_to(place)
        self.claimer.workdir = self.context.workdir

    @property
    def workdir(self) -> Path:
        """Where the task's steps and agent work."""
        return self.context.workdir

    @property
    def in_worktrees(self) -> bool:
        """Each task in a worktree of its own (--jobs N)."""
        return self.claimer.in_worktrees

    @in_worktrees.setter
    def in_worktrees(self, value: bool) -> None:
        self.claimer.in_worktrees = value

    # ------------------------------------------------------------ claiming and ending

    def claim(self, requested: str | None, passed: frozenset[str] = frozenset()) -> Task | None:
        """wfs.flow.claiming.Claimer.claim: `requested`, or the next ready task."""
        return self.claimer.claim(requested, passed)

    def reclaim(self, requested: str) -> tuple[Task, list[str]]:
        """wfs.flow.claiming.Claimer.reclaim: a stopped task, for `--resume`."""
        return self.claimer.reclaim(requested)

    def lander(self) -> Lander:
        return Lander(self.context, self.claimer)

    def finish(
        self, tid: str, status: str, reason: str | None = None, step: str | None = None
    ) -> None:
        """wfs.flow.landing.Lander.finish: the claim released, the task as the run left it."""
        self.lander().finish(tid, status, reason, step)

    # ------------------------------------------------------------ running

    def execute(
        self, task: Task, resume: dict[str, Any] | None = None, plan: list[Step] | None = None
    ) -> dict[str, Any]:
        """Run a claimed task's unfinished steps. Raises a Stop, or Interrupted.

        `resume` (`{"output": text}` or `{"skip": True}`) applies to the first unfinished
        step, which is where the task stopped. `plan`: the steps, if not the task's own.
        """
        tid = task["id"]
        plan = task_steps(task) if plan is None else plan
        record = self.records.load(tid)
        run = TaskRun(task, plan, record, base_values(self.context, task))
        task_log = watch.TaskLog(
            self.output_log,
            self.records.output_log_path(tid),
            tid,
            self.progress,
            self.listening,
            fresh=not record["steps"],
        )
        stepper = Stepper(
            self.context, self.progress, step_token(self.sid, tid, self.owner), task_log
        )
        try:
            self.run_steps(run, stepper, resume)
        finally:
            try:
                task_log.flush()  # the last step's end
            finally:
                self.output_log.close()
        record["finished_at"] = now()
        record["paused"] = None
        self.records.save(record)
        steps = [
            record["steps"][s.key]
            | {"key": s.key, "name": s.name, "bind": s.output}
            | {"output": self.records.entry_output(record["steps"][s.key])}
            for s in plan
        ]
        return {"task": tid, "steps": steps, "values": run.values}

    def run_steps(self, run: TaskRun, stepper: Stepper, given: dict[str, Any] | None) -> None:
        """The steps of `run` the record has not finished, in order (each with the agent
        steps handed off with it); `given` applies to the first of them."""
        record, plan = run.record, run.plan
        i = 0
        while i < len(plan):
            step = plan[i]
            entry = record["steps"].get(step.key)
            if entry and entry.get("status") in FINISHED:
                run.bind(step, self.records.entry_output(entry))
                i += 1
                continue
            group = self.group(run, i)
            try:
                signals.check()
                stepper.run(run, group, given)
            except signals.Interrupted as stop:
                record["paused"] = {"step": step.key, "reason": f"interrupted ({stop.name})"}
                self.records.save(record)
                stop.step_key = step.key
                raise
            given = None
            i += len(group)

    def group(self, run: TaskRun, index: int) -> list[Step]:
        """The step at `index`, with the agent steps right after it that go to the agent
        in the same hand-off (implementation steps only, with `--agent-scope task`)."""
        first = run.plan[index]
        if self.scope != "task" or not groupable(first) or first.checks:
            return [first]
        group = [first]
        for step in run.plan[index + 1 :]:
            entry = run.record["steps"].get(step.key) or {}
            if entry.get("status") in FINISHED or not groupable(step):
                break
            group.append(step)
            if step.checks:  # its check runs right after it, before any later step
                break
        return group


def run_until_stop(
    runner: Runner,
    task: Task,
    resume: dict[str, Any] | None = None,
    plan: list[Step] | None = None,
) -> tuple[dict[str, Any], tuple[str, str | None, str | None] | None]:
    """Run a task until it completes or stops.

    Returns (result, None) when every step is done, else (outcome, release): the
    outcome says why it stopped and how to go on (`resume`: an argv), and `release` is
    how the task's claim is released: (status, reason, step).
    """
    tid = task["id"]
    resume_argv = runner.resume_argv(tid)
    try:
        return runner.execute(task, resume, plan), None
    except Stop as stop:
        return stopped(stop, tid, resume_argv)
    except WfsError as error:
        outcome = {"task": tid, "status": "blocked", "reason": error.message, "resume": resume_argv}
        return outcome, ("blocked", error.message, None)
    except signals.Interrupted as stop:
        reason = f"interrupted ({stop.name})"
        outcome = {
            "task": tid,
            "status": "interrupted",
            "signal": stop.name,
            "exit_code": stop.exit_code,
            "step": stop.step_key,
            "reason": reason,
            "resume": resume_argv,
        }
        return outcome, ("active", reason, stop.step_key)


def stopped(
    stop: Stop, tid: str, resume_argv: list[str]
) -> tuple[dict[str, Any], tuple[str, str | None, str | None]]:
    """The outcome of a run that a Stop ended, and how the task's claim is released:
    (status, reason, step)."""
    outcome: dict[str, Any] = {
        "task": tid,
        "status": "blocked",
        "step": stop.step.key,
        "reason": stop.reason,
        "resume": resume_argv,
    }
    release = "active"
    if isinstance(stop, Pause):
        outcome.update(status="paused", brief=stop.brief)
        release = "blocked" if stop.manual else "active"
    elif isinstance(stop, Refused):
        outcome["status"] = "refused"
    elif isinstance(stop, StepFailed):
        last = next((t for t in reversed(stop.tries) if "stdout" in t), None)
        outcome["tries"] = [shown_try(t) for t in stop.tries]
        outcome["tail"] = {
            stream: tail_lines(last[stream]) if last else [] for stream in ("stdout", "stderr")
        }
        release = "blocked"
    return outcome, (release, stop.reason, stop.step.key)


def run_task(runner: Runner, task: Task, resume: dict[str, Any] | None = None) -> dict[str, Any]:
    """Execute a claimed task until it completes or stops; record the outcome.

    Returns the result object; `status` is completed, paused, blocked, refused or
    interrupted, and every stop carries the `resume` command (argv) that continues it.
    """
    tid = task["id"]
    record = runner.records.load(tid)
    if "files_before" not in record:  # kept across stops, so a resumed run sees it all
        record["files_before"] = file_states(runner.workdir, git.status(runner.workdir))
        runner.records.save(record)
    result, release = run_until_stop(runner, task, resume)
    if release is not None:
        runner.finish(tid, *release)
        return result
    return runner.lander().complete(task, result)


def shown_try(entry: dict[str, Any]) -> dict[str, Any]:
    """A try as --json shows it: its tails cut to the last lines."""
    shown = {k: v for k, v in entry.items() if k not in ("stdout", "stderr")}
    for stream in ("stdout", "stderr"):
        if stream in entry:
            shown[stream] = tail_lines(entry[stream])
    return shown
