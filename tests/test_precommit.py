"""The pre-commit hooks of .pre-commit-hooks.yaml, run by the real pre-commit, offline.

`language: python` would make pre-commit pip-install this repository, so the tests run
the same hooks (id, name, entry, files, pass_filenames) as `repo: local` hooks with
`language: system`, finding `wfs` in this interpreter's bin directory.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO, wfs

HOOKS_FILE = REPO / ".pre-commit-hooks.yaml"
SHARED_KEYS = ("id", "name", "entry", "files", "pass_filenames")
BIN = Path(sys.executable).parent


def load_hooks() -> list[dict[str, Any]]:
    hooks = yaml.safe_load(HOOKS_FILE.read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    return hooks


def test_hooks_file_declares_exactly_the_two_wfs_hooks() -> None:
    hooks = load_hooks()
    assert [h["id"] for h in hooks] == ["wfs-validate", "wfs-render-check"]
    assert {h["id"]: h["entry"] for h in hooks} == {
        "wfs-validate": "wfs validate --all",
        "wfs-render-check": "wfs render --check --all",
    }
    for hook in hooks:
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        assert hook["files"] == r"^\.workflow/"
        assert hook["name"] and hook["description"]


@pytest.mark.parametrize("hook", load_hooks(), ids=lambda h: h["id"])
def test_hook_entries_are_real_wfs_commands_that_pass_without_sessions(
    hook: dict[str, Any], project: Path
) -> None:
    program, *args = shlex.split(hook["entry"])
    assert program == "wfs"
    assert wfs("init").code == 0
    run = wfs(*args)
    assert (run.code, run.out, run.err) == (0, "OK: no sessions\n", "")


def git(repo: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture
def hook_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository holding a planned session and a local copy of the hooks."""
    assert shutil.which("wfs", path=str(BIN)), f"no wfs script in {BIN}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        HOME=str(tmp_path),
    )
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", env=env)
    for args in (
        ["init"],
        ["plan", "JWT Auth", "--from", str(REPO / "examples/jwt-auth/plan.json")],
    ):
        subprocess.run(["wfs", *args], cwd=repo, env=env, check=True, capture_output=True)
    local = [{**{k: h[k] for k in SHARED_KEYS}, "language": "system"} for h in load_hooks()]
    config = {"repos": [{"repo": "local", "hooks": local}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (repo / "notes.txt").write_text("not part of the plan\n", encoding="utf-8")
    return repo, env


def pre_commit(repo: Path, env: dict[str, str], *args: str) -> tuple[int, str]:
    git(repo, "add", "-A", env=env)
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return proc.returncode, proc.stdout + proc.stderr


def line(name: str, result: str) -> str:
    """A pre-commit result line: the hook name padded with dots to 79 columns."""
    return name + "." * (79 - len(name) - len(result)) + result


@pytest.mark.slow
def test_clean_plan_passes_both_hooks(hook_repo: tuple[Path, dict[str, str]]) -> None:
    code, out = pre_commit(*hook_repo, "--all-files")
    assert (code, out) == (
        0,
        f"{line('wfs validate', 'Passed')}\n{line('wfs render --check', 'Passed')}\n",
    )


@pytest.mark.slow
def test_hooks_are_skipped_when_the_commit_does_not_touch_workflow(
    hook_repo: tuple[Path, dict[str, str]],
) -> None:
    repo, env = hook_repo
    (repo / ".workflow/WFS-jwt-auth/TODO_LIST.md").write_text("hand edit\n")
    code, out = pre_commit(repo, env, "--files", "notes.txt")
    skipped = "(no files to check)Skipped"
    assert (code, out) == (
        0,
        f"{line('wfs validate', skipped)}\n{line('wfs render --check', skipped)}\n",
    )


@pytest.mark.slow
def test_hand_edited_todo_list_fails_render_check(
    hook_repo: tuple[Path, dict[str, str]],
) -> None:
    repo, env = hook_repo
    todo = repo / ".workflow/WFS-jwt-auth/TODO_LIST.md"
    todo.write_text(todo.read_text(encoding="utf-8") + "- [x] done by hand\n", encoding="utf-8")
    code, out = pre_commit(repo, env, "--all-files")
    assert (code, out) == (
        1,
        f"{line('wfs validate', 'Passed')}\n"
        f"{line('wfs render --check', 'Failed')}\n"
        "- hook id: wfs-render-check\n"
        "- exit code: 1\n"
        "\n"
        ".workflow/WFS-jwt-auth/TODO_LIST.md: stale or hand-edited; run `wfs render --all`\n"
        "\n",
    )


@pytest.mark.slow
def test_invalid_task_json_fails_validate(hook_repo: tuple[Path, dict[str, str]]) -> None:
    repo, env = hook_repo
    task = repo / ".workflow/WFS-jwt-auth/.task/IMPL-1.2.json"
    task.write_text(task.read_text(encoding="utf-8").replace('"src/auth"', '"src/**/auth"'))
    code, out = pre_commit(repo, env, "--all-files")
    assert (code, out) == (
        1,
        f"{line('wfs validate', 'Failed')}\n"
        "- hook id: wfs-validate\n"
        "- exit code: 1\n"
        "\n"
        ".workflow/WFS-jwt-auth/.task/IMPL-1.2.json#/context/focus_paths/0: focus-paths: "
        "focus path \"src/**/auth\" contains the wildcard '*'; "
        "list concrete directories or files instead\n"
        "\n"
        f"{line('wfs render --check', 'Passed')}\n",
    )


@pytest.mark.slow
def test_malformed_task_json_fails_both_hooks_with_file_and_place(
    hook_repo: tuple[Path, dict[str, str]],
) -> None:
    repo, env = hook_repo
    (repo / ".workflow/WFS-jwt-auth/.task/IMPL-1.1.json").write_text('{"id": "IMPL-1.1",\n')
    code, out = pre_commit(repo, env, "--all-files")
    path = ".workflow/WFS-jwt-auth/.task/IMPL-1.1.json"
    where = f"{path}:2:1"
    assert (code, out) == (
        1,
        f"{line('wfs validate', 'Failed')}\n"
        "- hook id: wfs-validate\n"
        "- exit code: 1\n"
        "\n"
        f"{where}: json: invalid JSON: unexpected end of data\n"
        "\n"
        f"{line('wfs render --check', 'Failed')}\n"
        "- hook id: wfs-render-check\n"
        "- exit code: 2\n"
        "\n"
        f"wfs: error: {where}: invalid JSON: unexpected end of data\n"
        f"  see what changed: git diff -- {path}\n"
        f"  restore it as committed: git checkout -- {path}\n"
        "\n",
    )
