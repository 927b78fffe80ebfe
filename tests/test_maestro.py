"""Maestro-Flow sessions: wfs names them, imports one losslessly and runs it as written.

The fixture `tests/fixtures/maestro/` is a Maestro-Flow project as its documentation
lays it out: `.workflow/sessions/<YYYYMMDD>-<slug>/` with `session.json`, a plan run
`runs/<YYYYMMDD>-<NNN>-plan/` holding `run.json`, `report.md`, `outputs/plan.json`
(`task_ids`, `waves`) and `outputs/tasks/TASK-NNN.json`, one task in each shape the
documentation gives: the full task template, the plan-task/1.0 skeleton (`deps`,
`convergence_criteria`, `verify`), and the planner's form (status and wave in `meta`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import needs_bash, read_json, result_line, tree_listing, wfs, wfs_process
from git_helpers import commit_all, git, git_env


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


FIXTURE = Path(__file__).resolve().parent / "fixtures" / "maestro"
NAME = "20260301-auth-flow"
SESSION = f".workflow/sessions/{NAME}"
PLAN_RUN = f"{SESSION}/runs/20260301-001-plan"
TASKS = f"{PLAN_RUN}/outputs/tasks"
PLAN = f"sessions/{NAME}"  # the plan's name: where it is under .workflow/
WAITING = f"  {PLAN} (Maestro-Flow session): 0 of 4 tasks completed; ready: TASK-001, TASK-002\n"
RUN_ALL = "  (`wfs execute --all` runs each plan with tasks to do, in a wfs session of its own)\n"
LISTING = f"Maestro-Flow plans:\n{WAITING}{RUN_ALL}"
SID = "WFS-auth-flow"
IDS = {"TASK-001": "IMPL-1", "TASK-002": "IMPL-2", "TASK-003": "IMPL-3", "TASK-004": "IMPL-4"}
# Every command the tasks give as a check, in the order the tasks run.
CHECKS = [
    "pytest tests/test_token.py -q",  # TASK-001 convergence.verification
    "pytest tests/test_token.py",  # TASK-001 test.commands
    "npm run lint",  # TASK-002 verify (plan-task/1.0)
    "npm test -- --grep settings",
    "pytest tests/test_guard.py -q",  # TASK-003 convergence.verification
    "npm run docs:check",  # TASK-004 test.commands (its verification is words for a person)
]
STANDINS = ("pytest", "npm")

__all__ = ["git_env"]  # the fixture, used by name


@pytest.fixture
def maestro(project: Path) -> Path:
    """The project holding the Maestro-Flow fixture."""
    shutil.copytree(FIXTURE / ".workflow", project / ".workflow")
    return project


def fingerprints(root: Path) -> dict[str, str]:
    """Every file and folder under `root`, with a digest of each file's bytes."""
    return {
        p.relative_to(root).as_posix(): (
            hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
        )
        for p in sorted(root.rglob("*"))
    }


def source(name: str) -> dict[str, Any]:
    """A task file of the fixture, as Maestro wrote it."""
    data: dict[str, Any] = read_json(FIXTURE / TASKS / name)
    return data


def task(project: Path, tid: str) -> dict[str, Any]:
    data: dict[str, Any] = read_json(project / ".workflow" / SID / ".task" / f"{tid}.json")
    return data


# ---------------------------------------------------------------- before the import


def test_a_project_with_only_maestro_sessions_names_them_and_their_import(maestro: Path) -> None:
    listed = wfs("session", "list")
    assert (listed.code, listed.out, listed.err) == (0, LISTING, "")
    status = wfs("status")
    assert (status.code, status.out) == (0, f"No active session.\n{LISTING}")
    checked = wfs("validate")
    assert (checked.code, checked.out) == (0, f"OK: {PLAN}\n{LISTING}")
    assert wfs("validate", "--all").out == f"OK: {PLAN}\n{LISTING}"
    shown = wfs("next")
    assert (shown.code, shown.out) == (0, LISTING)
    refused = wfs("task", "list")
    assert refused.code == 2
    assert refused.err == (
        "wfs: error: no session yet: `wfs plan TOPIC --empty` starts one with no tasks (then "
        "`wfs task add`); `wfs plan --help` shows the other ways to plan; this project has "
        f"Maestro-Flow plans: {PLAN} (`wfs execute --all` runs them; `wfs status` lists them)\n"
    )


def test_the_json_of_session_list_status_and_validate_names_each_maestro_session(
    maestro: Path,
) -> None:
    row = {
        "name": PLAN,
        "kind": "session",
        "path": SESSION,
        "import": f"wfs import {SESSION}",
        "imported_as": None,
        "tasks": 4,
        "completed": 0,
        "ready": ["TASK-001", "TASK-002"],
    }
    assert wfs("--json", "session", "list").json() == {"sessions": [], "maestro": [row]}
    assert wfs("--json", "status").json() == {"session": None, "maestro": [row]}
    assert wfs("--json", "next").json() == {"session": None, "maestro": [row]}
    assert wfs("--json", "validate").json() == {
        "sessions": [],
        "problems": [],
        "errors": 0,
        "warnings": 0,
        "maestro": [row],
    }


def named_commands(text: str) -> list[list[str]]:
    """Every wfs command a message names in backquotes, as argv (wfs itself dropped)."""
    found = [shlex.split(c) for c in re.findall(r"`(wfs [^`]+)`", text)]
    assert found, text
    assert all(argv[0] == "wfs" for argv in found)
    return [argv[1:] for argv in found]


@pytest.mark.parametrize("where", ["root", "subfolder"])
def test_the_commands_each_message_names_work_as_printed(
    maestro: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    if where == "subfolder":
        (maestro / "src" / "auth").mkdir(parents=True)
        monkeypatch.chdir(maestro / "src" / "auth")
    shown = [
        wfs("session", "list").out,
        wfs("status").out,
        wfs("validate").out,
        wfs("next").out,
        wfs("task", "list").err,
    ]
    named = {tuple(argv) for text in shown for argv in named_commands(text)}
    assert named == {
        ("execute", "--all"),
        ("status",),
        ("plan", "TOPIC", "--empty"),
        ("task", "add"),
        ("plan", "--help"),
    }
    assert wfs("status").out == f"No active session.\n{LISTING}"
    dry = wfs("execute", "--all", "--dry-run")
    assert (dry.code, dry.out.splitlines()[:3]) == (0, LISTING.splitlines())
    assert "wfs --session ID execute --dry-run" in dry.out
    # The import each --json row names, as printed: the session it makes, then nothing more.
    command = shlex.split(wfs("--json", "status").json()["maestro"][0]["import"])
    assert command == ["wfs", "import", SESSION]
    first = wfs(*command[1:])
    assert (first.code, first.out.splitlines()[0]) == (0, SID)
    again = wfs(*command[1:])
    assert (again.code, again.out) == (0, f"{SID} (already imported from {SESSION}; unchanged)\n")
    assert wfs("session", "list").out.endswith(
        f"  {PLAN} (Maestro-Flow session): 0 of 4 tasks completed, in {SID}\n"
    )
    assert "wfs import" not in wfs("status").out + wfs("validate").out


def test_a_maestro_session_without_a_plan_is_not_listed(maestro: Path) -> None:
    (maestro / ".workflow/sessions/20260302-idea/runs/20260302-001-analyze/outputs").mkdir(
        parents=True
    )
    (maestro / ".workflow/sessions/index.json").write_text("{}\n")
    assert wfs("session", "list").out == LISTING


def test_status_of_an_active_session_names_the_maestro_sessions_not_yet_imported(
    maestro: Path,
) -> None:
    wfs("init", "--no-git")
    assert wfs("plan", "Other work", "--empty").code == 0
    status = wfs("status")
    assert status.code == 0
    imports = "  (`wfs import PATH` makes a wfs session of one)\n"
    assert status.out.endswith(f"Blocked:  -\nMaestro-Flow plans:\n{WAITING}{imports}")
    assert wfs("--json", "status").json()["maestro"][0]["name"] == PLAN
    assert wfs("session", "list").out == (
        f"* WFS-other-work  active  PLAN  simple  Other work\nMaestro-Flow plans:\n{WAITING}{imports}"
    )


# ---------------------------------------------------------------- the import


def test_import_makes_a_session_with_ids_in_wave_order_and_writes_nothing_of_maestro(
    maestro: Path,
) -> None:
    before = fingerprints(maestro / ".workflow/sessions")
    imported = wfs("import", SESSION)
    assert imported.code == 0, imported.err
    pairs = ", ".join(f"{a} -> {b}" for a, b in IDS.items())
    assert imported.out == f"{SID}\n  4 tasks from {SESSION}: {pairs}\n"
    assert fingerprints(maestro / ".workflow/sessions") == before
    assert tree_listing(maestro / ".workflow" / SID) == [
        ".task",
        ".task/IMPL-1.json",
        ".task/IMPL-2.json",
        ".task/IMPL-3.json",
        ".task/IMPL-4.json",
        "IMPL_PLAN.md",
        "TODO_LIST.md",
        "workflow-session.json",
    ]
    session = read_json(maestro / ".workflow" / SID / "workflow-session.json")
    record = session["imported_from"]
    assert session["session_id"] == SID
    assert session["project"] == "Token login for the API"  # session.json's intent
    assert session["plan"] == {
        "overview": "Issue signed tokens on login and check them on protected routes"
    }
    assert session["status"] == "active"
    assert record["format"] == "Maestro-Flow"
    assert record["session"] == SESSION
    assert record["run"] == "20260301-001-plan"
    assert record["plan_file"] == f"{PLAN_RUN}/outputs/plan.json"
    assert record["ids"] == IDS
    assert record["waves"] == [["IMPL-1", "IMPL-2"], ["IMPL-3"], ["IMPL-4"]]
    assert record["plan"] == read_json(FIXTURE / PLAN_RUN / "outputs/plan.json")
    assert record["fingerprint"].startswith("sha256:")
    assert (maestro / ".workflow" / f".active-{SID}").is_file()
    listed = wfs("session", "list")
    assert listed.out == (
        f"* {SID}  active  PLAN  simple  Token login for the API\n"
        f"Maestro-Flow plans:\n  {PLAN} (Maestro-Flow session): 0 of 4 tasks completed, in {SID}\n"
    )
    assert wfs("validate").out == f"OK: {SID}\n" + listed.out.split("\n", 1)[1]


# Where the canonical form keeps what a Maestro file writes at another place (the rest
# stays at its own place): `wfs import` writes what `wfs migrate` would.
CANONICAL_PLACES = {
    "type": ("meta", "type"),
    "focus_paths": ("context", "focus_paths"),
    "depends_on": ("context", "depends_on"),
    "deps": ("context", "depends_on"),
    "convergence_criteria": ("context", "acceptance"),
    "implementation": ("flow_control", "implementation_approach"),
}


def at(data: Any, place: tuple[str, ...]) -> Any:
    for key in place:
        data = data[key]
    return data


def test_each_task_keeps_every_field_of_its_maestro_file_in_the_canonical_form(
    maestro: Path,
) -> None:
    assert wfs("import", NAME).code == 0
    for old, new in IDS.items():
        original, imported = source(f"{old}.json"), task(maestro, new)
        assert list(imported)[:6] == ["id", "title", "status", "meta", "context", "flow_control"]
        assert imported["id"] == new
        assert imported["meta"]["source_id"] == old
        for key, value in original.items():
            if key in ("id", "status", "meta", "verify"):
                continue
            if key in CANONICAL_PLACES:
                found = at(imported, CANONICAL_PLACES[key])
                if key == "implementation":  # each string step, as the step's description
                    assert [step["description"] for step in found] == value, old
                elif key in ("depends_on", "deps"):  # every id, mapped
                    assert [d for d in found if d in IDS.values()] == found
                    assert len(found) >= len(value)
                else:
                    assert all(item in found for item in value), (old, key)
            elif key == "convergence":
                criteria = value.get("criteria", [])
                assert all(c in imported["context"]["acceptance"] for c in criteria), old
                rest = {k: v for k, v in value.items() if k != "criteria"}
                assert imported.get("convergence", {}) == rest, old
            elif key == "files":  # kept as written, their paths the target files too
                paths = [f["path"] if isinstance(f, dict) else f for f in value]
                assert imported["flow_control"]["target_files"] == paths, old
                assert imported.get("files", value) == value, old
            else:
                assert imported[key] == value, (old, key)
        meta = {k: v for k, v in imported["meta"].items() if k not in ("source_id", "type")}
        assert meta == original.get("meta", {}), old
    assert wfs("validate").out.startswith(f"OK: {SID}\n")  # written as wfs writes: no warning


def test_the_ids_tasks_name_are_mapped_and_the_waves_add_their_order(maestro: Path) -> None:
    assert wfs("import", NAME).code == 0
    deps = {tid: task(maestro, tid)["context"]["depends_on"] for tid in IDS.values()}
    assert deps == {
        "IMPL-1": [],
        "IMPL-2": [],  # plan-task/1.0's `deps`
        "IMPL-3": ["IMPL-2", "IMPL-1"],  # wave 2 runs after all of wave 1
        "IMPL-4": ["IMPL-2", "IMPL-3"],  # wave 3: the one task of wave 2 it lists
    }
    ready = wfs("--json", "next", "--all").json()
    assert [t["id"] for t in ready["tasks"]] == ["IMPL-1", "IMPL-2"]


def test_plan_task_short_names_become_the_template_names(maestro: Path) -> None:
    assert wfs("import", NAME).code == 0
    imported = task(maestro, "IMPL-2")
    assert list(imported) == [
        "id",
        "title",
        "status",
        "meta",
        "context",
        "flow_control",
        "_meta",
        "description",
        "requirement_refs",
        "read_first",
        "test",
    ]
    assert imported["context"]["acceptance"] == [
        "src/config.py contains 'AUTH_SECRET'",
        "npm run lint exits 0",
    ]
    assert imported["test"] == {"commands": ["npm run lint", "npm test -- --grep settings"]}


def test_convergence_criteria_are_the_acceptance_criteria_of_the_plan(maestro: Path) -> None:
    assert wfs("import", NAME).code == 0
    plan = (maestro / ".workflow" / SID / "IMPL_PLAN.md").read_text()
    assert (
        "### IMPL-1: Token module\n"
        "- src/auth/token.py contains 'def make_token('\n"
        "- pytest tests/test_token.py exits 0\n"
    ) in plan
    assert "### IMPL-2: Login settings\n- src/config.py contains 'AUTH_SECRET'\n" in plan


def test_import_dry_run_lists_every_check_of_every_task(maestro: Path, tmp_path: Path) -> None:
    assert wfs("import", NAME).code == 0
    env = standins(tmp_path)
    for tid, checks in (("IMPL-1", CHECKS[:2]), ("IMPL-2", CHECKS[2:4]), ("IMPL-3", CHECKS[4:5])):
        shown = wfs("execute", tid, "--dry-run", env=env)
        assert shown.code == 0, shown.err
        assert [line.strip() for line in shown.out.splitlines() if "cli: " in line] == [
            f"cli: {c}" for c in checks
        ]


# ---------------------------------------------------------------- running it


def standins(tmp_path: Path) -> dict[str, str]:
    """A fake agent and stand-ins for the programs the checks call, first on PATH; each
    records its argv in `calls.log`, the agent each brief in `briefs/`."""
    bin_dir = tmp_path / "standins"
    if bin_dir.is_dir():
        return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "WFS_AGENT": "fake-agent"}
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    for name in STANDINS:
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\necho "{name}: ok"\n')
        tool.chmod(0o755)
    briefs = tmp_path / "briefs"
    briefs.mkdir()
    agent = bin_dir / "fake-agent"
    agent.write_text(
        "#!/bin/sh\n"
        f'n=$(ls "{briefs}" | wc -l)\n'
        f'cat > "{briefs}/brief-$((n + 1)).json"\n'
        "echo 'done by the fake agent'\n"
    )
    agent.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "WFS_AGENT": "fake-agent"}


@pytest.mark.slow
@needs_bash
@pytest.mark.skipif(sys.platform == "win32", reason="the stand-ins are shell scripts")
def test_an_imported_session_runs_to_completion_with_every_check(
    maestro: Path, tmp_path: Path, git_env: Path
) -> None:
    git(maestro, "init", "-q")
    commit_all(maestro, "A Maestro-Flow plan")
    before = fingerprints(maestro / ".workflow/sessions")
    env = standins(tmp_path)
    assert wfs_process("import", SESSION, cwd=maestro, env=env).code == 0
    ran = wfs_process("--json", "execute", "--all", cwd=maestro, env=env, timeout=300)
    assert ran.code == 0, ran.err
    result = result_line(ran.out)
    assert result["status"] == "completed"
    assert [(t["task"], t["status"]) for t in result["tasks"]] == [
        (tid, "completed") for tid in IDS.values()
    ]
    assert (tmp_path / "calls.log").read_text().splitlines() == CHECKS
    status = wfs_process("--json", "status", cwd=maestro).out
    summary = orjson.loads(status)
    assert summary["counts"] == {
        "pending": 0,
        "active": 0,
        "completed": 4,
        "blocked": 0,
        "container": 0,
    }
    assert summary["phase"] == "REVIEW"
    summaries = maestro / ".workflow" / SID / ".summaries"
    assert sorted(p.name for p in summaries.iterdir()) == [f"{t}-summary.md" for t in IDS.values()]
    first = (summaries / "IMPL-1-summary.md").read_text()
    assert first.startswith(
        "<!-- generated by wfs: the summary of IMPL-1, written when it completed -->\n"
        "# IMPL-1: Token module\n\n- **Status**: completed\n"
    )
    assert "| acceptance/1 | acceptance check 1 | done |" in first
    assert "| acceptance/2 | acceptance check 2 | done |" in first
    last = (summaries / "IMPL-4-summary.md").read_text()
    assert "| acceptance/1 | acceptance check 1 | done |" in last
    assert "acceptance/2" not in last  # its verification is words for a person, not a check
    # Each task went to the agent once, with its whole Maestro task and its dependencies.
    briefs = [read_json(p) for p in sorted((tmp_path / "briefs").iterdir())]
    assert [b["task"]["id"] for b in briefs] == list(IDS.values())
    assert briefs[0]["context"]["acceptance"] == source("TASK-001.json")["convergence"]["criteria"]
    assert briefs[0]["task"]["read_first"] == ["src/auth/__init__.py", "src/config.py"]
    assert [d["task"] for d in briefs[3]["dependencies"]] == ["IMPL-2", "IMPL-3"]
    assert fingerprints(maestro / ".workflow/sessions") == before
    assert git(maestro, "status", "--porcelain", "--", ".workflow/sessions").stdout == ""


# ---------------------------------------------------------------- again, and later runs


def test_importing_again_changes_nothing_while_the_maestro_files_are_unchanged(
    maestro: Path,
) -> None:
    assert wfs("import", SESSION).code == 0
    session_dir = maestro / ".workflow" / SID
    before = fingerprints(session_dir)
    again = wfs("import", NAME)
    assert (again.code, again.out) == (0, f"{SID} (already imported from {SESSION}; unchanged)\n")
    assert wfs("--json", "import", SESSION).json()["imported"] is False
    assert fingerprints(session_dir) == before
    assert sorted(
        p.name for p in (maestro / ".workflow").iterdir() if p.name.startswith("WFS-")
    ) == [SID]


def test_importing_a_changed_maestro_session_again_is_refused_unless_new(maestro: Path) -> None:
    assert wfs("import", SESSION).code == 0
    changed = maestro / TASKS / "TASK-004.json"
    changed.write_text(changed.read_text().replace("15m", "20m"))
    refused = wfs("import", SESSION)
    assert refused.code == 2
    assert refused.err == (
        f"wfs: error: {SESSION} was imported as {SID}, and its files have changed since; "
        f"`wfs import --new {SESSION}` makes a second session from it as it is now\n"
    )
    [named] = named_commands(refused.err)
    assert named == ["import", "--new", SESSION]
    second = wfs(*named)
    assert (second.code, second.out.splitlines()[0]) == (0, f"{SID}-002")
    assert task(maestro, "IMPL-4")["meta"]["estimated_time"] == "15m"


def test_the_tasks_a_later_execute_run_completed_are_imported_completed(maestro: Path) -> None:
    outputs = maestro / SESSION / "runs/20260301-002-execute/outputs"
    outputs.mkdir(parents=True)
    (outputs / "execution.json").write_text(
        '{"plan_ref": "current-plan", "status": "partial", "waves": [1],\n'
        ' "completed_tasks": ["TASK-001", "TASK-002"], "blocked_tasks": []}\n'
    )
    assert wfs("import", SESSION).code == 0
    first = task(maestro, "IMPL-1")
    assert first["status"] == "completed"
    assert first["meta"]["source_status"] == "pending"  # the sealed plan still says so
    assert task(maestro, "IMPL-3")["status"] == "pending"
    record = read_json(maestro / ".workflow" / SID / "workflow-session.json")["imported_from"]
    assert record["completed"] == {
        "IMPL-1": f"{SESSION}/runs/20260301-002-execute/outputs/execution.json",
        "IMPL-2": f"{SESSION}/runs/20260301-002-execute/outputs/execution.json",
    }
    ready = wfs("--json", "next", "--all").json()
    assert [t["id"] for t in ready["tasks"]] == ["IMPL-3"]


@pytest.mark.parametrize(
    ("written", "status", "kept"),
    [
        ("completed_with_deviations", "completed", "completed_with_deviations"),
        ("in_progress", "pending", "in_progress"),
        ("blocked", "pending", "blocked"),
        ("completed", "completed", None),
    ],
)
def test_a_maestro_status_is_read_as_done_or_to_do_and_kept(
    maestro: Path, written: str, status: str, kept: str | None
) -> None:
    path = maestro / TASKS / "TASK-001.json"
    path.write_text(path.read_text().replace('"status": "pending"', f'"status": "{written}"'))
    assert wfs("import", SESSION).code == 0
    imported = task(maestro, "IMPL-1")
    assert imported["status"] == status
    assert imported["meta"].get("source_status") == kept


@pytest.mark.slow
def test_the_current_plan_is_the_latest_plan_run_or_the_one_artifacts_json_names(
    maestro: Path,
) -> None:
    later = maestro / SESSION / "runs/20260305-004-plan/outputs"
    (later / "tasks").mkdir(parents=True)
    (later / "plan.json").write_text('{"summary": "A revised plan", "task_ids": ["TASK-001"]}\n')
    (later / "tasks/TASK-001.json").write_text('{"id": "TASK-001", "title": "All in one"}\n')
    assert wfs("--json", "session", "list").json()["maestro"][0]["path"] == SESSION
    assert wfs("--json", "import", NAME).json()["ids"] == {"TASK-001": "IMPL-1"}
    (maestro / SESSION / "artifacts.json").write_text(
        '{"schema_version": "artifacts/1.1", "aliases": {"current-plan": "ART-001-001"},\n'
        ' "artifacts": {"ART-001-001": {"kind": "plan", "producer_run_id": "20260301-001-plan",\n'
        ' "relative_path": "outputs/plan.json"}}}\n'
    )
    assert wfs("--json", "import", "--new", NAME).json()["ids"] == IDS


def test_a_run_folder_or_a_plan_outside_a_run_can_be_imported(maestro: Path) -> None:
    assert wfs("--json", "import", PLAN_RUN).json()["ids"] == IDS
    scratch = maestro / ".workflow/scratch/20260210-plan-cache"
    (scratch / ".task").mkdir(parents=True)
    (scratch / "plan.json").write_text('{"summary": "Cache", "task_ids": ["TASK-001"]}\n')
    (scratch / ".task/TASK-001.json").write_text('{"id": "TASK-001", "title": "Add a cache"}\n')
    done = wfs("--json", "import", ".workflow/scratch/20260210-plan-cache")
    assert done.code == 0, done.err
    assert done.json()["session"] == "WFS-plan-cache"


# ---------------------------------------------------------------- what is refused


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


REFUSALS = [
    (
        lambda p: _edit(
            p / PLAN_RUN / "outputs/plan.json",
            '"tasks": ["TASK-003"]',
            '"tasks": ["TASK-003", "TASK-009"]',
        ),
        f"{PLAN_RUN}/outputs/plan.json: wave 2 names TASK-009, which has no task file",
    ),
    (
        lambda p: _edit(
            p / TASKS / "TASK-003.json", '"depends_on": ["TASK-001"]', '"depends_on": ["TASK-099"]'
        ),
        f"{TASKS}/TASK-003.json#/depends_on: TASK-003 depends on TASK-099, which is not a task of this plan",
    ),
    (
        lambda p: _edit(
            p / TASKS / "TASK-001.json", '"depends_on": []', '"depends_on": ["TASK-003"]'
        ),
        f"{TASKS}/TASK-001.json: TASK-001 (wave 1) depends on TASK-003, which is in a later wave (2); "
        "the waves and the dependencies of the plan disagree",
    ),
    (
        lambda p: _edit(
            p / TASKS / "TASK-002.json", '"title": "Login settings",', '"title": "Login settings"'
        ),
        f"{TASKS}/TASK-002.json:5:3: invalid JSON: unexpected character, expected ',' or '}}'",
    ),
    (
        lambda p: (
            _edit(p / TASKS / "TASK-001.json", '"depends_on": []', '"depends_on": ["TASK-003"]'),
            _edit(p / PLAN_RUN / "outputs/plan.json", '"waves"', '"wave_plan"'),
        ),
        f"{PLAN_RUN}/outputs/plan.json: 1 problem; nothing was written:\n"
        f"{TASKS}/TASK-001.json#/depends_on: dependency-cycle: dependency cycle: "
        "IMPL-1 -> IMPL-3 -> IMPL-1 (IMPL-1 is TASK-001, IMPL-3 is TASK-003)",
    ),
    (
        lambda p: (p / PLAN_RUN / "outputs/plan.json").write_text(
            '{"source_format": "pi-markdown", "markdown": "# Plan"}\n'
        ),
        f"{PLAN_RUN}/outputs/plan.json: a Markdown plan (source_format pi-markdown), with no tasks "
        "of its own; wfs imports plans made of tasks (task_ids, waves, tasks/TASK-NNN.json)",
    ),
    (
        lambda p: _edit(p / TASKS / "TASK-004.json", '"TASK-003"]', '"TASK-003", "TASK-004"]'),
        f"{TASKS}/TASK-004.json#/depends_on: TASK-004 depends on itself",
    ),
]


@pytest.mark.parametrize(("spoil", "message"), REFUSALS)
def test_what_breaks_the_plan_is_refused_naming_the_file_and_nothing_is_written(
    maestro: Path, spoil: Any, message: str
) -> None:
    spoil(maestro)
    before = fingerprints(maestro / ".workflow")
    refused = wfs("import", SESSION)
    assert refused.code == 2
    assert refused.err.startswith(f"wfs: error: {message}"), refused.err
    assert "Traceback" not in refused.err
    assert fingerprints(maestro / ".workflow") == before
    checked = wfs("validate")
    assert checked.code == 1
    assert message.split("\n")[-1].split(": ")[0] in checked.out


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("nowhere", "nowhere: no such file or folder (nor a Maestro-Flow plan of that name)"),
        (
            ".workflow",
            ".workflow: not a Maestro-Flow plan (expected plan.json or index.json with .task/TASK-NNN.json, or a session's runs/<run>/outputs/plan.json)",
        ),
        (
            f"{TASKS}/TASK-001.json",
            f"{TASKS}/TASK-001.json: expected a Maestro-Flow plan folder or its plan.json",
        ),
    ],
)
def test_a_path_that_is_not_a_maestro_session_is_refused(
    maestro: Path, given: str, message: str
) -> None:
    refused = wfs("import", given)
    assert (refused.code, refused.err) == (2, f"wfs: error: {message}\n")


def test_a_maestro_session_with_no_plan_yet_is_refused(maestro: Path) -> None:
    (maestro / ".workflow/sessions/20260302-idea/runs/20260302-001-analyze/outputs").mkdir(
        parents=True
    )
    refused = wfs("import", "20260302-idea")
    assert refused.code == 2
    assert refused.err == (
        "wfs: error: .workflow/sessions/20260302-idea: this Maestro-Flow session has no plan yet "
        "(no runs/<run>/outputs/plan.json); make one with Maestro's plan command first\n"
    )


def test_doctor_and_the_board_list_the_plans(maestro: Path) -> None:
    doctor = wfs("doctor")
    assert (doctor.code, doctor.out) == (0, f"OK: nothing to repair\n{LISTING}")
    assert wfs("--json", "doctor").json()["maestro"][0]["name"] == PLAN
    assert wfs("import", SESSION).code == 0
    from wfs.board.data import board_data
    from wfs.layout import Layout

    board = board_data(Layout(maestro), None)
    assert board["maestro"] == [
        {"name": PLAN, "kind": "session", "imported_as": SID, "tasks": 4, "completed": 0}
    ]
    page = (Path(__file__).resolve().parent.parent / "wfs/board/static/board.js").read_text()
    assert "data.maestro" in page  # the picker shows them


# ---------------------------------------------------------------- every layout

TASK_A = {"id": "TASK-001", "title": "Write a", "status": "pending", "implementation": ["a"]}
TASK_B = {
    "id": "TASK-002",
    "title": "Write b",
    "depends_on": ["TASK-001"],
    "convergence": {"criteria": ["b exists"], "verification": "test -f b.txt"},
}
PLAN_FILE = {"summary": "Two tasks", "task_ids": ["TASK-001", "TASK-002"]}
# (where the plan is under .workflow/, its files, the kind wfs lists it as): the layouts
# Maestro-Flow's and lite-plan's releases write (docs/formats.md, "Where plans are").
LAYOUTS = [
    (
        "phases/01-auth",
        {"index.json": {"phase": 1, "slug": "auth", "plan": {}}, "plan.json": PLAN_FILE},
        "phase",
    ),
    ("scratch/plan-auth-2026-04-20", {"plan.json": PLAN_FILE}, "scratch"),
    ("scratch/20260601-plan-P1-auth", {"plan.json": PLAN_FILE}, "scratch"),
    ("milestones/M1/artifacts/20260601-plan-P1-auth", {"plan.json": PLAN_FILE}, "milestone"),
    (".lite-plan/auth-2026-02-01", {"plan.json": PLAN_FILE}, "lite-plan"),
    (
        "scratch/quick-auth-2026-05-01",
        {"index.json": {"id": "quick-auth", "type": "quick", "title": "Auth", "plan": PLAN_FILE}},
        "quick",
    ),
]


@pytest.mark.slow
@needs_bash
@pytest.mark.skipif(sys.platform == "win32", reason="the fake agent is a sh script")
@pytest.mark.parametrize(("where", "files", "kind"), LAYOUTS, ids=[w for w, _, _ in LAYOUTS])
def test_a_plan_in_any_layout_is_listed_and_run_by_execute_all(
    project: Path, tmp_path: Path, where: str, files: dict[str, Any], kind: str
) -> None:
    folder = project / ".workflow" / where
    (folder / ".task").mkdir(parents=True)
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data))
    for task in (TASK_A, TASK_B):
        (folder / ".task" / f"{task['id']}.json").write_text(json.dumps(task))
    before = fingerprints(project / ".workflow")
    [row] = wfs("--json", "session", "list").json()["maestro"]
    assert (row["name"], row["kind"], row["tasks"], row["ready"]) == (where, kind, 2, ["TASK-001"])
    agent = tmp_path / "agent"
    agent.write_text("#!/bin/sh\ncat > /dev/null\ntouch a.txt b.txt\necho done\n")
    agent.chmod(0o755)
    ran = wfs("--json", "execute", "--all", "--agent", str(agent))
    assert ran.code == 0, ran.out + ran.err
    result = ran.result()
    assert [(t["task"], t["status"]) for t in result["tasks"]] == [
        ("IMPL-1", "completed"),
        ("IMPL-2", "completed"),
    ]
    [session] = result["sessions"]
    assert wfs("--json", "session", "list").json()["maestro"][0] | {"ready": None} == row | {
        "imported_as": session["session"],
        "completed": 2,
        "ready": None,
    }
    assert wfs("--json", "status").json()["session"] is None  # none was made active
    after = fingerprints(project / ".workflow")
    assert {k: v for k, v in after.items() if k in before} == before  # Maestro's: as they were
    again = wfs("execute", "--all")
    assert (again.code, again.out) == (
        0,
        "Nothing to do: every Maestro-Flow plan is done (`wfs status` lists them).\n",
    )


def test_importing_never_touches_another_session(maestro: Path) -> None:
    """The user's own active session stays active and as it was, file for file."""
    wfs("init", "--no-git")
    assert wfs("plan", "Other work", "--empty").code == 0
    other = fingerprints(maestro / ".workflow" / "WFS-other-work")
    marker = maestro / ".workflow" / ".active-WFS-other-work"
    assert marker.is_file()
    imported = wfs("import", SESSION)
    assert imported.code == 0
    assert imported.out.endswith(
        f"  Another session is active, and stays so: `wfs switch {SID}` makes this one "
        f"active, or run it with `wfs --session {SID} execute --all`\n"
    )
    assert fingerprints(maestro / ".workflow" / "WFS-other-work") == other
    assert marker.is_file()
    assert read_json(maestro / ".workflow" / SID / "workflow-session.json")["status"] == "paused"
    assert wfs("status").out.startswith("Session:  WFS-other-work (active)\n")
    assert wfs("validate", "--all").out.startswith(f"OK: {SID}, WFS-other-work\n")
