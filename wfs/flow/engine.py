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

import functools
import os
import time
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from wfs import git, jsonio, leases, platform, store
from wfs.claims import claim_alive, owner_id
from wfs.edit import editing, refuse_container
from wfs.errors import WfsError
from wfs.flow import brief as brief_mod
from wfs.flow import signals, watch, worktrees
from wfs.flow import steps as run_steps
from wfs.flow.answer import Answer, EmptyAnswer, read_answer
from wfs.flow.brief import as_text
from wfs.flow.routing import AgentRoutes
from wfs.flow.summary import keep_authored_summary, needs_link, render_summary
from wfs.flow.variables import MissingInput, check_inputs, substitute_session, task_values
from wfs.flow.work import Check, Step, Uninterpretable, has_agent_work, task_steps
from wfs.formats import canonical_task, status_of
from wfs.index import answers
from wfs.layout import Layout, check_task_id
from wfs.query import one_line
from wfs.rules import TaskSource, refusal
from wfs.tasks import Task, obj, read_task, skeleton, unknown_task

RUNS_DIR = ".runs"
TAIL_BYTES = 64 * 1024  # of stdout and of stderr, kept in the run record for each failure
RECORD_INLINE = 256 * 1024  # a larger step output is kept in a file beside the record
TAIL_LINES = 20  # shown to people and in --json
FINISHED = ("done", "skipped")
LOG_LINES = 1000  # finished steps appended to a run record's log before it is rewritten
WAITING_FOR_AGENT = "waiting for an agent"
NOT_RUN = (126, 127)  # exit codes of a command that could not be started or found
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


class Checking(NamedTuple):
    """The checks of a step being run: `owner` holds them (the last step of a hand-off)."""

    owner: Step
    part: int  # the part after which they run (for briefs)
    given: dict[str, Any] | None  # a --resume answer, for a fix that waits for one
    waiting_fix: dict[str, Any] | None  # the fix brief the step stopped on
    runs: list[dict[str, Any]]  # every run of a check (the run record's `checks`)
    tries: list[dict[str, Any]]  # the failures, shown when the step stops


class CheckFailure(NamedTuple):
    check: Check
    why: str


class StepFailed(Stop):
    """A step failed (or its agent answered TASK BLOCKED): the task is blocked (exit 1)."""

    def __init__(self, step: Step, reason: str, tries: list[dict[str, Any]]) -> None:
        super().__init__(step, reason)
        self.tries = tries


class DoneElsewhere(WfsError):
    """The task requested was completed in another clone: nothing to run here."""

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


class HeldElsewhere(WfsError):
    """With a claims remote: the task requested is leased by a live holder elsewhere
    (another clone runs it); nothing to run here, and nothing wrong."""

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


class NotRunnable(WfsError):
    """A task refused before it is claimed (exit 2, nothing changed)."""

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


Progress = watch.Progress


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class TaskRun:
    """One run of a task: its steps, its run record, and the values bound so far."""

    def __init__(self, runner: Runner, task: Task, plan: list[Step], record: dict[str, Any]):
        self.task = task
        self.plan = plan
        self.record = record
        self.values = runner.base_values(task)
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


class Runner:
    """Runs the tasks of one session."""

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
    ) -> None:
        self.layout = layout
        # The options of this run that a resumed run needs too (--agent, --remote...):
        # every resume command printed carries them.
        self.resume_options = resume_options or []
        self.remote = remote  # --remote: the claims remote, else the configured one
        self.sid = sid
        self.routes = routes or AgentRoutes(None, {}, None)
        self.progress = progress or (lambda event, data: None)
        self.listening = progress is not None  # someone wants the output line by line
        self.owner = owner_id()
        # How people and agents call wfs again: the resume commands start with it.
        self.command_prefix = command_prefix or ["wfs", "--session", sid]
        self.scope = scope  # "task": consecutive agent steps in one hand-off; "step": one each
        self.log = store.Appender()  # the current run record's log
        self.output_log = store.Appender()  # the running task's output log (wfs.flow.watch)
        self.task_log: watch.TaskLog | None = None
        self.live: watch.StepLog | None = None  # the running step's output, as it comes
        self.holding: leases.Holding | None = None  # the running task's lease, renewed
        # With --jobs N: the task's own git worktree, where its steps run (else the
        # project root), and whose branch is merged back when the task completes.
        self.worktree: worktrees.Place | None = None
        self.recovering = False  # resuming a run that stopped by itself (see _reclaim)
        self.in_worktrees = False  # each task in a worktree of its own (--jobs N)

    @property
    def workdir(self) -> Path:
        """Where the task's steps and agent work."""
        return self.worktree.path if self.worktree is not None else self.layout.root

    def resume_argv(self, tid: str) -> list[str]:
        return [*self.command_prefix, "execute", *self.resume_options, "--resume", tid]

    @functools.cached_property
    def leave_out(self) -> str:
        """What a snapshot of the work tree leaves out: wfs's own folder."""
        return self.layout.relative(self.layout.workflow)

    @functools.cached_property
    def session_dir(self) -> Path:
        """The session's folder, looked up once (the run writes there after every step)."""
        return self.layout.session_dir(self.sid)

    # ------------------------------------------------------------ claiming

    @functools.cached_property
    def claims(self) -> leases.ClaimStore:
        """Where this checkout's claims are leased (wfs.leases): the claims remote, else
        the clone's common git directory, else `.workflow/.locks/claims/`."""
        return leases.claim_store(self.layout, self.remote)

    def where(self, tid: str) -> str:
        """Where this runner works on `tid`, as its lease names it: the task's own
        worktree (with --jobs N), else the project root; prefixed by this machine's
        name for a claims remote."""
        place = worktrees.path_of(self.layout, self.sid, tid) if self.in_worktrees else None
        root = str(place if place is not None else self.workdir)
        remote = isinstance(self.claims, leases.RemoteStore)
        return f"{platform.host_name()}:{root}" if remote else root

    @functools.cached_property
    def travels(self) -> str | None:
        """The claims remote that the session's branch travels through (fetched before
        each task, pushed after each completed one), or None: no remote, nothing pushed."""
        if leases.settings(self.layout, self.remote).remote is None:
            return None  # no claims remote: nothing more is looked up
        claims = self.claims
        return claims.remote if isinstance(claims, leases.RemoteStore) else None

    def lease(self, tid: str) -> leases.Lease | None:
        """Lease `tid` for this process; None when a live holder (another worktree,
        another clone) has it. A lease this runner holds already for `tid` is kept."""
        if self.holding is not None and self.holding.lease.task == tid:
            return self.holding.lease
        assert self.holding is None, "one task at a time per runner"
        lease = self.claims.acquire(self.sid, tid, self.where(tid))
        if lease is not None:
            self.holding = leases.Holding(self.claims, lease)
        return lease

    def busy(self, tid: str) -> WfsError:
        holder = next((h for h in self.claims.holders(self.sid) if h.task == tid), None)
        if holder is None:
            return WfsError(f"{tid} was claimed meanwhile by another process; try again")
        return WfsError(leases.busy(holder) + "; wait for it to stop, or stop that process first")

    def unlease(self) -> None:
        """Give back a lease taken for a task that did not start after all."""
        if self.holding is not None:
            holding, self.holding = self.holding, None
            holding.claims.release(holding.lease)

    def check_claim(self) -> None:
        """Raise LostLease (one line: who holds the task now) unless this runner still
        holds the running task's lease; nothing of the task is written after that."""
        if self.holding is not None:
            try:
                self.holding.check()
            except leases.LostLease:
                self.holding.stop()
                self.holding = None
                raise

    def claim(self, requested: str | None, passed: frozenset[str] = frozenset()) -> Task | None:
        """Mark a ready leaf active for this process: `requested`, or the next ready one
        (but none of `passed`, refused already, and none that another worktree or clone
        holds the lease of)."""
        try:
            if self.travels is not None:
                claimed = self._travel_claim(requested, passed)
            else:
                claimed = self._claim(requested, passed)
        except BaseException:
            self.unlease()
            raise
        if claimed is not None and self.holding is not None:
            self.holding.start()
        return claimed

    def _travel_claim(self, requested: str | None, passed: frozenset[str]) -> Task | None:
        """`claim` with a claims remote: lease the task first, then bring in the session's
        branch from the remote; a task completed there meanwhile is given back and
        passed over (DoneElsewhere when it was the one requested), and so is one blocked
        there when `--all` or `--jobs N` came to it (HeldElsewhere when requested)."""
        remote = self.travels
        assert remote is not None
        skipped = set(passed)
        while True:
            tid = requested if requested is not None else self._pick(frozenset(skipped))
            if tid is None:
                return None
            tid = check_task_id(tid)
            if self.lease(tid) is None:
                raise HeldElsewhere(tid, self.busy(tid).message)
            worktrees.travel_in(self.layout, self.sid, remote)
            task = read_task(self.layout, self.sid, tid)
            status = status_of(task)
            scheduled = requested is None or self.in_worktrees  # by --all or --jobs N
            if status == "pending" or not (scheduled or status == "completed"):
                return self._claim(tid, frozenset(skipped))  # which refuses what is not ready
            self.unlease()
            if requested is not None:
                if status == "completed":
                    raise DoneElsewhere(tid, f"{tid} was completed in another clone ({remote})")
                why = one_line(obj(task, "execution").get("blocked_reason") or status)
                raise HeldElsewhere(tid, f"{tid} is {status} on {remote}: {why}")
            skipped.add(tid)  # blocked in another clone: left to a person there

    def _pick(self, passed: frozenset[str]) -> str | None:
        """Lease the next ready task (none of `passed`) without changing it; its id."""
        with editing(self.layout, self.sid, check=False) as draft:
            for tid in draft.ready():
                if tid in passed:
                    continue
                self.preflight(draft.get(tid), checked=True)
                if self.lease(tid) is not None:
                    return tid
        return None

    def _claim(self, requested: str | None, passed: frozenset[str]) -> Task | None:
        with editing(self.layout, self.sid, check=False) as draft:
            if requested is None:
                ready = [tid for tid in draft.ready() if tid not in passed]
                for tid in ready:
                    task = draft.get(tid)
                    self.preflight(task, checked=True)
                    if self.lease(tid) is not None:
                        break
                else:
                    return None
            else:
                tid = check_task_id(requested)
                if not draft.has(tid):
                    raise unknown_task(tid, draft.ids)
                refuse_container(draft, tid, "execute it")
                status = skeleton(draft.get(tid), 0).get("status")
                if status != "pending":
                    hint = ""
                    if status in ("active", "blocked"):
                        hint = f"; resume it with `{platform.shell_join(self.resume_argv(tid))}`"
                    raise WfsError(f"{tid} is {status}, not pending{hint}")
                waiting = draft.unmet(tid)
                if waiting:
                    raise WfsError(f"{tid} is not ready: waiting on {', '.join(waiting)}")
                task = draft.get(tid)
                # A ready task has no validation error: the index counted them in this
                # very file (its stamp matched), so the schemas need not run again.
                self.preflight(task, checked=tid in draft.ready())
                if self.lease(tid) is None:
                    raise self.busy(tid)
            execution = dict(obj(task, "execution"))
            for key in ("blocked_reason", "paused_reason", "step", "stopped_at", "finished_at"):
                execution.pop(key, None)
            execution.update(
                claimed_by=self.owner,
                started_at=now(),
                attempts=attempts_of(execution) + 1,
            )
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            self.save_record(new_record(tid))
            return claimed

    def preflight(self, task: Task, checked: bool = False) -> list[Step]:
        """The task's steps; refuses (exit 2, nothing changed) what cannot run as written.

        That is what `validate` reports as an error in the task (wfs.rules.refusal, the
        one decision readiness counts too; skipped when `checked`: the index found none
        in the file as it is), and, should wfs read a step the rules do not, what it
        cannot read as steps.
        """
        tid = task["id"]
        path = self.layout.task_file(self.sid, tid)
        where = self.layout.relative(path)
        source = TaskSource(where, task, path.name[: -len(".json")], self.layout.root)
        errors = [] if checked else refusal(source)
        if errors:
            raise NotRunnable(
                tid,
                f"{tid} cannot run as written; nothing was changed "
                f"(`wfs validate` reports the same):\n" + "\n".join(errors),
            )
        try:
            plan = task_steps(task)
        except Uninterpretable as err:
            raise NotRunnable(
                tid, f"{tid} cannot run as written; nothing was changed:\n{where}{err.message}"
            ) from None
        # Where the run will write, refused now rather than after the work is done.
        try:
            store.guard(self.record_path(tid))
            store.guard(self.output_path(tid, "output"))
            if self.sid:
                store.guard(self.summary_path(tid))
            store.check_appendable(self.output_log_path(tid), self.layout.relative)
        except WfsError as err:
            raise NotRunnable(tid, err.message) from None
        return plan

    def reclaim(self, requested: str) -> tuple[Task, list[str]]:
        """Take back a stopped task for `--resume`: paused, blocked, or claimed by a
        process that is gone. Returns the task and notes on what was taken over."""
        try:
            if self.travels is not None:
                self._travel_in(check_task_id(requested))
            claimed = self._reclaim(requested)
        except BaseException:
            self.unlease()
            raise
        if self.holding is not None:
            self.holding.start()
        return claimed

    def _travel_in(self, tid: str) -> None:
        """Before a stopped task resumes with a claims remote: lease it, then bring in
        the session's branch from the remote; DoneElsewhere when another clone
        completed it meanwhile (it took the task over once this run's lease ran out)."""
        remote = self.travels
        assert remote is not None
        if self.lease(tid) is None:
            raise HeldElsewhere(tid, self.busy(tid).message)
        worktrees.travel_in(self.layout, self.sid, remote)
        if status_of(read_task(self.layout, self.sid, tid)) == "completed":
            raise DoneElsewhere(tid, f"{tid} was completed in another clone ({remote})")

    def _reclaim(self, requested: str) -> tuple[Task, list[str]]:
        notes: list[str] = []
        with editing(self.layout, self.sid, check=False) as draft:
            tid = check_task_id(requested)
            if not draft.has(tid):
                raise unknown_task(tid, draft.ids)
            refuse_container(draft, tid, "resume it")
            task = draft.get(tid)
            status = status_of(task)  # another tool's in_progress / failed read as active / blocked
            execution = dict(obj(task, "execution"))
            owner = execution.get("claimed_by")
            if status == "completed":
                raise WfsError(f"{tid} is already completed; nothing to resume")
            if status == "pending":
                raise WfsError(
                    f"{tid} has not started; run it with "
                    f"`{platform.shell_join([*self.command_prefix, 'execute', tid])}`"
                )
            if status not in ("active", "blocked"):
                raise WfsError(f"{tid} is {status}; only a paused or blocked task resumes")
            # A run that stopped (killed, interrupted) rather than blocked for a person
            # may have left a git command half done in the task's worktree.
            self.recovering = status == "active"
            if isinstance(owner, str) and owner:
                if claim_alive(owner):
                    since = execution.get("resumed_at") or execution.get("started_at")
                    raise WfsError(
                        f"{tid} is being executed by {owner} (since {since}); "
                        "wait for it to stop, or stop that process first"
                    )
                notes.append(f"took over the claim of {owner}, which is no longer running")
                notes.extend(self.stop_orphans(tid, owner))
            self.preflight(task)
            if self.lease(tid) is None:
                raise self.busy(tid)
            record = self.load_record(tid)
            if record.get("finished_at") and "landing" not in record:
                self.save_record(new_record(tid))  # that run completed: this one starts over
            for key in ("blocked_reason", "paused_reason", "stopped_at"):
                execution.pop(key, None)
            execution.update(claimed_by=self.owner, resumed_at=now())
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            return claimed, notes

    def step_token(self, tid: str, owner: str | None = None) -> str:
        """What marks the processes of a task's steps (WFS_STEP in their environment)."""
        return f"{self.sid}/{tid}/{owner or self.owner}"

    def stop_orphans(self, tid: str, owner: str) -> list[str]:
        """Stop what the steps of a dead runner left running, before anything runs again."""
        groups = run_steps.stop_orphans(self.step_token(tid, owner))
        return [f"stopped the orphaned step processes of {owner} (group {g})" for g in groups]

    def next_step(self, task: Task) -> str | None:
        """The key of the first step of the task that its run record has not finished."""
        steps = self.load_record(task["id"])["steps"]
        try:
            plan = task_steps(task)
        except Uninterpretable:
            return None
        unfinished = (s.key for s in plan if steps.get(s.key, {}).get("status") not in FINISHED)
        return next(unfinished, None)

    def finish(
        self, tid: str, status: str, reason: str | None = None, step: str | None = None
    ) -> None:
        """Release the claim: completed, blocked (with its reason) or paused (`active`).

        Only while this runner still holds the task's lease (else LostLease, and
        nothing is written); the lease is given back after the task's file is written."""
        self.check_claim()
        if status == "blocked" and self.travels is not None:
            if self.publish_blocked(tid, reason, step):
                return
        with editing(self.layout, self.sid, check=False) as draft:
            task = draft.get(tid)
            draft.put(finished_task(task, status, reason, step))
        if status == "completed" and self.travels is not None:
            self.push_work(tid, task.get("title"))
        if self.holding is not None:
            holding, self.holding = self.holding, None
            holding.release()

    def publish_blocked(self, tid: str, reason: str | None, step: str | None) -> bool:
        """With a claims remote: land the task marked blocked on the remote's session
        branch (none of its work), giving its claim back in the same push, so that
        other clones leave it to a person (wfs.flow.worktrees.publish_state). False
        when the remote cannot take it: the task is then blocked here only."""
        remote, holding = self.travels, self.holding
        assert remote is not None
        if holding is None:
            return False
        task = finished_task(read_task(self.layout, self.sid, tid), "blocked", reason, step)

        def write(there: Layout) -> None:
            commit_state(there, self.sid, task, f"wfs session {self.sid}: {tid} blocked")

        try:
            landing = worktrees.publish_state(
                self.layout, self.sid, tid, remote, write, holding.hand_over
            )
        except leases.LostLease:
            self.check_claim()  # says so, in one line; nothing more is written
            raise
        except WfsError:
            return False
        if not landing.merged:
            return False
        self.holding = None  # given back by the push
        if status_of(read_task(self.layout, self.sid, tid)) != "blocked":
            with editing(self.layout, self.sid, check=False) as draft:  # not merged here yet
                draft.put(task)
        return True

    def push_work(self, tid: str, title: Any) -> None:
        """Commit all that changed in the main worktree (a task run in place: its work
        and the session's files) and push the session's branch to the claims remote,
        giving the task's claim back in the same push. When the push cannot be made,
        the lease is kept until it runs out (so no other clone runs the task meanwhile).
        A task run in its own worktree is published by `publish` instead."""
        remote, holding = self.travels, self.holding
        assert remote is not None and holding is not None
        message = worktrees.commit_message(self.sid, tid, title if isinstance(title, str) else "")
        try:
            worktrees.travel_out(self.layout, self.sid, remote, message, holding.hand_over)
        except leases.LostLease as err:
            self.holding = None
            raise leases.LostLease(
                f"{err.message}; this run's work stays committed here, not pushed"
            ) from None
        except WfsError as err:
            holding.stop()
            self.holding = None
            raise WfsError(
                f"{tid} completed here, but its work is not on {remote}: {err.message}"
            ) from None
        self.holding = None  # given back by the push

    # ------------------------------------------------------------ run records

    def record_path(self, tid: str) -> Path:
        return self.session_dir / RUNS_DIR / f"{check_task_id(tid)}.json"

    def load_record(self, tid: str) -> dict[str, Any]:
        """The run record, with the steps its log holds folded in (see save_record)."""
        path = self.record_path(tid)
        if not path.exists():
            return new_record(tid)
        data = store.read_json(path, self.layout.relative(path))
        if not isinstance(data, dict) or not isinstance(data.get("steps"), dict):
            raise WfsError(f"{self.layout.relative(path)}: not a wfs run record")
        log = record_log(path, data.get("log"))
        try:
            raw = log.read_bytes() if log is not None else b""
        except FileNotFoundError:
            raw = b""
        for line in raw.split(b"\n")[:-1]:  # after the last newline: nothing, or a torn line
            try:
                change = jsonio.loads(line)
            except ValueError:
                break
            if not isinstance(change, dict) or not isinstance(change.get("steps"), dict):
                break
            data["steps"].update(change["steps"])
            data["paused"] = change.get("paused")
        return data

    def save_record(self, record: dict[str, Any], finished: tuple[str, ...] = ()) -> None:
        """Save the run record. `finished`: the steps that just finished (or finished a
        part), and nothing else changed: they are appended to the record's log (one
        short write), so a task of many quick steps does not rewrite its whole record
        after each one.
        Anything else writes the record whole, under a new log name (a log that is
        not the record's own is never read), and removes the old log.

        Atomic but not fsynced: a killed process loses nothing (the page cache
        survives it, and a log line is one write), and after a power cut the
        unrecorded steps simply run again."""
        path = self.record_path(record["task"])
        log = record_log(path, record.get("log"))
        if finished and log is not None and self.log.lines < LOG_LINES:
            change = {"steps": {k: record["steps"][k] for k in finished}, "paused": None}
            self.log.append(log, jsonio.compact(change) + b"\n")
            return
        self.log.close()
        record["log"] = os.urandom(4).hex()
        store.write_bytes(path, jsonio.dumps(record), durable=False)
        if log is not None:
            store.remove(log)

    def stored_output(
        self, tid: str, step: Step, output: str, part: int | None = None
    ) -> dict[str, Any]:
        """How a step's output (or the output of its part number `part`) goes into the
        run record: inline, or (when large) in a file next to it, so that the record
        stays small to rewrite after every step."""
        data = output.encode("utf-8", "surrogateescape")
        if len(data) <= RECORD_INLINE:
            return {"output": output}
        name = step.key.replace("/", "-") + ("" if part is None else f".part-{part}")
        path = self.output_path(tid, name + ".output")
        store.write_bytes(path, data, durable=False)
        return {"output_file": self.layout.relative(path), "output_bytes": len(data)}

    def entry_output(self, entry: dict[str, Any]) -> str:
        """A recorded step's output, from the record or the file it was put in."""
        if "output_file" not in entry:
            return str(entry.get("output", ""))
        where = str(entry["output_file"])
        try:
            return (self.layout.root / where).read_bytes().decode("utf-8", "surrogateescape")
        except OSError as err:
            raise WfsError(f"{where}: cannot read a recorded output: {err.strerror}") from None

    def output_log_path(self, tid: str) -> Path:
        """Where the task's steps' output goes as it comes (wfs.flow.watch)."""
        return watch.log_path(self.record_path(tid))

    def output_path(self, tid: str, name: str) -> Path:
        """Where a step output too long to show is kept whole, next to the run record."""
        return self.record_path(tid).with_suffix("") / f"{name}.txt"

    # ------------------------------------------------------------ variables

    def base_values(self, task: Task) -> dict[str, Any]:
        # whatever format the task file is in; its session's id and folder included
        folder = self.layout.relative(self.session_dir) if self.sid else None
        values = task_values(canonical_task(task), self.sid, folder)
        if self.sid:
            texts = [d["text"] for d in brief_mod.dependencies(self, task) if "text" in d]
            values["dependency_summaries"] = "\n".join(texts)
        return values

    def summary_path(self, tid: str) -> Path:
        return self.session_dir / ".summaries" / f"{tid}-summary.md"

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
        run = TaskRun(self, task, plan, self.load_record(tid))
        record = run.record
        given = resume
        i = 0
        self.task_log = watch.TaskLog(
            self.output_log,
            self.output_log_path(tid),
            tid,
            self.progress if self.listening else None,
            fresh=not record["steps"],
        )
        try:
            while i < len(plan):
                step = plan[i]
                entry = record["steps"].get(step.key)
                if entry and entry.get("status") in FINISHED:
                    run.bind(step, self.entry_output(entry))
                    i += 1
                    continue
                group = self._group(run, i)
                try:
                    signals.check()
                    self.run_step(run, group, given)
                except signals.Interrupted as stop:
                    record["paused"] = {"step": step.key, "reason": f"interrupted ({stop.name})"}
                    self.save_record(record)
                    stop.step_key = step.key
                    raise
                finally:
                    self.live = None
                given = None
                i += len(group)
        finally:
            self.task_log = None
            self.output_log.close()
        record["finished_at"] = now()
        record["paused"] = None
        self.save_record(record)
        steps = [
            record["steps"][s.key]
            | {"key": s.key, "name": s.name, "bind": s.output}
            | {"output": self.entry_output(record["steps"][s.key])}
            for s in plan
        ]
        return {"task": tid, "steps": steps, "values": run.values}

    def _group(self, run: TaskRun, index: int) -> list[Step]:
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

    def run_step(self, run: TaskRun, group: list[Step], given: dict[str, Any] | None) -> None:
        """Run what is left of a step (with the agent steps grouped with it), part by
        part, with its on_error strategy. Raises a Stop when the task stops here."""
        step = group[0]
        tid = run.task["id"]
        record = run.record
        previous = record["steps"].get(step.key) or {}
        # The outputs of its finished parts, and the same as the record keeps them.
        kept: list[Any] = list(previous.get("parts") or [])
        done: list[str] = [self.entry_output(p) if isinstance(p, dict) else p for p in kept]
        checkpoints: list[str] = list(previous.get("checkpoints") or [])
        fixes: list[dict[str, Any]] = list(previous.get("fixes") or [])
        waiting_fix: dict[str, Any] | None = previous.get("fix")
        tries: list[dict[str, Any]] = []
        parts = step.parts or ("",)
        budget = fix_budget(step) if step.key in run.after_agent else 0
        owner = group[-1]  # the step whose checks run after this hand-off
        # The runs of its checks, the work tree before the step (to revert it) and the
        # reverts done: kept across stops.
        checked: list[dict[str, Any]] = list(previous.get("checks") or [])
        before: str | None = previous.get("before_tree")
        reverts: list[dict[str, Any]] = list(previous.get("reverts") or [])
        if before is None and any(c.auto_revert for c in owner.checks):
            before = git.worktree_tree(self.workdir, self.leave_out)
        started = time.monotonic()
        self.progress("start", {"task": tid, "step": step.key, "name": _names(group)})
        assert self.task_log is not None
        live = self.live = self.task_log.step(step.key, _names(group))

        def recorded_parts() -> list[Any]:
            for number in range(len(kept), len(done)):
                stored = self.stored_output(tid, step, done[number], number + 1)
                kept.append(stored.get("output", stored))
            return list(kept)

        def entry_of(status: str, **extra: Any) -> dict[str, Any]:
            return {
                "status": status,
                # The outputs of finished parts, to resume a step part way (a large one
                # in a file); a finished step keeps only its output.
                **({} if status in FINISHED else {"parts": recorded_parts()}),
                "elapsed": round(time.monotonic() - started, 3),
                **({"checkpoints": checkpoints} if checkpoints else {}),
                **({"fixes": fixes} if fixes else {}),
                **({"tries": tries} if tries else {}),
                **({"checks": checked} if checked else {}),
                **({"before_tree": before} if before and status not in FINISHED else {}),
                **({"reverts": reverts} if reverts else {}),
                **extra,
            }

        def save(status: str, **extra: Any) -> dict[str, Any]:
            output = extra.pop("output", None)
            if output is not None:
                extra.update(self.stored_output(tid, step, output))
            entry = entry_of(status, **extra)
            record["steps"][step.key] = entry
            live.finish(status, entry["elapsed"])
            if status in FINISHED:
                for other in group[1:]:
                    record["steps"][other.key] = {
                        "status": status,
                        **self.stored_output(tid, other, output or ""),
                        "elapsed": 0.0,
                        "how": f"in one hand-off with {step.key}",
                    }
            record["paused"] = (
                None if status in FINISHED else {"step": step.key, "reason": extra.get("reason")}
            )
            if status in FINISHED:
                self.save_record(record, tuple(member.key for member in group))
            else:
                self.save_record(record)
            self.progress(
                "step",
                {
                    "task": tid,
                    "step": step.key,
                    "name": _names(group),
                    "outcome": status,
                    "elapsed": entry["elapsed"],
                },
            )
            if status in FINISHED:
                for member in group:
                    run.bind(member, output or "")
            return entry

        def part_done() -> None:
            """A part finished and more of the step is to come (a part, its checks):
            recorded at once (one line appended), so that a runner killed later resumes
            after it instead of doing it again."""
            if len(done) < len(parts) or owner.checks:
                record["steps"][step.key] = entry_of("running")
                record["paused"] = None
                self.save_record(record, (step.key,))

        if given and given.get("skip"):
            save("skipped", output="", how="skipped on resume")
            return
        hows: list[str] = []
        try:
            while len(done) < len(parts):
                index = len(done)
                text = substitute_session(parts[index], self.sid)
                command = (
                    run_steps.classify(text) if text.strip() else run_steps.Command("agent", "")
                )
                if command.kind == "agent":
                    if given and given.get("output") is not None:
                        answer = read_answer(given["output"], "the resume")
                        hows.append("given on resume")
                    else:
                        answer = self._ask(run, group, command.text, index, checkpoints, save)
                        hows.append("answered by the agent")
                    given = None
                    if answer.kind == "checkpoint":
                        checkpoints.append(answer.text)
                        brief = self.brief(run, group, command.text, checkpoints=checkpoints)
                        save("paused", reason=CHECKPOINT)
                        raise Pause(step, CHECKPOINT, brief)
                    if answer.kind == "blocked":
                        save("blocked", reason=answer.reason, answer=answer.text)
                        raise StepFailed(
                            step,
                            f"agent reported TASK BLOCKED at {_label(step)}: {answer.reason}",
                            [],
                        )
                    done.append("\n\n".join([*checkpoints, answer.text]))
                    checkpoints = []
                    part_done()
                    continue
                if waiting_fix is not None and given and given.get("output") is not None:
                    answer = read_answer(given["output"], "the resume")
                    self._fixed(step, answer, waiting_fix, fixes, save)
                given = None
                waiting_fix = None
                while True:
                    failure, output, failed_tries = self._run_command(
                        run, step, command, text, index, retries=1 if budget else None
                    )
                    tries.extend(failed_tries)
                    if failure is None:
                        done.append(output)
                        part_done()
                        break
                    if len(fixes) >= budget:
                        self._failed(run, step, failure, save)
                        return  # skip_optional: the step is skipped
                    fix = {
                        "step": step.key,
                        "command": text,
                        "error": failure,
                        "stdout": tail_lines(failed_tries[-1].get("stdout", "")),
                        "stderr": tail_lines(failed_tries[-1].get("stderr", "")),
                        "iteration": len(fixes) + 1,
                        "of": budget,
                    }
                    self.progress("fix", {"task": tid, "step": step.key, "name": step.name, **fix})
                    answer = self._ask(run, [step], "", index, [], save, fix=fix)
                    self._fixed(step, answer, fix, fixes, save)
            if owner.checks:
                checking = Checking(owner, len(parts) - 1, given, waiting_fix, checked, tries)
                unmet = self._verify(run, checking, fixes, save, hows)
                if unmet is not None:
                    why = unmet.why
                    if unmet.check.auto_revert:
                        note, undone = self._revert(run, owner, before, reverts)
                        why = f"{why}; {note}"
                        if undone:  # --resume does the step again, from the start
                            done.clear()
                            kept.clear()
                            fixes.clear()
                            before = None
                    self._failed(run, step, why, save)
                    return  # skip_optional: the step is skipped
        except EmptyAnswer as empty:
            save("paused", reason=empty.message)
            raise Refused(step, f"{_label(step)}: {empty.message}") from None
        except signals.Interrupted:
            save("interrupted", reason="interrupted")
            raise
        if fixes:
            hows.append(f"after {len(fixes)} fix{'es' if len(fixes) != 1 else ''}")
        output = "\n".join(part.rstrip("\n") for part in done)
        save("done", output=output, **({"how": ", ".join(hows)} if hows else {}))

    def _fixed(
        self,
        step: Step,
        answer: Answer,
        fix: dict[str, Any],
        fixes: list[dict[str, Any]],
        save: Callable[..., dict[str, Any]],
    ) -> None:
        """Record the agent's answer to a fix brief; the check then runs again."""
        if answer.kind == "blocked":
            save("blocked", reason=answer.reason, answer=answer.text)
            raise StepFailed(
                step,
                f"agent reported TASK BLOCKED while fixing {_label(step)}: {answer.reason}",
                [],
            )
        fixes.append(
            {
                "iteration": fix["iteration"],
                **({"check": fix["check"]} if "check" in fix else {}),
                "error": fix["error"],
                "answer": answer.text,
            }
        )

    def _verify(
        self,
        run: TaskRun,
        checking: Checking,
        fixes: list[dict[str, Any]],
        save: Callable[..., dict[str, Any]],
        hows: list[str],
    ) -> CheckFailure | None:
        """Run the checks of `checking.owner` after its work, in order. A check that
        must pass and fails goes back to the agent as a fix brief, up to its budget of
        fixes, and runs again. Returns the first check that did not come out as the
        author expects, after its last fix; None when every one did."""
        owner = checking.owner
        waiting, given = checking.waiting_fix, checking.given
        if waiting is not None and "check" in waiting and given and given.get("output") is not None:
            answer = read_answer(given["output"], "the resume")
            self._fixed(owner, answer, waiting, fixes, save)
        for number, check in enumerate(owner.checks, start=1):
            while True:
                why, result = self._check(run, checking, number, check)
                if why is None:
                    break
                used = sum(1 for f in fixes if "check" in f)
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
                    "stdout": tail_lines(result.output if result else ""),
                    "stderr": tail_lines(result.error if result else ""),
                    "iteration": used + 1,
                    "of": check.fixes,
                }
                tid = run.task["id"]
                self.progress("fix", {"task": tid, "step": owner.key, "name": owner.name, **fix})
                answer = self._ask(run, [owner], "", checking.part, [], save, fix=fix)
                self._fixed(owner, answer, fix, fixes, save)
        outcomes = dict.fromkeys(
            "failed as expected" if c.must_fail else "passed" for c in owner.checks
        )
        phases = dict.fromkeys(c.phase for c in owner.checks if c.phase)
        label = f"{'/'.join(phases)} " if phases else ""
        plural = "s" if len(owner.checks) > 1 else ""
        hows.append(f"{label}check{plural} {' and '.join(outcomes)}")
        return None

    def _check(
        self, run: TaskRun, checking: Checking, number: int, check: Check
    ) -> tuple[str | None, run_steps.StepResult | None]:
        """Run one check: (None, result) when it came out as the author expects, else
        (why not, result). Every run is kept in the run record (`checks`), and a
        failing one also as a try, whose output is shown."""
        owner = checking.owner
        text = substitute_session(check.command, self.sid)
        shown = {"check": number, "command": check.command}
        try:
            check_inputs(text, run.values, run.declared)
        except MissingInput as missing:
            checking.runs.append({**shown, "outcome": "not run", "error": missing.message})
            checking.tries.append({**shown, "error": missing.message})
            return missing.message, None
        timeout = owner.spec.get("timeout")
        timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
        began = time.monotonic()
        token = self.step_token(run.task["id"])
        result = run_steps.run_command(
            run_steps.classify(text),
            run.values,
            self.workdir,
            timeout,
            {"WFS_STEP": token},
            self.live,
        )
        ran = not result.timed_out and result.exit_code not in NOT_RUN
        passed = ran and result.exit_code == 0
        if check.must_fail:
            outcome = "failed as expected" if ran and not passed else "passed"
        else:
            outcome = "passed" if passed else "failed"
        if not ran:
            outcome = "could not run"
        entry = {
            **shown,
            "exit_code": result.exit_code,
            "elapsed": round(time.monotonic() - began, 3),
            "outcome": outcome,
            "stdout": _tail_bytes(result.output),
            "stderr": _tail_bytes(result.error),
        }
        checking.runs.append(entry)
        self.progress(
            "check",
            {
                "task": run.task["id"],
                "step": owner.key,
                "name": owner.name,
                **shown,
                "outcome": outcome,
            },
        )
        if (passed and not check.must_fail) or outcome == "failed as expected":
            return None, result
        command = f"`{check.command}`"
        if not ran:
            why = f"the check {command} could not run: {_failure(result, None)}"
            if check.must_fail:
                why += f"; a {check.phase or 'failing'} check must run and fail"
        elif check.must_fail:
            why = f"the check {command} passed, but it must fail: " + (
                "the test passes before the code exists"
                if check.phase == "red"
                else f"expected_failure: {check.expected or 'true'}"
            )
        else:
            after = " after the refactoring" if check.phase == "refactor" else ""
            why = f"the check {command} failed{after}: {_failure(result, None)}"
        checking.tries.append({**entry, "error": why})
        return why, result

    def _revert(
        self, run: TaskRun, owner: Step, before: str | None, reverts: list[dict[str, Any]]
    ) -> tuple[str, bool]:
        """auto_revert: put the work tree back as it was before the step (only the files
        the step changed, through git). Returns what was done, to say in the reason,
        and whether anything was reverted; the diff undone is kept in the run record."""
        if before is None:
            return "auto_revert: not a git work tree, so nothing was reverted", False
        try:
            reverted = git.revert_worktree(self.workdir, before, self.leave_out)
        except WfsError as err:
            return f"auto_revert failed ({err.message}); nothing was reverted", False
        if reverted is None:
            return "auto_revert: git cannot read the work tree now; nothing was reverted", False
        if not reverted.paths:
            return "auto_revert: the step changed no file", False
        tid = run.task["id"]
        kept: dict[str, Any] = {"at": now(), "files": reverted.paths}
        if len(reverted.diff.encode("utf-8", "surrogateescape")) <= RECORD_INLINE:
            kept["diff"] = reverted.diff
        else:
            name = f"{owner.key.replace('/', '-')}.reverted-{len(reverts) + 1}.diff"
            path = self.output_path(tid, name)
            store.write_bytes(path, reverted.diff.encode("utf-8", "surrogateescape"), durable=False)
            kept["diff_file"] = self.layout.relative(path)
        reverts.append(kept)
        shown = ", ".join(reverted.paths[:5]) + (", …" if len(reverted.paths) > 5 else "")
        count = len(reverted.paths)
        where = kept.get("diff_file") or self.layout.relative(self.record_path(tid))
        return (
            f"auto_revert: the step's changes were reverted ({count} file"
            f"{'s' if count != 1 else ''}: {shown}); the diff is kept in {where}",
            True,
        )

    def _ask(
        self,
        run: TaskRun,
        group: list[Step],
        command: str,
        index: int,
        checkpoints: list[str],
        save: Callable[..., dict[str, Any]],
        fix: dict[str, Any] | None = None,
    ) -> Answer:
        """The agent's answer to the brief for `group` (or to a fix brief). Pauses when
        no agent is configured; a failing agent fails the step."""
        step = group[0]
        brief = self.brief(run, group, command, checkpoints=checkpoints, fix=fix)
        handoff = self.routes.for_task(run.task)
        self.save_record(run.record)  # whole, for an agent that reads it (brief.paths)
        if handoff is None:
            reason = WAITING_FOR_AGENT
            if fix:
                reason = f"waiting for an agent to fix {step.key}: {fix['error']}"
            save("paused", reason=reason, **({"fix": fix} if fix else {}))
            raise Pause(step, reason, brief)

        stdin = jsonio.compact(brief).decode() if handoff.form == "json" else as_text(brief)
        token = self.step_token(run.task["id"])
        result = run_steps.run_agent(
            handoff.command, stdin, self.workdir, {"WFS_STEP": token}, self.live
        )
        if result.exit_code != 0 or result.timed_out:
            error = f"the agent `{handoff.command}` failed: {_failure(result, None)}"
            entry = {"part": index, "exit_code": result.exit_code, "error": error}
            entry.update(stdout=_tail_bytes(result.output), stderr=_tail_bytes(result.error))
            reason = f"step {_label(step)} failed: {error}"
            save("failed", reason=reason, error=error, tries=[entry])
            raise StepFailed(step, reason, [entry])
        return read_answer(result.output, f"the agent `{handoff.command}`")

    def _run_command(
        self,
        run: TaskRun,
        step: Step,
        command: run_steps.Command,
        text: str,
        index: int,
        retries: int | None,
    ) -> tuple[str | None, str, list[dict[str, Any]]]:
        """Run one command part: (None, output, failed tries) on success, (why, "",
        failed tries) on failure. `retries`: how many tries (default: two for
        `retry_once`, else one)."""
        criteria = step.spec.get("success_criteria")
        criteria = criteria if isinstance(criteria, str) else None
        timeout = step.spec.get("timeout")
        timeout = float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None
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
            token = self.step_token(run.task["id"])
            result = run_steps.run_command(
                command, run.values, self.workdir, timeout, {"WFS_STEP": token}, self.live
            )
            entry: dict[str, Any] = {
                "part": index,
                "exit_code": result.exit_code,
                "elapsed": round(time.monotonic() - began, 3),
            }
            if run_steps.meets(criteria, result, timeout):
                return None, result.output, tries
            entry.update(
                error=_failure(result, criteria),
                stdout=_tail_bytes(result.output),
                stderr=_tail_bytes(result.error),
            )
            tries.append(entry)
        return tries[-1]["error"], "", tries

    def _failed(
        self, run: TaskRun, step: Step, error: str, save: Callable[..., dict[str, Any]]
    ) -> None:
        """Apply on_error to a failed step: skipped (returns), or a Stop."""
        on_error = step.spec.get("on_error", "fail")
        if on_error == "skip_optional":
            save("skipped", output="", error=error)
            return
        reason = f"step {_label(step)} failed: {error}"
        if on_error == "manual_intervention":
            reason = f"manual intervention needed: {reason}"
            save("failed", reason=reason, error=error)
            brief = self.brief(run, [step], "", error=error)
            raise Pause(step, reason, brief, manual=True)
        entry = save("failed", reason=reason, error=error)
        raise StepFailed(step, reason, entry.get("tries", []))

    def brief(
        self,
        run: TaskRun,
        group: list[Step],
        command: str,
        checkpoints: list[str] | None = None,
        fix: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> dict[str, Any]:
        """Everything an agent (or a person) needs to do the steps of `group`."""
        steps = [
            brief_mod.resolved_step(self, s, run.values, command if n == 0 else None)
            for n, s in enumerate(group)
        ]
        if error:
            steps[0]["error"] = error
        return brief_mod.build(
            self, run.task, steps, dict(run.produced), checkpoints=checkpoints, fix=fix
        )

    def session_phase(self) -> str | None:
        """The session's phase as its file says it, else derived from its tasks (files
        other tools wrote have none); None outside a session."""
        if not self.sid:
            return None
        return str(answers(self.layout, self.sid)["summary"]["phase"])

    # ------------------------------------------------------------ completion

    def write_summary(self, task: Task, result: dict[str, Any], changed: list[str]) -> Path:
        tid = task["id"]
        path = self.summary_path(tid)
        links: dict[str, str] = {}
        for step in result["steps"]:
            name, output = step.get("bind"), str(step.get("output", ""))
            if name and step.get("status") == "done" and needs_link(output):
                if "output_file" in step:  # already kept whole beside the record
                    full = self.layout.root / step["output_file"]
                else:
                    full = self.output_path(tid, name)
                    store.write_bytes(full, output.encode("utf-8"), durable=False)
                links[name] = os.path.relpath(full, path.parent)
        kept = keep_authored_summary(path)  # one someone else wrote stays, linked
        store.write_text(path, render_summary(task, result["steps"], changed, links, kept))
        return path


def groupable(step: Step) -> bool:
    """An implementation step done by the agent alone, which may share a hand-off."""
    return not step.key.startswith(("pre_analysis/", "acceptance/")) and agent_only(step)


def hands_off_with(before: Step, step: Step) -> bool:
    """Whether `step` goes to the agent in the same hand-off as the step `before` it:
    both are groupable, and `before` has no check (a check runs right after its step)."""
    return groupable(before) and groupable(step) and not before.checks


def _names(group: list[Step]) -> str:
    if len(group) == 1:
        return group[0].name
    return f"{group[0].name} (+{len(group) - 1} more in one hand-off)"


def attempts_of(execution: dict[str, Any]) -> int:
    """How many times the task was claimed, as its file says; a value that is not a
    count (the `execution` object is wfs's own, but files are edited by hand) is 0."""
    value = execution.get("attempts")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def finished_task(
    task: Task, status: str, reason: str | None = None, step: str | None = None
) -> Task:
    """The task as a run leaves it: completed, blocked (with its reason) or paused
    (`active`, with its reason and step), its claim removed."""
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
    return {**task, "status": status, "execution": execution}


def new_record(tid: str) -> dict[str, Any]:
    return {"task": tid, "started_at": now(), "steps": {}, "paused": None}


def record_log(path: Path, name: Any) -> Path | None:
    """The log of finished steps that goes with the run record at `path` (its `log`
    field names it), or None for a record without one."""
    if not isinstance(name, str) or len(name) != 8 or not name.isalnum():
        return None
    return path.with_name(f"{path.stem}.{name}.log")


def _label(step: Step) -> str:
    return f"{step.key} ({step.name})"


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


HASHED_UP_TO = 16 * 1024 * 1024  # larger files are compared by size and mtime


def file_states(root: Path) -> dict[str, str] | None:
    """What each path git reports as changed or new (outside .workflow/) holds: its
    size and two checksums of its content (64 bits: no change goes unseen by chance),
    or size and mtime for a large file, "absent" for a deleted one. None outside a git
    repository."""
    import stat
    import subprocess  # deferred: only a command that runs a process pays for it

    try:
        proc = subprocess.run(
            ["git", "status", "--porcelain", "-z", "--untracked-files=all"],
            cwd=root,
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    states: dict[str, str] = {}
    entries = iter(proc.stdout.decode("utf-8", "replace").split("\0"))
    for item in entries:
        code, path = item[:2], item[3:]
        if "R" in code or "C" in code:
            next(entries, None)  # a rename or copy: its original path comes next
        if not path or path.startswith(".workflow/"):
            continue
        full = root / path
        try:
            st = full.lstat()  # a symlink (to /dev/zero?) or a FIFO is never read
            if not stat.S_ISREG(st.st_mode):
                target = os.readlink(full) if stat.S_ISLNK(st.st_mode) else ""
                states[path] = f"kind {stat.S_IFMT(st.st_mode)} {target}"
            elif st.st_size > HASHED_UP_TO:
                states[path] = f"size {st.st_size} mtime {st.st_mtime_ns}"
            else:
                data = full.read_bytes()
                states[path] = f"size {len(data)} crc {zlib.crc32(data)} adler {zlib.adler32(data)}"
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            states[path] = "absent"
        except OSError:
            states[path] = "unreadable"
    return states


def files_changed(before: dict[str, str] | None, after: dict[str, str] | None) -> list[str]:
    """Paths the task changed: newly changed, changed again (new content), or restored."""
    if before is None or after is None:
        return []
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


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
    record = runner.load_record(tid)
    if "files_before" not in record:  # kept across stops, so a resumed run sees it all
        record["files_before"] = file_states(runner.workdir)
        runner.save_record(record)
    result, release = run_until_stop(runner, task, resume)
    if release is not None:
        runner.finish(tid, *release)
        return result
    record = runner.load_record(tid)
    landing = record.get("landing")
    if isinstance(landing, dict):  # the steps were done before; merging is what was left
        changed = [str(p) for p in landing.get("changed", [])]
        if runner.worktree is not None and runner.recovering:
            worktrees.recover(runner.worktree)  # what a stopped run left half done goes
    else:
        changed = files_changed(record["files_before"], file_states(runner.workdir))
        if runner.worktree is not None:  # the work, on the task's own branch
            title = task.get("title")
            worktrees.commit_work(
                runner.worktree, runner.sid, tid, title if isinstance(title, str) else ""
            )
            record["landing"] = {"changed": changed}  # from now on, all it did is committed
            runner.save_record(record)
    runner.check_claim()  # a worker that lost its lease writes nothing more
    note = None
    if runner.worktree is not None and runner.travels is not None:
        stopped, note = publish(runner, task, record, changed, result)  # there, then here
        if stopped is not None:
            return stopped
    else:
        if runner.worktree is not None:
            stopped = land(runner, task, record, changed)
            if stopped is not None:
                return stopped
        runner.write_summary(task, result, changed)
        runner.finish(tid, "completed")
    outcome = {
        "task": tid,
        "status": "completed",
        "summary": runner.layout.relative(runner.summary_path(tid)),
        "steps": [
            {k: s[k] for k in ("key", "name", "status", "elapsed") if k in s}
            for s in result["steps"]
        ],
    }
    if note is not None:
        outcome["note"] = note
    return outcome


def land(
    runner: Runner, task: Task, record: dict[str, Any], changed: list[str]
) -> dict[str, Any] | None:
    """Merge the task's branch (its work committed) into the session's branch; None
    when merged, else the outcome of the blocked task (its work stays on its branch,
    and `--resume` merges again)."""
    place = runner.worktree
    assert place is not None
    tid = task["id"]
    try:
        landing = worktrees.land(runner.layout, place, runner.sid, tid)
    except WfsError as err:
        landing = worktrees.Landing([], err.message)
    if landing.merged:
        del record["landing"]
        runner.save_record(record)
        return None
    return not_landed(runner, task, landing, place.base)


def publish(
    runner: Runner,
    task: Task,
    record: dict[str, Any],
    changed: list[str],
    result: dict[str, Any],
) -> tuple[dict[str, Any] | None, str | None]:
    """With a claims remote: land the task's branch (its work committed) on the remote's
    session branch, with the task marked completed and its summary, in one push that
    gives the claim back (wfs.flow.worktrees.publish). When it landed: None (the main
    worktree has it then) and a note when it could not be merged here yet; else the
    outcome of the blocked task."""
    place, remote = runner.worktree, runner.travels
    assert place is not None and remote is not None and runner.holding is not None
    tid = task["id"]
    summary = runner.write_summary(task, result, changed)
    done = finished_task(read_task(runner.layout, runner.sid, tid), "completed")

    def write(there: Layout) -> None:
        commit_state(there, runner.sid, done, f"wfs session {runner.sid}: {tid} completed", summary)

    try:
        landing = worktrees.publish(
            runner.layout, place, runner.sid, remote, write, runner.holding.hand_over
        )
    except leases.LostLease:
        runner.check_claim()  # says so, in one line; nothing more is written
        raise
    except WfsError as err:
        landing = worktrees.Landing([], err.message)
    if landing.merged:
        runner.holding = None  # given back by the push
        del record["landing"]
        runner.save_record(record)
        return None, landing.note
    return not_landed(runner, task, landing, f"{remote}/{place.base}"), None


def commit_state(
    there: Layout, sid: str, task: Task, message: str, summary: Path | None = None
) -> None:
    """Write the task as a run leaves it (and its summary) in the project as a worktree
    holds it, and commit the session's folder there. A task completed there already (a
    run stopped while publishing wrote it) is left as it is."""
    tid = task["id"]
    with editing(there, sid, check=False) as draft:
        if status_of(draft.get(tid)) != "completed":
            draft.put(task)
    folder = there.session_dir(sid)
    if summary is not None and not (folder / ".summaries" / summary.name).exists():
        store.write_bytes(folder / ".summaries" / summary.name, summary.read_bytes(), durable=False)
    git.commit_paths(there.root, [there.relative(folder)], message)


def not_landed(runner: Runner, task: Task, landing: worktrees.Landing, into: str) -> dict[str, Any]:
    """Block a completed task whose work did not land in the session's branch `into`:
    its outcome, with the command that lands it once the cause is fixed."""
    place = runner.worktree
    assert place is not None
    tid = task["id"]
    resume_argv = runner.resume_argv(tid)
    reason = worktrees.blocked_reason(place, into, landing, platform.shell_join(resume_argv))
    runner.finish(tid, "blocked", reason)
    outcome: dict[str, Any] = {
        "task": tid,
        "status": "blocked",
        "reason": reason,
        "resume": resume_argv,
        "branch": place.branch,
        "worktree": str(place.path),
    }
    if landing.conflicts:
        outcome["conflicts"] = landing.conflicts
    return outcome


def _shown_try(entry: dict[str, Any]) -> dict[str, Any]:
    """A try as --json shows it: its tails cut to the last lines."""
    shown = {k: v for k, v in entry.items() if k not in ("stdout", "stderr")}
    for stream in ("stdout", "stderr"):
        if stream in entry:
            shown[stream] = tail_lines(entry[stream])
    return shown
