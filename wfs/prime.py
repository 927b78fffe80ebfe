"""`wfs prime`: a short digest of the active session for an agent's context.

An editor runs it at the start of every session (a SessionStart hook), so it answers
from the index like `wfs status` does and imports nothing heavy (no templates, no
schemas). The digest never exceeds LIMIT characters; when there is
more to say than fits, it says how many tasks it left out, and never cuts a line.
"""

from __future__ import annotations

from typing import Any

from wfs import jsonio
from wfs.platform import shell_join
from wfs.query import STATE_LABELS, one_line

LIMIT = 1500
EDITORS = ("claude", "gemini", "codex", "qwen", "copilot", "devin", "cursor")
# The hook event an editor runs `wfs prime --hook-json` from, where not SessionStart:
# Gemini CLI gives it with the prompt (see agents_install.TARGETS["gemini"]).
HOOK_EVENTS = {"gemini": "BeforeAgent"}
# Editors whose session-start hook gives the context in a key of its own at the top of
# its output, instead of Claude Code's hookSpecificOutput.
FLAT_CONTEXT = {"cursor": "additional_context", "copilot": "additionalContext"}

RULES = [
    "Ground rules:",
    "- Drive the plan through the wfs CLI: wfs status, wfs next, wfs task show ID, wfs execute.",
    "- Never edit the JSON under .workflow/ by hand: change tasks with wfs task add, "
    "update or split, or wfs plan --session ID --from FILE.",
    "- Never mark a task completed by hand: wfs execute completes it once its steps ran.",
    "- A paused step waits for an answer: add --output-file F (or --output TEXT, or --skip) "
    "to its resume command.",
]

NO_SESSION = [
    "wfs: no active session in this project.",
    'Start one: wfs plan "TOPIC" --from plan.json (wfs schema plan describes the document),',
    "or pick an existing one: wfs session list, then wfs switch ID.",
]


def no_session_text(active: list[str] | None = None) -> str:
    """The digest when no single session is active (`active`: when several are)."""
    if active:
        head = [
            f"wfs: {len(active)} sessions are active: {', '.join(map(_id, active[:5]))}"
            + (f" and {len(active) - 5} more." if len(active) > 5 else "."),
            "Pick one: wfs switch ID (or give --session ID to every command).",
        ]
    else:
        head = NO_SESSION
    return _text(head + RULES)


def digest(summary: dict[str, Any], next_rows: list[dict[str, Any]], prefix: list[str]) -> str:
    """The digest of one session: `summary` and `next_rows` as the index holds them
    (wfs.index.compute_answers), `stopped` as wfs.query.stopped_view shows it."""
    progress = summary["progress"]
    head = [
        f"wfs session {_id(summary['session'])} ({_id(summary['status'])}): "
        f"phase {_id(summary['phase'])}, {progress['completed']} of {progress['total']} tasks "
        f"completed ({progress['percent']}%).",
    ]
    if summary.get("project"):
        head.append(f"Topic: {one_line(summary['project'], 100)}")
    ready = summary["ready"]
    stopped = summary.get("stopped", [])
    if next_rows:
        row = next_rows[0]
        head.append(f"Next: {_id(row['id'])} {one_line(row['title'], 100)}")
        head.append(f"  run: {_command([*prefix, 'execute'])}")
        head.append(f"Ready ({len(ready)}): {_some(ready)}")
    elif progress["total"] == 0:
        head.append(f"No tasks yet: add them with {_command([*prefix, 'plan', '--from', 'F'])}")
    elif progress["completed"] == progress["total"]:
        head.append("Every task is completed: review the work; wfs session complete closes it.")
    else:
        head.append("No task is ready.")
    if stopped:
        head.append(f"Stopped ({len(stopped)}): {_counts(stopped)}.")
    room = LIMIT - _size(head + RULES)
    body: list[str] = []
    for i, entry in enumerate(stopped):
        lines = _stopped_lines(entry)
        left = len(stopped) - i - 1
        if _size(body + lines + ([_more(left)] if left else [])) > room:
            body.append(_more(left + 1))
            break
        body += lines
    text = _text(head + body + RULES)
    if len(text) > LIMIT:  # only ids far longer than wfs makes get here
        text = _text([head[0], "wfs status shows the tasks.", *RULES])
    return text


def _stopped_lines(entry: dict[str, Any]) -> list[str]:
    state = entry["state"]
    where = f" at {one_line(entry['step'], 60)}" if entry.get("step") else ""
    if state == "running":
        text = f"claimed by {one_line(entry['owner'], 60)} since {one_line(entry['since'], 40)}"
    elif state == "stale":
        text = f"claimed by {one_line(entry['owner'], 60)}, which is no longer running"
    else:
        text = one_line(entry.get("reason", ""), 120)
    lines = [f"{STATE_LABELS.get(state, state)} {_id(entry['id'])}{where}: {text}"]
    if entry.get("resume"):
        lines.append(f"  resume: {_command(entry['resume'])}")
    return lines


def _id(value: Any) -> str:
    return one_line(value, 60)


def _command(argv: list[str]) -> str:
    """A command to run, quoted for the shell; a session folder's name cannot smuggle
    control characters into the agent's context or a terminal."""
    return one_line(shell_join(argv), 300)


def _more(count: int) -> str:
    return f"... and {count} more stopped task{'s' if count != 1 else ''}: wfs status lists them."


def _counts(stopped: list[dict[str, Any]]) -> str:
    states = [entry["state"] for entry in stopped]
    order = [*STATE_LABELS, *sorted(set(states) - set(STATE_LABELS))]
    return ", ".join(f"{states.count(s)} {s}" for s in order if s in states)


def _some(ids: list[str], shown: int = 5) -> str:
    listed = ", ".join(_id(tid) for tid in ids[:shown])
    return listed if len(ids) <= shown else f"{listed} and {len(ids) - shown} more"


def _size(lines: list[str]) -> int:
    return sum(len(line) + 1 for line in lines)


def _text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def hook_json(text: str, editor: str) -> bytes:
    """The SessionStart hook output that `editor` reads `text` from as added context.

    Claude Code, Gemini CLI, Codex CLI, Qwen Code and Devin document the same envelope; Codex
    refuses any key it does not know, so there is nothing else in it. Cursor's
    sessionStart hook answers `{"additional_context": …}`, and Copilot CLI reads
    `additionalContext` at the top level (it ignores the other envelope).
    """
    if editor not in EDITORS:
        raise ValueError(editor)
    if editor in FLAT_CONTEXT:
        return f'{{"{FLAT_CONTEXT[editor]}": {jsonio.string(text)}}}\n'.encode()
    event = HOOK_EVENTS.get(editor, "SessionStart")
    return (
        f'{{"hookSpecificOutput": {{"hookEventName": "{event}", "additionalContext": '
        f"{jsonio.string(text)}}}}}\n"
    ).encode()


def json_data(sid: str | None, text: str) -> dict[str, Any]:
    """`wfs prime --json`."""
    return {"session": sid, "text": text}


def no_project_text(message: str) -> str:
    """The digest where there is no project: how to start one."""
    return _text([f"wfs: {one_line(message, 300)}", *RULES])


def error_text(message: str) -> str:
    """The digest when the plan cannot be read: a hook still gives the agent its bearings."""
    return _text(
        [
            f"wfs: the plan cannot be read: {one_line(message, 300)}",
            "wfs doctor finds what is wrong (wfs doctor --fix repairs what it safely can).",
            *RULES,
        ]
    )
