"""`wfs plan TOPIC`, `wfs plan --from-doc FILE.md` and `wfs task expand ID` plan with the
planning agent: a brief, the answer validated as `--from` validates a plan, its problems
sent back up to `--max-rounds`, the plan written all or nothing. Also: `wfs plan` asks
for `wfs init` where there is no project, re-planning a topic updates its session, and
a plan wfs accepts validates clean."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.conftest import read_json, tree_listing, wfs, wfs_process

# An agent that answers answer-1, answer-2, ... in turn (the last one again when it runs
# out), and keeps each brief it gets as brief-1.md, brief-2.md, ... in its folder.
AGENT = """#!/usr/bin/env bash
here="$(cd "$(dirname "$0")" && pwd)"
n=$(( $(ls "$here" | grep -c '^brief-') + 1 ))
cat > "$here/brief-$n.md"
answer="$here/answer-$n"
[ -f "$answer" ] || answer="$(ls "$here"/answer-* | sort -V | tail -n 1)"
cat "$answer"
"""

MISSING_DEPENDENCY = {
    "tasks": [{"id": "IMPL-1", "title": "Add login", "context": {"depends_on": ["IMPL-9"]}}]
}
VALID = {
    "overview": "Login",
    "tasks": [
        {
            "id": "IMPL-1",
            "title": "Add login",
            "flow_control": {
                "implementation_approach": [
                    {"title": "Write it", "commands": ["bash(echo login)"]},
                ]
            },
        },
        {"id": "IMPL-2", "title": "Document login", "depends_on": ["IMPL-1"]},
    ],
}
PROBLEM = (
    "plan.json#/tasks/0/context/depends_on/0: depends-on: IMPL-1 depends on IMPL-9, "
    "which does not exist"
)


def fenced(document: object, before: str = "Here is the plan.") -> str:
    return f"{before}\n\n```json\n{json.dumps(document, indent=2)}\n```\n"


def make_agent(folder: Path, *answers: str) -> str:
    """A fake planning agent giving `answers` in turn; its command line."""
    folder.mkdir(parents=True)
    script = folder / "agent.sh"
    script.write_text(AGENT)
    script.chmod(0o755)
    for n, answer in enumerate(answers, start=1):
        (folder / f"answer-{n}").write_text(answer)
    return shlex.quote(str(script))


def briefs(folder: Path) -> list[str]:
    found = sorted(folder.glob("brief-*.md"), key=lambda p: int(p.stem.split("-")[1]))
    return [p.read_text() for p in found]


@pytest.fixture
def initialized(project: Path) -> Path:
    assert wfs("init", "--no-git").code == 0
    return project


def test_invalid_then_valid_answer_takes_two_rounds_and_writes_the_plan(
    initialized: Path, tmp_path: Path
) -> None:
    agent = make_agent(tmp_path / "agent", fenced(MISSING_DEPENDENCY), fenced(VALID))
    run = wfs("plan", "Login", "--agent", agent)
    assert (run.code, run.out) == (0, "WFS-login\n")
    assert run.err == (
        "wfs: round 1 of 3: the planning agent is writing the plan…\n"
        "wfs: round 1 of 3: 1 problem; sending it back to the agent\n"
        "wfs: round 2 of 3: the planning agent is writing the plan…\n"
        "wfs: plan accepted in round 2 of 3\n"
    )
    first, second = briefs(tmp_path / "agent")
    assert first.startswith("# Plan: Login\n")
    assert PROBLEM not in first
    # The second brief names each problem exactly, shows the answer, then the brief again.
    assert second.startswith("# Fix the plan (round 2 of 3)\n")
    assert f"~~~~text\n{PROBLEM}\n~~~~\n" in second
    assert json.dumps(MISSING_DEPENDENCY, indent=2) in second
    assert second.endswith(first)
    tasks = initialized / ".workflow/WFS-login/.task"
    assert sorted(p.name for p in tasks.iterdir()) == ["IMPL-1.json", "IMPL-2.json"]
    assert read_json(initialized / ".workflow/WFS-login/workflow-session.json")["plan"] == {
        "overview": "Login"
    }
    assert wfs("validate").out == "OK: WFS-login\n"


def test_an_agent_that_never_answers_validly_gets_nothing_written(
    initialized: Path, tmp_path: Path
) -> None:
    agent = make_agent(tmp_path / "agent", fenced(MISSING_DEPENDENCY))
    before = tree_listing(initialized)
    run = wfs("plan", "Login", "--agent", agent, "--max-rounds", "2")
    assert run.code == 1
    assert run.out == ""
    assert len(briefs(tmp_path / "agent")) == 2
    draft = ".workflow/.cache/plan-draft.json"
    assert run.err.endswith(
        "wfs: error: the planning agent gave no valid plan in 2 rounds; nothing was written. "
        f"The last problems:\n  {PROBLEM}\n"
        f"The last answer is kept in {draft}: fix it, then run\n"
        f"  wfs plan Login --from {draft}\n"
        "Or ask the agent again, with more rounds:\n"
        f"  wfs plan Login --agent {agent} --max-rounds 4\n"
    )
    # No session: only the draft, in a folder git ignores.
    after = set(tree_listing(initialized)) - set(before)
    assert after == {".workflow/.cache", ".workflow/.cache/.gitignore", draft}
    assert json.loads((initialized / draft).read_text()) == MISSING_DEPENDENCY
    # The command it names works once the draft is fixed.
    (initialized / draft).write_text(json.dumps(VALID))
    fixed = wfs("plan", "Login", "--from", draft)
    assert (fixed.code, fixed.out) == (0, "WFS-login\n")


def test_a_refused_plan_in_json_names_the_problems_and_the_ways_on(
    initialized: Path, tmp_path: Path
) -> None:
    agent = make_agent(tmp_path / "agent", fenced(MISSING_DEPENDENCY))
    run = wfs("--json", "plan", "Login", "--agent", agent, "--max-rounds", "1")
    assert (run.code, run.err) == (1, "")
    assert run.json() == {
        "written": False,
        "problems": [PROBLEM],
        "draft": ".workflow/.cache/plan-draft.json",
        "next": [
            "wfs plan Login --from .workflow/.cache/plan-draft.json",
            f"wfs plan Login --agent {agent} --max-rounds 2",
        ],
    }


def test_an_answer_without_json_is_sent_back_too(initialized: Path, tmp_path: Path) -> None:
    agent = make_agent(tmp_path / "agent", "I could not decide.\n", fenced(VALID))
    assert wfs("plan", "Login", "--agent", agent).code == 0
    second = briefs(tmp_path / "agent")[1]
    assert (
        "the answer holds no ```json block, and its last line names no file that exists: "
        "'I could not decide.'" in second
    )


def test_the_answer_may_name_the_file_the_agent_wrote(initialized: Path, tmp_path: Path) -> None:
    (initialized / "drafts").mkdir()
    (initialized / "drafts/plan.json").write_text(json.dumps(VALID))
    agent = make_agent(tmp_path / "agent", "I wrote the plan to:\n`drafts/plan.json`\n")
    run = wfs("plan", "Login", "--agent", agent)
    assert (run.code, run.out) == (0, "WFS-login\n")
    assert (initialized / ".workflow/WFS-login/.task/IMPL-2.json").is_file()


def test_problems_of_a_plan_file_are_named_by_its_path(initialized: Path, tmp_path: Path) -> None:
    (initialized / "bad.json").write_text(json.dumps(MISSING_DEPENDENCY))
    agent = make_agent(tmp_path / "agent", "bad.json\n")
    run = wfs("plan", "Login", "--agent", agent, "--max-rounds", "1")
    assert run.code == 1
    assert f"  {PROBLEM.replace('plan.json', 'bad.json')}\n" in run.err


def test_a_failing_agent_stops_planning_with_its_reason(initialized: Path) -> None:
    before = tree_listing(initialized)
    run = wfs("plan", "Login", "--agent", "echo 'no credits left' >&2; exit 7")
    assert run.code == 1
    assert run.err.endswith(
        "wfs: error: the planning agent failed (exit code 7): no credits left; "
        "nothing was written\n"
    )
    assert tree_listing(initialized) == before


def test_dry_run_prints_the_brief_and_writes_nothing(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "README.md").write_text("# Shop\n\n" + "".join(f"line {n}\n" for n in range(3, 61)))
    (project / "src").mkdir()
    for n in range(205):
        (project / "src" / f"m{n:03}.py").write_text("")
    subprocess.run(["git", "add", "."], cwd=project, check=True)
    assert wfs("init", "--no-git").code == 0
    assert wfs("plan", "Old work", "--empty").code == 0
    before = tree_listing(project)
    run = wfs("plan", "Add a cart", "--dry-run")
    assert run.code == 0
    brief = run.out
    assert brief.startswith("# Plan: Add a cart\n")
    assert "## The request\n\nAdd a cart\n" in brief
    # The tracked files, up to 200, and how many more.
    assert (
        "Tracked files (`git ls-files`), the first 200:\n\n~~~~text\nREADME.md\nsrc/m000.py\n"
        in brief
    )
    assert "src/m198.py\n~~~~\n\n... and 6 more files (`git ls-files` lists them all).\n" in brief
    # The head of the README.
    assert "### README.md (its first lines)\n\n~~~~markdown\n# Shop\n\nline 3\n" in brief
    assert "line 40\n~~~~\n\n... and 20 more lines.\n" in brief
    assert "- WFS-old-work (active): Old work; tasks: none\n" in brief
    # The task format: a summary, the commands that print the schemas (not the schemas:
    # they were most of the brief) and the shipped example plan.
    assert "`wfs schema task` prints\nthe task's, `wfs schema plan` the plan document's" in brief
    for name in ("task", "plan"):
        schema = wfs("schema", name).out.strip()
        assert schema.startswith("{") and schema not in brief
    assert '"title": "Add the login rate limiter"' in brief
    assert "## Your answer\n\nAnswer with the whole plan document" in brief
    assert "`file#/json/pointer: rule: message`" in brief
    assert tree_listing(project) == before


def test_the_shipped_example_plan_is_accepted_and_validates_clean(initialized: Path) -> None:
    from wfs.resources import read_text

    (initialized / "example.json").write_text(read_text("schemas", "plan.example.json"))
    assert wfs("plan", "Login rate limit", "--from", "example.json").code == 0
    assert wfs("validate").out == "OK: WFS-login-rate-limit\n"


@pytest.mark.slow
def test_from_doc_plans_from_a_requirements_document(initialized: Path, tmp_path: Path) -> None:
    (initialized / "needs.md").write_text(
        "Intro\n\n# Password reset\n\nUsers reset a password by mail.\n\n```sh\nmake\n```\n"
    )
    agent = make_agent(tmp_path / "agent", fenced(VALID))
    run = wfs("plan", "--from-doc", "needs.md", "--agent", agent)
    assert (run.code, run.out) == (0, "WFS-password-reset\n")
    (brief,) = briefs(tmp_path / "agent")
    assert brief.startswith("# Plan: Password reset\n")
    assert (
        "The requirements document `needs.md`:\n\n~~~~markdown\nIntro\n\n# Password reset\n\n"
        "Users reset a password by mail.\n\n```sh\nmake\n```\n~~~~\n"
    ) in brief
    # TOPIC names the session when given.
    assert wfs("plan", "Reset", "--from-doc", "needs.md", "--agent", agent).out == "WFS-reset\n"


def test_without_an_agent_plan_says_how_to_configure_one(initialized: Path) -> None:
    before = tree_listing(initialized)
    run = wfs("plan", "Login")
    assert run.code == 2
    assert run.err == (
        "wfs: error: no planning agent is configured: give one with "
        "`wfs plan Login --agent CMD` (a command that reads the brief on stdin and answers "
        'on stdout, such as "claude -p"), set WFS_AGENT, or map "@action-planning-agent" '
        '(or "default") to a command in .workflow/config.json '
        '(`{"agents": {"@action-planning-agent": "claude -p"}}`); '
        "or write the plan yourself and run `wfs plan Login --from FILE`, or "
        "`wfs plan Login --empty` for a session with no tasks\n"
    )
    assert tree_listing(initialized) == before
    empty = wfs("plan", "Login", "--empty")
    assert (empty.code, empty.out) == (0, "WFS-login\n")
    assert list((initialized / ".workflow/WFS-login/.task").iterdir()) == []


@pytest.mark.slow
def test_the_planning_agent_is_routed_by_the_config(initialized: Path, tmp_path: Path) -> None:
    planner = make_agent(tmp_path / "planner", fenced(VALID))
    default = make_agent(tmp_path / "default", fenced(VALID))
    other = make_agent(tmp_path / "other", fenced(VALID))
    config = initialized / ".workflow/config.json"
    config.write_text(json.dumps({"agents": {"default": default}}))
    assert wfs("plan", "One").code == 0
    config.write_text(
        json.dumps({"agents": {"@action-planning-agent": planner, "default": default}})
    )
    assert wfs("plan", "Two").code == 0
    assert wfs("plan", "Three", env={"WFS_AGENT": other}).code == 0
    assert wfs("plan", "Four", "--agent", other).code == 0
    assert [len(briefs(tmp_path / name)) for name in ("default", "planner", "other")] == [1, 1, 2]
    assert briefs(tmp_path / "planner")[0].startswith("# Plan: Two\n")


def test_task_expand_splits_a_task_with_the_agent(initialized: Path, tmp_path: Path) -> None:
    plan = {"tasks": [{"id": "IMPL-1", "title": "Checkout", "context": {"requirements": ["R"]}}]}
    (initialized / "plan.json").write_text(json.dumps(plan))
    assert wfs("plan", "Shop", "--from", "plan.json").code == 0
    wrong = [{"id": "IMPL-2.1", "title": "Cart"}]
    right = [
        {"title": "Cart", "flow_control": {"implementation_approach": [{"title": "Build"}]}},
        {"title": "Pay", "depends_on": ["IMPL-1.1"]},
    ]
    agent = make_agent(tmp_path / "agent", fenced(wrong), fenced(right))
    run = wfs("task", "expand", "IMPL-1", "--agent", agent)
    assert (run.code, run.out) == (0, "IMPL-1.1\nIMPL-1.2\n")
    first, second = briefs(tmp_path / "agent")
    assert first.startswith("# Split IMPL-1: Checkout\n")
    assert '"requirements": [\n      "R"\n    ]' in first
    assert (
        "~~~~text\nIMPL-1-subtasks.json#/0/id: 'IMPL-2.1' is not a subtask of IMPL-1\n~~~~\n"
        in second
    )
    session = initialized / ".workflow/WFS-shop/.task"
    assert read_json(session / "IMPL-1.json")["status"] == "container"
    pay = read_json(session / "IMPL-1.2.json")
    assert pay["context"]["depends_on"] == ["IMPL-1.1"]
    assert pay["context"]["parent"] == "IMPL-1"
    assert "depends_on" not in pay
    assert wfs("validate").out == "OK: WFS-shop\n"
    # Again: it is a container now.
    refused = wfs("task", "expand", "IMPL-1", "--agent", agent)
    assert (refused.code, refused.err) == (
        2,
        "wfs: error: IMPL-1 is already split into subtasks\n",
    )


def test_task_expand_dry_run_and_without_an_agent(initialized: Path) -> None:
    (initialized / "plan.json").write_text(json.dumps({"tasks": [{"id": "IMPL-1", "title": "A"}]}))
    assert wfs("plan", "Shop", "--from", "plan.json").code == 0
    brief = wfs("task", "expand", "IMPL-1", "--dry-run").out
    assert brief.startswith("# Split IMPL-1: A\n")
    assert "Answer with a JSON array of the subtasks" in brief
    run = wfs("task", "expand", "IMPL-1")
    assert run.code == 2
    assert "`wfs task expand IMPL-1 --agent CMD`" in run.err
    assert "`wfs task split IMPL-1 --from FILE`" in run.err


# ---------------------------------------------------------------- where wfs plan plans


def test_plan_without_a_project_asks_for_wfs_init(project: Path) -> None:
    for args in (("Login", "--empty"), ("Login", "--from", "plan.json"), ("Login",)):
        run = wfs("plan", *args)
        assert (run.code, run.err) == (
            2,
            f"wfs: error: no .workflow/ in {project} or above; run `wfs init` first "
            "(or `wfs plan --here`)\n",
        )
    assert list(project.iterdir()) == []
    here = wfs("plan", "Login", "--here", "--empty")
    assert (here.code, here.out) == (0, "WFS-login\n")
    assert (project / ".workflow/WFS-login").is_dir()


@pytest.mark.slow
def test_plan_in_a_subfolder_of_a_git_work_tree_names_its_top(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "src/app").mkdir(parents=True)
    run = wfs_process("plan", "Login", "--empty", cwd=project / "src/app")
    assert (run.code, run.err) == (
        2,
        f"wfs: error: no .workflow/ in {project / 'src/app'} or above; run `wfs init` in "
        f"{project} (the top of this git work tree) first (or `wfs plan --here`)\n",
    )
    assert not (project / "src/app/.workflow").exists()


@pytest.mark.slow
def test_plan_in_a_subfolder_uses_the_project_above(initialized: Path) -> None:
    (initialized / "src/app").mkdir(parents=True)
    (initialized / "src/app/plan.json").write_text(json.dumps(VALID))
    run = wfs_process("plan", "Login", "--from", "plan.json", cwd=initialized / "src/app")
    assert (run.code, run.out) == (0, "WFS-login\n")
    assert (initialized / ".workflow/WFS-login/.task/IMPL-1.json").is_file()
    assert not (initialized / "src/app/.workflow").exists()


# ---------------------------------------------------------------- planning a topic again


def test_planning_a_topic_again_updates_its_session(initialized: Path) -> None:
    (initialized / "plan.json").write_text(json.dumps(VALID))
    assert wfs("plan", "Login", "--from", "plan.json").code == 0
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    more = {"tasks": [*VALID["tasks"], {"id": "IMPL-3", "title": "Audit login"}]}
    (initialized / "plan.json").write_text(json.dumps(more))
    run = wfs("plan", "Login", "--from", "plan.json")
    assert (run.code, run.out) == (0, "WFS-login\n")
    assert run.err == (
        "wfs: session WFS-login exists for this topic; updated it (1 task added, 2 replaced, "
        "statuses kept); --new makes a second session\n"
    )
    folder = initialized / ".workflow"
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith("WFS-")) == ["WFS-login"]
    assert read_json(folder / "WFS-login/.task/IMPL-1.json")["status"] == "completed"
    assert (folder / "WFS-login/.task/IMPL-3.json").is_file()
    data = wfs("--json", "plan", "Login", "--from", "plan.json").json()
    assert data == {
        "session": "WFS-login",
        "path": ".workflow/WFS-login",
        "tasks": 3,
        "existing": "WFS-login",
        "updated": True,
        "added": 0,
        "replaced": 3,
    }


def test_new_makes_a_second_session_and_says_so(initialized: Path) -> None:
    (initialized / "plan.json").write_text(json.dumps(VALID))
    first = wfs("--json", "plan", "Login", "--from", "plan.json").json()
    assert (first["existing"], first["updated"]) == (None, False)
    run = wfs("plan", "Login", "--from", "plan.json", "--new")
    assert (run.code, run.out) == (0, "WFS-login-002\n")
    assert run.err == (
        "wfs: session WFS-login exists for this topic; --new made a second one, "
        "WFS-login-002, now the only active session (WFS-login is paused)\n"
    )
    assert wfs("session", "list", "--json").json() is not None


def test_an_empty_session_for_a_topic_that_has_one_is_refused(initialized: Path) -> None:
    assert wfs("plan", "Login", "--empty").code == 0
    run = wfs("plan", "Login", "--empty")
    assert (run.code, run.err) == (
        2,
        "wfs: error: session WFS-login exists for this topic: give a plan (--from FILE) to "
        "update it, `wfs switch WFS-login` to work on it, or --new for a second one\n",
    )
    assert wfs("plan", "Login", "--empty", "--new").out == "WFS-login-002\n"


# ---------------------------------------------------------------- the canonical form


def test_a_minimal_hand_written_plan_validates_clean(initialized: Path) -> None:
    minimal = {
        "tasks": [
            {
                "id": "IMPL-1",
                "title": "Build",
                "flow_control": {
                    "implementation_approach": [
                        {"title": "Compile", "commands": ["bash(make)"]},
                    ]
                },
            },
            {"id": "IMPL-2", "title": "Ship", "depends_on": ["IMPL-1"]},
        ]
    }
    (initialized / "plan.json").write_text(json.dumps(minimal))
    assert wfs("plan", "Mini", "--from", "plan.json").code == 0
    run = wfs("validate")
    assert (run.code, run.out, run.err) == (0, "OK: WFS-mini\n", "")
    tasks = initialized / ".workflow/WFS-mini/.task"
    assert read_json(tasks / "IMPL-1.json")["flow_control"]["implementation_approach"] == [
        {
            "step": 1,
            "title": "Compile",
            "description": "Compile",
            "modification_points": [],
            "logic_flow": [],
            "depends_on": [],
            "output": "step_1_output",
            "commands": ["bash(make)"],
        }
    ]
    ship = read_json(tasks / "IMPL-2.json")
    assert "depends_on" not in ship
    assert ship["context"]["depends_on"] == ["IMPL-1"]
    assert ship["flow_control"] == {"pre_analysis": [], "implementation_approach": []}
    assert wfs("migrate").out == "Nothing to migrate.\n"
