"""Hostile input: each case has its exact exit code and message, shows no traceback,
and leaves the whole tree byte-for-byte unchanged (lock files and the derived index
aside)."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import wfs

S = ".workflow/WFS-h"
T = f"{S}/.task"

BASE_PLAN = [
    {"id": "IMPL-1", "title": "Group"},
    {"id": "IMPL-1.1", "title": "First"},
    {"id": "IMPL-1.2", "title": "Second", "context": {"depends_on": ["IMPL-1.1"]}},
    {"id": "IMPL-2", "title": "Leaf"},
]


def tree_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith((".workflow/.locks", ".workflow/.cache")):
            continue  # wfs's own lock files and derived index (both ignored by git)
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


class Case(NamedTuple):
    name: str
    setup: Callable[[Path], None]
    args: tuple[str, ...]
    code: int
    err: str  # exact stderr, or its start when it ends with "…"
    stdin: bytes | None = None


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
        "wfs: error: IMPL-2 is unsafe to run; nothing was changed:\n"
        "implementation_approach/1 (s): path '../../etc/passwd' leads outside the project root\n",
    ),
    Case(
        "Glob outside the root",
        step_task("Glob(/etc/*)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 is unsafe to run; nothing was changed:\n"
        "implementation_approach/1 (s): Glob(/etc/*): the pattern leads outside the project root\n",
    ),
    Case(
        "Grep outside the root",
        step_task("Grep(root, ../..)"),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 is unsafe to run; nothing was changed:\n"
        "implementation_approach/1 (s): path '../..' leads outside the project root\n",
    ),
    Case(
        "Read through a symlink out of the root",
        lambda root: (
            step_task("Read(escape.txt)")(root),
            symlink("escape.txt", "outside.txt")(root),
        ),
        ("execute", "IMPL-2"),
        2,
        "wfs: error: IMPL-2 is unsafe to run; nothing was changed:\n"
        "implementation_approach/1 (s): path 'escape.txt' leads outside the project root "
        "(through a symlink)\n",
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
        "wfs: error: IMPL-2 has not started; run it with "
        "`wfs --session WFS-h execute IMPL-2`\n",
    ),
    Case("--output without --resume", nothing, ("execute", "--output", "x"), 2, "Usage: …"),
    Case(
        "bad WFS_LOCK_TIMEOUT",
        nothing,
        ("task", "status", "IMPL-2", "completed"),
        2,
        "wfs: error: WFS_LOCK_TIMEOUT='soon': expected a number of seconds\n",
    ),
    Case(
        "missing --root",
        nothing,
        ("--root", "/no/such/dir", "status"),
        2,
        "wfs: error: project root '/no/such/dir' is not a directory\n",
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
}


def test_there_are_at_least_40_cases() -> None:
    assert len(CASES) >= 40
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_input_is_refused_cleanly(case: Case, project: Path) -> None:
    assert wfs("plan", "h", "--from", "-", input=json.dumps(BASE_PLAN)).code == 0
    (project.parent / "outside.txt").write_text("outside the project\n")
    (project.parent / "elsewhere").mkdir(exist_ok=True)
    case.setup(project)
    before = tree_hash(project)
    env = {"WFS_LOCK_TIMEOUT": "soon"} if case.name == "bad WFS_LOCK_TIMEOUT" else None
    run = wfs(*case.args, input=case.stdin, env=env)
    assert run.code == case.code, (run.out, run.err)
    assert "Traceback" not in run.err + run.out
    if case.err.endswith("…"):
        assert run.err.startswith(case.err[:-1]), run.err
    else:
        assert run.err == case.err
    if case.code == 1:
        assert run.out == VALIDATE_OUT[case.name]
    assert tree_hash(project) == before
