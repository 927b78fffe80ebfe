"""Hostile files of the third round (issue: what hostile files, killed runners and odd
argv still break): each is named, never a traceback, and never drops out of the plan."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_fifo, wfs, wfs_process
from git_helpers import commit_all, git, git_env

__all__ = ["git_env"]  # the fixture, used by name

SID = "WFS-round"
TASKS = Path(".workflow") / SID / ".task"


def step(command: str) -> dict[str, Any]:
    return {"step": 1, "title": "work", "description": "do it", "command": command,
            "modification_points": [], "logic_flow": [], "depends_on": [], "output": "o"}  # fmt: skip


def planned(tmp_path: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    tasks = [
        {"id": "IMPL-1", "title": "one",
         "flow_control": {"implementation_approach": [step("bash(true)")]}},
        {"id": "IMPL-2", "title": "two",
         "flow_control": {"implementation_approach": [step(f"bash(touch {tmp_path}/ran2)")]}},
    ]  # fmt: skip
    assert wfs("plan", "Round", "--from", "-", input=json.dumps(tasks)).code == 0


def edit(tid: str, change: Any) -> bytes:
    path = TASKS / f"{tid}.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))
    return path.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("value", [2, True, "bash(true)"])
def test_a_step_whose_commands_is_not_a_list_is_named_by_every_command(
    project: Path, tmp_path: Path, value: Any
) -> None:
    planned(tmp_path)
    edit("IMPL-1", lambda d: d["flow_control"]["implementation_approach"][0].update(commands=value))
    kind = {int: "integer", bool: "boolean", str: "string"}[type(value)]
    checked = wfs_process("validate", cwd=project)
    assert checked.code == 1
    assert (
        f"{TASKS.as_posix()}/IMPL-1.json#/flow_control/implementation_approach/0/commands: "
        f'implementation-approach: "commands" must be an array of command strings, got {kind}'
    ) in checked.out
    for argv in (["status"], ["next"], ["task", "list"], ["task", "show", "IMPL-1"],
                 ["render", "--check"], ["execute", "--dry-run"]):  # fmt: skip
        run = wfs_process(*argv, cwd=project)
        assert "Traceback" not in run.err, (argv, run.err)
        assert run.code in (0, 1), (argv, run.code, run.err)
    status = wfs_process("status", cwd=project)
    assert "Invalid:  IMPL-1: 1 validation error; `wfs validate` names them" in status.out


@pytest.mark.slow
def test_a_task_file_without_an_id_is_counted_and_never_dropped(
    project: Path, tmp_path: Path
) -> None:
    planned(tmp_path)
    before = edit("IMPL-2", lambda d: d.pop("id"))
    first = wfs_process("execute", "--all", cwd=project)  # IMPL-1 runs; IMPL-2 cannot
    assert first.out == "IMPL-1: completed → .workflow/WFS-round/.summaries/IMPL-1-summary.md\n"
    run = wfs_process("execute", "--all", cwd=project)
    assert run.code == 1, run.out + run.err
    assert run.out.endswith(
        "IMPL-2 (.workflow/WFS-round/.task/IMPL-2.json):\n"
        '    .workflow/WFS-round/.task/IMPL-2.json: required: missing required field "id"\n'
    )
    assert not (tmp_path / "ran2").exists()
    status = wfs_process("status", cwd=project)
    assert "Progress: 1/2 tasks completed (50%)" in status.out
    assert "Invalid:  IMPL-2: 1 validation error; `wfs validate` names them" in status.out
    # An edit of it is refused, naming the file and what to add; nothing is written.
    refused = wfs_process("task", "status", "IMPL-2", "completed", cwd=project)
    assert refused.code == 2
    assert refused.err == (
        "wfs: error: .workflow/WFS-round/.task/IMPL-2.json#/id: required: missing required "
        'field "id"; add `"id": "IMPL-2"` to the file first\n'
    )
    assert (TASKS / "IMPL-2.json").read_bytes() == before


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [2592000, 1e10, 1e308])
def test_a_timeout_execute_cannot_honour_is_refused_by_validate_and_execute(
    project: Path, tmp_path: Path, seconds: float
) -> None:
    planned(tmp_path)
    before = edit(
        "IMPL-1", lambda d: d["flow_control"]["implementation_approach"][0].update(timeout=seconds)
    )
    shown = json.dumps(seconds)
    checked = wfs_process("validate", cwd=project)
    assert checked.code == 1
    kind = "integer" if isinstance(seconds, int) else "number"
    assert (
        f"{TASKS.as_posix()}/IMPL-1.json#/flow_control/implementation_approach/0/timeout: "
        "implementation-approach: timeout must be a positive number of seconds up to a week "
        f"(604800), got {kind} {shown}"
    ) in checked.out
    run = wfs_process("execute", "IMPL-1", cwd=project)
    assert run.code == 2 and "Traceback" not in run.err
    assert (TASKS / "IMPL-1.json").read_bytes() == before  # refused before the claim


@pytest.mark.slow
@pytest.mark.parametrize("attempts", ["many", None, -3, True])
def test_a_hand_edited_attempts_count_is_read_as_none(
    project: Path, tmp_path: Path, attempts: Any
) -> None:
    planned(tmp_path)
    edit("IMPL-1", lambda d: d.update(execution={"attempts": attempts}))
    run = wfs_process("execute", "IMPL-1", cwd=project)
    assert run.code == 0, run.err
    saved = json.loads((TASKS / "IMPL-1.json").read_text())
    assert (saved["status"], saved["execution"]["attempts"]) == ("completed", 1)


@pytest.mark.slow
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "1e9"])
def test_a_lock_timeout_that_is_no_wait_is_refused(
    project: Path, tmp_path: Path, value: str
) -> None:
    planned(tmp_path)
    before = (TASKS / "IMPL-1.json").read_bytes()
    run = wfs_process("task", "status", "IMPL-1", "blocked", cwd=project,
                      env={"WFS_LOCK_TIMEOUT": value})  # fmt: skip
    assert run.code == 2
    assert run.err == (
        f"wfs: error: WFS_LOCK_TIMEOUT={value!r}: expected a number of seconds from 0 to 604800\n"
    )
    assert (TASKS / "IMPL-1.json").read_bytes() == before


@pytest.mark.slow
def test_a_clean_merge_keeps_an_integer_wider_than_64_bits_as_written(
    tmp_path: Path, git_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.chdir(root)
    git(root, "init", "-q", "-b", "main")
    assert wfs("init").code == 0
    tasks = [{"id": "IMPL-1", "title": "a", "context": {"requirements": ["r1", "r2", "r3", "r4"]}}]
    assert wfs("plan", "Wide", "--from", "-", input=json.dumps(tasks)).code == 0
    path = root / ".workflow" / "WFS-wide" / ".task" / "IMPL-1.json"
    wide = "123456789012345678901234567890"
    path.write_text(path.read_text().replace('"title": "a",', f'"title": "a",\n  "big": {wide},'))
    commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "other")
    path.write_text(path.read_text().replace('"r4"', '"r4b"'))
    commit_all(root, "theirs")
    git(root, "checkout", "-q", "main")
    path.write_text(path.read_text().replace('"title": "a"', '"title": "a2"'))
    commit_all(root, "ours")
    merged = git(root, "merge", "--no-edit", "other", check=False)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = path.read_text()
    assert f'"big": {wide},' in text and '"title": "a2"' in text and '"r4b"' in text


@pytest.mark.slow
@needs_fifo
@pytest.mark.parametrize("where", ["task", "config"])
def test_a_fifo_where_a_file_should_be_is_named_and_nothing_waits(
    project: Path, tmp_path: Path, where: str
) -> None:
    planned(tmp_path)
    fifo = TASKS / "IMPL-3.json" if where == "task" else Path(".workflow") / "config.json"
    os.mkfifo(fifo)
    said = "not a regular file (a FIFO, a device or a socket); refused"
    dry = wfs_process("execute", "--dry-run", cwd=project, timeout=60)  # a hang fails here
    if where == "task":  # the other tasks still run
        assert dry.code == 0 and dry.out.startswith("IMPL-1: one (dry run")
    else:  # the configuration cannot be read: nothing runs
        assert (dry.code, dry.err) == (2, f"wfs: error: {fifo.as_posix()}: {said}\n")
    naming = {"task": ["status", "next", "validate"], "config": ["status"]}
    for command in ("status", "next", "validate"):
        run = wfs_process(command, cwd=project, timeout=60)  # a hang fails here
        assert "Traceback" not in run.err, (command, run.err)
        if command in naming[where]:
            assert f"{fifo.as_posix()}: " in run.out + run.err, (command, run.out, run.err)
            assert said in run.out + run.err, (command, run.out, run.err)


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_cache_that_is_a_symlink_to_a_device_is_not_read(project: Path, tmp_path: Path) -> None:
    planned(tmp_path)
    first = wfs_process("status", cwd=project)
    caches = sorted(Path(".workflow/.cache").glob("WFS-round.*"))
    assert caches, "status keeps its caches"
    for cache in caches:
        cache.unlink()
        cache.symlink_to("/dev/zero")
    again = wfs_process("status", cwd=project, timeout=60)
    assert (again.code, again.out) == (first.code, first.out)  # rebuilt, and the same


@pytest.mark.slow
def test_an_edit_in_place_whose_mtime_is_put_back_is_seen(project: Path, tmp_path: Path) -> None:
    """`cp -p`, `rsync --inplace -t`, `touch -r`: same size, same mtime, same inode; only
    the ctime tells. Then execute must not overwrite a person's `blocked`."""
    planned(tmp_path)
    path = TASKS / "IMPL-1.json"
    old = os.stat(path)
    time.sleep(0.05)  # the caches below are written at least this much after the file
    assert "Ready:    IMPL-1, IMPL-2" in wfs_process("status", cwd=project).out  # cached now
    with open(path, "r+b") as handle:  # in place: the same inode
        text = handle.read()
        handle.seek(0)
        handle.write(text.replace(b'"status": "pending"', b'"status": "blocked"'))
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    now = os.stat(path)
    assert (now.st_mtime_ns, now.st_size, now.st_ino) == (old.st_mtime_ns, old.st_size, old.st_ino)
    status = wfs_process("status", cwd=project)
    assert "Ready:    IMPL-2" in status.out and "Blocked:  IMPL-1" in status.out
    run = wfs_process("execute", "--all", cwd=project)
    assert run.out == "IMPL-2: completed → .workflow/WFS-round/.summaries/IMPL-2-summary.md\n"
    assert json.loads(path.read_text())["status"] == "blocked"


@pytest.mark.slow
@pytest.mark.parametrize("length", [228, 229, 236])
def test_the_longest_task_id_added_is_one_whose_every_file_can_be_written(
    project: Path, tmp_path: Path, length: int
) -> None:
    assert wfs("init", "--no-git").code == 0
    task = {"id": "IMPL-1", "title": "a",
            "flow_control": {"implementation_approach": [step("bash(true)")]}}  # fmt: skip
    assert wfs("plan", "Long", "--from", "-", input=json.dumps([task])).code == 0
    tid = "IMPL-" + "1" * (length - 5)
    added = wfs_process("task", "add", "--id", tid, "--title", "long", cwd=project)
    if length > 228:
        assert added.code == 2
        assert added.err.endswith(
            f"({length} characters): it is too long to name a file (at most 228 bytes)\n"
        )
        return
    assert added.code == 0, added.err
    # Its run writes every file it has: the record, the output log, the summary.
    agent = tmp_path / "agent"
    agent.write_text("#!/bin/sh\ncat > /dev/null\necho made it\n")
    agent.chmod(0o755)
    run = wfs_process("execute", tid, cwd=project, env={"WFS_AGENT": str(agent)})
    assert run.code == 0, run.out + run.err
    assert run.out == f"{tid}: completed → .workflow/WFS-long/.summaries/{tid}-summary.md\n"


def test_an_unclosed_code_fence_in_the_overview_stays_in_the_overview(project: Path) -> None:
    assert wfs("init", "--no-git").code == 0
    plan = {"overview": "The plan.\n\n```python\nprint('never closed')",
            "requirements": ["one"], "tasks": [{"id": "IMPL-1", "title": "a"}]}  # fmt: skip
    assert wfs("plan", "Fence", "--from", "-", input=json.dumps(plan)).code == 0
    view = (project / ".workflow" / "WFS-fence" / "IMPL_PLAN.md").read_text()
    body = view[view.index("## Overview") : view.index("## Requirements")]
    assert body.rstrip().endswith("```python\nprint('never closed')\n```")
    assert wfs("render", "--check").code == 0


@pytest.mark.slow
def test_a_task_whose_id_is_not_its_file_name_is_named_by_its_file(
    project: Path, tmp_path: Path
) -> None:
    planned(tmp_path)
    before = edit("IMPL-2", lambda d: d.update(id="IMPL-6"))
    said = (
        '.workflow/WFS-round/.task/IMPL-2.json#/id: id-filename: id "IMPL-6" does not match '
        "the file name IMPL-2.json"
    )
    status = wfs_process("status", cwd=project)
    assert "Invalid:  IMPL-2: 1 validation error; `wfs validate` names them" in status.out
    shown = wfs_process("task", "show", "IMPL-6", cwd=project)
    assert shown.err == "wfs: error: unknown task 'IMPL-6'; did you mean IMPL-2, IMPL-1?\n"
    for argv in (["task", "status", "IMPL-2", "blocked"], ["execute", "IMPL-2"]):
        refused = wfs_process(*argv, cwd=project)
        assert (refused.code, refused.err) == (2, f"wfs: error: {said}; make them the same first\n")
    assert (TASKS / "IMPL-2.json").read_bytes() == before
    assert not (tmp_path / "ran2").exists()


@pytest.mark.slow
def test_doctor_fix_removes_the_leftovers_of_interrupted_writes_everywhere_wfs_writes(
    project: Path, tmp_path: Path
) -> None:
    planned(tmp_path)
    session = Path(".workflow") / SID
    leftovers = [
        session / ".summaries" / ".IMPL-1-summary.md.0a1b2c3d.tmp",
        session / ".chat" / ".notes.md.0a1b2c3d.tmp",
        session / ".scratchpad" / ".draft.md.0a1b2c3d.tmp",
        Path(".workflow") / ".doctor" / "20260101T000000" / ".IMPL-1.json.0a1b2c3d.tmp",
    ]
    for path in leftovers:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half")
    kept = session / ".chat" / "notes.md"
    kept.write_text("a person's notes\n")
    run = wfs_process("doctor", "--fix", cwd=project)
    assert run.code == 0, run.out + run.err
    for path in leftovers:
        assert f"{path.as_posix()}: leftover temporary file from an interrupted write" in run.out
        assert not path.exists()
    assert kept.read_text() == "a person's notes\n"
