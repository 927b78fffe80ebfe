"""`wfs doctor`: the seed's recovery strategies, report-only and --fix."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import read_json, wfs


def plan(project: Path, topic: str, tasks: list[dict[str, object]]) -> str:
    run = wfs("plan", topic, "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    return run.out.strip()


def test_clean_project_has_nothing_to_repair(project: Path) -> None:
    plan(project, "Clean", [{"id": "IMPL-1", "title": "One"}])
    assert (wfs("doctor").code, wfs("doctor").out) == (0, "OK: nothing to repair\n")


def test_orphaned_marker_is_removed(project: Path) -> None:
    plan(project, "Real", [{"id": "IMPL-1", "title": "One"}])
    (project / ".workflow/.active-WFS-ghost").touch()
    report = wfs("doctor")
    assert report.code == 1
    assert report.out == (
        "found: .workflow/.active-WFS-ghost: orphaned active marker: "
        "no session folder (`wfs doctor --fix` repairs it and reports: removed the marker)\n"
    )
    assert (project / ".workflow/.active-WFS-ghost").exists()  # report only
    fixed = wfs("doctor", "--fix")
    assert fixed.code == 0
    assert fixed.out.startswith("fixed: .workflow/.active-WFS-ghost")
    assert not (project / ".workflow/.active-WFS-ghost").exists()
    assert wfs("doctor", "--fix").out == "OK: nothing to repair\n"  # idempotent


def test_several_markers_keep_the_newest(project: Path) -> None:
    plan(project, "Old", [{"id": "IMPL-1", "title": "One"}])
    plan(project, "New", [{"id": "IMPL-1", "title": "One"}])
    old_marker = project / ".workflow/.active-WFS-old"
    old_marker.touch()
    os.utime(old_marker, (1_000_000, 1_000_000))
    assert wfs("doctor", "--fix").code == 0
    assert sorted(p.name for p in (project / ".workflow").glob(".active-*")) == [".active-WFS-new"]
    assert read_json(project / ".workflow/WFS-old/workflow-session.json")["status"] == "paused"


def test_corrupted_session_file_is_kept_aside_and_recreated(project: Path) -> None:
    sid = plan(project, "Corrupt", [{"id": "IMPL-1", "title": "One"}])
    session = project / ".workflow" / sid
    (session / "workflow-session.json").write_text('{"session_id": "WFS-corr')
    assert wfs("doctor").code == 1
    assert wfs("doctor", "--fix").code == 0
    assert (session / "workflow-session.json.corrupt").read_text() == '{"session_id": "WFS-corr'
    data = read_json(session / "workflow-session.json")
    assert data["session_id"] == sid and data["status"] == "active"
    assert wfs("validate").code == 0
    assert wfs("render", "--check").code == 0
    assert wfs("doctor").out == "OK: nothing to repair\n"


def test_broken_hierarchy_is_reconstructed(project: Path) -> None:
    sid = plan(
        project,
        "Tree",
        [
            {"id": "IMPL-1", "title": "Group"},
            {"id": "IMPL-1.1", "title": "Child"},
            {"id": "IMPL-2", "title": "Leaf"},
        ],
    )
    tasks = project / ".workflow" / sid / ".task"
    (tasks / "IMPL-1.json").unlink()
    leaf = read_json(tasks / "IMPL-2.json")
    (tasks / "IMPL-2.json").write_text(json.dumps({**leaf, "status": "container"}))
    out = wfs("doctor", "--fix").out
    assert "fixed: .workflow/WFS-tree/.task/IMPL-1.json: missing parent of IMPL-1.1" in out
    assert "status is container but it has no subtasks" in out
    parent = read_json(tasks / "IMPL-1.json")
    assert (parent["title"], parent["status"]) == ("IMPL-1 (reconstructed)", "container")
    assert read_json(tasks / "IMPL-2.json")["status"] == "pending"
    assert wfs("validate").code == 0
    assert wfs("render", "--check").code == 0
    assert wfs("doctor").code == 0


def test_stale_views_and_leftover_temp_files_are_repaired(project: Path) -> None:
    sid = plan(project, "Stale", [{"id": "IMPL-1", "title": "One"}])
    session = project / ".workflow" / sid
    (session / "TODO_LIST.md").write_text("# edited by hand\n")
    (session / ".task" / ".IMPL-1.json.abc.tmp").write_text('{"id": "IMPL-1", "ti')
    json_out = wfs("doctor", "--json").json()
    assert {(f["where"], f["fixed"]) for f in json_out["findings"]} == {
        (f".workflow/{sid}/.task/.IMPL-1.json.abc.tmp", False),
        (f".workflow/{sid}/TODO_LIST.md", False),
    }
    assert wfs("doctor", "--fix").code == 0
    assert not list((session / ".task").glob(".*.tmp"))
    assert wfs("render", "--check").code == 0
