"""The schemas of schemas/ are run by jsonschema, which decides and describes, and by
fastjsonschema, which compiles the same files for the questions asked all the time
(`is_clean`: nothing at all; `has_no_error`: no error). Both answer alike on every corpus
file and on generated documents, and jsonschema stays out of the commands agents call all
the time."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import CORPUS, wfs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wfs import index, schemas
from wfs.formats import task_format
from wfs.rules import SCHEMA_OF_FORMAT, TaskSource, task_error_count, validate_task

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"
MISSING = f"the corpus is not available at {CORPUS} (it is kept outside the repository)"


def corpus_files() -> list[Any]:
    """Every JSON file of the corpus (tasks, sessions, and the other files a `.workflow`
    holds, which every schema must reject alike)."""
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    return [p.relative_to(CORPUS).as_posix() for p in sorted(CORPUS.rglob("*.json"))]


def corpus_tasks() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    files = sorted((CORPUS / "ccw").rglob("*.json"))
    files += sorted((CORPUS / "realworld").glob("*/.workflow/**/.task/*.json"))
    files += sorted((CORPUS / "realworld").rglob("workflow-session.json"))
    return [p.relative_to(CORPUS).as_posix() for p in files]


def read(name: str) -> Any:
    try:
        return orjson.loads((CORPUS / name).read_bytes())
    except orjson.JSONDecodeError:
        pytest.skip("broken on purpose (validate names it)")


def schema_name(name: str, data: Any) -> str:
    return (
        "session" if name.endswith("workflow-session.json") else SCHEMA_OF_FORMAT[task_format(data)]
    )


def assert_agree(name: str, data: Any) -> list[schemas.Found]:
    """The compiled checks say of `data` what jsonschema says; what jsonschema says."""
    found = schemas.describe(name, data)
    errors = [f for f in found if f.severity == "error"]
    assert schemas.is_clean(name, data) == (not found), (name, data, found)
    assert schemas.has_no_error(name, data) == (not errors), (name, data, found)
    assert schemas.error_count(name, data) == len(errors), (name, data, found)
    assert schemas.problems(name, data) == found, (name, data)
    return found


# ---------------------------------------------------------------- the corpus


@pytest.mark.slow
@pytest.mark.parametrize("name", corpus_files())
def test_the_compiled_checks_and_jsonschema_agree_on_every_corpus_file(name: str) -> None:
    data = read(name)
    for schema in schemas.SCHEMA_NAMES:
        assert_agree(schema, data)


@pytest.mark.slow
def test_the_corpus_holds_clean_files_and_files_with_errors_and_with_warnings_only() -> None:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    kinds = set()
    for name in corpus_tasks():
        try:
            data = orjson.loads((CORPUS / name).read_bytes())
        except orjson.JSONDecodeError:
            continue
        found = schemas.describe(schema_name(name, data), data)
        kinds.add("error" if any(f.severity == "error" for f in found) else len(found) > 0)
    assert kinds == {False, True, "error"}  # both checks are put to the test


@pytest.mark.parametrize("name", corpus_tasks())
def test_the_count_that_decides_readiness_is_what_validate_reports(name: str) -> None:
    data = read(name)
    if name.endswith("workflow-session.json"):
        return
    stem = Path(name).stem
    errors = [p for p in validate_task(TaskSource(name, data, stem)) if p.severity == "error"]
    assert task_error_count(data, stem) == len(errors)


@pytest.mark.parametrize("name", corpus_tasks())
def test_every_problem_in_the_corpus_is_worded_by_its_schema(name: str) -> None:
    data = read(name)
    for found in schemas.problems(schema_name(name, data), data):
        assert "failed)" not in found.message and "{" not in found.message.split('"')[0], found
        assert found.rule != "schema", found


# ---------------------------------------------------------------- generated documents

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


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text("utf-8"))
    return data


@pytest.mark.slow
@pytest.mark.parametrize("name", ["seed-jwt-IMPL-1.2.json", "seed-v1-IMPL-1.2.json"])
def test_the_checks_and_the_count_agree_with_jsonschema_for_junk_anywhere(name: str) -> None:
    base = fixture(name)
    checked = valid = 0
    for path in every_path(base, [])[1:]:
        for junk in JUNK:
            data = copy.deepcopy(base)
            target = data
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = copy.deepcopy(junk)
            found = assert_agree(SCHEMA_OF_FORMAT[task_format(data)], data)
            errors = [
                p for p in validate_task(TaskSource("t", data, "IMPL-1.2")) if p.severity == "error"
            ]
            assert task_error_count(data, "IMPL-1.2") == len(errors), (path, junk)
            checked += 1
            valid += not found
    assert checked > 500
    assert 50 < valid < checked - 50  # both answers are well represented


def flat_task() -> dict[str, Any]:
    return {
        "id": "IMPL-2",
        "title": "Flat",
        "status": "pending",
        "description": "d",
        "depends_on": ["IMPL-1"],
        "focus_paths": ["src"],
        "convergence": {"criteria": ["c"], "verification": "v"},
        "files": ["a.py", {"path": "b.py"}],
        "implementation": ["do it", {"title": "t", "commands": ["true"], "on_error": "skip"}],
        "pre_analysis": [{"step": "s", "action": "a", "command": "ls", "output_to": "o"}],
    }


def session_document() -> dict[str, Any]:
    return {
        "session_id": "WFS-x",
        "project": "X",
        "type": "simple",
        "current_phase": "PLAN",
        "status": "active",
        "progress": {"completed_phases": ["PLAN"], "current_tasks": ["IMPL-1"]},
    }


def plan_document() -> dict[str, Any]:
    plan: dict[str, Any] = json.loads((REPO / "examples/jwt-auth/plan.json").read_text("utf-8"))
    return plan


DOCUMENTS = {
    "seed": fixture("seed-jwt-IMPL-1.2.json"),
    "v1": fixture("seed-v1-IMPL-1.2.json"),
    "flat": flat_task(),
    "session": session_document(),
    "plan": plan_document(),
}

# Values that sit on the edges of what the schemas allow, and of what JSON Schema
# dialects and implementations disagree on: 1.0 as an integer, a boolean as a number,
# huge numbers, a final newline against `$`, Unicode spaces and digits against \s \S \w,
# statuses and on_error values, and their aliases.
EDGES: list[Any] = [
    *[0, 1, -1, 2, 1.0, 2.0, 0.0, -0.0, 1.5, 1e308, -1e308, 2**63, 2**64 - 1, -(2**63)],
    *["", " ", "\n", "\t", "\u00a0", "\u2028", "\u3000", "\x1c", "x\n", "\nx"],
    *["IMPL-1", "IMPL-1\n", " IMPL-1", "IMPL-1.2", "IMPL-1.2\n", "IMPL-1.2.3", "IMPL-1.2.3\n"],
    *["IMPL-N", "IMPL-N.M", "IMPL-{n}", "TASK-1", "TASK-1\n", "IMPL-1x", "IMPL-\u0661", "IMPL-１"],
    *["out", "out\n", "_x1", "1x", "a b", "@code-developer", "@code-developer\n", "@агент"],
    *["code-developer", "a|b", "pending|active", "src", "src/..", "..\n", "../x", "./src"],
    *["/abs", "C:\\x", "~/x", "src/*.py", "{{x}}", "${session}", "<path>", "src/{a,b}"],
    *["exit_code:0", "exit_code: 3 \n", "exit_code:x", "contains:", "contains:x", "regex:("],
    *["not_empty", "matches:x", "bash(ls)"],
    *[*schemas.TASK_STATUSES, *schemas.STATUS_ALIASES, "done"],
    *[*schemas.ON_ERROR_VALUES, *schemas.ON_ERROR_ALIASES, "ignore"],
    *[*schemas.PHASES, *schemas.COMPLEXITIES, *schemas.SESSION_STATUSES, *schemas.TASK_TYPES],
    *["role_analyses", "highest", "critical", "WFS-x", "WFS-", "wfs-x"],
]
KEYS = st.sampled_from(
    [
        "id", "task_id", "title", "status", "meta", "context", "flow_control", "step",
        "action", "command", "commands", "on_error", "success_criteria", "timeout",
        "max_iterations", "output", "output_to", "depends_on", "modification_points",
        "logic_flow", "description", "type", "agent", "path", "priority", "parent",
        "focus_paths", "artifacts", "implementation", "pre_analysis", "tasks",
        "implementation_approach", "progress", "session_id", "current_phase",
    ]
) | st.text(max_size=3)  # fmt: skip
SCALARS = (
    st.sampled_from(EDGES)
    | st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)  # what JSON read by wfs can hold
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=8,
)
STEPS = st.lists(
    st.dictionaries(KEYS, VALUES, max_size=7) | st.sampled_from(EDGES) | VALUES, max_size=3
)


SCHEMA_OF_DOCUMENT = {
    "seed": "task", "v1": "task-v1", "flat": "task-flat", "session": "session", "plan": "plan"
}  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, Any]:
    """A valid document (and the name of its schema) with one to three changes: a value
    replaced (by an edge value, any JSON value, or a list of generated steps), a key
    deleted, or a key added."""
    kind = draw(st.sampled_from(sorted(DOCUMENTS)))
    data = copy.deepcopy(DOCUMENTS[kind])
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(every_path(data, [])))
        action = draw(st.sampled_from(["edge", "edge", "replace", "steps", "delete", "add"]))
        holder: Any = data
        for part in path[:-1]:
            holder = holder[part]
        if not path:
            data = draw(st.sampled_from(EDGES) if action == "edge" else VALUES)
            continue
        last = path[-1]
        if action == "edge":
            holder[last] = draw(st.sampled_from(EDGES))
        elif action == "replace":
            holder[last] = draw(VALUES)
        elif action == "steps":
            holder[last] = draw(STEPS)
        elif action == "delete":
            del holder[last]
        elif isinstance(holder[last], dict):
            holder[last][draw(KEYS)] = draw(VALUES)
        elif isinstance(holder[last], list):
            holder[last].append(draw(st.sampled_from(EDGES) | VALUES))
    return SCHEMA_OF_DOCUMENT[kind], data


@pytest.mark.slow
@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_the_compiled_checks_agree_with_jsonschema_on_generated_documents(
    document: tuple[str, Any],
) -> None:
    _, data = document
    for name in schemas.SCHEMA_NAMES:
        assert_agree(name, data)


@pytest.mark.slow
def test_the_generated_documents_put_both_checks_to_the_test() -> None:
    """The documents `mutated` makes are clean, have warnings only, or have errors, in
    useful numbers (else the property above would prove little)."""
    outcomes: dict[str, int] = {}

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(mutated())
    def tally(document: tuple[str, Any]) -> None:
        name, data = document
        found = schemas.describe(name, data)
        kind = "error" if any(f.severity == "error" for f in found) else str(bool(found))
        outcomes[kind] = outcomes.get(kind, 0) + 1

    tally()
    assert set(outcomes) == {"False", "True", "error"}, outcomes
    assert min(outcomes.values()) >= 5, outcomes


# ---------------------------------------------------------------- the schemas and fastjsonschema
#
# fastjsonschema implements drafts 04 to 07 (its default generator is draft 2019-09's
# formats on draft 07). The schemas are draft 2020-12. These tests keep the schemas to
# the constructs both read alike.

# Keywords whose meaning is the same in draft 07 and in draft 2020-12 ($defs is not a
# draft-07 keyword, but "#/$defs/x" is a JSON pointer that fastjsonschema follows).
SAME_IN_BOTH = {
    "type", "enum", "const", "pattern", "minLength", "maxLength", "minItems", "maxItems",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "required", "properties",
    "items", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "$ref",
}  # fmt: skip


def nodes(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every schema node of a document, with its path."""
    if not isinstance(node, dict):
        return
    yield path, node
    for key, value in node.items():
        if key in ("properties", "$defs", "patternProperties"):
            for name, sub in value.items():
                yield from nodes(sub, (*path, key, name))
        elif key in ("allOf", "anyOf", "oneOf"):
            for i, sub in enumerate(value):
                yield from nodes(sub, (*path, key, i))
        elif key in ("items", "not", "if", "then", "else"):
            yield from nodes(value, (*path, key))


def every_node() -> Iterator[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    for name in schemas.SCHEMA_NAMES:
        for path, node in nodes(schemas.schema(name)):
            yield name, path, node


def test_the_schemas_use_only_keywords_that_mean_the_same_in_draft_07() -> None:
    used = {key for _, _, node in every_node() for key in node}
    annotations = {k for k in used if k.startswith("x-")}
    assert annotations == {
        "x-rule", "x-what", "x-message", "x-messages", "x-severity", "x-first", "x-match",
        "x-choices",
    }  # fmt: skip
    assert used - annotations <= SAME_IN_BOTH | schemas.ANNOTATIONS
    for name, path, node in every_node():
        # items is one schema for every entry (an array of schemas means another thing
        # in each draft), and $id names only a whole document (a base for its $refs).
        assert isinstance(node.get("items", {}), dict), (name, path)
        assert "$id" not in node or path == (), (name, path)


def test_a_ref_has_no_sibling_that_checks_anything() -> None:
    # Draft 07 ignores the siblings of $ref; draft 2020-12 applies them. A check beside a
    # $ref goes in an allOf next to it.
    for name, path, node in every_node():
        if "$ref" in node:
            checks = {k for k in node if k != "$ref" and not k.startswith("x-")}
            assert checks <= schemas.ANNOTATIONS, (name, path, checks)


def test_no_pattern_ends_with_a_dollar() -> None:
    # `$` also matches before a final newline in Python's regular expressions (so in
    # jsonschema), and only at the end in fastjsonschema's (and ECMA 262's):
    # (?![\s\S]) is the end of the text in all of them.
    for name, path, node in every_node():
        for key in ("pattern", "x-match"):
            if key in node:
                assert not re.search(r"(?<!\\)\$", node[key]), (name, path, node[key])


def reachable(node: Any, base: str, seen: set[int]) -> Iterator[dict[str, Any]]:
    """The nodes a failure can come from below `node`, through `$ref` too: not those
    inside not, anyOf, oneOf or if, which only decide (their failures are never reported)."""
    if not isinstance(node, dict) or id(node) in seen:
        return
    seen.add(id(node))
    yield node
    for key, value in node.items():
        if key == "$ref":
            where, target = schemas.resolve(base, value)
            yield from reachable(target, where, seen)
        elif key in ("properties", "patternProperties"):
            for sub in value.values():
                yield from reachable(sub, base, seen)
        elif key == "allOf":
            for sub in value:
                yield from reachable(sub, base, seen)
        elif key in ("items", "then", "else"):
            yield from reachable(value, base, seen)


def warnings_in(node: Any, base: str) -> bool:
    return any(n.get("x-severity") == "warning" for n in reachable(node, base, set()))


def errors_in(node: Any, base: str) -> bool:
    checks = SAME_IN_BOTH - {"properties", "items", "allOf", "if", "then", "else", "$ref"}
    return any(
        n.get("x-severity") != "warning" and checks & set(n) for n in reachable(node, base, set())
    )


def test_a_warning_is_never_where_it_could_hide_an_error_or_decide_a_branch() -> None:
    # The check for errors drops the checks of warning nodes. That is right only where a
    # warning node's failure is reported as one: not inside not, anyOf, oneOf or if
    # (where a node only decides), and not before a branch with errors in an x-first
    # group (whose first failing branch alone is reported).
    for name in schemas.SCHEMA_NAMES:
        base = schemas.uri(name)
        for path, node in nodes(schemas.schema(name)):
            for key in ("not", "anyOf", "oneOf", "if"):
                inside = node.get(key)
                for sub in inside if isinstance(inside, list) else [inside]:
                    assert not warnings_in(sub, base), (name, path, key)
            if node.get("x-first"):
                branches = node["allOf"]
                for i, branch in enumerate(branches):
                    if warnings_in(branch, base):
                        later = branches[i + 1 :]
                        assert not any(errors_in(b, base) for b in later), (name, path, i)


def test_the_compiled_check_reads_only_the_schemas_of_wfs() -> None:
    with pytest.raises(ValueError, match="is not one of the schemas of wfs"):
        schemas.compiled_check({"$ref": "https://example.org/other.schema.json"})


# ---------------------------------------------------------------- the compiled copy


def test_the_compiled_checks_are_what_fastjsonschema_compiles_from_the_schemas(
    tmp_path: Path,
) -> None:
    schemas.compile_all(tmp_path)
    fresh = sorted(p.name for p in tmp_path.iterdir())
    assert fresh == sorted([schemas.MANIFEST, "task_errors.py"])
    ours = sorted(p.name for p in schemas.COMPILED.iterdir() if p.is_file())
    assert ours == fresh, "run python scripts/compile.py"
    for name in fresh:
        assert (schemas.COMPILED / name).read_bytes() == (tmp_path / name).read_bytes(), (
            f"{name} is stale: run python scripts/compile.py"
        )


def test_the_compiled_check_is_the_one_used(tmp_path: Path) -> None:
    """A copy whose MANIFEST is current is loaded as it is (a planted check that passes
    everything proves it)."""
    schemas.compile_all(tmp_path)
    planted = tmp_path / "task_errors.py"
    planted.write_text(planted.read_text() + "\nwfs_check = lambda data: data\n")
    check = schemas.precompiled("task", True, tmp_path)
    assert check is not None and check({"id": 1}) == {"id": 1}
    assert schemas.precompiled("task", False, tmp_path) is None  # not one kept


@pytest.mark.parametrize("change", ["an edited schema", "another fastjsonschema", "no manifest"])
def test_a_stale_compiled_check_is_never_used(tmp_path: Path, change: str) -> None:
    schemas.compile_all(tmp_path)
    manifest = tmp_path / schemas.MANIFEST
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    if change == "an edited schema":
        lines[1] = "00000000" + lines[1][8:]
    elif change == "another fastjsonschema":
        lines[0] = "fastjsonschema 0.1\n"
    if change == "no manifest":
        manifest.unlink()
    else:
        manifest.write_text("".join(lines), encoding="utf-8")
    assert schemas.precompiled("task", True, tmp_path) is None


# ---------------------------------------------------------------- nothing kept outside


@pytest.mark.slow
def test_a_check_of_a_new_task_writes_nothing_outside_the_project(
    project: Path, tmp_path: Path
) -> None:
    """The compiled checks live in the process that needs them: no cache of generated
    code in the user's folders, nor in the project."""
    home = tmp_path / "home"
    home.mkdir()
    tasks = [{"id": "IMPL-1", "title": "A"}]
    wfs("init", "--no-git")
    assert wfs("plan", "Kept", "--from", "-", input=json.dumps(tasks)).code == 0
    before = sorted(p.relative_to(project) for p in project.rglob("*") if ".cache" not in p.parts)
    done = subprocess.run(
        [sys.executable, "-m", "wfs", "task", "add", "--title", "B"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")},
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert list(home.rglob("*")) == []
    after = sorted(p.relative_to(project) for p in project.rglob("*") if ".cache" not in p.parts)
    assert [p for p in after if p not in before] == [Path(".workflow/WFS-kept/.task/IMPL-2.json")]


# ---------------------------------------------------------------- the hot paths


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
    # 1: the answer is that the plan cannot go on (`status` when nothing can start)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}


@pytest.mark.slow
def test_jsonschema_is_never_imported_by_the_commands_agents_call_all_the_time(
    project: Path,
) -> None:
    tasks = [
        {"id": "IMPL-1", "title": "A", "flow_control": {"implementation_approach": [
            {"step": 1, "title": "s", "description": "d", "modification_points": [],
             "logic_flow": [], "depends_on": [], "output": "o", "command": "bash(true)"}]}},
        {"id": "IMPL-2", "title": "B", "context": {"depends_on": ["IMPL-1"]}},
    ]  # fmt: skip
    wfs("init", "--no-git")
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
    # The reads answered from the index compile no schema either.
    for args in (("status",), ("next",), ("task", "show", "IMPL-2")):
        assert "fastjsonschema" not in imported(project, *args), args
    # A hand edit: the index is rebuilt, and the task checked, without jsonschema ...
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    path = project / ".workflow/WFS-hot-paths/.task/IMPL-2.json"
    data = json.loads(path.read_text())
    data["title"] = "B, edited by hand"
    path.write_text(json.dumps(data))
    assert heavy_modules("status") == set()
    # ... unless the edit makes an error: jsonschema counts the errors of that file, once.
    data["context"]["focus_paths"] = ["src/**"]
    path.write_text(json.dumps(data))
    os.utime(path, (1_000_000, 1_000_000))  # an old stamp: trusted by the index
    assert {m.split(".")[0] for m in heavy_modules("status")} == heavy
    assert heavy_modules("status") == set()  # the count is kept in the index
    status = wfs("status", "--json").json()
    assert (status["ready"], status["stopped"]) == (
        [],
        [
            {
                "id": "IMPL-2",
                "state": "invalid",
                "reason": "1 validation error; `wfs validate` names them",
                "error": ".workflow/WFS-hot-paths/.task/IMPL-2.json#/context/focus_paths/0: "
                "focus-paths: focus path \"src/**\" contains the wildcard '*'; list concrete "
                "directories or files instead",
            }
        ],
    )
    # validate is where jsonschema runs (for the file that changed and has a problem) ...
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
    # Every stamp (the folders' too) old enough to be trusted when validate caches them.
    time.sleep(index.FINE_MARGIN_NS / 1e9 * 1.5)
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


@pytest.mark.slow
def test_validate_runs_jsonschema_only_on_files_the_compiled_check_rejects(
    project: Path,
) -> None:
    tasks = [{"id": f"IMPL-{n}", "title": f"T{n}"} for n in range(1, 4)]
    wfs("init", "--no-git")
    assert wfs("plan", "Clean", "--from", "-", input=json.dumps(tasks)).code == 0
    for cache in (project / ".workflow/.cache").glob("*"):
        cache.unlink()
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "wfs", "validate"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout) == (0, "OK: WFS-clean\n")
    modules = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()}
    assert "fastjsonschema" in modules
    assert not {m for m in modules if m.split(".")[0] in ("jsonschema", "referencing")}
