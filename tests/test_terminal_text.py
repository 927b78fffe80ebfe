"""Text from files never reaches the terminal, or a generated view, with its control
characters intact: escape sequences that clear the screen, set the window title or
write the clipboard are shown as `\\xNN` escapes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import wfs, wfs_process
from hypothesis import given, settings
from hypothesis import strategies as st

from wfs.text import for_terminal, printable

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;owned\x07"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
BIDI = "\u202e"
HOSTILE_TITLE = f"Fix {CLEAR}login{TITLE}{CLIPBOARD}{BIDI}now"
SHOWN_TITLE = "Fix \\x1b[2J\\x1b[Hlogin\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\u202enow"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e]")


def test_titles_and_topics_are_escaped_in_every_output(project: Path) -> None:
    topic = f"Auth {CLEAR}"
    tasks = [
        {
            "id": "IMPL-1",
            "title": HOSTILE_TITLE,
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": HOSTILE_TITLE,
                        "description": "d",
                        "modification_points": [],
                        "logic_flow": [],
                        "depends_on": [],
                        "output": "o",
                        "command": f"bash(printf '{TITLE}'; exit 3)",
                    }
                ],
            },
        }
    ]
    wfs("init", "--no-git")
    plan = wfs("plan", topic, "--from", "-", input=json.dumps(tasks))
    assert plan.code == 0, plan.err
    outputs = {
        "status": wfs("status"),
        "task list": wfs("task", "list"),
        "next": wfs("next"),
        "session list": wfs("session", "list"),
        "dry run": wfs("execute", "--dry-run"),
        "execute": wfs("execute"),
        "status after": wfs("status"),
    }
    for name, run in outputs.items():
        for text in (run.out, run.err):
            assert not RAW.search(text), (name, text)
    assert SHOWN_TITLE in outputs["task list"].out
    assert "Topic:    Auth \\x1b[2J\\x1b[H" in outputs["status"].out
    assert "\\x1b]0;owned\\x07" in outputs["execute"].out  # the failing step's output tail
    for view in (project / ".workflow").rglob("*.md"):
        assert not RAW.search(view.read_text()), view
    sid = plan.out.strip()
    assert SHOWN_TITLE in (project / ".workflow" / sid / "TODO_LIST.md").read_text()


@pytest.mark.slow
def test_the_fast_path_escapes_too(project: Path) -> None:
    tasks = [{"id": "IMPL-1", "title": HOSTILE_TITLE}]
    wfs("init", "--no-git")
    assert wfs("plan", "Plain", "--from", "-", input=json.dumps(tasks)).code == 0
    wfs("status")  # builds the index, so the next calls answer from it
    for args in (("status",), ("next",)):
        run = wfs_process(*args, cwd=project)
        assert run.code == 0
        assert not RAW.search(run.out), run.out
    assert SHOWN_TITLE in wfs_process("next", cwd=project).out


def test_error_messages_escape_what_came_from_a_file(project: Path) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "Errors", "--from", "-", input='[{"id": "IMPL-1", "title": "x"}]').code == 0
    bad = project / ".workflow/WFS-errors/.task/IMPL-1.json"
    data = json.loads(bad.read_text())
    data["status"] = f"weird{CLEAR}"
    bad.write_text(json.dumps(data))
    run = wfs("execute", "IMPL-1")
    assert run.code == 2
    assert not RAW.search(run.err), run.err


# What the escapes are, spelled as a regular expression: C0 controls but tab and newline,
# DEL, C1 controls, and the bidirectional marks, embeddings, overrides and isolates.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
OWN_STYLES = re.compile("(\x1b\\[(?:0|1|3[123])m)")


def _escaped(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return CONTROL.sub(one, text)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(
    st.text(
        st.sampled_from(
            [
                "a",
                "\x1b",
                "[",
                "0",
                "1",
                "3",
                "m",
                "2",
                "4",
                "\n",
                "\t",
                "\x07",
                "\x9b",
                "\u202e",
                "\u2069",
                "\u206a",
                "\u200e",
                "é",
                "\x7f",
                "\x1f",
                " ",
            ]
        )  # fmt: skip
    )
    | st.text()
)
def test_escapes_are_exactly_the_control_characters_and_only_wfs_styles_pass(text: str) -> None:
    assert printable(text) == _escaped(text)
    parts = OWN_STYLES.split(text)
    kept = "".join(part if n % 2 else _escaped(part) for n, part in enumerate(parts))
    assert for_terminal(text) == kept
