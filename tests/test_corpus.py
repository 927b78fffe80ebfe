"""Task files from the design's origin documentation (the shared corpus, outside this
repository, `ccw/`) validate without crashing, and their real problems are named precisely.

The committed sessions of `realworld/` are whole `.workflow/` trees, with broken files
kept on purpose; they are read as sessions, not one file at a time."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from wfs import store
from wfs.layout import Layout, parse_task_id
from wfs.rules import Problem, TaskSource, migrate_task
from wfs.validate import validate_session, validate_tasks

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
MISSING = f"the real-world corpus is not available at {CORPUS} (it is kept outside the repository)"

RULES = {
    "json", "file", "type", "required", "id-format", "id-filename", "unique-id", "status",
    "status-consistency", "parent", "meta", "context-type", "focus-paths", "depends-on",
    "dependency-cycle", "artifacts", "pre-analysis", "implementation-approach",
    "legacy-approach", "step-sequence", "duplicate-step", "step-depends-on", "step-cycle",
    "duplicate-output", "target-files", "implementation", "format",
}  # fmt: skip


def corpus_names() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    return [p.relative_to(CORPUS).as_posix() for p in sorted((CORPUS / "ccw").rglob("*.json"))]


def problems_of(name: str) -> list[Problem]:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    data = store.read_json(CORPUS / name, name)
    return validate_tasks([TaskSource(name, data, None)])


def lines_of(name: str) -> list[str]:
    return [str(p) for p in problems_of(name)]


def assert_well_formed(problem: Problem, where: str) -> None:
    """`<file>[#/pointer]: <rule>: [warning: ]<message>`, naming the file."""
    assert problem.where == where or problem.where.startswith(where + "#/"), problem
    assert problem.rule in RULES, problem
    assert problem.severity in ("error", "warning"), problem
    assert problem.message and "\n" not in problem.message, problem
    pattern = rf"{re.escape(where)}(#(/[^/]*)+)?: [a-z-]+: (warning: )?\S.*"
    assert re.fullmatch(pattern, str(problem)), problem


@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_file_validates_without_raising(name: str) -> None:
    problems = problems_of(name)
    for problem in problems:
        assert_well_formed(problem, name)
    errors = [p for p in problems if p.severity == "error"]
    assert errors == [] or all(p.where.startswith(name) for p in errors)


@pytest.mark.parametrize("name", corpus_names())
def test_every_corpus_file_validates_inside_a_session(name: str, tmp_path: Path) -> None:
    # As `wfs validate` sees it: the file placed in a session under its own id when it has
    # a usable one, else under a made-up name (which id-filename then reports).
    data = store.read_json(CORPUS / name, name)
    tid = data.get("id") if isinstance(data, dict) else None
    stem = tid if isinstance(tid, str) and parse_task_id(tid) else "IMPL-99"
    layout = Layout(tmp_path)
    sid = "WFS-corpus"
    layout.task_dir(sid).mkdir(parents=True)
    store.write_json(
        layout.session_file(sid),
        {
            "session_id": sid,
            "type": "simple",
            "current_phase": "PLAN",
            "status": "active",
            "progress": {"completed_phases": [], "current_tasks": []},
        },
    )
    (layout.task_dir(sid) / f"{stem}.json").write_bytes((CORPUS / name).read_bytes())
    where = f".workflow/{sid}/.task/{stem}.json"
    for problem in validate_session(layout, sid):
        assert_well_formed(problem, where)


def test_template_with_a_placeholder_id() -> None:
    name = "ccw/templates/2025-11-17-IMPL-group_number-136967.json"
    assert lines_of(name) == [
        f'{name}#/id: id-format: task id "IMPL-${{group_number}}" contains the unfilled template '
        'placeholder "${group_number}"; expected IMPL-N or IMPL-N.M with numbers',
        f'{name}#/context/focus_paths/0: focus-paths: focus path "${{group_dirs_from_json}}" '
        'contains the unfilled template placeholder "${group_dirs_from_json}"',
    ]


def test_template_with_another_prefix_and_placeholder_n() -> None:
    name = "ccw/templates/2025-10-17-REFACTOR-1_1-6957d3.json"
    assert lines_of(name) == [
        f'{name}#/id: id-format: task id "REFACTOR-1.1" has the prefix "REFACTOR-"; ids are '
        "IMPL-N or IMPL-N.M",
        f"{name}#/context/depends_on/0: depends-on: REFACTOR-1.1 depends on IMPL-1.1, which "
        "does not exist",
        f'{name}#/flow_control/pre_analysis/1/on_error: format: warning: on_error "warn" is '
        'read as "skip_optional", the nearest strategy (a failure does not stop the task); '
        '`wfs migrate` writes "skip_optional"',
    ]
    # The header of the flat format (cli_execution, no flow_control), where meta, context
    # and flow_control are not required.
    name = "ccw/templates/2026-02-11-IMPL-N-7e38e8.json"
    assert lines_of(name) == [
        f'{name}#/id: id-format: task id "IMPL-N" is a template placeholder, not an id; N and M '
        "stand for numbers, e.g. IMPL-1 or IMPL-1.2",
        f'{name}#/status: status: status "pending|active|completed|blocked" is the list of '
        "allowed values copied from a template; choose one of pending, active, completed, "
        "blocked, container",
    ]


def test_instance_with_copied_enum_strings_and_the_legacy_approach() -> None:
    name = "ccw/instances/2025-09-30-IMPL-1_2-b095a6.json"
    assert lines_of(name) == [
        f"{name}#/id: parent: subtask IMPL-1.2 needs its main task IMPL-1, which does not exist",
        f'{name}#/status: status: status "pending|active|completed|blocked" is the list of '
        "allowed values copied from a template; choose one of pending, active, completed, "
        "blocked, container",
        f'{name}#/meta/type: meta: meta.type "feature|bugfix|refactor|test|docs" is the list of '
        "allowed values copied from a template; choose one of feature, bugfix, refactor, "
        "test-gen, test-fix, docs, test",
        f'{name}#/meta/agent: meta: meta.agent "@code-developer|@planning-agent|'
        '@code-review-test-agent" is the list of choices copied from a template; choose one agent',
        f"{name}#/context/depends_on/0: depends-on: IMPL-1.2 depends on IMPL-1.1, which does "
        "not exist",
        f"{name}#/flow_control/pre_analysis/1: pre-analysis: warning: pre_analysis step has no "
        '"action" (its human-readable description); `wfs migrate` sets it to the step name',
        f"{name}#/flow_control/pre_analysis/1/on_error: pre-analysis: on_error "
        '"skip_optional|fail|retry_once" is the list of allowed values copied from a template; '
        "choose one of skip_optional, fail, retry_once, manual_intervention",
        f"{name}#/flow_control/implementation_approach: legacy-approach: warning: "
        "implementation_approach uses the v1 object form (task_description, modification_points, "
        "logic_flow); it is read as one step, and `wfs migrate` converts it to the step array",
    ]


def test_instance_with_only_the_legacy_approach_is_clean_after_migration() -> None:
    name = "ccw/instances/2025-10-05-IMPL-002-ee053e.json"
    problems = problems_of(name)
    assert [(p.where, p.rule, p.severity) for p in problems] == [
        (f"{name}#/flow_control/implementation_approach", "legacy-approach", "warning")
    ]
    migrated, changed = migrate_task(store.read_json(CORPUS / name, name))
    assert changed
    assert validate_tasks([TaskSource(name, migrated, None)]) == []


def test_instance_with_only_warnings_for_odd_but_legitimate_usage() -> None:
    # pre_analysis steps without "action" are common in the wild; a task type of the
    # project's own (docs-tree) is accepted.
    name = "ccw/instances/2025-10-17-IMPL-001-651d97.json"
    assert lines_of(name) == [
        f"{name}#/flow_control/pre_analysis/0: pre-analysis: warning: pre_analysis step has no "
        '"action" (its human-readable description); `wfs migrate` sets it to the step name',
        f"{name}#/flow_control/pre_analysis/1: pre-analysis: warning: pre_analysis step has no "
        '"action" (its human-readable description); `wfs migrate` sets it to the step name',
    ]


def test_instance_with_non_concrete_focus_paths() -> None:
    name = "ccw/instances/2025-11-17-IMPL-1-adaa51.json"
    assert lines_of(name) == [
        f'{name}#/context/focus_paths/0: focus-paths: focus path "D:\\\\project\\\\src\\\\module" '
        "is absolute; focus paths are relative to the project root",
        f'{name}#/context/focus_paths/1: focus-paths: focus path "./tests/module" starts with '
        "'./'; write \"tests/module\"",
    ]


@pytest.mark.parametrize("name", corpus_names())
def test_migration_only_removes_the_legacy_warning(name: str) -> None:
    data = store.read_json(CORPUS / name, name)
    if not isinstance(data, dict):
        pytest.skip("not a task object")
    before = validate_tasks([TaskSource(name, data, None)])
    migrated, changed = migrate_task(data)
    after = validate_tasks([TaskSource(name, migrated, None)])
    legacy = [p for p in before if p.rule == "legacy-approach"]
    assert changed == bool(legacy)
    assert not [p for p in after if p.rule == "legacy-approach"]
    errors_before = {p.rule for p in before if p.severity == "error"}
    assert {p.rule for p in after if p.severity == "error"} <= errors_before
