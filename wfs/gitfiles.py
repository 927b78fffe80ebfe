"""The files git keeps, read without running git (gitrepository-layout): where the git
directories of a work tree are, what its HEAD names, what a branch points at.

The readers that must stay fast use them (`wfs status` naming claims, a task's worktree
and its merge). Each answers None where git's files do not say plainly (another store
of refs, an unreadable file): the caller then asks git (wfs.git).
"""

from __future__ import annotations

import re
from pathlib import Path


def common_dir_on_disk(root: Path) -> Path | None:
    """The common git directory of the work tree holding `root`, found by reading the
    files git keeps (gitrepository-layout: a `.git` folder, or a `.git` file naming the
    worktree's folder, whose `commondir` file names the common one), without running
    git: the readers that must stay fast use it. None when there is no `.git` above."""
    found = _git_dirs_on_disk(root)
    return found[1] if found is not None else None


def _git_dirs_on_disk(root: Path) -> tuple[Path, Path] | None:
    """(the git directory of the work tree holding `root`, the common one of its clone),
    read off git's files (see common_dir_on_disk); None when they cannot be read so. As
    git does, a `.git` folder without a HEAD is passed over, and a `.git` file naming a
    folder without one is no repository."""
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            if (dot_git / "HEAD").is_file():
                return dot_git, dot_git
            continue
        if not dot_git.is_file():
            continue
        try:
            line = dot_git.read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if not line.startswith("gitdir:"):
            return None
        private = Path(line.removeprefix("gitdir:").strip())
        private = private if private.is_absolute() else folder / private
        if not (private / "HEAD").is_file():
            return None
        try:
            common = (private / "commondir").read_text("utf-8").strip()
        except FileNotFoundError:
            return private, private
        except (OSError, UnicodeDecodeError):
            return None
        target = Path(common)
        return private, (target if target.is_absolute() else private / target).resolve()
    return None


OID = r"[0-9a-f]{40}(?:[0-9a-f]{24})?"  # SHA-1, or SHA-256


def head_on_disk(root: Path) -> str | None:
    """What HEAD of the work tree holding `root` names, read off git's files: a branch's
    full ref (`refs/heads/main`), or a commit (a detached HEAD); None when it cannot be
    read so (another store of refs, an unreadable file): then git is asked."""
    found = _git_dirs_on_disk(root)
    if found is None:
        return None
    try:
        text = (found[0] / "HEAD").read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if text.startswith("ref: "):
        ref = text.removeprefix("ref: ").strip()
        # The reftable store keeps a HEAD naming `refs/heads/.invalid`: its refs are no files.
        return ref if ref.startswith("refs/heads/") and ref != "refs/heads/.invalid" else None
    return text if re.fullmatch(OID, text) else None


def ref_on_disk(root: Path, ref: str) -> str | None:
    """The commit that the branch `ref` (`refs/heads/...`) of the clone holding `root`
    points at, read off its file; None when it has none (a packed ref, another store of
    refs, no such branch): then git is asked."""
    found = _git_dirs_on_disk(root)
    if found is None or not ref.startswith("refs/heads/") or ".." in ref.split("/"):
        return None
    try:
        text = (found[1] / ref).read_text("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if re.fullmatch(OID, text) else None


def has_branch_on_disk(root: Path, ref: str) -> bool | None:
    """Whether the branch `ref` (`refs/heads/...`) of the clone holding `root` exists,
    read off its loose ref and `packed-refs`; None when git's files do not say plainly
    (another store of refs, an unreadable file): then git is asked."""
    found = _git_dirs_on_disk(root)
    if found is None or not ref.startswith("refs/heads/") or ".." in ref.split("/"):
        return None
    common = found[1]
    if (common / "reftable").exists():
        return None
    if ref_on_disk(root, ref) is not None:
        return True
    if (common / ref).exists():
        return None  # a file there that does not hold a commit: git says what it is
    try:
        packed = (common / "packed-refs").read_text("utf-8", "replace")
    except FileNotFoundError:
        return False
    except OSError:
        return None
    return any(
        line.partition(" ")[2] == ref
        for line in packed.splitlines()
        if not line.startswith(("#", "^"))
    )
