"""Hostile input: each case has its exact exit code and message, shows no traceback,
prints no raw control character, and leaves the whole tree byte-for-byte unchanged (lock
files and the derived index aside; a case that must write names what it may change).

A task file that vanishes mid-command is simulated deterministically: the file is
deleted right after wfs lists its folder (`Case.vanish`), the window in which a
concurrent `rm` or `git checkout` takes it away, with the index cache warm."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple

import pytest
from conftest import Run, wfs

S = ".workflow/WFS-h"
T = f"{S}/.task"

BASE_PLAN = [
    {"id": "IMPL-1", "title": "Group"},
    {"id": "IMPL-1.1", "title": "First"},
    {"id": "IMPL-1.2", "title": "Second", "context": {"depends_on": ["IMPL-1.1"]}},
    {"id": "IMPL-2", "title": "Leaf"},
]


def tree_hash(root: Path, skip: tuple[str, ...] = ()) -> str:
    """A digest of every file under `root` but those starting with one of `skip`."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith((".workflow/.locks", ".workflow/.cache")):
            continue  # wfs's own lock files and derived index (both ignored by git)
        if skip and relative.startswith(skip):
            continue
        digest.update(relative.encode() + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.readlink(path).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def write(relative: str, data: bytes | str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)

    return setup


def edit_task(tid: str, **changes: object) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / T / f"{tid}.json"
        task = json.loads(path.read_text())
        task.update(changes)
        path.write_text(json.dumps(task, indent=2))

    return setup


def assert_not_in_runs(root: Path, text: str) -> None:
    for record in (root / S / ".runs").rglob("*"):
        if record.is_file():
            written = record.read_text()
            assert text not in written and json.dumps(text)[1:-1] not in written, record


def step_task(command: str) -> Callable[[Path], None]:
    steps = [
        {
            "step": 1,
            "title": "s",
            "description": "d",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "x",
            "command": command,
        }
    ]
    return edit_task("IMPL-2", flow_control={"pre_analysis": [], "implementation_approach": steps})


def symlink(relative: str, target: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        os.symlink(target if target.startswith("/") else root.parent / target, root / relative)

    return setup


def nothing(root: Path) -> None:
    return None


def steps(*setups: Callable[[Path], object]) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        for one in setups:
            one(root)

    return setup


def run(*args: str, code: int = 0) -> Callable[[Path], None]:
    """A wfs command as part of a setup."""

    def setup(root: Path) -> None:
        done = wfs(*args)
        assert done.code == code, (args, done.out, done.err)

    return setup


def raw_edit(relative: str, old: bytes, new: bytes) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / relative
        data = path.read_bytes()
        assert old in data
        path.write_bytes(data.replace(old, new))

    return setup


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def deep_field(relative: str, depth: int) -> Callable[[Path], None]:
    """The JSON object file `relative` with one more key holding arrays `depth` deep."""

    def setup(root: Path) -> None:
        path = root / relative
        text = path.read_text().rstrip()
        assert text.endswith("}")
        path.write_text(text[:-1].rstrip() + f',\n  "deep": {nested(depth)}\n}}\n')

    return setup


def edit_session(**changes: object) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        path = root / S / "workflow-session.json"
        data = json.loads(path.read_text())
        data.update(changes)
        path.write_text(json.dumps(data, indent=2))

    return setup


def fifo(relative: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        if not hasattr(os, "mkfifo"):
            pytest.skip("needs FIFOs (POSIX)")
        os.mkfifo(root / relative)

    return setup


def unreadable(relative: str) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        (root / relative).chmod(0)

    return setup


def views_hold(text: str, *names: str) -> Callable[[Path, Run], None]:
    """A check: each generated view holds `text` and no raw control character."""

    def check(root: Path, done: Run) -> None:
        for name in names:
            view = (root / S / name).read_text()
            assert text in view, (name, view)
            assert not RAW.search(view), (name, view)

    return check


def paused(root: Path) -> None:
    """IMPL-2 started and paused, waiting for its agent's answer."""
    assert wfs("execute", "IMPL-2").code == 3


def answer_kept(answer: str) -> Callable[[Path, Run], None]:
    """A check: IMPL-2 completed, its answer kept as text, byte for byte (in the summary,
    or beside the run record when it is long)."""

    def check(root: Path, done: Run) -> None:
        task = json.loads((root / T / "IMPL-2.json").read_text())
        assert task["status"] == "completed"
        kept = [p for p in (root / S).rglob("*") if p.is_file() and answer in p.read_text()]
        assert kept, "the answer was not kept"

    return check


def assert_once(path: Path, text: str) -> None:
    assert path.read_text().count(text) == 1, path.read_text()


def vanished_from_views(root: Path, done: Run) -> None:
    for name in ("TODO_LIST.md", "IMPL_PLAN.md"):
        assert "IMPL-2" not in (root / S / name).read_text(), name


class Case(NamedTuple):
    name: str
    setup: Callable[[Path], None]
    args: tuple[str, ...]
    code: int
    err: str  # exact stderr, or its start when it ends with "…"
    stdin: bytes | None = None
    out: str | None = None  # exact stdout, or its start when it ends with "…"
    vanish: str | None = None  # deleted right after wfs lists its folder
    writes: tuple[str, ...] = ()  # what the command may change: path prefixes
    check: Callable[[Path, Run], None] | None = None  # more to assert afterwards
    env: dict[str, str] | None = None
    color: bool = False  # as on a color terminal
    as_user: bool = False  # permissions must apply (not as root)


# Raw control characters; on a color terminal, wfs's own SGR sequences are allowed.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
OWN_SGR = re.compile("\x1b\\[(?:0|1|3[123])m")
VANISH = f"{T}/IMPL-2.json"
VIEWS = (f"{S}/TODO_LIST.md", f"{S}/IMPL_PLAN.md")
# What completing IMPL-2 writes.
COMPLETED = (VANISH, f"{S}/workflow-session.json", *VIEWS, f"{S}/.runs", f"{S}/.summaries")
UNKNOWN_2 = "wfs: error: unknown task 'IMPL-2'; did you mean IMPL-1.2, IMPL-1, IMPL-1.1?\n"
LONG_TID = "IMPL-" + "1" * 295
LONG_SID = "WFS-" + "a" * 296
HOSTILE = "\x1b[2J\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x1b[8mhidden\u202e"
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[8mhidden\\u202e"


CASES = [
    Case(
        "malformed task JSON",
        write(f"{T}/IMPL-2.json", '{"id": "IMPL-2",\n  "title": }'),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-2.json:2:12: invalid JSON: unexpected character, expected a JSON value\n",
    ),
    Case(
        "task is an array",
        write(f"{T}/IMPL-2.json", "[1, 2]"),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got array\n",
    ),
    Case(
        "UTF-8 BOM",
        write(f"{T}/IMPL-2.json", b'\xef\xbb\xbf{"id": "IMPL-2"}'),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:1: invalid JSON: UTF-8 byte order mark (BOM) is not supported\n",
    ),
    Case(
        "non-UTF-8 bytes",
        write(f"{T}/IMPL-2.json", b'{"id": "IMPL-2", "title": "\xff"}'),
        ("next",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:28: invalid JSON: not valid UTF-8 (byte 0xff)\n",
    ),
    Case(
        "empty task file",
        write(f"{T}/IMPL-2.json", b""),
        ("task", "show", "IMPL-1"),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:1: invalid JSON: Input is a zero-length, empty document\n",
    ),
    Case(
        "deep nesting",
        write(f"{T}/IMPL-2.json", "[" * 100_000),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:1026: invalid JSON: depth limit exceeded\n",
    ),
    Case(
        "huge malformed file",
        write(f"{T}/IMPL-2.json", '{"title": "' + "x" * 20_000_000),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:1:20000012: invalid JSON: unexpected end of data\n",
    ),
    Case(
        "truncated session file",
        write(f"{S}/workflow-session.json", '{"session_id": "WFS-h"'),
        ("status",),
        2,
        f"wfs: error: {S}/workflow-session.json:1:23: invalid JSON: unexpected end of data\n",
    ),
    Case(
        "session file is a string",
        write(f"{S}/workflow-session.json", '"hello"'),
        ("session", "show"),
        2,
        f"wfs: error: {S}/workflow-session.json: expected a JSON object, got string\n",
    ),
    Case("title of the wrong type", edit_task("IMPL-2", title=42), ("validate",), 1, ""),
    Case("unknown status", edit_task("IMPL-2", status="done"), ("validate",), 1, ""),
    Case("duplicate id", edit_task("IMPL-2", id="IMPL-1"), ("validate",), 1, ""),
    Case(
        "dependency cycle",
        edit_task("IMPL-1.1", context={"depends_on": ["IMPL-1.2"], "parent": "IMPL-1"}),
        ("validate",),
        1,
        "",
    ),
    Case(
        "missing parent",
        write(
            f"{T}/IMPL-7.1.json",
            json.dumps(
                {
                    "id": "IMPL-7.1",
                    "title": "Orphan",
                    "status": "pending",
                    "meta": {},
                    "context": {"parent": "IMPL-7"},
                    "flow_control": {},
                }
            ),
        ),
        ("validate",),
        1,
        "",
    ),
    Case(
        "depth 3",
        write(
            f"{T}/IMPL-1.1.1.json",
            json.dumps(
                {
                    "id": "IMPL-1.1.1",
                    "title": "Deep",
                    "status": "pending",
                    "meta": {},
                    "context": {},
                    "flow_control": {},
                }
            ),
        ),
        ("validate",),
        1,
        "",
    ),
    Case(
        "session id with ..",
        nothing,
        ("--session", "../../etc", "status"),
        2,
        "wfs: error: invalid session id '../../etc': it must not contain a path separator\n",
    ),
    Case(
        "absolute session id",
        nothing,
        ("switch", "/etc/passwd"),
        2,
        "wfs: error: invalid session id '/etc/passwd': it must not contain a path separator\n",
    ),
    Case(
        "dot session id",
        nothing,
        ("switch", ".."),
        2,
        "wfs: error: invalid session id '..': it must not start with '.'\n",
    ),
    Case(
        "empty session id",
        nothing,
        ("switch", ""),
        2,
        "wfs: error: invalid session id: it is empty\n",
    ),
    Case(
        "NUL in session id",
        nothing,
        ("switch", "h\0x"),
        2,
        "wfs: error: invalid session id 'h\\x00x': it contains a NUL byte\n",
    ),
    Case(
        "task id traversal",
        nothing,
        ("task", "show", "../../etc/passwd"),
        2,
        "wfs: error: invalid task id '../../etc/passwd': it must not contain a path separator\n",
    ),
    Case(
        "task id with a slash",
        nothing,
        ("task", "status", "IMPL-1/../IMPL-2", "completed"),
        2,
        "wfs: error: invalid task id 'IMPL-1/../IMPL-2': it must not contain a path separator\n",
    ),
    Case(
        "task id not IMPL",
        nothing,
        ("execute", "REFACTOR-1"),
        2,
        "wfs: error: invalid task id 'REFACTOR-1': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "unknown task",
        nothing,
        ("execute", "IMPL-9"),
        2,
        "wfs: error: unknown task 'IMPL-9'; did you mean IMPL-2, IMPL-1, IMPL-1.2?\n",
    ),
    Case(
        "Read outside the root",
        step_task("Read(../../etc/passwd)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` reports "
        "the same):\n"
        f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Read() path "../../etc/passwd" leads outside the project root\n',
    ),
    Case(
        "Glob outside the root",
        step_task("Glob(/etc/*)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` reports "
        "the same):\n"
        f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Glob() "/etc/*" is a path on another machine that is not in this '
        "project: nothing here ends like it, and it does not name the project's folder "
        '"project"\n',
    ),
    Case(
        "Grep outside the root",
        step_task("Grep(root, ../..)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 cannot run as written; nothing was changed (`wfs validate` reports "
        "the same):\n"
        f"{T}/IMPL-2.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Grep() path "../.." leads outside the project root\n',
    ),
    Case(
        "Read through a symlink out of the root",
        lambda root: (
            step_task("Read(escape.txt)")(root),
            symlink("escape.txt", "outside.txt")(root),
        ),
        # Where a symlink leads is known when the step runs: the step fails then, and
        # nothing of what is outside reaches the run record.
        ("execute", "IMPL-2"),
        1,
        "  IMPL-2 ▶ s …\n…",
        out="IMPL-2: blocked: step implementation_approach/1 (s) failed: exit code 1: path "
        "'escape.txt' leads outside the project root (through a symlink)\n…",
        writes=COMPLETED,
        check=lambda root, run: assert_not_in_runs(root, "outside the project\n"),
    ),
    Case(
        "task file symlinked out of the root",
        symlink(f"{T}/IMPL-3.json", "outside.txt"),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink leading outside the project root; "
        "wfs does not follow it\n",
    ),
    Case(
        "session folder symlinked out of the root",
        symlink(".workflow/WFS-out", "elsewhere"),
        ("--session", "out", "status"),
        2,
        "wfs: error: .workflow/WFS-out: is a symlink leading outside the project root; "
        "wfs does not follow it\n",
    ),
    Case(
        "marker pointing nowhere",
        lambda root: (
            (root / ".workflow/.active-WFS-h").unlink(),
            (root / ".workflow/.active-WFS-gone").touch(),
        ),
        ("status",),
        2,
        "wfs: error: the active marker .active-WFS-gone names no session folder; run "
        "`wfs doctor --fix`, or pick a session with `wfs switch ID`\n",
    ),
    Case(
        "marker naming a file, not a folder",
        lambda root: (
            (root / ".workflow/.active-WFS-h").unlink(),
            (root / ".workflow/WFS-file").touch(),
            (root / ".workflow/.active-WFS-file").touch(),
        ),
        ("next",),
        2,
        "wfs: error: the active marker .active-WFS-file names no session folder; run "
        "`wfs doctor --fix`, or pick a session with `wfs switch ID`\n",
    ),
    Case(
        "plan: tasks is not an array",
        write("plan.json", '{"tasks": {"id": "IMPL-1"}}'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json#/tasks: expected an array of tasks\n",
    ),
    Case(
        "plan: malformed",
        write("plan.json", '{"tasks": [}'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:12: invalid JSON: unexpected character, expected a JSON value\n",
    ),
    Case(
        "plan: file not found",
        nothing,
        ("plan", "P", "--from", "nope.json"),
        2,
        "wfs: error: nope.json: cannot read: No such file or directory\n",
    ),
    Case(
        "plan: non-UTF-8 on stdin",
        nothing,
        ("plan", "P", "--from", "-"),
        2,
        "wfs: error: <stdin>:1:10: invalid JSON: not valid UTF-8 (byte 0xff)\n",
        stdin=b'[{"id": "\xff"}]',
    ),
    Case(
        "plan: task without title",
        write("plan.json", '[{"id": "IMPL-1"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: 1 problem; nothing was written:\n"
        'plan.json#/0: required: missing required field "title"\n',
    ),
    Case(
        "plan: duplicate ids",
        write("plan.json", '[{"id": "IMPL-1", "title": "a"}, {"id": "IMPL-1", "title": "b"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: 1 problem; …",
    ),
    Case(
        "plan: topic escaping .workflow",
        nothing,
        ("plan", "../../x"),
        2,
        "wfs: error: invalid topic '../../x': it looks like a path outside .workflow/\n",
    ),
    Case(
        "plan: NUL in topic",
        nothing,
        ("plan", "a\0b"),
        2,
        "wfs: error: invalid topic: it contains a NUL byte\n",
    ),
    Case(
        "split: subtask of another task",
        write("subs.json", '[{"id": "IMPL-3.1", "title": "x"}]'),
        ("task", "split", "IMPL-2", "--from", "subs.json"),
        2,
        "wfs: error: subs.json#/0/id: 'IMPL-3.1' is not a subtask of IMPL-2\n",
    ),
    Case(
        "split: third level",
        write("subs.json", '[{"title": "x"}]'),
        ("task", "split", "IMPL-1.1", "--from", "subs.json"),
        2,
        "wfs: error: IMPL-1.1 is a subtask; tasks have at most 2 levels (IMPL-N.M)\n",
    ),
    Case(
        "add: dependency on a missing task",
        nothing,
        ("task", "add", "--title", "x", "--depends-on", "IMPL-99"),
        2,
        "wfs: error: the change: 1 problem; …",
    ),
    Case(
        "update: focus path with ..",
        nothing,
        ("task", "update", "IMPL-2", "--focus-path", "../etc"),
        2,
        "wfs: error: the change: 1 problem; …",
    ),
    Case(
        "update: fields that are not an object",
        write("fields.json", "[1]"),
        ("task", "update", "IMPL-2", "--from", "fields.json"),
        2,
        "wfs: error: fields.json: expected a JSON object with task fields\n",
    ),
    Case("status: not a status", nothing, ("task", "status", "IMPL-2", "done"), 2, "Usage: …"),
    Case(
        "status of a container",
        nothing,
        ("task", "status", "IMPL-1", "completed"),
        2,
        "wfs: error: IMPL-1 is a container; cannot set its status to completed: its status is "
        "derived from its subtasks IMPL-1.1, IMPL-1.2\n",
    ),
    Case(
        "malformed config.json",
        write(".workflow/config.json", "{agent"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: .workflow/config.json:1:2: invalid JSON: unexpected character, expected a string key\n",
    ),
    Case(
        "config agent not a string",
        write(".workflow/config.json", '{"agent": ["x"]}'),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: .workflow/config.json#/agent: expected a command string\n",
    ),
    Case(
        "resume of a task that has not started",
        nothing,
        ("execute", "--resume", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 has not started; run it with `wfs --session WFS-h execute IMPL-2`\n",
    ),
    Case("--output without --resume", nothing, ("execute", "--output", "x"), 2, "Usage: …"),
    Case(
        "bad WFS_LOCK_TIMEOUT",
        nothing,
        ("task", "status", "IMPL-2", "completed"),
        2,
        "wfs: error: WFS_LOCK_TIMEOUT='soon': expected a number of seconds\n",
        env={"WFS_LOCK_TIMEOUT": "soon"},
    ),
    Case(
        "missing --root",
        nothing,
        ("--root", "/no/such/dir", "status"),
        2,
        "wfs: error: project root '/no/such/dir' is not a directory\n",
    ),
    # ------------------------------------------------------------------ vanishing files
    # IMPL-2.json is deleted right after wfs lists .task/ (the index cache warm): every
    # command goes on as if it had been deleted a moment earlier, or names the task.
    Case(
        "vanishing: status",
        nothing,
        ("status",),
        0,
        "",
        out="Session:  WFS-h (active)\nTopic:    h\nPhase:    PLAN    Type: simple\n"
        "Tasks:    pending 2, active 0, completed 0, blocked 0, container 1\n"
        "Progress: 0/2 tasks completed (0%)\nReady:    IMPL-1.1\nBlocked:  -\n",
        vanish=VANISH,
    ),
    Case(
        "vanishing: next",
        nothing,
        ("next",),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n",
        vanish=VANISH,
    ),
    Case(
        "vanishing: task list",
        nothing,
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n",
        vanish=VANISH,
    ),
    Case(
        "vanishing: task show of another task",
        nothing,
        ("task", "show", "IMPL-1.1"),
        0,
        "",
        out="IMPL-1.1  First\nStatus:      pending, ready: `wfs execute IMPL-1.1` runs it\n…",
        vanish=VANISH,
    ),
    Case("vanishing: task show", nothing, ("task", "show", "IMPL-2"), 2, UNKNOWN_2, vanish=VANISH),
    Case(
        "vanishing: task status",
        nothing,
        ("task", "status", "IMPL-2", "completed"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
    ),
    Case(
        "vanishing: task update",
        nothing,
        ("task", "update", "IMPL-2", "--title", "x"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
    ),
    Case(
        "vanishing: task add under it",
        nothing,
        ("task", "add", "--title", "x", "--parent", "IMPL-2"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
    ),
    Case(
        "vanishing: task split",
        write("subs.json", '[{"title": "x"}]'),
        ("task", "split", "IMPL-2", "--from", "subs.json"),
        2,
        UNKNOWN_2,
        vanish=VANISH,
    ),
    Case("vanishing: validate", nothing, ("validate",), 0, "", out="OK: WFS-h\n", vanish=VANISH),
    Case(
        "vanishing: render --check",
        nothing,
        ("render", "--check"),
        1,
        "",
        out=f"{S}/TODO_LIST.md: stale or hand-edited; run `wfs render`\n"
        f"{S}/IMPL_PLAN.md: stale or hand-edited; run `wfs render`\n",
        vanish=VANISH,
    ),
    Case(
        "vanishing: render",
        nothing,
        ("render",),
        0,
        "",
        out=f"wrote {S}/TODO_LIST.md\nwrote {S}/IMPL_PLAN.md\n",
        vanish=VANISH,
        writes=VIEWS,
        check=vanished_from_views,
    ),
    Case(
        "vanishing: execute --dry-run",
        nothing,
        ("execute", "--dry-run"),
        0,
        "",
        out="IMPL-1.1: First (dry run, nothing is executed)\n…",
        vanish=VANISH,
    ),
    Case("vanishing: execute", nothing, ("execute", "IMPL-2"), 2, UNKNOWN_2, vanish=VANISH),
    Case(
        "vanishing: execute the next task",
        nothing,
        ("execute",),
        3,
        "  IMPL-1.1 ▶ First …\n  IMPL-1.1 · First: paused …",
        out="Paused: IMPL-1.1 · First (task): waiting for an agent\n…",
        vanish=VANISH,
        writes=(f"{T}/IMPL-1.1.json", f"{S}/workflow-session.json", *VIEWS, f"{S}/.runs"),
    ),
    Case(
        "vanishing: doctor",
        nothing,
        ("doctor",),
        1,
        "",
        out=f"found: {S}/TODO_LIST.md: stale or hand-edited view…",
        vanish=VANISH,
    ),
    Case(
        "vanishing: doctor --fix",
        nothing,
        ("doctor", "--fix"),
        0,
        "",
        out=f"fixed: {S}/TODO_LIST.md: stale or hand-edited view (render the view again)\n"
        f"fixed: {S}/IMPL_PLAN.md: stale or hand-edited view (render the view again)\n",
        vanish=VANISH,
        writes=(*VIEWS, ".workflow/.doctor"),
        check=vanished_from_views,
    ),
    Case(
        "vanishing: migrate",
        nothing,
        ("migrate",),
        0,
        "",
        out="Nothing to migrate.\n",
        vanish=VANISH,
    ),
    Case(
        "vanishing: session list",
        nothing,
        ("session", "list"),
        0,
        "",
        out="* WFS-h  active  PLAN  simple  h\n",
        vanish=VANISH,
    ),
    Case(
        "vanishing: session show",
        nothing,
        ("session", "show"),
        0,
        "",
        out="WFS-h  (active)\n…",
        vanish=VANISH,
    ),
    Case(
        "vanishing: prime",
        nothing,
        ("prime",),
        0,
        "",
        out="wfs session WFS-h (active): phase PLAN, 0 of 2 tasks completed (0%).\n…",
        vanish=VANISH,
    ),
    Case(
        "vanishing: switch",
        run("plan", "other", "--empty"),
        ("switch", "h"),
        0,
        "",
        out="Active session: WFS-h (paused WFS-other)\n",
        vanish=VANISH,
        writes=(".workflow/.active-", ".workflow/WFS-other/", S),
    ),
    Case(
        "deleted before the run, index cache warm",
        steps(run("status"), lambda root: (root / T / "IMPL-2.json").unlink()),
        ("next", "--all"),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n",
    ),
    # ------------------------------------------------------------------ ids
    Case(
        "300-character task id",
        nothing,
        ("task", "show", LONG_TID),
        2,
        f"wfs: error: invalid task id '{LONG_TID[:40]}...' (300 characters): it is too long "
        "to name a file (at most 228 bytes)\n",
    ),
    Case(
        "300-character task id for a new task",
        nothing,
        ("task", "add", "--id", LONG_TID, "--title", "x"),
        2,
        f"wfs: error: invalid task id '{LONG_TID[:40]}...' (300 characters): it is too long "
        "to name a file (at most 228 bytes)\n",
    ),
    Case(
        "5000-digit task id",
        nothing,
        ("task", "status", "IMPL-" + "9" * 4995, "completed"),
        2,
        "wfs: error: invalid task id 'IMPL-99999999999999999999999999999999999...' "
        "(5000 characters): it is too long to name a file (at most 228 bytes)\n",
    ),
    Case(
        "300-character session id",
        nothing,
        ("--session", LONG_SID, "status"),
        2,
        f"wfs: error: invalid session id '{LONG_SID[:40]}...' (300 characters): it is too "
        "long to name a file (at most 247 bytes)\n",
    ),
    Case(
        "300-character session id to switch to",
        nothing,
        ("switch", LONG_SID),
        2,
        f"wfs: error: invalid session id '{LONG_SID[:40]}...' (300 characters): it is too "
        "long to name a file (at most 247 bytes)\n",
    ),
    Case(
        "300-character task id in the file", edit_task("IMPL-2", id=LONG_TID), ("validate",), 1, ""
    ),
    Case(
        "300-character session id in the file",
        edit_session(session_id=LONG_SID),
        ("validate",),
        1,
        "",
    ),
    Case(
        "newline in a task id",
        nothing,
        ("task", "show", "IMPL-1\nIMPL-2"),
        2,
        "wfs: error: invalid task id 'IMPL-1\\nIMPL-2': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "NUL in a task id",
        nothing,
        ("task", "update", "IMPL-1\0", "--title", "x"),
        2,
        "wfs: error: invalid task id 'IMPL-1\\x00': it contains a NUL byte\n",
    ),
    Case(
        "shell metacharacters in a task id",
        nothing,
        ("execute", "IMPL-1;rm -rf ~"),
        2,
        "wfs: error: invalid task id 'IMPL-1;rm -rf ~': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "full-width digit in a task id",
        nothing,
        ("task", "show", "IMPL-１"),
        2,
        "wfs: error: invalid task id 'IMPL-１': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "Cyrillic I in a task id",
        nothing,
        ("task", "status", "ІMPL-2", "completed"),
        2,
        "wfs: error: invalid task id 'ІMPL-2': it must look like IMPL-N or IMPL-N.M\n",
    ),
    Case(
        "Cyrillic h in a session id",
        nothing,
        ("switch", "һ"),
        2,
        "wfs: error: unknown session 'һ'; did you mean WFS-h?\n",
    ),
    Case(
        "newline in a session id",
        nothing,
        ("--session", "h\nx", "next"),
        2,
        "wfs: error: unknown session 'h\\nx'; did you mean WFS-h?\n",
    ),
    Case(
        "shell metacharacters in a session id",
        nothing,
        ("session", "show", "h$(touch pwned)"),
        2,
        "wfs: error: unknown session 'h$(touch pwned)'\n",
    ),
    Case(
        "ids with .. and a slash in files",
        edit_task("IMPL-2", id="IMPL-2/../x", context={"depends_on": ["../../etc/passwd"]}),
        ("validate",),
        1,
        "",
    ),
    Case(
        "newline in a task id in the file",
        edit_task("IMPL-2", id="IMPL-2\n[ ] IMPL-9  forged"),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        # listed under its file's name: the id it writes is not its name's (invalid)
        "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  Leaf  pending\n",
    ),
    Case(
        "newline in a title",
        edit_task("IMPL-2", title="Leaf\n[x] IMPL-9  forged  completed"),
        ("next", "--all"),
        0,
        "",
        out="  [ ] IMPL-1.1  First  pending\n[ ] IMPL-2  Leaf …  pending\n",
    ),
    Case(
        "very long title",
        edit_task("IMPL-2", title="x" * 1_000_000),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        f"  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  {'x' * 199}…  pending\n",
    ),
    # ------------------------------------------------------------------ deep nesting
    Case(
        "task nested 256 deep: task show",
        deep_field(VANISH, 256),
        ("task", "show", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json#/deep/0/0: invalid JSON: nested more than 200 levels "
        "deep (wfs reads at most 200)\n",
    ),
    Case(
        "task nested 512 deep: task status",
        deep_field(VANISH, 512),
        ("task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: {T}/IMPL-2.json#/deep/0/0: invalid JSON: nested more than 200 levels "
        "deep (wfs reads at most 200)\n",
    ),
    Case(
        "task nested 1024 deep: status",
        deep_field(VANISH, 1024),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:19:1035: invalid JSON: depth limit exceeded\n",
    ),
    Case("task nested 256 deep: validate", deep_field(VANISH, 256), ("validate",), 1, ""),
    Case(
        "task nested 512 deep: execute",
        deep_field(VANISH, 512),
        ("execute", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json#/deep/0/0: invalid JSON: nested more than 200 levels "
        "deep (wfs reads at most 200)\n",
    ),
    Case(
        "session nested 256 deep: task status",
        deep_field(f"{S}/workflow-session.json", 256),
        ("task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: {S}/workflow-session.json#/deep/0/0: invalid JSON: nested more than "
        "200 levels deep (wfs reads at most 200)\n",
    ),
    Case(
        "session nested 512 deep: session pause",
        deep_field(f"{S}/workflow-session.json", 512),
        ("session", "pause"),
        2,
        f"wfs: error: {S}/workflow-session.json#/deep/0/0: invalid JSON: nested more than "
        "200 levels deep (wfs reads at most 200)\n",
    ),
    Case(
        "session nested 1024 deep: session show",
        deep_field(f"{S}/workflow-session.json", 1024),
        ("session", "show"),
        2,
        f"wfs: error: {S}/workflow-session.json:11:1035: invalid JSON: depth limit exceeded\n",
    ),
    Case(
        "plan nested 256 deep",
        write("plan.json", '{"tasks": [{"id": "IMPL-1", "title": "t", "x": ' + nested(256) + "}]}"),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json#/tasks/0/x: invalid JSON: nested more than 200 levels deep "
        "(wfs reads at most 200)\n",
    ),
    Case(
        "plan nested 512 deep, for a replan",
        write("plan.json", '[{"id": "IMPL-3", "title": "t", "x": ' + nested(512) + "}]"),
        ("plan", "--session", "WFS-h", "--from", "plan.json"),
        2,
        "wfs: error: plan.json#/0/x/0: invalid JSON: nested more than 200 levels deep "
        "(wfs reads at most 200)\n",
    ),
    Case(
        "plan nested 1024 deep",
        write(
            "plan.json", '{"tasks": [{"id": "IMPL-1", "title": "t", "x": ' + nested(1024) + "}]}"
        ),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:1070: invalid JSON: depth limit exceeded\n",
    ),
    Case(
        "task fields nested 256 deep",
        write("fields.json", '{"notes": ' + nested(256) + "}"),
        ("task", "update", "IMPL-2", "--from", "fields.json"),
        2,
        "wfs: error: fields.json#/notes/0/0: invalid JSON: nested more than 200 levels deep "
        "(wfs reads at most 200)\n",
    ),
    Case(
        "answer nested 1024 deep",
        steps(paused, write("answer.json", nested(1024))),
        ("execute", "--resume", "IMPL-2", "--output-file", "answer.json"),
        0,
        "  IMPL-2 ▶ Leaf …\n  IMPL-2 · Leaf: done …",
        writes=COMPLETED,
        check=answer_kept(nested(1024)),
    ),
    Case(
        "answer nested 256 deep on stdin",
        paused,
        ("execute", "--resume", "IMPL-2", "--output-file", "-"),
        0,
        "  IMPL-2 ▶ Leaf …\n  IMPL-2 · Leaf: done …",
        stdin=nested(256).encode(),
        writes=COMPLETED,
        check=answer_kept(nested(256)),
    ),
    # ------------------------------------------------------------------ what --from reads
    Case(
        "plan from /dev/zero",
        nothing,
        ("plan", "P", "--from", "/dev/zero"),
        2,
        "wfs: error: /dev/zero: larger than 64 MiB; refused\n",
    ),
    Case(
        "answer from /dev/zero",
        paused,
        ("execute", "--resume", "IMPL-2", "--output-file", "/dev/zero"),
        2,
        "wfs: error: /dev/zero: larger than 64 MiB; refused\n",
    ),
    Case(
        "plan from a FIFO nobody writes to",
        fifo("plan.fifo"),
        ("plan", "P", "--from", "plan.fifo"),
        2,
        "wfs: error: plan.fifo: is a FIFO that nobody writes to; nothing to read\n",
    ),
    Case(
        "task fields from a FIFO nobody writes to",
        fifo("fields.fifo"),
        ("task", "update", "IMPL-2", "--from", "fields.fifo"),
        2,
        "wfs: error: fields.fifo: is a FIFO that nobody writes to; nothing to read\n",
    ),
    Case(
        "answer from a FIFO nobody writes to",
        steps(paused, fifo("answer.fifo")),
        ("execute", "--resume", "IMPL-2", "--output-file", "answer.fifo"),
        2,
        "wfs: error: answer.fifo: is a FIFO that nobody writes to; nothing to read\n",
    ),
    Case(
        "plan from a directory",
        lambda root: (root / "plans").mkdir(),
        ("plan", "P", "--from", "plans"),
        2,
        "wfs: error: plans: cannot read: Is a directory\n",
    ),
    Case(
        "plan from an unreadable file",
        steps(write("plan.json", "[]"), unreadable("plan.json")),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: cannot read: Permission denied\n",
        as_user=True,
    ),
    Case(
        "unreadable task file",
        unreadable(VANISH),
        ("task", "show", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json: cannot read: Permission denied\n",
        as_user=True,
    ),
    Case(
        "plan: invalid UTF-8",
        write("plan.json", b'[{"id": "IMPL-1", "title": "\xc3\x28"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:29: invalid JSON: not valid UTF-8 (byte 0xc3)\n",
    ),
    Case(
        "plan: BOM",
        write("plan.json", b'\xef\xbb\xbf[{"id": "IMPL-1", "title": "a"}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:1: invalid JSON: UTF-8 byte order mark (BOM) is not supported\n",
    ),
    Case(
        "plan: CRLF lines, a place counted in lines",
        write(
            "plan.json", b'[\r\n{"id": "IMPL-1", "title": "a"},\r\n{"id": "IMPL-2", "title": }\r\n]'
        ),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:3:27: invalid JSON: unexpected character, expected a JSON value\n",
    ),
    Case(
        "task file with CRLF lines",
        raw_edit(VANISH, b"\n", b"\r\n"),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        "  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  Leaf  pending\n",
    ),
    Case("0-byte task file: validate", write(VANISH, b""), ("validate",), 1, ""),
    Case(
        "task file is a number",
        write(VANISH, "42"),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got integer\n",
    ),
    Case(
        "task file is a string",
        write(VANISH, '"IMPL-2"'),
        ("next",),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got string\n",
    ),
    Case(
        "task file is null",
        write(VANISH, "null"),
        ("task", "show", "IMPL-2"),
        2,
        f"wfs: error: {T}/IMPL-2.json: expected a JSON object, got null\n",
    ),
    Case(
        "session file is null",
        write(f"{S}/workflow-session.json", "null"),
        ("status",),
        2,
        f"wfs: error: {S}/workflow-session.json: expected a JSON object, got null\n",
    ),
    Case(
        "duplicate keys in a task file",
        raw_edit(VANISH, b'"status": "pending"', b'"status": "completed", "status": "pending"'),
        ("validate",),
        0,
        "",
        out=f'{T}/IMPL-2.json#/status: duplicate-key: warning: key "status" is given 2 times; '
        "the last one counts, and `wfs migrate` keeps only it\n",
    ),
    Case(
        "duplicate keys: migrate keeps the last",
        raw_edit(VANISH, b'"status": "pending"', b'"status": "completed", "status": "pending"'),
        ("migrate",),
        0,
        "",
        out="WFS-h: migrated IMPL-2\n",
        writes=(VANISH, *VIEWS),
        check=lambda root, done: assert_once(root / VANISH, '"status"'),
    ),
    Case(
        "duplicate keys in a session file",
        raw_edit(
            f"{S}/workflow-session.json",
            b'"status": "active"',
            b'"status": "active", "status": "paused"',
        ),
        ("validate",),
        0,
        "",
        out=f'{S}/workflow-session.json#/status: duplicate-key: warning: key "status" is given '
        "2 times; the last one counts, and `wfs migrate` keeps only it\n",
    ),
    Case(
        "NaN in a task file",
        raw_edit(VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": NaN'),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-2.json:3:25: invalid JSON: unexpected character, expected a JSON value\n",
    ),
    Case(
        "Infinity in a plan",
        write("plan.json", '[{"id": "IMPL-1", "title": "a", "x": Infinity}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:38: invalid JSON: unexpected character, expected a JSON value\n",
    ),
    Case(
        "number too large for a double",
        raw_edit(VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": 1e400'),
        ("next",),
        2,
        f"wfs: error: {T}/IMPL-2.json:3:25: invalid JSON: number is infinity when parsed as double\n",
    ),
    Case(
        "huge integer in a task file",
        raw_edit(
            VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": 123456789012345678901234567890'
        ),
        ("task", "status", "IMPL-2", "completed"),
        2,
        f"wfs: error: {T}/IMPL-2.json:3:25: invalid JSON: integer 123456789012345678901234567890 "
        "does not fit in 64 bits (writing the file back would change it)\n",
    ),
    Case(
        "huge negative integer in a task file",
        raw_edit(VANISH, b'"title": "Leaf"', b'"title": "Leaf", "x": -9223372036854775809'),
        ("validate",),
        1,
        "",
    ),
    Case(
        "huge integer in a plan",
        write("plan.json", '[{"id": "IMPL-1", "title": "a", "estimate": 18446744073709551616}]'),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json:1:45: invalid JSON: integer 18446744073709551616 does not fit "
        "in 64 bits (writing the file back would change it)\n",
    ),
    Case(
        "task file symlinked out of the root: validate",
        symlink(f"{T}/IMPL-3.json", "outside.txt"),
        ("validate",),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink leading outside the project root; "
        "wfs does not follow it\n",
    ),
    Case(
        "task file in a symlink loop",
        steps(
            symlink(f"{T}/IMPL-3.json", f"project/{T}/IMPL-4.json"),
            symlink(f"{T}/IMPL-4.json", f"project/{T}/IMPL-3.json"),
        ),
        ("status",),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink loop; wfs does not follow it\n",
    ),
    Case(
        "task file linked to itself",
        symlink(f"{T}/IMPL-3.json", f"project/{T}/IMPL-3.json"),
        ("validate",),
        2,
        f"wfs: error: {T}/IMPL-3.json: is a symlink loop; wfs does not follow it\n",
    ),
    Case(
        "task file linked to nothing",
        symlink(f"{T}/IMPL-3.json", f"project/{T}/IMPL-9.json"),
        ("task", "list"),
        2,
        f"wfs: error: {T}/IMPL-3.json: No such file or directory; nothing was changed\n",
    ),
    Case(
        "session folder in a symlink loop",
        symlink(".workflow/WFS-loop", "project/.workflow/WFS-loop"),
        ("session", "list"),
        2,
        "wfs: error: .workflow/WFS-loop: Too many levels of symbolic links; nothing was changed\n",
    ),
    Case(
        "plan from a symlink loop",
        symlink("plan.json", "project/plan.json"),
        ("plan", "P", "--from", "plan.json"),
        2,
        "wfs: error: plan.json: cannot read: Too many levels of symbolic links\n",
    ),
    # ------------------------------------------------------------------ escape sequences
    Case(
        "escapes in the topic: status",
        edit_session(project=f"Topic{HOSTILE}"),
        ("status",),
        0,
        "",
        out=f"Session:  WFS-h (active)\nTopic:    Topic{SHOWN}\n…",
    ),
    Case(
        "escapes in a title: next",
        edit_task("IMPL-1.1", title=f"First{HOSTILE}"),
        ("next",),
        0,
        "",
        out=f"  [ ] IMPL-1.1  First{SHOWN}  pending\n",
    ),
    Case(
        "escapes in a title: task list on a color terminal",
        edit_task("IMPL-2", title=f"Leaf{HOSTILE}"),
        ("task", "list"),
        0,
        "",
        out="▸ IMPL-1  Group  pending\n  [ ] IMPL-1.1  First  pending\n"
        f"  [ ] IMPL-1.2  Second  pending  (after IMPL-1.1)\n[ ] IMPL-2  Leaf{SHOWN}  pending\n",
        color=True,
    ),
    Case(
        "escapes in the topic: status on a color terminal",
        edit_session(project=f"Topic{HOSTILE}"),
        ("status",),
        0,
        "",
        out=f"Session:  \x1b[1mWFS-h\x1b[0m (active)\nTopic:    Topic{SHOWN}\n…",
        color=True,
    ),
    Case(
        "escapes in a title: task show",
        edit_task("IMPL-2", title=f"Leaf{HOSTILE}"),
        ("task", "show", "IMPL-2"),
        0,
        "",
        out="IMPL-2  Leaf\\x1b[2J\\x1b]0;owned\\x07\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[8mhidden\\u202e\n…",
    ),
    Case(
        "escapes in the topic: session list",
        edit_session(project=f"Topic{HOSTILE}\nforged line"),
        ("session", "list"),
        0,
        "",
        out=f"* WFS-h  active  PLAN  simple  Topic{SHOWN} …\n",
        color=True,
    ),
    Case(
        "escapes in a title: TODO_LIST.md",
        edit_task("IMPL-2", title=f"Leaf{HOSTILE}"),
        ("render",),
        0,
        "",
        writes=VIEWS,
        check=views_hold(f"**IMPL-2**: Leaf{SHOWN}", "TODO_LIST.md"),
    ),
    Case(
        "escapes in the topic and a title: IMPL_PLAN.md",
        steps(edit_task("IMPL-2", title=f"Leaf{HOSTILE}"), edit_session(project=f"Topic{HOSTILE}")),
        ("render",),
        0,
        "",
        writes=VIEWS,
        check=views_hold(f"# Implementation Plan: Topic{SHOWN}", "IMPL_PLAN.md"),
    ),
]


# What `wfs validate` prints (exit 1) for the cases that are well-formed JSON.
VALIDATE_OUT = {
    "title of the wrong type": f"{T}/IMPL-2.json#/title: type: title must be a non-empty string, got integer 42\n",
    "unknown status": f'{T}/IMPL-2.json#/status: status: status "done" is not one of pending, active, '
    "completed, blocked, container\n",
    "duplicate id": f'{T}/IMPL-2.json#/id: id-filename: id "IMPL-1" does not match the file name IMPL-2.json\n'
    f"{T}/IMPL-2.json#/id: unique-id: duplicate id IMPL-1: also used by {T}/IMPL-1.json\n",
    "dependency cycle": f"{T}/IMPL-1.1.json#/context/depends_on: dependency-cycle: dependency cycle: "
    "IMPL-1.1 -> IMPL-1.2 -> IMPL-1.1\n",
    "missing parent": f'{T}/IMPL-7.1.json#/context/parent: parent: context.parent "IMPL-7" does not exist\n',
    "depth 3": f'{T}/IMPL-1.1.1.json#/id: id-format: task id "IMPL-1.1.1" has depth 3, which exceeds '
    "the 2-level maximum (IMPL-N.M)\n",
    "300-character task id in the file": f'{T}/IMPL-2.json#/id: id-filename: id "IMPL-'
    + "1" * 70
    + '..." does not match the file name IMPL-2.json\n',
    "300-character session id in the file": f"{S}/workflow-session.json#/session_id: session-id: "
    'session_id "WFS-' + "a" * 71 + '..." does not match its folder WFS-h\n',
    "ids with .. and a slash in files": f'{T}/IMPL-2.json#/id: id-format: task id "IMPL-2/../x" has '
    'extra text "/../x" after IMPL-2; ids are IMPL-N or IMPL-N.M\n'
    f'{T}/IMPL-2.json#/id: id-filename: id "IMPL-2/../x" does not match the file name IMPL-2.json\n'
    f'{T}/IMPL-2.json#/context/depends_on/0: depends-on: depends_on entry "../../etc/passwd" '
    "does not match IMPL-N or IMPL-N.M (N and M are numbers)\n",
    "task nested 256 deep: validate": f"{T}/IMPL-2.json#/deep/0/0: json: invalid JSON: nested more "
    "than 200 levels deep (wfs reads at most 200)\n",
    "0-byte task file: validate": f"{T}/IMPL-2.json:1:1: json: invalid JSON: Input is a zero-length, "
    "empty document\n",
    "huge negative integer in a task file": f"{T}/IMPL-2.json:3:25: json: invalid JSON: integer "
    "-9223372036854775809 does not fit in 64 bits (writing the file back would change it)\n",
}


def test_there_are_at_least_100_cases() -> None:
    assert len(CASES) >= 100
    assert len({c.name for c in CASES}) == len(CASES)


class _Listing(list[os.DirEntry[str]]):
    """What os.scandir returns, already read."""

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def close(self) -> None:
        return None


@contextlib.contextmanager
def deleted_after_listing(path: Path) -> Iterator[None]:
    """Delete `path` right after the first listing of its folder, as a concurrent `rm`
    between the scan and the read would."""
    real = os.scandir

    def scandir(folder: Any = ".") -> Any:
        listing = real(folder)
        if isinstance(folder, (str, os.PathLike)) and os.path.lexists(path):
            if os.path.samefile(folder, path.parent):
                entries = _Listing(listing)
                listing.close()
                path.unlink()
                return entries
        return listing

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "scandir", scandir)
        yield


@pytest.fixture
def time_limit() -> Iterator[None]:
    """A hang (a FIFO opened for reading, a device read to its end) fails the case."""

    def expired(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError("the command did not finish within 60 s")

    if not hasattr(signal, "SIGALRM"):  # Windows: no alarm, and no FIFO to hang on
        yield
        return
    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_is_refused_cleanly(
    case: Case,
    project: Path,
    time_limit: None,
) -> None:
    if case.as_user and hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("running as root, which reads a file whatever its permissions")
    wfs("init", "--no-git")
    assert wfs("plan", "h", "--from", "-", input=json.dumps(BASE_PLAN)).code == 0
    (project.parent / "outside.txt").write_text("outside the project\n")
    (project.parent / "elsewhere").mkdir(exist_ok=True)
    case.setup(project)
    skip = case.writes + ((case.vanish,) if case.vanish else ())
    before = tree_hash(project, skip)
    if case.vanish:
        assert wfs("task", "list").code == 0  # the index cache is warm
        with deleted_after_listing(project / case.vanish):
            run = wfs(*case.args, input=case.stdin, env=case.env, color=case.color)
        assert not os.path.lexists(project / case.vanish), "a deleted task came back"
    else:
        run = wfs(*case.args, input=case.stdin, env=case.env, color=case.color)
    assert run.code == case.code, (run.out, run.err)
    assert "Traceback" not in run.err + run.out
    for text in (run.err, run.out):
        assert not RAW.search(OWN_SGR.sub("", text) if case.color else text), text
    if case.err.endswith("…"):
        assert run.err.startswith(case.err[:-1]), run.err
    else:
        assert run.err == case.err
    if case.code == 1 and case.out is None:
        assert run.out == VALIDATE_OUT[case.name]
    elif case.out is not None and case.out.endswith("…"):
        assert run.out.startswith(case.out[:-1]), run.out
    elif case.out is not None:
        assert run.out == case.out
    assert tree_hash(project, skip) == before
    for path in (project / ".workflow").rglob("*.json"):
        if case.writes and path.is_file() and not path.is_symlink():
            json.loads(path.read_bytes())  # whatever was written is whole
    if case.check is not None:
        case.check(project, run)
