"""Session lifecycle through the real CLI on real temporary directories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import VIEW_MARK, read_json, tree_listing, wfs, wfs_process


def markers(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".workflow").glob(".active-*"))


def test_plan_creates_only_the_required_files_and_activates_the_session(project: Path) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", "User Auth System", "--empty")
    assert (run.code, run.out, run.err) == (0, "WFS-user-auth-system\n", "")
    session = project / ".workflow" / "WFS-user-auth-system"
    assert tree_listing(session) == [
        ".task",
        "IMPL_PLAN.md",
        "TODO_LIST.md",
        "workflow-session.json",
    ]
    assert read_json(session / "workflow-session.json") == {
        "session_id": "WFS-user-auth-system",
        "project": "User Auth System",
        "type": "simple",
        "current_phase": "PLAN",
        "status": "active",
        "progress": {"completed_phases": [], "current_tasks": []},
    }
    assert markers(project) == [".active-WFS-user-auth-system"]
    assert (
        (session / "TODO_LIST.md").read_text().startswith(VIEW_MARK + "# Tasks: User Auth System\n")
    )


def test_second_identical_plan_gets_a_suffix_and_moves_the_marker(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "User Auth System", "--empty")
    run = wfs("plan", "User Auth System", "--empty", "--new")
    assert run.out == "WFS-user-auth-system-002\n"
    assert markers(project) == [".active-WFS-user-auth-system-002"]
    first = read_json(project / ".workflow/WFS-user-auth-system/workflow-session.json")
    assert first["status"] == "paused"
    assert wfs("plan", "User Auth System", "--empty", "--new").out == "WFS-user-auth-system-003\n"


@pytest.mark.slow
def test_switch_leaves_exactly_one_marker_and_pauses_the_others(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "User Auth System", "--empty")
    wfs("plan", "User Auth System", "--empty", "--new")
    run = wfs("switch", "user-auth-system")
    assert run.code == 0
    assert run.out == "Active session: WFS-user-auth-system (paused WFS-user-auth-system-002)\n"
    assert markers(project) == [".active-WFS-user-auth-system"]
    second = read_json(project / ".workflow/WFS-user-auth-system-002/workflow-session.json")
    assert second["status"] == "paused"
    first = read_json(project / ".workflow/WFS-user-auth-system/workflow-session.json")
    assert first["status"] == "active"
    assert wfs("switch", "WFS-user-auth-system-002", "--json").json() == {
        "session": "WFS-user-auth-system-002",
        "status": "active",
        "paused": ["WFS-user-auth-system"],
    }


def test_switch_to_unknown_session_suggests_close_matches(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "User Auth System", "--empty")
    run = wfs("switch", "user-auth-sytem")
    assert run.code == 2
    assert run.out == ""
    assert run.err == (
        "wfs: error: unknown session 'user-auth-sytem'; did you mean WFS-user-auth-system?\n"
    )
    assert markers(project) == [".active-WFS-user-auth-system"]


@pytest.mark.parametrize("bad", ["../outside", "/etc", "WFS-a/../../b", ".."])
def test_switch_refuses_ids_that_escape_the_workflow_folder(project: Path, bad: str) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Topic", "--empty")
    before = tree_listing(project)
    run = wfs("switch", bad)
    assert run.code == 2
    assert run.err.startswith(f"wfs: error: invalid session id {bad!r}")
    assert "Traceback" not in run.err
    assert tree_listing(project) == before


@pytest.mark.parametrize(
    ("topic", "message"),
    [
        (
            "../../etc",
            "wfs: error: invalid topic '../../etc': it looks like a path outside .workflow/\n",
        ),
        (
            "/abs/path",
            "wfs: error: invalid topic '/abs/path': it looks like a path outside .workflow/\n",
        ),
        ("!!!", "wfs: error: invalid topic '!!!': it has no letters or digits to name a session\n"),
    ],
)
def test_plan_refuses_hostile_topics_and_writes_nothing(
    project: Path, topic: str, message: str
) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", topic, "--empty")
    assert (run.code, run.out, run.err) == (2, "", message)
    assert tree_listing(project) == [".workflow", ".workflow/.gitignore"]


def test_status_json_names_the_active_session(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "User Auth System", "--empty")
    data = wfs("status", "--json").json()
    assert data == {
        "session": "WFS-user-auth-system",
        "project": "User Auth System",
        "status": "active",
        "phase": "PLAN",
        "type": "simple",
        "counts": {"pending": 0, "active": 0, "completed": 0, "blocked": 0, "container": 0},
        "progress": {
            "completed": 0,
            "total": 0,
            "percent": 0,
            "completed_phases": [],
            "current_tasks": [],
        },
        "ready": [],
        "blocked": [],
        "stopped": [],
        "stuck": [],
        "stalled": False,
    }
    assert wfs("--json", "status").json() == data


def test_status_without_any_session(project: Path) -> None:
    assert wfs("init").code == 0
    assert wfs("status").out == "No active session.\n"
    assert wfs("status", "--json").json() == {"session": None}


def test_several_markers_and_no_session_option_exit_2_listing_them(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--empty")
    wfs("plan", "Beta", "--empty")
    (project / ".workflow" / ".active-WFS-alpha").touch()
    run = wfs("status")
    assert run.code == 2
    assert run.err == (
        "wfs: error: Multiple active sessions found:\n"
        "  - WFS-alpha\n"
        "  - WFS-beta\n"
        "Please specify which session to work with: --session ID (or `wfs switch ID`)\n"
    )
    assert wfs("--session", "alpha", "status", "--json").json()["session"] == "WFS-alpha"
    env_run = wfs("status", "--json", env={"WFS_SESSION": "beta"})
    assert env_run.json()["session"] == "WFS-beta"


def test_marker_pointing_nowhere_is_reported(project: Path) -> None:
    wfs("init")
    (project / ".workflow" / ".active-WFS-ghost").touch()
    run = wfs("status")
    assert run.code == 2
    assert "the active marker .active-WFS-ghost names no session folder" in run.err


@pytest.mark.slow
def test_session_list_show_pause_resume_complete(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--empty")
    wfs("plan", "Beta", "--empty")
    listing = wfs("session", "list", "--json").json()
    assert listing == {
        "sessions": [
            {
                "id": "WFS-alpha",
                "active": False,
                "status": "paused",
                "phase": "PLAN",
                "type": "simple",
                "project": "Alpha",
            },
            {
                "id": "WFS-beta",
                "active": True,
                "status": "active",
                "phase": "PLAN",
                "type": "simple",
                "project": "Beta",
            },
        ]
    }
    assert wfs("session", "list").out == (
        "  WFS-alpha  paused  PLAN  simple  Alpha\n* WFS-beta  active  PLAN  simple  Beta\n"
    )
    shown = wfs("session", "show", "alpha", "--json").json()
    assert shown["active"] is False
    assert shown["path"] == ".workflow/WFS-alpha"
    assert shown["session"]["session_id"] == "WFS-alpha"

    assert wfs("session", "pause", "--json").json() == {"session": "WFS-beta", "status": "paused"}
    assert markers(project) == []
    assert wfs("session", "resume", "alpha").out == "WFS-alpha: active\n"
    assert markers(project) == [".active-WFS-alpha"]
    assert wfs("session", "complete").out == "WFS-alpha: completed\n"
    assert markers(project) == []
    statuses = [row["status"] for row in wfs("session", "list", "--json").json()["sessions"]]
    assert statuses == ["completed", "paused"]


@pytest.mark.slow
def test_malformed_session_file_gives_exit_2_with_line_and_column(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--empty")
    path = project / ".workflow/WFS-alpha/workflow-session.json"
    path.write_text('{\n  "session_id": "WFS-alpha",\n  "type": simple\n}\n')
    before = path.read_bytes()
    run = wfs_process("status", cwd=project)
    assert run.code == 2
    assert run.err.startswith(
        "wfs: error: .workflow/WFS-alpha/workflow-session.json:3:11: invalid JSON: "
    )
    assert "Traceback" not in run.err
    assert path.read_bytes() == before


def test_switch_to_a_session_with_a_broken_file_changes_nothing(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--empty")
    wfs("plan", "Beta", "--empty")
    (project / ".workflow/WFS-alpha/workflow-session.json").write_text("[1, 2")
    run = wfs("switch", "alpha")
    assert run.code == 2
    assert markers(project) == [".active-WFS-beta"]


def test_init_is_idempotent_and_ignores_run_records(project: Path) -> None:
    first = wfs("init", "--no-git", "--json").json()
    assert first == {
        "root": str(project),
        "workflow": ".workflow",
        "created": True,
        "markers_ignored": "added",
        "git": None,
    }
    gitignore = (project / ".workflow/.gitignore").read_text()
    assert ".runs/" in gitignore and ".locks/" in gitignore
    assert wfs("init", "--json").json()["created"] is False
    assert wfs("init").out == f"Already initialized {project / '.workflow'}\n"


@pytest.mark.slow
def test_root_discovery_order(project: Path, tmp_path: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Here", "--empty")
    nested = project / "src" / "deep"
    nested.mkdir(parents=True)
    # The nearest ancestor holding .workflow/ wins over the current directory.
    assert wfs_process("status", "--json", cwd=nested).json()["session"] == "WFS-here"
    other = tmp_path / "other"
    other.mkdir()
    wfs_process("init", "--no-git", cwd=other)
    assert wfs_process("plan", "There", "--empty", cwd=other).out == "WFS-there\n"
    # WFS_ROOT beats discovery; --root beats WFS_ROOT.
    by_env = wfs_process("status", "--json", cwd=nested, env={"WFS_ROOT": str(other)})
    assert by_env.json()["session"] == "WFS-there"
    by_flag = wfs_process(
        "--root", str(project), "status", "--json", cwd=other, env={"WFS_ROOT": str(other)}
    )
    assert by_flag.json()["session"] == "WFS-here"
    # With no .workflow/ anywhere above, the current directory is the root.
    bare = tmp_path / "bare"
    bare.mkdir()
    wfs_process("init", cwd=bare)
    assert (bare / ".workflow" / ".gitignore").is_file()


def test_missing_root_directory_is_an_error(project: Path) -> None:
    run = wfs("--root", "/no/such/dir", "status")
    assert (run.code, run.err) == (
        2,
        "wfs: error: project root '/no/such/dir' is not a directory\n",
    )


@pytest.mark.slow
def test_lock_timeout_exits_4(project: Path) -> None:
    wfs("init")
    lock = project / ".workflow/.locks/workflow.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from wfs import platform;"
            "lock = platform.FileLock(sys.argv[1], 10); lock.acquire(); print('held', flush=True);"
            "time.sleep(30)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        run = wfs_process(
            "plan", "Blocked", "--empty", cwd=project, env={"WFS_LOCK_TIMEOUT": "0.5"}
        )
    finally:
        holder.kill()
        holder.wait()
    assert run.code == 4
    assert run.err == (
        "wfs: error: .workflow is locked by another wfs process (waited 0.5s); "
        "try again, or set WFS_LOCK_TIMEOUT to wait longer\n"
    )
    assert not (project / ".workflow/WFS-blocked").exists()


@pytest.mark.slow
def test_concurrent_plans_get_distinct_ids_and_no_torn_files(project: Path) -> None:
    wfs("init")
    env = {**os.environ, "WFS_LOCK_TIMEOUT": "60"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "wfs", "plan", "Same Topic", "--empty", "--new"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(8)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, outs
    ids = sorted(out.strip() for out, _ in outs)
    assert ids == ["WFS-same-topic"] + [f"WFS-same-topic-{n:03d}" for n in range(2, 9)]
    for sid in ids:
        data = read_json(project / ".workflow" / sid / "workflow-session.json")
        assert data["session_id"] == sid
    assert len(markers(project)) == 1
    active = markers(project)[0][len(".active-") :]
    statuses = {
        sid: read_json(project / ".workflow" / sid / "workflow-session.json")["status"]
        for sid in ids
    }
    assert statuses[active] == "active"
    assert sorted(s for sid, s in statuses.items() if sid != active) == ["paused"] * 7
    assert not list((project / ".workflow").glob(".*.new"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "field", ["topic", "task_description", "description", "goal", "project", "title"]
)
def test_the_topic_is_read_from_any_field_authors_keep_it_in_and_none_is_never_shown(
    project: Path, tmp_path: Path, field: str
) -> None:
    folder = project / ".workflow/WFS-kept"
    (folder / ".task").mkdir(parents=True)
    (project / ".workflow/.active-WFS-kept").touch()
    # no status, no type, no phase: what another tool may leave
    (folder / "workflow-session.json").write_text(
        json.dumps({"session_id": "WFS-kept", field: "Keep the author's topic"})
    )
    step = {"step": 1, "title": "Greet", "description": "Say hello"}  # an agent step
    task = {"id": "IMPL-1", "title": "One", "status": "pending", "meta": {"type": "feature"},
            "context": {}, "flow_control": {"implementation_approach": [step]}}  # fmt: skip
    (folder / ".task/IMPL-1.json").write_text(json.dumps(task))
    status = wfs("status").out
    assert status.startswith(
        "Session:  WFS-kept (active)\nTopic:    Keep the author's topic\nPhase:    PLAN"
    )
    row = wfs("session", "list", "--json").json()["sessions"][0]
    assert (row["status"], row["project"]) == ("active", "Keep the author's topic")
    assert wfs("session", "list").out == (
        "* WFS-kept  active  PLAN  simple  Keep the author's topic\n"
    )
    shown = wfs("session", "show").out
    assert "  status:  active\n" in shown
    assert wfs("render").code == 0
    plan = (folder / "IMPL_PLAN.md").read_text(encoding="utf-8")
    assert "# Implementation Plan: Keep the author's topic\n" in plan
    assert "- **Type**: simple · **Phase**: PLAN\n" in plan  # the file has no status
    for text in (status, shown, plan, (folder / "TODO_LIST.md").read_text(encoding="utf-8")):
        assert "None" not in text.replace("_None recorded._", "")  # the views' own words
    # the brief an agent gets says the phase the session is in
    agent = tmp_path / "agent"
    agent.write_text(f"#!/bin/sh\ncat > '{tmp_path / 'brief.txt'}'\necho done\n")
    agent.chmod(0o755)
    run = wfs_process("execute", "--agent", str(agent), cwd=project)
    assert run.code == 0, run.err
    brief = (tmp_path / "brief.txt").read_text(encoding="utf-8")
    assert "None" not in brief
    assert "\nSession WFS-kept, phase IMPLEMENT.\n" in brief  # the Markdown brief


def test_a_session_without_status_and_without_a_marker_shows_paused(project: Path) -> None:
    for sid in ("WFS-one", "WFS-two"):
        (project / ".workflow" / sid / ".task").mkdir(parents=True)
        (project / ".workflow" / sid / "workflow-session.json").write_text(
            json.dumps({"session_id": sid, "goal": sid[4:]})
        )
    (project / ".workflow/.active-WFS-two").touch()
    rows = wfs("session", "list", "--json").json()["sessions"]
    assert [(r["id"], r["active"], r["status"], r["project"]) for r in rows] == [
        ("WFS-one", False, "paused", "one"),
        ("WFS-two", True, "active", "two"),
    ]
    assert wfs("--session", "WFS-one", "status").out.startswith("Session:  WFS-one (paused)\n")
