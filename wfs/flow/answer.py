"""The agent's answer contract (SPEC §3.13): what an answer may say, and how it is read.

Editors hand a subagent's report back in envelopes of their own, and an orchestrating
model often passes the envelope on as the answer. wfs reads the report inside the
envelopes it knows (`unwrap`), and finds the contract's markers at the start of any
line of it: a report that says `## TASK BLOCKED` under a wrapper's first lines is
blocked, never done.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from wfs import jsonio
from wfs.errors import WfsError

CONTRACT = (
    "Answer in plain text: what you did, the files you changed, the decisions you took "
    "and any value a later step needs. Your answer is this step's output. "
    "If you cannot do the step, answer `## TASK BLOCKED: <why>`: the task is blocked with "
    "that reason and nothing after it runs. To hand back partial work and continue later, "
    "start with `## CHECKPOINT REACHED`: the partial answer is kept and the step pauses. "
    "`## TASK COMPLETE` (optional) or plain text completes the step. "
    "An empty answer is refused."
)

_MARKER = r"(?im)^[ \t>]*#{2,}\s*(TASK BLOCKED|CHECKPOINT REACHED|TASK COMPLETE)\b[ \t:.-]*"
KINDS = {"task blocked": "blocked", "checkpoint reached": "checkpoint"}  # else complete
MAX_REASON = 1000

# opencode's task tool: <task id="…"><task_result>REPORT</task_result></task>
_OPENCODE = r"(?s)<task_result>(.*?)(?:</task_result>|\Z)"
# …and of a subagent it started in the background: <task id="…" state="running">
_OPENCODE_RUNNING = r"\A<task\b[^>]*\bstate=[\"']running[\"']"
# Gemini CLI's subagent tool: "Subagent 'NAME' finished.\nTermination Reason: …\nResult:\nREPORT"
_GEMINI = r"\ASubagent '[^'\n]*' finished\.[^\n]*\n(?:(?!Result:).*\n)*?Result:[ \t]*\n?"
# Copilot CLI's read_agent: "Agent completed. agent_id: …\n\n[Turn 0]\nREPORT" (or "Agent
# is idle (…). agent_id: …"; the history, one "[Turn N]" block a turn: the report is the
# last one).
_COPILOT = r"\AAgent\b[^\n]*\bagent_id: [^\n]*(?:\n|\Z)"
_COPILOT_TURN = r"(?m)^\[Turn \d+\][ \t]*\n"
# Claude Code's Agent tool: "… The report follows:\n" then the report, every line
# indented by two spaces, then "agentId: …" and usage at column zero.
_CLAUDE = r"(?m)^\[Subagent hand-back\][^\n]*The report follows:[ \t]*\n"
# Qwen Code's notice that an agent started in the background finished, its report
# XML-escaped: "<task-notification>…<result>REPORT</result>…</task-notification>"
_QWEN = r"(?s)\A<task-notification>.*?<result>(.*?)</result>"
# What an editor says when it started the agent and did not wait for its report
# (Qwen Code: "Background agent launched…"; Devin: "Background subagent started…";
# Copilot CLI: "Agent started in background…").
_BACKGROUND = (
    r"(?i)\A(?:background (?:sub)?agent (?:launched|started)|"
    r"agent (?:was )?launched in the background|"
    r"agent started in (?:the )?background|"
    r"(?:the )?agent is (?:now )?running in the background)"
)


class Answer(NamedTuple):
    kind: str  # complete | blocked | checkpoint
    text: str  # the whole answer (the report, out of its envelope)
    reason: str  # for `blocked`: why, in a few lines


class EmptyAnswer(WfsError):
    """An agent answered nothing: the step stays paused (exit 2)."""


def unwrap(text: str) -> str | None:
    """The report inside the envelope an editor handed it back in, or the text itself;
    None when the envelope holds no report (the agent is still running, or timed out)."""
    stripped = text.strip()
    if stripped.startswith("<task-notification>"):
        found = re.match(_QWEN, stripped)
        if found is None:  # the agent failed, or was stopped, without a report
            return None
        import html  # deferred: ~10 ms, only for this envelope

        return html.unescape(found.group(1)).strip()
    if re.match(_OPENCODE_RUNNING, stripped):
        return None
    found = re.search(_OPENCODE, stripped)
    if found is not None:
        return found.group(1).strip()
    found = re.match(_GEMINI, stripped)
    if found is not None:
        return stripped[found.end() :].strip()
    found = re.search(_CLAUDE, text)
    if found is not None:
        return claude_report(text[found.end() :])
    if re.match(_COPILOT, stripped):
        turns = list(re.finditer(_COPILOT_TURN, stripped))
        return stripped[turns[-1].end() :].strip() if turns else None
    if stripped.startswith("{") and stripped.endswith("}"):
        return codex_report(stripped, text)
    return text


def claude_report(framed: str) -> str:
    """The report in Claude Code's frame: its indented lines, up to the first line at
    column zero (the frame's own), without the indent."""
    lines = []
    for line in framed.split("\n"):
        if line and not line.startswith("  "):
            break
        lines.append(line.removeprefix("  "))
    return "\n".join(lines).strip()


def codex_report(stripped: str, text: str) -> str | None:
    """Codex's wait_agent result, `{"status": {AGENT: {"completed": REPORT}}, "timed_out":
    false}`: the reports of the agents that completed (or failed); None when it holds
    none. Any other JSON object is an answer of its own."""
    try:
        data: Any = jsonio.loads(stripped)
    except ValueError:
        return text
    status = data.get("status") if isinstance(data, dict) else None
    if not isinstance(status, dict) or "timed_out" not in data:
        return text
    reports = []
    for state in status.values():
        if isinstance(state, dict):
            for key in ("completed", "errored", "failed"):
                if isinstance(state.get(key), str):
                    reports.append(state[key])
    return "\n\n".join(reports) if reports else None


def read_answer(text: str, source: str) -> Answer:
    """Classify an answer; one that is empty, or that holds no report (an agent started
    in the background, an envelope without a result), raises EmptyAnswer naming its
    `source`."""
    report = unwrap(text) if text.strip() else ""
    if report is None or re.match(_BACKGROUND, report.strip()):
        raise EmptyAnswer(
            f"the answer from {source} holds no report: the agent was started and not "
            "waited for (run it in the foreground and pass back its final report)"
        )
    if not report.strip():
        raise EmptyAnswer(
            f"the answer from {source} is empty; a step is only done with an answer "
            "(give one, or skip the step with --skip)"
        )
    markers = list(re.finditer(_MARKER, report))
    if not markers:
        return Answer("complete", report, "")
    kinds = [KINDS.get(m.group(1).lower(), "complete") for m in markers]
    # A report that says it is blocked anywhere is blocked; then a checkpoint pauses.
    kind = next((k for k in ("blocked", "checkpoint") if k in kinds), "complete")
    match = markers[kinds.index(kind)] if kind != "complete" else markers[0]
    reason = report[match.end() :].strip()
    if kind == "blocked":
        reason = reason or "the agent reported TASK BLOCKED without a reason"
        if len(reason) > MAX_REASON:
            reason = reason[:MAX_REASON] + " …"
    return Answer(kind, report, reason)
