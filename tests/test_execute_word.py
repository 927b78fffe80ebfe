"""`wfs execute` keeps its word: a task is completed only when all of its work ran, an
agent's answer is checked, and every stop prints a next command that works (SPEC §3.12-14,
§3.17). Each next command a message names is run here, as printed."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, posix_only, read_json, result_line, wfs, wfs_process


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


SID = "WFS-word"


def plan(tasks: list[dict[str, Any]]) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", "Word", "--from", "-", input=json.dumps(tasks))
    assert run.code == 0, run.err
    assert run.out.strip() == SID


def step(n: int, command: str | None = None, output: str | None = None, **extra: Any) -> dict:
    spec: dict[str, Any] = {
        "step": n,
        "title": f"Step {n}",
        "description": f"Do step {n}",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [n - 1] if n > 1 else [],
        "output": output or f"out{n}",
    }
    if command is not None:
        spec["command"] = command
    spec.update(extra)
    return spec


def task(tid: str, steps: list[Any] | dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "id": tid,
        "title": fields.pop("title", f"Task {tid}"),
        "flow_control": {"pre_analysis": fields.pop("pre", []), "implementation_approach": steps},
        **fields,
    }


def task_file(project: Path, tid: str = "IMPL-1") -> Path:
    return project / ".workflow" / SID / ".task" / f"{tid}.json"


def task_json(project: Path, tid: str = "IMPL-1") -> dict[str, Any]:
    return read_json(task_file(project, tid))


def summary(project: Path, tid: str = "IMPL-1") -> str:
    return (project / ".workflow" / SID / ".summaries" / f"{tid}-summary.md").read_text()


def agent(tmp_path: Path, *answers: str, name: str = "agent") -> Path:
    """A fake agent CLI: keeps each brief it is given (calls/N.json) and prints the next
    answer of `answers` (the last one again once they run out)."""
    calls = tmp_path / f"{name}-calls"
    calls.mkdir()
    for n, answer in enumerate(answers, start=1):
        (calls / f"answer-{n}.txt").write_text(answer)
    script = tmp_path / name
    script.write_text(
        "#!/usr/bin/env bash\n"
        f"calls={shlex.quote(str(calls))}\n"
        'n=$(( $(ls "$calls" | grep -c "^brief-") + 1 ))\n'
        'cat > "$calls/brief-$n.json"\n'
        f"last={len(answers)}\n"
        '[ "$n" -gt "$last" ] && n=$last\n'
        'cat "$calls/answer-$n.txt"\n'
    )
    script.chmod(0o755)
    return script


def briefs(agent_path: Path) -> list[dict[str, Any]]:
    calls = agent_path.parent / f"{agent_path.name}-calls"
    found = sorted(calls.glob("brief-*.json"), key=lambda p: int(p.stem.split("-")[1]))
    return [json.loads(p.read_text()) for p in found]


def printed_command(text: str, label: str = "Resume: ") -> list[str]:
    """The command a message names after `label`, as argv (wfs itself dropped)."""
    line = next(line for line in text.splitlines() if line.strip().startswith(label))
    argv = shlex.split(line.strip()[len(label) :])
    assert argv[0] == "wfs", line
    return argv[1:]


def lines_of(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


# ------------------------------------------------------------------ completion needs work


@pytest.mark.slow
def test_a_task_added_with_only_a_title_is_done_by_the_agent(project: Path, tmp_path: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    added = wfs("task", "add", "--title", "Write login tests")
    assert (added.code, added.out) == (0, "IMPL-2\n")
    helper = agent(tmp_path, "Wrote tests/test_login.py with 4 cases.")
    run = wfs("execute", "IMPL-2", "--agent", str(helper))
    assert run.code == 0, run.out + run.err
    (brief,) = briefs(helper)
    assert brief["steps"][0] == {
        "key": "task",
        "name": "Write login tests",
        "title": "Write login tests",
        "output": "implementation",
    }
    assert brief["task"]["id"] == "IMPL-2"
    assert "## TASK BLOCKED" in brief["contract"]
    # The resume command carries the agent command this run was given.
    resume = ["wfs", "--session", SID, "execute", "--agent", str(helper), "--resume", "IMPL-2"]
    assert brief["resume"] == resume
    assert "| task | Write login tests | done (answered by the agent) |" in summary(
        project, "IMPL-2"
    )
    assert "Wrote tests/test_login.py with 4 cases." in summary(project, "IMPL-2")
    # Without an agent, the same kind of task waits for one instead of completing.
    assert wfs("task", "add", "--title", "Write signup tests").out == "IMPL-3\n"
    paused = wfs("execute", "IMPL-3", "--json")
    assert paused.code == 3
    assert paused.result()["tasks"][0]["brief"]["steps"][0]["key"] == "task"
    assert task_json(project, "IMPL-3")["status"] == "active"


@pytest.mark.slow
def test_whole_task_step_carries_the_task_description(project: Path, tmp_path: Path) -> None:
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "Harden login",
                "context": {
                    "requirements": ["Rate-limit logins"],
                    "acceptance": ["5 failed logins lock the account"],
                    "focus_paths": ["src/auth"],
                },
                "flow_control": {"pre_analysis": [], "implementation_approach": []},
            }
        ]
    )
    helper = agent(tmp_path, "Done.")
    assert wfs("execute", "--agent", str(helper)).code == 0
    assert briefs(helper)[0]["steps"][0] == {
        "key": "task",
        "name": "Harden login",
        "title": "Harden login",
        "requirements": ["Rate-limit logins"],
        "acceptance": ["5 failed logins lock the account"],
        "focus_paths": ["src/auth"],
        "output": "implementation",
    }


@pytest.mark.slow
def test_v1_object_approach_is_one_agent_step_after_pre_analysis(
    project: Path, tmp_path: Path
) -> None:
    v1 = {
        "task_description": "Add JWT validation to the middleware",
        "modification_points": ["src/auth/middleware.ts: verify the token"],
        "logic_flow": ["read header", "verify", "attach user"],
    }
    pre = [{"step": "ctx", "action": "gather", "command": "bash(echo ctx >> pre.txt)"}]
    plan([task("IMPL-1", v1, pre=pre)])
    run = wfs("execute", "--json")
    assert run.code == 3, run.out + run.err
    result = run.result()["tasks"][0]
    assert (result["status"], result["step"]) == ("paused", "implementation_approach/1")
    assert result["brief"]["steps"][0]["description"] == "Add JWT validation to the middleware"
    assert result["brief"]["steps"][0]["modification_points"] == v1["modification_points"]
    assert result["brief"]["steps"][0]["logic_flow"] == v1["logic_flow"]
    assert task_json(project)["status"] == "active"
    done = wfs("execute", "--resume", "IMPL-1", "--output", "Middleware verifies tokens.")
    assert done.code == 0, done.out + done.err
    assert lines_of(project / "pre.txt") == ["ctx"]  # pre_analysis ran once
    assert "Middleware verifies tokens." in summary(project)


def test_unnumbered_and_string_steps_all_run_in_array_order(project: Path, tmp_path: Path) -> None:
    steps = [
        {"title": "first", "command": "bash(echo a >> order.txt)"},
        "Explain the change in CHANGES.md",
        {"description": "third", "command": "bash(echo c >> order.txt)"},
    ]
    plan([task("IMPL-1", steps)])
    helper = tmp_path / "agent"
    helper.write_text("#!/usr/bin/env bash\ncat > brief.json\necho b >> order.txt\necho noted\n")
    helper.chmod(0o755)
    run = wfs("execute", "--agent", str(helper))
    assert run.code == 0, run.out + run.err
    assert lines_of(project / "order.txt") == ["a", "b", "c"]
    brief = json.loads((project / "brief.json").read_text())
    assert brief["steps"][0]["key"] == "implementation_approach/2"
    assert brief["steps"][0]["description"] == "Explain the change in CHANGES.md"
    table = summary(project).split("## Steps\n", 1)[1].split("\n\n", 1)[0]
    assert [row.split(" | ")[0] for row in table.splitlines()[2:]] == [
        "| implementation_approach/1",
        "| implementation_approach/2",
        "| implementation_approach/3",
    ]


@pytest.mark.slow
def test_the_flat_implementation_array_runs(project: Path, tmp_path: Path) -> None:
    plan([{"id": "IMPL-1", "title": "Flat"}])
    flat = task_json(project)
    flat["flow_control"] = {"pre_analysis": []}
    flat["implementation"] = [
        {"description": "make it", "command": "bash(echo made >> flat.txt)"},
        "Document it in README.md",
    ]
    task_file(project).write_text(json.dumps(flat))
    helper = agent(tmp_path, "Documented.")
    run = wfs("execute", "--agent", str(helper))
    assert run.code == 0, run.out + run.err
    assert lines_of(project / "flat.txt") == ["made"]
    assert briefs(helper)[0]["steps"][0]["description"] == "Document it in README.md"
    assert briefs(helper)[0]["steps"][0]["key"] == "implementation/2"


def test_a_flat_implementation_step_that_says_nothing_is_refused(project: Path) -> None:
    plan([{"id": "IMPL-1", "title": "Flat"}])
    flat = task_json(project)
    flat["flow_control"] = {"pre_analysis": []}
    flat["implementation"] = ["Write it", 42]
    task_file(project).write_text(json.dumps(flat))
    run = wfs("execute", "IMPL-1")
    assert run.code == 2
    assert run.err.splitlines()[1:] == [
        f".workflow/{SID}/.task/IMPL-1.json#/implementation/1: implementation: an "
        "implementation step must be a non-empty string or an object with one of title, "
        "description, action, phase, modification_points, logic_flow, steps, command, commands; "
        "got integer 42"
    ]
    assert wfs("next").out.startswith("No task is ready.\nInvalid:  IMPL-1")


def test_a_task_wfs_cannot_interpret_is_refused_before_the_claim(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    broken = task_json(project)
    broken["flow_control"]["implementation_approach"] = "Do it all"
    task_file(project).write_text(json.dumps(broken))
    before = task_file(project).read_bytes()
    problems = wfs("validate")
    assert problems.code == 1
    run = wfs("execute", "IMPL-1")
    assert run.code == 2
    assert run.err == (
        "wfs: error: IMPL-1 cannot run as written; nothing was changed "
        "(`wfs validate` reports the same):\n" + problems.out
    )
    assert ".task/IMPL-1.json#/flow_control/implementation_approach:" in run.err
    assert task_file(project).read_bytes() == before
    # status and next never call it ready; they say why it waits.
    assert wfs("next").out == (
        "No task is ready.\nInvalid:  IMPL-1: 1 validation error; `wfs validate` names them\n"
        "Nothing can start: tasks remain, but none is ready and none is in progress.\n"
    )
    assert wfs("status", "--json").json()["ready"] == []
    # execute that runs nothing because of it fails, naming the file and the reason.
    idle = wfs("execute")
    assert (idle.code, idle.out) == (
        1,
        "No task ran: 1 task that would be ready cannot run as written "
        "(`wfs validate` reports the same):\n"
        f"  IMPL-1 (.workflow/{SID}/.task/IMPL-1.json):\n    " + problems.out,
    )


def test_an_unknown_on_error_is_refused_with_validates_message(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    data = task_json(project)
    # (continue, skip and warn, written by other tools, are read as skip_optional)
    data["flow_control"]["implementation_approach"][0]["on_error"] = "explode"
    task_file(project).write_text(json.dumps(data))
    run = wfs("execute", "IMPL-1")
    assert run.code == 2
    assert run.err.splitlines()[1:] == wfs("validate").out.splitlines()


# ------------------------------------------------------------------ the agent's answer


def test_empty_answers_are_refused_and_the_step_stays_paused(project: Path, tmp_path: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(echo ran >> count.txt)"), step(2)])])
    assert wfs("execute").code == 3
    before = task_file(project).read_bytes()
    (project / "empty.md").write_text("  \n")
    for args, source in (
        (("--output", ""), "--output"),
        (("--output-file", "empty.md"), "--output-file empty.md"),
        (("--output-file", "-"), "--output-file <stdin>"),
    ):
        run = wfs("execute", "--resume", "IMPL-1", *args, input="\n")
        assert run.code == 2, args
        assert run.err == (
            f"wfs: error: the answer from {source} is empty; a step is only done with an "
            "answer (give one, or skip the step with --skip)\n"
        )
        assert task_file(project).read_bytes() == before
    done = wfs("execute", "--resume", "IMPL-1", "--output-file", "-", input="Did step 2.\n")
    assert done.code == 0, done.out + done.err
    assert lines_of(project / "count.txt") == ["ran"]


def test_an_agent_that_answers_nothing_leaves_the_step_paused(
    project: Path, tmp_path: Path
) -> None:
    plan([task("IMPL-1", [step(1), step(2, "bash(echo after >> after.txt)")])])
    silent = agent(tmp_path, "")
    run = wfs("execute", "--agent", str(silent))
    assert run.code == 2
    assert run.out == (
        f"IMPL-1: refused: implementation_approach/1 (Step 1): the answer from the agent "
        f"`{silent}` is empty; a step is only done with an answer (give one, or skip the "
        "step with --skip)\n"
        f"  The step stays paused. Resume: wfs --session {SID} execute --agent {silent} "
        "--resume IMPL-1\n"
        "  (with --output-file F or --output TEXT to answer, or --skip to skip it)\n"
    )
    paused = task_json(project)
    assert paused["status"] == "active" and "claimed_by" not in paused["execution"]
    assert not (project / "after.txt").exists()
    skipped = wfs(*printed_command(run.out, "The step stays paused. Resume: "), "--skip")
    assert skipped.code == 0, skipped.out + skipped.err
    assert "| implementation_approach/1 | Step 1 | skipped (skipped on resume) |" in summary(
        project
    )
    assert lines_of(project / "after.txt") == ["after"]


@pytest.mark.slow
def test_task_blocked_answer_blocks_the_task_and_its_dependents_never_run(
    project: Path, tmp_path: Path
) -> None:
    plan(
        [
            task("IMPL-1", [step(1)]),
            task(
                "IMPL-2",
                [step(1, "bash(touch dependent-ran)")],
                context={"depends_on": ["IMPL-1"]},
            ),
        ]
    )
    blocker = agent(tmp_path, "## TASK BLOCKED: the API key is missing\nAsk the owner for it.")
    run = wfs("execute", "--all", "--agent", str(blocker), "--json")
    assert run.code == 1
    data = run.result()
    assert [t["task"] for t in data["tasks"]] == ["IMPL-1"]
    reason = (
        "agent reported TASK BLOCKED at implementation_approach/1 (Step 1): "
        "the API key is missing\nAsk the owner for it."
    )
    assert data["tasks"][0]["reason"] == reason
    assert task_json(project)["status"] == "blocked"
    assert task_json(project)["execution"]["blocked_reason"] == reason
    assert task_json(project, "IMPL-2")["status"] == "pending"
    assert not (project / "dependent-ran").exists()
    status = wfs("status").out
    assert (
        "Blocked:  IMPL-1 at implementation_approach/1: agent reported TASK BLOCKED at "
        "implementation_approach/1 (Step 1): the API key is missing …\n"
        f"          resume: wfs --session {SID} execute --resume IMPL-1\n"
    ) in status
    # Once the cause is fixed, the printed command runs the step again.
    fixed = agent(tmp_path, "Used the key from the vault.", name="fixed")
    again = wfs(*printed_command(status, "resume: "), "--all", "--agent", str(fixed))
    assert again.code == 0, again.out + again.err
    assert (project / "dependent-ran").exists()
    assert len(briefs(blocker)) == 1 and len(briefs(fixed)) == 1


def test_checkpoint_keeps_the_partial_answer_and_pauses(project: Path, tmp_path: Path) -> None:
    plan([task("IMPL-1", [step(1)])])
    helper = agent(tmp_path, "## CHECKPOINT REACHED\nHalf of the handlers moved.", "All moved.")
    run = wfs("execute", "--agent", str(helper), "--json")
    assert run.code == 3
    result = run.result()["tasks"][0]
    assert result["reason"] == "checkpoint reached; the agent continues from its partial answer"
    assert result["brief"]["checkpoints"] == ["## CHECKPOINT REACHED\nHalf of the handlers moved."]
    done = wfs(*result["resume"][1:], "--agent", str(helper))
    assert done.code == 0, done.out + done.err
    assert briefs(helper)[1]["checkpoints"] == [
        "## CHECKPOINT REACHED\nHalf of the handlers moved."
    ]
    assert "## CHECKPOINT REACHED\nHalf of the handlers moved.\n\nAll moved.\n" in summary(project)


# ------------------------------------------------------------------ every stop has a way on


def test_a_failed_step_resumes_where_it_stopped(project: Path) -> None:
    plan(
        [
            task(
                "IMPL-1",
                [
                    step(1, "bash(echo s1 >> count.txt)"),
                    step(2, "bash(echo s2 >> count.txt; test -f fixed.flag)"),
                    step(3, "bash(echo s3 >> count.txt)"),
                ],
            )
        ]
    )
    failed = wfs("execute")
    assert failed.code == 1
    assert failed.out == (
        "IMPL-1: blocked: step implementation_approach/2 (Step 2) failed: exit code 1\n"
        f"  Resume: wfs --session {SID} execute --resume IMPL-1\n"
        "  (runs the stopped step again; add --skip to skip it instead)\n"
    )
    # Asking for the task again points at the same command.
    again = wfs("execute", "IMPL-1")
    assert (again.code, again.err) == (
        2,
        "wfs: error: IMPL-1 is blocked, not pending; resume it with "
        f"`wfs --session {SID} execute --resume IMPL-1`\n",
    )
    (project / "fixed.flag").touch()
    resumed = wfs(*printed_command(failed.out))
    assert resumed.code == 0, resumed.out + resumed.err
    assert lines_of(project / "count.txt") == ["s1", "s2", "s2", "s3"]
    assert task_json(project)["status"] == "completed"


def test_skip_on_resume_skips_the_failed_step(project: Path) -> None:
    plan(
        [
            task(
                "IMPL-1",
                [step(1, "bash(exit 4)"), step(2, "bash(echo after >> count.txt)")],
            )
        ]
    )
    failed = wfs("execute")
    assert failed.code == 1
    skipped = wfs(*printed_command(failed.out), "--skip")
    assert skipped.code == 0, skipped.out + skipped.err
    assert lines_of(project / "count.txt") == ["after"]
    assert "| implementation_approach/1 | Step 1 | skipped (skipped on resume) |" in summary(
        project
    )


def test_a_mixed_step_resumed_with_an_answer_keeps_its_commands_outputs(project: Path) -> None:
    mixed = step(
        1,
        output="report",
        commands=[
            "bash(echo one >> count.txt; printf one)",
            "Summarize the diff for the reviewer",
            "bash(echo three >> count.txt; printf three)",
        ],
    )
    plan([task("IMPL-1", [mixed, step(2, "bash(printf '%s' [report] > report.txt)")])])
    paused = wfs("execute", "--json")
    assert paused.code == 3
    brief = paused.result()["tasks"][0]["brief"]
    assert brief["steps"][0]["command"] == "Summarize the diff for the reviewer"
    done = wfs(*brief["resume"][1:], "--output", "two")
    assert done.code == 0, done.out + done.err
    assert (project / "report.txt").read_text() == "one\ntwo\nthree"
    assert lines_of(project / "count.txt") == ["one", "three"]


def test_a_failed_steps_output_is_kept_and_shown(project: Path) -> None:
    command = "bash(for i in $(seq 1 30); do echo out$i; done; echo 'it broke' >&2; exit 1)"
    plan([task("IMPL-1", [step(1, command)])])
    run = wfs("execute")
    assert run.code == 1
    expected = "".join(f"    out{i}\n" for i in range(11, 31))
    assert (
        "  stdout (last 20 lines):\n" + expected + "  stderr (last 1 lines):\n    it broke\n"
    ) in run.out
    record = read_json(project / ".workflow" / SID / ".runs/IMPL-1.json")
    (tried,) = record["steps"]["implementation_approach/1"]["tries"]
    assert tried["stdout"] == "".join(f"out{i}\n" for i in range(1, 31))
    assert tried["stderr"] == "it broke\n"


@pytest.mark.slow
def test_retry_once_shows_both_attempts(project: Path) -> None:
    plan(
        [
            task(
                "IMPL-1",
                [
                    step(
                        1, "bash(echo try >> tries.txt; echo no >&2; exit 1)", on_error="retry_once"
                    )
                ],
            )
        ]
    )
    run = wfs("execute", "--json")
    assert run.code == 1
    tries = run.result()["tasks"][0]["tries"]
    assert [(t["exit_code"], t["stderr"]) for t in tries] == [(1, ["no"]), (1, ["no"])]
    human = wfs("execute", "--resume", "IMPL-1")
    assert "  attempt 1 of 2: exit code 1: no\n  attempt 2 of 2: exit code 1: no\n" in human.out
    assert lines_of(project / "tries.txt") == ["try"] * 4


def test_flow_pauses_with_a_resume_command_that_works(project: Path) -> None:
    (project / "notes.md").write_text("topic notes\n")
    (project / "flow.md").write_text(
        "[FLOW_CONTROL]\n\n"
        "1. **load_notes**\n   - Action: Load notes\n   - Command: Read(notes.md)\n"
        "   - Output: notes\n\n"
        "2. **judge**\n   - Action: Judge the notes\n"
        "   - Command: Decide whether [notes] are enough\n   - Output: verdict\n\n"
        "3. **save**\n   - Action: Save\n"
        "   - Command: bash(printf '%s' [verdict] > verdict.txt)\n   - Output: saved\n"
    )
    paused = wfs("flow", "flow.md")
    assert paused.code == 3, paused.out + paused.err
    argv = printed_command(paused.out)
    assert argv[-5:] == ["flow", str(project / "flow.md"), "--resume", "--output-file", "F"]
    (project / "answer.md").write_text("Enough.")
    done = wfs(*argv[:-1], "answer.md")
    assert done.code == 0, done.out + done.err
    assert (project / "verdict.txt").read_text() == "Enough."
    assert wfs("flow", "flow.md", "--resume").err == (
        "wfs: error: the last run of flow.md completed; nothing to resume\n"
    )


@pytest.mark.slow
def test_a_resume_command_carries_the_agent_options_and_works_as_printed(
    project: Path, tmp_path: Path
) -> None:
    """An agent that answers nothing leaves its step paused; the printed command, run as
    it is, resumes with the same agent (and agent scope), which answers this time."""
    plan([task("IMPL-1", [step(1), step(2, "bash(printf '%s' [out1] > answer.txt)")])])
    helper = agent(tmp_path, "", "Enough.")
    run = wfs("execute", "IMPL-1", "--agent", str(helper), "--agent-scope", "step")
    assert run.code == 2, run.out + run.err
    argv = printed_command(run.out, "The step stays paused. Resume: ")
    assert argv == [
        "--session", SID, "execute", "--agent", str(helper), "--agent-scope", "step",
        "--resume", "IMPL-1",
    ]  # fmt: skip
    done = wfs(*argv)
    assert done.code == 0, done.out + done.err
    assert (project / "answer.txt").read_text() == "Enough."
    assert len(briefs(helper)) == 2

    (project / "flow.md").write_text(
        "[FLOW_CONTROL]\n\n1. **judge**\n   - Action: Judge\n"
        "   - Command: Decide whether it is enough\n   - Output: verdict\n\n"
        "2. **save**\n   - Action: Save\n"
        "   - Command: bash(printf '%s' [verdict] > verdict.txt)\n   - Output: saved\n"
    )
    judge = agent(tmp_path, "", "Enough.", name="judge")
    paused = wfs("flow", "flow.md", "--agent", str(judge))
    assert paused.code == 2, paused.out + paused.err
    argv = printed_command(paused.out, "The step stays paused. Resume: ")
    assert argv[-5:] == ["flow", str(project / "flow.md"), "--agent", str(judge), "--resume"]
    done = wfs(*argv)
    assert done.code == 0, done.out + done.err
    assert (project / "verdict.txt").read_text() == "Enough."


def test_flow_in_a_project_with_an_active_session_pauses_and_resumes(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    (project / "flow.md").write_text(
        "[FLOW_CONTROL]\n\n1. **judge**\n   - Action: Judge\n"
        "   - Command: Decide whether it is enough\n   - Output: verdict\n"
    )
    paused = wfs("flow", "flow.md", "--json")
    assert paused.code == 3, paused.out + paused.err
    brief = paused.json()["brief"]
    assert brief["paths"] == {
        "project": ".",
        "session": f".workflow/{SID}",
        "summaries": f".workflow/{SID}/.summaries",
        "process": f".workflow/{SID}/.process",
        "run_record": brief["paths"]["run_record"],
    }
    assert brief["paths"]["run_record"].startswith(".workflow/.runs/flow-")
    done = wfs(*brief["resume"][1:], "--output", "It is enough.", "--json")
    assert done.code == 0, done.out + done.err
    assert done.json()["values"] == {"verdict": "It is enough."}


@pytest.mark.slow
def test_nothing_ready_lists_paused_blocked_and_running_tasks(project: Path) -> None:
    plan(
        [
            task("IMPL-1", [step(1)]),
            task("IMPL-2", [step(1, "bash(exit 3)")]),
            task("IMPL-3", [step(1, "bash(true)")]),
            task(
                "IMPL-4",
                [step(1, "bash(true)")],
                context={"depends_on": ["IMPL-1", "IMPL-2", "IMPL-3"]},
            ),
        ]
    )
    assert wfs("execute", "IMPL-1").code == 3
    assert wfs("execute", "IMPL-2").code == 1
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        running = task_json(project, "IMPL-3")
        owner = f"{socket.gethostname()}:{sleeper.pid}"
        running["status"] = "active"
        running["execution"] = {"claimed_by": owner, "started_at": "2026-11-23T10:00:00Z"}
        task_file(project, "IMPL-3").write_text(json.dumps(running))
        expected = (
            "Paused:   IMPL-1 at implementation_approach/1: waiting for an agent\n"
            f"          resume: wfs --session {SID} execute --resume IMPL-1\n"
            "Blocked:  IMPL-2 at implementation_approach/1: step implementation_approach/1 "
            "(Step 1) failed: exit code 3\n"
            f"          resume: wfs --session {SID} execute --resume IMPL-2\n"
        )
        # Running in a person's terms: what it is at, for how long, which process.
        running = rf"Running:  IMPL-3: for \d+h\d\dm, by process {sleeper.pid} on this machine\n"
        for args in (("next",), ("execute",)):
            run = wfs(*args)
            assert run.code == 0, args
            assert re.fullmatch(re.escape("No task is ready.\n" + expected) + running, run.out)
        assert re.search(re.escape("Ready:    -\n" + expected) + running + "$", wfs("status").out)
        stopped = wfs("next", "--json").json()["stopped"]
        assert [(s["id"], s["state"]) for s in stopped] == [
            ("IMPL-1", "paused"),
            ("IMPL-2", "blocked"),
            ("IMPL-3", "running"),
        ]
        assert wfs("execute", "--json").result()["stopped"] == stopped
        # The printed commands work: the paused task shows its brief again, the blocked
        # one runs its step again, and the running one is not taken over.
        assert wfs(*stopped[0]["resume"][1:]).code == 3
        assert wfs(*stopped[1]["resume"][1:]).code == 1
        taken = wfs("execute", "--resume", "IMPL-3")
        assert (taken.code, taken.err) == (
            4,  # busy: a live run holds it
            f"wfs: error: IMPL-3 is being executed by {owner} (since 2026-11-23T10:00:00Z); "
            "wait for it to stop, or stop that process first\n",
        )
    finally:
        sleeper.kill()
        sleeper.wait()
    stale = wfs("next").out
    assert f"Stale:    IMPL-3: claimed by {owner}, which is no longer running\n" in stale
    resumed = wfs(*printed_command(stale.split("Stale:", 1)[1], "resume: "))
    assert resumed.code == 0, resumed.out + resumed.err
    assert resumed.err.startswith(
        f"IMPL-3: took over the claim of {owner}, which is no longer running\n"
    )


@pytest.mark.slow
def test_dry_run_shows_what_the_run_will_use_and_names_what_it_cannot(
    project: Path, tmp_path: Path
) -> None:
    plan(
        [
            task(
                "IMPL-1",
                [
                    step(1, "bash(printf '<%s>' [focus_paths])", "words"),
                    step(2, "bash(echo [nosuch] [later])", "echoed"),
                    step(3, "Read({{context_package_path}})", "ctx"),
                    step(4, "Read(each discovered role analysis file)", "roles"),
                    step(5, 'qwen-not-installed -p "review [words]"', "review"),
                    step(6, None, "later"),
                ],
                context={"focus_paths": ["src/a", "src/b c"]},
            )
        ]
    )
    run = wfs("execute", "--dry-run", "--agent", "my-agent")
    assert run.code == 0, run.err
    assert run.out == (
        "IMPL-1: Task IMPL-1 (dry run, nothing is executed)\n"
        "  implementation_approach/1 Step 1 [bash] → [words] on_error=fail\n"
        "      bash: printf '<%s>' src/a 'src/b c'\n"
        "  implementation_approach/2 Step 2 [bash] → [echoed] on_error=fail\n"
        "      bash: echo [nosuch] [later]\n"
        "      ! [nosuch] is not a known variable: it stays as written\n"
        "      ! [later] is bound by implementation_approach/6, which runs later: this "
        "command fails with `Missing required input`\n"
        "  implementation_approach/3 Step 3 [read] → [ctx] on_error=fail\n"
        "      Read({{context_package_path}})\n"
        "      ! placeholder {{context_package_path}} is not filled in\n"
        # a sentence where Read() expects a path is an instruction for the agent
        "  implementation_approach/4 Step 4 [agent] → [roles] on_error=fail\n"
        "      to the agent `my-agent`: Read(each discovered role analysis file)\n"
        "      ! my-agent is not on PATH: the agent `my-agent` cannot start\n"
        "  implementation_approach/5 Step 5 [cli] → [review] on_error=fail\n"
        '      cli: qwen-not-installed -p "review <output of implementation_approach/1>"\n'
        "      ! qwen-not-installed is not on PATH: this step will fail\n"
        "  implementation_approach/6 Step 6 [agent] → [later] on_error=fail\n"
        "      to the agent `my-agent`: Do step 6\n"
        "      ! my-agent is not on PATH: the agent `my-agent` cannot start\n"
    )
    plan_json = wfs("execute", "--dry-run", "--json").json()
    assert plan_json["steps"][4]["parts"][0]["argv"] == [
        "qwen-not-installed",
        "-p",
        "review <output of implementation_approach/1>",
    ]
    assert plan_json["steps"][5]["parts"] == [
        {"kind": "agent", "agent": None, "brief": "Do step 6"}
    ]
    # The real run passes the same words.
    data = task_json(project)
    data["flow_control"]["implementation_approach"] = data["flow_control"][
        "implementation_approach"
    ][:1]
    task_file(project).write_text(json.dumps(data))
    assert wfs("execute").code == 0
    assert "<src/a><src/b c>" in summary(project)


def test_dry_run_names_why_execute_would_refuse(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    data = task_json(project)
    data["flow_control"]["implementation_approach"][0]["on_error"] = "explode"
    task_file(project).write_text(json.dumps(data))
    run = wfs("execute", "--dry-run", "IMPL-1")
    assert run.out.splitlines()[1:3] == [
        "  refused: `wfs execute` will not run this task as written:",
        f"    .workflow/{SID}/.task/IMPL-1.json#/flow_control/implementation_approach/0/on_error: "
        'implementation-approach: on_error "explode" is not one of skip_optional, fail, '
        "retry_once, manual_intervention",
    ]


# ------------------------------------------------------------------ signals and kills


def _start(project: Path, *args: str, session: bool = False) -> subprocess.Popen[str]:
    """`wfs args` as a process (`session`: in a session, and so a process group, of its
    own, which the test can kill whole)."""
    return subprocess.Popen(
        [sys.executable, "-m", "wfs", *args],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=session,
    )


def _kill(proc: subprocess.Popen[str], how: str) -> None:
    """SIGKILL the process, or its whole process group, and reap it."""
    if how == "process":
        proc.kill()
    else:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=120)


def _until_no_step_left(project: Path) -> None:
    """Until the step's processes are gone. The deadline only stops a hang: the step
    sleeps far longer, so only its runner's death can end it in time."""
    deadline = time.monotonic() + 120
    while not _no_step_left(project):
        assert time.monotonic() < deadline, "the step outlived its runner"
        time.sleep(0.05)


def _wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Until the step has started (no time limit but the process's own life)."""
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)


def slow_steps(project: Path) -> list[dict[str, Any]]:
    return [
        step(1, "bash(echo s1 >> count.txt)"),
        # Slow until go.flag exists; `s2-done` marks a finished run of the step.
        step(
            2,
            "bash(echo s2 >> count.txt; if [ ! -f go.flag ]; then touch started.flag; "
            f"sleep {_sleep(project)}; fi; echo s2-done >> count.txt)",
        ),
        step(3, "bash(echo s3 >> count.txt)"),
    ]


def _sleep(project: Path) -> str:
    """A sleep long enough never to end by itself, spelled uniquely for this test."""
    return f"300.{abs(hash(str(project))) % 10**9:09d}"


def _no_step_left(project: Path) -> bool:
    found = subprocess.run(["pgrep", "-f", f"sleep {_sleep(project)}"], capture_output=True)
    return found.returncode == 1


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_run_pauses_and_resumes_without_repeating_steps(
    project: Path, signum: int, code: int
) -> None:
    plan([task("IMPL-1", slow_steps(project))])
    proc = _start(project, "execute")
    _wait_for(project / "started.flag", proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=120)
    name = signal.Signals(signum).name
    assert proc.returncode == code, (out, err)
    assert out == (
        f"IMPL-1: interrupted by {name} at implementation_approach/2; the task is paused.\n"
        f"  Resume: wfs --session {SID} execute --resume IMPL-1\n"
    )
    assert "Traceback" not in err
    assert _no_step_left(project)  # the step's whole process group was stopped
    paused = task_json(project)
    assert paused["status"] == "active"
    assert paused["execution"]["paused_reason"] == f"interrupted ({name})"
    assert "claimed_by" not in paused["execution"]
    assert lines_of(project / "count.txt") == ["s1", "s2"]
    (project / "go.flag").touch()
    resumed = wfs(*printed_command(out))
    assert resumed.code == 0, resumed.out + resumed.err
    # Every finished step ran exactly once; the interrupted one ran again to its end.
    assert lines_of(project / "count.txt") == ["s1", "s2", "s2", "s2-done", "s3"]


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("kill", ["process", "process group"])
@pytest.mark.parametrize("recover", ["resume", "doctor"])
def test_a_killed_runs_step_dies_with_it_and_runs_once_more_on_resume(
    project: Path, recover: str, kill: str
) -> None:
    plan([task("IMPL-1", slow_steps(project))])
    proc = _start(project, "execute", session=True)
    _wait_for(project / "started.flag", proc)
    _kill(proc, kill)
    # The step died with its runner (its process group is not the runner's): it never
    # finishes unobserved, and the finished step before it is recorded.
    _until_no_step_left(project)
    assert lines_of(project / "count.txt") == ["s1", "s2"]
    if recover == "doctor":
        fixed = wfs("doctor", "--fix")
        assert fixed.code == 0, fixed.out
        command = fixed.out.split("`")[1]
        assert "orphaned" not in fixed.out  # nothing was left to stop
    else:
        stale = wfs("status").out
        command = stale.split("Stale:", 1)[1].split("resume: ", 1)[1].splitlines()[0]
    (project / "go.flag").touch()
    resumed = wfs(*shlex.split(command)[1:])
    assert resumed.code == 0, resumed.out + resumed.err
    assert _no_step_left(project)
    assert lines_of(project / "count.txt") == ["s1", "s2", "s2", "s2-done", "s3"]
    assert task_json(project)["status"] == "completed"


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("size", [len("first-output"), 300_000])
def test_a_killed_run_resumes_a_step_of_several_commands_after_its_last_finished_one(
    project: Path, size: int
) -> None:
    """The output of a finished command is kept with the run record (a large one in a
    file beside it), for the step's output once its last command is done."""
    slow = slow_steps(project)[1]["command"]
    text = "first-output" if size < 100 else f"$(head -c {size} /dev/zero | tr '\\0' a)"
    first = f"bash(echo p1 >> count.txt; echo {text})"
    plan([task("IMPL-1", [step(1, commands=[first, slow])])])
    proc = _start(project, "execute")
    _wait_for(project / "started.flag", proc)
    _kill(proc, "process")
    _until_no_step_left(project)
    shown = wfs("log", "IMPL-1")
    assert shown.out.splitlines()[-1].startswith("  · Step 1: stopped")
    (project / "go.flag").touch()
    resumed = wfs("execute", "--resume", "IMPL-1")
    assert resumed.code == 0, resumed.out + resumed.err
    # The first command finished before the kill: it does not run again, and its
    # output is the step's still.
    assert lines_of(project / "count.txt") == ["p1", "s2", "s2", "s2-done"]
    entry = read_json(project / RUNS / "IMPL-1.json")["steps"]["implementation_approach/1"]
    if size < 100:
        assert entry["output"] == "first-output\n"
    else:
        assert entry["output_bytes"] == size + 1
        part = project / RUNS / "IMPL-1" / "implementation_approach-1.part-1.output.txt"
        assert part.read_bytes() == b"a" * size + b"\n"


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("kill", ["process", "process group"])
def test_a_killed_runs_agent_dies_with_it_and_is_asked_once_more_on_resume(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kill: str
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "slow-agent").write_text(
        "#!/usr/bin/env bash\ncat > /dev/null\necho asked >> asked.txt\n"
        f"if [ ! -f go.flag ]; then touch started.flag; sleep {_sleep(project)}; fi\n"
        "echo answered >> asked.txt\nprintf 'Did the work.'\n"
    )
    (tools / "slow-agent").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("WFS_AGENT", "slow-agent")
    plan([task("IMPL-1", [step(1, "bash(echo s1 >> count.txt)"), step(2)])])
    proc = _start(project, "execute", session=True)
    _wait_for(project / "started.flag", proc)
    _kill(proc, kill)
    _until_no_step_left(project)  # the agent died with its runner
    assert lines_of(project / "asked.txt") == ["asked"]
    (project / "go.flag").touch()
    resumed = wfs("execute", "--resume", "IMPL-1")
    assert resumed.code == 0, resumed.out + resumed.err
    assert lines_of(project / "asked.txt") == ["asked", "asked", "answered"]
    assert lines_of(project / "count.txt") == ["s1"]  # the finished step is not run again
    assert task_json(project)["status"] == "completed"


@pytest.mark.slow
@posix_only
def test_ctrl_c_between_tasks_stops_execute_all(project: Path) -> None:
    plan(
        [task("IMPL-1", slow_steps(project)), task("IMPL-2", [step(1, "bash(touch second.flag)")])]
    )
    proc = _start(project, "execute", "--all", "--json")
    _wait_for(project / "started.flag", proc)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130
    data = result_line(out)
    assert data["status"] == "interrupted"
    assert [t["task"] for t in data["tasks"]] == ["IMPL-1"]
    assert not (project / "second.flag").exists()


def run_result(run: Run) -> dict[str, Any]:
    return run.json()["tasks"][0]  # type: ignore[no-any-return]


def test_resume_refuses_completed_and_unknown_tasks(project: Path) -> None:
    plan([task("IMPL-1", [step(1, "bash(true)")])])
    assert wfs("execute").code == 0
    done = wfs("execute", "--resume", "IMPL-1")
    assert (done.code, done.err) == (
        2,
        "wfs: error: IMPL-1 is already completed; nothing to resume\n",
    )
    unknown = wfs("execute", "--resume", "IMPL-9")
    assert unknown.code == 2 and unknown.err.startswith("wfs: error: unknown task 'IMPL-9'")
    assert os.environ.get("WFS_AGENT") is None


RUNS = Path(".workflow") / SID / ".runs"


@pytest.mark.slow
def test_quick_steps_are_appended_to_the_record_log_not_rewritten(project: Path) -> None:
    """Each finished step is one line appended to the record's log: the record itself is
    not rewritten after every step (it keeps its inode), and the run ends with the whole
    record and no log."""
    record = RUNS / "IMPL-1.json"
    steps = [
        step(n, f"bash(ls -di {record} | awk '{{print $1}}' >> inodes.txt)") for n in range(1, 31)
    ]
    plan([task("IMPL-1", steps)])
    run = wfs("execute")
    assert run.code == 0, run.err
    inodes = lines_of(project / "inodes.txt")
    assert len(inodes) == 30 and len(set(inodes)) == 1
    data = read_json(project / record)
    assert [data["steps"][f"implementation_approach/{n}"]["status"] for n in range(1, 31)] == [
        "done"
    ] * 30
    assert data["finished_at"] and data["paused"] is None
    # Beside the record: its output log, for `wfs log` (one file, opened once per run).
    assert sorted(p.name for p in (project / RUNS).iterdir()) == [
        ".gitignore",
        "IMPL-1.json",
        "IMPL-1.output.jsonl",
    ]


@pytest.mark.slow
@posix_only
def test_a_log_line_cut_short_is_ignored_and_its_step_runs_again(project: Path) -> None:
    """A power cut can leave the last line of the log half written: the steps of the
    whole lines count as finished, the step of the cut line runs again."""
    steps = [step(n, f"bash(echo s{n} >> count.txt)") for n in (1, 2)]
    steps.append(step(3, "bash(kill -9 $PPID; sleep 5)"))  # the engine dies here
    plan([task("IMPL-1", steps)])
    killed = wfs_process("execute", cwd=project)  # a real process, which its step kills
    assert killed.code == -signal.SIGKILL, killed.err
    (log,) = (project / RUNS).glob("IMPL-1.*.log")
    lines = log.read_bytes().splitlines(keepends=True)
    assert len(lines) == 2
    log.write_bytes(lines[0] + lines[1][: len(lines[1]) // 2])  # s2's line, cut
    task_path = task_file(project)
    data = read_json(task_path)
    data["flow_control"]["implementation_approach"][2]["command"] = "bash(echo s3 >> count.txt)"
    task_path.write_text(json.dumps(data))
    stale = wfs("status").out
    command = stale.split("Stale:", 1)[1].split("resume: ", 1)[1].splitlines()[0]
    resumed = wfs(*shlex.split(command)[1:])
    assert resumed.code == 0, resumed.out + resumed.err
    assert lines_of(project / "count.txt") == ["s1", "s2", "s2", "s3"]
    assert task_json(project)["status"] == "completed"
