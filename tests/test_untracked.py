"""Runtime files (caches, locks, run records) never show up in `git status`, and a
command that does no work changes no file: real sessions committed to a real git
repository, the real CLI, and git's own answer (`git status --porcelain`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS, wfs
from git_helpers import commit_all, git, git_env

REALWORLD = CORPUS / "realworld"
REPOS = sorted(p.name for p in REALWORLD.iterdir() if p.is_dir()) if REALWORLD.is_dir() else []
MISSING = f"the real-world corpus is not available at {REALWORLD}"

__all__ = ["git_env"]  # the fixture, used by name

# The commands that only read: none of them may leave a file behind.
READS = (
    ("status",),
    ("status", "--json"),
    ("next",),
    ("next", "--all"),
    ("task", "list"),
    ("validate",),
    ("render", "--check"),
    ("session", "show"),
    ("execute", "--dry-run"),
)


def untracked(root: Path) -> list[str]:
    out = git(root, "status", "--porcelain", "--untracked-files=all").stdout
    return [line for line in out.splitlines() if line.startswith("??")]


def changed(root: Path) -> list[str]:
    return git(root, "status", "--porcelain", "--untracked-files=all").stdout.splitlines()


def stamps(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every committed file of `.workflow/` with its mtime and bytes."""
    files = git(root, "ls-files", ".workflow").stdout.splitlines()
    return {f: ((root / f).stat().st_mtime_ns, (root / f).read_bytes()) for f in files}


def session_ids(root: Path) -> list[str]:
    listed = wfs("--root", str(root), "session", "list", "--json")
    return [row["id"] for row in listed.json()["sessions"]]


def read_everything(root: Path) -> None:
    """Every read command, on every session of the project, as a person would try them."""
    for args in (("session", "list"), ("validate", "--all"), ("render", "--check", "--all")):
        wfs("--root", str(root), *args)
    wfs("--root", str(root), "doctor")
    for sid in session_ids(root):
        for args in READS:
            wfs("--root", str(root), "--session", sid, *args)
        shown = wfs("--root", str(root), "--session", sid, "task", "list", "--json")
        for row in shown.json()["tasks"][:3] if shown.code == 0 else []:
            wfs("--root", str(root), "--session", sid, "task", "show", row["id"])


@pytest.mark.slow
@pytest.mark.parametrize("repo", REPOS or [pytest.param("", marks=pytest.mark.skip(MISSING))])
def test_reads_of_a_committed_corpus_leave_no_file_and_change_none(
    repo: str, tmp_path: Path, git_env: Path
) -> None:
    root = tmp_path / repo
    shutil.copytree(REALWORLD / repo, root)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)  # the corpus is read-only
    git(root, "init", "-q")
    commit_all(root, "their plan, with no .workflow/.gitignore")
    before = stamps(root)
    read_everything(root)
    read_everything(root)  # again, with the caches written
    assert changed(root) == []
    assert stamps(root) == before  # not even touched
    if not session_ids(root):  # only another tool's plans: wfs keeps no cache of them
        assert not (root / ".workflow/.cache").exists()
        return
    # The runtime files are there, where git ignores them.
    assert (root / ".workflow/.cache/.gitignore").read_text() == (
        "# Written by wfs: local runtime files, never committed.\n*\n"
    )
    assert git(root, "check-ignore", ".workflow/.cache/x.idx").returncode == 0


@pytest.mark.slow
def test_writes_and_runs_leave_only_changes_to_the_plan(tmp_path: Path, git_env: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    plan = [
        {
            "id": "IMPL-1",
            "title": "Greet",
            "flow_control": {
                "implementation_approach": [
                    {
                        "step": 1,
                        "title": "Greet",
                        "description": "Write the greeting",
                        "modification_points": ["greeting.txt"],
                        "logic_flow": ["echo"],
                        "depends_on": [],
                        "output": "greeting",
                        "command": "bash(echo hello > greeting.txt)",
                    }
                ]
            },
        },
        {"id": "IMPL-2", "title": "Two"},
    ]
    assert wfs("--root", str(root), "init", "--no-git").code == 0
    assert (
        wfs("--root", str(root), "plan", "Greet", "--from", "-", input=json.dumps(plan)).code == 0
    )
    # A plan committed without wfs's .gitignore (another tool's, or removed by hand).
    (root / ".workflow/.gitignore").unlink()
    git(root, "init", "-q")
    commit_all(root, "the plan")
    read_everything(root)
    assert changed(root) == []
    assert wfs("--root", str(root), "execute").code == 0
    assert wfs("--root", str(root), "task", "status", "IMPL-2", "blocked").code == 0
    assert (root / ".workflow/WFS-greet/.runs/.gitignore").is_file()
    assert (root / ".workflow/.locks/.gitignore").is_file()
    assert untracked(root) == [
        "?? .workflow/WFS-greet/.summaries/IMPL-1-summary.md",
        "?? greeting.txt",
    ]


@pytest.mark.parametrize("views", ["generated", "authored"])
def test_a_command_that_does_no_work_touches_no_view(project: Path, views: str) -> None:
    tasks = [{"id": "IMPL-1", "title": "One"}, {"id": "IMPL-2", "title": "Two"}]
    wfs("init", "--no-git")
    sid = wfs("plan", "Idle", "--from", "-", input=json.dumps(tasks)).out.strip()
    folder = project / ".workflow" / sid
    assert wfs("task", "status", "IMPL-2", "blocked").code == 0
    if views == "authored":  # as a planning agent leaves them: wfs keeps them at a write
        (folder / "IMPL_PLAN.md").write_text("# Plan\n\nWritten by an agent.\n")
        (folder / "TODO_LIST.md").write_text("# TODO\n\n- [ ] IMPL-1\n")
    views = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in folder.glob("*.md")}
    session = (folder / "workflow-session.json").stat().st_mtime_ns
    for args in (
        ("task", "status", "IMPL-1", "pending"),  # already pending
        ("task", "status", "IMPL-2", "blocked"),  # already blocked
        ("switch", sid),  # already the active session
        ("session", "resume", sid),
        ("migrate",),
        ("init",),
        *([("render",), ("doctor", "--fix")] if views == "generated" else []),
    ):
        assert wfs(*args).code == 0, args
        assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in views} == views, args
        assert (folder / "workflow-session.json").stat().st_mtime_ns == session, args
