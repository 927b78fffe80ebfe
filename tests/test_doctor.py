"""`wfs doctor`: the seed's recovery strategies, report-only and --fix."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, read_json, wfs


def plan(project: Path, topic: str, tasks: list[dict[str, object]]) -> str:
    wfs("init", "--no-git")
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


def gate_session(project: Path) -> Path:
    """The design's test-fix gates: IMPL-001.3 and IMPL-001.5 in files named
    IMPL-001.3-validation.json and IMPL-001.5-review.json, with a context but no
    context.parent, in a chain 001 -> 001.3 -> 001.5 -> 002 (IMPL-001.5 names both
    IMPL-001 and IMPL-001.3, as the design's files do); IMPL-001 has its own steps."""
    folder = project / ".workflow/active/WFS-gates"
    (folder / ".task").mkdir(parents=True)
    session = {"session_id": "WFS-gates", "project": "gates", "status": "planning"}
    (folder / "workflow-session.json").write_text(json.dumps(session, indent=2))
    chain = [
        ("IMPL-001", "IMPL-001.json", []),
        ("IMPL-001.3", "IMPL-001.3-validation.json", ["IMPL-001"]),
        ("IMPL-001.5", "IMPL-001.5-review.json", ["IMPL-001", "IMPL-001.3"]),
        ("IMPL-002", "IMPL-002.json", ["IMPL-001.5"]),
    ]
    for tid, name, deps in chain:
        task = {
            "id": tid,
            "title": f"Step {tid}",
            "status": "pending",
            "context": {"depends_on": deps, "requirements": ["as the author wrote"]},
            "flow_control": {
                "implementation_approach": [{"step": 1, "action": "check", "command": "bash(true)"}]
            },
        }
        (folder / ".task" / name).write_text(json.dumps(task, indent=2))
    return folder


def error_count(project: Path) -> int:
    out = wfs("validate", "--all").out.splitlines()
    return len([line for line in out if ": warning: " not in line])


def test_doctor_fix_never_writes_a_second_file_for_an_id_nor_a_misreading(
    project: Path,
) -> None:
    folder = gate_session(project)
    tasks = {p.name: p.read_bytes() for p in (folder / ".task").iterdir()}
    errors = error_count(project)
    where = ".workflow/active/WFS-gates"
    views = [f"{where}/TODO_LIST.md: missing view", f"{where}/IMPL_PLAN.md: missing view"]
    # The gates are tasks of their own: nothing about them is "fixed", only the views
    # the session lacks are rendered.
    report = wfs("doctor")
    assert report.out.splitlines() == [
        f"found: {v} (`wfs doctor --fix` repairs it and reports: render the view again)"
        for v in views
    ]
    fixed = wfs("doctor", "--fix")
    assert fixed.code == 0
    assert fixed.out.splitlines() == [f"fixed: {v} (render the view again)" for v in views]
    assert {p.name: p.read_bytes() for p in (folder / ".task").iterdir()} == tasks
    assert error_count(project) <= errors
    assert wfs("--session", "WFS-gates", "next", "--all", "--json").json()["tasks"][0]["id"] == (
        "IMPL-001"
    )


def test_doctor_dry_run_names_what_the_fix_does_and_the_fix_does_that(project: Path) -> None:
    sid = plan(project, "Dry", [{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two"}])
    tasks = project / ".workflow" / sid / ".task"
    (tasks / "IMPL-2.json").write_bytes(
        json.dumps({**read_json(tasks / "IMPL-2.json"), "status": "container"}, indent=4)
        .replace("\n", "\r\n")
        .encode()
    )
    before = (tasks / "IMPL-2.json").read_bytes()
    where = f".workflow/{sid}/.task/IMPL-2.json: status is container but it has no subtasks"
    assert wfs("doctor").out.splitlines()[0] == (
        f"found: {where} (`wfs doctor --fix` repairs it and reports: set status to pending)"
    )
    assert wfs("doctor", "--fix").out.splitlines()[0] == f"fixed: {where} (set status to pending)"
    # in the file that holds it, as the file is laid out: one line changed
    assert (tasks / "IMPL-2.json").read_bytes() == before.replace(
        b'"status": "container"', b'"status": "pending"'
    )
    assert wfs("doctor").out == "OK: nothing to repair\n"


REALWORLD = CORPUS / "realworld"
REPOS = sorted(p.name for p in REALWORLD.iterdir() if p.is_dir()) if REALWORLD.is_dir() else []


@pytest.mark.slow
@pytest.mark.parametrize(
    "repo", REPOS or [pytest.param("", marks=pytest.mark.skip("no real-world corpus"))]
)
def test_doctor_fix_on_a_real_session_does_what_its_dry_run_says_and_adds_no_error(
    repo: str, project: Path
) -> None:
    shutil.copytree(REALWORLD / repo / ".workflow", project / ".workflow")
    task_files = sorted(p.relative_to(project) for p in project.rglob(".task/*.json"))
    errors = error_count(project)
    dry = wfs("doctor", "--json").json()["findings"]
    fixed = wfs("doctor", "--fix", "--json").json()["findings"]
    planned = [(r["where"], r["problem"], r["action"]) for r in dry if r["fixable"]]
    assert [(r["where"], r["problem"], r["action"]) for r in fixed if r["fixed"]] == planned
    assert sorted(p.relative_to(project) for p in project.rglob(".task/*.json")) == task_files
    assert error_count(project) <= errors
