"""Every check runs as its author meant it, and everything the author wrote reaches the
agent (issue 42).

- A check runs as a command only when it is one: prose, and a command followed by prose,
  go to the agent as a criterion to verify; `--dry-run` says which for each check.
- No check writes a file its command does not name (`>= 12` is no redirect).
- A `#` comment is bash's; a Windows path with backslashes runs with slashes.
- The brief carries every field of the task that wfs does not consume, under its own
  name, unknown ones included, and the checks left for the agent.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_bash, wfs

from wfs.command_forms import check_form

# (a check as authors write it, the command wfs runs, or None: the agent verifies it)
FORMS = [
    ("npm test", "npm test"),
    ("pytest -q tests/auth", "pytest -q tests/auth"),
    (
        "grep -q 'validation passed' scripts/validate.mjs",
        "grep -q 'validation passed' scripts/validate.mjs",
    ),
    ("cd api && npm test", "bash(cd api && npm test)"),
    ("[ -f dist/app.js ] && echo built", "bash([ -f dist/app.js ] && echo built)"),
    ('test "$(wc -l < out.txt)" -ge 3', 'bash(test "$(wc -l < out.txt)" -ge 3)'),
    ("npm test # 所有测试通过", "npm test # 所有测试通过"),  # the comment is bash's
    ("python scripts\\check.py --strict", "bash(python scripts/check.py --strict)"),
    (".\\gradlew test", "bash(./gradlew test)"),
    ("bash(npm run lint)", "bash(npm run lint)"),
    ("grep -c X file 返回 >= 12", None),
    ("npm test | 验证 所有测试通过", None),
    ("grep -c 'CREATE TABLE' docs/schema.md >= 8", None),
    ("grep -c x f > 0", None),
    ("bash(grep -c X f >= 12)", None),
    ("grep -n 'prefix' src/a.ts | wc -l = 0", None),
    ("npm test exits 0", None),
    ("npm test passes", None),
    ("cargo build succeeds with no warnings", None),
    ("deno check src/main.ts (exit code 0)", None),
    ("All tests pass", None),
    ("verify by curl http://localhost:8000/health | grep -q ok", None),
    ("Check that the user's profile loads", None),
    ("src/main.tsx 含 scenarioRegistry 数组", None),
    ("Read(docs/api.md)", None),
]


@pytest.mark.parametrize(("written", "command"), FORMS)
def test_a_check_is_a_command_only_when_it_is_one(written: str, command: str | None) -> None:
    assert check_form(written).command == command


TASK: dict[str, Any] = {
    "id": "IMPL-1",
    "title": "Count the things",
    "status": "pending",
    "description": "Write a file with twelve things",
    "goal": "Twelve things, one a line",
    "deliverables": ["things.txt"],
    "read_first": ["README.md"],
    "objective": {"why": "the count matters", "who": "the reviewers"},
    "files_to_create": ["things.txt"],
    "priority": "high",
    "meta": {"type": "feature", "estimated_time": "5m"},
    "implementation": [
        {"step": 1, "action": "Write things.txt", "target": "things.txt:1-12"},
    ],
    "convergence": {
        "criteria": ["things.txt has 12 lines", "test -s things.txt"],
        "verification": "grep -c thing things.txt 返回 >= 12",
    },
    "verification": ["wc -l things.txt", "all twelve lines are things"],
}
AGENT = """#!{python}
import json, sys
brief = sys.stdin.read()
with open({briefs!r}, "a") as f:
    f.write(json.dumps(brief) + "\\n")
open("things.txt", "w").write("thing\\n" * 12)
print("Wrote things.txt")
"""


@pytest.fixture
def counted(project: Path, tmp_path: Path) -> dict[str, str]:
    """A session holding TASK, and the environment of a fake agent that writes the file."""
    assert wfs("init", "--no-git").code == 0
    assert wfs("plan", "count", "--empty").code == 0
    tasks = project / ".workflow" / "WFS-count" / ".task"
    (tasks / "IMPL-1.json").write_text(json.dumps(TASK, ensure_ascii=False, indent=2) + "\n")
    agent = tmp_path / "agent"
    agent.write_text(AGENT.format(python=sys.executable, briefs=str(tmp_path / "briefs.jsonl")))
    agent.chmod(0o755)
    return {"WFS_AGENT": str(agent)}


def test_dry_run_says_for_each_check_whether_it_runs_or_the_agent_verifies_it(
    project: Path, counted: dict[str, str]
) -> None:
    plan = wfs("--json", "execute", "IMPL-1", "--dry-run").result()
    assert [(c["from"], c["how"], c.get("command")) for c in plan["checks"]] == [
        ("/convergence/verification", "agent", None),
        ("/verification/0", "run", "wc -l things.txt"),
        ("/verification/1", "agent", None),
        ("/convergence/criteria/0", "agent", None),
        ("/convergence/criteria/1", "run", "bash(test -s things.txt)"),
    ]
    assert plan["checks"][0]["why"] == "'返回' is a word of prose"
    shown = wfs("execute", "IMPL-1", "--dry-run").out
    assert (
        "  checks the author wrote:\n"
        "    checked by the agent: grep -c thing things.txt 返回 >= 12 "
        "(/convergence/verification: '返回' is a word of prose)\n"
        "    run: wc -l things.txt (/verification/0)\n"
        "    checked by the agent: all twelve lines are things "
        "(/verification/1: 'all' is not a program)\n"
        "    checked by the agent: things.txt has 12 lines "
        "(/convergence/criteria/0: 'things.txt' is not a program)\n"
        "    run: bash(test -s things.txt) (/convergence/criteria/1)\n"
    ) in shown


@needs_bash
def test_a_check_in_words_writes_no_file_and_the_brief_carries_every_field(
    project: Path, counted: dict[str, str], tmp_path: Path
) -> None:
    before = sorted(p.name for p in project.iterdir())
    run = wfs("execute", "IMPL-1", env=counted)
    assert run.code == 0, run.out + run.err
    assert sorted(p.name for p in project.iterdir()) == sorted([*before, "things.txt"])
    assert not (project / "=").exists()
    [brief] = [json.loads(line) for line in (tmp_path / "briefs.jsonl").read_text().splitlines()]
    for part in (
        "### implementation/1: Write things.txt\n",
        "target: things.txt:1-12\n",
        "## goal\n\nTwelve things, one a line\n",
        "## deliverables\n\n- things.txt\n",
        "## read_first\n\n- README.md\n",
        "## objective\n\n- why: the count matters\n- who: the reviewers\n",
        "## files_to_create\n\n- things.txt\n",
        "## priority\n\nhigh\n",
        "## meta\n\n- estimated_time: 5m\n",
        "## Checks for you to verify (words, not commands: wfs runs none of these)\n\n"
        "- grep -c thing things.txt 返回 >= 12 (/convergence/verification)\n"
        "- all twelve lines are things (/verification/1)\n",
        "## Acceptance\n\n- things.txt has 12 lines\n- test -s things.txt\n",
    ):
        assert part in brief, part
    summary = (project / ".workflow/WFS-count/.summaries/IMPL-1-summary.md").read_text()
    assert "| acceptance/1 | acceptance check 1 | done |" in summary  # wc -l things.txt
    assert "| acceptance/2 | acceptance check 2 | done |" in summary  # test -s things.txt


@pytest.mark.slow
@needs_bash
@pytest.mark.skipif(shutil.which("python3") is None, reason="needs python3 on PATH")
def test_a_windows_path_in_a_check_runs_with_slashes(
    project: Path, counted: dict[str, str]
) -> None:
    tasks = project / ".workflow" / "WFS-count" / ".task"
    (project / "scripts").mkdir()
    (project / "scripts" / "check.py").write_text("import sys\nsys.exit(0)\n")
    task = {**TASK, "verification": ["python3 scripts\\check.py"], "convergence": {}}
    (tasks / "IMPL-1.json").write_text(json.dumps(task, ensure_ascii=False) + "\n")
    plan = wfs("--json", "execute", "IMPL-1", "--dry-run").result()
    assert [c.get("command") for c in plan["checks"]] == ["bash(python3 scripts/check.py)"]
    run = wfs("execute", "IMPL-1", env=counted)
    assert run.code == 0, run.out + run.err
