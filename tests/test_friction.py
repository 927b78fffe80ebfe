"""The friction a newcomer meets on the most common commands (issue 29, points 4 and 5):
global options after the subcommand, commands outside a project, plans that cannot go
on, what an agent command receives, `task show` for a person, and the `.active-*`
markers kept out of commits."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from conftest import wfs, wfs_process
from git_helpers import commit_all, git, git_env

from wfs.cli import cli

__all__ = ["git_env"]  # the fixture, used by name


def write_plan(path: Path, tasks: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps({"tasks": tasks}), encoding="utf-8")
    return path


def two_sessions(project: Path) -> None:
    """Sessions WFS-one (paused) and WFS-two (active), with different tasks."""
    assert wfs("init").code == 0
    plan = write_plan(project / "one.json", [{"id": "IMPL-1", "title": "First of one"}])
    assert wfs("plan", "one", "--from", str(plan)).code == 0
    plan = write_plan(project / "two.json", [{"id": "IMPL-1", "title": "First of two"}])
    assert wfs("plan", "two", "--from", str(plan)).code == 0


# ------------------------------------------------------ global options after the command


def all_commands() -> list[tuple[list[str], click.Command]]:
    """(path, command) of every command and nested subcommand, as `wfs` loads them."""
    found = []
    root_ctx = click.Context(cli, info_name="wfs")

    def walk(group: click.Group, ctx: click.Context, path: list[str]) -> None:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            found.append(([*path, name], command))
            if isinstance(command, click.Group):
                walk(command, click.Context(command, info_name=name, parent=ctx), [*path, name])

    walk(cli, root_ctx, [])
    return found


def test_every_command_lists_the_global_options_in_its_help() -> None:
    for path, _ in all_commands():
        shown = wfs(*path, "--help")
        assert shown.code == 0, path
        for option in ("--root DIR", "--session ID", "--json", "--no-color"):
            assert option in shown.out, (path, option)


def test_plan_keeps_its_own_session_option() -> None:
    commands = dict((" ".join(path), command) for path, command in all_commands())
    helps = [p.help for p in commands["plan"].params if "--session" in p.opts]
    assert helps == ["Add or replace tasks in this existing session instead."]


def test_session_after_the_subcommand_picks_the_session(project: Path) -> None:
    two_sessions(project)
    before = wfs("--session", "WFS-one", "status")
    after = wfs("status", "--session", "WFS-one")
    assert after.code == 0
    assert after.out == before.out
    assert after.out.startswith("Session:  WFS-one (paused)\n")
    listed = wfs("task", "list", "--session", "WFS-one")
    assert listed.out == "[ ] IMPL-1  First of one  pending\n"
    nested = wfs("task", "--session", "WFS-one", "list")
    assert nested.out == listed.out
    shown = wfs("task", "show", "IMPL-1", "--json", "--session", "WFS-one").json()
    assert shown["task"]["title"] == "First of one"


@pytest.mark.slow
def test_root_after_the_subcommand_names_the_project(project: Path, tmp_path: Path) -> None:
    two_sessions(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = wfs_process("task", "list", "--root", str(project), cwd=elsewhere)
    assert (run.code, run.out) == (0, "[ ] IMPL-1  First of two  pending\n")
    # The commands it prints keep that root, as with `wfs --root DIR`.
    data = wfs_process("next", "--json", "--root", str(project), cwd=elsewhere)
    before = wfs_process("--root", str(project), "next", "--json", cwd=elsewhere)
    assert data.out == before.out


@pytest.mark.slow
def test_no_color_after_the_subcommand_drops_the_colors(project: Path) -> None:
    two_sessions(project)
    assert "\x1b[" in wfs("status", color=True).out
    assert "\x1b[" not in wfs("status", "--no-color", color=True).out


def test_json_after_a_nested_subcommand(project: Path) -> None:
    two_sessions(project)
    rows = wfs("session", "list", "--json").json()
    assert [row["id"] for row in rows["sessions"]] == ["WFS-one", "WFS-two"]


# ----------------------------------------------------------------- outside a project

NO_PROJECT = "run `wfs init` to start one here (or give --root DIR)"


@pytest.mark.parametrize(
    "args",
    [
        ["status"],
        ["next"],
        ["doctor"],
        ["doctor", "--fix"],
        ["validate"],
        ["task", "list"],
        ["task", "show", "IMPL-1"],
        ["session", "list"],
        ["session", "show"],
        ["execute", "--dry-run"],
        ["render"],
        ["diff"],
        ["prime"],
        ["switch", "x"],
        ["migrate"],
    ],
)
def test_outside_a_project_a_command_that_reads_a_plan_says_so(
    project: Path, args: list[str]
) -> None:
    run = wfs(*args)
    assert run.code == 2
    assert run.out == ""
    assert (
        run.err
        == f"wfs: error: not in a wfs project: no .workflow/ in {project} or above; {NO_PROJECT}\n"
    )
    assert list(project.iterdir()) == []  # nothing was created


def test_a_root_without_a_project_is_named(project: Path, tmp_path: Path) -> None:
    run = wfs("status", env={"WFS_ROOT": str(tmp_path)})
    assert run.code == 2
    assert (
        run.err == f"wfs: error: not in a wfs project: no .workflow/ in {tmp_path}; {NO_PROJECT}\n"
    )


def test_outside_a_project_the_hook_still_prints_hook_json(project: Path) -> None:
    run = wfs("prime", "--hook-json")
    assert run.code == 0
    text = json.loads(run.out)["hookSpecificOutput"]["additionalContext"]
    assert text.startswith(
        f"wfs: not in a wfs project: no .workflow/ in {project} or above; {NO_PROJECT}\n"
        "Ground rules:\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["schema", "task"],
        ["agents", "list"],
        ["merge-json", "--help"],
        ["init"],
    ],
)
def test_outside_a_project_what_needs_none_works(project: Path, args: list[str]) -> None:
    run = wfs(*args)
    assert run.code == 0, run.err
    assert "not in a wfs project" not in run.err


def test_a_subfolder_of_a_project_is_in_the_project(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_sessions(project)
    sub = project / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    assert wfs("status").code == 0


# ------------------------------------------------------- no silent "nothing to do"


def stalled_project(project: Path) -> None:
    """IMPL-1 ready; IMPL-2 waits on IMPL-9, which no file defines; IMPL-3 on IMPL-2."""
    assert wfs("init").code == 0
    plan = write_plan(
        project / "plan.json",
        [
            {"id": "IMPL-1", "title": "Start"},
            {"id": "IMPL-2", "title": "Middle"},
            {"id": "IMPL-3", "title": "End", "context": {"depends_on": ["IMPL-2"]}},
        ],
    )
    assert wfs("plan", "stall", "--from", str(plan)).code == 0
    path = project / ".workflow" / "WFS-stall" / ".task" / "IMPL-2.json"
    task = json.loads(path.read_text(encoding="utf-8"))
    task["context"]["depends_on"] = ["IMPL-9"]
    path.write_text(json.dumps(task, indent=2) + "\n", encoding="utf-8")


STATUS_HEAD = "Session:  WFS-stall (active)\nTopic:    stall\n"


def test_status_names_a_task_waiting_on_a_missing_one(project: Path) -> None:
    stalled_project(project)
    run = wfs("status")
    assert run.code == 0  # IMPL-1 can still start
    assert run.out.endswith(
        "Ready:    IMPL-1\nBlocked:  -\nWaiting:  IMPL-2 waits on IMPL-9, which does not exist\n"
    )
    stuck = [{"id": "IMPL-2", "on": "IMPL-9", "problem": "missing"}]
    data = wfs("status", "--json").json()
    assert (data["stuck"], data["stalled"]) == (stuck, False)
    nxt = wfs("next")
    assert (nxt.code, nxt.out) == (
        0,
        "[ ] IMPL-1  Start  pending\nWaiting:  IMPL-2 waits on IMPL-9, which does not exist\n",
    )


@pytest.mark.slow
def test_when_nothing_can_start_status_and_next_say_so_and_exit_1(project: Path) -> None:
    stalled_project(project)
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    run = wfs("status")
    assert run.code == 1
    assert run.out.startswith(STATUS_HEAD)
    assert run.out.endswith(
        "Ready:    -\n"
        "Blocked:  -\n"
        "Waiting:  IMPL-2 waits on IMPL-9, which does not exist\n"
        "Nothing can start: tasks remain, but none is ready and none is in progress. `wfs validate` names the files and places to fix.\n"
    )
    nxt = wfs("next")
    assert (nxt.code, nxt.out) == (
        1,
        "No task is ready.\n"
        "Waiting:  IMPL-2 waits on IMPL-9, which does not exist\n"
        "Nothing can start: tasks remain, but none is ready and none is in progress. `wfs validate` names the files and places to fix.\n",
    )
    data = wfs("next", "--json")
    assert data.code == 1
    assert data.json()["stalled"] is True
    assert data.json()["stuck"] == [{"id": "IMPL-2", "on": "IMPL-9", "problem": "missing"}]
    # The same from a fresh process that reads the index written by the change.
    assert wfs_process("next", cwd=project).out == nxt.out
    # The command it names does name the file and the place.
    named = wfs("validate")
    assert named.code == 1
    assert (
        ".task/IMPL-2.json#/context/depends_on/0: depends-on: IMPL-2 depends on IMPL-9" in named.out
    )


def test_a_task_waiting_on_an_invalid_one_is_named_with_validates_reason(project: Path) -> None:
    assert wfs("init").code == 0
    plan = write_plan(
        project / "plan.json",
        [
            {"id": "IMPL-1", "title": "Start"},
            {"id": "IMPL-2", "title": "Next", "context": {"depends_on": ["IMPL-1"]}},
        ],
    )
    assert wfs("plan", "stall", "--from", str(plan)).code == 0
    path = project / ".workflow" / "WFS-stall" / ".task" / "IMPL-1.json"
    task = json.loads(path.read_text(encoding="utf-8"))
    task["context"]["focus_paths"] = ["src/*.py"]
    path.write_text(json.dumps(task, indent=2) + "\n", encoding="utf-8")
    reason = wfs("validate").out.strip()
    assert reason.startswith(".workflow/WFS-stall/.task/IMPL-1.json#/context/focus_paths/0:")
    run = wfs("status")
    assert run.code == 1
    assert run.out.endswith(
        "Invalid:  IMPL-1: 1 validation error; `wfs validate` names them\n"
        f"Waiting:  IMPL-2 waits on IMPL-1, which is invalid: {reason}\n"
        "Nothing can start: tasks remain, but none is ready and none is in progress. `wfs validate` names the files and places to fix.\n"
    )
    stuck = wfs("next", "--json").json()["stuck"]
    assert stuck == [{"id": "IMPL-2", "on": "IMPL-1", "problem": "invalid", "reason": reason}]


@pytest.mark.slow
def test_a_finished_or_running_plan_is_not_stalled(project: Path) -> None:
    stalled_project(project)
    assert wfs("task", "status", "IMPL-1", "active").code == 0
    assert wfs("status").code == 0  # IMPL-1 is in progress
    assert wfs("next").code == 0
    for tid in ("IMPL-1", "IMPL-2", "IMPL-3"):
        assert wfs("task", "status", tid, "completed").code == 0
    done = wfs("status", "--json")
    assert done.code == 0
    assert (done.json()["stuck"], done.json()["stalled"]) == ([], False)


# ------------------------------------------------------------------ task show, for a person

SHOWN_TASK = {
    "id": "IMPL-2",
    "title": "Add refresh tokens",
    "status": "pending",
    "meta": {"type": "feature", "agent": "@code-developer"},
    "context": {
        "requirements": ["Tokens refresh before they expire"],
        "focus_paths": ["src/auth", "tests/auth"],
        "acceptance": ["A token refreshes 5 minutes before expiry", "pytest -q tests/auth"],
        "depends_on": ["IMPL-1"],
    },
    "flow_control": {
        "pre_analysis": [
            {
                "step": "read_spec",
                "action": "Read the spec",
                "command": "Read(docs/auth.md)",
                "output_to": "spec",
            }
        ],
        "implementation_approach": [
            {
                "step": 1,
                "title": "Write the refresh",
                "description": "Add refresh() to src/auth/tokens.py\nfollowing [spec]",
                "modification_points": [],
                "logic_flow": [],
                "depends_on": [],
                "output": "code",
                "verification": "bash(pytest -q tests/auth/test_refresh.py)",
            },
            {
                "step": 2,
                "title": "Build",
                "description": "Build the package",
                "modification_points": [],
                "logic_flow": [],
                "depends_on": [1],
                "output": "build",
                "command": "bash(python -m build)",
            },
        ],
    },
    "convergence": {"verification": "bash(pytest -q)"},
}

SHOWN_TEXT = """\
IMPL-2  Add refresh tokens
Status:      pending, not ready
             waits on IMPL-1 (pending)
Type:        feature
Agent:       @code-developer
Depends on:  IMPL-1 (pending)
Focus paths: src/auth, tests/auth
Steps:
  1. read_spec  (pre_analysis/1)
       Read: docs/auth.md
  2. Write the refresh  (implementation_approach/1)
       agent: Add refresh() to src/auth/tokens.py …
       check: bash(pytest -q tests/auth/test_refresh.py) (must pass)
  3. Build  (implementation_approach/2)
       bash: python -m build
Checks:
  - bash: pytest -q (must pass)
  - cli: pytest -q tests/auth (must pass)
Acceptance:
  - A token refreshes 5 minutes before expiry
  - pytest -q tests/auth
"""


def shown_project(project: Path) -> None:
    assert wfs("init").code == 0
    first = {"id": "IMPL-1", "title": "Design the API"}
    plan = write_plan(project / "plan.json", [first, SHOWN_TASK])
    assert wfs("plan", "auth", "--from", str(plan)).code == 0


@pytest.mark.slow
def test_task_show_is_written_for_a_person(project: Path) -> None:
    shown_project(project)
    run = wfs("task", "show", "IMPL-2")
    assert (run.code, run.err) == (0, "")
    assert run.out == SHOWN_TEXT
    assert wfs_process("task", "show", "IMPL-2", cwd=project).out == SHOWN_TEXT


def test_task_show_json_is_the_task_as_before(project: Path) -> None:
    shown_project(project)
    written = json.loads(
        (project / ".workflow" / "WFS-auth" / ".task" / "IMPL-2.json").read_text(encoding="utf-8")
    )
    data = wfs("task", "show", "IMPL-2", "--json").json()
    assert data == {
        "session": "WFS-auth",
        "task": written,
        "status": "pending",
        "children": [],
        "ready": False,
        "waiting_on": ["IMPL-1"],
    }


def test_task_show_says_why_a_task_is_stopped(project: Path) -> None:
    shown_project(project)
    assert wfs("task", "status", "IMPL-1", "blocked").code == 0
    assert wfs("task", "show", "IMPL-1").out == (
        "IMPL-1  Design the API\n"
        "Status:      blocked\n"
        "             blocked: no reason recorded\n"
        "Type:        feature\n"
        "Agent:       @action-planning-agent\n"
        "Depends on:  -\n"
        "Steps:\n"
        "  1. Design the API  (task)\n"
        "       agent: Design the API\n"
    )
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    ready = wfs("task", "show", "IMPL-2").out.splitlines()
    assert ready[1] == "Status:      pending, ready: `wfs execute IMPL-2` runs it"
    assert ready[4] == "Depends on:  IMPL-1 (completed)"


def test_task_show_names_parent_and_subtasks(project: Path) -> None:
    shown_project(project)
    subtasks = project / "subtasks.json"
    subtasks.write_text(json.dumps([{"title": "Half"}, {"title": "Other half"}]), encoding="utf-8")
    assert wfs("task", "split", "IMPL-1", "--from", str(subtasks)).code == 0
    assert wfs("task", "status", "IMPL-1.1", "completed").code == 0
    container = wfs("task", "show", "IMPL-1").out.splitlines()
    assert container[1] == "Status:      pending (derived from its subtasks)"
    assert "Subtasks:    IMPL-1.1 (completed), IMPL-1.2 (pending)" in container
    child = wfs("task", "show", "IMPL-1.2").out.splitlines()
    assert "Parent:      IMPL-1" in child


def test_task_show_keeps_control_characters_out_of_the_terminal(project: Path) -> None:
    shown_project(project)
    assert wfs("task", "update", "IMPL-1", "--title", "Evil \x1b[31mred\x07").code == 0
    first = wfs("task", "show", "IMPL-1", color=True).out.splitlines()[0]
    assert first == "IMPL-1  Evil \\x1b[31mred\\x07"


# ------------------------------------------------------------------ .active-* markers


def markers_in(porcelain: str) -> list[str]:
    return [line for line in porcelain.splitlines() if ".active-" in line]


@pytest.mark.slow
def test_init_keeps_the_markers_out_of_commits(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    run = wfs("init")
    assert run.out.splitlines()[1] == (
        ".workflow/.gitignore: .active-* markers stay out of commits "
        "(which session is active is each person's own)"
    )
    gitignore = (project / ".workflow" / ".gitignore").read_text(encoding="utf-8")
    assert gitignore.splitlines()[-2:] == [
        "# Which session is active is each person's own (wfs switch):",
        ".active-*",
    ]
    for topic in ("one", "two"):
        plan = write_plan(project / f"{topic}.json", [{"id": "IMPL-1", "title": topic}])
        assert wfs("plan", topic, "--from", str(plan)).code == 0
    commit_all(project, "plan")
    assert git(project, "ls-files", ".workflow").stdout.count(".active-") == 0
    assert wfs("switch", "one").code == 0
    assert (project / ".workflow" / ".active-WFS-one").exists()
    assert markers_in(git(project, "status", "--porcelain").stdout) == []
    again = wfs("init", "--json").json()
    assert again["markers_ignored"] == "kept"


def test_an_older_gitignore_of_wfs_gets_the_rule_and_keeps_its_lines(
    project: Path, git_env: Path
) -> None:
    (project / ".workflow").mkdir()
    old = "# Written by `wfs init`: local run state, never committed.\n.locks/\n.runs/\nmine/\n"
    (project / ".workflow" / ".gitignore").write_text(old, encoding="utf-8")
    assert wfs("init", "--no-git", "--json").json()["markers_ignored"] == "added"
    text = (project / ".workflow" / ".gitignore").read_text(encoding="utf-8")
    assert text.startswith(old)
    assert text.endswith("\n.active-*\n")


@pytest.mark.slow
def test_a_project_that_commits_its_markers_keeps_working(project: Path, git_env: Path) -> None:
    git(project, "init", "-q", "-b", "main")
    for topic in ("one", "two"):
        plan = write_plan(project / f"{topic}.json", [{"id": "IMPL-1", "title": topic}])
        # --here: as a project made before `wfs init` was asked for
        assert wfs("plan", topic, "--from", str(plan), "--here").code == 0
    (project / ".workflow" / ".gitignore").unlink()  # as written before the rule
    git(project, "add", "-A")
    git(project, "add", "-f", ".workflow/.active-WFS-two")
    git(project, "commit", "-q", "-m", "plan with its marker")
    assert wfs("init").code == 0
    commit_all(project, "init")
    # The tracked marker stays tracked; switching still works both ways.
    assert ".workflow/.active-WFS-two" in git(project, "ls-files", ".workflow").stdout
    assert wfs("switch", "one").code == 0
    assert markers_in(git(project, "status", "--porcelain").stdout) == [
        " D .workflow/.active-WFS-two"
    ]
    assert wfs("status", "--json").json()["session"] == "WFS-one"
    assert wfs("switch", "two").code == 0
    assert markers_in(git(project, "status", "--porcelain").stdout) == []
    assert wfs("status", "--json").json()["session"] == "WFS-two"


# ----------------------------------------------------------- what an agent command receives

FORMATS = Path(__file__).resolve().parent.parent / "docs" / "formats.md"


def documented_brief() -> tuple[str, str]:
    """The plan and the brief of docs/formats.md's "What an agent command receives"."""
    text = FORMATS.read_text(encoding="utf-8")
    section = text[text.index("## What an agent command receives") :]
    plan = section[section.index("```json\n") + 8 :]
    brief = section[section.index("````markdown\n") + 13 :]
    return plan[: plan.index("```")], brief[: brief.index("````")]


def recording_agent(tmp_path: Path) -> Path:
    agent = tmp_path / "agent.sh"
    agent.write_text(f"#!/bin/sh\ncat > '{tmp_path / 'brief.in'}'\necho Wrote greet.sh.\n")
    agent.chmod(0o755)
    return agent


def run_documented_plan(project: Path, tmp_path: Path, **env: str) -> str:
    assert wfs("init", "--no-git").code == 0
    plan, _ = documented_brief()
    assert wfs("plan", "Greeter", "--from", "-", input=plan).code == 0
    agent = recording_agent(tmp_path)
    run = wfs_process("execute", "--all", "--agent", str(agent), cwd=project, env=env)
    assert run.code == 0, run.err
    return (tmp_path / "brief.in").read_text(encoding="utf-8")


@pytest.mark.slow
def test_an_agent_command_gets_the_markdown_brief_the_docs_show(
    project: Path, tmp_path: Path
) -> None:
    got = run_documented_plan(project, tmp_path)
    _, shown = documented_brief()
    head, tail = shown.split(" …\n")
    got = got.replace(got[got.index("| implementation_approach/1 | Read") :].split("\n")[0],
                      "| implementation_approach/1 | Read the greeting | done | 0.00s |")  # fmt: skip
    assert got.startswith(head)
    assert got.endswith(tail)


@pytest.mark.slow
def test_json_briefs_when_the_environment_or_the_config_asks(project: Path, tmp_path: Path) -> None:
    brief = json.loads(run_documented_plan(project, tmp_path, WFS_AGENT_INPUT="json"))
    assert brief["task"]["id"] == "IMPL-2"
    assert brief["dependencies"][0]["task"] == "IMPL-1"
    config = project / ".workflow" / "config.json"
    config.write_text('{"agent_input": "json"}', encoding="utf-8")
    assert wfs("task", "status", "IMPL-2", "pending").code == 0
    agent = recording_agent(tmp_path)
    assert wfs_process("execute", "--agent", str(agent), cwd=project).code == 0
    assert json.loads((tmp_path / "brief.in").read_text())["task"]["id"] == "IMPL-2"
    # The environment wins over the config.
    assert wfs("task", "status", "IMPL-2", "pending").code == 0
    env = {"WFS_AGENT_INPUT": "markdown"}
    assert wfs_process("execute", "--agent", str(agent), cwd=project, env=env).code == 0
    assert (tmp_path / "brief.in").read_text().startswith("# IMPL-2: Write greet.sh\n")


def test_a_bad_agent_input_names_where_it_came_from(project: Path, tmp_path: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    plan, _ = documented_brief()
    assert wfs("plan", "Greeter", "--from", "-", input=plan).code == 0
    agent = recording_agent(tmp_path)
    run = wfs("execute", "--agent", str(agent), env={"WFS_AGENT_INPUT": "xml"})
    assert (run.code, run.err) == (
        2,
        'wfs: error: WFS_AGENT_INPUT: expected "markdown" or "json" (what an agent '
        "command gets on stdin), got 'xml'\n",
    )
    (project / ".workflow" / "config.json").write_text('{"agent_input": 1}', encoding="utf-8")
    run = wfs("execute", "--agent", str(agent))
    assert (run.code, run.err) == (
        2,
        'wfs: error: .workflow/config.json#/agent_input: expected "markdown" or "json" '
        "(what an agent command gets on stdin), got 1\n",
    )
    assert not (tmp_path / "brief.in").exists()
