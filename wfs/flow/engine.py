"""The flow-control engine: claim a task, run its steps, record, stop, resume, complete.

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

import os
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wfs import store
from wfs.claims import claim_alive, owner_id
from wfs.edit import editing, refuse_container, unknown_task
from wfs.errors import WfsError
from wfs.flow import signals
from wfs.flow import steps as run_steps
from wfs.flow.answer import CONTRACT, EmptyAnswer, read_answer
from wfs.flow.variables import (
    MissingInput,
    as_text,
    check_inputs,
    substitute_prose,
    substitute_session,
    task_values,
)
from wfs.flow.work import Step, Uninterpretable, task_steps
from wfs.formats import canonical_task, status_of
from wfs.index import load_skeletons
from wfs.layout import Layout, check_task_id
from wfs.tasks import Task, TaskIndex, depends_on, obj

RUNS_DIR = ".runs"
TAIL_BYTES = 64 * 1024  # of stdout and of stderr, kept in the run record for each failure
TAIL_LINES = 20  # shown to people and in --json
PROSE_FIELDS = ("title", "description", "action")
LIST_FIELDS = ("modification_points", "logic_flow", "requirements", "acceptance", "focus_paths")
TASK_VARIABLES = (
    "focus_paths",
    "depends_on",
    "parent",
    "requirements",
    "acceptance",
    "inherited",
    "shared_context",
    "artifacts",
)
FINISHED = ("done", "skipped")
WAITING_FOR_AGENT = "waiting for an agent"
CHECKPOINT = "checkpoint reached; the agent continues from its partial answer"


class Stop(Exception):
    """The task stops at `step`; `run_task` records why."""

    def __init__(self, step: Step, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason


class Pause(Stop):
    """Waiting for an agent or a person (exit 3). `manual`: the task is blocked meanwhile."""

    def __init__(self, step: Step, reason: str, brief: dict[str, Any], manual: bool = False):
        super().__init__(step, reason)
        self.brief = brief
        self.manual = manual


class Refused(Stop):
    """An agent's answer was refused (empty): the step stays paused (exit 2)."""


class StepFailed(Stop):
    """A step failed (or its agent answered TASK BLOCKED): the task is blocked (exit 1)."""

    def __init__(self, step: Step, reason: str, tries: list[dict[str, Any]]) -> None:
        super().__init__(step, reason)
        self.tries = tries


Progress = Callable[[str, dict[str, Any]], None]


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Runner:
    """Runs the tasks of one session."""

    def __init__(
        self,
        layout: Layout,
        sid: str,
        agent: str | None,
        progress: Progress | None = None,
        command_prefix: list[str] | None = None,
    ) -> None:
        self.layout = layout
        self.sid = sid
        self.agent = agent
        self.progress = progress or (lambda event, data: None)
        self.owner = owner_id()
        # How people and agents call wfs again: the resume commands start with it.
        self.command_prefix = command_prefix or ["wfs", "--session", sid]

    def resume_argv(self, tid: str) -> list[str]:
        return [*self.command_prefix, "execute", "--resume", tid]

    # ------------------------------------------------------------ claiming

    def claim(self, requested: str | None) -> Task | None:
        """Mark a ready leaf active for this process: `requested`, or the next ready one."""
        with editing(self.layout, self.sid, check=False) as draft:
            index = draft.index()
            if requested is None:
                ready = index.ready()
                if not ready:
                    return None
                tid = ready[0]
            else:
                tid = check_task_id(requested)
                if tid not in index.by_id:
                    raise unknown_task(tid, index.by_id)
                refuse_container(index, tid, "execute it")
                status = index.by_id[tid].get("status")
                if status != "pending":
                    hint = ""
                    if status in ("active", "blocked"):
                        hint = f"; resume it with `{_shell(self.resume_argv(tid))}`"
                    raise WfsError(f"{tid} is {status}, not pending{hint}")
                waiting = index.unmet_dependencies(tid)
                if waiting:
                    raise WfsError(f"{tid} is not ready: waiting on {', '.join(waiting)}")
            task = draft.get(tid)
            self.preflight(task)
            execution = dict(obj(task, "execution"))
            for key in ("blocked_reason", "paused_reason", "step", "stopped_at", "finished_at"):
                execution.pop(key, None)
            execution.update(
                claimed_by=self.owner,
                started_at=now(),
                attempts=int(execution.get("attempts", 0)) + 1,
            )
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            self.save_record(new_record(tid))
            return claimed

    def preflight(self, task: Task) -> list[Step]:
        """The task's steps; refuses (exit 2, nothing changed) what cannot run as written.

        That is what `validate` reports as an error in the task, what wfs cannot read as
        steps, and built-ins whose literal paths leave the project root.
        """
        from wfs.validate import TaskSource, refusal

        tid = task["id"]
        where = self.layout.relative(self.layout.task_file(self.sid, tid))
        errors = refusal(TaskSource(where, task, tid))
        if errors:
            raise WfsError(
                f"{tid} cannot run as written; nothing was changed "
                f"(`wfs validate` reports the same):\n" + "\n".join(errors)
            )
        try:
            plan = task_steps(task)
        except Uninterpretable as err:
            raise WfsError(
                f"{tid} cannot run as written; nothing was changed:\n{where}{err.message}"
            ) from None
        problems = []
        for step in plan:
            for text in step.parts:
                command = run_steps.classify(substitute_session(text, self.sid))
                why = run_steps.escapes_root(command, self.layout.root)
                if why:
                    problems.append(f"{step.key} ({step.name}): {why}")
        if problems:
            raise WfsError(
                f"{tid} is unsafe to run; nothing was changed:\n" + "\n".join(problems)
            )
        return plan

    def reclaim(self, requested: str) -> tuple[Task, list[str]]:
        """Take back a stopped task for `--resume`: paused, blocked, or claimed by a
        process that is gone. Returns the task and notes on what was taken over."""
        notes: list[str] = []
        with editing(self.layout, self.sid, check=False) as draft:
            tid = check_task_id(requested)
            if tid not in draft.skeletons:
                raise unknown_task(tid, draft.skeletons)
            refuse_container(draft.index(), tid, "resume it")
            task = draft.get(tid)
            status = status_of(task)  # another tool's in_progress / failed read as active / blocked
            execution = dict(obj(task, "execution"))
            owner = execution.get("claimed_by")
            if status == "completed":
                raise WfsError(f"{tid} is already completed; nothing to resume")
            if status == "pending":
                raise WfsError(
                    f"{tid} has not started; run it with "
                    f"`{_shell([*self.command_prefix, 'execute', tid])}`"
                )
            if status not in ("active", "blocked"):
                raise WfsError(f"{tid} is {status}; only a paused or blocked task resumes")
            if isinstance(owner, str) and owner:
                if claim_alive(owner):
                    since = execution.get("resumed_at") or execution.get("started_at")
                    raise WfsError(
                        f"{tid} is being executed by {owner} (since {since}); "
                        "wait for it to stop, or stop that process first"
                    )
                notes.append(f"took over the claim of {owner}, which is no longer running")
                notes.extend(self.stop_orphan(tid))
            self.preflight(task)
            if self.load_record(tid).get("finished_at"):
                self.save_record(new_record(tid))  # that run completed: this one starts over
            for key in ("blocked_reason", "paused_reason", "stopped_at"):
                execution.pop(key, None)
            execution.update(claimed_by=self.owner, resumed_at=now())
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            return claimed, notes

    def stop_orphan(self, tid: str) -> list[str]:
        """Stop the step a killed runner left running, before anything runs it again."""
        running = self.load_record(tid).get("running")
        if not isinstance(running, dict) or not isinstance(running.get("pid"), int):
            return []
        if run_steps.stop_orphan(running["pid"], str(running.get("token", ""))):
            return [f"stopped the orphaned process group {running['pid']} of {running['step']}"]
        return []

    def finish(
        self, tid: str, status: str, reason: str | None = None, step: str | None = None
    ) -> None:
        """Release the claim: completed, blocked (with its reason) or paused (`active`)."""
        with editing(self.layout, self.sid, check=False) as draft:
            task = draft.get(tid)
            execution = dict(obj(task, "execution"))
            for key in ("claimed_by", "blocked_reason", "paused_reason", "step", "paused_step"):
                execution.pop(key, None)
            if status == "completed":
                execution["finished_at"] = now()
            else:
                execution["stopped_at"] = now()
                execution["blocked_reason" if status == "blocked" else "paused_reason"] = reason
                if step is not None:
                    execution["step"] = step
            draft.put({**task, "status": status, "execution": execution})

    # ------------------------------------------------------------ run records

    def record_path(self, tid: str) -> Path:
        return self.layout.session_dir(self.sid) / RUNS_DIR / f"{check_task_id(tid)}.json"

    def load_record(self, tid: str) -> dict[str, Any]:
        path = self.record_path(tid)
        if not path.exists():
            return new_record(tid)
        data = store.read_json(path, self.layout.relative(path))
        if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
            raise WfsError(f"{self.layout.relative(path)}: not a wfs run record")
        return data

    def save_record(self, record: dict[str, Any]) -> None:
        # Atomic but not fsynced: a killed process loses nothing (the page cache
        # survives it), and after a power cut the unrecorded steps simply run again.
        path = self.record_path(record["task"])
        store.write_bytes(path, store.dumps(record), durable=False)

    # ------------------------------------------------------------ variables

    def base_values(self, task: Task) -> dict[str, Any]:
        # whatever format the task file is in; its session's id and folder included
        folder = self.layout.relative(self.layout.session_dir(self.sid)) if self.sid else None
        values = task_values(canonical_task(task), self.sid, folder)
        if self.sid:
            values["dependency_summaries"] = self.dependency_summaries(task)
        return values

    def dependency_summaries(self, task: Task) -> str:
        index = TaskIndex(load_skeletons(self.layout, self.sid))
        texts = []
        for dep in depends_on(task):
            for tid in index.children.get(dep) or [dep]:
                path = self.summary_path(tid)
                if path.exists():
                    texts.append(path.read_text(encoding="utf-8"))
        return "\n".join(texts)

    def summary_path(self, tid: str) -> Path:
        return self.layout.session_dir(self.sid) / ".summaries" / f"{tid}-summary.md"

    # ------------------------------------------------------------ running

    def execute(
        self, task: Task, resume: dict[str, Any] | None = None, plan: list[Step] | None = None
    ) -> dict[str, Any]:
        """Run a claimed task's unfinished steps. Raises a Stop, or Interrupted.

        `resume` (`{"output": text}` or `{"skip": True}`) applies to the first unfinished
        step, which is where the task stopped. `plan`: the steps, if not the task's own.
        """
        tid = task["id"]
        record = self.load_record(tid)
        values = self.base_values(task)
        plan = task_steps(task) if plan is None else plan
        declared = {s.output for s in plan if s.output}
        given = resume
        for step in plan:
            entry = record["steps"].get(step.key)
            if entry and entry.get("status") in FINISHED:
                self._bind(values, step, entry.get("output", ""))
                continue
            try:
                signals.check()
                entry = self.run_step(task, step, values, declared, record, given)
            except signals.Interrupted as stop:
                record["paused"] = {"step": step.key, "reason": f"interrupted ({stop.name})"}
                record["running"] = None
                self.save_record(record)
                stop.step_key = step.key
                raise
            given = None
            self._bind(values, step, entry.get("output", ""))
        record["finished_at"] = now()
        record["paused"] = None
        self.save_record(record)
        steps = [
            record["steps"][s.key] | {"key": s.key, "name": s.name, "bind": s.output} for s in plan
        ]
        return {"task": tid, "steps": steps, "values": values}

    def _bind(self, values: dict[str, Any], step: Step, output: str) -> None:
        if step.output:
            values[step.output] = output

    def run_step(
        self,
        task: Task,
        step: Step,
        values: dict[str, Any],
        declared: set[str],
        record: dict[str, Any],
        given: dict[str, Any] | None,
    ) -> dict[str, Any]:
        """Run what is left of one step, part by part, with its on_error strategy.

        Returns its finished record entry; raises a Stop when the task stops here.
        """
        tid = task["id"]
        previous = record["steps"].get(step.key) or {}
        done: list[str] = list(previous.get("parts") or [])
        checkpoints: list[str] = list(previous.get("checkpoints") or [])
        tries: list[dict[str, Any]] = []
        on_error = step.spec.get("on_error", "fail")
        parts = step.parts or ("",)
        started = time.monotonic()
        self.progress("start", {"task": tid, "step": step.key, "name": step.name})

        def save(status: str, **extra: Any) -> dict[str, Any]:
            entry = {
                "status": status,
                "parts": done,
                "elapsed": round(time.monotonic() - started, 3),
                **({"checkpoints": checkpoints} if checkpoints else {}),
                **({"tries": tries} if tries else {}),
                **extra,
            }
            record["steps"][step.key] = entry
            record["running"] = None
            record["paused"] = (
                None if status in FINISHED else {"step": step.key, "reason": extra.get("reason")}
            )
            self.save_record(record)
            self.progress(
                "step",
                {
                    "task": tid,
                    "step": step.key,
                    "name": step.name,
                    "outcome": status,
                    "elapsed": entry["elapsed"],
                },
            )
            return entry

        if given and given.get("skip"):
            return save("skipped", output="", how="skipped on resume")
        hows: list[str] = []
        try:
            while len(done) < len(parts):
                index = len(done)
                text = substitute_session(parts[index], self.sid)
                command = run_steps.classify(text) if text.strip() else run_steps.Command("agent", "")
                if given and given.get("output") is not None:
                    answer = read_answer(given["output"], "the resume")
                    given = None
                    hows.append("given on resume")
                else:
                    given = None
                    try:
                        result, part_tries = self._run_part(
                            task, step, command, text, values, declared, record, index, checkpoints
                        )
                    except Pause as pause:  # no agent to ask: keep the parts done so far
                        save("paused", reason=pause.reason)
                        raise
                    tries.extend(part_tries)
                    if result is None:  # a successful command
                        done.append(part_tries[-1]["output"])
                        continue
                    if isinstance(result, str):  # a failure, after its retries
                        return self._failed(step, on_error, result, save, values, task)
                    answer = result
                    hows.append("answered by the agent")
                if answer.kind == "blocked":
                    save("blocked", reason=answer.reason, answer=answer.text)
                    raise StepFailed(
                        step, f"agent reported TASK BLOCKED at {_label(step)}: {answer.reason}", []
                    )
                if answer.kind == "checkpoint":
                    checkpoints.append(answer.text)
                    brief = self.brief(task, step, values, None, command.text, checkpoints)
                    save("paused", reason=CHECKPOINT)
                    raise Pause(step, CHECKPOINT, brief)
                done.append("\n\n".join([*checkpoints, answer.text]))
                checkpoints = []
        except EmptyAnswer as empty:
            save("paused", reason=empty.message)
            raise Refused(step, f"{_label(step)}: {empty.message}") from None
        except signals.Interrupted:
            save("interrupted", reason="interrupted")
            raise
        output = "\n".join(part.rstrip("\n") for part in done)
        return save("done", output=output, **({"how": ", ".join(hows)} if hows else {}))

    def _run_part(
        self,
        task: Task,
        step: Step,
        command: run_steps.Command,
        text: str,
        values: dict[str, Any],
        declared: set[str],
        record: dict[str, Any],
        index: int,
        checkpoints: list[str],
    ) -> tuple[Any, list[dict[str, Any]]]:
        """Run one part: (None, tries) on success, (reason, tries) on failure, or
        (Answer, tries) for an agent's answer. Raises Pause when no agent is configured."""
        criteria = step.spec.get("success_criteria")
        criteria = criteria if isinstance(criteria, str) else None
        timeout = step.spec.get("timeout")
        timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
        retries = 2 if step.spec.get("on_error") == "retry_once" else 1
        tries: list[dict[str, Any]] = []
        token = os.urandom(8).hex()
        started = self._started(record, step, index, token)
        for _ in range(retries):
            began = time.monotonic()
            if command.kind == "agent":
                brief = self.brief(task, step, values, None, command.text, checkpoints)
                if not self.agent:
                    raise Pause(step, WAITING_FOR_AGENT, brief)
                import orjson

                result = run_steps.run_agent(
                    self.agent,
                    orjson.dumps(brief).decode(),
                    self.layout.root,
                    started,
                    {"WFS_STEP": token},
                )
            else:
                try:
                    check_inputs(text, values, declared)
                except MissingInput as missing:
                    tries.append({"part": index, "error": missing.message})
                    return missing.message, tries
                result = run_steps.run_command(
                    command, values, self.layout.root, timeout, started, {"WFS_STEP": token}
                )
            ok = run_steps.meets(criteria, result)
            try_entry: dict[str, Any] = {
                "part": index,
                "exit_code": result.exit_code,
                "elapsed": round(time.monotonic() - began, 3),
            }
            if ok:
                if command.kind == "agent":
                    return read_answer(result.output, f"the agent `{self.agent}`"), tries
                try_entry["output"] = result.output
                tries.append(try_entry)
                return None, tries
            try_entry.update(
                error=_failure(result, criteria),
                stdout=_tail_bytes(result.output),
                stderr=_tail_bytes(result.error),
            )
            tries.append(try_entry)
        return tries[-1]["error"], tries

    def _started(
        self, record: dict[str, Any], step: Step, index: int, token: str
    ) -> Callable[[int], None]:
        def started(pid: int) -> None:
            record["running"] = {"step": step.key, "part": index, "pid": pid, "token": token}
            self.save_record(record)

        return started

    def _failed(
        self,
        step: Step,
        on_error: str,
        error: str,
        save: Callable[..., dict[str, Any]],
        values: dict[str, Any],
        task: Task,
    ) -> dict[str, Any]:
        """Apply on_error to a failed step: skipped (entry returned), or a Stop."""
        if on_error == "skip_optional":
            return save("skipped", output="", error=error)
        reason = f"step {_label(step)} failed: {error}"
        if on_error == "manual_intervention":
            reason = f"manual intervention needed: {reason}"
            save("failed", reason=reason, error=error)
            raise Pause(step, reason, self.brief(task, step, values, error), manual=True)
        entry = save("failed", reason=reason, error=error)
        raise StepFailed(step, reason, entry.get("tries", []))

    def brief(
        self,
        task: Task,
        step: Step,
        values: dict[str, Any],
        error: str | None,
        command: str | None = None,
        checkpoints: list[str] | None = None,
    ) -> dict[str, Any]:
        """Everything an agent (or a person) needs to do one step, fully resolved."""
        resolved: dict[str, Any] = {"key": step.key, "name": step.name}
        for field in PROSE_FIELDS:
            if isinstance(step.spec.get(field), str):
                resolved[field] = substitute_prose(
                    substitute_session(step.spec[field], self.sid), values
                )
        for field in LIST_FIELDS:
            items = step.spec.get(field)
            if isinstance(items, list):
                resolved[field] = [substitute_prose(as_text(i), values) for i in items]
        if command:
            resolved["command"] = substitute_prose(command, values)
        if step.output:
            resolved["output"] = step.output
        if error:
            resolved["error"] = error
        if checkpoints:
            resolved["checkpoints"] = checkpoints
        return {
            "task": task,
            "workflow": {"session": self.sid, "phase": self.session_phase()},
            "step": resolved,
            "contract": CONTRACT,
            "resume": self.resume_argv(task["id"]),
        }

    def session_phase(self) -> str | None:
        if not self.sid:
            return None
        from wfs.sessions import load_session

        return str(load_session(self.layout, self.sid).get("current_phase"))

    # ------------------------------------------------------------ completion

    def write_summary(self, task: Task, result: dict[str, Any], changed: list[str]) -> Path:
        from wfs.render import render_summary

        path = self.summary_path(task["id"])
        store.write_text(path, render_summary(task, result["steps"], changed))
        return path


def new_record(tid: str) -> dict[str, Any]:
    return {"task": tid, "started_at": now(), "steps": {}, "paused": None, "running": None}


def _label(step: Step) -> str:
    return f"{step.key} ({step.name})"


def _shell(argv: list[str]) -> str:
    import shlex

    return shlex.join(argv)


def _failure(result: run_steps.StepResult, criteria: str | None) -> str:
    """One line saying why a command failed."""
    if result.timed_out:
        return result.error.strip().splitlines()[-1]
    if result.exit_code == 0 and criteria:
        return f"success criteria {criteria!r} not met"
    last = [line.strip() for line in result.error.splitlines() if line.strip()]
    detail = f": {last[-1][:200]}" if last else ""
    return f"exit code {result.exit_code}{detail}"


def _tail_bytes(text: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= TAIL_BYTES:
        return text
    return data[-TAIL_BYTES:].decode("utf-8", "ignore")


def tail_lines(text: str) -> list[str]:
    return text.splitlines()[-TAIL_LINES:]


def iter_ready(runner: Runner) -> Iterator[Task]:
    while True:
        task = runner.claim(None)
        if task is None:
            return
        yield task


def git_dirty(root: Path) -> set[str] | None:
    """Paths git reports as changed or new, outside .workflow/; None outside a git repo."""
    import subprocess

    try:
        proc = subprocess.run(
            ["git", "status", "--porcelain", "-z", "--untracked-files=all"],
            cwd=root,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    paths = set()
    for item in proc.stdout.decode("utf-8", "replace").split("\0"):
        path = item[3:]
        if path and not path.startswith(".workflow/"):
            paths.add(path)
    return paths


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
            outcome["tries"] = [_shown_try(t) for t in stop.tries]
            outcome["tail"] = {
                stream: tail_lines(last[stream]) if last else [] for stream in ("stdout", "stderr")
            }
            release = "blocked"
        return outcome, (release, stop.reason, stop.step.key)
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


def run_task(runner: Runner, task: Task, resume: dict[str, Any] | None = None) -> dict[str, Any]:
    """Execute a claimed task until it completes or stops; record the outcome.

    Returns the result object; `status` is completed, paused, blocked, refused or
    interrupted, and every stop carries the `resume` command (argv) that continues it.
    """
    tid = task["id"]
    before = git_dirty(runner.layout.root)
    result, release = run_until_stop(runner, task, resume)
    if release is not None:
        runner.finish(tid, *release)
        return result
    after = git_dirty(runner.layout.root)
    changed = sorted(after - before) if after is not None and before is not None else []
    summary = runner.write_summary(task, result, changed)
    runner.finish(tid, "completed")
    return {
        "task": tid,
        "status": "completed",
        "summary": runner.layout.relative(summary),
        "steps": [
            {k: s[k] for k in ("key", "name", "status", "elapsed") if k in s}
            for s in result["steps"]
        ],
    }


def _shown_try(entry: dict[str, Any]) -> dict[str, Any]:
    """A try as --json shows it: its tails cut to the last lines."""
    shown = {k: v for k, v in entry.items() if k not in ("stdout", "stderr", "output")}
    for stream in ("stdout", "stderr"):
        if stream in entry:
            shown[stream] = tail_lines(entry[stream])
    return shown
