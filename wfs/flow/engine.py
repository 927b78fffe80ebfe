"""The flow-control engine: claim a task, run its steps, record, pause, resume, complete.

A task is claimed under the session lock (status `active`, owner recorded), so several
`wfs execute` processes never run the same task. Steps run outside the lock. Every
step's outcome and output go to a run record (`.runs/<ID>.json`, ignored by git), so a
resumed run never repeats a finished step.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from wfs import store
from wfs.edit import editing, refuse_container, unknown_task
from wfs.errors import WfsError
from wfs.flow import steps as run_steps
from wfs.flow.variables import (
    MissingInput,
    as_text,
    check_inputs,
    substitute_prose,
    substitute_session,
)
from wfs.index import load_skeletons
from wfs.layout import Layout, check_task_id
from wfs.tasks import Task, TaskIndex, depends_on, obj

RUNS_DIR = ".runs"
ON_ERROR = ("skip_optional", "fail", "retry_once", "manual_intervention")
PROSE_FIELDS = ("title", "description", "action")
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


class Step(NamedTuple):
    key: str  # "pre_analysis/0", "implementation_approach/2"
    name: str  # step id or title, for progress lines
    spec: dict[str, Any]
    output: str | None  # variable the result binds to


class Pause(Exception):
    """Execution stops, waiting for an agent or a person (exit 3)."""

    def __init__(self, step: Step, reason: str, brief: dict[str, Any]) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason
        self.brief = brief


class StepFailed(Exception):
    def __init__(self, step: Step, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason


Progress = Callable[[str, dict[str, Any]], None]


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def owner_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def ordered_steps(task: Task) -> list[Step]:
    """pre_analysis in order, then implementation_approach in depends_on order."""
    flow = obj(task, "flow_control")
    found: list[Step] = []
    pre = flow.get("pre_analysis")
    for i, spec in enumerate(pre if isinstance(pre, list) else []):
        if isinstance(spec, dict):
            name = str(spec.get("step", i + 1))
            found.append(Step(f"pre_analysis/{i}", name, spec, _name(spec.get("output_to"))))
    approach = flow.get("implementation_approach")
    impl = [s for s in approach if isinstance(s, dict)] if isinstance(approach, list) else []
    by_number = {s.get("step"): s for s in impl}
    done: set[Any] = set()
    visiting: set[Any] = set()

    def visit(spec: dict[str, Any]) -> None:
        number = spec.get("step")
        if number in done:
            return
        if number in visiting:
            raise WfsError(
                f"{task.get('id')}: implementation steps depend on each other in a cycle"
            )
        visiting.add(number)
        deps = spec.get("depends_on")
        for dep in deps if isinstance(deps, list) else []:
            if dep in by_number:
                visit(by_number[dep])
        visiting.discard(number)
        done.add(number)
        title = str(spec.get("title") or f"step {number}")
        found.append(
            Step(f"implementation_approach/{number}", title, spec, _name(spec.get("output")))
        )

    for spec in impl:
        visit(spec)
    return found


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


class Runner:
    """Runs the tasks of one session."""

    def __init__(
        self, layout: Layout, sid: str, agent: str | None, progress: Progress | None = None
    ) -> None:
        self.layout = layout
        self.sid = sid
        self.agent = agent
        self.progress = progress or (lambda event, data: None)
        self.owner = owner_id()

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
                    hint = (
                        f"; resume it with `wfs execute --resume {tid}`"
                        if status in ("active", "blocked")
                        else ""
                    )
                    raise WfsError(f"{tid} is {status}, not pending{hint}")
                waiting = index.unmet_dependencies(tid)
                if waiting:
                    raise WfsError(f"{tid} is not ready: waiting on {', '.join(waiting)}")
            task = draft.get(tid)
            self.preflight(task)
            execution = dict(obj(task, "execution"))
            execution.update(
                claimed_by=self.owner,
                started_at=now(),
                attempts=int(execution.get("attempts", 0)) + 1,
            )
            execution.pop("blocked_reason", None)
            execution.pop("paused_step", None)
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            return claimed

    def preflight(self, task: Task) -> None:
        """Refuse, before any change, a task whose built-ins would leave the project root."""
        problems = []
        for step in ordered_steps(task):
            for text in self.commands(step):
                command = run_steps.classify(substitute_session(text, self.sid))
                why = run_steps.escapes_root(command, self.layout.root)
                if why:
                    problems.append(f"{step.key} ({step.name}): {why}")
        if problems:
            raise WfsError(
                f"{task['id']} is unsafe to run; nothing was changed:\n" + "\n".join(problems)
            )

    def reclaim(self, tid: str) -> Task:
        """Take back a paused or blocked task for `--resume`."""
        with editing(self.layout, self.sid, check=False) as draft:
            task = draft.get(check_task_id(tid))
            record = self.load_record(tid)
            if not record.get("paused"):
                raise WfsError(f"{tid} is not paused; nothing to resume")
            execution = dict(obj(task, "execution"))
            execution.update(claimed_by=self.owner, resumed_at=now())
            execution.pop("blocked_reason", None)
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            return claimed

    def finish(
        self, tid: str, status: str, reason: str | None = None, paused_step: str | None = None
    ) -> None:
        with editing(self.layout, self.sid, check=False) as draft:
            task = draft.get(tid)
            execution = dict(obj(task, "execution"))
            execution.pop("claimed_by", None)
            execution["finished_at" if status == "completed" else "stopped_at"] = now()
            for key, value in (("blocked_reason", reason), ("paused_step", paused_step)):
                if value is None:
                    execution.pop(key, None)
                else:
                    execution[key] = value
            draft.put({**task, "status": status, "execution": execution})

    # ------------------------------------------------------------ run records

    def record_path(self, tid: str) -> Path:
        return self.layout.session_dir(self.sid) / RUNS_DIR / f"{check_task_id(tid)}.json"

    def load_record(self, tid: str) -> dict[str, Any]:
        path = self.record_path(tid)
        if not path.exists():
            return {"task": tid, "steps": {}, "paused": None}
        data = store.read_json(path, self.layout.relative(path))
        if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
            raise WfsError(f"{self.layout.relative(path)}: not a wfs run record")
        return data

    def save_record(self, record: dict[str, Any]) -> None:
        # Atomic but not fsynced: a killed process loses nothing (the page cache
        # survives it), and after a power cut the task's steps simply run again.
        path = self.record_path(record["task"])
        store.write_bytes(path, store.dumps(record), durable=False)

    # ------------------------------------------------------------ variables

    def base_values(self, task: Task) -> dict[str, Any]:
        context = obj(task, "context")
        values: dict[str, Any] = {name: context[name] for name in TASK_VARIABLES if name in context}
        values.update(id=task.get("id"), title=task.get("title"), session_id=self.sid)
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

    def execute(self, task: Task, resume: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run a claimed task's steps; returns the result object. Raises Pause."""
        tid = task["id"]
        record = self.load_record(tid)
        if resume is None:
            record = {"task": tid, "started_at": now(), "steps": {}, "paused": None}
        values = self.base_values(task)
        plan = ordered_steps(task)
        declared = {s.output for s in plan if s.output}
        for step in plan:
            entry = record["steps"].get(step.key)
            if entry and entry["status"] in ("done", "skipped"):
                self._bind(values, step, entry.get("output", ""))
                continue
            if (
                resume is not None
                and record.get("paused", {})
                and record["paused"]["step"] == step.key
            ):
                given = self._resumed(step, resume)
                if given is not None:
                    record["steps"][step.key] = given
                    record["paused"] = None
                    self.save_record(record)
                    self._bind(values, step, given["output"])
                    self.progress(
                        "step",
                        {
                            "task": tid,
                            "step": step.key,
                            "name": step.name,
                            "outcome": given["status"],
                            "elapsed": 0.0,
                        },
                    )
                    continue
            record["paused"] = None
            try:
                entry = self.run_step(task, step, values, declared)
            except Pause as pause:
                record["paused"] = {"step": step.key, "reason": pause.reason}
                self.save_record(record)
                raise
            record["steps"][step.key] = entry
            self.save_record(record)
            self._bind(values, step, entry.get("output", ""))
        record["finished_at"] = now()
        self.save_record(record)
        steps = [
            record["steps"][s.key] | {"key": s.key, "name": s.name, "bind": s.output} for s in plan
        ]
        return {"task": tid, "steps": steps, "values": values}

    def _bind(self, values: dict[str, Any], step: Step, output: str) -> None:
        if step.output:
            values[step.output] = output

    def _resumed(self, step: Step, resume: dict[str, Any]) -> dict[str, Any] | None:
        if resume.get("skip"):
            return {"status": "skipped", "output": "", "how": "skipped on resume"}
        if resume.get("output") is not None:
            return {"status": "done", "output": resume["output"], "how": "given on resume"}
        return None  # run the step again

    def run_step(
        self, task: Task, step: Step, values: dict[str, Any], declared: set[str]
    ) -> dict[str, Any]:
        """Run one step with its on_error strategy; returns its record entry."""
        on_error = step.spec.get("on_error", "fail")
        if on_error not in ON_ERROR:
            on_error = "fail"
        started = time.monotonic()
        self.progress("start", {"task": task["id"], "step": step.key, "name": step.name})
        attempts = 0
        while True:
            attempts += 1
            ok, output, error = self._attempt(task, step, values, declared)
            if ok or on_error != "retry_once" or attempts > 1:
                break
        elapsed = round(time.monotonic() - started, 3)
        entry = {
            "status": "done" if ok else "failed",
            "output": output,
            "error": error,
            "attempts": attempts,
            "elapsed": elapsed,
        }
        if not ok:
            if on_error == "skip_optional":
                entry.update(status="skipped", output="")
            elif on_error == "manual_intervention":
                self.progress(
                    "step",
                    {
                        "task": task["id"],
                        "step": step.key,
                        "name": step.name,
                        "outcome": "paused",
                        "elapsed": elapsed,
                    },
                )
                raise Pause(
                    step,
                    f"manual intervention needed: {error}",
                    self.brief(task, step, values, error),
                )
        self.progress(
            "step",
            {
                "task": task["id"],
                "step": step.key,
                "name": step.name,
                "outcome": entry["status"],
                "elapsed": elapsed,
            },
        )
        if entry["status"] == "failed":
            raise StepFailed(step, f"step {step.key} ({step.name}) failed: {error}")
        return entry

    def _attempt(
        self, task: Task, step: Step, values: dict[str, Any], declared: set[str]
    ) -> tuple[bool, str, str]:
        commands = self.commands(step)
        criteria = step.spec.get("success_criteria")
        timeout = step.spec.get("timeout")
        timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
        outputs: list[str] = []
        for text in commands or [""]:
            text = substitute_session(text, self.sid)
            command = run_steps.classify(text)
            if command.kind == "agent":
                result = self.agent_step(task, step, values, command.text)
            else:
                try:
                    check_inputs(text, values, declared)
                except MissingInput as missing:
                    return False, "", missing.message
                result = run_steps.run_command(command, values, self.layout.root, timeout)
            if not run_steps.meets(criteria if isinstance(criteria, str) else None, result):
                detail = result.error.strip() or f"exit code {result.exit_code}"
                if result.exit_code == 0 and criteria:
                    detail = f"success criteria {criteria!r} not met"
                return False, result.output, detail
            outputs.append(result.output)
        return True, "\n".join(o.rstrip("\n") for o in outputs), ""

    def commands(self, step: Step) -> list[str]:
        spec = step.spec
        if isinstance(spec.get("commands"), list):
            return [c for c in spec["commands"] if isinstance(c, str)]
        if isinstance(spec.get("command"), str):
            return [spec["command"]]
        return []

    def agent_step(
        self, task: Task, step: Step, values: dict[str, Any], command: str
    ) -> run_steps.StepResult:
        brief = self.brief(task, step, values, None, command)
        if not self.agent:
            raise Pause(step, "waiting for an agent", brief)
        import orjson

        return run_steps.run_agent(self.agent, orjson.dumps(brief).decode(), self.layout.root, None)

    def brief(
        self,
        task: Task,
        step: Step,
        values: dict[str, Any],
        error: str | None,
        command: str | None = None,
    ) -> dict[str, Any]:
        """Everything an agent (or a person) needs to do one step, fully resolved."""
        resolved: dict[str, Any] = {"key": step.key, "name": step.name}
        for field in PROSE_FIELDS:
            if isinstance(step.spec.get(field), str):
                resolved[field] = substitute_prose(
                    substitute_session(step.spec[field], self.sid), values
                )
        for field in ("modification_points", "logic_flow"):
            items = step.spec.get(field)
            if isinstance(items, list):
                resolved[field] = [substitute_prose(as_text(i), values) for i in items]
        if command:
            resolved["command"] = substitute_prose(command, values)
        if step.output:
            resolved["output"] = step.output
        if error:
            resolved["error"] = error
        session = self.session_phase()
        return {
            "task": task,
            "workflow": {"session": self.sid, "phase": session},
            "step": resolved,
            "resume": f"wfs --session {self.sid} execute --resume {task['id']} "
            "--output-file FILE   (or --output TEXT, or --skip)",
        }

    def session_phase(self) -> str:
        from wfs.sessions import load_session

        return str(load_session(self.layout, self.sid).get("current_phase"))

    # ------------------------------------------------------------ completion

    def write_summary(self, task: Task, result: dict[str, Any], changed: list[str]) -> Path:
        from wfs.render import render_summary

        path = self.summary_path(task["id"])
        store.write_text(path, render_summary(task, result["steps"], changed))
        return path


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


def run_task(runner: Runner, task: Task, resume: dict[str, Any] | None = None) -> dict[str, Any]:
    """Execute a claimed task to completion, failure or pause; record the outcome."""
    tid = task["id"]
    before = git_dirty(runner.layout.root)
    try:
        result = runner.execute(task, resume)
    except Pause as pause:
        manual = pause.reason.startswith("manual intervention")
        runner.finish(
            tid,
            "blocked" if manual else "active",
            reason=pause.reason if manual else None,
            paused_step=pause.step.key,
        )
        return {"task": tid, "status": "paused", "reason": pause.reason, "brief": pause.brief}
    except (StepFailed, WfsError) as failure:
        reason = failure.reason if isinstance(failure, StepFailed) else failure.message
        runner.finish(tid, "blocked", reason=reason)
        return {"task": tid, "status": "blocked", "reason": reason}
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


def dry_run(runner: Runner, task: Task) -> dict[str, Any]:
    """Every step with its commands and prose resolved as far as possible; runs nothing."""
    values = runner.base_values(task)
    plan = ordered_steps(task)
    producers = {s.output: s.key for s in plan if s.output}
    rows = []
    for step in plan:
        commands = [substitute_session(c, runner.sid) for c in runner.commands(step)]
        kinds = [run_steps.classify(c).kind for c in commands] or ["agent"]
        texts = commands or [step.spec.get("description") or step.spec.get("action") or ""]
        resolved = [substitute_prose(str(t), values) for t in texts]
        waiting = sorted(
            {
                m.group(1)
                for t in texts
                for m in _tokens(str(t))
                if m.group(1).split(".")[0] in producers and m.group(1).split(".")[0] not in values
            }
        )
        rows.append(
            {
                "key": step.key,
                "name": step.name,
                "kinds": kinds,
                "resolved": resolved,
                "output": step.output,
                "on_error": step.spec.get("on_error", "fail"),
                "waits_for": {name: producers[name.split(".")[0]] for name in waiting},
            }
        )
        if step.output:
            values[step.output] = f"<output of {step.key}>"
    return {"task": task["id"], "title": task.get("title"), "steps": rows}


def _tokens(text: str) -> Iterator[Any]:
    from wfs.flow.variables import TOKEN

    return TOKEN.finditer(text)


def run_inline(runner: Runner, task: Task) -> dict[str, Any]:
    """Run inline-format steps in order, accumulating variables (no run record)."""
    values = runner.base_values(task) if runner.sid else {}
    plan = ordered_steps(task)
    declared = {s.output for s in plan if s.output}
    done = []
    for step in plan:
        try:
            entry = runner.run_step(task, step, values, declared)
        except Pause as pause:
            return {
                "status": "paused",
                "task": task["id"],
                "reason": pause.reason,
                "brief": pause.brief,
                "values": _bound(plan, values),
            }
        except StepFailed as failure:
            return {"status": "failed", "reason": failure.reason, "values": _bound(plan, values)}
        done.append(step.key)
        if step.output:
            values[step.output] = entry["output"]
    return {"status": "completed", "steps": done, "values": _bound(plan, values)}


def _bound(plan: list[Step], values: dict[str, Any]) -> dict[str, Any]:
    return {s.output: values[s.output] for s in plan if s.output and s.output in values}
