"""Every call wfs makes to git: the real `git` program, run without a shell.

Errors a user can act on (no git, not a repository, a bad revision) become WfsError
(exit 2) with git's own one-line reason.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from wfs import gitfiles
from wfs.errors import WfsError

# Git hands these to hooks and drivers as paths relative to the directory it runs them
# in; `git -C <root>` would otherwise resolve them against the wrong directory.
_PATH_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY")


def _environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, **(extra or {})}
    here = os.getcwd()
    for name in _PATH_VARIABLES:
        value = env.get(name)
        if value and not os.path.isabs(value):
            env[name] = os.path.join(here, value)
    return env


class Result(NamedTuple):
    code: int
    out: bytes
    err: str


def run(
    root: Path | None, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None
) -> Result:
    """Run `git -C root ARGS…`; raise WfsError only when git itself cannot be started."""
    command = ["git", *(("-C", str(root)) if root is not None else ()), *args]
    try:
        proc = subprocess.run(
            command,
            input=input,
            capture_output=True,
            env=_environment(env),
            stdin=None if input is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise WfsError("git is not installed (or not on PATH)") from None
    except OSError as err:
        raise WfsError(f"cannot run git: {err.strerror}") from None
    return Result(proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace").strip())


def check(
    root: Path | None, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None
) -> bytes:
    """Stdout of a git command that must succeed; its first error line otherwise."""
    result = run(root, *args, input=input, env=env)
    if result.code != 0:
        raise failure(args[0], result)
    return result.out


def operand(value: str, what: str = "value") -> str:
    """`value` as it may be handed to git: a value that comes from a file, a task, an
    agent or the command line never starts with "-", where git would read it as an
    option (`--upload-pack=CMD` runs CMD). The one rule for every value git is given;
    the functions below pass each value they take through it."""
    if not value:
        raise WfsError(f"{what} '': refused: it is empty")
    if value.startswith("-"):
        shown = value.encode("unicode_escape").decode("ascii")[:80]
        raise WfsError(f"{what} {shown!r}: refused: git would take it for an option")
    return value


def remote_names(root: Path) -> list[str]:
    """The remotes configured in the repository at `root` (`git remote`)."""
    result = run(root, "remote")
    return result.out.decode("utf-8", "replace").split() if result.code == 0 else []


def failure(command: str, result: Result) -> WfsError:
    """The error of a git command that failed: its first error line."""
    reason = result.err.splitlines()[0] if result.err else f"exit code {result.code}"
    return WfsError(f"git {command}: {reason.removeprefix('fatal: ')}")


def is_work_tree(root: Path) -> bool:
    """True when `root` is inside a git work tree (False also when git is missing)."""
    try:
        result = run(root, "rev-parse", "--is-inside-work-tree")
    except WfsError:
        return False
    return result.code == 0 and result.out.strip() == b"true"


def require_repository(root: Path) -> None:
    result = run(root, "rev-parse", "--git-dir")
    if result.code != 0:
        raise WfsError(f"not a git repository: {root} (wfs diff compares git revisions)")


def resolve_commit(root: Path, rev: str) -> str:
    """The full commit id REV names; exit 2 for anything else."""
    if not rev or rev.startswith("-"):
        raise WfsError(f"bad revision {rev!r}")
    result = run(root, "rev-parse", "--verify", "--quiet", rev + "^{commit}")
    if result.code != 0:
        if rev == "HEAD":
            raise WfsError("bad revision 'HEAD': the repository has no commits yet")
        raise WfsError(f"bad revision {rev!r}: no such commit in this repository")
    return result.out.decode().strip()


def merge_base(root: Path, first: str, second: str) -> str:
    result = run(root, "merge-base", operand(first, "revision"), operand(second, "revision"))
    if result.code != 0:
        raise WfsError(f"no merge base between {first[:12]} and {second[:12]}")
    return result.out.decode().strip()


class TreeEntry(NamedTuple):
    path: str  # relative to the root given to ls_tree
    oid: str


def ls_tree(root: Path, commit: str, folder: str) -> list[TreeEntry]:
    """The files (blobs, no symlinks or submodules) under `folder` at `commit`."""
    out = check(root, "ls-tree", "-r", "-z", operand(commit, "revision"), "--", folder)
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        info, _, path = record.partition(b"\t")
        mode, kind, oid = info.decode().split(" ")
        if kind == "blob" and mode in ("100644", "100755"):
            entries.append(TreeEntry(path.decode("utf-8", "surrogateescape"), oid))
    return entries


def read_blobs(root: Path, oids: Iterable[str]) -> dict[str, bytes]:
    """Contents of many blobs from one `git cat-file --batch` process."""
    wanted = list(dict.fromkeys(oids))
    if not wanted:
        return {}
    out = check(root, "cat-file", "--batch", input="".join(f"{o}\n" for o in wanted).encode())
    blobs: dict[str, bytes] = {}
    pos = 0
    for oid in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode().split(" ")
        if len(header) != 3:
            raise WfsError(f"git cat-file: cannot read object {oid}")
        size = int(header[2])
        blobs[oid] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


def show_prefix(root: Path) -> str:
    """Path of `root` inside its work tree ("" at the top, else ending in "/")."""
    return check(root, "rev-parse", "--show-prefix").decode().strip()


def git_path(root: Path, name: str) -> Path:
    """Where git keeps `name` (e.g. "hooks", which follows core.hooksPath)."""
    raw = check(root, "rev-parse", "--git-path", name).decode().strip()
    return (root / raw).resolve() if not os.path.isabs(raw) else Path(raw)


def get_config(root: Path, key: str) -> str | None:
    result = run(root, "config", "--local", "--get", operand(key, "config key"))
    return result.out.decode().rstrip("\n") if result.code == 0 else None


def set_config(root: Path, key: str, value: str) -> None:
    check(root, "config", "--local", operand(key, "config key"), value)


def rev_parse(root: Path, rev: str) -> str | None:
    result = run(root, "rev-parse", "--verify", "--quiet", operand(rev, "revision"))
    return result.out.decode().strip() if result.code == 0 else None


def parents(root: Path, rev: str) -> list[str]:
    out = check(root, "rev-parse", operand(rev, "revision") + "^@")
    return out.decode().split()


def _names(out: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def changed_in_index(root: Path, folder: str) -> list[str]:
    """Paths under `folder` (relative to root) whose staged content differs from HEAD."""
    return _names(
        check(root, "diff", "--cached", "--name-only", "-z", "--relative", "HEAD", "--", folder)
    )


def changed_between(root: Path, old: str, new: str, folder: str) -> list[str]:
    """Paths under `folder` (relative to root) that differ between two commits."""
    revs = operand(old, "revision"), operand(new, "revision")
    return _names(check(root, "diff", "--name-only", "-z", "--relative", *revs, "--", folder))


def differing_from(root: Path, rev: str | None, paths: list[str]) -> list[str]:
    """Which of `paths` differ in the working tree from `rev` (None: from the index)."""
    if not paths:
        return []
    since = (operand(rev, "revision"),) if rev is not None else ()
    return _names(check(root, "diff", "--name-only", "-z", "--relative", *since, "--", *paths))


def index_file(root: Path, path: str) -> bytes:
    """The content the index holds for `path` (relative to `root`)."""
    return check(root, "cat-file", "blob", f":./{path}")


def replace_in_head(root: Path, paths: list[str], reason: str) -> str | None:
    """Rewrite HEAD with `paths` taken from the working tree, all else kept as it is.

    Parents, message, author and committer stay; a signed commit is left alone (None),
    since its signature would no longer match.
    """
    import tempfile  # deferred: only when a value goes to a file

    head = check(root, "rev-parse", "--verify", "HEAD").decode().strip()
    raw = check(root, "cat-file", "commit", head)
    headers, _, message = raw.partition(b"\n\n")
    lines = headers.split(b"\n")
    if any(line.startswith(b"gpgsig") for line in lines):
        return None
    with tempfile.TemporaryDirectory(prefix="wfs-index-") as scratch:
        index = {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
        check(root, "read-tree", head, env=index)
        check(root, "update-index", "--add", "--", *paths, env=index)
        tree = check(root, "write-tree", env=index).strip()
    lines = [b"tree " + tree if line.startswith(b"tree ") else line for line in lines]
    commit = b"\n".join(lines) + b"\n\n" + message
    new = check(root, "hash-object", "-t", "commit", "-w", "--stdin", input=commit)
    oid = new.decode().strip()
    check(root, "update-ref", "-m", reason, "HEAD", oid, head)
    return oid


def add(root: Path, paths: Iterable[str]) -> None:
    listed = list(paths)
    if listed:
        check(root, "add", "--", *listed)


def merge_file(
    ours: Path, base: Path, theirs: Path, labels: Mapping[str, str], marker_size: int | None
) -> int:
    """`git merge-file`: merge into `ours` in place; the number of conflicts (0: clean)."""
    size = ("--marker-size", str(marker_size)) if marker_size else ()
    result = run(
        None,
        "merge-file",
        *size,
        "-L",
        labels["ours"],
        "-L",
        labels["base"],
        "-L",
        labels["theirs"],
        *(str(side.absolute()) for side in (ours, base, theirs)),  # never read as options
    )
    if result.code < 0 or result.code > 127:
        raise WfsError(f"git merge-file: {result.err or 'failed'}")
    return result.code


def merge_text(ours: bytes, base: bytes, theirs: bytes) -> bytes | None:
    """The clean 3-way merge of three texts, or None when it has conflicts."""
    import tempfile  # deferred: only when a value goes to a file

    with tempfile.TemporaryDirectory(prefix="wfs-merge-") as scratch:
        folder = Path(scratch)
        paths = []
        for name, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = folder / name
            path.write_bytes(data)
            paths.append(path)
        labels = {"ours": "ours", "base": "base", "theirs": "theirs"}
        if merge_file(paths[0], paths[1], paths[2], labels, None) != 0:
            return None
        return paths[0].read_bytes()


# ---------------------------------------------------------------- work tree snapshots


def worktree_tree(root: Path, leave_out: str) -> str | None:
    """A tree object of the work tree under `root` as it is now: tracked and untracked
    files, not ignored ones, nothing under `leave_out` (relative to root). It is written
    into the repository's object store through a scratch copy of the index; the
    repository's own index is not touched. None outside a git work tree, or when git
    cannot read every file."""
    import shutil  # deferred: only a step that may be reverted takes snapshots
    import tempfile  # deferred: as above

    try:
        raw = run(root, "rev-parse", "--git-path", "index")
    except WfsError:
        return None
    if raw.code != 0:
        return None
    index = Path(raw.out.decode().strip())
    index = index if index.is_absolute() else root / index
    with tempfile.TemporaryDirectory(prefix="wfs-snapshot-") as scratch:
        scratch_index = os.path.join(scratch, "index")
        env = {"GIT_INDEX_FILE": scratch_index}
        for start in ("copy", "empty"):
            if start == "copy" and index.is_file():
                shutil.copyfile(index, scratch_index)  # its stat cache: only changes are read
            elif os.path.exists(scratch_index):
                os.remove(scratch_index)
            added = run(root, "add", "-A", "--", ".", f":(exclude){leave_out}", env=env)
            if added.code == 0:
                tree = run(root, "write-tree", env=env)
                return tree.out.decode().strip() if tree.code == 0 else None
        return None


class Reverted(NamedTuple):
    paths: list[str]  # relative to the root, in git's order
    diff: str  # what was undone, as `git diff --binary` shows it


def revert_worktree(root: Path, before: str, leave_out: str) -> Reverted | None:
    """Put back every file under `root` that differs from the snapshot `before` (see
    worktree_tree): changed and deleted files get their content back, new files are
    removed; nothing else is touched, the index included. None when no snapshot of
    the work tree as it is now can be taken."""
    after = worktree_tree(root, leave_out)
    if after is None:
        return None
    where = ("--", ".", f":(exclude){leave_out}")
    listing = check(
        root,
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--name-status",
        "--relative",
        before,
        after,
        *where,
    )
    fields = _names(listing)
    changes = list(zip(fields[::2], fields[1::2], strict=True))
    if not changes:
        return Reverted([], "")
    diff = check(root, "diff-tree", "-p", "--binary", "--relative", before, after, *where)
    restored = [path for status, path in changes if status != "A"]
    if restored:
        check(
            root,
            "restore",
            f"--source={before}",
            "--worktree",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            input=b"\0".join(os.fsencode(p) for p in restored),
            env={"GIT_LITERAL_PATHSPECS": "1"},  # file names, not patterns
        )
    for status, path in changes:
        if status == "A":
            (root / path).unlink(missing_ok=True)
    return Reverted([path for _, path in changes], diff.decode("utf-8", "surrogateescape"))


# ------------------------------------------------------------ worktrees of parallel tasks


def current_branch(root: Path) -> str | None:
    """The branch checked out at `root` (None: a detached HEAD, or no repository)."""
    result = run(root, "symbolic-ref", "--quiet", "--short", "HEAD")
    if result.code != 0:
        return None
    return result.out.decode().strip() or None


def add_worktree(root: Path, path: Path, branch: str, start: str | None) -> None:
    """A new worktree at `path` on `branch`, made (or reset) at `start`; None: on
    `branch` as it is."""
    if start is None:
        check(root, "worktree", "add", "--quiet", "--", str(path), operand(branch, "branch"))
        return
    branch, start = operand(branch, "branch"), operand(start, "revision")
    check(root, "worktree", "add", "--quiet", "-B", branch, "--", str(path), start)


def is_ancestor(root: Path, first: str, second: str) -> bool:
    """Whether `first` is `second` or one of its ancestors (has no commit of its own)."""
    first, second = operand(first, "revision"), operand(second, "revision")
    return run(root, "merge-base", "--is-ancestor", first, second).code == 0


def add_detached_worktree(root: Path, path: Path, start: str) -> None:
    """A new worktree at `path` with `start` checked out, on no branch."""
    check(
        root, "worktree", "add", "--quiet", "--detach", "--", str(path), operand(start, "revision")
    )


def remove_worktree(root: Path, path: Path) -> None:
    """Remove the worktree at `path` (whatever it holds) and git's record of it."""
    if run(root, "worktree", "remove", "--force", "--", str(path)).code != 0:
        run(root, "worktree", "prune")  # its folder is gone: forget it


def is_worktree_of(root: Path, path: Path) -> bool:
    """Whether `path` is a worktree that git lists for the repository at `root`."""
    result = run(root, "worktree", "list", "--porcelain", "-z")
    if result.code != 0:
        return False
    listed = {
        Path(item[len(b"worktree ") :].decode("utf-8", "surrogateescape")).resolve()
        for item in result.out.split(b"\0")
        if item.startswith(b"worktree ")
    }
    return path.resolve() in listed


def commit_all(root: Path, message: str, tracked_only: bool = False) -> bool:
    """Commit everything changed or new in the worktree at `root` (what .gitignore
    leaves out stays out); False when nothing changed (no commit). `tracked_only`: the
    caller knows no file is new to git, so the commit takes the changes itself
    (`commit --all`, one git process fewer)."""
    if not tracked_only:
        check(root, "add", "--all")
    everything = ("--all",) if tracked_only else ()
    committed = run(root, "commit", "--quiet", "--no-verify", *everything, "-m", message)
    if committed.code == 0:
        return True
    # Refused: with nothing to commit (asked only then, one git process fewer).
    if run(root, "diff", "--cached", "--quiet").code == 0:
        return False
    raise failure("commit", committed)


class Merged(NamedTuple):
    """How merging a branch went: `conflicts` (paths, the merge aborted), or `error`
    (git refused to start it: its own reason), or neither (merged)."""

    conflicts: list[str]
    error: str | None


# Set in the environment of a merge that changes nothing in any `.workflow/` folder:
# wfs's own hooks (wfs.merge) would find no plan to refresh, so they end at once
# instead of starting wfs (a hook that is not wfs's runs as always).
PLANS_UNTOUCHED = "WFS_MERGE_LEAVES_PLANS"
PLAN_FOLDERS = ":(top,glob)**/.workflow/**"  # every `.workflow/` of the repository


def changes_plans(root: Path, base: str, branch: str) -> bool:
    """Whether `branch` changed anything in a `.workflow/` folder since it left `base`
    (their merge base); True when git cannot tell."""
    span = f"{operand(base, 'revision')}...{operand(branch, 'branch')}"
    return run(root, "diff", "--quiet", span, "--", PLAN_FOLDERS).code != 0


def merge_branch(root: Path, branch: str, message: str, plans: bool = True) -> Merged:
    """Merge `branch` into the branch checked out at `root` (a merge commit, with the
    repository's merge drivers); a conflicted merge is aborted, leaving `root` as it
    was. `plans=False`: the merge changes no plan (`changes_plans`), so wfs's hooks
    have nothing to do."""
    env = None if plans else {PLANS_UNTOUCHED: "1"}
    branch = operand(branch, "branch")
    result = run(root, "merge", "--no-ff", "--no-edit", "-m", message, branch, env=env)
    if result.code == 0:
        return Merged([], None)
    conflicts = _names(check(root, "diff", "--name-only", "-z", "--diff-filter=U"))
    if conflicts:
        run(root, "merge", "--abort")
        return Merged(conflicts, None)
    # git's reason, with the paths it names on the lines after it, without its advice
    said = (result.err or result.out.decode()).splitlines()
    lines = [
        line.strip().removeprefix("error: ").removeprefix("fatal: ")
        for line in said
        if line.strip() and not line.startswith(("hint:", "Please ", "Aborting"))
    ]
    return Merged([], " ".join(lines) or f"exit code {result.code}")


def discard_changes(root: Path) -> None:
    """Put the worktree at `root` back as its HEAD has it: a merge in progress is
    aborted, changes to tracked files are dropped, and files git does not track (and
    does not ignore) are removed."""
    if rev_parse(root, "MERGE_HEAD") is not None:
        run(root, "merge", "--abort")
    check(root, "reset", "--quiet", "--hard", "HEAD")
    check(root, "clean", "--quiet", "--force", "-d")


def delete_branch(root: Path, branch: str) -> None:
    """Delete `branch` if it is merged into HEAD (a branch with unmerged work stays)."""
    run(root, "branch", "--quiet", "-d", operand(branch, "branch"))


def delete_branches(root: Path, branches: list[str]) -> None:
    """Delete each of `branches` that is merged into HEAD, in one git process (one that
    is not, or is gone, or is checked out somewhere, stays as it is)."""
    run(root, "branch", "--quiet", "-d", "--", *branches)


def prune_worktrees(root: Path) -> None:
    """Forget the worktrees whose folders are gone."""
    run(root, "worktree", "prune")


# ---------------------------------------------------------------- claims (wfs.leases)


def common_dir(root: Path) -> Path | None:
    """The common git directory of the work tree holding `root` (the one every worktree
    of a clone shares), or None outside a git work tree (or without git)."""
    try:
        result = run(root, "rev-parse", "--is-inside-work-tree", "--git-common-dir")
    except WfsError:
        return None
    lines = result.out.decode().splitlines()
    if result.code != 0 or len(lines) != 2 or lines[0] != "true":
        return None
    return (root / lines[1]).resolve() if not os.path.isabs(lines[1]) else Path(lines[1])


def checked_out(root: Path) -> str | None:
    """The branch checked out at `root` (None: a detached HEAD, or no repository), read
    off git's files where they say it, else asked of git (current_branch)."""
    head = gitfiles.head_on_disk(root)
    if head is None:
        return current_branch(root)
    return head.removeprefix("refs/heads/") if head.startswith("refs/heads/") else None


def session_branch_of(root: Path) -> str | None:
    """The branch checked out at `root`, when `root` is in a work tree and the branch has
    a commit (one git process); None for anything else (not a work tree, a detached
    HEAD, a branch with no commit yet), which the caller tells apart."""
    result = run(root, "rev-parse", "--is-inside-work-tree", "--symbolic-full-name", "HEAD")
    lines = result.out.decode("utf-8", "surrogateescape").splitlines()
    if result.code != 0 or len(lines) != 2 or lines[0] != "true":
        return None
    ref = lines[1]
    return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None


class Status(NamedTuple):
    """What `git status` says of a work tree."""

    head: str | None  # the commit checked out (None: none yet)
    paths: list[str]  # every path changed or new, from the top of the work tree
    moved_from: list[str]  # the paths that renames and copies came from
    untracked: bool  # one of them is new to git
    unmerged: bool  # one of them is in conflict


def status(root: Path) -> Status | None:
    """What changed in the work tree at `root`, each new file named (`git status`, one
    process); None outside a repository, or when git cannot tell. No git runs where no
    `.git` is found above `root` (and no GIT_DIR names one)."""
    if gitfiles.common_dir_on_disk(root) is None and not os.environ.get("GIT_DIR"):
        return None
    command = ["git", "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"]
    try:
        proc = subprocess.run(command, cwd=root, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    head: str | None = None
    paths: list[str] = []
    moved_from: list[str] = []
    untracked = unmerged = False
    entries = iter(proc.stdout.decode("utf-8", "replace").split("\0"))
    for item in entries:
        kind = item[:2]
        if item.startswith("# branch.oid "):
            oid = item.removeprefix("# branch.oid ")
            head = oid if re.fullmatch(gitfiles.OID, oid) else None
        elif kind == "1 ":
            paths.append(item.split(" ", 8)[8])
        elif kind == "2 ":
            paths.append(item.split(" ", 9)[9])
            moved_from.append(next(entries, ""))
        elif kind == "u ":
            paths.append(item.split(" ", 10)[10])
            unmerged = True
        elif kind == "? ":
            paths.append(item[2:])
            untracked = True
    return Status(head, paths, moved_from, untracked, unmerged)


def hash_object(root: Path, kind: str, data: bytes) -> str:
    """Write an object of `kind` (commit, tree, blob) holding `data`; its id."""
    return check(root, "hash-object", "-t", kind, "-w", "--stdin", input=data).decode().strip()


def missing_objects(root: Path, oids: list[str]) -> list[str]:
    """Which of `oids` this repository does not have."""
    out = check(root, "cat-file", "--batch-check", input="".join(f"{o}\n" for o in oids).encode())
    lines = out.decode("utf-8", "replace").splitlines()
    return [oid for oid, line in zip(oids, lines, strict=True) if line.endswith(" missing")]


def commit_paths(root: Path, paths: list[str], message: str) -> bool:
    """Commit what changed or is new under `paths` (and only there); False when
    nothing changed (no commit)."""
    check(root, "add", "--all", "--", *paths)
    if run(root, "diff", "--cached", "--quiet", "--", *paths).code == 0:
        return False
    check(root, "commit", "--quiet", "--no-verify", "-m", message, "--", *paths)
    return True


def merge_ref(root: Path, ref: str, message: str) -> Merged:
    """Merge `ref` into the branch checked out at `root`: a fast-forward when it can
    be, else a merge commit (with the repository's merge drivers); a conflicted merge
    is aborted, leaving `root` as it was."""
    result = run(root, "merge", "--no-edit", "-m", message, operand(ref, "ref"))
    if result.code == 0:
        return Merged([], None)
    conflicts = _names(check(root, "diff", "--name-only", "-z", "--diff-filter=U"))
    if conflicts:
        run(root, "merge", "--abort")
        return Merged(conflicts, None)
    said = (result.err or result.out.decode()).splitlines()
    lines = [line.strip() for line in said if line.strip() and not line.startswith("hint:")]
    return Merged([], " ".join(lines) or f"exit code {result.code}")


def uncommitted(root: Path, folder: str) -> list[str]:
    """Paths under `folder` (relative to root) changed, removed or new in the working
    tree against HEAD (untracked ones included, ignored ones not)."""
    changed = _names(check(root, "diff", "--name-only", "-z", "--relative", "HEAD", "--", folder))
    new = _names(check(root, "ls-files", "-z", "--others", "--exclude-standard", "--", folder))
    return changed + new


def tracked(root: Path, paths: list[str]) -> list[str]:
    """Those of `paths` (relative to root) that git tracks (in its index); none outside
    a work tree, or where git cannot run."""
    if not paths:
        return []
    try:
        result = run(root, "ls-files", "-z", "--", *paths)
    except WfsError:
        return []
    found = set(_names(result.out)) if result.code == 0 else set()
    return [path for path in paths if path in found]


def restore_paths(root: Path, paths: list[str]) -> None:
    """Put `paths` (relative to root) back as HEAD has them, in the index and the
    working tree; a path HEAD does not have is removed."""
    if not paths:
        return
    tracked = set(_names(check(root, "ls-tree", "-z", "--name-only", "HEAD", "--", *paths)))
    kept = [p for p in paths if p in tracked]
    if kept:
        check(root, "checkout", "HEAD", "--", *kept)
    gone = [p for p in paths if p not in tracked]
    if gone:
        check(root, "rm", "-q", "--cached", "--ignore-unmatch", "--", *gone)
        for path in gone:
            try:
                os.remove(root / path)
            except FileNotFoundError:
                pass
