"""Every check the author wrote runs (SPEC §3.19-20): a step's `verification` runs after
it; a red step must see it fail, a green one goes back to the agent with the failure up
to `test_fix_cycle.max_iterations` and, with `auto_revert`, is reverted through git when
it finally fails; a refactor step must still pass. `--dry-run` lists every check.
`execute` that ran nothing names the invalid tasks, and a finished session runs again
only with `--force`.

Real projects in temporary git repositories, the real CLI, and a fake agent that writes
the files its plan says for each step and fix it is asked to do."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_bash, posix_only, read_json, wfs
from git_helpers import commit_all, git, git_env


@pytest.fixture(autouse=True)
def json_briefs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake agents here read the brief as JSON: ask for it (the default is the
    Markdown brief, tests/test_friction.py)."""
    monkeypatch.setenv("WFS_AGENT_INPUT", "json")


pytestmark = [needs_bash, posix_only]

__all__ = ["git_env"]  # the fixture, used by name

SID = "WFS-checks"
SESSION = Path(".workflow") / SID
RECORD = SESSION / ".runs" / "IMPL-1.json"
TEST = "bash(grep -qx 4 answer.txt)"  # the test: "the answer is 4"


def plan(tasks: list[dict[str, Any]]) -> None:
    wfs("init", "--no-git")
    run = wfs("plan", "Checks", "--from", "-", input=json.dumps(tasks))
    assert (run.code, run.out) == (0, f"{SID}\n"), run.err


def step(n: int, title: str, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "step": n,
        "title": title,
        "description": f"{title}.",
        "modification_points": [],
        "logic_flow": [],
        "depends_on": [n - 1] if n > 1 else [],
        "output": f"out{n}",
    }
    spec.update(extra)
    return spec


def red(n: int = 1, **extra: Any) -> dict[str, Any]:
    return step(n, "Write the failing test", **{"tdd_phase": "red", "verification": TEST, **extra})


def green(n: int = 2, **extra: Any) -> dict[str, Any]:
    return step(n, "Make it pass", **{"tdd_phase": "green", "verification": TEST, **extra})


def one_task(*steps: dict[str, Any], **fields: Any) -> list[dict[str, Any]]:
    flow = {"pre_analysis": [], "implementation_approach": list(steps)}
    return [{"id": "IMPL-1", "title": "Answer", "flow_control": flow, **fields}]


def fake_agent(tmp_path: Path, actions: dict[str, dict[str, str | None]]) -> Path:
    """An agent command that logs each brief it gets (`<step key>` or `<step key>#fixN`)
    in calls.log and writes the files `actions` gives for that call (None: delete). A
    fix without its own entry does what `<key>#fix` says."""
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "actions.json").write_text(json.dumps(actions))
    script = folder / "agent"
    script.write_text(
        f"#!{sys.executable}\n"
        "import json, os, sys\n"
        "brief = json.load(sys.stdin)\n"
        'key = brief["steps"][0]["key"]\n'
        'fix = brief.get("fix")\n'
        "call = key + (f\"#fix{fix['iteration']}\" if fix else '')\n"
        f"folder = {str(folder)!r}\n"
        "with open(os.path.join(folder, 'calls.log'), 'a') as log:\n"
        "    log.write(call + '\\n')\n"
        "with open(os.path.join(folder, 'actions.json')) as handle:\n"
        "    actions = json.load(handle)\n"
        "todo = actions.get(call, actions.get(key + '#fix', {}) if fix else {})\n"
        "for path, text in todo.items():\n"
        "    if text is None:\n"
        "        os.remove(path)\n"
        "    else:\n"
        "        os.makedirs(os.path.dirname(path) or '.', exist_ok=True)\n"
        "        with open(path, 'w') as handle:\n"
        "            handle.write(text)\n"
        "print('did ' + call)\n"
    )
    script.chmod(0o755)
    return script


def agent_calls(agent: Path) -> list[str]:
    log = agent.parent / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def record(project: Path) -> dict[str, Any]:
    """The run record with the steps its log holds folded in (as the engine reads it)."""
    data: dict[str, Any] = read_json(project / RECORD)
    log = (project / RECORD).with_name(f"IMPL-1.{data['log']}.log")
    if log.exists():
        for line in log.read_text().splitlines():
            data["steps"].update(json.loads(line)["steps"])
    return data


def summary(project: Path) -> str:
    return (project / SESSION / ".summaries" / "IMPL-1-summary.md").read_text()


@pytest.fixture
def repo(project: Path, git_env: Path) -> Path:
    """The project, a git repository with one commit."""
    git(project, "init", "-q")
    (project / "README.md").write_text("the project\n")
    commit_all(project, "start")
    return project


# ------------------------------------------------------------------ red


@pytest.mark.slow
def test_a_red_step_whose_check_fails_is_done_and_its_output_is_kept(
    repo: Path, tmp_path: Path
) -> None:
    plan(one_task(red()))
    agent = fake_agent(tmp_path, {"implementation_approach/1": {"test.txt": "4\n"}})
    run = wfs("execute", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    entry = record(repo)["steps"]["implementation_approach/1"]
    [check] = entry["checks"]
    assert check == {
        "check": 1,
        "command": TEST,
        "exit_code": 2,
        "elapsed": check["elapsed"],
        "outcome": "failed as expected",
        "stdout": "",
        "stderr": "grep: answer.txt: No such file or directory\n",
    }
    assert entry["how"] == "answered by the agent, red check failed as expected"
    assert (
        "  IMPL-1 · Write the failing test: check failed as expected: " + TEST + "\n"
    ) in run.err
    assert (
        "| implementation_approach/1 | Write the failing test | done (answered by the agent, "
        "red check failed as expected) |"
    ) in summary(repo)


@pytest.mark.slow
def test_a_red_step_whose_check_passes_fails_the_test_passes_before_the_code_exists(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "answer.txt").write_text("4\n")
    plan(one_task(red(), green()))
    agent = fake_agent(tmp_path, {"implementation_approach/2": {"answer.txt": "4\n"}})
    run = wfs("execute", "--agent", str(agent), "--json")
    assert run.code == 1
    [result] = run.result()["tasks"]
    reason = (
        f"step implementation_approach/1 (Write the failing test) failed: the check `{TEST}` "
        "passed, but it must fail: the test passes before the code exists"
    )
    assert (result["status"], result["reason"]) == ("blocked", reason)
    assert agent_calls(agent) == ["implementation_approach/1"]  # green never ran
    task = read_json(repo / SESSION / ".task" / "IMPL-1.json")
    assert (task["status"], task["execution"]["blocked_reason"]) == ("blocked", reason)
    # Fixed by hand (the answer is not there yet), the resume runs the check again.
    (repo / "answer.txt").unlink()
    resumed = wfs(*result["resume"][1:], "--agent", str(agent), "--json")
    assert resumed.code == 0, resumed.out
    assert agent_calls(agent) == ["implementation_approach/1", "implementation_approach/2"]


@pytest.mark.slow
def test_a_red_check_that_cannot_run_does_not_count_as_failing(repo: Path, tmp_path: Path) -> None:
    plan(one_task(red(verification="bash(no-such-test-runner --all)")))
    run = wfs("execute", "--agent", str(fake_agent(tmp_path, {})), "--json")
    assert run.code == 1
    reason = run.result()["tasks"][0]["reason"]
    # bash names itself by the path it was started as
    assert re.fullmatch(
        re.escape(
            "step implementation_approach/1 (Write the failing test) failed: the check "
            "`bash(no-such-test-runner --all)` could not run: exit code 127: "
        )
        + r"(\S*/)?bash: line 1: no-such-test-runner: command not found; "
        + re.escape("a red check must run and fail"),
        reason,
    ), reason


@pytest.mark.slow
def test_expected_failure_decides_what_the_check_must_do(repo: Path, tmp_path: Path) -> None:
    # Words in expected_failure: it must fail (whatever the phase); false: it must pass.
    plan(
        one_task(
            step(1, "Probe", verification=TEST, expected_failure="answer.txt is missing"),
            step(
                2,
                "Red but passing",
                tdd_phase="red",
                verification="bash(true)",
                expected_failure=False,
            ),
        )
    )
    run = wfs("execute", "--agent", str(fake_agent(tmp_path, {})))
    assert run.code == 0, run.out + run.err
    steps = record(repo)["steps"]
    assert steps["implementation_approach/1"]["how"] == (
        "answered by the agent, check failed as expected"
    )
    assert steps["implementation_approach/2"]["how"] == "answered by the agent, red check passed"


@pytest.mark.slow
def test_a_check_with_expected_failure_words_that_passes_fails_the_step(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "answer.txt").write_text("4\n")
    plan(one_task(step(1, "Probe", verification=TEST, expected_failure="answer.txt is missing")))
    run = wfs("execute", "--agent", str(fake_agent(tmp_path, {})), "--json")
    assert run.code == 1
    assert run.result()["tasks"][0]["reason"] == (
        f"step implementation_approach/1 (Probe) failed: the check `{TEST}` passed, but it "
        "must fail: expected_failure: answer.txt is missing"
    )


# ------------------------------------------------------------------ green


@pytest.mark.slow
@pytest.mark.parametrize("iterations", [1, 3])
def test_a_green_check_goes_back_to_the_agent_exactly_max_iterations_times(
    repo: Path, tmp_path: Path, iterations: int
) -> None:
    runs = tmp_path / "runs.log"
    check = f"bash(echo run >> {runs}; grep -qx 4 answer.txt)"
    cycle = {"max_iterations": iterations, "auto_revert": False}
    plan(one_task(green(1, verification=check, test_fix_cycle=cycle)))
    agent = fake_agent(
        tmp_path,
        {"implementation_approach/1": {"answer.txt": "5\n"}, "implementation_approach/1#fix": {}},
    )
    run = wfs("execute", "--agent", str(agent), "--json")
    assert run.code == 1
    assert agent_calls(agent) == ["implementation_approach/1"] + [
        f"implementation_approach/1#fix{n}" for n in range(1, iterations + 1)
    ]
    assert runs.read_text() == "run\n" * (iterations + 1)
    result = run.result()["tasks"][0]
    fixes = f"{iterations} fix{'es' if iterations != 1 else ''}"
    assert result["reason"] == (
        f"step implementation_approach/1 (Make it pass) failed: the check `{check}` failed: "
        f"exit code 1 (after {fixes})"
    )
    assert len(result["tries"]) == iterations + 1
    assert (repo / "answer.txt").read_text() == "5\n"  # without auto_revert, the work stays
    fix_briefs = [f for f in record(repo)["steps"]["implementation_approach/1"]["fixes"]]
    assert [f["iteration"] for f in fix_briefs] == list(range(1, iterations + 1))
    assert {f["check"] for f in fix_briefs} == {
        "/flow_control/implementation_approach/0/verification"
    }


@pytest.mark.slow
def test_a_green_fix_gets_the_failing_output_and_completes_the_step(
    repo: Path, tmp_path: Path
) -> None:
    check = "bash(cat answer.txt; grep -qx 4 answer.txt)"
    plan(one_task(green(1, verification=check, test_fix_cycle={"max_iterations": 3})))
    agent = fake_agent(
        tmp_path,
        {
            "implementation_approach/1": {"answer.txt": "5\n"},
            "implementation_approach/1#fix1": {"answer.txt": "3\n"},
            "implementation_approach/1#fix2": {"answer.txt": "4\n"},
        },
    )
    run = wfs("execute", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    assert agent_calls(agent) == [
        "implementation_approach/1",
        "implementation_approach/1#fix1",
        "implementation_approach/1#fix2",
    ]
    entry = record(repo)["steps"]["implementation_approach/1"]
    assert [c["outcome"] for c in entry["checks"]] == ["failed", "failed", "passed"]
    assert [c["stdout"] for c in entry["checks"]] == ["5\n", "3\n", "4\n"]
    assert entry["how"] == "answered by the agent, green check passed, after 2 fixes"
    assert (
        "  IMPL-1 · Make it pass: failed (the check `" + check + "` failed: exit code 1); "
        "fix 1 of 3 goes to the agent\n"
    ) in run.err


@pytest.mark.slow
def test_a_fix_brief_says_which_check_failed_and_shows_its_output(
    repo: Path, tmp_path: Path
) -> None:
    check = "bash(cat answer.txt; grep -qx 4 answer.txt)"
    plan(one_task(green(1, verification=check, test_fix_cycle={"max_iterations": 1})))
    folder = tmp_path / "briefs"
    folder.mkdir()
    agent = tmp_path / "keeper"
    agent.write_text(
        f'#!/bin/sh\nn=$(ls "{folder}" | wc -l)\ncat > "{folder}/$n.json"\n'
        "echo 5 > answer.txt; echo done\n"
    )
    agent.chmod(0o755)
    assert wfs("execute", "--agent", str(agent)).code == 1
    first, fix_brief = (json.loads((folder / f"{n}.json").read_text()) for n in (0, 1))
    assert first["steps"][0]["checks"] == [{"command": check, "phase": "green", "must": "pass"}]
    assert fix_brief["fix"] == {
        "step": "implementation_approach/1",
        "check": "/flow_control/implementation_approach/0/verification",
        "phase": "green",
        "command": check,
        "error": f"the check `{check}` failed: exit code 1",
        "stdout": ["5"],
        "stderr": [],
        "iteration": 1,
        "of": 1,
    }


@pytest.mark.slow
def test_a_green_fix_without_an_agent_pauses_and_the_answer_reruns_the_check(
    repo: Path,
) -> None:
    plan(one_task(green(1, test_fix_cycle={"max_iterations": 2})))
    assert wfs("execute").code == 3  # the step itself waits for an agent
    (repo / "answer.txt").write_text("5\n")
    paused = wfs("execute", "--resume", "IMPL-1", "--output", "wrote 5", "--json")
    assert paused.code == 3
    result = paused.result()["tasks"][0]
    assert result["reason"] == (
        f"waiting for an agent to fix implementation_approach/1: the check `{TEST}` failed: "
        "exit code 1"
    )
    assert result["brief"]["fix"]["iteration"] == 1
    (repo / "answer.txt").write_text("4\n")
    done = wfs(*result["resume"][1:], "--output", "wrote 4")
    assert done.code == 0, done.out + done.err
    entry = record(repo)["steps"]["implementation_approach/1"]
    assert [f["answer"] for f in entry["fixes"]] == ["wrote 4"]


# ------------------------------------------------------------------ auto_revert


@pytest.mark.slow
def test_auto_revert_restores_exactly_what_the_step_changed(repo: Path, tmp_path: Path) -> None:
    # Before the task: tracked files, one edited by the user, one untracked, one ignored.
    (repo / ".gitignore").write_text("build/\n")
    (repo / "src").mkdir()
    (repo / "src" / "calc.py").write_bytes(b"def add(a, b):\r\n    return 0\r\n")
    (repo / "src" / "keep.py").write_text("KEEP = 1\n")
    (repo / "old.txt").write_text("to be deleted by the step\n")
    commit_all(repo, "code")
    (repo / "README.md").write_text("the project, edited by its user\n")
    (repo / "notes.txt").write_text("the user's notes\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.bin").write_bytes(b"\x00\x01")
    cycle = {"max_iterations": 2, "auto_revert": True}
    plan(one_task(red(), green(test_fix_cycle=cycle)))
    agent = fake_agent(
        tmp_path,
        {
            # red: the test exists, the answer does not: kept, since it came before.
            "implementation_approach/1": {"test_answer.sh": "grep -qx 4 answer.txt\n"},
            "implementation_approach/2": {
                "answer.txt": "5\n",
                "src/calc.py": "def add(a, b):\n    return a - b\n",
                "src/new/module.py": "NEW = True\n",
                "old.txt": None,
            },
            "implementation_approach/2#fix": {"answer.txt": "6\n"},
        },
    )
    status_before = git(repo, "status", "--porcelain", "--untracked-files=all").stdout
    files = ("README.md", "notes.txt", "src/calc.py", "src/keep.py", "old.txt", "build/out.bin")
    bytes_before = {name: (repo / name).read_bytes() for name in files}
    head = git(repo, "rev-parse", "HEAD").stdout
    run = wfs("execute", "--agent", str(agent), "--json")
    assert run.code == 1
    [result] = run.result()["tasks"]
    assert result["reason"] == (
        f"step implementation_approach/2 (Make it pass) failed: the check `{TEST}` failed: "
        "exit code 1 (after 2 fixes); auto_revert: the step's changes were reverted (4 files: "
        "answer.txt, old.txt, src/calc.py, src/new/module.py); the diff is kept in "
        f"{RECORD.as_posix()}"
    )
    # Every file is as it was before the step; the red step's test is still there.
    assert {name: (repo / name).read_bytes() for name in files} == bytes_before
    assert not (repo / "answer.txt").exists()
    assert not (repo / "src" / "new" / "module.py").exists()
    assert (repo / "test_answer.sh").read_text() == "grep -qx 4 answer.txt\n"
    status_after = git(repo, "status", "--porcelain", "--untracked-files=all").stdout
    assert status_after.replace("?? test_answer.sh\n", "") == status_before
    assert git(repo, "rev-parse", "HEAD").stdout == head
    assert git(repo, "diff", "--cached", "--name-only").stdout == ""  # the index untouched
    # The run record keeps what was undone.
    entry = record(repo)["steps"]["implementation_approach/2"]
    [kept] = entry["reverts"]
    assert kept["files"] == ["answer.txt", "old.txt", "src/calc.py", "src/new/module.py"]
    diff = kept["diff"]
    assert "+def add(a, b):\n+    return a - b\n" in diff
    assert "-to be deleted by the step\n" in diff
    assert "+6\n" in diff and "+NEW = True\n" in diff
    assert "README.md" not in diff and "notes.txt" not in diff
    assert entry["parts"] == [] and "fixes" not in entry
    task = read_json(repo / SESSION / ".task" / "IMPL-1.json")
    assert (task["status"], task["execution"]["step"]) == ("blocked", "implementation_approach/2")


@pytest.mark.slow
def test_after_auto_revert_resume_does_the_step_again_from_the_start(
    repo: Path, tmp_path: Path
) -> None:
    cycle = {"max_iterations": 1, "auto_revert": True}
    plan(one_task(green(1, test_fix_cycle=cycle)))
    actions: dict[str, dict[str, str | None]] = {
        "implementation_approach/1": {"answer.txt": "5\n"},
        "implementation_approach/1#fix": {},
    }
    agent = fake_agent(tmp_path, actions)
    first = wfs("execute", "--agent", str(agent), "--json")
    assert first.code == 1
    assert not (repo / "answer.txt").exists()
    # The agent does better this time: the resume gives it the whole step again.
    actions["implementation_approach/1"] = {"answer.txt": "4\n"}
    (agent.parent / "actions.json").write_text(json.dumps(actions))
    resume = first.result()["tasks"][0]["resume"]
    # The printed command carries the agent command: it is run as it is.
    assert resume == [
        "wfs",
        "--session",
        SID,
        "execute",
        "--agent",
        str(agent),
        "--resume",
        "IMPL-1",
    ]
    again = wfs(*resume[1:])
    assert again.code == 0, again.out + again.err
    assert agent_calls(agent) == [
        "implementation_approach/1",
        "implementation_approach/1#fix1",
        "implementation_approach/1",
    ]
    assert (repo / "answer.txt").read_text() == "4\n"
    entry = record(repo)["steps"]["implementation_approach/1"]
    assert (entry["status"], len(entry["reverts"])) == ("done", 1)


@pytest.mark.slow
def test_auto_revert_outside_git_says_nothing_was_reverted(project: Path, tmp_path: Path) -> None:
    plan(one_task(green(1, test_fix_cycle={"max_iterations": 0, "auto_revert": True})))
    agent = fake_agent(tmp_path, {"implementation_approach/1": {"answer.txt": "5\n"}})
    run = wfs("execute", "--agent", str(agent), "--json")
    assert run.result()["tasks"][0]["reason"] == (
        f"step implementation_approach/1 (Make it pass) failed: the check `{TEST}` failed: "
        "exit code 1; auto_revert: not a git work tree, so nothing was reverted"
    )
    assert (project / "answer.txt").read_text() == "5\n"


# ------------------------------------------------------------------ refactor


@pytest.mark.slow
def test_a_refactor_step_must_still_pass_its_check(repo: Path, tmp_path: Path) -> None:
    refactor = step(3, "Tidy up", tdd_phase="refactor", verification=TEST)
    plan(one_task(red(), green(), refactor))
    agent = fake_agent(
        tmp_path,
        {
            "implementation_approach/2": {"answer.txt": "4\n"},
            "implementation_approach/3": {"answer.txt": "four\n"},
        },
    )
    run = wfs("execute", "--agent", str(agent), "--json")
    assert run.code == 1
    assert run.result()["tasks"][0]["reason"] == (
        f"step implementation_approach/3 (Tidy up) failed: the check `{TEST}` failed after "
        "the refactoring: exit code 1 (after 1 fix)"
    )
    # One fix by default, as for acceptance checks.
    assert agent_calls(agent)[-2:] == [
        "implementation_approach/3",
        "implementation_approach/3#fix1",
    ]
    steps = record(repo)["steps"]
    assert steps["implementation_approach/1"]["how"].endswith("red check failed as expected")
    assert steps["implementation_approach/2"]["how"].endswith("green check passed")


# ------------------------------------------------------------------ where checks are written


@pytest.mark.slow
def test_checks_of_the_flat_format_and_of_the_task(repo: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs.log"
    check = f"echo run >> {runs}; grep -qx 4 answer.txt"  # a shell line, not bash(...)
    plan([{"id": "IMPL-1", "title": "Flat"}])
    path = repo / SESSION / ".task" / "IMPL-1.json"
    task = read_json(path)
    del task["flow_control"]
    task.update(
        description="The answer",
        meta={"agent": "@code-developer", "tdd_phase": "green", "max_iterations": 2},
        implementation=[
            {
                "step": "Write the test",
                "description": "test",
                "tdd_phase": "red",
                "verification": f"cd . && {check}",
                "expected_failure": True,
            },
            {"step": "Implement", "description": "code", "verification": f"cd . && {check}"},
        ],
        convergence={"criteria": ["it is 4"], "verification": "bash(test -s answer.txt)"},
    )
    path.write_text(json.dumps(task))
    agent = fake_agent(
        tmp_path,
        {
            "implementation/2": {"answer.txt": "5\n"},
            "implementation/2#fix": {"answer.txt": "4\n"},
        },
    )
    dry = wfs("execute", "--dry-run", "--agent", str(agent))
    assert dry.out.splitlines()[1:] == [
        "  implementation/1 Write the test [agent] → [step_1_output] on_error=fail",
        f"      to the agent `{agent}`: test",
        f"      check (red: must fail): bash: cd . && {check}",
        "  implementation/2 Implement [agent] → [step_2_output] on_error=fail",
        f"      to the agent `{agent}`: code",
        # the task is green (meta.tdd_phase) and allows 2 fixes (meta.max_iterations)
        f"      check (green: must pass; up to 2 fixes): bash: cd . && {check}",
        "  acceptance/1 acceptance check 1 [bash] on_error=fail",
        "      bash: test -s answer.txt",
        "      check of the task (/convergence/verification): must pass; up to 1 fix",
        "  checks the author wrote:",
        f"    run: bash(cd . && {check}) (/implementation/0/verification)",
        f"    run: bash(cd . && {check}) (/implementation/1/verification)",
        "    run: bash(test -s answer.txt) (/convergence/verification)",
        "    checked by the agent: it is 4 (/convergence/criteria/0: 'it' is not a program)",
    ]
    run = wfs("execute", "--agent", str(agent))
    assert run.code == 0, run.out + run.err
    assert runs.read_text() == "run\n" * 3  # red, green, green after its fix
    assert agent_calls(agent) == ["implementation/1", "implementation/2", "implementation/2#fix1"]


@pytest.mark.slow
def test_a_step_with_a_check_ends_its_hand_off(repo: Path, tmp_path: Path) -> None:
    # Agent steps go to the agent together, but never past a check: the red test must
    # fail before the green code exists.
    plan(one_task(step(1, "Prepare"), red(2), step(3, "Plan"), green(4)))
    agent = fake_agent(tmp_path, {"implementation_approach/3": {"answer.txt": "4\n"}})
    dry = wfs("execute", "--dry-run", "--agent", str(agent), "--json").json()
    assert [row.get("handoff_with") for row in dry["steps"]] == [
        None,
        "implementation_approach/1",
        None,
        "implementation_approach/3",
    ]
    assert wfs("execute", "--agent", str(agent)).code == 0
    assert agent_calls(agent) == ["implementation_approach/1", "implementation_approach/3"]


def test_a_step_without_checks_pays_nothing_for_them(repo: Path, tmp_path: Path) -> None:
    plan(one_task(step(1, "Plain", command="bash(echo hi)")))
    assert wfs("execute").code == 0
    entry = record(repo)["steps"]["implementation_approach/1"]
    assert set(entry) == {"status", "elapsed", "output"}


def test_a_check_that_reads_an_output_not_yet_bound_fails_the_step(
    repo: Path, tmp_path: Path
) -> None:
    plan(one_task(step(1, "Write", output="result", verification="bash(test -n [result])")))
    run = wfs("execute", "--agent", str(fake_agent(tmp_path, {})), "--json")
    assert run.result()["tasks"][0]["reason"] == (
        "step implementation_approach/1 (Write) failed: Missing required input: result"
    )


def test_the_text_brief_names_the_check_of_the_step(repo: Path) -> None:
    plan(one_task(red()))
    paused = wfs("execute")
    assert paused.code == 3
    assert f"Check after this step (red), must fail: {TEST}\n" in paused.out


# ------------------------------------------------------------------ dry run


def test_dry_run_lists_every_check_with_its_command_as_it_will_run(repo: Path) -> None:
    refactor = step(3, "Tidy up", tdd_phase="refactor", verification=["bash(./lint [out2])", TEST])
    plan(
        one_task(
            red(verification="bash(grep -qx 4 [focus_paths])"),
            green(test_fix_cycle={"max_iterations": 3, "auto_revert": True}),
            refactor,
            step(4, "Look", verification="Open the page and look at the answer"),
            context={"focus_paths": ["answer.txt"]},
        )
    )
    run = wfs("execute", "--dry-run", "--agent", "cat")  # cat: on PATH
    assert run.code == 0, run.err
    assert run.out == (
        "IMPL-1: Answer (dry run, nothing is executed)\n"
        "  implementation_approach/1 Write the failing test [agent] → [out1] on_error=fail\n"
        "      to the agent `cat`: Write the failing test.\n"
        "      check (red: must fail): bash: grep -qx 4 answer.txt\n"
        "  implementation_approach/2 Make it pass [agent] → [out2] on_error=fail\n"
        "      to the agent `cat`: Make it pass.\n"
        "      check (green: must pass; up to 3 fixes, then auto_revert): bash: grep -qx 4 "
        "answer.txt\n"
        "  implementation_approach/3 Tidy up [agent] → [out3] on_error=fail\n"
        "      to the agent `cat`: Tidy up.\n"
        "      check (refactor: must pass; up to 1 fix): bash: ./lint "
        "'<output of implementation_approach/2>'\n"
        "      check (refactor: must pass; up to 1 fix): bash: grep -qx 4 answer.txt\n"
        "  implementation_approach/4 Look [agent] → [out4] on_error=fail\n"
        "      to the agent `cat`: Look.\n"
        "  checks the author wrote:\n"
        "    run: bash(grep -qx 4 [focus_paths]) (/flow_control/implementation_approach/0/"
        "verification)\n"
        f"    run: {TEST} (/flow_control/implementation_approach/1/verification)\n"
        "    run: bash(./lint [out2]) (/flow_control/implementation_approach/2/verification/0)\n"
        f"    run: {TEST} (/flow_control/implementation_approach/2/verification/1)\n"
        "    checked by the agent: Open the page and look at the answer "
        "(/flow_control/implementation_approach/3/verification: 'Open' is not a program)\n"
    )
    rows = wfs("execute", "--dry-run", "--json").json()["steps"]
    assert rows[1]["checks"] == [
        {
            "of": "step",
            "from": "/flow_control/implementation_approach/1/verification",
            "kind": "bash",
            "shell": "grep -qx 4 answer.txt",
            "phase": "green",
            "must": "pass",
            "fixes": 3,
            "auto_revert": True,
        }
    ]


# ------------------------------------------------------------------ what execute refuses


def test_execute_all_that_ran_nothing_because_tasks_are_invalid_names_them(
    project: Path,
) -> None:
    plan(
        [
            {"id": "IMPL-1", "title": "Broken"},
            {"id": "IMPL-2", "title": "Fine", "status": "completed"},
            {"id": "IMPL-3", "title": "Waits", "context": {"depends_on": ["IMPL-1"]}},
        ]
    )
    path = project / SESSION / ".task" / "IMPL-1.json"
    broken = read_json(path)
    broken["flow_control"]["implementation_approach"] = "Do it all"
    path.write_text(json.dumps(broken))
    (project / SESSION / ".task" / "IMPL-4.json").write_text("{not json")
    problems = wfs("validate").out.splitlines()
    where = f".workflow/{SID}/.task"
    reason_1 = next(p for p in problems if p.startswith(f"{where}/IMPL-1.json#"))
    reason_4 = next(p for p in problems if p.startswith(f"{where}/IMPL-4.json"))
    run = wfs("execute", "--all")
    assert (run.code, run.out) == (
        1,
        "No task ran: 2 tasks that would be ready cannot run as written "
        "(`wfs validate` reports the same):\n"
        f"  IMPL-1 ({where}/IMPL-1.json):\n"
        f"    {reason_1}\n"
        f"  IMPL-4 ({where}/IMPL-4.json):\n"
        f"    {reason_4}\n",
    )
    data = wfs("execute", "--all", "--json").result()
    assert (data["status"], data["tasks"]) == ("invalid", [])
    assert data["invalid"] == [
        {"task": "IMPL-1", "file": f"{where}/IMPL-1.json", "reasons": [reason_1]},
        {"task": "IMPL-4", "file": f"{where}/IMPL-4.json", "reasons": [reason_4]},
    ]
    # Nothing ready and nothing invalid that could run: idle, exit 0.
    path.write_text(json.dumps({**broken, "status": "completed"}))
    (project / SESSION / ".task" / "IMPL-4.json").unlink()
    path.write_text(json.dumps({**broken, "status": "blocked"}))
    idle = wfs("execute", "--all")
    assert idle.code == 0
    assert idle.out.startswith("No task is ready.\n")


@pytest.mark.slow
def test_a_completed_session_runs_again_only_with_force(project: Path) -> None:
    plan(
        [
            {
                "id": "IMPL-1",
                "title": "One",
                "flow_control": {
                    "pre_analysis": [],
                    "implementation_approach": [step(1, "Echo", command="bash(echo hi)")],
                },
            }
        ]
    )
    assert wfs("session", "complete", SID).code == 0
    run = wfs("--session", SID, "execute")
    assert (run.code, run.out, run.err) == (
        2,
        "",
        f"wfs: error: session {SID} is completed; `wfs execute` runs a finished session "
        f"again only with --force (or reopen it first: `wfs session resume {SID}`)\n",
    )
    task = project / SESSION / ".task" / "IMPL-1.json"
    before = task.read_bytes()
    assert wfs("--session", SID, "execute", "--resume", "IMPL-1").code == 2
    assert task.read_bytes() == before  # nothing changed
    assert wfs("--session", SID, "execute", "--dry-run").code == 0  # a dry run changes nothing
    forced = wfs("--session", SID, "execute", "--force")
    assert forced.code == 0, forced.out + forced.err
    assert read_json(task)["status"] == "completed"


@pytest.mark.slow
def test_an_archived_session_runs_again_only_with_force(project: Path, tmp_path: Path) -> None:
    (project / ".workflow" / "active").mkdir(parents=True)
    plan([{"id": "IMPL-1", "title": "One"}])
    assert wfs("session", "complete", SID).code == 0
    assert (project / ".workflow" / "archives" / SID).is_dir()
    agent = fake_agent(tmp_path, {"task": {"answer.txt": "4\n"}})
    run = wfs("--session", SID, "execute", "--agent", str(agent))
    assert (run.code, run.err) == (
        2,
        f"wfs: error: session {SID} is archived in .workflow/archives/{SID}/; `wfs execute` "
        f"runs a finished session again only with --force (or reopen it first: "
        f"`wfs session resume {SID}`)\n",
    )
    assert agent_calls(agent) == []
    forced = wfs("--session", SID, "execute", "--agent", str(agent), "--force")
    assert forced.code == 0, forced.out + forced.err
    assert agent_calls(agent) == ["task"]
    assert (project / "answer.txt").read_text() == "4\n"
