"""A plan runs as its author meant it (issue 28, "Read what the author meant").

One session in the `active/` layout, written as real sessions write it: step outputs as
prose labels, `meta.agent` without `@`, context-only `commands: []`, `bash('…')` with the
whole command quoted, focus paths from the author's machine, and the design's test gates
stored as `IMPL-001.3-validation.json` and `IMPL-001.5-review.json`. Run through the real
CLI, in a real git repository, with a stand-in `codex` on PATH that keeps what it is
given.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_bash, read_json, result_line, wfs_process

pytestmark = [
    needs_bash,
    pytest.mark.skipif(sys.platform == "win32", reason="the stand-in codex is a sh script"),
]

SID = "WFS-demo"
TASKS = Path(".workflow/active") / SID / ".task"
FOREIGN = "/home/alice/work/{repo}/src/app.ts"


def task(tid: str, title: str, deps: list[str], repo: str) -> dict[str, Any]:
    return {
        "id": tid,
        "title": title,
        "status": "pending",
        "meta": {"type": "feature", "agent": "codex"},
        "context": {
            "requirements": ["Keep the API"],
            "focus_paths": [FOREIGN.format(repo=repo)],
            "acceptance": ["The tests pass"],
            "depends_on": deps,
        },
        "flow_control": {
            "pre_analysis": [
                {"step": "context", "action": "Read what matters", "commands": []},
            ],
            "implementation_approach": [
                {
                    "step": 1,
                    "title": "List the sources",
                    "description": "See what is there",
                    "modification_points": [],
                    "logic_flow": [],
                    "depends_on": [],
                    "output": "sources",
                    "command": "bash('ls src > listing.txt; echo listed')",
                },
                {
                    "step": 2,
                    "title": "Write the failing tests",
                    "description": "Tests first",
                    "modification_points": ["tests/test_config.py"],
                    "logic_flow": ["Write five tests"],
                    "depends_on": [1],
                    "output": "5 failing test cases in test_config.py",
                },
            ],
        },
    }


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A git repository named `myrepo` holding the session, and the environment whose
    PATH has the stand-in `codex` first."""
    root = tmp_path / "myrepo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.ts").write_text("export const a = 1;\n")
    folder = root / TASKS
    folder.mkdir(parents=True)
    (folder.parent / "workflow-session.json").write_text(
        json.dumps({"session_id": SID, "project": "Demo", "status": "active"}, indent=2) + "\n"
    )
    main = task("IMPL-001", "Main", [], root.name)
    main["acceptance_criteria"] = ["All five tests pass"]
    main["target_files"] = ["src/app.ts:main:1-3"]
    files = {
        "IMPL-001.json": main,
        "IMPL-001.3-validation.json": task("IMPL-001.3", "Validation gate", ["IMPL-001"], "myrepo"),
        "IMPL-001.5-review.json": task(
            "IMPL-001.5", "Review gate", ["IMPL-001", "IMPL-001.3"], "myrepo"
        ),
        "IMPL-002.json": task("IMPL-002", "After the gates", ["IMPL-001.5"], "myrepo"),
        "IMPL-004.json": task("IMPL-004", "Independent", [], "myrepo"),
    }
    elsewhere = task("IMPL-003", "Elsewhere", [], "myrepo")
    elsewhere["context"]["focus_paths"] = ["/home/alice/elsewhere/nothing.ts"]
    files["IMPL-003.json"] = elsewhere
    for name, data in files.items():
        (folder / name).write_text(json.dumps(data, indent=2) + "\n")
    bin_dir, briefs = tmp_path / "bin", tmp_path / "briefs"
    bin_dir.mkdir()
    briefs.mkdir()
    codex = bin_dir / "codex"
    codex.write_text(
        "#!/bin/sh\n"
        f'n=$(ls "{briefs}" | grep -c brief)\n'
        f'echo "$@" > "{briefs}/argv-$((n + 1))"\n'
        f'cat > "{briefs}/brief-$((n + 1))"\n'
        "echo 'done by the stand-in codex'\n"
    )
    codex.chmod(0o755)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "plan")
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path)}
    return root, env


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def where(name: str) -> str:
    return f"{TASKS.as_posix()}/{name}"


@pytest.mark.slow
def test_validate_names_only_what_breaks_the_plan(repo: tuple[Path, dict[str, str]]) -> None:
    root, env = repo
    run = wfs_process("validate", cwd=root, env=env)
    assert run.code == 1
    errors = [line for line in run.out.splitlines() if ": warning: " not in line]
    assert errors == [
        f"{where('IMPL-003.json')}#/context/focus_paths/0: focus-paths: focus path "
        '"/home/alice/elsewhere/nothing.ts" is a path on another machine that is not in this '
        "project: nothing here ends like it, and it does not name the project's folder "
        '"myrepo"'
    ]
    warnings = run.out.splitlines()
    # The quoted bash command, the foreign focus path: warnings naming `wfs migrate`.
    assert (
        f"{where('IMPL-001.3-validation.json')}#/flow_control/implementation_approach/0/command:"
        " format: warning: bash('ls src > listing.txt; echo listed') runs the command inside "
        'the quotes, "ls src > listing.txt; echo listed"; `wfs migrate` writes '
        "bash(ls src > listing.txt; echo listed)"
    ) in warnings
    assert (
        f"{where('IMPL-001.json')}#/context/focus_paths/0: focus-paths: warning: focus path "
        '"/home/alice/work/myrepo/src/app.ts" is a path on another machine; it is read as '
        '"src/app.ts" in this project, and `wfs migrate` writes that'
    ) in warnings
    assert not any("meta.agent" in line or "output" in line for line in warnings)


@pytest.mark.slow
def test_status_next_and_task_commands_see_gates_as_tasks_of_their_own(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    status = wfs_process("status", cwd=root, env=env).out
    assert "container 0" in status
    assert "Ready:    IMPL-001, IMPL-004\n" in status
    assert "Invalid:  IMPL-003: 1 validation error; `wfs validate` names them\n" in status
    assert wfs_process("next", cwd=root, env=env).out.startswith("[ ] IMPL-001  Main")
    shown = wfs_process("task", "show", "IMPL-001.3", "--json", cwd=root, env=env)
    assert shown.code == 0, shown.err
    assert json.loads(shown.out)["task"]["id"] == "IMPL-001.3"
    refused = wfs_process("execute", "IMPL-001.3", cwd=root, env=env)
    assert (refused.code, refused.err) == (
        2,
        "wfs: error: IMPL-001.3 is not ready: waiting on IMPL-001\n",
    )
    changed = wfs_process("task", "status", "IMPL-001.5", "blocked", cwd=root, env=env)
    assert changed.code == 0, changed.err
    assert read_json(root / TASKS / "IMPL-001.5-review.json")["status"] == "blocked"
    assert sorted(p.name for p in (root / TASKS).iterdir()) == [
        "IMPL-001.3-validation.json",
        "IMPL-001.5-review.json",
        "IMPL-001.json",
        "IMPL-002.json",
        "IMPL-003.json",
        "IMPL-004.json",
    ]


@pytest.mark.slow
def test_an_unreadable_gate_is_not_taken_for_a_subtask(repo: tuple[Path, dict[str, str]]) -> None:
    root, env = repo
    (root / TASKS / "IMPL-001.5-review.json").write_text('{"id": "IMPL-001.5", broken\n')
    run = wfs_process("validate", cwd=root, env=env)
    errors = [line for line in run.out.splitlines() if ": warning: " not in line]
    assert errors[0] == (
        f"{where('IMPL-001.5-review.json')}:1:22: json: invalid JSON: unexpected character, "
        "expected a string key"
    )
    assert not any("status-consistency" in line for line in errors)
    status = wfs_process("status", cwd=root, env=env).out
    assert "Ready:    IMPL-001, IMPL-004\n" in status
    shown = wfs_process("task", "show", "IMPL-001.5", cwd=root, env=env)
    assert shown.code == 2
    assert shown.err.startswith(f"wfs: error: {where('IMPL-001.5-review.json')}:1:22: ")


@pytest.mark.slow
def test_doctor_leaves_gates_alone(repo: tuple[Path, dict[str, str]]) -> None:
    root, env = repo
    before = {p.name: p.read_bytes() for p in (root / TASKS).iterdir()}
    run = wfs_process("doctor", "--fix", cwd=root, env=env)
    assert "IMPL-001.3" not in run.out and "IMPL-001.5" not in run.out, run.out
    assert {p.name: p.read_bytes() for p in (root / TASKS).iterdir()} == before


@pytest.mark.slow
def test_execute_all_runs_the_chain_and_passes_the_task_it_cannot_run(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    run = wfs_process("execute", "--all", "--json", cwd=root, env=env)
    result = result_line(run.out)
    assert [(t["task"], t["status"]) for t in result["tasks"]] == [
        ("IMPL-001", "completed"),
        ("IMPL-001.3", "completed"),
        ("IMPL-001.5", "completed"),
        ("IMPL-002", "completed"),
        ("IMPL-004", "completed"),
    ]
    assert read_json(root / TASKS / "IMPL-003.json")["status"] == "pending"
    # bash('…') ran the quoted command; the agent steps went to the author's codex.
    assert (root / "listing.txt").read_text() == "app.ts\n"
    record = read_json(root / TASKS.parent / ".runs" / "IMPL-001.json")
    assert record["steps"]["implementation_approach/1"]["output"] == "listed"
    briefs = root.parent / "briefs"
    assert (briefs / "argv-1").read_text() == "exec --full-auto -\n"
    brief = (briefs / "brief-2").read_text()
    assert "Deliverable: 5 failing test cases in test_config.py" in brief
    assert "## Focus paths\n\n- src/app.ts\n" in brief
    assert "- All five tests pass\n" in brief
    assert "## Target files\n\n- src/app.ts:main:1-3\n" in brief


@pytest.mark.slow
def test_migrate_writes_what_the_author_meant_and_keeps_the_gate_files(
    repo: tuple[Path, dict[str, str]],
) -> None:
    root, env = repo
    assert wfs_process("migrate", cwd=root, env=env).code == 0
    gate = read_json(root / TASKS / "IMPL-001.3-validation.json")
    steps = gate["flow_control"]["implementation_approach"]
    assert steps[0]["command"] == "bash(ls src > listing.txt; echo listed)"
    assert steps[1]["output"] == "5 failing test cases in test_config.py"
    assert gate["context"]["focus_paths"] == ["src/app.ts"]
    assert gate["meta"]["agent"] == "codex"
    assert sorted(p.name for p in (root / TASKS).iterdir())[:2] == [
        "IMPL-001.3-validation.json",
        "IMPL-001.5-review.json",
    ]
    run = wfs_process("validate", cwd=root, env=env)
    assert [line for line in run.out.splitlines() if "IMPL-003" not in line] == []
