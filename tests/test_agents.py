"""`wfs agents install` and the shipped slash commands and agent definitions (SPEC §5)."""

from __future__ import annotations

import json
import re
import shlex
import time
import tomllib
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from conftest import read_json, tree_listing, wfs, wfs_process

from wfs.cli import AGENT_TARGETS, cli

TARGETS = ("claude", "gemini", "codex")
COMMANDS = ("execute", "plan", "status", "switch")
AGENTS = (
    "action-planning-agent",
    "code-developer",
    "conceptual-planning-agent",
    "test-fix-agent",
    "universal-executor",
)
COMMAND_PATHS = {
    "claude": ".claude/commands/wfs/{}.md",
    "gemini": ".gemini/commands/wfs/{}.toml",
    "codex": ".codex/prompts/wfs-{}.md",
}
AGENT_PATHS = {
    "claude": ".claude/agents/{}.md",
    "gemini": ".gemini/agents/{}.md",
    "codex": ".codex/wfs-agents/{}.md",
}
ARGUMENT_PLACEHOLDER = {"claude": "$ARGUMENTS", "gemini": "{{args}}", "codex": "$ARGUMENTS"}


def expected_files(target: str) -> list[str]:
    return sorted(
        [COMMAND_PATHS[target].format(name) for name in COMMANDS]
        + [AGENT_PATHS[target].format(name) for name in AGENTS]
    )


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


def prompt_text(path: Path) -> str:
    """What the editor sends to the model: the body, or a Gemini command's prompt."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return str(tomllib.loads(text)["prompt"])
    return split_frontmatter(text)[1]


# ---------------------------------------------------------------- wfs command lines

_FENCE = re.compile(r"^\s*```")
_INLINE = re.compile(r"`([^`]+)`")
_SHELL_OPERATORS = {"|", "||", "&&", ";", ">", ">>", "<", "&", "(", ")"}


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
    for placeholder in ARGUMENT_PLACEHOLDER.values():
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


# ---------------------------------------------------------------- install


def test_cli_targets_are_the_installer_targets() -> None:
    from wfs.agents_install import TARGETS as INSTALLER_TARGETS

    assert AGENT_TARGETS == tuple(INSTALLER_TARGETS) == TARGETS


@pytest.mark.parametrize("target", TARGETS)
def test_install_writes_exactly_the_expected_files(project: Path, target: str) -> None:
    data = install(project, target)
    assert data["target"] == target
    assert data["files"] == [{"path": p, "action": "written"} for p in expected_files(target)]
    files = [p for p in tree_listing(project) if (project / p).is_file()]
    assert files == expected_files(target)


@pytest.mark.parametrize("target", TARGETS)
def test_installed_files_parse_and_carry_the_required_keys(project: Path, target: str) -> None:
    install(project, target)
    for name in COMMANDS:
        path = project / COMMAND_PATHS[target].format(name)
        text = path.read_text(encoding="utf-8")
        if target == "gemini":
            data = tomllib.loads(text)
            assert set(data) == {"description", "prompt"}
            body = data["prompt"]
        else:
            data, body = split_frontmatter(text)
            expected = {"description", "argument-hint"}
            if target == "claude":
                expected.add("allowed-tools")
                assert "Bash(wfs:*)" in data["allowed-tools"]
            assert set(data) == expected
            assert data["argument-hint"].startswith("[")
        assert isinstance(data["description"], str) and len(data["description"]) > 20
        assert ARGUMENT_PLACEHOLDER[target] in body, f"{path}: arguments are not used"
        assert body.lstrip().startswith("# ")
    for name in AGENTS:
        path = project / AGENT_PATHS[target].format(name)
        data, body = split_frontmatter(path.read_text(encoding="utf-8"))
        expected = (
            {"name", "description", "tools"} if target == "claude" else {"name", "description"}
        )
        assert set(data) == expected
        assert data["name"] == name
        assert len(data["description"]) > 40
        if target == "claude":
            tools = [t.strip() for t in data["tools"].split(",")]
            assert {"Read", "Bash"} <= set(tools)
        assert body.lstrip().startswith(f"# @{name}")


@pytest.mark.parametrize("target", TARGETS)
def test_installed_text_has_no_template_leftovers_or_accidental_expansions(
    project: Path, target: str
) -> None:
    install(project, target)
    for relative in expected_files(target):
        text = prompt_text(project / relative)
        assert "{%" not in text and "{{ " not in text and "{#" not in text, relative
        if target == "gemini" and relative.endswith(".toml"):
            # Gemini runs !{...} and inlines @{...} before the model sees the prompt.
            assert "!{" not in text and "@{" not in text, relative
        if target != "gemini" and ("/commands/" in relative or "/prompts/" in relative):
            assert not re.search(r"\$[0-9]", text), relative
            if target == "codex":
                # Codex turns every other $UPPERCASE word into a required named argument.
                assert set(re.findall(r"\$[A-Z][A-Z0-9_]*", text)) == {"$ARGUMENTS"}, relative
            if target == "claude":
                assert "!`" not in text, relative  # Claude Code would run it as bash


@pytest.mark.parametrize("target", TARGETS)
def test_every_wfs_command_line_in_the_installed_files_is_real(project: Path, target: str) -> None:
    install(project, target)
    checked = 0
    for relative in expected_files(target):
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


def test_the_command_line_check_accepts_global_options_and_capture() -> None:
    for line in (
        "wfs --session WFS-x execute --resume IMPL-1 --output-file F --json --all",
        "wfs --root . --json status",
        'wfs capture test "auth suite" -- python -m pytest -q tests/auth',
        "wfs execute --json $ARGUMENTS",
        "wfs switch {{args}} --json",
        "wfs task split IMPL-2 --from subtasks.json    # IMPL-2.1, IMPL-2.2, ...",
    ):
        assert check_wfs_line(line) is None, check_wfs_line(line)


def test_agent_definitions_say_what_they_get_and_how_to_report_through_wfs(
    project: Path,
) -> None:
    install(project, "claude")
    for name in AGENTS:
        text = prompt_text(project / AGENT_PATHS["claude"].format(name))
        for needle in (
            '"workflow": {"session": "WFS-user-auth", "phase": "IMPLEMENT"}',
            '"steps": [{"key"',
            '`fix`',
            "wfs execute --resume",
            "--output-file",
            "--output TEXT",
            "--skip",
            "## TASK BLOCKED: <what blocks you>",
            "## CHECKPOINT REACHED",
            "wfs capture",
            "Never create, edit or delete its JSON files",
        ):
            assert needle in text, f"{name}: {needle}"


def test_commands_drive_the_documented_wfs_commands(project: Path) -> None:
    install(project, "claude")

    def lines(name: str) -> list[str]:
        return wfs_command_lines(prompt_text(project / COMMAND_PATHS["claude"].format(name)))

    plan = lines("plan")
    assert 'wfs plan "TOPIC" --from FILE --json' in plan
    assert {"wfs schema plan", "wfs schema task", "wfs validate --json"} <= set(plan)
    assert "wfs execute --json $ARGUMENTS" in lines("execute")
    assert {"wfs switch $ARGUMENTS --json", "wfs session list --json"} <= set(lines("switch"))
    assert {"wfs status --json", "wfs next --all --json"} <= set(lines("status"))


def test_the_example_plan_of_the_plan_command_is_accepted(project: Path) -> None:
    install(project, "claude")
    body = prompt_text(project / COMMAND_PATHS["claude"].format("plan"))
    example = re.search(r"```json\n(.*?)```", body, re.S)
    assert example is not None
    document = "\n".join(line[3:] for line in example.group(1).splitlines())
    (project / "plan.json").write_text(document)
    run = wfs("plan", "Login rate limit", "--from", "plan.json", "--json")
    assert run.code == 0, run.err
    assert run.json()["tasks"] == 2
    assert wfs("validate").code == 0


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
    assert "nothing was written" in run.err and "--force" in run.err
    assert edited.read_text() == "my own version\n"
    assert not removed.exists()  # all or nothing: the missing file was not written either


def test_force_overwrites_changed_files_and_reports_each_action(project: Path) -> None:
    first = install(project, "codex")
    shipped = (project / ".codex/prompts/wfs-plan.md").read_bytes()
    (project / ".codex/prompts/wfs-plan.md").write_text("stale\n")
    (project / ".codex/wfs-agents/test-fix-agent.md").unlink()
    data = install(project, "codex", "--force")
    actions = {row["path"]: row["action"] for row in data["files"]}
    assert actions.pop(".codex/prompts/wfs-plan.md") == "overwritten"
    assert actions.pop(".codex/wfs-agents/test-fix-agent.md") == "written"
    assert set(actions.values()) == {"unchanged"}
    assert len(data["files"]) == len(first["files"])
    assert (project / ".codex/prompts/wfs-plan.md").read_bytes() == shipped


def test_rerun_reports_every_file_unchanged_and_touches_none(project: Path) -> None:
    install(project, "gemini")
    mtimes = {p: (project / p).stat().st_mtime_ns for p in expected_files("gemini")}
    data = install(project, "gemini")
    assert {row["action"] for row in data["files"]} == {"unchanged"}
    assert {p: (project / p).stat().st_mtime_ns for p in mtimes} == mtimes


def test_human_output_names_each_file(project: Path) -> None:
    run = wfs("agents", "install", "--target", "claude")
    assert run.code == 0
    assert run.out.splitlines() == [f"written: {p}" for p in expected_files("claude")]
    again = wfs("agents", "install", "--target", "claude")
    assert again.out.splitlines() == [f"unchanged: {p}" for p in expected_files("claude")]


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
    assert (elsewhere / ".codex/prompts/wfs-execute.md").is_file()


def test_install_refuses_a_symlink_leading_out_of_the_root(tmp_path: Path, project: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / ".claude").symlink_to(outside)
    run = wfs("agents", "install", "--target", "claude")
    assert run.code == 2
    assert "symlink leading outside the project root" in run.err
    assert list(outside.iterdir()) == []


def test_unknown_target_is_a_usage_error(project: Path) -> None:
    run = wfs("agents", "install", "--target", "vim")
    assert run.code == 2
    assert "'vim' is not one of" in run.err
    assert not any(project.iterdir())


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
    assert only.out.splitlines()[0].split() == ["codex", "missing", ".codex/prompts/wfs-execute.md"]


def test_rendering_is_deterministic_and_differs_only_where_editors_differ() -> None:
    from wfs.agents_install import rendered_files

    for target in TARGETS:
        assert rendered_files(target) == rendered_files(target)
    claude = dict(rendered_files("claude"))
    codex = dict(rendered_files("codex"))
    # Same source: the code-developer body only differs in the slash-command spelling.
    a = split_frontmatter(claude[".claude/agents/code-developer.md"].decode())[1]
    b = split_frontmatter(codex[".codex/wfs-agents/code-developer.md"].decode())[1]
    assert a.replace("/wfs:", "/prompts:wfs-") == b


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


class ExecuteInstructions:
    """The `/wfs:execute` loop, read from the installed command itself."""

    def __init__(self, body: str, arguments: str) -> None:
        self.arguments = arguments
        loop = [line for line in wfs_command_lines(body) if line.startswith("wfs execute --json")]
        assert loop, "the execute command shows no `wfs execute --json` line"
        self.start = shlex.split(loop[0].replace("$ARGUMENTS", arguments))
        self.actions = {
            int(code): action
            for codes, action in re.findall(
                r"^\s*\|\s*(\d+(?:, \d+)*)\s*\|.*\|\s*\*\*(\w+)\*\*", body, re.M
            )
            for code in codes.split(", ")
        }
        # How a resume command is built, exactly as the command words it.
        for phrase in (
            "Build the resume command from `brief.resume` (a list of arguments)",
            "append\n   `--output-file` and the output file's path, then `--json`",
            "`--all` when the\n   arguments above contain `--all`",
            "Take the entry of `tasks` whose `status` is `paused`",
        ):
            assert phrase in body, phrase
        finish = body.split("**Every task completed**", 1)[1]
        self.finish = shlex.split(wfs_command_lines(finish)[0])

    def resume_command(self, brief: dict[str, Any], output_file: Path) -> list[str]:
        tokens = [*brief["resume"], "--output-file", str(output_file), "--json"]
        if "--all" in self.arguments.split():
            tokens.append("--all")
        return tokens


def fake_agent(brief: dict[str, Any]) -> str:
    """Stands in for the agent named by the brief: answers from the step alone."""
    step = brief["steps"][0]
    if step["output"] == "notes":
        assert "fix: login" in step["description"]  # [changes] was resolved for the agent
        return "Login is fixed.\nTokens are new."
    assert step["output"] == "verdict"
    assert "Login is fixed." in step["description"]  # the resumed output reached step 2
    return "Approved by the proofreader."


def test_execute_loop_as_installed_takes_a_session_from_plan_to_completed(
    tmp_path: Path, project: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    body = prompt_text(project / ".claude/commands/wfs/execute.md")
    loop = ExecuteInstructions(body, arguments="--all")
    assert loop.start == ["wfs", "execute", "--json", "--all"]
    assert loop.actions == {
        0: "stop", 1: "stop", 2: "stop", 3: "resume", 4: "retry", 130: "stop", 143: "stop"
    }
    assert loop.finish == ["wfs", "session", "complete"]

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(RELEASE_PLAN))
    planned = wfs_process("plan", "Release notes", "--from", str(plan_file), cwd=project)
    assert planned.code == 0, planned.err
    sid = planned.out.strip()

    command, codes, briefs = loop.start, [], []
    for turn in range(10):
        run = wfs_process(*command[1:], cwd=project)
        codes.append(run.code)
        action = loop.actions[run.code]
        if action == "stop":
            break
        if action == "retry":
            time.sleep(0.2)
            continue
        (paused,) = [t for t in run.json()["tasks"] if t["status"] == "paused"]
        brief = paused["brief"]
        assert brief["workflow"] == {"session": sid, "phase": "IMPLEMENT"}
        assert brief["task"]["id"] == paused["task"] == "IMPL-2"
        assert brief["task"]["meta"]["agent"] == "@code-developer"
        briefs.append(brief["steps"][0]["key"])
        output_file = tmp_path / f"step-{turn}.md"
        output_file.write_text(fake_agent(brief))
        command = loop.resume_command(brief, output_file)
    assert codes == [3, 3, 0]
    assert briefs == ["implementation_approach/1", "implementation_approach/3"]
    assert run.json()["status"] == "completed"
    assert [t["task"] for t in run.json()["tasks"]] == ["IMPL-2", "IMPL-3"]

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
    assert given["output"] == "Login is fixed.\nTokens are new."
    assert record["steps"]["implementation_approach/3"]["output"] == "Approved by the proofreader."
    assert (project / "build/notes.txt").read_text() == "Login is fixed.\nTokens are new.\n"
    notes_summary = (session_dir / ".summaries" / "IMPL-2-summary.md").read_text()
    assert "Login is fixed.\nTokens are new." in notes_summary
    assert "Approved by the proofreader." in notes_summary
    assert "given on resume" in notes_summary
    assert "- [x]" in (session_dir / "TODO_LIST.md").read_text()
