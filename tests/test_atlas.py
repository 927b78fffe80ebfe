"""docs/formats.md's table of task fields and the code say the same (issue 42).

Each row of the table ("### Task fields") names a field that Maestro-Flow or lite-plan
writes and what wfs does with it: **run**, **shown** (the agent's brief carries it),
**mapped** to a place, or **ignored**. One Maestro-Flow plan is made with a task for
each row, holding that field with a value of its own, and `wfs execute --all` runs it as
a new user would (imported by itself): a field said to run ran, one shown is in its
task's brief, one mapped is at its place in the imported task, one ignored is in no
brief. And the other way round: every field the code consumes, ignores or moves is a
row of the table.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from conftest import REPO, needs_bash, read_json, wfs_process

from wfs import formats
from wfs.flow import brief
from wfs.schemas import FLAT_KEYS

FORMATS = REPO / "docs" / "formats.md"
PLAN = ".workflow/scratch/20260101-plan-atlas"


class Row(NamedTuple):
    field: str  # dotted: `meta.estimated_time`
    verbs: set[str]  # run, shown, mapped, ignored
    place: str | None  # where it is mapped to


def table() -> list[Row]:
    text = FORMATS.read_text(encoding="utf-8")
    part = text[text.index("### Task fields") :]
    part = part[: part.index("\n\n", part.index("| field |"))]
    rows = []
    for line in part.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 3 or not cells[0].startswith("`"):
            continue
        verbs = set(re.findall(r"\*\*(run|shown|mapped|ignored)\*\*", cells[2]))
        assert verbs, line
        place = re.search(r"\*\*mapped\*\* to `([^`]+)`", cells[2])
        rows.append(Row(cells[0].strip("`"), verbs, place.group(1) if place else None))
    return rows


ROWS = table()
# Values a field needs to be what it is (default: words of the author's own).
SAMPLES: dict[str, Any] = {
    "id": None,  # every task has one
    "title": None,
    "status": "pending",
    "depends_on": ["TASK-001"],
    "deps": ["TASK-001"],
    "files": [{"path": "src/atlas/files.ts", "action": "modify", "change": "the change of files"}],
    "file": "src/atlas/file.ts",
    "files_to_create": ["src/atlas/created.ts"],
    "files_to_modify": ["src/atlas/modified.ts"],
    "focus_paths": ["src/atlas"],
    "implementation": ["the step of implementation"],
    "wave": 1,
    "meta.wave": 1,
    "meta.status": "pending",
    "meta.agent": "@code-developer",
    "meta.execution_config": {"method": "agent", "note": "the execution_config"},
    "artifacts": [{"type": "role_analyses", "path": "docs/atlas.md"}],
    "inherited": {"from": "IMPL-9", "context": ["the inherited context"]},
    "pre_analysis": [
        {"step": "load", "action": "Load", "command": "bash(atlas-tool pre_analysis)"}
    ],
    "convergence": ["the criterion of convergence"],
    "convergence.criteria": ["the criterion of convergence.criteria"],
    "convergence_criteria": ["the criterion of convergence_criteria"],
    "acceptance": ["the criterion of acceptance"],
    "acceptance_criteria": ["the criterion of acceptance_criteria"],
    "verify": "atlas-tool verify",
    "verification": ["atlas-tool verification"],
    "convergence.verification": "atlas-tool convergence.verification",
    "test.commands": ["atlas-tool test.commands"],
    "context.acceptance": ["atlas-tool context.acceptance"],
    "type": "feature",
    "action": "the action",
    "requirements": ["the requirement"],
    "target_files": ["src/atlas/target.ts"],
    "shared_context": {"auth": "the shared context"},
    "implementation_steps": ["the step of implementation_steps"],
    "dependencies": ["TASK-001"],
    "blocked_by": ["TASK-001"],
    "meta.depends_on": ["TASK-001"],
    "meta.dependencies": ["TASK-001"],
    "meta.blocked_by": ["TASK-001"],
    "meta.focus_paths": ["src/atlas"],
    "context.dependencies": ["TASK-001"],
    "context.blocked_by": ["TASK-001"],
    "context.acceptance_criteria": ["the criterion of context.acceptance_criteria"],
    "cli_execution": {"strategy": "new", "note": "the cli_execution of the author"},
    "execution": {"summary": "the execution of the author"},
}


def sample(row: Row) -> Any:
    return SAMPLES.get(row.field, f"the {row.field} of the author")


def nested(field: str, value: Any) -> dict[str, Any]:
    head, _, rest = field.partition(".")
    return {head: nested(rest, value) if rest else value}


def words(value: Any) -> list[str]:
    """The texts a value holds."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [w for v in value.values() for w in words(v)]
    if isinstance(value, list):
        return [w for v in value for w in words(v)]
    return []


def at(data: Any, place: str) -> Any:
    for key in place.split("."):
        data = data.get(key) if isinstance(data, dict) else None
    return data


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], str]:
    """The plan of one task per row, run by `wfs execute --all`: (the project, each
    task's brief by IMPL id, the stand-in's log)."""
    root = tmp_path_factory.mktemp("atlas")
    plan = root / PLAN
    (plan / ".task").mkdir(parents=True)
    ids = [f"TASK-{n:03d}" for n in range(1, len(ROWS) + 2)]
    (plan / "plan.json").write_text(json.dumps({"summary": "The atlas", "task_ids": ids}))
    first = {"id": ids[0], "title": "First", "status": "pending"}
    (plan / ".task" / f"{ids[0]}.json").write_text(json.dumps(first))
    for n, row in enumerate(ROWS, 2):
        task: dict[str, Any] = {"id": ids[n - 1], "title": f"Row {row.field}", "description": "d"}
        if sample(row) is not None:
            task.update(nested(row.field, sample(row)))
        (plan / ".task" / f"{ids[n - 1]}.json").write_text(json.dumps(task))
    log = root.parent / f"{root.name}-calls.log"
    bin_dir = root.parent / f"{root.name}-bin"
    bin_dir.mkdir()
    tool = bin_dir / "atlas-tool"
    tool.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\n')
    tool.chmod(0o755)
    briefs = root.parent / f"{root.name}-briefs"
    agent = bin_dir / "atlas-agent"
    agent.write_text(
        f"#!{sys.executable}\nimport sys\nbrief = sys.stdin.read()\n"
        f"open({str(briefs)!r}, 'a').write(brief + '\\n\\x00\\n')\nprint('done')\n"
    )
    agent.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "WFS_AGENT": str(agent)}
    run = wfs_process("execute", "--all", cwd=root, env=env, timeout=600)
    assert run.code == 0, run.out + run.err
    by_task: dict[str, str] = {}
    for text in briefs.read_text().split("\n\x00\n"):
        head = re.match(r"# (IMPL-\d+): ", text)
        if head:
            by_task[head.group(1)] = by_task.get(head.group(1), "") + text
    return root, by_task, log.read_text() if log.exists() else ""


@pytest.mark.slow
@needs_bash
@pytest.mark.skipif(sys.platform == "win32", reason="the stand-ins are sh scripts")
@pytest.mark.parametrize("row", ROWS, ids=[r.field for r in ROWS])
def test_each_field_of_the_table_is_done_as_the_table_says(
    row: Row, ran: tuple[Path, dict[str, str], str]
) -> None:
    root, briefs, calls = ran
    tid = f"IMPL-{ROWS.index(row) + 2}"
    [session] = [p for p in (root / ".workflow").glob("WFS-*")]
    task = read_json(session / ".task" / f"{tid}.json")
    shown = " ".join(briefs.get(tid, "").split())
    value = sample(row)
    if "run" in row.verbs:
        assert (
            str(value if isinstance(value, str) else words(value)[0]).split(None, 1)[-1] in (calls)
            or row.field == "pre_analysis"
        ), (row, calls)
        if row.field == "pre_analysis":
            assert "pre_analysis" in calls
    if "shown" in row.verbs and "run" not in row.verbs and value is not None:
        # (a check that is words is shown: tests/test_as_written.py; here it is a command)
        for text in words(value):
            assert " ".join(text.split()) in shown, (row, text)
    if "ignored" in row.verbs:
        for text in words(value):
            assert text not in shown, (row, text)
    if "mapped" in row.verbs and row.place is not None:
        found = at(task, row.place)
        assert found not in (None, "", [], {}), (row, task)
        if row.place == "id":
            assert task["meta"]["source_id"] == f"TASK-{ROWS.index(row) + 2:03d}"


def test_every_field_the_code_reads_or_leaves_out_is_a_row_of_the_table() -> None:
    fields = {row.field for row in ROWS}
    ignored = {row.field for row in ROWS if "ignored" in row.verbs}
    assert brief.IGNORED | {"execution"} == ignored
    for name in brief.CONSUMED - {"id", "task_id", "meta", "context", "flow_control"}:
        assert name in fields, name
    for name in FLAT_KEYS:
        assert name in fields, name
    for source, _ in (*formats.LIST_MOVES, *formats.OBJECT_MOVES):
        assert ".".join(source) in fields, source
    for place in formats.DEPENDENCY_PLACES[1:]:
        assert ".".join(place) in fields, place
