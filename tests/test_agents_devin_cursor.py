"""`wfs agents install --target devin` (Devin Local and Devin CLI; `windsurf` is its other
name) and `--target cursor`: the files, as each program's documentation spells them.

Neither program is on npm, so no test runs them: the files are checked against their
documentation (docs.devin.ai/cli/extensibility, docs.devin.ai/cli/subagents,
docs.devin.ai/cli/reference/permissions; cursor.com/docs/agent/hooks,
cursor.com/docs/agent/subagents, cursor.com/docs/cli/reference/permissions), and the hook
commands are run to check what they print.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import tree_listing, wfs
from test_agents import (
    AGENTS,
    COMMANDS,
    agent_path,
    command_path,
    expected_files,
    install,
    parse,
    prompt_text,
    split_frontmatter,
)

# Devin's project hooks file is the hooks object itself, in Claude Code's format.
DEVIN_HOOKS = {
    "SessionStart": [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": "wfs prime --hook-json --editor devin",
                    "timeout": 30,  # seconds
                }
            ]
        }
    ]
}
# `Exec(prefix)` allows every command starting with it.
DEVIN_CONFIG = {"permissions": {"allow": ["Exec(wfs)"]}}
# Cursor's hooks file has a version, and flat entries under camelCase events.
CURSOR_HOOKS = {
    "version": 1,
    "hooks": {
        "sessionStart": [{"command": "wfs prime --hook-json --editor cursor", "timeout": 30}]
    },
}
# The Cursor CLI's project config holds only permissions; `Shell(base)` allows a command.
CURSOR_CLI = {"permissions": {"allow": ["Shell(wfs)"]}}


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def pretty(data: Any, indent: int = 2) -> str:
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"


def one_line(text: str) -> str:
    """`text` with its line breaks and indentation folded into single spaces."""
    return " ".join(text.split())


# ---------------------------------------------------------------- Devin


def test_devin_gets_skills_subagents_a_rule_a_hook_and_a_permission(project: Path) -> None:
    data = install(project, "devin")
    assert data["target"] == "devin"
    assert [row["path"] for row in data["files"]] == [
        *sorted(
            [f".devin/agents/{name}/AGENT.md" for name in AGENTS]
            + [".devin/rules/wfs.md"]
            + [f".devin/skills/wfs-{name}/SKILL.md" for name in COMMANDS]
            + [f".windsurf/skills/{name}/SKILL.md" for name in AGENTS]
        ),
        ".devin/config.json",
        ".devin/hooks.v1.json",
    ]
    assert read(project / ".devin/hooks.v1.json") == DEVIN_HOOKS
    assert read(project / ".devin/config.json") == DEVIN_CONFIG
    for name in COMMANDS:
        # A skill is invoked as /<its folder>: its name is the folder's.
        meta, body = parse(project / f".devin/skills/wfs-{name}/SKILL.md")
        assert meta["name"] == f"wfs-{name}"
        assert set(meta) == {"name", "description", "argument-hint"}
        assert f"`/wfs-{name}`" in body  # the arguments stay in the user's message
    for name in AGENTS:
        # A custom subagent's profile is its folder's name.
        meta, body = parse(project / f".devin/agents/{name}/AGENT.md")
        assert meta == {"name": name, "description": meta["description"]}
        assert body.lstrip().startswith(f"# @{name}\n")
        # The copy an earlier Windsurf read as a skill says the same.
        assert parse(project / f".windsurf/skills/{name}/SKILL.md") == (meta, body)


def test_devins_rule_is_always_on_and_names_the_commands_and_agents(project: Path) -> None:
    install(project, "devin")
    meta, body = split_frontmatter((project / ".devin/rules/wfs.md").read_text())
    assert meta == {"trigger": "always_on"}
    assert len(body) < 12_000  # Devin Desktop's limit for a rule
    for name in COMMANDS:
        assert f"- `/wfs-{name}`: " in body
    assert "`.devin/agents/<name>/AGENT.md`" in body
    assert "Devin gets a digest of the active session\nat the start of each session" in body
    # AGENTS.md is the agents-md target's: Devin's instructions are a file of their own.
    assert not (project / "AGENTS.md").exists()


@pytest.mark.slow
def test_windsurf_is_devins_other_name(project: Path) -> None:
    run = wfs("agents", "install", "--target", "windsurf", "--json")
    assert run.code == 0, run.err
    assert run.json()["target"] == "devin"
    assert [row["path"] for row in run.json()["files"]] == expected_files("devin")
    check = wfs("agents", "install", "--check", "--target", "windsurf")
    assert (check.code, check.out) == (
        0,
        f"devin: {len(expected_files('devin'))} files installed and up to date\n",
    )
    listed = wfs("agents", "list", "--target", "windsurf", "--json").json()["files"]
    assert {(row["target"], row["state"]) for row in listed} == {("devin", "installed")}
    removed = wfs("agents", "install", "--target", "windsurf", "--remove")
    assert removed.code == 0, removed.err
    assert tree_listing(project) == []


@pytest.mark.slow
def test_the_workflows_of_an_earlier_install_are_left_alone(project: Path) -> None:
    """Devin Local reads no .windsurf/workflows: the docs say they can go; wfs leaves
    them to the user, and the agent skills an earlier install wrote are still wfs's."""
    old = project / ".windsurf/workflows/wfs-plan.md"
    old.parent.mkdir(parents=True)
    old.write_text("---\ndescription: Plan a wfs session\n---\n\n# Plan\n")
    install(project, "devin")
    assert old.read_text() == "---\ndescription: Plan a wfs session\n---\n\n# Plan\n"
    assert wfs("agents", "install", "--target", "devin", "--remove").code == 0
    assert tree_listing(project) == [
        ".windsurf",
        ".windsurf/workflows",
        ".windsurf/workflows/wfs-plan.md",
    ]


def test_devins_hook_prints_the_envelope_devin_reads(project: Path) -> None:
    install(project, "devin")
    assert wfs("init", "--no-git").code == 0
    (hook,) = read(project / ".devin/hooks.v1.json")["SessionStart"][0]["hooks"]
    run = wfs(*hook["command"].split()[1:])
    assert run.code == 0, run.err
    assert json.loads(run.out) == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": wfs("prime").out,
        }
    }


def test_devins_execute_hands_each_step_to_a_foreground_subagent(project: Path) -> None:
    install(project, "devin")
    body = one_line(prompt_text(project / command_path("devin", "execute")))
    assert (
        "Hand the step to the custom subagent of that name with the **run_subagent** tool: "
        "`profile` is the name without the `@` (`code-developer`), `task` is the whole "
        "brief, as `wfs` printed it, `title` a few words (`IMPL-2 step 1`), and "
        "`is_background` is `false`. The step must run in the foreground: wait for the "
        "subagent to finish before anything else"
    ) in body
    assert "Its report is that final message, as `run_subagent` returns it." in body
    assert (
        "If there is no such profile, read its definition, "
        "`.devin/agents/code-developer/AGENT.md` for `@code-developer`"
    ) in body
    assert "**The answer** is the subagent's final message, word for word" in body
    assert "`--output-file -` reads the answer from standard input" in body


# ---------------------------------------------------------------- Cursor


def test_cursor_gets_commands_foreground_subagents_a_rule_a_hook_and_a_permission(
    project: Path,
) -> None:
    data = install(project, "cursor")
    assert [row["path"] for row in data["files"]] == expected_files("cursor")
    assert ".cursor/rules/wfs.mdc" in expected_files("cursor")
    assert read(project / ".cursor/hooks.json") == CURSOR_HOOKS
    assert read(project / ".cursor/cli.json") == CURSOR_CLI
    for name in AGENTS:
        meta, _ = parse(project / agent_path("cursor", name))
        assert meta["name"] == name
        assert meta["is_background"] is False  # a YAML boolean, not the text "false"
    meta, body = split_frontmatter((project / ".cursor/rules/wfs.mdc").read_text())
    assert meta["alwaysApply"] is True
    assert "Cursor gets a digest of the active session" in body
    for name in COMMANDS:
        assert f"- `/wfs-{name}`: " in body
    assert "`.cursor/agents/<name>.md`" in body


def test_cursors_hook_prints_additional_context(project: Path) -> None:
    install(project, "cursor")
    assert wfs("init", "--no-git").code == 0
    (hook,) = read(project / ".cursor/hooks.json")["hooks"]["sessionStart"]
    run = wfs(*hook["command"].split()[1:])
    assert run.code == 0, run.err
    assert json.loads(run.out) == {"additional_context": wfs("prime").out}


def test_cursors_execute_hands_each_step_to_a_foreground_subagent(project: Path) -> None:
    install(project, "cursor")
    body = one_line(prompt_text(project / command_path("cursor", "execute")))
    assert (
        "Hand the step to the subagent of that name (`code-developer` for "
        "`@code-developer`) with the **Task** tool, giving it the whole brief as `wfs` "
        "printed it"
    ) in body
    assert (
        "Run it in the foreground (wfs's subagents say `is_background: false`; never start "
        "one in the background) and wait for it to finish before anything else."
    ) in body
    assert "Its report is its final message, as the Task tool returns it." in body
    assert "`.cursor/agents/code-developer.md` for `@code-developer`" in body


# ---------------------------------------------------------------- the user's own files

# (target, file, the user's content, what wfs adds to it)
USERS_FILES = [
    (
        "devin",
        ".devin/config.json",
        {
            "permissions": {"allow": ["Read(**)", "Exec(git status)"], "deny": ["Exec(rm)"]},
            "mcpServers": {"docs": {"command": "docs-mcp", "args": []}},
        },
        {
            "permissions": {
                "allow": ["Read(**)", "Exec(git status)", "Exec(wfs)"],
                "deny": ["Exec(rm)"],
            },
            "mcpServers": {"docs": {"command": "docs-mcp", "args": []}},
        },
    ),
    (
        "devin",
        ".devin/hooks.v1.json",
        {
            "PreToolUse": [
                {"matcher": "exec", "hooks": [{"type": "command", "command": "./check.sh"}]}
            ],
            "SessionStart": [{"hooks": [{"type": "command", "command": "./hello.sh"}]}],
        },
        {
            "PreToolUse": [
                {"matcher": "exec", "hooks": [{"type": "command", "command": "./check.sh"}]}
            ],
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "./hello.sh"}]},
                *DEVIN_HOOKS["SessionStart"],
            ],
        },
    ),
    (
        "cursor",
        ".cursor/hooks.json",
        {
            "version": 1,
            "hooks": {
                "afterFileEdit": [{"command": "./format.sh"}],
                "sessionStart": [{"command": "./hello.sh"}],
            },
        },
        {
            "version": 1,
            "hooks": {
                "afterFileEdit": [{"command": "./format.sh"}],
                "sessionStart": [{"command": "./hello.sh"}, *CURSOR_HOOKS["hooks"]["sessionStart"]],
            },
        },
    ),
    (
        "cursor",
        ".cursor/cli.json",
        {"permissions": {"allow": ["Shell(ls)"], "deny": ["Shell(rm)"]}},
        {"permissions": {"allow": ["Shell(ls)", "Shell(wfs)"], "deny": ["Shell(rm)"]}},
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize(("target", "relative", "theirs", "merged"), USERS_FILES)
def test_wfs_entry_joins_the_users_file_and_leaves_with_remove(
    project: Path, target: str, relative: str, theirs: Any, merged: Any
) -> None:
    path = project / relative
    path.parent.mkdir(parents=True)
    path.write_text(pretty(theirs, indent=4))
    mine = path.parent / "mine.txt"  # a file of the user's beside it
    mine.write_text("mine\n")
    before = tree_listing(project)
    data = install(project, target)
    assert {"path": relative, "action": "written"} in data["files"]
    assert path.read_text() == pretty(merged, indent=4)  # same keys, order, indentation
    # A second install changes nothing; --check is clean.
    stamp = path.stat().st_mtime_ns
    again = install(project, target)
    assert {row["action"] for row in again["files"]} == {"unchanged"}
    assert path.stat().st_mtime_ns == stamp
    assert wfs("agents", "install", "--check", "--target", target).code == 0
    # --remove takes out wfs's entry and its files, nothing else: byte for byte.
    removed = wfs("agents", "install", "--target", target, "--remove")
    assert removed.code == 0, removed.err
    assert path.read_text() == pretty(theirs, indent=4)
    assert mine.read_text() == "mine\n"
    assert tree_listing(project) == before


@pytest.mark.slow
def test_cursors_hooks_file_keeps_the_version_the_user_wrote_it_with(project: Path) -> None:
    """The version is the file's, not wfs's: a file wfs created goes whole, one of the
    user's keeps it."""
    install(project, "cursor")
    assert wfs("agents", "install", "--target", "cursor", "--remove").code == 0
    assert not (project / ".cursor").exists()
    path = project / ".cursor/hooks.json"
    path.parent.mkdir()
    path.write_text('{"version": 1, "hooks": {"stop": [{"command": "./done.sh"}]}}')
    install(project, "cursor")
    assert read(path)["hooks"]["sessionStart"] == CURSOR_HOOKS["hooks"]["sessionStart"]
    assert wfs("agents", "install", "--target", "cursor", "--remove").code == 0
    assert path.read_text() == '{"version": 1, "hooks": {"stop": [{"command": "./done.sh"}]}}'


@pytest.mark.slow
def test_a_missing_permission_is_reported_and_a_changed_hook_is_stale(project: Path) -> None:
    install(project, "devin")
    install(project, "cursor")
    (project / ".devin/config.json").write_text(pretty({"permissions": {"allow": []}}))
    hooks = read(project / ".cursor/hooks.json")
    hooks["hooks"]["sessionStart"][0]["timeout"] = 5
    (project / ".cursor/hooks.json").write_text(pretty(hooks))
    run = wfs("agents", "install", "--check")
    assert run.code == 1
    assert run.out.splitlines() == [
        "cursor: stale: .cursor/hooks.json",
        "devin: missing: .devin/config.json",
    ]
    refused = wfs("agents", "install", "--target", "cursor")
    assert refused.code == 2 and ".cursor/hooks.json" in refused.err
    assert wfs("agents", "install", "--target", "cursor", "--force").code == 0
    assert read(project / ".cursor/hooks.json") == CURSOR_HOOKS
    assert wfs("agents", "install", "--target", "devin").code == 0
    assert read(project / ".devin/config.json") == DEVIN_CONFIG
    assert wfs("agents", "install", "--check").code == 0


def test_a_devin_config_with_comments_is_named_and_left_alone(project: Path) -> None:
    """Devin reads comments in its JSON; wfs cannot keep them, so it says where."""
    path = project / ".devin/config.json"
    path.parent.mkdir()
    text = '{\n  // mine\n  "permissions": {"allow": ["Read(**)"]}\n}\n'
    path.write_text(text)
    run = wfs("agents", "install", "--target", "devin")
    assert run.code == 2
    assert run.err == (
        "wfs: error: .devin/config.json:2:3: invalid JSON: unexpected character, expected a "
        "string key (a comment: wfs cannot rewrite the file without losing it)\n"
    )
    assert path.read_text() == text
    assert tree_listing(project) == [".devin", ".devin/config.json"]
