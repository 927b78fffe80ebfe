"""Nothing outside the project root is written or deleted, whatever symlinks say.

A cloned repository can carry symlinks anywhere in `.workflow/`: the folder itself, a
session folder, or the folders wfs writes into (`.task`, `.summaries`, `.runs`, `.chat`,
`.locks`, `.cache`, `.scratchpad`). Each case points one of them at a folder beside
the project, runs real `wfs` processes over it, and checks that the outside folder is
byte for byte as it was, and that a refused command says why with exit 2.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import wfs_process

PLAN = [
    {"id": "IMPL-1", "title": "First"},
    {"id": "IMPL-2", "title": "Second", "context": {"depends_on": ["IMPL-1"]}},
]
REFUSED = "refused: a symlink leads this path outside the project root"


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under `folder`: its kind, and a file's content hash and mode."""
    seen = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            seen[key] = "link:" + os.readlink(path)
        elif path.is_dir():
            seen[key] = "dir"
        else:
            data = path.read_bytes()
            seen[key] = f"{hashlib.sha256(data).hexdigest()} {stat.S_IMODE(path.stat().st_mode):o}"
    return seen


def planned(project: Path) -> Path:
    """A project with one session of two tasks; its session folder."""
    plan_file = project.parent / "plan.json"
    plan_file.write_text(json.dumps(PLAN))
    wfs_process("init", "--no-git", cwd=project)
    run = wfs_process("plan", "Confined", "--from", str(plan_file), cwd=project)
    assert run.code == 0, run.err
    (folder,) = (project / ".workflow").glob("WFS-*")
    return folder


def moved_outside(project: Path, relative: Path) -> Path:
    """Move `relative` (a folder of the project) beside the project and leave a symlink
    in its place, as a repository cloned with such a symlink has it."""
    outside = project.parent / "outside" / relative.name
    outside.parent.mkdir(exist_ok=True)
    source = project / relative
    if source.exists():
        shutil.move(source, outside)
    else:
        outside.mkdir()
    os.symlink(outside, source)
    return outside


@pytest.fixture
def session(project: Path) -> Path:
    return planned(project)


def run_refused(project: Path, outside: Path, *args: str) -> str:
    before = snapshot(outside)
    run = wfs_process(*args, cwd=project)
    assert run.code == 2, (args, run.out, run.err)
    assert REFUSED in run.err, (args, run.err)
    assert "Traceback" not in run.err + run.out
    # One line, or one a file that could not be read (each refused, naming its file).
    assert run.err.startswith("wfs: error: "), run.err
    assert all(REFUSED in line for line in run.err.splitlines()), run.err
    assert snapshot(outside) == before, args
    return run.err


@pytest.mark.slow
def test_a_symlinked_workflow_folder_is_never_written(project: Path, session: Path) -> None:
    outside = moved_outside(project, Path(".workflow"))
    sid = session.name
    for args in (
        ("task", "add", "--title", "More"),
        ("task", "status", "IMPL-1", "completed"),
        ("render",),
        ("doctor", "--fix"),
        ("migrate", "--all"),
        ("switch", sid),
        ("session", "complete", sid),
    ):
        run_refused(project, outside, *args)


@pytest.mark.slow
def test_a_symlinked_session_folder_is_never_written_by_the_commands_that_walk_all(
    project: Path, session: Path
) -> None:
    # A second, ordinary session beside it: the walk reaches the symlinked one too.
    plan_file = project.parent / "plan.json"
    wfs_process("init", "--no-git", cwd=project)
    assert wfs_process("plan", "Local", "--from", str(plan_file), cwd=project).code == 0
    outside = moved_outside(project, session.relative_to(project))
    # Damage inside it, so that doctor --fix and render --all have work there.
    (outside / "TODO_LIST.md").write_text("stale\n")
    (outside / "IMPL_PLAN.md").unlink()
    task_file = outside / ".task" / "IMPL-1.json"
    task = json.loads(task_file.read_text())
    approach = {"task_description": "Do it", "modification_points": [], "logic_flow": []}
    task["flow_control"] = {"implementation_approach": approach}  # v1: migrate has work
    task_file.write_text(json.dumps(task))
    for args in (("render", "--all"), ("doctor", "--fix"), ("migrate", "--all")):
        run_refused(project, outside, *args)
    # Named directly, the session is refused before anything is read in it.
    before = snapshot(outside)
    run = wfs_process("--session", session.name, "task", "add", "--title", "x", cwd=project)
    assert (run.code, run.err) == (
        2,
        f"wfs: error: .workflow/{session.name}: is a symlink leading outside the project "
        "root; wfs does not follow it\n",
    )
    assert snapshot(outside) == before


@pytest.mark.slow
@pytest.mark.parametrize("name", [".task", ".locks"])
def test_symlinked_task_and_lock_folders_are_never_written(
    project: Path, session: Path, name: str
) -> None:
    where = session / name if name == ".task" else project / ".workflow" / name
    outside = moved_outside(project, where.relative_to(project))
    run_refused(project, outside, "task", "add", "--title", "More")
    run_refused(project, outside, "task", "status", "IMPL-1", "completed")


def fake_agent(project: Path) -> Path:
    agent = project.parent / "agent"
    agent.write_text("#!/bin/sh\ncat > /dev/null\necho '## TASK COMPLETE'\necho done it\n")
    agent.chmod(0o755)
    return agent


@pytest.mark.slow
@pytest.mark.parametrize("name", [".summaries", ".runs"])
def test_symlinked_run_folders_stop_execute_before_anything_outside_changes(
    project: Path, session: Path, name: str
) -> None:
    outside = moved_outside(project, (session / name).relative_to(project))
    agent = fake_agent(project)
    before = snapshot(outside)
    run = wfs_process("execute", "IMPL-1", "--agent", str(agent), cwd=project)
    assert run.code == 2, (run.out, run.err)
    assert REFUSED in run.err
    assert "Traceback" not in run.err + run.out
    assert snapshot(outside) == before
    # The task is not left claimed: once the symlink is gone, the printed way on works.
    os.unlink(session / name)
    status = wfs_process("task", "show", "IMPL-1", "--json", cwd=project)
    task = status.json()["task"]
    assert task["status"] in ("pending", "paused"), task
    resume = wfs_process("execute", "IMPL-1", "--agent", str(agent), cwd=project)
    if task["status"] == "paused":
        resume = wfs_process("execute", "--resume", "IMPL-1", "--agent", str(agent), cwd=project)
    assert resume.code == 0, resume.out + resume.err
    assert (
        wfs_process("task", "show", "IMPL-1", "--json", cwd=project).json()["task"]["status"]
        == "completed"
    )


@pytest.mark.slow
def test_a_symlinked_cache_folder_is_not_written_and_answers_stay_right(
    project: Path, session: Path
) -> None:
    outside = moved_outside(project, Path(".workflow/.cache"))
    for entry in outside.iterdir():
        entry.unlink()
    before = snapshot(outside)
    reads = (("status",), ("next",), ("task", "show", "IMPL-1"), ("task", "list"), ("validate",))
    for args in reads:
        run = wfs_process(*args, cwd=project)
        assert run.code == 0, (args, run.err)
    assert "IMPL-1" in wfs_process("next", cwd=project).out
    assert snapshot(outside) == before == {}


@pytest.mark.slow
@pytest.mark.parametrize("active", [True, False])
def test_symlinked_chat_and_scratchpad_folders_are_never_written(
    project: Path, session: Path, active: bool
) -> None:
    if active:
        outside = moved_outside(project, (session / ".chat").relative_to(project))
    else:
        assert wfs_process("session", "pause", session.name, cwd=project).code == 0
        outside = moved_outside(project, Path(".workflow/.scratchpad"))
    run_refused(project, outside, "capture", "analyze", "auth flow", "--", "echo", "hi")


@pytest.mark.slow
def test_a_journal_cannot_rename_outside_the_root(project: Path, session: Path) -> None:
    """A journal (git-ignored, but a clone or a hand can put one there) naming a target
    outside the root is refused, not replayed."""
    outside = project.parent / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me\n")
    staged = session / ".IMPL-1.json.staged.tmp"
    staged.write_text("overwritten\n")
    locks = project / ".workflow" / ".locks"
    locks.mkdir(exist_ok=True)
    journal = locks / f"{session.name}.journal"
    journal.write_text(
        json.dumps(
            {
                "renames": [
                    [
                        os.path.relpath(outside / "victim.txt", locks),
                        os.path.relpath(staged, locks),
                    ]
                ]
            }
        )
    )
    before = snapshot(outside)
    for args in (("status",), ("task", "add", "--title", "x"), ("doctor", "--fix")):
        run = wfs_process(*args, cwd=project)
        assert "Traceback" not in run.err + run.out, args
        assert snapshot(outside) == before, args
    assert (outside / "victim.txt").read_text() == "keep me\n"
