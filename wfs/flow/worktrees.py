"""A git worktree for each task that `wfs execute --all --jobs N` runs at once.

Each task works in `.workflow/.worktrees/<session>/<task>` (or under the folder that
`.workflow/config.json` names as `"worktrees"`), on the branch `wfs/<session>/<task>`,
made from the branch the session runs on (the one checked out in the main worktree),
which holds the merged work of the tasks completed before it. When its steps are done,
what they changed is committed on the task's branch and merged back into the session's
branch in the main worktree, one merge at a time (task files through wfs's merge
driver, as `wfs init` sets it up; code through git). A conflicted merge is aborted and
the task blocked: the conflict is resolved on the task's branch, in its worktree, and
`wfs execute --resume ID` merges again. After a merge (and once the task's result is
out, so that what waits on it can start), the worktree is removed and the branch
deleted (its commits are in the session's branch; the merge commit names it): under
`--jobs N`, the task's folder at once (`let_go`), and git's record of the worktrees and
their branches when the run ends, for all its tasks in two git processes (`forget`).

With a claims remote, the remote's branch decides instead: a completed task's branch
lands there whole, with the task marked completed, by one atomic push that gives its
claim back (`publish`), and the main worktree's branch follows the remote (`merge_in`).
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from wfs import git, gitfiles, gitremote, leases, platform, store
from wfs.edit import editing
from wfs.errors import WfsError
from wfs.layout import Layout, confined

DEFAULT_FOLDER = ".worktrees"  # under .workflow/
MERGE_WAIT_SECONDS = 600.0  # how long a merge waits for the one before it
PUSH_TRIES = 40  # pushes of the session's branch refused (another clone first) before giving up


class Place(NamedTuple):
    """Where a task works: its worktree, its branch, and the session's branch; `start`:
    the commit its branch was made at, when this run made it (read off git's files)."""

    path: Path
    branch: str
    base: str
    start: str | None = None

    def as_record(self) -> dict[str, str]:
        return {"path": str(self.path), "branch": self.branch, "base": self.base}


def from_record(data: Any) -> Place | None:
    """The place a run record keeps (`worktree`), or None."""
    if not isinstance(data, dict):
        return None
    path, branch, base = (data.get(key) for key in ("path", "branch", "base"))
    if not (isinstance(path, str) and isinstance(branch, str) and isinstance(base, str)):
        return None
    return Place(Path(path), branch, base) if path and branch and base else None


class Work(NamedTuple):
    """What a run knows of its task's branch once its work is committed: whether the
    branch changes a plan, and whether it holds anything to merge (None: unknown, git
    is asked; a branch this run did not make, or one with commits of its own, may hold
    more than this run's work)."""

    plans: bool | None = None
    merge: bool = True


def worktrees_folder(layout: Layout) -> Path:
    """Where the tasks' worktrees go: `.workflow/config.json`'s `"worktrees"` (relative
    to the project root), else `.workflow/.worktrees`; inside the project either way
    (wfs.layout.confined: a symlink there that leads out is refused)."""
    path = layout.workflow / "config.json"
    chosen: Any = None
    if path.exists():
        where = layout.relative(path)
        data = store.read_json(path, where)
        chosen = data.get("worktrees") if isinstance(data, dict) else None
        if chosen is not None and (not isinstance(chosen, str) or not chosen.strip()):
            raise WfsError(f"{where}#/worktrees: expected a folder (a path)")
    if chosen is None:
        chosen = layout.relative(layout.workflow / DEFAULT_FOLDER)
    try:
        folder = confined(layout.root, chosen)
    except WfsError as err:
        raise WfsError(f"the tasks' worktrees folder: {err.message}") from None
    if folder.exists() and not folder.is_dir():
        raise WfsError(f"the tasks' worktrees folder: {chosen} is not a folder")
    return folder


def task_branch(sid: str, tid: str) -> str:
    return f"wfs/{sid}/{tid}"


def session_branch(layout: Layout) -> str:
    """The branch checked out in the main worktree: the one the session runs on."""
    found = git.session_branch_of(layout.root)  # one git process; the rest says why not
    if found is not None:
        return found
    if not git.is_work_tree(layout.root):
        raise WfsError(
            f"{layout.root}: not a git repository; --jobs N runs each task in a git "
            "worktree (run `git init` and commit first, or use --jobs 1)"
        )
    branch = git.current_branch(layout.root)
    if branch is None or git.rev_parse(layout.root, "HEAD") is None:
        raise WfsError(
            "--jobs N needs a branch with a commit checked out (each task's branch is "
            "made from it); check one out, or use --jobs 1"
        )
    return branch


def path_of(layout: Layout, sid: str, tid: str) -> Path:
    """Where the task's worktree is made."""
    return worktrees_folder(layout) / sid / tid


def prepare(layout: Layout, sid: str, tid: str, base: str) -> Place:
    """Make the task's worktree afresh on its branch, from the session's branch `base`.
    A worktree or branch left by an earlier run that never started is replaced; a
    branch with commits of its own (a conflict resolved on it, as docs/parallel.md
    says) is kept, with its worktree."""
    folder = worktrees_folder(layout)
    path = path_of(layout, sid, tid)
    if not folder.is_dir():
        store.make_folder(folder)
    store.ignore_folder(folder)  # ignored by git wherever it is
    place = Place(path, task_branch(sid, tid), base)
    if has_branch(layout, place.branch) and not git.is_ancestor(layout.root, place.branch, base):
        restore(layout, place)
        return place
    with leases.clone_lock(layout.root):
        if path.exists():
            git.remove_worktree(layout.root, path)
        store.make_folder(path.parent)
        try:
            git.add_worktree(layout.root, path, place.branch, base)
        except WfsError:
            if not git.is_worktree_of(layout.root, path):
                raise
            git.remove_worktree(layout.root, path)  # git still lists one that is gone
            git.add_worktree(layout.root, path, place.branch, base)
    # The commit the branch starts at, read off git's files (None when they do not say).
    return place._replace(start=gitfiles.ref_on_disk(path, f"refs/heads/{place.branch}"))


def has_branch(layout: Layout, branch: str) -> bool:
    """Whether `branch` exists, read off git's files when they say (no git process)."""
    found = gitfiles.has_branch_on_disk(layout.root, f"refs/heads/{branch}")
    return found if found is not None else git.rev_parse(layout.root, branch) is not None


def restore(layout: Layout, place: Place) -> None:
    """Make a resumed task's worktree again if it is gone (deleted by hand, say): on
    its branch as it is, or from the session's branch when it has none."""
    if place.path.is_dir() and git.is_worktree_of(layout.root, place.path):
        return
    start = None if has_branch(layout, place.branch) else place.base
    with leases.clone_lock(layout.root):
        if place.path.exists():
            git.remove_worktree(layout.root, place.path)
        else:
            git.prune_worktrees(layout.root)  # git still lists the one deleted by hand
        store.make_folder(place.path.parent)
        git.add_worktree(layout.root, place.path, place.branch, start)


class Landing(NamedTuple):
    """How a task's work went back into the session's branch: merged (no conflicts,
    no error), or why not."""

    conflicts: list[str]
    error: str | None
    note: str | None = None  # landed, and what is left to do

    @property
    def merged(self) -> bool:
        return not self.conflicts and self.error is None


def commit_message(sid: str, tid: str, title: str) -> str:
    return f"{tid}: {title}\n\nwfs session {sid}, task {tid}" if title else f"wfs {sid} {tid}"


def commit_work(place: Place, sid: str, tid: str, title: str, status: git.Status | None) -> Work:
    """Commit what the task changed in its worktree on its branch (`status`: what git
    says changed there, when it said it); what is then known of the branch."""
    message = commit_message(sid, tid, title)
    if status is None:
        git.commit_all(place.path, message)
        return Work()
    committed = bool(status.paths) and git.commit_all(
        place.path, message, tracked_only=not (status.untracked or status.unmerged)
    )
    if place.start is None or status.head != place.start:
        return Work()  # the branch may hold more than this run's work: git tells
    changed = [*status.paths, *status.moved_from]
    plans = any(".workflow" in PurePosixPath(path).parts for path in changed)
    return Work(plans if committed else False, committed)


UNKNOWN = Work()  # nothing known of a task's branch: git is asked


def land(layout: Layout, place: Place, sid: str, tid: str, known: Work = UNKNOWN) -> Landing:
    """Merge the task's branch (its work committed) into the session's branch in the
    main worktree (one merge at a time in this repository). Merged: `clear` removes
    the worktree and deletes the branch. `known`: what the run knows of the branch."""
    current = git.checked_out(layout.root)
    if current != place.base:
        return Landing(
            [],
            f"the main worktree is on {current or 'a detached HEAD'}, not on {place.base}, "
            "the session's branch",
        )
    if not known.merge:
        return Landing([], None)  # the branch holds nothing the session's branch has not
    # Work that leaves every plan as it is (the usual case: a task's code) needs none
    # of the hooks that refresh the views, which would each start wfs under the lock.
    plans = known.plans
    if plans is None:
        plans = git.changes_plans(layout.root, place.base, place.branch)
    try:
        with merge_lock(layout):
            merged = git.merge_branch(
                layout.root,
                place.branch,
                f"Merge {tid} of wfs session {sid} ({place.branch})",
                plans,
            )
    except TimeoutError:
        return Landing([], "another merge into the session's branch did not end in time")
    return Landing(merged.conflicts, merged.error)


def merge_lock(layout: Layout) -> Any:
    """The lock that lets one merge at a time into the session's branch in the main
    worktree (and one exchange of it with the claims remote)."""
    store.make_folder(layout.workflow / ".locks")
    return platform.FileLock(str(layout.workflow / ".locks" / "merge.lock"), MERGE_WAIT_SECONDS)


# ------------------------------------------- the work travels with the claims (--remote)


def checked_out(layout: Layout, branch: str | None) -> str:
    """The branch of the main worktree, which must be `branch` when one is named."""
    current = git.current_branch(layout.root)
    if current is None:
        raise WfsError(
            "the claims remote needs a branch checked out: the session's work is "
            "pushed to that branch of the remote"
        )
    if branch is not None and current != branch:
        raise WfsError(f"the main worktree is on {current}, not on {branch}, the session's branch")
    return current


def commit_state(layout: Layout, sid: str, message: str) -> None:
    """Commit all that changed in the main worktree (a task run in place: its work and
    the session's files, its plan, views and summaries) on its branch."""
    with store.locked(layout.session_lock(sid), sid):  # no task file half-written
        git.commit_all(layout.root, message)


def take_in(layout: Layout, sid: str, remote: str, branch: str) -> None:
    """Fetch `branch` from the claims remote and merge it into the local one (see
    merge_in); WfsError when it conflicts."""
    with leases.clone_lock(layout.root):
        fetched = gitremote.fetch_branch(layout.root, remote, branch)
    if fetched is not None:
        merge_in(layout, sid, fetched, f"{remote}/{branch}")


def merge_in(layout: Layout, sid: str, ref: str, name: str) -> None:
    """Merge `ref`, the session's branch as the claims remote has it, into the branch
    of the main worktree: a fast-forward when it can be (task files through wfs's merge
    driver otherwise). What this clone wrote in the session's folder and did not commit
    (the bookkeeping of its runs: a task marked active, the views, a summary) gives way
    wherever `ref` changed the same file: the remote holds what the holders of the
    claims published, and a task marked active here by a run that lost its claim is
    stale. WfsError when the merge conflicts."""
    with store.locked(layout.session_lock(sid), sid):  # nothing written while it merges
        folder = layout.relative(layout.session_dir(sid))
        since = git.merge_base(layout.root, "HEAD", ref)
        incoming = set(git.changed_between(layout.root, since, ref, folder))
        stale = [path for path in git.uncommitted(layout.root, folder) if path in incoming]
        git.restore_paths(layout.root, stale)
        merged = git.merge_ref(layout.root, ref, f"Merge {name} (wfs session {sid})")
    rederive(layout, sid)
    if merged.conflicts:
        raise WfsError(
            f"merging {name} into the session's branch conflicts in "
            f"{', '.join(merged.conflicts)}; merge it by hand (`git merge {name}`), then run again"
        )
    if merged.error is not None:
        raise WfsError(f"cannot merge {name} into the session's branch: {merged.error}")


def rederive(layout: Layout, sid: str) -> None:
    """Write the session's derived files (its progress fields, `current_tasks`, and the
    views) anew from its task files as they are now: after a merge, what the files it
    kept say of the tasks running here may be stale either way."""
    with editing(layout, sid, check=False) as draft:
        draft.rederive = True


def commit_session(layout: Layout, sid: str, message: str) -> bool:
    """Commit the session's folder as it is (its tasks' states, summaries, progress
    and views), and nothing else; False when nothing there changed."""
    with store.locked(layout.session_lock(sid), sid):  # no task file half-written
        return git.commit_paths(layout.root, [layout.relative(layout.session_dir(sid))], message)


def travel_in(layout: Layout, sid: str, remote: str, branch: str | None = None) -> None:
    """Before a task starts: the session's branch as the claims remote has it, merged
    into the local one, so that the task starts with the work done in other clones."""
    with merge_lock(layout):
        take_in(layout, sid, remote, checked_out(layout, branch))


# How a task's new state is written in a worktree (the project as that worktree holds
# it) and committed there, before it is pushed.
Write = Callable[[Layout], None]
# wfs.leases.Holding.hand_over: one push that gives the task's claim back with it.
HandOver = Callable[[Callable[[str, str], bool]], bool]


def travel_out(
    layout: Layout,
    sid: str,
    remote: str,
    message: str,
    hand_over: HandOver,
) -> None:
    """After a task run in place completed: its work and the session's files committed
    on the session's branch, and pushed to the claims remote in one atomic push that
    also gives the task's claim back, only while it is still this holder's (`hand_over`,
    wfs.leases.Holding; LostLease otherwise: the commit stays here, not pushed). A push
    refused because another clone pushed first fetches, merges and pushes again
    (PUSH_TRIES times at most)."""
    with merge_lock(layout):
        current = checked_out(layout, None)
        commit_state(layout, sid, message)
        for _ in range(PUSH_TRIES):
            head = git.rev_parse(layout.root, "HEAD")
            assert head is not None

            def push(claim: str, expected: str, head: str = head) -> bool:
                done = leases.done_ref(claim)  # remembered by every clone, on any branch
                return gitremote.push_fenced(
                    layout.root, remote, head, current, claim, expected, done
                )

            if hand_over(push):
                return
            take_in(layout, sid, remote, current)
    raise WfsError(
        f"{remote} refused {current} {PUSH_TRIES} times (other clones pushed first each "
        f"time); push it by hand (`git pull {remote} {current} && git push {remote} {current}`)"
    )


def project_in(layout: Layout, place: Place) -> Layout:
    """The project as the task's worktree holds it (the same folder of the repository)."""
    return Layout(place.path / git.show_prefix(layout.root))


def publish(
    layout: Layout, place: Place, sid: str, remote: str, write: Write, hand_over: HandOver
) -> Landing:
    """With a claims remote: land a completed task's branch (its work, committed in its
    worktree) on the session's branch of the remote, with the task marked completed
    (`write`), by one atomic push that also deletes the task's claim, only while it is
    still this holder's (`hand_over`, wfs.leases.Holding; LostLease otherwise, and
    nothing lands). The remote's branch is fetched and merged into the task's branch
    first (task files through wfs's merge driver), so the completion is written over
    what the remote holds; when the remote moved on meanwhile, that is done again. So a
    run killed at any moment has published all of the task or none of it. Once it
    landed, the main worktree's branch takes it in (merge_in); when that fails, the task
    is landed all the same, and `note` says what is left to do here."""
    name = f"{remote}/{place.base}"
    with merge_lock(layout):
        for _ in range(PUSH_TRIES):
            with leases.clone_lock(place.path):
                fetched = gitremote.fetch_branch(place.path, remote, place.base)
            if fetched is not None:
                merged = git.merge_ref(place.path, fetched, f"Merge {name} into {place.branch}")
                if merged.conflicts or merged.error is not None:
                    return Landing(merged.conflicts, merged.error)
            write(project_in(layout, place))
            landed = pushed(layout, place.path, sid, remote, place.base, hand_over)
            if landed is not None:
                return landed
    return Landing([], f"{remote} refused it {PUSH_TRIES} times (other clones pushed first)")


def publish_state(
    layout: Layout, sid: str, tid: str, remote: str, write: Write, hand_over: HandOver
) -> Landing:
    """With a claims remote: land a task's new state alone (blocked), none of its work,
    on the session's branch of the remote, by one atomic push that also deletes the
    task's claim (as `publish`). It is written (`write`) in a scratch worktree made
    from the remote's branch, removed after."""
    branch = checked_out(layout, None)
    scratch = worktrees_folder(layout) / sid / f".state-{tid}"
    with merge_lock(layout):
        try:
            for _ in range(PUSH_TRIES):
                with leases.clone_lock(layout.root):
                    fetched = gitremote.fetch_branch(layout.root, remote, branch)
                    if scratch.exists():
                        git.remove_worktree(layout.root, scratch)
                    store.make_folder(scratch.parent)
                    store.ignore_folder(worktrees_folder(layout))
                    git.add_detached_worktree(layout.root, scratch, fetched or "HEAD")
                write(Layout(scratch / git.show_prefix(layout.root)))
                landed = pushed(layout, scratch, sid, remote, branch, hand_over, False)
                if landed is not None:
                    return landed
        finally:
            with leases.clone_lock(layout.root):
                git.remove_worktree(layout.root, scratch)
    return Landing([], f"{remote} refused it {PUSH_TRIES} times (other clones pushed first)")


def pushed(
    layout: Layout,
    where: Path,
    sid: str,
    remote: str,
    branch: str,
    hand_over: HandOver,
    completed: bool = True,
) -> Landing | None:
    """Push the HEAD of the worktree `where` to `branch` of the remote, giving the task's
    claim back with it (`hand_over`), and, for a `completed` task, setting its done ref
    (wfs.leases.done_ref) to that commit; then take it in here. None when the remote's
    branch moved on meanwhile (merge it, and push again)."""
    head = git.rev_parse(where, "HEAD")
    assert head is not None

    def push(claim: str, expected: str) -> bool:
        done = leases.done_ref(claim) if completed else None
        return gitremote.push_fenced(where, remote, head, branch, claim, expected, done)

    if not hand_over(push):
        return None
    name = f"{remote}/{branch}"
    try:
        merge_in(layout, sid, head, name)
    except WfsError as err:
        return Landing([], None, f"landed on {name}, not yet merged here: {err.message}")
    return Landing([], None)


def recover(place: Place) -> None:
    """Before a stopped task's landing resumes in its worktree: everything the task did
    there was committed before its landing began, so whatever else the worktree holds
    (a merge or checkout a killed run left half done) is put back as its branch has it."""
    git.discard_changes(place.path)


def clear(layout: Layout, place: Place) -> None:
    """Remove a merged task's worktree and delete its branch (`git branch -d`: a branch
    with work not merged stays)."""
    with leases.clone_lock(layout.root):
        git.remove_worktree(layout.root, place.path)
    git.delete_branch(layout.root, place.branch)


def let_go(place: Place) -> None:
    """Remove a merged task's folder only, leaving git's record of the worktree and its
    branch to `forget` (what `--jobs N` does for all its tasks at once, when they are
    over): no git process per task."""
    if sys.version_info >= (3, 12):
        shutil.rmtree(place.path, onexc=_writable_again)
    else:
        shutil.rmtree(place.path, onerror=_writable_again)


def _writable_again(function: Any, path: str, _: object) -> None:
    """A file that cannot be removed because it is read-only (Windows) is made
    writable, then removed."""
    os.chmod(path, stat.S_IWRITE)
    function(path)


def forget(layout: Layout, branches: list[str]) -> None:
    """After tasks whose folders `let_go` removed: git forgets their worktrees, and
    deletes their branches (`git branch -d`: a branch with work not merged stays), in
    two git processes for them all."""
    if not branches:
        return
    with leases.clone_lock(layout.root):
        git.prune_worktrees(layout.root)
    git.delete_branches(layout.root, branches)


def blocked_reason(place: Place, into: str, landing: Landing, resume: str) -> str:
    """Why a completed task's work is not merged into `into` (the session's branch,
    here or on the claims remote), and how to go on."""
    if landing.conflicts:
        shown = ", ".join(landing.conflicts)
        return (
            f"merge conflict: {place.branch} conflicts with {into} in {shown}; "
            f"resolve it on {place.branch} in {place.path} (`git merge {into}`, fix, "
            f"commit), then `{resume}` merges it again"
        )
    return (
        f"cannot merge {place.branch} into {into}: {landing.error}; "
        f"fix that, then `{resume}` merges it again"
    )
