"""`wfs prime`: a short digest of the active session for an agent's context, and the
same in the SessionStart hook envelope of Claude Code, Gemini CLI and Codex CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import wfs, wfs_process
from hypothesis import given
from hypothesis import strategies as st

from wfs import prime

RULES = """\
Ground rules:
- Drive the plan through the wfs CLI: wfs status, wfs next, wfs task show ID, wfs execute.
- Never edit the JSON under .workflow/ by hand: change tasks with wfs task add, update or split, or wfs plan --session ID --from FILE.
- Never mark a task completed by hand: wfs execute completes it once its steps ran.
- A paused step waits for an answer: add --output-file F (or --output TEXT, or --skip) to its resume command.
"""

FAILING_STEP = {
    "step": 1,
    "title": "Build",
    "description": "Build the server.",
    "modification_points": [],
    "logic_flow": [],
    "depends_on": [],
    "output": "built",
    "command": "bash(echo compiling; exit 3)",
}

PLAN = {
    "overview": "Login",
    "tasks": [
        {
            "id": "IMPL-1",
            "title": "Build the server",
            "flow_control": {"implementation_approach": [FAILING_STEP]},
        },
        {"id": "IMPL-2", "title": "Write the login page"},
        {"id": "IMPL-3", "title": "Test the login", "context": {"depends_on": ["IMPL-1"]}},
        {"id": "IMPL-4", "title": "Document it"},
    ],
}

SID = "WFS-user-login"


def plan(document: Any = PLAN, topic: str = "User Login") -> None:
    wfs("init", "--no-git")
    created = wfs("plan", topic, "--from", "-", input=json.dumps(document))
    assert created.code == 0, created.err


def age_everything(project: Path) -> None:
    """Make every file look older than any racy window, then warm the index."""
    old = time.time() - 60
    for path in (project / ".workflow").rglob("*"):
        os.utime(path, (old, old))
    assert wfs("status").code == 0


def test_prime_digests_a_fresh_session(project: Path) -> None:
    plan()
    result = wfs("prime")
    assert (result.code, result.err) == (0, "")
    assert result.out == (
        "wfs session WFS-user-login (active): phase PLAN, 0 of 4 tasks completed (0%).\n"
        "Topic: User Login\n"
        "Next: IMPL-1 Build the server\n"
        "  run: wfs --session WFS-user-login execute\n"
        "Ready (3): IMPL-1, IMPL-2, IMPL-4\n" + RULES
    )


@pytest.mark.slow
def test_prime_names_blocked_and_paused_tasks_with_their_resume_commands(project: Path) -> None:
    plan()
    # IMPL-1 fails, IMPL-2 waits for an agent (`--all` would go on to IMPL-4).
    assert [wfs("execute").code for _ in range(2)] == [1, 3]
    result = wfs("prime")
    assert result.code == 0
    assert result.out == (
        "wfs session WFS-user-login (active): phase IMPLEMENT, 0 of 4 tasks completed (0%).\n"
        "Topic: User Login\n"
        "Next: IMPL-4 Document it\n"
        "  run: wfs --session WFS-user-login execute\n"
        "Ready (1): IMPL-4\n"
        "Stopped (2): 1 paused, 1 blocked.\n"
        "Blocked: IMPL-1 at implementation_approach/1: step implementation_approach/1 (Build)"
        " failed: exit code 3\n"
        "  resume: wfs --session WFS-user-login execute --resume IMPL-1\n"
        "Paused: IMPL-2 at task: waiting for an agent\n"
        "  resume: wfs --session WFS-user-login execute --resume IMPL-2\n" + RULES
    )
    # The resume commands are the ones `wfs status` gives.
    stopped = wfs("status", "--json").json()["stopped"]
    assert [e["resume"][-1] for e in stopped] == ["IMPL-1", "IMPL-2"]
    assert all(" ".join(e["resume"]) in result.out for e in stopped)


@pytest.mark.slow
def test_prime_says_when_everything_is_done_and_when_nothing_is_ready(project: Path) -> None:
    plan(
        {
            "tasks": [
                {
                    "id": "IMPL-1",
                    "title": "Only",
                    "flow_control": {
                        "implementation_approach": [{**FAILING_STEP, "command": "bash(true)"}]
                    },
                }
            ]
        },
        "Done",
    )
    assert wfs("execute").code == 0
    assert wfs("prime").out == (
        "wfs session WFS-done (active): phase REVIEW, 1 of 1 tasks completed (100%).\n"
        "Topic: Done\n"
        "Every task is completed: review the work; wfs session complete closes it.\n" + RULES
    )
    plan(
        {
            "tasks": [
                {
                    "id": "IMPL-1",
                    "title": "Only",
                    "flow_control": {"implementation_approach": [FAILING_STEP]},
                }
            ]
        },
        "Stuck",
    )
    assert wfs("execute").code == 1
    assert wfs("prime").out == (
        "wfs session WFS-stuck (active): phase IMPLEMENT, 0 of 1 tasks completed (0%).\n"
        "Topic: Stuck\n"
        "No task is ready.\n"
        "Stopped (1): 1 blocked.\n"
        "Blocked: IMPL-1 at implementation_approach/1: step implementation_approach/1 (Build)"
        " failed: exit code 3\n"
        "  resume: wfs --session WFS-stuck execute --resume IMPL-1\n" + RULES
    )
    wfs("init", "--no-git")
    assert wfs("plan", "Empty", "--empty").code == 0
    assert wfs("prime").out == (
        "wfs session WFS-empty (active): phase PLAN, 0 of 0 tasks completed (0%).\n"
        "Topic: Empty\n"
        "No tasks yet: add them with wfs --session WFS-empty plan --from F\n" + RULES
    )


def large_plan(count: int) -> dict[str, Any]:
    """Tasks stopped in every way `status` knows, with long reasons and titles."""
    tasks: list[dict[str, Any]] = []
    for n in range(1, count + 1):
        task: dict[str, Any] = {"id": f"IMPL-{n}", "title": f"Task {n}: " + "long title " * 12}
        if n % 3 == 0:
            task["status"] = "blocked"
            task["execution"] = {
                "step": "implementation_approach/1",
                "blocked_reason": f"step implementation_approach/1 (Build) failed: exit code {n}"
                + "; the compiler said"
                + " something long" * 20,
            }
        elif n % 3 == 1:
            task["status"] = "active"
            task["execution"] = {"step": "task", "paused_reason": "waiting for an agent"}
        tasks.append(task)
    return {"tasks": tasks}


def entry_lines(entry: dict[str, Any]) -> list[str]:
    """How the digest shows one stopped task (reasons cut to 120 characters)."""
    reason = entry["reason"] if len(entry["reason"]) <= 120 else entry["reason"][:119] + "…"
    label = {"blocked": "Blocked:", "paused": "Paused:"}[entry["state"]]
    return [
        f"{label} {entry['id']} at {entry['step']}: {reason}",
        f"  resume: {' '.join(entry['resume'])}",
    ]


def more_line(count: int) -> str:
    return f"... and {count} more stopped tasks: wfs status lists them."


@pytest.mark.slow
def test_prime_of_a_large_session_fits_the_cap_and_cuts_no_line(project: Path) -> None:
    plan(large_plan(300), "Big")
    text = wfs("prime").out
    assert len(text) <= prime.LIMIT == 1500
    stopped = wfs("status", "--json").json()["stopped"]
    assert len(stopped) == 200
    head = [
        "wfs session WFS-big (active): phase IMPLEMENT, 0 of 300 tasks completed (0%).",
        "Topic: Big",
        "Next: IMPL-2 " + ("Task 2: " + "long title " * 12)[:99] + "…",
        "  run: wfs --session WFS-big execute",
        "Ready (100): IMPL-2, IMPL-5, IMPL-8, IMPL-11, IMPL-14 and 95 more",
        "Stopped (200): 100 paused, 100 blocked.",
    ]
    lines = text.splitlines()
    assert lines[: len(head)] == head
    assert text.endswith(RULES)
    body = lines[len(head) : -len(RULES.splitlines())]
    shown = (len(body) - 1) // 2
    assert shown >= 3
    assert body == [line for e in stopped[:shown] for line in entry_lines(e)] + [
        more_line(200 - shown)
    ]
    # As full as it can be: the next task would not have fitted.
    grown = (
        len(text)
        - len(more_line(200 - shown))
        - 1
        + sum(len(line) + 1 for line in entry_lines(stopped[shown]))
        + len(more_line(199 - shown))
        + 1
    )
    assert grown > prime.LIMIT


@pytest.mark.slow
def test_prime_without_a_session_says_how_to_start_one(project: Path) -> None:
    expected = (
        "wfs: no active session in this project.\n"
        'Start one: wfs plan "TOPIC" --from plan.json (wfs schema plan describes the document),\n'
        "or pick an existing one: wfs session list, then wfs switch ID.\n" + RULES
    )
    assert wfs("init").code == 0
    assert (wfs("prime").code, wfs("prime").out) == (0, expected)
    hook = wfs("prime", "--hook-json")
    assert json.loads(hook.out)["hookSpecificOutput"]["additionalContext"] == expected
    assert wfs("prime", "--json").json() == {"session": None, "text": expected}
    assert wfs_process("prime", cwd=project).out == expected


def test_prime_with_several_active_sessions_asks_to_pick_one(project: Path) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "Alpha", "--empty").code == 0
    assert wfs("plan", "Beta", "--empty").code == 0
    (project / ".workflow/.active-WFS-alpha").touch()
    result = wfs("prime")
    assert result.out == (
        "wfs: 2 sessions are active: WFS-alpha, WFS-beta.\n"
        "Pick one: wfs switch ID (or give --session ID to every command).\n" + RULES
    )
    assert wfs("--session", "alpha", "prime").out.startswith(
        "wfs session WFS-alpha (paused): phase PLAN, 0 of 0 tasks completed (0%).\n"
    )


@pytest.mark.parametrize("editor", [None, "claude", "gemini", "codex", "qwen", "devin"])
def test_hook_json_is_the_envelope_every_editor_reads(project: Path, editor: str | None) -> None:
    """The hook's output, for the event each editor runs it at (Gemini CLI: before the
    agent, so that a headless /wfs: command stays a command)."""
    plan()
    argv = ["prime", "--hook-json", *(["--editor", editor] if editor else [])]
    result = wfs(*argv)
    assert (result.code, result.err) == (0, "")
    assert result.out.endswith("}\n") and result.out.count("\n") == 1
    # Codex refuses any key its schema does not name: exactly these two levels.
    assert json.loads(result.out) == {
        "hookSpecificOutput": {
            "hookEventName": "BeforeAgent" if editor == "gemini" else "SessionStart",
            "additionalContext": wfs("prime").out,
        }
    }


def test_cursors_hook_json_is_its_own_flat_envelope(project: Path) -> None:
    """Cursor's sessionStart hook adds the text under `additional_context`."""
    plan()
    result = wfs("prime", "--hook-json", "--editor", "cursor")
    assert (result.code, result.err) == (0, "")
    assert result.out.endswith("}\n") and result.out.count("\n") == 1
    assert json.loads(result.out) == {"additional_context": wfs("prime").out}


def test_hook_json_for_copilot_is_the_top_level_context_copilot_cli_reads(
    project: Path,
) -> None:
    """Copilot CLI 1.0.102 adds a sessionStart hook's top-level `additionalContext` to
    the conversation and ignores Claude Code's envelope (test_real_editor_copilot)."""
    plan()
    result = wfs("prime", "--hook-json", "--editor", "copilot")
    assert (result.code, result.err) == (0, "")
    assert result.out.endswith("}\n") and result.out.count("\n") == 1
    assert json.loads(result.out) == {"additionalContext": wfs("prime").out}


def test_hook_json_reports_an_unreadable_plan_instead_of_failing_the_hook(
    project: Path,
) -> None:
    plan()
    (project / f".workflow/{SID}/workflow-session.json").write_text("{broken")
    plain = wfs("prime")
    assert plain.code == 2
    message = plain.err.removeprefix("wfs: error: ").rstrip("\n")
    assert message.startswith(f".workflow/{SID}/workflow-session.json:1:2: invalid JSON")
    hook = wfs("prime", "--hook-json", "--editor", "gemini")
    assert (hook.code, hook.err) == (0, "")
    assert json.loads(hook.out)["hookSpecificOutput"]["additionalContext"] == (
        f"wfs: the plan cannot be read: {message}\n"
        "wfs doctor finds what is wrong (wfs doctor --fix repairs what it safely can).\n" + RULES
    )


def test_editor_goes_with_hook_json(project: Path) -> None:
    plan()
    result = wfs("prime", "--editor", "codex")
    assert result.code == 2
    assert result.err.endswith("Error: --editor goes with --hook-json\n")
    assert wfs("prime", "--hook-json", "--editor", "vim").code == 2


PRIME_FORMS = [
    ["prime"],
    ["prime", "--json"],
    ["--json", "prime"],
    ["prime", "--hook-json"],
    ["prime", "--hook-json", "--editor", "codex"],
    ["prime", "--editor=gemini", "--hook-json"],
]


@pytest.mark.slow
@pytest.mark.parametrize("argv", PRIME_FORMS, ids=" ".join)
def test_prime_from_the_index_says_what_it_says_from_the_files(
    project: Path, argv: list[str]
) -> None:
    plan()
    assert wfs("execute", "--all").code == 3
    age_everything(project)
    fresh = wfs_process(*argv, cwd=project, env={"WFS_NO_CACHE": "1"})
    assert (fresh.code, fresh.err) == (0, "")
    assert wfs(*argv).out == fresh.out
    assert wfs_process(*argv, cwd=project) == fresh


@pytest.mark.slow
def test_prime_imports_neither_templates_nor_schemas(project: Path) -> None:
    plan()
    age_everything(project)
    script = (
        "import sys\n"
        "sys.argv = ['wfs', 'prime', '--hook-json']\n"
        "from wfs.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = {'jinja2', 'jsonschema', 'fastjsonschema', 'mcp'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=project, capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stderr) == (0, "[]\n")
    assert json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"].startswith(
        "wfs session WFS-user-login (active)"
    )


@pytest.mark.slow
@given(st.text())
def test_any_text_reaches_the_agent_through_the_hook_envelope(text: str) -> None:
    envelope = json.loads(prime.hook_json(text, "claude"))
    assert envelope == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}
    }


@pytest.mark.slow
def test_prime_shows_control_characters_from_files_as_escapes(project: Path) -> None:
    hostile = "Fix \x1b[2J\x1b]0;owned\x07login\u202enow"
    step = {**FAILING_STEP, "command": "bash(printf '\\033]0;owned\\007'; exit 3)"}
    tasks = [
        {"id": "IMPL-1", "title": hostile, "flow_control": {"implementation_approach": [step]}},
        {"id": "IMPL-2", "title": hostile},
    ]
    plan({"tasks": tasks}, "Auth \x1b[2J")
    assert wfs("execute").code == 1
    age_everything(project)
    text = wfs("prime").out
    assert "Next: IMPL-2 Fix \\x1b[2J\\x1b]0;owned\\x07login\\u202enow\n" in text
    assert not any(c in text for c in "\x1b\x07\u202e")
    assert wfs_process("prime", cwd=project).out == text
    hook = json.loads(wfs("prime", "--hook-json").out)
    assert hook["hookSpecificOutput"]["additionalContext"] == text
