"""Generated views: the seed template, the plan document, determinism, --check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import VIEW_MARK, wfs

from wfs.render import render_views

# The TODO_LIST.md template of the design document, with its placeholders as titles.
SEED_TODO_LIST = """\
# Tasks: [Session Topic]

## Task Progress
▸ **IMPL-001**: [Main Task Group] → [📋](./.task/IMPL-001.json)
  - [ ] **IMPL-001.1**: [Subtask] → [📋](./.task/IMPL-001.1.json)
  - [x] **IMPL-001.2**: [Subtask] → [📋](./.task/IMPL-001.2.json) | [✅](./.summaries/IMPL-001.2-summary.md)

- [x] **IMPL-002**: [Simple Task] → [📋](./.task/IMPL-002.json) | [✅](./.summaries/IMPL-002-summary.md)

## Status Legend
- `▸` = Container task (has subtasks)
- `- [ ]` = Pending leaf task
- `- [x]` = Completed leaf task
- Maximum 2 levels: Main tasks and subtasks only
"""

SESSION = {
    "session_id": "WFS-x",
    "project": "[Session Topic]",
    "type": "simple",
    "current_phase": "IMPLEMENT",
    "status": "active",
    "progress": {"completed_phases": ["PLAN"], "current_tasks": []},
}


def seed_tasks() -> list[dict[str, object]]:
    return [
        {"id": "IMPL-001", "title": "[Main Task Group]", "status": "container"},
        {"id": "IMPL-001.1", "title": "[Subtask]", "status": "pending"},
        {"id": "IMPL-001.2", "title": "[Subtask]", "status": "completed"},
        {"id": "IMPL-002", "title": "[Simple Task]", "status": "completed"},
    ]


MARK = VIEW_MARK


def test_todo_list_matches_the_seed_template_line_for_line_after_its_mark() -> None:
    text = render_views(SESSION, seed_tasks())["TODO_LIST.md"]
    assert text.splitlines() == [MARK.rstrip("\n"), *SEED_TODO_LIST.splitlines()]
    assert text == MARK + SEED_TODO_LIST


def test_active_and_blocked_leaves_are_visible_with_a_legend() -> None:
    tasks = seed_tasks()
    tasks[1]["status"] = "active"
    tasks.append({"id": "IMPL-003", "title": "Stuck", "status": "blocked"})
    text = render_views(SESSION, tasks)["TODO_LIST.md"]
    assert "  - [ ] **IMPL-001.1**: [Subtask] → [📋](./.task/IMPL-001.1.json) ⏳ active\n" in text
    assert "- [ ] **IMPL-003**: Stuck → [📋](./.task/IMPL-003.json) 🚫 blocked\n" in text
    assert "- `⏳ active` = Leaf task in progress\n" in text
    assert "- `🚫 blocked` = Leaf task blocked (see its JSON for the reason)\n" in text


def test_impl_plan_has_overview_requirements_table_graph_and_acceptance() -> None:
    session = {
        **SESSION,
        "project": "Auth",
        "plan": {"overview": "Add auth.", "requirements": ["JWT", "OAuth2"]},
    }
    tasks = [
        {
            "id": "IMPL-1",
            "title": "Group",
            "status": "container",
            "meta": {"agent": "@code-developer"},
        },
        {
            "id": "IMPL-1.1",
            "title": 'Design "auth" | flows',
            "status": "completed",
            "context": {"acceptance": ["Reviewed"]},
        },
        {
            "id": "IMPL-2",
            "title": "Docs",
            "status": "pending",
            "context": {"depends_on": ["IMPL-1"]},
        },
    ]
    text = render_views(session, tasks)["IMPL_PLAN.md"]
    assert (
        text
        == MARK
        + """\
# Implementation Plan: Auth

- **Session**: `WFS-x`
- **Type**: simple · **Phase**: IMPLEMENT · **Status**: active
- **Progress**: 1/2 tasks completed

## Overview
Add auth.

## Requirements
- JWT
- OAuth2

## Task Structure
| ID | Title | Status | Depends on | Agent |
|---|---|---|---|---|
| IMPL-1 | Group | completed | — | @code-developer |
| ↳ IMPL-1.1 | Design "auth" \\| flows | completed | — | — |
| IMPL-2 | Docs | pending | IMPL-1 | — |

## Dependency Graph
```mermaid
graph TD
  subgraph IMPL_1 ["IMPL-1: Group"]
    IMPL_1_1["IMPL-1.1: Design #quot;auth#quot; | flows"]
  end
  IMPL_2["IMPL-2: Docs"]
  IMPL_1 --> IMPL_2
```

## Acceptance Criteria

### IMPL-1: Group
_None recorded._

### IMPL-1.1: Design "auth" | flows
- Reviewed

### IMPL-2: Docs
_None recorded._
"""
    )


def test_rendering_is_deterministic() -> None:
    first = render_views(SESSION, seed_tasks())
    assert render_views(json.loads(json.dumps(SESSION)), list(reversed(seed_tasks()))) == first


def test_render_check_names_stale_views_and_changes_nothing(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Views", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "One"}]))
    session = project / ".workflow/WFS-views"
    assert wfs("render", "--check").code == 0
    todo = session / "TODO_LIST.md"
    todo.write_text(todo.read_text() + "hand edit\n")
    task = session / ".task/IMPL-1.json"
    task.write_text(task.read_text().replace('"pending"', '"completed"'))
    before = {p.name: p.read_bytes() for p in session.iterdir() if p.is_file()}
    run = wfs("render", "--check")
    assert run.code == 1
    assert run.out == (
        ".workflow/WFS-views/TODO_LIST.md: stale or hand-edited; run `wfs render`\n"
        ".workflow/WFS-views/IMPL_PLAN.md: stale or hand-edited; run `wfs render`\n"
    )
    assert {p.name: p.read_bytes() for p in session.iterdir() if p.is_file()} == before
    assert wfs("render").code == 0
    assert wfs("render", "--check", "--json").json() == {
        "session": "WFS-views",
        "stale": [],
        "interrupted": [],
    }
    assert "- [x] **IMPL-1**: One" in todo.read_text()


def test_render_all_checks_and_rewrites_every_session_not_only_the_active_one(
    project: Path,
) -> None:
    assert wfs("render", "--check", "--all").code == 2  # not a project yet: `wfs init`
    assert wfs("init", "--no-git").code == 0
    assert wfs("render", "--check", "--all").out == "OK: no sessions\n"
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "A"}]))
    wfs("plan", "Beta", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "B"}]))
    paused = project / ".workflow/WFS-alpha/TODO_LIST.md"
    paused.write_text(paused.read_text() + "hand edit\n")
    assert wfs("render", "--check").code == 0  # the active session, WFS-beta, is fine
    run = wfs("render", "--check", "--all")
    assert (run.code, run.out) == (
        1,
        ".workflow/WFS-alpha/TODO_LIST.md: stale or hand-edited; run `wfs render --all`\n",
    )
    run = wfs("render", "--all", "--json")
    assert (run.code, run.json()) == (
        0,
        {"sessions": ["WFS-alpha", "WFS-beta"], "written": [".workflow/WFS-alpha/TODO_LIST.md"]},
    )
    run = wfs("render", "--check", "--all")
    assert (run.code, run.out) == (0, "OK: views of WFS-alpha, WFS-beta are up to date\n")


@pytest.mark.slow
def test_session_lifecycle_changes_leave_every_view_up_to_date(project: Path) -> None:
    wfs("init", "--no-git")
    wfs("plan", "Alpha", "--from", "-", input=json.dumps([{"id": "IMPL-1", "title": "A"}]))
    wfs("plan", "Beta", "--empty")
    for args in (["switch", "alpha"], ["session", "pause"], ["session", "resume", "beta"]):
        assert wfs(*args).code == 0
        assert wfs("render", "--check", "--all").code == 0, args
    assert wfs("session", "complete").code == 0
    assert wfs("render", "--check", "--all").code == 0
    plan = (project / ".workflow/WFS-beta/IMPL_PLAN.md").read_text()
    assert "**Status**: completed" in plan
