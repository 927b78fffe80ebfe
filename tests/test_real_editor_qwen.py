"""The files of `wfs agents install --target qwen` inside the real Qwen Code (SPEC §5).

Qwen Code, the newest version on npm (it needs Node.js 22 or later: the `node` package
of tests/editors/package.json, installed beside it, runs it), runs headless (`qwen -p`) in a
temporary project, its model API (`--auth-type anthropic`) pointed at a loopback
stand-in (tests/model_standins.py). Only the model is fake: Qwen Code's command loader,
argument substitution, permission rules, SessionStart hook and agent tool are the real
ones. The stand-in plays a model that follows the installed text literally. The project
holds only what wfs installs (its `.qwen/settings.json` sets the `auto-edit` approval
mode: without it, headless Qwen Code gives no agent a tool that edits files). When Qwen Code cannot be installed the tests fail with the reason; they
never skip.
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
from real_editors import (
    INSTALLED,
    base_environment,
    node_path,
    run,
    stream_events,
)
from test_agents import (
    ExecuteInstructions,
    Pause,
    agent_path,
    command_path,
    parse,
    prompt_text,
    read_pause,
)
from test_agents import wfs_command_lines as command_lines
from test_real_editors import digest_of, first_json, last_claude_call, planned_session, texts

PACKAGE = "@qwen-code/qwen-code"
GREETING = "hello, world"
# One task: an agent step (write the greeting), then a check wfs runs. The check leaves
# a mark first, so a test sees whether it ran.
GREETING_PLAN = {
    "overview": "Write a greeting file, checked by a script",
    "requirements": ["greeting.txt says hello, world"],
    "tasks": [
        {
            "id": "IMPL-1",
            "title": "Write the greeting",
            "meta": {"type": "feature", "agent": "@code-developer"},
            "context": {"focus_paths": ["greeting.txt"]},
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": "Write the greeting",
                        "description": f"Write '{GREETING}' into greeting.txt",
                        "output": "report",
                    },
                    {
                        "step": 2,
                        "title": "Check the greeting",
                        "description": "greeting.txt holds the greeting",
                        "command": f"bash(touch checked && grep -qx '{GREETING}' greeting.txt)",
                        "output": "check",
                    },
                ],
            },
        }
    ],
}


def qwen_events(
    editors: Path, standin: StandIn, project: Path, home: Path, prompt: str, *extra: str
) -> list[dict[str, Any]]:
    """Every stream-json event of a headless Qwen Code run."""
    env = base_environment(home) | {
        "ANTHROPIC_BASE_URL": standin.url,
        "ANTHROPIC_API_KEY": "sk-ant-stand-in",
        "ANTHROPIC_MODEL": "claude-stand-in",
    }
    env["PATH"] = node_path(editors, env["PATH"])  # Qwen Code needs Node.js 22 or later
    argv = [str(editors / "qwen"), "-p", prompt, "--auth-type", "anthropic"]
    proc = run([*argv, "--output-format", "stream-json", *extra], project, env)
    events = stream_events(proc.stdout)
    results = [e for e in events if e.get("type") == "result"]
    assert proc.returncode == 0 and results, (
        f"Qwen Code {INSTALLED[PACKAGE]}: " + proc.stdout[-3000:] + proc.stderr[-3000:]
    )
    assert not standin.errors, standin.errors
    (init,) = [e for e in events if e.get("subtype") == "init"]
    assert init["qwen_code_version"] == INSTALLED[PACKAGE]
    return events


def result_event(events: list[dict[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = [e for e in events if e.get("type") == "result"][-1]
    return result


def is_main(conversation: Conversation) -> bool:
    """The conversation of the session itself: it may hand work to an agent. (Qwen
    Code's other requests are its subagents' and its own side tasks'.)"""
    return conversation.system.startswith("You are Qwen Code") and (
        "agent" in conversation.tool_names
    )


def shell_result(text: str) -> tuple[int, str]:
    """(exit code, output) of Qwen Code's shell tool result: `Command: …`, `Directory:
    …`, `Output: …`, `Error: …`, `Exit Code: N`, …"""
    assert text.startswith("Command: "), text[:300]
    output = text.split("\nOutput: ", 1)[1].rsplit("\nError: ", 1)[0]
    code = re.findall(r"^Exit Code: (\d+)$", text, re.M)
    assert code, text[-300:]
    return int(code[-1]), output


def shell(command: str, description: str) -> Call:
    return Call("run_shell_command", {"command": command, "description": description})


class QwenExecuteInstructions(ExecuteInstructions):
    """The `/wfs:execute` loop for Qwen Code: the answer goes through a file, since
    Qwen Code runs no here-documents."""

    PHRASES = (
        # How the step is handed over: the agent tool, in the foreground.
        "Hand the step to the subagent of that name with the **agent** tool",
        "`subagent_type` is the name without the `@` (`code-developer`)",
        "`prompt` is the whole brief, as `wfs` printed it",
        "and `run_in_background` is `false`",
        "The agent tool's result is that report.",
        # How the answer reaches wfs: a file, not a here-document.
        "Qwen Code runs `wfs` commands but no here-documents",
        "Write the answer, as it is, to the file beside the brief's `run_record`, named "
        "after the task: `.workflow/WFS-user-auth/.runs/IMPL-2.answer.md` for "
        "`run_record: .workflow/WFS-user-auth/.runs/IMPL-2.json`",
        "replace its final `F` with that file's path",
        "Add `--all` when the arguments above contain `--all`",
    )

    def __init__(self, body: str, arguments: str) -> None:
        super().__init__(body, arguments)
        # Qwen Code has put the arguments (maybe none) in place of `{{args}}`.
        assert self.start == ["wfs", "execute", *shlex.split(arguments)], self.start
        assert "<<'WFS_ANSWER'" not in body

    @staticmethod
    def answer_file(pause: Pause) -> str:
        """Where the answer goes: beside the brief's run record, named after the task."""
        (record,) = re.findall(r"^- run_record: (\S+)$", pause.brief, re.M)
        assert record.endswith(f"/{pause.task}.json"), record
        return record.removesuffix(".json") + ".answer.md"

    def resume(self, pause: Pause, answer_file: str) -> str:
        return self.resume_command(pause, shlex.quote(answer_file))


class QwenExecuteModel:
    """Plays the model following the installed /wfs:execute text, step by step.

    The main conversation runs the loop (start, the exit-code table, the agent tool for
    a paused step, the answer written to its file, the resume). A subagent (its system
    prompt is the installed definition) writes the greeting and reports, or answers
    `report` as it is when one is given."""

    def __init__(
        self, project: Path, arguments: str = "", report: str = "", foreground: bool = True
    ) -> None:
        self.project = project
        self.arguments = arguments
        self.report = report
        self.foreground = foreground  # False: leave `run_in_background` out of the call
        self.instructions: QwenExecuteInstructions | None = None
        self.pause: Pause | None = None
        self.agent_calls: list[dict[str, Any]] = []
        self.agent_results: list[str] = []
        self.answers: list[tuple[str, str]] = []  # (file, text)
        self.subagent_systems: list[str] = []
        self.subagent_prompts: list[str] = []
        self.codes: list[int] = []
        self.status: dict[str, Any] | None = None
        self.notices: list[str] = []  # messages Qwen Code adds after the loop stopped

    def subagent(self, conversation: Conversation) -> Move:
        if not conversation.tool_results:
            self.subagent_systems.append(conversation.system)
            (prompt,) = [t for t in conversation.user_texts if "## How to answer" in t]
            self.subagent_prompts.append(prompt)
            if self.report:
                return Say(self.report)
            path = str(self.project / "greeting.txt")
            return Call("write_file", {"file_path": path, "content": GREETING + "\n"})
        assert conversation.tool_results[-1].startswith("Successfully created"), conversation
        return Say("Wrote greeting.txt: hello, world.\nNo other file changed.")

    def __call__(self, conversation: Conversation) -> Move:
        if "# @code-developer" in conversation.system:
            return self.subagent(conversation)
        if not is_main(conversation):
            return Say("Nothing to add.")
        last = conversation.request.body["messages"][-1]["content"]
        if conversation.tool_results and not any(
            isinstance(block, dict) and block.get("type") == "tool_result" for block in last
        ):
            # A message after the loop stopped: a background agent's notification.
            notice = conversation.user_texts[-1]
            self.notices.append(notice)
            if self.codes[-1:] != [2] or not notice.startswith("<task-notification>"):
                return Say("Noted.")
            # wfs refused the launch notice as an answer; this one holds the report:
            # it is passed back as the tool gave it, and wfs reads the report out of it.
            assert self.pause is not None and self.instructions is not None
            answer_file = self.instructions.answer_file(self.pause)
            self.answers.append((answer_file, notice))
            return Call(
                "write_file", {"file_path": str(self.project / answer_file), "content": notice}
            )
        if self.instructions is None:
            (body,) = [t for t in conversation.user_texts if t.startswith("# Execute wfs tasks")]
            self.instructions = QwenExecuteInstructions(body, self.arguments)
        loop = self.instructions
        if not conversation.tool_results:
            return shell(shlex.join(loop.start), "Run the next ready task")
        call = last_claude_call(conversation)
        result = conversation.tool_results[-1]
        if call["name"] == "agent":
            assert self.pause is not None
            self.agent_results.append(result)
            answer_file = loop.answer_file(self.pause)
            self.answers.append((answer_file, result))
            arguments = {"file_path": str(self.project / answer_file), "content": result}
            return Call("write_file", arguments)
        if call["name"] == "write_file":  # created, or overwritten (written just before)
            assert re.match(r"Successfully (created and wrote to new|overwrote) file: ", result)
            assert self.pause is not None
            command = loop.resume(self.pause, self.answers[-1][0])
            return shell(command, "Resume the task with the answer")
        command = call["input"]["command"]
        code, output = shell_result(result)
        if command == shlex.join(loop.finish):
            assert code == 0, output
            return Say("The session is completed and closed.")
        if command == "wfs status --json":
            self.status = first_json(output)
            if self.status["progress"]["completed"] == self.status["progress"]["total"]:
                return shell(shlex.join(loop.finish), "Close the session")
            return Say("IMPL-1 is not completed; wfs status says why.")
        self.codes.append(code)
        if loop.actions[code] == "stop":
            return shell("wfs status --json", "Report")
        assert loop.actions[code] == "resume", output
        self.pause = read_pause(output)
        arguments = {
            "description": f"Do {self.pause.task} {' '.join(self.pause.keys)}",
            "prompt": self.pause.brief,
            "subagent_type": self.pause.agent,
        }
        if self.foreground:
            arguments["run_in_background"] = False
        self.agent_calls.append(arguments)
        return Call("agent", arguments)


def install_qwen(project: Path) -> None:
    installed = wfs_process("agents", "install", "--target", "qwen", cwd=project)
    assert installed.code == 0, installed.err


def run_record(project: Path, sid: str) -> dict[str, Any]:
    record: dict[str, Any] = read_json(project / ".workflow" / sid / ".runs" / "IMPL-1.json")
    return record


@pytest.mark.slow
def test_qwen_code_execute_takes_a_task_to_completed_through_a_foreground_subagent(
    editors: Path, project: Path, home: Path
) -> None:
    install_qwen(project)
    sid = planned_session(project, GREETING_PLAN, topic="Greeting")
    model = QwenExecuteModel(project)
    with running("anthropic", model) as standin:
        events = qwen_events(editors, standin, project, home, "/wfs:execute")
    assert result_event(events)["permission_denials"] == []
    assert model.codes == [3, 0], model.codes
    # The step went to the code-developer subagent, in the foreground: the agent tool
    # returned its report itself, and the subagent ran with the installed definition.
    ((call, result),) = zip(model.agent_calls, model.agent_results, strict=True)
    assert (call["subagent_type"], call["run_in_background"]) == ("code-developer", False)
    report = "Wrote greeting.txt: hello, world.\nNo other file changed."
    assert result == report
    _, definition = parse(project / agent_path("qwen", "code-developer"))
    (system,) = model.subagent_systems
    assert definition.strip()[:2000] in system
    assert model.subagent_prompts[0].startswith("# IMPL-1: Write the greeting\n")
    # The answer reached wfs through the file, and wfs recorded it; the check ran.
    ((answer_file, answer),) = model.answers
    assert answer_file == f".workflow/{sid}/.runs/IMPL-1.answer.md"
    assert (project / answer_file).read_text() == report
    assert (project / "greeting.txt").read_text() == GREETING + "\n"
    assert (project / "checked").is_file()
    record = run_record(project, sid)
    assert record["steps"]["implementation_approach/1"]["output"] == report
    assert record["steps"]["implementation_approach/2"]["status"] == "done"
    shown = wfs_process("--session", sid, "task", "show", "IMPL-1", "--json", cwd=project)
    assert shown.json()["status"] == "completed"
    summary = project / ".workflow" / sid / ".summaries" / "IMPL-1-summary.md"
    assert report in summary.read_text()
    closed = wfs_process("--session", sid, "status", "--json", cwd=project)
    assert closed.json()["status"] == "completed"


BLOCKED = (
    "I read the brief and looked for the wording.\n\n"
    "## TASK BLOCKED: the plan doesn't say which language to greet in"
)
REASON = "the plan doesn't say which language to greet in"


@pytest.mark.slow
def test_qwen_code_execute_blocks_the_task_on_a_blocked_report_and_runs_no_check(
    editors: Path, project: Path, home: Path
) -> None:
    install_qwen(project)
    sid = planned_session(project, GREETING_PLAN, topic="Greeting")
    # A report that does not start with the marker, handed back by the agent tool.
    model = QwenExecuteModel(project, report=BLOCKED)
    with running("anthropic", model) as standin:
        events = qwen_events(editors, standin, project, home, "/wfs:execute")
    assert result_event(events)["permission_denials"] == []
    assert model.codes == [3, 1], model.codes
    assert model.agent_results == [BLOCKED]
    ((answer_file, _),) = model.answers
    assert (project / answer_file).read_text() == BLOCKED
    assert_blocked_before_the_check(project, sid, BLOCKED)
    assert model.status is not None and model.status["progress"]["completed"] == 0


def assert_blocked_before_the_check(project: Path, sid: str, answer: str) -> None:
    """IMPL-1 is blocked with the report's reason; its check never ran."""
    shown = wfs_process("--session", sid, "task", "show", "IMPL-1", "--json", cwd=project)
    assert shown.json()["status"] == "blocked"
    assert not (project / "checked").exists() and not (project / "greeting.txt").exists()
    step = run_record(project, sid)["steps"]
    assert list(step) == ["implementation_approach/1"]
    blocked = step["implementation_approach/1"]
    assert (blocked["status"], blocked["answer"], blocked["reason"]) == ("blocked", answer, REASON)
    status = wfs_process("--session", sid, "status", "--json", cwd=project).json()
    assert status["blocked"] == ["IMPL-1"], status


@pytest.mark.slow
@pytest.mark.parametrize("installed", [True, False])
def test_a_subagent_runs_in_the_foreground_by_its_definition_even_unasked(
    editors: Path, project: Path, home: Path, installed: bool
) -> None:
    """Qwen Code starts a subagent in the background unless the call or the agent's
    definition says otherwise; wfs's definitions do (`background: false`), so a call
    that leaves `run_in_background` out still waits for the report. The control:
    without that line Qwen Code answers at once that the agent was launched, and wfs
    refuses that as an answer (exit 2). The report comes later, in Qwen Code's
    notification envelope; passed back as it is, it blocks the task all the same."""
    install_qwen(project)
    definition = project / agent_path("qwen", "code-developer")
    text = definition.read_text()
    assert "\nbackground: false\n---\n" in text
    if not installed:
        definition.write_text(text.replace("background: false\n", ""))
    sid = planned_session(project, GREETING_PLAN, topic="Greeting")
    model = QwenExecuteModel(project, report=BLOCKED, foreground=False)
    with running("anthropic", model) as standin:
        qwen_events(editors, standin, project, home, "/wfs:execute")
    assert "run_in_background" not in model.agent_calls[0]
    if installed:
        assert model.codes == [3, 1], model.codes
        assert model.agent_results == [BLOCKED]
        assert_blocked_before_the_check(project, sid, BLOCKED)
        return
    assert model.codes == [3, 2, 1], model.codes
    (launched,) = model.agent_results
    assert launched.startswith("Background agent launched successfully.\n")
    (first, notice) = [answer for _, answer in model.answers]
    assert first == launched
    assert notice.startswith("<task-notification>\n") and "<result>" in notice
    # The report is XML-escaped in it; wfs records it as the subagent wrote it.
    escaped = BLOCKED.replace("'", "&apos;")
    assert f"<result>{escaped}</result>" in notice
    assert_blocked_before_the_check(project, sid, BLOCKED)


@pytest.mark.slow
def test_qwen_code_plan_ingests_the_plan_through_the_file_the_text_names(
    editors: Path, project: Path, home: Path
) -> None:
    install_qwen(project)
    assert wfs_process("init", "--no-git", cwd=project).code == 0
    plan_file = ".workflow/.runs/plan.json"
    ingest = f'wfs plan "Greeting" --from {plan_file} --json'
    results: list[tuple[int, str]] = []

    def script(conversation: Conversation) -> Move:
        if not is_main(conversation):
            return Say("Nothing to add.")
        (body,) = [t for t in conversation.user_texts if t.startswith("# Plan a wfs session")]
        words = " ".join(body.split())
        assert "> write a greeting\n" in body
        assert f"write it to `{plan_file}`" in words and "<<" not in body
        assert ingest.replace('"Greeting"', '"TOPIC"') in command_lines(body)
        done = len(conversation.tool_results)
        if done == 0:
            content = json.dumps(GREETING_PLAN, indent=2)
            return Call("write_file", {"file_path": str(project / plan_file), "content": content})
        if done == 1:
            return shell(ingest, "Ingest the plan")
        if done == 2:
            results.append(shell_result(conversation.tool_results[-1]))
            return shell("wfs validate --json", "Validate")
        results.append(shell_result(conversation.tool_results[-1]))
        return Say("Planned WFS-greeting.")

    with running("anthropic", script) as standin:
        events = qwen_events(editors, standin, project, home, "/wfs:plan write a greeting")
    assert result_event(events)["permission_denials"] == []
    (code, planned), (valid, report) = results
    assert (code, json.loads(planned)["session"]) == (0, "WFS-greeting"), planned
    assert (valid, json.loads(report)["errors"]) == (0, 0), report
    shown = wfs_process(
        "--session", "WFS-greeting", "task", "show", "IMPL-1", "--json", cwd=project
    )
    assert shown.json()["task"]["title"] == "Write the greeting"


@pytest.mark.slow
def test_qwen_code_runs_the_session_start_hook_and_still_runs_the_command(
    editors: Path, project: Path, home: Path
) -> None:
    install_qwen(project)
    planned_session(project, GREETING_PLAN, topic="Greeting")
    digest = digest_of(project)
    expected = wfs_process("status", cwd=project)

    def script(conversation: Conversation) -> Move:
        if not is_main(conversation):
            return Say("Nothing to add.")
        if not conversation.tool_results:
            return shell("wfs status", "Show the session")
        return Say("Reported the status.")

    with running("anthropic", script) as standin:
        events = qwen_events(editors, standin, project, home, "/wfs:status IMPL-1")
    first = standin.conversations[0]
    # The hook's digest is in the system prompt, and the command is still a command: its
    # text reached the model with the argument in place.
    assert f"SessionStart additional context:\n{digest.rstrip()}" in first.system
    (body,) = [t for t in first.user_texts if t.startswith("# wfs session status")]
    assert body.startswith("# wfs session status\n\nTask asked about: `IMPL-1` (may be empty).")
    assert "{{args}}" not in body
    # QWEN.md's block reaches it too.
    block = (project / "QWEN.md").read_text()
    assert "## wfs: planned work sessions\n" in block
    assert any(block.strip() in text for text in texts(first.request.body))
    # The `Shell(wfs *)` rule lets the shell tool run `wfs`, headless.
    assert "run_shell_command" in first.tool_names
    code, output = shell_result(standin.conversations[-1].tool_results[-1])
    assert (code, output) == (0, expected.out.rstrip("\n"))
    assert result_event(events)["permission_denials"] == []


@pytest.mark.slow
def test_qwen_code_offers_no_shell_without_the_rule(
    editors: Path, project: Path, home: Path
) -> None:
    """The control: what lets headless Qwen Code run `wfs` is the rule wfs writes."""
    install_qwen(project)
    settings = project / ".qwen" / "settings.json"
    data = json.loads(settings.read_text())
    assert data["permissions"] == {"allow": ["Shell(wfs *)"]}
    del data["permissions"]
    settings.write_text(json.dumps(data))

    def script(conversation: Conversation) -> Move:
        if is_main(conversation) and not conversation.tool_results:
            return shell("wfs status", "Show the session")
        return Say("Could not.")

    with running("anthropic", script) as standin:
        events = qwen_events(editors, standin, project, home, "/wfs:status")
    assert "run_shell_command" not in standin.conversations[0].tool_names
    (denied,) = result_event(events)["permission_denials"]
    assert denied["tool_input"]["command"] == "wfs status"


@pytest.mark.slow
def test_qwen_code_loads_the_commands_and_agents_wfs_installs(
    editors: Path, project: Path, home: Path
) -> None:
    install_qwen(project)
    with running("anthropic", lambda conversation: Say("Noted.")) as standin:
        events = qwen_events(editors, standin, project, home, "What can I run?")
    (init,) = [e for e in events if e.get("subtype") == "init"]
    assert {f"wfs:{name}" for name in ("execute", "plan", "status", "switch")} <= set(
        init["slash_commands"]
    )
    agents = ("action-planning-agent", "code-developer", "universal-executor")
    assert set(agents) <= set(init["agents"])
    # The agent tool lists each with its description.
    (tool,) = [t for t in standin.requests[0].body["tools"] if t["name"] == "agent"]
    for name in agents:
        data, _ = parse(project / agent_path("qwen", name))
        assert f"- **{name}**: {data['description']}" in tool["description"]
    # The command's text is what reaches the model (test_qwen_code_runs_the_...).
    assert (
        prompt_text(project / command_path("qwen", "status"))
        .strip()
        .startswith("# wfs session status\n")
    )
