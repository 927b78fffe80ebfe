"""`task status` and `task add` without click (wfs/fastpath.py) print, exit and write
exactly what the click commands do."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import tree_listing, wfs

FULL_CLI = "import sys; from wfs.cli import main; main()"
FAST_CLI = "from wfs.fastpath import main; main()"


def _project(root: Path) -> None:
    root.mkdir()
    os.chdir(root)
    assert wfs("init", "--no-git").code == 0
    tasks = [
        {"id": "IMPL-1", "title": "First"},
        {"id": "IMPL-2", "title": "Second", "context": {"depends_on": ["IMPL-1"]}},
        {"id": "IMPL-2.1", "title": "Part"},
        {"id": "IMPL-3", "title": "Third \x1b[31m red"},
    ]
    (root / "plan.json").write_text(json.dumps({"tasks": tasks}))
    assert wfs("plan", "demo", "--from", "plan.json").code == 0


def _run(code: str, root: Path, args: list[str]) -> tuple[int, bytes, bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WFS_")}
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=root, env=env, capture_output=True, timeout=60
    )
    return proc.returncode, proc.stdout, proc.stderr


def _files(root: Path) -> dict[str, bytes]:
    found = {}
    for name in tree_listing(root):
        path = root / name
        if path.is_file() and "/.cache/" not in f"/{name}" and "/.locks/" not in f"/{name}":
            found[name] = path.read_bytes()
    return found


CASES = [
    ["task", "status", "IMPL-1", "completed"],
    ["--json", "task", "status", "IMPL-1", "active"],
    ["task", "status", "IMPL-1", "pending", "--json"],
    ["task", "status", "IMPL-2", "completed"],  # a container
    ["task", "status", "IMPL-9", "completed"],  # unknown
    ["task", "status", "IMPL-x", "completed"],  # not an id
    ["task", "status", "IMPL-3", "blocked"],
    ["--session", "WFS-nope", "task", "status", "IMPL-1", "completed"],
    ["task", "add", "--title", "Added"],
    ["task", "add", "--title", "Added", "--depends-on", "IMPL-1", "--depends-on", "IMPL-3"],
    ["--json", "task", "add", "--title", "Sub", "--parent", "IMPL-2", "--agent", "@x"],
    ["task", "add", "--title", "Dup", "--id", "IMPL-1"],
    ["task", "add", "--title", "Bad dep", "--depends-on", "IMPL-42"],
    ["task", "add", "--title", "Split a started one", "--parent", "IMPL-1"],
    ["task", "add", "--title", "With criteria", "--acceptance", "a | b", "--requirement", "r"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c) for c in CASES])
def test_fast_and_click_paths_print_exit_and_write_the_same(
    tmp_path: Path, args: list[str]
) -> None:
    _project(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b", symlinks=True)
    wfs("task", "status", "IMPL-1", "active")  # in a: IMPL-1 started
    os.chdir(tmp_path / "b")
    wfs("task", "status", "IMPL-1", "active")
    fast = _run(FAST_CLI, tmp_path / "a", args)
    full = _run(FULL_CLI, tmp_path / "b", args)
    assert fast == full
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_the_fast_path_does_not_import_click(tmp_path: Path) -> None:
    _project(tmp_path / "p")
    code = (
        "import sys\nfrom wfs.fastpath import write\n"
        "assert write(sys.argv[1:], {}) is True\n"
        "assert 'click' not in sys.modules and 'jsonschema' not in sys.modules, "
        "sorted(sys.modules)\n"
    )
    for args in (["task", "status", "IMPL-1", "completed"], ["task", "add", "--title", "T"]):
        proc = subprocess.run(
            [sys.executable, "-c", code, *args], cwd=tmp_path / "p", capture_output=True
        )
        assert proc.returncode == 0, proc.stderr.decode()


@pytest.mark.parametrize(
    "args",
    [
        ["task", "status", "IMPL-1", "bogus"],
        ["task", "status", "IMPL-1"],
        ["task", "add"],
        ["task", "add", "--title"],
        ["task", "add", "--type", "docs", "--title", "T"],
        ["task", "add", "--from", "x.json"],
        ["task", "add", "--title=T"],
        ["task", "update", "IMPL-1", "--title", "T"],
        ["--verbose", "task", "status", "IMPL-1", "completed"],
    ],
)
def test_other_forms_are_left_to_the_full_cli(tmp_path: Path, args: list[str]) -> None:
    from wfs.fastpath import write

    _project(tmp_path / "p")
    before = _files(tmp_path / "p")
    assert write(args, {}) is False
    assert _files(tmp_path / "p") == before
