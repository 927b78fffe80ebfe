"""`wfs agents install --target opencode` inside the real opencode (SPEC §5).

opencode, at the version pinned in tests/editors/package.json (npm `opencode-ai`), runs
headless (`opencode run --command wfs-…`) in a temporary project. The user's own set-up
is one provider in their config (~/.config/opencode/opencode.json) whose `baseURL` is a
loopback stand-in for the Anthropic Messages API (tests/model_standins.py); everything
else is what wfs installs: the commands, the subagents, the `permission.bash` rule in
.opencode/opencode.json, the AGENTS.md block and the plugin that runs `wfs prime`.
Nothing may leave the machine: models.dev, the updater and opencode's own npm installs
are turned off, and every other request goes to a proxy that is not there.

Only the model is fake: opencode's command loader, argument substitution, permission
rules, plugin loader and `task` tool (which runs the subagent and wraps its report in
`<task_result>`) are the real ones. When opencode cannot be installed the tests fail
with the reason; they never skip.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json, wfs_process
from model_standins import Call, Conversation, Move, Say, StandIn, running
from real_editors import base_environment, run, stream_events
from test_agents import ExecuteInstructions, Pause, agent_path, parse, read_pause
from test_real_editors import digest_of, first_json, last_claude_call, planned_session

MODEL = "stand-in/claude-stand-in"


# One task: an agent writes the greeting, then a check proves it did.
GREETING_PLAN = {
    "overview": "Write a greeting, checked by a script",
    "tasks": [
        {
            "id": "IMPL-1",
            "title": "Write the greeting",
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": "Write the greeting",
                        "description": "Write the line 'Hello, wfs' to greeting.txt",
                        "modification_points": ["Create greeting.txt"],
                        "logic_flow": ["write the file"],
                        "depends_on": [],
                        "output": "report",
                    },
                    {
                        "step": 2,
                        "title": "Check the greeting",
                        "description": "greeting.txt holds the greeting",
                        "modification_points": [],
                        "logic_flow": ["grep the file"],
                        "command": "bash(grep -x 'Hello, wfs' greeting.txt)",
                        "depends_on": [1],
                        "output": "check",
                    },
                ],
            },
        }
    ],
}
REPORT = "Wrote greeting.txt: the line `Hello, wfs`. Files changed: greeting.txt."
BLOCKED = "## TASK BLOCKED: greeting.txt belongs to the docs team; ask them first."


def opencode_home(home: Path, standin: StandIn, config: dict[str, Any] | None = None) -> None:
    """The user's opencode set-up: the stand-in as their model provider."""
    settings = {
        "$schema": "https://opencode.ai/config.json",
        "model": MODEL,
        "small_model": MODEL,
        "provider": {
            "stand-in": {
                "npm": "@ai-sdk/anthropic",
                "name": "Stand-in",
                "options": {"baseURL": f"{standin.url}/v1", "apiKey": "sk-ant-stand-in"},
                "models": {
                    "claude-stand-in": {
                        "name": "Claude stand-in",
                        "tool_call": True,
                        "limit": {"context": 200000, "output": 8000},
                    }
                },
            }
        },
        "autoupdate": False,
        "share": "disabled",
        **(config or {}),
    }
    folder = home / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "opencode.json").write_text(json.dumps(settings, indent=2))


# What a careful user sets: opencode asks before every shell command, which headless
# means refusing it. wfs's rule in .opencode/opencode.json lets `wfs ...` run.
ASKING = {"permission": {"bash": {"*": "ask"}}}


def opencode_run(project: Path, home: Path, editors: Path, *argv: str) -> Any:
    """`opencode run --format json ARGV`, offline but for the stand-in."""
    env = base_environment(home) | {
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        # opencode installs its plugin package into .opencode/ with npm's code: offline.
        "npm_config_offline": "true",
        # Whatever else it would fetch goes nowhere; the stand-in is on 127.0.0.1.
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1",
    }
    proc = run([str(editors / "opencode"), "run", "--format", "json", *argv], project, env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def opencode(
    editors: Path, standin: StandIn, project: Path, home: Path, *argv: str
) -> list[dict[str, Any]]:
    """The JSON events of a run in which opencode asked for no permission."""
    proc = opencode_run(project, home, editors, *argv)
    events = stream_events(proc.stdout)
    assert events, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "permission requested" not in proc.stderr, proc.stderr[-3000:]
    assert not standin.errors, standin.errors
    return events


def is_title(conversation: Conversation) -> bool:
    """opencode's own request for a session title (its hidden `title` agent)."""
    return conversation.system.startswith("You are a title generator")


def tool_uses(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["part"] for e in events if e.get("type") == "tool_use"]


def exit_code(output: str, body: str) -> int:
    """The exit code of `wfs execute` as the command tells opencode to read it from the
    output (opencode's bash tool shows no exit code)."""
    rules = " ".join(body.split())
    assert "opencode's bash tool shows what a command printed, not its exit code" in rules
    assert "A line `IMPL-2: interrupted by …` is 130;" in rules
    assert "a line that starts with `Paused: ` is 3; a line `IMPL-2: blocked: …` is 1;" in rules
    lines = output.splitlines()
    if any(re.match(r"IMPL-\d+: interrupted by ", line) for line in lines):
        return 130
    if any(re.match(r"(IMPL-\d+: (refused|not run): |wfs: error: )", line) for line in lines):
        return 4 if "is locked by another wfs process" in output else 2
    if any(line.startswith("Paused: ") for line in lines):
        return 3
    if any(re.match(r"IMPL-\d+: blocked: ", line) for line in lines):
        return 1
    return 0


def task_report(result: str) -> str:
    """The report in the task tool's result, as the command says to take it: the lines
    between the `<task_result>` line and the `</task_result>` line."""
    inside = re.search(r"^<task_result>\n(.*)\n</task_result>$", result, re.S | re.M)
    assert inside, result
    return inside.group(1)


class OpencodeExecuteModel:
    """Plays the model following the installed /wfs-execute text, step by step.

    The main conversation runs the loop (bash for `wfs`, the task tool for a paused
    step); the subagent's (its system prompt is the agent definition) writes the file
    and reports, or reports that it is blocked. `pass_back` is what the model resumes
    with: the report, as the text says, or the task tool's result as it came."""

    def __init__(self, project: Path, subagent_says: str, pass_back: str = "report") -> None:
        self.project = project
        self.subagent_says = subagent_says
        self.pass_back = pass_back
        self.body = ""
        self.instructions: ExecuteInstructions | None = None
        self.pauses: dict[str, Pause] = {}  # by the brief handed to the subagent
        self.task_calls: list[dict[str, Any]] = []
        self.task_results: list[str] = []
        self.subagents: list[Conversation] = []
        self.codes: list[int] = []
        self.main_systems: list[str] = []

    def __call__(self, conversation: Conversation) -> Move:
        if is_title(conversation):
            return Say("Execute the greeting task")
        if "# @code-developer" in conversation.system:
            return self.subagent(conversation)
        self.main_systems.append(conversation.system)
        if self.instructions is None:
            (body,) = [t for t in conversation.user_texts if t.startswith("# Execute wfs tasks")]
            self.body = body
            self.instructions = ExecuteInstructions(body, arguments="IMPL-1")
        loop = self.instructions
        if not conversation.tool_results:
            return bash(shlex.join(loop.start), "Run the next wfs task")
        call = last_claude_call(conversation)
        result = conversation.tool_results[-1]
        if call["name"] == "task":
            self.task_results.append(result)
            answer = task_report(result) if self.pass_back == "report" else result
            pause = self.pauses[call["input"]["prompt"]]
            return bash(loop.resume_script(pause, answer).rstrip("\n"), "Resume the task")
        command = call["input"]["command"]
        if command == shlex.join(loop.finish):
            return Say("The session is completed and closed.")
        if command == "wfs status --json":
            status = first_json(result)
            if status["progress"]["completed"] == status["progress"]["total"]:
                return bash(shlex.join(loop.finish), "Close the session")
            return Say(f"Stopped: {', '.join(status['blocked'])} blocked.")
        code = exit_code(result, self.body)
        self.codes.append(code)
        if loop.actions[code] == "stop":
            return bash("wfs status --json", "Report the session")
        assert loop.actions[code] == "resume", result
        pause = read_pause(result)
        self.pauses[pause.brief] = pause
        arguments = {
            "description": f"Do {pause.task} {' '.join(pause.keys)}",
            "prompt": pause.brief,
            "subagent_type": pause.agent,
        }
        self.task_calls.append(arguments)
        return Call("task", arguments)

    def subagent(self, conversation: Conversation) -> Move:
        self.subagents.append(conversation)
        (brief,) = [t for t in conversation.user_texts if "## How to answer" in t]
        assert "Write the line 'Hello, wfs' to greeting.txt" in brief
        if self.subagent_says == BLOCKED:
            return Say(BLOCKED)
        if not conversation.tool_results:
            path = str(self.project / "greeting.txt")
            return Call("write", {"filePath": path, "content": "Hello, wfs\n"})
        return Say(REPORT)


def bash(command: str, description: str) -> Call:
    return Call("bash", {"command": command, "description": description})


def execute(
    editors: Path, project: Path, home: Path, model: OpencodeExecuteModel
) -> list[dict[str, Any]]:
    """The events of `/wfs-execute IMPL-1`; the exit codes the model read from the output
    of each `wfs execute` are the real ones (opencode keeps them from the model)."""
    with running("anthropic", model) as standin:
        opencode_home(home, standin, ASKING)
        events = opencode(editors, standin, project, home, "--command", "wfs-execute", "IMPL-1")
    runs = [p["state"] for p in tool_uses(events) if p["tool"] == "bash"]
    real = [s["metadata"]["exit"] for s in runs if " execute " in s["input"]["command"]]
    assert real == model.codes
    return events


@pytest.mark.slow
def test_opencode_execute_takes_the_task_to_completed_through_a_subagent(
    editors: Path, project: Path, home: Path
) -> None:
    assert wfs_process("agents", "install", "--target", "opencode", cwd=project).code == 0
    sid = planned_session(project, GREETING_PLAN, topic="Greeter")
    model = OpencodeExecuteModel(project, REPORT)
    events = execute(editors, project, home, model)
    # The command's text reached the model with the task id in place of $ARGUMENTS.
    assert "wfs execute IMPL-1\n" in model.body and "$ARGUMENTS" not in model.body
    assert model.codes == [3, 0]
    # The paused step went to the code-developer subagent through the task tool, in the
    # foreground (no `background`): its system prompt is the installed definition.
    (call,) = model.task_calls
    assert call["subagent_type"] == "code-developer" and "background" not in call
    (subagent, *_) = model.subagents
    _, definition = parse(project / agent_path("opencode", "code-developer"))
    assert definition.strip()[:2000] in subagent.system
    assert (project / "greeting.txt").read_text() == "Hello, wfs\n"
    # The plugin primed the main session only: the subagent does the step it was given.
    digest = "wfs session WFS-greeter (active)"
    assert model.main_systems and all(digest in system for system in model.main_systems)
    assert not any(digest in c.system for c in model.subagents)
    # opencode wrapped the report; the model passed back the report alone.
    (wrapped,) = model.task_results
    assert re.fullmatch(
        r'<task id="ses_\w+" state="completed">\n<task_result>\n'
        + re.escape(REPORT)
        + r"\n</task_result>\n</task>",
        wrapped,
    ), wrapped
    # Every wfs call ran although the user's opencode asks before shell commands:
    # allowed by the rule in .opencode/opencode.json, here-document included.
    commands = [
        (p["state"]["input"].get("command"), p["state"]["status"]) for p in tool_uses(events)
    ]
    assert [status for _, status in commands] == ["completed"] * len(commands)
    assert any("<<'WFS_ANSWER'" in (command or "") for command, _ in commands)
    # wfs recorded the report as the step's answer, then ran the check: completed.
    record = read_json(project / ".workflow" / sid / ".runs" / "IMPL-1.json")
    given = record["steps"]["implementation_approach/1"]
    assert (given["status"], given["output"].rstrip("\n")) == ("done", REPORT)
    check = record["steps"]["implementation_approach/2"]
    assert (check["status"], check["output"].strip()) == ("done", "Hello, wfs")
    summary = (project / ".workflow" / sid / ".summaries" / "IMPL-1-summary.md").read_text()
    assert REPORT in summary
    closed = wfs_process("--session", sid, "status", "--json", cwd=project).json()
    assert closed["status"] == "completed" and closed["progress"]["completed"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("pass_back", ["report", "envelope"])
def test_opencode_execute_blocks_the_task_when_the_subagent_is_blocked(
    editors: Path, project: Path, home: Path, pass_back: str
) -> None:
    """The subagent answers `## TASK BLOCKED: …`; opencode wraps it in <task_result>.
    Passed back as the text says (the report) or as the tool returned it (the envelope),
    the task ends blocked, and the check after the step never runs."""
    assert wfs_process("agents", "install", "--target", "opencode", cwd=project).code == 0
    sid = planned_session(project, GREETING_PLAN, topic="Greeter")
    model = OpencodeExecuteModel(project, BLOCKED, pass_back)
    execute(editors, project, home, model)
    assert model.codes == [3, 1]
    (wrapped,) = model.task_results
    assert f"<task_result>\n{BLOCKED}\n</task_result>" in wrapped
    status = wfs_process("--session", sid, "status", "--json", cwd=project).json()
    assert status["blocked"] == ["IMPL-1"] and status["progress"]["completed"] == 0
    record = read_json(project / ".workflow" / sid / ".runs" / "IMPL-1.json")
    assert "implementation_approach/2" not in record["steps"]  # the check never ran
    task = wfs_process("--session", sid, "task", "show", "IMPL-1", "--json", cwd=project).json()
    assert task["status"] == "blocked"
    assert "greeting.txt belongs to the docs team; ask them first." in json.dumps(task)
    assert not (project / "greeting.txt").exists()


@pytest.mark.slow
def test_opencode_runs_the_plugin_and_reads_the_agents_md_block(
    editors: Path, project: Path, home: Path
) -> None:
    """The plugin puts `wfs prime`'s digest into the system prompt at the session's
    start; the AGENTS.md block reaches the model too, and the command still works."""
    assert wfs_process("agents", "install", "--target", "opencode", cwd=project).code == 0
    planned_session(project)
    digest = digest_of(project).strip()
    conversations: list[Conversation] = []

    def script(conversation: Conversation) -> Move:
        conversations.append(conversation)
        return Say("Title" if is_title(conversation) else "Noted.")

    with running("anthropic", script) as standin:
        opencode_home(home, standin)
        opencode(editors, standin, project, home, "--command", "wfs-status", "IMPL-1")
    (main,) = [c for c in conversations if not is_title(c)]
    (body,) = [t for t in main.user_texts if t.startswith("# wfs session status")]
    assert body.startswith("# wfs session status\n\nTask asked about: `IMPL-1` (may be empty).")
    assert main.system.count(digest) == 1
    block = (project / "AGENTS.md").read_text()
    inner = block.split("\n", 1)[1].rsplit("<!--", 1)[0].strip()
    assert inner.startswith("## wfs: planned work sessions\n") and inner in main.system


@pytest.mark.slow
@pytest.mark.parametrize("where", ["global", "project"])
@pytest.mark.parametrize("with_rule", [True, False])
def test_opencode_runs_wfs_unasked_only_with_the_rule(
    editors: Path, project: Path, home: Path, with_rule: bool, where: str
) -> None:
    """The control: a user whose opencode asks before every shell command (which
    headless means refusing it), in their global config or in the project's own
    opencode.jsonc, still lets wfs run, through the rule wfs installs."""
    assert wfs_process("agents", "install", "--target", "opencode", cwd=project).code == 0
    if not with_rule:
        (project / ".opencode" / "opencode.json").unlink()
    if where == "project":  # JSONC, which wfs could not edit: opencode merges ours after
        (project / "opencode.jsonc").write_text(
            '{\n  // ask first\n  "permission": {"bash": {"*": "ask"}}\n}\n'
        )
    planned_session(project)
    expected = wfs_process("status", cwd=project)

    def script(conversation: Conversation) -> Move:
        if is_title(conversation):
            return Say("Title")
        if not conversation.tool_results:
            return bash("wfs status", "Show the session")
        return Say("Reported.")

    with running("anthropic", script) as standin:
        opencode_home(home, standin, ASKING if where == "global" else {})
        proc = opencode_run(project, home, editors, "--command", "wfs-status")
    (part,) = tool_uses(stream_events(proc.stdout))
    if with_rule:
        assert (part["state"]["status"], part["state"]["output"]) == ("completed", expected.out)
        assert "permission requested" not in proc.stderr
    else:
        refused = "The user rejected permission to use this specific tool call."
        assert (part["state"]["status"], part["state"]["error"]) == ("error", refused)
        assert "permission requested: bash (wfs status); auto-rejecting" in proc.stderr
