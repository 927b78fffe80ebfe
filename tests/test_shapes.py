"""A valid task is never refused for its shape when its meaning is clear (issue 42).

A string, an array or an object where the format has another of them is read as what it
says, and an enum value with an obvious meaning maps to the nearest one: `validate`
warns, naming the `wfs migrate` that writes the canonical form, `execute` accepts the
task, and after `wfs migrate` the session validates clean.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json, wfs

SID = "WFS-shapes"
TASKS = Path(".workflow") / SID / ".task"


def session(project: Path, task: dict[str, Any]) -> Path:
    """A session holding `task` (as IMPL-1) as another tool wrote it."""
    assert wfs("init", "--no-git").code == 0
    assert wfs("plan", "shapes", "--empty").code == 0
    path = project / TASKS / "IMPL-1.json"
    path.write_text(json.dumps({"id": "IMPL-1", "title": "Shape", **task}, indent=2) + "\n")
    return path


# (what the author wrote, the warning validate gives, where the canonical form has it)
SHAPES = [
    (
        {"convergence": "npm test exits 0"},
        "#/convergence: format: warning: convergence written as a string is read as its "
        "criteria (context.acceptance); `wfs migrate` moves it",
        {"context": {"acceptance": ["npm test exits 0"]}},
    ),
    (
        {"convergence": ["the page loads", "npm test exits 0"]},
        "#/convergence: format: warning: convergence written as an array is read as its "
        "criteria (context.acceptance); `wfs migrate` moves it",
        {"context": {"acceptance": ["the page loads", "npm test exits 0"]}},
    ),
    (
        {"convergence": {"criteria": "the page loads", "definition_of_done": "it ships"}},
        "#/convergence/criteria: format: warning: convergence.criteria written as a string is "
        "read as one criterion (context.acceptance); `wfs migrate` moves it",
        {
            "context": {"acceptance": ["the page loads"]},
            "convergence": {"definition_of_done": "it ships"},
        },
    ),
    (
        {"implementation": "Write the page", "description": "A page"},
        "#/implementation: format: warning: implementation written as a string is read as one "
        "step; `wfs migrate` writes the step array",
        {"flow_control": {"implementation_approach": [{"description": "Write the page"}]}},
    ),
    (
        {"files": {"owned": ["app/[id]/page.tsx"], "read_only": ["lib/db.ts"]}, "description": "d"},
        "#/files: format: warning: the paths of files are read as flow_control.target_files; "
        "`wfs migrate` copies them there",
        {
            "flow_control": {"target_files": ["app/[id]/page.tsx"]},
            "files": {"owned": ["app/[id]/page.tsx"], "read_only": ["lib/db.ts"]},
        },
    ),
    (
        {"files_to_create": ["src/new.ts"], "files_to_modify": ["src/old.ts"], "description": "d"},
        "#/files_to_create: format: warning: the paths of files_to_create are read as "
        "flow_control.target_files; `wfs migrate` copies them there",
        {
            "flow_control": {"target_files": ["src/new.ts", "src/old.ts"]},
            "files_to_create": ["src/new.ts"],
            "files_to_modify": ["src/old.ts"],
        },
    ),
    (
        {"implementation": [{"action": "Build", "command": "bash(true)", "on_error": "abort"}]},
        '#/implementation/0/on_error: format: warning: on_error "abort" is read as "fail", the '
        "nearest strategy (a failure stops the task: it is blocked); `wfs migrate` writes "
        '"fail"',
        {"flow_control": {"implementation_approach": [{"on_error": "fail"}]}},
    ),
    (
        {"focus_paths": ["app/[id]/page.tsx", "pages/[...slug].tsx"], "description": "d"},
        "#/focus_paths: format: warning: focus_paths is read as context.focus_paths; "
        "`wfs migrate` moves it",
        {"context": {"focus_paths": ["app/[id]/page.tsx", "pages/[...slug].tsx"]}},
    ),
]


def contains(found: Any, wanted: Any) -> bool:
    """Whether `found` holds everything `wanted` says (objects: those keys; arrays: the
    same length, entry by entry)."""
    if isinstance(wanted, dict):
        return isinstance(found, dict) and all(
            k in found and contains(found[k], v) for k, v in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(found, list)
            and len(found) == len(wanted)
            and all(contains(f, w) for f, w in zip(found, wanted, strict=True))
        )
    return bool(found == wanted)


@pytest.mark.parametrize(("written", "warning", "canonical"), SHAPES)
def test_a_shape_with_a_clear_meaning_is_read_as_it_says_and_migrated(
    project: Path, written: dict[str, Any], warning: str, canonical: dict[str, Any]
) -> None:
    path = session(project, {"status": "pending", **written})
    rel = path.relative_to(project).as_posix()
    checked = wfs("validate")
    assert checked.code == 0, checked.out
    assert f"{rel}{warning}" in checked.out.splitlines()
    assert all(": warning: " in line for line in checked.out.splitlines()), checked.out
    dry = wfs("--json", "execute", "IMPL-1", "--dry-run")
    assert dry.code == 0, dry.err
    assert dry.result()["refused"] == []
    assert wfs("migrate").code == 0
    migrated = read_json(path)
    assert contains(migrated, canonical), migrated
    assert wfs("validate").out == f"OK: {SID}\n"
    assert wfs("migrate").out == "Nothing to migrate.\n"  # the canonical form stays as it is


def test_an_on_error_with_no_clear_meaning_is_still_an_error(project: Path) -> None:
    session(
        project,
        {"implementation": [{"action": "x", "command": "bash(true)", "on_error": "explode"}]},
    )
    checked = wfs("validate")
    assert checked.code == 1
    assert (
        f"{TASKS.as_posix()}/IMPL-1.json#/implementation/0/on_error: implementation: on_error "
        '"explode" is not one of skip_optional, fail, retry_once, manual_intervention'
    ) in checked.out
