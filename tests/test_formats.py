"""Task formats in use: one reader turns each into the seed form, losslessly (wfs/formats.py).

Readiness, views, the engine and `wfs migrate` all read through it, so a dependency is a
dependency wherever a file writes it, and a flat task runs what it holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import CORPUS, read_json, wfs

from wfs.formats import FLAT, SEED, SEED_V1, canonical, dependencies, task_format


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


MISSING = f"the corpus is not available at {CORPUS} (it is kept outside the repository)"


def corpus_tasks() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    files = sorted((CORPUS / "ccw").rglob("*.json"))
    files += sorted((CORPUS / "realworld").glob("*/.workflow/**/.task/*.json"))
    return [p.relative_to(CORPUS).as_posix() for p in files]


def leaves(value: Any) -> list[str]:
    """Every scalar in a JSON value, as JSON text (where it is does not matter)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in leaves(item)] + [
            json.dumps(k) for k in value
        ]
    if isinstance(value, list):
        return [leaf for item in value for leaf in leaves(item)]
    return [json.dumps(value)]


# Keys the seed form renames, or builds anew around the values it moves.
RENAMED = {
    "task_id", "depends_on", "dependencies", "blocked_by", "acceptance_criteria",
    "convergence", "criteria", "implementation", "implementation_steps", "file", "files",
    "target_files", "focus_paths", "requirements", "acceptance", "pre_analysis", "type",
    "inherited", "shared_context", "status", "task_description",
}  # fmt: skip
# Values read as their seed spelling (the original status is kept in `execution`).
MAPPED = {"in_progress", "failed", "skipped", "continue", "skip", "warn"}


@pytest.mark.parametrize("name", corpus_tasks())
def test_every_corpus_task_reads_into_the_seed_form_losslessly_and_round_trips(name: str) -> None:
    raw = (CORPUS / name).read_bytes()
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        pytest.skip("broken on purpose in its repository (validate names it)")
    if not isinstance(data, dict):
        pytest.skip("not a task object")
    before = json.dumps(data, sort_keys=True)
    read = canonical(data)
    assert json.dumps(data, sort_keys=True) == before  # the input is left alone
    seed = read.task
    assert task_format(seed) == SEED
    order = [k for k in ("id", "title", "status", "meta", "context", "flow_control") if k in seed]
    assert list(seed)[: len(order)] == order  # seed fields first, in seed order
    # Written, read back and read again: the same, with nothing left to move.
    again = canonical(orjson.loads(orjson.dumps(seed)))
    assert again.task == seed and again.moves == []
    # Nothing is lost: every value of the file is still there (keys the seed form names
    # differently aside), and the dependencies are the same set.
    kept = leaves(seed)
    for leaf in leaves(data):
        if leaf.strip('"') in RENAMED | MAPPED:
            continue
        assert leaf in kept, leaf
    assert dependencies(seed) == dependencies(data)


def task_dir(project: Path, sid: str) -> Path:
    return project / ".workflow" / sid / ".task"


def session_with(project: Path, tasks: dict[str, dict[str, Any]]) -> str:
    """A session whose task files are written as given (any format)."""
    plan = [{"id": tid, "title": tid} for tid in tasks]
    wfs("init", "--no-git")
    sid = wfs("plan", "Formats", "--from", "-", input=json.dumps(plan)).out.strip()
    for tid, data in tasks.items():
        (task_dir(project, sid) / f"{tid}.json").write_text(json.dumps(data))
    assert wfs("render").code == 0
    return sid


@pytest.mark.slow
def test_readiness_respects_dependencies_in_every_place_they_are_written(project: Path) -> None:
    tasks = {
        "IMPL-1": {"id": "IMPL-1", "title": "base", "status": "pending"},
        "IMPL-2": {"id": "IMPL-2", "title": "context", "status": "pending",
                   "context": {"depends_on": ["IMPL-1"]}},
        "IMPL-3": {"id": "IMPL-3", "title": "top", "status": "pending", "depends_on": ["IMPL-1"]},
        "IMPL-4": {"id": "IMPL-4", "title": "meta", "status": "pending",
                   "meta": {"depends_on": ["IMPL-1"]}},
        "IMPL-5": {"id": "IMPL-5", "title": "dependencies", "status": "pending",
                   "dependencies": ["IMPL-1"]},
        "IMPL-6": {"id": "IMPL-6", "title": "meta.dependencies", "status": "pending",
                   "meta": {"dependencies": ["IMPL-1"]}},
        "IMPL-7": {"task_id": "IMPL-7", "title": "merged", "status": "pending",
                   "depends_on": ["IMPL-2"], "dependencies": ["IMPL-3"],
                   "context": {"depends_on": ["IMPL-4"]}},
    }  # fmt: skip
    session_with(project, tasks)
    status = wfs("status", "--json").json()
    assert status["counts"]["pending"] == 7
    assert status["ready"] == ["IMPL-1"]
    rows = {r["id"]: r["depends_on"] for r in wfs("task", "list", "--json").json()["tasks"]}
    assert rows["IMPL-7"] == ["IMPL-4", "IMPL-2", "IMPL-3"]
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    assert wfs("status", "--json").json()["ready"] == [f"IMPL-{n}" for n in range(2, 7)]
    for tid in ("IMPL-2", "IMPL-3"):
        assert wfs("task", "status", tid, "completed").code == 0
    assert "IMPL-7" not in wfs("next", "--all", "--json").out  # still waits on IMPL-4
    assert wfs("task", "status", "IMPL-4", "completed").code == 0
    assert [t["id"] for t in wfs("next", "--all", "--json").json()["tasks"]] == [
        "IMPL-5",
        "IMPL-6",
        "IMPL-7",
    ]
    # The files keep their own format: a status change writes the status, nothing else.
    assert read_json(
        task_dir(project, wfs("status", "--json").json()["session"]) / "IMPL-3.json"
    ) == {
        **tasks["IMPL-3"],
        "status": "completed",
    }


def test_statuses_of_other_tools_map_to_readiness_and_views(project: Path) -> None:
    seed = {"meta": {}, "context": {}, "flow_control": {}}
    tasks = {
        "IMPL-1": {"id": "IMPL-1", "title": "started elsewhere", "status": "in_progress", **seed},
        "IMPL-2": {"id": "IMPL-2", "title": "failed elsewhere", "status": "failed", **seed},
        "IMPL-3": {"id": "IMPL-3", "title": "skipped: its dependency failed",
                   "status": "skipped", "depends_on": ["IMPL-2"], **seed},
        "IMPL-4": {"id": "IMPL-4", "title": "skipped, nothing in the way", "status": "skipped",
                   **seed},
    }  # fmt: skip
    sid = session_with(project, tasks)
    status = wfs("status", "--json").json()
    # in_progress is active (paused), failed is blocked, skipped is pending again
    assert status["counts"] == {
        "pending": 2, "active": 1, "completed": 0, "blocked": 1, "container": 0
    }  # fmt: skip
    assert status["ready"] == ["IMPL-4"]  # IMPL-3 waits for the failed IMPL-2
    assert [(s["id"], s["state"]) for s in status["stopped"]] == [
        ("IMPL-1", "paused"),
        ("IMPL-2", "blocked"),
    ]
    todo = (project / ".workflow" / sid / "TODO_LIST.md").read_text()
    assert "- [ ] **IMPL-1**: started elsewhere → [📋](./.task/IMPL-1.json) ⏳ active\n" in todo
    assert "- [ ] **IMPL-2**: failed elsewhere → [📋](./.task/IMPL-2.json) 🚫 blocked\n" in todo
    # The failed task resumes like a blocked one; its dependent becomes ready after.
    run = wfs("execute", "--resume", "IMPL-2", "--output", "fixed it")
    assert run.code == 0, run.err
    assert wfs("status", "--json").json()["ready"] == ["IMPL-3", "IMPL-4"]
    assert wfs("validate").out.splitlines() == [
        f'.workflow/{sid}/.task/IMPL-1.json#/status: format: warning: status "in_progress" is '
        'read as "active"; `wfs migrate` writes "active"',
        f'.workflow/{sid}/.task/IMPL-3.json#/status: format: warning: status "skipped" is read '
        'as "pending"; `wfs migrate` writes "pending"',
        f".workflow/{sid}/.task/IMPL-3.json#/depends_on: format: warning: depends_on is read as "
        "context.depends_on; `wfs migrate` moves it",
        f'.workflow/{sid}/.task/IMPL-4.json#/status: format: warning: status "skipped" is read '
        'as "pending"; `wfs migrate` writes "pending"',
    ]


def test_migrate_records_what_a_status_mapping_would_lose(project: Path) -> None:
    tasks = {
        "IMPL-1": {"id": "IMPL-1", "title": "t", "status": "failed",
                   "result": {"success": False, "error": "tests failed"}},
    }  # fmt: skip
    sid = session_with(project, tasks)
    assert wfs("migrate").code == 0
    written = read_json(task_dir(project, sid) / "IMPL-1.json")
    assert written["status"] == "blocked"
    assert written["execution"] == {"previous_status": "failed", "blocked_reason": "tests failed"}
    assert written["result"] == tasks["IMPL-1"]["result"]


FLAT_TASK = {
    "id": "IMPL-1",
    "title": "Flat task",
    "description": "Add the greeting",
    "type": "feature",
    "status": "pending",
    "depends_on": [],
    "focus_paths": ["src"],
    "convergence": {"criteria": ["greeting printed"], "verification": "run it"},
    "files": [{"path": "src/greet.txt", "action": "create", "changes": ["add"]}],
    "pre_analysis": [
        {
            "step": "look",
            "action": "See the folder",
            "command": "bash(ls src)",
            "output_to": "listing",
        }
    ],
    "implementation": [
        {
            "step": 1,
            "title": "Write",
            "description": "write",
            "command": "bash(echo hi > src/greet.txt)",
        },
        "Check [listing] and explain",
    ],
    "cli_execution": {"id": "WFS-x-IMPL-1", "strategy": "new"},
    "meta": {"agent": "@code-developer", "execution_config": {"method": "agent"}},
    "context_package_path": ".workflow/WFS-{session}/.process/context-package.json",
}


def test_the_flat_format_is_read_and_every_field_lands_in_its_seed_place() -> None:
    assert task_format(FLAT_TASK) == FLAT
    seed = canonical(FLAT_TASK).task
    assert seed["meta"] == {
        "agent": "@code-developer",
        "execution_config": {"method": "agent"},
        "type": "feature",
    }
    assert seed["context"] == {
        "depends_on": [],
        "focus_paths": ["src"],
        "acceptance": ["greeting printed"],
    }
    flow = seed["flow_control"]
    assert flow["target_files"] == ["src/greet.txt"]
    assert flow["pre_analysis"] == FLAT_TASK["pre_analysis"]
    assert [s["step"] for s in flow["implementation_approach"]] == [1, 2]
    assert flow["implementation_approach"][1] == {
        "step": 2,
        "title": "Check [listing] and explain",
        "description": "Check [listing] and explain",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": "step_2_output",
    }
    # what has no seed place stays where it was
    for key in ("description", "files", "cli_execution", "context_package_path"):
        assert seed[key] == FLAT_TASK[key]
    assert seed["convergence"] == {"verification": "run it"}


def test_a_flat_task_runs_what_it_holds(project: Path, tmp_path: Path) -> None:
    sid = session_with(project, {"IMPL-1": FLAT_TASK})
    (project / "src").mkdir()
    (project / "src/README").write_text("")
    agent = tmp_path / "agent"
    agent.write_text('#!/bin/sh\ncat > "$0.brief"\necho "Explained."\n')
    agent.chmod(0o755)
    run = wfs("execute", "--agent", str(agent))
    assert run.code == 0, run.err
    assert (project / "src/greet.txt").read_text() == "hi\n"
    [step] = json.loads((tmp_path / "agent.brief").read_text())["steps"]
    assert step["key"] == "implementation/2"
    assert step["description"] == "Check README and explain"  # [listing] filled in
    written = read_json(task_dir(project, sid) / "IMPL-1.json")
    assert written == {**FLAT_TASK, "status": "completed", "execution": written["execution"]}


def test_seed_v1_and_other_object_approaches_run_as_one_step() -> None:
    v1 = {
        "id": "IMPL-1", "title": "Old", "status": "pending", "meta": {}, "context": {},
        "flow_control": {"implementation_approach": {"task_description": "Do it",
                                                     "logic_flow": ["a"]}},
    }  # fmt: skip
    assert task_format(v1) == SEED_V1
    [step] = canonical(v1).task["flow_control"]["implementation_approach"]
    assert (step["description"], step["logic_flow"]) == ("Do it", ["a"])
    phases = {
        **v1,
        "flow_control": {
            "implementation_approach": {"strategy": "E2E first", "phases": [{"phase": "4.1"}]}
        },
    }
    [step] = canonical(phases).task["flow_control"]["implementation_approach"]
    assert (step["title"], step["description"], step["phases"]) == (
        "Old",
        "E2E first",
        [{"phase": "4.1"}],
    )


def test_task_id_is_an_alias_of_id_and_files_keep_their_spelling(project: Path) -> None:
    tasks = {"IMPL-1": {"task_id": "IMPL-1", "title": "Aliased", "status": "pending"}}
    sid = session_with(project, tasks)
    assert [t["id"] for t in wfs("task", "list", "--json").json()["tasks"]] == ["IMPL-1"]
    assert wfs("task", "show", "IMPL-1", "--json").json()["task"]["task_id"] == "IMPL-1"
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    assert read_json(task_dir(project, sid) / "IMPL-1.json") == {
        "task_id": "IMPL-1",
        "title": "Aliased",
        "status": "completed",
    }
    assert wfs("migrate").out == f"{sid}: migrated IMPL-1\n"
    written = read_json(task_dir(project, sid) / "IMPL-1.json")
    assert "task_id" not in written and written["id"] == "IMPL-1"
    assert wfs("validate").out == f"OK: {sid}\n"
