"""A file of the plan that wfs did not format keeps its form: a status change is a
one-line diff in any file (CRLF line ends, another indentation, arrays on one line),
`switch` changes one line of a session file, and in the `active/` layout it records the
pause in the session's status, where that layout's tools look. Real sessions of the
corpus, in a real git repository, checked with git's own diff."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CORPUS, wfs
from git_helpers import commit_all, git, git_env

__all__ = ["git_env"]  # the fixture, used by name

TVBOX = CORPUS / "realworld/Timeink88__tvbox-aggregator/.workflow"
CONFIG = "WFS-fix-config-data-inconsistency"
DENO = "WFS-fix-deno-deploy-api-routes-404"
needs_corpus = pytest.mark.skipif(
    not TVBOX.is_dir(), reason=f"the real-world corpus is not available at {CORPUS}"
)


def crlf_copy(source: Path, root: Path) -> None:
    """`source` (a `.workflow/`) copied into a new git repository at `root`, every JSON
    file with CRLF line ends, committed."""
    shutil.copytree(source, root / ".workflow")
    for path in (root / ".workflow").rglob("*.json"):
        data = path.read_bytes()
        path.write_bytes(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    git(root, "init", "-q")
    git(root, "config", "core.autocrlf", "false")
    commit_all(root, "the plan as its author committed it")


def committed(root: Path, path: str) -> bytes:
    """The file as the commit holds it, byte for byte."""
    return subprocess.run(
        ["git", "show", f"HEAD:{path}"], cwd=root, capture_output=True, check=True
    ).stdout


def numstat(root: Path) -> list[str]:
    return git(root, "diff", "--numstat", "--", "*.json").stdout.splitlines()


@pytest.mark.slow
@needs_corpus
def test_a_status_change_in_a_crlf_file_of_a_real_session_is_a_one_line_diff(
    tmp_path: Path, git_env: Path
) -> None:
    root = tmp_path / "repo"
    crlf_copy(TVBOX, root)
    task = f".workflow/active/{CONFIG}/.task/IMPL-004.json"
    run = wfs("--root", str(root), "--session", CONFIG, "task", "status", "IMPL-004", "pending")
    assert (run.code, run.out) == (0, "IMPL-004: pending\n")
    assert numstat(root) == [f"1\t1\t{task}"]
    assert (root / task).read_bytes() == committed(root, task).replace(
        b'  "status": "completed",\r\n', b'  "status": "pending",\r\n'
    )
    run = wfs("--root", str(root), "--session", CONFIG, "task", "status", "IMPL-004", "completed")
    assert run.code == 0
    assert numstat(root) == []  # back as it was, byte for byte


@pytest.mark.slow
@needs_corpus
def test_switch_in_the_active_layout_pauses_the_other_in_its_status_one_line(
    tmp_path: Path, git_env: Path
) -> None:
    root = tmp_path / "repo"
    crlf_copy(TVBOX, root)
    run = wfs("--root", str(root), "switch", DENO)
    assert (run.code, run.out) == (0, f"Active session: {DENO} (paused {CONFIG})\n")
    session = f".workflow/active/{CONFIG}/workflow-session.json"
    assert numstat(root) == [f"1\t1\t{session}"]
    assert (root / session).read_bytes() == committed(root, session).replace(
        b'  "status": "planning",\r\n', b'  "status": "paused",\r\n'
    )
    assert sorted(p.name for p in (root / ".workflow").glob(".active-*")) == []  # no marker
    rows = wfs("--root", str(root), "session", "list", "--json").json()["sessions"]
    assert [(r["id"], r["active"], r["status"]) for r in rows] == [
        (CONFIG, False, "paused"),
        (DENO, True, "planning"),
    ]
    # and back: the paused one is active again, the other paused, each by one line
    run = wfs("--root", str(root), "switch", CONFIG)
    assert (run.code, run.out) == (0, f"Active session: {CONFIG} (paused {DENO})\n")
    assert sorted(numstat(root)) == [
        f"1\t1\t.workflow/active/{CONFIG}/workflow-session.json",
        f"1\t1\t.workflow/active/{DENO}/workflow-session.json",
    ]


def test_switch_changes_one_line_of_a_session_file_laid_out_by_another_tool(
    project: Path,
) -> None:
    for topic in ("Alpha", "Beta"):
        wfs("init", "--no-git")
        assert wfs("plan", topic, "--from", "-", input="[]").code == 0
    path = project / ".workflow/WFS-beta/workflow-session.json"
    data = json.loads(path.read_bytes())
    authored = json.dumps(data, indent=4, ensure_ascii=True).replace("\n", "\r\n").encode()
    path.write_bytes(authored)  # four spaces, CRLF, no final newline, inline arrays none
    assert wfs("switch", "alpha").code == 0
    assert path.read_bytes() == authored.replace(b'"status": "active"', b'"status": "paused"')
    assert wfs("switch", "beta").code == 0
    assert path.read_bytes() == authored
