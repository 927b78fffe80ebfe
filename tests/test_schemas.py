"""The shipped JSON Schemas are valid draft 2020-12 schemas that accept the seed's task.

The schemas refer to each other (task-v1 and task-flat use the definitions of task), so
they are loaded together into one registry, as an editor or wfs itself loads them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped,unused-ignore]

REPO = Path(__file__).resolve().parent.parent
SCHEMAS = REPO / "schemas"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"


def load(name: str) -> Any:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))


def validator(name: str) -> Draft202012Validator:
    from referencing import Registry, Resource

    documents = [load(n) for n in NAMES]
    registry: Any = Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc)) for doc in documents
    )
    return Draft202012Validator(load(name), registry=registry)


NAMES = ["task", "task-v1", "task-flat", "session", "plan"]


def seed_task() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "seed-jwt-IMPL-1.2.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_a_valid_draft_2020_12_schema_with_an_id(name: str) -> None:
    schema = load(name)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{name}.schema.json")


def test_seed_jwt_task_matches_the_task_schema() -> None:
    assert list(validator("task").iter_errors(seed_task())) == []


def test_v1_task_with_the_legacy_approach_matches_the_v1_schema_not_the_v2_one() -> None:
    v1 = json.loads((FIXTURES / "seed-v1-IMPL-1.2.json").read_text("utf-8"))
    assert list(validator("task-v1").iter_errors(v1)) == []
    assert list(validator("task").iter_errors(v1)) != []


def change(path: list[Any], value: Any) -> dict[str, Any]:
    data = seed_task()
    target: Any = data
    for part in path[:-1]:
        target = target[part]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = copy.deepcopy(value)
    return data


DELETE = object()


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (["flow_control"], DELETE),
        (["id"], "IMPL-1.2.3"),
        (["id"], "IMPL-N"),
        (["status"], "pending|active|completed"),
        (["title"], ""),
        (["meta", "type"], "feature|bugfix"),
        (["meta", "agent"], "@code-developer|@test-fix-agent"),
        (["context", "focus_paths", 0], "src/**/*.ts"),
        (["context", "focus_paths", 0], "~/src"),
        (["context", "focus_paths", 0], "./src"),
        (["context", "focus_paths", 0], "src/../x"),
        (["context", "parent"], "IMPL-1.1"),
        (["context", "depends_on", 0], "TEST-1"),
        (["context", "artifacts", 0, "type"], "role_analyses|topic_framework"),
        (["context", "artifacts", 0, "priority"], "critical"),
        (["flow_control", "pre_analysis"], "bash(ls)"),
        (["flow_control", "pre_analysis", 0, "step"], DELETE),
        (["flow_control", "pre_analysis", 0, "on_error"], "explode"),
        (["flow_control", "pre_analysis", 0, "success_criteria"], "matches:x"),
        (["flow_control", "pre_analysis", 0, "timeout"], 0),
        (["flow_control", "implementation_approach", 0, "output"], 3),
        (["flow_control", "implementation_approach", 0, "logic_flow"], DELETE),
        (["flow_control", "implementation_approach", 1, "depends_on"], ["1"]),
        (["flow_control", "implementation_approach"], {"steps": []}),
        (["flow_control", "target_files"], "src/a.ts"),
    ],
)
def test_invalid_tasks_are_rejected_by_the_task_schema(path: list[Any], value: Any) -> None:
    assert list(validator("task").iter_errors(change(path, value))) != []


def test_session_schema_accepts_a_new_session_and_rejects_bad_enums() -> None:
    session = {
        "session_id": "WFS-user-auth",
        "project": "User auth",
        "type": "simple",
        "current_phase": "PLAN",
        "status": "active",
        "progress": {"completed_phases": [], "current_tasks": []},
    }
    check = validator("session")
    assert list(check.iter_errors(session)) == []
    assert list(check.iter_errors({**session, "type": "simple|medium|complex"})) != []
    assert list(check.iter_errors({**session, "current_phase": "BUILD"})) != []
    assert list(check.iter_errors({**session, "progress": {"completed_phases": []}})) != []


def test_plan_schema_accepts_the_example_plan_and_a_bare_task_array() -> None:
    plan = json.loads((REPO / "examples" / "jwt-auth" / "plan.json").read_text("utf-8"))
    check = validator("plan")
    assert list(check.iter_errors(plan)) == []
    assert list(check.iter_errors([{"id": "IMPL-1", "title": "Do it"}])) == []
    assert list(check.iter_errors({"tasks": [{"id": "IMPL-1"}]})) != []
    assert list(check.iter_errors([{"id": "IMPL-1.2.3", "title": "x"}])) != []


@pytest.mark.slow
def test_wfs_plan_runs_the_plan_schema_for_the_document_around_the_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conftest import wfs

    monkeypatch.chdir(tmp_path)
    cases = [
        ({"overview": 3, "tasks": []}, "plan.json#/overview: expected a string"),
        (
            {"requirements": ["a", 1], "tasks": []},
            "plan.json#/requirements/1: expected an array of strings",
        ),
        ({"overview": "x"}, 'plan.json: expected "tasks", an array of tasks'),
        ("tasks", "plan.json: expected a plan object or a task array, got string"),
    ]
    for document, message in cases:
        (tmp_path / "plan.json").write_text(json.dumps(document))
        wfs("init", "--no-git")
        run = wfs("plan", "P", "--from", "plan.json")
        assert (run.code, run.err) == (2, f"wfs: error: {message}\n"), document
    assert not (tmp_path / ".workflow").exists() or not list((tmp_path / ".workflow").glob("WFS-*"))


# ---------------------------------------------------------------- the enumerations
#
# wfs/schemas.py names each list a schema holds once, in Python (reading the files at
# import would cost every command a JSON parse); these tests hold each equal to its schema.


def defs(name: str) -> dict[str, Any]:
    found: dict[str, Any] = load(name)["$defs"]
    return found


def spoken(words: tuple[str, ...] | list[str]) -> str:
    """`a, b and c` (`a` alone)."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def test_the_task_statuses_and_their_aliases_are_those_of_the_task_schema() -> None:
    from wfs.schemas import LEAF_STATUSES, STATUS_ALIASES, TASK_STATUSES

    status = defs("task")["status"]
    listed = status["allOf"][1]
    assert tuple(listed["x-choices"]) == TASK_STATUSES
    assert tuple(listed["enum"]) == (*TASK_STATUSES, *STATUS_ALIASES)
    assert LEAF_STATUSES == tuple(s for s in TASK_STATUSES if s != "container")
    aliases = list(STATUS_ALIASES)
    meanings = [STATUS_ALIASES[a] for a in aliases]
    assert set(meanings) <= set(LEAF_STATUSES)
    assert (
        f"{spoken(aliases)}, written by other tools, are read as {spoken(meanings)}."
        in status["description"]
    )


def test_the_on_error_values_and_their_aliases_are_those_of_the_task_schema() -> None:
    from wfs.schemas import ON_ERROR_ALIASES, ON_ERROR_MEANINGS, ON_ERROR_VALUES

    on_error = defs("task")["on_error"]
    [every] = on_error["allOf"]  # the warning an alias gets is wfs.formats's: it names the value
    assert tuple(every["enum"]) == (*ON_ERROR_VALUES, *ON_ERROR_ALIASES)
    assert tuple(every["x-choices"]) == ON_ERROR_VALUES
    assert set(ON_ERROR_ALIASES.values()) <= set(ON_ERROR_VALUES) == set(ON_ERROR_MEANINGS)
    for value in ON_ERROR_VALUES:
        aliases = [a for a, v in ON_ERROR_ALIASES.items() if v == value]
        assert f"{spoken(aliases)} as {value}" in on_error["description"]


def test_the_task_types_are_those_of_the_task_schema() -> None:
    from wfs.schemas import TASK_TYPES

    assert tuple(defs("task")["meta"]["properties"]["type"]["x-choices"]) == TASK_TYPES


def test_the_flat_keys_are_the_places_the_flat_format_writes() -> None:
    from wfs.schemas import FLAT_KEYS

    assert FLAT_KEYS == set(defs("task")["flat_places"]["properties"])
    # ... which the flat format's schema reads
    assert {"$ref": "task.schema.json#/$defs/flat_places"} in load("task-flat")["allOf"]


def test_the_seed_step_fields_and_the_v1_keys_are_those_of_the_schemas() -> None:
    from wfs.schemas import LEGACY_KEYS, SEED_STEP_FIELDS

    step = defs("task")["implementation_step"]["else"]["allOf"][0]["allOf"][1]
    assert step["x-severity"] == "warning"
    assert tuple(step["required"]) == SEED_STEP_FIELDS
    v1 = load("task-v1")["properties"]["flow_control"]["properties"]["implementation_approach"]
    assert tuple(v1["properties"]) == LEGACY_KEYS


def test_phases_complexities_and_session_statuses_are_those_of_the_session_schema() -> None:
    from wfs.schemas import COMPLEXITIES, PHASES, SESSION_STATUSES

    session = load("session")["properties"]
    assert tuple(session["current_phase"]["enum"]) == PHASES
    assert tuple(session["progress"]["properties"]["completed_phases"]["items"]["enum"]) == PHASES
    assert tuple(session["type"]["x-choices"]) == COMPLEXITIES
    assert tuple(session["status"]["x-choices"]) == SESSION_STATUSES


def test_the_schema_names_are_the_files_of_schemas() -> None:
    from wfs.schemas import SCHEMA_FILES, SCHEMA_NAMES

    assert sorted(SCHEMA_NAMES) == sorted(NAMES)
    assert {name: f"{name}.schema.json" for name in NAMES} == SCHEMA_FILES
    assert sorted(p.name for p in SCHEMAS.glob("*.schema.json")) == sorted(SCHEMA_FILES.values())
