"""`wfs execute`: steps, variables, on_error, pause/resume, completion, concurrency."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, posix_only, read_json, wfs, wfs_process


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


DEMO = REPO / "examples" / "offline-demo"


def plan_tasks(tasks: list[dict[str, Any]], topic: str = "Run") -> str:
    wfs("init", "--no-git")
    run = wfs("plan", topic, "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    return run.out.strip()


def step(
    n: int,
    command: str | None = None,
    output: str | None = None,
    depends: list[int] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "step": n,
        "title": f"Step {n}",
        "description": f"Do step {n}",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": depends or [],
        "output": output or f"out{n}",
    }
    if command is not None:
        spec["command"] = command
    spec.update(extra)
    return spec


def one_task(
    steps: list[dict[str, Any]], pre: list[dict[str, Any]] | None = None, **context: Any
) -> list[dict[str, Any]]:
    return [
        {
            "id": "IMPL-1",
            "title": "Solo",
            "context": context,
            "flow_control": {"pre_analysis": pre or [], "implementation_approach": steps},
        }
    ]


def task_json(project: Path, sid: str, tid: str = "IMPL-1") -> dict[str, Any]:
    return read_json(project / ".workflow" / sid / ".task" / f"{tid}.json")


@pytest.mark.slow
def test_offline_demo_runs_end_to_end_with_a_fake_agent(project: Path) -> None:
    sid = plan_tasks(json.loads((DEMO / "plan.json").read_text()), "Offline demo")
    run = wfs("execute", "--all", "--agent", str(DEMO / "agent.sh"), "--json")
    assert run.code == 0, run.err
    result = run.result()
    assert [t["task"] for t in result["tasks"]] == ["IMPL-1", "IMPL-2", "IMPL-3"]
    assert {t["status"] for t in result["tasks"]} == {"completed"}
    assert (project / "build/review.txt").read_text() == "Friendly and short: approved.\n"
    greeting = (project / "build/greeting.txt").read_text()
    assert greeting.startswith("Hello, wfs users, from ")
    todo = (project / ".workflow" / sid / "TODO_LIST.md").read_text()
    assert todo.count("\n- [x] **IMPL-") == 3 and "- [ ] **" not in todo
    for tid in ("IMPL-1", "IMPL-2", "IMPL-3"):
        assert (project / ".workflow" / sid / ".summaries" / f"{tid}-summary.md").is_file()
    session = read_json(project / ".workflow" / sid / "workflow-session.json")
    assert session["current_phase"] == "REVIEW"
    assert session["progress"]["completed_phases"] == ["PLAN", "IMPLEMENT"]
    assert wfs("validate").code == 0
    assert wfs("render", "--check").code == 0


def test_outputs_flow_between_steps_in_dependency_order(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(1, "bash(printf first)", "a"),
                step(2, "bash(printf '%s+second' [a])", "b", [1]),
            ],
            pre=[
                {"step": "seed", "action": "seed", "command": "bash(printf zero)", "output_to": "z"}
            ],
        )
    )
    assert wfs("execute").code == 0
    summary = (project / ".workflow" / sid / ".summaries/IMPL-1-summary.md").read_text()
    assert "### `b`\n```text\nfirst+second\n```" in summary
    assert task_json(project, sid)["status"] == "completed"


def test_task_fields_dotted_paths_and_session_values(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(
                    1,
                    "bash(printf '%s|' [focus_paths] [shared_context.mode] [session_id] [id] [0-9])",
                    "seen",
                )
            ],
            focus_paths=["src/a", "src/b"],
            shared_context={"mode": "fast"},
        )
    )
    assert wfs("execute").code == 0
    summary = (project / ".workflow" / sid / ".summaries/IMPL-1-summary.md").read_text()
    assert f"src/a|src/b|fast|{sid}|IMPL-1|[0-9]|" in summary


def test_missing_required_input_fails_the_step(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(1, "bash(printf '%s' [later])", "first"),
                step(2, "bash(printf x)", "later", [1]),
            ]
        )
    )
    run = wfs("execute")
    assert run.code == 1
    assert "Missing required input: later" in run.out
    task = task_json(project, sid)
    assert task["status"] == "blocked"
    assert "Missing required input: later" in task["execution"]["blocked_reason"]


def test_skip_optional_continues_with_an_empty_value(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(1, "bash(exit 3)", "maybe", on_error="skip_optional"),
                step(2, "bash(printf '<%s>' \"[maybe]\")", "after", [1]),
            ]
        )
    )
    assert wfs("execute").code == 0
    summary = (project / ".workflow" / sid / ".summaries/IMPL-1-summary.md").read_text()
    assert "| implementation_approach/1 | Step 1 | skipped | " in summary
    assert "### `after`\n```text\n<>\n```" in summary


def test_fail_blocks_the_task_with_the_reason(project: Path) -> None:
    sid = plan_tasks(one_task([step(1, "bash(echo boom >&2; exit 7)")]))
    run = wfs("execute", "--json")
    assert run.code == 1
    result = run.result()["tasks"][0]
    elapsed = result["tries"][0].pop("elapsed")
    assert isinstance(elapsed, float)
    assert result == {
        "task": "IMPL-1",
        "status": "blocked",
        "step": "implementation_approach/1",
        "reason": "step implementation_approach/1 (Step 1) failed: exit code 7: boom",
        "tries": [
            {
                "part": 0,
                "exit_code": 7,
                "error": "exit code 7: boom",
                "stdout": [],
                "stderr": ["boom"],
            }
        ],
        "tail": {"stdout": [], "stderr": ["boom"]},
        "resume": ["wfs", "--session", sid, "execute", "--resume", "IMPL-1"],
    }
    execution = task_json(project, sid)["execution"]
    assert execution["blocked_reason"] == (
        "step implementation_approach/1 (Step 1) failed: exit code 7: boom"
    )
    assert execution["step"] == "implementation_approach/1"


@pytest.mark.slow
def test_retry_once_runs_exactly_twice(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(
                    1,
                    "bash(echo x >> tries.txt; test $(wc -l < tries.txt) -ge 2)",
                    on_error="retry_once",
                )
            ]
        )
    )
    assert wfs("execute").code == 0
    assert (project / "tries.txt").read_text() == "x\nx\n"
    (project / "tries.txt").unlink()
    plan_tasks(
        one_task([step(1, "bash(echo x >> tries.txt; exit 1)", on_error="retry_once")]), "Again"
    )
    assert wfs("execute").code == 1
    assert (project / "tries.txt").read_text() == "x\nx\n"
    del sid


def test_manual_intervention_pauses_blocked_then_resume_retries(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(1, "bash(echo ran >> log.txt)", "first"),
                step(
                    2,
                    "bash(test -f ok.flag && echo fine)",
                    "second",
                    [1],
                    on_error="manual_intervention",
                ),
            ]
        )
    )
    run = wfs("execute")
    assert run.code == 3
    assert "manual intervention needed" in run.out
    assert task_json(project, sid)["status"] == "blocked"
    (project / "ok.flag").touch()
    resumed = wfs("execute", "--resume", "IMPL-1")
    assert resumed.code == 0, resumed.out + resumed.err
    assert task_json(project, sid)["status"] == "completed"
    assert (project / "log.txt").read_text() == "ran\n"  # step 1 never ran twice


def test_manual_intervention_skip_on_resume(project: Path) -> None:
    sid = plan_tasks(one_task([step(1, "bash(exit 1)", on_error="manual_intervention")]))
    assert wfs("execute").code == 3
    assert wfs("execute", "--resume", "IMPL-1", "--skip").code == 0
    assert task_json(project, sid)["status"] == "completed"


def test_agent_step_pauses_and_resumes_without_rerunning_steps(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(1, "bash(echo once >> appended.txt; printf ctx)", "ctx"),
                step(2, None, "answer", [1]),
                step(3, "bash(printf 'got:%s' [answer] > answer.txt)", "saved", [2]),
            ]
        )
    )
    paused = wfs("execute", "--json")
    assert paused.code == 3
    data = paused.result()
    assert data["status"] == "paused"
    brief = data["tasks"][0]["brief"]
    assert brief["steps"][0]["key"] == "implementation_approach/2"
    assert brief["workflow"] == {"session": sid, "phase": "IMPLEMENT"}
    assert brief["task"]["id"] == "IMPL-1"
    assert task_json(project, sid)["status"] == "active"
    again = wfs("execute", "--resume", "IMPL-1", "--output", "$(rm -rf /) 42")
    assert again.code == 0, again.out + again.err
    assert (project / "appended.txt").read_text() == "once\n"
    assert (project / "answer.txt").read_text() == "got:$(rm -rf /) 42"


def test_agent_step_output_file_on_resume(project: Path) -> None:
    sid = plan_tasks(
        one_task([step(1, None, "answer"), step(2, "bash(printf '%s' [answer] > a.txt)", "x", [1])])
    )
    assert wfs("execute").code == 3
    (project / "answer.md").write_text("from a file\n")
    assert wfs("execute", "--resume", "IMPL-1", "--output-file", "answer.md").code == 0
    assert (project / "a.txt").read_text() == "from a file"  # outputs lose trailing newlines
    del sid


def test_configured_agent_gets_the_brief_on_stdin(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.write_text("#!/usr/bin/env bash\ncat > brief.json\necho agent-said\n")
    agent.chmod(agent.stat().st_mode | stat.S_IEXEC)
    plan_tasks(one_task([step(1, None, "answer")], focus_paths=["src"]))
    run = wfs("execute", env={"WFS_AGENT": str(agent)})
    assert run.code == 0, run.err
    brief = json.loads((project / "brief.json").read_text())
    assert brief["steps"][0]["description"] == "Do step 1"
    assert brief["task"]["context"]["focus_paths"] == ["src"]


@pytest.mark.slow
@posix_only
def test_timeout_kills_the_whole_process_group(project: Path) -> None:
    plan_tasks(one_task([step(1, "bash((sleep 30; echo late > late.txt) & sleep 30)", timeout=1)]))
    run = wfs("execute")
    assert run.code == 1
    assert "timed out after 1s" in run.out
    import time

    time.sleep(0.5)
    assert not (project / "late.txt").exists()
    leftovers = subprocess.run(["pgrep", "-f", "sleep 30; echo late"], capture_output=True)
    assert leftovers.returncode == 1


def test_success_criteria(project: Path) -> None:
    plan_tasks(one_task([step(1, "bash(echo hello)", success_criteria="contains:bye")]))
    run = wfs("execute")
    assert run.code == 1
    assert "success criteria 'contains:bye' not met" in run.out


@pytest.mark.slow
def test_fake_cli_on_path_runs_and_missing_cli_fails(project: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gemini = bin_dir / "gemini"
    gemini.write_text("#!/usr/bin/env bash\nprintf 'gemini saw: %s' \"$1\"\n")
    gemini.chmod(0o755)
    sid = plan_tasks(
        one_task([step(1, 'gemini "analyze [focus_paths]"', "analysis")], focus_paths=["src/auth"])
    )
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    run = wfs_process("execute", cwd=project, env=env)
    assert run.code == 0, run.err
    summary = (project / ".workflow" / sid / ".summaries/IMPL-1-summary.md").read_text()
    assert "gemini saw: analyze src/auth" in summary
    plan_tasks(one_task([step(1, 'qwen "analyze"', "analysis")]), "Missing")
    missing = wfs_process("execute", cwd=project, env={"PATH": "/usr/bin:/bin"})
    assert missing.code == 1
    assert "qwen: command not found on PATH" in missing.out


@pytest.mark.slow
def test_builtins_are_confined_to_the_project_root(project: Path, tmp_path: Path) -> None:
    # A literal path out of the project breaks the task: `validate` names it, `next`
    # does not offer it, and `execute` refuses it for that very reason.
    (tmp_path / "secret.txt").write_text("secret")
    cases = {
        "Read(../secret.txt)": 'Read() path "../secret.txt" leads outside the project root',
        "Read(/etc/passwd)": 'Read() path "/etc/passwd" is a path on another machine that is '
        "not in this project: nothing here ends like it, and it does not name the project's "
        'folder "project"',
        "Glob(../*)": 'Glob() "../*" leads outside the project root',
        "Grep(secret, ..)": 'Grep() path ".." leads outside the project root',
    }
    sid = plan_tasks(one_task([step(1, "bash(true)", "x")]))
    path = project / ".workflow" / sid / ".task/IMPL-1.json"
    where = f".workflow/{sid}/.task/IMPL-1.json#/flow_control/implementation_approach/0/command"
    for command, why in cases.items():
        data = read_json(path)
        data["flow_control"]["implementation_approach"][0]["command"] = command
        path.write_text(json.dumps(data, indent=2) + "\n")
        before = path.read_bytes()
        problem = f"{where}: implementation-approach: {why}"
        assert wfs("validate").out.splitlines() == [problem], command
        assert (
            wfs("next").out
            == "No task is ready.\nInvalid:  IMPL-1: 1 validation error; `wfs validate` names them\n"
            "Nothing can start: tasks remain, but none is ready and none is in progress.\n"
        )
        run = wfs("execute", "IMPL-1")
        assert run.code == 2, command
        assert run.err == (
            "wfs: error: IMPL-1 cannot run as written; nothing was changed (`wfs validate` "
            f"reports the same):\n{problem}\n"
        ), command
        assert path.read_bytes() == before


def test_a_read_through_a_symlink_out_of_the_root_is_refused_before_it_runs(
    project: Path, tmp_path: Path
) -> None:
    # A symlink made after planning: validate names it, and execute refuses the task
    # before it claims it (wfs.layout.confined, the one check); nothing of it is read.
    sid = plan_tasks(one_task([step(1, "Read(link.txt)", "x")]))
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", project / "link.txt")
    said = (
        f".workflow/{sid}/.task/IMPL-1.json#/flow_control/implementation_approach/0/command: "
        'implementation-approach: Read() path "link.txt" leads outside the project root '
        "(through a symlink)\n"
    )
    checked = wfs("validate")
    assert (checked.code, checked.out) == (1, said)
    before = (project / ".workflow" / sid / ".task/IMPL-1.json").read_bytes()
    run = wfs("execute", "IMPL-1")
    assert (run.code, run.err) == (
        2,
        "wfs: error: IMPL-1 cannot run as written; nothing was changed (`wfs validate` "
        "reports the same):\n" + said,
    )
    assert (project / ".workflow" / sid / ".task/IMPL-1.json").read_bytes() == before
    assert not (project / ".workflow" / sid / ".runs/IMPL-1.json").exists()


def test_builtin_arguments_from_variables_are_confined_when_they_run(project: Path) -> None:
    plan_tasks(
        one_task(
            [step(1, "Read([shared_context.file])", "x")],
            shared_context={"file": "../../etc/passwd"},
        )
    )
    run = wfs("execute")
    assert run.code == 1
    assert "path '../../etc/passwd' leads outside the project root" in run.out


@pytest.mark.slow
def test_read_glob_grep_inside_the_root(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src/a.py").write_text("import auth\nprint(1)\n")
    (project / "src/b.py").write_text("nothing\n")
    sid = plan_tasks(
        one_task(
            [
                step(1, "Glob(src/*.py)", "files"),
                step(2, "Grep(auth, src)", "hits", [1]),
                step(3, "Read(src/b.py)", "body", [2]),
            ]
        )
    )
    assert wfs("execute").code == 0
    summary = (project / ".workflow" / sid / ".summaries/IMPL-1-summary.md").read_text()
    assert "### `files`\n```text\nsrc/a.py\nsrc/b.py\n```" in summary
    assert "### `hits`\n```text\nsrc/a.py:1:import auth\n```" in summary
    assert "### `body`\n```text\nnothing\n```" in summary


def test_dry_run_resolves_and_runs_nothing(project: Path) -> None:
    sid = plan_tasks(
        one_task(
            [
                step(1, "bash(touch made.txt; echo [focus_paths])", "a"),
                step(2, "bash(echo [a])", "b", [1]),
            ],
            focus_paths=["src"],
        )
    )
    run = wfs("execute", "--dry-run", "--json")
    assert run.code == 0
    plan = run.json()
    assert plan["steps"][0]["parts"] == [{"kind": "bash", "shell": "touch made.txt; echo src"}]
    assert plan["steps"][1]["parts"] == [
        {"kind": "bash", "shell": "echo '<output of implementation_approach/1>'"}
    ]
    assert not (project / "made.txt").exists()
    assert task_json(project, sid)["status"] == "pending"


def test_containers_cannot_be_executed(project: Path) -> None:
    plan_tasks([{"id": "IMPL-1", "title": "Group"}, {"id": "IMPL-1.1", "title": "Child"}])
    run = wfs("execute", "IMPL-1")
    assert run.code == 2
    assert "IMPL-1 is a container; cannot execute it" in run.err


@pytest.mark.slow
def test_concurrent_executes_run_each_task_exactly_once(project: Path) -> None:
    tasks = [
        {
            "id": f"IMPL-{n}",
            "title": f"T{n}",
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [step(1, f"bash(echo IMPL-{n} >> runs.log; sleep 0.2)")],
            },
        }
        for n in range(1, 9)
    ]
    plan_tasks(tasks)
    env = {**os.environ, "WFS_LOCK_TIMEOUT": "60"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "wfs", "execute", "--all"],
            cwd=project,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], outs
    lines = (project / "runs.log").read_text().split()
    assert sorted(lines) == sorted(f"IMPL-{n}" for n in range(1, 9))
    assert wfs("status", "--json").json()["counts"]["completed"] == 8


def test_capture_routes_output(project: Path) -> None:
    wfs("init")
    run = wfs("capture", "analyze", "Security scan", "--", "echo", "hello")
    assert run.code == 0, run.err
    (path,) = (project / ".workflow/.scratchpad").glob("analyze-security-scan-*.md")
    assert "hello" in path.read_text()
    plan_tasks([{"id": "IMPL-1", "title": "x"}], "Active")
    wfs("capture", "chat", "Build process", "--", "echo", "hi")
    assert list((project / ".workflow/WFS-active/.chat").glob("chat-build-process-*.md"))


def test_flow_runs_the_inline_markdown_format(project: Path) -> None:
    (project / "notes.md").write_text("topic notes\n")
    (project / "flow.md").write_text(
        "[FLOW_CONTROL]\n\n### Flow Control Steps\n\n"
        "1. **load_notes**\n   - Action: Load notes\n   - Command: Read(notes.md)\n"
        "   - Output: notes\n\n"
        "2. **shout**\n   - Action: Shout [notes]\n"
        "   - Command: bash(printf '%s' [notes] | tr a-z A-Z)\n   - Output: loud\n"
    )
    run = wfs("flow", "flow.md", "--json")
    assert run.code == 0, run.err
    assert run.json()["values"]["loud"] == "TOPIC NOTES"


@pytest.mark.slow
@posix_only
def test_claim_of_a_killed_process_is_released_by_doctor(project: Path) -> None:
    import signal
    import time

    sid = plan_tasks(one_task([step(1, "bash(echo start >> log.txt; sleep 30)")]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "wfs", "execute"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not (project / "log.txt").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    task = task_json(project, sid)
    assert task["status"] == "active"
    assert task["execution"]["claimed_by"].endswith(f":{proc.pid}")
    # Another process does not run it twice while it is claimed; the claim is shown.
    owner = task["execution"]["claimed_by"]
    assert wfs("execute").out == (
        "No task is ready.\n"
        f"Stale:    IMPL-1: claimed by {owner}, which is no longer running\n"
        f"          resume: wfs --session {sid} execute --resume IMPL-1\n"
    )
    report = wfs("doctor")
    assert report.code == 1
    assert f"stale claim: {task['execution']['claimed_by']} is no longer running" in report.out
    fixed = wfs("doctor", "--fix")
    assert fixed.code == 0
    resume = f"wfs --session {sid} execute --resume IMPL-1"
    assert fixed.out == (
        f"fixed: .workflow/{sid}/.task/IMPL-1.json: stale claim: "
        f"{task['execution']['claimed_by']} is no longer running (released it: IMPL-1 is "
        f"paused where its run stopped, with its finished steps kept; `{resume}` continues it)\n"
    )
    # The orphaned step was stopped with the claim, and nothing else changed.
    assert subprocess.run(["pgrep", "-f", "echo start >> log.txt; sleep 30"]).returncode == 1
    released = task_json(project, sid)
    assert released["status"] == "active"
    assert "claimed_by" not in released["execution"]
    assert released["execution"]["step"] == "implementation_approach/1"


@pytest.mark.slow
def test_dependency_summaries_and_files_changed_in_git(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    tasks = [
        {
            "id": "IMPL-1",
            "title": "Make a file",
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [step(1, "bash(mkdir -p src && echo x > src/new.py)")],
            },
        },
        {
            "id": "IMPL-2",
            "title": "Use it",
            "context": {"depends_on": ["IMPL-1"]},
            "flow_control": {
                "pre_analysis": [],
                "implementation_approach": [
                    step(1, "bash(printf '%s' [dependency_summaries] > deps.md)")
                ],
            },
        },
    ]
    sid = plan_tasks(tasks)
    run = wfs("execute", "--all")
    assert run.code == 0, run.out + run.err
    first = (project / ".workflow" / sid / ".summaries/IMPL-1-summary.md").read_text()
    assert "## Files Changed\n- `src/new.py`\n" in first
    assert (project / "deps.md").read_text() == first


def test_progress_lines_name_step_outcome_and_time(project: Path) -> None:
    plan_tasks(one_task([step(1, "bash(true)")]))
    run = wfs("execute")
    assert run.err.startswith("  IMPL-1 ▶ Step 1 …\n  IMPL-1 · Step 1: done (")
    assert run.err.endswith("s)\n")


@pytest.mark.slow
def test_agent_from_workflow_config(project: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.write_text("#!/usr/bin/env bash\ncat > /dev/null\nprintf configured\n")
    agent.chmod(0o755)
    sid = plan_tasks(
        one_task([step(1, None, "answer"), step(2, "bash(printf '%s' [answer] > a.txt)", "x", [1])])
    )
    (project / ".workflow/config.json").write_text(json.dumps({"agent": str(agent)}))
    assert wfs("execute").code == 0
    assert (project / "a.txt").read_text() == "configured"
    del sid


@pytest.mark.slow
def test_fake_codex_on_path(project: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    codex = bin_dir / "codex"
    codex.write_text("#!/usr/bin/env bash\nprintf '%s|' \"$@\" > codex-args.txt\n")
    codex.chmod(0o755)
    plan_tasks(
        one_task([step(1, 'codex --full-auto exec "implement [title]" --skip-git-repo-check')])
    )
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    assert wfs_process("execute", cwd=project, env=env).code == 0
    assert (project / "codex-args.txt").read_text() == (
        "--full-auto|exec|implement Solo|--skip-git-repo-check|"
    )


@posix_only
def test_bash_steps_start_with_default_signals_and_in_the_step_folder(tmp_path: Path) -> None:
    """Steps start with the default signal handling (what a terminal gives them), in
    the step's folder, with the step's environment."""
    import signal

    from wfs.flow import steps

    previous = signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter sets it
    try:
        result = steps.run_shell(
            'yes | head -n 1; echo "${PIPESTATUS[*]}"; pwd; printf %s "$X" >&2; exit 3',
            {"X": "from env"},
            tmp_path,
            10,
        )
    finally:
        signal.signal(signal.SIGPIPE, previous)
    # 141 = yes killed by SIGPIPE, as in a terminal (an ignored SIGPIPE would give 1).
    assert result == steps.StepResult(3, f"y\n141 0\n{tmp_path}\n", "from env", False)
    assert Path.cwd() != tmp_path
