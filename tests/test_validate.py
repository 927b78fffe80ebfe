"""wfs/rules.py and wfs/validate.py: every rule reports one precise `where: rule: message`
line."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from wfs.layout import Layout
from wfs.rules import Problem, TaskSource, migrate_task, validate_session_data, validate_task
from wfs.task_shapes import is_legacy_approach
from wfs.validate import validate_session, validate_tasks

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"


# ---------------------------------------------------------------- helpers


def step(number: int, *depends_on: int, output: str | None = None, **extra: Any) -> dict[str, Any]:
    """A complete implementation step."""
    return {
        "step": number,
        "title": f"Step {number}",
        "description": "Do it",
        "modification_points": ["src/app.py"],
        "logic_flow": ["read", "write"],
        "depends_on": list(depends_on),
        "output": output or f"out_{number}",
        **extra,
    }


def task(tid: str = "IMPL-1", **fields: Any) -> dict[str, Any]:
    """A valid task; keyword arguments replace whole top-level fields."""
    data: dict[str, Any] = {
        "id": tid,
        "title": f"Task {tid}",
        "status": "pending",
        "meta": {"type": "feature", "agent": "@code-developer"},
        "context": {
            "requirements": ["it works"],
            "focus_paths": ["src"],
            "acceptance": ["tests pass"],
            "depends_on": [],
        },
        "flow_control": {
            "pre_analysis": [],
            "implementation_approach": [step(1)],
            "target_files": ["src/app.py"],
        },
    }
    data.update(fields)
    return data


def with_context(tid: str = "IMPL-1", **context: Any) -> dict[str, Any]:
    data = task(tid)
    data["context"].update(context)
    return data


def with_flow(tid: str = "IMPL-1", **flow: Any) -> dict[str, Any]:
    data = task(tid)
    data["flow_control"].update(flow)
    return data


def where(tid: str) -> str:
    return f".workflow/WFS-x/.task/{tid}.json"


def lines(data: Any, stem: str | None = "IMPL-1") -> list[str]:
    """Single-task problems of `data` read from `.task/<stem>.json`."""
    return [str(p) for p in validate_task(TaskSource(where(stem or "IMPL-1"), data, stem))]


def set_lines(*tasks: dict[str, Any]) -> list[str]:
    """Problems of a set of tasks, each read from the file named after its id."""
    sources = [TaskSource(where(t["id"]), t, t["id"]) for t in tasks]
    return [str(p) for p in validate_tasks(sources)]


def seed_jwt_task() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "seed-jwt-IMPL-1.2.json").read_text("utf-8"))
    return data


def jwt_family() -> list[dict[str, Any]]:
    """The seed's IMPL-1.2 with its container IMPL-1 and its sibling IMPL-1.1."""
    parent = task("IMPL-1", status="container")
    parent["title"] = "Authentication system"
    sibling = task("IMPL-1.1")
    sibling["context"]["parent"] = "IMPL-1"
    return [parent, sibling, seed_jwt_task()]


I1 = where("IMPL-1")


# ---------------------------------------------------------------- clean input


def test_seed_jwt_example_with_its_parent_and_sibling_has_no_problems() -> None:
    assert set_lines(*jwt_family()) == []


def test_a_minimal_valid_task_has_no_problems() -> None:
    assert lines(task()) == []


def test_zero_padded_ids_are_accepted() -> None:
    parent = task("IMPL-001", status="container")
    child = with_context("IMPL-001.2", parent="IMPL-001")
    assert set_lines(parent, child) == []


def test_unknown_extra_fields_are_allowed_everywhere() -> None:
    data = task(execution={"attempts": 1}, custom={"x": 1})
    data["meta"]["tool"] = "gemini"
    data["context"]["precomputed_data"] = {"a": 1}
    data["flow_control"]["post_completion"] = []
    data["flow_control"]["implementation_approach"][0]["cli_prompt"] = "x"
    assert lines(data) == []


def test_v1_task_type_and_agent_names_are_accepted() -> None:
    data = task(meta={"type": "test", "agent": "code-review-test-agent"})
    assert lines(data) == []


# ---------------------------------------------------------------- problem lines


def test_problem_str_has_where_rule_message_and_marks_warnings() -> None:
    assert str(Problem("a.json#/id", "id-format", "bad")) == "a.json#/id: id-format: bad"
    warning = Problem("a.json", "legacy-approach", "old", "warning")
    assert str(warning) == "a.json: legacy-approach: warning: old"


def test_plan_entry_locations_get_the_pointer_appended() -> None:
    data = task(status="done")
    problems = validate_tasks([TaskSource("plan.json#/tasks/3", data, None)])
    assert [str(p) for p in problems] == [
        'plan.json#/tasks/3/status: status: status "done" is not one of pending, active, '
        "completed, blocked, container"
    ]


def test_json_pointer_escapes_slash_and_tilde() -> None:
    data = task()
    data["context"]["artifacts"] = {"a/b~c": 1}
    assert lines(data) == [
        f"{I1}#/context/artifacts: artifacts: context.artifacts must be an array of objects, got object"
    ]


def test_problems_come_by_file_then_in_document_order() -> None:
    first = task("IMPL-1", status="done", title="")
    first["flow_control"]["implementation_approach"][0]["step"] = 2
    # Fields in an unusual order: the problems follow the file, not a fixed rule order.
    second = {"flow_control": {"target_files": "x"}, "status": "nope", "id": "IMPL-2"}
    problems = set_lines(first, second)
    assert problems == [
        f"{I1}#/title: type: title must be a non-empty string, got an empty one",
        f'{I1}#/status: status: status "done" is not one of pending, active, completed, '
        "blocked, container",
        f"{I1}#/flow_control/implementation_approach/0/step: step-sequence: step 2 is at "
        "position 1; steps are numbered 1..n in array order, so 1 was expected",
        f'{where("IMPL-2")}: required: missing required field "title"',
        f'{where("IMPL-2")}: required: warning: missing required field "meta"; wfs reads it as '
        "empty, and `wfs migrate` writes it",
        f'{where("IMPL-2")}: required: warning: missing required field "context"; wfs reads it '
        "as empty, and `wfs migrate` writes it",
        f"{where('IMPL-2')}#/flow_control/target_files: target-files: flow_control.target_files "
        'must be an array of strings, got string "x"; wrap a single value in [ ]',
        f'{where("IMPL-2")}#/status: status: status "nope" is not one of pending, active, '
        "completed, blocked, container",
    ]
    assert set_lines(first, second) == problems  # deterministic


# ---------------------------------------------------------------- type / required


def test_type_task_must_be_an_object() -> None:
    assert lines(["IMPL-1"]) == [f"{I1}: type: a task must be a JSON object, got array"]


def test_required_reports_each_missing_field() -> None:
    # An id and a title are what a task cannot do without; the rest is read as empty
    # (status as pending), which `wfs migrate` writes.
    assert lines({"id": "IMPL-1", "title": "x"}) == [
        f'{I1}: required: warning: missing required field "meta"; wfs reads it as empty, and '
        "`wfs migrate` writes it",
        f'{I1}: required: warning: missing required field "context"; wfs reads it as empty, and '
        "`wfs migrate` writes it",
        f'{I1}: required: warning: missing required field "flow_control"; wfs reads it as empty, '
        "and `wfs migrate` writes it",
        f'{I1}: format: warning: no status: read as "pending"; `wfs migrate` writes it',
    ]
    assert lines({"status": "pending"}) == [
        f'{I1}: required: missing required field "id"',
        f'{I1}: required: missing required field "title"',
        f'{I1}: required: warning: missing required field "meta"; wfs reads it as empty, and '
        "`wfs migrate` writes it",
        f'{I1}: required: warning: missing required field "context"; wfs reads it as empty, and '
        "`wfs migrate` writes it",
        f'{I1}: required: warning: missing required field "flow_control"; wfs reads it as empty, '
        "and `wfs migrate` writes it",
    ]


def test_type_of_required_fields() -> None:
    data = task(id=7, title=3, status=None, meta=[], context="src", flow_control=None)
    assert lines(data) == [
        f'{I1}#/id: type: id must be a string such as "IMPL-1", got integer 7',
        f"{I1}#/title: type: title must be a non-empty string, got integer 3",
        f"{I1}#/status: type: status must be a string, one of pending, active, completed, "
        "blocked, container; got null",
        f"{I1}#/meta: type: meta must be an object, got array",
        f'{I1}#/context: type: context must be an object, got string "src"',
        f"{I1}#/flow_control: type: flow_control must be an object, got null",
    ]


def test_type_title_must_not_be_blank() -> None:
    assert lines(task(title="  ")) == [
        f"{I1}#/title: type: title must be a non-empty string, got an empty one"
    ]


# ---------------------------------------------------------------- ids


@pytest.mark.parametrize(
    ("tid", "message"),
    [
        (
            "IMPL-1.2.3",
            'task id "IMPL-1.2.3" has depth 3, which exceeds the 2-level maximum (IMPL-N.M)',
        ),
        (
            "IMPL-N",
            'task id "IMPL-N" is a template placeholder, not an id; N and M stand for numbers, '
            "e.g. IMPL-1 or IMPL-1.2",
        ),
        (
            "IMPL-N[.M]",
            'task id "IMPL-N[.M]" is a template placeholder, not an id; N and M stand for '
            "numbers, e.g. IMPL-1 or IMPL-1.2",
        ),
        (
            "IMPL-${group_number}",
            'task id "IMPL-${group_number}" contains the unfilled template placeholder '
            '"${group_number}"; expected IMPL-N or IMPL-N.M with numbers',
        ),
        (
            "IMPL-fix-{iteration}",
            'task id "IMPL-fix-{iteration}" contains the unfilled template placeholder '
            '"{iteration}"; expected IMPL-N or IMPL-N.M with numbers',
        ),
        (
            "REFACTOR-1.1",
            'task id "REFACTOR-1.1" has the prefix "REFACTOR-"; ids are IMPL-N or IMPL-N.M',
        ),
        (
            "IMPL-001.3-validation",
            'task id "IMPL-001.3-validation" has extra text "-validation" after IMPL-001.3; '
            "ids are IMPL-N or IMPL-N.M",
        ),
        ("IMPL-1 ", 'task id "IMPL-1 " has leading or trailing spaces'),
        ("", "task id is empty; expected IMPL-N or IMPL-N.M"),
        ("impl one", 'task id "impl one" does not match IMPL-N or IMPL-N.M (N and M are numbers)'),
    ],
)
def test_id_format_names_what_is_wrong(tid: str, message: str) -> None:
    assert lines(task(tid), stem=None) == [f"{I1}#/id: id-format: {message}"]


def test_id_filename_must_match() -> None:
    assert lines(task("IMPL-2"), stem="IMPL-1") == [
        f'{I1}#/id: id-filename: id "IMPL-2" does not match the file name IMPL-1.json'
    ]


def test_unique_id_names_both_files() -> None:
    one, two = task("IMPL-1"), task("IMPL-1")
    sources = [TaskSource("a.json", one, None), TaskSource("b.json", two, None)]
    assert [str(p) for p in validate_tasks(sources)] == [
        "b.json#/id: unique-id: duplicate id IMPL-1: also used by a.json"
    ]


# ---------------------------------------------------------------- status


def test_status_copied_enum_is_called_out() -> None:
    assert lines(task(status="pending|active|completed")) == [
        f'{I1}#/status: status: status "pending|active|completed" is the list of allowed values '
        "copied from a template; choose one of pending, active, completed, blocked, container"
    ]


def test_status_unknown_value_suggests_the_closest() -> None:
    assert lines(task(status="complete")) == [
        f'{I1}#/status: status: status "complete" is not one of pending, active, completed, '
        'blocked, container; did you mean "completed"?'
    ]


def test_status_consistency_a_task_with_subtasks_is_a_container() -> None:
    parent = task("IMPL-1")
    by_id = with_context("IMPL-1.1", parent="IMPL-1")
    by_parent_field = with_context("IMPL-1.2")  # subtask by its id alone
    assert set_lines(parent, by_id, by_parent_field) == [
        f"{I1}#/status: status-consistency: IMPL-1 has subtasks (IMPL-1.1, IMPL-1.2), so its "
        'status must be "container", not "pending"'
    ]


def test_status_consistency_a_leaf_is_not_a_container() -> None:
    assert set_lines(task("IMPL-1", status="container")) == [
        f'{I1}#/status: status-consistency: status is "container" but no task has IMPL-1 as its '
        "parent; a task without subtasks is pending, active, completed or blocked"
    ]


# ---------------------------------------------------------------- parent


def test_parent_must_exist() -> None:
    child = with_context("IMPL-1.1", parent="IMPL-1")
    assert set_lines(child) == [
        f'{where("IMPL-1.1")}#/context/parent: parent: context.parent "IMPL-1" does not exist'
    ]


def test_parent_subtask_needs_its_main_task() -> None:
    assert set_lines(task("IMPL-2.1")) == [
        f"{where('IMPL-2.1')}#/id: parent: subtask IMPL-2.1 needs its main task IMPL-2, "
        "which does not exist"
    ]


def test_parent_must_be_a_main_task() -> None:
    data = with_context("IMPL-1.2", parent="IMPL-1.1")
    assert lines(data, "IMPL-1.2") == [
        f'{where("IMPL-1.2")}#/context/parent: parent: context.parent "IMPL-1.1" is a subtask; '
        "a parent must be a main task (IMPL-N), since tasks have at most 2 levels"
    ]


def test_parent_must_agree_with_the_id() -> None:
    assert lines(with_context("IMPL-1.2", parent="IMPL-2"), "IMPL-1.2") == [
        f'{where("IMPL-1.2")}#/context/parent: parent: context.parent "IMPL-2" does not match '
        "the id IMPL-1.2, whose main task is IMPL-1"
    ]
    assert lines(with_context("IMPL-3", parent="IMPL-2"), "IMPL-3") == [
        f"{where('IMPL-3')}#/context/parent: parent: main task IMPL-3 names context.parent "
        '"IMPL-2"; a subtask of IMPL-2 must have an id like IMPL-2.1'
    ]


def test_parent_placeholder_and_wrong_type() -> None:
    assert lines(with_context(parent="IMPL-N")) == [
        f'{I1}#/context/parent: parent: context.parent "IMPL-N" is a template placeholder, not '
        "an id; N and M stand for numbers, e.g. IMPL-1 or IMPL-1.2"
    ]
    assert lines(with_context(parent=1)) == [
        f"{I1}#/context/parent: parent: context.parent must be a task id string, got integer 1"
    ]
    assert lines(with_context(parent=None)) == []


# ---------------------------------------------------------------- meta


def test_meta_type_copied_enum_is_an_error() -> None:
    data = task(meta={"type": "feature|bugfix|refactor|test|docs"})
    assert lines(data) == [
        f'{I1}#/meta/type: meta: meta.type "feature|bugfix|refactor|test|docs" is the list of '
        "allowed values copied from a template; choose one of feature, bugfix, refactor, "
        "test-gen, test-fix, docs, test"
    ]


def test_meta_type_of_a_project_own_kind_is_accepted() -> None:
    # wfs uses the type only to pick a default agent; projects and other tools have their
    # own kinds (docs-tree, infrastructure, backend), which no migration could change.
    for kind in ("docs-tree", "infrastructure", "backend"):
        assert lines(task(meta={"type": kind})) == []
    assert lines(task(meta={"type": 3})) == [
        f"{I1}#/meta/type: meta: meta.type must be one of feature, bugfix, refactor, test-gen, "
        "test-fix, docs, test; got integer 3"
    ]


def test_meta_agent_names_an_agent_with_or_without_the_at() -> None:
    for name in ("general-purpose", "codex", "gemini", "claude", "@code-developer"):
        assert lines(task(meta={"agent": name})) == [], name
    assert lines(task(meta={"agent": " "})) == [
        f'{I1}#/meta/agent: meta: meta.agent must name an agent, such as "@code-developer" or '
        '"codex", got an empty string'
    ]
    assert lines(task(meta={"agent": "@code-developer|@test-fix-agent"})) == [
        f'{I1}#/meta/agent: meta: meta.agent "@code-developer|@test-fix-agent" is the list of '
        "choices copied from a template; choose one agent"
    ]
    assert lines(task(meta={"agent": ["@a"]})) == [
        f'{I1}#/meta/agent: meta: meta.agent must be a string such as "@code-developer", got array'
    ]
    assert lines(task(meta={"agent": "@doc-generator"})) == []


# ---------------------------------------------------------------- context


def test_context_type_arrays_of_strings() -> None:
    data = with_context(requirements="JWT", acceptance=["ok", 3], depends_on={"IMPL-2": 1})
    assert lines(data) == [
        f"{I1}#/context/requirements: context-type: context.requirements must be an array of "
        'strings, got string "JWT"; wrap a single value in [ ]',
        f"{I1}#/context/acceptance/1: context-type: context.acceptance entries must be strings, "
        "got integer 3",
        f"{I1}#/context/depends_on: context-type: context.depends_on must be an array of "
        "strings, got object",
    ]


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("src/**/*.ts", "contains the wildcard '*'; list concrete directories or files instead"),
        ("src/auth?", "contains the wildcard '?'; list concrete directories or files instead"),
        ("src/[0-9]", "contains the wildcard '['; list concrete directories or files instead"),
        ("src/x[ab]", "contains the wildcard '['; list concrete directories or files instead"),
        ("src/{a,b", "contains the wildcard '{'; list concrete directories or files instead"),
        ("/etc/app", "is absolute; focus paths are relative to the project root"),
        ("D:\\project\\src", "is absolute; focus paths are relative to the project root"),
        ("~/src", "starts with '~'; focus paths are relative to the project root"),
        ("src/../secrets", "contains '..'; focus paths stay inside the project"),
        ("./src/auth", "starts with './'; write \"src/auth\""),
        ("${module_paths}", 'contains the unfilled template placeholder "${module_paths}"'),
    ],
)
def test_focus_paths_must_be_concrete(path: str, message: str) -> None:
    data = with_context(focus_paths=["src/ok", path])
    shown = json.dumps(path)
    assert lines(data) == [
        f"{I1}#/context/focus_paths/1: focus-paths: focus path {shown} {message}"
    ]


def test_focus_paths_accept_directories_files_and_the_root() -> None:
    assert (
        lines(with_context(focus_paths=["src/auth", "tests/", "config/a.json", ".", "a..b"])) == []
    )


def test_a_next_js_route_segment_is_a_name_not_a_wildcard() -> None:
    routes = ["app/[id]/page.tsx", "pages/[slug].tsx", "app/[...slug]", "app/[[...all]]/page.tsx"]
    assert lines(with_context(focus_paths=routes)) == []


def test_artifacts_type_priority_and_path() -> None:
    data = with_context(
        artifacts=[
            {"type": "role_analyses", "path": ".workflow/WFS-x/.brainstorming/*/a.md"},
            {"type": "role_analyses|topic_framework", "priority": "critical", "path": "/abs/a.md"},
            {"path": ""},
            # shapes other tools write: a path, an object of their own, another type
            "notes.md",
            {"type": "route", "location": "src/a.ts:11"},
            {"type": "synthesis_specification", "path": "a.md"},
            "/etc/passwd",
            3,
        ]
    )
    assert lines(data) == [
        f'{I1}#/context/artifacts/1/type: artifacts: artifact type "role_analyses|topic_framework" '
        "is the list of allowed values copied from a template; choose one of role_analyses, "
        "topic_framework, individual_role_analysis",
        f'{I1}#/context/artifacts/1/priority: artifacts: artifact priority "critical" is not one '
        "of highest, high, medium, low",
        f'{I1}#/context/artifacts/1/path: artifacts: artifact path "/abs/a.md" is absolute; '
        "paths are relative to the project root",
        f"{I1}#/context/artifacts/2/path: artifacts: artifact path must be a non-empty string, "
        'got string ""',
        f'{I1}#/context/artifacts/6: artifacts: artifact path "/etc/passwd" is absolute; '
        "paths are relative to the project root",
        f"{I1}#/context/artifacts/7: artifacts: an artifact must be an object with type and "
        "path, or a path; got integer 3",
    ]


# ---------------------------------------------------------------- task dependencies


def test_depends_on_targets_must_exist() -> None:
    assert set_lines(with_context("IMPL-1", depends_on=["IMPL-9"])) == [
        f"{I1}#/context/depends_on/0: depends-on: IMPL-1 depends on IMPL-9, which does not exist"
    ]


def test_depends_on_self_parent_and_child() -> None:
    parent = with_context("IMPL-1", depends_on=["IMPL-1", "IMPL-1.1", "IMPL-1.2"])
    parent["status"] = "container"
    # A subtask that says so (context.parent) cannot wait for its parent; without it,
    # IMPL-1.1 depending on IMPL-1 is a gate (test_gate_tasks_are_tasks_of_their_own).
    child = with_context("IMPL-1.1", depends_on=["IMPL-1"], parent="IMPL-1")
    adopted = with_context("IMPL-1.2")  # a subtask by id
    assert set_lines(parent, child, adopted) == [
        f"{I1}#/context/depends_on/0: depends-on: IMPL-1 depends on itself",
        f"{I1}#/context/depends_on/1: depends-on: IMPL-1 depends on its own subtask IMPL-1.1; "
        "subtasks inherit their parent's dependencies, so IMPL-1.1 would wait for itself",
        f"{I1}#/context/depends_on/2: depends-on: IMPL-1 depends on its own subtask IMPL-1.2; "
        "subtasks inherit their parent's dependencies, so IMPL-1.2 would wait for itself",
        f"{where('IMPL-1.1')}#/context/depends_on/0: depends-on: IMPL-1.1 depends on its own "
        "parent IMPL-1, which completes only after its subtasks",
    ]


def test_depends_on_placeholder_entries_are_named() -> None:
    assert lines(with_context(depends_on=["IMPL-N.M", "TEST-1.1"])) == [
        f'{I1}#/context/depends_on/0: depends-on: depends_on entry "IMPL-N.M" is a template '
        "placeholder, not an id; N and M stand for numbers, e.g. IMPL-1 or IMPL-1.2",
        f'{I1}#/context/depends_on/1: depends-on: depends_on entry "TEST-1.1" has the prefix '
        '"TEST-"; ids are IMPL-N or IMPL-N.M',
    ]


def test_depends_on_elsewhere_is_read_with_a_warning_naming_migrate() -> None:
    assert lines(task(depends_on=["IMPL-2"])) == [
        f"{I1}#/depends_on: format: warning: depends_on is read as context.depends_on; "
        "`wfs migrate` moves it"
    ]
    data = task(dependencies=["IMPL-3"])
    data["meta"]["depends_on"] = ["IMPL-2", "IMPL-N"]
    assert lines(data) == [
        f"{I1}#/meta/depends_on: format: warning: meta.depends_on is read as context.depends_on; "
        "`wfs migrate` moves it",
        f'{I1}#/meta/depends_on/1: depends-on: depends_on entry "IMPL-N" is a template '
        "placeholder, not an id; N and M stand for numbers, e.g. IMPL-1 or IMPL-1.2",
        f"{I1}#/dependencies: format: warning: dependencies is read as context.depends_on; "
        "`wfs migrate` moves it",
    ]
    # a project's own `dependencies` (packages) is not read as task dependencies
    assert lines(task(dependencies=["react", "zustand"])) == []


def test_dependency_cycle_is_reported_once_with_its_path() -> None:
    one = with_context("IMPL-1", depends_on=["IMPL-2"])
    two = with_context("IMPL-2", depends_on=["IMPL-3"])
    three = with_context("IMPL-3", depends_on=["IMPL-1"])
    assert set_lines(three, two, one) == [
        f"{I1}#/context/depends_on: dependency-cycle: dependency cycle: "
        "IMPL-1 -> IMPL-2 -> IMPL-3 -> IMPL-1"
    ]


def test_dependency_cycle_through_a_container_means_all_its_children() -> None:
    one = with_context("IMPL-1", depends_on=["IMPL-2"])
    two = task("IMPL-2", status="container")
    child = with_context("IMPL-2.1", depends_on=["IMPL-1"])
    assert set_lines(one, two, child) == [
        f"{I1}#/context/depends_on: dependency-cycle: dependency cycle: "
        "IMPL-1 -> IMPL-2 -> IMPL-2.1 -> IMPL-1 (IMPL-2 is a container and waits for its subtasks)"
    ]


def test_dependency_cycle_through_inherited_parent_dependencies() -> None:
    parent = with_context("IMPL-1", depends_on=["IMPL-2"])
    parent["status"] = "container"
    child = task("IMPL-1.1")
    other = with_context("IMPL-2", depends_on=["IMPL-1.1"])
    assert set_lines(parent, child, other) == [
        f"{where('IMPL-1.1')}#/context/depends_on: dependency-cycle: dependency cycle: "
        "IMPL-1.1 -> IMPL-2 -> IMPL-1.1 "
        "(IMPL-1.1 inherits the dependencies of its parent IMPL-1)"
    ]


def test_chains_and_diamonds_are_not_cycles() -> None:
    one = task("IMPL-1")
    two = with_context("IMPL-2", depends_on=["IMPL-1"])
    three = with_context("IMPL-3", depends_on=["IMPL-1", "IMPL-2"])
    four = with_context("IMPL-4", depends_on=["IMPL-2", "IMPL-3"])
    assert set_lines(one, two, three, four) == []


# ---------------------------------------------------------------- pre_analysis


def test_pre_analysis_must_be_an_array() -> None:
    assert lines(with_flow(pre_analysis="bash(ls)")) == [
        f"{I1}#/flow_control/pre_analysis: pre-analysis: flow_control.pre_analysis must be an "
        'array of steps, got string "bash(ls)"'
    ]
    # An object (objectives, key patterns, ...) is notes for the agent, not steps to run.
    assert lines(with_flow(pre_analysis={"objectives": ["x"]})) == [
        f"{I1}#/flow_control/pre_analysis: format: warning: flow_control.pre_analysis is an "
        "object, not a list of steps: it is read as notes for the agent (context.analysis); "
        "`wfs migrate` moves it"
    ]


def test_pre_analysis_step_fields() -> None:
    steps = [
        {"step": "ok", "action": "Look", "command": "bash(ls)", "output_to": "listing"},
        {"action": 5},
        {"step": "", "action": "x", "commands": {}},
        {"step": "multi", "action": "x", "commands": ["Read(a)", " "]},
        "bash(ls)",
        {"step": "context", "action": "Read what matters", "commands": []},  # for the agent
    ]
    assert lines(with_flow(pre_analysis=steps)) == [
        f'{I1}#/flow_control/pre_analysis/1: pre-analysis: pre_analysis step has no "step" name',
        f'{I1}#/flow_control/pre_analysis/1/action: pre-analysis: "action" must be a string, '
        "got integer 5",
        f'{I1}#/flow_control/pre_analysis/2/step: pre-analysis: "step" must be a non-empty '
        'name, got string ""',
        f'{I1}#/flow_control/pre_analysis/2/commands: pre-analysis: "commands" must be an '
        "array of command strings, got object",
        f"{I1}#/flow_control/pre_analysis/3/commands/1: pre-analysis: each command must be a "
        'non-empty string, got string " "',
        f"{I1}#/flow_control/pre_analysis/4: pre-analysis: a pre_analysis step must be an object "
        'with step, action and command, got string "bash(ls)"',
    ]


def test_pre_analysis_missing_action_is_only_a_warning() -> None:
    steps = [{"step": "load", "command": "bash(cat a)", "output_to": "a"}]
    problems = validate_task(TaskSource(I1, with_flow(pre_analysis=steps), "IMPL-1"))
    assert [str(p) for p in problems] == [
        f"{I1}#/flow_control/pre_analysis/0: pre-analysis: warning: pre_analysis step has no "
        '"action" (its human-readable description); `wfs migrate` sets it to the step name'
    ]


def test_pre_analysis_output_on_error_success_criteria_and_timeout() -> None:
    base = {"step": "s", "action": "a", "command": "bash(true)"}
    steps = [
        {**base, "output_to": "2bad", "on_error": "skip_optional|fail|retry_once"},
        {**base, "on_error": "warn", "success_criteria": "exit_code:zero", "timeout": 0},
        {**base, "success_criteria": "regex:([a-z]", "timeout": "30"},
        {**base, "success_criteria": "contains:", "command": ""},
        {**base, "success_criteria": "matches:x"},
        {**base, "success_criteria": "not_empty", "timeout": 1.5, "on_error": "retry_once"},
        {**base, "success_criteria": "exit_code:0"},
        {**base, "success_criteria": "contains:OK"},
        {**base, "success_criteria": "regex:^ok$", "on_error": "manual_intervention"},
        {**base, "command": "bash(cat [2bad])"},
    ]
    assert lines(with_flow(pre_analysis=steps)) == [
        f'{I1}#/flow_control/pre_analysis/0/output_to: pre-analysis: output_to "2bad" is used '
        "as [2bad] at #/flow_control/pre_analysis/9; a name that later steps use as [name] "
        "must be a variable name (letters, digits and _, not starting with a digit)",
        f"{I1}#/flow_control/pre_analysis/0/on_error: pre-analysis: on_error "
        '"skip_optional|fail|retry_once" is the list of allowed values copied from a template; '
        "choose one of skip_optional, fail, retry_once, manual_intervention",
        f'{I1}#/flow_control/pre_analysis/1/on_error: format: warning: on_error "warn" is read '
        'as "skip_optional", the nearest strategy (a failure does not stop the task); '
        '`wfs migrate` writes "skip_optional"',
        f"{I1}#/flow_control/pre_analysis/1/success_criteria: pre-analysis: success_criteria "
        '"exit_code:zero": exit_code needs an integer, e.g. exit_code:0',
        f"{I1}#/flow_control/pre_analysis/1/timeout: pre-analysis: timeout must be a positive "
        "number of seconds up to a week (604800), got integer 0",
        f"{I1}#/flow_control/pre_analysis/2/success_criteria: pre-analysis: success_criteria "
        '"regex:([a-z]": the regular expression does not compile: missing ), unterminated '
        "subpattern at position 0",
        f"{I1}#/flow_control/pre_analysis/2/timeout: pre-analysis: timeout must be a positive "
        'number of seconds up to a week (604800), got string "30"',
        f'{I1}#/flow_control/pre_analysis/3/command: pre-analysis: "command" must be a '
        'non-empty string, got string ""',
        f"{I1}#/flow_control/pre_analysis/3/success_criteria: pre-analysis: success_criteria "
        '"contains:": contains needs the text to look for',
        f"{I1}#/flow_control/pre_analysis/4/success_criteria: pre-analysis: success_criteria "
        '"matches:x" is not one of exit_code:N, contains:TEXT, regex:PAT or not_empty',
    ]


def test_step_with_both_command_and_commands_is_a_warning() -> None:
    steps = [{"step": "s", "action": "a", "command": "bash(a)", "commands": ["bash(b)"]}]
    assert lines(with_flow(pre_analysis=steps)) == [
        f'{I1}#/flow_control/pre_analysis/0: pre-analysis: warning: step has both "command" and '
        '"commands"; only "commands" is run'
    ]


# ---------------------------------------------------------------- implementation_approach


def test_implementation_approach_must_be_an_array() -> None:
    assert lines(with_flow(implementation_approach="do it")) == [
        f"{I1}#/flow_control/implementation_approach: implementation-approach: "
        'flow_control.implementation_approach must be an array of steps, got string "do it"'
    ]
    # Another object than the v1 form (strategy, phases, ...) runs as one step holding it.
    assert lines(with_flow(implementation_approach={"strategy": "s", "phases": []})) == [
        f"{I1}#/flow_control/implementation_approach: format: warning: implementation_approach "
        "is an object, not the step array of the task format; it is read as one step holding it, and "
        "`wfs migrate` converts it to the step array"
    ]


def test_legacy_object_approach_is_a_warning_not_an_error() -> None:
    legacy = {"task_description": "Do it", "modification_points": ["a"], "logic_flow": "x"}
    problems = validate_task(TaskSource(I1, with_flow(implementation_approach=legacy), "IMPL-1"))
    assert [str(p) for p in problems] == [
        f"{I1}#/flow_control/implementation_approach: legacy-approach: warning: "
        "implementation_approach uses the v1 object form (task_description, modification_points, "
        "logic_flow); it is read as one step, and `wfs migrate` converts it to the step array",
        f"{I1}#/flow_control/implementation_approach/logic_flow: implementation-approach: "
        'implementation_approach.logic_flow must be an array of strings, got string "x"; '
        "wrap a single value in [ ]",
    ]
    assert [p.severity for p in problems] == ["warning", "error"]


def test_implementation_step_without_work_is_an_error_and_missing_fields_are_warnings() -> None:
    steps = [
        {"on_error": "fail", "timeout": 5},
        {"step": 2, "title": "t", "output": "o"},
        {"description": "unnumbered"},
        {"phase": "L0.1 Compilation Check", "validation": "tsc --noEmit"},  # a gate's step
    ]
    assert lines(with_flow(implementation_approach=steps)) == [
        f"{I1}#/flow_control/implementation_approach/0: implementation-approach: step has "
        "nothing to do: it has none of title, description, action, phase, modification_points, "
        "logic_flow, steps, command, commands",
        f"{I1}#/flow_control/implementation_approach/1: implementation-approach: warning: step "
        "lacks the fields description, modification_points, logic_flow, depends_on of the task "
        "format (docs/formats.md); it runs as written, and `wfs migrate` fills them in",
        f"{I1}#/flow_control/implementation_approach/2: implementation-approach: warning: step "
        "lacks the fields step, title, modification_points, logic_flow, depends_on, output of "
        "the task format (docs/formats.md); it runs as written, and `wfs migrate` fills them in",
        f"{I1}#/flow_control/implementation_approach/3: implementation-approach: warning: step "
        "lacks the fields step, title, description, modification_points, logic_flow, "
        "depends_on, output of the task format (docs/formats.md); it runs as written, and `wfs migrate` fills them in",
    ]


def test_implementation_step_field_types() -> None:
    bad = step(1, title=None, description=["x"], modification_points="a", logic_flow=[1])
    bad["output"] = 3
    bad["step"] = "1"
    assert lines(with_flow(implementation_approach=[bad, "step 2"])) == [
        f'{I1}#/flow_control/implementation_approach/0/step: implementation-approach: "step" '
        'must be a step number (1, 2, 3, ...), got string "1"; expected 1',
        f"{I1}#/flow_control/implementation_approach/0/title: implementation-approach: title "
        "must be a string, got null",
        f"{I1}#/flow_control/implementation_approach/0/description: implementation-approach: "
        "description must be a string, got array",
        f"{I1}#/flow_control/implementation_approach/0/modification_points: "
        'implementation-approach: modification_points must be an array of strings, got string "a"; '
        "wrap a single value in [ ]",
        f"{I1}#/flow_control/implementation_approach/0/logic_flow/0: implementation-approach: "
        "logic_flow entries must be strings, got integer 1",
        f"{I1}#/flow_control/implementation_approach/0/output: implementation-approach: output "
        "must be a string (a variable name that later steps use as [name], or a label), got "
        "integer 3",
        f"{I1}#/flow_control/implementation_approach/1: implementation-approach: warning: "
        "step is a string, not a step object; it runs as an agent step with this text, and "
        "`wfs migrate` makes it a step object",
    ]


def test_implementation_step_commands_and_run_options() -> None:
    one = step(1, command="bash(npm test)", on_error="retry_once", timeout=60)
    two = step(2, 1, commands="npm test", on_error="explode", success_criteria="exit_code:1")
    three = step(3, 2, commands=[])  # no commands: the agent does the step
    assert lines(with_flow(implementation_approach=[one, two, three])) == [
        f"{I1}#/flow_control/implementation_approach/1/commands: implementation-approach: "
        '"commands" must be an array of command strings, got string "npm test"',
        f"{I1}#/flow_control/implementation_approach/1/on_error: implementation-approach: "
        'on_error "explode" is not one of skip_optional, fail, retry_once, manual_intervention',
    ]


def test_step_sequence_says_which_number_was_expected() -> None:
    steps = [step(1), step(3, 1), step(2, 1)]
    assert lines(with_flow(implementation_approach=steps)) == [
        f"{I1}#/flow_control/implementation_approach/1/step: step-sequence: step 3 is at "
        "position 2; steps are numbered 1..n in array order, so 2 was expected",
        f"{I1}#/flow_control/implementation_approach/2/step: step-sequence: step 2 is at "
        "position 3; steps are numbered 1..n in array order, so 3 was expected",
    ]


def test_duplicate_step_numbers() -> None:
    steps = [step(1), step(1, output="again")]
    assert lines(with_flow(implementation_approach=steps)) == [
        f"{I1}#/flow_control/implementation_approach/1/step: duplicate-step: step number 1 is "
        "already used by the step at position 1; expected 2",
    ]


def test_step_depends_on_must_name_earlier_steps() -> None:
    steps = [step(1, 2), step(2, 1, 2, 7), step(3, 1, 2), {**step(4), "depends_on": ["1", 0]}]
    steps.append({**step(5), "depends_on": 1})
    assert lines(with_flow(implementation_approach=steps)) == [
        f"{I1}#/flow_control/implementation_approach: step-cycle: steps depend on each other "
        "in a cycle: 1 -> 2 -> 1",
        f"{I1}#/flow_control/implementation_approach/0/depends_on/0: step-depends-on: step 1 "
        "depends on step 2, which comes later; a step may depend only on earlier steps",
        f"{I1}#/flow_control/implementation_approach/1/depends_on/1: step-depends-on: step 2 "
        "depends on itself",
        f"{I1}#/flow_control/implementation_approach/1/depends_on/2: step-depends-on: step 2 "
        "depends on step 7, which does not exist",
        f"{I1}#/flow_control/implementation_approach/3/depends_on/0: step-depends-on: "
        'depends_on entries must be step numbers, got string "1"',
        f"{I1}#/flow_control/implementation_approach/3/depends_on/1: step-depends-on: step 4 "
        "depends on step 0, which does not exist",
        f"{I1}#/flow_control/implementation_approach/4/depends_on: step-depends-on: depends_on "
        "must be an array of earlier step numbers, got integer 1",
    ]


def test_step_cycle_of_three_is_reported_once() -> None:
    steps = [step(1, 3), step(2, 1), step(3, 2)]
    problems = lines(with_flow(implementation_approach=steps))
    assert problems[0] == (
        f"{I1}#/flow_control/implementation_approach: step-cycle: steps depend on each other in "
        "a cycle: 1 -> 3 -> 2 -> 1"
    )
    assert [p for p in problems if "step-cycle" in p] == problems[:1]


def test_duplicate_output_across_both_phases() -> None:
    pre = [{"step": "load", "action": "a", "command": "bash(ls)", "output_to": "design"}]
    steps = [step(1, output="design"), step(2, 1, output="result"), step(3, 2, output="result")]
    assert lines(with_flow(pre_analysis=pre, implementation_approach=steps)) == [
        f"{I1}#/flow_control/implementation_approach/0/output: duplicate-output: output name "
        '"design" is already bound at #/flow_control/pre_analysis/0/output_to',
        f"{I1}#/flow_control/implementation_approach/2/output: duplicate-output: output name "
        '"result" is already bound at #/flow_control/implementation_approach/1/output',
    ]


def test_target_files_must_be_strings() -> None:
    assert lines(with_flow(target_files=["src/a.ts:handle:1-9", None])) == [
        f"{I1}#/flow_control/target_files/1: target-files: flow_control.target_files entries "
        "must be strings, got null"
    ]


# ---------------------------------------------------------------- robustness


GARBAGE: list[Any] = [None, True, 0, -1.5, "", "x", [], [None], {}, {"a": [1]}]


@pytest.mark.slow
@pytest.mark.parametrize("junk", GARBAGE)
def test_any_json_value_anywhere_gives_problems_not_exceptions(junk: Any) -> None:
    base = seed_jwt_task()
    paths: list[list[Any]] = []

    def collect(value: Any, path: list[Any]) -> None:
        paths.append(path)
        if isinstance(value, dict):
            for key, item in value.items():
                collect(item, [*path, key])
        elif isinstance(value, list):
            for i, item in enumerate(value):
                collect(item, [*path, i])

    collect(base, [])
    for path in paths[1:]:
        data = copy.deepcopy(base)
        target = data
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = copy.deepcopy(junk)
        for problem in validate_tasks([TaskSource("t.json", data, "IMPL-1.2")]):
            assert str(problem).startswith("t.json")
    assert validate_task(TaskSource("t.json", junk, None))[0].rule in ("type", "required")


# ---------------------------------------------------------------- sessions


def session(sid: str = "WFS-x", **fields: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "session_id": sid,
        "project": "x",
        "type": "simple",
        "current_phase": "PLAN",
        "status": "active",
        "progress": {"completed_phases": [], "current_tasks": []},
    }
    data.update(fields)
    return data


SESSION = ".workflow/WFS-x/workflow-session.json"


def session_lines(data: Any) -> list[str]:
    return [str(p) for p in validate_session_data(data, SESSION)]


def test_session_valid() -> None:
    assert session_lines(session()) == []


def test_session_id_must_match_its_folder() -> None:
    assert session_lines(session("WFS-y")) == [
        f'{SESSION}#/session_id: session-id: session_id "WFS-y" does not match its folder WFS-x'
    ]
    assert session_lines(session("x")) == [
        f'{SESSION}#/session_id: session-id: session_id "x" must look like WFS-<slug>'
    ]


def test_session_enums_and_required_fields() -> None:
    data = session(type="simple|medium|complex", current_phase="BUILD", status="a|b")
    del data["progress"]
    assert session_lines(data) == [
        f'{SESSION}: required: warning: session file has no "progress"; wfs derives it from the '
        "tasks, and `wfs migrate` writes it",
        f'{SESSION}#/type: session-type: type "simple|medium|complex" is the list of allowed '
        "values copied from a template; choose one of simple, medium, complex",
        f'{SESSION}#/current_phase: current-phase: current_phase "BUILD" is not one of PLAN, '
        "IMPLEMENT, REVIEW",
        f'{SESSION}#/status: session-status: status "a|b" is the list of allowed values copied '
        "from a template; choose one of active, paused, completed",
    ]


def test_session_files_of_other_tools_are_read_with_warnings_naming_migrate() -> None:
    # Real session files: another tool's status and kind of session, no phase or progress.
    data = {"session_id": "WFS-x", "project": "x", "status": "planning", "type": "workflow"}
    assert session_lines(data) == [
        f'{SESSION}: required: warning: session file has no "current_phase"; wfs derives it from '
        "the tasks, and `wfs migrate` writes it",
        f'{SESSION}: required: warning: session file has no "progress"; wfs derives it from the '
        "tasks, and `wfs migrate` writes it",
    ]
    assert session_lines({}) == [
        f'{SESSION}: required: warning: session file has no "session_id"; wfs takes it from the '
        "folder name, and `wfs migrate` writes it",
        f'{SESSION}: required: warning: session file has no "type"; wfs derives the complexity '
        "from the number of tasks, and `wfs migrate` writes it",
        f'{SESSION}: required: warning: session file has no "current_phase"; wfs derives it from '
        "the tasks, and `wfs migrate` writes it",
        f'{SESSION}: required: warning: session file has no "status"; wfs reads it from where '
        "the session is (active, paused or completed), and `wfs migrate` writes it",
        f'{SESSION}: required: warning: session file has no "progress"; wfs derives it from the '
        "tasks, and `wfs migrate` writes it",
    ]


def test_session_progress_shape() -> None:
    assert session_lines(session(progress=[])) == [
        f"{SESSION}#/progress: progress: progress must be an object with completed_phases and "
        "current_tasks, got array"
    ]
    data = session(progress={"completed_phases": ["PLAN", "TEST"], "current_tasks": [1]})
    assert session_lines(data) == [
        f'{SESSION}#/progress/completed_phases/1: progress: completed phase "TEST" is not one of '
        "PLAN, IMPLEMENT, REVIEW",
        f"{SESSION}#/progress/current_tasks/0: progress: progress.current_tasks entries must be "
        "strings, got integer 1",
    ]
    assert session_lines(session(progress={"completed_phases": "PLAN"})) == [
        f'{SESSION}#/progress: progress: progress has no "current_tasks"',
        f"{SESSION}#/progress/completed_phases: progress: progress.completed_phases must be an "
        'array of phase names, got string "PLAN"',
    ]


def test_session_file_must_be_an_object() -> None:
    assert session_lines([]) == [
        f"{SESSION}: type: a session file must be a JSON object, got array"
    ]


def write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = data if isinstance(data, str) else json.dumps(data, indent=2)
    path.write_text(text, encoding="utf-8")


def make_session(root: Path, tasks: list[dict[str, Any]], sid: str = "WFS-x") -> Layout:
    layout = Layout(root)
    write(layout.session_file(sid), session(sid))
    for data in tasks:
        write(layout.task_dir(sid) / f"{data['id']}.json", data)
    return layout


def test_validate_session_on_disk_is_clean_for_the_seed_example(tmp_path: Path) -> None:
    layout = make_session(tmp_path, jwt_family())
    assert validate_session(layout, "WFS-x") == []


def test_validate_session_reports_malformed_json_with_line_and_column(tmp_path: Path) -> None:
    layout = make_session(tmp_path, jwt_family())
    write(layout.task_dir("WFS-x") / "IMPL-1.1.json", '{\n  "id": "IMPL-1.1",\n  "title": }\n')
    assert [str(p) for p in validate_session(layout, "WFS-x")] == [
        ".workflow/WFS-x/.task/IMPL-1.1.json:3:12: json: "
        "invalid JSON: unexpected character, expected a JSON value"
    ]  # and IMPL-1.2's dependency on the unreadable IMPL-1.1 is not reported as missing


def test_validate_session_orders_by_file_then_document(tmp_path: Path) -> None:
    two = with_context("IMPL-2", depends_on=["IMPL-10"])
    ten = task("IMPL-10", status="paused")
    layout = make_session(tmp_path, [ten, two, task("IMPL-1")])
    write(layout.session_file("WFS-x"), session("WFS-x", current_phase="DONE"))
    write(layout.task_dir("WFS-x") / "IMPL-3.json", task("IMPL-4"))
    assert [str(p) for p in validate_session(layout, "WFS-x")] == [
        f'{SESSION}#/current_phase: current-phase: current_phase "DONE" is not one of PLAN, '
        "IMPLEMENT, REVIEW",
        f'{where("IMPL-3")}#/id: id-filename: id "IMPL-4" does not match the file name IMPL-3.json',
        f'{where("IMPL-10")}#/status: status: status "paused" is not one of pending, active, '
        "completed, blocked, container",
    ]


def test_validate_session_with_missing_session_file_and_bad_task_type(tmp_path: Path) -> None:
    layout = Layout(tmp_path)
    write(layout.task_dir("WFS-x") / "IMPL-1.json", "[1, 2]")
    assert [str(p) for p in validate_session(layout, "WFS-x")] == [
        f"{SESSION}: file: file not found",
        f"{I1}: type: a task must be a JSON object, got array",
    ]


def test_validate_session_reports_invalid_utf8(tmp_path: Path) -> None:
    layout = make_session(tmp_path, [task("IMPL-1")])
    (layout.task_dir("WFS-x") / "IMPL-1.json").write_bytes(b'{"id": "\xff"}')
    assert [str(p) for p in validate_session(layout, "WFS-x")] == [
        f"{I1}:1:9: json: invalid JSON: not valid UTF-8 (byte 0xff)"
    ]


# ---------------------------------------------------------------- migration


def test_is_legacy_approach() -> None:
    assert is_legacy_approach({"task_description": "x"})
    assert not is_legacy_approach([step(1)])
    assert not is_legacy_approach({"modification_points": []})
    assert not is_legacy_approach(None)


def test_migrate_task_converts_the_v1_object_form() -> None:
    v1 = json.loads((FIXTURES / "seed-v1-IMPL-1.2.json").read_text("utf-8"))
    before = copy.deepcopy(v1)
    new, changed = migrate_task(v1)
    assert changed and v1 == before  # the input is left alone
    assert list(new) == list(v1)
    assert list(new["flow_control"]) == list(v1["flow_control"])
    legacy = v1["flow_control"]["implementation_approach"]
    assert new["flow_control"]["implementation_approach"] == [
        {
            "step": 1,
            "title": "Implement JWT authentication",
            "description": legacy["task_description"],
            "modification_points": legacy["modification_points"],
            "logic_flow": legacy["logic_flow"],
            "depends_on": [],
            "output": "implementation",
        }
    ]
    for key in ("id", "title", "status", "meta", "context"):
        assert new[key] == v1[key]
    assert new["flow_control"]["pre_analysis"] == v1["flow_control"]["pre_analysis"]
    assert validate_task(TaskSource("t.json", new, "IMPL-1.2")) == []


def test_migrate_task_fills_missing_lists_and_keeps_unknown_v1_keys() -> None:
    legacy = {"task_description": "Write docs", "generation_steps": ["a"]}
    data = with_flow(
        implementation_approach=legacy,
        pre_analysis=[
            {"step": "s", "action": "a", "command": "bash(ls)", "output_to": "implementation"}
        ],
    )
    data["title"] = ""
    new, changed = migrate_task(data)
    assert changed
    assert new["flow_control"]["implementation_approach"] == [
        {
            "step": 1,
            "title": "Implementation",
            "description": "Write docs",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "implementation_2",
            "generation_steps": ["a"],
        }
    ]


def test_migrate_task_leaves_current_tasks_unchanged() -> None:
    data = task()
    assert migrate_task(data) == (data, False)
    assert migrate_task({"id": "IMPL-1"}) == ({"id": "IMPL-1"}, False)
