"""`wfs agents install` and the shipped commands, skills and agent definitions (SPEC §5).

Where each editor loads its files from, and in which format, is spelled out here from
the editors' documentation, independently of the installer. tests/test_real_editors.py
checks the three CLI editors load them for real.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

import click
import pytest
import yaml
from conftest import REPO, read_json, tree_listing, wfs, wfs_process

from wfs.cli import cli
from wfs.commands.agents import AGENT_TARGETS

TARGETS = (
    "claude",
    "gemini",
    "codex",
    "cursor",
    "copilot",
    "opencode",
    "qwen",
    "devin",
    "agents-md",
)
COMMANDS = ("execute", "plan", "status", "switch")
AGENTS = (
    "action-planning-agent",
    "code-developer",
    "conceptual-planning-agent",
    "test-fix-agent",
    "universal-executor",
)
# target: (command path, agent path, other files); {} is the command or agent name.
LAYOUT: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "claude": (".claude/commands/wfs/{}.md", ".claude/agents/{}.md", ()),
    "gemini": (".gemini/commands/wfs/{}.toml", ".gemini/agents/{}.md", ()),
    "codex": (
        ".agents/skills/wfs-{}/SKILL.md",
        ".codex/agents/{}.toml",
        (".codex/rules/wfs.rules",),
    ),
    "cursor": (".cursor/commands/wfs-{}.md", ".cursor/agents/{}.md", (".cursor/rules/wfs.mdc",)),
    "copilot": (
        ".github/skills/wfs-{}/SKILL.md",
        ".github/agents/{}.agent.md",
        (".github/hooks/wfs.json",),
    ),
    "opencode": (
        ".opencode/commands/wfs-{}.md",
        ".opencode/agents/{}.md",
        (".opencode/plugins/wfs-prime.js",),
    ),
    "qwen": (".qwen/commands/wfs/{}.md", ".qwen/agents/{}.md", ()),
    # Devin Local; Windsurf before it read the agents as skills, and those stay.
    "devin": (
        ".devin/skills/wfs-{}/SKILL.md",
        ".devin/agents/{}/AGENT.md",
        (".devin/rules/wfs.md", *(f".windsurf/skills/{name}/SKILL.md" for name in AGENTS)),
    ),
    "agents-md": (".agents/wfs/commands/{}.md", ".agents/wfs/agents/{}.md", ()),
}
BLOCKS = {
    "agents-md": ("AGENTS.md",),
    "claude": ("CLAUDE.md",),
    "gemini": ("GEMINI.md",),
    "qwen": ("QWEN.md",),
    "copilot": (".github/copilot-instructions.md",),
    "opencode": ("AGENTS.md",),
    "codex": ("AGENTS.md",),  # one block, shared with opencode and agents-md
}
# Entries in JSON files the user also writes: the SessionStart hook running `wfs prime`,
# and for Claude Code the MCP server (.mcp.json: the mcp extra is part of the test extra,
# so a default install writes it here).
SETTINGS = {
    "claude": (".claude/settings.json", ".mcp.json"),
    "gemini": (".gemini/settings.json",),
    "codex": (".codex/hooks.json",),
    "cursor": (".cursor/hooks.json", ".cursor/cli.json"),
    "devin": (".devin/config.json", ".devin/hooks.v1.json"),
    "qwen": (".qwen/settings.json",),  # the hook, and the rule that allows `wfs`
    "opencode": (".opencode/opencode.json",),  # the rule that lets it run `wfs ...`
}
# The editors that replace a placeholder by the command's arguments; the others get the
# arguments in the user's message, and the text says so with the stand-in ARGS.
PLACEHOLDER = {
    "claude": "$ARGUMENTS",
    "gemini": "{{args}}",
    "opencode": "$ARGUMENTS",
    "qwen": "{{args}}",
}
# Claude Code's tools today (MultiEdit, Glob, Grep and Task are gone; Task is Agent).
CLAUDE_TOOLS = {"Agent", "Bash", "Read", "Write", "Edit"}


def command_path(target: str, name: str) -> str:
    return LAYOUT[target][0].format(name)


def agent_path(target: str, name: str) -> str:
    return LAYOUT[target][1].format(name)


def expected_files(target: str) -> list[str]:
    commands, agents, others = LAYOUT[target]
    files = [commands.format(n) for n in COMMANDS] + [agents.format(n) for n in AGENTS]
    return sorted([*files, *others]) + list(BLOCKS.get(target, ())) + list(SETTINGS.get(target, ()))


def prose_files(target: str) -> list[str]:
    """The installed files a model reads: commands and agents."""
    return [command_path(target, n) for n in COMMANDS] + [agent_path(target, n) for n in AGENTS]


def install(root: Path, target: str, *extra: str) -> Any:
    run = wfs("--root", str(root), "agents", "install", "--target", target, "--json", *extra)
    assert run.code == 0, run.err
    return run.json()


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    assert text.startswith("---\n"), text[:40]
    header, body = text[4:].split("\n---\n", 1)
    data = yaml.safe_load(header)
    assert isinstance(data, dict)
    return data, body


def parse(path: Path) -> tuple[dict[str, Any], str]:
    """The metadata of an installed file and the text the editor gives the model."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        data = tomllib.loads(text)
        body = data.pop("prompt", None) or data.pop("developer_instructions")
        return data, str(body)
    if text.startswith("---\n"):
        return split_frontmatter(text)
    return {}, text


def prompt_text(path: Path) -> str:
    return parse(path)[1]


# ---------------------------------------------------------------- wfs command lines

_FENCE = re.compile(r"^\s*```")
_INLINE = re.compile(r"`([^`]+)`")
_SHELL_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "<<", "&", "(", ")"}


def wfs_command_lines(text: str) -> list[str]:
    """Every `wfs …` command in fenced code blocks and in inline code spans."""
    lines: list[str] = []
    prose: list[str] = []
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            candidate = line.strip().removeprefix("$ ")
            if candidate.startswith("wfs "):
                lines.append(candidate)
        else:
            prose.append(line)
    for span in _INLINE.findall("\n".join(prose)):
        span = " ".join(span.split())  # a code span may wrap across lines
        if span.startswith("wfs "):
            lines.append(span)
    return lines


def _split_group_options(group: click.Group, args: list[str]) -> tuple[list[str], list[str]]:
    options = {
        name: param
        for param in group.params
        if isinstance(param, click.Option)
        for name in (*param.opts, *param.secondary_opts)
    }
    i = 0
    while i < len(args) and args[i].startswith("-"):
        param = options.get(args[i].split("=", 1)[0])
        if param is None:
            raise click.NoSuchOption(args[i])
        i += 1 if param.is_flag or "=" in args[i] else 2
    return args[:i], args[i:]


def check_wfs_line(line: str) -> str | None:
    """None when `line` is a real wfs command with real options, else the problem."""
    for placeholder in ("$ARGUMENTS", "{{args}}"):
        line = line.replace(placeholder, "ARGS")
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    tokens = list(lexer)
    for i, token in enumerate(tokens):
        if token in _SHELL_OPERATORS:
            tokens = tokens[:i]
            break
    if not tokens or tokens[0] != "wfs":
        return f"not a wfs command: {line!r}"
    command: click.Command = cli
    name, rest, ctx = "wfs", tokens[1:], None
    try:
        while isinstance(command, click.Group):
            own, rest = _split_group_options(command, rest)
            if not rest:
                return f"{line!r}: {name} needs a subcommand"
            ctx = command.make_context(name, [*own, rest[0]], parent=ctx)
            sub = command.get_command(ctx, rest[0])
            if sub is None:
                return f"{line!r}: no command {rest[0]!r} in {name!r}"
            command, name, rest = sub, rest[0], rest[1:]
        command.make_context(name, rest, parent=ctx)
    except click.ClickException as err:
        return f"{line!r}: {err.format_message()}"
    return None


# ---------------------------------------------------------------- what each editor gets


def test_cli_targets_are_the_installer_targets() -> None:
    from wfs.agents_install import TARGETS as INSTALLER_TARGETS

    assert AGENT_TARGETS == tuple(INSTALLER_TARGETS) == TARGETS


@pytest.mark.parametrize("target", TARGETS)
def test_install_writes_exactly_the_expected_files(project: Path, target: str) -> None:
    data = install(project, target)
    assert data["target"] == target
    assert data["files"] == [{"path": p, "action": "written"} for p in expected_files(target)]
    files = [p for p in tree_listing(project) if (project / p).is_file()]
    assert files == sorted(expected_files(target))


# Frontmatter (or TOML) keys of (commands, agents), exactly.
KEYS: dict[str, tuple[set[str], set[str]]] = {
    "claude": ({"description", "argument-hint", "allowed-tools"}, {"name", "description", "tools"}),
    "gemini": ({"description"}, {"name", "description", "kind", "max_turns", "timeout_mins"}),
    "codex": ({"name", "description"}, {"name", "description"}),
    "cursor": (set(), {"name", "description", "is_background"}),
    "copilot": ({"name", "description", "allowed-tools"}, {"name", "description"}),
    "opencode": ({"description"}, {"description", "mode"}),
    "qwen": ({"description", "argument-hint"}, {"name", "description", "background"}),
    "devin": ({"name", "description", "argument-hint"}, {"name", "description"}),
    "agents-md": (set(), set()),
}


@pytest.mark.parametrize("target", TARGETS)
def test_installed_files_parse_and_carry_the_keys_their_editor_reads(
    project: Path, target: str
) -> None:
    install(project, target)
    command_keys, agent_keys = KEYS[target]
    for name in COMMANDS:
        data, body = parse(project / command_path(target, name))
        assert set(data) == command_keys, name
        if "description" in data:
            assert 20 < len(data["description"]) <= 100  # Gemini CLI shows at most 100
        assert body.lstrip().startswith("# "), name
        placeholder = PLACEHOLDER.get(target, "ARGS")
        assert placeholder in body, f"{name}: the arguments are not used"
    for name in AGENTS:
        data, body = parse(project / agent_path(target, name))
        assert set(data) == agent_keys, name
        if "name" in data:
            assert data["name"] == name
        if agent_keys:
            assert len(data["description"]) > 40
        assert body.lstrip().startswith(f"# @{name}")


def test_claude_gets_only_tools_that_exist_and_bash_only_for_wfs(project: Path) -> None:
    install(project, "claude")
    for name in COMMANDS:
        data, _ = parse(project / command_path("claude", name))
        tools = [t.strip() for t in data["allowed-tools"].split(",")]
        assert tools[0] == "Bash(wfs:*)"
        assert set(tools[1:]) <= CLAUDE_TOOLS - {"Bash"}
    execute, _ = parse(project / command_path("claude", "execute"))
    assert "Agent" in execute["allowed-tools"]
    for name in AGENTS:
        data, _ = parse(project / agent_path("claude", name))
        tools = {t.strip() for t in data["tools"].split(",")}
        assert {"Read", "Bash"} <= tools <= CLAUDE_TOOLS - {"Agent"}


def test_gemini_agents_have_turn_and_time_limits(project: Path) -> None:
    install(project, "gemini")
    for name in AGENTS:
        data, _ = parse(project / agent_path("gemini", name))
        assert data["kind"] == "local"
        assert isinstance(data["max_turns"], int) and data["max_turns"] > 30  # default 30
        assert isinstance(data["timeout_mins"], int) and data["timeout_mins"] > 10  # default 10


def test_codex_gets_skills_custom_agents_and_a_rule_for_wfs(project: Path) -> None:
    install(project, "codex")
    for name in COMMANDS:
        data, body = parse(project / command_path("codex", name))
        assert data["name"] == f"wfs-{name}"
        assert re.fullmatch(r"[a-z0-9-]{1,64}", data["name"])
        assert len(data["description"]) <= 1024
        assert "$ARGUMENTS" not in body  # skills substitute nothing
    for name in AGENTS:
        data = tomllib.loads((project / agent_path("codex", name)).read_text())
        assert set(data) == {"name", "description", "developer_instructions"}
    rules = (project / ".codex/rules/wfs.rules").read_text()
    assert re.search(r'pattern = \["wfs"\],\s+decision = "allow"', rules)
    assert not (project / ".codex/prompts").exists()


def test_copilot_gets_skills_agents_a_hook_and_instructions(project: Path) -> None:
    """Copilot CLI (and VS Code) load skills from .github/skills: prompt files are read
    by neither any more. tests/test_real_editor_copilot.py runs them in Copilot CLI."""
    install(project, "copilot")
    for name in COMMANDS:
        data, body = parse(project / command_path("copilot", name))
        assert data == {
            "name": f"wfs-{name}",
            "description": data["description"],
            # Copilot CLI applies it when the skill is invoked in a terminal session.
            "allowed-tools": "shell(wfs:*)",
        }
        assert "$ARGUMENTS" not in body and "{{args}}" not in body  # nothing substituted
    assert not (project / ".github" / "prompts").exists()
    execute = prompt_text(project / command_path("copilot", "execute"))
    assert "with the **task** tool: `agent_type`" in execute
    assert '`mode` is `"sync"`' in " ".join(execute.split())
    assert read_json(project / ".github/hooks/wfs.json") == {
        "version": 1,
        "hooks": {
            "sessionStart": [
                {
                    "type": "command",
                    "bash": "wfs prime --hook-json --editor copilot",
                    "powershell": "wfs prime --hook-json --editor copilot",
                    "timeoutSec": 30,
                }
            ]
        },
    }
    block = (project / ".github/copilot-instructions.md").read_text()
    assert block.startswith("<!-- wfs:begin") and "`/wfs-execute`" in block
    assert "`.github/agents/<name>.agent.md`" in block


@pytest.mark.slow
def test_copilot_install_prints_the_one_line_that_lets_wfs_run_headless(project: Path) -> None:
    run = wfs("agents", "install", "--target", "copilot")
    assert run.code == 0
    assert run.out.splitlines() == [f"written: {p}" for p in expected_files("copilot")]
    assert run.err == (
        "Copilot CLI: no project setting can allow `wfs`; add --allow-tool 'shell(wfs:*)' "
        "to headless runs, e.g. copilot -p '/wfs-execute --all' --allow-tool "
        "'shell(wfs:*)' --allow-tool write (interactive sessions allow it once a wfs "
        "skill is loaded)\n"
    )
    assert wfs("agents", "install", "--target", "copilot", "--remove").err == ""
    assert wfs("agents", "install", "--target", "claude").err == ""


def test_agents_md_block_points_at_every_command(project: Path) -> None:
    install(project, "agents-md")
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("<!-- wfs:begin") and text.endswith("<!-- wfs:end -->\n")
    for name in COMMANDS:
        assert f"`wfs-{name}`" in text
        assert f"`{command_path('agents-md', name)}`" in text
        assert (project / command_path("agents-md", name)).is_file()


@pytest.mark.parametrize("target", TARGETS)
def test_installed_text_has_no_template_leftovers_or_accidental_expansions(
    project: Path, target: str
) -> None:
    install(project, target)
    for relative in prose_files(target):
        text = prompt_text(project / relative)
        assert "{%" not in text and "{{ " not in text and "{#" not in text, relative
        if target in ("gemini", "qwen"):
            # Both run !{...} and inline @{...} before the model sees the prompt.
            assert "!{" not in text and "@{" not in text, relative
        if relative in [command_path(target, n) for n in COMMANDS]:
            if target in ("claude", "opencode"):
                assert not re.search(r"\$[0-9]", text), relative
                assert "!`" not in text, relative  # run as a shell command
            if target not in PLACEHOLDER:
                assert "$ARGUMENTS" not in text and "{{args}}" not in text, relative


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_execute_waits_for_the_agent_and_resumes_from_stdin_with_no_file(
    project: Path, target: str
) -> None:
    install(project, target)
    body = prompt_text(project / command_path(target, "execute"))
    assert "mktemp" not in body and "output file" not in body
    assert "## TASK BLOCKED" in body and "## CHECKPOINT REACHED" in body
    if target == "qwen":
        # Qwen Code runs no here-document: the answer goes in a file of the project's.
        assert "<<" not in body and "--output-file -" not in body
        assert "replace its final `F` with that file's\n     path" in body
        assert "--output-file .workflow/WFS-user-auth/.runs/IMPL-2.answer.md --all\n" in body
        assert "`run_in_background`\n   is `false`" in body and "**agent** tool" in body
        return
    assert "replace its final `F` with\n   `-`: `--output-file -` reads the answer" in body
    assert "<<'WFS_ANSWER'" in body and "\n   WFS_ANSWER\n" in body
    if target == "claude":
        assert "**Agent** tool" in body and "`run_in_background` is `false`" in body
        assert "wait for the subagent to finish before anything else" in body
        # Claude Code frames a subagent's report; test_real_editors.py reads it so.
        assert 'the lines after "The report follows:"' in body
    if target == "codex":
        assert "`spawn_agent`" in body and "`wait_agent`" in body
    if target == "opencode":
        # The task tool's parameters as opencode 1.18 names them; `background` (only
        # with OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS) is never given.
        assert "with the **task** tool: `subagent_type`" in body
        assert "`prompt` is the whole brief" in body and "`description` a few words" in body
        assert "Give no\n   `background` and no `task_id`" in body
        assert "between a `<task_result>` line and a `</task_result>` line" in body


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_every_wfs_command_line_in_the_installed_files_is_real(project: Path, target: str) -> None:
    install(project, target)
    checked = 0
    for relative in prose_files(target):
        lines = wfs_command_lines(prompt_text(project / relative))
        assert lines, f"{relative} shows no wfs command"
        for line in lines:
            assert check_wfs_line(line) is None, f"{relative}: {check_wfs_line(line)}"
        checked += len(lines)
    assert checked > 100


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("wfs exectue --json", "no command 'exectue'"),
        ("wfs execute --resum IMPL-1", "No such option '--resum'"),
        ("wfs task status IMPL-1 done", "'done' is not one of"),
        ("wfs task frob IMPL-1", "no command 'frob'"),
        ("wfs --sesion WFS-x status", "No such option '--sesion'"),
        ("wfs switch", "Missing argument 'ID'"),
        ("wfs session", "needs a subcommand"),
        ("wfs execute --output-file", "requires an argument"),
        ("wfs plan TOPIC --from", "requires an argument"),
        ("wfs next --ready", "No such option '--ready'"),
        ("wfs status extra", "unexpected extra argument"),
    ],
)
def test_the_command_line_check_catches_bogus_lines(line: str, problem: str) -> None:
    text = f"Run `{line}` first, then:\n\n```bash\n{line} | head\n```\n"
    assert wfs_command_lines(text) == [f"{line} | head", line]
    for found in wfs_command_lines(text):
        message = check_wfs_line(found)
        assert message is not None and problem in message, message


def test_the_command_line_check_accepts_global_options_heredocs_and_capture() -> None:
    for line in (
        "wfs --session WFS-x execute --resume IMPL-1 --output-file - --json --all",
        "wfs --session WFS-x execute --resume IMPL-1 --output-file - --json <<'WFS_ANSWER'",
        "wfs --root . --json status",
        'wfs capture test "auth suite" -- python -m pytest -q tests/auth',
        "wfs execute --json $ARGUMENTS",
        "wfs switch {{args}} --json",
        "wfs execute --json ARGS",
        "wfs task split IMPL-2 --from subtasks.json    # IMPL-2.1, IMPL-2.2, ...",
    ):
        assert check_wfs_line(line) is None, check_wfs_line(line)


def test_agent_definitions_say_what_they_get_and_how_to_report_through_wfs(
    project: Path,
) -> None:
    install(project, "claude")
    for name in AGENTS:
        text = prompt_text(project / agent_path("claude", name))
        for needle in (
            '"workflow": {"session": "WFS-user-auth", "phase": "IMPLEMENT"}',
            '"steps": [{"key"',
            "`fix`",
            '"resume": ["wfs", "--session", "WFS-user-auth", "execute", "--resume", "IMPL-2"]',
            "your final message is the\n  answer",
            "--output-file - --json <<'WFS_ANSWER'",
            "--output TEXT",
            "--skip",
            "## TASK BLOCKED: <what blocks you>",
            "## CHECKPOINT REACHED",
            "## TASK COMPLETE",
            "wfs capture",
            "Never create, edit or delete its JSON files",
        ):
            assert needle in text, f"{name}: {needle}"


def test_commands_drive_the_documented_wfs_commands(project: Path) -> None:
    install(project, "claude")

    def lines(name: str) -> list[str]:
        return wfs_command_lines(prompt_text(project / command_path("claude", name)))

    plan = lines("plan")
    assert "wfs plan \"TOPIC\" --from - --json <<'WFS_PLAN'" in plan
    assert {'wfs plan "TOPIC" --dry-run', "wfs validate --json"} <= set(plan)
    assert "wfs execute $ARGUMENTS" in lines("execute")
    assert {"wfs switch $ARGUMENTS --json", "wfs session list --json"} <= set(lines("switch"))
    assert {"wfs status --json", "wfs next --all --json"} <= set(lines("status"))


def test_the_plan_command_starts_from_the_brief_of_wfs_plan(project: Path) -> None:
    """/wfs:plan gets the brief `wfs plan TOPIC` hands the planning agent (its example
    plan is tests/test_planning.py's), and ingests the plan as `wfs plan --from` does."""
    install(project, "claude")
    body = prompt_text(project / command_path("claude", "plan"))
    assert '`wfs plan "TOPIC" --dry-run`' in body
    assert "`wfs plan --from-doc FILE.md --dry-run`" in body
    assert "wfs init" in body
    assert wfs("init", "--no-git").code == 0
    brief = wfs("plan", "TOPIC", "--dry-run")
    assert brief.code == 0 and brief.out.startswith("# Plan: TOPIC\n")


@pytest.mark.slow
def test_rendering_is_deterministic_and_differs_only_where_editors_differ() -> None:
    from wfs.agents_install import rendered_files

    for target in TARGETS:
        assert rendered_files(target) == rendered_files(target)
    claude = {r.relative: r.data for r in rendered_files("claude")}
    qwen = {r.relative: r.data for r in rendered_files("qwen")}
    # Same source, same slash spelling: the agent body differs only in how an answer
    # given directly reaches wfs (Qwen Code runs no here-document: a file).
    a = split_frontmatter(claude[agent_path("claude", "code-developer")].decode())[1]
    b = split_frontmatter(qwen[agent_path("qwen", "code-developer")].decode())[1]
    given, started = "- **Given the brief directly**", "- **Started by `wfs` with the brief"
    assert a.split(given)[0] == b.split(given)[0]
    assert a.split(started)[1] == b.split(started)[1]
    direct = b.split(given)[1].split(started)[0]
    assert "<<" not in direct and "IMPL-2.answer.md --json" in direct


@pytest.mark.parametrize(
    "value",
    ["[TOPIC]", "a: b", "yes", "#x", "@agent", "Bash(wfs:*), Read", "x #y", "ends:", "it's", "é"],
)
def test_frontmatter_values_read_back_unchanged(value: str) -> None:
    from wfs.agents_install import yaml_scalar

    assert yaml.safe_load(f"key: {yaml_scalar(value)}") == {"key": value}


@pytest.mark.parametrize(
    "text", ["plain\nlines\n", "has ''' quotes\n", "tab\there\x01\n", "crlf\r\n", "é\n"]
)
def test_toml_prompts_read_back_unchanged(text: str) -> None:
    from wfs.agents_install import toml_string

    assert tomllib.loads(f"prompt = {toml_string(text)}\n") == {"prompt": text}


# ---------------------------------------------------------------- install, check, remove


def test_a_changed_file_is_not_overwritten_without_force(project: Path) -> None:
    install(project, "claude")
    edited = project / ".claude/commands/wfs/plan.md"
    edited.write_text("my own version\n")
    removed = project / ".claude/agents/code-developer.md"
    removed.unlink()
    run = wfs("agents", "install", "--target", "claude")
    assert run.code == 2
    assert run.out == ""
    assert ".claude/commands/wfs/plan.md" in run.err
    assert "nothing was changed" in run.err and "--force" in run.err
    assert edited.read_text() == "my own version\n"
    assert not removed.exists()  # all or nothing: the missing file was not written either


@pytest.mark.slow
def test_force_overwrites_changed_files_and_reports_each_action(project: Path) -> None:
    first = install(project, "codex")
    skill = project / command_path("codex", "plan")
    shipped = skill.read_bytes()
    skill.write_text("stale\n")
    (project / agent_path("codex", "test-fix-agent")).unlink()
    data = install(project, "codex", "--force")
    actions = {row["path"]: row["action"] for row in data["files"]}
    assert actions.pop(command_path("codex", "plan")) == "overwritten"
    assert actions.pop(agent_path("codex", "test-fix-agent")) == "written"
    assert set(actions.values()) == {"unchanged"}
    assert len(data["files"]) == len(first["files"])
    assert skill.read_bytes() == shipped


@pytest.mark.slow
@pytest.mark.parametrize("target", TARGETS)
def test_a_second_install_reports_every_file_unchanged_and_touches_none(
    project: Path, target: str
) -> None:
    (project / "AGENTS.md").write_text("# My project\n\nBuild with make.\n")
    install(project, target)
    snapshot = {p: (project / p).stat().st_mtime_ns for p in expected_files(target)}
    data = install(project, target)
    assert {row["action"] for row in data["files"]} == {"unchanged"}
    assert {p: (project / p).stat().st_mtime_ns for p in snapshot} == snapshot


def test_human_output_names_each_file(project: Path) -> None:
    run = wfs("agents", "install", "--target", "claude")
    assert run.code == 0
    assert run.out.splitlines() == [f"written: {p}" for p in expected_files("claude")]
    again = wfs("agents", "install", "--target", "claude")
    assert again.out.splitlines() == [f"unchanged: {p}" for p in expected_files("claude")]


@pytest.mark.slow
def test_install_goes_to_the_project_root(tmp_path: Path, project: Path) -> None:
    (project / ".workflow").mkdir()
    nested = project / "src" / "deep"
    nested.mkdir(parents=True)
    run = wfs_process("agents", "install", "--target", "claude", cwd=nested)
    assert run.code == 0, run.err
    assert (project / ".claude/commands/wfs/execute.md").is_file()
    assert not (nested / ".claude").exists()
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    assert wfs("--root", str(elsewhere), "agents", "install", "--target", "codex").code == 0
    assert (elsewhere / command_path("codex", "execute")).is_file()


def test_install_refuses_a_symlink_leading_out_of_the_root(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".claude").symlink_to(outside)
    run = wfs("agents", "install", "--target", "claude")
    assert run.code == 2
    assert "symlink leading outside the project root" in run.err
    assert list(outside.iterdir()) == []


def test_unknown_target_and_missing_target_are_usage_errors(project: Path) -> None:
    run = wfs("agents", "install", "--target", "vim")
    assert run.code == 2
    assert "'vim' is not one of" in run.err
    missing = wfs("agents", "install")
    assert missing.code == 2 and "Missing option '--target'" in missing.err
    both = wfs("agents", "install", "--target", "claude", "--check", "--remove")
    assert both.code == 2 and "at most one of --check and --remove" in both.err
    assert not any(project.iterdir())


@pytest.mark.slow
def test_check_is_clean_after_installing_every_target(project: Path) -> None:
    """Done when: every target installed in a fresh project, then --check is clean."""
    for target in TARGETS:
        install(project, target)
    run = wfs("agents", "install", "--check", "--json")
    assert run.code == 0, run.out
    rows = run.json()["files"]
    assert run.json()["problems"] == 0
    assert [(r["target"], r["path"]) for r in rows] == [
        (t, p) for t in TARGETS for p in expected_files(t)
    ]
    assert {r["state"] for r in rows} == {"installed"}
    human = wfs("agents", "install", "--check")
    assert human.out.splitlines() == [
        f"{t}: {len(expected_files(t))} files installed and up to date" for t in TARGETS
    ]


@pytest.mark.slow
def test_check_lists_what_is_missing_or_stale_and_exits_1(project: Path) -> None:
    install(project, "claude")
    install(project, "qwen")
    (project / command_path("claude", "status")).write_text("old\n")
    (project / agent_path("qwen", "code-developer")).unlink()
    run = wfs("agents", "install", "--check")
    assert run.code == 1
    assert run.out.splitlines() == [
        f"claude: stale: {command_path('claude', 'status')}",
        f"qwen: missing: {agent_path('qwen', 'code-developer')}",
    ]
    assert "wfs agents install --target T --force" in run.err
    # --check changes nothing.
    assert (project / command_path("claude", "status")).read_text() == "old\n"
    only = wfs("agents", "install", "--check", "--target", "gemini", "--json")
    assert only.code == 1
    assert {r["state"] for r in only.json()["files"]} == {"missing"}
    assert only.json()["problems"] == len(expected_files("gemini"))


@pytest.mark.slow
def test_check_with_nothing_installed_is_clean(project: Path) -> None:
    run = wfs("agents", "install", "--check")
    assert (run.code, run.out) == (0, "no wfs editor files are installed here\n")


@pytest.mark.slow
def test_remove_deletes_only_what_wfs_installed(project: Path) -> None:
    (project / ".claude/commands").mkdir(parents=True)
    (project / ".claude/commands/mine.md").write_text("my command\n")
    (project / ".claude/settings.json").write_text("{}\n")
    before = set(tree_listing(project))
    install(project, "claude")
    data = wfs("agents", "install", "--target", "claude", "--remove", "--json").json()
    assert data["files"] == [{"path": p, "action": "removed"} for p in expected_files("claude")]
    # The folders wfs made are gone; the user's files and folders are still there.
    assert set(tree_listing(project)) == before
    again = wfs("agents", "install", "--target", "claude", "--remove", "--json").json()
    assert {row["action"] for row in again["files"]} == {"absent"}


@pytest.mark.slow
def test_remove_leaves_everything_when_a_file_was_changed_unless_forced(project: Path) -> None:
    install(project, "cursor")
    changed = project / command_path("cursor", "plan")
    changed.write_text("my version\n")
    run = wfs("agents", "install", "--target", "cursor", "--remove")
    assert run.code == 2
    assert command_path("cursor", "plan") in run.err and "--force" in run.err
    assert all((project / p).exists() for p in expected_files("cursor"))
    forced = wfs("agents", "install", "--target", "cursor", "--remove", "--force")
    assert forced.code == 0, forced.err
    assert not (project / ".cursor").exists()


@pytest.mark.slow
def test_the_agents_md_block_never_touches_the_users_text(project: Path) -> None:
    mine = "# My project\n\nBuild with `make`.\n"
    (project / "AGENTS.md").write_text(mine)
    install(project, "agents-md")
    text = (project / "AGENTS.md").read_text()
    assert text.startswith(mine + "\n<!-- wfs:begin")
    # The user adds text after the block: still installed, still clean.
    (project / "AGENTS.md").write_text(text + "\n## Testing\n\nRun `make test`.\n")
    assert wfs("agents", "install", "--check").code == 0
    assert {r["action"] for r in install(project, "agents-md")["files"]} == {"unchanged"}
    wfs("agents", "install", "--target", "agents-md", "--remove")
    assert (project / "AGENTS.md").read_text() == mine + "\n## Testing\n\nRun `make test`.\n"
    # A file that only held the block goes with it.
    (project / "AGENTS.md").unlink()
    install(project, "agents-md")
    wfs("agents", "install", "--target", "agents-md", "--remove")
    assert not (project / "AGENTS.md").exists() and not (project / ".agents").exists()


@pytest.mark.slow
def test_agents_md_and_opencode_share_one_block_in_agents_md(project: Path) -> None:
    """Both write AGENTS.md's block: it is one block, naming each one's commands, and
    either can be installed, checked and removed beside the other."""
    install(project, "agents-md")
    first = (project / "AGENTS.md").read_text()
    actions = {row["path"]: row["action"] for row in install(project, "opencode")["files"]}
    assert actions["AGENTS.md"] == "unchanged"
    assert (project / "AGENTS.md").read_text() == first and first.count("<!-- wfs:begin") == 1
    for name in COMMANDS:
        row = f"| `/wfs-{name}` | `{command_path('agents-md', name)}` |"
        assert row in first, row
    assert "(`.opencode/agents/<name>.md`)" in first
    assert "`.agents/wfs/agents/<name>.md`" in first
    assert wfs("agents", "install", "--check").code == 0
    # Removing one keeps the block the other still needs; then it goes with the other.
    removed = wfs("agents", "install", "--target", "opencode", "--remove", "--json").json()
    assert {"path": "AGENTS.md", "action": "kept"} in removed["files"]
    assert (project / "AGENTS.md").read_text() == first
    check = wfs("agents", "install", "--check", "--json")
    assert check.code == 0 and {r["target"] for r in check.json()["files"]} == {"agents-md"}
    removed = wfs("agents", "install", "--target", "agents-md", "--remove", "--json").json()
    assert {"path": "AGENTS.md", "action": "removed"} in removed["files"]
    assert not (project / "AGENTS.md").exists()
    # The block alone says nothing of which target is installed.
    install(project, "opencode")
    for relative in expected_files("opencode"):
        if relative != "AGENTS.md":
            (project / relative).unlink()
    assert wfs("agents", "install", "--check").out == "no wfs editor files are installed here\n"


@pytest.mark.slow
def test_opencode_gets_its_wfs_rule_last_in_the_project_settings(project: Path) -> None:
    settings = project / ".opencode/opencode.json"
    install(project, "opencode")
    assert read_json(settings) == {"permission": {"bash": {"wfs *": "allow"}}}
    wfs("agents", "install", "--target", "opencode", "--remove")
    assert not (project / ".opencode").exists()
    # The user's own file there: wfs's rule goes last (opencode applies the last rule
    # that matches), and --remove gives the file back as it was.
    mine = (
        '{\n  "$schema": "https://opencode.ai/config.json",\n'
        '  "permission": {"bash": {"*": "ask", "git *": "allow"}, "edit": "allow"}\n}\n'
    )
    settings.parent.mkdir()
    settings.write_text(mine)
    install(project, "opencode")
    rules = read_json(settings)["permission"]["bash"]
    assert list(rules.items()) == [("*", "ask"), ("git *", "allow"), ("wfs *", "allow")]
    assert wfs("agents", "install", "--check").code == 0
    wfs("agents", "install", "--target", "opencode", "--remove")
    assert json.loads(settings.read_text()) == json.loads(mine)
    # One action for every bash command is not a list of rules: wfs says where.
    settings.write_text('{"permission": {"bash": "ask"}}\n')
    run = wfs("--root", str(project), "agents", "install", "--target", "opencode")
    assert run.code == 2
    assert run.err == (
        "wfs: error: .opencode/opencode.json: /permission/bash: expected an object, found a "
        "string; fix it (or remove it) and install again\n"
    )
    assert settings.read_text() == '{"permission": {"bash": "ask"}}\n'


def test_a_broken_block_is_reported_and_left_alone(project: Path) -> None:
    broken = "# Mine\n<!-- wfs:end -->\n<!-- wfs:begin (written by `wfs agents install`; edit outside these lines) -->\n"
    (project / "AGENTS.md").write_text(broken)
    run = wfs("agents", "install", "--target", "agents-md")
    assert run.code == 2
    assert "AGENTS.md: the wfs block is broken" in run.err
    assert (project / "AGENTS.md").read_text() == broken


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".gemini/policies").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.slow
def test_allow_shell_writes_only_the_wfs_user_policy_and_says_so(project: Path, home: Path) -> None:
    theirs = home / ".gemini/policies/mine.toml"
    theirs.write_text('[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 1\n')
    run = wfs("agents", "install", "--target", "gemini", "--allow-shell")
    assert run.code == 0, run.err
    assert run.out.splitlines()[-1] == "written: ~/.gemini/policies/wfs.toml"
    assert "lets Gemini CLI run `wfs ...` shell commands without asking" in run.err
    assert "other policies are left alone" in run.err
    policy = tomllib.loads((home / ".gemini/policies/wfs.toml").read_text())
    assert policy == {
        "rule": [
            {
                "toolName": "run_shell_command",
                "commandPrefix": "wfs",
                "decision": "allow",
                "priority": 100,
                "allowRedirection": True,
            }
        ]
    }
    assert sorted(p.name for p in (home / ".gemini/policies").iterdir()) == [
        "mine.toml",
        "wfs.toml",
    ]
    check = wfs("agents", "install", "--check", "--target", "gemini", "--allow-shell", "--json")
    assert check.code == 0 and "~/.gemini/policies/wfs.toml" in check.out
    removed = wfs("agents", "install", "--target", "gemini", "--allow-shell", "--remove")
    assert removed.code == 0, removed.err
    assert [p.name for p in (home / ".gemini/policies").iterdir()] == ["mine.toml"]


def test_without_allow_shell_nothing_is_written_to_home(project: Path, home: Path) -> None:
    install(project, "gemini")
    assert list((home / ".gemini/policies").iterdir()) == []
    refused = wfs("agents", "install", "--target", "claude", "--allow-shell")
    assert refused.code == 2 and "--allow-shell goes with --target gemini" in refused.err


@pytest.mark.slow
def test_agents_list_shows_what_each_editor_gets_and_its_state(project: Path) -> None:
    install(project, "claude")
    (project / ".claude/commands/wfs/status.md").write_text("changed\n")
    run = wfs("agents", "list", "--json")
    assert run.code == 0
    rows = run.json()["files"]
    assert [r["path"] for r in rows] == [p for t in TARGETS for p in expected_files(t)]
    states = {(r["target"], r["path"]): r["state"] for r in rows}
    assert states[("claude", ".claude/commands/wfs/status.md")] == "differs"
    assert states[("claude", ".claude/commands/wfs/plan.md")] == "installed"
    assert states[("gemini", ".gemini/commands/wfs/plan.toml")] == "missing"
    only = wfs("agents", "list", "--target", "codex")
    assert only.out.splitlines()[0].split() == [
        "codex",
        "missing",
        command_path("codex", "execute"),
    ]


# ---------------------------------------------------------------- bundles in this repository


@pytest.mark.slow
def test_editor_bundles_in_the_repository_are_up_to_date() -> None:
    run = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_editor_bundles.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr


def test_the_claude_plugin_keeps_the_commands_under_wfs() -> None:
    plugin = REPO / "editors" / "claude"
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "wfs"  # plugin commands are /<plugin>:<command>
    assert sorted(p.name for p in (plugin / "commands").iterdir()) == [f"{n}.md" for n in COMMANDS]
    assert sorted(p.name for p in (plugin / "agents").iterdir()) == [f"{n}.md" for n in AGENTS]
    marketplace = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = marketplace["plugins"]
    assert entry["name"] == "wfs" and (REPO / entry["source"]).resolve() == plugin.resolve()
    execute = (plugin / "commands" / "execute.md").read_text()
    assert "(`wfs:code-developer`)" in execute  # plugin agents are named <plugin>:<agent>


def test_the_gemini_extension_keeps_the_commands_under_wfs() -> None:
    extension = REPO / "editors" / "gemini"
    manifest = json.loads((extension / "gemini-extension.json").read_text())
    assert manifest["name"] == "wfs"
    assert sorted(p.name for p in (extension / "commands" / "wfs").iterdir()) == [
        f"{n}.toml" for n in COMMANDS
    ]
    assert sorted(p.name for p in (extension / "agents").iterdir()) == [f"{n}.md" for n in AGENTS]


# ---------------------------------------------------------------- done when

RELEASE_PLAN = {
    "overview": "Write release notes from a changelog, with an agent drafting them",
    "requirements": ["Notes drafted by an agent", "Checked by a script"],
    "tasks": [
        {
            "id": "IMPL-1",
            "title": "Create the changelog file",
            "context": {"focus_paths": ["build"]},
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": "Write the changelog",
                        "description": "Two entries in build/changelog.txt",
                        "modification_points": ["Create build/changelog.txt"],
                        "logic_flow": ["mkdir build", "write two lines"],
                        "command": "bash(mkdir -p build && printf 'fix: login\\nfeat: tokens\\n'"
                        " > build/changelog.txt && cat build/changelog.txt)",
                        "depends_on": [],
                        "output": "changelog",
                    }
                ],
            },
        },
        {
            "id": "IMPL-2",
            "title": "Write the release notes",
            "context": {"depends_on": ["IMPL-1"], "focus_paths": ["build"]},
            "flow_control": {
                "pre_analysis": [
                    {
                        "step": "load_changes",
                        "action": "Read the changelog",
                        "command": "Read(build/changelog.txt)",
                        "output_to": "changes",
                    }
                ],
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": "Draft the notes",
                        "description": "Summarise these changes for users: [changes]",
                        "modification_points": ["None: answer with the notes"],
                        "logic_flow": ["read the changes", "write one line per change"],
                        "depends_on": [],
                        "output": "notes",
                    },
                    {
                        "step": 2,
                        "title": "Save the notes",
                        "description": "Store the drafted notes",
                        "modification_points": ["Create build/notes.txt"],
                        "logic_flow": ["write [notes] to build/notes.txt"],
                        "command": "bash(printf '%s\\n' [notes] > build/notes.txt"
                        " && cat build/notes.txt)",
                        "depends_on": [1],
                        "output": "saved",
                    },
                    {
                        "step": 3,
                        "title": "Proofread the notes",
                        "description": "Proofread: [saved]",
                        "modification_points": [],
                        "logic_flow": ["read", "judge", "answer with a verdict"],
                        "depends_on": [2],
                        "output": "verdict",
                    },
                ],
            },
        },
        {
            "id": "IMPL-3",
            "title": "Check the results",
            "context": {"depends_on": ["IMPL-2"]},
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": "Both files exist",
                        "description": "build/changelog.txt and build/notes.txt are not empty",
                        "modification_points": [],
                        "logic_flow": ["test -s each file"],
                        "command": "bash(test -s build/changelog.txt && test -s build/notes.txt"
                        " && wc -l < build/notes.txt)",
                        "success_criteria": "not_empty",
                        "depends_on": [],
                        "output": "check",
                    }
                ],
            },
        },
    ],
}


class Pause(NamedTuple):
    """A pause of `wfs execute`, read from its text output as the command describes it."""

    task: str
    keys: list[str]  # the steps to do
    brief: str  # from the `# IMPL-N: title` heading to the end of `## How to answer`
    agent: str  # the name under `## Your role:`
    resume: str  # the command on the `Resume:` line


def read_pause(output: str) -> Pause:
    lines = output.splitlines()
    (first,) = [i for i, line in enumerate(lines) if line.startswith("Paused: ")]
    (last,) = [i for i, line in enumerate(lines) if line.startswith("Resume: ")]
    head = re.match(r"Paused: (\S+) · (.*): ", lines[first])
    assert head, lines[first]
    keys = re.findall(r"\(([a-z_]+/\d+|task)\)", head.group(2))
    brief = "\n".join(lines[first + 1 : last]).strip("\n")
    assert brief.startswith(f"# {head.group(1)}: "), brief[:80]
    role = re.search(r"^## Your role: @(\S+)$", brief, re.M)
    assert role, brief
    return Pause(head.group(1), keys, brief, role.group(1), lines[last].removeprefix("Resume: "))


class ExecuteInstructions:
    """The `/wfs:execute` loop, read from the installed command itself."""

    # How a paused step is read and resumed, exactly as the command words it.
    PHRASES: tuple[str, ...] = (
        "A pause prints the line `Paused: IMPL-2 · <step> (<key>): <why>`",
        "from its `# IMPL-2: <title>` heading to the end of its `## How to answer` section",
        "the agent (`## Your role: @code-developer`)",
        "on the line `Resume: wfs --session … execute --resume IMPL-2\n   --output-file F`",
        "Take the command on the `Resume:` line and replace its final `F` with\n   `-`",
        "Add `--all` when the\n   arguments above contain `--all`",
        "Give the answer in a quoted here-document",
        "the closing `WFS_ANSWER` stands\n   alone on its line",
    )

    def __init__(self, body: str, arguments: str) -> None:
        self.arguments = arguments
        loop = [line for line in wfs_command_lines(body) if line.split()[:2] == ["wfs", "execute"]]
        assert loop, "the execute command shows no `wfs execute` line"
        self.start = shlex.split(loop[0].replace("$ARGUMENTS", arguments))
        self.actions = {
            int(code): action
            for codes, action in re.findall(
                r"^\s*\|\s*(\d+(?:, \d+)*)\s*\|.*\|\s*\*\*(\w+)\*\*", body, re.M
            )
            for code in codes.split(", ")
        }
        words = " ".join(body.split())
        for phrase in self.PHRASES:
            assert " ".join(phrase.split()) in words, phrase
        finish = body.split("**Every task completed**", 1)[1]
        self.finish = shlex.split(wfs_command_lines(finish)[0])

    def resume_command(self, pause: Pause, answer_path: str) -> str:
        """The `Resume:` line with its final `F` replaced by `answer_path`, and `--all`
        added when the arguments hold it: as the command says."""
        assert pause.resume.endswith(" --output-file F"), pause.resume
        command = pause.resume.removesuffix(" F") + " " + answer_path
        return command + (" --all" if "--all" in self.arguments.split() else "")

    def resume_script(self, pause: Pause, answer: str) -> str:
        """The shell command that resumes with `answer`, built as the command says."""
        return f"{self.resume_command(pause, '-')} <<'WFS_ANSWER'\n{answer}\nWFS_ANSWER\n"


def run_shell(script: str, cwd: Path) -> Any:
    """`script` run by bash, with this environment's wfs first on PATH."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    proc = subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return proc


def fake_agent(brief: str) -> str:
    """Stands in for the agent the brief names: answers from the brief alone."""
    if "Output binds to: [notes]" in brief:
        # [changes] was resolved for the agent.
        assert "Description: Summarise these changes for users: fix: login" in brief
        return "Login is fixed.\nTokens are new."
    assert "Output binds to: [verdict]" in brief
    assert "Description: Proofread: Login is fixed." in brief  # the answer reached step 2
    # Text a shell would expand if the here-document were not quoted.
    return "Approved: `date` and $HOME stay as written."


@pytest.mark.slow
def test_execute_loop_as_installed_takes_a_session_from_plan_to_completed(
    tmp_path: Path, project: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    body = prompt_text(project / command_path("claude", "execute"))
    loop = ExecuteInstructions(body, arguments="--all")
    assert loop.start == ["wfs", "execute", "--all"]
    assert loop.actions == {
        0: "stop",
        1: "stop",
        2: "stop",
        3: "resume",
        4: "retry",
        130: "stop",
        143: "stop",
    }
    assert loop.finish == ["wfs", "session", "complete"]

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(RELEASE_PLAN))
    wfs_process("init", "--no-git", cwd=project)
    planned = wfs_process("plan", "Release notes", "--from", str(plan_file), cwd=project)
    assert planned.code == 0, planned.err
    sid = planned.out.strip()

    script, codes, steps = shlex.join(loop.start), [], []
    for _turn in range(10):
        run = run_shell(script, project)
        codes.append(run.returncode)
        action = loop.actions[run.returncode]
        if action == "stop":
            break
        assert action == "resume", run.stderr  # no other process holds the lock here
        pause = read_pause(run.stdout)
        assert (pause.task, pause.agent) == ("IMPL-2", "code-developer")
        assert f"Session {sid}, phase IMPLEMENT." in pause.brief
        assert pause.brief.rstrip().endswith("An empty answer is refused.")  # the contract
        steps += pause.keys
        script = loop.resume_script(pause, fake_agent(pause.brief))
    assert codes == [3, 3, 0], run.stderr
    assert steps == ["implementation_approach/1", "implementation_approach/3"]
    assert run.stdout.splitlines() == [
        f"IMPL-2: completed → .workflow/{sid}/.summaries/IMPL-2-summary.md",
        f"IMPL-3: completed → .workflow/{sid}/.summaries/IMPL-3-summary.md",
        "Run: 2 completed.",
    ]

    status = wfs_process("status", "--json", cwd=project)
    assert status.code == 0
    summary = status.json()
    assert summary["session"] == sid
    assert summary["phase"] == "REVIEW"
    assert summary["counts"] == {
        "pending": 0,
        "active": 0,
        "completed": 3,
        "blocked": 0,
        "container": 0,
    }
    assert summary["progress"]["completed"] == summary["progress"]["total"] == 3
    assert summary["progress"]["percent"] == 100
    assert summary["progress"]["completed_phases"] == ["PLAN", "IMPLEMENT"]
    assert summary["ready"] == [] and summary["blocked"] == []

    # Every task is completed, so the loop's last instruction closes the session.
    assert wfs_process(*loop.finish[1:], cwd=project).code == 0
    closed = wfs_process("--session", sid, "status", "--json", cwd=project).json()
    assert closed["status"] == "completed"
    tasks = wfs_process("--session", sid, "task", "list", "--json", cwd=project).json()
    assert [(t["id"], t["status"]) for t in tasks["tasks"]] == [
        ("IMPL-1", "completed"),
        ("IMPL-2", "completed"),
        ("IMPL-3", "completed"),
    ]

    # The agent's answers reached the run record, the next step and the task summary.
    session_dir = project / ".workflow" / sid
    record = read_json(session_dir / ".runs" / "IMPL-2.json")
    given = record["steps"]["implementation_approach/1"]
    assert (given["status"], given["how"]) == ("done", "given on resume")
    # A here-document ends with a newline; wfs may keep it or not.
    assert given["output"].rstrip("\n") == "Login is fixed.\nTokens are new."
    verdict = record["steps"]["implementation_approach/3"]["output"].rstrip("\n")
    assert verdict == "Approved: `date` and $HOME stay as written."
    notes = (project / "build/notes.txt").read_text()
    assert notes.rstrip("\n") == "Login is fixed.\nTokens are new."
    notes_summary = (session_dir / ".summaries" / "IMPL-2-summary.md").read_text()
    assert "Login is fixed.\nTokens are new." in notes_summary
    assert "Approved: `date` and $HOME stay as written." in notes_summary
    assert "given on resume" in notes_summary
    assert "- [x]" in (session_dir / "TODO_LIST.md").read_text()


def test_the_docs_name_the_editor_versions_pinned_for_the_tests() -> None:
    pins = json.loads((REPO / "tests" / "editors" / "package.json").read_text())
    versions = pins["dependencies"]
    for doc in (REPO / "README.md", REPO / "agents" / "README.md"):
        text = doc.read_text()
        for package, editor in (
            ("@anthropic-ai/claude-code", "Claude Code"),
            ("@google/gemini-cli", "Gemini CLI"),
            ("@openai/codex", "Codex CLI"),
            ("@qwen-code/qwen-code", "Qwen Code"),
            ("@github/copilot", "Copilot CLI"),
            ("opencode-ai", "opencode"),
        ):
            assert f"{editor} {versions[package]}" in " ".join(text.split()), (doc, editor)


def test_install_removes_what_a_killed_install_left_behind(project: Path) -> None:
    """A kill during `wfs agents install` leaves temporary files beside the editor's
    files; the next install removes them, and --check is then clean."""
    folder = project / ".claude/commands/wfs"
    folder.mkdir(parents=True)
    leftovers = [folder / ".execute.md.k3j9x2.tmp", folder / ".plan.md.a1b2c3.tmp"]
    for path in leftovers:
        path.write_text("half a file")
    run = wfs("agents", "install", "--target", "claude")
    assert run.code == 0, run.err
    assert not any(path.exists() for path in leftovers)
    assert sorted(p.name for p in folder.iterdir()) == [
        "execute.md",
        "plan.md",
        "status.md",
        "switch.md",
    ]
    assert wfs("agents", "install", "--check", "--target", "claude").code == 0


def test_the_shared_agents_skills_work_in_every_program_that_loads_them(project: Path) -> None:
    """`.agents/skills` is read by Codex and also by opencode, Copilot CLI, Qwen Code and
    Gemini CLI: no instruction in it holds for Codex alone without saying so."""
    install(project, "codex")
    texts = {
        name: prompt_text(project / command_path("codex", name))
        for name in ("execute", "plan", "status", "switch")
    }
    for name, text in texts.items():
        assert "$wfs-" not in text, name  # Codex's way to mention a skill
        assert f"the text the user wrote after `wfs-{name}`" in text or name == "plan", name
    execute = " ".join(texts["execute"].split())
    codex_only = execute.index("- In Codex: spawn the custom agent of that name, `spawn_agent`")
    other = execute.index("- In another program with a subagent of that name: hand it")
    assert codex_only < execute.index("`wait_agent`") < other
    assert "set it to `false`), and wait for its final message" in execute
    assert "Otherwise read its definition, `.codex/agents/code-developer.toml`" in execute
