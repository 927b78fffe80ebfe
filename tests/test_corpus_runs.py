"""Every task of the design's documentation that can run, runs, and its agent sees all of
it: every `pre_analysis` output and every dependency summary reach the agent's brief.

Each instance of `../shared/corpus/ccw/instances` is planned the way a user would (as a
one-task plan document with the tasks it depends on already completed) in a project of
its own, with fake CLI tools on PATH, a fake home for `~/.claude/...` scripts, the files
its `Read()` steps name, and a fake agent that keeps the briefs it is given.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS, read_json, result_line, wfs_process

from wfs.formats import dependencies, parent_task


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


INSTANCES = CORPUS / "ccw" / "instances"
MISSING = f"the corpus is not available at {INSTANCES} (it is kept outside the repository)"
FAKE_CLIS = ("gemini", "qwen", "codex", "claude", "npm", "npx", "pytest", "rg", "ccw")
_HOME_PATH = re.compile(r"~/[^\s)'\"`;|&]+")
_READ = re.compile(r"Read\(([^)\[\]{}*$]+)\)")

# The instances whose agent is reached (the others are refused as written, stop on an
# input that the project lacks, or hold only commands).
REACH_THE_AGENT = {
    "2025-10-05-IMPL-001-7d37a0.json",
    "2025-10-05-IMPL-002-ee053e.json",
    "2025-10-10-IMPL-001-dacd62.json",
    "2025-10-10-IMPL-002-b4a09c.json",
    "2025-10-17-IMPL-004-ec7b88.json",
    "2025-10-17-IMPL-006-ed369c.json",
    "2025-10-21-IMPL-001-f73273.json",
    "2025-10-21-IMPL-004-f0a02e.json",
    "2025-10-21-IMPL-006-bb29c7.json",
    "2025-10-24-IMPL-001-ba427c.json",
    "2025-10-24-IMPL-002-461b26.json",
    "2025-10-24-IMPL-003-1b0660.json",
    "2025-10-24-IMPL-004-9c7a8d.json",
    "2025-10-24-IMPL-006-fe8fca.json",
    "2026-02-11-IMPL-002-c8f987.json",
}


def instance_names() -> list[Any]:
    if not INSTANCES.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    return sorted(p.name for p in INSTANCES.glob("*.json"))


def commands_of(task: dict[str, Any]) -> list[str]:
    flow = task.get("flow_control") if isinstance(task.get("flow_control"), dict) else {}
    found = []
    for key in ("pre_analysis", "implementation_approach"):
        steps = flow.get(key)
        for spec in steps if isinstance(steps, list) else []:
            if isinstance(spec, dict):
                if isinstance(spec.get("command"), str):
                    found.append(spec["command"])
                if isinstance(spec.get("commands"), list):
                    found += [c for c in spec["commands"] if isinstance(c, str)]
    return found


def prepare(root: Path, task: dict[str, Any]) -> tuple[dict[str, str], list[str]]:
    """A project for `task`: fake tools and files; returns (env, ids of its dependencies)."""
    bin_dir, home = root.parent / "bin", root.parent / "home"
    bin_dir.mkdir()
    for name in FAKE_CLIS:
        tool = bin_dir / name
        tool.write_text(f'#!/bin/sh\necho "fake {name} output"\n')
        tool.chmod(0o755)
    agent = bin_dir / "agent"
    briefs = root.parent / "briefs"
    briefs.mkdir()
    agent.write_text(
        "#!/bin/sh\n"
        f'n=$(ls "{briefs}" | wc -l)\n'
        f'cat > "{briefs}/brief-$((n + 1)).json"\n'
        "echo 'done by the fake agent'\n"
    )
    agent.chmod(0o755)
    for command in commands_of(task):
        for path in _HOME_PATH.findall(command):
            script = home / path[2:]
            script.parent.mkdir(parents=True, exist_ok=True)
            if not script.exists():
                script.write_text('#!/bin/sh\necho "fake home script"\n')
                script.chmod(0o755)
        for path in _READ.findall(command):
            path = path.strip().strip("'\"")
            target = root / path
            if (
                not Path(path).is_absolute()
                and ".." not in Path(path).parts
                and not path.startswith("~")
            ):
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists():
                    target.write_text(f"contents of {path}\n")
    context = task.get("context") if isinstance(task.get("context"), dict) else {}
    for path in context.get("focus_paths") or []:
        if isinstance(path, str) and not Path(path).is_absolute() and ".." not in path:
            if "*" not in path and "." not in Path(path).name:
                (root / path).mkdir(parents=True, exist_ok=True)
    deps = dependencies(task)  # wherever the file writes them (issue 13)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "WFS_AGENT": str(agent),
    }
    return env, [d for d in deps if isinstance(d, str)]


def gates_and_parents(deps: list[str]) -> tuple[set[str], set[str]]:
    """Of a task's dependencies: the gates (`IMPL-N.M` next to `IMPL-N`), and the main
    tasks of the others that are subtasks."""
    gates = {d for d in deps if "." in d and d.split(".")[0] in deps}
    return gates, {d.split(".")[0] for d in deps if "." in d and d not in gates}


def plan_document(task: dict[str, Any], deps: list[str]) -> list[dict[str, Any]]:
    """The task after the tasks it needs: its parent and the parents of its dependencies
    (containers), and its dependencies, completed. A dependency `IMPL-N.M` next to
    `IMPL-N` is a gate after it (wfs.formats.is_gate), as the task itself may be."""
    own = parent_task(task)
    gates, parents = gates_and_parents(deps)
    parents |= {own} if own else set()
    tasks: list[dict[str, Any]] = [{"id": p, "title": f"{p} (parent)"} for p in sorted(parents)]
    for dep in deps:
        if dep not in parents:
            done = {"id": dep, "title": f"{dep} (done)", "status": "completed"}
            if dep in gates:
                done["context"] = {"depends_on": [dep.split(".")[0]]}
            tasks.append(done)
    return [*tasks, task]


def run_instance(name: str, tmp_path: Path) -> dict[str, Any]:
    task = json.loads((INSTANCES / name).read_text())
    root = tmp_path / "project"
    root.mkdir()
    env, deps = prepare(root, task)
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan_document(task, deps)))
    wfs_process("init", "--no-git", cwd=root, env=env)
    planned = wfs_process("plan", "Corpus", "--from", str(plan_file), cwd=root, env=env)
    if planned.code != 0:
        return {"outcome": "plan refused", "detail": planned.err.splitlines()[1]}
    sid = planned.out.strip()
    for dep in deps:
        summary = root / ".workflow" / sid / ".summaries" / f"{dep}-summary.md"
        summary.parent.mkdir(exist_ok=True)
        summary.write_text(f"# {dep}\n\nwhat {dep} did\n")
    run = wfs_process("execute", str(task["id"]), "--json", cwd=root, env=env, timeout=120)
    assert "Traceback" not in run.err, run.err
    briefs = sorted((tmp_path / "briefs").glob("*.json"))
    return {
        "outcome": "reached the agent" if briefs else f"exit {run.code}",
        "detail": run.out,
        "briefs": [json.loads(p.read_text()) for p in briefs],
        "task": task,
        "deps": deps,
        "sid": sid,
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", instance_names())
def test_every_output_and_dependency_summary_reaches_the_agent(name: str, tmp_path: Path) -> None:
    result = run_instance(name, tmp_path)
    if name in REACH_THE_AGENT:
        assert result["outcome"] == "reached the agent", result["detail"]
    if result["outcome"] == "plan refused":
        # A real problem of the file, named precisely: `plan.json#/pointer: rule: message`.
        assert re.match(r".*plan\.json#/\S*: [a-z-]+: \S", result["detail"]), result["detail"]
        return
    if result["outcome"] != "reached the agent":
        data = result_line(result["detail"])
        (outcome,) = data["tasks"]
        if outcome["status"] == "completed":
            # Completed without an agent: only when no step of it needs one.
            from wfs.flow.stepping import has_agent_part
            from wfs.flow.work import task_steps

            task = read_json(
                tmp_path
                / "project"
                / ".workflow"
                / result["sid"]
                / ".task"
                / f"{result['task']['id']}.json"
            )
            assert not any(has_agent_part(s) for s in task_steps(task))
        else:  # stopped on an input this project lacks, and says which
            assert outcome["status"] == "blocked", outcome
            assert outcome["reason"].startswith(f"step {outcome['step']} ("), outcome
        return
    record = read_json(
        tmp_path
        / "project"
        / ".workflow"
        / result["sid"]
        / ".runs"
        / f"{result['task']['id']}.json"
    )
    pre = result["task"]["flow_control"].get("pre_analysis") or []
    # Every brief holds every pre_analysis output bound before its step: all of them for
    # the implementation; the earlier ones for a pre_analysis step that needs an agent
    # (an MCP tool, words), which runs before the later outputs exist.
    for brief in result["briefs"]:
        key = brief["steps"][0]["key"]
        before = int(key.split("/")[1]) - 1 if key.startswith("pre_analysis/") else len(pre)
        for n, spec in enumerate(pre[:before], start=1):
            if not spec.get("output_to"):
                continue
            shown = brief["outputs"][spec["output_to"]]
            assert shown["from"] == f"pre_analysis/{n}"
            value = record["steps"][f"pre_analysis/{n}"]["output"]
            if "text" in shown:
                assert shown["text"] == value
            else:
                assert (tmp_path / "project" / shown["path"]).read_text() == value
    brief = result["briefs"][-1]
    # A dependency on a container means its subtasks: their summaries are given.
    parents = gates_and_parents(result["deps"])[1]
    expected = [
        sub
        for dep in result["deps"]
        for sub in (
            [d for d in result["deps"] if d.startswith(dep + ".")] if dep in parents else [dep]
        )
    ]
    assert brief["dependencies"] == [
        {
            "task": dep,
            "summary": f".workflow/{result['sid']}/.summaries/{dep}-summary.md",
            "text": f"# {dep}\n\nwhat {dep} did\n",
        }
        for dep in expected
    ]
