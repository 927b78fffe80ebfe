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
deleted (its commits are in the session's branch; the merge commit names it), so that
running the task again (`--force`) starts from a fresh branch.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from wfs import git, platform, store
from wfs.errors import WfsError
from wfs.layout import Layout

DEFAULT_FOLDER = ".worktrees"  # under .workflow/
MERGE_WAIT_SECONDS = 600.0  # how long a merge waits for the one before it
PUSH_TRIES = 40  # pushes of the session's branch refused (another clone first) before giving up


class Place(NamedTuple):
    """Where a task works: its worktree, its branch, and the session's branch."""

    path: Path
    branch: str
    base: str

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


def worktrees_folder(layout: Layout) -> Path:
    """Where the tasks' worktrees go: `.workflow/config.json`'s `"worktrees"` (relative
    to the project root), else `.workflow/.worktrees`."""
    path = layout.workflow / "config.json"
    if path.exists():
        where = layout.relative(path)
        data = store.read_json(path, where)
        chosen = data.get("worktrees") if isinstance(data, dict) else None
        if chosen is not None:
            if not isinstance(chosen, str) or not chosen.strip():
                raise WfsError(f"{where}#/worktrees: expected a folder (a path)")
            return (layout.root / chosen).resolve()
    return (layout.workflow / DEFAULT_FOLDER).resolve()


def task_branch(sid: str, tid: str) -> str:
    return f"wfs/{sid}/{tid}"


def session_branch(layout: Layout) -> str:
    """The branch checked out in the main worktree: the one the session runs on."""
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


def prepare(layout: Layout, sid: str, tid: str, base: str) -> Place:
    """Make the task's worktree afresh on its branch, from the session's branch `base`.
    A worktree or branch left by an earlier run that never started is replaced."""
    folder = worktrees_folder(layout)
    path = folder / sid / tid
    if not folder.is_dir():
        store.make_folder(folder)
    store.ignore_folder(folder)  # ignored by git wherever it is
    if path.exists():
        git.remove_worktree(layout.root, path)
    store.make_folder(path.parent)
    place = Place(path, task_branch(sid, tid), base)
    try:
        git.add_worktree(layout.root, path, place.branch, base)
    except WfsError:
        if not git.is_worktree_of(layout.root, path):
            raise
        git.remove_worktree(layout.root, path)  # git still lists one that is gone
        git.add_worktree(layout.root, path, place.branch, base)
    return place


def restore(layout: Layout, place: Place) -> None:
    """Make a resumed task's worktree again if it is gone (from its branch)."""
    if place.path.is_dir() and git.is_worktree_of(layout.root, place.path):
        return
    start = place.branch if git.rev_parse(layout.root, place.branch) else place.base
    if place.path.exists():
        git.remove_worktree(layout.root, place.path)
    store.make_folder(place.path.parent)
    git.add_worktree(layout.root, place.path, place.branch, start)


class Landing(NamedTuple):
    """How a task's work went back into the session's branch: merged (no conflicts,
    no error), or why not."""

    conflicts: list[str]
    error: str | None

    @property
    def merged(self) -> bool:
        return not self.conflicts and self.error is None


def commit_message(sid: str, tid: str, title: str) -> str:
    return f"{tid}: {title}\n\nwfs session {sid}, task {tid}" if title else f"wfs {sid} {tid}"


def land(layout: Layout, place: Place, sid: str, tid: str, title: str) -> Landing:
    """Commit what the task changed in its worktree on its branch, then merge the
    branch into the session's branch in the main worktree (one merge at a time in this
    repository). Merged: `clear` removes the worktree and deletes the branch."""
    git.commit_all(place.path, commit_message(sid, tid, title))
    current = git.current_branch(layout.root)
    if current != place.base:
        return Landing(
            [],
            f"the main worktree is on {current or 'a detached HEAD'}, not on {place.base}, "
            "the session's branch",
        )
    # Work that leaves every plan as it is (the usual case: a task's code) needs none
    # of the hooks that refresh the views, which would each start wfs under the lock.
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


def commit_state(layout: Layout, sid: str, everything: bool, message: str) -> None:
    """Commit the session's files (its plan, views and summaries) on the branch of the
    main worktree; with `everything`, all that changed there (a task run in place)."""
    with store.locked(layout.session_lock(sid), sid):  # no task file half-written
        if everything:
            git.commit_all(layout.root, message)
        else:
            git.commit_paths(layout.root, [layout.relative(layout.session_dir(sid))], message)


def take_in(layout: Layout, sid: str, remote: str, branch: str) -> None:
    """Fetch `branch` from the claims remote and merge it into the local one (task
    files through wfs's merge driver), after committing the session's files as they
    are (what runs writes them: a merge does not take in over changes not committed);
    WfsError when it conflicts."""
    fetched = git.fetch_branch(layout.root, remote, branch)
    if fetched is None:
        return
    with store.locked(layout.session_lock(sid), sid):  # nothing written while it merges
        folder = layout.relative(layout.session_dir(sid))
        git.commit_paths(layout.root, [folder], f"wfs session {sid}: state")
        merged = git.merge_ref(layout.root, fetched, f"Merge {remote}/{branch} (wfs session {sid})")
    if merged.conflicts:
        raise WfsError(
            f"merging {remote}/{branch} into {branch} conflicts in "
            f"{', '.join(merged.conflicts)}; merge it by hand (`git pull {remote} {branch}`), "
            "then run again"
        )
    if merged.error is not None:
        raise WfsError(f"cannot merge {remote}/{branch} into {branch}: {merged.error}")


def travel_in(layout: Layout, sid: str, remote: str, branch: str | None = None) -> None:
    """Before a task starts: the session's branch as the claims remote has it, merged
    into the local one, so that the task starts with the work done in other clones."""
    with merge_lock(layout):
        take_in(layout, sid, remote, checked_out(layout, branch))


def travel_out(
    layout: Layout, sid: str, remote: str, message: str, everything: bool, branch: str | None
) -> None:
    """After a task completed: its work and the session's files committed on the
    session's branch, pushed to the claims remote; a push refused because another
    clone pushed first fetches, merges and pushes again (PUSH_TRIES times at most)."""
    with merge_lock(layout):
        current = checked_out(layout, branch)
        commit_state(layout, sid, everything, message)
        for _ in range(PUSH_TRIES):
            if git.push_branch(layout.root, remote, current):
                return
            take_in(layout, sid, remote, current)
    raise WfsError(
        f"{remote} refused {current} {PUSH_TRIES} times (other clones pushed first each "
        f"time); push it by hand (`git pull {remote} {current} && git push {remote} {current}`)"
    )


def clear(layout: Layout, place: Place) -> None:
    """Remove a merged task's worktree and delete its branch (`git branch -d`: a branch
    with work not merged stays)."""
    git.remove_worktree(layout.root, place.path)
    git.delete_branch(layout.root, place.branch)


def blocked_reason(place: Place, tid: str, landing: Landing, resume: str) -> str:
    """Why a completed task's work is not merged, and how to go on."""
    if landing.conflicts:
        shown = ", ".join(landing.conflicts)
        return (
            f"merge conflict: {place.branch} conflicts with {place.base} in {shown}; "
            f"resolve it on {place.branch} in {place.path} (`git merge {place.base}`, fix, "
            f"commit), then `{resume}` merges it again"
        )
    return (
        f"cannot merge {place.branch} into {place.base}: {landing.error}; "
        f"fix that, then `{resume}` merges it again"
    )
