"""Placeholders and built-ins as real task files write them (issue 13, point 6), run by
the real engine: resolved where the meaning is clear, named where it is not, never
expanded to nothing or to a glob that reaches another session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json, wfs


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


SID = "WFS-words"


def step(number: int, command: str | None, output: str, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "step": number,
        "title": f"Step {number}",
        "description": f"Do step {number}",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [],
        "output": output,
        **extra,
    }
    if command is not None:
        spec["command"] = command
    return spec


def plan(project: Path, steps: list[dict[str, Any]], **fields: Any) -> Path:
    task = {"id": "IMPL-1", "title": "Words", "flow_control": {"implementation_approach": steps}}
    task.update(fields)
    wfs("init", "--no-git")
    assert wfs("plan", "Words", "--from", "-", input=json.dumps([task])).code == 0
    return project / ".workflow" / SID


def agent(tmp_path: Path) -> Path:
    script = tmp_path / "agent"
    script.write_text('#!/bin/sh\ncat >> "$0.briefs"\necho >> "$0.briefs"\necho "ok"\n')
    script.chmod(0o755)
    return script


def outputs(project: Path) -> dict[str, str]:
    record = read_json(project / ".workflow" / SID / ".runs/IMPL-1.json")
    return {key: entry.get("output", "") for key, entry in record["steps"].items()}


def test_session_and_context_package_placeholders_resolve_in_reads_and_commands(
    project: Path,
) -> None:
    # `{id}` and `${id}` in prose are code (a route, a JavaScript template), left alone.
    process = project / ".workflow" / SID / ".process"
    folder = plan(
        project,
        [
            step(1, "Read({{context_package_path}})", "a"),
            step(2, "Read([context_package_path])", "b"),
            step(3, "bash(cat ${session_dir}/.process/notes.txt)", "c"),
            step(4, "bash(ls .workflow/WFS-[session]/.process)", "d"),
            step(5, "bash(echo {session_id} WFS-{session})", "e"),
        ],
        context_package_path=".workflow/WFS-{session}/.process/context-package.json",
    )
    assert folder.is_dir()
    process.mkdir()
    (process / "context-package.json").write_text('{"k": 1}\n')
    (process / "notes.txt").write_text("notes\n")
    run = wfs("execute")
    assert run.code == 0, run.err
    assert wfs("validate").out == f"OK: {SID}\n"
    assert outputs(project) == {
        "implementation_approach/1": '{"k": 1}',
        "implementation_approach/2": '{"k": 1}',
        "implementation_approach/3": "notes",
        "implementation_approach/4": "context-package.json\nnotes.txt",
        "implementation_approach/5": f"{SID} {SID}",
    }


def test_a_placeholder_value_reaches_the_shell_as_data(project: Path) -> None:
    plan(
        project,
        [step(1, "bash(echo {{context_package_path}})", "a")],
        context_package_path="x; touch pwned $(touch pwned2)",
    )
    assert wfs("execute").code == 0
    assert outputs(project)["implementation_approach/1"] == "x; touch pwned $(touch pwned2)"
    assert not (project / "pwned").exists() and not (project / "pwned2").exists()


def test_unknown_placeholders_are_named_and_never_expand_to_nothing(project: Path) -> None:
    plan(
        project,
        [
            step(1, "Read({{analysis_report}})", "a"),
            step(
                2, "bash(echo ${HOME_OF_NOBODY:-shell} {{nobody}})", "b", on_error="skip_optional"
            ),
            step(3, "Glob(.workflow/WFS-[session_dir]/*.json)", "c"),
        ],
    )
    dry = wfs("execute", "--dry-run")
    assert "      ! placeholder {{analysis_report}} is not filled in\n" in dry.out
    assert "      ! placeholder {{nobody}} is not filled in\n" in dry.out
    where = f".workflow/{SID}/.task/IMPL-1.json#/flow_control/implementation_approach"
    unfilled = (
        "is filled in by nothing: no step output, task field or session value has that name; "
        "the command gets it as written"
    )
    assert wfs("validate").out.splitlines() == [
        f"{where}/0/command: placeholder: warning: placeholder {{{{analysis_report}}}} {unfilled}",
        f"{where}/1/command: placeholder: warning: placeholder {{{{nobody}}}} {unfilled}",
    ]
    run = wfs("execute", "--json")
    assert run.code == 1
    [task] = run.result()["tasks"]
    assert task["reason"] == (
        "step implementation_approach/1 (Step 1) failed: exit code 1: "
        "Read({{analysis_report}}): the placeholder {{analysis_report}} is not filled in"
    )


def test_a_glob_with_an_unfilled_session_placeholder_is_refused(project: Path) -> None:
    for other in ("WFS-s", "WFS-e"):  # what `[session]` would match as a character class
        (project / ".workflow" / other).mkdir(parents=True)
        (project / ".workflow" / other / "secret.json").write_text("{}")
    # `wfs flow` runs outside any session: the placeholder cannot be filled in
    flow = project / "flow.md"
    flow.write_text(
        "[FLOW_CONTROL]\n\n"
        "1. **find**\n"
        "   - Command: Glob(.workflow/WFS-[session]/*.json)\n"
        "   - Output: found\n"
    )
    run = wfs("flow", str(flow), "--json")
    assert run.code == 1
    assert (
        "Glob(.workflow/WFS-[session]/*.json): the placeholder [session] is not filled in"
        in run.out
    )


def test_search_is_grep_and_grep_splits_at_the_last_comma(project: Path) -> None:
    plan(
        project,
        [
            step(1, "Search(TODO, src)", "a"),
            step(2, "Grep(a{1,3}b, src)", "b"),
            step(3, 'Grep("x,y", src/b.txt)', "c"),
        ],
    )
    (project / "src").mkdir()
    (project / "src/a.txt").write_text("TODO: one\naab\n")
    (project / "src/b.txt").write_text("x,y\nab\n")
    (project / "README").write_text("TODO elsewhere, aab\n")
    assert wfs("execute").code == 0, wfs("execute").err
    assert outputs(project) == {
        "implementation_approach/1": "src/a.txt:1:TODO: one",
        "implementation_approach/2": "src/a.txt:2:aab\nsrc/b.txt:2:ab",
        "implementation_approach/3": "src/b.txt:1:x,y",
    }


def test_read_of_a_sentence_or_of_the_home_folder_is_an_instruction_for_the_agent(
    project: Path, tmp_path: Path
) -> None:
    plan(
        project,
        [
            step(1, "Read(each discovered role analysis file)", "a"),
            step(2, "Read(~/.claude/workflows/intelligent-tools-strategy.md)", "b"),
        ],
    )
    helper = agent(tmp_path)
    run = wfs("execute", "--agent", str(helper))
    assert run.code == 0, run.err
    briefs = (tmp_path / "agent.briefs").read_text()
    assert "Read(each discovered role analysis file)" in briefs
    assert "Read(~/.claude/workflows/intelligent-tools-strategy.md)" in briefs
    assert run.out.startswith("IMPL-1: completed")


@pytest.mark.slow
def test_read_takes_a_line_range_and_a_path_written_on_another_machine(project: Path) -> None:
    plan(
        project,
        [
            step(1, "Read(src/main.ts:2-3)", "a"),
            step(2, "Read(src/main.ts 第 1-1 行)", "b"),
            step(3, f"Read(D:\\\\Code\\\\app\\\\.workflow\\\\{SID}\\\\.process\\\\x.json)", "c"),
            step(4, f"Read(.workflow/active/{SID}/.process/x.json)", "d"),
        ],
    )
    (project / "src").mkdir()
    (project / "src/main.ts").write_text("one\ntwo\nthree\nfour\n")
    (project / ".workflow" / SID / ".process").mkdir()
    (project / ".workflow" / SID / ".process/x.json").write_text("{}")
    run = wfs("execute")
    assert run.code == 0, run.err
    assert outputs(project) == {
        "implementation_approach/1": "two\nthree",
        "implementation_approach/2": "one",
        "implementation_approach/3": "{}",
        # the session is in .workflow/, not active/: its own path is found where it is
        "implementation_approach/4": "{}",
    }


def test_on_error_values_of_other_tools_mean_skip_optional_and_validate_warns(
    project: Path,
) -> None:
    plan(
        project,
        [
            step(1, "bash(exit 3)", "a", on_error="continue"),
            step(2, "bash(exit 4)", "b", on_error="skip"),
            step(3, "bash(exit 5)", "c", on_error="warn"),
            step(4, "bash(echo after)", "d"),
        ],
    )
    # wfs plan writes skip_optional; a file another tool wrote keeps its own words.
    path = project / ".workflow" / SID / ".task/IMPL-1.json"
    task = json.loads(path.read_text())
    steps = task["flow_control"]["implementation_approach"]
    assert [s.get("on_error") for s in steps] == ["skip_optional"] * 3 + [None]
    for spec, value in zip(steps[:3], ("continue", "skip", "warn"), strict=True):
        spec["on_error"] = value
    path.write_text(json.dumps(task))
    assert wfs("validate").out.splitlines() == [
        f".workflow/{SID}/.task/IMPL-1.json#/flow_control/implementation_approach/{i}/on_error: "
        f'format: warning: on_error "{value}" is read as "skip_optional", the nearest '
        'strategy (a failure does not stop the task); `wfs migrate` writes "skip_optional"'
        for i, value in enumerate(("continue", "skip", "warn"))
    ]
    run = wfs("execute", "--json")
    assert run.code == 0, run.out
    steps = {s["key"]: s["status"] for s in run.result()["tasks"][0]["steps"]}
    assert steps == {
        "implementation_approach/1": "skipped",
        "implementation_approach/2": "skipped",
        "implementation_approach/3": "skipped",
        "implementation_approach/4": "done",
    }


def test_braces_in_prose_are_code_not_placeholders(project: Path, tmp_path: Path) -> None:
    plan(
        project,
        [step(1, None, "a", description="Add GET /users/{id}; log `${id}` and [id] ({{title}})")],
    )
    helper = agent(tmp_path)
    assert wfs("execute", "--agent", str(helper)).code == 0
    [brief] = [json.loads(line) for line in (tmp_path / "agent.briefs").read_text().splitlines()]
    assert brief["steps"][0]["description"] == (
        "Add GET /users/{id}; log `${id}` and IMPL-1 (Words)"
    )
