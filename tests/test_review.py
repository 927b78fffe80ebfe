"""`wfs diff`: a semantic plan diff between git revisions and the working tree."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import read_json, wfs
from git_helpers import commit_all, git, git_env

from wfs import git as wfs_git
from wfs.cli import cli
from wfs.review import field_changes, json_path, step_changes

__all__ = ["git_env"]  # the fixture, used by name

SID = "WFS-review"
TASKS = Path(".workflow") / SID / ".task"


def step(number: int, title: str, depends: list[int] | None = None) -> dict[str, Any]:
    return {
        "step": number,
        "title": title,
        "description": title,
        "modification_points": [],
        "logic_flow": [],
        "depends_on": depends or [],
        "output": title.lower().replace(" ", "_"),
    }


PLAN = {
    "overview": "Review me",
    "tasks": [
        {
            "id": "IMPL-1",
            "title": "Parse input",
            "context": {"requirements": ["Read JSON"]},
            "flow_control": {
                "pre_analysis": [
                    {"step": "load_spec", "action": "Load", "command": "bash(cat spec.md)"},
                    {"step": "scan", "action": "Scan", "command": "bash(ls)"},
                ],
                "implementation_approach": [
                    step(1, "Read the spec"),
                    step(2, "Write the parser", [1]),
                ],
            },
        },
        {"id": "IMPL-2", "title": "Render output", "context": {"depends_on": ["IMPL-1"]}},
        {"id": "IMPL-3", "title": "Write docs"},
    ],
}


@pytest.fixture
def repo(project: Path, git_env: Path) -> Path:
    """A git repository with the plan committed and nothing changed since."""
    git(project, "init", "-q", "-b", "main")
    plan = project.parent / "plan.json"
    plan.write_text(json.dumps(PLAN))
    wfs("init", "--no-git")
    assert wfs("plan", "Review", "--from", str(plan)).out == f"{SID}\n"
    commit_all(project, "plan")
    return project


def edit_task(root: Path, tid: str, change: Any) -> None:
    path = root / TASKS / f"{tid}.json"
    task = read_json(path)
    change(task)
    path.write_text(json.dumps(task, indent=2, ensure_ascii=False) + "\n")


def change_everything(root: Path) -> None:
    assert wfs("task", "status", "IMPL-1", "completed").code == 0

    def first(task: dict[str, Any]) -> None:
        flow = task["flow_control"]
        flow["pre_analysis"] = [
            {"step": "load_spec", "action": "Load", "command": "bash(cat docs/spec.md)"}
        ]
        flow["implementation_approach"] = [
            step(1, "Check the grammar"),
            step(2, "Read the spec"),
            step(3, "Write the parser", [2]),
        ]

    def second(task: dict[str, Any]) -> None:
        task["title"] = "Render HTML"
        task["context"]["depends_on"] = ["IMPL-3"]
        task["context"]["requirements"] = ["Escape HTML"]
        task["meta"]["agent"] = "@universal-executor"
        task["notes"] = "new field"

    edit_task(root, "IMPL-1", first)
    edit_task(root, "IMPL-2", second)
    (root / TASKS / "IMPL-3.json").unlink()
    assert wfs("task", "add", "--title", "Ship it", "--id", "IMPL-4").code == 0


EVERYTHING = """\
Plan changes from HEAD to the working tree:

WFS-review
  session: current_phase "PLAN" → "IMPLEMENT"; progress.completed_phases changed
  + IMPL-4  Ship it  [pending]
  - IMPL-3  Write docs  [pending]
  ~ IMPL-1  Parse input
      status: pending → completed
      - pre_analysis[2] scan
      ~ pre_analysis[1] load_spec: command
      + implementation_approach[1] Check the grammar
      ~ implementation_approach[3] Write the parser: depends_on
  ~ IMPL-2  Render HTML
      title: "Render output" → "Render HTML"
      depends_on: +IMPL-3 -IMPL-1
      ~ meta.agent "@code-developer" → "@universal-executor"
      ~ context.requirements changed
      + notes added

1 session changed; tasks: 1 added, 1 removed, 2 changed
"""


@pytest.mark.slow
def test_diff_summarizes_every_kind_of_change(repo: Path) -> None:
    change_everything(repo)
    run = wfs("diff")
    assert (run.code, run.err) == (0, "")
    assert run.out == EVERYTHING
    assert wfs("diff", "HEAD").out == EVERYTHING


@pytest.mark.slow
def test_diff_json_names_each_change(repo: Path) -> None:
    change_everything(repo)
    head = git(repo, "rev-parse", "HEAD").stdout.strip()
    data = wfs("diff", "--json").json()
    assert data["from"] == {"rev": "HEAD", "commit": head}
    assert data["to"] == {"rev": None, "commit": None}
    assert data["changed"] is True
    assert data["summary"] == {
        "sessions": {"added": 0, "removed": 0, "changed": 1},
        "tasks": {"added": 1, "removed": 1, "changed": 2},
    }
    (session,) = data["sessions"]
    assert session["session"] == SID
    assert session["status"] == "changed"
    assert session["fields"] == [
        {"path": "current_phase", "change": "changed", "old": "PLAN", "new": "IMPLEMENT"},
        {
            "path": "progress.completed_phases",
            "change": "changed",
            "old": [],
            "new": ["PLAN"],
        },
    ]
    tasks = session["tasks"]
    assert tasks["added"] == [{"id": "IMPL-4", "title": "Ship it", "status": "pending"}]
    assert tasks["removed"] == [{"id": "IMPL-3", "title": "Write docs", "status": "pending"}]
    first, second = tasks["changed"]
    assert first == {
        "id": "IMPL-1",
        "title": "Parse input",
        "status": "completed",
        "changes": {
            "status": {"old": "pending", "new": "completed"},
            "steps": [
                {"list": "pre_analysis", "change": "removed", "index": 2, "name": "scan"},
                {
                    "list": "pre_analysis",
                    "change": "changed",
                    "index": 1,
                    "name": "load_spec",
                    "fields": ["command"],
                },
                {
                    "list": "implementation_approach",
                    "change": "added",
                    "index": 1,
                    "name": "Check the grammar",
                },
                {
                    "list": "implementation_approach",
                    "change": "changed",
                    "index": 3,
                    "name": "Write the parser",
                    "fields": ["depends_on"],
                },
            ],
        },
    }
    assert second["changes"] == {
        "title": {"old": "Render output", "new": "Render HTML"},
        "depends_on": {
            "old": ["IMPL-1"],
            "new": ["IMPL-3"],
            "added": ["IMPL-3"],
            "removed": ["IMPL-1"],
        },
        "fields": [
            {
                "path": "meta.agent",
                "change": "changed",
                "old": "@code-developer",
                "new": "@universal-executor",
            },
            {
                "path": "context.requirements",
                "change": "changed",
                "old": [],
                "new": ["Escape HTML"],
            },
            {"path": "notes", "change": "added", "new": "new field"},
        ],
    }


def test_no_changes_exit_0_even_with_exit_code(repo: Path) -> None:
    run = wfs("diff", "--exit-code")
    assert (run.code, run.out, run.err) == (
        0,
        "No plan changes between HEAD and the working tree.\n",
        "",
    )
    assert wfs("diff", "--json").json()["sessions"] == []


def test_differences_exit_0_and_1_with_exit_code(repo: Path) -> None:
    assert wfs("task", "status", "IMPL-3", "blocked").code == 0
    assert wfs("diff").code == 0
    run = wfs("diff", "--exit-code", "--json")
    assert run.code == 1
    assert run.json()["summary"]["tasks"]["changed"] == 1


def test_views_and_other_files_are_not_plan_changes(repo: Path) -> None:
    (repo / ".workflow" / SID / "TODO_LIST.md").write_text("hand edit\n")
    (repo / ".workflow" / SID / ".task" / "notes.txt").write_text("x\n")
    (repo / ".workflow" / SID / ".chat").mkdir()
    (repo / ".workflow" / SID / ".chat" / "a.json").write_text("{}")
    assert wfs("diff", "--exit-code").code == 0


@pytest.mark.slow
def test_revision_ranges(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "checkout", "-q", "-b", "feature")
    assert wfs("task", "status", "IMPL-1", "active").code == 0
    feature = commit_all(repo, "start IMPL-1")
    git(repo, "checkout", "-q", "main")
    assert wfs("task", "status", "IMPL-3", "blocked").code == 0
    commit_all(repo, "block IMPL-3")

    def changed_ids(*args: str) -> list[str]:
        data = wfs("diff", *args, "--json").json()
        return [t["id"] for s in data["sessions"] for t in s["tasks"]["changed"]]

    # main..feature: everything that differs between the two tips.
    assert changed_ids("main..feature") == ["IMPL-1", "IMPL-3"]
    # main...feature: only what the branch changed since it left main.
    assert changed_ids("main...feature") == ["IMPL-1"]
    data = wfs("diff", "main...feature", "--json").json()
    assert data["from"] == {"rev": "main...feature", "commit": base}
    assert data["to"] == {"rev": "feature", "commit": feature}
    # A missing side means HEAD, as in git.
    assert changed_ids("feature..") == ["IMPL-1", "IMPL-3"]
    run = wfs("diff", f"{base}..feature")
    assert run.out.startswith(f"Plan changes from {base} to feature:\n")


@pytest.mark.slow
def test_added_and_removed_sessions(repo: Path) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "Second", "--empty").code == 0
    assert wfs("task", "add", "--title", "First task").code == 0
    commit_all(repo, "second session")
    run = wfs("diff", "HEAD~1..HEAD")
    assert run.out == (
        "Plan changes from HEAD~1 to HEAD:\n"
        "\n"
        "WFS-review\n"
        '  session: status "active" → "paused"\n'
        "\n"
        "WFS-second (new session)\n"
        "  + IMPL-1  First task  [pending]\n"
        "\n"
        "1 session added, 1 session changed; tasks: 1 added, 0 removed, 0 changed\n"
    )
    back = wfs("diff", "HEAD..HEAD~1", "--json").json()
    statuses = [(s["session"], s["status"]) for s in back["sessions"]]
    assert statuses == [("WFS-review", "changed"), ("WFS-second", "removed")]
    assert back["sessions"][1]["tasks"]["removed"] == [
        {"id": "IMPL-1", "title": "First task", "status": "pending"}
    ]


def test_bad_revision_exits_2(repo: Path) -> None:
    run = wfs("diff", "no-such-branch")
    assert (run.code, run.out) == (2, "")
    assert (
        run.err == "wfs: error: bad revision 'no-such-branch': no such commit in this repository\n"
    )
    assert wfs("diff", "--", "-x").code == 2
    assert wfs("diff", "main..nope").err == (
        "wfs: error: bad revision 'nope': no such commit in this repository\n"
    )


def test_outside_a_git_repository_exits_2(project: Path, git_env: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Review", "--empty")
    run = wfs("diff")
    assert (run.code, run.out) == (2, "")
    assert run.err == (
        f"wfs: error: not a git repository: {project} (wfs diff compares git revisions)\n"
    )


def test_malformed_json_in_the_tree_names_file_and_place(repo: Path) -> None:
    edit_task(repo, "IMPL-1", lambda task: task.update(status="active"))
    (repo / TASKS / "IMPL-2.json").write_text('{\n  "id": "IMPL-2",\n  oops\n}\n')
    run = wfs("diff")
    # The rest is shown, then the file is named with the git commands for it (exit 2,
    # as every read command that meets a task file it cannot read).
    assert run.code == 2
    assert "  ~ IMPL-1  " in run.out
    assert (
        "  ~ IMPL-2  Render output\n"
        "      its file cannot be read on one side: what changed is not shown\n"
    ) in run.out
    path = f"{TASKS.as_posix()}/IMPL-2.json"
    assert run.err == (
        f"wfs: error: {path}:3:3: invalid JSON: unexpected character, expected a string key\n"
        f"  see what changed: git diff -- {path}\n"
        f"  restore it as committed: git checkout -- {path}\n"
    )
    # Both commands work as printed.
    assert "+  oops" in git(repo, "diff", "--", path).stdout
    git(repo, "checkout", "--", path)
    assert wfs("diff").code == 0
    assert wfs("diff", "--json").json()["summary"]["tasks"]["changed"] == 1


def test_malformed_json_at_the_revision_names_revision_file_and_place(repo: Path) -> None:
    (repo / TASKS / "IMPL-2.json").write_text("[1, 2]\n")
    commit_all(repo, "broken")
    edit_task(repo, "IMPL-1", lambda task: task.update(status="active"))
    # Unchanged broken files are not parsed; a changed one is.
    assert wfs("diff").code == 0
    (repo / TASKS / "IMPL-2.json").write_text("{}\n")
    run = wfs("diff")
    assert run.code == 2
    assert "  ~ IMPL-1  " in run.out  # the rest is shown
    # A revision's file is what it is: no command restores it.
    assert run.err == (
        f"wfs: error: HEAD:{TASKS.as_posix()}/IMPL-2.json: expected a JSON object, got array\n"
    )
    assert wfs("diff", "--json").json()["unreadable"] == [
        f"HEAD:{TASKS.as_posix()}/IMPL-2.json: expected a JSON object, got array"
    ]


def test_a_subdirectory_root_reads_its_own_plan(
    tmp_path: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    project = repo / "sub"
    project.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    monkeypatch.chdir(project)
    wfs("init", "--no-git")
    wfs("plan", "Review", "--empty")
    wfs("task", "add", "--title", "One")
    commit_all(repo, "plan")
    wfs("task", "status", "IMPL-1", "completed")
    data = wfs("diff", "--json").json()
    assert data["summary"]["tasks"] == {"added": 0, "removed": 0, "changed": 1}


@pytest.mark.slow
def test_colors_follow_the_terminal_settings(repo: Path) -> None:
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    colored = CliRunner().invoke(cli, ["diff"], color=True)
    assert "\x1b[33m~\x1b[0m IMPL-1" in colored.stdout
    assert "\x1b[1mWFS-review\x1b[0m" in colored.stdout
    plain = CliRunner().invoke(cli, ["--no-color", "diff"], color=True)
    assert "\x1b[" not in plain.stdout
    no_color = CliRunner().invoke(cli, ["diff"], color=True, env={"NO_COLOR": "1"})
    assert "\x1b[" not in no_color.stdout
    assert plain.stdout == no_color.stdout == wfs("diff").out


@pytest.mark.slow
def test_one_git_process_reads_all_blobs_of_a_large_session(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    template = read_json(repo / TASKS / "IMPL-3.json")
    for n in range(4, 2004):
        task = {**template, "id": f"IMPL-{n}", "title": f"Task {n}"}
        (repo / TASKS / f"IMPL-{n}.json").write_text(json.dumps(task, indent=2) + "\n")
    commit_all(repo, "many tasks")
    for n in range(1000, 1010):
        edit_task(repo, f"IMPL-{n}", lambda task: task.update(status="completed"))
    calls: list[list[str]] = []
    real_run = subprocess.run

    def counting_run(command: list[str], **kwargs: Any) -> Any:
        calls.append(command)
        return real_run(command, **kwargs)

    monkeypatch.setattr(wfs_git.subprocess, "run", counting_run)
    data = wfs("diff", "--json").json()
    assert [t["id"] for t in data["sessions"][0]["tasks"]["changed"]] == [
        f"IMPL-{n}" for n in range(1000, 1010)
    ]
    verbs = [c[3] for c in calls]
    assert verbs == ["rev-parse", "rev-parse", "ls-tree", "cat-file"]


# --------------------------------------------------------------------------- the pieces


def test_json_paths_quote_keys_that_are_not_plain_words() -> None:
    assert json_path(("context", "requirements")) == "context.requirements"
    assert json_path(("context", "a.b", "x y")) == 'context["a.b"]["x y"]'


def test_field_changes_tell_true_from_1() -> None:
    assert field_changes({"a": 1}, {"a": True}) == [
        {"path": "a", "change": "changed", "old": 1, "new": True}
    ]
    assert field_changes({"a": {"b": 1}}, {"a": {"b": 1}}) == []


def test_steps_are_matched_by_name_then_by_position() -> None:
    old = [{"step": "a", "command": "x"}, {"step": "b"}, {"step": "c"}]
    new = [{"step": "c"}, {"step": "a", "command": "y"}, {"step": "b"}]
    assert step_changes("pre_analysis", old, new) == [
        {
            "list": "pre_analysis",
            "change": "changed",
            "index": 2,
            "name": "a",
            "fields": ["command"],
        },
        {"list": "pre_analysis", "change": "reordered", "order": ["c", "a", "b"]},
    ]
    # A renamed step at the same place is one change, not a removal and an addition.
    renamed = step_changes("implementation_approach", [step(1, "Old")], [step(1, "New")])
    assert renamed == [
        {
            "list": "implementation_approach",
            "change": "changed",
            "index": 1,
            "name": "New",
            "fields": ["title", "description", "output"],
        }
    ]


def test_a_repository_without_commits_says_so(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    assert wfs("init", "--no-git").code == 0
    run = wfs("diff")
    assert (run.code, run.err) == (
        2,
        "wfs: error: bad revision 'HEAD': the repository has no commits yet\n",
    )
