"""Every call wfs makes to git that reaches a remote (the claims store, the session's
branch on it): fetches, pushes with a lease, and the one classification of a push the
remote refused. Each value handed to git passes wfs.git.operand, as every other call
does."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from pathlib import Path

from wfs.errors import WfsError
from wfs.git import Result, check, get_config, operand, run
from wfs.gitfiles import common_dir_on_disk


def reach(root: Path, remote: str) -> str:
    """What to hand git for `remote` from any worktree: its name, or, when its URL is a
    relative path (`git remote add origin ../shared.git`), which git reads from where
    it runs (for a task's worktree, another folder), the path it names from the main
    worktree."""
    remote = operand(remote, "remote")
    common = common_dir_on_disk(root)  # read off git's files: no git process
    if common is None or common.name != ".git" or common.parent == root.resolve():
        return remote  # the main worktree's top, where git reads the path from already
    url = get_config(root, f"remote.{remote}.url")
    if (
        not url
        or "://" in url
        or url.startswith(("/", "~", "file:"))
        or os.path.isabs(url)
        or ":" in url.split("/")[0]  # host:path, as ssh takes it
    ):
        return remote
    return str((common.parent / url).resolve())


def ls_remote(root: Path, remote: str, pattern: str) -> dict[str, str]:
    """The refs of `remote` matching `pattern` (a glob on the tail of the name): name to
    object id."""
    out = check(root, "ls-remote", "--refs", reach(root, remote), operand(pattern, "ref"))
    refs: dict[str, str] = {}
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        oid, _, name = line.partition("\t")
        if name:
            refs[name] = oid
    return refs


def fetch_objects(root: Path, remote: str, oids: Iterable[str]) -> bool:
    """Fetch the objects `oids` (tips of refs of `remote`) without writing any ref or
    FETCH_HEAD; False when the remote no longer has one of them at a ref tip."""
    wanted = list(dict.fromkeys(oids))
    if not wanted:
        return True
    result = run(
        root, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc",
        reach(root, remote), *(operand(oid, "object id") for oid in wanted),
    )  # fmt: skip
    return result.code == 0


def push_cas(root: Path, remote: str, new: str | None, ref: str, expected: str | None) -> bool:
    """Set `ref` of `remote` to `new` (None: delete it) only if it is `expected` there
    now (None: only if it does not exist): `git push --force-with-lease`, whose check
    the remote makes again under its own ref lock. True when the remote took it; False
    when the ref was something else; WfsError when the push could not be made at all."""
    lease = f"--force-with-lease={ref}:{expected or ''}"
    spec = f"{new or ''}:{ref}"
    remote = operand(remote, "remote")
    result = run(root, "push", "--porcelain", "--no-verify", lease, reach(root, remote), spec)
    flag = taken_flag(remote, result, ref)
    if flag is not None:
        # " " fast-forward, "+" forced, "-" deleted, "*" created: taken. "=" (already
        # so) is refused too: a claim is only ever set to a value nobody else wrote.
        return flag in (" ", "+", "-", "*")
    if result.code == 0:
        return False
    raise push_failed(remote, result)


def push_forced(root: Path, remote: str, commit: str, ref: str) -> None:
    """Set `ref` of `remote` to `commit`, whatever it was (a record only this push
    writes); WfsError when the remote did not take it."""
    remote = operand(remote, "remote")
    spec = f"+{commit}:{ref}"
    result = run(root, "push", "--porcelain", "--no-verify", reach(root, remote), spec)
    refused = refused_push(remote, result)
    if refused is not None:
        raise refused
    if pushed_flag(result, ref) is None or result.code != 0:
        raise push_failed(remote, result)


# What `git push --porcelain` says of a ref refused because another clone moved it
# first (or holds its lock right now): a lost race, fetched, merged and tried again.
# Any other refusal (a protected ref, a hook, a permission) is the remote's own
# decision, which no retry changes.
LOST_RACE = (
    "non-fast-forward",
    "fetch first",
    "stale info",
    "already exists",
    "atomic push fail",
    "atomic transaction fail",
    "failed to update ref",  # its ref transaction: the ref moved, or is locked, meanwhile
    "cannot lock ref",
    "failed to lock",
    "but expected",
)


def refused_push(remote: str, result: Result) -> WfsError | None:
    """The error of a push the remote refused for a reason of its own, with the
    server's reason and what its hooks said (`remote: ...` lines); None when the push
    was taken, or lost a race only (LOST_RACE). The one classification of a refused
    push: every push of wfs goes through it."""
    for line in result.out.decode("utf-8", "replace").splitlines():
        flag, _, rest = line.partition("\t")
        refspec, _, summary = rest.partition("\t")
        if flag != "!" or any(marker in summary for marker in LOST_RACE):
            continue
        said = [
            text.removeprefix("remote:").strip()
            for text in result.err.splitlines()
            if text.startswith("remote:") and text.removeprefix("remote:").strip()
        ]
        ref = refspec.rpartition(":")[2]
        return WfsError(
            f"git push {remote}: the remote refused {ref}: {summary.strip()}"
            + (f": {' '.join(said)[:400]}" if said else "")
            + " (no retry changes that: it is the remote's decision)"
        )
    return None


def taken_flag(remote: str, result: Result, ref: str) -> str | None:
    """The flag of `ref` in a push (pushed_flag), once a refusal of the remote's own is
    raised (refused_push)."""
    refused = refused_push(remote, result)
    if refused is not None:
        raise refused
    return pushed_flag(result, ref)


def pushed_flag(result: Result, ref: str) -> str | None:
    """The flag `git push --porcelain` gave the update of `ref` (" ", "+", "-", "*", "="
    taken or already so; "!" refused), or None when it named no such update."""
    for line in result.out.decode("utf-8", "replace").splitlines():
        flag, _, rest = line.partition("\t")
        if rest.partition("\t")[0].endswith(":" + ref):
            return flag
    return None


def push_failed(remote: str, result: Result) -> WfsError:
    """The error of a push that could not be made at all: git's own first line."""
    reason = result.err.splitlines()[0] if result.err else f"exit code {result.code}"
    return WfsError(f"git push {remote}: {reason.removeprefix('fatal: ').removeprefix('error: ')}")


FETCH_TRIES = 8  # of a fetch whose ref another process of the clone holds locked


def fetch_branch(root: Path, remote: str, branch: str) -> str | None:
    """Fetch `branch` of `remote` into its remote-tracking ref; that ref's name, or None
    when the remote has no such branch yet. WfsError when the remote cannot be read."""
    remote, branch = operand(remote, "remote"), operand(branch, "branch")
    tracking = f"refs/remotes/{remote}/{branch}"
    for attempt in range(FETCH_TRIES):
        result = run(
            root, "fetch", "--quiet", "--no-tags", "--no-auto-gc", reach(root, remote),
            f"+refs/heads/{branch}:{tracking}",
        )  # fmt: skip
        if result.code == 0:
            return tracking
        if "cannot lock ref" not in result.err:
            break
        # Another process of this clone is fetching into the same ref (the tasks of a
        # `--jobs` run land side by side): once it is done, this fetch goes through.
        time.sleep(0.05 * (attempt + 1))
    if not ls_remote(root, remote, f"refs/heads/{branch}"):
        return None
    raise WfsError(f"cannot fetch {branch} from {remote}: {result.err or result.code}")


def push_fenced(
    root: Path,
    remote: str,
    commit: str,
    branch: str,
    claim: str,
    expected: str,
    done: str | None = None,
) -> bool:
    """One atomic push: `commit` to `branch` of `remote` (a fast-forward only), the
    deletion of the claim ref `claim`, only if the remote still has it at `expected`
    (`--force-with-lease`, checked again by the remote under its ref lock), and `done`
    (the ref remembering the task's completion) set to `commit`. All land (True), or
    none (False: the branch moved on there, the claim changed, or the remote could not
    lock a ref meanwhile). WfsError when the push could not be made at all."""
    head = f"refs/heads/{branch}"
    also = [f"+{commit}:{done}"] if done is not None else []
    result = run(
        root, "push", "--porcelain", "--atomic", "--no-verify",
        f"--force-with-lease={claim}:{expected}", reach(root, remote), f"{commit}:{head}",
        f":{claim}", *also,
    )  # fmt: skip
    flag = taken_flag(remote, result, head)
    if flag is None:
        raise push_failed(remote, result)
    return flag != "!" and result.code == 0


def push_branch(root: Path, remote: str, branch: str) -> bool:
    """Push `branch` to the same branch of `remote`, never forced: True when the remote
    took it (or had it already), False when it refused it as not a fast-forward
    (another clone pushed first). WfsError when the push could not be made at all."""
    ref = f"refs/heads/{branch}"
    remote = operand(remote, "remote")
    result = run(root, "push", "--porcelain", "--no-verify", reach(root, remote), f"{ref}:{ref}")
    flag = taken_flag(remote, result, ref)
    if flag is not None:
        return flag in (" ", "+", "*", "=")
    if result.code == 0:
        return True
    raise push_failed(remote, result)
