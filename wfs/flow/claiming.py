"""Claiming a task: what makes it this run's to do, and keeps it so while it runs.

A task is claimed under the session lock (status `active`, owner recorded), and leased
in the claims store that the worktrees of a clone (and, with a claims remote, every
clone) share (wfs.leases), so several `wfs execute` processes never run the same task.
Before the claim, the task is checked (`preflight`): what cannot run as written is
refused with nothing changed. `reclaim` takes back a stopped task for `--resume`: a
paused or blocked one, or one whose runner is gone (its orphaned step processes are
stopped first). With a claims remote, the session's branch travels in from the remote
before a task starts, and a task completed or blocked in another clone is passed over.

`Claimer` holds the lease of the running task; the landing (wfs.flow.landing) gives it
back through its methods `check`, `release`, `hand_over`, `handed_over` and `drop`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from wfs import git, gitfiles, leases, platform
from wfs.claims import claim_alive
from wfs.edit import Draft, editing, refuse_container
from wfs.errors import BUSY, WfsError
from wfs.flow import steps as run_steps
from wfs.flow import worktrees
from wfs.flow.record import FINISHED, Records, new_record, now
from wfs.flow.work import Step, Uninterpretable, task_steps
from wfs.formats import status_of
from wfs.layout import Layout, check_task_id
from wfs.query import one_line
from wfs.rules import TaskSource, refusal
from wfs.tasks import Task, obj, read_task, skeleton, unknown_task


class DoneElsewhere(WfsError):
    """The task was completed in another checkout: nothing to run here. `landed`: where,
    when its work is not in this checkout (passed over); None when it came in here
    (with a claims remote: the remote's branch brought it)."""

    def __init__(self, task_id: str, message: str, landed: leases.Landed | None = None) -> None:
        super().__init__(message)
        self.task_id = task_id
        self.landed = landed


class HeldElsewhere(WfsError):
    """The task is leased by a live holder elsewhere (another worktree, another clone,
    another run): nothing to run here now, and nothing wrong; asked for by name, the
    run is busy (exit 4)."""

    exit_code = BUSY

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


class BlockedElsewhere(HeldElsewhere):
    """With a claims remote: the task is blocked on the remote's branch (another clone
    blocked it), left to a person there: nothing to run here, and nothing to wait for."""


class NotRunnable(WfsError):
    """A task refused before it is claimed (exit 2, nothing changed)."""

    def __init__(self, task_id: str, message: str) -> None:
        super().__init__(message)
        self.task_id = task_id


def attempts_of(execution: dict[str, Any]) -> int:
    """How many times the task was claimed, as its file says; a value that is not a
    count (the `execution` object is wfs's own, but files are edited by hand) is 0."""
    value = execution.get("attempts")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def step_token(sid: str, tid: str, owner: str) -> str:
    """What marks the processes of a task's steps (WFS_STEP in their environment)."""
    return f"{sid}/{tid}/{owner}"


def stop_orphans(sid: str, tid: str, owner: str) -> list[str]:
    """Stop what the steps of a dead runner `owner` left running, before anything runs
    again; what was stopped, in words."""
    groups = run_steps.stop_orphans(step_token(sid, tid, owner))
    return [f"stopped the orphaned step processes of {owner} (group {g})" for g in groups]


def next_step(records: Records, task: Task) -> str | None:
    """The key of the first step of the task that its run record has not finished."""
    steps = records.load(task["id"])["steps"]
    try:
        plan = task_steps(task)
    except Uninterpretable:
        return None
    unfinished = (s.key for s in plan if steps.get(s.key, {}).get("status") not in FINISHED)
    return next(unfinished, None)


def preflight(records: Records, task: Task, checked: bool = False) -> list[Step]:
    """The task's steps; refuses (NotRunnable: exit 2, nothing changed) what cannot run
    as written.

    That is what `validate` reports as an error in the task (wfs.rules.refusal, the
    one decision readiness counts too; skipped when `checked`: the index found none
    in the file as it is), and, should wfs read a step the rules do not, what it
    cannot read as steps.
    """
    layout = records.layout
    tid = task["id"]
    path = layout.task_file(records.sid, tid)
    where = layout.relative(path)
    source = TaskSource(where, task, path.name[: -len(".json")], layout.root)
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
    try:
        records.guard(tid)  # where the run will write: refused now, not after the work
    except WfsError as err:
        raise NotRunnable(tid, err.message) from None
    return plan


class Claimer:
    """Claims the tasks of one session for one runner (`owner`), one at a time, and
    holds the running task's lease."""

    def __init__(
        self,
        records: Records,
        owner: str,
        command_prefix: list[str],
        resume_argv: Callable[[str], list[str]],
        remote: str | None = None,
    ) -> None:
        self.records = records
        self.layout: Layout = records.layout
        self.sid = records.sid
        self.owner = owner
        self.command_prefix = command_prefix
        self.resume_argv = resume_argv  # tid -> the argv that resumes it
        self.remote = remote  # --remote: the claims remote, else the configured one
        self.holding: leases.Holding | None = None  # the running task's lease, renewed
        self.in_worktrees = False  # each task in a worktree of its own (--jobs N)
        self.workdir = self.layout.root  # where the running task works, as leases name it
        self.recovering = False  # resuming a run that stopped by itself (see reclaim)
        # The running task, and the session's file, as they were before this claim.
        self.before: tuple[Task, dict[str, Any]] | None = None

    # ------------------------------------------------------------ the lease

    @functools.cached_property
    def claims(self) -> leases.ClaimStore:
        """Where this checkout's claims are leased (wfs.leases): the claims remote, else
        the clone's common git directory, else `.workflow/.locks/claims/`."""
        return leases.claim_store(self.layout, self.remote)

    @functools.cached_property
    def travels(self) -> str | None:
        """The claims remote that the session's branch travels through (fetched before
        each task, pushed after each completed one), or None: no remote, nothing pushed."""
        if leases.settings(self.layout, self.remote).remote is None:
            return None  # no claims remote: nothing more is looked up
        claims = self.claims
        return claims.remote if isinstance(claims, leases.RemoteStore) else None

    def where(self, tid: str) -> str:
        """Where this runner works on `tid`, as its lease names it: the task's own
        worktree (with --jobs N), else the project root; prefixed by this machine's
        name for a claims remote."""
        place = worktrees.path_of(self.layout, self.sid, tid) if self.in_worktrees else None
        root = str(place if place is not None else self.workdir)
        remote = isinstance(self.claims, leases.RemoteStore)
        return f"{platform.host_name()}:{root}" if remote else root

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

    def busy(self, tid: str) -> HeldElsewhere:
        holder = next((h for h in self.claims.holders(self.sid) if h.task == tid), None)
        if holder is None:
            return HeldElsewhere(tid, f"{tid} was claimed meanwhile by another process; try again")
        return HeldElsewhere(
            tid, leases.busy(holder) + "; wait for it to stop, or stop that process first"
        )

    def held_ready(self, passed: frozenset[str] = frozenset()) -> list[str]:
        """The ready tasks (none of `passed`) that a live holder elsewhere leases now:
        what `--all` waits for before it ends."""
        live = {h.task for h in self.claims.holders(self.sid) if not leases.free(h)}
        if not live:
            return []
        with editing(self.layout, self.sid, check=False) as draft:
            return [tid for tid in draft.ready() if tid in live and tid not in passed]

    # ------------------------------------------------------------ completion, remembered

    def checkout(self) -> str:
        """This checkout, as the claims store remembers where a task completed."""
        remote = isinstance(self.claims, leases.RemoteStore)
        root = str(self.layout.root)
        return f"{platform.host_name()}:{root}" if remote else root

    def landed(self, tid: str, committed: bool) -> leases.Landed:
        """Where `tid` completes now: this checkout, its branch, and (when the work was
        committed there, as with --jobs N) the commit that holds it; read off git's
        files, no git process."""
        root = self.layout.root
        head = gitfiles.head_on_disk(root)
        branch = head.removeprefix("refs/heads/") if head and head.startswith("refs/") else None
        commit = None
        if committed:
            commit = gitfiles.ref_on_disk(root, head) if head and branch else head
            commit = commit or git.rev_parse(root, "HEAD")  # a packed ref: git is asked
        return leases.Landed(self.sid, tid, self.checkout(), branch, commit, now())

    def landed_elsewhere(self, tid: str) -> leases.Landed | None:
        """Where `tid` completed, when that was elsewhere: in another worktree of this
        clone, or on the claims remote in a commit this branch has not taken in (one
        that has brings the task's completion with it). None when it never completed,
        or completed here: a task set back to pending where it completed runs again."""
        landed = self.claims.completion(self.sid, tid)
        if landed is None or landed.where == self.checkout():
            return None
        if landed.branch is None and landed.commit is not None:  # the remote's record
            if git.is_ancestor(self.layout.root, landed.commit, "HEAD"):
                return None
        return landed

    def passed_over(self, tid: str, landed: leases.Landed) -> DoneElsewhere:
        """The task completed in another checkout, not taken in here: passed over."""
        if landed.commit is None:
            how = "not committed there: its work is in that checkout"
        elif landed.branch is None:  # the claims remote's record: its done ref
            ref = leases.done_ref(leases.REF_PREFIX + f"{self.sid}/{tid}")
            how = (
                f"in {landed.commit[:12]}, which this branch does not hold; "
                f"`git fetch {landed.where} {ref} && git merge FETCH_HEAD` takes it in"
            )
        else:
            branch = landed.branch
            how = f"on {branch} ({landed.commit[:12]}); `git merge {branch}` takes it in"
        return DoneElsewhere(tid, f"{tid} was completed in {landed.where}, {how}", landed)

    def unlease(self) -> None:
        """Give back a lease taken for a task that did not start after all."""
        if self.holding is not None:
            holding, self.holding = self.holding, None
            holding.claims.release(holding.lease)

    @property
    def held(self) -> bool:
        """Whether this runner holds a task's lease."""
        return self.holding is not None

    def check(self) -> None:
        """Raise LostLease (one line: who holds the task now) unless this runner still
        holds the running task's lease; nothing of the task is written after that."""
        if self.holding is not None:
            try:
                self.holding.check()
            except leases.LostLease:
                self.holding.stop()
                self.holding = None
                self.give_way()
                raise

    def give_way(self) -> None:
        """A run that lost its lease takes back its own mark on the task (active,
        claimed by it), so that it leaves no change in the tree: the task's file (and
        the views) as they were before its claim. A file someone else marked since is
        left as it is."""
        before, self.before = self.before, None
        if before is None:
            return
        task, session = before
        with editing(self.layout, self.sid, check=False) as draft:
            if obj(draft.get(task["id"]), "execution").get("claimed_by") == self.owner:
                draft.put(task)
                if session.get("current_phase") != draft.session.get("current_phase"):
                    draft.session = session  # the phase its claim moved on, moved back
                    draft.session_changed = True

    def release(self, landed: leases.Landed | None = None) -> None:
        """Give the lease back once the task's file says how its run ended; for a task
        that completed, the store remembers where (`landed`)."""
        if self.holding is not None:
            holding, self.holding = self.holding, None
            holding.release(landed)

    def hand_over(self, push: Callable[[str, str], bool]) -> bool:
        """Give the lease back in the same push as `push` (wfs.leases.Holding.hand_over)."""
        assert self.holding is not None
        return self.holding.hand_over(push)

    def handed_over(self) -> None:
        """The lease was given back by a push (hand_over): nothing more to give back."""
        self.holding = None

    def drop(self) -> None:
        """Stop renewing the lease without giving it back: it runs out by itself (a
        push that could not be made: no other clone runs the task meanwhile)."""
        if self.holding is not None:
            self.holding.stop()
            self.holding = None

    # ------------------------------------------------------------ claiming

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
                # (and passes over what landed on another branch: DoneElsewhere)
            self.unlease()
            if requested is not None:
                if status == "completed":
                    raise DoneElsewhere(tid, f"{tid} was completed in another clone ({remote})")
                why = one_line(obj(task, "execution").get("blocked_reason") or status)
                raise BlockedElsewhere(tid, f"{tid} is {status} on {remote}: {why}")
            skipped.add(tid)  # blocked in another clone: left to a person there

    def _pick(self, passed: frozenset[str]) -> str | None:
        """Lease the next ready task (none of `passed`) without changing it; its id."""
        with editing(self.layout, self.sid, check=False) as draft:
            for tid in draft.ready():
                if tid in passed:
                    continue
                preflight(self.records, draft.get(tid), checked=True)
                if self.lease(tid) is not None:
                    return tid
        return None

    def _claim(self, requested: str | None, passed: frozenset[str]) -> Task | None:
        with editing(self.layout, self.sid, check=False) as draft:
            if requested is None:
                ready = [tid for tid in draft.ready() if tid not in passed]
                for tid in ready:
                    task = draft.get(tid)
                    preflight(self.records, task, checked=True)
                    if self.lease(tid) is not None:
                        break
                else:
                    return None
            else:
                tid = check_task_id(requested)
                task = self._requested(draft, tid)
            landed = self.landed_elsewhere(tid)  # leased: its holder has given it back
            if landed is not None:
                raise self.passed_over(tid, landed)
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
            self.records.save(new_record(tid))
            self.before = (task, draft.session)
            return claimed

    def _requested(self, draft: Draft, tid: str) -> Task:
        """The task `tid` asked for by name, leased: refused unless it is a pending leaf
        whose dependencies are done, and that runs as written."""
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
        task: Task = draft.get(tid)
        # A ready task has no validation error: the index counted them in this very
        # file (its stamp matched), so the schemas need not run again.
        preflight(self.records, task, checked=tid in draft.ready())
        if self.lease(tid) is None:
            raise self.busy(tid)
        return task

    # ------------------------------------------------------------ taking back

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
        with editing(self.layout, self.sid, check=False) as draft:
            tid = check_task_id(requested)
            if not draft.has(tid):
                raise unknown_task(tid, draft.ids)
            refuse_container(draft, tid, "resume it")
            task = draft.get(tid)
            execution = dict(obj(task, "execution"))
            notes = self._take_over(task, tid, execution)
            preflight(self.records, task)
            if self.lease(tid) is None:
                raise self.busy(tid)
            record = self.records.load(tid)
            if record.get("finished_at") and "landing" not in record:
                self.records.save(new_record(tid))  # that run completed: this one starts over
            for key in ("blocked_reason", "paused_reason", "stopped_at"):
                execution.pop(key, None)
            execution.update(claimed_by=self.owner, resumed_at=now())
            claimed = {**task, "status": "active", "execution": execution}
            draft.put(claimed)
            self.before = (task, draft.session)
            return claimed, notes

    def _take_over(self, task: Task, tid: str, execution: dict[str, Any]) -> list[str]:
        """Refuse to resume what is not stopped; take over the claim of a runner that
        is gone (its orphaned step processes stopped). Notes on what was done."""
        status = status_of(task)  # another tool's in_progress / failed read as active / blocked
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
        # A run that stopped (killed, interrupted) rather than blocked for a person may
        # have left a git command half done in the task's worktree.
        self.recovering = status == "active"
        notes: list[str] = []
        if isinstance(owner, str) and owner:
            if claim_alive(owner):
                since = execution.get("resumed_at") or execution.get("started_at")
                raise HeldElsewhere(
                    tid,
                    f"{tid} is being executed by {owner} (since {since}); "
                    "wait for it to stop, or stop that process first",
                )
            notes.append(f"took over the claim of {owner}, which is no longer running")
            notes.extend(stop_orphans(self.sid, tid, owner))
        return notes
