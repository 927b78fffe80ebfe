"""One agent per task, with all of the task's context, and a verify-and-fix loop (SPEC
§3.15-16): what the agent's brief holds, how steps are handed off, how failing checks go
back to the agent, how agents are routed, and what the summary says."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json, wfs, wfs_process


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


SID = "WFS-handoff"
TASKS = Path(".workflow") / SID / ".task"


def plan(tasks: list[dict[str, Any]]) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", "Handoff", "--from", "-", input=json.dumps(tasks))
    assert (run.code, run.out) == (0, f"{SID}\n"), run.err


def step(n: int, command: str | None = None, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "step": n,
        "title": f"Step {n}",
        "description": f"Do step {n}",
        "modification_points": [f"src/part{n}.py"],
        "logic_flow": [f"flow {n}"],
        "depends_on": [n - 1] if n > 1 else [],
        "output": f"out{n}",
    }
    if command is not None:
        spec["command"] = command
    spec.update(extra)
    return spec


def fake_agent(tmp_path: Path, name: str, script: str = "echo done") -> Path:
    """An executable that keeps its argv and stdin per call (NAME-calls/N.argv, N.in)
    and then runs `script` with the brief's file in $BRIEF."""
    calls = tmp_path / f"{name}-calls"
    calls.mkdir()
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        "#!/usr/bin/env bash\n"
        f"calls={shlex.quote(str(calls))}\n"
        'n=$(( $(ls "$calls" | grep -c "\\.in$") + 1 ))\n'
        'printf "%s\\n" "$@" > "$calls/$n.argv"\n'
        'cat > "$calls/$n.in"\n'
        'BRIEF="$calls/$n.in"\n'
        f"{script}\n"
    )
    path.chmod(0o755)
    return path


def calls(agent: Path) -> list[str]:
    folder = agent.parent.parent / f"{agent.name}-calls"
    found = sorted(folder.glob("*.in"), key=lambda p: int(p.stem))
    return [p.read_text() for p in found]


def briefs(agent: Path) -> list[dict[str, Any]]:
    return [json.loads(text) for text in calls(agent)]


def summary(project: Path, tid: str = "IMPL-1") -> str:
    return (project / ".workflow" / SID / ".summaries" / f"{tid}-summary.md").read_text()


@pytest.mark.slow
def test_the_brief_carries_the_whole_task(project: Path, tmp_path: Path) -> None:
    (project / "docs").mkdir()
    (project / "docs/design.md").write_text("the design\n")
    big = "x" * 20000
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Earlier work",
                "flow_control": {
                    "pre_analysis": [],
                    "implementation_approach": [step(1, "bash(printf 'made the base')")],
                },
            },
            {
                "id": "IMPL-2",
                "title": "Build on it",
                "meta": {"type": "feature", "agent": "@code-developer"},
                "context": {
                    "depends_on": ["IMPL-1"],
                    "focus_paths": ["src"],
                    "acceptance": ["it works"],
                    "requirements": ["do it well"],
                    "artifacts": [
                        {"type": "topic_framework", "path": "docs/*.md"},
                        {"type": "role_analyses", "path": "docs/missing.md"},
                    ],
                },
                "flow_control": {
                    "pre_analysis": [
                        {
                            "step": "small",
                            "action": "a",
                            "command": "bash(printf tiny)",
                            "output_to": "small",
                        },
                        {
                            "step": "large",
                            "action": "b",
                            "command": f"bash(printf {big})",
                            "output_to": "large",
                        },
                        {
                            "step": "unused",
                            "action": "c",
                            "command": "bash(printf nobody)",
                            "output_to": "unused",
                        },
                    ],
                    "implementation_approach": [step(1, description="Use [small]")],
                    "target_files": ["src/app.py:main:1-9"],
                },
            },
        ]
    )
    agent = fake_agent(tmp_path, "agent")
    run = wfs("execute", "--all", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    (brief,) = briefs(agent)
    session = f".workflow/{SID}"
    assert brief["steps"] == [
        {
            "key": "implementation_approach/1",
            "name": "Step 1",
            "title": "Step 1",
            "description": "Use tiny",
            "modification_points": ["src/part1.py"],
            "logic_flow": ["flow 1"],
            "output": "out1",
        }
    ]
    large_path = f"{session}/.runs/IMPL-2/large.txt"
    assert brief["outputs"] == {
        "small": {"from": "pre_analysis/1", "text": "tiny"},
        "large": {"from": "pre_analysis/2", "path": large_path, "bytes": 20000},
        "unused": {"from": "pre_analysis/3", "text": "nobody"},
    }
    assert (project / large_path).read_text() == big
    assert brief["dependencies"] == [
        {
            "task": "IMPL-1",
            "summary": f"{session}/.summaries/IMPL-1-summary.md",
            "text": summary(project, "IMPL-1"),
        }
    ]
    assert brief["paths"] == {
        "project": ".",
        "session": session,
        "task_file": f"{session}/.task/IMPL-2.json",
        "summaries": f"{session}/.summaries",
        "process": f"{session}/.process",
        "run_record": f"{session}/.runs/IMPL-2.json",
    }
    assert brief["context"] == {
        "requirements": ["do it well"],
        "focus_paths": ["src"],
        "acceptance": ["it works"],
        "target_files": ["src/app.py:main:1-9"],
        "artifacts": [
            {"type": "topic_framework", "path": "docs/*.md", "files": ["docs/design.md"]},
            {"type": "role_analyses", "path": "docs/missing.md", "files": []},
        ],
    }
    assert brief["workflow"] == {"session": SID, "phase": "IMPLEMENT"}
    assert brief["agent"]["name"] == "@code-developer"
    assert brief["agent"]["definition"].startswith("You implement: ")  # agents/roles/
    assert "## TASK BLOCKED" in brief["contract"]
    resume = ["wfs", "--session", SID, "execute", "--agent", str(agent), "--resume", "IMPL-2"]
    assert brief["resume"] == resume
    assert brief["task"]["id"] == "IMPL-2"


@pytest.mark.slow
def test_consecutive_agent_steps_go_to_the_agent_in_one_brief(
    project: Path, tmp_path: Path
) -> None:
    steps = [
        step(1),
        step(2),
        step(3, "bash(echo between >> order.txt)"),
        step(4),
    ]
    plan(
        [
            {
                "id": f"IMPL-{n}",
                "title": title,
                "flow_control": {"pre_analysis": [], "implementation_approach": steps},
            }
            for n, title in ((1, "Grouped"), (2, "Apart"))
        ]
    )
    agent = fake_agent(tmp_path, "agent", "echo agent >> order.txt; echo answered")
    run = wfs("execute", "IMPL-1", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    got = briefs(agent)
    assert [[s["key"] for s in b["steps"]] for b in got] == [
        ["implementation_approach/1", "implementation_approach/2"],
        ["implementation_approach/4"],
    ]
    assert (project / "order.txt").read_text() == "agent\nbetween\nagent\n"
    record = read_json(project / ".workflow" / SID / ".runs/IMPL-1.json")
    assert record["steps"]["implementation_approach/2"]["output"] == "answered"
    assert record["steps"]["implementation_approach/2"]["how"] == (
        "in one hand-off with implementation_approach/1"
    )
    assert "Step 1 (+1 more in one hand-off)" in run.err
    preview = wfs("execute", "IMPL-2", "--dry-run", "--json").json()
    assert [row.get("handoff_with") for row in preview["steps"]] == [
        None,
        "implementation_approach/1",
        None,
        None,
    ]
    # One brief per step on request.
    apart = fake_agent(tmp_path, "apart")
    assert wfs("execute", "IMPL-2", "--agent", str(apart), "--agent-scope", "step").code == 0
    assert len(calls(apart)) == 3


@pytest.mark.slow
def test_a_grouped_brief_paused_without_an_agent_resumes_with_one_answer(project: Path) -> None:
    steps = [step(1), step(2), step(3, "bash(printf '%s|%s' [out1] [out2] > got.txt)")]
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Grouped",
                "flow_control": {"pre_analysis": [], "implementation_approach": steps},
            }
        ]
    )
    paused = wfs("execute", "--json")
    assert paused.code == 3
    brief = paused.result()["tasks"][0]["brief"]
    assert [s["key"] for s in brief["steps"]] == [
        "implementation_approach/1",
        "implementation_approach/2",
    ]
    done = wfs(*brief["resume"][1:], "--output", "both done")
    assert done.code == 0, done.out + done.err
    assert (project / "got.txt").read_text() == "both done|both done"


FIXING_AGENT = """
if grep -q '"fix"' "$BRIEF"; then
  echo 'def add(a, b): return a + b' > calc.py; echo "fixed add()"
else
  echo 'def add(a, b): return a - b' > calc.py; echo "wrote calc.py"
fi
"""
# -B: no bytecode is written, so the check never reads a calc.py of the same size and
# second that the fix replaced.
TEST = "bash(python3 -B -c 'from calc import add; assert add(2, 2) == 4, add(2, 2)')"


@pytest.mark.slow
def test_a_failing_check_goes_back_to_the_agent_until_it_passes(
    project: Path, tmp_path: Path
) -> None:
    steps = [step(1), step(2), step(3), step(4, TEST, on_error="retry_once")]
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Calc",
                "flow_control": {"pre_analysis": [], "implementation_approach": steps},
            }
        ]
    )
    agent = fake_agent(tmp_path, "agent", FIXING_AGENT)
    run = wfs("execute", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    got = briefs(agent)
    assert len(got) == 2  # once for the implementation, once with the failing test
    assert [s["key"] for s in got[0]["steps"]] == [
        "implementation_approach/1",
        "implementation_approach/2",
        "implementation_approach/3",
    ]
    fix = got[1]["fix"]
    assert fix == {
        "step": "implementation_approach/4",
        "command": TEST,
        "error": "exit code 1: AssertionError: 0",
        "stdout": [],
        "stderr": fix["stderr"],
        "iteration": 1,
        "of": 1,
    }
    assert fix["stderr"][-1] == "AssertionError: 0"
    assert [s["key"] for s in got[1]["steps"]] == ["implementation_approach/4"]
    assert (
        "  IMPL-1 · Step 4: failed (exit code 1: AssertionError: 0); fix 1 of 1 goes to the agent\n"
    ) in run.err
    record = read_json(project / ".workflow" / SID / ".runs/IMPL-1.json")
    entry = record["steps"]["implementation_approach/4"]
    assert entry["fixes"] == [
        {"iteration": 1, "error": "exit code 1: AssertionError: 0", "answer": "fixed add()\n"}
    ]
    assert "| implementation_approach/4 | Step 4 | done (after 1 fix) |" in summary(project)


@pytest.mark.slow
def test_the_fix_loop_stops_at_max_iterations_with_the_last_failure(
    project: Path, tmp_path: Path
) -> None:
    steps = [step(1), step(2, "bash(echo check >> checks.txt; exit 5)", max_iterations=2)]
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Never",
                "flow_control": {"pre_analysis": [], "implementation_approach": steps},
            }
        ]
    )
    agent = fake_agent(tmp_path, "agent", "echo tried")
    run = wfs("execute", "--agent", str(agent), "--json")
    assert run.code == 1
    result = run.result()["tasks"][0]
    assert result["reason"] == "step implementation_approach/2 (Step 2) failed: exit code 5"
    assert len(calls(agent)) == 3  # the step, then two fixes
    assert [b["fix"]["iteration"] for b in briefs(agent)[1:]] == [1, 2]
    assert (project / "checks.txt").read_text() == "check\n" * 3


@pytest.mark.slow
def test_a_fix_brief_pauses_without_an_agent_and_the_answer_reruns_the_check(
    project: Path,
) -> None:
    steps = [step(1), step(2, "bash(test -f fixed.flag)", on_error="retry_once")]
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "By hand",
                "flow_control": {"pre_analysis": [], "implementation_approach": steps},
            }
        ]
    )
    assert wfs("execute").code == 3
    paused = wfs("execute", "--resume", "IMPL-1", "--output", "did step 1", "--json")
    assert paused.code == 3
    result = paused.result()["tasks"][0]
    assert result["reason"] == (
        "waiting for an agent to fix implementation_approach/2: exit code 1"
    )
    assert result["brief"]["fix"]["command"] == "bash(test -f fixed.flag)"
    (project / "fixed.flag").touch()
    done = wfs(*result["resume"][1:], "--output", "created fixed.flag")
    assert done.code == 0, done.out + done.err


@pytest.mark.slow
def test_acceptance_checks_run_before_completion_and_go_into_the_fix_loop(
    project: Path, tmp_path: Path
) -> None:
    plan([{"id": "IMPL-1", "title": "Flat"}])
    path = project / TASKS / "IMPL-1.json"
    task = read_json(path)
    task["flow_control"] = {"pre_analysis": []}
    task["implementation"] = ["Write the report"]
    task["convergence"] = {
        "criteria": ["a report exists"],
        "verification": "bash(test -s report.txt)",
    }
    task["test"] = {"commands": ["bash(grep -q final report.txt)"]}
    path.write_text(json.dumps(task))
    agent = fake_agent(
        tmp_path,
        "agent",
        'if grep -q \'"fix"\' "$BRIEF"; then echo final >> report.txt; else echo draft > report.txt; fi; echo ok',
    )
    run = wfs("execute", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    assert (project / "report.txt").read_text() == "draft\nfinal\n"
    got = briefs(agent)
    assert len(got) == 2
    assert got[1]["fix"]["step"] == "acceptance/2"
    assert got[1]["fix"]["command"] == "bash(grep -q final report.txt)"
    text = summary(project)
    assert "| acceptance/1 | acceptance check 1 | done |" in text
    assert "| acceptance/2 | acceptance check 2 | done (after 1 fix) |" in text


@pytest.mark.slow
def test_agents_are_routed_by_name_and_overridden_by_agent_and_wfs_agent(
    project: Path, tmp_path: Path
) -> None:
    developer = fake_agent(tmp_path, "developer")
    tester = fake_agent(tmp_path, "tester")
    fallback = fake_agent(tmp_path, "fallback")
    agents = ["@code-developer", "@test-fix-agent", "@doc-writer"] + ["@code-developer"] * 2
    plan(
        [
            {"id": f"IMPL-{n}", "title": f"Task {n}", "meta": {"agent": agent}}
            for n, agent in enumerate(agents, start=1)
        ]
    )
    config = {
        "agents": {
            "@code-developer": str(developer),
            "@test-fix-agent": str(tester),
            "default": str(fallback),
        }
    }
    (project / ".workflow/config.json").write_text(json.dumps(config))
    for tid in ("IMPL-1", "IMPL-2", "IMPL-3"):
        assert wfs("execute", tid).code == 0
    assert [b["task"]["id"] for b in briefs(developer)] == ["IMPL-1"]
    assert [b["task"]["id"] for b in briefs(tester)] == ["IMPL-2"]
    assert [b["task"]["id"] for b in briefs(fallback)] == ["IMPL-3"]
    override = fake_agent(tmp_path, "override")
    assert wfs("execute", "IMPL-4", "--agent", str(override)).code == 0
    assert wfs("execute", "IMPL-5", env={"WFS_AGENT": str(override)}).code == 0
    assert [b["task"]["id"] for b in briefs(override)] == ["IMPL-4", "IMPL-5"]
    assert len(briefs(developer)) == 1


def test_bad_agent_routes_are_refused_naming_the_place(project: Path) -> None:
    plan([{"id": "IMPL-1", "title": "Build"}])
    (project / ".workflow/config.json").write_text('{"agents": {"@code-developer": 3}}')
    run = wfs("execute")
    assert (run.code, run.err) == (
        2,
        "wfs: error: .workflow/config.json#/agents/@code-developer: expected a command string\n",
    )


@pytest.mark.slow
def test_a_cli_task_is_handed_to_its_cli_tool_with_one_prompt(
    project: Path, tmp_path: Path
) -> None:
    codex = fake_agent(tmp_path, "codex", "echo 'codex did it'")
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Via codex",
                "meta": {
                    "agent": "@code-developer",
                    "execution_config": {"method": "cli", "cli_tool": "codex"},
                },
                "context": {"acceptance": ["tests pass"]},
                "flow_control": {
                    "pre_analysis": [
                        {
                            "step": "ctx",
                            "action": "a",
                            "command": "bash(printf gathered)",
                            "output_to": "ctx",
                        }
                    ],
                    "implementation_approach": [step(1), step(2)],
                },
            }
        ]
    )
    env = {"PATH": f"{codex.parent}{os.pathsep}{os.environ['PATH']}"}
    run = wfs_process("execute", cwd=project, env=env)
    assert run.code == 0, run.out + run.err
    (prompt,) = calls(codex)
    argv = (codex.parent.parent / "codex-calls/1.argv").read_text().splitlines()
    assert argv == ["exec", "--full-auto", "-"]
    assert prompt.startswith("# IMPL-1: Via codex\n")
    assert "### implementation_approach/1: Step 1\n" in prompt
    assert "### implementation_approach/2: Step 2\n" in prompt
    assert "### [ctx] (from pre_analysis/1)\n\ngathered\n" in prompt
    assert "- tests pass\n" in prompt
    assert "## Your role: @code-developer\n\nYou implement: " in prompt
    assert "codex did it" in summary(project)


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)


def test_files_changed_counts_what_the_task_changed_by_content(project: Path) -> None:
    git(project, "init", "-q")
    git(
        project,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@e",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "start",
    )
    (project / "dirty.txt").write_text("edited before\n")  # dirty, changed again by the task
    (project / "untouched.txt").write_text("dirty, left alone\n")
    git(project, "add", "dirty.txt", "untouched.txt")
    git(project, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "files")
    (project / "dirty.txt").write_text("edited before the task\n")
    (project / "untouched.txt").write_text("dirty, and left alone\n")
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Change",
                "flow_control": {
                    "pre_analysis": [],
                    "implementation_approach": [
                        step(1, "bash(echo more >> dirty.txt; mkdir -p src; echo new > src/new.py)")
                    ],
                },
            }
        ]
    )
    assert wfs("execute").code == 0
    text = summary(project)
    assert "## Files Changed\n- `dirty.txt`\n- `src/new.py`\n" in text
    assert "untouched.txt" not in text


@pytest.mark.slow
def test_summary_outputs_are_cut_and_linked_and_fences_stay_whole(project: Path) -> None:
    long = "\n".join(f"line {n}" for n in range(1, 101))
    (project / "long.txt").write_text(long + "\n")
    (project / "fenced.md").write_text("before\n```python\nprint(1)\n```\nafter\n")
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Outputs",
                "flow_control": {
                    "pre_analysis": [],
                    "implementation_approach": [
                        step(1, "Read(long.txt)"),
                        step(2, "Read(fenced.md)"),
                    ],
                },
            }
        ]
    )
    assert wfs("execute").code == 0
    text = summary(project)
    shown = "\n".join(f"line {n}" for n in range(1, 41))
    link = "../.runs/IMPL-1/out1.txt"
    assert (
        f"### `out1`\n```text\n{shown}\n```\n… cut here; the whole output is in [{link}]({link})"
        in text
    )
    assert (project / ".workflow" / SID / ".runs/IMPL-1/out1.txt").read_text() == long
    assert "### `out2`\n````text\nbefore\n```python\nprint(1)\n```\nafter\n````\n" in text


def test_every_top_level_field_of_a_flat_task_reaches_the_brief(
    project: Path, tmp_path: Path
) -> None:
    plan([{"id": "IMPL-1", "title": "Flat"}])
    path = project / TASKS / "IMPL-1.json"
    task = {
        "id": "IMPL-1",
        "title": "Flat",
        "status": "pending",
        "description": "Make the config consistent",
        "requirements": ["Keep the API"],
        "focus_paths": ["src"],
        "acceptance_criteria": ["All five tests pass"],
        "target_files": ["src/config.py:load:1-20"],
        "convergence": {"criteria": ["config loads"], "definition_of_done": "it loads"},
        "files": [{"path": "src/config.py", "action": "modify"}],
        "cli_execution": {"strategy": "new"},
        "meta": {"execution_config": {"method": "agent", "cli_tool": "auto"}},
        "implementation": ["Fix the loader"],
    }
    path.write_text(json.dumps(task, indent=2) + "\n")
    agent = fake_agent(tmp_path, "agent")
    run = wfs("execute", "IMPL-1", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    (brief,) = briefs(agent)
    assert brief["context"] == {
        "description": "Make the config consistent",
        "requirements": ["Keep the API"],
        "focus_paths": ["src"],
        "acceptance": ["All five tests pass", "config loads"],
        "target_files": ["src/config.py:load:1-20", "src/config.py"],  # and the files'
        "convergence": {"definition_of_done": "it loads"},  # its criteria are acceptance
        "files": [{"path": "src/config.py", "action": "modify"}],
        "cli_execution": {"strategy": "new"},
        "execution_config": {"method": "agent", "cli_tool": "auto"},
    }
