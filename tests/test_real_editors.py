"""The installed commands, skills and agents inside the real editor programs (SPEC §5).

Claude Code, Gemini CLI and Codex CLI, the newest versions on npm (tests/real_editors.py),
run headless in a temporary project against a loopback stand-in for their model API (tests/model_standins.py). Only the model is fake: the
editors' own command and skill loaders, argument substitution, permission systems and
subagent runners are the real ones. The stand-in answers like a model following the
installed text, and records every request, so the tests see what reached the model and
what the editor did with each tool call. When the editors cannot be installed the tests
fail with the reason; they never skip.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shlex
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, read_json, wfs_process
from model_standins import Call, Conversation, Move, Say, StandIn, running
from real_editors import (
    INSTALLED,
    PROGRAMS,
    base_environment,
    run,
    stream_events,
)
from test_agents import (
    AGENTS,
    RELEASE_PLAN,
    ExecuteInstructions,
    Pause,
    agent_path,
    fake_agent,
    parse,
    read_pause,
)

SMALL_PLAN = [
    {"id": "IMPL-1", "title": "Write the greeting"},
    {"id": "IMPL-2", "title": "Test the greeting", "context": {"depends_on": ["IMPL-1"]}},
]
ADDED_TASK = '[{"id": "IMPL-3", "title": "Added from inside the editor"}]'
MCP_TOOLS = ("execute", "next", "plan", "resume", "status", "switch", "task_show", "validate")


def planned_session(project: Path, tasks: Any = SMALL_PLAN, topic: str = "Greeter") -> str:
    (project / "plan.json").write_text(json.dumps(tasks))
    wfs_process("init", "--no-git", cwd=project)
    planned = wfs_process("plan", topic, "--from", "plan.json", cwd=project)
    assert planned.code == 0, planned.err
    (project / "plan.json").unlink()
    return planned.out.strip()


def texts(value: Any) -> Iterator[str]:
    """Every string inside a request body, for looking up what reached the model."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)


def seen(standin: StandIn) -> str:
    return "\n".join(text for request in standin.requests for text in texts(request.body))


def heredoc(argv: list[str], document: str, word: str) -> str:
    return f"{shlex.join(argv)} <<'{word}'\n{document}\n{word}"


# A one-task plan whose agent step is followed by a check: the task completes only when
# the subagent really wrote the file, and a blocked answer must stop it before the check.
CHECKED_PLAN = [
    {
        "id": "IMPL-1",
        "title": "Write the greeting",
        "flow_control": {
            "implementation_approach": [
                {
                    "step": 1,
                    "title": "Write greeting.txt",
                    "description": "Create greeting.txt holding the one line: hello",
                    "modification_points": ["Create greeting.txt"],
                    "logic_flow": ["write the line"],
                    "output": "report",
                },
                {
                    "step": 2,
                    "title": "Check the greeting",
                    "description": "greeting.txt holds hello",
                    "command": "bash(grep -qx hello greeting.txt && echo checked >> check.log)",
                    "depends_on": [1],
                },
            ]
        },
    }
]
DONE_REPORT = "## TASK COMPLETE\nCreated greeting.txt with the line hello."
BLOCKED_REPORT = "## TASK BLOCKED: the greeting's wording is not decided\nNothing was written."


PLACEHOLDERS = {"ARGS": "IMPL-1", "$ARGUMENTS": "IMPL-1", "{{args}}": "IMPL-1"}


class CheckedLoop:
    """Plays the main model of the installed execute text on CHECKED_PLAN, one editor's
    tools given as functions: run `wfs execute`, hand the paused step to the subagent,
    resume with what the subagent tool returned, wrapper and all (wfs reads the report
    out of it), and stop on the resume's exit code.

    `delegate(pause, results)` makes the next call of the hand-off, given the results of
    its calls so far, or returns the answer (a str) once it has it."""

    def __init__(
        self,
        shell: Callable[[str], Move],
        delegate: Callable[[Pause, list[str]], Move | str],
        output: Callable[[str], tuple[int, str]],
    ) -> None:
        self.shell, self.delegate, self.output = shell, delegate, output
        self.codes: list[int] = []
        self.pause: Pause | None = None
        self.handed_at = 0  # the tool results before the hand-off
        self.answers: list[str] = []

    def __call__(self, conversation: Conversation, body: str) -> Move:
        loop = ExecuteInstructions(body, arguments="IMPL-1")
        results = conversation.tool_results
        if not results:
            # The editor put the arguments in, or the text names its stand-in for them.
            start = [PLACEHOLDERS.get(word, word) for word in loop.start]
            assert start == ["wfs", "execute", "IMPL-1"], loop.start
            return self.shell(shlex.join(start))
        if self.pause is not None and not self.answers:
            move = self.delegate(self.pause, results[self.handed_at :])
            if not isinstance(move, str):
                return move
            self.answers.append(move)
            return self.shell(loop.resume_script(self.pause, move).rstrip("\n"))
        code, output = self.output(results[-1])
        self.codes.append(code)
        if self.pause is None and code == 3:
            self.pause, self.handed_at = read_pause(output), len(results)
            move = self.delegate(self.pause, [])
            assert not isinstance(move, str)
            return move
        return Say(f"wfs stopped with exit code {code}.")


def assert_checked_plan_ended(project: Path, sid: str, loop: CheckedLoop, report: str) -> None:
    """The task completed (the check ran once) or, for a blocked report, is blocked and
    the check never ran; either way the report, not its wrapper, is what wfs recorded."""
    assert loop.pause is not None and loop.pause.agent == "code-developer", loop.codes
    assert loop.answers and report.splitlines()[-1] in loop.answers[0]
    shown = wfs_process("--session", sid, "task", "show", "IMPL-1", "--json", cwd=project)
    record = read_json(project / ".workflow" / sid / ".runs" / "IMPL-1.json")
    if report == BLOCKED_REPORT:
        assert loop.codes == [3, 1], loop.codes
        assert shown.json()["status"] == "blocked"
        assert not (project / "check.log").exists()
        assert "the greeting's wording is not decided" in json.dumps(record)
    else:
        assert loop.codes == [3, 0], loop.codes
        assert shown.json()["status"] == "completed"
        assert (project / "greeting.txt").read_text() == "hello\n"
        assert (project / "check.log").read_text() == "checked\n"
        (first_step, *_) = record["steps"].values()
        assert first_step["output"].rstrip("\n") == report


# ---------------------------------------------------------------- Claude Code


def claude_events(
    editors: Path, standin: StandIn, project: Path, home: Path, prompt: str, *extra: str
) -> list[dict[str, Any]]:
    """Every stream-json event of a headless Claude Code run."""
    env = base_environment(home) | {
        "ANTHROPIC_BASE_URL": standin.url,
        "ANTHROPIC_API_KEY": "sk-ant-stand-in",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        # Headless, Claude Code starts the first turn while MCP servers still connect
        # (then they show as "pending"); wait for them, however slow the machine.
        "MCP_CONNECTION_NONBLOCKING": "0",
        "MCP_TIMEOUT": "300000",
    }
    argv = [str(editors / "claude"), "-p", prompt, "--output-format", "stream-json"]
    # "default" asks before anything not allowed; headless, asking means refusing.
    argv += ["--verbose", "--permission-mode", "default", *extra]
    proc = run(argv, project, env)
    events = stream_events(proc.stdout)
    results = [e for e in events if e.get("type") == "result"]
    assert proc.returncode == 0 and results, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not standin.errors, standin.errors
    return events


def claude(
    editors: Path, standin: StandIn, project: Path, home: Path, prompt: str, *extra: str
) -> dict[str, Any]:
    """The result event of a headless Claude Code run."""
    events = claude_events(editors, standin, project, home, prompt, *extra)
    result: dict[str, Any] = [e for e in events if e.get("type") == "result"][-1]
    return result


def last_claude_call(conversation: Conversation) -> dict[str, Any]:
    """The tool_use block of the model's last turn."""
    for message in reversed(conversation.request.body["messages"]):
        if message["role"] == "assistant":
            blocks = [b for b in message["content"] if b.get("type") == "tool_use"]
            return blocks[-1]
    raise AssertionError("no tool call yet")


def bash_result(text: str) -> tuple[int, str]:
    """(exit code, output) of a Bash tool result: Claude Code prefixes "Exit code N"."""
    match = re.match(r"Exit code (\d+)\n", text)
    return (int(match.group(1)), text[match.end() :]) if match else (0, text)


def first_json(text: str) -> Any:
    return json.JSONDecoder().raw_decode(text[text.index("{") :])[0]


def subagent_report(text: str) -> str:
    """The report inside Claude Code's frame around a subagent's final message."""
    body = text.split("The report follows:\n", 1)[1].split("\nagentId: ", 1)[0]
    return "\n".join(line.removeprefix("  ") for line in body.split("\n"))


@pytest.mark.slow
def test_claude_code_loads_the_command_substitutes_arguments_and_allows_wfs(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    planned_session(project)
    expected = wfs_process("status", cwd=project)

    def script(conversation: Conversation) -> Move:
        if not conversation.tool_results:
            return Call("Bash", {"command": "wfs status", "description": "Show the session"})
        return Say("Reported the status.")

    with running("anthropic", script) as standin:
        result = claude(editors, standin, project, home, "/wfs:status IMPL-1")
    first = standin.conversations[0]
    (command,) = [t for t in first.user_texts if t.startswith("<command-message>")]
    assert "<command-name>/wfs:status</command-name>" in command
    (body,) = [t for t in first.user_texts if t.startswith("# wfs session status")]
    assert body.startswith("# wfs session status\n\nTask asked about: `IMPL-1` (may be empty).")
    assert "$ARGUMENTS" not in body and "wfs task show IMPL-1 --json" in body
    # The five agents are offered to the Agent tool, each with the tools it asked for.
    listing = "\n".join(texts(first.request.body))
    for name in AGENTS:
        data, _ = parse(project / agent_path("claude", name))
        assert f"- {name}: {data['description']} (Tools: {data['tools']})" in listing
    # The Bash call ran, allowed by the command's allowed-tools: wfs's real output.
    assert standin.conversations[-1].tool_results == [expected.out.strip()]
    assert result["permission_denials"] == []


@pytest.mark.slow
def test_claude_code_refuses_wfs_without_the_command(
    editors: Path, project: Path, home: Path
) -> None:
    """The control: what allows `wfs` above is the command's allowed-tools."""
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    planned_session(project)

    def script(conversation: Conversation) -> Move:
        if not conversation.tool_results:
            return Call("Bash", {"command": "wfs status", "description": "Show the session"})
        return Say("Could not.")

    with running("anthropic", script) as standin:
        result = claude(editors, standin, project, home, "What is the wfs status?")
    assert [d["tool_input"]["command"] for d in result["permission_denials"]] == ["wfs status"]
    (refusal,) = standin.conversations[-1].tool_results
    assert "requires approval" in refusal and "WFS-greeter" not in refusal


class ClaudeExecuteModel:
    """Plays the model following the installed /wfs:execute text, step by step.

    Main conversation: the loop of the command (start, exit-code table, Agent tool for
    a paused step, resume with the here-document). Subagent conversations (their system
    prompt is the agent definition): answer the brief like the agent would."""

    def __init__(self) -> None:
        self.instructions: ExecuteInstructions | None = None
        self.pauses: dict[str, Pause] = {}  # by the brief handed to the subagent
        self.agent_calls: list[dict[str, Any]] = []
        self.subagent_systems: list[str] = []
        self.subagent_tools: list[list[str]] = []
        self.codes: list[int] = []

    def __call__(self, conversation: Conversation) -> Move:
        if "# @code-developer" in conversation.system:
            self.subagent_systems.append(conversation.system)
            self.subagent_tools.append(conversation.tool_names)
            (prompt,) = [t for t in conversation.user_texts if "## How to answer" in t]
            return Say(fake_agent(prompt))
        if self.instructions is None:
            (body,) = [t for t in conversation.user_texts if t.startswith("# Execute wfs tasks")]
            self.instructions = ExecuteInstructions(body, arguments="--all")
        loop = self.instructions
        if not conversation.tool_results:
            return Call("Bash", {"command": shlex.join(loop.start), "description": "Run"})
        call = last_claude_call(conversation)
        result = conversation.tool_results[-1]
        if call["name"] == "Agent":
            answer = subagent_report(result)
            pause = self.pauses[call["input"]["prompt"]]
            command = loop.resume_script(pause, answer).rstrip("\n")
            return Call("Bash", {"command": command, "description": "Resume the task"})
        command = call["input"]["command"]
        code, output = bash_result(result)
        if command == shlex.join(loop.finish):
            assert code == 0, output
            return Say("The session is completed and closed.")
        if command == "wfs status --json":
            status = first_json(output)
            assert status["progress"]["completed"] == status["progress"]["total"], status
            return Call("Bash", {"command": shlex.join(loop.finish), "description": "Close"})
        self.codes.append(code)
        if loop.actions[code] == "stop":
            return Call("Bash", {"command": "wfs status --json", "description": "Report"})
        assert loop.actions[code] == "resume", output
        pause = read_pause(output)
        arguments = {
            "description": f"Do {pause.task} {' '.join(pause.keys)}",
            "prompt": pause.brief,
            "subagent_type": pause.agent,
            "run_in_background": False,
        }
        self.agent_calls.append(arguments)
        self.pauses[pause.brief] = pause
        return Call("Agent", arguments)


@pytest.mark.slow
def test_claude_code_execute_takes_a_plan_to_completed_through_subagents(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    sid = planned_session(project, RELEASE_PLAN, topic="Release notes")
    model = ClaudeExecuteModel()
    with running("anthropic", model) as standin:
        result = claude(editors, standin, project, home, "/wfs:execute --all")
    assert result["permission_denials"] == [], result["permission_denials"]
    assert model.codes == [3, 3, 0]
    # Each paused step went to the code-developer subagent, in the foreground: its
    # system prompt is the installed definition, its tools the ones the file names.
    assert [c["subagent_type"] for c in model.agent_calls] == ["code-developer"] * 2
    assert len(model.subagent_systems) == 2
    _, definition = parse(project / agent_path("claude", "code-developer"))
    for system, tools in zip(model.subagent_systems, model.subagent_tools, strict=True):
        assert definition.strip()[:2000] in system
        assert {"Read", "Write", "Edit", "Bash"} <= set(tools)
    # The subagents' answers reached wfs, and the session was closed.
    record = read_json(project / ".workflow" / sid / ".runs" / "IMPL-2.json")
    outputs = [record["steps"][key]["output"].rstrip("\n") for key in record["steps"]]
    assert "Login is fixed.\nTokens are new." in outputs
    assert "Approved: `date` and $HOME stay as written." in outputs
    closed = wfs_process("--session", sid, "status", "--json", cwd=project)
    assert closed.json()["status"] == "completed"
    assert closed.json()["progress"]["completed"] == 3


@pytest.mark.slow
@pytest.mark.parametrize("report", [DONE_REPORT, BLOCKED_REPORT], ids=["done", "blocked"])
def test_claude_code_execute_completes_a_checked_task_or_blocks_on_a_framed_report(
    editors: Path, project: Path, home: Path, report: str
) -> None:
    """The Agent tool hands the subagent's report back in a frame; resumed with the frame
    and all, wfs reads the report out of it."""
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    sid = planned_session(project, CHECKED_PLAN, topic="Greeting")

    def delegate(pause: Pause, results: list[str]) -> Move | str:
        if results:
            return results[0]
        arguments = {
            "description": f"Do {pause.task}",
            "prompt": pause.brief,
            "subagent_type": pause.agent,
            "run_in_background": False,
        }
        return Call("Agent", arguments)

    loop = CheckedLoop(
        lambda command: Call("Bash", {"command": command, "description": "wfs"}),
        delegate,
        bash_result,
    )

    def script(conversation: Conversation) -> Move:
        if "# @code-developer" in conversation.system:
            if report == BLOCKED_REPORT or conversation.tool_results:
                return Say(report)
            return Call("Write", {"file_path": str(project / "greeting.txt"), "content": "hello\n"})
        (body,) = [t for t in conversation.user_texts if t.startswith("# Execute wfs tasks")]
        return loop(conversation, body)

    with running("anthropic", script) as standin:
        result = claude(editors, standin, project, home, "/wfs:execute IMPL-1")
    assert result["permission_denials"] == [], result["permission_denials"]
    assert_checked_plan_ended(project, sid, loop, report)


@pytest.mark.slow
def test_claude_code_plugin_validates_strictly_and_loads_as_wfs(
    editors: Path, project: Path, home: Path
) -> None:
    env = base_environment(home)
    for path in (REPO / "editors" / "claude", REPO):  # the plugin, then the marketplace
        proc = run(
            [str(editors / "claude"), "plugin", "validate", "--strict", str(path)], REPO, env
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "Validation passed" in proc.stdout
    planned_session(project)

    def script(conversation: Conversation) -> Move:
        return Say("Done.")

    plugin = REPO / "editors" / "claude"
    with running("anthropic", script) as standin:
        argv = ["--plugin-dir", str(plugin)]
        claude(editors, standin, project, home, "/wfs:plan add a greeting", *argv)
    first = standin.conversations[0]
    (body,) = [t for t in first.user_texts if t.startswith("# Plan a wfs session")]
    assert "> add a greeting\n" in body
    # The plugin's own files are found through ${CLAUDE_PLUGIN_ROOT}.
    definition = plugin / "agents" / "action-planning-agent.md"
    assert f"`{definition}`" in body and definition.is_file()
    listing = "\n".join(texts(first.request.body))
    for name in AGENTS:
        assert f"- wfs:{name}: " in listing  # plugin agents are named wfs:<agent>
    assert not (project / ".claude").exists()


def digest_of(project: Path) -> str:
    """What `wfs prime` says here: the text the SessionStart hook hands the editor."""
    primed = wfs_process("prime", cwd=project)
    assert primed.code == 0, primed.err
    return primed.out


@pytest.mark.slow
def test_claude_code_runs_the_session_start_hook_and_the_digest_reaches_the_model(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "claude", cwd=project).code == 0
    planned_session(project)
    digest = digest_of(project)
    assert digest.startswith("wfs session WFS-greeter (active): phase PLAN, 0 of 2 tasks")

    with running("anthropic", lambda conversation: Say("Noted.")) as standin:
        events = claude_events(editors, standin, project, home, "/wfs:status")
    (started,) = [e for e in events if e.get("subtype") == "hook_started"]
    assert started["hook_event"] == "SessionStart"
    (response,) = [e for e in events if e.get("subtype") == "hook_response"]
    assert json.loads(response["output"]) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": digest}
    }
    # The digest reaches the model as the hook's context, and the command still works.
    first = standin.conversations[0]
    listing = list(texts(first.request.body))
    context = f"SessionStart hook additional context: {digest.rstrip()}\n"
    assert sum(context in text for text in listing) == 1
    assert any(t.startswith("# wfs session status") for t in first.user_texts)
    # CLAUDE.md's block reaches it too (Claude Code leaves out the HTML comments: the
    # markers around it).
    inner = (project / "CLAUDE.md").read_text().split("\n", 1)[1].rsplit("<!--", 1)[0]
    assert inner.startswith("## wfs: planned work sessions\n")
    assert sum(inner in text for text in listing) == 1


def trust(home: Path, project: Path) -> None:
    """What answering Claude Code's trust dialog for `project` writes: from then on it
    applies the project's permission rules, also headless."""
    state = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(state))


@pytest.mark.slow
def test_claude_code_connects_to_wfs_mcp_and_its_status_tool_answers(
    editors: Path, project: Path, home: Path
) -> None:
    installed = wfs_process("agents", "install", "--target", "claude", "--mcp", cwd=project)
    assert installed.code == 0, installed.err
    assert read_json(project / ".mcp.json") == {
        "mcpServers": {"wfs": {"type": "stdio", "command": "wfs", "args": ["mcp"]}}
    }
    planned_session(project)
    expected = wfs_process("status", "--json", cwd=project)
    tools = [f"mcp__wfs__{name}" for name in MCP_TOOLS]

    def script(conversation: Conversation) -> Move:
        done = len(conversation.tool_results)
        if done == 0:  # Claude Code defers MCP tools: their schemas come from ToolSearch
            return Call("ToolSearch", {"query": "select:mcp__wfs__status", "max_results": 1})
        if done == 1:
            return Call("mcp__wfs__status", {})
        return Say("Reported the status.")

    # Claude Code asks before a tool's first use (headless: refuses), unless a rule allows
    # it: wfs's install allows the read-only ones, in a project the user trusts.
    with running("anthropic", script) as standin:
        refused = claude_events(editors, standin, project, home, "What is the status?")
    (untrusted,) = [e for e in refused if e.get("type") == "result"]
    assert [d["tool_name"] for d in untrusted["permission_denials"]] == ["mcp__wfs__status"]
    trust(home, project)
    with running("anthropic", script) as standin:
        events = claude_events(editors, standin, project, home, "What is the status?")
    (init,) = [e for e in events if e.get("subtype") == "init"]
    assert init["mcp_servers"] == [{"name": "wfs", "status": "connected", "source": "project"}]
    assert sorted(t for t in init["tools"] if t.startswith("mcp__")) == tools
    # The eight tools are listed to the model; the one asked for comes with its schema.
    first, second, last = standin.conversations
    (deferred,) = [t for t in texts(first.request.body) if "mcp__wfs__status\n" in t]
    assert all(f"\n{tool}\n" in deferred + "\n" for tool in tools)
    (schema,) = [t for t in second.request.body["tools"] if t["name"] == "mcp__wfs__status"]
    assert schema["description"].startswith("The session's phase, type, task counts, progress")
    assert set(schema["input_schema"]["properties"]) == {"session"}
    # The call reached wfs mcp, and its answer is wfs's own: the exit code and the JSON.
    assert json.loads(last.tool_results[-1]) == {"exit_code": 0, **expected.json()}
    (result,) = [e for e in events if e.get("type") == "result"]
    assert result["permission_denials"] == []


# ---------------------------------------------------------------- Gemini CLI


def gemini_home(home: Path, project: Path, prime_hook: bool = False) -> None:
    """What a Gemini CLI user has set up: an API key login, and the project's agents
    acknowledged (headless runs skip project agents that were not). Unless `prime_hook`,
    the user turned wfs's hook off by its name, so the requests hold no digest."""
    (home / ".gemini").mkdir(exist_ok=True)
    settings: dict[str, Any] = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    if not prime_hook:
        settings["hooksConfig"] = {"disabled": ["wfs-prime"]}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    agents = project / ".gemini" / "agents"
    if agents.is_dir():
        hashes = {p.stem: hashlib.sha256(p.read_bytes()).hexdigest() for p in agents.glob("*.md")}
        (home / ".gemini" / "acknowledgments").mkdir(exist_ok=True)
        (home / ".gemini" / "acknowledgments" / "agents.json").write_text(
            json.dumps({str(project): hashes})
        )


def install_gemini(project: Path, home: Path) -> None:
    """`wfs agents install --target gemini --allow-shell` into `project` (its user policy
    into `home`), then the user's own Gemini CLI set-up (`gemini_home`)."""
    installed = wfs_process(
        "agents",
        "install",
        "--target",
        "gemini",
        "--allow-shell",
        cwd=project,
        env={"HOME": str(home)},
    )
    assert installed.code == 0, installed.err
    gemini_home(home, project)


def gemini(editors: Path, standin: StandIn, project: Path, home: Path, prompt: str) -> Any:
    env = base_environment(home) | {
        "GOOGLE_GEMINI_BASE_URL": standin.url,
        "GEMINI_API_KEY": "stand-in-key",
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
    }
    # A model named explicitly: "auto" would first ask a classifier model to route.
    argv = [str(editors / "gemini"), "-p", prompt, "-m", "gemini-2.5-pro"]
    proc = run([*argv, "--output-format", "stream-json"], project, env)
    events = stream_events(proc.stdout)
    assert proc.returncode == 0 and events, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not standin.errors, standin.errors
    return events


def is_gemini_main(conversation: Conversation) -> bool:
    return "invoke_agent" in conversation.tool_names


@pytest.mark.slow
def test_gemini_cli_loads_the_command_agents_and_policy(
    editors: Path, project: Path, home: Path
) -> None:
    install_gemini(project, home)
    sid = planned_session(project)
    expected = wfs_process("status", cwd=project)
    add = heredoc(
        ["wfs", "plan", "--session", sid, "--from", "-", "--json"], ADDED_TASK, "WFS_PLAN"
    )
    subagent_prompts: list[str] = []

    def script(conversation: Conversation) -> Move:
        if not is_gemini_main(conversation):
            subagent_prompts.append(conversation.system)
            return Call("complete_task", {"result": "Greeting written."})
        done = len(conversation.tool_results)
        if done == 0:
            return Call("run_shell_command", {"command": "wfs status", "description": "Status"})
        if done == 1:
            return Call("run_shell_command", {"command": add, "description": "Add a task"})
        if done == 2:
            prompt = "Do this wfs step and report: write the greeting."
            return Call("invoke_agent", {"agent_name": "code-developer", "prompt": prompt})
        return Say("Reported.")

    with running("gemini", script) as standin:
        gemini(editors, standin, project, home, "/wfs:status IMPL-1")
    first = standin.conversations[0]
    (body,) = [t for t in first.user_texts if t.startswith("# wfs session status")]
    assert body.startswith("# wfs session status\n\nTask asked about: `IMPL-1` (may be empty).")
    assert "{{args}}" not in body
    # Both shell calls ran: the user policy allows `wfs`, here-documents included.
    results = standin.conversations[-1].tool_results
    assert expected.out.strip() in results[0]
    assert '"session": "WFS-greeter"' in results[1]
    assert wfs_process("task", "show", "IMPL-3", cwd=project).code == 0
    # The subagent ran with the installed definition as its instructions.
    _, definition = parse(project / agent_path("gemini", "code-developer"))
    assert subagent_prompts and definition.strip()[:2000] in subagent_prompts[0]
    assert "Greeting written." in results[2]


@pytest.mark.slow
def test_gemini_cli_offers_no_shell_without_the_policy(
    editors: Path, project: Path, home: Path
) -> None:
    """The control: headless Gemini CLI has no shell tool unless a policy allows it."""
    assert wfs_process("agents", "install", "--target", "gemini", cwd=project).code == 0
    gemini_home(home, project)

    with running("gemini", lambda conversation: Say("Nothing to run.")) as standin:
        gemini(editors, standin, project, home, "/wfs:status")
    first = standin.conversations[0]
    assert any(t.startswith("# wfs session status") for t in first.user_texts)
    assert "run_shell_command" not in first.tool_names
    assert "read_file" in first.tool_names


@pytest.mark.slow
def test_gemini_cli_runs_the_hook_and_the_digest_reaches_the_model(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "gemini", cwd=project).code == 0
    gemini_home(home, project, prime_hook=True)
    planned_session(project)
    digest = digest_of(project)

    with running("gemini", lambda conversation: Say("Noted.")) as standin:
        gemini(editors, standin, project, home, "What should I work on?")
    first = standin.conversations[0]
    asked = first.user_texts.index("What should I work on?")
    assert first.user_texts[asked + 1] == f"<hook_context>{digest}</hook_context>"
    # GEMINI.md and its block reach the model with the session's context.
    block = (project / "GEMINI.md").read_text()
    assert sum(f"/GEMINI.md ---\n{block}" in t for t in first.user_texts) == 1
    # Gemini CLI warned once about the project's hook, then trusted it.
    trusted = json.loads((home / ".gemini" / "trusted_hooks.json").read_text())
    assert list(trusted) == [str(project)] and len(trusted[str(project)]) == 1


@pytest.mark.slow
def test_gemini_cli_headless_runs_the_command_and_the_hook_adds_the_digest_after_it(
    editors: Path, project: Path, home: Path
) -> None:
    """Gemini CLI without a terminal (-p) puts a SessionStart hook's text before the
    prompt, and `/wfs:status` would then be no command: wfs's hook runs before the agent
    instead (BeforeAgent), and Gemini puts its text after the expanded command."""
    assert wfs_process("agents", "install", "--target", "gemini", cwd=project).code == 0
    gemini_home(home, project, prime_hook=True)
    planned_session(project)
    digest = digest_of(project)

    with running("gemini", lambda conversation: Say("Noted.")) as standin:
        gemini(editors, standin, project, home, "/wfs:status IMPL-1")
    first = standin.conversations[0]
    (body,) = [t for t in first.user_texts if t.startswith("# wfs session status")]
    assert first.user_texts.index(body) < first.user_texts.index(
        f"<hook_context>{digest}</hook_context>"
    )


@pytest.mark.slow
def test_gemini_cli_install_takes_out_the_session_start_hook_of_an_earlier_wfs(
    project: Path,
) -> None:
    """An earlier wfs put its hook under SessionStart, where it swallows headless
    commands; installing again moves it, and keeps the user's own hooks."""
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    theirs = {"type": "command", "command": "echo hi"}
    old = json.loads((REPO / "agents/files/gemini-hook.json").read_text())
    settings.write_text(
        json.dumps({"hooks": {"SessionStart": [old, {"hooks": [theirs]}]}}, indent=2) + "\n"
    )
    assert wfs_process("agents", "install", "--target", "gemini", cwd=project).code == 0
    written = json.loads(settings.read_text())
    assert written["hooks"] == {"SessionStart": [{"hooks": [theirs]}], "BeforeAgent": [old]}
    assert written["general"] == {"defaultApprovalMode": "auto_edit"}
    checked = wfs_process("agents", "install", "--check", "--target", "gemini", cwd=project)
    assert checked.code == 0, checked.out + checked.err
    assert wfs_process("agents", "install", "--remove", "--target", "gemini", cwd=project).code == 0
    assert json.loads(settings.read_text()) == {"hooks": {"SessionStart": [{"hooks": [theirs]}]}}


def gemini_output(result: str) -> tuple[int, str]:
    """(exit code, output) of Gemini CLI's run_shell_command result."""
    match = re.search(r"^Exit Code: (\d+)$", result, re.M)
    output = result.split("Output: ", 1)[1] if "Output: " in result else result
    return (int(match.group(1)) if match else 0), output


@pytest.mark.slow
@pytest.mark.parametrize("report", [DONE_REPORT, BLOCKED_REPORT], ids=["done", "blocked"])
def test_gemini_cli_execute_completes_a_checked_task_or_blocks_on_a_wrapped_report(
    editors: Path, project: Path, home: Path, report: str
) -> None:
    """With what `wfs agents install --target gemini --allow-shell` writes (the approval
    mode that lets its subagents write, in the project's settings), /wfs:execute runs
    the agent step in the code-developer subagent, and wfs reads the report out of
    Gemini CLI's "Subagent ... finished ... Result:" frame."""
    install_gemini(project, home)
    sid = planned_session(project, CHECKED_PLAN, topic="Greeting")

    def delegate(pause: Pause, results: list[str]) -> Move | str:
        if results:
            return results[0]
        return Call("invoke_agent", {"agent_name": pause.agent, "prompt": pause.brief})

    loop = CheckedLoop(
        lambda command: Call("run_shell_command", {"command": command, "description": "wfs"}),
        delegate,
        gemini_output,
    )

    def script(conversation: Conversation) -> Move:
        if not is_gemini_main(conversation):
            if report == BLOCKED_REPORT or conversation.tool_results:
                return Call("complete_task", {"result": report})
            path = str(project / "greeting.txt")
            return Call("write_file", {"file_path": path, "content": "hello\n"})
        (body,) = [t for t in conversation.user_texts if t.startswith("# Execute wfs tasks")]
        return loop(conversation, body)

    with running("gemini", script) as standin:
        gemini(editors, standin, project, home, "/wfs:execute IMPL-1")
    assert_checked_plan_ended(project, sid, loop, report)
    assert "Termination Reason: GOAL" in loop.answers[0]


@pytest.mark.slow
def test_gemini_cli_extension_installs_and_provides_the_commands(
    editors: Path, project: Path, home: Path
) -> None:
    gemini_home(home, project)
    env = base_environment(home)
    extension = REPO / "editors" / "gemini"
    # Gemini CLI asks whether to trust the extension's folder: the user says yes.
    argv = [str(editors / "gemini"), "extensions", "install", str(extension), "--consent"]
    proc = run(argv, project, env, stdin="y\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (home / ".gemini" / "extensions" / "wfs" / "gemini-extension.json").is_file()
    with running("gemini", lambda conversation: Say("Done.")) as standin:
        gemini(editors, standin, project, home, "/wfs:plan add a greeting")
    first = standin.conversations[0]
    (body,) = [t for t in first.user_texts if t.startswith("# Plan a wfs session")]
    assert "> add a greeting\n" in body
    assert not (project / ".gemini").exists()


# ---------------------------------------------------------------- Codex CLI


def codex(
    editors: Path,
    standin: StandIn,
    project: Path,
    home: Path,
    prompt: str,
    *extra: str,
    trusted: bool = True,
    config: str = "",
) -> list[dict[str, Any]]:
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    lines = [
        'model = "gpt-5.5"',
        'model_provider = "stand-in"',
        "[model_providers.stand-in]",
        'name = "stand-in"',
        f'base_url = "{standin.url}/v1"',
        'wire_api = "responses"',
        'env_key = "STAND_IN_API_KEY"',
    ]
    if trusted:  # what answering Codex's trust question writes
        lines += [f'[projects."{project}"]', 'trust_level = "trusted"']
    (codex_home / "config.toml").write_text("\n".join(lines) + "\n" + config)
    env = base_environment(home) | {"CODEX_HOME": str(codex_home), "STAND_IN_API_KEY": "stand-in"}
    argv = [str(editors / "codex"), "exec", "--json", "--skip-git-repo-check", *extra, prompt]
    proc = run(argv, project, env)
    events = stream_events(proc.stdout)
    assert proc.returncode == 0 and events, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not standin.errors, standin.errors
    return events


def shell(command: str) -> Call:
    # login=false: a login shell would reset PATH from /etc/profile, losing this wfs.
    return Call("exec_command", {"cmd": command, "login": False})


def commands_run(events: list[dict[str, Any]]) -> list[tuple[int | None, str]]:
    return [
        (e["item"]["exit_code"], e["item"]["aggregated_output"])
        for e in events
        if e.get("type") == "item.completed" and e["item"]["type"] == "command_execution"
    ]


@pytest.mark.slow
def test_codex_loads_the_skill_with_its_arguments_and_runs_wfs(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "codex", cwd=project).code == 0
    sid = planned_session(project)
    expected = wfs_process("status", cwd=project)
    add = heredoc(
        ["wfs", "plan", "--session", sid, "--from", "-", "--json"], ADDED_TASK, "WFS_PLAN"
    )

    def script(conversation: Conversation) -> Move:
        steps = [shell("wfs status"), shell(add)]
        done = len(conversation.tool_results)
        return steps[done] if done < len(steps) else Say("Reported.")

    with running("openai", script) as standin:
        events = codex(editors, standin, project, home, "$wfs-status IMPL-1")
    first = standin.conversations[0]
    # Every wfs skill is listed with its description; the one named is given in full,
    # and the arguments reach the model in the user's message.
    listing = first.system
    for name in ("execute", "plan", "status", "switch"):
        data, _ = parse(project / f".agents/skills/wfs-{name}/SKILL.md")
        assert f"- wfs-{name}: {data['description']}" in listing
    assert "$wfs-status IMPL-1" in first.user_texts
    (skill,) = [t for t in first.user_texts if t.startswith("<skill>")]
    assert "<name>wfs-status</name>" in skill and "\n# wfs session status\n" in skill
    assert "`ARGS` below stands for that text" in skill
    assert commands_run(events) == [(0, expected.out), (0, commands_run(events)[1][1])]
    assert '"session": "WFS-greeter"' in commands_run(events)[1][1]
    assert wfs_process("task", "show", "IMPL-3", cwd=project).code == 0


@pytest.mark.slow
@pytest.mark.parametrize("with_rule", [True, False])
def test_codex_runs_wfs_outside_a_read_only_sandbox_only_with_the_rule(
    editors: Path, project: Path, home: Path, with_rule: bool
) -> None:
    assert wfs_process("agents", "install", "--target", "codex", cwd=project).code == 0
    if not with_rule:
        (project / ".codex/rules/wfs.rules").unlink()

    def script(conversation: Conversation) -> Move:
        return (
            shell('wfs plan "Sandbox check" --here --empty')
            if not conversation.tool_results
            else Say("Ok.")
        )

    with running("openai", script) as standin:
        codex(editors, standin, project, home, "$wfs-plan Sandbox check", "-s", "read-only")
    (result,) = standin.conversations[-1].tool_results
    if with_rule:
        assert "Process exited with code 0" in result and "WFS-sandbox-check" in result
        assert (project / ".workflow" / "WFS-sandbox-check").is_dir()
    else:
        assert "Read-only file system" in result
        assert not (project / ".workflow").exists()


class CodexAppServer:
    """Codex's app server over stdio (JSON-RPC lines): what its /hooks review uses."""

    def __init__(self, editors: Path, project: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [str(editors / "codex"), "app-server"],
            cwd=project,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.ids = itertools.count(1)
        self.call("initialize", {"clientInfo": {"name": "wfs-tests", "version": "1"}})
        self.send({"method": "initialized"})

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict[str, Any]) -> Any:
        number = next(self.ids)
        self.send({"id": number, "method": method, "params": params})
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            message = json.loads(line)
            if message.get("id") == number:
                assert "error" not in message, message
                return message["result"]
        raise AssertionError(f"codex app-server ended before answering {method}")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.mark.slow
def test_codex_runs_the_session_start_hook_once_the_user_trusts_it(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "codex", cwd=project).code == 0
    planned_session(project)
    digest = digest_of(project)

    def run_codex(config: str = "") -> list[str]:
        """The developer messages of Codex's first request."""
        with running("openai", lambda conversation: Say("Noted.")) as standin:
            codex(editors, standin, project, home, "What should I work on?", config=config)
        (first,) = standin.conversations
        return [
            part["text"]
            for item in first.request.body["input"]
            if item.get("role") == "developer"
            for part in item["content"]
        ]

    # Codex runs no hook of the project's that the user has not trusted yet.
    assert digest not in run_codex()
    env = base_environment(home) | {"CODEX_HOME": str(home / ".codex")}
    server = CodexAppServer(editors, project, env)
    try:
        (listed,) = server.call("hooks/list", {"cwds": [str(project)]})["data"]
        (hook,) = listed["hooks"]
        assert (listed["warnings"], listed["errors"]) == ([], [])
        assert hook["key"] == f"{project / '.codex' / 'hooks.json'}:session_start:0:0"
        assert (hook["eventName"], hook["command"], hook["timeoutSec"]) == (
            "sessionStart",
            "wfs prime --hook-json --editor codex",
            30,
        )
        assert (hook["source"], hook["enabled"], hook["trustStatus"]) == (
            "project",
            True,
            "untrusted",
        )
        # The user trusts it, as /hooks does: its hash goes into their config.toml.
        key_path = f"hooks.state.{json.dumps(hook['key'])}.trusted_hash"
        edit = {"keyPath": key_path, "mergeStrategy": "upsert", "value": hook["currentHash"]}
        server.call("config/batchWrite", {"edits": [edit]})
    finally:
        server.close()
    written = (home / ".codex" / "config.toml").read_text()
    trust = written[written.index("[hooks.state.") :]
    assert (
        trust
        == f'[hooks.state.{json.dumps(hook["key"])}]\ntrusted_hash = "{hook["currentHash"]}"\n'
    )
    # Trusted, it runs at the start of the session: the digest is a developer message.
    assert digest in run_codex(trust)


@pytest.mark.slow
def test_codex_loads_the_custom_agents_and_spawns_one(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "codex", cwd=project).code == 0
    subagents: list[Conversation] = []

    def script(conversation: Conversation) -> Move:
        if "Do IMPL-1 step 1" in conversation.user_texts:
            subagents.append(conversation)
            return Say("Step done: greeting written.")
        steps = [
            Call("tool_search", {"query": "spawn agent"}),
            Call(
                "multi_agent_v1.spawn_agent",
                {"agent_type": "code-developer", "message": "Do IMPL-1 step 1"},
            ),
        ]
        done = len(conversation.tool_results)
        if done < len(steps):
            return steps[done]
        if done == len(steps):
            agent = json.loads(conversation.tool_results[-1])["agent_id"]
            return Call("multi_agent_v1.wait_agent", {"targets": [agent]})
        return Say("Done.")

    with running("openai", script) as standin:
        codex(editors, standin, project, home, "$wfs-execute")
    # The spawn_agent tool offers the five agents, with their descriptions.
    search_result = standin.conversations[1].tool_results[0]
    for name in AGENTS:
        data = parse(project / agent_path("codex", name))[0]
        assert f"{name}: {{\\n{data['description']}\\n}}" in search_result
    # The spawned agent runs with the installed developer_instructions.
    (subagent,) = subagents
    _, instructions = parse(project / agent_path("codex", "code-developer"))
    assert instructions.strip()[:2000] in subagent.system
    assert "Step done: greeting written." in seen(standin)


def codex_output(result: str) -> tuple[int, str]:
    """(exit code, output) of Codex's exec_command result."""
    match = re.search(r"Process exited with code (\d+)", result)
    assert match, result[:500]
    output = result.split("Output:\n", 1)[1] if "Output:\n" in result else result
    return int(match.group(1)), output


@pytest.mark.slow
@pytest.mark.parametrize("report", [DONE_REPORT, BLOCKED_REPORT], ids=["done", "blocked"])
def test_codex_execute_completes_a_checked_task_or_blocks_on_a_wrapped_report(
    editors: Path, project: Path, home: Path, report: str
) -> None:
    """$wfs-execute spawns the code-developer agent, waits for it, and resumes with what
    wait_agent returned: wfs reads the report out of Codex's JSON status."""
    assert wfs_process("agents", "install", "--target", "codex", cwd=project).code == 0
    sid = planned_session(project, CHECKED_PLAN, topic="Greeting")

    def delegate(pause: Pause, results: list[str]) -> Move | str:
        if not results:
            return Call("tool_search", {"query": "spawn agent"})
        if len(results) == 1:
            message = {"agent_type": pause.agent, "message": pause.brief}
            return Call("multi_agent_v1.spawn_agent", message)
        if len(results) == 2:
            agent = json.loads(results[1])["agent_id"]
            return Call("multi_agent_v1.wait_agent", {"targets": [agent]})
        return results[2]

    loop = CheckedLoop(shell, delegate, codex_output)

    def script(conversation: Conversation) -> Move:
        if any(t.startswith("# IMPL-1: ") for t in conversation.user_texts):  # the agent
            if report == BLOCKED_REPORT or conversation.tool_results:
                return Say(report)
            return shell("printf 'hello\\n' > greeting.txt")
        (body,) = [t for t in conversation.user_texts if "# Execute wfs tasks" in t]
        return loop(conversation, body)

    with running("openai", script) as standin:
        codex(editors, standin, project, home, "$wfs-execute IMPL-1")
    assert_checked_plan_ended(project, sid, loop, report)
    assert json.loads(loop.answers[0])["status"]


@pytest.mark.slow
def test_every_editor_is_the_newest_on_npm(editors: Path) -> None:
    """The programs are the newest versions the registry has, each answering to it."""
    installed = json.loads((editors.parent.parent / "installed.json").read_text())
    assert set(installed) == set(PROGRAMS) <= set(INSTALLED)
    for package in PROGRAMS:
        assert INSTALLED[package] in installed[package], package
