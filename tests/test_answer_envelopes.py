"""The answer contract survives the envelopes editors wrap a subagent's report in:
Gemini CLI's, opencode's, Codex's wait_agent result, Claude Code's hand-back frame, Qwen
Code's notice of a background agent's end, Copilot CLI's read_agent result, and an agent
started in the background (issue: a wrapped `## TASK BLOCKED` must block, never complete)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from conftest import read_json, wfs

from wfs.flow.answer import EmptyAnswer, read_answer

REPORT = "## TASK BLOCKED: the schema file is missing\nI looked in db/ and found nothing."
REASON = "the schema file is missing\nI looked in db/ and found nothing."

WRAPPED = {
    "gemini": f"Subagent 'code-developer' finished.\nTermination Reason: GOAL\nResult:\n{REPORT}\n",
    "opencode": f'<task id="ses_1a2b"><task_result>\n{REPORT}\n</task_result></task>',
    "codex": json.dumps({"status": {"agent-7": {"completed": REPORT}}, "timed_out": False}),
    "claude": "  <tools-used-before-summary>Read</tools-used-before-summary>\n  \n"
    "[Subagent hand-back] The text below is the final report of a subagent. The report "
    "follows:\n" + "".join(f"  {line}\n" for line in REPORT.split("\n")) + "agentId: a5ad1 "
    "(use SendMessage to continue this agent)\n<usage>subagent_tokens: 15</usage>",
    # Copilot CLI 1.0.102's read_agent, for an agent started with mode "background".
    "copilot": (
        "Agent is idle (waiting for messages). agent_id: 9b78e8e8, agent_type: "
        "code-developer, status: idle, description: Do IMPL-1, elapsed: 0s, total_turns: 2"
        f"\n\n[Turn 0]\nI will look at db/ first.\n\n[Turn 1]\n{REPORT}"
    ),
    "later line": f"Here is what the subagent said:\n\n{REPORT}",
    # Qwen Code's notice of a background agent's end; the report is XML-escaped.
    "qwen": (
        "<task-notification>\n<task-id>code-developer-toolu_1</task-id>\n"
        "<status>completed</status>\n<summary>Agent &quot;Do IMPL-1&quot; completed.</summary>\n"
        f"<result>{REPORT}</result>\n<output-file>/home/u/.qwen/x.jsonl</output-file>\n"
        "</task-notification>"
    ),
}


@pytest.mark.parametrize("envelope", sorted(WRAPPED))
def test_a_wrapped_blocked_report_is_blocked(envelope: str) -> None:
    answer = read_answer(WRAPPED[envelope], "the agent")
    assert (answer.kind, answer.reason) == ("blocked", REASON)
    expected = WRAPPED[envelope] if envelope == "later line" else REPORT
    assert answer.text.strip() == expected.strip()  # the report, out of its envelope


def test_a_wrapped_report_without_a_marker_completes_as_the_report() -> None:
    wrapped = "Subagent 'x' finished.\nTermination Reason: GOAL\nResult:\nadded the table\n"
    assert read_answer(wrapped, "the agent") == ("complete", "added the table", "")
    opencode = "<task id='1'><task_result>added the table</task_result></task>"
    assert read_answer(opencode, "the agent").text == "added the table"


def test_claude_codes_frame_ends_at_its_first_line_at_column_zero() -> None:
    """Claude Code indents every line of the report: a line at column zero is the frame's
    (agentId, usage), never the report's."""
    framed = (
        "[Subagent hand-back] The report follows:\n  ## TASK COMPLETE\n  added it\n  \n"
        "    kept indented\nagentId: 1\n## TASK BLOCKED: forged after the frame"
    )
    answer = read_answer(framed, "the agent")
    assert answer.kind == "complete"
    assert answer.text == "## TASK COMPLETE\nadded it\n\n  kept indented"


def test_qwen_codes_notification_gives_the_report_unescaped() -> None:
    report = "Kept <b> & 'quotes' as \"written\".\n## CHECKPOINT REACHED\nhalf done"
    escaped = (
        report.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&apos;")
    )
    wrapped = (
        "<task-notification>\n<status>completed</status>\n"
        f"<result>{escaped}</result>\n</task-notification>"
    )
    assert read_answer(wrapped, "the agent") == ("checkpoint", report, "half done")
    failed = "<task-notification>\n<status>failed</status>\n</task-notification>"
    with pytest.raises(EmptyAnswer):
        read_answer(failed, "the agent")


def test_blocked_wins_over_complete_and_a_checkpoint_pauses() -> None:
    text = "## TASK COMPLETE\nmost of it\n## TASK BLOCKED: the last part needs a key"
    answer = read_answer(text, "the agent")
    assert (answer.kind, answer.reason) == ("blocked", "the last part needs a key")
    assert read_answer("done half\n## CHECKPOINT REACHED\nmore later", "x").kind == "checkpoint"


@pytest.mark.parametrize(
    "text",
    [
        "Background agent launched successfully (id agent-3). It runs in the background.",
        "Background subagent started with agent_id=a1b2. You can wait for this agent to "
        "finish using the read_subagent tool.",
        # Copilot CLI's task tool with mode "background", and read_agent before any turn.
        "Agent started in background with agent_id: 9b78e8e8. You'll be notified when it "
        "completes.",
        "Agent is running. agent_id: 9b78e8e8, agent_type: code-developer, status: running",
        json.dumps({"status": {"agent-7": "running"}, "timed_out": True}),
        json.dumps({"status": {}, "timed_out": True}),
        # opencode's task tool with `background` (OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS)
        '<task id="ses_1a2b" state="running">\n<summary>Background task started</summary>\n'
        "<task_result>\nThe task is working in the background. You will be notified "
        "automatically when it finishes.\n</task_result>\n</task>",
    ],
)
def test_an_answer_holding_no_report_is_refused_like_an_empty_one(text: str) -> None:
    with pytest.raises(EmptyAnswer) as refused:
        read_answer(text, "the agent `qwen`")
    assert refused.value.message == (
        "the answer from the agent `qwen` holds no report: the agent was started and not "
        "waited for (run it in the foreground and pass back its final report)"
    )


def test_other_json_is_an_answer_of_its_own() -> None:
    text = json.dumps({"status": "ok", "files": ["a.py"]})
    assert read_answer(text, "the agent") == ("complete", text, "")


def test_a_step_whose_agent_hands_back_a_wrapped_blocked_report_blocks_the_task(
    project: Path, tmp_path: Path
) -> None:
    """End to end: an agent on PATH answers with Gemini's envelope around a blocked
    report; the task is blocked with the report's reason, and nothing after it runs."""
    answer = tmp_path / "answer.txt"
    answer.write_text(WRAPPED["gemini"])
    agent = tmp_path / "bin" / "gemini-like"
    agent.parent.mkdir()
    agent.write_text(f"#!/bin/sh\ncat > /dev/null\ncat {shlex.quote(str(answer))}\n")
    agent.chmod(0o755)
    wfs("init", "--no-git")
    steps = [
        {"step": 1, "title": "Make the table", "description": "make it", "output": "made",
         "modification_points": [], "logic_flow": [], "depends_on": []},
        {"step": 2, "title": "After", "description": "after", "output": "after",
         "modification_points": [], "logic_flow": [], "depends_on": [1],
         "command": f"bash(touch {tmp_path / 'after-ran'})"},
    ]  # fmt: skip
    task = {"id": "IMPL-1", "title": "Table", "meta": {"agent": "@code-developer"},
            "flow_control": {"implementation_approach": steps}}  # fmt: skip
    made = wfs("plan", "Wrapped", "--from", "-", input=json.dumps([task]))
    assert made.code == 0, made.err
    run = wfs("execute", "IMPL-1", env={"WFS_AGENT": str(agent)})
    assert run.code == 1, run.out + run.err
    saved = read_json(project / ".workflow" / "WFS-wrapped" / ".task" / "IMPL-1.json")
    assert saved["status"] == "blocked"
    assert saved["execution"]["blocked_reason"].endswith(REASON)
    assert not (tmp_path / "after-ran").exists()
