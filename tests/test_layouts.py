"""The three layouts in use: `.workflow/WFS-*` with markers, `.workflow/active/WFS-*` and
`.workflow/archives/WFS-*` (wfs/layout.py, wfs/sessions.py), and folders that are not one
session each."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import read_json, tree_listing, wfs, wfs_process

from wfs import index


def write_session(folder: Path, data: dict[str, object], tasks: int = 1) -> None:
    """A session folder as other tools write it: their status and type, no phase."""
    (folder / ".task").mkdir(parents=True)
    (folder / "workflow-session.json").write_text(json.dumps(data))
    for n in range(1, tasks + 1):
        task = {"id": f"IMPL-{n}", "title": f"Task {n}", "status": "pending", "meta": {},
                "context": {}, "flow_control": {}}  # fmt: skip
        (folder / ".task" / f"IMPL-{n}.json").write_text(json.dumps(task))


def other_tool(sid: str, status: str = "planning") -> dict[str, object]:
    return {"session_id": sid, "project": sid[4:], "status": status, "type": "workflow"}


def files(root: Path) -> list[str]:
    """The project's files, without wfs's own locks."""
    return [p for p in tree_listing(root) if ".locks" not in p]


def markers(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".workflow").glob(".active-*"))


def test_a_project_that_keeps_sessions_in_active_gets_new_ones_there(project: Path) -> None:
    (project / ".workflow/archives").mkdir(parents=True)
    wfs("init", "--no-git")
    run = wfs("plan", "New work", "--empty")
    assert run.code == 0
    assert (project / ".workflow/active/WFS-new-work/workflow-session.json").is_file()
    assert not (project / ".workflow/WFS-new-work").exists()
    assert wfs("status", "--json").json()["session"] == "WFS-new-work"


def test_sessions_in_active_are_active_without_markers_until_paused(project: Path) -> None:
    active = project / ".workflow/active"
    write_session(active / "WFS-alpha", other_tool("WFS-alpha"))
    write_session(active / "WFS-beta", other_tool("WFS-beta", "paused"))
    write_session(project / ".workflow/archives/WFS-old", other_tool("WFS-old", "planning"))
    assert wfs("status", "--json").json()["session"] == "WFS-alpha"
    rows = wfs("session", "list", "--json").json()["sessions"]
    assert rows == [
        {"id": "WFS-alpha", "active": True, "status": "planning", "phase": "PLAN",
         "type": "workflow", "project": "alpha"},
        {"id": "WFS-beta", "active": False, "status": "paused", "phase": "PLAN",
         "type": "workflow", "project": "beta"},
        {"id": "WFS-old", "active": False, "status": "planning", "phase": "PLAN",
         "type": "workflow", "project": "old"},
    ]  # fmt: skip
    # Another tool's kind of session and its status are shown as they are; what the seed
    # asks and the file lacks is derived.
    status = wfs("status").out
    assert status.startswith("Session:  WFS-alpha (planning)\nTopic:    alpha\n")
    assert "Phase:    PLAN    Type: workflow\n" in status


def test_switch_pause_complete_in_the_active_layout(project: Path) -> None:
    active = project / ".workflow/active"
    write_session(active / "WFS-alpha", other_tool("WFS-alpha"))
    write_session(active / "WFS-beta", other_tool("WFS-beta"))
    run = wfs("status")
    assert run.code == 2
    assert "Multiple active sessions found:\n  - WFS-alpha\n  - WFS-beta\n" in run.err
    # switch pauses the other where this layout's tools look for it, the status in its
    # file (one line changes), and writes no marker; the one switched to keeps its status
    alpha = (active / "WFS-alpha/workflow-session.json").read_bytes()
    assert wfs("switch", "beta").out == "Active session: WFS-beta (paused WFS-alpha)\n"
    assert markers(project) == []
    assert wfs("status", "--json").json()["session"] == "WFS-beta"
    assert (active / "WFS-alpha/workflow-session.json").read_bytes() == alpha.replace(
        b'"status": "planning"', b'"status": "paused"'
    )
    assert read_json(active / "WFS-beta/workflow-session.json") == other_tool("WFS-beta")
    assert [
        (r["id"], r["active"], r["status"])
        for r in wfs("session", "list", "--json").json()["sessions"]
    ] == [("WFS-alpha", False, "paused"), ("WFS-beta", True, "planning")]
    # completing moves the session to archives/, byte for byte besides its status
    assert wfs("session", "complete").out == "WFS-beta: completed\n"
    assert not (active / "WFS-beta").exists()
    archived = project / ".workflow/archives/WFS-beta"
    assert read_json(archived / "workflow-session.json") == {
        **other_tool("WFS-beta"),
        "status": "completed",
    }
    assert (archived / ".task/IMPL-1.json").is_file()
    assert markers(project) == []
    # The one left is paused, and unfinished: status shows it, and says why.
    left = wfs("status")
    assert left.out.startswith("Session:  WFS-alpha (paused)\n")
    assert left.err.startswith("wfs: no session is active here; using WFS-alpha, ")
    assert markers(project) == []  # only read: nothing is marked
    assert wfs("session", "resume", "alpha").out == "WFS-alpha: active\n"
    assert wfs("status", "--json").json()["session"] == "WFS-alpha"
    # pausing: status paused, not active; nothing active is left, and it is still the
    # only unfinished session
    assert wfs("session", "pause").out == "WFS-alpha: paused\n"
    assert wfs("status").out.startswith("Session:  WFS-alpha (paused)\n")
    assert wfs("status", "--json").json()["status"] == "paused"
    # resuming an archived session reopens it in active/
    assert wfs("session", "resume", "beta").out == "WFS-beta: active\n"
    assert (active / "WFS-beta/workflow-session.json").is_file()
    assert not archived.exists()
    assert read_json(active / "WFS-beta/workflow-session.json")["status"] == "active"
    assert wfs("render", "--check", "--all").code == 0


def test_complete_refuses_when_archives_already_holds_the_session(project: Path) -> None:
    write_session(project / ".workflow/active/WFS-x", other_tool("WFS-x"))
    write_session(project / ".workflow/archives/WFS-x", other_tool("WFS-x", "completed"))
    before = files(project)
    run = wfs("--session", "WFS-x", "session", "complete")
    assert (run.code, run.err) == (
        2,
        "wfs: error: cannot move .workflow/active/WFS-x to .workflow/archives/WFS-x: that "
        "folder exists already (a second copy of the session); keep one, then retry\n",
    )
    assert files(project) == before
    assert read_json(project / ".workflow/active/WFS-x/workflow-session.json")["status"] == (
        "planning"
    )


def test_folders_that_are_not_one_session_each_are_reported_and_never_crash(
    project: Path,
) -> None:
    workflow = project / ".workflow"
    write_session(workflow / "active/WFS-real", other_tool("WFS-real"))
    write_session(workflow / "archives/WFS-real", other_tool("WFS-real", "completed"))
    (workflow / "WFS-[session-id]/.process").mkdir(parents=True)
    (workflow / "WFS-[session-id]/.process/notes.md").write_text("written by a tool\n")
    (workflow / "active/WFS-bare/.task").mkdir(parents=True)  # no session file
    assert [r["id"] for r in wfs("session", "list", "--json").json()["sessions"]] == [
        "WFS-bare",
        "WFS-real",
    ]
    placeholder = (
        ".workflow/WFS-[session-id]: layout: warning: folder 'WFS-[session-id]' is named with "
        "an unfilled placeholder, not a session id; a tool wrote to a path it did not fill in "
        "(move its files into the session they belong to, then remove it)"
    )
    duplicate = (
        ".workflow/archives/WFS-real: layout: warning: session WFS-real is in 2 places "
        "(.workflow/active/WFS-real/, .workflow/archives/WFS-real/); wfs works on "
        ".workflow/active/WFS-real/ and leaves the others alone: keep one"
    )
    run = wfs("validate", "--all")
    assert run.code == 1
    assert run.out.splitlines()[:3] == [
        placeholder,
        duplicate,
        ".workflow/active/WFS-bare/workflow-session.json: file: file not found",
    ]
    # A folder without a session file is read from its tasks, and says so.
    bare = wfs("--session", "WFS-bare", "status", "--json")
    assert (bare.code, bare.json()["warnings"]) == (
        0,
        [
            ".workflow/active/WFS-bare/workflow-session.json: no session file; wfs reads the "
            "session from its tasks (`wfs doctor --fix` writes one)"
        ],
    )
    report = wfs("doctor")
    assert report.code == 1
    fixable = "(`wfs doctor --fix` repairs it and reports: "
    written = "wrote one from the template and the tasks)"
    rendered = "render the view again)"
    assert report.out.splitlines() == [
        "found: "
        + placeholder.replace(": layout: warning:", ":")
        + " (none: wfs does not choose for you)",
        "found: "
        + duplicate.replace(": layout: warning:", ":")
        + " (none: wfs does not choose for you)",
        f"found: .workflow/active/WFS-bare/workflow-session.json: no session file {fixable}"
        + written,
        f"found: .workflow/active/WFS-bare/TODO_LIST.md: missing view {fixable}" + rendered,
        f"found: .workflow/active/WFS-bare/IMPL_PLAN.md: missing view {fixable}" + rendered,
        f"found: .workflow/active/WFS-real/TODO_LIST.md: missing view {fixable}" + rendered,
        f"found: .workflow/active/WFS-real/IMPL_PLAN.md: missing view {fixable}" + rendered,
    ]
    assert wfs("doctor", "--fix").code == 1  # the folders are for a person to sort out
    assert read_json(workflow / "active/WFS-bare/workflow-session.json")["status"] == "active"
    assert (workflow / "WFS-[session-id]/.process/notes.md").read_text() == "written by a tool\n"


@pytest.mark.slow
def test_migrate_layout_converts_both_ways_keeping_what_is_active(project: Path) -> None:
    for topic in ("Alpha", "Beta", "Gamma"):
        wfs("init", "--no-git")
        assert wfs("plan", topic, "--empty").code == 0
    assert wfs("--session", "alpha", "session", "complete").code == 0
    assert wfs("switch", "beta").code == 0
    run = wfs("migrate", "--layout", "active")
    assert run.out == (
        "moved .workflow/WFS-alpha to .workflow/archives/WFS-alpha\n"
        "moved .workflow/WFS-beta to .workflow/active/WFS-beta\n"
        "moved .workflow/WFS-gamma to .workflow/active/WFS-gamma\n"
    )
    assert wfs("status", "--json").json()["session"] == "WFS-beta"
    assert [
        (r["id"], r["active"]) for r in wfs("session", "list", "--json").json()["sessions"]
    ] == [
        ("WFS-alpha", False),
        ("WFS-beta", True),
        ("WFS-gamma", False),
    ]
    assert wfs("plan", "Delta", "--empty").code == 0  # new sessions go where the others are
    assert (project / ".workflow/active/WFS-delta").is_dir()
    assert wfs("migrate", "--layout", "active").out == "Already in the active layout.\n"
    run = wfs("migrate", "--layout", "markers", "--json")
    assert run.json()["moved"] == [
        {"from": ".workflow/archives/WFS-alpha", "to": ".workflow/WFS-alpha"},
        {"from": ".workflow/active/WFS-beta", "to": ".workflow/WFS-beta"},
        {"from": ".workflow/active/WFS-delta", "to": ".workflow/WFS-delta"},
        {"from": ".workflow/active/WFS-gamma", "to": ".workflow/WFS-gamma"},
    ]
    assert not (project / ".workflow/active").exists()
    assert not (project / ".workflow/archives").exists()
    assert markers(project) == [".active-WFS-delta"]
    assert read_json(project / ".workflow/WFS-alpha/workflow-session.json")["status"] == (
        "completed"
    )
    assert wfs("validate", "--all").out.startswith("OK: ")
    assert wfs("render", "--check", "--all").code == 0


def test_migrate_layout_refuses_a_session_in_two_places_and_moves_nothing(project: Path) -> None:
    write_session(project / ".workflow/active/WFS-x", other_tool("WFS-x"))
    write_session(project / ".workflow/archives/WFS-x", other_tool("WFS-x", "completed"))
    before = files(project)
    run = wfs("migrate", "--layout", "markers")
    assert (run.code, run.err) == (
        2,
        "wfs: error: cannot move .workflow/active/WFS-x to .workflow/WFS-x: the session is in "
        "more than one place; keep one copy, then retry (nothing was moved)\n",
    )
    assert files(project) == before


@pytest.mark.slow
def test_the_index_answers_in_the_active_layout_as_the_files_do(project: Path) -> None:
    (project / ".workflow/active").mkdir(parents=True)
    plan = [{"id": "IMPL-1", "title": "One"}]
    wfs("init", "--no-git")
    assert wfs("plan", "Fast", "--from", "-", input=json.dumps(plan)).code == 0
    # The index trusts only stamps older than a margin: with the files aged, the processes
    # below build a trusted index however soon after the plan they start.
    folder = project / ".workflow/active/WFS-fast"
    aged = time.time_ns() - 10_000_000_000
    for path in [*folder.rglob("*"), folder]:
        os.utime(path, ns=(aged, aged))
    for args in (["status"], ["next"], ["task", "show", "IMPL-1"]):
        fresh = wfs_process(*args, env={"WFS_NO_CACHE": "1"}, cwd=project)
        assert wfs_process(*args, cwd=project) == fresh, args  # builds the index
        folder = str(project / ".workflow/active/WFS-fast")
        assert index.cached_answers(str(project / ".workflow"), "WFS-fast", folder=folder)
        assert wfs_process(*args, cwd=project) == fresh, args  # answered from it
