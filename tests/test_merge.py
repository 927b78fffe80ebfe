"""Merging plans with real git: `wfs init` sets up attributes, drivers and hooks, and
two branches that change different tasks merge cleanly with fresh views committed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import VIEW_MARK, read_json, wfs
from git_helpers import commit_all, git, git_env

from wfs import git as wfs_git
from wfs import render
from wfs.errors import WfsError
from wfs.layout import Layout
from wfs.merge import ATTRIBUTE_LINES, drivers, hook_script, merge_values
from wfs.sessions import load_session
from wfs.tasks import load_tasks

__all__ = ["git_env"]  # the fixture, used by name

SID = "WFS-merge-test"
SESSION = Path(".workflow") / SID
PLAN = {
    "overview": "Two branches",
    "tasks": [
        {"id": "IMPL-1", "title": "Parse input"},
        {"id": "IMPL-2", "title": "Render output"},
        {"id": "IMPL-3", "title": "Write docs"},
    ],
}
MERGED_TODO = (
    VIEW_MARK
    + """\
# Tasks: Merge test

## Task Progress
- [x] **IMPL-1**: Parse input → [📋](./.task/IMPL-1.json) | [✅](./.summaries/IMPL-1-summary.md)

- [ ] **IMPL-2**: Render HTML output → [📋](./.task/IMPL-2.json) ⏳ active

- [ ] **IMPL-3**: Write docs → [📋](./.task/IMPL-3.json)

## Status Legend
- `▸` = Container task (has subtasks)
- `- [ ]` = Pending leaf task
- `- [x]` = Completed leaf task
- `⏳ active` = Leaf task in progress
- Maximum 2 levels: Main tasks and subtasks only
"""
)


def planned_repo(project: Path, *init_args: str) -> str:
    """A git repository holding a committed three-task plan; returns the commit."""
    git(project, "init", "-q", "-b", "main")
    run = wfs("init", *init_args)
    assert run.code == 0, run.err
    plan = project.parent / "plan.json"
    plan.write_text(json.dumps(PLAN))
    assert wfs("plan", "Merge test", "--from", str(plan)).out == f"{SID}\n"
    return commit_all(project, "plan")


def branch(project: Path, name: str, *commands: tuple[str, ...]) -> str:
    git(project, "checkout", "-q", "-b", name, "main")
    for command in commands:
        run = wfs(*command)
        assert run.code == 0, run.err
    return commit_all(project, name)


def two_branches(project: Path) -> tuple[str, str]:
    """Branch a completes IMPL-1; branch b starts IMPL-2 and renames it."""
    ours = branch(project, "b", ("task", "status", "IMPL-2", "active"))
    git(project, "checkout", "-q", "main")
    theirs = branch(project, "a", ("task", "status", "IMPL-1", "completed"))
    git(project, "checkout", "-q", "b")
    run = wfs("task", "update", "IMPL-2", "--title", "Render HTML output")
    assert run.code == 0, run.err
    ours = commit_all(project, "rename IMPL-2")
    return ours, theirs


def files_with_markers(project: Path) -> list[str]:
    found = []
    for path in sorted((project / ".workflow").rglob("*")):
        if path.is_file() and ".cache" not in path.parts:
            text = path.read_text(encoding="utf-8", errors="replace")
            if any(m in text for m in ("<<<<<<<", "=======\n", ">>>>>>>")):
                found.append(path.relative_to(project).as_posix())
    return found


def fresh_views(project: Path) -> dict[str, str]:
    layout = Layout(project)
    return render.render_views(load_session(layout, SID), load_tasks(layout, SID))


@pytest.mark.slow
def test_branches_changing_different_tasks_merge_cleanly_with_fresh_views(
    project: Path, git_env: Path
) -> None:
    planned_repo(project)
    ours, theirs = two_branches(project)

    merge = git(project, "merge", "--no-edit", "a", check=False)

    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "CONFLICT" not in merge.stdout
    assert files_with_markers(project) == []
    assert git(project, "status", "--porcelain").stdout == ""
    assert git(project, "rev-parse", "HEAD^1", "HEAD^2").stdout.split() == [ours, theirs]
    assert git(project, "log", "-1", "--format=%s").stdout == "Merge branch 'a' into b\n"
    # The merged JSON holds both changes; the derived session fields are recomputed.
    tasks = {t["id"]: (t["status"], t["title"]) for t in load_tasks(Layout(project), SID)}
    assert tasks == {
        "IMPL-1": ("completed", "Parse input"),
        "IMPL-2": ("active", "Render HTML output"),
        "IMPL-3": ("pending", "Write docs"),
    }
    session = read_json(project / SESSION / "workflow-session.json")
    assert session["current_phase"] == "IMPLEMENT"
    assert session["progress"] == {"completed_phases": ["PLAN"], "current_tasks": ["IMPL-2"]}
    # The merge commit itself holds views equal to a fresh render of the merged JSON.
    expected = fresh_views(project)
    assert expected["TODO_LIST.md"] == MERGED_TODO
    for name, text in expected.items():
        committed = git(project, "show", f"HEAD:{(SESSION / name).as_posix()}").stdout
        assert committed == text, name
    assert "- **Progress**: 1/3 tasks completed" in expected["IMPL_PLAN.md"]
    check = wfs("render", "--check")
    assert (check.code, check.out) == (0, f"OK: views of {SID} are up to date\n")


@pytest.mark.slow
def test_plain_git_conflicts_on_the_same_merge(project: Path, git_env: Path) -> None:
    planned_repo(project, "--no-git")
    two_branches(project)

    merge = git(project, "merge", "--no-edit", "a", check=False)

    assert merge.returncode == 1
    conflicted = git(project, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert conflicted == [
        f"{SESSION.as_posix()}/IMPL_PLAN.md",
        f"{SESSION.as_posix()}/workflow-session.json",
    ]
    assert files_with_markers(project) == conflicted


@pytest.mark.slow
def test_two_fields_of_one_task_merge_field_by_field(project: Path, git_env: Path) -> None:
    planned_repo(project)
    branch(project, "a", ("task", "status", "IMPL-2", "blocked"))
    branch(project, "b", ("task", "update", "IMPL-2", "--title", "Render HTML"))

    merge = git(project, "merge", "--no-edit", "a", check=False)

    assert merge.returncode == 0, merge.stdout + merge.stderr
    task = read_json(project / SESSION / ".task/IMPL-2.json")
    assert (task["title"], task["status"]) == ("Render HTML", "blocked")
    assert git(project, "status", "--porcelain").stdout == ""
    assert wfs("render", "--check").code == 0
    todo = git(project, "show", f"HEAD:{SESSION.as_posix()}/TODO_LIST.md").stdout
    assert "- [ ] **IMPL-2**: Render HTML → [📋](./.task/IMPL-2.json) 🚫 blocked\n" in todo


@pytest.mark.slow
def test_plain_git_conflicts_on_two_fields_of_one_task(project: Path, git_env: Path) -> None:
    planned_repo(project, "--no-git")
    branch(project, "a", ("task", "status", "IMPL-2", "blocked"))
    branch(project, "b", ("task", "update", "IMPL-2", "--title", "Render HTML"))

    merge = git(project, "merge", "--no-edit", "a", check=False)

    assert merge.returncode == 1
    conflicted = git(project, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert f"{SESSION.as_posix()}/.task/IMPL-2.json" in conflicted


@pytest.mark.slow
def test_a_real_conflict_keeps_git_markers_in_the_json_only(project: Path, git_env: Path) -> None:
    planned_repo(project)
    branch(project, "a", ("task", "update", "IMPL-1", "--title", "Parse JSON"))
    branch(project, "b", ("task", "update", "IMPL-1", "--title", "Parse YAML"))

    merge = git(project, "merge", "--no-edit", "a", check=False)

    assert merge.returncode == 1
    task_path = f"{SESSION.as_posix()}/.task/IMPL-1.json"
    assert git(project, "diff", "--name-only", "--diff-filter=U").stdout.split() == [task_path]
    assert files_with_markers(project) == [task_path]
    text = (project / task_path).read_text()
    assert f'<<<<<<< ours:{task_path}\n  "title": "Parse YAML",\n=======\n' in text
    # Resolve the JSON, re-render, commit: the views follow.
    resolved = read_json(project / SESSION / ".task/IMPL-2.json")
    resolved.update(id="IMPL-1", title="Parse JSON and YAML")
    (project / task_path).write_text(json.dumps(resolved, indent=2) + "\n")
    assert wfs("render").code == 0
    git(project, "commit", "-qam", "merge a")
    assert wfs("render", "--check").code == 0
    assert "Parse JSON and YAML" in (project / SESSION / "TODO_LIST.md").read_text()


@pytest.mark.slow
def test_squash_merge_stages_fresh_views(project: Path, git_env: Path) -> None:
    planned_repo(project)
    two_branches(project)

    merge = git(project, "merge", "--squash", "a", check=False)

    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert git(project, "diff", "--name-only").stdout == ""  # all of it is staged
    git(project, "commit", "-q", "-m", "squashed a")
    assert git(project, "status", "--porcelain").stdout == ""
    assert wfs("render", "--check").code == 0
    committed = git(project, "show", f"HEAD:{SESSION.as_posix()}/TODO_LIST.md").stdout
    assert committed == MERGED_TODO


@pytest.mark.slow
def test_fast_forward_is_left_alone(project: Path, git_env: Path) -> None:
    planned_repo(project)
    tip = branch(project, "a", ("task", "status", "IMPL-1", "completed"))
    git(project, "checkout", "-q", "main")

    git(project, "merge", "-q", "a")

    assert git(project, "rev-parse", "HEAD").stdout.strip() == tip
    assert git(project, "status", "--porcelain").stdout == ""


@pytest.mark.slow
def test_a_merge_the_hooks_did_not_see_start_is_left_alone(project: Path, git_env: Path) -> None:
    planned_repo(project)
    two_branches(project)
    stale = project / ".git" / "wfs-merge-pending"
    stale.write_text("0123456789abcdef0123456789abcdef01234567\n")

    # --no-verify skips pre-merge-commit: the note left from an earlier merge is stale.
    merge = git(project, "merge", "--no-edit", "--no-verify", "a", check=False)

    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert not stale.exists()
    reflog = git(project, "reflog", "-1", "--format=%gs").stdout
    assert reflog == "merge a: Merge made by the 'ort' strategy.\n"
    assert files_with_markers(project) == []
    # Nothing re-rendered them: the views are as the drivers left them.
    check = wfs("render", "--check")
    assert (check.code, check.out) == (
        1,
        f"{SESSION.as_posix()}/IMPL_PLAN.md: stale or hand-edited; run `wfs render`\n",
    )


def test_a_failing_hook_never_stops_git(tmp_path: Path) -> None:
    import subprocess

    fake_bin = tmp_path / "fake"
    fake_bin.mkdir()
    (fake_bin / "wfs").write_text("#!/bin/sh\nexit 3\n")
    (fake_bin / "wfs").chmod(0o755)
    hook = tmp_path / "post-merge"
    gone = str(tmp_path / "gone/bin/python")  # the interpreter that ran `wfs init`, removed
    hook.write_text(hook_script("post-merge", ".", gone))
    hook.chmod(0o755)
    run = subprocess.run(
        [str(hook), "0"],
        capture_output=True,
        text=True,
        env={"PATH": f"{fake_bin}{os.pathsep}/usr/bin{os.pathsep}/bin"},
    )
    assert (run.returncode, run.stdout) == (0, "")
    assert run.stderr == (
        "wfs: the post-merge hook failed; run 'wfs hook post-merge 0' in the project to finish it\n"
    )
    (fake_bin / "wfs").unlink()
    run = subprocess.run(
        [str(hook), "0"], capture_output=True, text=True, env={"PATH": str(fake_bin)}
    )
    assert run.returncode == 0
    assert run.stderr == (
        f"wfs: neither {gone} nor a wfs on PATH; run `wfs init` again\n"
        "wfs: the post-merge hook failed; run 'wfs hook post-merge 0' in the project to "
        "finish it\n"
    )


# What a hook of wfs that failed says after the line that says so.
SAID = {
    "pre-merge-commit": "the merge commit keeps the plan views git merged; to refresh them, "
    "undo it ('git reset --merge ORIG_HEAD') and merge again",
    "post-merge": "run 'wfs hook post-merge 0' in the project to finish it",
}


def test_a_hook_of_wfs_ends_at_once_in_a_merge_that_changes_no_plan(tmp_path: Path) -> None:
    """wfs merging a task's branch that changes no plan says so: its hooks then start
    nothing (here, the wfs they would start fails, and nothing says so)."""
    fake_bin = tmp_path / "fake"
    fake_bin.mkdir()
    (fake_bin / "wfs").write_text("#!/bin/sh\necho started >&2\nexit 3\n")
    (fake_bin / "wfs").chmod(0o755)
    env = {"PATH": f"{fake_bin}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    for name in ("pre-merge-commit", "post-merge"):
        hook = tmp_path / name
        hook.write_text(hook_script(name, ".", str(tmp_path / "gone/bin/python")))
        hook.chmod(0o755)
        run = subprocess.run(
            [str(hook), "0"],
            capture_output=True,
            text=True,
            env={**env, wfs_git.PLANS_UNTOUCHED: "1"},
        )
        assert (run.returncode, run.stdout, run.stderr) == (0, "", "")
        run = subprocess.run([str(hook), "0"], capture_output=True, text=True, env=env)
        assert (run.returncode, run.stderr) == (
            0,
            f"started\nwfs: the {name} hook failed; {SAID[name]}\n",
        )


@pytest.mark.slow
def test_a_merge_that_changes_no_plan_runs_no_hook_of_wfs_but_runs_the_users(
    project: Path, git_env: Path
) -> None:
    planned_repo(project)
    git(project, "checkout", "-q", "-b", "code", "main")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\n")
    commit_all(project, "code")
    git(project, "checkout", "-q", "-b", "plan", "main")
    run = wfs("task", "status", "IMPL-1", "completed")
    assert run.code == 0, run.err
    commit_all(project, "plan")
    git(project, "checkout", "-q", "main")
    assert wfs_git.changes_plans(project, "main", "code") is False
    assert wfs_git.changes_plans(project, "main", "plan") is True
    assert wfs_git.changes_plans(project, "main", "no-such-branch") is True  # cannot tell
    # The user's own post-merge hook in place of wfs's; wfs's pre-merge-commit stays.
    (project / ".git/hooks/post-merge").write_text(
        '#!/bin/sh\necho "[$WFS_MERGE_LEAVES_PLANS]" >> "$(git rev-parse --git-dir)/seen"\n'
    )
    note = project / ".git" / "wfs-merge-pending"

    merged = wfs_git.merge_branch(project, "code", "Merge code", plans=False)

    assert merged == wfs_git.Merged([], None)
    assert not note.exists()  # wfs's pre-merge-commit hook did nothing
    assert (project / ".git/seen").read_text() == "[1]\n"  # the user's hook ran
    subject, parents = git(project, "log", "-1", "--format=%s%x00%P").stdout.strip().split("\0")
    assert (subject, len(parents.split())) == ("Merge code", 2)
    assert (project / "src/app.py").read_text() == "print('hi')\n"

    merged = wfs_git.merge_branch(project, "plan", "Merge plan")

    assert merged == wfs_git.Merged([], None)
    assert note.exists()  # noted by wfs's pre-merge-commit hook (left: post-merge is the user's)
    assert (project / ".git/seen").read_text() == "[1]\n[]\n"


def test_commit_all_commits_what_changed_says_when_nothing_did_and_names_a_refusal(
    project: Path, git_env: Path
) -> None:
    git(project, "init", "-q", "-b", "main")
    (project / "a.txt").write_text("a\n")

    assert wfs_git.commit_all(project, "first") is True
    assert git(project, "log", "--format=%s").stdout == "first\n"
    assert wfs_git.commit_all(project, "nothing") is False
    assert git(project, "log", "--format=%s").stdout == "first\n"

    hook = project / ".git/hooks/prepare-commit-msg"
    hook.write_text("#!/bin/sh\necho 'fatal: not today' >&2\nexit 1\n")
    hook.chmod(0o755)
    assert wfs_git.commit_all(project, "nothing again") is False  # refused only with work
    (project / "b.txt").write_text("b\n")
    with pytest.raises(WfsError) as refused:
        wfs_git.commit_all(project, "second")
    assert refused.value.message == "git commit: not today"
    assert git(project, "log", "--format=%s").stdout == "first\n"


@pytest.mark.slow
def test_git_merge_works_from_a_shell_without_wfs_on_path(project: Path, git_env: Path) -> None:
    """The drivers and hooks call the interpreter that ran `wfs init`, as pre-commit does."""
    planned_repo(project)
    ours, theirs = two_branches(project)
    # No wfs on PATH from here on (the shim of the tests nor the one the venv installs).
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "wfs").exists()
    )
    assert subprocess.run(["sh", "-c", "command -v wfs"], env={"PATH": path}).returncode != 0
    merge = subprocess.run(
        ["git", "merge", "--no-edit", "a"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},
    )
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert "CONFLICT" not in merge.stdout
    assert files_with_markers(project) == []
    assert git(project, "rev-parse", "HEAD^1", "HEAD^2").stdout.split() == [ours, theirs]
    for name, text in fresh_views(project).items():
        assert git(project, "show", f"HEAD:{(SESSION / name).as_posix()}").stdout == text


@pytest.mark.slow
def test_merge_works_when_the_root_is_a_subdirectory(
    tmp_path: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    project = repo / "tools" / "plan"
    project.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    monkeypatch.chdir(project)
    data = wfs("init", "--json").json()["git"]
    assert data["hooks_path"] == "../../.git/hooks"
    hook = (repo / ".git/hooks/post-merge").read_text()
    assert '\nwfs_run --root tools/plan hook post-merge "$@" ||\n' in hook
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    wfs("plan", "Merge test", "--from", str(plan))
    commit_all(repo, "plan")
    two_branches(project)

    merge = git(repo, "merge", "--no-edit", "a", check=False)

    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert git(repo, "status", "--porcelain").stdout == ""
    committed = git(repo, "show", f"HEAD:tools/plan/{SESSION.as_posix()}/TODO_LIST.md").stdout
    assert committed == MERGED_TODO


# --------------------------------------------------------------------------- wfs init


MARKERS_IGNORED = (
    ".workflow/.gitignore: .active-* markers stay out of commits "
    "(which session is active is each person's own)\n"
)


def expected_git_setup(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "gitattributes": "created",
        "repository": True,
        "drivers": "configured",
        "hooks": {"pre-merge-commit": "installed", "post-merge": "installed"},
        "hooks_path": ".git/hooks",
        "manual": {},
    }
    return {**base, **changes}


def test_init_sets_up_git_once_and_keeps_existing_attributes(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    (project / ".gitattributes").write_text("*.png binary\n# mine\n*.md text eol=lf")

    first = wfs("init")

    assert (first.code, first.err) == (0, "")
    assert first.out == (
        f"Initialized {project / '.workflow'}\n"
        f"{MARKERS_IGNORED}"
        ".gitattributes: updated (merge rules for the plan files)\n"
        "git: merge drivers wfs-views and wfs-json configured\n"
        "git: .git/hooks/pre-merge-commit installed\n"
        "git: .git/hooks/post-merge installed\n"
    )
    attributes = (project / ".gitattributes").read_text()
    assert attributes == (
        "*.png binary\n# mine\n*.md text eol=lf\n\n"
        "# Written by `wfs init`: plan views are generated, plan JSON merges field by field\n"
        "# (merge drivers set up by `wfs init` in each clone; without them git merges as text).\n"
        ".workflow/**/TODO_LIST.md merge=wfs-views linguist-generated=true\n"
        ".workflow/**/IMPL_PLAN.md merge=wfs-views linguist-generated=true\n"
        ".workflow/**/.task/*.json merge=wfs-json\n"
        ".workflow/**/workflow-session.json merge=wfs-json\n"
    )
    config = git(project, "config", "--local", "--get-regexp", r"^merge\.wfs").stdout
    assert config == "".join(f"{key} {value}\n" for key, value in drivers(sys.executable).items())
    assert drivers(sys.executable)["merge.wfs-json.driver"].endswith(
        "; wfs_run merge-json %O %A %B %P"
    )
    for name in ("pre-merge-commit", "post-merge"):
        hook = project / ".git/hooks" / name
        assert hook.read_text() == hook_script(name, ".", sys.executable)
        assert os.access(hook, os.X_OK)
    attr = git(project, "check-attr", "merge", "--", f"{SESSION}/TODO_LIST.md").stdout
    assert attr == f"{SESSION}/TODO_LIST.md: merge: wfs-views\n"

    second = wfs("init", "--json")

    assert second.json()["git"] == expected_git_setup(
        gitattributes="unchanged",
        drivers="unchanged",
        hooks={"pre-merge-commit": "unchanged", "post-merge": "unchanged"},
    )
    assert (project / ".gitattributes").read_text() == attributes
    assert git(project, "config", "--local", "--get-regexp", r"^merge\.wfs").stdout == config
    assert wfs("init").out == f"Already initialized {project / '.workflow'}\n"


def test_init_restores_a_changed_driver_and_a_missing_attribute_line(
    project: Path, git_env: Path
) -> None:
    git(project, "init", "-q", "-b", "main")
    assert wfs("init", "--json").json()["git"] == expected_git_setup()
    git(project, "config", "merge.wfs-json.driver", "cat")
    kept = [line for line in (project / ".gitattributes").read_text().splitlines()]
    (project / ".gitattributes").write_text("\n".join(kept[:-1]) + "\n")
    (project / ".git/hooks/post-merge").write_text("# wfs-managed hook: old version\n")

    data = wfs("init", "--json").json()["git"]

    assert data == expected_git_setup(
        gitattributes="updated",
        hooks={"pre-merge-commit": "unchanged", "post-merge": "updated"},
    )
    assert (project / ".gitattributes").read_text().splitlines() == kept
    driver = git(project, "config", "merge.wfs-json.driver").stdout
    assert driver == drivers(sys.executable)["merge.wfs-json.driver"] + "\n"
    assert (project / ".git/hooks/post-merge").read_text() == hook_script(
        "post-merge", ".", sys.executable
    )


def test_init_never_overwrites_someone_elses_hook(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    theirs = project / ".git/hooks/post-merge"
    theirs.write_text("#!/bin/sh\necho mine\n")

    run = wfs("init", "--json")

    assert run.code == 0
    assert run.json()["git"] == expected_git_setup(
        hooks={"pre-merge-commit": "installed", "post-merge": "foreign"},
        manual={"post-merge": f'{sys.executable} -m wfs --root . hook post-merge "$@"'},
    )
    assert run.err == (
        "wfs: warning: .git/hooks/post-merge is not wfs's; to keep plan views fresh in merge "
        f'commits, add this line to it:\n  {sys.executable} -m wfs --root . hook post-merge "$@"\n'
    )
    assert theirs.read_text() == "#!/bin/sh\necho mine\n"
    # Once the user has added the line, wfs recognizes it and stays quiet.
    theirs.write_text('#!/bin/sh\necho mine\nwfs --root . hook post-merge "$@"\n')
    again = wfs("init", "--json")
    assert again.json()["git"]["hooks"]["post-merge"] == "present"
    assert again.err == ""


def test_init_stopped_part_way_says_so_and_its_next_command_finishes(
    project: Path, git_env: Path
) -> None:
    """init's steps are atomic one by one, not as a whole: when one fails after others
    changed files, the message never says "nothing was changed", and the command it
    names finishes the set-up once the cause is gone."""
    git(project, "init", "-q", "-b", "main")
    (project / ".git/hooks/post-merge").mkdir()

    run = wfs("init")

    assert (run.code, run.out) == (2, "")
    assert run.err == (
        "wfs: error: .git/hooks/post-merge: Is a directory; wfs init stopped part way (what "
        "it set up before this stays): fix this and run `wfs init` again to finish\n"
    )
    assert (project / ".gitattributes").is_file()  # done before the failing step
    (project / ".git/hooks/post-merge").rmdir()
    again = wfs("init", "--json")
    assert again.code == 0, again.err
    assert again.json()["git"]["hooks"]["post-merge"] == "installed"
    assert wfs("init", "--json").json()["git"] == expected_git_setup(
        gitattributes="unchanged",
        drivers="unchanged",
        hooks={"pre-merge-commit": "unchanged", "post-merge": "unchanged"},
    )


def test_init_follows_core_hooks_path(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    git(project, "config", "core.hooksPath", "githooks")

    data = wfs("init", "--json").json()["git"]

    assert data["hooks_path"] == "githooks"
    assert sorted(p.name for p in (project / "githooks").iterdir()) == [
        "post-merge",
        "pre-merge-commit",
    ]
    assert not (project / ".git/hooks/post-merge").exists()


def test_init_no_git_skips_all_of_it(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    data = wfs("init", "--no-git", "--json").json()
    assert data["git"] is None
    assert not (project / ".gitattributes").exists()
    assert git(project, "config", "--local", "--get-regexp", "^merge", check=False).stdout == ""
    assert not (project / ".git/hooks/post-merge").exists()


def test_init_outside_git_writes_only_the_attributes(project: Path, git_env: Path) -> None:
    run = wfs("init")
    assert run.out == (
        f"Initialized {project / '.workflow'}\n"
        f"{MARKERS_IGNORED}"
        ".gitattributes: created (merge rules for the plan files)\n"
        "git: not a git work tree; run `wfs init` again after `git init`\n"
    )
    assert wfs("init", "--json").json()["git"] == {
        "gitattributes": "unchanged",
        "repository": False,
        "drivers": None,
        "hooks": {},
        "hooks_path": None,
        "manual": {},
    }
    lines = (project / ".gitattributes").read_text().splitlines()
    assert lines[2:] == list(ATTRIBUTE_LINES)


# --------------------------------------------------------------------------- drivers


def test_views_driver_leaves_ours_when_the_text_merge_conflicts(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("a\nprogress 0/2\nz\n")
    ours.write_text("a\nprogress 1/2\nz\n")
    theirs.write_text("a\nprogress 2/2\nz\n")
    run = wfs("merge-views", str(base), str(ours), str(theirs), "TODO_LIST.md")
    assert (run.code, run.out, run.err) == (0, "", "")
    assert ours.read_text() == "a\nprogress 1/2\nz\n"


def test_views_driver_takes_a_clean_text_merge(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text("one\n\ntwo\n\nthree\n")
    ours.write_text("ONE\n\ntwo\n\nthree\n")
    theirs.write_text("one\n\ntwo\n\nTHREE\n")
    assert wfs("merge-views", str(base), str(ours), str(theirs)).code == 0
    assert ours.read_text() == "ONE\n\ntwo\n\nTHREE\n"


def test_json_driver_falls_back_to_text_merge_for_malformed_json(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text('{"a": 1,\n "b": 2}\n')
    ours.write_text('{"a": 1,\n "b": 3\n')  # broken
    theirs.write_text('{"a": 5,\n "b": 2}\n')
    run = wfs("merge-json", str(base), str(ours), str(theirs), "x.json")
    assert run.code == 1
    assert ours.read_text() == (
        "<<<<<<< ours:x.json\n"
        '{"a": 1,\n "b": 3\n'
        "=======\n"
        '{"a": 5,\n "b": 2}\n'
        ">>>>>>> theirs:x.json\n"
    )


def test_json_driver_keeps_ours_byte_for_byte_when_theirs_changed_nothing(
    tmp_path: Path,
) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text('{"a": 1}')
    ours.write_text('{ "a" : 2 }')
    theirs.write_text('{"a":1}\n')
    assert wfs("merge-json", str(base), str(ours), str(theirs)).code == 0
    assert ours.read_text() == '{ "a" : 2 }'


@pytest.mark.parametrize(
    ("base", "ours", "theirs", "merged", "conflicts"),
    [
        ({"a": 1, "b": 1}, {"a": 2, "b": 1}, {"a": 1, "b": 3}, {"a": 2, "b": 3}, []),
        ({"a": 1, "b": 1}, {"b": 1}, {"a": 1, "b": 2}, {"b": 2}, []),
        ({"a": 1}, {"a": 1, "new": [1]}, {"a": 1, "other": True}, None, []),
        ({"a": [1, 2]}, {"a": [1, 2, 3]}, {"a": [0, 1, 2]}, {"a": [1, 2, 3]}, [("a",)]),
        ({"a": 1}, {"a": True}, {"a": 1.0}, {"a": True}, [("a",)]),
        (
            {"x": {"y": 1, "z": 1}},
            {"x": {"y": 2, "z": 1}},
            {"x": {"y": 1, "z": 2}},
            {"x": {"y": 2, "z": 2}},
            [],
        ),
        ({"a": 1}, {}, {"a": 2}, {}, [("a",)]),
    ],
)
def test_json_values_merge_key_by_key(
    base: object, ours: object, theirs: object, merged: object, conflicts: object
) -> None:
    found: list[tuple[str, ...]] = []
    result = merge_values(base, ours, theirs, (), found)
    if merged is None:
        assert result == {"a": 1, "new": [1], "other": True}
        assert list(result) == ["a", "new", "other"]
    else:
        assert result == merged
    assert found == conflicts


def test_session_progress_fields_combine_instead_of_conflicting(tmp_path: Path) -> None:
    def session(phase: str, done: list[str], current: list[str], kind: str) -> str:
        return json.dumps(
            {
                "type": kind,
                "current_phase": phase,
                "status": "active",
                "progress": {"completed_phases": done, "current_tasks": current},
            },
            indent=2,
        )

    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "workflow-session.json"))
    base.write_text(session("PLAN", [], ["IMPL-1"], "simple"))
    ours.write_text(session("IMPLEMENT", ["PLAN"], ["IMPL-10"], "medium"))
    theirs.write_text(session("REVIEW", ["PLAN", "IMPLEMENT"], ["IMPL-9", "IMPL-1"], "simple"))
    run = wfs("merge-json", str(base), str(ours), str(theirs), f"{SESSION}/workflow-session.json")
    assert run.code == 0
    assert read_json(ours) == {
        "type": "medium",
        "current_phase": "REVIEW",
        "status": "active",
        "progress": {
            "completed_phases": ["PLAN", "IMPLEMENT"],
            "current_tasks": ["IMPL-9", "IMPL-10"],
        },
    }
    # Other files get no such help: the same values in a task conflict.
    other = tmp_path / "IMPL-1.json"
    other.write_text(session("REVIEW", ["PLAN", "IMPLEMENT"], ["IMPL-9"], "simple"))
    ours.write_text(session("IMPLEMENT", ["PLAN"], ["IMPL-10"], "medium"))
    assert wfs("merge-json", str(base), str(ours), str(other), "IMPL-1.json").code == 1


def test_json_driver_lets_git_combine_edits_at_both_ends_of_a_list(tmp_path: Path) -> None:
    def task(items: list[str]) -> str:
        return json.dumps({"id": "IMPL-1", "context": {"requirements": items}}, indent=2) + "\n"

    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_text(task(["a", "b", "c"]))
    ours.write_text(task(["a", "b", "c", "d"]))
    theirs.write_text(task(["z", "a", "b", "c"]))
    assert wfs("merge-json", str(base), str(ours), str(theirs), "IMPL-1.json").code == 0
    assert read_json(ours)["context"]["requirements"] == ["z", "a", "b", "c", "d"]
    # A clean line merge that is not valid JSON still counts as a conflict.
    base.write_text('{"a": [\n1,\n\n\n2\n]}\n')
    ours.write_text('{"a": [\n1,\n\n\n2,\n]}\n')
    theirs.write_text('{"a": [\n0,\n\n\n2\n]}\n')
    assert wfs("merge-json", str(base), str(ours), str(theirs), "x.json").code == 1
    assert ours.read_text() == '{"a": [\n0,\n\n\n2,\n]}\n'
