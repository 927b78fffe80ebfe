"""Authored content is never destroyed: an IMPL_PLAN.md or TODO_LIST.md wfs did not
generate is kept (byte for byte) and linked from the generated view; session fields wfs
does not own are never rewritten; `doctor --fix` keeps every byte it replaces."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, VIEW_MARK, read_json, wfs

HAPI = (
    CORPUS / "realworld/flintttan__hapi/.workflow/archives/"
    "WFS-add-multi-user-support-to-hapi-with-data-isolation"
)
STEP = {
    "step": 1,
    "title": "Greet",
    "description": "Write the greeting",
    "modification_points": ["greeting.txt"],
    "logic_flow": ["echo"],
    "depends_on": [],
    "output": "greeting",
    "command": "bash(echo hello > greeting.txt)",
}


def authored_plan() -> bytes:
    """24 KB of a plan written by a planning agent (the corpus's, when it is there)."""
    if (HAPI / "IMPL_PLAN.md").is_file():
        data = (HAPI / "IMPL_PLAN.md").read_bytes()
    else:
        section = (
            "## Phase {n}\n\n- 认证 step {n}: keep `tokens` safe\n\n```mermaid\ngraph TD\n```\n\n"
        )
        data = "---\nidentifier: WFS-x\n---\n# 实施计划\n\n".encode() + b"".join(
            section.format(n=n).encode() for n in range(400)
        )
    assert len(data) >= 24_000
    return data


def run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wfs", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ},
    )


@pytest.mark.slow
def test_an_authored_24_kb_plan_stays_readable_byte_for_byte_after_execute_and_doctor(
    project: Path,
) -> None:
    plan = [{"id": "IMPL-1", "title": "Greet", "flow_control": {"implementation_approach": [STEP]}}]
    wfs("init", "--no-git")
    sid = wfs("plan", "Greeting", "--from", "-", input=json.dumps(plan)).out.strip()
    folder = project / ".workflow" / sid
    authored = authored_plan()
    (folder / "IMPL_PLAN.md").write_bytes(authored)  # as a planning agent leaves it
    (folder / "TODO_LIST.md").write_text("# TODO\n\n- [ ] IMPL-1 with my own notes\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    subprocess.run(
        ["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "plan"],
        cwd=project,
        check=True,
    )
    assert run(project, "execute").returncode == 0
    assert (project / "greeting.txt").read_text() == "hello\n"
    # The change of the plan is its lines of JSON: the authored views are as they were.
    assert (folder / "IMPL_PLAN.md").read_bytes() == authored
    assert (folder / "TODO_LIST.md").read_text() == "# TODO\n\n- [ ] IMPL-1 with my own notes\n"
    numstat = subprocess.run(
        ["git", "diff", "--numstat"], cwd=project, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert [line.split("\t")[2] for line in numstat] == [
        f".workflow/{sid}/.task/IMPL-1.json",
        f".workflow/{sid}/workflow-session.json",
    ]
    assert sum(int(line.split("\t")[0]) + int(line.split("\t")[1]) for line in numstat) < 40
    stale = run(project, "render", "--check")
    assert stale.returncode == 1
    assert f".workflow/{sid}/IMPL_PLAN.md" in stale.stdout
    assert run(project, "render").returncode == 0  # asked for: kept aside, view written
    kept = folder / "IMPL_PLAN.authored.md"
    assert kept.read_bytes() == authored
    plan_view = (folder / "IMPL_PLAN.md").read_text()
    assert (
        "- **Authored plan**: [IMPL_PLAN.authored.md](./IMPL_PLAN.authored.md) (written before "
        "wfs generated this view, kept as it was)\n"
    ) in plan_view
    assert "**Progress**: 1/1 tasks completed" in plan_view
    todo = (folder / "TODO_LIST.md").read_text()
    assert todo.startswith(
        VIEW_MARK + "# Tasks: Greeting\n\n"
        "> Kept as written before wfs generated this view: "
        "[TODO_LIST.authored.md](./TODO_LIST.authored.md)\n\n"
        "## Task Progress\n"
    )
    assert (folder / "TODO_LIST.authored.md").read_text() == (
        "# TODO\n\n- [ ] IMPL-1 with my own notes\n"
    )
    assert run(project, "render", "--check").returncode == 0
    # doctor: a hand edit to the generated view is kept too, and nothing is lost
    generated = (folder / "IMPL_PLAN.md").read_bytes()
    (folder / "IMPL_PLAN.md").write_bytes(
        generated.replace(b"## Overview", b"## Overview (edited)")
    )
    fixed = run(project, "doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert kept.read_bytes() == authored
    backups = list((project / ".workflow/.doctor").glob(f"*/{sid}/IMPL_PLAN.md"))
    assert [b.read_bytes() for b in backups] == [
        generated.replace(b"## Overview", b"## Overview (edited)")
    ]
    assert (folder / "IMPL_PLAN.md").read_bytes() == generated
    assert run(project, "doctor").stdout == "OK: nothing to repair\n"


@pytest.mark.slow
def test_a_real_session_keeps_its_plan_and_its_own_session_fields(
    project: Path, tmp_path: Path
) -> None:
    if not HAPI.is_dir():
        pytest.skip(f"the real-world corpus is not available at {CORPUS}")
    folder = project / ".workflow/archives" / HAPI.name
    shutil.copytree(HAPI, folder)
    session_before = (folder / "workflow-session.json").read_bytes()
    plan_before = (folder / "IMPL_PLAN.md").read_bytes()
    agent = tmp_path / "agent"
    agent.write_text("#!/bin/sh\ncat > /dev/null\necho done\n")
    agent.chmod(0o755)
    # archived: it runs again only with --force
    refused = run(project, "--session", HAPI.name, "execute", "--agent", str(agent))
    assert refused.returncode == 2
    assert "runs a finished session again only with --force" in refused.stderr
    # its next task stops at a file of the project that is not in the corpus: blocked
    done = run(project, "--session", HAPI.name, "execute", "--agent", str(agent), "--force")
    assert done.returncode == 1
    assert run(project, "doctor", "--fix").returncode == 0
    assert (folder / "IMPL_PLAN.authored.md").read_bytes() == plan_before
    assert (folder / "workflow-session.json").read_bytes() == session_before
    assert read_json(folder / "workflow-session.json")["type"] == "workflow"
    assert (
        "[IMPL_PLAN.authored.md](./IMPL_PLAN.authored.md)" in (folder / "IMPL_PLAN.md").read_text()
    )


def test_wfs_keeps_session_fields_it_does_not_own(project: Path) -> None:
    plan = [{"id": f"IMPL-{n}", "title": f"T{n}"} for n in range(1, 7)]
    wfs("init", "--no-git")
    sid = wfs("plan", "Owned", "--from", "-", input=json.dumps(plan)).out.strip()
    path = project / ".workflow" / sid / "workflow-session.json"
    theirs = {"session_id": sid, "project": "Owned", "status": "planning", "type": "workflow",
              "created_at": "2026-01-13T01:25:00Z"}  # fmt: skip
    path.write_text(json.dumps(theirs))
    for args in (["task", "status", "IMPL-1", "completed"], ["render"], ["switch", sid]):
        assert wfs(*args).code == 0, args
    assert read_json(path) == theirs  # no phase, no progress, no complexity written
    status = wfs("--session", sid, "status", "--json").json()
    assert (status["type"], status["phase"], status["status"]) == (
        "workflow",
        "IMPLEMENT",
        "planning",
    )
    # a seed session file is kept up to date as before: complexity raised, phase derived
    wfs("plan", "Seed", "--from", "-", input=json.dumps(plan))
    seed = read_json(project / ".workflow/WFS-seed/workflow-session.json")
    assert (seed["type"], seed["current_phase"]) == ("medium", "PLAN")


@pytest.mark.slow
def test_an_authored_summary_is_kept_byte_for_byte_and_linked_from_wfs_s(
    project: Path,
) -> None:
    plan = [{"id": "IMPL-1", "title": "Greet", "flow_control": {"implementation_approach": [STEP]}}]
    wfs("init", "--no-git")
    sid = wfs("plan", "Greeting", "--from", "-", input=json.dumps(plan)).out.strip()
    summaries = project / ".workflow" / sid / ".summaries"
    summaries.mkdir()
    authored = b"# IMPL-1 notes\r\n\r\nWritten by the author before the run.\r\n"
    (summaries / "IMPL-1-summary.md").write_bytes(authored)
    assert run(project, "execute").returncode == 0
    assert (summaries / "IMPL-1-summary.authored.md").read_bytes() == authored
    lines = (summaries / "IMPL-1-summary.md").read_text(encoding="utf-8").splitlines()
    assert lines[:4] == [
        "<!-- generated by wfs: the summary of IMPL-1, written when it completed -->",
        "# IMPL-1: Greet",
        "",
        "> Kept as written before wfs wrote this summary: "
        "[IMPL-1-summary.authored.md](./IMPL-1-summary.authored.md)",
    ]
    # Run again: wfs's own summary is replaced, the author's stays the one copy.
    assert wfs("task", "status", "IMPL-1", "pending").code == 0
    assert run(project, "execute").returncode == 0
    assert sorted(p.name for p in summaries.iterdir()) == [
        "IMPL-1-summary.authored.md",
        "IMPL-1-summary.md",
    ]
    assert (summaries / "IMPL-1-summary.authored.md").read_bytes() == authored
    assert (summaries / "IMPL-1-summary.md").read_text(encoding="utf-8").splitlines()[:4] == lines[
        :4
    ]


def test_an_authored_todo_list_close_to_wfs_s_format_is_kept_not_overwritten(
    project: Path,
) -> None:
    tasks = [{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two"}]
    wfs("init", "--no-git")
    sid = wfs("plan", "Close", "--from", "-", input=json.dumps(tasks)).out.strip()
    folder = project / ".workflow" / sid
    generated = (folder / "TODO_LIST.md").read_text(encoding="utf-8")
    # What an earlier wfs wrote, then edited by hand: a task the JSON does not have.
    authored = generated.removeprefix(VIEW_MARK).replace(
        "## Status Legend",
        "- [ ] **IMPL-3**: Three → [📋](./.task/IMPL-3.json)\n\n## Status Legend",
    )
    (folder / "TODO_LIST.md").write_text(authored, encoding="utf-8")
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    assert (folder / "TODO_LIST.md").read_text(encoding="utf-8") == authored  # as it was
    assert wfs("render", "--check").code == 1
    assert wfs("render").code == 0
    assert (folder / "TODO_LIST.authored.md").read_text(encoding="utf-8") == authored
    todo = (folder / "TODO_LIST.md").read_text(encoding="utf-8")
    assert todo.startswith(
        VIEW_MARK + "# Tasks: Close\n\n> Kept as written before wfs generated this view: "
        "[TODO_LIST.authored.md](./TODO_LIST.authored.md)\n\n"
    )
    assert "IMPL-3" not in todo
    assert wfs("render", "--check").code == 0


@pytest.mark.slow
def test_views_an_earlier_wfs_wrote_gain_the_mark_and_are_not_kept_as_authored(
    project: Path,
) -> None:
    tasks = [{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two"}]
    wfs("init", "--no-git")
    sid = wfs("plan", "Upgrade", "--from", "-", input=json.dumps(tasks)).out.strip()
    folder = project / ".workflow" / sid
    earlier = {}
    for name in ("TODO_LIST.md", "IMPL_PLAN.md"):  # as wfs wrote them before the mark
        earlier[name] = (folder / name).read_bytes().removeprefix(VIEW_MARK.encode())
        (folder / name).write_bytes(earlier[name])
    shutil.rmtree(project / ".workflow/.cache", ignore_errors=True)  # no index of theirs
    assert wfs("render", "--check").code == 0  # up to date: no churn on upgrade
    assert wfs("status").code == 0
    assert {n: (folder / n).read_bytes() for n in earlier} == earlier  # reads write nothing
    assert wfs("task", "status", "IMPL-1", "completed").code == 0
    assert sorted(p.name for p in folder.glob("*.md")) == ["IMPL_PLAN.md", "TODO_LIST.md"]
    todo = (folder / "TODO_LIST.md").read_text(encoding="utf-8")
    assert todo.startswith(VIEW_MARK + "# Tasks: Upgrade\n\n## Task Progress\n- [x] **IMPL-1**")
