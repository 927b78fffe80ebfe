"""The one rule for values that reach git (wfs.git.operand): a value that starts with
"-" never reaches git, where it would be read as an option (`--upload-pack=CMD` runs
CMD). Each function of wfs.git that takes a value from a file, a task, an agent or the
command line refuses it before git starts; a real repository shows that nothing ran."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wfs import git, gitremote
from wfs.errors import WfsError

HOSTILE = "--upload-pack=touch PWNED;"

CALLS: dict[str, Callable[[Path], Any]] = {
    "merge_base": lambda root: git.merge_base(root, "HEAD", HOSTILE),
    "ls_tree": lambda root: git.ls_tree(root, HOSTILE, ".workflow"),
    "get_config": lambda root: git.get_config(root, HOSTILE),
    "set_config": lambda root: git.set_config(root, HOSTILE, "x"),
    "rev_parse": lambda root: git.rev_parse(root, HOSTILE),
    "parents": lambda root: git.parents(root, HOSTILE),
    "changed_between": lambda root: git.changed_between(root, HOSTILE, "HEAD", "."),
    "differing_from": lambda root: git.differing_from(root, HOSTILE, ["a"]),
    "add_worktree branch": lambda root: git.add_worktree(root, root / "w", HOSTILE, "HEAD"),
    "add_worktree start": lambda root: git.add_worktree(root, root / "w", "b", HOSTILE),
    "add_worktree branch as it is": lambda root: git.add_worktree(root, root / "w", HOSTILE, None),
    "is_ancestor first": lambda root: git.is_ancestor(root, HOSTILE, "HEAD"),
    "is_ancestor second": lambda root: git.is_ancestor(root, "HEAD", HOSTILE),
    "add_detached_worktree": lambda root: git.add_detached_worktree(root, root / "w", HOSTILE),
    "changes_plans": lambda root: git.changes_plans(root, "HEAD", HOSTILE),
    "merge_branch": lambda root: git.merge_branch(root, HOSTILE, "m"),
    "delete_branch": lambda root: git.delete_branch(root, HOSTILE),
    "ls_remote remote": lambda root: gitremote.ls_remote(root, HOSTILE, "refs/x"),
    "ls_remote pattern": lambda root: gitremote.ls_remote(root, "origin", HOSTILE),
    "fetch_objects remote": lambda root: gitremote.fetch_objects(root, HOSTILE, ["a" * 40]),
    "fetch_objects oid": lambda root: gitremote.fetch_objects(root, "origin", [HOSTILE]),
    "push_cas": lambda root: gitremote.push_cas(root, HOSTILE, None, "refs/wfs/x", None),
    "fetch_branch remote": lambda root: gitremote.fetch_branch(root, HOSTILE, "main"),
    "fetch_branch branch": lambda root: gitremote.fetch_branch(root, "origin", HOSTILE),
    "merge_ref": lambda root: git.merge_ref(root, HOSTILE, "m"),
    "push_fenced": lambda root: gitremote.push_fenced(root, HOSTILE, "a" * 40, "main", "r", "b"),
    "push_branch": lambda root: gitremote.push_branch(root, HOSTILE, "main"),
}


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
         "--allow-empty", "-m", "first"],
        check=True,
    )  # fmt: skip
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("name", CALLS)
def test_a_value_starting_with_a_dash_never_reaches_git(repository: Path, name: str) -> None:
    with pytest.raises(WfsError) as raised:
        CALLS[name](repository)
    kind = str(raised.value).partition(" '")[0]
    assert kind in ("revision", "branch", "config key", "remote", "ref", "object id")
    assert str(raised.value) == f"{kind} {HOSTILE!r}: refused: git would take it for an option"
    assert not (repository / "PWNED").exists()
    assert not (repository / "w").exists()


def test_the_refusal_shows_control_characters_escaped_and_a_long_value_cut() -> None:
    with pytest.raises(WfsError) as raised:
        git.operand("-\x1b[2J" + "x" * 200, "remote")
    shown = ("-\\x1b[2J" + "x" * 200)[:80]
    assert str(raised.value) == f"remote {shown!r}: refused: git would take it for an option"


def test_an_empty_value_is_refused_too() -> None:
    with pytest.raises(WfsError) as raised:
        git.operand("", "branch")
    assert str(raised.value) == "branch '': refused: it is empty"


def test_an_ordinary_value_is_handed_over_as_it_is() -> None:
    assert git.operand("origin", "remote") == "origin"
    assert git.operand("wfs/WFS-x/IMPL-1", "branch") == "wfs/WFS-x/IMPL-1"


def test_a_fetch_whose_ref_another_process_holds_locked_goes_through_once_it_is_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tasks of one `--jobs` run land side by side, each fetching the remote's main
    into the clone's tracking ref: the one that finds the ref locked by the other tries
    again (as git says: cannot lock ref), rather than blocking its task."""
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    for name, value in {**env, "GIT_COMMITTER_EMAIL": "t@e"}.items():
        monkeypatch.setenv(name, value)
    origin, clone = tmp_path / "origin", tmp_path / "clone"
    subprocess.run(["git", "init", "-q", "-b", "main", str(origin)], check=True)
    subprocess.run(
        ["git", "-C", str(origin), "commit", "-q", "--allow-empty", "-m", "one"], check=True
    )
    subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
    subprocess.run(
        ["git", "-C", str(origin), "commit", "-q", "--allow-empty", "-m", "two"], check=True
    )
    lock = clone / ".git" / "refs" / "remotes" / "origin" / "main.lock"
    lock.write_text("")  # held by the other process
    fetches: list[str] = []
    real_run = gitremote.run

    def run(root: Path, *args: str) -> git.Result:
        result = real_run(root, *args)
        if args[0] == "fetch":
            fetches.append(result.err)
            lock.unlink(missing_ok=True)  # the other process is done with it
        return result

    monkeypatch.setattr(gitremote, "run", run)
    assert gitremote.fetch_branch(clone, "origin", "main") == "refs/remotes/origin/main"
    assert len(fetches) == 2 and "cannot lock ref" in fetches[0] and fetches[1] == ""
    tip = subprocess.run(
        ["git", "-C", str(clone), "log", "-1", "--format=%s", "origin/main"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert tip.stdout == "two\n"
