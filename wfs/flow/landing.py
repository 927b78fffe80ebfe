"""Landing: how a task's run ends, in its file and in git.

A run that stops releases the task's claim with the task paused or blocked (`finish`);
one whose steps are all done completes it: its summary written, the task marked
completed. A task that ran in a worktree of its own (--jobs N) lands first: its work
committed on its branch and merged into the session's branch (`land`), or, with a
claims remote, pushed there with the task marked completed in one atomic push that
gives the claim back (`publish`). A task run in place with a claims remote is pushed
after it completes (`push_work`); one blocked goes to the remote marked blocked
(`publish_blocked`), so that other clones leave it to a person. What did not land
blocks the task, saying how to land it once the cause is fixed (`not_landed`).

The lease is the claimer's (wfs.flow.claiming.Claimer): nothing of a task is written
once this run lost it.
"""

from __future__ import annotations

import os
import stat
import zlib
from pathlib import Path
from typing import Any

from wfs import git, leases, platform, store
from wfs.edit import editing
from wfs.errors import WfsError
from wfs.flow import worktrees
from wfs.flow.claiming import Claimer
from wfs.flow.context import RunContext
from wfs.flow.record import now
from wfs.formats import status_of
from wfs.layout import Layout
from wfs.tasks import Task, obj, read_task

HASHED_UP_TO = 16 * 1024 * 1024  # larger files are compared by size and mtime


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


def file_states(root: Path, status: git.Status | None) -> dict[str, str] | None:
    """What each path that git reports as changed or new in `status` of the work tree
    at `root` (outside .workflow/) holds: its size and two checksums of its content (64
    bits: no change goes unseen by chance), or size and mtime for a large file,
    "absent" for a deleted one. None outside a git repository."""
    if status is None:
        return None
    states: dict[str, str] = {}
    for path in status.paths:
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


class Lander:
    """Ends the runs of one runner: `context` says where (the task's worktree, if any),
    `claimer` holds the lease given back."""

    def __init__(self, context: RunContext, claimer: Claimer) -> None:
        self.context = context
        self.records = context.records
        self.claimer = claimer
        self.layout = context.layout
        self.sid = context.sid

    # ------------------------------------------------------------ a stop, or the end

    def finish(
        self, tid: str, status: str, reason: str | None = None, step: str | None = None
    ) -> None:
        """Release the claim: completed, blocked (with its reason) or paused (`active`).

        Only while this runner still holds the task's lease (else LostLease, and
        nothing is written); the lease is given back after the task's file is written."""
        self.claimer.check()
        travels = self.claimer.travels
        if status == "blocked" and travels is not None:
            if self.publish_blocked(tid, reason, step):
                return
        with editing(self.layout, self.sid, check=False) as draft:
            task = draft.get(tid)
            draft.put(finished_task(task, status, reason, step))
        if status == "completed" and travels is not None:
            self.push_work(tid, task.get("title"))
        landed = None
        if status == "completed":  # remembered by the store: no other checkout runs it again
            landed = self.claimer.landed(tid, committed=self.context.worktree is not None)
        self.claimer.release(landed)

    def complete(self, task: Task, result: dict[str, Any]) -> dict[str, Any]:
        """The end of a run whose steps are all done (`result`): its work landed, its
        summary written, the task completed; its outcome (blocked when its work did not
        land)."""
        tid = task["id"]
        place = self.context.worktree
        record = self.records.load(tid)
        landing = record.get("landing")
        # What this run knows of the task's branch (its work committed just now): whether
        # it changes a plan, and whether it has anything to merge; else git is asked.
        known = worktrees.UNKNOWN
        if isinstance(landing, dict):  # the steps were done before; merging is what was left
            changed = [str(p) for p in landing.get("changed", [])]
            if place is not None and self.claimer.recovering:
                worktrees.recover(place)  # what a stopped run left half done goes
        else:
            workdir = self.context.workdir
            status = git.status(workdir)  # one git process tells all that changed
            changed = files_changed(record["files_before"], file_states(workdir, status))
            if place is not None:  # the work, on the task's own branch
                title = task.get("title")
                title = title if isinstance(title, str) else ""
                known = worktrees.commit_work(place, self.sid, tid, title, status)
                record["landing"] = {"changed": changed}  # from now on, all it did is committed
                self.records.save(record)
        try:
            stopped, note = self.end(task, record, changed, result, known)
        except leases.LostLease:
            raise
        except WfsError as err:
            if self.claimer.travels is None:
                raise
            return self.unreached(task, record, changed, err)
        if stopped is not None:
            return stopped
        outcome = {
            "task": tid,
            "status": "completed",
            "summary": self.layout.relative(self.records.summary_path(tid)),
            "steps": [
                {k: s[k] for k in ("key", "name", "status", "elapsed") if k in s}
                for s in result["steps"]
            ],
        }
        if note is not None:
            outcome["note"] = note
        return outcome

    def end(
        self,
        task: Task,
        record: dict[str, Any],
        changed: list[str],
        result: dict[str, Any],
        known: worktrees.Work,
    ) -> tuple[dict[str, Any] | None, str | None]:
        """Land a task whose steps are done, and complete it: None, and a note on what
        is left to do here; else the outcome of the task blocked (its work not landed)."""
        tid, place = task["id"], self.context.worktree
        self.claimer.check()  # a worker that lost its lease writes nothing more
        if place is not None and self.claimer.travels is not None:
            return self.publish(task, record, changed, result)  # there, then here
        if place is not None:
            stopped = self.land(task, record, known)
            if stopped is not None:
                return stopped, None
        self.records.write_summary(task, result, changed)
        self.finish(tid, "completed")
        if "landing" in record:  # landed at last: a later run starts afresh
            del record["landing"]
            self.records.save(record)
        return None, None

    def unreached(
        self, task: Task, record: dict[str, Any], changed: list[str], err: WfsError
    ) -> dict[str, Any]:
        """The claims remote could not be reached as a task whose steps are done was
        landing: the task is blocked here (the lease runs out by itself), its record
        keeps that its steps are done, and `--resume` lands it without running any
        step again. Its outcome, with that resume command."""
        tid = task["id"]
        record["landing"] = {"changed": changed}
        self.records.save(record)
        self.claimer.drop()
        resume_argv = self.context.resume_argv(tid)
        reason = (
            f"{err.message}; its steps are done: once {self.claimer.travels} can be "
            f"reached and takes it, `{platform.shell_join(resume_argv)}` lands it"
        )
        with editing(self.layout, self.sid, check=False) as draft:
            draft.put(finished_task(draft.get(tid), "blocked", reason))
        return {
            "task": tid,
            "status": "blocked",
            "reason": reason,
            "resume": resume_argv,
            "landing": True,
        }

    # ------------------------------------------------------------ into the session's branch

    def land(
        self, task: Task, record: dict[str, Any], known: worktrees.Work
    ) -> dict[str, Any] | None:
        """Merge the task's branch (its work committed) into the session's branch; None
        when merged, else the outcome of the blocked task (its work stays on its branch,
        and `--resume` merges again)."""
        place = self.context.worktree
        assert place is not None
        tid = task["id"]
        try:
            landing = worktrees.land(self.layout, place, self.sid, tid, known)
        except WfsError as err:
            landing = worktrees.Landing([], err.message)
        if landing.merged:
            del record["landing"]
            self.records.save(record)
            return None
        return self.not_landed(task, landing, place.base)

    def publish(
        self, task: Task, record: dict[str, Any], changed: list[str], result: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, str | None]:
        """With a claims remote: land the task's branch (its work committed) on the
        remote's session branch, with the task marked completed and its summary, in one
        push that gives the claim back (wfs.flow.worktrees.publish). When it landed:
        None (the main worktree has it then) and a note when it could not be merged
        here yet; else the outcome of the blocked task."""
        place, remote = self.context.worktree, self.claimer.travels
        assert place is not None and remote is not None and self.claimer.held
        tid, sid = task["id"], self.sid
        summary = self.records.write_summary(task, result, changed)
        done = finished_task(read_task(self.layout, sid, tid), "completed")

        def write(there: Layout) -> None:
            commit_state(there, sid, done, f"wfs session {sid}: {tid} completed", summary)

        try:
            landing = worktrees.publish(
                self.layout, place, sid, remote, write, self.claimer.hand_over
            )
        except leases.LostLease:
            self.claimer.check()  # says so, in one line; nothing more is written
            raise
        except WfsError as err:
            landing = worktrees.Landing([], err.message)
        if landing.merged:
            self.claimer.handed_over()
            del record["landing"]
            self.records.save(record)
            return None, landing.note
        return self.not_landed(task, landing, f"{remote}/{place.base}"), None

    def not_landed(self, task: Task, landing: worktrees.Landing, into: str) -> dict[str, Any]:
        """Block a completed task whose work did not land in the session's branch
        `into`: its outcome, with the command that lands it once the cause is fixed."""
        place = self.context.worktree
        assert place is not None
        tid = task["id"]
        resume_argv = self.context.resume_argv(tid)
        reason = worktrees.blocked_reason(place, into, landing, platform.shell_join(resume_argv))
        self.finish(tid, "blocked", reason)
        outcome: dict[str, Any] = {
            "task": tid,
            "status": "blocked",
            "reason": reason,
            "resume": resume_argv,
            "landing": True,  # its steps are done: the resume command lands it
            "branch": place.branch,
            "worktree": str(place.path),
        }
        if landing.conflicts:
            outcome["conflicts"] = landing.conflicts
        return outcome

    # ------------------------------------------------------------ with a claims remote

    def publish_blocked(self, tid: str, reason: str | None, step: str | None) -> bool:
        """With a claims remote: land the task marked blocked on the remote's session
        branch (none of its work), giving its claim back in the same push, so that
        other clones leave it to a person (wfs.flow.worktrees.publish_state). False
        when the remote cannot take it: the task is then blocked here only."""
        remote, sid = self.claimer.travels, self.sid
        assert remote is not None
        if not self.claimer.held:
            return False
        task = finished_task(read_task(self.layout, sid, tid), "blocked", reason, step)

        def write(there: Layout) -> None:
            commit_state(there, sid, task, f"wfs session {sid}: {tid} blocked")

        try:
            landing = worktrees.publish_state(
                self.layout, sid, tid, remote, write, self.claimer.hand_over
            )
        except leases.LostLease:
            self.claimer.check()  # says so, in one line; nothing more is written
            raise
        except WfsError:
            return False
        if not landing.merged:
            return False
        self.claimer.handed_over()
        if status_of(read_task(self.layout, sid, tid)) != "blocked":
            with editing(self.layout, sid, check=False) as draft:  # not merged here yet
                draft.put(task)
        return True

    def push_work(self, tid: str, title: Any) -> None:
        """Commit all that changed in the main worktree (a task run in place: its work
        and the session's files) and push the session's branch to the claims remote,
        giving the task's claim back in the same push. When the push cannot be made,
        the lease is kept until it runs out (so no other clone runs the task meanwhile).
        A task run in its own worktree is published by `publish` instead."""
        remote = self.claimer.travels
        assert remote is not None and self.claimer.held
        message = worktrees.commit_message(self.sid, tid, title if isinstance(title, str) else "")
        try:
            worktrees.travel_out(self.layout, self.sid, remote, message, self.claimer.hand_over)
        except leases.LostLease as err:
            self.claimer.handed_over()
            raise leases.LostLease(
                f"{err.message}; this run's work stays committed here, not pushed"
            ) from None
        except WfsError as err:
            self.claimer.drop()
            raise WfsError(
                f"{tid} completed here, but its work is not on {remote}: {err.message}"
            ) from None
        self.claimer.handed_over()
