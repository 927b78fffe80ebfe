"""Stepping: how one step of a task runs, with its checks, the fix loop and the revert.

The engine (wfs.flow.engine) decides what runs in which order; a `Stepper` runs one
step (with the agent steps handed off with it) part by part, as invoke's `Runner` runs
one command for its `Executor`. Its methods are the phases of a step, each small and
each one thing a subclass may do otherwise:

- `start`: the step as its run record left it (the parts done, the fixes, the tree
  to revert to);
- `agent_part` and `command_part`: one part, done by the agent, or run as a command
  (`run_command`), going back to the agent with a failure (`ask`, `fixed`) while the
  step's fix budget lasts;
- `verify`: the checks of the step after its work (`check`), each failure back to the
  agent while the check's budget lasts, then `revert` with auto_revert;
- `failed`: on_error applied; `finish`: the step done, its output bound.

Every change is saved in the run record at once (`save`), so a run stopped anywhere
resumes where it stopped; a step stops the task by raising a `Stop`.
"""

from __future__ import annotations

import time
from typing import Any, NamedTuple

from wfs import git, jsonio
from wfs.errors import WfsError
from wfs.flow import signals, watch
from wfs.flow import steps as run_steps
from wfs.flow.answer import Answer, EmptyAnswer, read_answer
from wfs.flow.brief import as_text, build, resolved_step
from wfs.flow.context import RunContext
from wfs.flow.record import FINISHED, RECORD_INLINE, Records, now
from wfs.flow.variables import MissingInput, check_inputs, substitute_session
from wfs.flow.work import Check, Step, has_agent_work
from wfs.tasks import Task

TAIL_BYTES = 64 * 1024  # of stdout and of stderr, kept in the run record for each failure
TAIL_LINES = 20  # shown to people and in --json
WAITING_FOR_AGENT = "waiting for an agent"
NOT_RUN = (126, 127)  # exit codes of a command that could not be started or found
CHECKPOINT = "checkpoint reached; the agent continues from its partial answer"


class Stop(Exception):
    """The task stops at `step`; the engine records why."""

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


class CheckFailure(NamedTuple):
    check: Check
    why: str


def has_agent_part(step: Step) -> bool:
    return has_agent_work(step)


def agent_only(step: Step) -> bool:
    return all(run_steps.classify(p).kind == "agent" for p in step.parts)


def fix_budget(step: Step) -> int:
    """How many times a failing check of this step goes back to the agent."""
    n = step.spec.get("max_iterations")
    if isinstance(n, int) and not isinstance(n, bool) and n >= 1:
        return n
    return 1 if step.spec.get("on_error") == "retry_once" else 0


def groupable(step: Step) -> bool:
    """An implementation step done by the agent alone, which may share a hand-off."""
    return not step.key.startswith(("pre_analysis/", "acceptance/")) and agent_only(step)


def hands_off_with(before: Step, step: Step) -> bool:
    """Whether `step` goes to the agent in the same hand-off as the step `before` it:
    both are groupable, and `before` has no check (a check runs right after its step)."""
    return groupable(before) and groupable(step) and not before.checks


def names(group: list[Step]) -> str:
    if len(group) == 1:
        return group[0].name
    return f"{group[0].name} (+{len(group) - 1} more in one hand-off)"


def kept_output(context: RunContext, result: run_steps.StepResult) -> str:
    """A command's output as its value: whole, or for one longer than the run keeps
    (run_steps.OUTPUT_KEEP), its last part after a line saying where it is whole."""
    if not result.cut:
        return result.output
    where = "was not kept"
    if result.whole is not None:
        where = f"is in {context.layout.relative(result.whole)}"
    return (
        f"[wfs: the first {result.cut} bytes of this output are left out here; "
        f"the whole output {where}]\n{result.output}"
    )


def file_name(key: str) -> str:
    """A step's key as part of a file's name."""
    return key.replace("/", "-")


def label(step: Step) -> str:
    return f"{step.key} ({step.name})"


def failure(result: run_steps.StepResult, criteria: str | None) -> str:
    """One line saying why a command failed."""
    if result.timed_out:
        return result.error.strip().splitlines()[-1]
    if result.exit_code == 0 and criteria:
        return f"success criteria {criteria!r} not met"
    last = [line.strip() for line in result.error.splitlines() if line.strip()]
    detail = f": {last[-1][:200]}" if last else ""
    return f"exit code {result.exit_code}{detail}"


def tail_bytes(text: str) -> str:
    data = text.encode("utf-8")
    if len(data) <= TAIL_BYTES:
        return text
    return data[-TAIL_BYTES:].decode("utf-8", "ignore")


def tail_lines(text: str) -> list[str]:
    return text.splitlines()[-TAIL_LINES:]


def timeout_of(step: Step) -> float | None:
    timeout = step.spec.get("timeout")
    return float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None


class TaskRun:
    """One run of a task: its steps, its run record, and the values bound so far
    (starting with `values`: wfs.flow.brief.base_values)."""

    def __init__(
        self, task: Task, plan: list[Step], record: dict[str, Any], values: dict[str, Any]
    ) -> None:
        self.task = task
        self.tid: str = task["id"]
        self.plan = plan
        self.record = record
        self.values = values
        self.declared = {s.output for s in plan if s.output}
        self.produced: dict[str, tuple[str, str]] = {}  # output name -> (step key, text)
        # Steps after agent work: a failing check there goes back to the agent.
        self.after_agent: set[str] = set()
        seen_agent = False
        for step in plan:
            if seen_agent:
                self.after_agent.add(step.key)
            seen_agent = seen_agent or has_agent_part(step)

    def bind(self, step: Step, output: str) -> None:
        if step.output:
            self.values[step.output] = output
            self.produced[step.output] = (step.key, output)


class StepRun:
    """One run of a step (with the steps handed off with it), and its entry in the run
    record, saved as it goes. What the record kept of an earlier run of it (the parts
    done, checkpoints, fixes, checks, the tree before it, reverts) goes on."""

    def __init__(
        self,
        run: TaskRun,
        group: list[Step],
        given: dict[str, Any] | None,
        records: Records,
    ) -> None:
        self.run = run
        self.records = records
        self.group = group
        self.step = group[0]
        self.owner = group[-1]  # the step whose checks run after this hand-off
        previous = run.record["steps"].get(self.step.key) or {}
        # The outputs of its finished parts, and the same as the record keeps them.
        self.kept: list[Any] = list(previous.get("parts") or [])
        self.done: list[str] = []
        self.checkpoints: list[str] = list(previous.get("checkpoints") or [])
        self.fixes: list[dict[str, Any]] = list(previous.get("fixes") or [])
        self.waiting_fix: dict[str, Any] | None = previous.get("fix")
        self.tries: list[dict[str, Any]] = []
        self.parts = self.step.parts or ("",)
        self.budget = fix_budget(self.step) if self.step.key in run.after_agent else 0
        # The runs of its checks, the work tree before the step (to revert it) and the
        # reverts done: kept across stops.
        self.checked: list[dict[str, Any]] = list(previous.get("checks") or [])
        self.before: str | None = previous.get("before_tree")
        self.reverts: list[dict[str, Any]] = list(previous.get("reverts") or [])
        self.given = given  # a --resume answer (or skip), for where the step stopped
        self.hows: list[str] = []
        self.started = time.monotonic()
        self.live: watch.StepLog | None = None  # its output, as it comes

    def entry(self, status: str, **extra: Any) -> dict[str, Any]:
        """Its entry in the run record."""
        return {
            "status": status,
            # The outputs of finished parts, to resume a step part way (a large one in
            # a file); a finished step keeps only its output.
            **({} if status in FINISHED else {"parts": self.recorded_parts()}),
            "elapsed": round(time.monotonic() - self.started, 3),
            **({"checkpoints": self.checkpoints} if self.checkpoints else {}),
            **({"fixes": self.fixes} if self.fixes else {}),
            **({"tries": self.tries} if self.tries else {}),
            **({"checks": self.checked} if self.checked else {}),
            **({"before_tree": self.before} if self.before and status not in FINISHED else {}),
            **({"reverts": self.reverts} if self.reverts else {}),
            **extra,
        }

    def save(self, status: str, **extra: Any) -> dict[str, Any]:
        """Record the step as it stands (`status`), then show it (wfs.flow.watch.StepLog:
        as the next step is on its way); a finished step binds its output (the steps of
        its hand-off too)."""
        run, step = self.run, self.step
        tid, record = run.tid, run.record
        output = extra.pop("output", None)
        if output is not None:
            extra.update(self.records.stored_output(tid, step.key, output))
        finished = status in FINISHED
        entry = self.entry(status, **extra)
        record["steps"][step.key] = entry
        if finished:
            for other in self.group[1:]:
                record["steps"][other.key] = {
                    "status": status,
                    **self.records.stored_output(tid, other.key, output or ""),
                    "elapsed": 0.0,
                    "how": f"in one hand-off with {step.key}",
                }
        record["paused"] = None if finished else {"step": step.key, "reason": extra.get("reason")}
        self.records.save(record, tuple(m.key for m in self.group) if finished else ())
        assert self.live is not None
        self.live.finish(status, entry["elapsed"])
        if finished:
            for member in self.group:
                run.bind(member, output or "")
        return entry

    def recorded_parts(self) -> list[Any]:
        """The outputs of the finished parts as the record keeps them (a large one in a
        file, written once)."""
        for number in range(len(self.kept), len(self.done)):
            stored = self.records.stored_output(
                self.run.tid, self.step.key, self.done[number], number + 1
            )
            self.kept.append(stored.get("output", stored))
        return list(self.kept)

    def part_done(self) -> None:
        """A part finished and more of the step is to come (a part, its checks):
        recorded at once (one line appended), so that a runner killed later resumes
        after it instead of doing it again."""
        if len(self.done) < len(self.parts) or self.owner.checks:
            self.run.record["steps"][self.step.key] = self.entry("running")
            self.run.record["paused"] = None
            self.records.save(self.run.record, (self.step.key,))

    def answer_given(self) -> Answer | None:
        """The answer given on resume for where the step stopped, taken once."""
        given, self.given = self.given, None
        if given and given.get("output") is not None:
            return read_answer(given["output"], "the resume")
        return None

    def fixed(self, step: Step, answer: Answer, fix: dict[str, Any]) -> None:
        """Record the agent's answer to the fix brief `fix`; the check then runs again."""
        if answer.kind == "blocked":
            self.save("blocked", reason=answer.reason, answer=answer.text)
            raise StepFailed(
                step,
                f"agent reported TASK BLOCKED while fixing {label(step)}: {answer.reason}",
                [],
            )
        self.fixes.append(
            {
                "iteration": fix["iteration"],
                **({"check": fix["check"]} if "check" in fix else {}),
                "error": fix["error"],
                "answer": answer.text,
            }
        )

    def restart(self) -> None:
        """Its changes were reverted: `--resume` does it again, from the start."""
        self.done.clear()
        self.kept.clear()
        self.fixes.clear()
        self.before = None


class Stepper:
    """Runs the steps of one task run (see the module's docstring). `token` marks the
    processes of its steps (WFS_STEP), `task_log` takes their output as it comes."""

    def __init__(
        self,
        context: RunContext,
        progress: watch.Progress,
        token: str,
        task_log: watch.TaskLog,
    ) -> None:
        self.context = context
        self.records = context.records
        self.progress = progress
        self.env = {"WFS_STEP": token}
        self.task_log = task_log

    # ------------------------------------------------------------ a step, whole

    def run(self, run: TaskRun, group: list[Step], given: dict[str, Any] | None) -> None:
        """Run what is left of the step `group[0]` (with the agent steps grouped with
        it), part by part, with its on_error strategy. Raises a Stop when the task stops
        here. `given`: `{"output": text}` or `{"skip": True}` from `--resume`."""
        state = self.start(run, group, given)
        if given and given.get("skip"):
            state.save("skipped", output="", how="skipped on resume")
            return
        step = state.step
        try:
            while len(state.done) < len(state.parts):
                if not self.run_part(state):
                    return  # skip_optional: the step is skipped
            if state.owner.checks and not self.verify(state):
                return  # skip_optional: the step is skipped
        except EmptyAnswer as empty:
            state.save("paused", reason=empty.message)
            raise Refused(step, f"{label(step)}: {empty.message}") from None
        except signals.Interrupted:
            state.save("interrupted", reason="interrupted")
            raise
        self.finish(state)

    def start(self, run: TaskRun, group: list[Step], given: dict[str, Any] | None) -> StepRun:
        """The step's state as its run record left it; the work tree noted when a check
        may revert it; what sees its output (which tells its start)."""
        state = StepRun(run, group, given, self.records)
        state.done = [
            self.records.entry_output(p) if isinstance(p, dict) else p for p in state.kept
        ]
        if state.before is None and any(c.auto_revert for c in state.owner.checks):
            state.before = git.worktree_tree(self.context.workdir, self.leave_out)
        state.started = time.monotonic()
        state.live = self.task_log.step(state.step.key, names(group))
        return state

    def brief_for(
        self, run: TaskRun, group: list[Step], command: str, **extra: Any
    ) -> dict[str, Any]:
        """The brief for `group` (wfs.flow.brief): `extra`: checkpoints, fix, error."""
        return step_brief(self.context, run, group, command, **extra)

    @property
    def leave_out(self) -> str:
        """What a snapshot of the work tree leaves out: wfs's own folder."""
        return self.context.layout.relative(self.context.layout.workflow)

    def finish(self, state: StepRun) -> None:
        """Every part done and every check as expected: the step is done."""
        if state.fixes:
            count = len(state.fixes)
            state.hows.append(f"after {count} fix{'es' if count != 1 else ''}")
        output = "\n".join(part.rstrip("\n") for part in state.done)
        hows = {"how": ", ".join(state.hows)} if state.hows else {}
        state.save("done", output=output, **hows)

    # ------------------------------------------------------------ its parts

    def run_part(self, state: StepRun) -> bool:
        """Do the next part of the step; False when it failed and the step is skipped."""
        index = len(state.done)
        text = substitute_session(state.parts[index], self.context.sid)
        command = run_steps.classify(text) if text.strip() else run_steps.Command("agent", "")
        if command.kind == "agent":
            self.agent_part(state, command.text, index)
            return True
        return self.command_part(state, command, text, index)

    def agent_part(self, state: StepRun, command: str, index: int) -> None:
        """A part for the agent: its answer (given on resume, or asked for) is the
        part's output; a checkpoint pauses, TASK BLOCKED fails the step."""
        step = state.step
        answer = state.answer_given()
        if answer is not None:
            state.hows.append("given on resume")
        else:
            answer = self.ask(state, state.group, command, index, state.checkpoints)
            state.hows.append("answered by the agent")
        if answer.kind == "checkpoint":
            state.checkpoints.append(answer.text)
            brief = self.brief_for(state.run, state.group, command, checkpoints=state.checkpoints)
            state.save("paused", reason=CHECKPOINT)
            raise Pause(step, CHECKPOINT, brief)
        if answer.kind == "blocked":
            state.save("blocked", reason=answer.reason, answer=answer.text)
            raise StepFailed(
                step, f"agent reported TASK BLOCKED at {label(step)}: {answer.reason}", []
            )
        state.done.append("\n\n".join([*state.checkpoints, answer.text]))
        state.checkpoints = []
        state.part_done()

    def command_part(
        self, state: StepRun, command: run_steps.Command, text: str, index: int
    ) -> bool:
        """A part run as a command. A failure after agent work goes back to the agent as
        a fix brief, while the step's fix budget lasts, and the command runs again.
        False when it failed and the step is skipped (skip_optional)."""
        step = state.step
        if state.waiting_fix is not None:
            answer = state.answer_given()
            if answer is not None:
                state.fixed(step, answer, state.waiting_fix)
        state.given = None
        state.waiting_fix = None
        while True:
            why, output, failed_tries = self.run_command(
                state.run,
                step,
                command,
                text,
                index,
                state.live,
                retries=1 if state.budget else None,
            )
            state.tries.extend(failed_tries)
            if why is None:
                state.done.append(output)
                state.part_done()
                return True
            if len(state.fixes) >= state.budget:
                self.failed(state, why)
                return False
            fix = {
                "step": step.key,
                "command": text,
                "error": why,
                "stdout": tail_lines(failed_tries[-1].get("stdout", "")),
                "stderr": tail_lines(failed_tries[-1].get("stderr", "")),
                "iteration": len(state.fixes) + 1,
                "of": state.budget,
            }
            shown = {"task": state.run.tid, "step": step.key, "name": step.name}
            self.progress("fix", {**shown, **fix})
            answer = self.ask(state, [step], "", index, [], fix=fix)
            state.fixed(step, answer, fix)

    def run_command(
        self,
        run: TaskRun,
        step: Step,
        command: run_steps.Command,
        text: str,
        index: int,
        live: watch.StepLog | None,
        retries: int | None,
    ) -> tuple[str | None, str, list[dict[str, Any]]]:
        """Run one command part: (None, output, failed tries) on success, (why, "",
        failed tries) on failure. `retries`: how many tries (default: two for
        `retry_once`, else one)."""
        criteria = step.spec.get("success_criteria")
        criteria = criteria if isinstance(criteria, str) else None
        timeout = timeout_of(step)
        if retries is None:
            retries = 2 if step.spec.get("on_error") == "retry_once" else 1
        tries: list[dict[str, Any]] = []
        for _ in range(retries):
            try:
                check_inputs(text, run.values, run.declared)
            except MissingInput as missing:
                tries.append({"part": index, "error": missing.message})
                return missing.message, "", tries
            began = time.monotonic()
            spill = self.records.output_path(run.tid, f"{file_name(step.key)}.{index + 1}.whole")
            result = run_steps.run_command(
                command, run.values, self.context.workdir, timeout, self.env, live, spill
            )
            entry: dict[str, Any] = {
                "part": index,
                "exit_code": result.exit_code,
                "elapsed": round(time.monotonic() - began, 3),
            }
            if run_steps.meets(criteria, result, timeout):
                return None, kept_output(self.context, result), tries
            entry.update(
                error=failure(result, criteria),
                stdout=tail_bytes(result.output),
                stderr=tail_bytes(result.error),
            )
            tries.append(entry)
        return tries[-1]["error"], "", tries

    # ------------------------------------------------------------ the agent

    def ask(
        self,
        state: StepRun,
        group: list[Step],
        command: str,
        index: int,
        checkpoints: list[str],
        fix: dict[str, Any] | None = None,
    ) -> Answer:
        """The agent's answer to the brief for `group` (or to a fix brief). Pauses when
        no agent is configured; a failing agent fails the step."""
        step, run = group[0], state.run
        brief = self.brief_for(run, group, command, checkpoints=checkpoints, fix=fix)
        handoff = self.context.routes.for_task(run.task)
        self.records.save(run.record)  # whole, for an agent that reads it (brief.paths)
        if handoff is None:
            reason = WAITING_FOR_AGENT
            if fix:
                reason = f"waiting for an agent to fix {step.key}: {fix['error']}"
            state.save("paused", reason=reason, **({"fix": fix} if fix else {}))
            raise Pause(step, reason, brief)
        stdin = jsonio.compact(brief).decode() if handoff.form == "json" else as_text(brief)
        spill = self.records.output_path(run.tid, f"{file_name(step.key)}.answer.whole")
        result = run_steps.run_agent(
            handoff.command, stdin, self.context.workdir, self.env, state.live, spill
        )
        if result.exit_code != 0 or result.timed_out:
            error = f"the agent `{handoff.command}` failed: {failure(result, None)}"
            entry = {"part": index, "exit_code": result.exit_code, "error": error}
            entry.update(stdout=tail_bytes(result.output), stderr=tail_bytes(result.error))
            reason = f"step {label(step)} failed: {error}"
            state.save("failed", reason=reason, error=error, tries=[entry])
            raise StepFailed(step, reason, [entry])
        return read_answer(kept_output(self.context, result), f"the agent `{handoff.command}`")

    # ------------------------------------------------------------ its checks

    def verify(self, state: StepRun) -> bool:
        """Run the checks of the hand-off's last step after its work, in order. A check
        that must pass and fails goes back to the agent as a fix brief, up to its budget
        of fixes, and runs again. When a check does not come out as the author expects
        after its last fix, the step fails (reverted first with auto_revert): False
        when it is then skipped."""
        unmet = self.run_checks(state)
        if unmet is None:
            return True
        why = unmet.why
        if unmet.check.auto_revert:
            note, undone = self.revert(state)
            why = f"{why}; {note}"
            if undone:  # --resume does the step again, from the start
                state.restart()
        self.failed(state, why)
        return False

    def run_checks(self, state: StepRun) -> CheckFailure | None:
        """The first check that did not come out as the author expects, after its last
        fix; None when every one did."""
        owner = state.owner
        waiting = state.waiting_fix
        if waiting is not None and "check" in waiting:
            answer = state.answer_given()
            if answer is not None:
                state.fixed(owner, answer, waiting)
        for number, check in enumerate(owner.checks, start=1):
            while True:
                why, result = self.check(state, number, check)
                if why is None:
                    break
                used = sum(1 for f in state.fixes if "check" in f)
                # A check that could not be built (an input not bound) is no work to fix.
                if result is None or check.must_fail or used >= check.fixes:
                    if used:
                        why += f" (after {used} fix{'es' if used != 1 else ''})"
                    return CheckFailure(check, why)
                fix = {
                    "step": owner.key,
                    "check": check.pointer,
                    **({"phase": check.phase} if check.phase else {}),
                    "command": check.command,
                    "error": why,
                    "stdout": tail_lines(result.output),
                    "stderr": tail_lines(result.error),
                    "iteration": used + 1,
                    "of": check.fixes,
                }
                shown = {"task": state.run.tid, "step": owner.key, "name": owner.name}
                self.progress("fix", {**shown, **fix})
                answer = self.ask(state, [owner], "", len(state.parts) - 1, [], fix=fix)
                state.fixed(owner, answer, fix)
        state.hows.append(checks_said(owner.checks))
        return None

    def check(
        self, state: StepRun, number: int, check: Check
    ) -> tuple[str | None, run_steps.StepResult | None]:
        """Run one check: (None, result) when it came out as the author expects, else
        (why not, result). Every run is kept in the run record (`checks`), and a
        failing one also as a try, whose output is shown."""
        owner, run = state.owner, state.run
        text = substitute_session(check.command, self.context.sid)
        shown = {"check": number, "command": check.command}
        try:
            check_inputs(text, run.values, run.declared)
        except MissingInput as missing:
            state.checked.append({**shown, "outcome": "not run", "error": missing.message})
            state.tries.append({**shown, "error": missing.message})
            return missing.message, None
        began = time.monotonic()
        result = run_steps.run_command(
            run_steps.classify(text),
            run.values,
            self.context.workdir,
            timeout_of(owner),
            self.env,
            state.live,
        )
        ran = not result.timed_out and result.exit_code not in NOT_RUN
        outcome = check_outcome(check, ran, ran and result.exit_code == 0)
        entry = {
            **shown,
            "exit_code": result.exit_code,
            "elapsed": round(time.monotonic() - began, 3),
            "outcome": outcome,
            "stdout": tail_bytes(result.output),
            "stderr": tail_bytes(result.error),
        }
        state.checked.append(entry)
        step = {"task": run.tid, "step": owner.key, "name": owner.name}
        self.progress("check", {**step, **shown, "outcome": outcome})
        if (outcome == "passed" and not check.must_fail) or outcome == "failed as expected":
            return None, result
        why = check_failure(check, ran, result)
        state.tries.append({**entry, "error": why})
        return why, result

    def revert(self, state: StepRun) -> tuple[str, bool]:
        """auto_revert: put the work tree back as it was before the step (only the files
        the step changed, through git). Returns what was done, to say in the reason,
        and whether anything was reverted; the diff undone is kept in the run record."""
        before, reverts, tid = state.before, state.reverts, state.run.tid
        if before is None:
            return "auto_revert: not a git work tree, so nothing was reverted", False
        try:
            reverted = git.revert_worktree(self.context.workdir, before, self.leave_out)
        except WfsError as err:
            return f"auto_revert failed ({err.message}); nothing was reverted", False
        if reverted is None:
            return "auto_revert: git cannot read the work tree now; nothing was reverted", False
        if not reverted.paths:
            return "auto_revert: the step changed no file", False
        kept: dict[str, Any] = {"at": now(), "files": reverted.paths}
        if len(reverted.diff.encode("utf-8", "surrogateescape")) <= RECORD_INLINE:
            kept["diff"] = reverted.diff
        else:
            name = f"{file_name(state.owner.key)}.reverted-{len(reverts) + 1}.diff"
            kept["diff_file"] = self.records.keep_large(tid, name, reverted.diff)
        reverts.append(kept)
        shown = ", ".join(reverted.paths[:5]) + (", …" if len(reverted.paths) > 5 else "")
        count = len(reverted.paths)
        where = kept.get("diff_file") or self.context.layout.relative(self.records.record_path(tid))
        return (
            f"auto_revert: the step's changes were reverted ({count} file"
            f"{'s' if count != 1 else ''}: {shown}); the diff is kept in {where}",
            True,
        )

    # ------------------------------------------------------------ on_error

    def failed(self, state: StepRun, error: str) -> None:
        """Apply on_error to a failed step: skipped (returns), or a Stop."""
        step = state.step
        on_error = step.spec.get("on_error", "fail")
        if on_error == "skip_optional":
            state.save("skipped", output="", error=error)
            return
        reason = f"step {label(step)} failed: {error}"
        if on_error == "manual_intervention":
            reason = f"manual intervention needed: {reason}"
            state.save("failed", reason=reason, error=error)
            brief = self.brief_for(state.run, [step], "", error=error)
            raise Pause(step, reason, brief, manual=True)
        entry = state.save("failed", reason=reason, error=error)
        raise StepFailed(step, reason, entry.get("tries", []))


def check_outcome(check: Check, ran: bool, passed: bool) -> str:
    """How a check came out, in the record's words."""
    if not ran:
        return "could not run"
    if check.must_fail:
        return "passed" if passed else "failed as expected"
    return "passed" if passed else "failed"


def check_failure(check: Check, ran: bool, result: run_steps.StepResult) -> str:
    """Why a check did not come out as the author expects, in one line."""
    command = f"`{check.command}`"
    if not ran:
        why = f"the check {command} could not run: {failure(result, None)}"
        if check.must_fail:
            why += f"; a {check.phase or 'failing'} check must run and fail"
        return why
    if check.must_fail:
        return f"the check {command} passed, but it must fail: " + (
            "the test passes before the code exists"
            if check.phase == "red"
            else f"expected_failure: {check.expected or 'true'}"
        )
    after = " after the refactoring" if check.phase == "refactor" else ""
    return f"the check {command} failed{after}: {failure(result, None)}"


def checks_said(checks: tuple[Check, ...] | list[Check]) -> str:
    """How the checks of a step came out, for the record's `how`: `green check passed`."""
    outcomes = dict.fromkeys("failed as expected" if c.must_fail else "passed" for c in checks)
    phases = dict.fromkeys(c.phase for c in checks if c.phase)
    said = f"{'/'.join(phases)} " if phases else ""
    plural = "s" if len(checks) > 1 else ""
    return f"{said}check{plural} {' and '.join(outcomes)}"


def step_brief(
    context: RunContext,
    run: TaskRun,
    group: list[Step],
    command: str,
    checkpoints: list[str] | None = None,
    fix: dict[str, Any] | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """Everything an agent (or a person) needs to do the steps of `group`."""
    steps = [
        resolved_step(context, s, run.values, command if n == 0 else None)
        for n, s in enumerate(group)
    ]
    if error:
        steps[0]["error"] = error
    return build(context, run.task, steps, dict(run.produced), checkpoints=checkpoints, fix=fix)
