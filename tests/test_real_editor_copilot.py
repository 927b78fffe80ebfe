"""The installed copilot target inside the real GitHub Copilot CLI (SPEC §5).

Copilot CLI, the newest version on npm (tests/real_editors.py), runs headless
(`copilot -p`) in a temporary project with only what `wfs agents install --target
copilot` writes and the documented set-up: `--allow-tool 'shell(wfs:*)'` (no project
setting of Copilot CLI can allow `wfs`), `--allow-tool write` for the agent's own edits,
and a trusted folder for the project's hook. Its model is its own custom-provider
(BYOK) mode pointed at the loopback Anthropic stand-in of tests/model_standins.py,
offline: Copilot's own skill loader, permission rules, task tool, custom agents and
hooks are the real ones. When the program cannot be installed the tests fail with the
reason; they never skip.
"""

from __future__ import annotations

import json
import os
import re
import select
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json, wfs_process
from model_standins import Call, Conversation, Move, Say, StandIn, running
from real_editors import (
    INSTALLED,
    RUN_TIMEOUT,
    base_environment,
    run,
)
from real_editors import stream_events as json_lines
from test_agents import ExecuteInstructions, Pause, agent_path, command_path, parse, read_pause
from test_real_editors import digest_of, heredoc, planned_session, texts

PACKAGE = "@github/copilot"
ALLOW_WFS = ("--allow-tool", "shell(wfs:*)")  # the one line the docs tell the user to add
ALLOW_WRITE = ("--allow-tool", "write")  # what the agent's own work needs
GREETING = "Hello, wfs!"
# One task: an agent step, then a check that the agent's work is there.
GREETING_PLAN = [
    {
        "id": "IMPL-1",
        "title": "Write the greeting",
        "flow_control": {
            "pre_analysis": [],
            "implementation_approach": [
                {
                    "step": 1,
                    "title": "Write the greeting",
                    "description": f"Create greeting.txt holding the one line: {GREETING}",
                    "modification_points": ["Create greeting.txt"],
                    "logic_flow": ["write the line", "report the file"],
                    "depends_on": [],
                    "output": "written",
                },
                {
                    "step": 2,
                    "title": "Check the greeting",
                    "description": "greeting.txt holds the greeting",
                    "modification_points": [],
                    "logic_flow": ["compare the file with the line"],
                    "command": f"bash(grep -qx '{GREETING}' greeting.txt && cat greeting.txt)",
                    "depends_on": [1],
                    "output": "checked",
                },
            ],
        },
    }
]
ADDED_PLAN = '[{"id": "IMPL-1", "title": "Added from inside Copilot CLI"}]'
BLOCKED = "## TASK BLOCKED: the greeting's wording is not agreed\nNo file was written."


def trust(home: Path, project: Path) -> None:
    """What answering Copilot CLI's folder-trust question with "remember" writes."""
    (home / ".copilot").mkdir(exist_ok=True)
    config = {"trustedFolders": [str(project)]}
    (home / ".copilot" / "config.json").write_text(json.dumps(config))


def copilot_environment(editors: Path, standin: StandIn, home: Path) -> dict[str, str]:
    """Copilot CLI's custom provider (BYOK) mode, offline, with the stand-in as model."""
    return base_environment(home) | {
        "COPILOT_PROVIDER_BASE_URL": standin.url,
        "COPILOT_PROVIDER_TYPE": "anthropic",
        "COPILOT_PROVIDER_API_KEY": "sk-ant-stand-in",
        "COPILOT_MODEL": "claude-sonnet-4.5",
        "COPILOT_OFFLINE": "true",  # no GitHub login, no update check
        # The program unpacks itself here on its first run: once for all the tests.
        "COPILOT_CACHE_HOME": str(editors.parent.parent / "copilot-cache"),
    }


def copilot(
    editors: Path, standin: StandIn, project: Path, home: Path, prompt: str, *extra: str
) -> list[dict[str, Any]]:
    """The JSON events of a headless Copilot CLI run."""
    env = copilot_environment(editors, standin, home)
    argv = [str(editors / "copilot"), "-p", prompt, "--output-format", "json", *extra]
    proc = run(argv, project, env)
    events = json_lines(proc.stdout)
    results = [e for e in events if e.get("type") == "result"]
    assert proc.returncode == 0 and results, (
        f"Copilot CLI {INSTALLED[PACKAGE]}: " + proc.stdout[-3000:] + proc.stderr[-3000:]
    )
    assert not standin.errors, standin.errors
    return events


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["data"] for e in events if e.get("type") == kind]


def last_call(conversation: Conversation) -> dict[str, Any]:
    """The tool_use block of the model's last turn."""
    for message in reversed(conversation.request.body["messages"]):
        if message["role"] == "assistant":
            return [b for b in message["content"] if b.get("type") == "tool_use"][-1]
    raise AssertionError("no tool call yet")


def shell_result(text: str) -> tuple[int, str]:
    """(exit code, output) of Copilot's bash tool result: the output, without its final
    newline, then a line `<shellId: N completed with exit code C>`."""
    match = re.search(r"\n?<shellId: \S+ completed with exit code (\d+)>\s*\Z", text)
    assert match, (
        f"Copilot CLI {INSTALLED[PACKAGE]}: a bash result in an unknown form: {text[-300:]!r}"
    )
    return int(match.group(1)), text[: match.start()]


def bash(command: str) -> Call:
    return Call("bash", {"command": command, "description": "Run wfs"})


def skill_body(conversation: Conversation, name: str) -> str:
    """The skill's text as Copilot hands it to the model after the skill tool."""
    (context,) = [
        t for t in conversation.user_texts if t.startswith(f'<skill-context name="{name}">')
    ]
    return context.split("\n", 2)[2].rsplit("</skill-context>", 1)[0]


def is_subagent(conversation: Conversation) -> bool:
    """A custom agent's conversation: its system prompt is the agent definition."""
    return conversation.system.startswith("# @code-developer")


# ---------------------------------------------------------------- loading and permissions


@pytest.mark.slow
@pytest.mark.parametrize("allowed", [True, False])
def test_copilot_loads_the_skills_and_runs_wfs_only_with_the_documented_option(
    editors: Path, project: Path, home: Path, allowed: bool
) -> None:
    assert wfs_process("agents", "install", "--target", "copilot", cwd=project).code == 0
    planned_session(project)
    expected = wfs_process("status", cwd=project)

    def script(conversation: Conversation) -> Move:
        done = len(conversation.tool_results)
        if done == 0:  # the skill tool's instructions: invoke a matching skill first
            return Call("skill", {"skill": "wfs-status"})
        if done == 1:
            return bash("wfs status")
        return Say("Reported the status.")

    extra = ALLOW_WFS if allowed else ()
    with running("anthropic", script) as standin:
        events = copilot(editors, standin, project, home, "/wfs-status IMPL-1", *extra)
    first = standin.conversations[0]
    # The prompt reaches the model as typed; every wfs skill is listed with its
    # description, loaded from the project.
    assert first.user_texts[-1].endswith("\n\n/wfs-status IMPL-1")
    listing = "\n".join(texts(first.request.body))
    for name in ("execute", "plan", "status", "switch"):
        data, _ = parse(project / command_path("copilot", name))
        assert (
            f"<skill>\n  <name>wfs-{name}</name>\n  <description>{data['description']}"
            "</description>\n  <location>project</location>\n</skill>"
        ) in listing
    (loaded,) = of_type(events, "session.skills_loaded")
    mine = {s["name"]: s for s in loaded["skills"] if s["source"] == "project"}
    assert sorted(mine) == ["wfs-execute", "wfs-plan", "wfs-status", "wfs-switch"]
    assert all(s["userInvocable"] and s["enabled"] for s in mine.values())
    # The skill tool hands the model the installed text.
    _, body = parse(project / command_path("copilot", "status"))
    assert skill_body(standin.conversations[1], "wfs-status").strip() == body.strip()
    # Headless, the skill's allowed-tools grants nothing: only --allow-tool does.
    result = standin.conversations[-1].tool_results[-1]
    if allowed:
        assert shell_result(result) == (0, expected.out.rstrip("\n"))
    else:
        assert result.startswith("Permission denied because no interactive user response")
        assert "WFS-greeter" not in result


@pytest.mark.slow
def test_copilot_takes_its_own_skills_over_the_codex_skills_of_the_same_name(
    editors: Path, project: Path, home: Path
) -> None:
    """Copilot CLI also reads .agents/skills, where the codex target puts skills of the
    same names with Codex's instructions: installed side by side, its own win."""
    for target in ("codex", "copilot"):
        assert wfs_process("agents", "install", "--target", target, cwd=project).code == 0
    with running("anthropic", lambda conversation: Say("Noted.")) as standin:
        events = copilot(editors, standin, project, home, "Which skills are there?")
    (loaded,) = of_type(events, "session.skills_loaded")
    paths = {s["name"]: s["path"] for s in loaded["skills"] if s["source"] == "project"}
    assert paths == {
        f"wfs-{name}": str(project / command_path("copilot", name))
        for name in ("execute", "plan", "status", "switch")
    }


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="drives the terminal UI through a pty")
def test_copilot_interactive_runs_wfs_without_asking_once_a_wfs_skill_is_loaded(
    editors: Path, project: Path, home: Path
) -> None:
    """In a terminal, invoking a wfs skill applies its `allowed-tools: shell(wfs:*)`:
    a `wfs` command that writes (a here-document into `wfs plan`) runs with nobody there
    to approve it. (Without that line Copilot CLI 1.0.102 waits for an approval.)"""
    import pty  # deferred: POSIX only, like the test

    assert wfs_process("agents", "install", "--target", "copilot", cwd=project).code == 0
    trust(home, project)  # else the terminal UI first asks whether to trust the folder
    assert wfs_process("init", "--no-git", cwd=project).code == 0
    plan = heredoc(["wfs", "plan", "Added", "--from", "-"], ADDED_PLAN, "WFS_PLAN")

    def script(conversation: Conversation) -> Move:
        steps = [Call("skill", {"skill": "wfs-plan"}), bash(plan)]
        done = len(conversation.tool_results)
        return steps[done] if done < len(steps) else Say("Planned.")

    with running("anthropic", script) as standin:
        env = copilot_environment(editors, standin, home) | {"TERM": "xterm-256color"}
        (home / "tmp").mkdir(exist_ok=True)
        argv = [str(editors / "copilot"), "-i", "/wfs-plan add a greeting"]
        pid, terminal = pty.fork()
        if pid == 0:  # the child: Copilot CLI on the pty
            try:
                os.chdir(project)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        screen = b""
        deadline = time.monotonic() + RUN_TIMEOUT
        try:
            while len(standin.conversations) < 3 and time.monotonic() < deadline:
                if select.select([terminal], [], [], 0.5)[0]:
                    screen += os.read(terminal, 65536)
        finally:
            os.close(terminal)  # hangs the terminal up: Copilot CLI exits
            reap(pid)
    assert len(standin.conversations) == 3, screen.decode("utf-8", "replace")[-3000:]
    assert not standin.errors, standin.errors
    code, output = shell_result(standin.conversations[-1].tool_results[-1])
    assert (code, output) == (0, "WFS-added")
    assert (project / ".workflow" / "WFS-added").is_dir()


def reap(pid: int) -> None:
    """Wait for a child that was hung up on; kill it if it is still there after 30 s."""
    for _ in range(300):
        if os.waitpid(pid, os.WNOHANG) != (0, 0):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


@pytest.mark.slow
def test_copilot_loads_the_custom_agents_and_the_instructions(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "copilot", cwd=project).code == 0

    with running("anthropic", lambda conversation: Say("Noted.")) as standin:
        copilot(editors, standin, project, home, "Which agents are there?")
    (first,) = standin.conversations
    (task,) = [t for t in first.request.body["tools"] if t["name"] == "task"]
    # The five agents are agent types of the task tool, which runs them in the
    # foreground with mode "sync".
    names = ["action-planning-agent", "code-developer", "conceptual-planning-agent"]
    names += ["test-fix-agent", "universal-executor"]
    assert set(names) <= set(task["input_schema"]["properties"]["agent_type"]["enum"])
    for name in names:
        data, _ = parse(project / agent_path("copilot", name))
        assert f"- **{name}**: {data['description']}" in task["description"]
    assert task["input_schema"]["properties"]["mode"]["enum"] == ["sync", "background"]
    # The block of .github/copilot-instructions.md is part of the system prompt.
    block = (project / ".github" / "copilot-instructions.md").read_text()
    assert f"<custom_instruction>\n{block.rstrip()}" in first.system


@pytest.mark.slow
def test_copilot_runs_the_session_start_hook_in_a_trusted_folder(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "copilot", cwd=project).code == 0
    planned_session(project)
    digest = digest_of(project)
    assert digest.startswith("wfs session WFS-greeter (active): phase PLAN, 0 of 2 tasks")

    def first_user_texts() -> list[str]:
        with running("anthropic", lambda conversation: Say("Noted.")) as standin:
            copilot(editors, standin, project, home, "What should I work on?")
        return standin.conversations[0].user_texts

    # Copilot hands the model the hook's additionalContext without its final newline.
    context = digest.rstrip("\n")
    # Headless, Copilot runs no hook of a folder the user has not trusted.
    untrusted = first_user_texts()
    assert not any(context in text for text in untrusted)
    trust(home, project)
    # Trusted, the hook runs `wfs prime --hook-json --editor copilot`, and its
    # additionalContext is the first part of the user's message.
    texts_seen = first_user_texts()
    assert texts_seen[0] == context
    assert texts_seen[-1].endswith("\n\nWhat should I work on?")


# ---------------------------------------------------------------- /wfs-execute


class CopilotExecuteModel:
    """Plays the model following the installed wfs-execute skill, step by step.

    Main conversation: load the skill, then its loop (start, exit-code table, the task
    tool for a paused step, resume with the here-document). The code-developer's
    conversations (their system prompt is the agent definition): do the step."""

    def __init__(self, project: Path, agent_answer: str, mode: str = "sync") -> None:
        self.project = project
        self.agent_answer = agent_answer
        self.mode = mode
        self.instructions: ExecuteInstructions | None = None
        self.start: list[str] = []
        self.pauses: dict[str, Pause] = {}  # by the brief handed to the agent
        self.task_calls: list[dict[str, Any]] = []
        self.task_results: list[str] = []
        self.briefs: list[str] = []
        self.codes: list[int] = []

    def __call__(self, conversation: Conversation) -> Move:
        if is_subagent(conversation):
            return self.subagent(conversation)
        if not conversation.tool_results:
            return Call("skill", {"skill": "wfs-execute"})
        if self.instructions is None:
            body = skill_body(conversation, "wfs-execute")
            self.instructions = ExecuteInstructions(body, arguments="")
            (line,) = [c for c in re.findall(r"^\s*(wfs execute \S+)$", body, re.M)]
            # Skills substitute nothing: ARGS stands for what followed /wfs-execute.
            self.start = shlex.split(line.replace("ARGS", ""))
            return bash(shlex.join(self.start))
        loop = self.instructions
        call = last_call(conversation)
        result = conversation.tool_results[-1]
        if call["name"] == "task":
            if self.mode == "background":  # then wait for it, as the tool says to
                agent = re.search(r"agent_id: (\S+?)\.", result)
                assert agent, result
                return Call("read_agent", {"agent_id": agent.group(1), "wait": True})
            return self.resume(call["input"]["prompt"], result)
        if call["name"] == "read_agent":
            (task,) = [c for c in self.task_calls]
            return self.resume(task["prompt"], result)
        code, output = shell_result(result)
        self.codes.append(code)
        if loop.actions[code] == "stop":
            return Say(f"Stopped with exit code {code}.")
        assert loop.actions[code] == "resume", output
        pause = read_pause(output)
        arguments = {
            "agent_type": pause.agent,
            "prompt": pause.brief,
            "name": f"{pause.task} {' '.join(pause.keys)}",
            "description": f"Do {pause.task} {' '.join(pause.keys)}",
            "mode": self.mode,
        }
        self.task_calls.append(arguments)
        self.pauses[pause.brief] = pause
        return Call("task", arguments)

    def resume(self, brief: str, answer: str) -> Move:
        """The resume command with the task tool's result as the answer, word for word."""
        assert self.instructions is not None
        self.task_results.append(answer)
        command = self.instructions.resume_script(self.pauses[brief], answer).rstrip("\n")
        return bash(command)

    def subagent(self, conversation: Conversation) -> Move:
        (prompt,) = [t for t in conversation.user_texts if "## How to answer" in t]
        self.briefs.append(prompt)
        if self.agent_answer != "write":
            return Say(self.agent_answer)
        if not conversation.tool_results:
            path = str(self.project / "greeting.txt")
            return Call("create", {"path": path, "file_text": f"{GREETING}\n"})
        return Say(f"Created greeting.txt holding the line: {GREETING}")


@pytest.mark.slow
def test_copilot_execute_runs_the_agent_step_in_the_foreground_and_completes_the_task(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "copilot", cwd=project).code == 0
    sid = planned_session(project, GREETING_PLAN, topic="Greeting")
    model = CopilotExecuteModel(project, "write")
    with running("anthropic", model) as standin:
        events = copilot(editors, standin, project, home, "/wfs-execute", *ALLOW_WFS, *ALLOW_WRITE)
    assert model.start == ["wfs", "execute"]
    assert model.codes == [3, 0]
    # The paused step went to the code-developer agent, in the foreground, with the
    # whole brief; its system prompt is the installed definition.
    (call,) = model.task_calls
    assert (call["agent_type"], call["mode"]) == ("code-developer", "sync")
    assert model.briefs[0].endswith(call["prompt"])
    (started,) = of_type(events, "subagent.started")
    assert (started["agentName"], started["executionMode"]) == ("code-developer", "sync")
    _, definition = parse(project / agent_path("copilot", "code-developer"))
    subagents = [c for c in standin.conversations if is_subagent(c)]
    assert subagents and definition.strip()[:2000] in subagents[0].system
    # The task tool returned the agent's final message as it is, and it reached wfs.
    report = f"Created greeting.txt holding the line: {GREETING}"
    assert model.task_results == [report]
    record = read_json(project / ".workflow" / sid / ".runs" / "IMPL-1.json")
    steps = record["steps"]
    assert steps["implementation_approach/1"]["output"].rstrip("\n") == report
    assert steps["implementation_approach/2"]["output"].rstrip("\n") == GREETING
    # The check ran on the agent's work, and the task completed with its summary.
    assert (project / "greeting.txt").read_text() == f"{GREETING}\n"
    shown = wfs_process("--session", sid, "task", "show", "IMPL-1", "--json", cwd=project)
    assert shown.json()["status"] == "completed"
    summary = (project / ".workflow" / sid / ".summaries" / "IMPL-1-summary.md").read_text()
    assert report in summary


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sync", "background"])
def test_copilot_execute_a_blocked_agent_blocks_the_task_and_the_check_never_runs(
    editors: Path, project: Path, home: Path, mode: str
) -> None:
    """In the foreground the task tool returns the agent's report as it is; an agent
    started in the background (against the text) is read back with read_agent, whose
    result wraps the report in Copilot's envelope. Either way the task is blocked."""
    assert wfs_process("agents", "install", "--target", "copilot", cwd=project).code == 0
    sid = planned_session(project, GREETING_PLAN, topic="Greeting")
    model = CopilotExecuteModel(project, BLOCKED, mode)
    with running("anthropic", model) as standin:
        copilot(editors, standin, project, home, "/wfs-execute", *ALLOW_WFS, *ALLOW_WRITE)
    assert model.codes == [3, 1]
    (given,) = model.task_results
    if mode == "sync":
        assert given == BLOCKED
    else:  # Copilot CLI's read_agent envelope around the agent's last turn
        assert given.startswith("Agent is idle (waiting for messages). agent_id: ")
        assert given.endswith(f"\n\n[Turn 0]\n{BLOCKED}")
    shown = wfs_process("--session", sid, "task", "show", "IMPL-1", "--json", cwd=project)
    task = shown.json()
    assert task["status"] == "blocked"
    reason = task["task"]["execution"]["blocked_reason"]
    assert reason == (
        "agent reported TASK BLOCKED at implementation_approach/1 (Write the greeting): "
        "the greeting's wording is not agreed\nNo file was written."
    )
    record = read_json(project / ".workflow" / sid / ".runs" / "IMPL-1.json")
    first = record["steps"]["implementation_approach/1"]
    assert (first["status"], first["answer"].rstrip("\n")) == ("blocked", BLOCKED)
    assert list(record["steps"]) == ["implementation_approach/1"]  # no check ran
    assert not (project / "greeting.txt").exists()
