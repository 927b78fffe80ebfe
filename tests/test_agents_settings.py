"""`wfs agents install`: what goes into files the user also writes (SPEC §5).

The SessionStart hook that runs `wfs prime` in the settings files of Claude Code
(`.claude/settings.json`), Gemini CLI (`.gemini/settings.json`) and Codex CLI
(`.codex/hooks.json`), the `wfs mcp` server in Claude Code's `.mcp.json`, and the
marked blocks in CLAUDE.md and GEMINI.md. tests/test_real_editors.py checks that the
editors run the hook and connect to the server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import tree_listing, wfs
from test_agents import BLOCKS, SETTINGS, expected_files, install

# Devin's and Cursor's files: tests/test_agents_devin_cursor.py.
HOOK_FILES = {t: files[0] for t, files in SETTINGS.items() if t in ("claude", "gemini", "codex")}
# Each editor's hook group, as the editor's documentation spells it.
HOOKS: dict[str, dict[str, Any]] = {
    "claude": {
        "hooks": [
            {
                "type": "command",
                "command": "wfs prime --hook-json --editor claude",
                "timeout": 30,  # seconds
            }
        ]
    },
    "gemini": {
        "hooks": [
            {
                "name": "wfs-prime",
                "type": "command",
                "command": "wfs prime --hook-json --editor gemini",
                "description": "Where the active wfs session stands: added to the model's context"
                " with the prompt",
                "timeout": 30000,  # milliseconds
            }
        ]
    },
    "codex": {
        "hooks": [
            {"type": "command", "command": "wfs prime --hook-json --editor codex", "timeout": 30}
        ]
    },
    "qwen": {
        "hooks": [
            {"type": "command", "command": "wfs prime --hook-json --editor qwen", "timeout": 30}
        ]
    },
}
# The hook event each editor runs wfs's hook at: Gemini CLI headless would put a
# SessionStart hook's text before a /wfs: command, which then is none.
EVENTS = {
    "claude": "SessionStart",
    "gemini": "BeforeAgent",
    "codex": "SessionStart",
    "qwen": "SessionStart",
}
# What else wfs sets in the hook file: Gemini CLI's subagents may write only when edits
# are approved without asking; Claude Code runs the read-only tools of the `wfs mcp`
# server, installed beside the hook (the test extra has the mcp extra), without asking.
MCP_READ_ONLY = ["mcp__wfs__status", "mcp__wfs__next", "mcp__wfs__task_show", "mcp__wfs__validate"]
# For Qwen Code, the rule that lets its shell tool run `wfs` (headless, it offers no
# shell tool otherwise), in Qwen Code's spelling.
OTHERS: dict[str, dict[str, Any]] = {
    "gemini": {"general": {"defaultApprovalMode": "auto_edit"}},
    "claude": {"permissions": {"allow": MCP_READ_ONLY}},
    "qwen": {"permissions": {"allow": ["Shell(wfs *)"]}, "tools": {"approvalMode": "auto-edit"}},
}
# opencode's entry is no hook but a permission rule (test_agents.py checks it).
HOOK_FILES = {target: files[0] for target, files in SETTINGS.items() if target in HOOKS}
MCP_SERVER = {"type": "stdio", "command": "wfs", "args": ["mcp"]}
# A user's settings file, indented with four spaces, with a hook of their own.
USERS = {
    "model": "opus",
    "cleanupPeriodDays": 1.50,
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "hi"}]}],
    },
    "env": {"LANG": "fr_FR.UTF-8", "note": "é ✓"},
}


def users_text() -> str:
    # 1.50 is written as such: a number keeps its spelling.
    return json.dumps(USERS, indent=4, ensure_ascii=False).replace("1.5,", "1.50,") + "\n"


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def pretty(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- the SessionStart hook


@pytest.mark.parametrize("target", sorted(HOOK_FILES))
def test_a_fresh_install_writes_the_hook_file_as_the_editor_documents_it(
    project: Path, target: str
) -> None:
    install(project, target)
    path = project / HOOK_FILES[target]
    expected = {"hooks": {EVENTS[target]: [HOOKS[target]]}, **OTHERS.get(target, {})}
    assert path.read_text() == pretty(expected)


def test_the_hook_prints_what_the_editor_reads(project: Path) -> None:
    """The command in the hook is a real wfs command line: its output is the envelope."""
    install(project, "claude")
    assert wfs("init", "--no-git").code == 0
    (command,) = [
        h["command"]
        for h in read(project / HOOK_FILES["claude"])["hooks"]["SessionStart"][0]["hooks"]
    ]
    run = wfs(*command.split()[1:])
    assert run.code == 0, run.err
    envelope = json.loads(run.out)
    assert envelope["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert envelope["hookSpecificOutput"]["additionalContext"].startswith(
        "wfs: no active session in this project.\n"
    )


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(HOOK_FILES))
def test_the_hook_is_merged_into_the_users_settings_keeping_everything(
    project: Path, target: str
) -> None:
    path = project / HOOK_FILES[target]
    path.parent.mkdir()
    path.write_text(users_text())
    data = install(project, target)
    assert {"path": HOOK_FILES[target], "action": "written"} in data["files"]
    merged = dict(USERS)
    merged["hooks"] = {
        **USERS["hooks"],
        EVENTS[target]: [*USERS["hooks"].get(EVENTS[target], []), HOOKS[target]],
    }
    merged.update(OTHERS.get(target, {}))
    expected = json.dumps(merged, indent=4, ensure_ascii=False).replace("1.5,", "1.50,") + "\n"
    assert path.read_text() == expected  # same keys, same order, same indentation, 1.50
    # A second install changes nothing, --check is clean.
    before = path.stat().st_mtime_ns
    again = install(project, target)
    assert {row["action"] for row in again["files"]} == {"unchanged"}
    assert path.stat().st_mtime_ns == before
    assert wfs("agents", "install", "--check", "--target", target).code == 0
    # --remove takes out the hook and nothing else: the user's file, byte for byte.
    removed = wfs("agents", "install", "--target", target, "--remove")
    assert removed.code == 0, removed.err
    assert path.read_text() == users_text()


@pytest.mark.slow
def test_a_file_on_one_line_stays_on_one_line(project: Path) -> None:
    path = project / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text('{"model":"opus","permissions":{"allow":["Bash(make:*)"]}}')
    install(project, "claude", "--no-mcp")
    hook = json.dumps(HOOKS["claude"])
    assert path.read_text() == (
        '{"model": "opus", "permissions": {"allow": ["Bash(make:*)"]}, '
        f'"hooks": {{"SessionStart": [{hook}]}}}}'
    )
    wfs("agents", "install", "--target", "claude", "--remove")
    assert path.read_text() == '{"model": "opus", "permissions": {"allow": ["Bash(make:*)"]}}'


@pytest.mark.slow
def test_the_settings_file_goes_with_remove_only_when_wfs_created_it(project: Path) -> None:
    install(project, "gemini")
    assert wfs("agents", "install", "--target", "gemini", "--remove").code == 0
    assert not (project / ".gemini").exists()
    # An empty settings file of the user's stays, empty.
    (project / ".gemini").mkdir()
    (project / ".gemini/settings.json").write_text("{}\n")
    install(project, "gemini")
    assert read(project / ".gemini/settings.json") == {
        "hooks": {"BeforeAgent": [HOOKS["gemini"]]},
        **OTHERS["gemini"],
    }
    assert wfs("agents", "install", "--target", "gemini", "--remove").code == 0
    assert (project / ".gemini/settings.json").read_text() == "{}\n"
    assert tree_listing(project) == [".gemini", ".gemini/settings.json"]


@pytest.mark.slow
def test_a_hook_missing_from_the_settings_is_reported_by_check(project: Path) -> None:
    install(project, "codex")
    path = project / ".codex/hooks.json"
    path.write_text('{\n  "hooks": {}\n}\n')
    run = wfs("agents", "install", "--check")
    assert (run.code, run.out) == (1, "codex: missing: .codex/hooks.json\n")
    assert wfs("agents", "install", "--target", "codex").code == 0
    assert read(path) == {"hooks": {"SessionStart": [HOOKS["codex"]]}}
    assert wfs("agents", "install", "--check").code == 0


@pytest.mark.slow
def test_a_changed_hook_is_stale_and_replaced_in_place_only_with_force(project: Path) -> None:
    path = project / ".claude/settings.json"
    path.parent.mkdir()
    theirs = {"matcher": "startup", "hooks": [{"type": "command", "command": "hi"}]}
    older = {"hooks": [{"type": "command", "command": "wfs prime --hook-json --editor claude"}]}
    path.write_text(pretty({"hooks": {"SessionStart": [older, theirs]}, "model": "opus"}))
    check = wfs("agents", "install", "--check", "--target", "claude")
    assert check.code == 1
    assert "claude: stale: .claude/settings.json" in check.out.splitlines()
    refused = wfs("agents", "install", "--target", "claude")
    assert refused.code == 2
    assert "differ from the shipped version" in refused.err
    assert ".claude/settings.json" in refused.err and "nothing was changed" in refused.err
    assert not (project / "CLAUDE.md").exists()  # all or nothing
    assert wfs("agents", "install", "--target", "claude", "--force").code == 0
    assert read(path) == {
        "hooks": {"SessionStart": [HOOKS["claude"], theirs]},
        "model": "opus",
        **OTHERS["claude"],
    }
    refused = wfs("agents", "install", "--target", "claude", "--remove")
    assert refused.code == 0  # now it is wfs's own again
    assert read(path) == {"hooks": {"SessionStart": [theirs]}, "model": "opus"}


@pytest.mark.slow
def test_a_hook_of_the_users_in_wfs_group_stays_when_wfs_removes_its_own(project: Path) -> None:
    path = project / ".codex/hooks.json"
    path.parent.mkdir()
    mine = {"type": "command", "command": "echo mine"}
    shared = {"hooks": [*HOOKS["codex"]["hooks"], mine]}
    path.write_text(pretty({"hooks": {"SessionStart": [shared]}}))
    run = wfs("agents", "install", "--target", "codex", "--remove")
    assert run.code == 2 and ".codex/hooks.json" in run.err
    forced = wfs("agents", "install", "--target", "codex", "--remove", "--force")
    assert forced.code == 0, forced.err
    assert read(path) == {"hooks": {"SessionStart": [{"hooks": [mine]}]}}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "text", "message"),
    [
        (
            "claude",
            '{\n  "model": "opus",\n}\n',
            ".claude/settings.json:2:18: invalid JSON: trailing comma is not allowed",
        ),
        (
            "gemini",
            '{\n  // my settings\n  "model": {"name": "gemini-2.5-pro"}\n}\n',
            ".gemini/settings.json:2:3: invalid JSON: unexpected character, expected a string "
            "key (a comment: wfs cannot rewrite the file without losing it)",
        ),
        (
            "codex",
            '{"hooks": {"Stop": []}, "hooks": {}}',
            '.codex/hooks.json: /: the key "hooks" is given twice (editors read only one of '
            "them); keep one",
        ),
        (
            "claude",
            '{\n  "env": {"A": 1, "A": 2}\n}\n',
            '.claude/settings.json: /env: the key "A" is given twice (editors read only one '
            "of them); keep one",
        ),
        (
            "gemini",
            '{\n  "ui": {"scale": NaN}\n}\n',
            ".gemini/settings.json:2:19: invalid JSON: unexpected character, expected a JSON "
            "value (NaN is not a JSON value)",
        ),
        ("codex", "[]\n", ".codex/hooks.json: expected a JSON object, found an array"),
        (
            "claude",
            '{"hooks": []}\n',
            ".claude/settings.json: /hooks: expected an object, found an array; fix it (or "
            "remove it) and install again",
        ),
        (
            "gemini",
            '{"hooks": {"SessionStart": {"hooks": []}}}\n',
            ".gemini/settings.json: /hooks/SessionStart: expected an array, found an object; "
            "fix it (or remove it) and install again",
        ),
        (
            "claude",
            "",
            ".claude/settings.json:1:1: invalid JSON: Input is a zero-length, empty document",
        ),
    ],
)
def test_a_settings_file_wfs_cannot_edit_safely_is_named_and_nothing_is_written(
    project: Path, target: str, text: str, message: str
) -> None:
    path = project / HOOK_FILES[target]
    path.parent.mkdir()
    path.write_text(text)
    before = tree_listing(project)
    for extra in ([], ["--force"], ["--remove"], ["--check"]):
        run = wfs("agents", "install", "--target", target, *extra)
        assert (run.code, run.out, run.err) == (2, "", f"wfs: error: {message}\n"), extra
        assert tree_listing(project) == before
        assert path.read_text() == text


@pytest.mark.slow
def test_an_unreadable_settings_file_of_an_editor_not_installed_is_no_error(
    project: Path,
) -> None:
    (project / ".claude").mkdir()
    (project / ".claude/settings.json").write_text("{oops")
    install(project, "cursor")
    run = wfs("agents", "install", "--check")
    assert (run.code, run.out) == (
        0,
        f"cursor: {len(expected_files('cursor'))} files installed and up to date\n",
    )


# ---------------------------------------------------------------- CLAUDE.md and GEMINI.md


@pytest.mark.slow
@pytest.mark.parametrize("target", ["claude", "gemini", "qwen"])
def test_the_instruction_file_block_never_touches_the_users_text(
    project: Path, target: str
) -> None:
    (name,) = BLOCKS[target]
    path = project / name
    mine = "# My project\n\nBuild with `make`.\n"
    path.write_text(mine)
    install(project, target)
    text = path.read_text()
    assert text.startswith(mine + "\n<!-- wfs:begin")
    assert text.endswith("<!-- wfs:end -->\n")
    slash = "/wfs:"
    for command in ("plan", "execute", "status", "switch"):
        assert f"- `{slash}{command}`: " in text
    assert "(`wfs prime`, run by a hook)" in " ".join(text.split())
    # The user writes after the block: still installed, still clean, unchanged.
    path.write_text(text + "\n## Testing\n\nRun `make test`.\n")
    assert wfs("agents", "install", "--check", "--target", target).code == 0
    assert {r["action"] for r in install(project, target)["files"]} == {"unchanged"}
    # An edited block is stale; --force puts it back, the user's text kept.
    path.write_text(path.read_text().replace("## wfs: planned work sessions", "## wfs"))
    assert wfs("agents", "install", "--check", "--target", target).code == 1
    install(project, target, "--force")
    assert path.read_text() == text + "\n## Testing\n\nRun `make test`.\n"
    wfs("agents", "install", "--target", target, "--remove")
    assert path.read_text() == mine + "\n## Testing\n\nRun `make test`.\n"


@pytest.mark.slow
def test_the_qwen_rule_joins_the_users_rules_and_leaves_with_remove(project: Path) -> None:
    path = project / ".qwen/settings.json"
    path.parent.mkdir()
    theirs = {"permissions": {"allow": ["Shell(make *)", "Shell(wfs status)"], "deny": ["X"]}}
    path.write_text(json.dumps(theirs))
    data = install(project, "qwen")
    assert {"path": ".qwen/settings.json", "action": "written"} in data["files"]
    assert [row["path"] for row in data["files"]].count(".qwen/settings.json") == 1
    # A rule of the user's, even one about wfs, is theirs: wfs's own goes after them.
    assert read(path) == {
        "permissions": {
            "allow": ["Shell(make *)", "Shell(wfs status)", "Shell(wfs *)"],
            "deny": ["X"],
        },
        "hooks": {"SessionStart": [HOOKS["qwen"]]},
        "tools": {"approvalMode": "auto-edit"},
    }
    assert {r["action"] for r in install(project, "qwen")["files"]} == {"unchanged"}
    # Without wfs's rule the file is reported missing, once, and the rule comes back.
    path.write_text(path.read_text().replace(', "Shell(wfs *)"', ""))
    run = wfs("agents", "install", "--check", "--target", "qwen")
    assert (run.code, run.out) == (1, "qwen: missing: .qwen/settings.json\n")
    assert read(path)["permissions"]["allow"] == ["Shell(make *)", "Shell(wfs status)"]
    install(project, "qwen")
    assert read(path)["permissions"]["allow"][-1] == "Shell(wfs *)"
    removed = wfs("agents", "install", "--target", "qwen", "--remove", "--json")
    assert removed.code == 0, removed.err
    assert {"path": ".qwen/settings.json", "action": "removed"} in removed.json()["files"]
    assert read(path) == theirs


@pytest.mark.slow
def test_a_qwen_settings_file_wfs_wrote_goes_whole_with_remove(project: Path) -> None:
    install(project, "qwen")
    assert wfs("agents", "install", "--target", "qwen", "--remove").code == 0
    assert not (project / ".qwen").exists() and not (project / "QWEN.md").exists()
    # A rule list that is no list is named, and nothing is written.
    (project / ".qwen").mkdir()
    (project / ".qwen/settings.json").write_text('{"permissions": {"allow": "Shell(wfs *)"}}')
    run = wfs("agents", "install", "--target", "qwen")
    assert (run.code, run.err) == (
        2,
        "wfs: error: .qwen/settings.json: /permissions/allow: expected an array, found a "
        "string; fix it (or remove it) and install again\n",
    )
    assert tree_listing(project) == [".qwen", ".qwen/settings.json"]


def test_the_instruction_file_names_the_editors_own_agent_files(project: Path) -> None:
    install(project, "claude")
    install(project, "gemini")
    assert "its instructions are `.claude/agents/<name>.md`" in (project / "CLAUDE.md").read_text()
    gemini = (project / "GEMINI.md").read_text()
    assert "its instructions are `.gemini/agents/<name>.md`" in gemini
    assert "Gemini CLI gets a digest of the active session\nwith each prompt (" in gemini


# ---------------------------------------------------------------- the MCP server in .mcp.json


def test_the_mcp_extra_is_installed_here_so_the_server_is_added_by_default(
    project: Path,
) -> None:
    from wfs.agents_install import mcp_extra_installed

    assert mcp_extra_installed()  # the test extra includes it
    install(project, "claude")
    assert (project / ".mcp.json").read_text() == pretty({"mcpServers": {"wfs": MCP_SERVER}})


@pytest.mark.slow
def test_the_read_only_tools_are_allowed_with_the_server_and_only_with_it(project: Path) -> None:
    """Claude Code asks before each MCP tool's first use: wfs allows the four read-only
    ones (status, next, task_show, validate) beside its server, never plan, execute,
    resume or switch, and takes them out with it."""
    settings = project / ".claude/settings.json"
    settings.parent.mkdir()
    settings.write_text(pretty({"permissions": {"allow": ["Bash(make:*)"]}}))
    install(project, "claude")
    assert read(settings)["permissions"] == {"allow": ["Bash(make:*)", *MCP_READ_ONLY]}
    assert wfs("agents", "install", "--check", "--target", "claude").code == 0
    assert wfs("agents", "install", "--target", "claude", "--remove").code == 0
    assert read(settings) == {"permissions": {"allow": ["Bash(make:*)"]}}
    assert not (project / ".mcp.json").exists()
    # Without the server, nor its tools.
    install(project, "claude", "--no-mcp")
    assert read(settings)["permissions"] == {"allow": ["Bash(make:*)"]}
    assert not (project / ".mcp.json").exists()


@pytest.mark.slow
def test_no_mcp_leaves_mcp_json_alone_and_mcp_is_only_for_claude(project: Path) -> None:
    data = install(project, "claude", "--no-mcp")
    assert ".mcp.json" not in [row["path"] for row in data["files"]]
    assert not (project / ".mcp.json").exists()
    assert wfs("agents", "install", "--check").code == 0  # nothing missing
    refused = wfs("agents", "install", "--target", "gemini", "--mcp")
    assert refused.code == 2 and "--mcp and --no-mcp go with --target claude" in refused.err


@pytest.mark.slow
def test_the_server_is_merged_into_mcp_json_beside_the_users_servers(project: Path) -> None:
    path = project / ".mcp.json"
    theirs = {"mcpServers": {"docs": {"command": "docs-server", "args": ["--stdio"]}}}
    path.write_text(pretty(theirs))
    install(project, "claude", "--mcp")
    assert read(path) == {"mcpServers": {"docs": theirs["mcpServers"]["docs"], "wfs": MCP_SERVER}}
    assert list(read(path)["mcpServers"]) == ["docs", "wfs"]
    wfs("agents", "install", "--target", "claude", "--remove")
    assert path.read_text() == pretty(theirs)


@pytest.mark.slow
def test_a_wfs_server_of_the_users_own_is_left_alone_unless_asked(project: Path) -> None:
    path = project / ".mcp.json"
    own = {
        "mcpServers": {
            "wfs": {"command": "uvx", "args": ["--from", "wfs-sessions[mcp]", "wfs", "mcp"]}
        }
    }
    path.write_text(pretty(own))
    data = install(project, "claude")  # the default: the user's entry is theirs
    assert ".mcp.json" not in [row["path"] for row in data["files"]]
    assert wfs("agents", "install", "--check", "--target", "claude").code == 0
    assert wfs("agents", "install", "--target", "claude", "--remove").code == 0
    assert path.read_text() == pretty(own)
    # Asked for explicitly, it is stale: replaced only with --force.
    install(project, "claude")
    check = wfs("agents", "install", "--check", "--target", "claude", "--mcp")
    # Asked for, the server comes with its tools' permissions, which are missing.
    assert (check.code, check.out) == (
        1,
        "claude: missing: .claude/settings.json\nclaude: stale: .mcp.json\n",
    )
    assert wfs("agents", "install", "--target", "claude", "--mcp").code == 2
    assert wfs("agents", "install", "--target", "claude", "--mcp", "--force").code == 0
    assert read(path) == {"mcpServers": {"wfs": MCP_SERVER}}


def run_without_the_extra(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    script = (
        "import sys\n"
        "sys.modules['mcp'] = None  # as if the extra were not installed\n"
        f"sys.argv = ['wfs', *{list(args)!r}]\n"
        "from wfs.cli import main\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_without_the_extra_the_server_is_not_added_but_kept_when_there(project: Path) -> None:
    run = run_without_the_extra(project, "agents", "install", "--target", "claude")
    assert run.returncode == 0, run.stderr
    assert "written: .claude/settings.json" in run.stdout.splitlines()
    assert ".mcp.json" not in run.stdout and not (project / ".mcp.json").exists()
    install(project, "claude", "--mcp")
    again = run_without_the_extra(project, "agents", "install", "--target", "claude")
    assert again.returncode == 0, again.stderr
    assert "unchanged: .mcp.json" in again.stdout.splitlines()
    assert read(project / ".mcp.json") == {"mcpServers": {"wfs": MCP_SERVER}}
