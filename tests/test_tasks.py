"""Plan ingestion, task commands, readiness and complexity, through the real CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, read_json, tree_listing, wfs

JWT_PLAN = REPO / "examples" / "jwt-auth" / "plan.json"


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def task_file(project: Path, sid: str, tid: str) -> Path:
    return project / ".workflow" / sid / ".task" / f"{tid}.json"


@pytest.fixture
def chain(project: Path) -> str:
    """IMPL-1 container (1.1, 1.2 after 1.1), IMPL-2 after IMPL-1, IMPL-3 independent."""
    plan = write(
        project / "plan.json",
        {
            "overview": "Chain",
            "requirements": ["R1"],
            "tasks": [
                {"id": "IMPL-1", "title": "Group"},
                {"id": "IMPL-1.1", "title": "First"},
                {"id": "IMPL-1.2", "title": "Second", "context": {"depends_on": ["IMPL-1.1"]}},
                {"id": "IMPL-2", "title": "After group", "context": {"depends_on": ["IMPL-1"]}},
                {"id": "IMPL-3", "title": "Independent"},
            ],
        },
    )
    wfs("init", "--no-git")
    run = wfs("plan", "Chain", "--from", str(plan))
    assert run.code == 0, run.err
    return run.out.strip()


def test_plan_from_fills_defaults_in_canonical_order(project: Path, chain: str) -> None:
    assert chain == "WFS-chain"
    sub = read_json(task_file(project, chain, "IMPL-1.2"))
    assert sub == {
        "id": "IMPL-1.2",
        "title": "Second",
        "status": "pending",
        "meta": {"type": "feature", "agent": "@code-developer"},
        "context": {
            "depends_on": ["IMPL-1.1"],
            "parent": "IMPL-1",
            "requirements": [],
            "focus_paths": [],
            "acceptance": [],
        },
        "flow_control": {"pre_analysis": [], "implementation_approach": []},
    }
    assert read_json(task_file(project, chain, "IMPL-1"))["status"] == "container"
    session = read_json(project / ".workflow" / chain / "workflow-session.json")
    assert session["plan"] == {"overview": "Chain", "requirements": ["R1"]}
    assert session["type"] == "medium"  # 5 tasks


def test_plan_from_stdin_with_a_bare_task_array(project: Path) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", "Bare", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "Only"}]))
    assert (run.code, run.out) == (0, "WFS-bare\n")
    assert read_json(task_file(project, "WFS-bare", "IMPL-1"))["status"] == "pending"


def test_agent_assignment_follows_type_and_title(project: Path) -> None:
    plan = write(
        project / "p.json",
        [
            {"id": "IMPL-1", "title": "Design the API"},
            {"id": "IMPL-2", "title": "Implement the API"},
            {"id": "IMPL-3", "title": "Run the integration tests"},
            {"id": "IMPL-4", "title": "Review the API", "meta": {"type": "feature"}},
            {"id": "IMPL-5", "title": "Anything", "meta": {"type": "test-fix"}},
        ],
    )
    wfs("init", "--no-git")
    wfs("plan", "Agents", "--from", str(plan))
    agents = [
        read_json(task_file(project, "WFS-agents", f"IMPL-{n}"))["meta"]["agent"]
        for n in range(1, 6)
    ]
    assert agents == [
        "@action-planning-agent",
        "@code-developer",
        "@test-fix-agent",
        "@universal-executor",
        "@test-fix-agent",
    ]


def test_one_bad_task_writes_nothing_and_reports_every_problem(project: Path) -> None:
    plan = write(
        project / "plan.json",
        {
            "tasks": [
                {"id": "IMPL-1", "title": "Fine"},
                {
                    "id": "IMPL-2",
                    "title": "Bad",
                    "context": {"depends_on": ["IMPL-9"], "focus_paths": ["src/*.ts"]},
                },
                {"id": "IMPL-1.2.3", "title": "Too deep"},
            ]
        },
    )
    wfs("init", "--no-git")
    before = tree_listing(project)
    run = wfs("plan", "Broken", "--from", str(plan))
    assert run.code == 2
    assert run.err.startswith("wfs: error: " + str(plan) + ": ")
    assert "nothing was written" in run.err
    assert f"{plan}#/tasks/1/context/depends_on/0: depends-on:" in run.err
    assert f"{plan}#/tasks/1/context/focus_paths/0: focus-paths:" in run.err
    assert f"{plan}#/tasks/2/id: id-format:" in run.err
    assert tree_listing(project) == before


def test_malformed_plan_names_line_and_column(project: Path) -> None:
    (project / "plan.json").write_text('{"tasks": [\n  {"id": "IMPL-1",}\n]}')
    wfs("init", "--no-git")
    run = wfs("plan", "Broken", "--from", "plan.json")
    assert run.code == 2
    assert run.err.startswith("wfs: error: plan.json:2:18: invalid JSON: ")
    assert tree_listing(project / ".workflow") == [".gitignore"]


def test_replan_keeps_the_status_of_existing_tasks(project: Path, chain: str) -> None:
    assert wfs("task", "status", "IMPL-3", "completed").code == 0
    more = write(
        project / "more.json",
        [
            {"id": "IMPL-3", "title": "Independent, renamed"},
            {"id": "IMPL-4", "title": "New"},
        ],
    )
    run = wfs("plan", "--session", chain, "--from", str(more), "--json")
    assert run.json() == {"session": chain, "added": 1, "replaced": 1}
    impl3 = read_json(task_file(project, chain, "IMPL-3"))
    assert (impl3["title"], impl3["status"]) == ("Independent, renamed", "completed")
    assert read_json(task_file(project, chain, "IMPL-4"))["status"] == "pending"


def test_readiness_respects_dependencies_containers_and_parents(project: Path, chain: str) -> None:
    assert [t["id"] for t in wfs("next", "--all", "--json").json()["tasks"]] == [
        "IMPL-1.1",
        "IMPL-3",
    ]
    assert wfs("next").out == "  [ ] IMPL-1.1  First  pending\n"
    wfs("task", "status", "IMPL-1.1", "completed")
    assert [t["id"] for t in wfs("next", "--all", "--json").json()["tasks"]] == [
        "IMPL-1.2",
        "IMPL-3",
    ]
    wfs("task", "status", "IMPL-1.2", "completed")
    # A dependency on a container is met when all of its children are completed.
    ready = wfs("task", "list", "--ready", "--json").json()["tasks"]
    assert [t["id"] for t in ready] == ["IMPL-2", "IMPL-3"]
    listed = {t["id"]: t["status"] for t in wfs("task", "list", "--json").json()["tasks"]}
    assert listed["IMPL-1"] == "completed"


def test_container_status_is_derived(project: Path, chain: str) -> None:
    wfs("task", "status", "IMPL-1.1", "active")
    assert wfs("task", "show", "IMPL-1", "--json").json()["status"] == "active"
    wfs("task", "status", "IMPL-1.1", "blocked")
    assert wfs("task", "show", "IMPL-1", "--json").json()["status"] == "blocked"
    assert (
        wfs("task", "list", "--status", "blocked", "--json").json()["tasks"][0]["id"] == "IMPL-1.1"
    )


def test_completing_a_container_directly_is_refused(project: Path, chain: str) -> None:
    run = wfs("task", "status", "IMPL-1", "completed")
    assert run.code == 2
    assert run.err == (
        "wfs: error: IMPL-1 is a container; cannot set its status to completed: "
        "its status is derived from its subtasks IMPL-1.1, IMPL-1.2\n"
    )


def test_unknown_task_suggests_close_ids(project: Path, chain: str) -> None:
    run = wfs("task", "show", "IMPL-1.3")
    assert run.code == 2
    assert (
        run.err == "wfs: error: unknown task 'IMPL-1.3'; did you mean IMPL-1.2, IMPL-1.1, IMPL-3?\n"
    )


def test_hostile_task_id_is_refused(project: Path, chain: str) -> None:
    run = wfs("task", "show", "../../etc/passwd")
    assert run.code == 2
    assert run.err.startswith("wfs: error: invalid task id '../../etc/passwd'")


def test_split_creates_subtasks_with_parent_and_inherited(project: Path, chain: str) -> None:
    subs = write(project / "subs.json", [{"title": "Part A"}, {"title": "Part B"}])
    # IMPL-3 carries requirements handed down to its subtasks.
    wfs("task", "update", "IMPL-3", "--requirement", "Use JWT")
    run = wfs("task", "split", "IMPL-3", "--from", str(subs))
    assert (run.code, run.out) == (0, "IMPL-3.1\nIMPL-3.2\n")
    part = read_json(task_file(project, chain, "IMPL-3.2"))
    assert part["context"]["parent"] == "IMPL-3"
    assert part["context"]["inherited"] == {"from": "IMPL-3", "context": ["Use JWT"]}
    assert read_json(task_file(project, chain, "IMPL-3"))["status"] == "container"


def test_split_refuses_a_third_level(project: Path, chain: str) -> None:
    subs = write(project / "subs.json", [{"title": "Too deep"}])
    run = wfs("task", "split", "IMPL-1.1", "--from", str(subs))
    assert run.code == 2
    assert run.err == "wfs: error: IMPL-1.1 is a subtask; tasks have at most 2 levels (IMPL-N.M)\n"


def test_task_add_and_update(project: Path, chain: str) -> None:
    run = wfs("task", "add", "--title", "Docs", "--type", "docs", "--depends-on", "IMPL-2")
    assert (run.code, run.out) == (0, "IMPL-4\n")
    assert wfs("task", "add", "--title", "Third", "--parent", "IMPL-1").out == "IMPL-1.3\n"
    assert wfs("task", "update", "IMPL-4", "--title", "Docs v2").code == 0
    task = read_json(task_file(project, chain, "IMPL-4"))
    assert task["title"] == "Docs v2"
    assert task["context"]["depends_on"] == ["IMPL-2"]
    bad = wfs("task", "update", "IMPL-4", "--depends-on", "IMPL-4")
    assert bad.code == 2 and "depends-on" in bad.err
    assert read_json(task_file(project, chain, "IMPL-4"))["context"]["depends_on"] == ["IMPL-2"]


@pytest.mark.slow
def test_complexity_is_recomputed_and_never_lowered(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Grow", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "One"}]))
    session = project / ".workflow/WFS-grow/workflow-session.json"
    assert read_json(session)["type"] == "simple"
    for n in range(4):
        wfs("task", "add", "--title", f"T{n}")
    assert read_json(session)["type"] == "medium"
    for n in range(11):
        wfs("task", "add", "--title", f"U{n}")
    assert read_json(session)["type"] == "complex"  # 16 tasks
    started = wfs("plan", "Big", "--type", "complex", "--empty")
    assert started.code == 0
    wfs("task", "add", "--title", "Only one")
    assert read_json(project / ".workflow/WFS-big/workflow-session.json")["type"] == "complex"


def test_jwt_seed_plan_validates_cleanly(project: Path) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", "JWT Auth", "--from", str(JWT_PLAN))
    assert run.code == 0, run.err
    check = wfs("validate")
    assert (check.code, check.out) == (0, "OK: WFS-jwt-auth\n")


def test_completing_a_task_is_a_one_line_json_diff(project: Path, chain: str) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "plan"],
        cwd=project,
        check=True,
    )
    wfs("task", "status", "IMPL-3", "completed")
    diff = subprocess.run(
        ["git", "diff", "-U0", "--", f".workflow/{chain}/.task"],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    changed = [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed == ['-  "status": "pending",', '+  "status": "completed",']
    todo = subprocess.run(
        ["git", "diff", "-U0", "--", f".workflow/{chain}/TODO_LIST.md"],
        cwd=project,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    todo_changed = [
        line
        for line in todo.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert todo_changed == [
        "-- [ ] **IMPL-3**: Independent → [📋](./.task/IMPL-3.json)",
        "+- [x] **IMPL-3**: Independent → [📋](./.task/IMPL-3.json) | [✅](./.summaries/IMPL-3-summary.md)",
    ]


def test_legacy_approach_warns_and_migrate_converts_it(project: Path) -> None:
    legacy = [
        {
            "id": "IMPL-1",
            "title": "Old style",
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": {
                    "task_description": "Do it",
                    "modification_points": ["a"],
                    "logic_flow": ["b"],
                },
            },
        }
    ]
    wfs("init", "--no-git")
    sid = wfs("plan", "Legacy", "--from", "-", input=json.dumps(legacy)).out.strip()
    # wfs plan writes the canonical form; a file another tool wrote keeps the v1 object.
    assert wfs("validate").out == f"OK: {sid}\n"
    written = read_json(task_file(project, sid, "IMPL-1"))
    written["flow_control"]["implementation_approach"] = legacy[0]["flow_control"][
        "implementation_approach"
    ]
    task_file(project, sid, "IMPL-1").write_text(json.dumps(written))
    check = wfs("validate")
    assert check.code == 0
    assert "legacy-approach: warning:" in check.out
    run = wfs("migrate")
    assert (run.code, run.out) == (0, f"{sid}: migrated IMPL-1\n")
    approach = read_json(task_file(project, sid, "IMPL-1"))["flow_control"][
        "implementation_approach"
    ]
    assert isinstance(approach, list) and approach[0]["description"] == "Do it"
    assert wfs("validate").out == f"OK: {sid}\n"
    assert wfs("migrate").out == "Nothing to migrate.\n"


@pytest.mark.slow
def test_an_edit_is_refused_for_the_errors_it_brings_not_for_older_ones(project: Path) -> None:
    """An edit checks the tasks it changes and the rules across the set: a problem that
    was already there elsewhere does not block it, a new one does (naming file and place),
    and so does one it makes in another task (a dependency cycle through the set)."""
    tasks = [
        {"id": "IMPL-1", "title": "One"},
        {"id": "IMPL-2", "title": "Two", "context": {"depends_on": ["IMPL-1"]}},
        {"id": "IMPL-3", "title": "Three"},
    ]
    wfs("init", "--no-git")
    assert wfs("plan", "Edits", "--from", "-", input=json.dumps(tasks)).code == 0
    folder = project / ".workflow" / "WFS-edits" / ".task"
    broken = json.loads((folder / "IMPL-3.json").read_text())
    broken["context"] = {"focus_paths": ["src/*.ts"]}  # a glob: an error of its own
    (folder / "IMPL-3.json").write_text(json.dumps(broken))
    assert wfs("validate").code == 1

    added = wfs("task", "add", "--title", "Four", "--depends-on", "IMPL-2")
    assert (added.code, added.out) == (0, "IMPL-4\n"), added.err
    assert wfs("task", "update", "IMPL-1", "--title", "One, renamed").code == 0

    before = tree_listing(project), (folder / "IMPL-1.json").read_bytes()
    own = wfs("task", "update", "IMPL-1", "--focus-path", "lib/*.py")
    assert own.code == 2
    assert ".task/IMPL-1.json#/context/focus_paths/0: focus-paths:" in own.err
    assert "IMPL-3" not in own.err and "nothing was written" in own.err
    cycle = wfs("task", "update", "IMPL-1", "--depends-on", "IMPL-4")
    assert cycle.code == 2
    assert "cycle" in cycle.err and "nothing was written" in cycle.err
    assert (tree_listing(project), (folder / "IMPL-1.json").read_bytes()) == before
