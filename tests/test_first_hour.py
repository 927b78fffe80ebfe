"""The first hour, round 2 (issue 45): each hint works as printed, typed as a user types
it. Every command here runs through bash, with the `wfs` of this interpreter on PATH,
and every command a message names is run as printed."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, Run
from git_helpers import git_env
from runnable_docs import BIN

# A planning agent answering answer-1, answer-2, ... in turn (the last one again when
# it runs out).
__all__ = ["git_env"]  # the fixture, used by name

PLANNER = """#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
n=$(( $(ls "$here" | grep -c '^brief-') + 1 ))
cat > "$here/brief-$n.md"
answer="$here/answer-$n"
[ -f "$answer" ] || answer="$(ls "$here"/answer-* | sort -V | tail -n 1)"
cat "$answer"
"""
INVALID = {"tasks": [{"id": "IMPL-1", "title": "Shout", "context": {"depends_on": ["IMPL-9"]}}]}
VALID = {"tasks": [{"id": "IMPL-1", "title": "Shout"}]}


def typed(line: str, cwd: Path, stdin: str | None = None) -> Run:
    """`line` run by bash in `cwd`, as a user types it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFS_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("NO_COLOR", None)
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", line],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def printed_after(text: str, lead: str) -> str:
    """The command printed on the line after `lead` (indented by two spaces)."""
    lines = text.splitlines()
    return lines[lines.index(lead) + 1].strip()


def planner(folder: Path, *answers: object) -> Path:
    folder.mkdir(parents=True)
    script = folder / "planner.sh"
    script.write_text(PLANNER)
    script.chmod(0o755)
    for n, answer in enumerate(answers, start=1):
        (folder / f"answer-{n}").write_text(f"```json\n{json.dumps(answer)}\n```\n")
    return script


# ------------------------------------------------ 2: plan's ways on keep every option


@pytest.mark.slow
def test_plans_printed_retry_keeps_the_agent_and_every_option(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert typed("wfs init --no-git && wfs plan 'shout flag' --empty", project).code == 0
    agent = planner(tmp_path / "agent", INVALID, INVALID, VALID)
    root = shlex.quote(str(project))
    run = typed(
        f"wfs --root {root} plan 'shout flag' --agent {agent} --type medium --new --max-rounds 1",
        elsewhere,
    )
    assert run.code == 1
    retry = printed_after(run.err, "Or ask the agent again, with more rounds:")
    assert retry == (
        f"wfs --root {root} plan 'shout flag' --type medium --new --agent {agent} --max-rounds 2"
    )
    # As printed, from where it was printed: the agent answers twice more, validly the
    # second time, and the plan is a second session of the topic, of the type given.
    again = typed(retry, elsewhere)
    assert (again.code, again.out) == (0, "WFS-shout-flag-002\n")
    session = json.loads(
        (project / ".workflow/WFS-shout-flag-002/workflow-session.json").read_text()
    )
    assert session["type"] == "medium"
    # The kept draft's command, once the draft is fixed, as printed too.
    fix = printed_after(
        run.err, "The last answer is kept in .workflow/.cache/plan-draft.json: fix it, then run"
    )
    assert fix == (
        f"wfs --root {root} plan 'shout flag' --type medium --new --from "
        ".workflow/.cache/plan-draft.json"
    )
    (project / ".workflow/.cache/plan-draft.json").write_text(json.dumps(VALID))
    fixed = typed(fix, project)
    assert (fixed.code, fixed.out) == (0, "WFS-shout-flag-003\n")


@pytest.mark.slow
def test_task_expands_printed_retry_keeps_the_agent_and_the_session(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    plan = project / "plan.json"
    plan.write_text(json.dumps({"tasks": [{"id": "IMPL-1", "title": "Checkout"}]}))
    assert typed("wfs init --no-git && wfs plan Shop --from plan.json", project).code == 0
    assert typed("wfs plan Other --empty", project).code == 0  # Shop is paused now
    wrong = [{"id": "IMPL-2.1", "title": "Cart"}]
    right = [{"title": "Cart"}, {"title": "Pay"}]
    agent = planner(tmp_path / "agent", wrong, wrong, right)
    run = typed(f"wfs task expand IMPL-1 --session shop --agent {agent} --max-rounds 1", project)
    assert run.code == 1
    retry = printed_after(run.err, "Or ask the agent again, with more rounds:")
    assert retry == f"wfs --session shop task expand IMPL-1 --agent {agent} --max-rounds 2"
    again = typed(retry, project)
    assert (again.code, again.out) == (0, "IMPL-1.1\nIMPL-1.2\n")


# ------------------------------------------------ 8: a first hand-made task


@pytest.mark.slow
def test_task_add_without_a_session_points_to_plan_empty(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    assert typed("wfs init --no-git", project).code == 0
    refused = typed('wfs task add --title "Shout"', project)
    assert refused.code == 2
    assert refused.err == (
        "wfs: error: no session yet: `wfs plan TOPIC --empty` starts one with no tasks "
        "(then `wfs task add`); `wfs plan --help` shows the other ways to plan\n"
    )
    started = typed("wfs plan Greeter --empty", project)  # as printed, with a topic
    assert (started.code, started.out) == (0, "WFS-greeter\n")
    added = typed('wfs task add --title "Shout"', project)
    assert (added.code, added.out) == (0, "IMPL-1\n")
    assert typed("wfs plan --help", project).code == 0


# ------------------------------------------------ 9: no session chosen in a fresh clone


def clone_of(origin: Path, where: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(origin), str(where)], check=True)
    return where


@pytest.mark.slow
def test_a_fresh_clone_uses_its_only_unfinished_session_and_says_so(
    tmp_path: Path, git_env: Path
) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    (origin / "plan.json").write_text(json.dumps(VALID))
    setup = "git init -q && wfs init && wfs plan Greeter --from plan.json"
    assert typed(f"{setup} && git add -A && git commit -qm plan", origin).code == 0
    clone = clone_of(origin, tmp_path / "clone")
    told = (
        "wfs: no session is active here; using WFS-greeter, the only unfinished one "
        "(`wfs switch WFS-greeter` makes it your active session)\n"
    )
    status = typed("wfs status", clone)
    assert status.code == 0
    assert status.out.startswith("Session:  WFS-greeter (active)\n")
    assert status.err == told
    listed = typed("wfs --json task list", clone)  # stdout is the JSON alone
    assert json.loads(listed.out)["tasks"][0]["id"] == "IMPL-1"
    assert listed.err == told
    assert not list((clone / ".workflow").glob(".active-*"))  # a read marks nothing
    # The command it names makes the choice one's own: then nothing more is said.
    assert typed("wfs switch WFS-greeter", clone).code == 0
    assert [p.name for p in (clone / ".workflow").glob(".active-*")] == [".active-WFS-greeter"]
    assert typed("wfs status", clone).err == ""


@pytest.mark.slow
def test_with_several_unfinished_sessions_the_message_lists_them(
    tmp_path: Path, git_env: Path
) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    steps = "git init -q && wfs init && wfs plan Greeter --empty && wfs plan 'Shout flag' --empty"
    assert typed(f"{steps} && git add -A && git commit -qm plans", origin).code == 0
    clone = clone_of(origin, tmp_path / "clone")
    refused = typed("wfs task list", clone)
    assert refused.code == 2
    assert refused.err == (
        "wfs: error: no session is active here, and 2 are unfinished:\n"
        "  - WFS-greeter (paused): Greeter\n"
        "  - WFS-shout-flag: Shout flag\n"
        "pick yours with `wfs switch ID`, or name one with --session ID\n"
    )
    status = typed("wfs status", clone)
    assert (status.code, status.out) == (0, refused.err.replace("wfs: error: n", "N"))
    assert json.loads(typed("wfs --json status", clone).out) == {
        "session": None,
        "unfinished": ["WFS-greeter", "WFS-shout-flag"],
    }
    assert typed("wfs switch WFS-shout-flag", clone).code == 0  # as printed, an ID listed
    assert typed("wfs task list --session WFS-greeter", clone).code == 0
    assert typed("wfs task list", clone).out == "No matching tasks.\n"


# ------------------------------------------------ 10: the smaller ones


@pytest.mark.slow
def test_a_top_level_typo_gets_a_suggestion(tmp_path: Path) -> None:
    run = typed("wfs stauts", tmp_path)
    assert run.code == 2
    assert run.err.endswith("Error: No such command 'stauts'. Did you mean 'status' or 'task'?\n")
    assert typed("wfs status --help", tmp_path).code == 0
    nothing_close = typed("wfs frobnicate", tmp_path)
    assert nothing_close.err.endswith("Error: No such command 'frobnicate'.\n")


# ------------------------------------------------ 7: a task file with a syntax error

THREE = {
    "tasks": [
        {"id": "IMPL-1", "title": "One"},
        {"id": "IMPL-2", "title": "Two"},
        {"id": "IMPL-3", "title": "Three", "depends_on": ["IMPL-1"]},
    ]
}


@pytest.mark.slow
def test_every_read_command_shows_the_rest_and_names_the_broken_file(
    tmp_path: Path, git_env: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "plan.json").write_text(json.dumps(THREE))
    start = "git init -q && wfs init && wfs plan Broken --from plan.json"
    assert typed(f"{start} && git add -A && git commit -qm plan", project).code == 0
    path = ".workflow/WFS-broken/.task/IMPL-2.json"
    assert (
        typed(f'sed -i.bak \'s/"title"/"title" oops/\' {path} && rm {path}.bak', project).code == 0
    )
    told = (
        f"wfs: error: {path}:3:11: invalid JSON: unexpected character, expected ':' after key\n"
        f"  see what changed: git diff -- {path}\n"
        f"  restore it as committed: git checkout -- {path}\n"
    )
    shown = {
        "wfs status": "Ready:    IMPL-1\n",
        "wfs next": "[ ] IMPL-1  One  pending\n",
        "wfs task list": "[ ] IMPL-3  Three  pending  (after IMPL-1)\n",
        "wfs task show IMPL-3": "Depends on:  IMPL-1 (pending)\n",
        "wfs task show IMPL-2": "Steps:       cannot be run as written: its file cannot be read\n",
        "wfs diff": "  ~ IMPL-2  Two\n",
        "wfs board --export board.html": "Wrote board.html\n",
        "wfs render --check": "",
    }
    for command, line in shown.items():
        run = typed(command, project)
        assert (command, run.code, run.err) == (command, 2, told)
        assert line in run.out, command
    page = (project / "board.html").read_text()
    assert "Three" in page  # the export shows the rest, as the live board does
    # The commands it names, as printed.
    assert '+  "title" oops: "Two",' in typed(f"git diff -- {path}", project).out
    assert typed(f"git checkout -- {path}", project).code == 0
    for command in shown:
        assert typed(command, project).code == 0, command


# ------------------------------------------------ 5: briefs without the boilerplate

KB = 1024
ROLES = ("code-developer", "test-fix-agent", "universal-executor", "action-planning-agent")
ROLES += ("conceptual-planning-agent",)


def small_repository(project: Path) -> None:
    """A small project: a script, its test and a README, committed."""
    (project / "README.md").write_text("# greeter\n\nRun `./greet.sh NAME` to be greeted.\n")
    (project / "greet.sh").write_text('#!/bin/sh\necho "Hello, $1!"\n')
    (project / "test_greet.sh").write_text('#!/bin/sh\n[ "$(./greet.sh Ada)" = "Hello, Ada!" ]\n')
    steps = "git init -q && wfs init && git add -A && git commit -qm start"
    assert typed(steps, project).code == 0


@pytest.mark.slow
def test_the_planning_brief_and_each_fix_round_stay_under_20_kb(
    tmp_path: Path, git_env: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    small_repository(project)
    brief = typed("wfs plan 'shout flag' --dry-run", project)
    assert brief.code == 0
    assert len(brief.out.encode()) < 20 * KB
    # A summary of the format and the command that prints the whole of it, as printed.
    assert "## The task format\n" in brief.out
    assert "`wfs schema task` prints\nthe task's" in brief.out
    schema = typed("wfs schema task", project)
    assert schema.out == (REPO / "schemas/task.schema.json").read_text()
    assert '"$defs"' not in brief.out  # nothing of the schema itself
    # Three rounds: two refused answers the size of the example plan, then a valid one.
    example = json.loads((REPO / "schemas/plan.example.json").read_text())
    refused = {**example, "tasks": [*example["tasks"], INVALID["tasks"][0] | {"id": "IMPL-9"}]}
    agent = planner(tmp_path / "agent", refused, refused, example)
    assert typed(f"wfs plan 'shout flag' --agent {agent}", project).code == 0
    rounds = sorted((tmp_path / "agent").glob("brief-*.md"))
    assert len(rounds) == 3
    for number, sent in enumerate(rounds, start=1):
        assert len(sent.read_bytes()) < 20 * KB, (number, len(sent.read_bytes()))
    assert rounds[1].read_text().startswith("# Fix the plan (round 2 of 3)\n")


@pytest.mark.slow
def test_a_one_line_steps_brief_is_under_6_kb_and_its_role_is_the_work_alone(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    keep = tmp_path / "brief.md"
    agent = tmp_path / "agent.sh"
    agent.write_text(f"#!/bin/sh\ncat > {shlex.quote(str(keep))}\necho done\n")
    agent.chmod(0o755)
    start = "wfs init --no-git && wfs plan Greeter --empty"
    assert (
        typed(f"{start} && wfs task add --title 'Add a --shout flag to greet.sh'", project).code
        == 0
    )
    run = typed(f"wfs execute --agent {agent}", project)
    assert run.code == 0, run.err
    brief = keep.read_text()
    assert len(brief.encode()) < 6 * KB, len(brief.encode())
    assert "## Your role: @code-developer\n\nYou implement: " in brief
    # The one rule an agent started this way needs, and nothing for editors.
    assert "print it\nthere and nothing else" in brief
    for editors_only in ("## What you receive", "here-document", "WFS_AGENT_INPUT", "/wfs:"):
        assert editors_only not in brief, editors_only


@pytest.mark.parametrize("role", ROLES)
def test_every_role_in_a_brief_is_about_the_work(role: str) -> None:
    from wfs.flow.brief import agent_definition

    text = agent_definition(f"@{role}")
    assert text is not None
    assert len(text.encode()) < 2 * KB
    for editors_only in ("What you receive", "here-document", "```json", "Ground rules", "{{"):
        assert editors_only not in text, (role, editors_only)
    assert agent_definition("@../roles/code-developer") is None


@pytest.mark.slow
def test_completion_is_found_from_help_and_works_as_printed(tmp_path: Path) -> None:
    shown = typed("wfs --help", tmp_path).out
    line = next(text for text in shown.splitlines() if "bash_source" in text)
    setup = line.split("~/.bashrc:", 1)[1].strip()
    assert setup == 'eval "$(_WFS_COMPLETE=bash_source wfs)"'
    assert 'eval "$(_WFS_COMPLETE=zsh_source wfs)"' in shown
    assert "_WFS_COMPLETE=fish_source wfs > ~/.config/fish/completions/wfs.fish" in shown
    # The bash line, as printed, gives `wfs` its completion: `wfs sta<TAB>` offers status.
    offered = typed(
        f"{setup} && COMP_WORDS=(wfs sta) && COMP_CWORD=1 && _wfs_completion wfs && "
        'printf "%s\\n" "${COMPREPLY[@]}"',
        tmp_path,
    )
    assert (offered.code, offered.out) == (0, "status\n"), offered.err


@pytest.mark.slow
def test_task_ids_are_taken_as_typed_loosely_when_unambiguous(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "plan.json").write_text(json.dumps(THREE))
    assert typed("wfs init --no-git && wfs plan Loose --from plan.json", project).code == 0
    for typed_id in ("IMPL-2", "impl-2", "2", "IMPL-002"):
        shown = typed(f"wfs task show {typed_id}", project)
        assert (shown.code, shown.out.splitlines()[0]) == (0, "IMPL-2  Two"), typed_id
    assert typed("wfs task status impl-1 completed", project).out == "IMPL-1: completed\n"
    ran = typed("wfs execute --dry-run 3", project)
    assert ran.out.startswith("IMPL-3: Three (dry run, nothing is executed)\n")
    unknown = typed("wfs task show 7", project)
    assert (
        unknown.err == "wfs: error: unknown task 'IMPL-7'; did you mean IMPL-3, IMPL-2, IMPL-1?\n"
    )
    # Two files for one number: the id must be typed as the file names it.
    task_dir = project / ".workflow/WFS-loose/.task"
    (task_dir / "IMPL-002.json").write_text((task_dir / "IMPL-2.json").read_text())
    both = typed("wfs task show 2", project)
    assert (both.code, both.err) == (
        2,
        "wfs: error: task '2' could be IMPL-002 or IMPL-2: give the one you mean\n",
    )
    assert typed("wfs task show IMPL-2", project).out.startswith("IMPL-2  Two\n")


@pytest.mark.slow
def test_status_shows_a_running_task_in_a_persons_terms(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    go = tmp_path / "go"
    slow = {
        "tasks": [
            {
                "id": "IMPL-1",
                "title": "Slow",
                "flow_control": {
                    "implementation_approach": [
                        {
                            "title": "Wait for the signal",
                            "command": f"bash(until [ -f {go} ]; do sleep 0.1; done)",
                        }
                    ]
                },
            }
        ]
    }
    (project / "plan.json").write_text(json.dumps(slow))
    assert typed("wfs init --no-git && wfs plan Slow --from plan.json", project).code == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFS_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    run = subprocess.Popen(
        ["wfs", "execute"], cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        line = ""
        for _ in range(300):  # each poll a status run; the step waits for `go`
            lines = typed("wfs status", project).out.splitlines()
            line = next((text for text in lines if text.startswith("Running:")), "")
            if "Wait for the signal" in line:
                break
        assert re.fullmatch(
            rf'Running:  IMPL-1: step "Wait for the signal", for \d+s, by process {run.pid} '
            rf"on this machine, in {re.escape(str(project.resolve()))}",
            line,
        ), line
    finally:
        go.touch()
        run.communicate(timeout=120)
    assert run.returncode == 0


@pytest.mark.slow
def test_dry_run_warns_of_a_program_missing_from_path(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    steps = [
        {"title": "Test", "command": "bash(no-such-test-runner -q tests && echo done)"},
        {"title": "Review", "description": "Review the change"},
    ]
    plan = {
        "tasks": [
            {"id": "IMPL-1", "title": "Check", "flow_control": {"implementation_approach": steps}}
        ]
    }
    (project / "plan.json").write_text(json.dumps(plan))
    assert typed("wfs init --no-git && wfs plan Check --from plan.json", project).code == 0
    shown = typed("wfs execute --dry-run --agent 'no-such-agent -p'", project)
    assert shown.code == 0
    assert (
        "      ! no-such-test-runner is not on PATH: this command fails unless an earlier step "
        "installs it\n"
    ) in shown.out
    assert (
        "      ! no-such-agent is not on PATH: the agent `no-such-agent -p` cannot start\n"
        in shown.out
    )
    assert "echo" not in shown.out.split("! ", 1)[1]  # a builtin is not a program


@pytest.mark.slow
def test_no_agent_messages_point_to_nothing_a_pipx_install_lacks(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    plan = {"tasks": [{"id": "IMPL-1", "title": "Think"}]}
    (project / "plan.json").write_text(json.dumps(plan))
    assert typed("wfs init --no-git && wfs plan Think --from plan.json", project).code == 0
    paused = typed("wfs execute", project)
    assert paused.code == 3
    planning = typed("wfs plan Other", project)
    assert planning.code == 2
    for said in (paused.out, planning.err):
        assert "docs/" not in said and ".md" not in said
        assert 'such as "claude -p"' in said


@pytest.mark.slow
def test_with_every_session_completed_the_message_names_both_ways_on(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    steps = "wfs init --no-git && wfs plan Greeter --empty && wfs session complete"
    assert typed(steps, project).code == 0  # completing it removes its marker
    refused = typed("wfs task list", project)
    assert (refused.code, refused.err) == (
        2,
        "wfs: error: no session is active here, and every session is completed: `wfs plan "
        "TOPIC --empty` starts one with no tasks (then `wfs task add`), or `wfs switch ID` "
        "goes back to one\n",
    )
    assert typed("wfs switch WFS-greeter", project).code == 0  # as printed, with an ID
    assert typed("wfs task list", project).out == "No matching tasks.\n"


@pytest.mark.slow
def test_the_git_commands_for_a_broken_file_work_from_where_they_are_printed(
    tmp_path: Path, git_env: Path
) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "plan.json").write_text(json.dumps(THREE))
    start = "git init -q && wfs init && wfs plan Broken --from plan.json"
    assert typed(f"{start} && git add -A && git commit -qm plan", project).code == 0
    task = project / ".workflow/WFS-broken/.task/IMPL-2.json"
    committed = task.read_text()
    root = shlex.quote(str(project))
    for where, line in ((project / "src", "wfs status"), (tmp_path, f"wfs --root {root} status")):
        task.write_text("{oops\n")
        refused = typed(line, where)
        assert refused.code == 2
        see = printed_after(refused.err, refused.err.splitlines()[0])
        restore = refused.err.splitlines()[2].strip()
        assert see.startswith("see what changed: git ")
        assert restore.startswith("restore it as committed: git ")
        assert "-{" in typed(see.split(": ", 1)[1], where).out  # the change, as git shows it
        assert typed(restore.split(": ", 1)[1], where).code == 0
        assert task.read_text() == committed
