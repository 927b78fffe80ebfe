"""The schemas of schemas/ are run by jsonschema (`validate`) and counted by wfs's own
evaluator of the same schemas (readiness, on every `status`, `next` and task write); both
find the same things, and jsonschema stays out of the commands agents call all the time."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import CORPUS, wfs
from hypothesis import given, settings
from hypothesis import strategies as st

from wfs import schemacheck
from wfs.formats import task_format
from wfs.validate import SCHEMA_OF_FORMAT, TaskSource, task_error_count, validate_task

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"
MISSING = f"the corpus is not available at {CORPUS} (it is kept outside the repository)"


def corpus_files() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    files = sorted((CORPUS / "ccw").rglob("*.json"))
    files += sorted((CORPUS / "realworld").glob("*/.workflow/**/.task/*.json"))
    files += sorted((CORPUS / "realworld").rglob("workflow-session.json"))
    return [p.relative_to(CORPUS).as_posix() for p in files]


def schema_name(name: str, data: Any) -> str:
    return (
        "session" if name.endswith("workflow-session.json") else SCHEMA_OF_FORMAT[task_format(data)]
    )


def shape(failures: list[schemacheck.Failure]) -> list[tuple[Any, ...]]:
    return sorted(
        (f.pointer, f.keyword, id(f.nodes[-1]), str(f.detail), f.firsts) for f in failures
    )


@pytest.mark.parametrize("name", corpus_files())
def test_jsonschema_and_the_fast_evaluator_find_the_same_on_every_corpus_file(name: str) -> None:
    try:
        data = orjson.loads((CORPUS / name).read_bytes())
    except orjson.JSONDecodeError:
        pytest.skip("broken on purpose (validate names it)")
    schema = schema_name(name, data)
    found = schemacheck.failures(schema, data)
    assert shape(schemacheck.fast_failures(schema, data)) == shape(found)
    assert schemacheck.is_valid(schema, data) == (not found)
    if schema == "session":
        return
    # ... and the count that decides readiness is what the whole validator reports.
    stem = Path(name).stem
    errors = [p for p in validate_task(TaskSource(name, data, stem)) if p.severity == "error"]
    assert task_error_count(data, stem) == len(errors)


@pytest.mark.parametrize("name", corpus_files())
def test_every_problem_in_the_corpus_is_worded_by_its_schema(name: str) -> None:
    try:
        data = orjson.loads((CORPUS / name).read_bytes())
    except orjson.JSONDecodeError:
        pytest.skip("broken on purpose (validate names it)")
    for found in schemacheck.problems(schema_name(name, data), data):
        assert "failed)" not in found.message and "{" not in found.message.split('"')[0], found
        assert found.rule != "schema", found


JUNK: list[Any] = [None, True, 0, 1.5, -3, "", " ", "x|y", "IMPL-N", [], [None], {}, {"a": [1]}]


def every_path(value: Any, path: list[Any]) -> list[list[Any]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += every_path(item, [*path, key])
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += every_path(item, [*path, i])
    return found


@pytest.mark.parametrize("fixture", ["seed-jwt-IMPL-1.2.json", "seed-v1-IMPL-1.2.json"])
def test_the_count_agrees_with_the_validator_for_junk_anywhere(fixture: str) -> None:
    base = json.loads((FIXTURES / fixture).read_text("utf-8"))
    checked = valid = 0
    for path in every_path(base, [])[1:]:
        for junk in JUNK:
            data = copy.deepcopy(base)
            target = data
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = copy.deepcopy(junk)
            errors = [
                p for p in validate_task(TaskSource("t", data, "IMPL-1.2")) if p.severity == "error"
            ]
            assert task_error_count(data, "IMPL-1.2") == len(errors), (path, junk)
            schema = SCHEMA_OF_FORMAT[task_format(data)]
            found = schemacheck.failures(schema, data)
            assert schemacheck.is_valid(schema, data) == (not found), (path, junk)
            checked += 1
            valid += not found
    assert checked > 500
    assert 50 < valid < checked - 50  # both answers are well represented


def test_the_schemas_use_only_keywords_the_evaluator_knows() -> None:
    def keywords(node: Any) -> set[str]:
        found: set[str] = set()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for sub in value.values():
                        found |= keywords(sub)
                    continue
                found.add(key)
                found |= keywords(value)
        elif isinstance(node, list):
            for item in node:
                found |= keywords(item)
        return found

    used = set().union(*(keywords(doc) for doc in schemacheck.schemas().values()))
    annotations = {k for k in used if k.startswith("x-")}
    assert annotations == {
        "x-rule", "x-what", "x-message", "x-messages", "x-severity", "x-first", "x-match",
        "x-choices",
    }  # fmt: skip
    assert used - annotations <= schemacheck.SUPPORTED | schemacheck.IGNORED


def imported(project: Path, *args: str, env: dict[str, str] | None = None) -> set[str]:
    """The modules a real `wfs` process imports to answer (python -X importtime)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wfs", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}


def test_jsonschema_is_never_imported_by_the_commands_agents_call_all_the_time(
    project: Path,
) -> None:
    tasks = [
        {"id": "IMPL-1", "title": "A", "flow_control": {"implementation_approach": [
            {"step": 1, "title": "s", "description": "d", "modification_points": [],
             "logic_flow": [], "depends_on": [], "output": "o", "command": "bash(true)"}]}},
        {"id": "IMPL-2", "title": "B", "context": {"depends_on": ["IMPL-1"]}},
    ]  # fmt: skip
    assert wfs("plan", "Hot paths", "--from", "-", input=json.dumps(tasks)).code == 0
    heavy = {"jsonschema", "referencing"}

    def heavy_modules(*args: str) -> set[str]:
        return {m for m in imported(project, *args) if m.split(".")[0] in heavy}

    for args in (
        ("task", "status", "IMPL-2", "blocked"),
        ("task", "status", "IMPL-2", "pending"),
        ("status",),
        ("next",),
        ("task", "show", "IMPL-2"),
        ("task", "add", "--title", "C", "--depends-on", "IMPL-2"),
        ("task", "update", "IMPL-3", "--title", "C, renamed"),
        ("execute", "IMPL-1"),  # claim, run, finish
    ):
        assert heavy_modules(*args) == set(), args
    # A hand edit: the index is rebuilt, and the task's errors counted, without jsonschema.
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    path = project / ".workflow/WFS-hot-paths/.task/IMPL-2.json"
    data = json.loads(path.read_text())
    data["context"]["focus_paths"] = ["src/**"]
    path.write_text(json.dumps(data))
    assert heavy_modules("status") == set()
    status = wfs("status", "--json").json()
    assert (status["ready"], status["stopped"]) == (
        [],
        [
            {
                "id": "IMPL-2",
                "state": "invalid",
                "reason": "1 validation error; `wfs validate` names them",
            }
        ],
    )
    # validate is where the schemas run (for the file that changed) ...
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wfs", "validate"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "jsonschema" in proc.stderr
    # ... and a plan that did not change since is answered from the per-file cache.
    os.utime(path, (1_000_000, 1_000_000))  # an old stamp: trusted by the cache
    os.utime(project / ".workflow/WFS-hot-paths/workflow-session.json", (1_000_000, 1_000_000))
    assert wfs("validate").code == 1
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wfs", "validate"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "jsonschema" not in proc.stderr


SYNTHETIC_URI = "https://wfs.dev/schemas/synthetic.schema.json"
SYNTHETIC: dict[str, Any] = {
    "$id": SYNTHETIC_URI,
    "type": ["object", "array", "string", "number", "null", "boolean"],
    "$defs": {
        "tree": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/tree"}}}},
        "short": {"type": "string", "minLength": 2, "pattern": "^[a-z]"},
    },
    "properties": {
        "one": {"oneOf": [{"type": "integer"}, {"minimum": 10}]},
        "any": {"anyOf": [{"const": "x"}, {"enum": [1, True, None]}]},
        "not": {"not": {"type": "string"}},
        "cond": {"if": {"type": "string"}, "then": {"minLength": 3}, "else": {"minItems": 1}},
        "only_if": {"if": {"type": "number"}, "then": {"exclusiveMinimum": 0}},
        "all": {"allOf": [{"$ref": "#/$defs/short"}, {"not": {"const": "ab"}}]},
        "tree": {"$ref": "#/$defs/tree"},
        "list": {"type": "array", "items": {"type": "integer", "minimum": -1}, "minItems": 2},
    },
    "required": ["one"],
}


SAMPLES: list[Any] = [
    None, True, False, 0, 1, -1, -2, 9, 10, 11, 12, 0.5, 10.5, -0.5, "", "a", "ab", "abc",
    "xa", "Ab", "abcd", [], [1], [1, 2], [-2, 3], [1.5, 2], ["a"], {}, {"kids": []},
    {"kids": [{}]}, {"kids": [{"kids": 3}]}, {"kids": [{"kids": [{}]}]}, {"k": 1}, {"kids": [5]},
    {"kids": [{"kids": [5]}]},
]  # fmt: skip


def _agree(node: Any, value: Any) -> bool:
    """Both say the same of `value`; what they say."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schemacheck, "schemas", lambda: {SYNTHETIC_URI: SYNTHETIC})
        compiled = schemacheck._compile(SYNTHETIC_URI, node, {})(value)
        found = list(schemacheck._check(SYNTHETIC_URI, node, value, (), (node,), ()))
    assert compiled == (not found), (node, value)
    return compiled


@pytest.mark.parametrize("part", list(SYNTHETIC["properties"]))
def test_the_compiled_check_passes_exactly_what_the_evaluator_passes(part: str) -> None:
    node = SYNTHETIC["properties"][part]
    outcomes = {_agree(node, value) for value in SAMPLES}
    assert outcomes == {True, False}  # each keyword both passes and fails


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.sampled_from([*SYNTHETIC["properties"], "other"]), st.sampled_from(SAMPLES))
)
def test_the_compiled_check_passes_whole_documents_as_the_evaluator_does(
    document: dict[str, Any],
) -> None:
    _agree(SYNTHETIC, document)
